//! Machinery shared by the generators: seeded random streams independent
//! of the thread count, a chunked parallel fill, and the CSR builder for
//! generated edge arrays.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::csr::Graph;
use crate::weights::splitmix64;

/// The random stream number `stream` of `seed`: streams are independent
/// of each other and of the thread that consumes them.
pub(crate) fn stream_rng(seed: u64, stream: u64) -> Xoshiro256PlusPlus {
    // SplitMix64 decorrelates the seeds of neighbouring streams.
    Xoshiro256PlusPlus::seed_from_u64(splitmix64(seed ^ splitmix64(stream)))
}

/// Edges produced by one random stream in the chunked generators.
pub(crate) const EDGES_PER_STREAM: usize = 1 << 16;

/// Fills `a`, `b` and, when given, `w` (equal lengths) in chunks of `chunk`
/// elements on `threads` threads; `f(chunk_index, a, b, w)` fills one chunk.
/// Which thread runs a chunk does not affect the result. Without `w` each
/// thread hands `f` a scratch chunk for the weights and forgets them: the
/// random streams are drawn exactly as for a weighted graph (so the edges are
/// the same), but no weight array is held.
pub(crate) fn par_fill<F>(
    threads: usize,
    chunk: usize,
    a: &mut [u32],
    b: &mut [u32],
    w: Option<&mut [u32]>,
    f: F,
) where
    F: Fn(usize, &mut [u32], &mut [u32], &mut [u32]) + Sync,
{
    let has_weights = w.is_some();
    let weight_chunks =
        w.into_iter().flat_map(|w| w.chunks_mut(chunk).map(Some)).chain(std::iter::repeat_with(|| None));
    let mut jobs: Vec<_> = a
        .chunks_mut(chunk)
        .zip(b.chunks_mut(chunk))
        .zip(weight_chunks)
        .enumerate()
        .map(|(i, ((a, b), w))| (i, a, b, w))
        .collect();
    if jobs.is_empty() {
        return;
    }
    let per_thread = jobs.len().div_ceil(threads.max(1));
    std::thread::scope(|s| {
        for group in jobs.chunks_mut(per_thread) {
            let f = &f;
            s.spawn(move || {
                let mut scratch = if has_weights { Vec::new() } else { vec![0u32; chunk] };
                for (i, a, b, w) in group.iter_mut() {
                    let len = a.len();
                    let w: &mut [u32] = match w {
                        Some(w) => w,
                        None => &mut scratch[..len],
                    };
                    f(*i, a, b, w);
                }
            });
        }
    });
}

