#!/usr/bin/env python3
"""Distributed SSSP: DC variants against distributed Delta-stepping.

Usage: bench/dist_sssp.py ORDO_BINARY OUT_DIR [--mpi] [--quick] [--ranks=1,2,4,8]
       [--inputs=kron16,kron18,kron20,road1M] [--variants=np,dc,ff,af,fc,af+fc,delta,delta:D,...]
       [--repeat=N] [--threads=T] [--sweep-fc] [--sweep-freq] [--no-verify]

Prepares the inputs as .ordo files in OUT_DIR (Kronecker scale 16, 18, 20 and
road:n=1e6; --quick: Kronecker scale 10 and road:n=20000), then runs
`ordo dist sssp --graph FILE --variant V --json --verify` for every input,
rank count and variant, either in one process (`--ranks R`, the default) or
under MPI (`--mpi`: `mpirun --oversubscribe --bind-to none -np R`, the binary
built with `--features mpi`). Raw JSON lines go to OUT_DIR/runs.jsonl; the
Markdown tables (medians over --repeat runs) to stdout and OUT_DIR/summary.md:

- per input and rank count, each variant's time, time relative to
  Delta-stepping, work items, work relative to Delta-stepping, messages, bytes,
  network-progress calls and idle time;
- memory: the largest graph part of a rank against the whole graph (each rank
  should hold about 1/R), and the peak RSS per rank (meaningful under --mpi).

A variant `delta:D` runs Delta-stepping with `--delta D` (plain `delta` uses
the default, the mean edge weight over the mean out-degree, and is the
baseline of the ratios); e.g.
`--variants=af+fc,delta,delta:1,delta:32` compares with the paper's Delta = 1.
Kronecker runs start at the vertex of largest degree (many vertices are
isolated after the Graph500 permutation); road graphs at vertex 0.

--sweep-fc adds af+fc runs at 4 ranks on the middle input over a grid of
(send_threshold, sync_threshold) around the scaled default (the paper's Fig. 2
experiment); --sweep-freq adds ff and af over freq in 16..512. They are how the
defaults are to be chosen by measurement.

Ranks on a 2-core machine are oversubscribed: compare times only as ratios
between variants run the same way, on a quiet machine.
"""
import json
import os
import statistics
import subprocess
import sys

ordo, out = sys.argv[1], sys.argv[2]
args = sys.argv[3:]


def opt(name, default):
    got = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return got[0] if got else default


quick = "--quick" in args
use_mpi = "--mpi" in args
verify = "--no-verify" not in args
os.makedirs(out, exist_ok=True)

inputs = {
    "kron16": "kron:scale=16,seed=1",
    "kron18": "kron:scale=18,seed=1",
    "kron20": "kron:scale=20,seed=1",
    "road1M": "road:n=1000000,seed=1",
}
if quick:
    inputs = {"kron10": "kron:scale=10,seed=1", "road20k": "road:n=20000,seed=1"}
chosen = opt("inputs", "")
if chosen:
    inputs = {k: v for k, v in inputs.items() if k in chosen.split(",")}
ranks_list = [int(r) for r in opt("ranks", "1,2" if quick else "1,2,4,8").split(",")]
variants = opt("variants", "np,dc,ff,af,fc,af+fc,delta").split(",")
reps = int(opt("repeat", "1" if quick else "3"))
threads = opt("threads", "1")
timeout = 1800


def max_degree_vertex(path):
    """The vertex of largest out-degree of a .ordo file (read from its
    offsets array): on Kronecker graphs many vertices are isolated after the
    Graph500 permutation, and this one lies in the giant component."""
    import array
    with open(path, "rb") as f:
        header = f.read(64)
        n = int.from_bytes(header[16:24], "little")
        offsets = array.array("Q")
        offsets.frombytes(f.read(8 * (n + 1)))
    if sys.byteorder != "little":
        offsets.byteswap()
    return max(range(n), key=lambda v: offsets[v + 1] - offsets[v])


sources = {}
for name, spec in inputs.items():
    path = os.path.join(out, name + ".ordo")
    if not os.path.exists(path):
        subprocess.run([ordo, "gen", spec, "-o", path], check=True)
    sources[name] = max_degree_vertex(path) if name.startswith("kron") else 0


def run(name, ranks, variant, extra=(), rep=0):
    path = os.path.join(out, name + ".ordo")
    variant, _, delta = variant.partition(":")
    if delta:
        extra = list(extra) + ["--delta", delta]
    cmd = [ordo, "--threads", threads, "dist", "sssp", "--graph", path, "--variant", variant,
           "--source", str(sources[name]), "--json"] + list(extra)
    if verify and rep == 0:
        cmd.append("--verify")
    env = dict(os.environ)
    if use_mpi:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)] + cmd
    else:
        cmd += ["--ranks", str(ranks)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr}")
    rec = json.loads(p.stdout.strip().splitlines()[-1])
    rec["input"], rec["extra"], rec["rep"] = name, list(extra), rep
    return rec


