"""Tests of kernels.py's parsing, comparisons and statistics (no peer and no ordo binary
needed): `python3 -m pytest bench/peers`."""

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import kernels  # noqa: E402

GAPBS_BFS = """\
Read Time:           0.00013
Graph has 1024 nodes and 10558 undirected edges for degree: 10
Trial Time:          0.00006
Trial Time:          0.00005
BFS Tree has 893 nodes and 21116 edges
ordo-checksum reached=893 sum=1995 max=3
Average Time:        0.00006
"""

GAPBS_TC = """\
Graph has 1024 nodes and 10558 undirected edges for degree: 10
Relabel:             0.00054
Trial Time:          0.00135
76579 triangles
Average Time:        0.00135
"""

GBBS_MSF = """\
### Application: MinimumSpanningForest (Minimum Spanning Forest)
### n: 1024
### m: 21116
Boruvka finished: total edges added to MinimumSpanningForest = 419
total weight = 38109
ordo-checksum edges=892 weight=38109
### Running Time: 0.002005
### n: 1024
### m: 21116
ordo-checksum edges=892 weight=38109
### Running Time: 0.000938
# time per iter: 0.0014715
"""

CONNECTIT = """\
# neighbor_rounds = 2
ordo-checksum components=2 largest=63 label_sum=31
### t = 0.000247
ordo-checksum components=2 largest=63 label_sum=31
### t = 2e-05
{
  "test_type": "static_connectivity_result",
  "test_name" : "uf; sample=sample_kout; unite=unite_rem_cas; find=find_compress; splice=split_atomic_one",
  "rounds" : 2,
  "medt" : 0.0001335,
}
ordo-checksum components=2 largest=63 label_sum=31
### t = 1.9e-05
ordo-checksum components=2 largest=63 label_sum=31
### t = 1.8e-05
{
  "test_name" : "uf; sample=sample_kout; unite=unite_rem_cas; find=find_compress; splice=halve_atomic_one",
}
"""

SPLIT = "uf; sample=sample_kout; unite=unite_rem_cas; find=find_compress; splice=split_atomic_one"
HALVE = "uf; sample=sample_kout; unite=unite_rem_cas; find=find_compress; splice=halve_atomic_one"


def test_gapbs_times_and_checksum():
    times, checksum = kernels.parse_gapbs("bfs", GAPBS_BFS)
    assert times == [0.00006, 0.00005]
    assert checksum == {"reached": 893, "sum": 1995, "max": 3}
    times, checksum = kernels.parse_gapbs("tc", GAPBS_TC)
    assert times == [0.00135]
    assert checksum == {"triangles": 76579}


def test_checksum_line_keeps_floats_and_takes_the_last_line():
    text = "ordo-checksum sum=1 top=3\nordo-checksum sum=0.89561803478864022 top=536 top_score=0.0199\n"
    assert kernels.parse_checksum_line(text) == {"sum": 0.89561803478864022, "top": 536, "top_score": 0.0199}
    assert kernels.parse_checksum_line("no checksum here") is None


def test_gbbs_running_times_and_checksum():
    times, checksum, extra = kernels.parse_gbbs("mst", GBBS_MSF)
    assert times == [0.002005, 0.000938]
    assert checksum == {"edges": 892, "weight": 38109}
    assert extra == {}


def test_connectit_takes_the_fastest_variant_unless_the_plan_names_one():
    times, checksum, extra = kernels.parse_gbbs("cc", CONNECTIT)
    assert extra["variant"] == HALVE
    assert times == [1.9e-05, 1.8e-05]
    assert extra["variants_s"] == {SPLIT: [0.000247, 2e-05], HALVE: [1.9e-05, 1.8e-05]}
    assert checksum == {"components": 2, "largest": 63, "label_sum": 31}
    times, _, extra = kernels.parse_gbbs("cc", CONNECTIT, variant=SPLIT)
    assert times == [0.000247, 2e-05] and extra["variant"] == SPLIT


def test_connectit_variants_that_disagree_are_an_error():
    text = CONNECTIT.replace("label_sum=31\n### t = 1.8e-05", "label_sum=32\n### t = 1.8e-05")
    _, checksum, extra = kernels.parse_gbbs("cc", text)
    assert checksum is None
    assert "disagree" in extra["error"]


