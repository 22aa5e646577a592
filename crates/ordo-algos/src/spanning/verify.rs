//! The spanning-forest checker: every non-root's parent is a neighbour in
//! the undirected graph, following parents never cycles, and each connected
//! component (from a sequential union-find, independent of any search) has
//! exactly one root. For BFS forests, [`check_bfs_levels`] also checks that
//! every vertex's depth is its BFS distance from its root.

use std::collections::VecDeque;

use ordo_graph::{transform, VertexId};

use super::Undirected;

/// A parent array that is not a spanning forest, with the first fact that
/// shows it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    /// Not one parent per vertex.
    #[error("{got} parents for {expected} vertices")]
    Length {
        /// Vertices.
        expected: usize,
        /// Parents given.
        got: usize,
    },
    /// A parent that is not a vertex.
    #[error("vertex {vertex}: parent {parent} is not a vertex")]
    ParentOutOfRange {
        /// The vertex.
        vertex: VertexId,
        /// Its parent.
        parent: VertexId,
    },
    /// A tree edge that is not an edge of the graph.
    #[error("vertex {vertex}: parent {parent} is not a neighbour")]
    NotANeighbour {
        /// The vertex.
        vertex: VertexId,
        /// Its parent.
        parent: VertexId,
    },
    /// Following parents from `vertex` loops without reaching a root.
    #[error("vertex {vertex}: its parents form a cycle")]
    Cycle {
        /// A vertex on or leading to the cycle.
        vertex: VertexId,
    },
    /// A connected component without exactly one root.
    #[error("the connected component of vertex {component} has {roots} roots (expected 1)")]
    Roots {
        /// The component's smallest vertex.
        component: VertexId,
        /// Roots found in it.
        roots: u64,
    },
    /// A BFS forest vertex whose depth is not its distance from the root.
    #[error("vertex {vertex}: depth {depth} in its tree but BFS distance {distance} from root {root}")]
    NotBfs {
        /// The vertex.
        vertex: VertexId,
        /// Its depth in the forest.
        depth: u32,
        /// Its BFS distance from its root.
        distance: u32,
        /// Its root.
        root: VertexId,
    },
}

/// What a valid forest looks like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForestSummary {
    /// Connected components (= trees = roots).
    pub components: u64,
    /// Tree edges (vertices − components).
    pub tree_edges: u64,
    /// Largest depth of a vertex below its root.
    pub max_depth: u32,
}

/// Checks that `parent` is a spanning forest of `graph` (module docs).
/// `O(n + m)` (each parent is looked up in its vertex's adjacency list).
pub fn check_spanning_forest(
    graph: &Undirected<'_>,
    parent: &[VertexId],
) -> Result<ForestSummary, SpanError> {
    let g = graph.graph();
    let n = g.num_vertices();
    if parent.len() != n {
        return Err(SpanError::Length { expected: n, got: parent.len() });
    }
    for (v, &p) in parent.iter().enumerate() {
        let v = v as VertexId;
        if p as usize >= n {
            return Err(SpanError::ParentOutOfRange { vertex: v, parent: p });
        }
        if p != v && !g.neighbors(v).contains(&p) {
            return Err(SpanError::NotANeighbour { vertex: v, parent: p });
        }
    }
    let depth = depths(parent)?;
    let labels = transform::weak_component_labels(g);
    let mut roots = vec![0u64; n];
    for (v, &p) in parent.iter().enumerate() {
        if p as usize == v {
            roots[labels[v] as usize] += 1;
        }
    }
    let mut components = 0;
    for (v, &label) in labels.iter().enumerate() {
        if label as usize == v {
            components += 1;
            if roots[v] != 1 {
                return Err(SpanError::Roots { component: label, roots: roots[v] });
            }
        }
    }
    Ok(ForestSummary {
        components,
        tree_edges: n as u64 - components,
        max_depth: depth.iter().copied().max().unwrap_or(0),
    })
}

/// Checks that every vertex's depth in the forest is its BFS distance from
/// its root (call after [`check_spanning_forest`] succeeded). `O(n + m)`.
pub fn check_bfs_levels(graph: &Undirected<'_>, parent: &[VertexId]) -> Result<(), SpanError> {
    let g = graph.graph();
    let depth = depths(parent)?;
    let mut dist = vec![u32::MAX; g.num_vertices()];
    let mut queue = VecDeque::new();
    for (r, &p) in parent.iter().enumerate() {
        if p as usize != r {
            continue;
        }
        let root = r as VertexId;
        dist[r] = 0;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            if depth[v as usize] != dist[v as usize] {
                return Err(SpanError::NotBfs {
                    vertex: v,
                    depth: depth[v as usize],
                    distance: dist[v as usize],
                    root,
                });
            }
            for &u in g.neighbors(v) {
                if dist[u as usize] == u32::MAX {
                    dist[u as usize] = dist[v as usize] + 1;
                    queue.push_back(u);
                }
            }
        }
    }
    Ok(())
}

/// Each vertex's depth below its root, or the first cycle. Iterative:
/// climbs from each vertex to a vertex of known depth, then assigns the path.
fn depths(parent: &[VertexId]) -> Result<Vec<u32>, SpanError> {
    const UNKNOWN: u32 = u32::MAX;
    const ON_PATH: u32 = u32::MAX - 1;
    let mut depth = vec![UNKNOWN; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        let mut v = start;
        while depth[v] == UNKNOWN {
            if parent[v] as usize == v {
                depth[v] = 0;
                break;
            }
            depth[v] = ON_PATH;
            path.push(v);
            let p = parent[v];
            if p as usize >= parent.len() {
                return Err(SpanError::ParentOutOfRange { vertex: v as VertexId, parent: p });
            }
            v = p as usize;
        }
        if depth[v] == ON_PATH {
            return Err(SpanError::Cycle { vertex: start as VertexId });
        }
        let mut d = depth[v];
        while let Some(u) = path.pop() {
            d += 1;
            depth[u] = d;
        }
    }
    Ok(depth)
}
