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

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::time::Instant;

use ordo_exec::{for_each, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

#[cfg(loom)]
use loom::sync::atomic::AtomicU64;
#[cfg(not(loom))]
use std::sync::atomic::AtomicU64;

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

/// Accuracy of [`power_iteration`] as used by the references: it stops when
/// its distance to the fixed point is provably below this times `n` (L1).
pub const REFERENCE_ACCURACY: f64 = 1e-10;

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

/// Checks that `transpose` can be the transpose of `graph`: same vertex and
/// edge counts, and every vertex's in-degree in `graph` equals its
/// out-degree in `transpose`.
pub fn check_transpose(graph: &Graph, transpose: &Graph) -> Result<(), PageRankError> {
    let mismatch = |problem: String| Err(PageRankError::TransposeMismatch { problem });
    if graph.num_vertices() != transpose.num_vertices() {
        return mismatch(format!("{} vs {} vertices", graph.num_vertices(), transpose.num_vertices()));
    }
    if graph.num_edges() != transpose.num_edges() {
        return mismatch(format!("{} vs {} edges", graph.num_edges(), transpose.num_edges()));
    }
    let mut in_degree = vec![0u64; graph.num_vertices()];
    for &w in graph.targets() {
        in_degree[w as usize] += 1;
    }
    let t_offsets = transpose.offsets();
    for (v, &d) in in_degree.iter().enumerate() {
        let t_degree = t_offsets[v + 1] - t_offsets[v];
        if d != t_degree {
            return mismatch(format!("vertex {v} has in-degree {d} but {t_degree} edges in the transpose"));
        }
    }
    Ok(())
}

/// `1/outdeg(u)` per vertex (0 for dangling vertices).
fn inverse_out_degrees(graph: &Graph) -> Vec<f64> {
    graph.offsets().windows(2).map(|w| if w[1] > w[0] { 1.0 / (w[1] - w[0]) as f64 } else { 0.0 }).collect()
}

/// The in-edge sources of `v` in the transpose.
#[inline(always)]
fn in_neighbours<'t>(offsets: &[u64], targets: &'t [VertexId], v: usize) -> &'t [VertexId] {
    &targets[offsets[v] as usize..offsets[v + 1] as usize]
}

/// The starting state (Whang et al., Algorithm 4): ranks `1 - α`, residuals
/// `f(x⁰) - x⁰ = α(1 - α)·Σ_{u -> w} 1/outdeg(u)`.
fn initial_residuals(transpose: &Graph, inv_out: &[f64], alpha: f64) -> Vec<f64> {
    let (offsets, sources) = (transpose.offsets(), transpose.targets());
    (0..transpose.num_vertices())
        .map(|w| {
            let s: f64 = in_neighbours(offsets, sources, w).iter().map(|&u| inv_out[u as usize]).sum();
            alpha * (1.0 - alpha) * s
        })
        .collect()
}

/// Adds `add >= 0` to the `f64` in `slot`; returns the old and new values.
/// Release so that the rank increase it carries happens-before the next
/// swap of this residual (module docs, point 2).
#[inline(always)]
fn add_residual(slot: &AtomicU64, add: f64) -> (f64, f64) {
    let mut old_bits = slot.load(Relaxed);
    loop {
        let old = f64::from_bits(old_bits);
        let new = old + add;
        match slot.compare_exchange_weak(old_bits, new.to_bits(), AcqRel, Relaxed) {
            Ok(_) => return (old, new),
            Err(current) => old_bits = current,
        }
    }
}

/// The shared state of a parallel run: parameters, both CSR sides, and the
/// per-vertex atomics; [`State::run_task`] is the task operator.
pub(crate) struct State<'a> {
    pub(crate) alpha: f64,
    pub(crate) tolerance: f64,
    pub(crate) amp: f64,
    /// `1/outdeg` per vertex (0 when dangling).
    pub(crate) inv_out: &'a [f64],
    pub(crate) out_offsets: &'a [u64],
    pub(crate) out_targets: &'a [VertexId],
    /// The transpose: in-edge sources per vertex.
    pub(crate) in_offsets: &'a [u64],
    pub(crate) in_sources: &'a [VertexId],
    /// Ranks, `f64` bits.
    pub(crate) rank: &'a [AtomicU64],
    /// Residuals, `f64` bits.
    pub(crate) residual: &'a [AtomicU64],
}