def test_peer_graph_sizes_must_match_ordos():
    # GAPBS counts undirected edges of a symmetric graph.
    assert kernels.size_error("gapbs", GAPBS_BFS, 1024, 21116, True) is None
    assert "GAPBS loaded" in kernels.size_error("gapbs", GAPBS_BFS, 1024, 21116, False)
    assert "GAPBS loaded" in kernels.size_error("gapbs", GAPBS_BFS, 1025, 21116, True)
    assert kernels.size_error("gbbs", GBBS_MSF, 1024, 21116, True) is None
    assert "GBBS loaded" in kernels.size_error("gbbs", GBBS_MSF, 1000, 21116, True)
    # ConnectIt prints no size: nothing to compare.
    assert kernels.size_error("gbbs", CONNECTIT, 5, 5, True) is None


def test_bfs_checksum_of_levels():
    assert kernels.bfs_checksum([0, 1, None, 2, 1]) == {"reached": 4, "sum": 4, "max": 2}
    assert kernels.bfs_checksum([None, None]) == {"reached": 0, "sum": 0, "max": 0}


def test_cc_checksum_does_not_depend_on_the_labels():
    # Components {0, 2}, {1, 3, 4}, {5}, labelled two different ways.
    a = [7, 9, 7, 9, 9, 3]
    b = [0, 1, 0, 1, 1, 5]
    assert kernels.cc_checksum(a) == kernels.cc_checksum(b) == {
        "components": 3, "largest": 3, "label_sum": 0 + 1 + 0 + 1 + 1 + 5}
    # Moving vertex 4 into the first component changes the checksum.
    assert kernels.cc_checksum([7, 9, 7, 9, 7, 3]) != kernels.cc_checksum(a)


def test_ordo_out_files(tmp_path):
    levels = tmp_path / "bfs.out"
    levels.write_text("0 0\n1 inf\n3 2\n")
    assert kernels.read_vertex_values(levels, 4) == [0.0, None, None, 2.0]
    forest = tmp_path / "mst.out"
    forest.write_text("0 19 157\n1 41 3\n")
    assert kernels.mst_checksum(forest) == {"edges": 2, "weight": 160}
    scores = tmp_path / "pr.out"
    scores.write_text("0 0.25\n1 0.75\n")
    assert kernels.read_scores(scores, 2) == [0.25, 0.75]
    dump = tmp_path / "dump"
    dump.write_text("0.5\n0.5\n")
    assert kernels.read_scores(dump) == [0.5, 0.5]
    with pytest.raises(SystemExit):
        kernels.read_scores(dump, 3)


def power_iteration(out_edges, n, dangling, iterations=300, d=0.85):
    """PageRank by Jacobi iteration: `dangling` = "spread" (GBBS: a dangling vertex's
    mass goes to every vertex) or "drop" (GAPBS: it is lost)."""
    x = [1.0 / n] * n
    for _ in range(iterations):
        nxt = [(1 - d) / n] * n
        lost = sum(x[u] for u in range(n) if not out_edges[u])
        for u in range(n):
            for v in out_edges[u]:
                nxt[v] += d * x[u] / len(out_edges[u])
        if dangling == "spread":
            nxt = [y + d * lost / n for y in nxt]
        x = nxt
    return x


def test_normalized_pagerank_vectors_agree_whatever_the_dangling_rule():
    # Vertex 3 has no out-edge; vertex 4 none either and nothing points to it.
    out_edges = [[1, 2], [2], [0, 3], [], []]
    spread = power_iteration(out_edges, 5, "spread")
    drop = power_iteration(out_edges, 5, "drop")
    assert abs(sum(spread) - 1) < 1e-12 and sum(drop) < 0.9
    assert kernels.normalized_l1(spread, drop) < 1e-12
    # ordo's residual form sums to about n: the scale drops out too.
    assert kernels.normalized_l1([5 * x for x in drop], spread) < 1e-12
    # A different graph is far.
    other = power_iteration([[1], [2], [0], [0], [0]], 5, "spread")
    assert kernels.normalized_l1(spread, other) > 0.1
    assert kernels.normalized_l1([1.0], [1.0, 0.0]) == math.inf


