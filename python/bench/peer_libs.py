"""How each library builds its graph and runs each kernel of the side-by-side.

Every library is a ``Library``: the graph forms it builds from the shared edge
arrays (its own conversion, timed apart from the kernels), and for each kernel
the form it runs on, the call that is timed, and the conversion of its answer
to the common form that ``peer_checks`` compares (not timed). A kernel a
library lacks is a ``Missing`` entry with the reason, shown in the table.

The common forms: ``sssp`` and ``bfs`` float64 per vertex (``inf`` where
unreachable); ``pagerank`` float64 summing to 1 (networkx's model: dangling
vertices spread their rank evenly); ``tc`` the triangle count of the simple
undirected graph; ``bc`` float64 per vertex, Brandes over the given sources on
the directed unweighted graph, scaled as ordo and networkx scale a sample;
``mst`` ``(total weight, edge count)`` of the minimum spanning forest of the
undirected graph; ``cc`` per vertex the least vertex of its component.
"""

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional

import numpy as np

#: The damping factor every PageRank runs with.
PR_ALPHA = 0.85
#: The L1 change of the rank distribution at which a PageRank stops (each
#: library's tolerance is set to mean this; its error is then at most
#: ``PR_TOL_L1 * alpha / (1 - alpha)``).
PR_TOL_L1 = 1e-8
#: Iterations a PageRank may take before it stops without converging.
PR_MAX_ITER = 300


@dataclass
class Inputs:
    """What every kernel needs: the graph as edge arrays, and the run's parameters.

    ``directed``: ``(src, dst, weight)`` of the directed graph without parallel
    edges; ``undirected``: each edge ``u < v`` of the simple undirected graph
    once (self loops dropped, a pair's least weight). ``source`` for SSSP and
    BFS; ``bc_sources`` the sorted source list of betweenness, drawn among
    ``bc_candidates`` (the mask of vertices with an out-edge to another vertex).
    """

    n: int
    directed: tuple
    undirected: tuple
    source: int
    bc_sources: np.ndarray
    bc_candidates: np.ndarray
    ordo_graphs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Kernel:
    """One library's way to run one kernel: on graph form ``form``, ``run(graph, inputs, threads)``
    is timed, ``canon(result, inputs)`` gives the common form (not timed)."""

    form: str
    run: Callable
    canon: Callable
    call: str  # the library function, for the table's notes


@dataclass
class Missing:
    """A kernel the library does not have (or not in this build), and why."""

    reason: str
    status: str = "no kernel"


@dataclass
class Library:
    name: str
    module: str  # imported to tell whether the library is installed
    threads: str  # how it takes a thread count: "threads" or "sequential: <why>"
    forms: Dict[str, Callable]  # form name -> build(inputs) from the edge arrays
    kernels: Dict[str, Any]  # kernel name -> Kernel | Missing
    set_threads: Optional[Callable] = None  # set_threads(t) for threaded libraries

    def installed(self) -> Optional[str]:
        """None when importable, else the reason."""
        try:
            importlib.import_module(self.module)
        except ImportError as e:
            return f"{self.module} not installed ({e.__class__.__name__})"
        return None


# --- conversions of results to the common forms -------------------------------------------


def dist_from_dict(d, n, source=None):
    """A dict vertex -> distance (missing: unreachable) as a float64 array."""
    out = np.full(n, np.inf)
    if d:
        keys = np.fromiter(d.keys(), dtype=np.int64, count=len(d))
        vals = np.fromiter(d.values(), dtype=np.float64, count=len(d))
        out[keys] = vals
    if source is not None:
        out[source] = 0.0
    return out


def levels_from_layers(layers, n):
    """Layers (lists of vertices, the first the source's) as BFS levels."""
    out = np.full(n, np.inf)
    for level, layer in enumerate(layers):
        out[np.asarray(list(layer), dtype=np.int64)] = level
    return out


