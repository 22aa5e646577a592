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
//!    `dist[u]` (see "Memory ordering") and scheduling `(u, new)` only when
//!    it strictly improved (lines 19–23). A plain load first skips the
//!    atomic read-modify-write on edges that cannot improve. On graphs
//!    where it pays (`low_degree::worth_following`: many vertices of one or
//!    two out-edges, and a vertex order with locality, as road networks
//!    have), a lowered vertex that is a dead end (no out-edge but the one
//!    back) is not scheduled, and one that is a link of a chain (two
//!    out-edges, one back) is not scheduled either: its other edge is
//!    relaxed at once, and so on along the chain (`follow_chain`).
//!
//! That is the default operator, `fast` ([`OperatorVariant::Fast`]). The
//! paper's own, `paper` ([`OperatorVariant::Paper`], what the papers'
//! figures are reproduced with), schedules every lowered vertex and lowers
//! with `fetch_min` on several threads: Figure 1b line for line, on any
//! graph and executor ([`sssp_with_operator`]).
//!
//! The operator comes with prefetch hints (`ordo_exec::with_prefetch`): a
//! task's distance and offsets, then its first edges and weights, which an
//! executor that runs tasks in batches (`auto`'s rounds) loads a few tasks
//! ahead.
//!
//! Any execution order gives the exact distances; the scheduler's order only
//! decides how much redundant work (stale tasks, repeated relaxations) is
//! done, which is what `work_increase` measures.
//!
//! # Task layout
//! The task's distance *is* its priority, and the scheduler hands back the
//! priority it was given with the task, so the task itself is only the
//! `u32` vertex: a scheduled entry is 16 bytes (`u64` priority + `u32`)
//! instead of 24. With narrow distance slots (below) every priority is
//! below 2^32, and the operator says so (`with_narrow_priorities`): `auto`'s
//! rounds then keep 8-byte entries, half the memory per push and pop
//! (`docs/design/2026-11-30-auto-rounds.md`). Even a
//! scheduler that returned a coarsened priority would still produce exact
//! distances, because relaxation uses the current distance; only the stale
//! filter would weaken.
//!
//! # Memory ordering
//! Every access is `Relaxed`: each distance is one atomic with a single
//! modification order, and the final values are read after `for_each` has
//! joined every worker. How a task lowers a distance depends on where it
//! runs (`Lowering`):
//! - *Atomic* (every scheduler's pop loop on several threads): a plain load,
//!   then `fetch_min` only if the candidate is smaller. Distances only
//!   decrease and no lowering is lost; the scheduler's push→pop hand-off
//!   orders the pusher's `fetch_min` before the popper's load, so the popper
//!   reads a value no larger than the task's distance (coherence).
//! - *Plain* (a pool of one worker): the only writer lowers with a load and
//!   a store, the same effect without the `lock cmpxchg`.
//! - *Plain and logged* (`auto`'s rounds on several threads): a load and a
//!   store, and a pair `(distance, vertex)` in the thread's store log
//!   (`Context::logs_plain_stores`). Another thread's store whose load
//!   came first can now overwrite a smaller value with a larger one (a
//!   *lost* lowering, rare: it needs two threads to lower one vertex
//!   within a few instructions of each other). Each thread rechecks its
//!   log after the second barrier that follows the interval of an entry:
//!   `fetch_min` of the logged value, and an entry it had to repair goes
//!   into the log again; the run's last recheck takes every log. A task
//!   that finds its vertex's distance above its own repairs it the same
//!   way, and relaxes with its own distance. This saves the `lock cmpxchg`, which stalls the core
//!   until its store buffer drains.
//!
//!   Where every lowered vertex gets a task (no chain following), the
//!   entry is written by the lowered vertex's task when it runs and is not
//!   stale, `(its distance, its vertex)`, instead of by the store: one entry
//!   per task that does work rather than one per lowering, and the stale
//!   tasks (two thirds of them on a Kronecker graph) log nothing. Where
//!   chains and dead ends are followed (and there when classifying work),
//!   each store is logged, since a followed vertex has no task. Fewer
//!   entries mean fewer appends and fewer rechecks
//!   (`docs/design/2026-11-30-auto-rounds.md`).
//!
//! Why the logged lowering is exact. Call a thread's *interval* the time
//! between two barriers it passes. Its stores and log entries in an
//! interval precede its arrival at the next barrier (even those it makes
//! while waiting at one, running ahead), so they happen before every
//! thread's interval after that barrier's. Every stored value is a real
//! path's length. Take a vertex `u` and a value `c` once stored in it, and
//! suppose its final distance is larger; let `W` be the last write of `u`
//! (in its modification order) with a value `w ≤ c`, and `X` the write
//! right after it. `X` is not a `fetch_min` (it would read `w` and write at
//! most `w`), so it is a plain store whose load read a value before `W`.
//! Let `W0` be the first of the consecutive writes of `w` that end at `W`.
//! Had `X`'s interval begun two barriers or more after `W0`'s ended, `X`'s
//! load would read `W0` or later, so `w`. So `X` comes at most one interval
//! after `W0`'s, and happens before the second barrier after `W0`'s
//! interval. `W0` changed the distance, so it is a repair (logged), or a
//! store that was logged, or a store whose task `(w, u)` logs when it runs.
//! A logged `W0` is rechecked after that second barrier: the recheck loads a
//! value above `w` (`X`'s or a later one) and writes at most `w`, a write
//! `≤ c` after `W`, against `W`'s choice. The task `(w, u)` runs after `W0`
//! (its thread pushed it after the store) and so reads `W0` or a later
//! write: a value below `w` was stored after `W0`, against `W`'s choice
//! (the writes from `W0` to `W` all hold `w`, and a smaller one after `W`
//! would be a write `≤ c` after `W`), so the task is not stale; if it reads
//! a value above `w` it repairs, again a write `≤ c` after `W`; if it reads
//! `w` it logs `(w, u)` in its interval, no earlier than `W0`'s, and the
//! recheck after the second barrier that follows comes after `X` as above.
//! (The last recheck comes after every plain store, the last barrier finding
//! no task to run.) So every distance ends at the smallest value ever stored
//! in it.
//! That value's task (or the chain or dead-end rule that stood for it,
//! below) relaxes every out-edge with it, as a task that is not stale
//! relaxes with its own distance when its vertex holds a larger one; so the
//! final values satisfy every edge's triangle inequality, and are the exact
//! distances. `loom_model` checks the protocol on two threads.
//!
//! # Distances
//! The result is `u64` with [`UNREACHED_DIST`] = `u64::MAX`: a path has fewer
//! than `2^32` edges of weight below `2^32`, so no finite distance plus a
//! `u32` weight can overflow, even with weights near `u32::MAX` over long
//! paths (which would overflow Lonestar's `u32` distances).
//!
//! The run itself first keeps `u32` distances that saturate at
//! `u32::MAX - 1` (`DistSlot`): every relaxation reads the distance of a
//! random vertex, and half the bytes per slot is the largest single saving
//! on graphs whose distances outgrow the caches (as GAPBS's `int32`
//! distances). If any final distance saturated, the run
//! is repeated with `u64` slots; its statistics then include both runs'
//! time and the counter `narrow_dist_saturated_reruns`.

