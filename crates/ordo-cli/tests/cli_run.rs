//! `ordo run` end to end: JSON output, `--out` files, verification, errors.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo run ARGS --json` successfully and parses its one JSON object.
fn run_json(args: &[&str]) -> Value {
    let out = ordo().arg("run").args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo run {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints exactly one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

fn rome99(test: &str) -> Option<PathBuf> {
    ordo_graph::datasets::find("road/rome99.gr", test)
}

const SMALL: &str = "grid:w=40,h=30,seed=3";

#[test]
fn sssp_verify_json_has_every_measure() {
    let v = run_json(&["sssp", "--gen", SMALL, "--sched", "strict", "--threads", "2", "--verify"]);
    for key in [
        "app",
        "graph",
        "n",
        "m",
        "scheduler",
        "threads",
        "source",
        "time_s",
        "tasks",
        "work_increase",
        "empty_pops",
        "stale_tasks",
        "pushes",
        "pops",
        "sched_counters",
        "traces",
        "seq_time_s",
        "vs_seq",
        "verified",
        "reached",
        "max_dist",
        "sum_dist",
    ] {
        assert!(v.get(key).is_some(), "JSON lacks `{key}`: {v}");
    }
    assert_eq!(v["app"], "sssp");
    assert_eq!(v["n"], 1200);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["verified"], true);
    assert_eq!(v["reached"], 1200, "a grid is connected");
    assert!(v["tasks"].as_u64().unwrap() >= 1200);
    assert!(v["work_increase"].as_f64().unwrap() >= 1.0);
    assert!(v["seq_time_s"].as_f64().unwrap() >= 0.0);
    assert!(v["scheduler"].as_str().unwrap().starts_with("strict"));
}

#[test]
fn every_scheduler_runs_sssp_and_bfs_verified() {
    let names = ordo_sched::SchedulerSpec::names();
    for name in names {
        for app in ["sssp", "bfs"] {
            let v = run_json(&[app, "--gen", SMALL, "--sched", name, "--threads", "2", "--verify"]);
            assert_eq!(v["verified"], true, "{app} on {name}");
            assert_eq!(v["reached"], 1200);
        }
    }
    // BFS on a 40 x 30 grid from the corner: the farthest level is 39 + 29.
    let v = run_json(&["bfs", "--gen", SMALL, "--sched", "strict", "--threads", "1"]);
    assert_eq!(v["max_dist"], 68);
    assert_eq!(v["verified"], false);
    assert!(v["seq_time_s"].is_null());
}

#[test]
fn out_file_has_one_line_per_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dist.txt");
    let v = run_json(&[
        "sssp",
        "--gen",
        SMALL,
        "--sched",
        "strict",
        "--threads",
        "1",
        "--source",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    let dist = distances_in(&out);
    assert_eq!(dist.len(), 1200);
    assert_eq!(dist[7], 0);
    assert_eq!(v["sum_dist"].as_u64().unwrap() as u128, dist.iter().sum::<u128>());
}

/// The distances of an `--out` file of finite distances, checking that line
/// `i` is vertex `i`'s.
fn distances_in(path: &std::path::Path) -> Vec<u128> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let (id, value) = line.split_once(' ').unwrap();
            assert_eq!(id.parse::<usize>().unwrap(), i, "{line}");
            value.parse::<u128>().unwrap()
        })
        .collect()
}

#[test]
fn repeated_runs_are_each_verified_and_the_median_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dist.txt");
    let v = run_json(&[
        "sssp",
        "--gen",
        SMALL,
        "--sched",
        "auto",
        "--threads",
        "2",
        "--repeat",
        "3",
        "--verify",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["verified"], true);
    assert_eq!(v["times_s"].as_array().unwrap().len(), 3);
    assert_eq!(v["seq_times_s"].as_array().unwrap().len(), 3);
    let dist = distances_in(&out);
    assert_eq!(dist.len(), 1200);
    assert_eq!(v["sum_dist"].as_u64().unwrap() as u128, dist.iter().sum::<u128>());
    // A measure that needs the reference comes with repeated runs too.
    let v =
        run_json(&["pr", "--gen", SMALL, "--sched", "auto", "--threads", "2", "--repeat", "3", "--verify"]);
    assert_eq!(v["verified"], true);
    assert!(v["l1_vs_reference"].as_f64().unwrap() >= 0.0, "{v}");
}

