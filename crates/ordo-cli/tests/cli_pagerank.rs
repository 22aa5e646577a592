//! `ordo run pr|pr-d` end to end: `--verify --json --out`, checked against
//! ranks computed here by power iteration on the same generated graph; `pr`
//! by default (the pull kernel) and on schedulers (the residual operator).

use assert_cmd::Command;
use ordo_graph::gen::GenSpec;
use serde_json::Value;

/// R-MAT: directed, with dangling vertices, self loops and parallel edges.
const INPUT: &str = "rmat:scale=9,ef=8,seed=2";

fn run_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("ordo").unwrap().arg("run").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "ordo run {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("JSON lacks numeric `{key}`: {v}"))
}

#[test]
fn pr_and_pr_d_verify_and_write_exact_ranks() {
    let graph = INPUT.parse::<GenSpec>().unwrap().generate().unwrap();
    let transpose = ordo_graph::transform::transpose(&graph);
    let exact = ordo_algos::pagerank::power_iteration(&graph, &transpose, 0.85).unwrap();
    let n = graph.num_vertices();
    let dir = tempfile::tempdir().unwrap();
    for (app, amp, sched) in [("pr", 1.0, "obim"), ("pr-d", 1000.0, "pmod"), ("pr-d", 1000.0, "smq")] {
        let out = dir.path().join(format!("{app}-{sched}.txt"));
        let v = run_json(&[
            app,
            "--gen",
            INPUT,
            "--sched",
            sched,
            "--threads",
            "2",
            "--verify",
            "--out",
            out.to_str().unwrap(),
        ]);
        let what = format!("{app} on {sched}");
        assert_eq!(v["app"], app, "{what}");
        assert_eq!(v["verified"], true, "{what}");
        assert_eq!(num(&v, "amp"), amp, "{what}");
        assert!((num(&v, "alpha") - 0.85).abs() < 1e-12, "{what}");
        assert!((num(&v, "tolerance") - 0.01).abs() < 1e-12, "{what}");
        assert!(num(&v, "tasks") > 0.0 && num(&v, "work_increase") > 0.0, "{what}: {v}");
        let bound = num(&v, "error_bound");
        assert!((num(&v, "residual_left") / 0.15 - bound).abs() <= 1e-9 * bound.max(1.0), "{what}");
        assert!(bound <= n as f64 * 0.01 / 0.15, "{what}: bound above n·ε/(1-α)");
        let l1 = num(&v, "l1_vs_reference");
        assert!(l1 <= bound + 1e-6, "{what}: L1 {l1} above the bound {bound}");

        // The file: one `vertex rank` line per vertex, exact f64s.
        let text = std::fs::read_to_string(&out).unwrap();
        let ranks: Vec<f64> = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let (vertex, rank) = line.split_once(' ').unwrap_or_else(|| panic!("{what}: line {line:?}"));
                assert_eq!(vertex.parse::<usize>().unwrap(), i, "{what}");
                rank.parse::<f64>().unwrap()
            })
            .collect();
        assert_eq!(ranks.len(), n, "{what}");
        assert!(ranks.iter().all(|&x| x >= 0.15 - 1e-12), "{what}: a rank below 1 - α");
        let sum: f64 = ranks.iter().sum();
        assert!((sum - num(&v, "rank_sum")).abs() <= 1e-9 * sum, "{what}: file sum {sum} vs rank_sum");
        let max = ranks.iter().copied().fold(0.0, f64::max);
        // serde_json's default float parser may be one ulp off; the file is exact.
        assert!((max - num(&v, "max_rank")).abs() <= 1e-14 * max, "{what}: file max {max}");
        let file_l1 = ordo_algos::pagerank::l1_distance(&ranks, &exact.ranks);
        assert!((file_l1 - l1).abs() <= 1e-6 * l1.max(1.0), "{what}: file L1 {file_l1} vs reported {l1}");
        assert!(file_l1 <= bound + exact.error_bound + 1e-6, "{what}: file L1 {file_l1} above {bound}");
    }
}

