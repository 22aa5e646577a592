//! Unordered parallel A* on any scheduler: the shortest path from a source
//! to one target, tasks ordered by `f = g + h` (PMOD paper §5.3, "A*"; the
//! SMQ artifact's astar).
//!
//! # The algorithm
//! It is [`sssp()`](crate::sssp::sssp) with two changes. Every vertex holds an atomic
//! tentative distance `g` (initially unreachable). A task is a vertex `v`
//! scheduled with priority `f = g + h(v)`, where `h` is an admissible
//! estimate of the distance to the target ([`Heuristic`]). The task carries
//! no `g`: the scheduler hands back `f`, and `h(v)` is a pure function of
//! `v`, so `g = f − h(v)` is recoverable (16-byte entries, as SSSP's).
//! Running a task:
//! 1. loads `g = dist[v]`; if `f > g + h(v)`, `v` was improved after this
//!    task was pushed: the task is *stale* (`ctx.mark_stale()`, as the
//!    artifact's `w − h(n) != dist[n]` test);
//! 2. if `g + h(v) ≥ dist[target]` no path through `v` can beat the target's
//!    current distance (h is admissible): the task is *pruned* and also
//!    counted as stale (it does no relaxation);
//! 3. otherwise relaxes every out-edge `(v, u, w)` with the current `g`:
//!    when `g + w` would lower `dist[u]` and `g + w + h(u) < dist[target]`,
//!    lowers `dist[u]` with `fetch_min` and, if that strictly improved it,
//!    pushes `u` with priority `g + w + h(u)`. The target itself is only
//!    lowered, never pushed: with non-negative weights its out-edges cannot
//!    shorten a path to itself. That is the default operator, `fast`; the
//!    papers' form, `paper` ([`OperatorVariant::Paper`], PMOD Fig. 1b with
//!    A*'s priority), schedules the target like any other improved vertex,
//!    and its task is then pruned ([`astar_with_operator`]).
//!
//! # Why the target's distance is exact
//! Pruning removes only vertices `u` whose every path to the target is at
//! least `g(u) + h(u) ≥ dist[target]` long (admissibility), so such a path
//! cannot lower the target. Along a shortest path `s = x0 … xk = t`, as long
//! as `dist[t]` is above the optimum `D`, the first vertex of the path whose
//! `dist` is not yet exact has an exact predecessor that was (or will be)
//! expanded with `g + w + h ≤ D < dist[t]`, so it is never pruned; the run
//! therefore ends with `dist[t] = D`. This holds in any execution order,
//! which only decides the wasted work (`work_increase`).
//!
//! # The path
//! After the run, the path is rebuilt from the final distances alone: a
//! breadth-first search from the source along *tight* edges
//! (`dist[u] + w = dist[v]`, both finite) until the target is reached. The
//! last lowering of `dist[t]` came from expanding a vertex `u` with
//! `dist[u] + w = D`; `dist[u]` cannot have dropped afterwards (that would
//! give a path shorter than `D`), and by the same argument backwards every
//! vertex on that chain is exact and joined by tight edges back to the
//! source. So the search finds a path, and the weights of a path of tight
//! edges telescope to `dist[t] − dist[s] = D`. Searching forwards with a
//! visited mark also copes with zero-weight cycles (a predecessor array
//! could loop among vertices of equal distance) and needs no transpose.
//!
//! # Task notes (good / useless work)
//! With [`ExecOptions::log_tasks`] every task records
//! [`Context::note`]`(v, g)` with the distance it was scheduled with
//! (`f − h(v)`), for [`work_split`](crate::work_split): a task is good when
//! that equals `v`'s final label and it is the first such. A *pruned* task
//! is noted with [`UNREACHED_DIST`], which never equals the final label of a
//! vertex that ran a task, so it counts as useless: it did no relaxation.
//!
//! # Memory ordering
//! As in [`sssp()`](crate::sssp::sssp): distances only decrease, every access is
//! `Relaxed` on one atomic per vertex, and final values are read after
//! `for_each` has joined the workers. A stale read of `dist[target]` only
//! prunes less.

pub mod app;
pub mod heuristic;
pub mod reference;
pub mod verify;

