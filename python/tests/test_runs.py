"""The algorithms against scipy / networkx, on random graphs and real files;
runs from two Python threads at once; Ctrl-C; bad arguments."""

import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import ordo
from conftest import REPO, data_file, random_csr

SCHEDULERS = ["strict", "fifo", "lifo", "obim", "obim:delta=4", "pmod", "mq", "smq", "smq-skiplist", "reld", "spraylist"]


def bfs_levels_by_scipy(m, source):
    """BFS levels from scipy's breadth_first_order (inf where unreached)."""
    order, pred = csgraph.breadth_first_order(m, source, directed=True, return_predecessors=True)
    levels = np.full(m.shape[0], np.inf)
    levels[source] = 0
    for v in order[1:]:
        levels[v] = levels[pred[v]] + 1
    return levels


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("threads", [1, 2])
def test_sssp_equals_scipy_dijkstra_on_random_graphs(rng, scheduler, threads):
    m = random_csr(rng, 300, 0.02, low=1, high=1000)
    g = ordo.Graph.from_scipy(m)
    for source in [0, 17]:
        got = ordo.sssp(g, source, scheduler=scheduler, threads=threads)
        want = csgraph.dijkstra(m, directed=True, indices=source)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, want)
        assert np.isinf(got).any() == np.isinf(want).any()


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_bfs_equals_scipy_breadth_first_order(rng, scheduler):
    m = random_csr(rng, 400, 0.006)
    g = ordo.Graph.from_scipy(m)
    got = ordo.bfs(g, 3, scheduler=scheduler, threads=2)
    np.testing.assert_array_equal(got, bfs_levels_by_scipy(m, 3))


def test_unweighted_sssp_counts_hops():
    g = ordo.generate("grid:w=30,h=20", weights="unit")
    m = g.to_scipy()
    np.testing.assert_array_equal(ordo.sssp(g, 0), csgraph.dijkstra(m, indices=0))
    np.testing.assert_array_equal(ordo.bfs(g, 0), csgraph.shortest_path(m, indices=0, unweighted=True))


def test_sssp_on_generated_road_graph():
    g = ordo.generate("road:n=20000")
    m = g.deduplicated().to_scipy()
    np.testing.assert_array_equal(ordo.sssp(g, 5, threads=2), csgraph.dijkstra(m, indices=5))


def test_real_rome99_sssp_and_bfs():
    g = ordo.Graph.from_file(data_file("road/rome99.gr"))
    dist = ordo.sssp(g, 0)
    # The checked facts of the data README: all reachable, sum and max.
    assert np.isfinite(dist).all()
    assert (dist.sum(), dist.max()) == (116006476, 69102)
    # rome99 has parallel arcs, which csgraph would add up: merge them first.
    m = g.deduplicated().to_scipy()
    assert m.nnz < g.m
    np.testing.assert_array_equal(dist, csgraph.dijkstra(m, indices=0))
    np.testing.assert_array_equal(ordo.bfs(g, 0, scheduler="obim"), bfs_levels_by_scipy(m, 0))


def test_real_luxembourg_sssp():
    g = ordo.Graph.from_file(data_file("road/luxembourg.osm.graph"), weights="euclid-ceil")
    dist = ordo.sssp(g, 0, threads=2)
    assert (dist.sum(), dist.max()) == (3642436411, 81108)
    np.testing.assert_array_equal(dist, csgraph.dijkstra(g.deduplicated().to_scipy(), indices=0))
    levels = ordo.bfs(g, 0)
    assert levels.max() == 1034


def test_two_python_threads_run_at_once_with_correct_results(rng):
    graphs = [ordo.generate(f"road:n=30000,seed={s}") for s in (1, 2)]
    want = [csgraph.dijkstra(g.deduplicated().to_scipy(), indices=0) for g in graphs]
    got = [None, None]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                got[i] = ordo.sssp(graphs[i], 0, scheduler="obim", threads=2)
                np.testing.assert_array_equal(got[i], want[i])
        except BaseException as e:  # reported below, in the main thread
            errors.append(e)

    workers = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors, errors
    for i in (0, 1):
        np.testing.assert_array_equal(got[i], want[i])


