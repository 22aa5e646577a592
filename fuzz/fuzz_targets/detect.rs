//! Fuzz target: content-based format detection followed by `load_bytes`
//! (gzip included: inputs starting with 1f 8b are decompressed) must never
//! panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ordo_graph::load::{detect_format, load_bytes};

mod common;

fuzz_target!(|data: &[u8]| {
    let (opts, input) = common::split_options(data);
    let name = Path::new("fuzz.in");
    let format = detect_format(name, input);
    if let Ok(g) = load_bytes(name, input, format, &opts) {
        common::check_graph(&g);
    }
});