#[test]
fn out_file_marks_unreachable_vertices_inf() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("two.gr");
    // Vertices 1 -> 2 (weight 5); vertex 3 unreachable.
    std::fs::write(&graph, "p sp 3 1\na 1 2 5\n").unwrap();
    let out = dir.path().join("d.txt");
    ordo()
        .args(["run", "sssp", "--sched", "strict", "--threads", "1", "--verify", "--graph"])
        .arg(&graph)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "0 0\n1 5\n2 inf\n");
}

#[test]
fn rome99_from_file_matches_published_checksums() {
    let Some(rome) = rome99("rome99_from_file_matches_published_checksums") else { return };
    let v = run_json(&[
        "sssp",
        "--graph",
        rome.to_str().unwrap(),
        "--sched",
        "strict",
        "--threads",
        "2",
        "--verify",
    ]);
    // data/README.md: from vertex 1 (1-based) sum 116,006,476, max 69,102.
    assert_eq!(v["n"], 3353);
    assert_eq!(v["m"], 8870);
    assert_eq!(v["reached"], 3353);
    assert_eq!(v["sum_dist"], 116_006_476u64);
    assert_eq!(v["max_dist"], 69_102);
}

#[test]
fn bad_scheduler_is_one_line_listing_schedulers() {
    let out = ordo().args(["run", "sssp", "--gen", SMALL, "--sched", "nonesuch"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("nonesuch"), "{stderr}");
    for name in ordo_sched::SchedulerSpec::names() {
        assert!(stderr.contains(name), "the error lists `{name}`: {stderr}");
    }
}

#[test]
fn bad_source_is_one_line_error() {
    let out = ordo()
        .args(["run", "bfs", "--gen", SMALL, "--sched", "strict", "--source", "5000"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("5000") && stderr.contains("1200"), "{stderr}");
}

/// The text report shows what a user asks of a run; the executor's and the
/// scheduler's internals only with `--verbose`.
#[test]
fn text_report_names_the_measures() {
    let text_of = |verbose: bool| {
        let mut cmd = ordo();
        cmd.args(["run", "sssp", "--gen", SMALL, "--sched", "auto", "--verify", "--threads", "2"]);
        if verbose {
            cmd.arg("--verbose");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let short = text_of(false);
    for word in ["time", "tasks", "work increase", "reached", "sum_dist", "seq time", "vs seq", "verified"] {
        assert!(short.contains(word), "text report lacks `{word}`:\n{short}");
    }
    for word in ["empty pops", "stale tasks", "tasks/thread", "\n  rounds", "trace"] {
        assert!(!short.contains(word), "the short report shows `{word}`:\n{short}");
    }
    let verbose = text_of(true);
    for word in
        ["time", "verified", "empty pops", "stale tasks", "pushes", "tasks/thread", "  rounds", "trace"]
    {
        assert!(verbose.contains(word), "the --verbose report lacks `{word}`:\n{verbose}");
    }
}

/// A flag that the chosen application does not take is an error naming the
/// applications that take it, never silently ignored; nothing is loaded.
#[test]
fn flags_that_do_not_apply_are_one_line_errors() {
    for (args, want) in [
        (&["sssp", "--alpha", "0.9"][..], "--alpha does not apply to sssp (it applies to pr, pr-d, pr-pull)"),
        (&["bfs", "--target", "3"][..], "--target does not apply to bfs (it applies to astar)"),
        (&["pr", "--classify"][..], "--classify does not apply to pr (it applies to sssp, bfs, astar)"),
        (&["mst", "--source", "1"][..], "--source does not apply to mst (it applies to sssp, bfs, astar)"),
    ] {
        // A graph file that does not exist: the flag check comes first.
        let out = ordo().arg("run").args(args).args(["--graph", "/nonexistent.gr"]).output().unwrap();
        assert!(!out.status.success(), "{args:?} must fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim(), format!("error: {want}"), "{args:?}");
    }
}

/// `--help` lists every application with its description and each flag
/// with the applications it applies to.
#[test]
fn help_lists_applications_and_where_flags_apply() {
    let out = ordo().args(["run", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for app in ordo_algos::app::APPS {
        assert!(help.contains(app.name), "help lacks {}: {help}", app.name);
    }
    assert!(help.contains("--alpha <ALPHA>") && help.contains("[pr, pr-d, pr-pull]"), "{help}");
    assert!(help.contains("--loop <LOOP>") && help.contains("[pr-pull, tc, bc, loop-micro]"), "{help}");
    assert!(help.contains("--sched <SPEC>"), "{help}");
}

#[test]
fn json_and_text_reports_give_the_peak_resident_memory() {
    let v = run_json(&["bfs", "--gen", SMALL, "--threads", "1"]);
    let peak = v["peak_rss_bytes"].as_u64().unwrap_or_else(|| panic!("no peak_rss_bytes: {v}"));
    // The process holds at least its own code and the grid's CSR.
    assert!(peak > 1 << 20, "{peak} bytes");
    let out = ordo().args(["run", "bfs", "--gen", SMALL, "--threads", "1"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("peak memory")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with("resident (whole process)"), "{line}");
}

#[test]
fn weighted_applications_get_weights_and_unweighted_ones_none() {
    // On the 40 x 30 grid with weights in 1..=10000 the farthest vertex is
    // much farther than its 68 hops; with the weights dropped SSSP would
    // report the hop count.
    let sssp = run_json(&["sssp", "--gen", SMALL, "--threads", "1", "--verify"]);
    assert!(sssp["max_dist"].as_u64().unwrap() > 10 * 68, "{sssp}");
    let unit = run_json(&["sssp", "--gen", SMALL, "--threads", "1", "--weights", "unit"]);
    assert_eq!(unit["max_dist"], 68);
    // BFS loads the grid without weights: a weight rule is not applied,
    // and says so, and the levels are those of the weighted grid.
    let out = ordo()
        .args([
            "run",
            "bfs",
            "--gen",
            SMALL,
            "--threads",
            "1",
            "--weights",
            "uniform:1..9",
            "--json",
            "--verify",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bfs reads no edge weights: --weights uniform:1..9:seed=1 is not applied"),
        "{stderr}"
    );
    let bfs: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(bfs["max_dist"], 68);
    assert_eq!(bfs["verified"], true);
    assert_eq!(bfs["m"], sssp["m"], "the same edges");
    // Weights are dropped from a file's weight column too.
    let Some(rome) = rome99("weighted_applications_get_weights_and_unweighted_ones_none") else { return };
    let rome = rome.to_str().unwrap();
    let sssp = run_json(&["sssp", "--graph", rome, "--threads", "1", "--source", "0"]);
    let bfs = run_json(&["bfs", "--graph", rome, "--threads", "1", "--source", "0", "--verify"]);
    assert_eq!(sssp["sum_dist"], 116_006_476u64, "the file's weights reach sssp");
    assert_eq!(bfs["reached"], sssp["reached"]);
    assert!(bfs["max_dist"].as_u64().unwrap() < 1000, "levels, not metres: {bfs}");
}

/// A Matrix Market file of type `real` runs SSSP with real distances:
/// verified, the report's checksums reals, `--out` reals and `inf`; an
/// application that takes only integer weights refuses it in one line, and a
/// negative weight is one error naming the file and line.
#[test]
fn sssp_on_real_weights_from_matrix_market() {
    let dir = tempfile::tempdir().unwrap();
    let mtx = dir.path().join("f.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real general\n4 4 4\n1 2 0.5\n2 3 0.25\n1 3 1.0\n3 1 2e-1\n",
    )
    .unwrap();
    let out = dir.path().join("dist.txt");
    let mtx_s = mtx.to_str().unwrap();
    for sched in ["strict", "auto", "obim"] {
        let v = run_json(&[
            "sssp",
            "--graph",
            mtx_s,
            "--sched",
            sched,
            "--threads",
            "2",
            "--verify",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(v["verified"], true, "{sched}");
        assert_eq!(v["reached"], 3);
        assert_eq!(v["max_dist"], 0.75);
        assert_eq!(v["sum_dist"], 1.25);
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text, "0 0.0\n1 0.5\n2 0.75\n3 inf\n", "{sched}");
    }
    let e = ordo().args(["run", "mst", "--graph", mtx_s]).output().unwrap();
    assert!(!e.status.success());
    let stderr = String::from_utf8_lossy(&e.stderr);
    assert!(stderr.contains("mst does not take real edge weights"), "{stderr}");
    std::fs::write(&mtx, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0.5\n2 1 -0.5\n")
        .unwrap();
    let e = ordo().args(["run", "sssp", "--graph", mtx_s]).output().unwrap();
    assert!(!e.status.success());
    let stderr = String::from_utf8_lossy(&e.stderr);
    assert!(stderr.contains(&format!("{mtx_s}:4: weight -0.5 is negative")), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
