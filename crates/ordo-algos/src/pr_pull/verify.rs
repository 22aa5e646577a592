//! Verification of PageRank by pull against the sequential loop.
//!
//! **Bound: exact.** Every rank is computed by the same expression on the
//! same inputs in the same order in the parallel and the sequential loop
//! (the sum over the in-edges in CSR order, by one thread), and the previous
//! iteration's ranks are equal by induction; so after the same number of
//! iterations the ranks are equal bit for bit. (Rust does not contract
//! `a + b·c` into fused multiply-adds nor reassociate sums, so this holds for
//! any compiler optimisation level.)
//!
//! **Stopping.** Only the L1 change is summed in a different order (per
//! thread, then across threads), so it may differ from the sequential sum by
//! rounding: at most `n·u·Σ|Δ|` with `u = 2^-53`, i.e. relative `n·1.2e-16`,
//! below [`STOP_SLACK`] = `1e-9` for graphs of up to 10^6 vertices and beyond.
//! The parallel run must stop at the reference's iteration, except when the
//! reference's change at either iteration is within `STOP_SLACK` (relative)
//! of the tolerance; then it is compared with the reference run for its own
//! number of iterations, again exactly.
//!
//! Distance to the true PageRank: the iteration map is a contraction with
//! factor `d` in L1 (its matrix has column sums at most 1), so after an
//! iteration with change `δ` the ranks are within `d/(1-d)·δ` of the fixed
//! point in L1; [`fixed_point_bound`] states it, and the tests check it
//! against a reference iterated to convergence.

use ordo_graph::Graph;

use super::{reference, PrPullParams, PrPullResult, Stop};
use crate::AlgoError;

/// Relative slack on the tolerance test for the order of the L1 sum.
pub const STOP_SLACK: f64 = 1e-9;

/// Checks `result` against the sequential loop (see the module docs):
/// same iteration count (up to rounding at the tolerance) and bit-equal
/// ranks. Returns the reference run it was compared with.
pub fn verify(
    graph: &Graph,
    transpose: &Graph,
    params: &PrPullParams,
    result: &PrPullResult,
) -> Result<PrPullResult, AlgoError> {
    let expected = reference::pr_pull(graph, transpose, params)?;
    verify_against(graph, transpose, params, result, expected)
}

/// [`verify`] with the reference run of `params` already at hand.
pub fn verify_against(
    graph: &Graph,
    transpose: &Graph,
    params: &PrPullParams,
    result: &PrPullResult,
    expected: PrPullResult,
) -> Result<PrPullResult, AlgoError> {
    let expected = if expected.iterations == result.iterations {
        expected
    } else {
        let borderline = match params.stop {
            Stop::Iterations(_) => false,
            Stop::Tolerance { tolerance, .. } => {
                let near = |k: u32| {
                    k >= 1
                        && expected
                            .changes
                            .get(k as usize - 1)
                            .is_some_and(|&c| (c - tolerance).abs() <= STOP_SLACK * tolerance)
                };
                let (a, b) =
                    (expected.iterations.min(result.iterations), expected.iterations.max(result.iterations));
                b == a + 1 && (near(a) || near(b))
            }
        };
        if !borderline {
            return Err(AlgoError::ValueMismatch {
                what: "iterations".into(),
                expected: expected.iterations.to_string(),
                got: result.iterations.to_string(),
            });
        }
        let fixed = PrPullParams { stop: Stop::Iterations(result.iterations), ..*params };
        reference::pr_pull(graph, transpose, &fixed)?
    };
    compare_ranks(&expected.ranks, &result.ranks)?;
    Ok(expected)
}

/// Bit-exact comparison of two rank vectors, naming the first difference.
pub fn compare_ranks(expected: &[f64], got: &[f64]) -> Result<(), AlgoError> {
    if expected.len() != got.len() {
        return Err(AlgoError::LengthMismatch { expected: expected.len(), got: got.len() });
    }
    match expected.iter().zip(got).position(|(e, g)| e.to_bits() != g.to_bits()) {
        None => Ok(()),
        Some(v) => Err(AlgoError::Mismatch {
            vertex: v,
            expected: format!("{:e}", expected[v]),
            got: format!("{:e}", got[v]),
        }),
    }
}

/// The L1 distance to the true PageRank that an iteration with change
/// `change` guarantees: `d/(1-d)·change` (see the module docs).
pub fn fixed_point_bound(damping: f64, change: f64) -> f64 {
    damping / (1.0 - damping) * change
}
