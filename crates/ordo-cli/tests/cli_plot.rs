//! `ordo plot` end to end on synthetic `runs.jsonl` fixtures: every plot kind
//! is written in both formats and indexed, Table 5 matches a hand-computed
//! geometric mean, failed runs are skipped with a warning, and a missing or
//! empty directory is a one-line error naming it.

#![cfg(feature = "plot")]

use std::fmt::Write as _;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// A run line with the fields `ordo bench` writes (plus an unknown key the
/// reader must ignore).
#[allow(clippy::too_many_arguments)]
fn run_line(
    experiment: &str,
    app: &str,
    input: &str,
    spec: &str,
    sweep: Value,
    threads: u64,
    rep: u64,
    time_s: f64,
) -> Value {
    json!({
        "experiment": experiment, "input": input, "app": app, "spec": spec,
        "scheduler": format!("{spec}:full"), "sweep": sweep, "threads": threads, "rep": rep,
        "time_s": time_s, "tasks": 1000, "work_increase": null, "vs_seq": null,
        "seq_time_s": 1.0, "verified": true, "traces": {}, "machine": {"cores": 2}
    })
}

fn write_jsonl(dir: &Path, lines: &[Value]) {
    let mut s = String::new();
    for l in lines {
        writeln!(s, "{l}").unwrap();
    }
    std::fs::write(dir.join("runs.jsonl"), s).unwrap();
}

/// Runs covering every plot kind, on two inputs.
fn full_fixture() -> Vec<Value> {
    let mut lines = Vec::new();
    let inputs = ["gen:road:n=1000", "/data/graphs/x.gr"];
    for (k, input) in inputs.iter().enumerate() {
        for (s, spec) in ["obim", "pmod", "smq:p_steal=1/8,steal=4", "auto"].iter().enumerate() {
            for threads in [1u64, 2] {
                for rep in 0..3u64 {
                    let time = (1.0 + s as f64 + k as f64) / threads as f64 * (1.0 + 0.01 * rep as f64);
                    let mut l = run_line("main", "sssp", input, spec, json!({}), threads, rep, time);
                    l["vs_seq"] = json!(0.8 * threads as f64);
                    l["work_increase"] = json!(1.0 + 0.1 * s as f64 + 0.05 * threads as f64);
                    l["breakdown"] = json!({
                        "cycles_task": 500, "cycles_good": null, "cycles_useless": null,
                        "cycles_enq": 100 + 50 * s, "cycles_deq": 200, "cycles_failed_deq": 30,
                        "cycles_other": 70, "cycles_total": 900 + 50 * s,
                        "cycles_per_enq": 12.5, "cycles_per_deq": 20.0
                    });
                    if *spec == "pmod" {
                        l["traces"] =
                            json!({"lmf": {"x_label": "dequeues", "points": [[0, 0], [60, 1], [900, 2]]}});
                    }
                    if *spec == "auto" {
                        l["traces"] = json!({"shift": {"x_label": "dequeues", "points": [[0, 0], [64, 4], [700, 3]]},
                                   "round_level": {"x_label": "microseconds", "points": [[3, 0], [90, 16], [400, 40]]},
                                   "round_tasks": {"x_label": "microseconds", "points": [[3, 0], [90, 2400], [400, 300]]}});
                    }
                    lines.push(l);
                }
            }
        }
    }
    // obim delta sweep (Fig. 8).
    for delta in [0u64, 2, 4, 6] {
        for threads in [1u64, 2] {
            let time = (1.0 + (delta as f64 - 3.0).abs()) / threads as f64;
            let spec = format!("obim:delta={delta}");
            lines.push(run_line(
                "delta",
                "sssp",
                inputs[0],
                &spec,
                json!({ "delta": delta }),
                threads,
                0,
                time,
            ));
        }
    }
    // SMQ p_steal x steal size sweep (SMQ Fig. 1).
    for p in ["1/16", "1/8", "1/2"] {
        for steal in [1u64, 4, 16] {
            let time = 0.5 + steal as f64 * 0.01 + p.len() as f64 * 0.1;
            let spec = format!("smq:p_steal={p},steal={steal}");
            lines.push(run_line(
                "smq-grid",
                "sssp",
                inputs[0],
                &spec,
                json!({ "p_steal": p, "steal": steal }),
                2,
                0,
                time,
            ));
        }
    }
    // Failed runs: skipped and counted.
    let mut failed = run_line("main", "sssp", inputs[0], "obim", json!({}), 2, 9, 0.001);
    failed["verified"] = json!(false);
    lines.push(failed);
    let mut errored = run_line("main", "sssp", inputs[0], "obim", json!({}), 2, 10, 0.001);
    errored["error"] = json!("verification failed");
    lines.push(errored);
    lines
}

