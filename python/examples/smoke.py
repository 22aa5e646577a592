"""A smoke test of an installed ordo package (CI runs it in a fresh virtual
environment where the wheel was installed without a Rust toolchain): the
extension loads, a generated graph runs on ordo with the result checked
against a plain Python Dijkstra, and networkx dispatches to the backend."""

import heapq

import ordo


def dijkstra(g, source):
    """Distances by the textbook algorithm on the CSR arrays."""
    offsets, targets, weights = g.offsets, g.targets, g.weights
    dist = [float("inf")] * g.n
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for e in range(offsets[v], offsets[v + 1]):
            u, nd = int(targets[e]), d + int(weights[e])
            if nd < dist[u]:
                dist[u] = nd
                heapq.heappush(heap, (nd, u))
    return dist


def main():
    g = ordo.generate("road:n=2000", weights="uniform:1..100", symmetrize=True)
    assert ordo.sssp(g, 0, threads=2).tolist() == dijkstra(g, 0)
    print(f"sssp on {g.n} vertices: equal to Dijkstra")
    try:
        import networkx as nx
    except ImportError:
        print("networkx not installed: backend not checked")
        return
    nx.config.warnings_to_ignore.add("cache")  # the second call reuses the first's conversion
    G = nx.gnm_random_graph(300, 1200, seed=1)
    for u, v, d in G.edges(data=True):
        d["weight"] = (u * v) % 17 + 1
    assert nx.single_source_dijkstra_path_length(G, 0, backend="ordo") == nx.single_source_dijkstra_path_length(G, 0)
    assert list(nx.connected_components(G, backend="ordo")) == list(nx.connected_components(G))
    print("networkx backend 'ordo': results equal networkx's")


if __name__ == "__main__":
    main()
