//! ordo-sim: a deterministic simulator of ordo's schedulers. It runs any
//! registered scheduler with N *virtual threads* driven from one OS thread,
//! executing the algorithm's tasks exactly, to measure scheduling quality —
//! work increase, rank error, invisible work, communication — at thread
//! counts the machine does not have (the papers' findings appear at 40–256
//! threads).
//!
//! # The model
//! The scheduler is built from its [`SchedulerSpec`] for N threads, exactly
//! as for a real run, and N handles are created. At each *step* one virtual
//! thread, chosen by the [`Policy`] (round robin, uniformly random, or the
//! skewed distribution of the SMQ paper's analysis §3), performs one
//! scheduler operation of the executor's worker loop: push one child of its
//! last task, or pop a task and run it (see [`driver`]). Operations are
//! atomic: this is a linearised execution, as in the SMQ paper's analysis,
//! in which N tasks can be in flight at once (popped, children not yet
//! pushed). Timing plays no part, so the measures are exact and a seed
//! reproduces them bit for bit.
//!
//! `auto`'s bulk-synchronous rounds keep their own buckets instead of
//! handles; [`rounds`] replays that protocol with the same buckets and
//! width controller, one task per turn, so the default scheduler is
//! simulated as `ordo run` runs it (`auto:mode=async` simulates its
//! handles).
//!
//! # Measures ([`SimMeasures`])
//! - **work increase**: tasks executed / tasks of the exact-order baseline
//!   (the vertices Dijkstra or BFS settles; for A*, Dijkstra stopped at the
//!   target), as `ordo run` defines it. Stale tasks count: with an exact
//!   scheduler SSSP still executes the tasks made outdated by a later
//!   improvement, so `tasks − stale_tasks` (tasks that relaxed) is what
//!   equals the baseline when the order is exact.
//! - **rank**: for every pop, the number of pending tasks strictly more
//!   urgent than the one popped ([`rank`]), as a distribution.
//! - **invisible work**: the tasks sitting in handles' private buffers,
//!   unpublished or claimed ([`ordo_sched::Handle::private_tasks`]), after
//!   every step: maximum, mean, fraction of the pending tasks, and a trace.
//! - **communication**: operations that touch a shared structure written by
//!   another virtual thread since this one last touched it, from the
//!   schedulers' probes ([`ordo_sched::probe`], model in [`comm`]).
//! - **time**: turns per thread, or, with [`SimConfig::costs`], cycles: each
//!   operation costs what it costs on a real core (fitted on a real
//!   one-thread run), remote accesses included, the threads ordered by
//!   their clocks ([`costs`]). Only cycles compare execution modes.
//!
//! # Exactness and determinism
//! The operators are those of `ordo-algos` run sequentially ([`app`]), so
//! the results are exact for every scheduler and thread count, and the
//! callers verify them against the sequential references. Everything
//! random is seeded: the interleaving by [`SimConfig::seed`], the
//! schedulers' choices by their spec's `seed`. Two more inputs: the machine
//! topology that schedulers detect (`ORDO_TOPOLOGY=sockets=N` fixes it), and
//! nothing else — structures are identified by address only for equality,
//! and retired ones are forgotten, so allocation does not leak in.
//!
//! # Example
//! ```
//! use ordo_graph::EdgeList;
//! use ordo_sim::{SimConfig, sssp};
//!
//! let mut edges = EdgeList::new(4, true);
//! for (u, v, w) in [(0, 1, 1), (1, 2, 1), (0, 2, 5), (2, 3, 1)] {
//!     edges.push(u, v, w);
//! }
//! let graph = edges.into_graph().unwrap();
//! let spec = "smq".parse().unwrap();
//! let run = sssp(&graph, 0, &spec, &SimConfig::new(4)).unwrap();
//! assert_eq!(run.result, vec![0, 1, 2, 3]);
//! assert_eq!(run.measures.tasks - run.measures.stale_tasks, 4);
//! ```