impl State<'_> {
    /// Runs the task on `v` (module docs, "The formulation implemented"),
    /// calling `schedule(priority, w)` for every out-neighbour whose residual
    /// crossed the tolerance. Returns `false` when the task was stale (its
    /// residual was already below the tolerance).
    #[inline(always)]
    pub(crate) fn run_task(&self, v: usize, mut schedule: impl FnMut(Prio, VertexId)) -> bool {
        let (alpha, tolerance) = (self.alpha, self.tolerance);
        // 1. Take the residual (acquire: see every push that landed before).
        if f64::from_bits(self.residual[v].load(Relaxed)) < tolerance {
            return false;
        }
        self.residual[v].swap(0.0f64.to_bits(), Acquire);
        // 2. Pull.
        let sum: f64 = in_neighbours(self.in_offsets, self.in_sources, v)
            .iter()
            .map(|&u| f64::from_bits(self.rank[u as usize].load(Relaxed)) * self.inv_out[u as usize])
            .sum();
        let new = (1.0 - alpha) + alpha * sum;
        // 3. Raise the rank; bits of non-negative f64 order like the values.
        let old = f64::from_bits(self.rank[v].fetch_max(new.to_bits(), Relaxed));
        if new <= old {
            return true;
        }
        // 4. Push the applied increase; schedule on crossings.
        let push = alpha * (new - old) * self.inv_out[v];
        let out = &self.out_targets[self.out_offsets[v] as usize..self.out_offsets[v + 1] as usize];
        for &w in out {
            let (before, after) = add_residual(&self.residual[w as usize], push);
            if before < tolerance && after >= tolerance {
                schedule(priority(after, self.amp), w);
            }
        }
        true
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
    let rank: Vec<AtomicU64> = (0..start.len()).map(|_| AtomicU64::new((1.0 - alpha).to_bits())).collect();
    let residual: Vec<AtomicU64> = start.iter().map(|r| AtomicU64::new(r.to_bits())).collect();

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
    let stats = for_each(pool, spec, initial, operator, opts);
    let result = PageRank {
        ranks: rank.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect(),
        residuals: residual.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect(),
    };
    Ok((result, stats))
}

/// The result of [`sequential_priority`]: the `work_increase` baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct SequentialRun {
    /// Ranks and residuals, as [`pagerank`] returns them.
    pub result: PageRank,
    /// Tasks executed (popped), stale ones included, as the parallel `tasks`.
    pub tasks: u64,
    /// Wall time in seconds.
    pub time_s: f64,
}

