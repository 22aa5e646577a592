//! Shared helpers of the fuzz targets: options from the first input byte,
//! and invariants every accepted graph must satisfy.

use ordo_graph::load::{LoadOptions, WeightSpec};
use ordo_graph::Graph;

/// Splits off the first byte and turns its bits into load options, so the
/// fuzzer explores remapping, base detection, symmetrization and weights.
pub fn split_options(data: &[u8]) -> (LoadOptions, &[u8]) {
    let Some((&b, rest)) = data.split_first() else {
        return (LoadOptions::default(), data);
    };
    let weights = match (b >> 4) & 3 {
        0 => WeightSpec::Keep,
        1 => WeightSpec::Unit,
        2 => WeightSpec::Uniform { lo: 1, hi: 100, seed: 7 },
        _ => WeightSpec::Euclidean,
    };
    let opts = LoadOptions {
        remap_ids: b & 1 != 0,
        symmetrize: b & 2 != 0,
        one_based: match (b >> 2) & 3 {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        },
        weights,
        ..LoadOptions::default()
    };
    (opts, rest)
}

/// A graph that was accepted must be a valid CSR.
pub fn check_graph(g: &Graph) {
    g.validate().expect("accepted graph violates the CSR invariants");
    assert_eq!(g.offsets().len(), g.num_vertices() + 1);
}
