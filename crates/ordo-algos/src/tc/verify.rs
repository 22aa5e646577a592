//! Verification of a triangle count: exact equality with the sequential
//! edge-iterator count ([`super::reference::triangles`]).

use crate::AlgoError;

/// The count must equal the reference exactly.
pub fn verify(expected: u64, got: u64) -> Result<(), AlgoError> {
    if expected == got {
        Ok(())
    } else {
        Err(AlgoError::ValueMismatch {
            what: "triangles".into(),
            expected: expected.to_string(),
            got: got.to_string(),
        })
    }
}
