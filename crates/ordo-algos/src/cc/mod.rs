//! Connected components by Afforest (Sutton, Ben-Nun and Barak, "Optimizing
//! Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS
//! 2018; the GAPBS `cc` kernel): weakly connected components of any graph,
//! one label per vertex, the smallest vertex id of its component.
//!
//! # Method
//! Every vertex `v` holds a parent `parent[v] <= v` in a forest whose trees
//! are subsets of components; a root is its own parent. Linking an edge
//! `(u, v)` climbs from both endpoints and hooks the higher of the two roots
//! it reaches under the lower one with one compare-and-swap ([`link`]), so
//! parents only ever decrease and a root is hooked at most once.
//!
//! 1. Neighbour rounds: for `r` in `0..NEIGHBOR_ROUNDS`, every vertex links
//!    its `r`-th out-edge, then a compress pass points every vertex at its
//!    root. A couple of edges per vertex already join most of a large
//!    component (a sampled subgraph of a graph with a giant component has
//!    one too).
//! 2. Sampling: the most frequent root among [`SAMPLES`] random vertices is
//!    taken as the largest intermediate component `c`.
//! 3. Finish: every vertex whose parent is not `c` links its remaining
//!    out-edges. A vertex found in `c` is skipped: an undirected edge with
//!    one end outside `c` is linked from that end, and one with both ends in
//!    `c`'s tree joins vertices already joined. On a directed graph an edge
//!    `u → v` with `u` in `c` is not among `v`'s out-edges, so either the
//!    skipped vertices' edges are reached through `v`'s in-edges (GAPBS,
//!    which needs the transpose: [`Finish::SkipWithInEdges`]) or nobody is
//!    skipped ([`Finish::All`], no transpose).
//! 4. A final compress. Every parent chain decreases, so a tree's root is
//!    its smallest member, and after the compress `parent[v]` is the
//!    smallest vertex id of `v`'s component: the labels are canonical
//!    without a relabelling pass.
//!
//! # Memory ordering
//! The parent array is the only shared state and holds only vertex ids that
//! point into itself, so every access is `Relaxed`. Within a linking phase a
//! parent changes only by a successful CAS `high → low` on a root `high`,
//! so every location's value only ever decreases from its own id to one
//! final value; a CAS is an atomic read-modify-write, so two threads cannot
//! both hook one root. A stale read of a parent is an ancestor that is no
//! longer a root, and the climb goes on from there. Compress passes run
//! between linking phases, separated by the pool's join, and only replace
//! a parent by one of its ancestors. `loom_model` checks linking on two and
//! three threads.

pub mod app;
#[cfg(all(test, loom))]
mod loom_model;
pub mod reference;
#[cfg(all(test, not(loom)))]
mod test;
pub mod verify;

#[cfg(loom)]
use loom::sync::atomic::AtomicU32;
use std::collections::HashMap;
#[cfg(not(loom))]
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use ordo_exec::Pool;
use ordo_graph::{Graph, VertexId};

/// Out-edges each vertex links before sampling (the paper's and GAPBS's 2).
pub const NEIGHBOR_ROUNDS: usize = 2;

/// Vertices sampled to find the largest intermediate component (GAPBS's
/// 1024).
pub const SAMPLES: usize = 1024;

/// Vertices per chunk of the parallel loops, GAPBS's `schedule(dynamic,
/// 16384)`: large enough that claiming is rare, small enough to balance
/// the hubs of a skewed graph.
const GRAIN: usize = 16_384;

/// How the finishing phase covers the edges of the vertices it skips.
#[derive(Clone, Copy, Debug)]
pub enum Finish<'g> {
    /// The graph is symmetric: skip the vertices of the sampled component.
    Skip,
    /// A directed graph and its in-edges: skip the vertices of the sampled
    /// component, and link every other vertex's in-edges as well (GAPBS).
    SkipWithInEdges(&'g Graph),
    /// A directed graph without its in-edges: every vertex links all its
    /// remaining out-edges.
    All,
}

/// The weakly connected components of `graph` by Afforest on `pool`: a
/// label per vertex, the smallest vertex id of its component. `finish`
/// says how the edges of skipped vertices are reached (module docs); any
/// choice gives the same labels, [`Finish::Skip`] only on a symmetric graph.
///
/// `O(m)` work with near-constant-time links in practice; `4 n` bytes
/// besides the result.
///
/// ```
/// use ordo_algos::cc::{afforest, Finish};
/// use ordo_exec::Pool;
/// use ordo_graph::EdgeList;
///
/// // 0 → 1 ← 2, and 3 alone: weak components {0, 1, 2} and {3}.
/// let mut edges = EdgeList::new(4, false);
/// edges.push(0, 1, 1);
/// edges.push(2, 1, 1);
/// let graph = edges.into_graph().unwrap();
/// let pool = Pool::new(2).unwrap();
/// assert_eq!(afforest(&pool, &graph, Finish::All), vec![0, 0, 0, 3]);
/// ```
pub fn afforest(pool: &Pool, graph: &Graph, finish: Finish<'_>) -> Vec<VertexId> {
    afforest_with_grain(pool, graph, finish, GRAIN)
}