use std::sync::atomic::Ordering::Relaxed;
#[cfg(not(loom))]
use std::sync::atomic::{AtomicU32, AtomicU64};

#[cfg(loom)]
use loom::sync::atomic::{AtomicU32, AtomicU64};
use std::time::Instant;

use ordo_exec::{
    for_each_operator, prefetch, with_barrier_hook, with_prefetch, Context, ExecOptions, Pool, RunStats,
};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

use crate::access::{check_integer_weights, check_source};
use crate::AlgoError;
use low_degree::LowDegree;

pub mod app;
#[cfg(loom)]
mod loom_model;
mod low_degree;
pub mod operator;
pub mod real;
pub mod reference;
pub mod verify;

pub use operator::OperatorVariant;
pub use real::{dijkstra_real, sssp_real};
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
    sssp_with_operator(pool, spec, graph, source, opts, OperatorVariant::Fast)
}

/// [`sssp`] with the operator `variant`: ordo's (`Fast`, what [`sssp`]
/// runs) or the PMOD paper's Figure 1b (`Paper`). Same distances, same
/// errors; the statistics count the chosen operator's tasks.
pub fn sssp_with_operator(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    opts: &ExecOptions,
    variant: OperatorVariant,
) -> Result<(Vec<u64>, RunStats), AlgoError> {
    check_source(graph, source)?;
    check_integer_weights(graph, "sssp")?;
    // Narrow slots first (half the cache footprint of the distance array,
    // which every relaxation reads at a random place); only a run in which
    // some distance saturated is repeated with wide slots.
    let (narrow, narrow_stats) = run_with::<AtomicU32>(pool, spec, graph, source, opts, variant);
    if narrow_stats.cancelled || !narrow.contains(&NARROW_SATURATED) {
        let dist = narrow.into_iter().map(widen_narrow).collect();
        return Ok((dist, narrow_stats));
    }
    drop(narrow);
    let (wide, mut stats) = run_with::<AtomicU64>(pool, spec, graph, source, opts, variant);
    // The narrow attempt is part of the cost of the answer.
    stats.time_s += narrow_stats.time_s;
    stats.sched_counters.push(("narrow_dist_saturated_reruns", 1));
    Ok((wide, stats))
}

