#!/usr/bin/env python3
"""Reproduces the scheduler tables of issues #3 and #4 (SSSP or BFS).

Usage: bench/sssp_table.py ORDO_BINARY OUT_DIR [--quick] [--only=INPUT,INPUT] [--scheds=SPEC;SPEC]
       [--app=sssp|bfs] [--repeat=N] [--cycles]

Prepares the inputs as .ordo files in OUT_DIR (road-like 4M, FLA with uniform
weights 1..100000 seed 1, Kronecker scale 20, the 1M grid of anchors.md), then
runs `ordo run sssp --repeat 5 --verify --json` for every scheduler and thread
count, and prints a Markdown table of medians. Raw JSON lines go to
OUT_DIR/runs.jsonl. Run it on a quiet machine.
"""
import json
import os
import subprocess
import sys

ordo, out = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv
os.makedirs(out, exist_ok=True)
data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")

inputs = {
    "road4M": ["gen", "road:n=4000000,seed=1"],
    "FLA-u1e5": ["convert", os.path.join(data, "road", "FLA.edges.gz"),
                 "--weights", "uniform:1..100000:seed=1", "--symmetrize"],
    "kron20": ["gen", "kron:scale=20,seed=1"],
    "grid1M": ["gen", "grid:w=1000,h=1000,seed=1"],
}
# Source vertex per input: Kronecker vertex 0 is isolated after the Graph500
# permutation (40% of the vertices are), vertex 1 lies in the giant component.
sources = {"kron20": 1}
if quick:
    inputs = {"road200k": ["gen", "road:n=200000,seed=1"]}
only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
if only:
    inputs = {k: v for k, v in inputs.items() if k in only[0].split(",")}

scheds = ["strict"] + [f"obim:delta={d}" for d in (0, 4, 8, 12, 14, 16, 18)] + ["pmod"]
chosen = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--scheds=")]
app = ([a.split("=", 1)[1] for a in sys.argv if a.startswith("--app=")] or ["sssp"])[0]
cycles = "--cycles" in sys.argv
reps_arg = [int(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--repeat=")]
if chosen:
    scheds = chosen[0].split(";")
threads = [1, 2]
reps = reps_arg[0] if reps_arg else (2 if quick else 5)
timeout = 300

for name, how in inputs.items():
    path = os.path.join(out, name + ".ordo")
    if not os.path.exists(path):
        cmd = [ordo] + how[:2] + (["-o", path] if how[0] == "gen" else [path]) + how[2:]
        subprocess.run(cmd, check=True)

rows = []
with open(os.path.join(out, "runs.jsonl"), "a") as log:
    for name in inputs:
        path = os.path.join(out, name + ".ordo")
        for t in threads:
            for s in scheds:
                cmd = [ordo, "run", app, "--graph", path, "--sched", s, "--threads", str(t),
                       "--repeat", str(reps), "--verify", "--json", "--source", str(sources.get(name, 0))] + (["--cycles"] if cycles else [])
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    rows.append((name, t, s, None))
                    print(f"{name} t={t} {s}: timeout after {timeout} s", file=sys.stderr)
                    continue
                if p.returncode != 0:
                    rows.append((name, t, s, {"error": p.stderr.strip()}))
                    print(f"{name} t={t} {s}: {p.stderr.strip()}", file=sys.stderr)
                    continue
                r = json.loads(p.stdout)
                log.write(p.stdout)
                rows.append((name, t, s, r))
                print(f"{name} t={t} {s}: {r['time_s']*1e3:.1f} ms wi={r['work_increase']:.3f} "
                      f"seq={r['seq_time_s']*1e3:.1f} ms", file=sys.stderr)

print(f"{app}" + (" (with --cycles: times include the timing overhead)" if cycles else ""))
print("| input | threads | scheduler | time ms (median; min–max) | reference ms | vs reference | work increase | empty pops | cycles/push | cycles/pop | final lmf / trace |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name, t, s, r in rows:
    if r is None:
        print(f"| {name} | {t} | {s} | timeout (> {timeout} s for {reps} runs) | | | | | | | |")
        continue
    if "error" in r:
        print(f"| {name} | {t} | {s} | error: {r['error'][:80]} | | | | | | | |")
        continue
    ts = r["times_s"]
    lmf = ""
    if "lmf" in r["traces"]:
        pts = r["traces"]["lmf"]["points"]
        lmf = f"{pts[-1][1]} ({len(pts) - 1} changes: " + " ".join(f"{v}@{x}" for x, v in pts[:6]) + (" …" if len(pts) > 6 else "") + ")"
    c = r.get("breakdown") or r["sched_counters"]  # the Table 1 cycles moved to `breakdown`
    per_push = f"{c['cycles_enq'] / max(r['pushes'], 1):.0f}" if "cycles_enq" in c else ""
    per_pop = f"{c['cycles_deq'] / max(r['pops'], 1):.0f}" if "cycles_deq" in c else ""
    print(f"| {name} | {t} | {s} | {r['time_s']*1e3:.1f} ({min(ts)*1e3:.1f}–{max(ts)*1e3:.1f}) "
          f"| {r['seq_time_s']*1e3:.1f} | {r['vs_seq']:.2f}× | {r['work_increase']:.3f} | {r['empty_pops']} "
          f"| {per_push} | {per_pop} | {lmf} |")
