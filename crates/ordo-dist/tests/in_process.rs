//! Every variant on 1–8 in-process ranks gives Dijkstra's distances, on a
//! Kronecker graph, a road-like graph and a real road network.

mod common;

use common::{check, shared_data};
use ordo_dist::{GraphSource, Network, Variant};
use ordo_graph::binary::PartCheck;
use ordo_graph::gen::GenSpec;

fn all_variants_all_ranks(source: &GraphSource, whole: &ordo_graph::Graph) {
    for ranks in 1..=8 {
        for variant in Variant::ALL {
            let out = check(source, whole, variant, ranks, Network::Local);
            if ranks > 1 && variant != Variant::Delta {
                assert!(out.total.items_sent > 0, "{variant} on {ranks} ranks sent nothing");
            }
        }
    }
}

#[test]
fn kronecker() {
    let spec: GenSpec = "kron:scale=10,ef=8".parse().unwrap();
    let whole = spec.generate().unwrap();
    all_variants_all_ranks(&GraphSource::Gen(spec), &whole);
}

#[test]
fn road_like() {
    let spec: GenSpec = "road:n=4000".parse().unwrap();
    let whole = spec.generate().unwrap();
    all_variants_all_ranks(&GraphSource::Gen(spec), &whole);
}

#[test]
fn real_road_file() {
    let Some(gr) = shared_data("road/rome99.gr") else { return };
    let whole = ordo_graph::load(&gr, &ordo_graph::LoadOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rome99.ordo");
    ordo_graph::binary::write(&whole, &path).unwrap();
    all_variants_all_ranks(&GraphSource::File { path, check: PartCheck::Rows }, &whole);
}

#[test]
fn every_registered_scheduler_as_the_local_queue() {
    // Each rank drives its local queue through handles (`auto` in its
    // asynchronous mode); a rank's queue is flushed while it still holds
    // tasks, which every scheduler must survive.
    let spec: GenSpec = "road:n=3000".parse().unwrap();
    let whole = spec.generate().unwrap();
    for name in ordo_sched::SchedulerSpec::names() {
        for ranks in [1, 3] {
            let mut cfg = ordo_dist::SsspConfig::new(Variant::AfFc, 0);
            cfg.gather_distances = true;
            cfg.sched = name.parse().unwrap();
            common::check_with(&GraphSource::Gen(spec.clone()), &whole, &cfg, ranks, Network::Local);
        }
    }
}