/// A narrow run's final distance as a result (`u32::MAX`: unreached).
fn widen_narrow(d: u32) -> u64 {
    if d == u32::MAX {
        UNREACHED_DIST
    } else {
        u64::from(d)
    }
}

/// The largest distance a narrow (`u32`) slot holds; a candidate distance
/// beyond it is stored as this value, which marks the run for a wide rerun.
/// `u32::MAX` itself stands for unreached.
const NARROW_SATURATED: u32 = u32::MAX - 1;

/// An atomic distance slot: `u32` (narrow, saturating at
/// [`NARROW_SATURATED`]) or `u64` (wide, exact for every graph).
///
/// Why saturating is exact when nothing saturated: every stored value is
/// the length of a real path or `NARROW_SATURATED`, and the run ends at a
/// fixpoint where `dist[u] <= min(dist[v] + w, NARROW_SATURATED)` for every
/// edge `(v, u, w)` with `v` reached. If no final value equals
/// `NARROW_SATURATED`, the minimum is never the saturated bound, so the
/// final values are real path lengths satisfying every edge's triangle
/// inequality from `dist[source] = 0`: exactly the shortest distances. A
/// reachable vertex always receives some candidate, so it cannot stay
/// unreached either.
trait DistSlot: Sync + Send + Sized {
    /// The slot's integer type.
    type Value: Copy + Send;
    /// Whether every distance the slot holds, and so every task priority of
    /// the run, lies below 2^32 (see `Operator::NARROW_PRIORITIES`).
    const NARROW: bool;
    fn unreached() -> Self;
    fn zero() -> Self;
    /// The current distance, widened (`u32::MAX` stays as is: unreached is
    /// larger than every candidate).
    fn get(&self) -> u64;
    /// A candidate as the slot can hold it (narrow: saturated).
    fn clamp(candidate: u64) -> u64;
    /// Lowers the slot to `candidate` (already clamped); true if it strictly
    /// improved.
    fn lower(&self, candidate: u64) -> bool;
    /// [`DistSlot::lower`] as a load and a store, no atomic
    /// read-modify-write (a `lock cmpxchg` stalls the core until its
    /// store buffer drains, even without contention). Exact when the caller
    /// is the only writer of the slot (a pool of one worker): no store can
    /// come between the load and the store. With several writers a
    /// concurrent store may overwrite this one, so a run uses it there
    /// only with its stores logged and rechecked ([`Lowering`]).
    fn lower_plain(&self, candidate: u64) -> bool;
    fn into_value(self) -> Self::Value;
}

impl DistSlot for AtomicU32 {
    type Value = u32;
    const NARROW: bool = true;
    fn unreached() -> Self {
        AtomicU32::new(u32::MAX)
    }
    fn zero() -> Self {
        AtomicU32::new(0)
    }
    #[inline(always)]
    fn get(&self) -> u64 {
        u64::from(self.load(Relaxed))
    }
    #[inline(always)]
    fn clamp(candidate: u64) -> u64 {
        candidate.min(u64::from(NARROW_SATURATED))
    }
    #[inline(always)]
    fn lower(&self, candidate: u64) -> bool {
        // `candidate <= NARROW_SATURATED` (clamped), so the cast is exact.
        let c = candidate as u32;
        c < self.load(Relaxed) && c < self.fetch_min(c, Relaxed)
    }
    #[inline(always)]
    fn lower_plain(&self, candidate: u64) -> bool {
        let c = candidate as u32;
        let improves = c < self.load(Relaxed);
        if improves {
            self.store(c, Relaxed);
        }
        improves
    }
    fn into_value(self) -> u32 {
        self.into_inner()
    }
}