def test_bc_distance_leaves_out_the_source_and_scales_by_the_largest():
    # GAPBS: divided by its largest score, the source's own count included; GBBS: raw
    # dependencies, NaN where unreached.
    gapbs = [1.0, 0.5, 0.25, 0.0]
    gbbs = [4.0, 2.0, 1.0, float("nan")]
    assert kernels.bc_distance(gapbs, gbbs, source=0) == 0.0
    assert kernels.bc_distance(gapbs, [4.0, 2.0, 1.5, 0.0], source=0) == pytest.approx(0.25)
    assert kernels.bc_distance([0.0, 0.0], [0.0, 0.0], source=1) == 0.0


def pair(k, ordo_s, peer_s, ordo_rss=100, peer_rss=50, session=1):
    common = {"kernel": "bfs", "input": "g", "threads": 2, "peer": "gapbs", "pair": k, "session": session}
    return [dict(common, system="ordo", median_s=ordo_s, peak_rss_bytes=ordo_rss),
            dict(common, system="gapbs", median_s=peer_s, peak_rss_bytes=peer_rss)]


def test_cell_summary_takes_the_median_of_the_pair_ratios():
    recs = pair(0, 1.0, 2.0) + pair(1, 3.0, 2.0) + pair(2, 0.9, 1.0, ordo_rss=120, peer_rss=60)
    s = kernels.cell_summary(kernels.pair_up(recs))
    assert s["pairs"] == 3
    assert s["ratio_median"] == pytest.approx(0.9)
    assert s["ratio_min"] == pytest.approx(0.5) and s["ratio_max"] == pytest.approx(1.5)
    assert s["ordo_median_s"] == 1.0 and s["ordo_min_s"] == 0.9 and s["ordo_max_s"] == 3.0
    assert s["peer_median_s"] == 2.0
    assert s["ordo_wins"] == 2
    assert s["rss_ratio"] == pytest.approx(2.0)
    assert kernels.cell_summary([]) is None


def test_pairs_need_both_processes_of_the_same_session():
    recs = pair(0, 1.0, 2.0, session=1) + pair(0, 5.0, 1.0, session=2)
    # A failed peer process leaves its ordo process unpaired.
    failed = pair(1, 1.0, 2.0, session=2)
    del failed[1]["median_s"]
    failed[1]["error"] = "timeout"
    pairs = kernels.pair_up(recs + failed)
    assert [(o["median_s"], p["median_s"]) for o, p in pairs] == [(1.0, 2.0), (5.0, 1.0)]


