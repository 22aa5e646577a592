//! Parallel filter-Kruskal: the default minimum spanning forest kernel.
//!
//! Osipov, Sanders and Singler, "The Filter-Kruskal Minimum Spanning Tree
//! Algorithm" (ALENEX 2009). Kruskal's algorithm spends most of its time
//! sorting edges that can never enter the forest: once the light edges are
//! in, most heavy edges join two vertices of one tree already. Filter-Kruskal
//! sorts only what may matter:
//!
//! 1. pick a pivot key from a sample so that about as many edges are at most
//!    the pivot as there are trees left to join;
//! 2. solve the light edges (recursively, or by sort + scan once few);
//! 3. drop every heavy edge whose endpoints the light edges already joined
//!    (a *filter*: two look-ups in the flattened union-find);
//! 4. solve what survives, the same way.
//!
//! The partitions, the filters and the sorts are parallel (rayon's
//! `par_sort_unstable`, data-parallel filters on the run's thread pool); the
//! union-find scans of sorted runs are sequential and touch only the edges
//! that survive filtering, about `n` per level on dense graphs. Expected
//! work `O(m + n log n log(m / n))`.
//!
//! The top level reads the edges straight from the CSR graph, each undirected
//! edge once (`u < v`), and materialises only the light ones; the heavy ones
//! are read again after the light ones are solved, already filtered, so the
//! edges that cannot matter are never stored or sorted.
//!
//! # Exactness
//! An edge is packed into an integer key as `weight << 2b | u << b | v`
//! (`u < v`, `b` bits per vertex id): a `u64` when the weights and ids fit
//! (half the memory traffic of the sorts and filters), a `u128` otherwise.
//! Integer order is the total order `(weight, u, v)` of [`MsfEdge`], so the
//! forest is the unique one Kruskal's reference finds (module docs of
//! [`super`]). The scans consume the light edges of a split before any heavy
//! one and each sorted run in order, which is Kruskal's order restricted to
//! the edges not filtered; a filtered edge joins two vertices already joined
//! by lighter edges, which Kruskal would skip as well.

use std::time::Instant;

use rayon::prelude::*;
use rayon::ThreadPool;

use ordo_graph::{VertexId, Weight};

use super::{MsfEdge, SpanningForest, UndirectedGraph};

/// Runs at most this long are sorted and scanned without a further split
/// (the tests lower it through [`filter_kruskal_with`] to reach every path
/// on small graphs).
const SORT_MIN: usize = 1 << 14;
/// Runs of at most this many edges per tree left to join are sorted and
/// scanned: splitting them would filter too few edges to pay its passes.
const SORT_EDGES_PER_TREE: usize = 2;
/// Keys sampled to choose a pivot.
const SAMPLE: usize = 4096;
/// Vertices per parallel task when reading the CSR graph.
const VERTEX_GRAIN: usize = 1024;

/// The result of one [`filter_kruskal`] run.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterKruskalRun {
    /// The minimum spanning forest.
    pub forest: SpanningForest,
    /// Wall time in seconds: reading the edges, the whole algorithm and
    /// sorting the forest by `(u, v)`.
    pub time_s: f64,
    /// Edges sorted and scanned by the union-find (the rest were filtered).
    pub scanned_edges: u64,
    /// Splits at a pivot.
    pub splits: u64,
    /// Bits of a packed edge: 64, or 128 when the weights and ids do not fit.
    pub key_bits: u32,
}

/// The minimum spanning forest of `graph` by parallel filter-Kruskal on the
/// threads of `pool` (module docs).
///
/// # Example
/// ```
/// use ordo_algos::mst::{filter_kruskal, kruskal, compare_forests, UndirectedGraph};
/// use ordo_graph::EdgeList;
///
/// let mut el = EdgeList::new(4, true);
/// for (u, v, w) in [(0, 1, 4), (1, 2, 1), (2, 3, 5), (3, 0, 2), (0, 2, 3)] {
///     el.push(u, v, w);
/// }
/// let graph = UndirectedGraph::new(&el.into_graph().unwrap());
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let run = filter_kruskal(&pool, &graph);
/// assert_eq!(run.forest.total_weight, 1 + 2 + 3);
/// compare_forests(&kruskal(&graph).forest, &run.forest).unwrap();
/// ```
pub fn filter_kruskal(pool: &ThreadPool, graph: &UndirectedGraph) -> FilterKruskalRun {
    filter_kruskal_with(pool, graph, SORT_MIN)
}

