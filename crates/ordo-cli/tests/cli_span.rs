//! `ordo run span-dfs` / `span-bfs` end to end: JSON measures (MEPS and the
//! runtime's counters), `--verify`, every `--batch` strategy (adaptive,
//! fixed sizes, the SIMPLE and rayon baselines), the `--out` file (checked
//! here as a spanning forest of the same generated graph), a file input with
//! several components, and bad strategies.

use std::path::Path;

use assert_cmd::Command;
use ordo_algos::spanning::{verify, Undirected};
use ordo_graph::gen::GenSpec;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo run APP ARGS --json` successfully and parses its JSON object.
fn run(app: &str, args: &[&str]) -> Value {
    let out = ordo().args(["run", app]).args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo run {app} {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints exactly one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

/// Parses `vertex parent` lines into the parent array.
fn read_parents(path: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<u32> = line.split(' ').map(|x| x.parse().unwrap()).collect();
            assert_eq!(f.len(), 2, "`vertex parent`: {line}");
            assert_eq!(f[0] as usize, i, "one line per vertex, in order");
            f[1]
        })
        .collect()
}

const GEN: &str = "kgraph:n=30000,k=3,seed=2";

#[test]
fn json_verify_and_out_file_for_both_apps() {
    let dir = tempfile::tempdir().unwrap();
    let graph = GEN.parse::<GenSpec>().unwrap().generate().unwrap();
    let undirected = Undirected::new(&graph);
    for app in ["span-dfs", "span-bfs"] {
        let out = dir.path().join(format!("{app}.txt"));
        let v = run(app, &["--gen", GEN, "--threads", "2", "--verify", "--out", out.to_str().unwrap()]);
        for key in
            ["time_s", "meps", "undirected_edges", "components", "frames", "steals", "phases", "seq_time_s"]
        {
            assert!(v.get(key).is_some(), "{app}: JSON lacks `{key}`: {v}");
        }
        assert_eq!(v["app"], app);
        assert_eq!(v["verified"], true);
        assert_eq!(v["scheduler"], "adaptive", "the default strategy");
        assert_eq!(v["undirected_edges"], undirected.num_edges());
        let meps = v["meps"].as_f64().unwrap();
        let expected = undirected.num_edges() as f64 / v["time_s"].as_f64().unwrap() / 1e6;
        assert!((meps - expected).abs() <= 1e-6 * expected, "{app}: meps {meps} vs {expected}");
        let parent = read_parents(&out);
        let summary = verify::check_spanning_forest(&undirected, &parent).unwrap();
        assert_eq!(v["components"], summary.components);
        if app == "span-bfs" {
            verify::check_bfs_levels(&undirected, &parent).unwrap();
            assert!(v["phases"].as_u64().unwrap() > 1);
        }
    }
}

#[test]
fn every_strategy_is_verified() {
    for app in ["span-dfs", "span-bfs"] {
        for batch in ["adaptive", "adaptive:2048", "1", "128", "simple", "rayon", "rayon:4"] {
            let v = run(app, &["--gen", "torus:w=60,h=50", "--threads", "2", "--batch", batch, "--verify"]);
            assert_eq!(v["verified"], true, "{app} --batch {batch}");
            assert_eq!(v["components"], 1, "{app} --batch {batch}");
        }
    }
}

#[test]
fn a_file_with_several_components() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.txt");
    // Edges one way only (symmetrized by the application), a self loop, a
    // repeated edge and isolated vertices 6 and 7 (declared by the header).
    std::fs::write(&input, "# Nodes: 8 Edges: 6\n0\t1\n1\t2\n2\t0\n2\t2\n3\t4\n4\t3\n").unwrap();
    let out = dir.path().join("p.txt");
    for app in ["span-dfs", "span-bfs"] {
        let v = run(app, &["--graph", input.to_str().unwrap(), "--verify", "--out", out.to_str().unwrap()]);
        assert_eq!(v["components"], 5, "{app}: {{0,1,2}}, {{3,4}}, 5, 6, 7");
        let parent = read_parents(&out);
        assert_eq!(parent.len(), 8);
        for isolated in [5, 6, 7] {
            assert_eq!(parent[isolated], isolated as u32, "{app}: an isolated vertex is its own root");
        }
    }
}

#[test]
fn bad_strategies_are_one_line_errors() {
    for batch in ["0", "fast", "rayon:0"] {
        let out =
            ordo().args(["run", "span-dfs", "--gen", "torus:w=5,h=5", "--batch", batch]).output().unwrap();
        assert!(!out.status.success(), "--batch {batch} must fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("--batch") && stderr.contains(batch), "{stderr}");
    }
    let out = ordo().args(["run", "span-dfs", "--gen", "torus:w=5,h=5", "--sched", "pmod"]).output().unwrap();
    assert!(!out.status.success(), "--sched does not apply to span-dfs");
}
