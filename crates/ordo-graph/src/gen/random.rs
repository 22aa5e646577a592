//! Uniform random directed graph: `m` edges, each with a source and a target
//! drawn uniformly from `0..n` (target redrawn while it equals the source, so
//! there are no self loops; parallel edges may occur, as in the multigraph
//! variant of Erdős–Rényi `G(n, m)`), and a uniform weight.
//!
//! Read as undirected and simplified (`transform::symmetrize_simple`, as
//! the spanning-forest programs do) this is the "Random Graph" of the XWS
//! paper (Cong et al., ICPP 2008, §1.4: "randomly adding m unique edges"):
//! its code draws `m = 4n` vertex pairs and drops the repeated ones, as the
//! simplification does (a handful of pairs at `m = 4n`). The paper's code
//! also links the components into one; here the isolated vertices and small
//! components stay, and spanning forests root each.

use rand::RngExt;

use super::{build_csr, par_fill, stream_rng, RandomParams, EDGES_PER_STREAM};
use crate::csr::Graph;
use crate::memory::{try_filled, MemoryError};

/// Fills the edges of random stream `chunk`: sources `s`, targets `d`,
/// weights `w`, as many as the slices hold.
pub(crate) fn fill_chunk(p: &RandomParams, chunk: usize, s: &mut [u32], d: &mut [u32], w: &mut [u32]) {
    let hi = (p.n.max(1) - 1) as u32;
    let wr = p.weights;
    let mut rng = stream_rng(p.seed, chunk as u64);
    for ((s, d), w) in s.iter_mut().zip(d.iter_mut()).zip(w.iter_mut()) {
        let u = rng.random_range(0..=hi);
        let mut v = rng.random_range(0..=hi);
        while v == u {
            v = rng.random_range(0..=hi);
        }
        *s = u;
        *d = v;
        *w = rng.random_range(wr.lo..=wr.hi);
    }
}

/// Generates the random graph on `threads` threads, with its weights when
/// `weighted` (the edges are the same either way).
pub(crate) fn generate(p: &RandomParams, threads: usize, weighted: bool) -> Result<Graph, MemoryError> {
    let (n, m) = (p.n as usize, p.m as usize);
    let mut src = try_filled(0u32, m, "the generated sources")?;
    let mut dst = try_filled(0u32, m, "the generated targets")?;
    let mut wts = if weighted { Some(try_filled(0u32, m, "the generated weights")?) } else { None };
    par_fill(threads, EDGES_PER_STREAM, &mut src, &mut dst, wts.as_deref_mut(), |chunk, s, d, w| {
        fill_chunk(p, chunk, s, d, w)
    });
    Ok(build_csr(n, src, dst, wts, false, false, threads))
}
