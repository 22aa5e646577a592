//! `ordo run astar` end to end: the JSON fields, the `--out` path file
//! checked edge by edge against the generated graph and its length against
//! Dijkstra, the default and given targets, graphs without coordinates, and
//! argument errors.

use assert_cmd::Command;
use ordo_graph::gen::GenSpec;
use ordo_graph::Graph;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo run astar ARGS --json` successfully and parses its JSON object.
fn run_json(args: &[&str]) -> Value {
    let out = ordo().args(["run", "astar"]).args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo run astar {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.matches("\"target\":").count(), 1, "one `target` key: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

/// Exact distance from `s` to `t` by a textbook Dijkstra written here
/// (independent of the library's references).
fn distance(g: &Graph, s: u32, t: u32) -> Option<u64> {
    use std::cmp::Reverse;
    let mut dist = vec![u64::MAX; g.num_vertices()];
    let mut heap = std::collections::BinaryHeap::from([Reverse((0u64, s))]);
    dist[s as usize] = 0;
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for (v, w) in g.weighted_neighbors(u) {
            if d + (w as u64) < dist[v as usize] {
                dist[v as usize] = d + w as u64;
                heap.push(Reverse((d + w as u64, v)));
            }
        }
    }
    Some(dist[t as usize]).filter(|&d| d != u64::MAX)
}

/// Parses an `--out` file: the path's vertices and the final `length` line.
fn read_out(text: &str) -> (Vec<u32>, String) {
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().expect("an --out file has a length line");
    let length = last.strip_prefix("length ").unwrap_or_else(|| panic!("last line `{last}`")).to_string();
    (lines.iter().map(|l| l.parse().unwrap()).collect(), length)
}

#[test]
fn road_graph_json_fields_and_path_file() {
    let spec = "road:n=2000";
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("path.txt");
    let v = run_json(&["--gen", spec, "--verify", "--out", out.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(v["app"], "astar");
    assert_eq!(v["verified"], true);
    for key in ["target", "distance", "path_edges", "heuristic", "heuristic_scale", "work_increase", "tasks"]
    {
        assert!(v.get(key).is_some(), "missing `{key}` in {v}");
    }
    assert!(v["heuristic"].as_str().unwrap().starts_with("euclidean"), "{v}");
    assert!(v["heuristic_scale"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(v["target_choice"], "farthest BFS level from the source");
    let target = v["target"].as_u64().unwrap() as u32;
    assert_ne!(target, 0, "the default target is a far vertex, not the source");
    let dist = v["distance"].as_u64().unwrap();

    let graph = spec.parse::<GenSpec>().unwrap().generate().unwrap();
    assert_eq!(Some(dist), distance(&graph, 0, target));
    let (path, length) = read_out(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(length, dist.to_string());
    assert_eq!(path.len() as u64, v["path_edges"].as_u64().unwrap() + 1);
    assert_eq!((path[0], *path.last().unwrap()), (0, target));
    let mut sum = 0u64;
    for pair in path.windows(2) {
        let w = graph.weighted_neighbors(pair[0]).filter(|&(t, _)| t == pair[1]).map(|(_, w)| w).min();
        sum += w.unwrap_or_else(|| panic!("no edge {} -> {}", pair[0], pair[1])) as u64;
    }
    assert_eq!(sum, dist);
}

#[test]
fn given_target_and_graph_without_coordinates() {
    // Kron has no coordinates: the zero heuristic, said so in the report.
    let v = run_json(&[
        "--gen",
        "kron:scale=10",
        "--source",
        "1",
        "--target",
        "5",
        "--verify",
        "--sched",
        "obim",
    ]);
    assert_eq!(v["target"], 5);
    assert_eq!(v["target_choice"], "given");
    assert!(v["heuristic"].as_str().unwrap().starts_with("zero (no coordinates"), "{v}");
    assert_eq!(v["heuristic_scale"], 0.0);
    assert_eq!(v["verified"], true);
    let graph = "kron:scale=10".parse::<GenSpec>().unwrap().generate().unwrap();
    match distance(&graph, 1, 5) {
        Some(d) => assert_eq!(v["distance"], d),
        None => assert_eq!(v["distance"], "unreachable"),
    }
}

#[test]
fn bad_target_is_one_clear_error() {
    let out = ordo().args(["run", "astar", "--gen", "grid:w=5,h=5", "--target", "25"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("target 25") && stderr.contains("25 vertices"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

#[test]
fn classify_splits_every_task() {
    let v = run_json(&["--gen", "road:n=3000", "--classify", "--sched", "obim", "--threads", "2"]);
    let split = &v["work_split"];
    let (good, useless) = (split["good_tasks"].as_u64().unwrap(), split["useless_tasks"].as_u64().unwrap());
    assert_eq!(good + useless, v["tasks"].as_u64().unwrap(), "{v}");
    // At least the path's vertices but the target (never run) did good work.
    assert!(good >= v["path_edges"].as_u64().unwrap(), "{v}");
    assert!(good <= v["tasks"].as_u64().unwrap() - v["stale_tasks"].as_u64().unwrap(), "{v}");
}
