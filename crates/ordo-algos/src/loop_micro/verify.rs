//! Verification of a microbenchmark run: its checksum must equal the closed
//! form exactly (a lost or repeated iteration changes the count; a swap of
//! one iteration for another changes the index sum).

use super::Checksum;
use crate::AlgoError;

/// Exact comparison of checksums.
pub fn verify(expected: &Checksum, got: &Checksum) -> Result<(), AlgoError> {
    for (what, e, g) in [
        ("iterations run", expected.iterations, got.iterations),
        ("sum of the iteration indices", expected.index_sum, got.index_sum),
        ("increments", expected.increments, got.increments),
    ] {
        if e != g {
            return Err(AlgoError::ValueMismatch {
                what: what.into(),
                expected: e.to_string(),
                got: g.to_string(),
            });
        }
    }
    Ok(())
}
