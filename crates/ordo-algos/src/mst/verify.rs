//! Verification of a spanning forest: exact comparison with a reference
//! ([`compare_forests`]) and an independent structural check
//! ([`check_spanning_forest`]).
//!
//! With the strict total order of [`MsfEdge`] the MSF is unique, so two
//! correct results are *equal*: same weight, same edge count, same edges.

use super::{MsfEdge, SpanningForest, UndirectedGraph};
use ordo_graph::UnionFind;

/// A spanning forest that is wrong, with the first fact that shows it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MstError {
    /// The total weights differ.
    #[error("MSF weight {got}, expected {expected}")]
    Weight {
        /// The reference's weight.
        expected: u64,
        /// The result's weight.
        got: u64,
    },
    /// The edge counts differ.
    #[error("MSF has {got} edges, expected {expected}")]
    EdgeCount {
        /// The reference's edge count.
        expected: usize,
        /// The result's edge count.
        got: usize,
    },
    /// The component counts differ.
    #[error("MSF spans {got} components, expected {expected}")]
    Components {
        /// The reference's (or the graph's) component count.
        expected: u64,
        /// The result's component count.
        got: u64,
    },
    /// Same counts and weight but a different edge (lists sorted by `(u, v)`).
    #[error("MSF edge #{index} (sorted by u, v) is {got}, expected {expected}")]
    Edge {
        /// Position in the sorted edge list.
        index: usize,
        /// The reference's edge as `u v weight`.
        expected: String,
        /// The result's edge as `u v weight`.
        got: String,
    },
    /// An edge that is not an edge of the graph (or has another weight).
    #[error("forest edge {u} {v} (weight {weight}) is not an edge of the graph with that weight")]
    NotAGraphEdge {
        /// Smaller endpoint.
        u: u32,
        /// Larger endpoint.
        v: u32,
        /// Its weight in the forest.
        weight: u32,
    },
    /// An edge that closes a cycle (or repeats an edge).
    #[error("forest edge {u} {v} closes a cycle")]
    Cycle {
        /// Smaller endpoint.
        u: u32,
        /// Larger endpoint.
        v: u32,
    },
    /// The forest's recorded weight or component count disagrees with its edges.
    #[error("forest records {field} = {recorded} but its edges give {computed}")]
    Inconsistent {
        /// `total_weight` or `components`.
        field: &'static str,
        /// The recorded value.
        recorded: u64,
        /// The value its edges give.
        computed: u64,
    },
}

fn show(e: &MsfEdge) -> String {
    format!("{} {} {}", e.u, e.v, e.weight)
}

/// Checks that `got` equals `expected` exactly: weight, edge count,
/// components, then the edges one by one (both sorted by `(u, v)`). The
/// error names the first difference.
pub fn compare_forests(expected: &SpanningForest, got: &SpanningForest) -> Result<(), MstError> {
    if expected.total_weight != got.total_weight {
        return Err(MstError::Weight { expected: expected.total_weight, got: got.total_weight });
    }
    if expected.edges.len() != got.edges.len() {
        return Err(MstError::EdgeCount { expected: expected.edges.len(), got: got.edges.len() });
    }
    if expected.components != got.components {
        return Err(MstError::Components { expected: expected.components, got: got.components });
    }
    match expected.edges.iter().zip(&got.edges).position(|(a, b)| a != b) {
        Some(index) => Err(MstError::Edge {
            index,
            expected: show(&expected.edges[index]),
            got: show(&got.edges[index]),
        }),
        None => Ok(()),
    }
}

/// Checks, without any reference, that `forest` is a spanning forest of
/// `graph`: every edge is a graph edge with its weight (`u < v`), no edge
/// closes a cycle, the forest has exactly as many components as the graph,
/// and the recorded weight and component count match the edges.
///
/// It does not check minimality (that is [`compare_forests`]' job against
/// Kruskal). `O(m α(n) + |F| log d)`.
pub fn check_spanning_forest(graph: &UndirectedGraph, forest: &SpanningForest) -> Result<(), MstError> {
    let n = graph.num_vertices();
    let g = graph.graph();
    let mut trees = UnionFind::new(n);
    let mut weight = 0u64;
    for e in &forest.edges {
        let bad = MstError::NotAGraphEdge { u: e.u, v: e.v, weight: e.weight };
        if e.u >= e.v || e.v as usize >= n {
            return Err(bad);
        }
        // Adjacency lists of an UndirectedGraph are sorted by target.
        let found = g.neighbors(e.u).binary_search(&e.v).ok().map(|i| g.edge_range(e.u).start + i);
        let w = found.map(|slot| g.weights().map_or(1, |ws| ws[slot]));
        if w != Some(e.weight) {
            return Err(bad);
        }
        if !trees.union(e.u, e.v) {
            return Err(MstError::Cycle { u: e.u, v: e.v });
        }
        weight += e.weight as u64;
    }
    if weight != forest.total_weight {
        return Err(MstError::Inconsistent {
            field: "total_weight",
            recorded: forest.total_weight,
            computed: weight,
        });
    }
    let forest_components = (n - forest.edges.len()) as u64;
    if forest_components != forest.components {
        return Err(MstError::Inconsistent {
            field: "components",
            recorded: forest.components,
            computed: forest_components,
        });
    }
    let mut connectivity = UnionFind::new(n);
    let mut graph_components = n as u64;
    for e in graph.edges() {
        if connectivity.union(e.u, e.v) {
            graph_components -= 1;
        }
    }
    if graph_components != forest_components {
        return Err(MstError::Components { expected: graph_components, got: forest_components });
    }
    Ok(())
}
