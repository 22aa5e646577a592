//! Verification of the pull kernel: bit for bit against the sequential
//! loop, and within a proven bound of the power-iteration fixed point.
//!
//! **Against the sequential loop: exact.** Every rank is computed by the
//! same expression on the same inputs in the same order in both (the
//! contribution `x/max(outdeg, 1)`, then the sum over the in-edges in CSR
//! order from 0, then `(1 - α) + α·sum`), and the previous iteration's ranks
//! are equal by induction; Rust neither contracts `a + b·c` into a fused
//! multiply-add nor reassociates sums, so this holds at any optimisation
//! level. Only the change is summed in another order (per worker, then
//! across workers): it differs from the sequential sum by rounding, at most
//! about `n·u` relative (`u = 2^-53`), below [`STOP_SLACK`]. So the run must
//! stop at the sequential loop's iteration, unless the sequential change at
//! either of the two iterations in question is within `STOP_SLACK`
//! (relative) of the tolerance; then it is compared, again exactly, with the
//! sequential loop run for its own number of iterations.
//!
//! **Against the fixed point.** The iteration contracts by `α` in L1, so
//! ranks whose last iteration changed them by `δ` are within `α/(1 - α)·δ`
//! of the fixed point `x*` ([`super::PullPageRank::error_bound`]). Rounding
//! adds to that: an iteration's sums over `d` in-edges round by at most
//! `d·u` relative, and the contributions summed over all vertices add up to
//! the ranks' total (at most `n`), so an iteration moves the ranks at most
//! `n·(Δ + 2)·u` in L1 away from the exact map's (`Δ` the largest in-degree);
//! the contraction damps the sum of those over all iterations to at most
//! `n·(Δ + 2)·u/(1 - α)`. [`pull_rounding_slack`] states it (never less than
//! the residual operator's [`crate::pagerank::rounding_slack`]).

use ordo_graph::Graph;

use super::{PullPageRank, PullParams};
use crate::pagerank::{l1_distance, rounding_slack, PageRankError, PowerIteration};

/// Relative slack on the tolerance test for the order of the change's sum.
pub const STOP_SLACK: f64 = 1e-9;

/// Why a pull result differs from its sequential loop.
fn differs(what: String) -> PageRankError {
    PageRankError::PullMismatch { problem: what }
}

/// Checks `got` against `expected`, the sequential loop with `params`'s
/// stopping rule (module docs); `rerun(k)` runs the sequential loop for
/// exactly `k` iterations, needed only when the two stopped one iteration
/// apart at the tolerance.
///
/// # Errors
/// [`PageRankError::PullMismatch`] naming the iteration counts or the first
/// vertex whose rank differs.
pub fn verify_against_sequential(
    params: &PullParams,
    got: &PullPageRank,
    expected: &PullPageRank,
    rerun: impl FnOnce(u32) -> Result<PullPageRank, PageRankError>,
) -> Result<(), PageRankError> {
    let rerun_result;
    let expected = if expected.iterations() == got.iterations() {
        expected
    } else {
        let near = |k: u32| {
            k >= 1
                && expected
                    .changes
                    .get(k as usize - 1)
                    .is_some_and(|&c| (c - params.tolerance).abs() <= STOP_SLACK * params.tolerance)
        };
        let (a, b) =
            (expected.iterations().min(got.iterations()), expected.iterations().max(got.iterations()));
        if !(b == a + 1 && (near(a) || near(b))) {
            return Err(differs(format!(
                "ran {} iterations, the sequential loop {}",
                got.iterations(),
                expected.iterations()
            )));
        }
        rerun_result = rerun(got.iterations())?;
        &rerun_result
    };
    if expected.ranks.len() != got.ranks.len() {
        return Err(PageRankError::LengthMismatch { expected: expected.ranks.len(), got: got.ranks.len() });
    }
    match expected.ranks.iter().zip(&got.ranks).position(|(e, g)| e.to_bits() != g.to_bits()) {
        None => Ok(()),
        Some(v) => Err(differs(format!(
            "vertex {v}: rank {:e}, the sequential loop's {:e} (after {} iterations)",
            got.ranks[v],
            expected.ranks[v],
            got.iterations()
        ))),
    }
}

/// Rounding slack of the bound to the fixed point (module docs):
/// `n·(Δ + 2)·u/(1 - α)` with `Δ` the largest in-degree, at least
/// [`rounding_slack`]`(n)`.
pub fn pull_rounding_slack(in_edges: &Graph, alpha: f64) -> f64 {
    let n = in_edges.num_vertices();
    let max_in = in_edges.offsets().windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let u = f64::EPSILON / 2.0;
    (n as f64 * (max_in as f64 + 2.0) * u / (1.0 - alpha)).max(rounding_slack(n))
}

/// Checks that `got` is within its bound `α/(1 - α)·n·last_change` of the
/// power-iteration reference, plus the reference's own error and `slack`
/// ([`pull_rounding_slack`]). Returns the L1 distance.
///
/// # Errors
/// [`PageRankError::LengthMismatch`] or [`PageRankError::BoundExceeded`].
pub fn verify_within_pull_bound(
    got: &PullPageRank,
    exact: &PowerIteration,
    alpha: f64,
    slack: f64,
) -> Result<f64, PageRankError> {
    if got.ranks.len() != exact.ranks.len() {
        return Err(PageRankError::LengthMismatch { expected: exact.ranks.len(), got: got.ranks.len() });
    }
    let l1 = l1_distance(&got.ranks, &exact.ranks);
    let bound = got.error_bound(alpha) + exact.error_bound + slack;
    if l1 <= bound {
        Ok(l1)
    } else {
        Err(PageRankError::BoundExceeded { l1, bound })
    }
}