/// Builds a CSR graph from generated edge arrays (consumed, and freed as
/// soon as they are read): with `symmetric`, every edge `(u, v, w)` with
/// `u != v` also yields `(v, u, w)`; with `simple`, self loops are dropped
/// and parallel edges merged (least weight kept) and each adjacency list is
/// sorted by target. Without `simple` the out-edges of each vertex keep
/// their order in the arrays (a stable counting sort). Without `wts` the
/// graph is unweighted, with the same edges.
///
/// An out-of-place scatter (fast for the random edge orders generators
/// produce) plus, for `simple`, a per-vertex sort on `threads` threads of
/// `[target, weight]` pairs (or bare targets), deduplicated and compacted in
/// place. Peak memory: the generated arrays plus the scattered edges (plus
/// the deduplicated weights for a weighted simple graph).
pub(crate) fn build_csr(
    n: usize,
    src: Vec<u32>,
    dst: Vec<u32>,
    wts: Option<Vec<u32>>,
    symmetric: bool,
    simple: bool,
    threads: usize,
) -> Graph {
    let keep = |u: u32, v: u32| !(simple && u == v);
    let mut offsets = vec![0u64; n + 1];
    for (&u, &v) in src.iter().zip(&dst) {
        if keep(u, v) {
            offsets[u as usize + 1] += 1;
            if symmetric && u != v {
                offsets[v as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let m = offsets[n] as usize;
    let mut cursor: Vec<u64> = offsets[..n].to_vec();
    let mut slot_of = |a: u32| {
        let slot = cursor[a as usize] as usize;
        cursor[a as usize] += 1;
        slot
    };
    match (simple, wts) {
        (false, wts) => {
            let mut targets = vec![0u32; m];
            let mut weights = wts.as_ref().map(|_| vec![0u32; m]);
            for (i, (&u, &v)) in src.iter().zip(&dst).enumerate() {
                let w = wts.as_ref().map_or(0, |w| w[i]);
                let mut put = |a: u32, b: u32| {
                    let slot = slot_of(a);
                    targets[slot] = b;
                    if let Some(ws) = &mut weights {
                        ws[slot] = w;
                    }
                };
                put(u, v);
                if symmetric && u != v {
                    put(v, u);
                }
            }
            Graph::from_parts(offsets.into(), targets.into(), weights.map(Into::into), None)
                .expect("generator built an invalid CSR (bug)")
        }
        (true, None) => {
            let mut targets = vec![0u32; m];
            for (&u, &v) in src.iter().zip(&dst) {
                if u != v {
                    targets[slot_of(u)] = v;
                    if symmetric {
                        targets[slot_of(v)] = u;
                    }
                }
            }
            drop((src, dst, cursor));
            let new_deg = sort_dedup_lists(&offsets, &mut targets, threads, |t| *t);
            let offsets = compact_lists(&offsets, &new_deg, &mut targets);
            targets.shrink_to_fit();
            Graph::from_parts(offsets.into(), targets.into(), None, None)
                .expect("generator built an invalid CSR (bug)")
        }
        (true, Some(wts)) => {
            // Pairs sort by target, then weight: the first of each target
            // is the least weight.
            let mut pairs = vec![[0u32; 2]; m];
            for ((&u, &v), &w) in src.iter().zip(&dst).zip(&wts) {
                if u != v {
                    pairs[slot_of(u)] = [v, w];
                    if symmetric {
                        pairs[slot_of(v)] = [u, w];
                    }
                }
            }
            drop((src, dst, wts, cursor));
            let new_deg = sort_dedup_lists(&offsets, &mut pairs, threads, |p| p[0]);
            let offsets = compact_lists(&offsets, &new_deg, &mut pairs);
            pairs.shrink_to_fit();
            let weights: Vec<u32> = pairs.iter().map(|p| p[1]).collect();
            let targets = into_first_halves(pairs);
            Graph::from_parts(offsets.into(), targets.into(), Some(weights.into()), None)
                .expect("generator built an invalid CSR (bug)")
        }
    }
}

/// Sorts each adjacency list `items[offsets[v]..offsets[v + 1]]` and moves its
/// distinct targets (`target(item)`; the first item of each target after
/// sorting) to its front, in parallel over vertex ranges of about equal edge
/// counts. Returns the number of distinct targets per vertex.
fn sort_dedup_lists<T: Ord + Copy + Send>(
    offsets: &[u64],
    items: &mut [T],
    threads: usize,
    target: impl Fn(&T) -> u32 + Sync,
) -> Vec<u64> {
    let n = offsets.len() - 1;
    let m = items.len();
    let mut new_deg = vec![0u64; n];
    let threads = threads.clamp(1, n.max(1));
    let mut bounds = vec![0usize];
    for t in 1..threads {
        let goal = (m as u64 * t as u64) / threads as u64;
        let v = offsets.partition_point(|&o| o < goal).min(n);
        bounds.push(v.max(*bounds.last().expect("non-empty")));
    }
    bounds.push(n);
    std::thread::scope(|s| {
        let mut rest_items: &mut [T] = items;
        let mut rest_deg: &mut [u64] = &mut new_deg;
        for part in bounds.windows(2) {
            let (lo, hi) = (part[0], part[1]);
            let edges = (offsets[hi] - offsets[lo]) as usize;
            let (k, kr) = std::mem::take(&mut rest_items).split_at_mut(edges);
            let (d, dr) = std::mem::take(&mut rest_deg).split_at_mut(hi - lo);
            rest_items = kr;
            rest_deg = dr;
            let base = offsets[lo] as usize;
            let target = &target;
            s.spawn(move || {
                for v in lo..hi {
                    let list = &mut k[offsets[v] as usize - base..offsets[v + 1] as usize - base];
                    list.sort_unstable();
                    let mut len = 0;
                    for i in 0..list.len() {
                        if len == 0 || target(&list[i]) != target(&list[len - 1]) {
                            list[len] = list[i];
                            len += 1;
                        }
                    }
                    d[v - lo] = len as u64;
                }
            });
        }
    });
    new_deg
}

/// Moves the first `new_deg[v]` items of each list of `items` (laid out by
/// `offsets`) to the front, in vertex order, truncates `items` to them and
/// returns their offsets. In place: an item only ever moves left.
fn compact_lists<T: Copy>(offsets: &[u64], new_deg: &[u64], items: &mut Vec<T>) -> Vec<u64> {
    let mut new_offsets = Vec::with_capacity(offsets.len());
    new_offsets.push(0u64);
    let mut end = 0usize;
    for (v, &deg) in new_deg.iter().enumerate() {
        let start = offsets[v] as usize;
        items.copy_within(start..start + deg as usize, end);
        end += deg as usize;
        new_offsets.push(end as u64);
    }
    items.truncate(end);
    new_offsets
}

/// The first element of every pair, in the pairs' own allocation (which is
/// then shrunk to fit): no second array of targets is held beside the pairs.
fn into_first_halves(pairs: Vec<[u32; 2]>) -> Vec<u32> {
    let len = pairs.len();
    let mut flat = {
        let mut pairs = std::mem::ManuallyDrop::new(pairs);
        let (ptr, cap) = (pairs.as_mut_ptr(), pairs.capacity());
        // SAFETY: `[u32; 2]` and `u32` have the same alignment and the pair is
        // exactly two `u32`s without padding, so the allocation of `cap`
        // pairs is the allocation of `2 cap` `u32`s (same size, same
        // alignment, as `from_raw_parts` requires), of which the first
        // `2 len` are initialised. `pairs` is not dropped, so the allocation
        // has one owner.
        unsafe { Vec::from_raw_parts(ptr.cast::<u32>(), 2 * len, 2 * cap) }
    };
    // Element i comes from position 2i >= i, read before anything is written
    // at or after i.
    for i in 0..len {
        flat[i] = flat[2 * i];
    }
    flat.truncate(len);
    flat.shrink_to_fit();
    flat
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_csr_matches_the_transforms() {
        use rand::RngExt;
        let mut rng = stream_rng(5, 5);
        for n in [1usize, 2, 7, 50] {
            let m = 6 * n;
            let src: Vec<u32> = (0..m).map(|_| rng.random_range(0..n as u32)).collect();
            let dst: Vec<u32> = (0..m).map(|_| rng.random_range(0..n as u32)).collect();
            let w: Vec<u32> = (0..m).map(|_| rng.random_range(1..4u32)).collect();
            let reference = crate::csr::EdgeList {
                num_vertices: n,
                src: src.clone(),
                dst: dst.clone(),
                weights: Some(w.clone()),
                real_weights: None,
                coords: None,
            }
            .into_graph()
            .unwrap();
            let build = |weighted: bool, symmetric: bool, simple: bool, threads: usize| {
                let w = weighted.then(|| w.clone());
                build_csr(n, src.clone(), dst.clone(), w, symmetric, simple, threads)
            };
            let unweighted = |g: Graph| {
                let mut g = g;
                g.clear_weights();
                g
            };
            for threads in [1, 3] {
                for (symmetric, simple) in [(false, false), (true, true), (false, true), (true, false)] {
                    assert_eq!(
                        build(false, symmetric, simple, threads),
                        unweighted(build(true, symmetric, simple, threads)),
                        "the unweighted build has the weighted one's structure \
                         (symmetric {symmetric}, simple {simple})"
                    );
                }
                assert_eq!(build(true, false, false, threads), reference);
                assert_eq!(build(true, true, true, threads), crate::transform::symmetrize_simple(&reference));
                assert_eq!(
                    build(true, false, true, threads),
                    crate::transform::dedup_edges(&crate::transform::drop_self_loops(&reference))
                );
                let sym = build(true, true, false, threads);
                let mut a: Vec<_> = sym.edges().collect();
                let mut b: Vec<_> = crate::transform::symmetrize(&reference).edges().collect();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn stream_seeds_are_unchanged() {
        use rand::Rng;
        // Values from before the mixer came from rand_xoshiro: generated
        // graphs stay the same for the same spec.
        let firsts: Vec<u64> = [(1u64, 0u64), (1, 1), (99, u64::MAX)]
            .iter()
            .map(|&(s, k)| stream_rng(s, k).next_u64())
            .collect();
        assert_eq!(
            firsts,
            [13_546_732_021_235_704_531, 14_306_731_028_545_861_951, 16_194_590_041_610_559_520]
        );
    }
}