fn check_png(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.len() > 1000, "{}: only {} bytes", path.display(), bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}: not a PNG", path.display());
}

fn check_svg(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text.trim_start();
    let body = if body.starts_with("<?xml") { &body[body.find("?>").unwrap() + 2..] } else { body };
    assert!(body.trim_start().starts_with("<svg"), "{}: does not start with <svg", path.display());
    assert!(text.trim_end().ends_with("</svg>"), "{}: not closed", path.display());
    assert!(text.contains("<text"), "{}: no text drawn", path.display());
}

#[test]
fn every_plot_kind_in_both_formats_with_index() {
    let dir = tempfile::tempdir().unwrap();
    write_jsonl(dir.path(), &full_fixture());
    let out = ordo().arg("plot").arg(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo plot failed: {stderr}");
    assert!(stderr.contains("skipped 2 failed runs"), "warning about failed runs: {stderr}");
    let plots = dir.path().join("plots");
    let expected = [
        "speedup-sssp-gen-road-n-1000",
        "speedup-sssp-x.gr",
        "breakdown-sssp-gen-road-n-1000",
        "breakdown-sssp-x.gr",
        "work-sssp-gen-road-n-1000",
        "work-sssp-x.gr",
        "delta-delta-sssp-gen-road-n-1000-obim",
        "heatmap-smq-grid-sssp-gen-road-n-1000-smq-t2",
        "lmf",
        "shift",
        "round-level-sssp-gen-road-n-1000",
        "round-tasks-sssp-gen-road-n-1000",
        "round-level-sssp-x.gr",
        "round-tasks-sssp-x.gr",
        "table5",
    ];
    let index = std::fs::read_to_string(plots.join("index.md")).unwrap();
    for stem in expected {
        check_png(&plots.join(format!("{stem}.png")));
        check_svg(&plots.join(format!("{stem}.svg")));
        assert!(index.contains(&format!("({stem}.png)")), "index.md lacks {stem}: {index}");
        assert!(index.contains(&format!("({stem}.svg)")), "index.md lacks {stem}.svg");
    }
    // Nothing unexpected: the delta sweep has one variable (no heatmap), and
    // sweeps stay out of the comparison plots.
    let mut images: Vec<String> = std::fs::read_dir(&plots)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".png"))
        .collect();
    images.sort();
    assert_eq!(images.len(), expected.len(), "{images:?}");
    assert!(index.contains("(table5.md)"));
    // The comparison runs' medians at 2 threads: input 0 obim 0.505, pmod
    // 1.01, smq 1.515 (and 1-thread runs ignored): obim is best everywhere.
    let table = std::fs::read_to_string(plots.join("table5.md")).unwrap();
    assert!(table.contains("| `obim` | 1.000000000 |"), "{table}");
}

#[test]
fn formats_and_out_dir_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("elsewhere");
    write_jsonl(dir.path(), &full_fixture());
    ordo()
        .arg("plot")
        .arg(dir.path())
        .arg("--out")
        .arg(&out_dir)
        .args(["--format", "svg"])
        .assert()
        .success();
    check_svg(&out_dir.join("lmf.svg"));
    assert!(!out_dir.join("lmf.png").exists());
    assert!(!dir.path().join("plots").exists());
    let index = std::fs::read_to_string(out_dir.join("index.md")).unwrap();
    assert!(!index.contains(".png"), "{index}");
}

