//! DC-SSSP over the chaos transport: every message (work items,
//! acknowledgements, termination waves) is delayed at random and delivered
//! in random order. Termination must never come early (distances equal
//! Dijkstra's, no work item left in flight — `run_in_process` checks the
//! latter) and never hang (each run under a watchdog).

mod common;

use std::sync::mpsc;
use std::time::Duration;

use common::check_with;
use ordo_dist::transport::chaos::ChaosConfig;
use ordo_dist::{GraphSource, Network, SsspConfig, Variant};
use ordo_graph::gen::GenSpec;

/// Runs `f` on a thread and fails if it takes longer than `limit` (a hang).
fn within<T: Send + 'static>(limit: Duration, what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no result within {limit:?} (hang?)"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: the run panicked"),
    }
}

fn chaos_runs(spec: &str, seeds: u64) {
    let spec: GenSpec = spec.parse().unwrap();
    let whole = std::sync::Arc::new(spec.generate().unwrap());
    for seed in 0..seeds {
        for ranks in [2, 3, 5, 8] {
            for variant in Variant::ALL {
                let chaos = ChaosConfig { seed: seed * 131 + ranks as u64, ..ChaosConfig::default() };
                let mut cfg = SsspConfig::new(variant, seed % 50);
                cfg.gather_distances = true;
                // Small buffers and thresholds: many messages, many acknowledgements.
                cfg.runtime.flush_bytes = 64;
                cfg.dc.freq = Some(8);
                cfg.dc.freq_min = Some(2);
                cfg.dc.send_threshold = Some(4);
                cfg.dc.sync_threshold = Some(1);
                cfg.threads = 1 + (seed as usize % 2);
                let (source, whole) = (GraphSource::Gen(spec.clone()), std::sync::Arc::clone(&whole));
                let what = format!("{variant} on {ranks} ranks, seed {seed}");
                within(Duration::from_secs(120), what, move || {
                    check_with(&source, &whole, &cfg, ranks, Network::Chaos(chaos));
                });
            }
        }
    }
}

#[test]
fn kronecker_under_random_delays_and_reordering() {
    chaos_runs("kron:scale=8,ef=6", 3);
}

#[test]
fn road_under_random_delays_and_reordering() {
    chaos_runs("road:n=1500", 2);
}

/// Many seeds on one small graph; `ORDO_DIST_CHAOS_SEEDS=N` runs more.
#[test]
fn many_seeds_small_graph() {
    let seeds = std::env::var("ORDO_DIST_CHAOS_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    chaos_runs("random:n=200,m=1200", seeds);
}