def test_bad_run_arguments_raise_value_error():
    g = ordo.generate("grid:w=5,h=5")
    with pytest.raises(ValueError, match="source 25: the graph has 25 vertices"):
        ordo.sssp(g, 25)
    with pytest.raises(ValueError, match="source = `-1`"):
        ordo.bfs(g, -1)
    with pytest.raises(ValueError, match="target 99"):
        ordo.astar(g, 0, 99)
    with pytest.raises(ValueError, match="alpha"):
        ordo.pagerank(g, alpha="x")
    with pytest.raises(ValueError, match="scheduler: unknown scheduler `bogus` \\(schedulers: strict"):
        ordo.mst(g, scheduler="bogus")
    with pytest.raises(TypeError):
        ordo.sssp(g, 0, alpha=0.5)  # a parameter of another application
    with pytest.raises(ValueError, match="scheduler: .*nosuch"):
        ordo.sssp(g, 0, scheduler="nosuch")
    with pytest.raises(ValueError, match="scheduler"):
        ordo.sssp(g, 0, scheduler="obim:delta=x")
    with pytest.raises(ValueError, match="threads"):
        ordo.sssp(g, 0, threads=0)
    with pytest.raises(TypeError):
        ordo.sssp("not a graph", 0)


CTRL_C_CHILD = textwrap.dedent(
    """
    import signal
    import sys
    import numpy as np
    import ordo
    # A child started from a background job inherits SIGINT ignored, and Python
    # then installs no handler: install Python's own, as an interactive one has.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    g = ordo.generate("road:n=1000000")
    print("ready", flush=True)
    try:
        # fifo on a road graph does ~30x the work of Dijkstra: each run takes seconds, so the
        # signal lands inside one.
        for _ in range(1000):
            ordo.sssp(g, 0, scheduler="fifo", threads=1)
        print("never interrupted", flush=True)
    except KeyboardInterrupt as e:
        notes = getattr(e, "__notes__", [])
        print("interrupted", "cancelled" if ordo._ordo.CANCELLED_NOTE in notes else "after the run", flush=True)
    # The interpreter and the pools still work.
    small = ordo.Graph.from_edges([0, 1], [1, 2], [4, 5])
    print("after", ordo.sssp(small, 0, threads=2).tolist(), flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_cancels_a_long_run_and_raises_keyboard_interrupt():
    child = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "ready"
        # The child runs back-to-back SSSPs of ~1M vertices, each for seconds: a signal now
        # lands inside a run (between two runs it would still raise, without the note).
        threading.Event().wait(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=300)
    finally:
        child.kill()
    lines = out.splitlines()
    assert child.returncode == 0, err
    assert lines[0].startswith("interrupted"), out
    if sys.version_info >= (3, 11):
        assert lines[0] == "interrupted cancelled", out
    assert lines[1] == "after [0.0, 4.0, 9.0]", out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX")
def test_runs_work_in_a_forked_child():
    g = ordo.Graph.from_edges([0, 1], [1, 2], [4, 5])
    assert ordo.sssp(g, 0, threads=2).tolist() == [0, 4, 9]  # leaves an idle pool behind
    pid = os.fork()
    if pid == 0:  # the child: the parent's pool threads do not exist here
        ok = ordo.sssp(g, 0, threads=2).tolist() == [0, 4, 9]
        os._exit(0 if ok else 1)
    for _ in range(600):  # up to a minute: a child stuck on the parent's pool never ends
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        threading.Event().wait(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung")
    assert os.waitstatus_to_exitcode(status) == 0


# ---------------------------------------------------------------- the other applications


def test_astar_equals_networkx_astar_path_length():
    import networkx as nx

    g = ordo.generate("road:n=3000").deduplicated()
    G = nx.from_scipy_sparse_array(g.to_scipy(), create_using=nx.DiGraph)
    for target in [1, 777, 2999]:
        path, length = ordo.astar(g, 0, target, threads=2)
        assert length == nx.astar_path_length(G, 0, target, weight="weight")
        assert path[0] == 0 and path[-1] == target and path.dtype == np.int64
        assert sum(G[u][v]["weight"] for u, v in zip(path[:-1], path[1:])) == length


def test_real_andorra_astar():
    import networkx as nx

    g = ordo.Graph.from_file(data_file("road/andorra.gr"))
    (path, length), stats = ordo.astar(g, 0, stats=True, verify=True)
    assert stats["verified"] and stats["target"] == path[-1]
    G = nx.from_scipy_sparse_array(g.deduplicated().to_scipy(), create_using=nx.DiGraph)
    assert length == nx.astar_path_length(G, 0, int(path[-1]), weight="weight")


def test_astar_unreachable_target_and_without_coordinates():
    g = ordo.Graph.from_edges([0, 2], [1, 3], [1, 1], coords=[[0, 0], [1, 0], [5, 5], [6, 5]])
    path, length = ordo.astar(g, 0, 3)
    assert length == np.inf and path.size == 0
    # Without coordinates the heuristic is zero: Dijkstra's answer, still exact.
    plain = ordo.Graph.from_edges([0, 1, 0], [1, 2, 2], [1, 1, 5])
    path, length = ordo.astar(plain, 0, 2, verify=True)
    assert length == 2 and path.tolist() == [0, 1, 2]


def pagerank_reference(g, alpha):
    """networkx's PageRank (normalised to sum 1), converged far below ordo's tolerance."""
    import networkx as nx

    G = nx.from_scipy_sparse_array(g.to_scipy().astype(bool).astype(np.int8), create_using=nx.DiGraph)
    pr = nx.pagerank(G, alpha=alpha, tol=1e-12, max_iter=1000, weight=None)
    return np.array([pr[v] for v in range(g.n)])


@pytest.mark.parametrize("app", ["pagerank", "pagerank_d"])
def test_pagerank_within_the_stated_bound_of_networkx(app):
    # A symmetric graph: no dangling vertex, so networkx's ranks times n are
    # the fixpoint ordo approximates. Both kernels report a proven L1 bound
    # (`error_bound`) on ranks summing to n, at most n*tol/(1-alpha): pull
    # stops when an iteration changes the normalised ranks by less than tol
    # (given iterations enough to get there), residual when every residual
    # is below tol.
    g = ordo.generate("road:n=5000", weights="unit").deduplicated()
    alpha = 0.85
    exact = g.n * pagerank_reference(g, alpha)
    uncapped = {"iterations": 1000} if app == "pagerank" else {}
    for tol in (0.01, 1e-4):
        ranks, stats = getattr(ordo, app)(g, alpha=alpha, tolerance=tol, threads=2, stats=True, **uncapped)
        l1 = np.abs(ranks - exact).sum()
        assert stats["error_bound"] <= g.n * tol / (1 - alpha), stats["error_bound"]
        assert l1 <= stats["error_bound"] + 1e-6 * g.n, (tol, l1, stats["error_bound"])


def test_real_slashdot_pagerank_verified():
    g = ordo.Graph.from_file(data_file("social/soc-Slashdot0902.txt.gz"))
    ranks, stats = ordo.pagerank(g, stats=True, verify=True)
    assert stats["verified"] and stats["app"] == "pr" and ranks.shape == (g.n,)
    assert stats["l1_vs_reference"] <= g.n * 0.01 / (1 - 0.85)


def test_mst_equals_scipy_minimum_spanning_tree(rng):
    for g in [ordo.generate("road:n=4000"), ordo.Graph.from_scipy(random_csr(rng, 300, 0.01))]:
        forest = ordo.mst(g, threads=2)
        sym = g.symmetrized()  # MST takes the graph as undirected, least weight per pair
        want = csgraph.minimum_spanning_tree(sym.to_scipy(copy=True).astype(np.float64))
        assert forest.shape == (want.nnz, 3) and forest.dtype == np.int64
        assert forest[:, 2].sum() == want.sum()
        assert (forest[:, 0] < forest[:, 1]).all()
        m = sym.to_scipy()
        assert all(m[u, v] == w for u, v, w in forest)


def test_real_luxembourg_mst():
    g = ordo.Graph.from_file(data_file("road/luxembourg.osm.graph"), weights="euclid-ceil")
    forest = ordo.mst(g)
    assert (forest.shape[0], forest[:, 2].sum()) == (114598, 5826573)


# ---------------------------------------------------------------- stats, verify, cycles

# The keys of `ordo run sssp --json` without --cycles (README).
RUN_JSON_KEYS = set(
    "app graph n m scheduler threads time_s tasks work_increase empty_pops stale_tasks pushes pops "
    "idle_scans parks tasks_per_thread sched_counters traces seq_time_s times_s seq_times_s vs_seq verified "
    "breakdown breakdown_per_thread work_split source reached max_dist sum_dist peak_rss_bytes operator".split()
)


def ordo_command():
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "ordo"
        if path.is_file():
            return path
    return None


def test_stats_have_the_keys_of_ordo_run_json():
    g = ordo.generate("road:n=2000")
    dist, stats = ordo.sssp(g, 0, scheduler="obim", threads=2, stats=True)
    assert set(stats) == RUN_JSON_KEYS
    assert stats["app"] == "sssp" and stats["graph"] == g.name and stats["threads"] == 2
    assert stats["scheduler"].startswith("obim:delta=") and (stats["n"], stats["m"]) == (g.n, g.m)
    assert stats["reached"] == np.isfinite(dist).sum() and stats["sum_dist"] == dist[np.isfinite(dist)].sum()
    # Every pushed task runs once (SSSP schedules neither dead ends nor links of chains, so
    # there can be fewer tasks than reached vertices).
    assert stats["verified"] is False and stats["seq_time_s"] is None and stats["tasks"] == stats["pushes"] > 0
    command = ordo_command()
    if command is None:
        pytest.skip("no target/*/ordo to compare with (cargo build)")
    import json

    out = subprocess.run(
        [str(command), "run", "sssp", "--gen", "road:n=2000", "--sched", "obim", "--threads", "2", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    cli = json.loads(out)
    assert set(cli) == set(stats)
    for key in ["app", "graph", "n", "m", "scheduler", "threads", "source", "reached", "max_dist", "sum_dist"]:
        assert cli[key] == stats[key], key


def test_verify_and_cycles_and_classify():
    g = ordo.generate("road:n=3000")
    dist, stats = ordo.sssp(g, 0, classify=True, stats=True, verify=True, cycles=True)
    assert stats["verified"] is True and stats["seq_time_s"] > 0 and stats["vs_seq"] > 0
    assert stats["work_increase"] >= 1.0
    assert stats["breakdown"]["cycles_task"] > 0
    assert stats["work_split"]["good_tasks"] == stats["reached"]
    levels, bstats = ordo.bfs(g, 0, stats=True, verify=True)
    assert bstats["verified"] and bstats["max_dist"] == levels[np.isfinite(levels)].max()
    forest, mstats = ordo.mst(g, stats=True, verify=True)
    assert mstats["verified"] and mstats["mst_weight"] == forest[:, 2].sum()


# ---------------------------------------------------------------- loops and work stealing


def test_spanning_forests_are_forests_of_the_undirected_graph(rng):
    m = random_csr(rng, 400, 0.004)
    g = ordo.Graph.from_scipy(m)
    und = (m + m.T).tocsr()
    n_components, labels = csgraph.connected_components(und, directed=False)
    for app in ["span_dfs", "span_bfs"]:
        for batch in ["adaptive", "1", "simple", "rayon"]:
            parent = getattr(ordo, app)(g, scheduler=batch, threads=2)
            assert parent.dtype == np.int64 and parent.shape == (g.n,)
            roots = np.flatnonzero(parent == np.arange(g.n))
            assert len(roots) == n_components, (app, batch)
            assert len(set(labels[roots])) == n_components  # one root per component
            for v in range(g.n):
                if parent[v] != v:
                    assert und[v, parent[v]] != 0, (app, batch, v)  # a tree edge is a graph edge
            # No cycle: following parents from any vertex reaches a root.
            for v in range(g.n):
                seen, u = 0, v
                while parent[u] != u:
                    u, seen = parent[u], seen + 1
                    assert seen <= g.n
    # BFS forests have BFS depths: compare with scipy from each root.
    parent = ordo.span_bfs(g, threads=2)
    depth = np.zeros(g.n, dtype=np.int64)
    for v in range(g.n):
        u = v
        while parent[u] != u:
            u, depth[v] = parent[u], depth[v] + 1
    for r in np.flatnonzero(parent == np.arange(g.n)):
        hops = csgraph.shortest_path(und, unweighted=True, indices=r)
        members = labels == labels[r]
        assert (depth[members] == hops[members]).all()


def test_triangles_equal_networkx():
    nx = pytest.importorskip("networkx")
    g = ordo.generate("rmat:scale=9,ef=8,seed=3")
    count = ordo.tc(g, threads=2, scheduler="async-combining:batch=4")
    und = nx.Graph()
    und.add_nodes_from(range(g.n))
    src, dst, _ = g.edges()
    und.add_edges_from((int(u), int(v)) for u, v in zip(src, dst) if u != v)
    assert isinstance(count, int) and count == sum(nx.triangles(und).values()) // 3


def test_betweenness_equals_networkx_unnormalised():
    nx = pytest.importorskip("networkx")
    g = ordo.generate("rmat:scale=8,ef=4,seed=5")
    values = ordo.bc(g, threads=2, scheduler="striped:batch=8")
    d = nx.DiGraph()
    d.add_nodes_from(range(g.n))
    src, dst, _ = g.edges()
    d.add_edges_from((int(u), int(v)) for u, v in zip(src, dst) if u != v)
    want = nx.betweenness_centrality(d, normalized=False)
    exact = np.array([want[v] for v in range(g.n)])
    assert values.dtype == np.float64 and np.allclose(values, exact, rtol=1e-9, atol=1e-9)


def test_pull_pagerank_is_verified_and_loop_micro_returns_its_checksum():
    g = ordo.generate("road:n=3000", weights="unit")
    ranks, stats = ordo.pr_pull(g, iterations=10, threads=2, stats=True, verify=True)
    assert ranks.shape == (g.n,) and stats["verified"] and stats["app"] == "pr-pull"
    assert abs(ranks.sum() - 1.0) < 1e-9  # pull PageRank's ranks are a distribution
    c = ordo.loop_micro(g, size=1000, work=2, shape="even", scheduler="shared:batch=8", threads=2)
    assert c["iterations"] == 1000 and c["index_sum"] == 999 * 1000 // 2


def test_cc_labels_are_scipys_components_with_the_smallest_id(rng):
    for density in [0.001, 0.004, 0.02]:
        m = random_csr(rng, 500, density)
        g = ordo.Graph.from_scipy(m)
        count, ref = csgraph.connected_components(m, directed=True, connection="weak")
        # The smallest vertex of each scipy component is its expected label.
        smallest = np.full(count, g.n, dtype=np.int64)
        np.minimum.at(smallest, ref, np.arange(g.n))
        for kernel in [None, "afforest", "afforest-out"]:
            labels, stats = ordo.cc(g, scheduler=kernel, threads=2, stats=True, verify=True)
            assert labels.dtype == np.int64 and labels.shape == (g.n,)
            assert (labels == smallest[ref]).all(), (density, kernel)
            assert stats["verified"] and stats["components"] == count
            assert stats["largest_component"] == np.bincount(ref).max()
            assert stats["kernel"] in ("afforest", "afforest-out") and stats["kernel"] == (kernel or stats["kernel"])
    with pytest.raises(ValueError, match="unknown kernel"):
        ordo.cc(g, scheduler="pmod")
