"""networkx interoperability: ``Graph.from_networkx`` / ``to_networkx`` and
the networkx backend ``ordo.nx``, checked against networkx's own results
(networkx is the sequential reference here)."""

import random

import pytest

import ordo

nx = pytest.importorskip("networkx")
import ordo.nx  # noqa: E402  (needs networkx)
from ordo.nx import BackendInterface  # noqa: E402


def random_graph(seed, n=40, p=0.08, directed=False, weights=(1, 20), multigraph=False):
    """A random graph with string nodes (in shuffled order), integer weights
    and a few isolated nodes."""
    rng = random.Random(seed)
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
    G = cls[(directed, multigraph)]()
    names = [f"v{i}" for i in range(n)]
    rng.shuffle(names)
    G.add_nodes_from(names)
    for u in names:
        for v in names:
            if u != v and rng.random() < p:
                G.add_edge(u, v, weight=rng.randint(*weights))
    if multigraph:
        for u, v in list(G.edges())[:5]:
            G.add_edge(u, v, weight=rng.randint(*weights))
    return G


@pytest.fixture(autouse=True)
def quiet_cache_note():
    """networkx notes every reuse of a cached conversion; these tests reuse
    them on purpose and change graphs only through their methods or before
    the first call."""
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore.discard("cache")


# --- conversions ---------------------------------------------------------


def test_from_networkx_keeps_node_objects_and_order():
    G = nx.Graph()
    G.add_nodes_from(["b", (1, 2), 7, frozenset({3})])
    G.add_edge("b", (1, 2), weight=3)
    G.add_edge(7, "b", weight=5)
    g = ordo.Graph.from_networkx(G)
    assert g.nodes == list(G)
    assert [g.node_index(u) for u in G] == [0, 1, 2, 3]
    with pytest.raises(KeyError):
        g.node_index("absent")
    assert g.n == 4 and g.m == 4  # both directions of two edges
    assert g.weighted
    # The isolated node frozenset({3}) is a vertex without edges.
    assert g.degrees().tolist() == [2, 1, 1, 0]


def test_directed_and_undirected_edges():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 2)])
    g = ordo.Graph.from_networkx(D)
    src, dst, _ = g.edges()
    assert sorted(zip(src.tolist(), dst.tolist())) == [(0, 1), (1, 2), (2, 2)]
    assert not g.weighted  # no edge has the attribute: weights 1
    U = nx.Graph(D)
    g = ordo.Graph.from_networkx(U)
    src, dst, _ = g.edges()
    # Both directions of every edge, the self loop once.
    assert sorted(zip(src.tolist(), dst.tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1), (2, 2)]


def test_adjacency_order_is_networkx_order():
    G = nx.Graph()
    G.add_edges_from([(0, 5), (0, 2), (0, 9)])
    g = ordo.Graph.from_networkx(G)
    assert [g.nodes[t] for t in g.targets[: g.offsets[1]]] == list(G[0])


def test_weights_missing_default_and_kinds():
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=4)
    G.add_edge("b", "c")  # no attribute: weighs 1, as in networkx
    g = ordo.Graph.from_networkx(G)
    assert g.weights.tolist() == [4, 1]
    assert not ordo.Graph.from_networkx(G, weight=None).weighted
    G.add_edge("c", "a", cost=2.0)
    g = ordo.Graph.from_networkx(G, weight="cost")
    assert g.weights.tolist() == [1, 1, 2]  # whole floats are integers
    G.add_edge("c", "d", weight=0.5)
    with pytest.raises(ValueError, match="non-integer"):
        ordo.Graph.from_networkx(G)
    G.add_edge("c", "d", weight=-1)
    with pytest.raises(ValueError, match="negative"):
        ordo.Graph.from_networkx(G)
    G.add_edge("c", "d", weight=2**32)
    with pytest.raises(ValueError, match="above"):
        ordo.Graph.from_networkx(G)
    G.add_edge("c", "d", weight="heavy")
    with pytest.raises(ValueError, match="not real numbers"):
        ordo.Graph.from_networkx(G)


def test_multigraph_keeps_parallel_edges_and_least_weight_wins():
    M = nx.MultiDiGraph()
    M.add_edge(0, 1, weight=5)
    M.add_edge(0, 1, weight=2)
    M.add_edge(1, 2, weight=1)
    g = ordo.Graph.from_networkx(M)
    assert g.m == 3
    assert ordo.sssp(g, 0).tolist() == [0.0, 2.0, 3.0]
    assert nx.single_source_dijkstra_path_length(M, 0) == {0: 0, 1: 2, 2: 3}


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("multigraph", [False, True])
def test_round_trip(directed, multigraph):
    G = random_graph(3, directed=directed, multigraph=multigraph)
    H = ordo.Graph.from_networkx(G).to_networkx()
    assert type(H) is type(G)
    assert list(H) == list(G)
    assert sorted(H.edges(data="weight")) == sorted(G.edges(data="weight"))