/// The same operator as [`pagerank`] run on one thread with an exact
/// priority queue (a binary heap; equal priorities in FIFO order): the
/// exact-order execution whose task count is the denominator of
/// `work_increase` (design.md §4) for PR and PR-D.
///
/// # Errors
/// As [`pagerank`].
pub fn sequential_priority(
    graph: &Graph,
    transpose: &Graph,
    params: &PageRankParams,
) -> Result<SequentialRun, PageRankError> {
    params.validate()?;
    check_transpose(graph, transpose)?;
    let began = Instant::now();
    let PageRankParams { alpha, tolerance, amp } = *params;
    let inv_out = inverse_out_degrees(graph);
    let mut residual = initial_residuals(transpose, &inv_out, alpha);
    let mut rank = vec![1.0 - alpha; residual.len()];
    let mut seq = 0u64;
    let mut heap = BinaryHeap::new();
    for (v, &r) in residual.iter().enumerate() {
        if r >= tolerance {
            heap.push(Reverse((priority(r, amp), seq, v as VertexId)));
            seq += 1;
        }
    }
    let (out_offsets, out_targets) = (graph.offsets(), graph.targets());
    let (in_offsets, in_sources) = (transpose.offsets(), transpose.targets());
    let mut tasks = 0u64;
    while let Some(Reverse((_, _, v))) = heap.pop() {
        tasks += 1;
        let v = v as usize;
        if residual[v] < tolerance {
            continue;
        }
        residual[v] = 0.0;
        let sum: f64 = in_neighbours(in_offsets, in_sources, v)
            .iter()
            .map(|&u| rank[u as usize] * inv_out[u as usize])
            .sum();
        let new = (1.0 - alpha) + alpha * sum;
        if new <= rank[v] {
            continue;
        }
        let push = alpha * (new - rank[v]) * inv_out[v];
        rank[v] = new;
        for &w in &out_targets[out_offsets[v] as usize..out_offsets[v + 1] as usize] {
            let before = residual[w as usize];
            let after = before + push;
            residual[w as usize] = after;
            if before < tolerance && after >= tolerance {
                heap.push(Reverse((priority(after, amp), seq, w)));
                seq += 1;
            }
        }
    }
    Ok(SequentialRun {
        result: PageRank { ranks: rank, residuals: residual },
        tasks,
        time_s: began.elapsed().as_secs_f64(),
    })
}

/// The result of [`power_iteration`].
#[derive(Clone, Debug, PartialEq)]
pub struct PowerIteration {
    /// The ranks (unnormalised, as [`pagerank`]'s).
    pub ranks: Vec<f64>,
    /// Sweeps done.
    pub iterations: u32,
    /// Proven bound on the L1 distance of `ranks` to the exact fixed point:
    /// `α/(1 - α)·‖x_k - x_{k-1}‖₁` (the iteration contracts by `α` in L1),
    /// at most [`REFERENCE_ACCURACY`]`·n` unless the sweep limit was hit.
    pub error_bound: f64,
    /// Wall time in seconds.
    pub time_s: f64,
}

/// Sweeps of [`power_iteration`] at most; with `α = 0.99` about 2,300 are
/// needed for [`REFERENCE_ACCURACY`].
const MAX_SWEEPS: u32 = 100_000;

/// Sequential power iteration (Jacobi): `x ← (1 - α)e + α·A·x` from
/// `x = (1 - α)e`, pulling over `transpose`, until the distance to the fixed
/// point is provably at most [`REFERENCE_ACCURACY`]`·n` in L1 (about
/// `log(1e-10)/log(α)` sweeps: 142 with `α = 0.85`). Dangling vertices are
/// treated as in [`pagerank`] (no redistribution).
///
/// # Errors
/// [`PageRankError::InvalidParameter`] for `alpha` outside `(0, 1)`,
/// [`PageRankError::TransposeMismatch`] when `transpose` does not fit.
pub fn power_iteration(
    graph: &Graph,
    transpose: &Graph,
    alpha: f64,
) -> Result<PowerIteration, PageRankError> {
    PageRankParams { alpha, ..PageRankParams::pr() }.validate()?;
    check_transpose(graph, transpose)?;
    let began = Instant::now();
    let n = graph.num_vertices();
    let inv_out = inverse_out_degrees(graph);
    let (offsets, sources) = (transpose.offsets(), transpose.targets());
    let mut x = vec![1.0 - alpha; n];
    let mut next = vec![0.0; n];
    let target = REFERENCE_ACCURACY * n as f64;
    let contraction = alpha / (1.0 - alpha);
    let mut iterations = 0;
    let mut error_bound = f64::INFINITY;
    while iterations < MAX_SWEEPS && n > 0 {
        let mut change = 0.0;
        for (w, slot) in next.iter_mut().enumerate() {
            let s: f64 =
                in_neighbours(offsets, sources, w).iter().map(|&u| x[u as usize] * inv_out[u as usize]).sum();
            *slot = (1.0 - alpha) + alpha * s;
            change += (*slot - x[w]).abs();
        }
        std::mem::swap(&mut x, &mut next);
        iterations += 1;
        error_bound = contraction * change;
        if error_bound <= target {
            break;
        }
    }
    if n == 0 {
        error_bound = 0.0;
    }
    Ok(PowerIteration { ranks: x, iterations, error_bound, time_s: began.elapsed().as_secs_f64() })
}

