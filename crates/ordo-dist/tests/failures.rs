//! A rank that fails ends every rank with an error, never a hang: a bad
//! file part on one rank (found at setup), a panic on one rank during the
//! run, a bad parameter.

mod common;

use std::time::Duration;

use ordo_dist::{run_in_process, DistError, Fault, FaultKind, GraphSource, Network, SsspConfig, Variant};
use ordo_graph::binary::{self, PartCheck};
use ordo_graph::gen::GenSpec;

#[test]
fn bad_file_part_on_one_rank_fails_every_rank() {
    let g = "road:n=2000".parse::<GenSpec>().unwrap().generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ordo");
    let mut bytes = binary::to_bytes(&g);
    // Corrupt the last edge's target: only the last rank reads it.
    let targets_at = binary::HEADER_LEN + 8 * (g.num_vertices() + 1);
    let last = targets_at + 4 * (g.num_edges() - 1);
    bytes[last..last + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    binary::reseal(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let source = GraphSource::File { path: path.clone(), check: PartCheck::Rows };
    for ranks in [1, 2, 4] {
        for variant in [Variant::AfFc, Variant::Delta] {
            let e = run_in_process(&source, ranks, &SsspConfig::new(variant, 0), Network::Local).unwrap_err();
            let msg = e.to_string();
            assert!(e.is_local(), "the failing rank's own error is reported: {msg}");
            assert!(msg.contains("bad.ordo") && msg.contains(&format!("byte {last}")), "{msg}");
        }
    }
}

#[test]
fn every_rank_reports_a_remote_failure() {
    // Run rank by rank by hand to see each rank's own error.
    let g = "road:n=2000".parse::<GenSpec>().unwrap().generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ordo");
    let mut bytes = binary::to_bytes(&g);
    let targets_at = binary::HEADER_LEN + 8 * (g.num_vertices() + 1);
    bytes[targets_at..targets_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    binary::reseal(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let source = GraphSource::File { path, check: PartCheck::Rows };
    let cfg = SsspConfig::new(Variant::Dc, 0);
    let eps = ordo_dist::transport::local::network(3);
    let results: Vec<Result<_, DistError>> = std::thread::scope(|s| {
        let hs: Vec<_> = eps.iter().map(|ep| s.spawn(|| ordo_dist::run_sssp(ep, &source, &cfg))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(results[0].as_ref().unwrap_err().is_local(), "rank 0 read the bad byte");
    for r in &results[1..] {
        match r {
            Err(DistError::Remote { rank: 0, message }) => {
                assert!(message.contains("targets vertex"), "{message}")
            }
            other => panic!("expected rank 0's failure, got {other:?}"),
        }
    }
}

#[test]
fn a_rank_that_panics_mid_run_ends_the_others() {
    let spec: GenSpec = "kron:scale=9".parse().unwrap();
    for variant in [Variant::Np, Variant::AfFc, Variant::Delta] {
        for ranks in [2, 4] {
            let mut cfg = SsspConfig::new(variant, 0);
            cfg.fault = Some(Fault { rank: ranks - 1, kind: FaultKind::Panic });
            let source = GraphSource::Gen(spec.clone());
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx.send(run_in_process(&source, ranks, &cfg, Network::Local).map(|_| ()));
            });
            let r = rx.recv_timeout(Duration::from_secs(60)).expect("the ranks hung after a panic");
            let msg = r.unwrap_err().to_string();
            assert!(msg.contains("injected fault"), "{variant} on {ranks}: {msg}");
        }
    }
}

#[test]
fn bad_parameters_fail_on_every_rank() {
    let source = GraphSource::Gen("grid:w=10,h=10".parse().unwrap());
    let e = run_in_process(&source, 3, &SsspConfig::new(Variant::Dc, 100), Network::Local).unwrap_err();
    assert!(e.to_string().contains("source 100: the graph has 100 vertices"), "{e}");
    let mut cfg = SsspConfig::new(Variant::Ff, 0);
    cfg.dc.freq = Some(0);
    let e = run_in_process(&source, 2, &cfg, Network::Local).unwrap_err();
    assert!(e.to_string().contains("freq"), "{e}");
    let mut cfg = SsspConfig::new(Variant::Delta, 0);
    cfg.delta = Some(0);
    let e = run_in_process(&source, 2, &cfg, Network::Local).unwrap_err();
    assert!(e.to_string().contains("--delta"), "{e}");
    let missing = GraphSource::File { path: "/nonexistent/x.ordo".into(), check: PartCheck::Rows };
    let e = run_in_process(&missing, 2, &SsspConfig::new(Variant::Dc, 0), Network::Local).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/x.ordo"), "{e}");
}
