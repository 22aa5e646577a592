//! Data-driven residual PageRank (pull-push) on any scheduler, the PR and
//! PR-D applications of the PMOD paper (pmod-priority-scheduling-sc19 §5.3,
//! §6.2), with its sequential references: power iteration (the accuracy
//! reference) and an exact-priority sequential run (the `work_increase`
//! baseline).
//!
//! # The equation
//! Ranks are the unnormalised PageRank of Whang et al. ("Scalable
//! data-driven PageRank", Euro-Par 2015, the PMOD paper's reference 34) and of Galois:
//!
//! ```text
//! x = (1 - α)·e + α·A·x,    A[w][u] = 1/outdeg(u) for every edge u -> w
//! ```
//!
//! so that on a graph without dangling vertices the ranks sum to `n` (each
//! vertex "owns" one unit), and `x_v >= 1 - α` everywhere. Parallel edges
//! count once per edge in `outdeg` and in the sum; a self loop is an edge
//! like any other. **Dangling vertices** (no out-edge) get their rank like
//! every vertex but give nothing away: their column of `A` is zero, so
//! rank mass leaks there and the ranks sum to less than `n`. The power
//! iteration reference ([`power_iteration`]) solves exactly this equation,
//! so both sides treat dangling vertices the same way (as Galois does).
//!
//! # The formulation implemented (pull-push with residuals)
//! Every vertex `w` holds its rank `x_w` and a residual `r_w`, both `f64`.
//! The residual is an upper bound on how far `w`'s equation is from holding,
//! `f_w(x) - x_w` with `f_w(x) = (1 - α) + α·Σ_{u -> w} x_u/outdeg(u)`.
//!
//! - Start (Whang et al., Algorithm 4): `x_w = 1 - α`,
//!   `r_w = f_w(x) - x_w = α(1 - α)·Σ_{u -> w} 1/outdeg(u)`; every vertex with
//!   `r_w >= ε` is a task.
//! - A task on `v` whose residual is below `ε` does nothing (it is counted
//!   stale: an earlier task on `v` already took the residual). Otherwise it
//!   1. takes the residual: `r_v.swap(0)`;
//!   2. **pulls**: `new = f_v(x)` read from the in-neighbours (transpose
//!      graph);
//!   3. raises the rank: `old = x_v.fetch_max(new)`; `Δ = new - old` is the
//!      increase this task actually applied (0 when a concurrent task on `v`
//!      already stored a larger value, and then it stops);
//!   4. **pushes**: adds `α·Δ/outdeg(v)` to the residual of every
//!      out-neighbour `w`, and schedules `w` when that add makes its residual
//!      cross the tolerance (`old < ε <= new`). A vertex is therefore queued
//!      at most once per crossing.
//!
//! This is the pull-push variant of Whang et al. with one change that makes it
//! provable under concurrency: the pushed change is the rank increase the
//! task applied (`Δ` from `fetch_max`), not the residual it took. The
//! residual then only decides *whether* and *when* a vertex runs; the rank
//! is always recomputed from the neighbours.
//!
//! # Why it converges to the stated bound
//! 1. *Ranks only grow and stay below the fixed point.* `f` is monotone (all
//!    coefficients are non-negative) and `x⁰ = (1 - α)e <= x*`; a pull reads
//!    values `<= x*`, so it returns `<= f(x*) = x*`; `fetch_max` never lowers
//!    a rank. So `x⁰ <= x <= x*` at all times.
//! 2. *At the end, every tracked residual bounds the true one.* Take the last
//!    task `T` that swapped `r_w`. Every rank increase whose push landed on
//!    `r_w` before that swap happened before `T`'s pull (the push is a
//!    release, the swap an acquire, and every write to `r_w` is a
//!    read-modify-write, so the swap reads from the push's release
//!    sequence), hence `T`'s pull saw it. The increases `T` did not see were
//!    pushed after the swap and are still in `r_w`. Since `x_w >= T`'s pull
//!    (`fetch_max`), `0 <= f_w(x) - x_w <= r_w`. (A vertex that never ran
//!    keeps `x_w = 1 - α`, and `r_w` is its exact initial residual plus every
//!    push it received: `r_w = f_w(x) - x_w`.)
//! 3. *At the end, every residual is below `ε`.* Consider the last time
//!    `r_w` rose to `>= ε`: that crossing (or the initial state) scheduled a
//!    task, which ran later, read `r_w >= ε` (the scheduler's push → pop
//!    hand-off orders it after the crossing) and swapped it to 0, a
//!    contradiction unless `r_w < ε`.
//! 4. *The bound.* `x* - x = (I - αA)⁻¹·(f(x) - x) = Σ_k (αA)^k (f(x) - x)`
//!    is non-negative, and every column of `A` sums to at most 1, so
//!    `‖x* - x‖₁ <= Σ_w (f_w(x) - x_w)/(1 - α) <= Σ_w r_w/(1 - α) < n·ε/(1 - α)`.
//!    [`PageRank::error_bound`] is the middle one, computed from the
//!    residuals left; tests assert it against the power iteration. Without
//!    dangling vertices every column of `A` sums to exactly 1 and `x <= x*`,
//!    so the first inequality is an equality; on one thread the tracked
//!    residuals are exact, and the L1 distance then *equals* the bound (a
//!    test checks this to rounding).
//!
//! It terminates: between two crossings of `w`, `r_w` is reset to 0 and must
//! gain `ε` again; the gains over all vertices add up to at most
//! `α·Σ(x* - x⁰) <= α·n`, so there are at most `n` initial tasks, `n` first
//! crossings and `α·n/ε` later ones: at most `2n + α·n/ε` tasks.
//!
//! The pure push variant of Galois (`x_v += r`; push `α·r/outdeg`) satisfies
//! the same bound; the pull-push one is what the PMOD paper evaluates.
//!
//! # Priority (PR and PR-D)
//! Larger residuals are more urgent. Ordo priorities are integers, lower
//! first, so a residual `r` maps to `PRIORITY_CEILING - floor(r·amp)`
//! ([`priority`]), clamped to `0..=PRIORITY_CEILING`. The paper converts a
//! real number to an integer by taking its whole part (PR, `amp = 1`) or its
//! whole part and three decimals (PR-D, `amp = 1000`), so PR-D has 1000× as
//! many distinct priorities. Because ranks sum to `n` (not 1), residuals are
//! on the scale of a vertex's rank: hubs get residuals above 1 and thus
//! their own PR levels, while most vertices share level 0 — the few-levels
//! case that suits obim, as the paper observes. Galois's `async_prt` divides
//! the residual by the vertex degree and runs smaller values first; we follow
//! the issue (larger residual first, no degree scaling).
//!
//! # Numbers and atomics
//! Ranks and residuals are `f64` stored as bits in `AtomicU64`. `f32` (as in
//! Galois) would halve the memory, but with its 24-bit mantissa every pull
//! and every residual add rounds at about `6e-8` relative, errors the proof
//! above ignores and that accumulate over the many small adds a residual
//! receives; with `f64` (`1e-16`) they stay far below the
//! [`rounding_slack`] of `1e-9` per vertex that verification allows, so the
//! tests can assert the proven bound itself rather than a fudged one. Ranks are positive and finite, and for non-negative `f64` the
//! bit patterns order like the values, so `fetch_max` on the bits is a
//! floating-point max. Residual adds are compare-and-swap loops.