def levels_from_parents(order, parent, n):
    """BFS levels from a BFS tree (``parent[v]`` the parent, the root its own or negative).

    Pointer jumping: ``depth[v] += depth[up[v]]``, ``up[v] = up[up[v]]`` until
    every ``up`` is the root; log(depth) numpy passes, no loop over vertices.
    """
    out = np.full(n, np.inf)
    order = np.asarray(order, dtype=np.int64)
    if order.size == 0:
        return out
    root = order[0]
    up = np.asarray(parent, dtype=np.int64).copy()
    up[root] = root
    reached = np.zeros(n, dtype=bool)
    reached[order] = True
    up[~reached] = root  # unreached vertices are masked below
    depth = (np.arange(n) != root).astype(np.int64)
    while (up != root).any():
        depth = depth + depth[up] * (up != root)
        up = up[up]
    out[reached] = depth[reached]
    return out


def ranks(values):
    """A rank vector as a float64 distribution (summing to 1)."""
    v = np.asarray(values, dtype=np.float64)
    return v / v.sum()


def components_from_labels(labels):
    """Labels per vertex (any ids) as the least vertex of each vertex's component."""
    labels = np.asarray(labels)
    _, dense = np.unique(labels, return_inverse=True)
    least = np.full(dense.max() + 1 if dense.size else 0, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(least, dense, np.arange(labels.size, dtype=np.int64))
    return least[dense]


def components_from_sets(sets, n):
    """Components as collections of vertices, as the least vertex of each vertex's component."""
    out = np.empty(n, dtype=np.int64)
    for comp in sets:
        members = np.fromiter(comp, dtype=np.int64)
        out[members] = members.min()
    return out


def scale_sample(raw, sources, candidates):
    """Sums of dependencies over ``sources`` scaled as ordo and networkx scale a sample.

    The sources are drawn among the ``c`` candidates (vertices with an
    out-edge; ``candidates`` is their mask): ``(c - [v candidate])/k`` for a
    vertex that is not a source, ``(c-1)/(k-1)`` for a source (a source never
    counts itself); no scaling when every candidate is a source.
    """
    raw = np.asarray(raw, dtype=np.float64).copy()
    candidates = np.asarray(candidates, dtype=bool)
    k, c = len(sources), int(candidates.sum())
    if k >= c:
        return raw
    is_source = np.zeros(raw.size, dtype=bool)
    is_source[sources] = True
    raw[~is_source] *= (c - candidates[~is_source]) / k
    raw[is_source] *= (c - 1) / (k - 1) if k > 1 else 0.0
    return raw


def mst_summary(total, count):
    return (float(total), int(count))


def ident(result, inputs):
    return result


# --- ordo -----------------------------------------------------------------------------------


def _ordo_forms():
    import ordo

    def directed(x):
        src, dst, w = x.directed
        return ordo.Graph.from_edges(src, dst, w, n=x.n)

    def undirected(x):
        u, v, w = x.undirected
        return ordo.Graph.from_edges(np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]), n=x.n)

    return {"directed": directed, "undirected": undirected}


def ordo_library():
    try:
        import ordo
    except ImportError:
        ordo = None

    def has(name):
        return ordo is not None and hasattr(ordo, name)

    def mst_run(g, x, t):
        return ordo.mst(g, threads=t)

    k = {
        "sssp": Kernel("directed", lambda g, x, t: ordo.sssp(g, x.source, threads=t), ident, "sssp"),
        "bfs": Kernel("directed", lambda g, x, t: ordo.bfs(g, x.source, threads=t), ident, "bfs"),
        "pagerank": Kernel(
            "undirected",
            lambda g, x, t: ordo.pr_pull(g, alpha=PR_ALPHA, tolerance=PR_TOL_L1, iterations=PR_MAX_ITER, threads=t),
            lambda r, x: ranks(r),
            "pr_pull (networkx's model)",
        ),
        "tc": Kernel("undirected", lambda g, x, t: ordo.tc(g, threads=t), lambda r, x: int(r), "tc"),
        "bc": Kernel(
            "directed",
            lambda g, x, t: ordo.bc(g, sources=len(x.bc_sources), seed=1, threads=t),
            ident,
            "bc(sources=k, seed=1)",
        ),
        "mst": Kernel("undirected", mst_run, lambda r, x: mst_summary(r[:, 2].sum(), len(r)), "mst"),
    }
    if has("cc"):
        k["cc"] = Kernel(
            "undirected", lambda g, x, t: ordo.cc(g, threads=t), lambda r, x: components_from_labels(r), "cc"
        )
    else:
        k["cc"] = Missing("ordo.cc is not in this build", status="not in this build")
    return Library(
        "ordo", "ordo", "threads", _ordo_forms() if ordo else {}, k, set_threads=lambda t: None
    )