/// [`afforest`] with loops of chunks of `grain` vertices (tests use small
/// chunks so that small graphs are shared between threads).
pub(crate) fn afforest_with_grain(
    pool: &Pool,
    graph: &Graph,
    finish: Finish<'_>,
    grain: usize,
) -> Vec<VertexId> {
    let n = graph.num_vertices();
    let parent = Parents::singletons(n);
    let (offsets, targets) = (graph.offsets(), graph.targets());
    for round in 0..NEIGHBOR_ROUNDS {
        pool.for_chunks(n, grain, |chunk| {
            for u in chunk {
                let e = offsets[u] as usize + round;
                if e < offsets[u + 1] as usize {
                    parent.link(u as VertexId, targets[e]);
                }
            }
        });
        parent.compress(pool, grain);
    }
    let skip = match finish {
        Finish::All => None,
        Finish::Skip | Finish::SkipWithInEdges(_) => parent.most_frequent_root(),
    };
    let in_edges = match finish {
        Finish::SkipWithInEdges(t) => Some((t.offsets(), t.targets())),
        _ => None,
    };
    pool.for_chunks(n, grain, |chunk| {
        for u in chunk {
            if skip.is_some_and(|c| parent.get(u as VertexId) == c) {
                continue;
            }
            let first = offsets[u] as usize + NEIGHBOR_ROUNDS;
            for &v in targets.get(first..offsets[u + 1] as usize).unwrap_or(&[]) {
                parent.link(u as VertexId, v);
            }
            if let Some((in_offsets, sources)) = in_edges {
                for &v in &sources[in_offsets[u] as usize..in_offsets[u + 1] as usize] {
                    parent.link(u as VertexId, v);
                }
            }
        }
    });
    parent.compress(pool, grain);
    parent.into_labels()
}

/// The forest of parents shared by the phases (module docs).
pub(crate) struct Parents {
    parent: Vec<AtomicU32>,
}

impl Parents {
    /// Every vertex its own root.
    pub(crate) fn singletons(n: usize) -> Self {
        Parents { parent: (0..n).map(|v| AtomicU32::new(v as VertexId)).collect() }
    }

    #[inline]
    pub(crate) fn get(&self, v: VertexId) -> VertexId {
        self.parent[v as usize].load(Relaxed)
    }

    /// Joins the trees of `u` and `v`: climbs from both until the two
    /// climbs meet, or the higher one stands on a root, which is then
    /// hooked under the lower with one CAS. Lock-free: a failed CAS means
    /// another thread hooked that root, and the climb goes on above it.
    #[inline]
    pub(crate) fn link(&self, u: VertexId, v: VertexId) {
        let mut a = self.get(u);
        let mut b = self.get(v);
        while a != b {
            let (high, low) = if a > b { (a, b) } else { (b, a) };
            let above = self.get(high);
            // Already hooked under `low`, or hooked now: the trees are one.
            if above == low
                || (above == high
                    && self.parent[high as usize].compare_exchange(high, low, Relaxed, Relaxed).is_ok())
            {
                return;
            }
            // `high` is no root (or was just hooked): climb two steps from
            // it, one from `low`, as GAPBS does.
            a = self.get(self.get(high));
            b = self.get(low);
        }
    }

    /// Points every vertex at its root. Runs alone (between linking
    /// phases): each store replaces a parent by one of its ancestors.
    pub(crate) fn compress(&self, pool: &Pool, grain: usize) {
        pool.for_chunks(self.parent.len(), grain, |chunk| {
            for v in chunk {
                self.compress_one(v as VertexId);
            }
        });
    }

    #[inline]
    pub(crate) fn compress_one(&self, v: VertexId) {
        let mut p = self.get(v);
        let mut grand = self.get(p);
        while p != grand {
            self.parent[v as usize].store(grand, Relaxed);
            p = grand;
            grand = self.get(p);
        }
    }

    /// The most frequent root among [`SAMPLES`] vertices drawn with a fixed
    /// seed (after a compress, a parent is a root); `None` on the empty
    /// graph.
    fn most_frequent_root(&self) -> Option<VertexId> {
        let n = self.parent.len() as u64;
        if n == 0 {
            return None;
        }
        let mut counts: HashMap<VertexId, u32> = HashMap::with_capacity(64);
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..SAMPLES {
            state = splitmix64(&mut state);
            // Multiply-shift maps the 64 random bits to 0..n without modulo bias
            // beyond 2^-32.
            let v = ((u128::from(state) * u128::from(n)) >> 64) as VertexId;
            *counts.entry(self.get(v)).or_insert(0) += 1;
        }
        // Ties go to the smaller root, so the choice does not depend on the
        // map's iteration order.
        counts.into_iter().max_by_key(|&(root, count)| (count, std::cmp::Reverse(root))).map(|(root, _)| root)
    }

    /// The parents as plain ids.
    pub(crate) fn into_labels(self) -> Vec<VertexId> {
        self.parent.iter().map(|p| p.load(Relaxed)).collect()
    }
}

/// The next value of the splitmix64 sequence (Steele, Lea and Flood, 2014).
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Facts of a labelling: the number of components and the size of the
/// largest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComponentStats {
    /// Components (vertices that are their own label).
    pub components: u64,
    /// Vertices in the largest component (0 on the empty graph).
    pub largest: u64,
}

/// The number of weakly connected components of `graph` and the size of the
/// largest, by [`afforest`] on `pool` (`symmetric`: whether every edge of
/// `graph` has its reverse, so that the sampled component can be skipped
/// without in-edges).
pub fn weak_component_stats(pool: &Pool, graph: &Graph, symmetric: bool) -> ComponentStats {
    let finish = if symmetric { Finish::Skip } else { Finish::All };
    component_stats(&afforest(pool, graph, finish))
}

/// Counts the components of canonical labels (every label a vertex of its
/// component that labels itself), sequentially in `O(n)`.
pub fn component_stats(labels: &[VertexId]) -> ComponentStats {
    let mut sizes = vec![0u32; labels.len()];
    for &l in labels {
        sizes[l as usize] += 1;
    }
    let components = labels.iter().enumerate().filter(|&(v, &l)| v == l as usize).count() as u64;
    ComponentStats { components, largest: sizes.iter().copied().max().map_or(0, u64::from) }
}
