"""Tests of the statistics of peers.py (no peer and no ordo binary needed):
`python3 -m pytest bench/peers`."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import peers  # noqa: E402

FAMILIES = [
    {"name": "auto", "system": "ordo", "untuned": True},
    {"name": "obim", "system": "ordo", "untuned": False},
    {"name": "gapbs", "system": "gapbs", "untuned": False},
    {"name": "wasp", "system": "wasp", "untuned": False},
]


def write_log(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def rec(inp, threads, family, value, median_s):
    return {"input": inp, "threads": threads, "family": family, "value": value, "median_s": median_s}


def test_paired_summary_takes_the_median_of_neighbouring_ratios():
    # The machine halves its speed for the last two pairs; each pair's ratio compares
    # two processes that ran at the same speed.
    pairs = [(0.9, 1.0), (0.8, 1.0), (1.9, 2.0), (1.6, 2.0)]
    s = peers.paired_summary(pairs)
    assert s["pairs"] == 4
    assert s["median"] == pytest.approx((0.8 + 0.9) / 2)
    assert s["min"] == pytest.approx(0.8)
    assert s["max"] == pytest.approx(0.95)
    assert s["q1"] <= s["median"] <= s["q3"]
    assert s["auto_wins"] == 4
    assert s["auto_fastest_s"] == pytest.approx(0.8)
    assert s["peer_fastest_s"] == pytest.approx(1.0)


def test_paired_summary_counts_losses_and_handles_one_pair():
    s = peers.paired_summary([(1.2, 1.0)])
    assert s["pairs"] == 1
    assert s["median"] == pytest.approx(1.2)
    assert s["q1"] == s["q3"] == pytest.approx(1.2)
    assert s["auto_wins"] == 0
    assert peers.paired_summary([]) is None


def test_best_peer_is_the_fastest_peer_median_of_the_final_phase(tmp_path):
    write_log(tmp_path / "final.jsonl", [
        rec("g", 2, "gapbs", 8192, 0.050), rec("g", 2, "gapbs", 8192, 0.040), rec("g", 2, "gapbs", 8192, 0.060),
        rec("g", 2, "wasp", 32768, 0.045), rec("g", 2, "wasp", 32768, 0.046), rec("g", 2, "wasp", 32768, 0.070),
        # ordo's tuned schedulers are not peers, however fast.
        rec("g", 2, "obim", 12, 0.010),
        # A failed run has no median and does not count.
        {"input": "g", "threads": 2, "family": "wasp", "value": 32768, "error": "timeout"},
        rec("g", 1, "gapbs", 1024, 0.080), rec("g", 1, "wasp", 8192, 0.070),
    ])
    # The tune phase is not read when there is a final phase.
    write_log(tmp_path / "tune.jsonl", [rec("g", 2, "wasp", 1, 0.001)])
    best = peers.best_peer_labels(tmp_path, FAMILIES)
    assert best == {("g", 2): ("wasp", 32768), ("g", 1): ("wasp", 8192)}


def test_best_peer_falls_back_to_the_tune_phase(tmp_path):
    write_log(tmp_path / "tune.jsonl", [rec("g", 2, "gapbs", 4, 0.030), rec("g", 2, "gapbs", 8, 0.020)])
    assert peers.best_peer_labels(tmp_path, FAMILIES) == {("g", 2): ("gapbs", 8)}
    assert peers.best_peer_labels(tmp_path / "missing", FAMILIES) == {}


def test_best_peer_among_chosen_families(tmp_path):
    write_log(tmp_path / "final.jsonl", [
        rec("g", 2, "gapbs", 8192, 0.040), rec("g", 2, "wasp", 32768, 0.045), rec("g", 2, "wasp", 4096, 0.050),
    ])
    assert peers.best_peer_labels(tmp_path, FAMILIES, among=["wasp"]) == {("g", 2): ("wasp", 32768)}
    assert peers.best_peer_labels(tmp_path, FAMILIES, among=["obim"]) == {}


def test_runoff_candidates_are_the_fastest_sweep_points():
    sweep = {0: 0.9, 2: 0.5, 4: 0.7, 5: 0.6, 6: 1.4}
    assert peers.runoff_candidates(sweep, 3) == [2, 5, 4]
    assert peers.runoff_candidates(sweep, 1) == [2]
    assert peers.runoff_candidates({3: 0.2}, 3) == [3]


def test_runoff_winner_is_the_lowest_median_not_the_luckiest_run():
    # Point 1 has the single fastest process, point 2 the lower median.
    times = {1: [0.40, 0.80, 0.81], 2: [0.55, 0.56, 0.60], 3: []}
    assert peers.runoff_winner(times) == 2
    assert peers.runoff_winner({1: [], 2: []}) is None


def test_runoff_retimes_the_candidates_interleaved_and_overrules_the_sweep(monkeypatch):
    # The sweep found point 0 fastest (a fast minute); side by side point 1 is faster.
    speed = {"a": 0.50, "b": 0.45, "c": 0.70}
    calls = []

    def fake_measure(tools, inp, f, value, threads, inner, timeout, log, phase=None):
        assert inner == 7
        calls.append((value, phase))
        return {"median_s": speed[value]}

    monkeypatch.setattr(peers, "measure", fake_measure)
    settings = {"runoff": 4, "timeout_s": 10}
    values = ["a", "b", "c"]
    got = peers.runoff(None, settings, {"name": "g"}, {"name": "gapbs"}, values, [0, 1, 2], 2, 7,
                       peers.random.Random(1), None)
    assert got == 1
    assert len(calls) == 12 and all(phase == "runoff" for _, phase in calls)
    # Every round runs each candidate once.
    for r in range(4):
        assert sorted(v for v, _ in calls[3 * r:3 * r + 3]) == values


def test_runoff_keeps_the_sweep_pick_when_every_runoff_process_fails(monkeypatch):
    monkeypatch.setattr(peers, "measure", lambda *a, **k: {"error": "timeout"})
    settings = {"runoff": 2, "timeout_s": 10}
    got = peers.runoff(None, settings, {"name": "g"}, {"name": "gapbs"}, [1, 2, 4], [2, 0], 2, 3,
                       peers.random.Random(1), None)
    assert got == 2


def test_against_names_a_family_or_one_of_its_points():
    assert peers.parse_opponent("gapbs") == ("gapbs", None)
    assert peers.parse_opponent("gapbs:8") == ("gapbs", 8)
    assert peers.parse_opponent("rho:default") == ("rho", "default")
    with pytest.raises(SystemExit):
        peers.parse_opponent("gapbs:")