/// The L1 distance `Σ |a_v - b_v|` (over the common prefix).
pub fn l1_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// Slack for floating-point rounding in the comparison with the reference:
/// `1e-9` per vertex (the sums round at about `1e-16` relative, over at most
/// millions of terms of size about 1).
pub fn rounding_slack(n: usize) -> f64 {
    1e-9 * n as f64
}

/// Verifies a run against the power-iteration reference: every residual is
/// below `params.tolerance`, and the L1 distance is within the proven bound
/// `residuals left/(1 - α) + reference error + rounding slack`. Returns the
/// L1 distance.
///
/// # Errors
/// [`PageRankError::LengthMismatch`], [`PageRankError::ResidualLeft`] or
/// [`PageRankError::BoundExceeded`], naming the numbers.
pub fn verify_within_bound(
    result: &PageRank,
    reference: &PowerIteration,
    params: &PageRankParams,
) -> Result<f64, PageRankError> {
    if result.ranks.len() != reference.ranks.len() || result.residuals.len() != reference.ranks.len() {
        return Err(PageRankError::LengthMismatch {
            expected: reference.ranks.len(),
            got: result.ranks.len(),
        });
    }
    if let Some((vertex, &residual)) =
        result.residuals.iter().enumerate().find(|(_, &r)| !(r < params.tolerance && r >= 0.0))
    {
        return Err(PageRankError::ResidualLeft { vertex, residual, tolerance: params.tolerance });
    }
    let l1 = l1_distance(&result.ranks, &reference.ranks);
    let bound = result.error_bound(params.alpha) + reference.error_bound + rounding_slack(result.ranks.len());
    if l1 <= bound {
        Ok(l1)
    } else {
        Err(PageRankError::BoundExceeded { l1, bound })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::EdgeList;

    #[test]
    fn priority_is_monotone_and_pr_d_has_1000_times_the_levels() {
        let residuals: Vec<f64> = (0..20_000).map(|i| i as f64 * 0.000_73).collect();
        for amp in [PR_AMP, PR_D_AMP] {
            for pair in residuals.windows(2) {
                assert!(priority(pair[1], amp) <= priority(pair[0], amp), "amp {amp}: {pair:?}");
            }
        }
        // Levels over residuals in [0, 10): PR 10, PR-D 10,000.
        let levels = |amp: f64| {
            let mut p: Vec<Prio> = (0..1_000_000).map(|i| priority(i as f64 * 1e-5, amp)).collect();
            p.dedup();
            p.len()
        };
        assert_eq!(levels(PR_AMP), 10);
        assert_eq!(levels(PR_D_AMP), 10_000);
        assert_eq!(priority(0.0, PR_AMP), PRIORITY_CEILING);
        assert_eq!(priority(3.9999, PR_AMP), PRIORITY_CEILING - 3);
        assert_eq!(priority(3.9999, PR_D_AMP), PRIORITY_CEILING - 3999);
        assert_eq!(priority(1e300, PR_D_AMP), 0);
        assert_eq!(priority(-1.0, PR_AMP), PRIORITY_CEILING);
        assert_eq!(priority(f64::NAN, PR_AMP), PRIORITY_CEILING);
    }

    #[test]
    fn parameters_are_checked() {
        for p in [
            PageRankParams { alpha: 1.0, ..PageRankParams::pr() },
            PageRankParams { alpha: 0.0, ..PageRankParams::pr() },
            PageRankParams { tolerance: 0.0, ..PageRankParams::pr() },
            PageRankParams { tolerance: f64::NAN, ..PageRankParams::pr() },
            PageRankParams { amp: -1.0, ..PageRankParams::pr() },
        ] {
            assert!(matches!(p.validate(), Err(PageRankError::InvalidParameter { .. })), "{p:?}");
        }
        PageRankParams::pr_d().validate().unwrap();
    }

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut el = EdgeList::new(n, false);
        for &(u, v) in edges {
            el.push(u, v, 0);
        }
        el.into_graph().unwrap()
    }

    #[test]
    fn wrong_transpose_is_rejected() {
        let g = graph(3, &[(0, 1), (1, 2)]);
        let not_t = graph(3, &[(0, 1), (1, 2)]);
        assert!(matches!(check_transpose(&g, &not_t), Err(PageRankError::TransposeMismatch { .. })));
        check_transpose(&g, &ordo_graph::transform::transpose(&g)).unwrap();
    }

    #[test]
    fn power_iteration_matches_closed_forms() {
        // A directed cycle: every rank is 1 (ranks sum to n, no dangling).
        let cycle = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let r = power_iteration(&cycle, &ordo_graph::transform::transpose(&cycle), 0.85).unwrap();
        for x in &r.ranks {
            assert!((x - 1.0).abs() < 1e-9, "{:?}", r.ranks);
        }
        // 0 -> 1 with 1 dangling: x0 = 1 - a, x1 = (1 - a) + a(1 - a).
        let a = 0.85;
        let pair = graph(2, &[(0, 1)]);
        let r = power_iteration(&pair, &ordo_graph::transform::transpose(&pair), a).unwrap();
        assert!((r.ranks[0] - (1.0 - a)).abs() < 1e-12);
        assert!((r.ranks[1] - (1.0 - a) * (1.0 + a)).abs() < 1e-12);
        assert!(r.error_bound <= REFERENCE_ACCURACY * 2.0);
    }

    #[test]
    fn sequential_priority_run_is_within_the_bound() {
        let g = graph(5, &[(0, 1), (1, 2), (2, 0), (0, 3), (3, 3), (3, 4), (4, 0), (2, 4), (2, 4)]);
        let t = ordo_graph::transform::transpose(&g);
        for amp in [PR_AMP, PR_D_AMP] {
            let params = PageRankParams { tolerance: 1e-4, amp, ..PageRankParams::pr() };
            let seq = sequential_priority(&g, &t, &params).unwrap();
            let exact = power_iteration(&g, &t, params.alpha).unwrap();
            let l1 = verify_within_bound(&seq.result, &exact, &params).unwrap();
            assert!(l1 <= 5.0 * 1e-4 / 0.15 + 1e-9);
            assert!(seq.tasks >= 5);
            for (x, y) in seq.result.ranks.iter().zip(&exact.ranks) {
                assert!(*x <= y + 1e-9, "ranks approach the fixed point from below");
            }
        }
    }
}

