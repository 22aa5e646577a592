//! Verification of an A* result: the path is a real path of the graph from
//! the source to the target, and its length is the distance claimed (which
//! the app compares with the stopped Dijkstra's).

use ordo_graph::{Graph, VertexId};

use crate::AlgoError;

/// Checks that `path` is a path of `graph` from `source` to `target` whose
/// edge weights sum to `distance` (between consecutive vertices joined by
/// several parallel edges, the lightest counts). Unweighted graphs use
/// weight 1.
///
/// # Errors
/// [`AlgoError::InvalidPath`] naming the first problem.
pub fn check_path(
    graph: &Graph,
    source: VertexId,
    target: VertexId,
    path: &[VertexId],
    distance: u64,
) -> Result<(), AlgoError> {
    let bad = |problem: String| Err(AlgoError::InvalidPath { problem });
    let (Some(&first), Some(&last)) = (path.first(), path.last()) else {
        return bad(format!("empty, expected a path from {source} to {target}"));
    };
    if first != source || last != target {
        return bad(format!("runs from {first} to {last}, expected {source} to {target}"));
    }
    let n = graph.num_vertices();
    if let Some((i, &v)) = path.iter().enumerate().find(|&(_, &v)| v as usize >= n) {
        return bad(format!("vertex {v} at position {i} is not a vertex (the graph has {n})"));
    }
    let mut length = 0u64;
    for (i, pair) in path.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        match graph.weighted_neighbors(a).filter(|&(t, _)| t == b).map(|(_, w)| w).min() {
            Some(w) => length += w as u64,
            None => return bad(format!("no edge {a} -> {b} (positions {i}, {})", i + 1)),
        }
    }
    if length != distance {
        return bad(format!("its {} edges weigh {length}, expected {distance}", path.len() - 1));
    }
    Ok(())
}