/// [`filter_kruskal`] with runs of at most `sort_min` edges sorted without
/// a split.
pub(crate) fn filter_kruskal_with(
    pool: &ThreadPool,
    graph: &UndirectedGraph,
    sort_min: usize,
) -> FilterKruskalRun {
    pool.install(|| {
        let start = Instant::now();
        let n = graph.num_vertices();
        let weight_bits = graph.graph().weights().map_or(1, |w| {
            let max = w.par_iter().copied().max().unwrap_or(0);
            u32::BITS - max.leading_zeros()
        });
        let vertex_bits = (u32::BITS - (n.saturating_sub(1) as u32).leading_zeros()).max(1);
        let (state, key_bits) = if vertex_bits < 32 && weight_bits + 2 * vertex_bits <= u64::BITS {
            (solve_graph::<u64>(graph, Packing { vertex_bits }, sort_min), u64::BITS)
        } else {
            (solve_graph::<u128>(graph, Packing { vertex_bits: 32 }, sort_min), u128::BITS)
        };
        let State { chosen, scanned, splits, .. } = state;
        let edges = sort_by_endpoints(n, chosen);
        let total_weight = edges.par_iter().map(|e| e.weight as u64).sum();
        let components = (n - edges.len()) as u64;
        let forest = SpanningForest { edges, total_weight, components };
        let time_s = start.elapsed().as_secs_f64();
        FilterKruskalRun { forest, time_s, scanned_edges: scanned, splits, key_bits }
    })
}

/// The forest of `graph` with keys of type `K` (module docs): one split of
/// the CSR edges at a pivot, the light ones solved first, the heavy ones
/// read already filtered.
fn solve_graph<K: Key>(graph: &UndirectedGraph, packing: Packing, sort_min: usize) -> State {
    let n = graph.num_vertices();
    let m = graph.num_edges();
    let mut state = State::new(n, sort_min);
    if m <= sort_min.max(SORT_EDGES_PER_TREE * n) {
        state.solve(read_edges::<K>(graph, packing, |_| true), packing);
        return state;
    }
    let pivot: K = pick(&mut sample_graph(graph, packing), n as f64 / m as f64);
    state.splits += 1;
    state.solve(read_edges(graph, packing, |key: K| key <= pivot), packing);
    if !state.spanning() {
        state.flatten();
        let comp = &state.sets.parent;
        let joins_trees = |key: K| {
            let e = key.unpack(packing);
            comp[e.u as usize] != comp[e.v as usize]
        };
        let survivors = read_edges(graph, packing, |key| key > pivot && joins_trees(key));
        state.solve(survivors, packing);
    }
    state
}

/// How [`Key`]s hold an edge: `weight << 2b | u << b | v` with `b =
/// vertex_bits`.
#[derive(Clone, Copy, Debug)]
struct Packing {
    vertex_bits: u32,
}

/// An integer holding an edge so that integer order is `(weight, u, v)`.
trait Key: Copy + Ord + Send + Sync {
    /// `e` packed; its weight and ids must fit the packing.
    fn pack(e: MsfEdge, packing: Packing) -> Self;
    /// The edge of a key made by [`Key::pack`].
    fn unpack(self, packing: Packing) -> MsfEdge;
}

