//! The k-out-regular random graph ("k-graph"): every vertex has exactly `k`
//! distinct out-neighbours other than itself, chosen uniformly at random
//! (Floyd's sampling), sorted by id, each edge with a uniform weight. The
//! in-degrees are binomial around `k`; the graph is directed.
//!
//! Read as undirected (`transform::symmetrize_simple`) with `k = 4` this is
//! the "k-graph" of the XWS paper's code (Cong et al., ICPP 2008): every
//! vertex joined to 4 random others, about `4n` undirected edges, average
//! degree about 8. (The paper's text calls it "geometric"; its code picks
//! the neighbours at random, but among the higher ids, with degrees capped
//! at 20, so its degrees grow with the id; here every vertex draws from all
//! others and degrees are binomial around `2k`.)

use std::collections::HashSet;

use rand::RngExt;

use super::{par_fill, stream_rng, KGraphParams};
use crate::csr::Graph;
use crate::memory::{try_filled, MemoryError};

/// Vertices per random stream.
pub(crate) const VERTICES_PER_STREAM: usize = 1 << 12;

/// Fills the out-neighbours `d` and weights `w` (`k` per vertex) of the
/// vertices of stream `chunk`: vertices `chunk · VERTICES_PER_STREAM ..`,
/// as many as `d` has room for.
pub(crate) fn fill_chunk(p: &KGraphParams, chunk: usize, d: &mut [u32], w: &mut [u32]) {
    let (n, k) = (p.n as usize, p.k as usize);
    let wr = p.weights;
    let mut rng = stream_rng(p.seed, chunk as u64);
    let first = chunk * VERTICES_PER_STREAM;
    let mut picked: Vec<u32> = Vec::with_capacity(k);
    let mut set = HashSet::new();
    for (j, (d, w)) in d.chunks_mut(k).zip(w.chunks_mut(k)).enumerate() {
        let v = (first + j) as u32;
        // Floyd: a uniform k-subset of the n - 1 other vertices, as
        // indices 0..n-1 where indices >= v are shifted up by one.
        picked.clear();
        set.clear();
        for top in (n - 1 - k)..(n - 1) {
            let t = rng.random_range(0..=top as u32);
            let seen = if k > 32 { set.contains(&t) } else { picked.contains(&t) };
            let chosen = if seen { top as u32 } else { t };
            picked.push(chosen);
            if k > 32 {
                set.insert(chosen);
            }
        }
        picked.sort_unstable();
        for (slot, &t) in d.iter_mut().zip(&picked) {
            *slot = if t >= v { t + 1 } else { t };
        }
        for x in w.iter_mut() {
            *x = rng.random_range(wr.lo..=wr.hi);
        }
    }
}

/// Generates the k-graph on `threads` threads, with its weights when
/// `weighted` (the edges are the same either way).
pub(crate) fn generate(p: &KGraphParams, threads: usize, weighted: bool) -> Result<Graph, MemoryError> {
    let (n, k) = (p.n as usize, p.k as usize);
    let m = n * k;
    let mut unused = try_filled(0u32, m, "the generated sources")?;
    let mut dst = try_filled(0u32, m, "the generated targets")?;
    let mut wts = if weighted { Some(try_filled(0u32, m, "the generated weights")?) } else { None };
    if k > 0 {
        par_fill(
            threads,
            VERTICES_PER_STREAM * k,
            &mut unused,
            &mut dst,
            wts.as_deref_mut(),
            |chunk, _, d, w| fill_chunk(p, chunk, d, w),
        );
    }
    drop(unused);
    let offsets: Vec<u64> = (0..=n as u64).map(|v| v * k as u64).collect();
    Ok(Graph::from_parts(offsets.into(), dst.into(), wts.map(Into::into), None)
        .expect("k-graph generator built an invalid CSR (bug)"))
}