#[test]
fn pr_without_verify_reports_the_bound_but_no_l1() {
    let v = run_json(&["pr", "--gen", "grid:w=20,h=20,seed=1", "--sched", "strict", "--threads", "1"]);
    assert_eq!(v["verified"], false);
    assert!(v.get("l1_vs_reference").is_none(), "{v}");
    assert!(num(&v, "error_bound") >= 0.0);
    // A grid graph has no dangling vertex; ranks sum to about n.
    let sum = num(&v, "rank_sum");
    assert!((sum - 400.0).abs() <= num(&v, "error_bound") + 1e-6, "rank_sum {sum}");
}

#[test]
fn alpha_and_tolerance_flags_reach_the_run_and_bad_values_are_errors() {
    // A larger tolerance runs fewer tasks and loosens the stated bound.
    let tight = run_json(&["pr", "--gen", INPUT, "--sched", "strict", "--threads", "1", "--verify"]);
    let loose = run_json(&[
        "pr",
        "--gen",
        INPUT,
        "--sched",
        "strict",
        "--threads",
        "1",
        "--verify",
        "--tolerance",
        "0.2",
        "--alpha",
        "0.5",
    ]);
    assert_eq!(num(&tight, "tolerance"), 0.01);
    assert_eq!(num(&loose, "tolerance"), 0.2);
    assert_eq!(num(&loose, "alpha"), 0.5);
    assert!(num(&loose, "tasks") < num(&tight, "tasks"), "tight {tight}\nloose {loose}");
    for bad in ["--tolerance=-1", "--alpha=1.5"] {
        let out = Command::cargo_bin("ordo")
            .unwrap()
            .args(["run", "pr", "--gen", INPUT])
            .arg(bad)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} accepted");
        assert_eq!(err.trim().lines().count(), 1, "one-line error: {err}");
    }
}

#[test]
fn pr_by_default_runs_the_pull_kernel_to_gapbs_tolerance() {
    let graph = INPUT.parse::<GenSpec>().unwrap().generate().unwrap();
    let transpose = ordo_graph::transform::transpose(&graph);
    let exact = ordo_algos::pagerank::power_iteration(&graph, &transpose, 0.85).unwrap();
    let n = graph.num_vertices() as f64;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pr.txt");
    let v = run_json(&["pr", "--gen", INPUT, "--threads", "2", "--verify", "--out", out.to_str().unwrap()]);
    assert_eq!(v["scheduler"], "default", "{v}");
    assert_eq!(v["kernel"], "pull", "{v}");
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(num(&v, "tolerance"), 1e-4);
    assert_eq!(num(&v, "max_iterations"), 20.0);
    let iterations = num(&v, "iterations");
    assert!((1.0..=20.0).contains(&iterations), "{v}");
    assert!(num(&v, "last_change") < 1e-4 || iterations == 20.0, "{v}");
    let bound = num(&v, "error_bound");
    assert!((bound - 0.85 / 0.15 * n * num(&v, "last_change")).abs() <= 1e-9 * bound.max(1.0), "{v}");
    let ranks: Vec<f64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.split_once(' ').unwrap().1.parse().unwrap())
        .collect();
    let l1 = ordo_algos::pagerank::l1_distance(&ranks, &exact.ranks);
    assert!(l1 <= bound + exact.error_bound + 1e-6, "file L1 {l1} above the bound {bound}");
    assert!((l1 - num(&v, "l1_vs_reference")).abs() <= 1e-6 * l1.max(1.0));
    // Exactly 20 iterations, as GAPBS's `-t 0 -i 20`.
    let v = run_json(&[
        "pr",
        "--gen",
        INPUT,
        "--threads",
        "2",
        "--tolerance",
        "0",
        "--iterations",
        "20",
        "--verify",
    ]);
    assert_eq!(num(&v, "iterations"), 20.0, "{v}");
    assert_eq!(v["verified"], true, "{v}");
}
