//! Minimum spanning forests: parallel Boruvka on any scheduler (PMOD paper,
//! pmod-priority-scheduling-sc19 §5.3 "Minimum Spanning Tree"), Kruskal as
//! the sequential reference, and the checks that compare them.
//!
//! # Input
//! An MSF is defined on an undirected graph. [`UndirectedGraph::new`] turns
//! any [`Graph`] into one: every edge `(u, v, w)` is read as the undirected
//! edge `{u, v}`, self loops are dropped and parallel edges (both directions
//! or repeated ones) are kept once with their least weight
//! ([`ordo_graph::transform::symmetrize_simple`]). An unweighted graph has
//! weight 1 on every edge, so its MSF weight is its edge count.
//!
//! # A total order, hence one answer
//! Edges are compared by `(weight, min(u, v), max(u, v))` — the derived order
//! of [`MsfEdge`], whose fields are in that order. No two distinct edges of
//! a simple graph compare equal, so the minimum spanning forest under this
//! order is unique (every cut has a unique lightest edge), and Boruvka and
//! Kruskal must return the same *edge set*, not only the same weight: the
//! tests compare the weight, the edge count, the component count and the
//! sorted edge lists exactly.
//!
//! # Pieces
//! - [`filter_kruskal()`](filter_kruskal::filter_kruskal): parallel
//!   filter-Kruskal, the default kernel of the `mst` application: sorts only
//!   the edges that may enter the forest.
//! - [`boruvka()`](boruvka::boruvka): the priority-scheduled algorithm, a task
//!   per component representative with priority = the component's current
//!   edge count (the artifact's `boruvka-merge`); its module docs carry the
//!   correctness argument (no MSF edge missed or duplicated, no deadlock,
//!   termination).
//! - [`boruvka_exact_order`]: the same operator on one thread in exact
//!   priority order, whose task count is the `work_increase` baseline.
//! - [`kruskal()`](reference::kruskal): sort + union-find, timed, the reference
//!   and speed bar.
//! - [`verify`]: [`compare_forests`] (exact
//!   comparison with a reference) and
//!   [`check_spanning_forest`] (an independent
//!   structural check: graph edges, acyclic, spanning).
//!
//! # Example
//! ```
//! use ordo_algos::mst::{self, UndirectedGraph};
//! use ordo_exec::{ExecOptions, Pool};
//! use ordo_graph::EdgeList;
//!
//! // A triangle 0-1-2 (weights 1, 2, 3) and an isolated vertex 3.
//! let mut edges = EdgeList::new(4, true);
//! edges.push(0, 1, 1);
//! edges.push(1, 2, 2);
//! edges.push(2, 0, 3);
//! let graph = UndirectedGraph::new(&edges.into_graph().unwrap());
//! let pool = Pool::new(2).unwrap();
//! let (forest, _stats) = mst::boruvka(&pool, &"strict".parse().unwrap(), &graph, &ExecOptions::default());
//! assert_eq!(forest.total_weight, 3);
//! assert_eq!(forest.components, 2);
//! let reference = mst::kruskal(&graph);
//! mst::compare_forests(&reference.forest, &forest).unwrap();
//! ```

pub mod app;
pub mod boruvka;
pub mod filter_kruskal;
pub mod reference;
pub mod verify;

#[cfg(test)]
mod test;

pub use boruvka::{boruvka, boruvka_exact_order, ExactOrderRun};
pub use filter_kruskal::{filter_kruskal, FilterKruskalRun};
pub use reference::{kruskal, KruskalRun};
pub use verify::{check_spanning_forest, compare_forests, MstError};

use ordo_graph::{transform, Graph, VertexId, Weight};

/// An undirected edge `{u, v}` with `u < v`, ordered by `(weight, u, v)`:
/// the strict total order under which the MSF is unique (module docs).
///
/// The field order *is* the order: the derived `Ord` compares `weight`
/// first, then `u`, then `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MsfEdge {
    /// The edge weight (1 on unweighted graphs).
    pub weight: Weight,
    /// The smaller endpoint.
    pub u: VertexId,
    /// The larger endpoint.
    pub v: VertexId,
}

