//! Shared helpers of the ordo-dist integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use ordo_algos::dijkstra;
use ordo_dist::{run_in_process, GraphSource, Network, RunOutcome, SsspConfig, Variant};
use ordo_graph::Graph;

/// `../shared/data/<rel>` from the workspace root, if present (else one
/// line on stderr and `None`).
pub(crate) fn shared_data(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

/// Runs `variant` on `ranks` in-process ranks and checks every distance
/// against sequential Dijkstra on the whole graph `whole`.
pub(crate) fn check(
    source: &GraphSource,
    whole: &Graph,
    variant: Variant,
    ranks: usize,
    net: Network,
) -> RunOutcome {
    let mut cfg = SsspConfig::new(variant, 0);
    cfg.gather_distances = true;
    check_with(source, whole, &cfg, ranks, net)
}

/// As [`check`] with a full configuration.
pub(crate) fn check_with(
    source: &GraphSource,
    whole: &Graph,
    cfg: &SsspConfig,
    ranks: usize,
    net: Network,
) -> RunOutcome {
    let out = run_in_process(source, ranks, cfg, net)
        .unwrap_or_else(|e| panic!("{} on {ranks} ranks: {e}", cfg.variant));
    let want = dijkstra(whole, cfg.source as u32).unwrap();
    let got = out.distances.as_ref().expect("distances gathered");
    assert_eq!(got.len(), want.values.len());
    if let Some(v) = (0..got.len()).find(|&v| got[v] != want.values[v]) {
        panic!(
            "{} on {ranks} ranks: vertex {v}: distance {} expected {}",
            cfg.variant, got[v], want.values[v]
        );
    }
    assert_eq!(out.reached, want.settled, "{} on {ranks} ranks: reached", cfg.variant);
    assert_eq!(out.num_vertices as usize, whole.num_vertices());
    assert_eq!(out.num_edges as usize, whole.num_edges());
    // Every rank holds its block only.
    let held: u64 = out.per_rank.iter().map(|r| r.vertices).sum();
    assert_eq!(held, out.num_vertices);
    let edges: u64 = out.per_rank.iter().map(|r| r.edges).sum();
    assert_eq!(edges, out.num_edges);
    out
}
