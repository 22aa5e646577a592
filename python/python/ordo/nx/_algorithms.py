"""The networkx functions the ordo backend implements, each with the check
that decides whether ordo can honour a call (``can_run``).

Each function has networkx's signature and semantics: results keyed by the
user's nodes, in networkx's types (Python ints and floats, dicts, generators
where networkx returns them, graphs for spanning trees) and networkx's
exceptions where it raises them after computing (``NetworkXNoPath``). Where
networkx would raise before computing (a node not in the graph, a bad
argument) or where ordo's semantics differ (see each check), the check
declines with the reason, and networkx runs its own code, which raises or
computes as it always does.

A check returns ``True`` or the reason it declines; it may convert the graph
(``_graph.conversion_of``), which the dispatch then reuses.
"""

import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Union

import networkx as nx
import numpy as np

from . import _graph, _kernels
from ._graph import UNWEIGHTED, BackendGraph, Conversion

Verdict = Union[bool, str]


@dataclass(frozen=True)
class Implementation:
    """A networkx function as the backend implements it."""

    function: Callable[..., Any]
    check: Callable[..., Verdict]
    signature: inspect.Signature


#: The implemented functions by networkx name.
IMPLEMENTATIONS: Dict[str, Implementation] = {}


def implements(check: Callable[..., Verdict]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers a function under its name, with its ``can_run`` check. The
    function runs the check again (cheap: the conversion is the graph's own)
    and raises ``NotImplementedError`` with the reason if it declines, so a
    call that skips ``can_run`` falls back to networkx just the same."""

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(function)

        def run(*args: Any, **kwargs: Any) -> Any:
            verdict = verdict_of(signature, check, args, kwargs)
            if verdict is not True:
                raise NotImplementedError(f"ordo does not run {function.__name__} here: {verdict}")
            return function(*args, **kwargs)

        run.__name__ = run.__qualname__ = function.__name__
        run.__doc__ = function.__doc__
        run.__signature__ = signature  # type: ignore[attr-defined]
        IMPLEMENTATIONS[function.__name__] = Implementation(run, check, signature)
        return run

    return register


def verdict_of(signature: inspect.Signature, check: Callable[..., Verdict], args: tuple, kwargs: dict) -> Verdict:
    """``check`` on a call's arguments bound to ``signature``."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        return f"arguments that ordo's implementation does not take ({e})"
    bound.apply_defaults()
    G = bound.arguments.get("G")
    if not isinstance(G, (nx.Graph, BackendGraph)):
        return f"a graph of type {type(G).__name__}"
    try:
        return check(**bound.arguments)
    except NotImplementedError as e:
        return str(e)


def threads() -> Optional[int]:
    """The worker count: ``nx.config.backends.ordo.threads`` (``None``:
    ``ORDO_THREADS`` or all cores)."""
    try:
        return nx.config.backends.ordo.threads
    except AttributeError:
        return None


# --- shared checks -------------------------------------------------------


def weight_key(weight: Any) -> Union[_graph.Key, str]:
    """The conversion for a networkx ``weight`` argument (an attribute name,
    or ``None`` for unit weights), or the reason ordo declines it."""
    if weight is None:
        return UNWEIGHTED
    if callable(weight):
        return "a weight function (ordo reads weights from an edge attribute)"
    if not isinstance(weight, str):
        return f"a weight argument of type {type(weight).__name__}"
    return (weight, 1)


def weighted(G: Any, weight: Any) -> Union[Conversion, str]:
    """``G`` converted with the weights of ``weight`` when ordo can compute
    distances with them, else the reason."""
    key = weight_key(weight)
    if isinstance(key, str):
        return key
    c = _graph.conversion_of(G, key)
    if c.weights is not None and not c.weights.supported:
        return f"edge attribute {weight!r}: {c.weights.reason}"
    return c


def nodes_in(G: Any, **nodes: Any) -> Verdict:
    """Whether every given node is in ``G`` (networkx raises for one that is
    not, so ordo leaves that call to it)."""
    for what, node in nodes.items():
        try:
            present = node in G
        except TypeError:
            present = False
        if not present:
            return f"the {what} {node!r} is not in the graph (networkx raises)"
    return True


def all_true(*verdicts: Union[Verdict, Conversion]) -> Verdict:
    """The first reason among ``verdicts``, else ``True``."""
    for v in verdicts:
        if isinstance(v, str):
            return v
    return True


def conversion(G: Any, weight: Any) -> Conversion:
    """The conversion the check accepted."""
    c = weighted(G, weight)
    assert not isinstance(c, str), c
    return c


# --- results -------------------------------------------------------------


def distance_dict(c: Conversion, d: np.ndarray, source: int, within: Any = None, floats: bool = False) -> dict:
    """``{node: distance}`` for the vertices at a finite distance (at most
    ``within`` when given), nearest first, as networkx's Dijkstra and BFS
    return them: ints, or floats when networkx computes with floats (the
    source's 0 stays an int, as in networkx)."""
    keep = np.isfinite(d)
    if within is not None:
        keep &= d <= within
    keep[source] = False
    reached = np.flatnonzero(keep)
    reached = reached[np.argsort(d[reached], kind="stable")]
    values = d[reached]
    values = values.tolist() if floats else values.astype(np.int64).tolist()
    nodes = c.origin.nodes
    result = {nodes[source]: 0}
    result.update(zip(map(nodes.__getitem__, reached.tolist()), values))
    return result


def one_distance(d: np.ndarray, target: int, floats: bool) -> Union[int, float]:
    value = d[target]
    return float(value) if floats else int(value)


def floats(c: Conversion) -> bool:
    return c.weights is not None and c.weights.floats


# --- shortest paths ------------------------------------------------------


def _check_sssp(G, source, cutoff=None, weight="weight") -> Verdict:
    return all_true(nodes_in(G, source=source), weighted(G, weight))


@implements(_check_sssp)
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Shortest weighted path lengths from ``source``: ordo's ``sssp``."""
    c = conversion(G, weight)
    s = c.origin.index_of(source)
    d = _kernels.distances(c.graph, s, threads())
    return distance_dict(c, d, s, cutoff, floats(c))


def _check_dijkstra_path_length(G, source, target, weight="weight") -> Verdict:
    return all_true(nodes_in(G, source=source, target=target), weighted(G, weight))


@implements(_check_dijkstra_path_length)
def dijkstra_path_length(G, source, target, weight="weight"):
    """The shortest weighted path length from ``source`` to ``target``:
    ordo's ``sssp``."""
    if source == target:
        return 0
    c = conversion(G, weight)
    s, t = c.origin.index_of(source), c.origin.index_of(target)
    d = _kernels.distances(c.graph, s, threads())
    if not np.isfinite(d[t]):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return one_distance(d, t, floats(c))


def _check_bfs_length(G, source, cutoff=None) -> Verdict:
    return all_true(nodes_in(G, source=source), weighted(G, None))


@implements(_check_bfs_length)
def single_source_shortest_path_length(G, source, cutoff=None):
    """Unweighted shortest path lengths from ``source``: ordo's ``bfs``."""
    c = conversion(G, None)
    s = c.origin.index_of(source)
    d = _kernels.levels(c.graph, s, threads())
    return distance_dict(c, d, s, cutoff)


def _check_shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra") -> Verdict:
    if method not in ("dijkstra", "bellman-ford"):
        return f"method {method!r} (networkx raises)"
    if source is None:
        return "no source (all pairs, or paths to a target)"
    if target is None:
        return all_true(nodes_in(G, source=source), weighted(G, weight))
    return all_true(nodes_in(G, source=source, target=target), weighted(G, weight))


@implements(_check_shortest_path_length)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest path lengths from ``source`` (to ``target`` when given):
    ordo's ``bfs`` for ``weight=None``, else its ``sssp`` (any method gives
    the same lengths on the non-negative weights ordo takes)."""
    c = conversion(G, weight)
    s = c.origin.index_of(source)
    unweighted = weight is None
    if target is not None and source == target:
        return 0
    d = _kernels.levels(c.graph, s, threads()) if unweighted else _kernels.distances(c.graph, s, threads())
    if target is None:
        return distance_dict(c, d, s, None, not unweighted and floats(c))
    t = c.origin.index_of(target)
    if not np.isfinite(d[t]):
        if unweighted:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return one_distance(d, t, not unweighted and floats(c))


def _check_astar(G, source, target, heuristic=None, weight="weight", *, cutoff=None) -> Verdict:
    if heuristic is not None:
        return "a heuristic function (ordo's A* takes its heuristic from vertex coordinates)"
    return all_true(nodes_in(G, source=source, target=target), weighted(G, weight))


@implements(_check_astar)
def astar_path_length(G, source, target, heuristic=None, weight="weight", *, cutoff=None):
    """The shortest path length from ``source`` to ``target`` with networkx's
    default heuristic (none: A* is Dijkstra then): ordo's ``sssp``."""
    if source == target:
        return 0
    c = conversion(G, weight)
    s, t = c.origin.index_of(source), c.origin.index_of(target)
    d = _kernels.distances(c.graph, s, threads())
    # networkx skips a vertex whose distance exceeds a (truthy) cutoff, so
    # the target is found exactly when its distance is within it.
    if not np.isfinite(d[t]) or (cutoff and d[t] > cutoff):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return one_distance(d, t, floats(c))


# --- PageRank ------------------------------------------------------------

#: The L1 distance from the exact PageRank that the backend's result keeps
#: within (networkx stops within ``len(G) * tol`` of one iteration to the
#: next, which leaves its own result farther from the exact vector).
PAGERANK_ACCURACY = 1e-10


def _check_pagerank(
    G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight", dangling=None
) -> Verdict:
    for name, value in (("personalization", personalization), ("nstart", nstart), ("dangling", dangling)):
        if value is not None:
            return f"{name} (ordo's PageRank teleports uniformly from a uniform start)"
    n = len(G)
    if n == 0:
        return True
    if not (isinstance(alpha, (int, float)) and 0 <= alpha < 1):
        return f"alpha={alpha!r} (ordo takes 0 <= alpha < 1)"
    if not (isinstance(tol, (int, float)) and tol > 0) or not isinstance(max_iter, int):
        return f"tol={tol!r}, max_iter={max_iter!r}"
    # networkx's change from one iteration to the next shrinks by alpha each
    # time from at most 2; unless that bound is below n*tol by max_iter,
    # networkx may raise PowerIterationFailedConvergence, so it decides.
    if max_iter < 1 or (alpha > 0 and math.log(2) + (max_iter - 1) * math.log(alpha) >= math.log(n * tol)):
        return f"max_iter={max_iter} may not reach tol={tol} (networkx may raise PowerIterationFailedConvergence)"
    key = weight_key(weight)
    if isinstance(key, str):
        return key
    w = _graph.conversion_of(G, key).weights
    if w is not None and not w.uniform:
        return f"edge attribute {weight!r}: unequal weights (ordo's PageRank is unweighted)"
    return True


@implements(_check_pagerank)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight", dangling=None):
    """PageRank as networkx defines it (uniform teleport, dangling nodes
    spread evenly), within ``PAGERANK_ACCURACY`` of the exact vector: ordo's
    ``pr-pull`` (see ``_kernels.pagerank_fixed_point``)."""
    if len(G) == 0:
        return {}
    c = _graph.conversion_of(G, UNWEIGHTED if weight is None else (weight, 1))
    x = _kernels.pagerank_fixed_point(c.graph, float(alpha), PAGERANK_ACCURACY, threads())
    return dict(zip(c.origin.nodes, x.tolist()))


# --- betweenness ---------------------------------------------------------


def _check_betweenness(G, k=None, normalized=True, weight=None, endpoints=False, seed=None) -> Verdict:
    if k is not None and k != len(G):
        return "k sampled sources (networkx draws them with its own generator)"
    if weight is not None:
        return "weighted betweenness (ordo's is unweighted)"
    if endpoints:
        return "endpoints=True"
    return True


@implements(_check_betweenness)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Betweenness over all sources (unweighted, endpoints excluded), scaled
    as networkx scales it: ordo's ``bc``."""
    c = _graph.conversion_of(G, UNWEIGHTED)
    n = len(G)
    values = _kernels.betweenness(c.graph, threads()) if n > 0 else np.zeros(0)
    N = n - 1
    if N >= 2:
        if normalized:
            scale = 1 / (N * (N - 1))
        else:
            scale = 1 / (1 if G.is_directed() else 2)
        if scale != 1:
            values = values * scale
    return dict(zip(c.origin.nodes, values.tolist()))


# --- triangles -----------------------------------------------------------


def _check_transitivity(G) -> Verdict:
    if G.is_directed():
        return "a directed graph (networkx counts successors there)"
    if G.is_multigraph():
        return "a multigraph (networkx raises)"
    return True


@implements(_check_transitivity)
def transitivity(G):
    """The fraction of connected triples that close into triangles:
    ``6·T / Σ d(d-1)`` with ``T`` ordo's ``tc`` count and ``d`` the degrees
    without self loops, as networkx counts."""
    c = _graph.conversion_of(G, UNWEIGHTED)
    n = len(G)
    if n == 0:
        return 0
    g = c.graph
    src, dst, _ = g.edges()
    degrees = np.bincount(src[src != dst], minlength=n).astype(np.int64)
    triads = int((degrees * (degrees - 1)).sum())
    triangles = 6 * _kernels.triangle_count(g, threads())
    return 0 if triangles == 0 else triangles / triads


# --- spanning trees ------------------------------------------------------

#: networkx's spanning-tree algorithms.
MST_ALGORITHMS = ("kruskal", "prim", "boruvka")


def _check_mst_weights(G, weight, ignore_nan) -> Union[Conversion, str]:
    if G.is_directed():
        return "a directed graph (networkx raises)"
    if G.is_multigraph():
        return "a multigraph (networkx's result names edge keys)"
    key = weight_key(weight)
    if isinstance(key, str):
        return key
    c = _graph.conversion_of(G, key)
    if c.weights is not None:
        v = c.weights.values
        if v is None:
            return f"edge attribute {weight!r}: weights that are not real numbers"
        if not ignore_nan and v.dtype.kind == "f" and np.isnan(v).any():
            return "a NaN weight (networkx raises)"
    return c


def _tree_edges(c: Conversion, ignore_nan: bool) -> tuple:
    """The minimum spanning forest as Kruskal finds it in networkx: edges
    sorted by weight, ties in networkx's edge order (``G.edges()``: by the
    lower end's position among the nodes, then that node's adjacency order),
    which is the CSR order of the edges read from their lower end. ordo's
    MST is computed on the rank of each edge in that order, which makes every
    weight distinct and the forest the one Kruskal picks; the edges come
    back in Kruskal's order. Returns the forest's positions among the
    lower-end edges, and those edges' ends."""
    n = len(c.origin.nodes)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(c.indptr))
    dst = c.indices.astype(np.int64)
    lower = src < dst  # each undirected edge once; self loops never join a forest
    values = None if c.weights is None else c.weights.values
    if values is not None and ignore_nan and values.dtype.kind == "f":
        lower &= ~np.isnan(values)
    src, dst = src[lower], dst[lower]
    if values is None:
        order = np.arange(src.size)
    else:
        order = np.argsort(values[lower], kind="stable")
    rank = np.empty(src.size, dtype=np.uint32)
    rank[order] = np.arange(src.size, dtype=np.uint32)
    import ordo

    ranked = ordo.Graph.from_edges(src, dst, rank, n=n)
    forest = _kernels.spanning_forest(ranked, threads())
    return order[forest[:, 2]], src, dst, lower