use std::sync::atomic::Ordering::Relaxed;

use ordo_exec::{for_each_operator, prefetch, with_prefetch, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

#[cfg(loom)]
use loom::sync::atomic::AtomicU64;
#[cfg(not(loom))]
use std::sync::atomic::AtomicU64;

pub mod app;
mod operator;
pub mod pull;
pub mod reference;
pub mod verify;

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(all(test, not(loom)))]
mod test;

use operator::{initial_residuals, inverse_out_degrees, State};
pub use reference::{
    power_iteration, sequential_priority, PowerIteration, SequentialRun, REFERENCE_ACCURACY,
};
pub use verify::{check_transpose, l1_distance, rounding_slack, verify_within_bound};

/// The damping factor of the PMOD and Galois runs.
pub const DEFAULT_ALPHA: f64 = 0.85;

/// The default tolerance `ε` on residuals (ranks sum to about `n`): the value
/// of the PMOD artifact runs (`-tolerance 0.01`). The L1 error is then at
/// most `n·ε/(1 - α)` = `0.067·n` with `α = 0.85`, and in practice far less.
pub const DEFAULT_TOLERANCE: f64 = 0.01;

/// Priority scale of PR: the whole part of the residual.
pub const PR_AMP: f64 = 1.0;

/// Priority scale of PR-D: the whole part and three decimals.
pub const PR_D_AMP: f64 = 1000.0;

/// The priority of a zero residual; every priority is in `0..=PRIORITY_CEILING`.
pub const PRIORITY_CEILING: Prio = u32::MAX as Prio;

