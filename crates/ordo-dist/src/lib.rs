//! ordo-dist: single-source shortest paths across ranks — processes under
//! MPI, or threads of one process — with Distributed Control (Kanewala,
//! Zalewski, Lumsdaine et al., "Distributed control: priority scheduling for
//! single source shortest paths without synchronization", and its HPX-5
//! follow-up on plug-in schedulers, flow control and adaptive network
//! progress, the "DC-SSSP paper" in these docs) and a distributed
//! Δ-stepping baseline.
//!
//! ```text
//! transport   Endpoint: in-process channels, a chaos network (tests), MPI (feature `mpi`)
//! wire        message layout; work items aggregated per destination
//! runtime     per-rank scheduler loop: mailbox, yield queue, LIFO, plug-in, network, stealing
//! termination counting every work item; two consecutive equal balanced waves
//! sssp        DC variants np, dc, ff, af, fc, af+fc; Δ-stepping
//! driver      one rank's job (part, agreement, run, gather); the in-process launcher
//! ```
//!
//! The graph is split by a 1D block partition of the vertices; each rank
//! reads only its rows of a `.ordo` file or generates only its rows
//! (`ordo_graph::binary::read_part`, `ordo_graph::gen::GenSpec::generate_part`).
//! No rank holds the whole graph.

mod comm;
pub mod driver;
mod error;
pub mod runtime;
pub mod sssp;
pub mod stats;
mod sync;
pub mod termination;
pub mod transport;
pub mod wire;

pub use driver::{run_in_process, run_sssp, Fault, FaultKind, GraphSource, Network, RunOutcome, SsspConfig};
pub use error::DistError;
pub use sssp::{DcParams, Variant};
pub use stats::RankStats;
