"""Which ordo application computes what the backend needs: the one place
that maps networkx's questions onto ordo's applications, so that a new
application (a connected-components one, real-valued weights, a PageRank
with another kernel) changes only this module.

Every function takes an ordo graph (vertex ids) and returns numpy arrays;
``threads`` is the worker count (``None``: ``ORDO_THREADS`` or all cores).
"""

import math
from typing import Optional

import numpy as np

import ordo


def distances(g, source: int, threads: Optional[int]) -> np.ndarray:
    """Shortest-path distances from ``source`` (float64, ``inf`` where
    unreachable; an unweighted graph's edges weigh 1): ordo's ``sssp``."""
    return ordo.sssp(g, source, threads=threads)


def levels(g, source: int, threads: Optional[int]) -> np.ndarray:
    """BFS levels from ``source`` (float64, ``inf`` where unreachable):
    ordo's ``bfs``."""
    return ordo.bfs(g, source, threads=threads)


def pagerank_fixed_point(g, alpha: float, accuracy: float, threads: Optional[int]) -> np.ndarray:
    """The PageRank of ``g`` with uniform teleport whose dangling vertices
    give their rank to every vertex evenly (networkx's semantics), within
    ``accuracy`` in L1 of the exact vector.

    ordo's ``pr-pull`` iterates ``x = (1-alpha)/n + alpha·A·x`` with the mass
    of dangling vertices dropped; the fixed point of that iteration,
    normalised to sum 1, is the PageRank with dangling mass spread evenly
    (the two equations differ by a multiple of the uniform vector: Del
    Corso, Gulli, Romani, "Fast PageRank computation via a sparse linear
    system", Internet Mathematics 2005). Both iterations contract by
    ``alpha`` in L1, so the tolerance handed to ``pr-pull`` and the
    iteration cap that follow from ``accuracy`` bound the error of the
    normalised result: the iterate is within ``alpha/(1-alpha)`` times its
    last change of the fixed point, whose sum is at least ``1 - alpha``.
    """
    n = g.n
    if alpha == 0.0:
        return np.full(n, 1.0 / n)
    # The change at which to stop, floored near float64 resolution.
    tolerance = max(accuracy * (1 - alpha) ** 2 / (4 * alpha), n * 1e-16)
    # The change after k iterations is at most 2·alpha^k: a cap that the
    # tolerance always reaches first (unless rounding stalls it).
    cap = int(math.ceil(math.log(tolerance / 2) / math.log(alpha))) + 2
    ranks = ordo.pr_pull(g, alpha=alpha, iterations=cap, tolerance=tolerance, threads=threads)
    return ranks / ranks.sum()


def spanning_forest(g, threads: Optional[int]) -> np.ndarray:
    """The minimum spanning forest of ``g`` taken as undirected, as a
    ``(k, 3)`` int64 array ``u, v, weight`` sorted by weight: ordo's
    ``mst``."""
    forest = ordo.mst(g, threads=threads)
    return forest[np.argsort(forest[:, 2], kind="stable")]


def component_labels(g, threads: Optional[int]) -> np.ndarray:
    """A label per vertex, equal for the vertices of one connected component
    of ``g`` taken as undirected (int64, the smallest vertex id of the
    component): ordo's ``cc`` (Afforest)."""
    return ordo.cc(g, threads=threads)


def betweenness(g, threads: Optional[int]) -> np.ndarray:
    """Unnormalised betweenness of every vertex over all sources, the graph
    taken as simple and directed (networkx's ``betweenness_centrality(G,
    normalized=False)`` of a ``DiGraph``): ordo's ``bc``."""
    return ordo.bc(g, threads=threads)


def triangle_count(g, threads: Optional[int]) -> int:
    """The number of triangles of the simple undirected graph underlying
    ``g``: ordo's ``tc``."""
    return int(ordo.tc(g, threads=threads))
