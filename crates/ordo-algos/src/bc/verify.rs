//! Verification of betweenness values against sequential Brandes.
//!
//! **Bound: relative `1e-9` per vertex** ([`RELATIVE_TOLERANCE`]), and exact
//! equality for zeros. Both sides compute the same sums of non-negative
//! terms in different orders and with differently rounded terms: the
//! reference pushes `σ(v)·(1 + δ(w))/σ(w)` to predecessors and adds sources
//! in increasing order; the kernel pulls `σ(w)/σ(v)·(1 + δ(v))` from
//! successors and adds each outer participant's partial sum at its `join`.
//! Path counts are sums of integers, exact below 2^53 in both. For sums of
//! non-negative terms each term's relative error adds up along at most
//! `L + 2` roundings for a BFS of depth `L`, and reordering a sum of `k`
//! non-negative terms changes it by at most `(k-1)·u` relative (`u = 2^-53
//! ≈ 1.1e-16`); with `k ≤ n` sources and `L ≤ n` that is below
//! `2n·1.1e-16 ≈ 2.2e-10` for `n ≤ 10^6` vertices. A value is 0 exactly when
//! no shortest path passes through the vertex, in both.

use crate::AlgoError;

/// The largest relative difference accepted per vertex.
pub const RELATIVE_TOLERANCE: f64 = 1e-9;

/// Checks `got` against `expected` within [`RELATIVE_TOLERANCE`]; names the
/// first vertex outside it. Returns the largest relative difference.
pub fn verify(expected: &[f64], got: &[f64]) -> Result<f64, AlgoError> {
    if expected.len() != got.len() {
        return Err(AlgoError::LengthMismatch { expected: expected.len(), got: got.len() });
    }
    let mut worst = 0.0f64;
    for (v, (&e, &g)) in expected.iter().zip(got).enumerate() {
        let diff = (e - g).abs();
        let ok = if e == 0.0 { g == 0.0 } else { diff <= RELATIVE_TOLERANCE * e.abs() };
        if !ok || !g.is_finite() {
            return Err(AlgoError::Mismatch {
                vertex: v,
                expected: format!("{e:.17e}"),
                got: format!("{g:.17e}"),
            });
        }
        if e != 0.0 {
            worst = worst.max(diff / e.abs());
        }
    }
    Ok(worst)
}
