#!/usr/bin/env python3
"""Measurements of the ordo Python package (median of --reps runs each).

1. overhead: the Python call ``ordo.sssp(g, 0)`` (wall time, from the call to
   the numpy result) against the run inside it (``stats["time_s"]``, the same
   measure ``ordo run`` reports) and against the ``ordo run sssp`` command on
   the same graph, scheduler and threads (its ``time_s`` and its whole
   process, generation included);
2. conversion: ``Graph.from_scipy`` of a scipy CSR matrix as scipy makes it
   (int32 indptr, float64 data: converted), of the frozen arrays of
   ``to_scipy()`` (shared), of COO, ``from_edges``, and ``to_scipy``;
3. versus: ordo against ``scipy.sparse.csgraph`` (dijkstra, breadth_first_order,
   minimum_spanning_tree) and networkx (single_source_dijkstra_path_length,
   single_source_shortest_path_length, astar_path_length, pagerank) on the same
   graphs, every result checked (equal, or PageRank within ordo's bound).

Usage (the full measurement; build the command first with
``cargo build --release``):

    python python/bench/bench.py --ordo target/release/ordo --n 1000000 --reps 5 \\
        --threads 2 --nx-max-n 200000 --out bench-python.json

``--quick`` runs everything on tiny inputs (a check that the script works).
Times are seconds; run it on a quiet machine.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import ordo


def timed(fn, reps, warmup=1):
    """Median, min and max wall time of fn() over reps runs, and its last result."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}, result


def overhead(args, spec, report):
    """The Python call against the command on the same run."""
    g = ordo.generate(spec)
    first = time.perf_counter()
    ordo.sssp(g, 0, scheduler=args.scheduler, threads=args.threads)
    first = time.perf_counter() - first
    inner = []

    def call():
        dist, stats = ordo.sssp(g, 0, scheduler=args.scheduler, threads=args.threads, stats=True)
        inner.append(stats["time_s"])
        return dist

    py, dist = timed(call, args.reps)
    inner = inner[1:]  # the warm-up run
    row = {"graph": spec, "n": g.n, "m": g.m, "python_call": py, "python_first_call_s": first}
    row["python_run_time_s"] = {"median_s": statistics.median(inner), "min_s": min(inner), "max_s": max(inner)}
    row["python_call_minus_run_median_s"] = py["median_s"] - row["python_run_time_s"]["median_s"]
    if args.ordo:
        cmd = [
            args.ordo, "run", "sssp", "--gen", spec, "--sched", args.scheduler,
            "--threads", str(args.threads), "--repeat", str(args.reps), "--json",
        ]
        t = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - t
        cli = json.loads(out)
        times = cli["times_s"]
        row["cli_time_s"] = {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}
        row["cli_process_wall_s"] = wall
        assert cli["reached"] == int(np.isfinite(dist).sum()), "the command and Python disagree"
        assert cli["sum_dist"] == int(dist[np.isfinite(dist)].sum()), "the command and Python disagree"
        row["python_minus_cli_median_s"] = py["median_s"] - row["cli_time_s"]["median_s"]
    report["overhead"] = row


def conversion(args, spec, report):
    """The cost of making graphs of scipy matrices and numpy arrays, and back."""
    import scipy.sparse as sp

    g = ordo.generate(spec)
    frozen = g.to_scipy()
    # As scipy users have it: writable, int32 indptr/indices, float64 data.
    plain = sp.csr_array(
        (frozen.data.astype(np.float64), frozen.indices.copy(), frozen.indptr.astype(np.int32)), shape=frozen.shape
    )
    coo = plain.tocoo()
    src, dst, w = g.edges()
    rows = {}
    rows["from_scipy csr (int32 indptr, float64 data: converted)"], h = timed(
        lambda: ordo.Graph.from_scipy(plain), args.reps
    )
    assert h.m == g.m
    rows["from_scipy csr (frozen, from to_scipy: shared)"], h = timed(lambda: ordo.Graph.from_scipy(frozen), args.reps)
    assert np.shares_memory(h.targets, g.targets)
    rows["from_scipy coo (sorted into CSR)"], _ = timed(lambda: ordo.Graph.from_scipy(coo), args.reps)
    rows["from_edges (int64 src/dst, uint32 weight)"], _ = timed(lambda: ordo.Graph.from_edges(src, dst, w, n=g.n), args.reps)
    rows["to_scipy (shared)"], _ = timed(lambda: g.to_scipy(), args.reps)
    rows["to_scipy(copy=True)"], _ = timed(lambda: g.to_scipy(copy=True), args.reps)
    rows["scipy: csr_array(coo) for comparison"], _ = timed(lambda: sp.csr_array(coo), args.reps)
    report["conversion"] = {"graph": spec, "n": g.n, "m": g.m, "rows": rows}


