#!/usr/bin/env python3
"""ordo against GAPBS, Wasp and rho-stepping on the same SSSP inputs.

Commands (see bench/peers/README.md):
  prepare  write every input of the plan once: NAME.ordo for ordo, NAME.gr (DIMACS, by
           `ordo convert`), then each peer's binary format from that .gr with the peer's
           own converter
  check    run ordo (verified against Dijkstra) and each peer once per input; the
           distances must agree: vertices reached, sum and maximum
  tune     sweep each configurable system's parameter (one process per point), per input
           and thread count; the best point of each family goes to the final phase
  final    the untuned ordo configurations and the best of every family, repetitions
           interleaved across configurations
  table    medians (min-max) of the final phase, ratios, the goals of the plan
  duel     `auto` against the best tuned peer of the final phase, alternating one process
           of each many times: the median of the ratios of neighbouring processes, which
           a machine whose speed drifts from minute to minute disturbs far less than the
           ratio of two medians

Every run's checksum is compared with ordo's verified one; a run that differs is an error.
Timings use each system's own algorithm timer (graph loading excluded).
"""

import argparse
import json
import os
import random
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def die(msg):
    """One error line, prefixed with the running script's name (kernels.py imports this)."""
    print(f"{Path(sys.argv[0]).name or 'peers.py'}: {msg}", file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------------------
# Plan


def load_plan(path):
    path = Path(path)
    try:
        plan = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        die(f"{path}: {e}")
    settings = {
        "threads": [1, 2],
        "repetitions": 5,
        "inner": 3,
        "inner_max": 15,
        "inner_min_s": 0.5,
        "tune_inner": 3,
        "runoff": 3,
        "runoff_points": 3,
        "seed": 1,
        "timeout_s": 300,
        **plan.get("settings", {}),
    }
    inputs = plan.get("input", [])
    for i in inputs:
        for key in ("name",):
            if key not in i:
                die(f"{path}: an [[input]] without `{key}`")
        if ("gen" in i) == ("graph" in i):
            die(f"{path}: input {i['name']}: exactly one of `gen` and `graph`")
        if "graph" in i:
            g = Path(i["graph"])
            i["graph"] = str(g if g.is_absolute() else (path.parent / g).resolve())
        i.setdefault("source", 0)
        i.setdefault("symmetric", True)
    families = plan.get("family", [])
    for f in families:
        if f.get("system") not in ("ordo", "gapbs", "wasp", "rho", "deltastar"):
            die(f"{path}: family {f.get('name')}: system must be ordo, gapbs, wasp, rho or deltastar")
        f.setdefault("untuned", False)
        f.setdefault("values", [None])
    return settings, inputs, families


def expand_values(spec):
    """A sweep: a list, or "pow2:A..=B" (2^A..2^B), or "A..=B[:S]" integers."""
    if isinstance(spec, list):
        return spec
    m = re.fullmatch(r"(pow2:)?(\d+)\.\.=(\d+)(?::(\d+))?", str(spec))
    if not m:
        die(f"bad sweep `{spec}`")
    lo, hi, step = int(m.group(2)), int(m.group(3)), int(m.group(4) or 1)
    xs = list(range(lo, hi + 1, step))
    return [1 << x for x in xs] if m.group(1) else xs


# ---------------------------------------------------------------------------------------
# Tools


class Tools:
    def __init__(self, args):
        self.peers = Path(args.peers or os.environ.get("ORDO_PEERS_DIR") or REPO.parent / "peers")
        self.ordo = Path(args.ordo or REPO / "target/release/ordo")
        self.inputs = self.peers / "inputs"
        self.gapbs = self.peers / "src/gapbs"
        self.wasp = self.peers / "src/wasp"
        self.pssp = self.peers / "src/Parallel-SSSP"

    def need(self, path):
        if not Path(path).exists():
            die(f"{path} is missing (build: bench/peers/build.sh; ordo: cargo build --release)")
        return str(path)


def sh(cmd, env=None, cwd=None, timeout=None):
    """Runs cmd; returns (returncode, stdout, stderr); timeouts give returncode None."""
    full_env = dict(os.environ, **(env or {}))
    try:
        p = subprocess.run(cmd, env=full_env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def checked(cmd, **kw):
    rc, out, err = sh(cmd, **kw)
    if rc != 0:
        die(f"{shlex.join(cmd)} failed ({rc}):\n{err[-2000:]}")
    return out


# ---------------------------------------------------------------------------------------
# prepare


def prepare(tools, inputs):
    tools.inputs.mkdir(parents=True, exist_ok=True)
    ordo = tools.need(tools.ordo)
    for i in inputs:
        base = tools.inputs / i["name"]
        o, gr = base.with_suffix(".ordo"), base.with_suffix(".gr")
        if not o.exists():
            if "gen" in i:
                checked([ordo, "gen", i["gen"], "-o", str(o)])
            else:
                if not Path(i["graph"]).exists():
                    print(f"{i['name']}: {i['graph']} is absent, skipped")
                    continue
                cmd = [ordo, "convert", i["graph"], str(o)]
                if "weights" in i:
                    cmd += ["--weights", i["weights"]]
                if i.get("symmetrize"):
                    cmd.append("--symmetrize")
                if i.get("simplify"):
                    cmd.append("--simplify")
                checked(cmd)
        if not gr.exists():
            checked([ordo, "convert", str(o), str(gr)])
        gapbs_wsg = base.with_suffix(".gapbs.wsg")
        if not gapbs_wsg.exists():
            checked([tools.need(tools.gapbs / "converter"), "-f", str(gr), "-w", "-b", str(gapbs_wsg)])
        wasp_wsg = base.with_suffix(".wasp.wsg")
        if not wasp_wsg.exists():
            cmd = [tools.need(tools.wasp / "converter-int32"), "-f", str(gr), "--weighted", "--format", "gap",
                   "-o", str(wasp_wsg)]
            if i["symmetric"]:
                cmd.insert(3, "--symmetrize")
            checked(cmd)
        rho_wsg = base.with_suffix(".rho.wsg")
        if not rho_wsg.exists():
            cmd = [tools.need(tools.gapbs / "converter"), "-f", str(gr), "-w", "-b", str(rho_wsg)]
            if i["symmetric"]:
                cmd.insert(3, "-s")
            checked(cmd)
        print(f"{i['name']}: {o.name} {gr.name} {gapbs_wsg.name} {wasp_wsg.name} {rho_wsg.name}")


# ---------------------------------------------------------------------------------------
# Running one configuration

CHECKSUM = re.compile(r"ordo-checksum reached=(\d+) sum=(\d+) max=(\d+)")


def run_one(tools, inp, system, value, threads, inner, timeout):
    """One process: `inner` timed runs. Returns a dict with times_s and checksum, or error."""
    base = tools.inputs / inp["name"]
    src = str(inp["source"])
    env = {}
    cwd = None
    scratch = None
    if system == "ordo":
        cmd = [tools.need(tools.ordo), "run", "sssp", "--graph", str(base.with_suffix(".ordo")), "--sched",
               value, "--threads", str(threads), "--source", src, "--repeat", str(inner), "--json"]
    elif system == "gapbs":
        cmd = [tools.need(tools.gapbs / "sssp"), "-f", str(base.with_suffix(".gapbs.wsg")), "-r", src,
               "-d", str(value), "-n", str(inner), "-a"]
        env = {"OMP_NUM_THREADS": str(threads)}
    elif system == "wasp":
        cmd = [tools.need(tools.wasp / "sssp-int32"), "-f", str(base.with_suffix(".wasp.wsg")), "-r", src,
               "-d", str(value), "-n", str(inner), "-a"]
        env = {"OMP_NUM_THREADS": str(threads)}
    else:  # rho / deltastar: Parallel-SSSP
        algo = "rho-stepping" if system == "rho" else "delta-stepping"
        cmd = [tools.need(tools.pssp / "sssp"), "-i", str(base.with_suffix(".rho.wsg")), "-w", "-a", algo]
        if inp["symmetric"]:
            cmd.append("-s")
        if value not in (None, "default"):
            cmd += ["-p", str(value)]
        env = {"PARLAY_NUM_THREADS": str(threads), "ORDO_SOURCE": src, "ORDO_ROUNDS": str(inner)}
        # It writes sssp.tsv into its working directory: a fresh one per run, removed after.
        scratch = tempfile.TemporaryDirectory(prefix="ordo-peers-")
        cwd = scratch.name
    try:
        rc, out, err = sh(cmd, env=env, cwd=cwd, timeout=timeout)
    finally:
        if scratch is not None:
            scratch.cleanup()
    rec = {"cmd": shlex.join(cmd)}
    if rc is None:
        rec["error"] = f"timeout after {timeout:.0f} s"
        return rec
    if rc != 0:
        rec["error"] = f"exit {rc}: {err.strip()[-500:]}"
        return rec
    if system == "ordo":
        j = json.loads(out)
        rec["times_s"] = j["times_s"]
        rec["checksum"] = [j["reached"], j["sum_dist"], j["max_dist"]]
    else:
        pat = {"gapbs": r"^Trial Time:\s+([\d.]+)", "wasp": r"^External Trial Time:\s+([\d.]+)"}.get(
            system, r"^Round \d+: ([\d.]+)")
        rec["times_s"] = [float(x) for x in re.findall(pat, out, re.M)]
        m = CHECKSUM.findall(out)
        if not m or len(rec["times_s"]) != inner:
            rec["error"] = f"unexpected output:\n{out[-1000:]}"
            return rec
        rec["checksum"] = [int(x) for x in m[-1]]
    return rec


def reference_checksum(tools, inp):
    path = (tools.inputs / inp["name"]).with_suffix(".checksum.json")
    if not path.exists():
        return None
    return json.loads(path.read_text())["checksum"]


def config_label(f, value):
    if f["system"] == "ordo":
        return value
    return f"{f['name']}" + ("" if value is None else f":{value}")


def spec_of(f, value):
    if f["system"] == "ordo":
        return f["template"].replace("{x}", str(value)) if "{x}" in f.get("template", "") else value
    return value


def measure(tools, inp, f, value, threads, inner, timeout, log, phase=None):
    spec = spec_of(f, value)
    rec = run_one(tools, inp, f["system"], spec, threads, inner, timeout)
    rec.update(input=inp["name"], family=f["name"], system=f["system"], value=value, spec=spec,
               threads=threads, label=config_label(f, spec), timestamp=time.time())
    if phase is not None:
        rec["phase"] = phase
    ref = reference_checksum(tools, inp)
    if "checksum" in rec and ref is not None and rec["checksum"] != ref:
        rec["error"] = f"checksum {rec['checksum']} differs from ordo's verified {ref}"
    if "times_s" in rec and "error" not in rec:
        rec["median_s"] = statistics.median(rec["times_s"])
    log.write(json.dumps(rec) + "\n")
    log.flush()
    status = f"{rec['median_s'] * 1e3:9.2f} ms" if "median_s" in rec else "ERROR " + rec["error"][:80]
    tag = f" ({phase})" if phase else ""
    print(f"  {inp['name']:<12} T={threads} {rec['label'] + tag:<40} {status}", flush=True)
    return rec


# ---------------------------------------------------------------------------------------
# check, tune, final, table


def check(tools, inputs, families):
    for inp in inputs:
        if not (tools.inputs / inp["name"]).with_suffix(".ordo").exists():
            continue
        cmd = [tools.need(tools.ordo), "run", "sssp", "--graph", str((tools.inputs / inp["name"]).with_suffix(".ordo")),
               "--sched", "auto", "--source", str(inp["source"]), "--verify", "--json"]
        j = json.loads(checked(cmd))
        ref = [j["reached"], j["sum_dist"], j["max_dist"]]
        (tools.inputs / inp["name"]).with_suffix(".checksum.json").write_text(json.dumps({"checksum": ref}))
        print(f"{inp['name']}: ordo verified against Dijkstra: reached {ref[0]}, sum {ref[1]}, max {ref[2]}")
        for system in ("gapbs", "wasp", "rho", "deltastar"):
            f = next((f for f in families if f["system"] == system), None)
            if f is None:
                continue
            values = expand_values(f["values"])
            value = values[len(values) // 2]
            rec = run_one(tools, inp, system, value, 2, 1, 600)
            got = rec.get("checksum")
            verdict = "same distances" if got == ref else f"DIFFERENT: {got} ({rec.get('error', '')})"
            print(f"  {system:<9} ({value}): {verdict}")
            if got != ref:
                sys.exit(1)


def tune(tools, settings, inputs, families, out):
    """Sweeps each family (coarse: every other value, then the neighbours of the best)."""
    out.mkdir(parents=True, exist_ok=True)
    best = {}
    rng = random.Random(settings["seed"])
    with open(out / "tune.jsonl", "a") as log:
        for inp in inputs:
            if reference_checksum(tools, inp) is None:
                print(f"{inp['name']}: no verified checksum (run `check` first), skipped")
                continue
            for threads in settings["threads"]:
                fastest = None
                for f in families:
                    values = expand_values(f["values"])
                    done = {}

                    def point(k):
                        nonlocal fastest
                        if k in done or not 0 <= k < len(values):
                            return
                        limit = settings["timeout_s"]
                        if fastest is not None:
                            limit = min(limit, max(10.0, 20 * fastest))
                        rec = measure(tools, inp, f, values[k], threads, settings["tune_inner"], limit, log)
                        done[k] = rec.get("median_s")
                        if done[k] is not None:
                            fastest = done[k] if fastest is None else min(fastest, done[k])

                    if f["untuned"] or len(values) <= 2:
                        for k in range(len(values)):
                            point(k)
                    else:
                        for k in range(0, len(values), 2):
                            point(k)
                        point(len(values) - 1)
                        ok = {k: t for k, t in done.items() if t is not None}
                        if ok:
                            b = min(ok, key=ok.get)
                            point(b - 1)
                            point(b + 1)
                    ok = {k: t for k, t in done.items() if t is not None}
                    if not ok:
                        continue
                    candidates = runoff_candidates(ok, settings["runoff_points"])
                    b = candidates[0]
                    if not f["untuned"] and settings["runoff"] > 0 and len(candidates) > 1:
                        inner = inner_runs(settings, fastest)
                        b = runoff(tools, settings, inp, f, values, candidates, threads, inner, rng, log)
                    best[f"{inp['name']}|{threads}|{f['name']}"] = values[b]
    (out / "best.json").write_text(json.dumps(best, indent=1))
    print(f"best points: {out / 'best.json'}")


def runoff_candidates(times, points):
    """The `points` fastest points of a sweep ({point: median_s}), fastest first."""
    return sorted(times, key=times.get)[:points]


def runoff_winner(times):
    """The point whose runoff medians ({point: [median_s, ...]}) have the lowest median;
    a point without a successful runoff process cannot win."""
    ok = {k: statistics.median(ts) for k, ts in times.items() if ts}
    return min(ok, key=ok.get) if ok else None


def runoff(tools, settings, inp, f, values, candidates, threads, inner, rng, log):
    """Re-times a family's fastest sweep points (`candidates`, indices into `values`)
    side by side: `runoff` rounds, every candidate once per round in a fresh random
    order, and returns the index with the lowest median over the rounds. The sweep
    times each point in one process of a few runs, minutes apart, so on a machine whose
    speed drifts the fastest sweep point is often a neighbour's lucky minute; the sweep's
    own times are not counted, since they are what picked the candidates. Each process
    does `inner` timed runs, as many as the final phase will do on this input."""
    times = {k: [] for k in candidates}
    for _ in range(settings["runoff"]):
        order = candidates[:]
        rng.shuffle(order)
        for k in order:
            rec = measure(tools, inp, f, values[k], threads, inner, settings["timeout_s"], log, phase="runoff")
            if rec.get("median_s") is not None:
                times[k].append(rec["median_s"])
    winner = runoff_winner(times)
    return candidates[0] if winner is None else winner


def fastest_tuned(out):
    """The fastest median of the tune phase per (input, threads), over every family."""
    fastest = {}
    path = out / "tune.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            if "median_s" in rec:
                key = (rec["input"], rec["threads"])
                fastest[key] = min(fastest.get(key, rec["median_s"]), rec["median_s"])
    return fastest


def inner_runs(settings, fastest_s):
    """Timed runs per process of the final phase for an input whose fastest tuned time is
    `fastest_s`: `inner`, raised so that a process times at least `inner_min_s` seconds of
    the fastest configuration (at most `inner_max`). Short inputs then get more runs: their
    first runs are slower (page faults, allocator warm-up), and a median of three still
    weighs that warm-up, more for some systems than for others."""
    if not fastest_s:
        return settings["inner"]
    wanted = -(-settings["inner_min_s"] // fastest_s)  # ceiling
    return int(min(settings["inner_max"], max(settings["inner"], wanted)))


def final(tools, settings, inputs, families, out):
    best_path = out / "best.json"
    best = json.loads(best_path.read_text()) if best_path.exists() else {}
    fastest = fastest_tuned(out)
    configs = []
    for inp in inputs:
        if reference_checksum(tools, inp) is None:
            continue
        for threads in settings["threads"]:
            inner = inner_runs(settings, fastest.get((inp["name"], threads)))
            for f in families:
                if f["untuned"]:
                    for v in expand_values(f["values"]):
                        configs.append((inp, f, v, threads, inner))
                else:
                    key = f"{inp['name']}|{threads}|{f['name']}"
                    if key in best:
                        configs.append((inp, f, best[key], threads, inner))
    if not configs:
        die("nothing to run (prepare, check and tune first)")
    rng = random.Random(settings["seed"])
    with open(out / "final.jsonl", "a") as log:
        for rep in range(settings["repetitions"]):
            print(f"repetition {rep + 1}/{settings['repetitions']}")
            # Interleaved: every configuration once per repetition, in a fresh (seeded)
            # random order, so that no configuration always follows the same neighbour.
            order = configs[:]
            rng.shuffle(order)
            for inp, f, v, threads, inner in order:
                measure(tools, inp, f, v, threads, inner, settings["timeout_s"], log)


def table(out, families):
    recs = [json.loads(line) for line in open(out / "final.jsonl")]
    groups = {}
    for r in recs:
        if "median_s" in r:
            groups.setdefault((r["input"], r["threads"], r["family"], r["label"]), []).append(r["median_s"])
    lines = ["| input | threads | family | configuration | median ms (min-max) | runs |", "|---|---|---|---|---|---|"]
    by_input = {}
    for (inp, t, fam, label), xs in sorted(groups.items()):
        med = statistics.median(xs)
        lines.append(f"| {inp} | {t} | {fam} | `{label}` | {med * 1e3:.2f} ({min(xs) * 1e3:.2f}-{max(xs) * 1e3:.2f}) | {len(xs)} |")
        by_input.setdefault((inp, t), {})[fam] = (med, label, min(xs))
    peer_systems = {f["name"] for f in families if f["system"] != "ordo"}
    ordo_tuned = {f["name"] for f in families if f["system"] == "ordo" and not f["untuned"]}
    # The last column: `auto`'s fastest process against the best peer's fastest, which a
    # machine that slows down now and then disturbs less than the medians.
    lines += ["", "| input | threads | auto ms | best peer | auto / best peer | best tuned ordo | auto / best ordo "
              "| fastest auto / fastest best peer |", "|---|---|---|---|---|---|---|---|"]
    for (inp, t), fams in sorted(by_input.items()):
        if "auto" not in fams:
            continue
        auto = fams["auto"][0]
        peers = [fams[p] for p in peer_systems if p in fams]
        ordos = [fams[p] for p in ordo_tuned if p in fams]
        bp = min(peers) if peers else None
        bo = min(ordos) if ordos else None
        cell = lambda b: f"{b[1]} {b[0] * 1e3:.2f}" if b else "-"
        ratio = lambda b: f"{auto / b[0]:.2f}" if b else "-"
        fastest = f"{fams['auto'][2] / bp[2]:.2f}" if bp else "-"
        lines.append(f"| {inp} | {t} | {auto * 1e3:.2f} | {cell(bp)} | {ratio(bp)} | {cell(bo)} | {ratio(bo)} "
                     f"| {fastest} |")
    errors = [r for r in recs if "error" in r]
    if errors:
        lines += ["", f"{len(errors)} runs failed (see final.jsonl `error`)."]
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    print(text)


# ---------------------------------------------------------------------------------------
# duel


def best_peer_labels(out, families, among=None):
    """The best tuned peer per (input, threads) by the medians of the final phase (the
    tune phase's when there is no final phase): {(input, threads): (family, value)};
    with `among` (family names), the best of those families only."""
    peer_systems = {f["name"] for f in families if f["system"] != "ordo"}
    if among is not None:
        peer_systems &= set(among)
    for name in ("final.jsonl", "tune.jsonl"):
        path = out / name
        if not path.exists():
            continue
        groups = {}
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if "median_s" in r and r["family"] in peer_systems:
                groups.setdefault((r["input"], r["threads"], r["family"], json.dumps(r["value"])), []).append(
                    r["median_s"])
        best = {}
        for (inp, t, fam, value), xs in groups.items():
            med = statistics.median(xs)
            if (inp, t) not in best or med < best[(inp, t)][0]:
                best[(inp, t)] = (med, fam, json.loads(value))
        if best:
            return {k: (fam, value) for k, (_, fam, value) in best.items()}
    return {}


def parse_opponent(item):
    """`--against` item: a peer family (`gapbs`: its best tuned point of each cell) or a
    family and one of its points (`gapbs:8`, the same point in every cell)."""
    name, sep, value = item.partition(":")
    if not sep:
        return name, None
    if not value:
        die(f"--against {item}: a point after `:` expected")
    return name, int(value) if value.isdigit() else value


def paired_summary(pairs):
    """Summary of the duel of one cell: `pairs` holds (auto_s, peer_s), each the median
    of one process, the two processes run one right after the other. Returns the median
    of the ratios auto/peer, their quartiles, min and max, how many pairs `auto` won,
    and both systems' fastest process."""
    ratios = sorted(a / p for a, p in pairs)
    n = len(ratios)
    if n == 0:
        return None
    quartiles = statistics.quantiles(ratios, n=4, method="inclusive") if n >= 2 else [ratios[0]] * 3
    return {
        "pairs": n,
        "median": statistics.median(ratios),
        "q1": quartiles[0],
        "q3": quartiles[2],
        "min": ratios[0],
        "max": ratios[-1],
        "auto_wins": sum(1 for r in ratios if r < 1.0),
        "auto_fastest_s": min(a for a, _ in pairs),
        "peer_fastest_s": min(p for _, p in pairs),
    }


def duel(tools, settings, inputs, families, out, pairs, thread_counts, against=None):
    """`pairs` times per cell: one process of `auto` and one of the cell's best tuned
    peer (with `against`, of each of those peer families in turn: its best tuned point,
    or the point named as `family:point`),
    in a random order, the same number of timed runs in both. Appends every process to
    OUT/duel.jsonl and prints the paired summary of each cell."""
    peer_names = {f["name"] for f in families if f["system"] != "ordo"}
    # Each opponent maps a cell (input, threads) to the (family, point) that `auto` meets there.
    opponents = [best_peer_labels(out, families).get] if not against else []
    for item in against or []:
        name, fixed = parse_opponent(item)
        if name not in peer_names:
            die(f"--against {item}: not a peer family of the plan ({', '.join(sorted(peer_names))})")
        if fixed is None:
            opponents.append(best_peer_labels(out, families, among=[name]).get)
        else:
            opponents.append(lambda cell, pick=(name, fixed): pick)
    auto = next((f for f in families if f["name"] == "auto"), None)
    if auto is None:
        die("the plan has no `auto` family")
    fastest = fastest_tuned(out)
    rng = random.Random(settings["seed"])
    cells = []
    for inp in inputs:
        if reference_checksum(tools, inp) is None:
            print(f"{inp['name']}: no verified checksum (run `check` first), skipped")
            continue
        for threads in thread_counts or settings["threads"]:
            for opponent in opponents:
                pick = opponent((inp["name"], threads))
                if pick is None:
                    print(f"{inp['name']} T={threads}: no tuned peer (run `tune` and `final` first), skipped")
                    continue
                cells.append((inp, threads, pick))
    if not cells:
        die("nothing to run")
    summaries = []
    with open(out / "duel.jsonl", "a") as log:
        for inp, threads, (fam_name, value) in cells:
            peer = next(f for f in families if f["name"] == fam_name)
            inner = inner_runs(settings, fastest.get((inp["name"], threads)))
            print(f"{inp['name']} T={threads}: auto against {config_label(peer, spec_of(peer, value))}, "
                  f"{pairs} pairs of processes, {inner} runs each")
            got = []
            for k in range(pairs):
                contenders = [(auto, "auto"), (peer, value)]
                rng.shuffle(contenders)
                recs = {}
                for f, v in contenders:
                    rec = measure(tools, inp, f, v, threads, inner, settings["timeout_s"], log)
                    recs[f["name"]] = rec.get("median_s")
                if recs["auto"] is not None and recs[fam_name] is not None:
                    got.append((recs["auto"], recs[fam_name]))
            s = paired_summary(got)
            if s is None:
                print("  every pair failed (see duel.jsonl `error`)")
                continue
            s.update(input=inp["name"], threads=threads, peer=config_label(peer, spec_of(peer, value)))
            summaries.append(s)
            print(f"  auto / peer: median {s['median']:.3f} (quartiles {s['q1']:.3f}-{s['q3']:.3f}, "
                  f"{s['min']:.3f}-{s['max']:.3f}), auto faster in {s['auto_wins']} of {s['pairs']}")
    lines = ["| input | threads | best tuned peer | pairs | auto / peer, median of pairs | quartiles | "
             "min-max | auto faster | fastest auto / fastest peer |",
             "|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        lines.append(f"| {s['input']} | {s['threads']} | `{s['peer']}` | {s['pairs']} | {s['median']:.3f} | "
                     f"{s['q1']:.3f}-{s['q3']:.3f} | {s['min']:.3f}-{s['max']:.3f} | {s['auto_wins']} | "
                     f"{s['auto_fastest_s'] / s['peer_fastest_s']:.3f} |")
    text = "\n".join(lines) + "\n"
    (out / "duel.md").write_text(text)
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["prepare", "check", "tune", "final", "table", "all", "duel"])
    ap.add_argument("--plan", default=str(Path(__file__).with_name("plan.toml")))
    ap.add_argument("--out", default="results/peers")
    ap.add_argument("--peers", help="peer build directory (default $ORDO_PEERS_DIR or ../peers)")
    ap.add_argument("--ordo", help="ordo binary (default target/release/ordo)")
    ap.add_argument("--only", help="comma-separated input names")
    ap.add_argument("--threads", help="duel: comma-separated thread counts (default: the plan's)")
    ap.add_argument("--pairs", type=int, default=15, help="duel: pairs of processes per cell (default 15)")
    ap.add_argument("--against", help="duel: comma-separated peer families, each at its best tuned point, "
                    "or FAMILY:POINT for that point in every cell (default: the best tuned peer of each cell)")
    args = ap.parse_args()
    settings, inputs, families = load_plan(args.plan)
    if args.only:
        names = set(args.only.split(","))
        inputs = [i for i in inputs if i["name"] in names]
    tools = Tools(args)
    out = Path(args.out)
    if args.command in ("prepare", "all"):
        prepare(tools, inputs)
    if args.command in ("check", "all"):
        check(tools, inputs, families)
    if args.command in ("tune", "all"):
        tune(tools, settings, inputs, families, out)
    if args.command in ("final", "all"):
        final(tools, settings, inputs, families, out)
    if args.command in ("table", "all"):
        table(out, families)
    if args.command == "duel":
        if args.pairs < 1:
            die("--pairs must be at least 1")
        try:
            threads = [int(t) for t in args.threads.split(",")] if args.threads else None
        except ValueError:
            die(f"--threads {args.threads}: expected comma-separated thread counts")
        out.mkdir(parents=True, exist_ok=True)
        against = args.against.split(",") if args.against else None
        duel(tools, settings, inputs, families, out, args.pairs, threads, against)


if __name__ == "__main__":
    main()
