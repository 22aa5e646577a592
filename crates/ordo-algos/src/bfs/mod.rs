//! Unordered breadth-first search on any scheduler: the SSSP algorithm of
//! [`crate::sssp`](mod@crate::sssp) with every edge costing 1 and `u32` levels (PMOD paper
//! §5.3: "Tasks are defined as in SSSP, with the priority now being the
//! number of edges on the discovered path").
//!
//! A task is a vertex; its priority is the level it was scheduled at. A task
//! whose level is above the vertex's current level is stale and returns at
//! once; otherwise it offers `current + 1` to every out-neighbour with
//! `fetch_min` (a load and a store on a pool of one worker, the only writer)
//! and schedules those it improved. Edge weights are ignored. The
//! memory-ordering argument is the one in [`crate::sssp`](mod@crate::sssp).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use ordo_exec::{for_each_operator, prefetch, with_prefetch, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

use crate::access::check_source;
use crate::AlgoError;

pub mod app;
pub mod direction;
pub mod reference;
pub mod tree;

pub use direction::{bfs_direction, Switching, NO_PARENT};
pub use reference::bfs_levels;
pub use tree::check_parent_tree;

/// The BFS level of a vertex the source cannot reach (levels are `< n <= 2^32 - 1`).
pub const UNREACHED_LEVEL: u32 = u32::MAX;

/// The result of a BFS: levels, and the tree when it was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsTree {
    /// The level of every vertex, [`UNREACHED_LEVEL`] when unreached.
    pub levels: Vec<u32>,
    /// The parent of every vertex, Graph500 style: the source is its own
    /// parent, [`NO_PARENT`] marks the unreached; `None` unless asked for.
    pub parents: Option<Vec<VertexId>>,
}

/// BFS levels from `source` computed in parallel on `pool` with the
/// scheduler `spec`: the number of edges on a shortest path to each vertex,
/// [`UNREACHED_LEVEL`] when unreachable, and the run's statistics.
///
/// Levels are below `n <= 2^32 - 1`, so `u32` never overflows.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
///
/// # Example
/// ```
/// # use ordo_graph::EdgeList;
/// let mut edges = EdgeList::new(3, false);
/// edges.push(0, 1, 0);
/// edges.push(1, 2, 0);
/// let graph = edges.into_graph().unwrap();
/// let pool = ordo_exec::Pool::new(1).unwrap();
/// let (levels, _stats) =
///     ordo_algos::bfs(&pool, &"strict".parse().unwrap(), &graph, 0, &Default::default()).unwrap();
/// assert_eq!(levels, vec![0, 1, 2]);
/// ```
pub fn bfs(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    opts: &ExecOptions,
) -> Result<(Vec<u32>, RunStats), AlgoError> {
    check_source(graph, source)?;
    let level: Vec<AtomicU32> =
        pool.collect_indexed(graph.num_vertices(), |_| AtomicU32::new(UNREACHED_LEVEL));
    level[source as usize].store(0, Relaxed);
    let stats = if pool.threads() == 1 {
        run::<true>(pool, spec, graph, &level, source, opts)
    } else {
        run::<false>(pool, spec, graph, &level, source, opts)
    };
    Ok((level.into_iter().map(AtomicU32::into_inner).collect(), stats))
}

/// Lowers `slot` to `next`; true if it strictly improved. `ALONE`: the pool
/// has a single worker, the only writer of every level, so a load and a
/// store do what the `fetch_min` (a locked compare-and-swap loop) does: no
/// store can come between them, and a plain store is never slower than the
/// locked instruction.
#[inline(always)]
fn lower<const ALONE: bool>(slot: &AtomicU32, next: u32) -> bool {
    if ALONE {
        let improves = next < slot.load(Relaxed);
        if improves {
            slot.store(next, Relaxed);
        }
        improves
    } else {
        next < slot.load(Relaxed) && next < slot.fetch_min(next, Relaxed)
    }
}

/// The parallel loop, monomorphised on whether the pool has a single worker
/// (`ALONE`, see [`lower`]).
fn run<const ALONE: bool>(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    level: &[AtomicU32],
    source: VertexId,
    opts: &ExecOptions,
) -> RunStats {
    let offsets = graph.offsets();
    let targets = graph.targets();
    let operator = |task_level: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
        // Good vs useless work (crate::work_split): one note per task, stale ones included.
        ctx.note(v, task_level);
        let current = level[v as usize].load(Relaxed);
        if task_level > current as Prio {
            ctx.mark_stale();
            return;
        }
        let next = current + 1;
        let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
        for &u in &targets[lo..hi] {
            if lower::<ALONE>(&level[u as usize], next) {
                ctx.push(next as Prio, u);
            }
        }
    };
    // Loaded a few tasks ahead by executors that run tasks in batches.
    let prefetch_vertex = |_: Prio, &v: &VertexId| {
        prefetch(&level[v as usize]);
        prefetch(&offsets[v as usize]);
    };
    let prefetch_edges = |_: Prio, &v: &VertexId| {
        if let Some(t) = targets.get(offsets[v as usize] as usize) {
            prefetch(t);
        }
    };
    // Every priority is a level, below 2^32: `auto` keeps a task in 8 bytes
    // and sizes its rounds for levels.
    let operator = with_prefetch(operator, prefetch_vertex, prefetch_edges)
        .with_narrow_priorities()
        .with_level_priorities();
    for_each_operator(pool, spec, [(0, source)], operator, opts)
}
