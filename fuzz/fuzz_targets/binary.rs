//! Fuzzes the `.ordo` binary reader (`ordo_graph::binary::from_bytes`): it
//! must never panic, and any graph it accepts must be a valid CSR that
//! survives a write/read round trip unchanged.
//!
//! Random bytes almost never pass the checksums, so when the first input
//! byte is odd the rest is given the `.ordo` magic and resealed (both
//! checksums recomputed) first: the fuzzer then explores the header fields,
//! the size checks and the CSR validation behind them.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ordo_graph::binary;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 {
        if bytes.len() >= 8 {
            bytes[..8].copy_from_slice(&binary::MAGIC);
        }
        binary::reseal(&mut bytes);
    }
    if let Ok(g) = binary::from_bytes(Path::new("fuzz.ordo"), &bytes) {
        g.validate().expect("accepted graph violates the CSR invariants");
        let again = binary::from_bytes(Path::new("again.ordo"), &binary::to_bytes(&g))
            .expect("a written graph must read back");
        assert!(again == g, "round trip changed the graph");
    }
});
