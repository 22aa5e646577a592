//! Fuzz target: the DimacsGr reader through `load_bytes` must never panic,
//! whatever the bytes and options (the first byte picks the options).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ordo_graph::load::{load_bytes, Format};

mod common;

fuzz_target!(|data: &[u8]| {
    let (opts, input) = common::split_options(data);
    if let Ok(g) = load_bytes(Path::new("fuzz.in"), input, Format::DimacsGr, &opts) {
        common::check_graph(&g);
    }
});
