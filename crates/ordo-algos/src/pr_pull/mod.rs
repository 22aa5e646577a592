//! PageRank by pull, as the loop of Callisto-RTS Figure 1 (from the
//! Green-Marl `pagerank` procedure): one parallel loop over the vertices per
//! iteration,
//!
//! ```text
//! next[t] = (1 - d)/N + d · Σ_{w -> t} rank[w] / outdeg(w)
//! ```
//!
//! with ranks starting at `1/N`, the change `Σ_t |next[t] - rank[t]|` (L1)
//! summed in per-thread state (fork / work / join) and the arrays swapped
//! after each iteration (Green-Marl's deferred assignment `<=`). It stops
//! after a fixed number of iterations, or once the change is at most a
//! tolerance (Green-Marl's `While (diff > e && cnt < max)`).
//!
//! Dangling vertices (no out-edge) keep their rank to themselves, as in
//! Figure 1: their mass leaks and the ranks sum to less than 1.
//!
//! Each vertex's sum runs over its in-edges in CSR order on one thread, so
//! the ranks after `k` iterations are the same bits whichever thread
//! computed which vertex, and equal those of the sequential loop
//! ([`reference::pr_pull`]); only the L1 change is summed in another order
//! (per-thread partial sums), which can move the stopping iteration when
//! the change lands within rounding of the tolerance (see [`verify`]).

pub mod app;
pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use ordo_graph::Graph;
use ordo_loops::ForkWorkJoin;

use crate::loop_runner::LoopRunner;
use crate::AlgoError;

/// The damping factor of Figure 1's `d` (and of the PageRank paper).
pub const DEFAULT_DAMPING: f64 = 0.85;
/// The iteration cap when stopping at a tolerance (Green-Marl's `max`).
pub const DEFAULT_MAX_ITERATIONS: u32 = 100;

/// When the iteration stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// After exactly this many iterations.
    Iterations(u32),
    /// Once the L1 change of an iteration is at most `tolerance`, or after
    /// `max_iterations`.
    Tolerance {
        /// The L1 change to reach.
        tolerance: f64,
        /// The cap on the iterations.
        max_iterations: u32,
    },
}

/// Parameters of [`pr_pull`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrPullParams {
    /// The damping factor `d`, in (0, 1).
    pub damping: f64,
    /// When to stop.
    pub stop: Stop,
}

impl Default for PrPullParams {
    /// `d = 0.85`, 20 iterations.
    fn default() -> Self {
        PrPullParams { damping: DEFAULT_DAMPING, stop: Stop::Iterations(20) }
    }
}

impl PrPullParams {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), AlgoError> {
        if !(self.damping > 0.0 && self.damping < 1.0) {
            return Err(AlgoError::InvalidParameter(format!("damping {} is not in (0, 1)", self.damping)));
        }
        if let Stop::Tolerance { tolerance, .. } = self.stop {
            if !(tolerance.is_finite() && tolerance > 0.0) {
                return Err(AlgoError::InvalidParameter(format!(
                    "tolerance {tolerance} is not a positive number"
                )));
            }
        }
        Ok(())
    }
}

/// The ranks and how they were reached.
#[derive(Clone, Debug, PartialEq)]
pub struct PrPullResult {
    /// The rank of every vertex.
    pub ranks: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// The L1 change of every iteration, in order.
    pub changes: Vec<f64>,
    /// Seconds spent in the iterations.
    pub time_s: f64,
}

impl PrPullResult {
    /// The L1 change of the last iteration (infinite before any).
    pub fn last_change(&self) -> f64 {
        self.changes.last().copied().unwrap_or(f64::INFINITY)
    }
}