#[cfg(test)]
mod test;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use ordo_exec::{for_each, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

pub use heuristic::{Heuristic, HeuristicKind};
pub use reference::{dijkstra_to_target, TargetReference};
pub use verify::check_path;

use crate::access::{check_source, with_weights};
use crate::bfs::{bfs_levels, UNREACHED_LEVEL};
use crate::sssp::{OperatorVariant, UNREACHED_DIST};
use crate::AlgoError;
use reference::check_target;

/// The result of one A* search.
#[derive(Clone, Debug, PartialEq)]
pub struct AstarResult {
    /// The source vertex.
    pub source: VertexId,
    /// The target vertex.
    pub target: VertexId,
    /// The shortest distance from source to target; `None` when the target
    /// is unreachable.
    pub distance: Option<u64>,
    /// A shortest path `source, …, target` (one vertex when they are equal),
    /// whose edge weights sum to `distance`; empty when unreachable.
    pub path: Vec<VertexId>,
    /// Final tentative distance of every vertex ([`UNREACHED_DIST`] when never
    /// reached): exact on the path, upper bounds elsewhere, since A* stops
    /// improving vertices that cannot lead to a shorter path to the target.
    /// Kept for the good/useless task classification.
    pub labels: Vec<u64>,
}

/// The shortest path from `source` to `target` computed in parallel on
/// `pool` with the scheduler `spec`, guided by `heuristic`.
///
/// Returns the distance and a path (see [`AstarResult`]) and the run's
/// statistics; `stale_tasks` counts tasks that did no relaxation (outdated
/// or pruned by the target's distance). Unweighted graphs use weight 1.
/// With [`Heuristic::zero`] this is SSSP pruned by the target's distance.
///
/// Work: at most SSSP's; with an exact-order scheduler and a consistent
/// heuristic (ours is: `h(u) ≤ w + h(v)` for every edge, by the same
/// argument as admissibility), each vertex is expanded once.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`], [`AlgoError::TargetOutOfRange`], or
/// [`AlgoError::HeuristicSize`] when `heuristic` was built for another graph.
///
/// # Example
/// ```
/// use ordo_algos::astar::{astar, dijkstra_to_target, Heuristic};
/// use ordo_graph::{CoordSystem, Coordinates, EdgeList};
///
/// // A square 0-1-3, 0-2-3 with coordinates; the lower route is shorter.
/// let mut edges = EdgeList::new(4, true);
/// for (u, v, w) in [(0, 1, 10), (1, 3, 12), (0, 2, 11), (2, 3, 10)] {
///     edges.push(u, v, w);
/// }
/// edges.coords =
///     Some(Coordinates::new(CoordSystem::Planar, vec![0., 10., 0., 10.], vec![0., 0., 10., 10.]));
/// let graph = edges.into_graph().unwrap();
/// let h = Heuristic::for_graph(&graph);
/// let pool = ordo_exec::Pool::new(2).unwrap();
/// let spec = "pmod".parse().unwrap();
/// let (result, _stats) = astar(&pool, &spec, &graph, 0, 3, &h, &Default::default()).unwrap();
/// assert_eq!(result.distance, Some(21));
/// assert_eq!(result.path, vec![0, 2, 3]);
/// assert_eq!(dijkstra_to_target(&graph, 0, 3).unwrap().distance, Some(21));
/// ```
pub fn astar(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    target: VertexId,
    heuristic: &Heuristic,
    opts: &ExecOptions,
) -> Result<(AstarResult, RunStats), AlgoError> {
    astar_with_operator(pool, spec, graph, source, target, heuristic, opts, OperatorVariant::Fast)
}

/// [`astar`] with the operator `variant`: ordo's (`Fast`, what [`astar`]
/// runs: the target is never scheduled) or the papers' (`Paper`: every
/// improved vertex below the target's distance is, the target included).
/// Same result and errors; the statistics count the chosen operator's tasks.
#[allow(clippy::too_many_arguments)]
pub fn astar_with_operator(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    target: VertexId,
    heuristic: &Heuristic,
    opts: &ExecOptions,
    variant: OperatorVariant,
) -> Result<(AstarResult, RunStats), AlgoError> {
    check_source(graph, source)?;
    check_target(graph, target)?;
    crate::access::check_integer_weights(graph, "astar")?;
    if heuristic.num_vertices() != graph.num_vertices() {
        return Err(AlgoError::HeuristicSize {
            heuristic_vertices: heuristic.num_vertices(),
            num_vertices: graph.num_vertices(),
        });
    }
    let dist: Vec<AtomicU64> = pool.collect_indexed(graph.num_vertices(), |_| AtomicU64::new(UNREACHED_DIST));
    dist[source as usize].store(0, Relaxed);
    let schedule_target = variant == OperatorVariant::Paper;
    let search = Search { graph, dist: &dist, source, target, schedule_target };
    let stats = match heuristic.kind() {
        HeuristicKind::Zero => with_weights!(graph, |w| search.run(pool, spec, opts, w, |_| 0)),
        _ => {
            let h = heuristic.toward(target);
            with_weights!(graph, |w| search.run(pool, spec, opts, w, |v| h.estimate(v)))
        }
    };
    let labels: Vec<u64> = dist.into_iter().map(AtomicU64::into_inner).collect();
    let distance = Some(labels[target as usize]).filter(|&d| d != UNREACHED_DIST);
    let path = if distance.is_some() { tight_path(graph, &labels, source, target) } else { Vec::new() };
    Ok((AstarResult { source, target, distance, path, labels }, stats))
}

/// The shared state of one search.
struct Search<'a> {
    graph: &'a Graph,
    dist: &'a [AtomicU64],
    source: VertexId,
    target: VertexId,
    /// Whether an improved target is scheduled (the papers' operator).
    schedule_target: bool,
}

