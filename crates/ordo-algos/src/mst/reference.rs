//! Kruskal's algorithm: the sequential MSF reference and speed bar.
//!
//! Sort every undirected edge by the total order `(weight, u, v)` of
//! [`MsfEdge`], then scan them, keeping an edge when its endpoints are in
//! different trees of a union-find (union by size, path halving). With a
//! strict total order the result is the unique MSF (module docs of
//! [`super`]), which [`boruvka()`](super::boruvka::boruvka) must reproduce edge for
//! edge.

use std::time::Instant;

use ordo_graph::UnionFind;

use super::{MsfEdge, SpanningForest, UndirectedGraph};

/// The result of one [`kruskal`] run.
#[derive(Clone, Debug, PartialEq)]
pub struct KruskalRun {
    /// The minimum spanning forest.
    pub forest: SpanningForest,
    /// Wall time in seconds: collecting and sorting the edges, the scan, and
    /// sorting the result by `(u, v)`.
    pub time_s: f64,
}

/// The minimum spanning forest of `graph` by Kruskal's algorithm.
///
/// `O(m log m)` for the sort plus `O(m α(n))` for the scan; `O(m)` memory.
///
/// # Example
/// ```
/// use ordo_algos::mst::{kruskal, UndirectedGraph};
/// use ordo_graph::EdgeList;
///
/// // A square 0-1-2-3 with one diagonal: the three lightest edges win.
/// let mut el = EdgeList::new(4, true);
/// for (u, v, w) in [(0, 1, 4), (1, 2, 1), (2, 3, 5), (3, 0, 2), (0, 2, 3)] {
///     el.push(u, v, w);
/// }
/// let run = kruskal(&UndirectedGraph::new(&el.into_graph().unwrap()));
/// assert_eq!(run.forest.total_weight, 1 + 2 + 3);
/// assert_eq!(run.forest.components, 1);
/// ```
pub fn kruskal(graph: &UndirectedGraph) -> KruskalRun {
    let start = Instant::now();
    let n = graph.num_vertices();
    let mut edges: Vec<MsfEdge> = graph.edges().collect();
    // Distinct edges never compare equal, so the unstable sort is exact.
    edges.sort_unstable();
    let mut sets = UnionFind::new(n);
    let mut chosen = Vec::with_capacity(n.saturating_sub(1));
    for e in edges {
        if sets.union(e.u, e.v) {
            chosen.push(e);
            if chosen.len() + 1 == n {
                break; // a spanning tree: no later edge can join two trees
            }
        }
    }
    let forest = SpanningForest::from_edges(n, chosen);
    KruskalRun { forest, time_s: start.elapsed().as_secs_f64() }
}
