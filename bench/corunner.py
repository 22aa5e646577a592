#!/usr/bin/env python3
"""ordo's defaults on a shared machine: each configuration idle and beside busy co-runners.

For every configuration of a plan (an `ordo run` command line), every thread count and every
co-runner count K, the script runs pairs of processes, one idle and one while K busy-looping
co-runner processes (nice 0, one per core they take) share the machine, in an order drawn
afresh for each pair. Each process does `--repeat R` timed runs; its median `time_s` counts.
The report gives, per cell, the idle and loaded medians (min-max over the pairs), the median
of the per-pair slowdowns (loaded / idle), and each configuration's loaded time against the
plan's reference configurations (e.g. the asynchronous `obim`) and against its own idle time
at one thread.

    bench/corunner.py --ordo target/release/ordo                      # the default plan
    bench/corunner.py --plan bench/corunner.toml --pairs 5 --threads 2,4 --corunners 1 --out results/corunner

A plan (TOML) lists `[[input]]` tables (`name`, and `gen` or `graph` with ordo's input flags as
`args`) and `[[config]]` tables (`name`, `app`, `args`, and `reference = true` for the
configurations the others are compared with). Results go to OUT/corunner.jsonl (one line per
process) and OUT/corunner.md (the table).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    tomllib = None

HERE = Path(__file__).resolve().parent
DEFAULT_PLAN = HERE / "corunner.toml"


def fail(message: str) -> None:
    print(f"corunner.py: {message}", file=sys.stderr)
    sys.exit(1)


def load_plan(path: Path) -> dict:
    if tomllib is None:
        fail("needs Python 3.11 or newer (tomllib)")
    try:
        with path.open("rb") as f:
            plan = tomllib.load(f)
    except FileNotFoundError:
        fail(f"{path}: no such plan")
    except tomllib.TOMLDecodeError as e:
        fail(f"{path}: {e}")
    for key in ("input", "config"):
        if not plan.get(key):
            fail(f"{path}: the plan has no [[{key}]] table")
    for table in plan["input"]:
        if "name" not in table or ("gen" not in table and "graph" not in table):
            fail(f"{path}: every [[input]] needs a name and a gen or graph")
    for table in plan["config"]:
        if "name" not in table or "app" not in table:
            fail(f"{path}: every [[config]] needs a name and an app")
    return plan


def input_args(table: dict, plan_dir: Path) -> list[str]:
    if "gen" in table:
        args = ["--gen", table["gen"]]
    else:
        graph = Path(table["graph"])
        if not graph.is_absolute():
            graph = (plan_dir / graph).resolve()
        args = ["--graph", str(graph)]
    return args + list(table.get("args", []))


class CoRunners:
    """K busy-looping processes for the length of a `with` block."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self):
        for _ in range(self.count):
            self.procs.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        time.sleep(0.2)  # let them reach their loops and the scheduler settle
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs.clear()