macro_rules! impl_key {
    ($t:ty) => {
        impl Key for $t {
            #[inline]
            fn pack(e: MsfEdge, p: Packing) -> Self {
                (e.weight as $t) << (2 * p.vertex_bits) | (e.u as $t) << p.vertex_bits | e.v as $t
            }

            #[inline]
            fn unpack(self, p: Packing) -> MsfEdge {
                let mask: $t = (1 << p.vertex_bits) - 1;
                MsfEdge {
                    weight: (self >> (2 * p.vertex_bits)) as Weight,
                    u: ((self >> p.vertex_bits) & mask) as VertexId,
                    v: (self & mask) as VertexId,
                }
            }
        }
    };
}
impl_key!(u64);
impl_key!(u128);

/// Every undirected edge of `graph` once (`u < v`) whose key `keep`
/// accepts, in no particular order. Parallel over blocks of vertices.
fn read_edges<K: Key>(graph: &UndirectedGraph, packing: Packing, keep: impl Fn(K) -> bool + Sync) -> Vec<K> {
    let g = graph.graph();
    let (offsets, targets, weights) = (g.offsets(), g.targets(), g.weights());
    (0..g.num_vertices())
        .into_par_iter()
        .with_min_len(VERTEX_GRAIN)
        .flat_map_iter(|x| {
            let range = offsets[x] as usize..offsets[x + 1] as usize;
            // Adjacency lists are sorted: the arcs to larger ids are a suffix.
            let first = range.start + targets[range.clone()].partition_point(|&y| (y as usize) <= x);
            let keep = &keep;
            (first..range.end).filter_map(move |slot| {
                let w = weights.map_or(1, |w| w[slot]);
                let key = K::pack(MsfEdge { weight: w, u: x as VertexId, v: targets[slot] }, packing);
                keep(key).then_some(key)
            })
        })
        .collect()
}

/// [`SAMPLE`] keys of `graph`'s edges at pseudo-random arcs (fixed seed).
fn sample_graph<K: Key>(graph: &UndirectedGraph, packing: Packing) -> Vec<K> {
    let g = graph.graph();
    let (offsets, targets, weights) = (g.offsets(), g.targets(), g.weights());
    let arcs = targets.len() as u64;
    let mut rng = SplitMix(arcs);
    (0..SAMPLE)
        .map(|_| {
            let slot = (rng.next() % arcs) as usize;
            let x = offsets.partition_point(|&o| o as usize <= slot) - 1;
            let w = weights.map_or(1, |w| w[slot]);
            K::pack(MsfEdge::new(x as VertexId, targets[slot], w), packing)
        })
        .collect()
}

/// [`SAMPLE`] keys of `edges` at pseudo-random positions (fixed seed).
fn sample_slice<K: Key>(edges: &[K]) -> Vec<K> {
    let mut rng = SplitMix(edges.len() as u64);
    (0..SAMPLE).map(|_| edges[(rng.next() % edges.len() as u64) as usize]).collect()
}

/// The key at quantile `fraction` of `sample` (sorted here).
fn pick<K: Key>(sample: &mut [K], fraction: f64) -> K {
    sample.sort_unstable();
    let at = (fraction * sample.len() as f64) as usize;
    sample[at.min(sample.len() - 1)]
}

/// `edges` (a forest on `0..n`) sorted by `(u, v)`: a counting sort by `u`,
/// then each vertex's few edges by `v` in parallel. `O(n + |edges|)`.
fn sort_by_endpoints(n: usize, edges: Vec<MsfEdge>) -> Vec<MsfEdge> {
    let mut next = vec![0u32; n + 1];
    for e in &edges {
        next[e.u as usize + 1] += 1;
    }
    for x in 1..=n {
        next[x] += next[x - 1];
    }
    let mut sorted = vec![MsfEdge { weight: 0, u: 0, v: 0 }; edges.len()];
    for e in edges {
        let at = &mut next[e.u as usize];
        sorted[*at as usize] = e;
        *at += 1;
    }
    sorted.par_chunk_by_mut(|a, b| a.u == b.u).for_each(|same_u| same_u.sort_unstable_by_key(|e| e.v));
    sorted
}

/// The forest so far: the union-find of its trees and its edges.
struct State {
    sets: Sets,
    chosen: Vec<MsfEdge>,
    /// Vertices; the forest spans once it has `n − 1` edges.
    n: usize,
    /// Runs at most this long are sorted without a split ([`SORT_MIN`]).
    sort_min: usize,
    scanned: u64,
    splits: u64,
}