def networkx_graph(G: Any) -> Any:
    """The networkx graph of a call: ``G``, or the one a backend graph keeps."""
    return G.nx if isinstance(G, BackendGraph) else G


def _check_mst_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False) -> Verdict:
    if algorithm not in MST_ALGORITHMS:
        return f"algorithm {algorithm!r} (networkx raises)"
    if algorithm != "kruskal":
        return f"algorithm {algorithm!r} (networkx yields its edges in {algorithm}'s own order)"
    if data and isinstance(G, BackendGraph) and G.nx is None:
        return "data=True on a graph converted without its edge data"
    return all_true(_check_mst_weights(G, weight, ignore_nan))


@implements(_check_mst_edges)
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False):
    """The edges of a minimum spanning forest in the order Kruskal's
    algorithm accepts them, as networkx's ``kruskal``: ordo's ``mst`` on the
    edges' ranks (see ``_tree_edges``)."""
    c = _check_mst_weights(G, weight, ignore_nan)
    picked, src, dst, _ = _tree_edges(c, ignore_nan)
    nodes = c.origin.nodes
    us = list(map(nodes.__getitem__, src[picked].tolist()))
    vs = list(map(nodes.__getitem__, dst[picked].tolist()))
    if data:
        adj = networkx_graph(G)._adj
        return (((u, v, adj[u][v]) for u, v in zip(us, vs)))
    return ((u, v) for u, v in zip(us, vs))