/// Runs PageRank by pull on `runner`'s loops. `transpose` must be the
/// transpose of `graph` (the in-edges; `ordo_graph::transform::transpose`).
///
/// Complexity: `O(m)` work and one parallel loop per iteration.
///
/// ```
/// use ordo_algos::loop_runner::LoopRunner;
/// use ordo_algos::pr_pull::{pr_pull, PrPullParams, Stop};
/// use ordo_graph::{transform::transpose, EdgeList};
///
/// let mut edges = EdgeList::new(3, false);
/// for (u, v) in [(0, 1), (1, 2), (2, 0)] {
///     edges.push(u, v, 1);
/// }
/// let g = edges.into_graph().unwrap();
/// let runner = LoopRunner::new(&"striped:batch=1".parse().unwrap(), 2, None).unwrap();
/// let params = PrPullParams { stop: Stop::Iterations(5), ..PrPullParams::default() };
/// let r = pr_pull(&runner, &g, &transpose(&g), &params).unwrap();
/// assert!(r.ranks.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-15)); // a cycle: uniform
/// ```
pub fn pr_pull(
    runner: &LoopRunner,
    graph: &Graph,
    transpose: &Graph,
    params: &PrPullParams,
) -> Result<PrPullResult, AlgoError> {
    params.validate()?;
    check_transpose(graph, transpose)?;
    let n = graph.num_vertices();
    let start = Instant::now();
    let (max_iterations, tolerance) = match params.stop {
        Stop::Iterations(k) => (k, None),
        Stop::Tolerance { tolerance, max_iterations } => (max_iterations, Some(tolerance)),
    };
    if n == 0 {
        return Ok(PrPullResult { ranks: Vec::new(), iterations: 0, changes: Vec::new(), time_s: 0.0 });
    }
    let d = params.damping;
    let base = (1.0 - d) / n as f64;
    let mut rank: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new((1.0 / n as f64).to_bits())).collect();
    let mut next: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let offsets = graph.offsets();
    let mut changes = Vec::new();
    while (changes.len() as u32) < max_iterations {
        let change = Mutex::new(0.0f64);
        {
            let (rank, next) = (&rank, &next);
            // Figure 1's loop body, with the change summed per thread.
            let body = ForkWorkJoin::new(
                || 0.0f64,
                |diff: &mut f64, t: usize| {
                    let mut val = 0.0f64;
                    for &w in transpose.neighbors(t as u32) {
                        let w = w as usize;
                        let outdeg = (offsets[w + 1] - offsets[w]) as f64;
                        val += f64::from_bits(rank[w].load(Relaxed)) / outdeg;
                    }
                    let new = base + d * val;
                    *diff += (new - f64::from_bits(rank[t].load(Relaxed))).abs();
                    next[t].store(new.to_bits(), Relaxed);
                },
                |diff| *change.lock().unwrap_or_else(|e| e.into_inner()) += diff,
            );
            runner.for_each(0..n, &body);
        }
        std::mem::swap(&mut rank, &mut next);
        let change = change.into_inner().unwrap_or_else(|e| e.into_inner());
        changes.push(change);
        if tolerance.is_some_and(|tol| change <= tol) {
            break;
        }
    }
    let time_s = start.elapsed().as_secs_f64();
    let ranks = rank.into_iter().map(|x| f64::from_bits(x.into_inner())).collect();
    Ok(PrPullResult { ranks, iterations: changes.len() as u32, changes, time_s })
}

/// Checks that `transpose` has the shape of `graph`'s transpose: the same
/// vertex and edge counts, and every vertex's in-degree in `graph` is its
/// degree in `transpose`. `O(n + m)`.
pub(crate) fn check_transpose(graph: &Graph, transpose: &Graph) -> Result<(), AlgoError> {
    if graph.num_vertices() != transpose.num_vertices() || graph.num_edges() != transpose.num_edges() {
        return Err(AlgoError::InvalidParameter(format!(
            "the transpose has {} vertices and {} edges, the graph {} and {}",
            transpose.num_vertices(),
            transpose.num_edges(),
            graph.num_vertices(),
            graph.num_edges()
        )));
    }
    let mut in_degree = vec![0usize; graph.num_vertices()];
    for &t in graph.targets() {
        in_degree[t as usize] += 1;
    }
    if let Some(v) = (0..graph.num_vertices()).find(|&v| in_degree[v] != transpose.degree(v as u32)) {
        return Err(AlgoError::InvalidParameter(format!(
            "not the transpose: vertex {v} has {} in-edges in the graph and {} edges in the transpose",
            in_degree[v],
            transpose.degree(v as u32)
        )));
    }
    Ok(())
}
