//! `ordo dist sssp` in one process (`--ranks R`): JSON report, `--out` in
//! the format of `ordo run sssp --out`, `--verify`, and the errors.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

fn dist_json(args: &[&str]) -> Value {
    let out = ordo().args(["dist", "sssp"]).args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo dist sssp {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints exactly one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

fn rome99() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/road/rome99.gr");
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found (../shared/data absent)", p.display());
        None
    }
}

#[test]
fn json_report_has_totals_per_rank_and_memory() {
    let v = dist_json(&["--gen", "kron:scale=10", "--variant", "af+fc", "--ranks", "3", "--verify"]);
    for key in [
        "app",
        "mode",
        "graph",
        "n",
        "m",
        "variant",
        "ranks",
        "threads",
        "source",
        "params",
        "time_s",
        "work_items",
        "stale_items",
        "edges_relaxed",
        "items_sent",
        "messages_sent",
        "bytes_sent",
        "progress_calls",
        "idle_s",
        "acked_sends",
        "whole_graph_bytes",
        "max_graph_bytes_per_rank",
        "per_rank",
        "reached",
        "max_dist",
        "sum_dist",
        "work_increase",
        "seq_time_s",
        "vs_seq",
        "verified",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["verified"], true);
    assert_eq!(v["mode"], "in-process");
    assert_eq!(v["ranks"], 3);
    let per_rank = v["per_rank"].as_array().unwrap();
    assert_eq!(per_rank.len(), 3);
    let n: u64 = per_rank.iter().map(|r| r["vertices"].as_u64().unwrap()).sum();
    assert_eq!(n, v["n"].as_u64().unwrap());
    // Each rank holds about a third of the graph, never all of it.
    let whole = v["whole_graph_bytes"].as_u64().unwrap();
    for r in per_rank {
        let part = r["graph_bytes"].as_u64().unwrap();
        assert!(part > 0 && part < whole / 2, "rank part {part} of {whole}");
    }
    let sent: u64 = per_rank.iter().map(|r| r["messages_sent"].as_u64().unwrap()).sum();
    assert_eq!(sent, v["messages_sent"].as_u64().unwrap());
    assert!(v["params"]["send_threshold"].is_string());
}

#[test]
fn out_file_equals_ordo_run_sssp_out() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("dist.txt"), dir.path().join("run.txt"));
    let spec = "grid:w=30,h=20,seed=4";
    for variant in ["np", "dc", "ff", "af", "fc", "af+fc", "delta"] {
        ordo()
            .args([
                "dist",
                "sssp",
                "--gen",
                spec,
                "--ranks",
                "4",
                "--source",
                "7",
                "--variant",
                variant,
                "--out",
            ])
            .arg(&a)
            .assert()
            .success();
        ordo()
            .args(["run", "sssp", "--gen", spec, "--source", "7", "--sched", "strict", "--out"])
            .arg(&b)
            .assert()
            .success();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap(), "{variant}");
    }
}

#[test]
fn unreachable_vertices_print_inf() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.txt");
    // rmat without symmetrization: many vertices unreachable from 0.
    ordo()
        .args(["dist", "sssp", "--gen", "rmat:scale=8,ef=2", "--ranks", "2", "--out"])
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 256);
    assert!(text.lines().any(|l| l.ends_with(" inf")), "{text}");
    assert!(text.starts_with("0 0\n"));
}

#[test]
fn real_road_file_as_ordo_every_variant_verified() {
    let Some(gr) = rome99() else { return };
    let dir = tempfile::tempdir().unwrap();
    let ordo_file = dir.path().join("rome99.ordo");
    ordo().arg("convert").arg(&gr).arg(&ordo_file).assert().success();
    for variant in ["np", "dc", "ff", "af", "fc", "af+fc", "delta"] {
        let v = dist_json(&[
            "--graph",
            ordo_file.to_str().unwrap(),
            "--ranks",
            "5",
            "--variant",
            variant,
            "--verify",
        ]);
        assert_eq!(v["verified"], true, "{variant}");
        assert_eq!(v["n"], 3353);
    }
}

#[test]
fn errors_are_one_line_and_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("g.gr");
    std::fs::write(&text, "p sp 2 1\na 1 2 5\n").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--graph".into(), text.display().to_string()], "reads .ordo files only"),
        (vec!["--gen".into(), "grid:w=3,h=3".into(), "--variant".into(), "xx".into()], "unknown variant"),
        (
            vec!["--gen".into(), "grid:w=3,h=3".into(), "--source".into(), "9".into()],
            "source 9: the graph has 9 vertices",
        ),
        (vec!["--gen".into(), "grid:w=3,h=3".into(), "--sched".into(), "nope".into()], "unknown scheduler"),
        (vec!["--gen".into(), "grid:w=3,h=3".into(), "--symmetrize".into()], "need the whole graph"),
        (vec![], "no input graph"),
    ];
    for (args, want) in cases {
        let out = ordo().args(["dist", "sssp", "--ranks", "2"]).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
        if want != "unknown variant" {
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        }
    }
}

#[test]
fn bad_file_part_on_one_rank_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("g.ordo");
    ordo().args(["gen", "road:n=3000", "-o"]).arg(&good).assert().success();
    let mut bytes = std::fs::read(&good).unwrap();
    // The last 4 bytes of the targets array belong to the last rank: find
    // them from the header (n, m at bytes 16 and 24).
    let n = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let m = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    let at = 64 + 8 * (n + 1) + 4 * (m - 1);
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    ordo_graph::binary::reseal(&mut bytes);
    let bad = dir.path().join("bad.ordo");
    std::fs::write(&bad, &bytes).unwrap();
    let out = ordo().args(["dist", "sssp", "--ranks", "3", "--graph"]).arg(&bad).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.ordo") && err.contains(&format!("byte {at}")) && err.contains("targets vertex"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}