/// The priority of a task whose residual is `residual`, with scale `amp`:
/// `PRIORITY_CEILING - floor(residual·amp)`, clamped to
/// `0..=PRIORITY_CEILING`. Larger residuals give smaller (more urgent)
/// priorities; negative or NaN residuals map to the ceiling.
///
/// ```
/// use ordo_algos::pagerank::{priority, PRIORITY_CEILING, PR_AMP, PR_D_AMP};
/// assert_eq!(priority(0.5, PR_AMP), PRIORITY_CEILING);
/// assert_eq!(priority(2.7, PR_AMP), PRIORITY_CEILING - 2);
/// assert_eq!(priority(2.7, PR_D_AMP), PRIORITY_CEILING - 2700);
/// ```
#[inline]
pub fn priority(residual: f64, amp: f64) -> Prio {
    let scaled = residual * amp;
    // `as` saturates: NaN and negatives give 0, huge values u64::MAX.
    let level = (scaled as u64).min(PRIORITY_CEILING);
    PRIORITY_CEILING - level
}

/// The parameters of a PageRank run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankParams {
    /// Damping factor `α`, in `(0, 1)`.
    pub alpha: f64,
    /// Tolerance `ε > 0`: a vertex runs while its residual is `>= ε`.
    pub tolerance: f64,
    /// Priority scale (see [`priority`]): [`PR_AMP`] or [`PR_D_AMP`].
    pub amp: f64,
}

impl PageRankParams {
    /// PR: default `α` and tolerance, whole-part priorities.
    pub fn pr() -> Self {
        PageRankParams { alpha: DEFAULT_ALPHA, tolerance: DEFAULT_TOLERANCE, amp: PR_AMP }
    }

    /// PR-D: default `α` and tolerance, priorities with three decimals.
    pub fn pr_d() -> Self {
        PageRankParams { amp: PR_D_AMP, ..PageRankParams::pr() }
    }

    /// Checks the ranges; the error names the parameter.
    pub fn validate(&self) -> Result<(), PageRankError> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(PageRankError::InvalidParameter { name, value, expected })
        };
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return bad("alpha", self.alpha, "a number strictly between 0 and 1");
        }
        if !(self.tolerance > 0.0 && self.tolerance.is_finite()) {
            return bad("tolerance", self.tolerance, "a finite number above 0");
        }
        if !(self.amp > 0.0 && self.amp.is_finite()) {
            return bad("amp", self.amp, "a finite number above 0");
        }
        Ok(())
    }
}

impl Default for PageRankParams {
    fn default() -> Self {
        PageRankParams::pr()
    }
}

/// Why PageRank could not run or failed verification.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PageRankError {
    /// A parameter out of range.
    #[error("PageRank parameter {name} = {value}: expected {expected}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What it should be.
        expected: &'static str,
    },
    /// The graph given as the transpose is not the transpose.
    #[error("the transpose graph does not match the graph: {problem}")]
    TransposeMismatch {
        /// The first difference found.
        problem: String,
    },
    /// Result and reference cover different vertex counts.
    #[error("result has {got} ranks but the reference has {expected}")]
    LengthMismatch {
        /// Ranks in the reference.
        expected: usize,
        /// Ranks in the result.
        got: usize,
    },
    /// A residual is still at or above the tolerance after the run.
    #[error("vertex {vertex}: residual {residual} is not below the tolerance {tolerance}")]
    ResidualLeft {
        /// The vertex (0-based).
        vertex: usize,
        /// Its residual.
        residual: f64,
        /// The tolerance.
        tolerance: f64,
    },
    /// A pull run differs from the sequential pull loop.
    #[error("differs from the sequential pull loop: {problem}")]
    PullMismatch {
        /// The first difference found.
        problem: String,
    },
    /// The result is farther from the reference than the proven bound.
    #[error("L1 distance to the power-iteration reference is {l1}, above the bound {bound}")]
    BoundExceeded {
        /// The measured L1 distance.
        l1: f64,
        /// The bound (residuals left / (1 - alpha) + reference error + rounding slack).
        bound: f64,
    },
}

/// The result of a data-driven PageRank run.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    /// Rank of every vertex (unnormalised: they sum to about `n`).
    pub ranks: Vec<f64>,
    /// Residual left on every vertex, each below the tolerance.
    pub residuals: Vec<f64>,
}

impl PageRank {
    /// Sum of the residuals left.
    pub fn residual_sum(&self) -> f64 {
        self.residuals.iter().sum()
    }

    /// Sum of the ranks.
    pub fn rank_sum(&self) -> f64 {
        self.ranks.iter().sum()
    }

