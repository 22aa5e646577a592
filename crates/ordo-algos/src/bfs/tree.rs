//! BFS trees as parent arrays (Graph500 style): the check that a parent
//! array is a BFS tree of the graph, and the parents of a level array for
//! the kernels that compute levels only.

use ordo_exec::Pool;
use ordo_graph::{Graph, VertexId};

use super::direction::NO_PARENT;
use super::UNREACHED_LEVEL;
use crate::AlgoError;

/// Checks `parents` against `levels` (already known to be the BFS levels
/// from `source`) by the Graph500 rules: the source is its own parent; a
/// vertex has a parent exactly when it is reached; a parent is one level
/// closer to the source; and every edge `parent[v] -> v` is an edge of
/// `graph`. `O(n + m)`: the edges are scanned once, not searched per vertex
/// (a hub may be the parent of most of the graph).
///
/// # Errors
/// [`AlgoError::LengthMismatch`] when the arrays do not have one entry per
/// vertex; [`AlgoError::InvalidTree`] naming the first vertex that breaks a
/// rule.
pub fn check_parent_tree(
    graph: &Graph,
    source: VertexId,
    levels: &[u32],
    parents: &[VertexId],
) -> Result<(), AlgoError> {
    let n = graph.num_vertices();
    for len in [levels.len(), parents.len()] {
        if len != n {
            return Err(AlgoError::LengthMismatch { expected: n, got: len });
        }
    }
    let bad = |problem: String| Err(AlgoError::InvalidTree { problem });
    if parents[source as usize] != source {
        return bad(format!(
            "the source {source} has parent {} instead of itself",
            show(parents[source as usize])
        ));
    }
    for (v, (&level, &p)) in levels.iter().zip(parents).enumerate() {
        if v == source as usize {
            continue;
        }
        match (level == UNREACHED_LEVEL, p == NO_PARENT) {
            (true, true) => continue,
            (true, false) => return bad(format!("vertex {v} is unreached but has parent {p}")),
            (false, true) => return bad(format!("vertex {v} is reached (level {level}) but has no parent")),
            (false, false) => {}
        }
        let Some(&parent_level) = levels.get(p as usize) else {
            return bad(format!("vertex {v} has parent {p}, not a vertex"));
        };
        if parent_level == UNREACHED_LEVEL || parent_level + 1 != level {
            return bad(format!(
                "vertex {v} at level {level} has parent {p} at level {}, not {}",
                show(parent_level),
                level - 1
            ));
        }
    }
    // Every reached non-source vertex needs the edge from its parent.
    let mut has_edge = vec![false; n];
    has_edge[source as usize] = true;
    for (v, seen) in has_edge.iter_mut().enumerate() {
        *seen |= parents[v] == NO_PARENT;
    }
    let offsets = graph.offsets();
    let targets = graph.targets();
    for u in 0..n {
        for &v in &targets[offsets[u] as usize..offsets[u + 1] as usize] {
            if parents[v as usize] == u as VertexId {
                has_edge[v as usize] = true;
            }
        }
    }
    match has_edge.iter().position(|&seen| !seen) {
        Some(v) => bad(format!(
            "vertex {v} has parent {}, but the graph has no edge {} -> {v}",
            parents[v], parents[v]
        )),
        None => Ok(()),
    }
}

/// A level or parent for a message (`inf` / `none` when unset).
fn show(x: u32) -> String {
    if x == u32::MAX {
        "none".to_string()
    } else {
        x.to_string()
    }
}

/// The parents of a BFS from `source` whose levels are `levels`: for every
/// reached vertex other than the source, its first in-neighbour one level
/// closer (such a neighbour exists because the levels are BFS levels).
/// `in_edges` holds the in-edges of `graph` as out-edges (`graph` itself when
/// symmetric). In parallel on `pool`; `O(n + m)`.
pub(crate) fn parents_from_levels(
    pool: &Pool,
    in_edges: &Graph,
    source: VertexId,
    levels: &[u32],
) -> Vec<VertexId> {
    let offsets = in_edges.offsets();
    let sources = in_edges.targets();
    pool.collect_indexed(levels.len(), |v| {
        let level = levels[v];
        if v == source as usize {
            return source;
        }
        if level == UNREACHED_LEVEL || level == 0 {
            return NO_PARENT;
        }
        let row = &sources[offsets[v] as usize..offsets[v + 1] as usize];
        row.iter().copied().find(|&u| levels[u as usize] == level - 1).unwrap_or(NO_PARENT)
    })
}
