//! Fuzz target: the coordinate readers (DIMACS `.co` and `.xyz`, chosen by
//! content) must never panic; the first byte is the vertex count.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ordo_graph::load::parse_coords;

fuzz_target!(|data: &[u8]| {
    let Some((&n, input)) = data.split_first() else { return };
    if let Ok(c) = parse_coords(Path::new("fuzz.co"), input, n as usize) {
        assert_eq!(c.len(), n as usize);
        assert!(c.x.iter().chain(c.y.iter()).all(|v| v.is_finite()));
    }
});