def _check_mst(G, weight="weight", algorithm="kruskal", ignore_nan=False) -> Verdict:
    if algorithm not in MST_ALGORITHMS:
        return f"algorithm {algorithm!r} (networkx raises)"
    if isinstance(G, BackendGraph) and G.nx is None:
        return "a graph converted without its attributes (the tree carries them)"
    c = _check_mst_weights(G, weight, ignore_nan)
    if isinstance(c, str):
        return c
    if algorithm != "kruskal":
        src = np.repeat(np.arange(len(G)), np.diff(c.indptr))
        lower = src < c.indices
        if c.weights is None:
            tied = int(lower.sum()) > 1  # every weight 1
        else:
            v = c.weights.values[lower]
            if ignore_nan and v.dtype.kind == "f":
                v = v[~np.isnan(v)]
            tied = np.unique(v).size < v.size
        if tied:
            return f"tied weights with algorithm {algorithm!r} (its tree can differ from Kruskal's)"
    return True


@implements(_check_mst)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """A minimum spanning forest as a graph of ``G``'s class with ``G``'s
    nodes, attributes and edge data, as networkx builds it: ordo's ``mst``
    on the edges' ranks (Kruskal's forest; the same for Prim and Boruvka,
    which the check admits only when no two weights tie)."""
    c = _check_mst_weights(G, weight, ignore_nan)
    picked, src, dst, _ = _tree_edges(c, ignore_nan)
    H = networkx_graph(G)
    nodes = c.origin.nodes
    adj = H._adj
    T = H.__class__()
    T.graph.update(H.graph)
    T.add_nodes_from(H.nodes.items())
    us = list(map(nodes.__getitem__, src[picked].tolist()))
    vs = list(map(nodes.__getitem__, dst[picked].tolist()))
    T.add_edges_from((u, v, adj[u][v]) for u, v in zip(us, vs))
    return T


