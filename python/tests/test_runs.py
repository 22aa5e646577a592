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
from conftest import data_file, random_csr

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
    with pytest.raises(ValueError, match="source -1"):
        ordo.bfs(g, -1)
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
    import sys
    import numpy as np
    import ordo
    g = ordo.generate("road:n=1000000")
    print("ready", flush=True)
    try:
        for _ in range(1000):
            ordo.sssp(g, 0, scheduler="strict", threads=1)
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
        # The child runs back-to-back SSSPs of ~1M vertices: a signal now lands
        # inside a run (between two runs it would still raise, without the note).
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