impl MsfEdge {
    /// The edge `{a, b}` of weight `weight`, endpoints stored in order.
    #[inline]
    pub fn new(a: VertexId, b: VertexId, weight: Weight) -> Self {
        MsfEdge { weight, u: a.min(b), v: a.max(b) }
    }
}

/// A minimum spanning forest: one spanning tree per connected component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanningForest {
    /// The forest's edges sorted by `(u, v)`, `u < v` (the `--out` order).
    pub edges: Vec<MsfEdge>,
    /// Sum of the edge weights.
    pub total_weight: u64,
    /// Connected components of the graph, isolated vertices included
    /// (= vertices − forest edges).
    pub components: u64,
}

impl SpanningForest {
    /// The forest of `edges` (any order) on `num_vertices` vertices: sorts
    /// the edges by `(u, v)` and sums the weights. `components` assumes the
    /// edges form a forest (n − |edges|); [`check_spanning_forest`] checks it.
    pub fn from_edges(num_vertices: usize, mut edges: Vec<MsfEdge>) -> Self {
        edges.sort_unstable_by_key(|e| (e.u, e.v));
        let total_weight = edges.iter().map(|e| e.weight as u64).sum();
        let components = (num_vertices - edges.len().min(num_vertices)) as u64;
        SpanningForest { edges, total_weight, components }
    }

    /// Components with at least one edge (two or more vertices): each needs
    /// one task of [`boruvka()`] that finds it finished.
    pub fn nontrivial_components(&self, num_vertices: usize) -> u64 {
        let mut touched = vec![false; num_vertices];
        for e in &self.edges {
            touched[e.u as usize] = true;
            touched[e.v as usize] = true;
        }
        let in_trees = touched.iter().filter(|&&t| t).count() as u64;
        // Each tree with k vertices has k − 1 edges.
        in_trees - self.edges.len() as u64
    }

    /// The useful tasks of any [`boruvka()`] run: one per merge (= forest
    /// edge) plus one per non-trivial component to find it finished. Every
    /// other task is stale and counted as such, so `tasks − stale_tasks`
    /// equals this exactly. (The `work_increase` baseline is the task count
    /// of [`boruvka_exact_order`], stale tasks included, since some stale
    /// tasks are unavoidable.)
    pub fn useful_tasks(&self, num_vertices: usize) -> u64 {
        self.edges.len() as u64 + self.nontrivial_components(num_vertices)
    }
}

/// A simple undirected weighted view of a graph, the input of every MSF
/// function: symmetric (each edge stored in both directions with the same
/// weight), without self loops or parallel edges, adjacency lists sorted.
///
/// Built once per input ([`UndirectedGraph::new`], `O(m log d)`), then shared
/// by every run and the reference.
#[derive(Clone, Debug)]
pub struct UndirectedGraph {
    graph: Graph,
}

impl UndirectedGraph {
    /// The simple undirected version of `graph` (module docs: directions
    /// ignored, self loops dropped, parallel edges kept once with their least
    /// weight; weight 1 when `graph` is unweighted).
    pub fn new(graph: &Graph) -> Self {
        UndirectedGraph { graph: transform::symmetrize_simple(graph) }
    }

    /// The symmetric CSR graph (each undirected edge appears twice).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Vertices.
    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Undirected edges (half the CSR arcs).
    pub fn num_edges(&self) -> usize {
        self.graph.num_edges() / 2
    }

    /// The edges incident to `x` as [`MsfEdge`]s.
    pub(crate) fn incident(&self, x: VertexId) -> impl Iterator<Item = MsfEdge> + '_ {
        let range = self.graph.edge_range(x);
        let targets = &self.graph.targets()[range.clone()];
        let weights = self.graph.weights().map(|w| &w[range]);
        targets.iter().enumerate().map(move |(i, &y)| MsfEdge::new(x, y, weights.map_or(1, |w| w[i])))
    }

    /// Every undirected edge once (`u < v`), in CSR order.
    pub fn edges(&self) -> impl Iterator<Item = MsfEdge> + '_ {
        (0..self.num_vertices() as VertexId).flat_map(move |x| self.incident(x).filter(move |e| e.u == x))
    }
}