# --- connected components ------------------------------------------------


def _check_components(G) -> Verdict:
    if G.is_directed():
        return "a directed graph (networkx raises)"
    return True


def _component_members(G) -> tuple:
    """The conversion of ``G`` and the vertex arrays of its connected
    components, ordered by their first vertex (networkx's order: it starts a
    search at every node not yet seen, in node order)."""
    c = _graph.conversion_of(G, UNWEIGHTED)
    if len(G) == 0:
        return c, []
    labels = _kernels.component_labels(c.graph, threads())
    order = np.argsort(labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    groups = np.split(order, starts[1:])
    groups.sort(key=lambda g: g[0])
    return c, groups


@implements(_check_components)
def connected_components(G):
    """The node sets of the connected components: ordo's ``cc`` (see
    ``_kernels.component_labels``)."""
    c, groups = _component_members(G)
    node = c.origin.nodes.__getitem__
    return (set(map(node, g.tolist())) for g in groups)


@implements(_check_components)
def number_connected_components(G):
    """The number of connected components: ordo's ``cc``."""
    if len(G) == 0:
        return 0
    c = _graph.conversion_of(G, UNWEIGHTED)
    labels = _kernels.component_labels(c.graph, threads())
    return int(np.count_nonzero(labels == np.arange(labels.size)))
