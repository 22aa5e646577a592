//! One bit per vertex: set when the vertex has at most two out-edges, so
//! that the SSSP operator reads a lowered vertex's adjacency (to skip dead
//! ends and follow chains) only for the vertices where that can pay off.
//!
//! Reading `offsets[u]` for every lowered vertex is a cache miss per
//! improvement; on a Kronecker graph of 2^20 vertices (most lowered vertices
//! have many edges) that cost a quarter of the run at one thread. The
//! bitmap (n / 8 bytes: 128 KiB for 10^6 vertices) stays in the cache.
//!
//! Whether a run follows at all is decided first, from a sample of the
//! graph ([`worth_following`]); a run that does not follow builds no bitmap.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use ordo_exec::Pool;
use ordo_graph::VertexId;

/// The vertices with at most two out-edges.
pub(crate) struct LowDegree {
    words: Vec<u64>,
}

impl LowDegree {
    /// No vertex: for a run that follows none.
    pub(crate) const NONE: LowDegree = LowDegree { words: Vec::new() };

    /// Builds the bitmap from a CSR offset array, the words split among the
    /// pool's threads.
    pub(crate) fn build(pool: &Pool, offsets: &[u64]) -> Self {
        let n = offsets.len().saturating_sub(1);
        let words: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let threads = pool.threads();
        let per = words.len().div_ceil(threads).max(1);
        pool.broadcast(&|tid| {
            let first = (tid * per).min(words.len());
            let last = ((tid + 1) * per).min(words.len());
            for (w, word) in words[first..last].iter().enumerate() {
                let base = (first + w) * 64;
                let len = 64.min(n - base);
                // Branch-free, so the loop vectorises.
                let mut bits = 0u64;
                for (bit, pair) in offsets[base..=base + len].windows(2).enumerate() {
                    bits |= u64::from(pair[1] - pair[0] <= 2) << bit;
                }
                word.store(bits, Relaxed);
            }
        });
        LowDegree { words: words.into_iter().map(AtomicU64::into_inner).collect() }
    }

    /// The bitmap, if following dead ends and chains can pay on this graph
    /// ([`worth_following`]); `None` otherwise.
    pub(crate) fn build_if_worth(pool: &Pool, offsets: &[u64], targets: &[VertexId]) -> Option<Self> {
        worth_following(offsets, targets).then(|| Self::build(pool, offsets))
    }

    /// Whether `v` has at most two out-edges.
    #[inline(always)]
    pub(crate) fn contains(&self, v: VertexId) -> bool {
        self.words[v as usize / 64] >> (v % 64) & 1 == 1
    }
}

/// Runs of consecutive vertices [`worth_following`] samples, evenly
/// spaced, and the vertices of each run (consecutive ones, so that the
/// sample reads a few cache lines of offsets and edges per run).
const SAMPLED_RUNS: usize = 64;
const RUN_VERTICES: usize = 64;
/// Out-edges of a sampled vertex it looks at, at most.
const SAMPLED_EDGES: usize = 8;
/// Two vertices whose ids differ by less than this are *near*: their
/// offsets lie within 8 KiB of each other.
const NEAR_IDS: u64 = 1024;

