"""python/bench/peers.py: the side-by-side runs every cell on tiny graphs and every answer agrees.

Libraries that are not installed (CI has only scipy and networkx of the peers)
are skipped by the script with a line, and their cells say so.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import peer_checks  # noqa: E402
import peer_libs  # noqa: E402
import peers  # noqa: E402


def test_quick_run_checks_every_answer(tmp_path, capsys):
    out, md = tmp_path / "peers.json", tmp_path / "peers.md"
    status = peers.main(["--quick", "--out", str(out), "--md", str(md)])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    report = json.loads(out.read_text())
    recs = report["records"]
    assert {r["input"] for r in recs} == {"road", "kron"}
    assert {r["kernel"] for r in recs} == set(peers.KERNELS)
    assert not [r for r in recs if r["status"] in ("MISMATCH", "error")]
    for kernel in peers.KERNELS:
        ran = [r for r in recs if r["kernel"] == kernel and r["status"] == "ok"]
        # ordo (or the reference where ordo lacks the kernel) and at least one
        # peer compared against it, on each input: networkx has every kernel.
        for name in ("road", "kron"):
            here = [r for r in ran if r["input"] == name]
            assert any(r["check"] == "reference" for r in here), (kernel, name)
            assert any(r["check"].startswith("against") for r in here), (kernel, name)
    for r in recs:
        if r["status"] == "ok":
            assert r["time"]["runs"] >= 1 and r["time"]["min_s"] <= r["time"]["median_s"] <= r["time"]["max_s"]
    ordo_threads = {r["threads"] for r in recs if r["library"] == "ordo"}
    assert ordo_threads == {1, 2}
    conv = report["conversions"]
    assert {c["library"] for c in conv} >= {"ordo", "scipy", "networkx"}
    text = md.read_text()
    assert "## road: road:n=1000" in text and "2 threads" in text and "## Conversions" in text


def test_bc_sources_are_ordos():
    """Betweenness over the sources peers.bc_sources draws equals ordo's bc(sources=k): the same sample."""
    ordo = pytest.importorskip("ordo")
    nx = pytest.importorskip("networkx")
    g = ordo.generate("kron:scale=7")
    k = 5
    src, dst, _ = g.deduplicated().edges()
    candidates = peers.bc_candidates(src, dst, g.n)
    assert 0 < candidates.sum() < g.n  # the sample is drawn among some vertices, not all
    sources = peers.bc_sources(candidates, k)
    assert len(set(sources.tolist())) == k and (np.diff(sources) > 0).all() and candidates[sources].all()
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    raw = nx.betweenness_centrality_subset(G, sources=sources.tolist(), targets=list(G), normalized=False)
    want = peer_libs.scale_sample([raw[v] for v in range(g.n)], sources, candidates)
    got = ordo.bc(g, sources=k, seed=1, threads=1)
    assert peer_checks.compare("bc", got, want) is None


def test_levels_from_parents_matches_scipy():
    sp = pytest.importorskip("scipy.sparse")
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    rng = np.random.default_rng(3)
    n = 400
    m = sp.csr_array((np.ones(1200), (rng.integers(0, n, 1200), rng.integers(0, n, 1200))), shape=(n, n))
    order, pred = csgraph.breadth_first_order(m, 7, return_predecessors=True)
    want = csgraph.shortest_path(m, indices=7, unweighted=True)
    np.testing.assert_array_equal(peer_libs.levels_from_parents(order, pred, n), want)


def test_checks_report_differences():
    a = np.array([0.0, 1.0, np.inf])
    assert peer_checks.compare("sssp", a, a.copy()) is None
    assert "vertex 1" in peer_checks.compare("sssp", np.array([0.0, 2.0, np.inf]), a)
    labels = peer_libs.components_from_labels([5, 5, 9, 9, 5])
    np.testing.assert_array_equal(labels, [0, 0, 2, 2, 0])
    assert peer_checks.compare("cc", labels, peer_libs.components_from_sets([{0, 1, 4}, {2, 3}], 5)) is None
    assert peer_checks.compare("cc", labels, np.arange(5)) is not None
    assert peer_checks.compare("mst", (10.0, 3), (10.0, 3)) is None
    assert peer_checks.compare("mst", (11.0, 3), (10.0, 3)) is not None
    assert peer_checks.compare("tc", 7, 8) is not None
    p = np.full(4, 0.25)
    assert peer_checks.compare("pagerank", p, p + np.array([1e-8, -1e-8, 0, 0])) is None
    assert peer_checks.compare("pagerank", p, np.array([0.3, 0.2, 0.25, 0.25])) is not None
    assert peer_checks.compare("bc", np.array([100.0]), np.array([100.0 + 1e-12])) is None
    assert peer_checks.compare("bc", np.array([100.0]), np.array([101.0])) is not None
