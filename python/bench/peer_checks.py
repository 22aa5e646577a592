"""Whether two libraries' answers of one kernel agree (the common forms of ``peer_libs``).

Exact where the answer is exact: distances (integer weights: every library
sums the same integers in float64 below 2**53), BFS levels, the component
partition, the triangle count, the MST weight and edge count. PageRank: the
L1 distance of the two distributions is at most ``PR_L1_BOUND`` (each library
stops within ``PR_TOL_L1`` of its fixed point, so two differ by far less).
Betweenness: every vertex within ``BC_REL_BOUND`` relative (float sums in a
different order), absolute below 1.
"""

import numpy as np

#: The largest L1 distance between two PageRank distributions taken as equal.
PR_L1_BOUND = 1e-6
#: The largest relative difference of one vertex's betweenness taken as equal.
BC_REL_BOUND = 1e-9


def compare(kernel, got, want):
    """None when ``got`` agrees with ``want``, else a one-line description of the difference."""
    if kernel in ("sssp", "bfs"):
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            return f"{got.shape[0]} vertices, want {want.shape[0]}"
        bad = np.flatnonzero(got != want)
        if bad.size:
            v = bad[0]
            return f"{bad.size} vertices differ, e.g. vertex {v}: {got[v]} want {want[v]}"
        return None
    if kernel == "cc":
        got, want = np.asarray(got), np.asarray(want)
        if not np.array_equal(got, want):
            ng, nw = np.unique(got).size, np.unique(want).size
            v = np.flatnonzero(got != want)[0]
            return f"partition differs: {ng} components, want {nw}; vertex {v} with {got[v]}, want {want[v]}"
        return None
    if kernel == "tc":
        return None if int(got) == int(want) else f"{got} triangles, want {want}"
    if kernel == "mst":
        (gw, ge), (ww, we) = got, want
        if gw != ww or ge != we:
            return f"weight {gw:.17g} with {ge} edges, want {ww:.17g} with {we}"
        return None
    if kernel == "pagerank":
        l1 = float(np.abs(np.asarray(got) - np.asarray(want)).sum())
        return None if l1 <= PR_L1_BOUND else f"L1 distance {l1:.3g} > {PR_L1_BOUND:g}"
    if kernel == "bc":
        got, want = np.asarray(got), np.asarray(want)
        err = np.abs(got - want) / np.maximum(np.abs(want), 1.0)
        worst = int(np.argmax(err)) if err.size else 0
        if err.size and err[worst] > BC_REL_BOUND:
            return f"vertex {worst}: {got[worst]:.17g} want {want[worst]:.17g} (relative {err[worst]:.3g} > {BC_REL_BOUND:g})"
        return None
    raise ValueError(f"unknown kernel {kernel}")
