//! The sequential references of PageRank: power iteration (the accuracy
//! reference) and the same operator run on one thread in exact priority
//! order (the `work_increase` baseline).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use super::operator::{in_neighbours, initial_residuals, inverse_out_degrees};
use super::verify::check_transpose;
use super::{priority, PageRank, PageRankError, PageRankParams};

/// Accuracy of [`power_iteration`] as used by the references: it stops when
/// its distance to the fixed point is provably below this times `n` (L1).
pub const REFERENCE_ACCURACY: f64 = 1e-10;

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
/// `work_increase` for PR and PR-D.
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
