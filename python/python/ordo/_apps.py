"""One Python function per application of ordo's registry (the apps of ``ordo run``).

Each function takes the graph, the application's parameters (as the ``ordo run``
flags of the same names; ``None`` means the application's default), and the
keywords every application shares:

``scheduler``
    the spec strings of ``ordo run --sched`` (default: the application's,
    ``auto`` for every priority application but ``pagerank``, whose default
    is GAPBS's pull iterations and whose scheduler runs the papers' residual
    operator), e.g. ``"obim:delta=14"``, ``"strict"``; a bad spec raises
    ``ValueError``.
``threads``
    worker threads (default: ``ORDO_THREADS`` or all cores).
``stats``
    ``True`` returns ``(result, stats)``, stats being the dict ``ordo run
    --json`` prints (``time_s``, ``tasks``, ``work_increase``, the scheduler's
    counters, the app's checksums, ...).
``verify``
    also run the sequential reference and check the result against it
    (exactly, or within PageRank's stated bound); a difference raises
    ``RuntimeError``. Fills ``seq_time_s`` / ``vs_seq`` / ``verified``.
``cycles``
    split each thread's time into the PMOD paper's Table 1 classes
    (``breakdown`` in the stats).

Runs release the GIL; Ctrl-C stops a run and raises ``KeyboardInterrupt``.
"""

import inspect
from typing import Any, Callable, Dict

from . import _ordo

#: Python names of the applications whose registry name is not one.
PYTHON_NAMES = {"pr": "pagerank", "pr-d": "pagerank_d"}

#: What each known application returns.
RESULTS = {
    "sssp": "numpy.ndarray of float64: the distance of every vertex from the source, ``inf`` where "
    "unreachable (an unweighted graph's edges weigh 1).",
    "bfs": "numpy.ndarray of float64: the BFS level of every vertex, ``inf`` where unreachable; with "
    "``parents=True`` ``(levels, parents)``, parents an int64 array (the source its own parent, -1 where "
    "unreachable).",
    "astar": "(path, length): the vertices of a shortest path from source to target (int64 array, "
    "empty when unreachable) and its length (float, ``inf`` when unreachable).",
    "pr": "numpy.ndarray of float64: the rank of every vertex (unnormalised: they sum to about n; "
    "divide by n for networkx's scale).",
    "pr-d": "numpy.ndarray of float64: the rank of every vertex (unnormalised: they sum to about n).",
    "mst": "numpy.ndarray of int64, shape (k, 3): the minimum spanning forest's edges ``u, v, weight`` "
    "(u < v, sorted), of the graph taken as undirected.",
    "span-dfs": "numpy.ndarray of int64: the parent of every vertex in a spanning forest of the graph "
    "taken as undirected (a root is its own parent; one root per connected component).",
    "span-bfs": "numpy.ndarray of int64: the parent of every vertex in a BFS spanning forest of the graph "
    "taken as undirected (a root is its own parent; one root per connected component).",
    "cc": "numpy.ndarray of int64: the label of every vertex, the smallest vertex id of its weakly "
    "connected component (the graph taken as undirected).",
    "pr-pull": "numpy.ndarray of float64: the rank of every vertex after the pull iterations "
    "(a distribution: they sum to 1, networkx's scale).",
    "tc": "int: the number of triangles of the simple undirected graph.",
    "bc": "numpy.ndarray of float64: the betweenness of every vertex (Brandes, unweighted, the graph "
    "as directed; networkx's ``betweenness_centrality(G, normalized=False)`` for all sources).",
    "loop-micro": "dict: the checksum ``iterations``, ``index_sum``, ``increments`` of the loop "
    "microbenchmark (the graph is not used).",
}

#: What ``scheduler=`` carries, by the application's strategy flag.
STRATEGY = {"sched": "scheduler spec", "loop": "loop distributor spec", "batch": "work-stealing batch spec", "kernel": "kernel name"}


def _make(info: Dict[str, Any]) -> Callable[..., Any]:
    app = info["name"]
    pyname = PYTHON_NAMES.get(app, app.replace("-", "_"))
    P = inspect.Parameter
    params = [P("g", P.POSITIONAL_OR_KEYWORD)]
    params += [P(name, P.POSITIONAL_OR_KEYWORD, default=(False if value is None else None)) for name, value, _ in info["params"]]
    params += [
        P("scheduler", P.KEYWORD_ONLY, default=None),
        P("threads", P.KEYWORD_ONLY, default=None),
        P("stats", P.KEYWORD_ONLY, default=False),
        P("verify", P.KEYWORD_ONLY, default=False),
        P("cycles", P.KEYWORD_ONLY, default=False),
    ]
    signature = inspect.Signature(params)
    own = [name for name, _, _ in info["params"]]

    def run(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        return _ordo.run_app(
            app,
            a["g"],
            {name: a[name] for name in own},
            scheduler=a["scheduler"],
            threads=a["threads"],
            stats=a["stats"],
            verify=a["verify"],
            cycles=a["cycles"],
        )

    lines = [f"{info['about']}", "", f"The ``{app}`` application of ``ordo run``.", "", "Args:", "    g: the graph."]
    for name, value, help_text in info["params"]:
        kind = "flag" if value is None else value
        lines.append(f"    {name} ({kind}): {help_text}")
    lines += [
        f"    scheduler: the {STRATEGY.get(info['strategy_flag'], 'scheduler spec')} (as ``ordo run --{info['strategy_flag']}``; default ``{info['default_strategy']}``).",
        "    threads, stats, verify" + (", cycles" if info["cycles"] else "") + ": see the ``ordo`` module docs.",
        "",
        "Returns:",
        "    " + RESULTS.get(app, "the result as the text ``ordo run --out`` writes."),
        "    With ``stats=True``: ``(result, stats)``.",
        "",
        "Raises:",
        "    ValueError: a bad parameter, scheduler spec or thread count.",
        "    RuntimeError: with ``verify=True``, a result that differs from the reference.",
        "    KeyboardInterrupt: Ctrl-C stopped the run.",
    ]
    run.__name__ = run.__qualname__ = pyname
    run.__doc__ = "\n".join(lines)
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__module__ = "ordo"
    return run


def make_all() -> Dict[str, Callable[..., Any]]:
    """One function per registered application, by Python name."""
    return {fn.__name__: fn for fn in (_make(info) for info in _ordo.apps())}