def test_to_networkx_of_other_graphs_and_derived_graphs():
    g = ordo.Graph.from_edges([0, 0, 1], [1, 1, 2], [7, 3, 1], n=4)
    H = g.to_networkx()
    assert isinstance(H, nx.DiGraph) and list(H) == [0, 1, 2, 3]
    assert H[0][1]["weight"] == 3  # the least of the parallel edges
    G = nx.path_graph(["x", "y", "z"])
    g = ordo.Graph.from_networkx(G)
    assert g.deduplicated().nodes == ["x", "y", "z"]
    assert g.with_weights("uniform:1..9").nodes == ["x", "y", "z"]
    assert ordo.Graph.from_edges([0], [1]).nodes is None


def test_from_networkx_rejects_other_objects():
    with pytest.raises(ValueError, match="networkx graph"):
        ordo.Graph.from_networkx([(0, 1)])


# --- the backend -----------------------------------------------------------

SEEDS = [1, 2, 3]


def first_node(G):
    return next(iter(G))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
def test_shortest_paths_equal_networkx(seed, directed):
    G = random_graph(seed, directed=directed)
    s = first_node(G)
    for cutoff in (None, 15):
        got = nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff, backend="ordo")
        assert got == nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff)
        got = nx.single_source_shortest_path_length(G, s, cutoff=None if cutoff is None else 2, backend="ordo")
        assert got == nx.single_source_shortest_path_length(G, s, cutoff=None if cutoff is None else 2)
    assert next(iter(got)) == s  # the source first, as networkx orders it
    assert nx.shortest_path_length(G, s, weight="weight", backend="ordo") == nx.shortest_path_length(G, s, weight="weight")
    assert nx.shortest_path_length(G, s, backend="ordo") == nx.shortest_path_length(G, s)
    for t in list(G)[:10]:
        for fn in (nx.dijkstra_path_length, nx.astar_path_length):
            try:
                want = fn(G, s, t)
            except nx.NetworkXNoPath:
                with pytest.raises(nx.NetworkXNoPath):
                    fn(G, s, t, backend="ordo")
            else:
                assert fn(G, s, t, backend="ordo") == want
        try:
            want = nx.shortest_path_length(G, s, t)
        except nx.NetworkXNoPath:
            with pytest.raises(nx.NetworkXNoPath):
                nx.shortest_path_length(G, s, t, backend="ordo")
        else:
            assert nx.shortest_path_length(G, s, t, backend="ordo") == want


def test_float_results_where_networkx_computes_with_floats():
    G = nx.path_graph(3)
    nx.set_edge_attributes(G, 2.0, "weight")
    got = nx.single_source_dijkstra_path_length(G, 0, backend="ordo")
    assert got == {0: 0, 1: 2.0, 2: 4.0}
    assert [type(x) for x in got.values()] == [int, float, float]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
def test_pagerank_within_networkx_tolerance(seed, directed):
    G = random_graph(seed, n=60, directed=directed)  # directed: dangling nodes
    got = nx.pagerank(G, weight=None, backend="ordo")
    exact = nx.pagerank(G, weight=None, tol=1e-15, max_iter=10_000)
    assert list(got) == list(G)
    assert sum(abs(got[v] - exact[v]) for v in G) < 1e-9
    default = nx.pagerank(G, weight=None)
    assert sum(abs(got[v] - default[v]) for v in G) < len(G) * 1e-6
    assert all(type(x) is float for x in got.values())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
def test_betweenness_equal_networkx(seed, directed, normalized):
    G = random_graph(seed, directed=directed)
    got = nx.betweenness_centrality(G, normalized=normalized, backend="ordo")
    want = nx.betweenness_centrality(G, normalized=normalized)
    assert got.keys() == want.keys()
    for v in G:
        assert got[v] == pytest.approx(want[v], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_transitivity_equal_networkx(seed):
    G = random_graph(seed, p=0.2)
    G.add_edge(first_node(G), first_node(G))  # a self loop does not count
    assert nx.transitivity(G, backend="ordo") == nx.transitivity(G)
    # networkx raises for a multigraph; ordo leaves it to networkx.
    assert "multigraph" in BackendInterface.can_run("transitivity", (nx.MultiGraph(G),), {})


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [(1, 3), (1, 1000)])
def test_minimum_spanning_tree_is_networkx_kruskal(seed, weights):
    # (1, 3): ties everywhere, which Kruskal breaks in networkx's edge order.
    G = random_graph(seed, weights=weights)
    G.graph["name"] = "g"
    nx.set_node_attributes(G, "blue", "colour")
    got = nx.minimum_spanning_tree(G, backend="ordo")
    want = nx.minimum_spanning_tree(G)
    assert nx.utils.graphs_equal(got, want) and got.graph == want.graph and dict(got.nodes) == dict(want.nodes)
    edges = list(nx.minimum_spanning_edges(G, backend="ordo"))
    assert edges == list(nx.minimum_spanning_edges(G))
    assert list(nx.minimum_spanning_edges(G, data=False, backend="ordo")) == list(nx.minimum_spanning_edges(G, data=False))