    /// Largest rank (0 on an empty graph).
    pub fn max_rank(&self) -> f64 {
        self.ranks.iter().copied().fold(0.0, f64::max)
    }

    /// The proven bound on the L1 distance to the exact fixed point:
    /// residuals left / `(1 - alpha)` (module docs, "Why it converges").
    pub fn error_bound(&self, alpha: f64) -> f64 {
        self.residual_sum() / (1.0 - alpha)
    }
}

/// Data-driven pull-push PageRank on `pool` with the scheduler `spec` (see
/// the module docs for the formulation, the priority and the bound).
///
/// `transpose` must be the transpose of `graph` (for example
/// `ordo_graph::transform::transpose(&graph)`, built once per input): tasks
/// pull over it. Returns the ranks and residuals left, and the run's
/// statistics; `stale_tasks` counts tasks that found their residual already
/// taken.
///
/// Work: at most `2n + α·n/ε` tasks (module docs), each `O(indeg + outdeg)`.
///
/// # Errors
/// [`PageRankError::InvalidParameter`] for out-of-range parameters and
/// [`PageRankError::TransposeMismatch`] when `transpose` does not fit.
///
/// # Example
/// ```
/// # use ordo_graph::EdgeList;
/// use ordo_algos::pagerank::{pagerank, power_iteration, l1_distance, PageRankParams};
/// let mut edges = EdgeList::new(3, false);
/// for (u, v) in [(0, 1), (1, 2), (2, 0), (0, 2)] {
///     edges.push(u, v, 0);
/// }
/// let graph = edges.into_graph().unwrap();
/// let transpose = ordo_graph::transform::transpose(&graph);
/// let pool = ordo_exec::Pool::new(2).unwrap();
/// let params = PageRankParams { tolerance: 1e-6, ..PageRankParams::pr() };
/// let spec = "obim".parse().unwrap();
/// let (pr, _stats) = pagerank(&pool, &spec, &graph, &transpose, &params, &Default::default()).unwrap();
/// let exact = power_iteration(&graph, &transpose, params.alpha).unwrap();
/// assert!(l1_distance(&pr.ranks, &exact.ranks) <= pr.error_bound(params.alpha) + exact.error_bound + 1e-9);
/// ```
pub fn pagerank(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    transpose: &Graph,
    params: &PageRankParams,
    opts: &ExecOptions,
) -> Result<(PageRank, RunStats), PageRankError> {
    params.validate()?;
    check_transpose(graph, transpose)?;
    let PageRankParams { alpha, tolerance, amp } = *params;
    let inv_out = inverse_out_degrees(graph);
    let start = initial_residuals(transpose, &inv_out, alpha);
    let initial: Vec<(Prio, VertexId)> = (0..start.len())
        .filter(|&v| start[v] >= tolerance)
        .map(|v| (priority(start[v], amp), v as VertexId))
        .collect();
    let rank: Vec<AtomicU64> = pool.collect_indexed(start.len(), |_| AtomicU64::new((1.0 - alpha).to_bits()));
    let residual: Vec<AtomicU64> = pool.collect_indexed(start.len(), |v| AtomicU64::new(start[v].to_bits()));

    let state = State {
        alpha,
        tolerance,
        amp,
        inv_out: &inv_out,
        out_offsets: graph.offsets(),
        out_targets: graph.targets(),
        in_offsets: transpose.offsets(),
        in_sources: transpose.targets(),
        rank: &rank,
        residual: &residual,
    };
    let operator = |_prio: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
        if !state.run_task(v as usize, |prio, w| ctx.push(prio, w)) {
            ctx.mark_stale();
        }
    };
    // Loaded a few tasks ahead by executors that run tasks in batches: a
    // task reads its residual and both offset arrays, then both edge lists.
    let prefetch_vertex = |_: Prio, &v: &VertexId| {
        let v = v as usize;
        prefetch(&residual[v]);
        prefetch(&state.in_offsets[v]);
        prefetch(&state.out_offsets[v]);
    };
    let prefetch_edges = |_: Prio, &v: &VertexId| {
        let v = v as usize;
        if let Some(u) = state.in_sources.get(state.in_offsets[v] as usize) {
            prefetch(u);
        }
        if let Some(u) = state.out_targets.get(state.out_offsets[v] as usize) {
            prefetch(u);
        }
    };
    let operator = with_prefetch(operator, prefetch_vertex, prefetch_edges);
    let stats = for_each_operator(pool, spec, initial, operator, opts);
    let result = PageRank {
        ranks: rank.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect(),
        residuals: residual.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect(),
    };
    Ok((result, stats))
}