impl DistSlot for AtomicU64 {
    type Value = u64;
    const NARROW: bool = false;
    fn unreached() -> Self {
        AtomicU64::new(UNREACHED_DIST)
    }
    fn zero() -> Self {
        AtomicU64::new(0)
    }
    #[inline(always)]
    fn get(&self) -> u64 {
        self.load(Relaxed)
    }
    #[inline(always)]
    fn clamp(candidate: u64) -> u64 {
        candidate
    }
    #[inline(always)]
    fn lower(&self, candidate: u64) -> bool {
        candidate < self.load(Relaxed) && candidate < self.fetch_min(candidate, Relaxed)
    }
    #[inline(always)]
    fn lower_plain(&self, candidate: u64) -> bool {
        let improves = candidate < self.load(Relaxed);
        if improves {
            self.store(candidate, Relaxed);
        }
        improves
    }
    fn into_value(self) -> u64 {
        self.into_inner()
    }
}

/// How a run's tasks lower distances (module docs, "Memory ordering").
#[derive(Clone, Copy)]
struct Lowering {
    /// A load and a store ([`DistSlot::lower_plain`]) instead of
    /// `fetch_min`: on a pool of one worker, or with `logged`.
    plain: bool,
    /// Every plain store goes into the context's store log, which the
    /// rounds recheck after each barrier (`Context::logs_plain_stores`).
    logged: bool,
}

impl Lowering {
    /// The lowering of a task running in `ctx` on a pool of one worker
    /// (`ALONE`) or more; `atomic` (the paper's operator, Figure 1b line 19)
    /// never uses logged plain stores. A plain store alone is the same
    /// lowering as `fetch_min`: there is no other writer.
    #[inline(always)]
    fn of<const ALONE: bool>(ctx: &Context<VertexId>, atomic: bool) -> Self {
        let logged = !ALONE && !atomic && ctx.logs_plain_stores();
        Lowering { plain: ALONE || logged, logged }
    }

    /// Lowers `slot` to `candidate` (clamped); true if it strictly improved.
    #[inline(always)]
    fn lower<S: DistSlot>(self, slot: &S, candidate: u64) -> bool {
        if self.plain {
            slot.lower_plain(candidate)
        } else {
            slot.lower(candidate)
        }
    }

    /// Logs that `u` was just lowered to `candidate`, when stores are logged.
    #[inline(always)]
    fn log(self, ctx: &mut Context<VertexId>, u: VertexId, candidate: u64) {
        if self.logged {
            ctx.log_plain_store(candidate, u);
        }
    }

    /// The same lowering with nothing logged at the store: for a run in
    /// which every lowered vertex gets a task that logs itself when it runs
    /// (module docs, "Memory ordering").
    #[inline(always)]
    fn unlogged(self) -> Self {
        Lowering { logged: false, ..self }
    }
}

/// Longest run of chain links one relaxation follows (see [`follow_chain`]).
const CHAIN_LINKS: usize = 64;

/// Lowered vertices of at most two out-edges a task keeps aside until its
/// edge loop ends, to run [`follow_chain`] on them then (any further ones
/// run at once).
///
/// `follow_chain` reads the vertex's offsets and then its first edge, two
/// dependent cache misses on graphs without locality; inline, each stalls
/// the edge loop. Kept aside, the offsets of all of them are requested
/// during the loop and their edges right after it, so the misses overlap.
/// Any order of relaxations gives the exact distances (module docs).
/// Tasks of at most [`INLINE_DEGREE`] edges lower too few vertices for the
/// overlap to pay, and follow each at once.
const DEFERRED_LINKS: usize = 16;

/// Out-degree up to which a task follows its lowered low-degree targets
/// inline (see [`DEFERRED_LINKS`]).
const INLINE_DEGREE: usize = 8;

