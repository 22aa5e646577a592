//! Triangle counting (Callisto-RTS §4.2, from Green-Marl's
//! `triangle_counting`; the method of GAPBS `tc.cc`): the number of
//! triangles of the simple undirected graph underlying the input (edges
//! symmetrized, self loops and parallel edges dropped), as SNAP reports
//! them.
//!
//! Every edge is oriented from the endpoint of lower rank to the one of
//! higher rank ([`orient`]: rank by id, or by degree when the degree
//! distribution is skewed); a triangle `u < v < w` (by rank) is then found
//! exactly once, at `u`, as `w ∈ N⁺(u) ∩ N⁺(v)` for `v ∈ N⁺(u)`. Both lists
//! are sorted and every `w ∈ N⁺(v)` exceeds `v`, so only the part of
//! `N⁺(u)` after `v` is merged with `N⁺(v)`, and the merge stops at the end
//! of either list (GAPBS's `w > v` break, on the oriented graph). The
//! parallel loop runs over the vertices `u` with a per-thread counter
//! (fork / work / join): the work per vertex is very uneven (hubs), the
//! skewed case of the paper's microbenchmark.
//!
//! [`count`] times everything the count needs — the orientation (and the
//! relabelling) as `prep_time_s`, then the count — so its `time_s` is the
//! whole cost from the input graph, as GAPBS times its relabelling.
//!
//! A simple symmetric input ranked by id needs no orientation at all: its
//! sorted lists already hold `N⁺(u)` as the suffix of `N(u)` above `u`
//! ([`UpperNeighbors`], found by binary search), which is how GAPBS counts
//! when it does not relabel. [`count_in_place`] counts so, with no copy of
//! the graph; the app takes it whenever [`UpperNeighbors::applies`].

pub mod app;
pub mod orient;
pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use crate::loop_runner::ParallelLoops;
pub use orient::{Dag, Order};

/// A graph whose vertices each have their higher-ranked neighbours as one
/// sorted list: an oriented copy ([`Dag`]) or the input itself
/// ([`UpperNeighbors`]).
pub trait Oriented: Sync {
    /// The number of vertices.
    fn num_vertices(&self) -> usize;
    /// The higher-ranked neighbours of rank `r`, sorted.
    fn out(&self, r: usize) -> &[VertexId];
}

impl Oriented for Dag {
    fn num_vertices(&self) -> usize {
        Dag::num_vertices(self)
    }
    #[inline]
    fn out(&self, r: usize) -> &[VertexId] {
        Dag::out(self, r)
    }
}

/// A simple symmetric graph ranked by id, read in place: `out(u)` is the
/// part of `u`'s sorted list above `u`.
#[derive(Clone, Copy, Debug)]
pub struct UpperNeighbors<'a>(&'a Graph);

impl<'a> UpperNeighbors<'a> {
    /// The view of `graph`, when [`Self::applies`] to it.
    pub fn new(graph: &'a Graph) -> Option<Self> {
        Self::applies(graph).then_some(UpperNeighbors(graph))
    }

    /// The view of `graph` when [`Self::applies`] was found true for it
    /// before (the app decides once per input).
    pub(crate) fn already_checked(graph: &'a Graph) -> Self {
        UpperNeighbors(graph)
    }

    /// Whether `graph` can be read in place: every list sorted without
    /// repeats (so no parallel edges) and every edge with its reverse.
    /// Self loops may be present (no list suffix above `u` holds `u`).
    /// `O(m log d)` time, `8 n` bytes.
    pub fn applies(graph: &Graph) -> bool {
        ordo_graph::stats::is_sorted_without_repeats(graph) && ordo_graph::stats::is_symmetric(graph)
    }
}

impl Oriented for UpperNeighbors<'_> {
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }
    #[inline]
    fn out(&self, r: usize) -> &[VertexId] {
        let list = self.0.neighbors(r as VertexId);
        &list[list.partition_point(|&w| w as usize <= r)..]
    }
}

/// The triangles whose lowest-ranked vertex is `r`.
#[inline]
pub fn triangles_at(dag: &impl Oriented, r: usize) -> u64 {
    let nr = dag.out(r);
    let mut count = 0;
    for (i, &v) in nr.iter().enumerate() {
        count += intersection_size(&nr[i + 1..], dag.out(v as usize));
    }
    count
}

/// `|a ∩ b|` of two sorted lists, by merging until either ends.
#[inline]
fn intersection_size(a: &[VertexId], b: &[VertexId]) -> u64 {
    match (a.first(), a.last(), b.first(), b.last()) {
        (Some(&a0), Some(&a1), Some(&b0), Some(&b1)) if a0 <= b1 && b0 <= a1 => {}
        _ => return 0,
    }
    let (mut i, mut j, mut count) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        count += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    count
}

/// The count and the time it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcResult {
    /// Triangles of the simple undirected graph.
    pub triangles: u64,
    /// Undirected edges of the simple graph.
    pub undirected_edges: u64,
    /// Whether the vertices were ranked by degree ([`Order::ByDegree`]).
    pub relabelled: bool,
    /// Seconds spent orienting (and relabelling).
    pub prep_time_s: f64,
    /// Seconds spent in all: orienting, then counting.
    pub time_s: f64,
}

/// Counts the triangles of `dag` with a parallel loop over its vertices.
pub fn triangles(loops: &impl ParallelLoops, dag: &impl Oriented) -> u64 {
    let total = AtomicU64::new(0);
    loops.fold(
        0..dag.num_vertices(),
        || 0u64,
        |count: &mut u64, r| *count += triangles_at(dag, r),
        |count| {
            total.fetch_add(count, Relaxed);
        },
    );
    total.into_inner()
}

/// Counts the triangles of the simple undirected graph underlying `graph`:
/// orients it ranking by `order` (the DAG is freed before returning), then
/// counts, every loop on `loops`.
///
/// ```
/// use ordo_algos::loop_runner::LoopRunner;
/// use ordo_algos::tc::{count, Order};
/// use ordo_graph::EdgeList;
///
/// // K4 (as directed edges one way only): 4 triangles.
/// let mut edges = EdgeList::new(4, false);
/// for (u, v) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
///     edges.push(u, v, 1);
/// }
/// let g = edges.into_graph().unwrap();
/// let runner = LoopRunner::new(&"shared:batch=1".parse().unwrap(), 2, None).unwrap();
/// assert_eq!(count(&runner, &g, Order::for_graph(&g)).triangles, 4);
/// ```
pub fn count(loops: &impl ParallelLoops, graph: &Graph, order: Order) -> TcResult {
    let start = Instant::now();
    let dag = Dag::build(graph, order, loops);
    let prep_time_s = start.elapsed().as_secs_f64();
    let triangles = triangles(loops, &dag);
    TcResult {
        triangles,
        undirected_edges: dag.num_edges(),
        relabelled: dag.order() == Order::ByDegree,
        prep_time_s,
        time_s: start.elapsed().as_secs_f64(),
    }
}

/// Counts the triangles of a simple symmetric graph in place (module docs):
/// no orientation, `prep_time_s` 0, nothing allocated beyond the loop's
/// counters.
pub fn count_in_place(loops: &impl ParallelLoops, graph: UpperNeighbors<'_>) -> TcResult {
    let start = Instant::now();
    let triangles = triangles(loops, &graph);
    let n = graph.0.num_vertices() as VertexId;
    let undirected_edges = (0..n).map(|u| graph.out(u as usize).len() as u64).sum();
    TcResult {
        triangles,
        undirected_edges,
        relabelled: false,
        prep_time_s: 0.0,
        time_s: start.elapsed().as_secs_f64(),
    }
}
