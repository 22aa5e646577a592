#!/usr/bin/env python3
"""ordo side by side with scipy, networkx, networkit, igraph, rustworkx and GraphBLAS.

Seven kernels (SSSP, BFS, PageRank, triangle counting, betweenness over k
sources, MST, connected components), each library where it has the kernel
(``peer_libs`` says which call, or why not), on the same graphs: every library
builds its graph from the same edge arrays (that conversion is timed apart
from the kernels), every answer is checked against ordo's (``peer_checks``
says how exactly; a library's answer is the reference only where ordo lacks
the kernel) and a difference is an ERROR in the table and the exit status.

ordo, networkit and GraphBLAS (SuiteSparse's OpenMP) run at each ``--threads``
count; scipy, networkx, igraph and rustworkx are sequential for these kernels
and measured once (their row is the same in every thread count's table).
Each cell: the median, min and max wall time of ``--reps`` runs after one
warm-up run, and the ratio to ordo's median at the same thread count (above 1:
ordo is faster). A cell whose warm-up run alone exceeds ``--cell-budget``
seconds keeps that one run.

Inputs (each skipped with a line when its file is absent):
``road`` (``road:n=N``, ``--road-n``), ``kron`` (``kron:scale=S``,
``--kron-scale``), ``fla`` (FLA.edges.gz) and ``slashdot``
(soc-Slashdot0902.txt.gz) from ``--data``; unweighted files get the weights
``uniform:1..1000:seed=1``. SSSP and BFS start at the vertex of largest
out-degree; betweenness sums over ``--bc-sources`` vertices drawn as ordo
draws them (``bc(sources=k, seed=1)``).

The full measurement (minutes to hours on a quiet machine):

    python python/bench/peers.py --threads 1,2 --reps 5 --out peers.json --md peers.md

``--quick`` runs every cell on tiny generated graphs in seconds (a check that
the script works; libraries that are not installed are skipped with a line).
"""

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peer_checks  # noqa: E402
import peer_libs  # noqa: E402

KERNELS = ["sssp", "bfs", "pagerank", "tc", "bc", "mst", "cc"]
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
UNWEIGHTED_RULE = "uniform:1..1000:seed=1"


def measure(fn, reps, budget):
    """Wall times of fn() after one warm-up run, and the warm-up's result.

    The warm-up's answer is the one checked. Over ``budget`` seconds (the
    warm-up alone, or the runs together) no further run starts; a warm-up
    over budget is the only run.
    """
    t = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t
    times = []
    if first > budget:
        times = [first]
    else:
        spent = 0.0
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
            spent += times[-1]
            if spent > budget:
                break
    return {
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "runs": len(times),
        "times_s": times,
    }, result


def bc_candidates(src, dst, n):
    """Which vertices ordo's betweenness may draw as sources: those with an
    out-edge to another vertex (a source without one has no paths)."""
    src, dst = np.asarray(src), np.asarray(dst)
    return np.bincount(src[src != dst], minlength=n) > 0


def bc_sources(candidates, k, seed=1):
    """The sources ordo's ``bc(sources=k, seed=seed)`` sums over: the candidates
    (see ``bc_candidates``) in increasing order, or the first k of a
    Fisher-Yates shuffle of them driven by SplitMix64, sorted (all candidates
    when k >= their number)."""
    ids = np.flatnonzero(candidates).astype(np.int64)
    c = ids.size
    if k >= c:
        return ids
    mask = (1 << 64) - 1
    state = seed
    for i in range(k):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        j = i + z % (c - i)
        ids[i], ids[j] = ids[j], ids[i]
    return np.sort(ids[:k])


def input_specs(args):
    """(name, description, loader or a reason it is skipped) of every selected input."""
    import ordo

    data = Path(args.data)
    out = []
    for name in args.inputs:
        if name == "road":
            spec = f"road:n={args.road_n}"
            out.append((name, spec, lambda spec=spec: ordo.generate(spec)))
        elif name == "kron":
            spec = f"kron:scale={args.kron_scale}"
            out.append((name, spec, lambda spec=spec: ordo.generate(spec)))
        elif name in ("fla", "slashdot"):
            path = data / ("road/FLA.edges.gz" if name == "fla" else "social/soc-Slashdot0902.txt.gz")
            if not path.exists():
                out.append((name, str(path), f"{path} is absent"))
                continue
            out.append((name, f"{path.name} (weights {UNWEIGHTED_RULE})", lambda p=path: load_file(p)))
        else:
            raise SystemExit(f"error: unknown input {name!r} (road, kron, fla, slashdot)")
    return out