# --- scipy ----------------------------------------------------------------------------------


def scipy_library():
    def forms():
        import scipy.sparse as sp

        def directed(x):
            src, dst, w = x.directed
            return sp.csr_array((w.astype(np.float64), (src, dst)), shape=(x.n, x.n))

        def undirected(x):
            u, v, w = x.undirected
            return sp.csr_array((w.astype(np.float64), (u, v)), shape=(x.n, x.n))

        return {"directed": directed, "undirected": undirected}

    def cs():
        from scipy.sparse import csgraph

        return csgraph

    def bfs_canon(r, x):
        order, pred = r
        return levels_from_parents(order, pred, x.n)

    def mst_canon(t, x):
        return mst_summary(t.sum(), t.nnz)

    k = {
        "sssp": Kernel("directed", lambda m, x, t: cs().dijkstra(m, indices=x.source), ident, "csgraph.dijkstra"),
        "bfs": Kernel(
            "directed",
            lambda m, x, t: cs().breadth_first_order(m, x.source, return_predecessors=True),
            bfs_canon,
            "csgraph.breadth_first_order",
        ),
        "pagerank": Missing("no PageRank in scipy"),
        "tc": Missing("no triangle count in scipy"),
        "bc": Missing("no betweenness in scipy"),
        "mst": Kernel("undirected", lambda m, x, t: cs().minimum_spanning_tree(m), mst_canon, "csgraph.minimum_spanning_tree"),
        "cc": Kernel(
            "undirected",
            lambda m, x, t: cs().connected_components(m, directed=False),
            lambda r, x: components_from_labels(r[1]),
            "csgraph.connected_components",
        ),
    }
    lib = Library("scipy", "scipy", "sequential", {}, k)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


# --- networkx -------------------------------------------------------------------------------


def networkx_library():
    def forms():
        import networkx as nx

        def build(cls, edges, n):
            src, dst, w = edges
            g = cls()
            g.add_nodes_from(range(n))
            g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
            return g

        return {
            "directed": lambda x: build(nx.DiGraph, x.directed, x.n),
            "undirected": lambda x: build(nx.Graph, x.undirected, x.n),
        }

    def nx():
        import networkx

        return networkx

    def pagerank(g, x, t):
        return nx().pagerank(g, alpha=PR_ALPHA, tol=PR_TOL_L1 / x.n, max_iter=PR_MAX_ITER, weight=None)

    def bc(g, x, t):
        return nx().betweenness_centrality_subset(g, sources=x.bc_sources.tolist(), targets=list(g), normalized=False)

    def mst(g, x, t):
        return nx().minimum_spanning_tree(g, weight="weight", algorithm="kruskal")

    k = {
        "sssp": Kernel(
            "directed",
            lambda g, x, t: nx().single_source_dijkstra_path_length(g, x.source),
            lambda r, x: dist_from_dict(r, x.n),
            "single_source_dijkstra_path_length",
        ),
        "bfs": Kernel(
            "directed",
            lambda g, x, t: nx().single_source_shortest_path_length(g, x.source),
            lambda r, x: dist_from_dict(r, x.n),
            "single_source_shortest_path_length",
        ),
        "pagerank": Kernel("undirected", pagerank, lambda r, x: ranks([r[v] for v in range(x.n)]), "pagerank"),
        "tc": Kernel(
            "undirected", lambda g, x, t: sum(nx().triangles(g).values()) // 3, ident, "triangles (sum / 3)"
        ),
        "bc": Kernel(
            "directed",
            bc,
            lambda r, x: scale_sample([r[v] for v in range(x.n)], x.bc_sources, x.bc_candidates),
            "betweenness_centrality_subset",
        ),
        "mst": Kernel(
            "undirected",
            mst,
            lambda r, x: mst_summary(r.size(weight="weight"), r.number_of_edges()),
            "minimum_spanning_tree (kruskal)",
        ),
        "cc": Kernel(
            "undirected",
            lambda g, x, t: list(nx().connected_components(g)),
            lambda r, x: components_from_sets(r, x.n),
            "connected_components",
        ),
    }
    lib = Library("networkx", "networkx", "sequential", {}, k)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


