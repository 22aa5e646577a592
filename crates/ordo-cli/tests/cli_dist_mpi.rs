//! `ordo dist sssp` under `mpirun` at 2 and 4 ranks (feature `mpi`; needs
//! OpenMPI's `mpirun`): every variant gives Dijkstra's distances on a
//! Kronecker graph, a road-like graph and a real road file; a bad file part
//! on one rank, a rank that exits, and a rank that aborts all end the job
//! with a non-zero status and a message, never a hang.
//!
//! `cargo test -p ordo-cli --features mpi --test cli_dist_mpi`
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

const VARIANTS: [&str; 7] = ["np", "dc", "ff", "af", "fc", "af+fc", "delta"];

fn mpirun(ranks: usize) -> Command {
    let mut c = Command::new("mpirun");
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "--bind-to", "none", "-np", &ranks.to_string()])
        .arg(assert_cmd::cargo::cargo_bin("ordo"))
        .args(["dist", "sssp"])
        .timeout(Duration::from_secs(180));
    c
}

/// Runs every variant with `--verify --json` on `ranks` MPI ranks.
fn all_variants(ranks: usize, input: &[&str], n: u64) {
    for variant in VARIANTS {
        let out =
            mpirun(ranks).args(input).args(["--variant", variant, "--verify", "--json"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{variant} on {ranks} MPI ranks failed: {stderr}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.trim().lines().collect();
        assert_eq!(lines.len(), 1, "only rank 0 prints, one JSON line: {stdout}");
        let v: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(v["verified"], true, "{variant}");
        assert_eq!(v["mode"], "mpi");
        assert_eq!(v["ranks"], ranks as u64);
        assert_eq!(v["n"], n);
        assert_eq!(v["per_rank"].as_array().unwrap().len(), ranks);
    }
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
fn kronecker_at_2_and_4_ranks() {
    for ranks in [2, 4] {
        all_variants(ranks, &["--gen", "kron:scale=11,ef=8"], 2048);
    }
}

#[test]
fn road_like_at_2_and_4_ranks() {
    for ranks in [2, 4] {
        all_variants(ranks, &["--gen", "road:n=20000"], 20000);
    }
}

#[test]
fn real_road_file_at_2_and_4_ranks() {
    let Some(gr) = rome99() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rome99.ordo");
    Command::cargo_bin("ordo").unwrap().arg("convert").arg(&gr).arg(&file).assert().success();
    for ranks in [2, 4] {
        all_variants(ranks, &["--graph", file.to_str().unwrap()], 3353);
    }
}

#[test]
fn out_file_is_gathered_by_rank_0() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("mpi.txt"), dir.path().join("run.txt"));
    mpirun(4).args(["--gen", "road:n=5000", "--out"]).arg(&a).assert().success();
    Command::cargo_bin("ordo")
        .unwrap()
        .args(["run", "sssp", "--gen", "road:n=5000", "--sched", "strict", "--out"])
        .arg(&b)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
}

#[test]
fn bad_file_part_on_one_rank_ends_every_rank_with_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("g.ordo");
    Command::cargo_bin("ordo").unwrap().args(["gen", "road:n=3000", "-o"]).arg(&good).assert().success();
    let mut bytes = std::fs::read(&good).unwrap();
    let n = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let m = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    let at = 64 + 8 * (n + 1) + 4 * (m - 1);
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    ordo_graph::binary::reseal(&mut bytes);
    let bad = dir.path().join("bad.ordo");
    std::fs::write(&bad, &bytes).unwrap();
    for ranks in [2, 4] {
        let out = mpirun(ranks).arg("--graph").arg(&bad).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        let last = ranks - 1;
        // The last rank names the byte; every other rank names the last rank's failure.
        assert!(
            err.contains(&format!("error: rank {last}: ")) && err.contains(&format!("byte {at}")),
            "{err}"
        );
        for r in 0..last {
            assert!(err.contains(&format!("error: rank {r}: rank {last} failed: ")), "rank {r}: {err}");
        }
    }
}

#[test]
fn a_rank_that_dies_ends_the_job() {
    for (fault, ranks) in [("1:exit", 2), ("3:abort", 4), ("2:panic", 4)] {
        let out = mpirun(ranks)
            .env("ORDO_DIST_FAULT", fault)
            .args(["--gen", "kron:scale=10", "--variant", "af+fc"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{fault}: the job succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        if fault.ends_with("panic") {
            assert!(err.contains("injected fault on rank 2"), "{fault}: {err}");
        }
    }
}