/// `from` just lowered `u` to `dist_u`: schedules `u`, or does its work
/// here when scheduling it would be wasted.
///
/// - A *dead end*, a vertex with no out-edge or whose only out-edge leads
///   back to `from`, needs nothing: `dist[u] + w(u, from) >= dist[from]`
///   (weights are non-negative, and `dist[from]` ends at most at the value
///   `from`'s relaxation used), so its task could not lower anything. Road
///   networks have 10–20 % such leaves; Wasp
///   (D'Antonio et al., SC'25) skips degree-1 vertices of undirected graphs
///   the same way.
/// - A *link of a chain*, a vertex whose two out-edges are the edge back to
///   `from` and one other, would only relax that other edge: relax it now
///   and go on with its target, for at most [`CHAIN_LINKS`] links (85 % of
///   Luxembourg's vertices and 23 % of Florida's are links).
///
/// Each later lowering of `u` comes with its own call, so every improvement
/// still propagates; any order of relaxations gives the exact distances,
/// and this one saves the push, pop and stale check of each skipped task.
/// Task counts (and `work_increase`) therefore count neither, except with
/// task notes on (`--classify`), where every lowered vertex is scheduled so
/// that the good / useless split sees one good task per reached vertex, and
/// on graphs where following does not pay
/// (`low_degree::worth_following`), where every lowered vertex is too.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn follow_chain<S: DistSlot>(
    lowering: Lowering,
    dist: &[S],
    low: &LowDegree,
    offsets: &[u64],
    targets: &[VertexId],
    weights: impl EdgeWeights,
    ctx: &mut Context<VertexId>,
    mut from: VertexId,
    mut u: VertexId,
    mut dist_u: u64,
) {
    for _ in 0..CHAIN_LINKS {
        if !low.contains(u) {
            // `u` is scheduled: its task reads its offsets, on graphs with
            // locality (road networks) soon, so start loading them now.
            prefetch(&offsets[u as usize]);
            break;
        }
        let (lo, hi) = (offsets[u as usize] as usize, offsets[u as usize + 1] as usize);
        let next = match hi - lo {
            0 => return,
            1 if targets[lo] == from => return,
            2 if targets[lo] == from => lo + 1,
            2 if targets[lo + 1] == from => lo,
            _ => break,
        };
        let x = targets[next];
        let dist_x = S::clamp(dist_u + weights.at(next));
        if !lowering.lower(&dist[x as usize], dist_x) {
            return;
        }
        lowering.log(ctx, x, dist_x);
        (from, u, dist_u) = (u, x, dist_x);
    }
    ctx.push(dist_u, u);
}

/// One parallel run with slots of type `S` and operator `variant`: the
/// distances and the statistics. Its time includes initialising the
/// distances and building the low-degree bitmap, as GAPBS's trial time
/// includes initialising its distance array.
fn run_with<S: DistSlot>(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    opts: &ExecOptions,
    variant: OperatorVariant,
) -> (Vec<S::Value>, RunStats) {
    let start = Instant::now();
    let dist = initial_distances::<S>(pool, graph, source);
    let paper = variant == OperatorVariant::Paper;
    // The paper's operator schedules every lowered vertex: nothing to follow.
    let low = if paper { None } else { LowDegree::build_if_worth(pool, graph.offsets(), graph.targets()) };
    let prepare_s = start.elapsed().as_secs_f64();
    let mut stats = match graph.weights() {
        Some(ws) => run_on_pool(pool, spec, graph, &dist, low.as_ref(), paper, source, opts, ws),
        None => run_on_pool(pool, spec, graph, &dist, low.as_ref(), paper, source, opts, UnitWeights),
    };
    stats.time_s += prepare_s;
    (dist.into_iter().map(S::into_value).collect(), stats)
}

/// Every vertex's slot before a run: 0 at `source`, unreached elsewhere
/// (written by the pool's threads, so that each thread's part of the
/// array starts in its own memory).
fn initial_distances<S: DistSlot>(pool: &Pool, graph: &Graph, source: VertexId) -> Vec<S> {
    pool.collect_indexed(
        graph.num_vertices(),
        |v| if v == source as usize { S::zero() } else { S::unreached() },
    )
}