def load_file(path):
    import ordo

    g = ordo.Graph.from_file(str(path))
    return g if g.weighted else g.with_weights(UNWEIGHTED_RULE)


def prepare(g, k):
    """The shared edge arrays of graph g and the run's parameters."""
    gd = g.deduplicated()
    src, dst, w = gd.edges()
    if w is None:
        w = np.ones(src.size, dtype=np.uint32)
    gs = g.symmetrized()
    u, v, uw = gs.edges()
    if uw is None:
        uw = np.ones(u.size, dtype=np.uint32)
    keep = u < v
    n = g.n
    source = int(np.argmax(gd.degrees()))
    candidates = bc_candidates(src, dst, n)
    return peer_libs.Inputs(
        n=n,
        directed=(src.astype(np.int64), dst.astype(np.int64), w),
        undirected=(u[keep].astype(np.int64), v[keep].astype(np.int64), uw[keep]),
        source=source,
        bc_sources=bc_sources(candidates, k),
        bc_candidates=candidates,
    )


def run_input(args, name, desc, g, libs, records, conversions):
    """Every conversion and kernel of every library on one input; appends the records."""
    x = prepare(g, args.bc_sources)
    del g
    head = {"input": name, "graph": desc, "n": x.n, "m": int(x.directed[0].size), "m_undirected": int(x.undirected[0].size)}
    print(f"== {name}: {desc}: n={x.n} m={head['m']} (undirected {head['m_undirected']}), source {x.source}", flush=True)
    graphs = {}  # library -> form -> its graph
    unusable = {}  # library -> why it does not run on this input
    for lib in libs:
        why = lib.installed()
        limit = args.max_n.get(lib.name)
        if why is None and limit is not None and x.n > limit:
            why = f"skipped: n={x.n} above --max-n {lib.name}={limit}"
        if why:
            unusable[lib.name] = why
            continue
        forms = {k.form for kn, k in lib.kernels.items() if kn in args.kernels and isinstance(k, peer_libs.Kernel)}
        graphs[lib.name] = {}
        for form in sorted(forms):
            try:
                t, graph = measure(lambda: lib.forms[form](x), args.reps, args.cell_budget)
            except Exception as e:  # a library that cannot build the graph runs no kernel on it
                print(f"ERROR {name} {lib.name}: building its {form} graph: {e!r}", file=sys.stderr)
                conversions.append({**head, "library": lib.name, "form": form, "error": repr(e)})
                continue
            graphs[lib.name][form] = graph
            conversions.append({**head, "library": lib.name, "form": form, "time": t})
            print(f"   convert {lib.name:10s} {form:22s} {t['median_s']:.4f} s", flush=True)

    for kernel in args.kernels:
        answers = []  # (record, canonical answer) of the runs that answered
        for lib in libs:
            entry = lib.kernels[kernel]
            threads = args.threads if lib.set_threads else [None]
            for t in threads:
                rec = {**head, "library": lib.name, "kernel": kernel, "threads": t}
                if lib.name in unusable:
                    rec.update(status="not installed" if "not installed" in unusable[lib.name] else "skipped",
                               detail=unusable[lib.name])
                elif isinstance(entry, peer_libs.Missing):
                    rec.update(status=entry.status, detail=entry.reason)
                elif entry.form not in graphs[lib.name]:
                    rec.update(status="error", detail=f"no {entry.form} graph (its conversion failed)")
                else:
                    rec["call"] = entry.call
                    graph = graphs[lib.name][entry.form]
                    try:
                        if t is not None:
                            lib.set_threads(t)
                        timing, raw = measure(lambda: entry.run(graph, x, t), args.reps, args.cell_budget)
                        answer = entry.canon(raw, x)
                        del raw
                        rec.update(status="ran", time=timing)
                        answers.append((rec, answer))
                    except Exception as e:
                        rec.update(status="error", detail=repr(e))
                records.append(rec)
                show(rec)
        check(kernel, answers)
        del answers
        gc.collect()
    del graphs
    gc.collect()


def show(rec):
    t = "" if rec.get("threads") is None else f" {rec['threads']}t"
    what = f"   {rec['kernel']:8s} {rec['library'] + t:14s}"
    if "time" in rec:
        tm = rec["time"]
        print(f"{what} {tm['median_s']:.4f} s ({tm['min_s']:.4f}-{tm['max_s']:.4f}, {tm['runs']} runs)", flush=True)
    else:
        print(f"{what} {rec['status']}: {rec.get('detail', '')}", flush=True)