impl Search<'_> {
    /// The parallel loop, monomorphised per weight accessor and heuristic.
    #[inline(always)]
    fn run(
        &self,
        pool: &Pool,
        spec: &SchedulerSpec,
        opts: &ExecOptions,
        weight: impl Fn(usize) -> u64 + Sync,
        h: impl Fn(VertexId) -> u64 + Sync,
    ) -> RunStats {
        let offsets = self.graph.offsets();
        let targets = self.graph.targets();
        let dist = self.dist;
        let target = self.target;
        let schedule_target = self.schedule_target;
        let goal = &dist[target as usize];
        let operator = |f: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
            let g = dist[v as usize].load(Relaxed);
            // `g + h(v)` saturates only when `v` cannot reach the target
            // (admissible h), and such a task is rightly pruned.
            let h_v = h(v);
            let f_now = g.saturating_add(h_v);
            if f > f_now {
                ctx.note(v, f - h_v); // the distance it was scheduled with, above `g`
                ctx.mark_stale(); // `v` was improved after this task was pushed
                return;
            }
            if f_now >= goal.load(Relaxed) {
                ctx.note(v, UNREACHED_DIST); // no work done: never "good"
                ctx.mark_stale(); // pruned: cannot lead to a shorter path to the target
                return;
            }
            ctx.note(v, g);
            let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
            for (e, &u) in (lo..hi).zip(&targets[lo..hi]) {
                // Cannot overflow: a real path length plus a u32 (see sssp).
                let candidate = g + weight(e);
                let slot = &dist[u as usize];
                if candidate >= slot.load(Relaxed) {
                    continue;
                }
                if u == target && !schedule_target {
                    slot.fetch_min(candidate, Relaxed);
                    continue;
                }
                let f_u = candidate.saturating_add(h(u));
                if f_u < goal.load(Relaxed) && candidate < slot.fetch_min(candidate, Relaxed) {
                    ctx.push(f_u, u);
                }
            }
        };
        let source = self.source;
        for_each(pool, spec, [(h(source), source)], operator, opts)
    }
}

/// A path from `source` to `target` along tight edges of `labels`
/// (`labels[u] + w = labels[v]`, both finite), found by breadth-first search
/// from the source; empty if there is none (never after a correct search,
/// see the module docs). Public so that other executions of the same
/// operator (the simulator, `ordo-sim`) rebuild their path the same way.
pub fn tight_path(graph: &Graph, labels: &[u64], source: VertexId, target: VertexId) -> Vec<VertexId> {
    const NONE: VertexId = VertexId::MAX;
    let mut parent = vec![NONE; graph.num_vertices()];
    parent[source as usize] = source;
    let mut queue = vec![source];
    let mut head = 0;
    while head < queue.len() && parent[target as usize] == NONE {
        let u = queue[head];
        head += 1;
        let du = labels[u as usize];
        for (v, w) in graph.weighted_neighbors(u) {
            if parent[v as usize] == NONE && du + w as u64 == labels[v as usize] {
                parent[v as usize] = u;
                queue.push(v);
            }
        }
    }
    if parent[target as usize] == NONE {
        return Vec::new();
    }
    let mut path = vec![target];
    let mut v = target;
    while v != source {
        v = parent[v as usize];
        path.push(v);
    }
    path.reverse();
    path
}

/// The default target of a search from `source`: the reachable vertex with
/// the largest breadth-first level (fewest edges on a shortest-hop path),
/// the smallest id among ties; `source` itself when nothing else is
/// reachable. Deterministic, needs no coordinates, and always reachable, so
/// the search has a real path to find. `O(n + m)`.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
pub fn far_target(graph: &Graph, source: VertexId) -> Result<VertexId, AlgoError> {
    let levels = bfs_levels(graph, source)?.values;
    let mut best = (0u32, source);
    for (v, &level) in levels.iter().enumerate() {
        if level != UNREACHED_LEVEL && level > best.0 {
            best = (level, v as VertexId);
        }
    }
    Ok(best.1)
}
