//! PageRank by pull, GAPBS's kernel (Beamer, Asanović, Patterson, "The GAP
//! Benchmark Suite", arXiv:1508.03619, `pr.cc`): the default kernel of `pr`.
//!
//! # The iteration
//! Every iteration first gives each vertex's rank to its out-edges evenly
//! (`contrib[u] = x[u] / outdeg(u)`, one division per vertex), then every
//! vertex pulls the contributions over its in-edges:
//!
//! ```text
//! x[v] ← (1 - α) + α · Σ_{u -> v} contrib[u]
//! ```
//!
//! This is GAPBS's iteration scaled by `n`: GAPBS starts its scores at
//! `1/n` and adds `(1 - α)/n`; here ranks start at 1 and add `1 - α`, so
//! they are on the scale of the residual operator of [`super`] (they sum to
//! about `n`, and both kernels approach the same fixed point `x*` of
//! `x = (1 - α)e + α·A·x`). The two loops are fused: the pass over `v`
//! writes `v`'s contribution for the next iteration into a second buffer,
//! so an iteration is one pass over the vertices and one join. The
//! out-degrees are read from the in-edges' offsets (which the pass reads
//! anyway) when every vertex has as many in- as out-edges (a symmetric
//! graph); only a directed graph keeps an array of divisors.
//!
//! **Dangling vertices** (no out-edge) keep their rank to themselves, as in
//! GAPBS and the residual operator: their mass leaks, and the ranks sum to
//! less than `n`. (networkx spreads it over every vertex instead; the fixed
//! point then differs by a multiple of the uniform vector, which is how the
//! Python backend gets networkx's answer from `pr-pull`.) Their
//! contribution is never read, since no edge leaves them.
//!
//! # Stopping
//! GAPBS's rule: stop after the first iteration whose change
//! `Σ_v |Δx[v]| / n` (the L1 change of the normalised ranks, GAPBS's
//! `error`) is below `tolerance` (default `1e-4`), or after
//! `max_iterations` (default 20), whichever comes first.
//!
//! # Accuracy
//! The map is a contraction by `α` in L1 (every column of `A` sums to at most
//! 1), so after an iteration that changed the ranks by `δ` (unnormalised)
//! they are within `α/(1 - α)·δ` of `x*` ([`PullPageRank::error_bound`]);
//! stopping at the tolerance guarantees `n·α/(1 - α)·tolerance`.
//!
//! # Numbers
//! Ranks and contributions are `f64`, stored as bits in `AtomicU64` read and
//! written with relaxed ordering (plain loads and stores on the usual
//! targets): each vertex is written by the one worker whose chunk holds it,
//! and the join of every iteration orders those writes before the next
//! iteration's reads. Each vertex's sum runs over its in-edges in CSR order
//! on one worker, so the ranks after `k` iterations are the same bits as the
//! sequential loop's ([`reference::sequential_pull`]); only the change is
//! summed per worker and then across workers.

pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use ordo_exec::Pool;
use ordo_graph::Graph;

use super::PageRankError;

/// GAPBS's default tolerance on the L1 change of the normalised ranks.
pub const DEFAULT_PULL_TOLERANCE: f64 = 1e-4;

/// GAPBS's default cap on the iterations.
pub const DEFAULT_MAX_ITERATIONS: u32 = 20;

/// Vertices per chunk claimed by a worker: large enough that claiming costs
/// nothing next to the edges, small enough that a hub's chunk does not hold
/// the other workers up at the join.
const GRAIN: usize = 1024;

/// The parameters of a pull run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PullParams {
    /// Damping factor `α`, in `(0, 1)`.
    pub alpha: f64,
    /// Stop after an iteration whose normalised L1 change is below this
    /// (never when 0).
    pub tolerance: f64,
    /// Stop after this many iterations at most.
    pub max_iterations: u32,
}

impl Default for PullParams {
    /// GAPBS's defaults: `α = 0.85`, tolerance `1e-4`, 20 iterations.
    fn default() -> Self {
        PullParams {
            alpha: super::DEFAULT_ALPHA,
            tolerance: DEFAULT_PULL_TOLERANCE,
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl PullParams {
    /// Checks the ranges; the error names the parameter.
    pub fn validate(&self) -> Result<(), PageRankError> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(PageRankError::InvalidParameter { name, value, expected })
        };
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return bad("alpha", self.alpha, "a number strictly between 0 and 1");
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return bad("tolerance", self.tolerance, "a finite number, at least 0 (0: run every iteration)");
        }
        Ok(())
    }
}

/// What the pull kernel reads besides the ranks, built once per input: the
/// in-edges and every vertex's divisor (its out-degree, 1 for a dangling
/// vertex, whose contribution nobody reads).
#[derive(Clone, Debug)]
pub struct PullInput {
    /// The in-edges: the out-edges of `v` here are the edges into `v`.
    pub in_edges: Arc<Graph>,
    /// `max(outdeg(u), 1)` as `f64`, when some vertex's out-degree differs
    /// from its in-degree; `None` when they are all equal, and the divisor is
    /// then read from the in-edges' offsets.
    divisor: Option<Vec<f64>>,
}

impl PullInput {
    /// The input of `graph` whose in-edges are `in_edges` (the graph itself
    /// when symmetric, else its transpose: `crate::access::in_edges`).
    ///
    /// # Errors
    /// [`PageRankError::TransposeMismatch`] when `in_edges` does not fit.
    pub fn new(graph: &Graph, in_edges: Arc<Graph>) -> Result<Self, PageRankError> {
        super::check_transpose(graph, &in_edges)?;
        let (out, ins) = (graph.offsets(), in_edges.offsets());
        let balanced = out.windows(2).zip(ins.windows(2)).all(|(o, i)| o[1] - o[0] == i[1] - i[0]);
        let divisor = (!balanced).then(|| out.windows(2).map(|w| (w[1] - w[0]).max(1) as f64).collect());
        Ok(PullInput { in_edges, divisor })
    }