# --- networkit ------------------------------------------------------------------------------


def networkit_library():
    def nk():
        import networkit

        return networkit

    def forms():
        def build(edges, n, directed, weighted=True):
            src, dst, w = edges
            g = nk().Graph(n, weighted=weighted, directed=directed)
            if weighted:
                g.addEdges((w.astype(np.float64), (src.astype(np.uint64), dst.astype(np.uint64))))
            else:
                g.addEdges((src.astype(np.uint64), dst.astype(np.uint64)))
            return g

        def undirected(x):
            g = build(x.undirected, x.n, directed=False)
            g.indexEdges()  # edge ids, which the triangle count needs
            return g

        return {
            "directed": lambda x: build(x.directed, x.n, directed=True),
            "undirected": undirected,
            # PageRank weighs edges on a weighted graph; the others' PageRank is unweighted.
            "undirected unweighted": lambda x: build(x.undirected, x.n, directed=False, weighted=False),
        }

    def far(d):
        d = np.asarray(d, dtype=np.float64)
        d[d >= np.finfo(np.float64).max / 2] = np.inf  # networkit's "unreachable"
        return d

    def pagerank(g, x, t):
        c = nk().centrality
        pr = c.PageRank(g, damp=PR_ALPHA, tol=PR_TOL_L1, distributeSinks=c.SinkHandling.DistributeSinks)
        pr.norm = c.Norm.L1_NORM
        pr.maxIterations = PR_MAX_ITER
        return pr.run().scores()

    def tc(g, x, t):
        return int(round(sum(nk().sparsification.TriangleEdgeScore(g).run().scores()))) // 3

    def mst(g, x, t):
        return nk().graph.KruskalMSF(g).run()

    k = {
        "sssp": Kernel(
            "directed",
            lambda g, x, t: nk().distance.Dijkstra(g, x.source, storePaths=False).run().getDistances(),
            lambda r, x: far(r),
            "distance.Dijkstra",
        ),
        "bfs": Kernel(
            "directed",
            lambda g, x, t: nk().distance.BFS(g, x.source, storePaths=False).run().getDistances(),
            lambda r, x: far(r),
            "distance.BFS",
        ),
        "pagerank": Kernel("undirected unweighted", pagerank, lambda r, x: ranks(r), "centrality.PageRank (sinks distributed, L1)"),
        "tc": Kernel("undirected", tc, ident, "sparsification.TriangleEdgeScore (sum / 3)"),
        "bc": Missing("no betweenness over given sources (Estimate/ApproxBetweenness sample their own)"),
        "mst": Kernel(
            "undirected",
            mst,
            lambda r, x: mst_summary(r.getTotalWeight(), r.getForest().numberOfEdges()),
            "graph.KruskalMSF",
        ),
        "cc": Kernel(
            "undirected",
            lambda g, x, t: nk().components.ConnectedComponents(g).run().getPartition().getVector(),
            lambda r, x: components_from_labels(r),
            "components.ConnectedComponents",
        ),
    }

    def set_threads(t):
        nk().setNumberOfThreads(t)

    lib = Library("networkit", "networkit", "threads", {}, k, set_threads=set_threads)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


# --- igraph ---------------------------------------------------------------------------------