/// Loom model of the operator's protocol (module docs, "Why it converges",
/// points 2 and 3): two tasks run concurrently, on two mutually adjacent
/// vertices or on the same vertex, with every interleaving and the weak
/// memory behaviours loom explores; the pushes they make and the other
/// initial tasks are then drained to quiescence, and the end state must
/// have every residual below the tolerance and bounding the true residual
/// `f_w(x) - x_w`. Run with
/// `RUSTFLAGS="--cfg loom" cargo test -p ordo-algos --release --lib loom`.
#[cfg(loom)]
mod loom_model {
    use super::*;
    use loom::sync::{Arc, Mutex};

    /// Edges 0->1, 0->2, 1->0, 2->0, 2->1 and their transpose.
    struct Data {
        inv_out: Vec<f64>,
        rank: Vec<AtomicU64>,
        residual: Vec<AtomicU64>,
    }

    const OUT_OFFSETS: [u64; 4] = [0, 2, 3, 5];
    const OUT_TARGETS: [VertexId; 5] = [1, 2, 0, 0, 1];
    const IN_OFFSETS: [u64; 4] = [0, 2, 4, 5];
    const IN_SOURCES: [VertexId; 5] = [1, 2, 0, 2, 0];
    const ALPHA: f64 = 0.85;
    const TOLERANCE: f64 = 0.05;

