//! Shared helpers of the loop-kernel tests: runners for every distributor
//! (and rayon) at 1, 2 and 4 threads, with pretend cores so that per-core
//! combining really combines, and the real graphs of `../shared/data`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use ordo_algos::loop_runner::{LoopKind, LoopRunner, LoopSpec};
use ordo_graph::{Graph, LoadOptions};
use ordo_loops::{DistributorSpec, Runtime, Topology};

/// The loop specs every kernel is checked with.
pub(crate) const SPECS: &[&str] = &[
    "shared:batch=1",
    "shared:batch=64",
    "striped:batch=4",
    "striped:batch=16,level=socket",
    "combining:batch=2",
    "async-combining:batch=1",
    "async-combining:batch=8,level=socket,upstream=shared",
    "static",
    "rayon",
    "rayon:batch=32",
];

/// A runner for `spec` on `threads` threads; ordo-loops runtimes get 2
/// threads per pretend core and 2 pretend sockets, and nesting `levels`.
pub(crate) fn runner(spec: &str, threads: usize, levels: &str) -> LoopRunner {
    let spec: LoopSpec = spec.parse().unwrap();
    match spec.kind {
        LoopKind::Loops(d) => on_loops(d, threads, levels),
        LoopKind::Rayon { .. } => LoopRunner::new(&spec, threads, None).unwrap(),
    }
}

fn on_loops(d: DistributorSpec, threads: usize, levels: &str) -> LoopRunner {
    let runtime = Runtime::builder()
        .threads(threads)
        .topology(Topology::with_cores(threads, threads.div_ceil(2), 2))
        .levels(levels.parse().unwrap())
        .build()
        .unwrap();
    LoopRunner::on_runtime(runtime, d)
}

/// Every spec at 1, 2 and 4 threads.
pub(crate) fn runners(levels: &str) -> Vec<LoopRunner> {
    let mut out = Vec::new();
    for threads in [1, 2, 4] {
        for spec in SPECS {
            out.push(runner(spec, threads, levels));
        }
    }
    out
}

/// `../shared/data/<rel>` beside the workspace, if present (else a skip
/// line on stderr).
pub(crate) fn data_file(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data").join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping {rel}: {} not found (../shared/data absent)", p.display());
        None
    }
}

/// Loads a SNAP-style edge list (ids remapped densely).
pub(crate) fn load_snap(path: &Path) -> Graph {
    let opts = LoadOptions { remap_ids: true, ..LoadOptions::default() };
    ordo_graph::load(path, &opts).unwrap()
}

/// A generated graph.
pub(crate) fn gen(spec: &str) -> Graph {
    spec.parse::<ordo_graph::gen::GenSpec>().unwrap().generate().unwrap()
}