def igraph_library():
    def ig():
        import igraph

        return igraph

    def forms():
        def build(edges, n, directed):
            src, dst, w = edges
            g = ig().Graph(n=n, edges=np.column_stack((src, dst)).tolist(), directed=directed)
            g.es["weight"] = w.astype(np.float64).tolist()
            return g

        return {
            "directed": lambda x: build(x.directed, x.n, True),
            "undirected": lambda x: build(x.undirected, x.n, False),
        }

    def bfs_canon(r, x):
        vids, layers, _ = r
        levels = np.full(x.n, np.inf)
        vids = np.asarray(vids, dtype=np.int64)
        starts = np.asarray(layers, dtype=np.int64)
        levels[vids] = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
        return levels

    def tc(g, x, t):
        # The census of 3-vertex induced subgraphs, in C; class 3 is the triangle.
        return int(g.motifs_randesu(size=3)[3])

    k = {
        "sssp": Kernel(
            "directed",
            lambda g, x, t: g.distances(source=x.source, weights="weight", mode="out")[0],
            lambda r, x: np.asarray(r, dtype=np.float64),
            "Graph.distances (Dijkstra)",
        ),
        "bfs": Kernel("directed", lambda g, x, t: g.bfs(x.source, mode="out"), bfs_canon, "Graph.bfs"),
        "pagerank": Kernel(
            "undirected",
            lambda g, x, t: g.pagerank(damping=PR_ALPHA, directed=False, weights=None),
            lambda r, x: ranks(r),
            "Graph.pagerank (PRPACK)",
        ),
        "tc": Kernel("undirected", tc, ident, "Graph.motifs_randesu(size=3)[3]"),
        "bc": Kernel(
            "directed",
            lambda g, x, t: g.betweenness(directed=True, sources=x.bc_sources.tolist()),
            lambda r, x: scale_sample(r, x.bc_sources, x.bc_candidates),
            "Graph.betweenness(sources=...)",
        ),
        "mst": Kernel(
            "undirected",
            lambda g, x, t: g.spanning_tree(weights="weight"),
            lambda r, x: mst_summary(sum(r.es["weight"]), r.ecount()),
            "Graph.spanning_tree (Prim)",
        ),
        "cc": Kernel(
            "undirected",
            lambda g, x, t: g.connected_components(mode="weak").membership,
            lambda r, x: components_from_labels(r),
            "Graph.connected_components",
        ),
    }
    lib = Library("igraph", "igraph", "sequential (no parallel variant of these kernels)", {}, k)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


# --- rustworkx ------------------------------------------------------------------------------


def rustworkx_library():
    def rx():
        import rustworkx

        return rustworkx

    def forms():
        def build(cls, edges, n, both=False):
            src, dst, w = edges
            g = cls()
            g.add_nodes_from(range(n))
            s, d, ww = src.tolist(), dst.tolist(), w.astype(np.float64).tolist()
            g.add_edges_from(list(zip(s, d, ww)))
            if both:
                g.add_edges_from(list(zip(d, s, ww)))
            return g

        return {
            "directed": lambda x: build(rx().PyDiGraph, x.directed, x.n),
            "undirected": lambda x: build(rx().PyGraph, x.undirected, x.n),
            # rustworkx's PageRank takes directed graphs only: both directions.
            "symmetric directed": lambda x: build(rx().PyDiGraph, x.undirected, x.n, both=True),
        }

    def sssp_canon(r, x):
        return dist_from_dict(dict(r), x.n, source=x.source)

    k = {
        "sssp": Kernel(
            "directed",
            lambda g, x, t: rx().digraph_dijkstra_shortest_path_lengths(g, x.source, float),
            sssp_canon,
            "digraph_dijkstra_shortest_path_lengths",
        ),
        "bfs": Kernel(
            "directed",
            lambda g, x, t: rx().bfs_layers(g, [x.source]),
            lambda r, x: levels_from_layers(r, x.n),
            "bfs_layers",
        ),
        "pagerank": Kernel(
            "symmetric directed",
            lambda g, x, t: rx().pagerank(g, alpha=PR_ALPHA, tol=PR_TOL_L1 / x.n, max_iter=PR_MAX_ITER),
            lambda r, x: ranks([r[v] for v in range(x.n)]),
            "pagerank",
        ),
        "tc": Missing("no triangle count in rustworkx (transitivity only)"),
        "bc": Missing("no betweenness over given sources (all pairs only)"),
        "mst": Kernel(
            "undirected",
            lambda g, x, t: rx().minimum_spanning_edges(g, weight_fn=float),
            lambda r, x: mst_summary(sum(e[2] for e in r), len(r)),
            "minimum_spanning_edges (Kruskal)",
        ),
        "cc": Kernel(
            "undirected",
            lambda g, x, t: rx().connected_components(g),
            lambda r, x: components_from_sets(r, x.n),
            "connected_components",
        ),
    }
    lib = Library("rustworkx", "rustworkx", "sequential (its parallel functions are all-pairs ones)", {}, k)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