    impl Data {
        fn new() -> Data {
            let inv_out = vec![0.5, 1.0, 0.5];
            let residual = (0..3)
                .map(|w| {
                    let s: f64 =
                        in_neighbours(&IN_OFFSETS, &IN_SOURCES, w).iter().map(|&u| inv_out[u as usize]).sum();
                    AtomicU64::new((ALPHA * (1.0 - ALPHA) * s).to_bits())
                })
                .collect();
            let rank = (0..3).map(|_| AtomicU64::new((1.0 - ALPHA).to_bits())).collect();
            Data { inv_out, rank, residual }
        }

        /// Module docs, point 2: `0 <= f_w(x) - x_w <= r_w` for every `w`.
        fn check_tracked_residuals_bound_the_true_ones(&self, when: &str) {
            let x: Vec<f64> = self.rank.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect();
            for w in 0..3 {
                let r = f64::from_bits(self.residual[w].load(Relaxed));
                let pull: f64 = in_neighbours(&IN_OFFSETS, &IN_SOURCES, w)
                    .iter()
                    .map(|&u| x[u as usize] * self.inv_out[u as usize])
                    .sum();
                let true_residual = (1.0 - ALPHA) + ALPHA * pull - x[w];
                assert!(
                    (-1e-12..=r + 1e-12).contains(&true_residual),
                    "{when}, vertex {w}: true residual {true_residual} outside [0, tracked {r}]"
                );
            }
        }

        fn state(&self) -> State<'_> {
            State {
                alpha: ALPHA,
                tolerance: TOLERANCE,
                amp: PR_D_AMP,
                inv_out: &self.inv_out,
                out_offsets: &OUT_OFFSETS,
                out_targets: &OUT_TARGETS,
                in_offsets: &IN_OFFSETS,
                in_sources: &IN_SOURCES,
                rank: &self.rank,
                residual: &self.residual,
            }
        }
    }

    fn model(first_tasks: [usize; 2]) {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.max_branches = 100_000;
        builder.check(move || {
            let data = Arc::new(Data::new());
            // Every vertex starts above the tolerance: the two concurrent
            // tasks take two of them, the worklist holds the rest.
            let work = Arc::new(Mutex::new(
                (0..3).filter(|v| !first_tasks.contains(v)).map(|v| v as VertexId).collect::<Vec<_>>(),
            ));
            let threads: Vec<_> = first_tasks
                .into_iter()
                .map(|v| {
                    let (data, work) = (Arc::clone(&data), Arc::clone(&work));
                    loom::thread::spawn(move || {
                        let mut pushed = Vec::new();
                        data.state().run_task(v, |_, w| pushed.push(w));
                        work.lock().unwrap().extend(pushed);
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            // Point 2 holds whenever no task is in flight, not only at the end.
            data.check_tracked_residuals_bound_the_true_ones("after the concurrent tasks");
            let state = data.state();
            loop {
                let next = work.lock().unwrap().pop();
                let Some(v) = next else { break };
                let mut pushed = Vec::new();
                state.run_task(v as usize, |_, w| pushed.push(w));
                work.lock().unwrap().extend(pushed);
            }
            data.check_tracked_residuals_bound_the_true_ones("at quiescence");
            for w in 0..3 {
                let r = f64::from_bits(data.residual[w].load(Relaxed));
                assert!(r < TOLERANCE, "vertex {w}: residual {r} left at quiescence");
            }
        });
    }

    #[test]
    fn loom_tasks_on_adjacent_vertices() {
        model([0, 1]);
    }

    #[test]
    fn loom_two_tasks_on_the_same_vertex() {
        model([0, 0]);
    }
}