def check(kernel, answers):
    """Marks every answer ok or MISMATCH against the reference: ordo's first answer, else the first."""
    if not answers:
        return
    ref_rec, ref = next(((r, a) for r, a in answers if r["library"] == "ordo"), answers[0])
    ref_name = ref_rec["library"] + ("" if ref_rec["threads"] is None else f" at {ref_rec['threads']} threads")
    for rec, answer in answers:
        if rec is ref_rec:
            rec["status"] = "ok"
            rec["check"] = "reference"
            continue
        try:
            diff = peer_checks.compare(kernel, answer, ref)
        except Exception as e:
            diff = f"cannot compare: {e!r}"
        rec["check"] = f"against {ref_name}"
        if diff is None:
            rec["status"] = "ok"
        else:
            rec["status"] = "MISMATCH"
            rec["detail"] = f"{diff} (against {ref_name})"
            print(f"ERROR {rec['input']} {kernel} {rec['library']}: result differs: {rec['detail']}", file=sys.stderr)


def fmt_time(tm):
    return f"{tm['median_s']:.3g} ({tm['min_s']:.3g}–{tm['max_s']:.3g})"


def markdown(report):
    """The tables: per input and thread count, kernels by libraries; then the conversions."""
    recs, convs = report["records"], report["conversions"]
    libs = list(dict.fromkeys(r["library"] for r in recs))
    lines = ["# ordo side by side (Python)", ""]
    lines.append(
        f"Python {report['python']}, ordo {report['ordo']}, {report['reps']} runs after a warm-up per cell; "
        "seconds: median (min–max), ×: the median over ordo's at the same thread count (above 1: ordo faster). "
        "Sequential libraries (no thread count) have the same cell in every table."
    )
    lines.append("")
    for name in dict.fromkeys(r["input"] for r in recs):
        rs = [r for r in recs if r["input"] == name]
        r0 = rs[0]
        for t in report["threads"]:
            lines.append(f"## {name}: {r0['graph']} (n={r0['n']:,}, m={r0['m']:,}), {t} thread{'s' if t > 1 else ''}")
            lines.append("")
            lines.append("| kernel | " + " | ".join(libs) + " |")
            lines.append("|---" * (len(libs) + 1) + "|")
            for kernel in dict.fromkeys(r["kernel"] for r in rs):
                at = {}
                for r in rs:
                    if r["kernel"] == kernel and r["threads"] in (t, None):
                        at[r["library"]] = r
                ordo_rec = at.get("ordo")
                base = ordo_rec["time"]["median_s"] if ordo_rec and "time" in ordo_rec and ordo_rec["status"] == "ok" else None
                cells = []
                for lib in libs:
                    r = at.get(lib)
                    cells.append(cell(r, base))
                lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
            lines.append("")
    bad = [r for r in recs if r["status"] in ("MISMATCH", "error")]
    if bad:
        lines.append("## ERRORS")
        lines.append("")
        for r in bad:
            lines.append(f"- **{r['status']}** {r['input']} {r['kernel']} {r['library']} "
                         f"(threads {r['threads']}): {r.get('detail', '')}")
        lines.append("")
    lines.append("## Conversions (building each library's graph from the edge arrays), seconds")
    lines.append("")
    forms = list(dict.fromkeys(c["form"] for c in convs))
    lines.append("| input | library | " + " | ".join(forms) + " |")
    lines.append("|---" * (len(forms) + 2) + "|")
    for key in dict.fromkeys((c["input"], c["library"]) for c in convs):
        row = {c["form"]: c for c in convs if (c["input"], c["library"]) == key}
        cells = [fmt_time(row[f]["time"]) if f in row and "time" in row[f] else ("error" if f in row else "") for f in forms]
        lines.append(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("## Calls and threads")
    lines.append("")
    for lib, note in report["libraries"].items():
        calls = dict.fromkeys(f"{r['kernel']}: `{r['call']}`" for r in recs if r["library"] == lib and "call" in r)
        missing = dict.fromkeys(f"{r['kernel']}: {r['detail']}" for r in recs
                                if r["library"] == lib and r["status"] in ("no kernel", "not in this build"))
        lines.append(f"- **{lib}** ({note}): " + "; ".join(list(calls) + list(missing)))
    lines.append("")
    lines.append(
        f"Checks against ordo (or, where ordo lacks the kernel, the first library that ran it): distances, "
        f"BFS levels, components, triangles, MST weight and edge count exact; PageRank L1 ≤ "
        f"{peer_checks.PR_L1_BOUND:g} after normalising to 1; betweenness relative ≤ {peer_checks.BC_REL_BOUND:g}."
    )
    return "\n".join(lines) + "\n"


def cell(r, base):
    if r is None:
        return ""
    if r["status"] == "ok":
        s = fmt_time(r["time"])
        if base and r["library"] != "ordo":
            s += f" ×{r['time']['median_s'] / base:.2f}"
        return s
    if r["status"] in ("MISMATCH", "error"):
        return f"**{r['status']}**"
    return r["status"]


def parse_max_n(items):
    out = {}
    for item in items:
        lib, _, n = item.partition("=")
        try:
            out[lib] = int(float(n))
        except ValueError:
            raise SystemExit(f"error: --max-n {item!r}: want LIBRARY=N")
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--inputs", default="road,kron,fla,slashdot", help="comma separated: road, kron, fla, slashdot")
    p.add_argument("--kernels", default=",".join(KERNELS), help="comma separated: " + ", ".join(KERNELS))
    p.add_argument("--libs", default=None, help="comma separated libraries (default: all; ordo always runs)")
    p.add_argument("--road-n", type=lambda s: int(float(s)), default=1_000_000)
    p.add_argument("--kron-scale", type=int, default=18)
    p.add_argument("--data", default=str(DEFAULT_DATA), help="the real graphs' folder (shared/data)")
    p.add_argument("--threads", default="1,2", help="thread counts of ordo, networkit and GraphBLAS")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--bc-sources", type=int, default=16, help="betweenness: the number of sources k")
    p.add_argument("--cell-budget", type=float, default=60.0, help="seconds after which a cell starts no further run")
    p.add_argument("--max-n", action="append", default=None,
                   help="LIBRARY=N: skip LIBRARY on graphs of more than N vertices (default networkx=200000)")
    p.add_argument("--quick", action="store_true", help="tiny generated inputs, 2 runs: every cell in seconds")
    p.add_argument("--out", type=Path, help="write every measurement as JSON")
    p.add_argument("--md", type=Path, help="write the tables as markdown")
    args = p.parse_args(argv)
    args.inputs = [s for s in args.inputs.split(",") if s]
    args.kernels = [s for s in args.kernels.split(",") if s]
    for k in args.kernels:
        if k not in KERNELS:
            raise SystemExit(f"error: unknown kernel {k!r} ({', '.join(KERNELS)})")
    args.threads = [int(t) for t in args.threads.split(",")]
    args.max_n = parse_max_n(args.max_n if args.max_n is not None else ["networkx=200000"])
    if args.quick:
        args.inputs, args.road_n, args.kron_scale, args.reps, args.bc_sources = ["road", "kron"], 1000, 8, 2, 4

    import ordo

    try:  # networkx's own code for the networkx cells, whatever backends are installed
        import networkx as nx

        nx.config.backend_priority = []
    except (ImportError, AttributeError, TypeError, ValueError):
        pass
    libs = peer_libs.all_libraries()
    if args.libs:
        wanted = set(args.libs.split(",")) | {"ordo"}
        libs = [lib for lib in libs if lib.name in wanted]
    for lib in libs:
        why = lib.installed()
        if why:
            print(f"note: {lib.name}: {why}: its cells are skipped")
    report = {
        "python": sys.version.split()[0],
        "ordo": getattr(ordo, "__version__", "?"),
        "threads": args.threads,
        "reps": args.reps,
        "bc_sources": args.bc_sources,
        "cell_budget_s": args.cell_budget,
        "libraries": {lib.name: lib.threads for lib in libs},
        "records": [],
        "conversions": [],
        "skipped_inputs": [],
    }
    for name, desc, loader in input_specs(args):
        if isinstance(loader, str):
            print(f"note: input {name} skipped: {loader}")
            report["skipped_inputs"].append({"input": name, "why": loader})
            continue
        t = time.perf_counter()
        g = loader()
        print(f"   loaded {name} in {time.perf_counter() - t:.2f} s", flush=True)
        run_input(args, name, desc, g, libs, report["records"], report["conversions"])
        del g
        gc.collect()
    md = markdown(report)
    print()
    print(md)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    if args.md:
        args.md.write_text(md)
    bad = [r for r in report["records"] if r["status"] in ("MISMATCH", "error")]
    if bad:
        print(f"ERROR: {len(bad)} cells failed or disagree (see ERRORS above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