# --- GraphBLAS ------------------------------------------------------------------------------


def graphblas_library():
    def ga():
        import graphblas_algorithms

        return graphblas_algorithms

    def forms():
        import graphblas as gb

        def directed(x):
            src, dst, w = x.directed
            return ga().DiGraph(gb.Matrix.from_coo(src, dst, w.astype(np.float64), nrows=x.n, ncols=x.n))

        def undirected(x):
            u, v, w = x.undirected
            r, c, ww = np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]).astype(np.float64)
            return ga().Graph(gb.Matrix.from_coo(r, c, ww, nrows=x.n, ncols=x.n))

        def undirected_unweighted(x):
            u, v, _ = x.undirected
            r, c = np.concatenate([u, v]), np.concatenate([v, u])
            return ga().Graph(gb.Matrix.from_coo(r, c, 1.0, nrows=x.n, ncols=x.n))

        # graphblas-algorithms' PageRank weighs edges by the matrix values; the others' is unweighted.
        return {"directed": directed, "undirected": undirected, "undirected unweighted": undirected_unweighted}

    def dense(vec, x, fill):
        out = np.full(x.n, fill, dtype=np.float64)
        idx, vals = vec.to_coo()
        out[idx] = vals
        return out

    def bfs_run(g, x, t):
        return ga().single_source_shortest_path_length(g, x.source)

    k = {
        "sssp": Kernel(
            "directed",
            lambda g, x, t: ga().single_source_bellman_ford_path_length(g, x.source),
            lambda r, x: dense(r, x, np.inf),
            "single_source_bellman_ford_path_length",
        ),
        "bfs": Kernel("directed", bfs_run, lambda r, x: dense(r, x, np.inf), "single_source_shortest_path_length"),
        "pagerank": Kernel(
            "undirected unweighted",
            lambda g, x, t: ga().pagerank(g, alpha=PR_ALPHA, tol=PR_TOL_L1 / x.n, max_iter=PR_MAX_ITER),
            lambda r, x: ranks(dense(r, x, 0.0)),
            "pagerank",
        ),
        "tc": Kernel("undirected", lambda g, x, t: int(ga().total_triangles(g)), ident, "total_triangles"),
        "bc": Missing("no betweenness in graphblas-algorithms"),
        "mst": Missing("no spanning tree in graphblas-algorithms"),
        "cc": Missing("no connected components in graphblas-algorithms (one component per call only)"),
    }

    def set_threads(t):
        import graphblas as gb

        gb.ss.config["nthreads"] = t

    lib = Library("graphblas", "graphblas_algorithms", "threads", {}, k, set_threads=set_threads)
    if lib.installed() is None:
        lib.forms = forms()
    return lib


def all_libraries():
    """Every library of the side-by-side, ordo first (the reference)."""
    return [
        ordo_library(),
        scipy_library(),
        networkx_library(),
        networkit_library(),
        igraph_library(),
        rustworkx_library(),
        graphblas_library(),
    ]