impl State {
    fn new(n: usize, sort_min: usize) -> Self {
        State { sets: Sets::new(n), chosen: Vec::with_capacity(n), n, sort_min, scanned: 0, splits: 0 }
    }

    /// Whether the forest is a spanning tree: no later edge can enter it.
    fn spanning(&self) -> bool {
        self.chosen.len() + 1 >= self.n
    }

    /// Trees left to join: an upper bound on the edges still to choose.
    fn trees(&self) -> usize {
        self.n - self.chosen.len()
    }

    /// Adds to the forest every edge of `edges` that Kruskal would, given
    /// that every edge lighter than all of them has been offered already.
    fn solve<K: Key>(&mut self, edges: Vec<K>, packing: Packing) {
        if self.spanning() || edges.is_empty() {
            return;
        }
        if edges.len() <= self.sort_min.max(SORT_EDGES_PER_TREE * self.trees()) {
            return self.sort_and_scan(edges, packing);
        }
        let pivot = pick(&mut sample_slice(&edges), self.trees() as f64 / edges.len() as f64);
        let (light, heavy): (Vec<K>, Vec<K>) = edges.into_par_iter().partition(|&key| key <= pivot);
        if heavy.is_empty() {
            // The pivot was the largest key: splitting made no progress.
            return self.sort_and_scan(light, packing);
        }
        self.splits += 1;
        self.solve(light, packing);
        if self.spanning() {
            return;
        }
        self.flatten();
        let comp = &self.sets.parent;
        let survivors: Vec<K> = heavy
            .into_par_iter()
            .filter(|&key| {
                let e = key.unpack(packing);
                comp[e.u as usize] != comp[e.v as usize]
            })
            .collect();
        self.solve(survivors, packing);
    }

    /// Kruskal on `edges`: sort (in parallel), then scan in order.
    fn sort_and_scan<K: Key>(&mut self, mut edges: Vec<K>, packing: Packing) {
        edges.par_sort_unstable();
        self.scanned += edges.len() as u64;
        for &key in &edges {
            let e = key.unpack(packing);
            if self.sets.union(e.u, e.v) {
                self.chosen.push(e);
                if self.spanning() {
                    return;
                }
            }
        }
    }

    /// Points every vertex at its root, so that a filter needs one look-up
    /// per endpoint (two vertices are joined iff their parents are equal).
    fn flatten(&mut self) {
        let parent = &self.sets.parent;
        let roots: Vec<VertexId> =
            (0..parent.len()).into_par_iter().map(|x| root(parent, x as VertexId)).collect();
        self.sets.parent = roots;
    }
}

/// The root of `x` without changing the forest (safe to call in parallel).
#[inline]
fn root(parent: &[VertexId], mut x: VertexId) -> VertexId {
    while parent[x as usize] != x {
        x = parent[x as usize];
    }
    x
}

/// Union by rank with path halving; [`State::flatten`] compresses every path
/// at once between the sequential scans.
struct Sets {
    /// A vertex's parent; roots are their own parent.
    parent: Vec<VertexId>,
    /// An upper bound on the height of a root's tree (valid at roots).
    rank: Vec<u8>,
}

impl Sets {
    fn new(n: usize) -> Self {
        Sets { parent: (0..n as u64).map(|x| x as VertexId).collect(), rank: vec![0; n] }
    }

    #[inline]
    fn find(&mut self, mut x: VertexId) -> VertexId {
        loop {
            let p = self.parent[x as usize];
            if p == x {
                return x;
            }
            let grand = self.parent[p as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
    }

    /// Joins the trees of `a` and `b`; `false` when they were one already.
    #[inline]
    fn union(&mut self, a: VertexId, b: VertexId) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.rank[a as usize] < self.rank[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        if self.rank[a as usize] == self.rank[b as usize] {
            self.rank[a as usize] += 1;
        }
        true
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): the sample positions.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}