/// Whether following dead ends and chains at the lowering (the SSSP
/// operator's `follow_chain`) can pay on the graph of `offsets` and
/// `targets`, judged from [`SAMPLED_RUNS`] evenly spaced runs of
/// [`RUN_VERTICES`] vertices (every vertex of a smaller graph): at
/// least a tenth of them have one or two out-edges (candidates to follow),
/// and at least a quarter of their edges (the first [`SAMPLED_EDGES`] of
/// each) join near ids (a lowered vertex's adjacency is then likely in
/// the cache already: road networks in their usual orders).
///
/// Without that locality a followed vertex costs two dependent cache
/// misses (its offsets, then its first edge) in the middle of the task
/// that lowered it, where a task of its own has both prefetched by the
/// executor's batches, so on graphs whose edges join far ids (Kronecker,
/// social networks) a task for every lowered vertex is faster. On road
/// networks, where most edges are near and most vertices have degree one
/// or two, following saves pushes and rounds. A grid has nothing to
/// follow, and its runs are faster without the check. Measurements:
/// `docs/design/2026-11-30-auto-rounds.md`.
pub(crate) fn worth_following(offsets: &[u64], targets: &[VertexId]) -> bool {
    let n = offsets.len().saturating_sub(1);
    if n == 0 {
        return false;
    }
    let runs = SAMPLED_RUNS.min(n.div_ceil(RUN_VERTICES));
    let (mut samples, mut low, mut edges, mut near) = (0usize, 0usize, 0usize, 0usize);
    for r in 0..runs {
        // Runs start evenly spaced over the ids (the first at 0).
        let first = r * n / runs;
        for v in first..n.min(first + RUN_VERTICES) {
            let (lo, hi) = (offsets[v] as usize, offsets[v + 1] as usize);
            samples += 1;
            low += usize::from((1..=2).contains(&(hi - lo)));
            for &u in &targets[lo..hi.min(lo + SAMPLED_EDGES)] {
                edges += 1;
                near += usize::from(u64::from(u).abs_diff(v as u64) < NEAR_IDS);
            }
        }
    }
    low * 10 >= samples && near * 4 >= edges && edges > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_match_the_degrees_on_every_thread_count() {
        // Degrees 0, 1, 2, 3, ... cycling, over 200 vertices (not a multiple of 64).
        let mut offsets = vec![0u64];
        for v in 0..200u64 {
            offsets.push(offsets[v as usize] + v % 5);
        }
        for threads in [1, 2, 3] {
            let pool = Pool::new(threads).unwrap();
            let low = LowDegree::build(&pool, &offsets);
            for v in 0..200u32 {
                assert_eq!(low.contains(v), u64::from(v) % 5 <= 2, "vertex {v}, {threads} threads");
            }
        }
        let pool = Pool::new(2).unwrap();
        assert!(LowDegree::build(&pool, &[0]).words.is_empty());
    }

    /// The CSR arrays of an undirected graph on `n` vertices, given as
    /// `(u, v)` pairs (both directions stored).
    fn csr(n: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> (Vec<u64>, Vec<VertexId>) {
        let mut adjacency = vec![Vec::new(); n];
        for (u, v) in pairs {
            adjacency[u as usize].push(v);
            adjacency[v as usize].push(u);
        }
        let mut offsets = vec![0u64];
        for a in &adjacency {
            offsets.push(offsets.last().unwrap() + a.len() as u64);
        }
        (offsets, adjacency.concat())
    }

    #[test]
    fn following_is_chosen_for_chains_in_a_local_order_only() {
        let n = 200_000u32;
        // A path in id order: every vertex has one or two edges, all near.
        let (offsets, targets) = csr(n as usize, (1..n).map(|v| (v - 1, v)));
        assert!(worth_following(&offsets, &targets), "a path in id order");
        // The same path with its ids scattered (7919 is prime, coprime to
        // n): every edge joins ids about 7919 apart, none near.
        let scatter = |v: u32| ((u64::from(v) * 7919) % u64::from(n)) as u32;
        let (offsets, targets) = csr(n as usize, (1..n).map(|v| (scatter(v - 1), scatter(v))));
        assert!(!worth_following(&offsets, &targets), "a path in scattered order");
        // A 400 x 500 grid in row order: every edge near (at most 400 ids
        // apart), but nothing to follow (corners only have two edges).
        let (w, h) = (400u32, 500u32);
        let right = (0..w * h).filter(|v| v % w + 1 < w).map(|v| (v, v + 1));
        let down = (0..w * (h - 1)).map(|v| (v, v + w));
        let (offsets, targets) = csr((w * h) as usize, right.chain(down));
        assert!(!worth_following(&offsets, &targets), "a grid");
        // A star: every leaf has one edge, but most lie far from the hub.
        let (offsets, targets) = csr(n as usize, (1..n).map(|v| (0, v)));
        assert!(!worth_following(&offsets, &targets), "a star");
        // A small graph with chains: every id is near every other.
        let (offsets, targets) = csr(500, (1..500).map(|v| (v / 2, v)));
        assert!(worth_following(&offsets, &targets), "a small binary tree");
        // Nothing to sample.
        assert!(!worth_following(&[0], &[]), "no vertex");
        assert!(!worth_following(&[0, 0, 0], &[]), "no edge");
    }
}
