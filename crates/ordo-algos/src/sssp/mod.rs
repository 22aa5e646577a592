//! Unordered single-source shortest paths on any scheduler: the task-based
//! algorithm of Figure 1b of the PMOD paper (pmod-priority-scheduling-sc19
//! §2.1), with the Lonestar operator details (Lonestar
//! `sssp`).
//!
//! # The algorithm
//! Every vertex holds an atomic distance, initially unreachable. A task is a
//! vertex `v` with the distance `d` at which it was scheduled; its priority
//! is `d`. Running it:
//! 1. loads `dist[v]`; if `d > dist[v]` a later task already improved `v`,
//!    so this one is *stale*: it is counted (`ctx.mark_stale()`) and returns
//!    at once (Figure 1b line 17);
//! 2. otherwise relaxes every out-edge `(v, u, w)` with the **current**
//!    `dist[v]` (Lonestar: never with a possibly older task value), lowering
//!    `dist[u]` with `fetch_min` and scheduling `(u, new)` only when it
//!    strictly improved (lines 19–23). A plain load first skips the atomic
//!    read-modify-write on edges that cannot improve.
//!
//! Any execution order gives the exact distances; the scheduler's order only
//! decides how much redundant work (stale tasks, repeated relaxations) is
//! done, which is what `work_increase` measures.
//!
//! # Task layout
//! The task's distance *is* its priority, and the scheduler hands back the
//! priority it was given with the task, so the task itself is only the
//! `u32` vertex: a scheduled entry is 16 bytes (`u64` priority + `u32`)
//! instead of 24. Even a scheduler that returned a coarsened priority would
//! still produce exact distances, because relaxation uses the current
//! distance; only the stale filter would weaken.
//!
//! # Memory ordering
//! Distances only decrease, and every access is `Relaxed`: each distance is
//! one atomic with a single modification order, `fetch_min` is a
//! read-modify-write so no lowering is lost, and the scheduler's push→pop
//! hand-off orders the pusher's `fetch_min` before the popper's load, so the
//! popper reads a value no larger than the task's distance (coherence). The
//! final values are read after `for_each` has joined every worker.
//!
//! # Distances
//! `u64` with [`UNREACHED_DIST`] = `u64::MAX`: a path has fewer than `2^32`
//! edges of weight below `2^32`, so no finite distance plus a `u32` weight can
//! overflow, even with weights near `u32::MAX` over long paths (which would
//! overflow Lonestar's `u32` distances).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use ordo_exec::{for_each, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

use crate::access::{check_source, with_weights};
use crate::AlgoError;

pub mod app;
pub mod reference;
pub mod verify;

pub use reference::{dijkstra, dijkstra_binary_heap, Reference};

/// The distance of a vertex the source cannot reach.
///
/// Distances are `u64`: a path has at most `n - 1 < 2^32` edges of weight
/// `< 2^32`, so every real distance is below `2^64 - 1` and no addition of a
/// `u32` weight to a finite distance can overflow or reach this value.
pub const UNREACHED_DIST: u64 = u64::MAX;

/// Shortest-path distances from `source` computed in parallel on `pool`
/// with the scheduler `spec`.
///
/// Returns the distance of every vertex ([`UNREACHED_DIST`] when
/// unreachable) and the run's statistics: `tasks` executed, `stale_tasks`
/// (tasks whose vertex had already been improved), pushes, pops, empty pops
/// and the scheduler's counters and traces. Unweighted graphs use weight 1.
///
/// Work is `O(m)` per settled distance value in the worst case; with an
/// exact-order scheduler it is Dijkstra's `O(m)` relaxations.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
///
/// # Example
/// ```
/// # use ordo_graph::EdgeList;
/// let mut edges = EdgeList::new(2, true);
/// edges.push(0, 1, 7);
/// let graph = edges.into_graph().unwrap();
/// let pool = ordo_exec::Pool::new(1).unwrap();
/// let (dist, _stats) =
///     ordo_algos::sssp(&pool, &"strict".parse().unwrap(), &graph, 0, &Default::default()).unwrap();
/// assert_eq!(dist, vec![0, 7]);
/// ```
pub fn sssp(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    opts: &ExecOptions,
) -> Result<(Vec<u64>, RunStats), AlgoError> {
    check_source(graph, source)?;
    let dist: Vec<AtomicU64> = (0..graph.num_vertices()).map(|_| AtomicU64::new(UNREACHED_DIST)).collect();
    dist[source as usize].store(0, Relaxed);
    let stats = with_weights!(graph, |w| run(pool, spec, graph, &dist, source, opts, w));
    Ok((dist.into_iter().map(AtomicU64::into_inner).collect(), stats))
}

/// The parallel loop, monomorphised per weight accessor.
#[inline(always)]
fn run(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    dist: &[AtomicU64],
    source: VertexId,
    opts: &ExecOptions,
    weight: impl Fn(usize) -> u64 + Sync,
) -> RunStats {
    let offsets = graph.offsets();
    let targets = graph.targets();
    let operator = |task_dist: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
        // Good vs useless work (crate::work_split): one note per task, stale ones included.
        ctx.note(v, task_dist);
        let current = dist[v as usize].load(Relaxed);
        if task_dist > current {
            ctx.mark_stale();
            return;
        }
        let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
        for (e, &u) in (lo..hi).zip(&targets[lo..hi]) {
            // Cannot overflow: see the module docs on distances.
            let candidate = current + weight(e);
            let slot = &dist[u as usize];
            if candidate < slot.load(Relaxed) && candidate < slot.fetch_min(candidate, Relaxed) {
                ctx.push(candidate, u);
            }
        }
    };
    for_each(pool, spec, [(0, source)], operator, opts)
}