/// The weights of a graph's edges, by edge index: the weight array, or 1
/// for every edge of an unweighted graph ([`UnitWeights`]). The operator
/// walks a vertex's targets and weights as two slices side by side, so the
/// inner loop has no bounds check and no branch on weightedness.
trait EdgeWeights: Copy + Sync {
    /// The weight of edge `e`.
    fn at(self, e: usize) -> u64;
    /// Starts loading the weight of edge `e` (see [`prefetch`]).
    fn prefetch(self, e: usize);
    /// The weights of edges `lo..hi`.
    fn range(self, lo: usize, hi: usize) -> impl Iterator<Item = u64>;
}

impl EdgeWeights for &[u32] {
    #[inline(always)]
    fn at(self, e: usize) -> u64 {
        u64::from(self[e])
    }
    #[inline(always)]
    fn range(self, lo: usize, hi: usize) -> impl Iterator<Item = u64> {
        self[lo..hi].iter().map(|&w| u64::from(w))
    }
    #[inline(always)]
    fn prefetch(self, e: usize) {
        if let Some(w) = self.get(e) {
            prefetch(w);
        }
    }
}

/// Weight 1 on every edge.
#[derive(Clone, Copy)]
struct UnitWeights;

impl EdgeWeights for UnitWeights {
    #[inline(always)]
    fn at(self, _e: usize) -> u64 {
        1
    }
    #[inline(always)]
    fn range(self, lo: usize, hi: usize) -> impl Iterator<Item = u64> {
        std::iter::repeat_n(1, hi - lo)
    }
    #[inline(always)]
    fn prefetch(self, _e: usize) {}
}

/// [`run`], alone (`ALONE`: plain lowerings, see [`Lowering`]) when the
/// pool has a single worker; `atomic` lowers with `fetch_min` on several
/// threads (the paper's operator).
#[allow(clippy::too_many_arguments)]
fn run_on_pool<S: DistSlot>(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    dist: &[S],
    low: Option<&LowDegree>,
    atomic: bool,
    source: VertexId,
    opts: &ExecOptions,
    weights: impl EdgeWeights,
) -> RunStats {
    let alone = pool.threads() == 1;
    let none = &LowDegree::NONE;
    match (alone, low) {
        (true, Some(low)) => {
            run::<S, true, true>(pool, spec, graph, dist, low, atomic, source, opts, weights)
        }
        (false, Some(low)) => {
            run::<S, false, true>(pool, spec, graph, dist, low, atomic, source, opts, weights)
        }
        (true, None) => run::<S, true, false>(pool, spec, graph, dist, none, atomic, source, opts, weights),
        (false, None) => run::<S, false, false>(pool, spec, graph, dist, none, atomic, source, opts, weights),
    }
}