def med(recs, key):
    return statistics.median(r[key] for r in recs)


log = open(os.path.join(out, "runs.jsonl"), "a")
results = {}
for name in inputs:
    for ranks in ranks_list:
        for variant in variants:
            recs = []
            for rep in range(reps):
                rec = run(name, ranks, variant, rep=rep)
                log.write(json.dumps(rec) + "\n")
                log.flush()
                recs.append(rec)
            results[(name, ranks, variant)] = recs
            print(f"{name} R={ranks} {variant}: {med(recs, 'time_s'):.4f} s, "
                  f"{recs[0]['work_items']} work items", file=sys.stderr)

lines = []
for name in inputs:
    lines.append(f"\n### {name} ({inputs[name]}, source {sources[name]}, {'MPI' if use_mpi else 'in-process'}, "
                 f"{threads} thread(s) per rank, median of {reps})\n")
    lines.append("| ranks | variant | time s | vs delta | work items | vs delta | stale | messages | MB sent "
                 "| progress calls | idle s | reached |")
    lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ranks in ranks_list:
        base = results.get((name, ranks, "delta"))
        for variant in variants:
            recs = results[(name, ranks, variant)]
            t, w = med(recs, "time_s"), med(recs, "work_items")
            vt = f"{t / med(base, 'time_s'):.2f}" if base else "-"
            vw = f"{w / med(base, 'work_items'):.2f}" if base else "-"
            lines.append(f"| {ranks} | {variant} | {t:.4f} | {vt} | {w:.0f} | {vw} | {med(recs, 'stale_items'):.0f} "
                         f"| {med(recs, 'messages_sent'):.0f} | {med(recs, 'bytes_sent') / 1e6:.2f} "
                         f"| {med(recs, 'progress_calls'):.0f} | {med(recs, 'idle_s'):.3f} | {recs[0]['reached']} |")
    lines.append(f"\nMemory on {name}: largest graph part of a rank / whole graph, peak RSS per rank\n")
    lines.append("| ranks | whole graph MB | largest part MB | part / whole | 1/R | peak RSS per rank MB (max) |")
    lines.append("|---:|---:|---:|---:|---:|---:|")
    for ranks in ranks_list:
        r = results[(name, ranks, variants[0])][0]
        whole, part = r["whole_graph_bytes"], r["max_graph_bytes_per_rank"]
        rss = max(x["peak_rss_bytes"] for x in r["per_rank"])
        lines.append(f"| {ranks} | {whole / 1e6:.1f} | {part / 1e6:.1f} | {part / whole:.3f} | {1 / ranks:.3f} "
                     f"| {rss / 1e6:.0f} |")

mid = list(inputs)[len(inputs) // 2]
if "--sweep-fc" in args:
    base = run(mid, 4, "af+fc")
    auto = int(base["params"]["send_threshold"])
    lines.append(f"\n### af+fc flow-control sweep on {mid}, 4 ranks (default send_threshold {auto})\n")
    lines.append("| send_threshold | sync_threshold | time s | work items | acked sends | fc stalls |")
    lines.append("|---:|---:|---:|---:|---:|---:|")
    for send in sorted({max(1, auto // 8), max(1, auto // 2), auto, auto * 2, auto * 8, 10000}):
        for sync in (1, 2, 8, 100):
            recs = [run(mid, 4, "af+fc", ["--send-threshold", str(send), "--sync-threshold", str(sync)], rep)
                    for rep in range(reps)]
            for rec in recs:
                log.write(json.dumps(rec) + "\n")
            lines.append(f"| {send} | {sync} | {med(recs, 'time_s'):.4f} | {med(recs, 'work_items'):.0f} "
                         f"| {med(recs, 'acked_sends'):.0f} | {med(recs, 'fc_stalls'):.0f} |")
if "--sweep-freq" in args:
    lines.append(f"\n### frequency sweep on {mid}, 4 ranks\n")
    lines.append("| variant | freq | time s | work items | progress calls |")
    lines.append("|---|---:|---:|---:|---:|")
    for variant in ("ff", "af"):
        for freq in (16, 32, 64, 128, 256, 512):
            recs = [run(mid, 4, variant, ["--freq", str(freq)], rep) for rep in range(reps)]
            for rec in recs:
                log.write(json.dumps(rec) + "\n")
            lines.append(f"| {variant} | {freq} | {med(recs, 'time_s'):.4f} | {med(recs, 'work_items'):.0f} "
                         f"| {med(recs, 'progress_calls'):.0f} |")

text = "\n".join(lines) + "\n"
print(text)
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write(text)