def test_minimum_spanning_tree_float_and_negative_weights():
    G = random_graph(5)
    rng = random.Random(5)
    for _, _, d in G.edges(data=True):
        d["weight"] = rng.uniform(-10, 10)
    want = nx.minimum_spanning_tree(G, algorithm="prim")
    got = nx.minimum_spanning_tree(G, algorithm="prim", backend="ordo")  # distinct weights: one tree
    assert nx.utils.graphs_equal(got, want)


@pytest.mark.parametrize("seed", SEEDS)
def test_connected_components_equal_networkx(seed):
    G = random_graph(seed, p=0.03)
    got = list(nx.connected_components(G, backend="ordo"))
    assert got == list(nx.connected_components(G))  # same sets, same order
    assert nx.number_connected_components(G, backend="ordo") == nx.number_connected_components(G)
    assert nx.number_connected_components(nx.Graph(), backend="ordo") == 0


def test_one_conversion_for_several_calls():
    G = random_graph(7)
    B = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert B.is_directed() is False and len(B) == len(G) and first_node(G) in B
    s = first_node(G)
    assert nx.single_source_dijkstra_path_length(B, s, backend="ordo") == nx.single_source_dijkstra_path_length(G, s)
    assert BackendInterface.convert_to_nx(B) is not None
    # Weights it was not converted with cannot be read.
    assert "convert it again" in BackendInterface.can_run("single_source_dijkstra_path_length", (B, s), {"weight": "cost"})


# --- declining -------------------------------------------------------------


def reason(name, *args, **kwargs):
    verdict = BackendInterface.can_run(name, args, kwargs)
    assert verdict is not True, f"{name} should decline"
    return verdict


def test_declines_with_reasons():
    G = random_graph(1)
    s = first_node(G)
    assert BackendInterface.can_run("single_source_dijkstra_path_length", (G, s), {}) is True
    assert "weight function" in reason("single_source_dijkstra_path_length", G, s, weight=lambda u, v, d: 1)
    assert "not in the graph" in reason("dijkstra_path_length", G, s, "absent")
    assert "heuristic" in reason("astar_path_length", G, s, s, heuristic=lambda u, v: 0)
    assert "personalization" in reason("pagerank", G, personalization={s: 1})
    assert "unequal weights" in reason("pagerank", G)
    assert "PowerIterationFailedConvergence" in reason("pagerank", G, weight=None, max_iter=1)
    assert "sampled" in reason("betweenness_centrality", G, k=3)
    assert "endpoints" in reason("betweenness_centrality", G, endpoints=True)
    assert "directed" in reason("transitivity", nx.DiGraph(G))
    assert "multigraph" in reason("minimum_spanning_tree", nx.MultiGraph(G))
    assert "does not implement" in reason("triangles", G)
    F = G.copy()
    for _, _, d in F.edges(data=True):
        d["weight"] = 0.25
    assert "non-integer" in reason("single_source_dijkstra_path_length", F, s)
    assert BackendInterface.can_run("pagerank", (F,), {}) is True  # equal weights: unweighted
    assert "tied weights" in reason("minimum_spanning_tree", G, algorithm="prim", weight=None)


def test_declined_calls_fall_back_to_networkx():
    G = random_graph(2)
    for _, _, d in G.edges(data=True):
        d["weight"] += 0.5
    s = first_node(G)
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(G, s, backend="ordo")
    before = nx.config.backend_priority.algos
    try:
        nx.config.backend_priority.algos = ["ordo"]
        assert nx.single_source_dijkstra_path_length(G, s) == nx.single_source_dijkstra_path_length(G, s, backend="networkx")
    finally:
        nx.config.backend_priority.algos = before


def test_backend_is_registered():
    from networkx.utils.backends import backend_info, backends

    assert "ordo" in backends
    info = backend_info["ordo"]
    assert set(info["functions"]) == set(ordo.nx.IMPLEMENTATIONS)
    for name in ordo.nx.IMPLEMENTATIONS:
        assert hasattr(BackendInterface, name)
    assert nx.config.backends.ordo.threads is None


def test_cached_conversion_serves_later_calls():
    G = random_graph(8)
    s = first_node(G)
    nx.single_source_dijkstra_path_length(G, s, backend="ordo")  # cached with the weights
    (B,) = G.__networkx_cache__["backends"]["ordo"].values()
    assert B.nx is None  # no attribute to preserve: the networkx graph is not kept
    # An unweighted call reuses that conversion's structure.
    assert list(nx.connected_components(G, backend="ordo")) == list(nx.connected_components(G))
    assert nx.single_source_shortest_path_length(G, s, backend="ordo") == nx.single_source_shortest_path_length(G, s)
    G.add_edge(s, "new", weight=1)  # changing the graph clears networkx's cache
    assert nx.single_source_dijkstra_path_length(G, s, backend="ordo")["new"] == 1