/// The parallel loop, monomorphised per slot type, weight accessor,
/// whether the pool has a single worker (`ALONE`: see [`Lowering`]) and
/// whether tasks follow dead ends and chains (`FOLLOW`, with `low` the
/// vertices to follow; see `low_degree::worth_following`). With `atomic`
/// and without `FOLLOW` it is the paper's operator.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run<S: DistSlot, const ALONE: bool, const FOLLOW: bool>(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    dist: &[S],
    low: &LowDegree,
    atomic: bool,
    source: VertexId,
    opts: &ExecOptions,
    weights: impl EdgeWeights,
) -> RunStats {
    let offsets = graph.offsets();
    let targets = graph.targets();
    let operator = |task_dist: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
        // Good vs useless work (crate::work_split): one note per task, stale ones included.
        ctx.note(v, task_dist);
        let mut current = dist[v as usize].get();
        if task_dist > current {
            ctx.mark_stale();
            return;
        }
        let lowering = Lowering::of::<ALONE>(ctx, atomic);
        // Without following, every lowered vertex gets a task, and the task
        // that does work logs itself (below) in place of its store; a
        // followed vertex has no task, so with following every store logs.
        let stores = if FOLLOW { lowering } else { lowering.unlogged() };
        if task_dist < current {
            // A plain store of `task_dist` was overwritten by a larger one
            // (module docs, "Memory ordering"): repair it now and relax
            // with the task's own distance, a real path's length.
            if dist[v as usize].lower(task_dist) {
                stores.log(ctx, v, task_dist);
            }
            current = task_dist;
        }
        if !FOLLOW {
            lowering.log(ctx, v, task_dist);
        }
        let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
        // The targets this task lowers, with their new distances.
        let lowered = targets[lo..hi].iter().zip(weights.range(lo, hi)).filter_map(|(&u, w)| {
            // Cannot overflow: see the module docs on distances.
            let candidate = S::clamp(current + w);
            stores.lower(&dist[u as usize], candidate).then_some((u, candidate))
        });
        if !FOLLOW || ctx.records_notes() {
            // Every lowered vertex gets its task where following does not
            // pay (`low_degree::worth_following`), and when classifying
            // work: the split of PMOD's Table 1 needs a note for each.
            for (u, candidate) in lowered {
                stores.log(ctx, u, candidate);
                ctx.push(candidate, u);
            }
        } else if hi - lo <= INLINE_DEGREE {
            for (u, candidate) in lowered {
                lowering.log(ctx, u, candidate);
                follow_chain(lowering, dist, low, offsets, targets, weights, ctx, v, u, candidate);
            }
        } else {
            // Low-degree targets wait for the end of the loop (`DEFERRED_LINKS`).
            let mut deferred = [(0 as VertexId, 0u64); DEFERRED_LINKS];
            let mut num_deferred = 0;
            for (u, candidate) in lowered {
                lowering.log(ctx, u, candidate);
                if !low.contains(u) {
                    // Its task reads its offsets, on graphs with locality
                    // soon, so start loading them now.
                    prefetch(&offsets[u as usize]);
                    ctx.push(candidate, u);
                } else if num_deferred < DEFERRED_LINKS {
                    prefetch(&offsets[u as usize]);
                    deferred[num_deferred] = (u, candidate);
                    num_deferred += 1;
                } else {
                    follow_chain(lowering, dist, low, offsets, targets, weights, ctx, v, u, candidate);
                }
            }
            let deferred = &deferred[..num_deferred];
            for &(u, _) in deferred {
                // The offsets were asked for during the loop; ask for the edge.
                let first = offsets[u as usize] as usize;
                if let Some(t) = targets.get(first) {
                    prefetch(t);
                    weights.prefetch(first);
                }
            }
            for &(u, candidate) in deferred {
                // Its current distance: the one this task set, or lower if
                // another task lowered it since (then that task follows it
                // too; either distance is a real path's length). Not higher:
                // a plain store overwriting this task's one does not count.
                follow_chain(
                    lowering,
                    dist,
                    low,
                    offsets,
                    targets,
                    weights,
                    ctx,
                    v,
                    u,
                    dist[u as usize].get().min(candidate),
                );
            }
        }
    };
    // What a task reads first (its distance and offsets), then its edges:
    // executors that run tasks in batches load them a few tasks ahead.
    let prefetch_vertex = |_: Prio, &v: &VertexId| {
        prefetch(&dist[v as usize]);
        prefetch(&offsets[v as usize]);
    };
    let prefetch_edges = |task_dist: Prio, &v: &VertexId| {
        // A task that will be stale reads no edge (most tasks on power-law
        // graphs: 68 % on a Kronecker graph of 2^20 vertices); its distance
        // was prefetched with the first hint.
        if task_dist > dist[v as usize].get() {
            return;
        }
        let lo = offsets[v as usize] as usize;
        if let Some(t) = targets.get(lo) {
            prefetch(t);
            weights.prefetch(lo);
        }
    };
    // Repairs the logged plain stores a concurrent store overwrote.
    let recheck = |ctx: &mut Context<VertexId>| ctx.recheck_plain_stores(|c, &u| dist[u as usize].lower(c));
    let operator = with_prefetch(operator, prefetch_vertex, prefetch_edges);
    if S::NARROW {
        // Every priority is a clamped narrow distance, below 2^32: `auto`
        // keeps a task in 8 bytes instead of 16.
        for_each_operator(
            pool,
            spec,
            [(0, source)],
            with_barrier_hook(operator.with_narrow_priorities(), recheck),
            opts,
        )
    } else {
        for_each_operator(pool, spec, [(0, source)], with_barrier_hook(operator, recheck), opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::gen::GenSpec;

    /// A run with narrow slots that follows dead ends and chains or not:
    /// the distances and the pushes.
    fn run_following(pool: &Pool, spec: &str, graph: &Graph, follow: bool) -> (Vec<u64>, u64) {
        let dist = initial_distances::<AtomicU32>(pool, graph, 0);
        let low = LowDegree::build(pool, graph.offsets());
        let spec: SchedulerSpec = spec.parse().unwrap();
        let low = follow.then_some(&low);
        let opts = ExecOptions::default();
        let stats = match graph.weights() {
            Some(ws) => run_on_pool(pool, &spec, graph, &dist, low, false, 0, &opts, ws),
            None => run_on_pool(pool, &spec, graph, &dist, low, false, 0, &opts, UnitWeights),
        };
        (dist.into_iter().map(|d| widen_narrow(d.into_inner())).collect(), stats.total.pushes)
    }

    /// The paper's operator (Figure 1b) gives Dijkstra's distances on every
    /// thread count and scheduler, and schedules every lowered vertex: in
    /// exact priority order on one thread, the tasks that are not stale are
    /// exactly the reached vertices (each runs once, at its final
    /// distance), where ordo's operator on a road graph runs fewer (the
    /// dead ends and chain links it follows have no task).
    #[test]
    fn the_papers_operator_schedules_every_lowered_vertex() {
        for gen in ["road:n=20000,seed=3", "kron:scale=11,seed=4"] {
            let graph = gen.parse::<GenSpec>().unwrap().generate().unwrap();
            let reference = dijkstra(&graph, 0).unwrap().values;
            let reached = reference.iter().filter(|&&d| d != UNREACHED_DIST).count() as u64;
            for threads in [1, 2, 3] {
                let pool = Pool::new(threads).unwrap();
                for sched in ["auto", "obim:delta=4", "strict", "pmod"] {
                    let spec: SchedulerSpec = sched.parse().unwrap();
                    let what = format!("{gen}, {threads} threads, {sched}");
                    let (dist, stats) = sssp_with_operator(
                        &pool,
                        &spec,
                        &graph,
                        0,
                        &ExecOptions::default(),
                        OperatorVariant::Paper,
                    )
                    .unwrap();
                    assert_eq!(dist, reference, "{what}");
                    assert!(stats.total.pushes >= reached, "{what}: {} pushes", stats.total.pushes);
                    if threads == 1 && sched == "strict" {
                        let ran = stats.total.tasks - stats.total.stale_tasks;
                        assert_eq!(ran, reached, "{what}: every reached vertex runs once, at its distance");
                        let (_, fast) = sssp(&pool, &spec, &graph, 0, &ExecOptions::default()).unwrap();
                        let fast_ran = fast.total.tasks - fast.total.stale_tasks;
                        if gen.starts_with("road") {
                            assert!(
                                fast_ran < reached,
                                "{what}: ordo's operator ran {fast_ran} of {reached}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Following dead ends and chains, and a task for every lowered vertex
    /// instead (what `low_degree::worth_following` chooses between), both
    /// give Dijkstra's distances on graphs rich in both, on one thread and
    /// several. Not following pushes every reached vertex at least once;
    /// following skips the dead ends and links of a road graph's chains,
    /// so it pushes fewer tasks.
    #[test]
    fn following_chains_or_not_gives_the_exact_distances() {
        for gen in ["road:n=30000,seed=5", "kron:scale=12,seed=2"] {
            let graph = gen.parse::<GenSpec>().unwrap().generate().unwrap();
            let reference = dijkstra(&graph, 0).unwrap().values;
            let reached = reference.iter().filter(|&&d| d != UNREACHED_DIST).count() as u64;
            for threads in [1, 2, 4] {
                let pool = Pool::new(threads).unwrap();
                for sched in ["auto", "obim", "strict"] {
                    let what = format!("{gen}, {threads} threads, {sched}");
                    let (dist, followed_pushes) = run_following(&pool, sched, &graph, true);
                    assert_eq!(dist, reference, "{what}, following");
                    let (dist, pushes) = run_following(&pool, sched, &graph, false);
                    assert_eq!(dist, reference, "{what}, not following");
                    assert!(pushes >= reached, "{what}: {pushes} pushes, {reached} reached");
                    if gen.starts_with("road") {
                        assert!(
                            followed_pushes < pushes,
                            "{what}: {followed_pushes} pushes following, {pushes} not"
                        );
                    }
                }
            }
        }
    }
}