def versus(args, specs, report):
    """ordo against scipy.sparse.csgraph and networkx, results checked equal."""
    from scipy.sparse import csgraph

    out = []
    for spec in specs:
        g = ordo.generate(spec)
        m = g.deduplicated().to_scipy()
        row = {"graph": spec, "n": g.n, "m": g.m}
        row["ordo sssp"], dist = timed(lambda: ordo.sssp(g, 0, scheduler=args.scheduler, threads=args.threads), args.reps)
        row["scipy dijkstra"], want = timed(lambda: csgraph.dijkstra(m, indices=0), args.reps)
        np.testing.assert_array_equal(dist, want)
        row["ordo bfs"], levels = timed(lambda: ordo.bfs(g, 0, scheduler=args.scheduler, threads=args.threads), args.reps)
        row["scipy breadth_first_order"], _ = timed(lambda: csgraph.breadth_first_order(m, 0), args.reps)
        np.testing.assert_array_equal(levels, csgraph.shortest_path(m, indices=0, unweighted=True))
        sym = g.symmetrized()
        sym_m = sym.to_scipy(copy=True).astype(np.float64)
        row["ordo mst"], forest = timed(lambda: ordo.mst(g, scheduler=args.scheduler, threads=args.threads), args.reps)
        row["scipy minimum_spanning_tree"], tree = timed(lambda: csgraph.minimum_spanning_tree(sym_m), args.reps)
        assert forest[:, 2].sum() == tree.sum() and len(forest) == tree.nnz
        target = int(np.flatnonzero(np.isfinite(dist))[-1])
        if g.has_coords:
            row["ordo astar"], (path, length) = timed(
                lambda: ordo.astar(g, 0, target, scheduler=args.scheduler, threads=args.threads), args.reps
            )
            assert length == dist[target]
        pr_g = sym.with_weights("unit")  # symmetric: no dangling vertex, networkx's ranks * n are ordo's
        row["ordo pagerank (tol 0.01)"], ranks = timed(
            lambda: ordo.pagerank(pr_g, scheduler=args.scheduler, threads=args.threads), args.reps
        )
        if g.n <= args.nx_max_n:
            import networkx as nx

            t = time.perf_counter()
            nxg = nx.from_scipy_sparse_array(m, create_using=nx.DiGraph)
            row["networkx graph build_s"] = time.perf_counter() - t
            nx_reps = max(1, min(args.reps, args.nx_reps))
            row["networkx dijkstra"], nd = timed(
                lambda: nx.single_source_dijkstra_path_length(nxg, 0), nx_reps, warmup=0
            )
            assert all(dist[v] == d for v, d in nd.items()) and len(nd) == int(np.isfinite(dist).sum())
            row["networkx bfs"], nl = timed(lambda: nx.single_source_shortest_path_length(nxg, 0), nx_reps, warmup=0)
            assert all(levels[v] == d for v, d in nl.items())
            if g.has_coords:
                row["networkx astar_path_length (no heuristic)"], nlen = timed(
                    lambda: nx.astar_path_length(nxg, 0, target, weight="weight"), nx_reps, warmup=0
                )
                assert nlen == length
            pr_nx = nx.from_scipy_sparse_array(pr_g.to_scipy(), create_using=nx.DiGraph)
            row["networkx pagerank (tol 1e-6)"], npr = timed(
                lambda: nx.pagerank(pr_nx, alpha=0.85, tol=1e-6, weight=None), nx_reps, warmup=0
            )
            if (pr_g.degrees() > 0).all():  # with dangling vertices the two models differ
                exact = pr_g.n * np.array([npr[v] for v in range(pr_g.n)])
                assert np.abs(ranks - exact).sum() <= pr_g.n * (0.01 / 0.15 + 1e-4)
                row["pagerank checked against networkx"] = True
        out.append(row)
    report["versus"] = out


def print_report(report):
    def fmt(t):
        return f"{t['median_s']:.4f} ({t['min_s']:.4f}-{t['max_s']:.4f})"

    o = report.get("overhead")
    if o:
        print(f"## Python call vs command: SSSP on {o['graph']} (n={o['n']}, m={o['m']})")
        print(f"python ordo.sssp wall: {fmt(o['python_call'])}  first call (starts the pool): {o['python_first_call_s']:.4f}")
        print(f"  the run inside it:   {fmt(o['python_run_time_s'])}  call - run (medians): {o['python_call_minus_run_median_s']:+.4f}")
        if "cli_time_s" in o:
            print(f"ordo run time_s:       {fmt(o['cli_time_s'])}  whole process: {o['cli_process_wall_s']:.2f}")
            print(f"python - command (medians): {o['python_minus_cli_median_s']:+.4f} s")
    c = report.get("conversion")
    if c:
        print(f"\n## Conversions on {c['graph']} (n={c['n']}, m={c['m']})")
        for name, t in c["rows"].items():
            print(f"{name:58s} {fmt(t)}")
    for row in report.get("versus", []):
        print(f"\n## {row['graph']} (n={row['n']}, m={row['m']})")
        for k, v in row.items():
            if isinstance(v, dict):
                print(f"{k:42s} {fmt(v)}")
            elif k.endswith("_s"):
                print(f"{k:42s} {v:.4f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ordo", help="the ordo command (target/release/ordo) for the overhead comparison")
    p.add_argument("--n", type=int, default=1_000_000, help="vertices of the road graph")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--scheduler", default="pmod")
    p.add_argument("--nx-max-n", type=int, default=200_000, help="largest graph given to networkx")
    p.add_argument("--nx-reps", type=int, default=5, help="runs of each networkx function")
    p.add_argument("--quick", action="store_true", help="tiny inputs: check that the script works")
    p.add_argument("--out", type=Path, help="also write the report as JSON")
    args = p.parse_args()
    if args.quick:
        args.n, args.reps, args.nx_reps = 2000, 2, 1
    spec = f"road:n={args.n}"
    versus_specs = [spec, f"road:n={max(args.n // 10, 1000)}", "rmat:scale=" + ("10" if args.quick else "18")]
    report = {"python": sys.version.split()[0], "ordo": ordo.__version__, "threads": args.threads, "reps": args.reps}
    overhead(args, spec, report)
    conversion(args, spec, report)
    versus(args, versus_specs, report)
    print_report(report)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
