//! Triangle counting (Callisto-RTS §4.2, from Green-Marl's `triangle_counting`):
//! the number of triangles of the simple undirected graph underlying the
//! input (edges symmetrized, self loops and parallel edges dropped), as SNAP
//! reports them.
//!
//! Every edge is oriented from the endpoint of lower rank to the one of
//! higher rank, ranking by `(degree, id)`; a triangle `u < v < w` (by rank)
//! is then found exactly once, at `u`, as `w ∈ N⁺(u) ∩ N⁺(v)` for
//! `v ∈ N⁺(u)`, with sorted out-lists intersected by merging. Orienting by
//! degree bounds every out-degree by `O(√m)`, so the count takes `O(m^1.5)`.
//! The parallel loop runs over the vertices `u` with a per-thread counter
//! (fork / work / join): the work per vertex is very uneven (hubs), the
//! skewed case of the paper's microbenchmark.

pub mod app;
pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use ordo_graph::transform::symmetrize_simple;
use ordo_graph::{Graph, VertexId};
use ordo_loops::ForkWorkJoin;

use crate::loop_runner::LoopRunner;

/// The oriented simple graph: `out[offsets[u]..offsets[u+1]]` are the
/// neighbours of `u` of higher `(degree, id)` rank, sorted by id.
#[derive(Clone, Debug)]
pub struct Oriented {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    /// Undirected edges of the simple graph.
    edges: u64,
}

impl Oriented {
    /// Symmetrizes `graph` (dropping self loops and parallel edges) and
    /// orients each undirected edge towards its endpoint of higher
    /// `(degree, id)`. `O(n + m log m)`.
    pub fn new(graph: &Graph) -> Oriented {
        Self::from_simple(&symmetrize_simple(graph))
    }

    /// Orients an already simple, symmetric graph with sorted adjacency
    /// lists (what `symmetrize_simple` returns).
    pub fn from_simple(simple: &Graph) -> Oriented {
        let n = simple.num_vertices();
        let key = |v: VertexId| (simple.degree(v), v);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        let mut targets = Vec::with_capacity(simple.num_edges() / 2);
        for u in 0..n as VertexId {
            targets.extend(simple.neighbors(u).iter().copied().filter(|&v| key(v) > key(u)));
            offsets.push(targets.len() as u64);
        }
        let edges = targets.len() as u64;
        Oriented { offsets, targets, edges }
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of undirected edges of the simple graph.
    pub fn num_edges(&self) -> u64 {
        self.edges
    }

    /// The higher-ranked neighbours of `u`, sorted by id.
    #[inline]
    pub fn out(&self, u: usize) -> &[VertexId] {
        &self.targets[self.offsets[u] as usize..self.offsets[u + 1] as usize]
    }

    /// The triangles whose lowest-ranked vertex is `u`.
    #[inline]
    pub fn triangles_at(&self, u: usize) -> u64 {
        let nu = self.out(u);
        nu.iter().map(|&v| intersection_size(nu, self.out(v as usize))).sum()
    }
}

/// `|a ∩ b|` of two sorted lists, by merging.
#[inline]
fn intersection_size(a: &[VertexId], b: &[VertexId]) -> u64 {
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
    /// Seconds spent counting (the orientation excluded).
    pub time_s: f64,
}

/// Counts the triangles of `oriented` with a parallel loop over the
/// vertices on `runner`.
///
/// ```
/// use ordo_algos::loop_runner::LoopRunner;
/// use ordo_algos::tc::{triangles, Oriented};
/// use ordo_graph::EdgeList;
///
/// // K4 (as directed edges one way only): 4 triangles.
/// let mut edges = EdgeList::new(4, false);
/// for (u, v) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
///     edges.push(u, v, 1);
/// }
/// let oriented = Oriented::new(&edges.into_graph().unwrap());
/// let runner = LoopRunner::new(&"shared:batch=1".parse().unwrap(), 2, None).unwrap();
/// assert_eq!(triangles(&runner, &oriented).triangles, 4);
/// ```
pub fn triangles(runner: &LoopRunner, oriented: &Oriented) -> TcResult {
    let start = Instant::now();
    let total = AtomicU64::new(0);
    let body = ForkWorkJoin::new(
        || 0u64,
        |count: &mut u64, u: usize| *count += oriented.triangles_at(u),
        |count| {
            total.fetch_add(count, Relaxed);
        },
    );
    runner.for_each(0..oriented.num_vertices(), &body);
    TcResult { triangles: total.into_inner(), time_s: start.elapsed().as_secs_f64() }
}
