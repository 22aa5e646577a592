//! `ordo run mst` end to end: JSON measures, `--verify`, the `--out` file
//! (checked against Kruskal computed here on the same generated graph and
//! against a forest worked out by hand), every scheduler, unweighted input,
//! and the Luxembourg road network's checked MST weight.

use std::path::Path;

use assert_cmd::Command;
use ordo_algos::mst::{kruskal, UndirectedGraph};
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo run mst ARGS --json` successfully and parses its JSON object.
fn run_mst(args: &[&str]) -> Value {
    let out = ordo().args(["run", "mst"]).args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo run mst {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints exactly one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

/// Parses `u v weight` lines.
fn read_forest(path: &Path) -> Vec<(u32, u32, u32)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let f: Vec<u32> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            assert_eq!(f.len(), 3, "`u v weight`: {line}");
            (f[0], f[1], f[2])
        })
        .collect()
}

const GEN: &str = "road:n=3000,seed=4";

#[test]
fn verify_json_and_out_file_equal_kruskal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("msf.txt");
    let v = run_mst(&[
        "--gen",
        GEN,
        "--sched",
        "obim",
        "--threads",
        "2",
        "--verify",
        "--out",
        out.to_str().unwrap(),
    ]);
    for key in ["time_s", "tasks", "work_increase", "seq_time_s", "vs_seq", "stale_tasks", "undirected_edges"]
    {
        assert!(v.get(key).is_some(), "JSON lacks `{key}`: {v}");
    }
    assert_eq!(v["app"], "mst");
    assert_eq!(v["verified"], true);
    // Relative to the exact-order run; the useful half of its tasks runs in
    // any order, so the ratio cannot drop far below 1.
    let work_increase = v["work_increase"].as_f64().unwrap();
    assert!(work_increase > 0.4 && work_increase < 3.0, "{work_increase}");

    // The same graph, generated here, and its MSF by the library's Kruskal.
    let g = UndirectedGraph::new(&GEN.parse::<ordo_graph::gen::GenSpec>().unwrap().generate().unwrap());
    let reference = kruskal(&g).forest;
    assert_eq!(v["mst_weight"], reference.total_weight);
    assert_eq!(v["mst_edges"], reference.edges.len());
    assert_eq!(v["components"], reference.components);
    let expected: Vec<_> = reference.edges.iter().map(|e| (e.u, e.v, e.weight)).collect();
    let got = read_forest(&out);
    assert!(got.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)), "sorted by (u, v)");
    assert!(got.iter().all(|&(u, v, _)| u < v));
    assert_eq!(got, expected);
    // Without --verify: no baseline (only the exact-order run knows it).
    let v = run_mst(&["--gen", GEN, "--sched", "strict", "--threads", "1"]);
    assert_eq!(v["verified"], false);
    assert!(v["work_increase"].is_null());
    assert_eq!(v["mst_weight"], reference.total_weight);
}

#[test]
fn out_file_of_a_graph_drawn_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.gr");
    // 1-based DIMACS: a square 1-2-3-4 with diagonal 1-3, both directions of
    // 2-3 with different weights (least kept), a self loop on 4, vertex 5
    // isolated, and 6-7 joined only one way.
    std::fs::write(
        &graph,
        "p sp 7 9\na 1 2 4\na 2 3 1\na 3 2 8\na 3 4 5\na 4 1 2\na 1 3 3\na 4 4 1\na 6 7 9\na 7 6 9\n",
    )
    .unwrap();
    let out = dir.path().join("f.txt");
    let mut cmd = ordo();
    cmd.args(["run", "mst", "--sched", "smq", "--threads", "2", "--verify", "--json", "--graph"]);
    let assert = cmd.arg(&graph).arg("--out").arg(&out).assert().success();
    let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    // By hand (0-based): 1-2 (1), 0-3 (2), 0-2 (3), 5-6 (9).
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0 2 3\n0 3 2\n1 2 1\n5 6 9\n");
    assert_eq!(
        (v["mst_weight"].as_u64(), v["mst_edges"].as_u64(), v["components"].as_u64()),
        (Some(15), Some(4), Some(3))
    );
}

#[test]
fn every_scheduler_verifies() {
    for name in ordo_sched::SchedulerSpec::names() {
        let v =
            run_mst(&["--gen", "rmat:scale=9,ef=4,seed=2", "--sched", name, "--threads", "2", "--verify"]);
        assert_eq!(v["verified"], true, "mst on {name}");
    }
}

#[test]
fn unweighted_input_weighs_one_per_edge() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("u.graph");
    // METIS, unweighted: a triangle 1-2-3 and an edge 4-5.
    std::fs::write(&graph, "5 4\n2 3\n1 3\n1 2\n5\n4\n").unwrap();
    let v = run_mst(&["--graph", graph.to_str().unwrap(), "--sched", "pmod", "--threads", "2", "--verify"]);
    assert_eq!(
        (v["mst_weight"].as_u64(), v["mst_edges"].as_u64(), v["components"].as_u64()),
        (Some(3), Some(3), Some(2))
    );
}

#[test]
fn luxembourg_has_its_checked_mst_weight() {
    let test = "luxembourg_has_its_checked_mst_weight";
    let Some(p) = ordo_graph::datasets::find("road/luxembourg.osm.graph", test) else { return };
    let v = run_mst(&[
        "--graph",
        p.to_str().unwrap(),
        "--weights",
        "euclid-ceil",
        "--sched",
        "pmod",
        "--threads",
        "2",
        "--verify",
    ]);
    // data/README.md: MST weight 5,826,573 with 114,598 edges.
    assert_eq!(v["mst_weight"], 5_826_573u64);
    assert_eq!(v["mst_edges"], 114_598);
    assert_eq!(v["components"], 1);
}
