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
