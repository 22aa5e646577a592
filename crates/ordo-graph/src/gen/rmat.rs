//! R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004) and the Graph500 Kronecker
//! generator built on it.
//!
//! Each of the `ef · 2^scale` edges picks, `scale` times, one quadrant of the
//! adjacency matrix with probabilities `a, b, c, d = 1 - a - b - c` (Graph500:
//! 0.57, 0.19, 0.19, 0.05), one bit of the source and target per level. Each
//! level uses 32 random bits and branch-free quadrant selection. Unlike the
//! Graph500 reference code the parameters are not perturbed per level.
//! Weights are uniform in `wmin..=wmax`.
//!
//! `kron` is R-MAT followed by a random relabelling of the vertices (Graph500
//! scrambling), symmetrization (both directions the same weight) and removal
//! of self loops and parallel edges (least weight kept), as the GAP benchmark
//! suite builds its `-g` graphs.

use rand::{Rng, RngExt};

use super::{build_csr, par_fill, stream_rng, RmatParams, EDGES_PER_STREAM};
use crate::csr::Graph;
use crate::memory::{try_filled, MemoryError};

/// The quadrant thresholds of `p` as 32-bit fixed point: `a`, `a + b`,
/// `a + b + c`.
fn thresholds(p: &RmatParams) -> (u64, u64, u64) {
    let to_u32 = |x: f64| (x.clamp(0.0, 1.0) * 4_294_967_296.0).min(4_294_967_295.0) as u64;
    (to_u32(p.a), to_u32(p.a + p.b), to_u32(p.a + p.b + p.c))
}

/// Fills the edges of random stream `chunk` (before any relabelling):
/// sources `s`, targets `d`, weights `w`, as many as the slices hold.
pub(crate) fn fill_chunk(p: &RmatParams, chunk: usize, s: &mut [u32], d: &mut [u32], w: &mut [u32]) {
    let (ta, tab, tabc) = thresholds(p);
    let wr = p.weights;
    let mut rng = stream_rng(p.seed, chunk as u64);
    for ((s, d), w) in s.iter_mut().zip(d.iter_mut()).zip(w.iter_mut()) {
        let (mut u, mut v) = (0u32, 0u32);
        let mut bits = 0u64;
        for level in 0..p.scale {
            if level % 2 == 0 {
                bits = rng.next_u64();
            }
            let r = bits & 0xFFFF_FFFF;
            bits >>= 32;
            let bu = (r >= tab) as u32;
            let bv = ((r >= ta) & (r < tab)) as u32 | (r >= tabc) as u32;
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        *s = u;
        *d = v;
        *w = rng.random_range(wr.lo..=wr.hi);
    }
}

/// The Graph500 scrambling permutation of the `2^scale` vertex ids
/// (one sequential Fisher–Yates shuffle of its own random stream).
pub(crate) fn permutation(p: &RmatParams) -> Vec<u32> {
    let n = 1usize << p.scale;
    let mut rng = stream_rng(p.seed, u64::MAX);
    let mut perm: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        perm.swap(i, rng.random_range(0..=i));
    }
    perm
}

/// Generates the R-MAT / Kronecker graph on `threads` threads, with its
/// weights when `weighted` (the edges are the same either way).
pub(crate) fn generate(p: &RmatParams, threads: usize, weighted: bool) -> Result<Graph, MemoryError> {
    let n = 1usize << p.scale;
    let m = n * p.edge_factor as usize;
    let mut src = try_filled(0u32, m, "the generated sources")?;
    let mut dst = try_filled(0u32, m, "the generated targets")?;
    let mut wts = if weighted { Some(try_filled(0u32, m, "the generated weights")?) } else { None };
    par_fill(threads, EDGES_PER_STREAM, &mut src, &mut dst, wts.as_deref_mut(), |chunk, s, d, w| {
        fill_chunk(p, chunk, s, d, w)
    });
    if p.permute {
        let perm = permutation(p);
        let relabel = |a: &mut [u32]| {
            for x in a {
                *x = perm[*x as usize];
            }
        };
        std::thread::scope(|s| {
            s.spawn(|| relabel(&mut src));
            relabel(&mut dst);
        });
    }
    Ok(build_csr(n, src, dst, wts, p.symmetric, p.simple, threads))
}