def test_table_writes_one_row_per_cell(tmp_path):
    recs = pair(0, 0.010, 0.020) + pair(1, 0.012, 0.020)
    recs[0]["report"] = {"kernel": "direction", "scheduler": None}
    recs[2]["report"] = {"scheduler": "auto"}
    recs += [{"kernel": "cc", "input": "g", "threads": 1, "peer": "gbbs", "pair": 0, "session": 1,
              "system": "gbbs", "error": "exit 1"}]
    (tmp_path / "duel.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    kernels.table(tmp_path)
    text = (tmp_path / "kernels.md").read_text()
    assert ("| bfs | g | 2 | gapbs | 11 (10-12) | 20 (20-20) | 0.55 (0.50-0.60) | 2 of 2 | 0 | 0 | 2.00 "
            "| `direction / auto` |") in text
    assert "| cc | g | 1 | gbbs | - | - | no successful pair |" in text
    assert "1 processes failed" in text


def test_templates_fill_sources_sizes_and_per_vertex_tolerances():
    meta = {"source": 7, "n": 1000, "m": 5000}
    kernel = {"name": "pr", "tolerance": 1e-4, "iterations": 20}
    values = kernels.template_values(meta, kernel, {"name": "g", "bc_sources": 16})
    assert kernels.fill(["-r", "{source}", "-eps", "{tolerance_over_n}", "-i", "{iterations}", "-k", "{bc_sources}"],
                        values) == ["-r", "7", "-eps", "1e-07", "-i", "20", "-k", "16"]
    with pytest.raises(SystemExit):
        kernels.fill(["{unknown}"], values)


def test_plan_defaults_and_errors(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('[[input]]\nname = "a"\ngen = "kron:scale=4"\n[[input]]\nname = "b"\ngapbs = "-u 4"\n'
                    '[[input]]\nname = "c"\ngraph = "x.el"\ndirected = true\n'
                    '[[kernel]]\nname = "bfs"\n[[kernel]]\nname = "mst"\n[[kernel]]\nname = "pr20"\nkind = "pr"\n'
                    'ordo = ["--iterations", "20"]\n')
    settings, inputs, ks = kernels.load_plan(plan)
    assert settings["pairs"] == 5 and settings["threads"] == [1, 2]
    assert [i["symmetric"] for i in inputs] == [True, True, False]
    assert inputs[2]["graph"] == str(tmp_path / "x.el")
    by_name = {k["name"]: k for k in ks}
    assert by_name["bfs"]["peers"] == ["gapbs", "gbbs"]
    assert by_name["mst"]["peers"] == ["gbbs"]
    assert by_name["pr20"]["app"] == "pr" and by_name["pr20"]["check_ordo"] == ["--iterations", "20"]
    for bad in ('[[input]]\nname = "a"\ngen = "x"\ngraph = "y"\n',
                '[[kernel]]\nname = "sssp"\n',
                '[[kernel]]\nname = "mst"\npeers = ["gapbs"]\n'):
        plan.write_text(bad)
        with pytest.raises(SystemExit):
            kernels.load_plan(plan)


def test_run_process_reports_the_peak_rss_of_the_command():
    rc, out, _, rss = kernels.run_process(
        [sys.executable, "-c", "x = bytearray(200 * 2**20); x[::4096] = b'1' * len(x[::4096]); print('ok')"])
    assert rc == 0 and out.strip() == "ok"
    assert 200 * 2**20 <= rss < 400 * 2**20


@pytest.mark.skipif(not kernels.GNU_TIME.exists(), reason="GNU time is not installed")
def test_run_process_does_not_count_the_scripts_own_memory():
    ballast = bytearray(100 * 2**20)
    ballast[::4096] = b"1" * len(ballast[::4096])
    rc, _, _, rss = kernels.run_process(["true"])
    assert rc == 0 and rss < 16 * 2**20


def test_run_process_stops_at_the_timeout():
    rc, _, _, _ = kernels.run_process([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert rc is None


def test_judge_compares_the_keys_both_checksums_have():
    ok = {"times_s": [0.3, 0.1, 0.2], "checksum": {"components": 3, "largest": 5}}
    kernels.judge(ok, {"components": 3, "largest": 5, "label_sum": 7})
    assert ok["median_s"] == 0.2 and "error" not in ok
    wrong = {"times_s": [0.1], "checksum": {"components": 4}}
    kernels.judge(wrong, {"components": 3})
    assert "differs" in wrong["error"] and "median_s" not in wrong
    unchecked = {"times_s": [0.1], "checksum": {"components": 4}}
    kernels.judge(unchecked, None)
    assert unchecked["median_s"] == 0.1
    failed = {"error": "timeout"}
    kernels.judge(failed, {"components": 3})
    assert failed == {"error": "timeout"}


def test_held_serializes_on_the_lock_file(tmp_path):
    lock = tmp_path / "bench.lock"
    with kernels.held(lock):
        import fcntl
        with open(lock) as f:
            with pytest.raises(BlockingIOError):
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(lock) as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with kernels.held(None):
        pass


def test_largest_vertex_and_first_source_of_an_edge_list(tmp_path):
    edges = tmp_path / "g.edges"
    edges.write_text("# written by ordo, 0-based ids\n# Nodes: 9 Edges: 3\n3\t5\t1\n1\t2\t4\n10\t0\t7\n")
    assert kernels.max_vertex_and_first_source(edges) == (10, 1)
    edges.write_text("# Nodes: 4 Edges: 0\n")
    assert kernels.max_vertex_and_first_source(edges) == (-1, None)