    /// Vertices.
    pub fn num_vertices(&self) -> usize {
        self.in_edges.num_vertices()
    }

    /// `max(outdeg(u), 1)` as `f64`.
    #[inline]
    fn divisor(&self, u: usize) -> f64 {
        match &self.divisor {
            Some(d) => d[u],
            None => {
                let offsets = self.in_edges.offsets();
                (offsets[u + 1] - offsets[u]).max(1) as f64
            }
        }
    }
}

/// The result of a pull run.
#[derive(Clone, Debug, PartialEq)]
pub struct PullPageRank {
    /// Rank of every vertex (unnormalised: they sum to about `n`).
    pub ranks: Vec<f64>,
    /// The normalised L1 change `Σ|Δx|/n` of every iteration, in order.
    pub changes: Vec<f64>,
}

impl PullPageRank {
    /// Iterations run.
    pub fn iterations(&self) -> u32 {
        self.changes.len() as u32
    }

    /// The normalised change of the last iteration (infinite before any).
    pub fn last_change(&self) -> f64 {
        self.changes.last().copied().unwrap_or(f64::INFINITY)
    }

    /// Sum of the ranks.
    pub fn rank_sum(&self) -> f64 {
        self.ranks.iter().sum()
    }

    /// Largest rank (0 on an empty graph).
    pub fn max_rank(&self) -> f64 {
        self.ranks.iter().copied().fold(0.0, f64::max)
    }

    /// The bound on the L1 distance of the ranks to the fixed point:
    /// `α/(1 - α)·n·last_change` (module docs, "Accuracy"); 0 on an empty
    /// graph, infinite when no iteration ran.
    pub fn error_bound(&self, alpha: f64) -> f64 {
        if self.ranks.is_empty() {
            return 0.0;
        }
        alpha / (1.0 - alpha) * self.ranks.len() as f64 * self.last_change()
    }
}

/// PageRank by pull on `pool` (module docs): iterations until the
/// normalised L1 change is below `params.tolerance` or
/// `params.max_iterations` ran; `cancelled` is asked before each iteration
/// and stops the run early when it says so.
///
/// Work: `O(n + m)` per iteration, one parallel pass and one join.
///
/// # Errors
/// [`PageRankError::InvalidParameter`] for out-of-range parameters.
///
/// # Example
/// ```
/// # use std::sync::Arc;
/// # use ordo_graph::EdgeList;
/// use ordo_algos::pagerank::pull::{pull_pagerank, PullInput, PullParams};
/// let mut edges = EdgeList::new(3, false);
/// for (u, v) in [(0, 1), (1, 2), (2, 0)] {
///     edges.push(u, v, 0);
/// }
/// let graph = edges.into_graph().unwrap();
/// let input = PullInput::new(&graph, Arc::new(ordo_graph::transform::transpose(&graph))).unwrap();
/// let pool = ordo_exec::Pool::new(2).unwrap();
/// let pr = pull_pagerank(&pool, &input, &PullParams::default(), &|| false).unwrap();
/// assert!(pr.ranks.iter().all(|&x| x == 1.0)); // a cycle: the start is the fixed point
/// assert_eq!(pr.iterations(), 1);
/// ```
pub fn pull_pagerank(
    pool: &Pool,
    input: &PullInput,
    params: &PullParams,
    cancelled: &dyn Fn() -> bool,
) -> Result<PullPageRank, PageRankError> {
    params.validate()?;
    let n = input.num_vertices();
    let PullParams { alpha, tolerance, max_iterations } = *params;
    let base = 1.0 - alpha;
    let (offsets, sources) = (input.in_edges.offsets(), input.in_edges.targets());
    let divisors = input.divisor.as_deref();
    let rank: Vec<AtomicU64> = pool.collect_indexed(n, |_| AtomicU64::new(1.0f64.to_bits()));
    let mut contrib: Vec<AtomicU64> =
        pool.collect_indexed(n, |v| AtomicU64::new((1.0 / input.divisor(v)).to_bits()));
    let mut next_contrib: Vec<AtomicU64> = pool.collect_indexed(n, |_| AtomicU64::new(0));
    let mut changes = Vec::new();
    while n > 0 && (changes.len() as u32) < max_iterations && !cancelled() {
        let (rank, read, write) = (&rank, &contrib, &next_contrib);
        let partial = pool.fold_chunks(
            n,
            GRAIN,
            |_| 0.0f64,
            |change, chunk| {
                for v in chunk {
                    let (start, end) = (offsets[v], offsets[v + 1]);
                    let mut sum = 0.0f64;
                    for &u in &sources[start as usize..end as usize] {
                        sum += f64::from_bits(read[u as usize].load(Relaxed));
                    }
                    let new = base + alpha * sum;
                    *change += (new - f64::from_bits(rank[v].load(Relaxed))).abs();
                    rank[v].store(new.to_bits(), Relaxed);
                    let divisor = match divisors {
                        Some(d) => d[v],
                        None => (end - start).max(1) as f64,
                    };
                    write[v].store((new / divisor).to_bits(), Relaxed);
                }
            },
        );
        std::mem::swap(&mut contrib, &mut next_contrib);
        let change = partial.iter().sum::<f64>() / n as f64;
        changes.push(change);
        if change < tolerance {
            break;
        }
    }
    let ranks = rank.into_iter().map(|x| f64::from_bits(x.into_inner())).collect();
    Ok(PullPageRank { ranks, changes })
}