/// Table 5 by hand: at 4 threads, input I1: A median 1.0 (of 0.9, 1.0, 5.0),
/// B 2.0 -> A 1, B 1/2; input I2: A 3.0, B 2.0 -> A 2/3, B 1. Geometric means:
/// A sqrt(2/3), B sqrt(1/2). The 1-thread runs (faster than anything, and
/// only for A) must not change the scores.
#[test]
fn table5_geometric_mean_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for (input, a_times, b_time) in [("I1", [0.9, 1.0, 5.0], 2.0), ("I2", [3.0, 3.0, 3.0], 2.0)] {
        for (rep, t) in a_times.iter().enumerate() {
            lines.push(run_line("e", "bfs", input, "A", json!({}), 4, rep as u64, *t));
        }
        lines.push(run_line("e", "bfs", input, "B", json!({}), 4, 0, b_time));
        lines.push(run_line("e", "bfs", input, "A", json!({}), 1, 0, 0.01));
    }
    write_jsonl(dir.path(), &lines);
    ordo().arg("plot").arg(dir.path()).assert().success();
    let table = std::fs::read_to_string(dir.path().join("plots/table5.md")).unwrap();
    let score = |spec: &str| -> f64 {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| `{spec}` |")))
            .unwrap_or_else(|| panic!("no row for {spec}: {table}"));
        row.split('|').nth(2).unwrap().trim().parse().unwrap()
    };
    assert!((score("A") - (2.0f64 / 3.0).sqrt()).abs() < 1e-9, "{table}");
    assert!((score("B") - 0.5f64.sqrt()).abs() < 1e-9, "{table}");
    // A first (higher score); A's speedup is over itself on 1 thread:
    // geomean(0.01/1.0, 0.01/3.0).
    let a_row = table.lines().position(|l| l.starts_with("| `A` |")).unwrap();
    let b_row = table.lines().position(|l| l.starts_with("| `B` |")).unwrap();
    assert!(a_row < b_row);
    let speedup: f64 = table.lines().nth(a_row).unwrap().split('|').nth(4).unwrap().trim().parse().unwrap();
    assert!((speedup - (0.01f64 / 1.0 * 0.01 / 3.0).sqrt()).abs() < 1e-3, "{table}");
    // A ran on 1 and 4 threads: a speedup plot; no cycles and no work
    // increase: no breakdown or work plot.
    let plots = dir.path().join("plots");
    assert!(plots.join("table5.png").exists());
    assert!(plots.join("speedup-bfs-I1.png").exists());
    assert!(!plots.join("breakdown-bfs-I1.png").exists());
    assert!(!plots.join("work-bfs-I1.png").exists());
}

fn one_line_error(args: &[&std::ffi::OsStr], must_name: &str) {
    let out = ordo().arg("plot").args(args).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(must_name), "error names {must_name}: {stderr}");
}

#[test]
fn missing_empty_or_failed_only_dir_is_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-results");
    one_line_error(&[missing.as_os_str()], "no-such-results");
    // A directory without runs.jsonl.
    one_line_error(&[dir.path().as_os_str()], &dir.path().display().to_string());
    // An empty runs.jsonl.
    std::fs::write(dir.path().join("runs.jsonl"), "").unwrap();
    one_line_error(&[dir.path().as_os_str()], "runs.jsonl: no usable runs");
    // A malformed line in the middle names its line number.
    let good = run_line("e", "sssp", "I", "A", json!({}), 1, 0, 1.0).to_string();
    std::fs::write(dir.path().join("runs.jsonl"), format!("{good}\n{{oops\n{good}\n")).unwrap();
    one_line_error(&[dir.path().as_os_str()], "runs.jsonl:2");
    // A required field missing names it.
    std::fs::write(dir.path().join("runs.jsonl"), "{\"app\": \"sssp\"}\n").unwrap();
    one_line_error(&[dir.path().as_os_str()], "runs.jsonl:1: missing field");
}

#[test]
fn truncated_last_line_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let good = run_line("e", "sssp", "I", "A", json!({}), 1, 0, 1.0).to_string();
    std::fs::write(dir.path().join("runs.jsonl"), format!("{good}\n{}", &good[..20])).unwrap();
    let out = ordo().arg("plot").arg(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut short"));
    assert!(dir.path().join("plots/table5.md").exists());
}