pub mod app;
pub mod apps;
pub mod comm;
pub mod costs;
pub mod driver;
mod error;
pub mod policy;
pub mod rank;
mod rng;
pub mod rounds;

use ordo_algos::astar::{tight_path, AstarResult, Heuristic};
use ordo_algos::{AlgoError, UNREACHED_DIST};
use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;

pub use app::SimApp;
pub use apps::Simulated;
pub use comm::CommStats;
pub use costs::{Costs, Measured, MeasuredTask, SimTime};
pub use driver::{simulate, simulate_on, Idle, InvisibleStats, SimConfig, SimMeasures};
pub use error::SimError;
pub use policy::Policy;
pub use rank::RankStats;

/// The result of a simulated run and its measures.
#[derive(Clone, Debug, PartialEq)]
pub struct SimRun<R> {
    /// The algorithm's result (exact).
    pub result: R,
    /// What the run measured.
    pub measures: SimMeasures,
}

fn check_vertex(graph: &Graph, v: VertexId, target: bool) -> Result<(), SimError> {
    let n = graph.num_vertices();
    if (v as usize) < n {
        return Ok(());
    }
    Err(SimError::Algo(if target {
        AlgoError::TargetOutOfRange { target_vertex: u64::from(v), num_vertices: n }
    } else {
        AlgoError::SourceOutOfRange { source_vertex: u64::from(v), num_vertices: n }
    }))
}

/// Simulated SSSP from `source`: the distances ([`UNREACHED_DIST`] when
/// unreachable) and the measures.
///
/// # Errors
/// A source out of range, or the errors of [`simulate`].
pub fn sssp(
    graph: &Graph,
    source: VertexId,
    spec: &SchedulerSpec,
    cfg: &SimConfig,
) -> Result<SimRun<Vec<u64>>, SimError> {
    check_vertex(graph, source, false)?;
    let mut app = app::Sssp::new(graph, source);
    let measures = simulate(spec, &mut app, cfg)?;
    Ok(SimRun { result: app.into_distances(), measures })
}

/// Simulated BFS from `source`: the levels
/// ([`ordo_algos::UNREACHED_LEVEL`] when unreachable) and the measures.
///
/// # Errors
/// A source out of range, or the errors of [`simulate`].
pub fn bfs(
    graph: &Graph,
    source: VertexId,
    spec: &SchedulerSpec,
    cfg: &SimConfig,
) -> Result<SimRun<Vec<u32>>, SimError> {
    check_vertex(graph, source, false)?;
    let mut app = app::Bfs::new(graph, source);
    let measures = simulate(spec, &mut app, cfg)?;
    Ok(SimRun { result: app.into_levels(), measures })
}

/// Simulated A* from `source` to `target` with `heuristic` (built for
/// `graph`): the distance and a shortest path, rebuilt from the final labels
/// as `ordo_algos::astar` does, and the measures.
///
/// # Errors
/// A source or target out of range, a heuristic of another graph, or the
/// errors of [`simulate`].
pub fn astar(
    graph: &Graph,
    source: VertexId,
    target: VertexId,
    heuristic: &Heuristic,
    spec: &SchedulerSpec,
    cfg: &SimConfig,
) -> Result<SimRun<AstarResult>, SimError> {
    check_vertex(graph, source, false)?;
    check_vertex(graph, target, true)?;
    if heuristic.num_vertices() != graph.num_vertices() {
        return Err(SimError::Algo(AlgoError::HeuristicSize {
            heuristic_vertices: heuristic.num_vertices(),
            num_vertices: graph.num_vertices(),
        }));
    }
    let mut app = app::Astar::new(graph, source, target, heuristic);
    let measures = simulate(spec, &mut app, cfg)?;
    let labels = app.into_labels();
    let distance = Some(labels[target as usize]).filter(|&d| d != UNREACHED_DIST);
    let path = if distance.is_some() { tight_path(graph, &labels, source, target) } else { Vec::new() };
    Ok(SimRun { result: AstarResult { source, target, distance, path, labels }, measures })
}