def run_once(ordo: str, app: str, args: list[str], threads: int, repeat: int, timeout: float) -> float:
    cmd = [ordo, "run", app, *args, "--threads", str(threads), "--repeat", str(repeat), "--json"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail(f"timed out after {timeout} s: {' '.join(cmd)}")
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
        fail(f"{' '.join(cmd)} exited with {out.returncode}: {last}")
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        fail(f"no JSON report from: {' '.join(cmd)}")
    report = json.loads(lines[-1])
    times = report.get("times_s") or [report["time_s"]]
    return statistics.median(times)


def fmt_cell(values: list[float]) -> str:
    if not values:
        return "–"
    return f"{statistics.median(values):.4f} ({min(values):.4f}–{max(values):.4f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plan", type=Path, default=DEFAULT_PLAN)
    ap.add_argument("--ordo", default=str(HERE.parent / "target" / "release" / "ordo"))
    ap.add_argument("--threads", default="2", help="thread counts, comma separated (default 2)")
    ap.add_argument("--corunners", default="1", help="co-runner counts K, comma separated (default 1)")
    ap.add_argument("--pairs", type=int, default=3, help="idle/loaded pairs per cell (default 3)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per process (default 3)")
    ap.add_argument("--only", help="inputs to run, comma separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    ap.add_argument("--out", type=Path, default=Path("results/corunner"))
    opts = ap.parse_args()

    if not os.access(opts.ordo, os.X_OK):
        fail(f"{opts.ordo}: not an executable (cargo build --release)")
    plan = load_plan(opts.plan)
    try:
        threads = [int(t) for t in opts.threads.split(",")]
        corunners = [int(k) for k in opts.corunners.split(",")]
    except ValueError:
        fail("--threads and --corunners take comma-separated integers")
    if opts.pairs < 1 or opts.repeat < 1 or min(threads) < 1 or min(corunners) < 0:
        fail("--pairs, --repeat and --threads must be positive, --corunners non-negative")
    inputs = plan["input"]
    if opts.only:
        wanted = set(opts.only.split(","))
        inputs = [i for i in inputs if i["name"] in wanted]
        if not inputs:
            fail(f"--only {opts.only}: no such input in {opts.plan}")
    rng = random.Random(opts.seed)
    opts.out.mkdir(parents=True, exist_ok=True)
    log = (opts.out / "corunner.jsonl").open("w")

    # (input, config, threads, K) -> lists of per-pair values
    idle: dict[tuple, list[float]] = {}
    loaded: dict[tuple, list[float]] = {}
    ratios: dict[tuple, list[float]] = {}
    one_thread: dict[tuple, list[float]] = {}
    for inp in inputs:
        iargs = input_args(inp, opts.plan.parent)
        for cfg in plan["config"]:
            args = iargs + list(cfg.get("args", []))
            # Its own idle time at one thread, the bound a loaded run must beat.
            for _ in range(opts.pairs):
                t = run_once(opts.ordo, cfg["app"], args, 1, opts.repeat, opts.timeout)
                one_thread.setdefault((inp["name"], cfg["name"]), []).append(t)
                log.write(json.dumps({"input": inp["name"], "config": cfg["name"], "threads": 1,
                                      "corunners": 0, "time_s": t}) + "\n")
            for t_count in threads:
                for k in corunners:
                    key = (inp["name"], cfg["name"], t_count, k)
                    for pair in range(opts.pairs):
                        order = ["idle", "loaded"]
                        rng.shuffle(order)
                        got = {}
                        for which in order:
                            if which == "idle":
                                got[which] = run_once(opts.ordo, cfg["app"], args, t_count, opts.repeat, opts.timeout)
                            else:
                                with CoRunners(k):
                                    got[which] = run_once(opts.ordo, cfg["app"], args, t_count, opts.repeat, opts.timeout)
                            log.write(json.dumps({"input": inp["name"], "config": cfg["name"], "threads": t_count,
                                                  "corunners": k if which == "loaded" else 0, "pair": pair,
                                                  "time_s": got[which]}) + "\n")
                            log.flush()
                        idle.setdefault(key, []).append(got["idle"])
                        loaded.setdefault(key, []).append(got["loaded"])
                        ratios.setdefault(key, []).append(got["loaded"] / got["idle"])
                    print(f"{inp['name']} {cfg['name']} t={t_count} K={k}: idle {fmt_cell(idle[key])} s, "
                          f"loaded {fmt_cell(loaded[key])} s, slowdown {statistics.median(ratios[key]):.2f}x",
                          flush=True)
    log.close()

    refs = [c["name"] for c in plan["config"] if c.get("reference")]
    lines = [
        f"Command: `bench/corunner.py --plan {opts.plan.name} --threads {opts.threads} "
        f"--corunners {opts.corunners} --pairs {opts.pairs} --repeat {opts.repeat}`",
        "",
        "| input | config | threads | K | idle s | loaded s | loaded / idle | loaded / own 1-thread idle |"
        + "".join(f" loaded / {r} loaded |" for r in refs),
        "|---|---|---|---|---|---|---|---|" + "---|" * len(refs),
    ]
    for key in idle:
        name, cfg, t_count, k = key
        own1 = statistics.median(one_thread[(name, cfg)])
        row = (f"| {name} | {cfg} | {t_count} | {k} | {fmt_cell(idle[key])} | {fmt_cell(loaded[key])} | "
               f"{statistics.median(ratios[key]):.2f} | {statistics.median(loaded[key]) / own1:.2f} |")
        for r in refs:
            ref = loaded.get((name, r, t_count, k))
            row += f" {statistics.median(loaded[key]) / statistics.median(ref):.2f} |" if ref else " – |"
        lines.append(row)
    (opts.out / "corunner.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
