//! The sequential reference of A*: Dijkstra's algorithm from the source,
//! stopped when the target is settled. Its distance is exact, and the number
//! of vertices it settled is the exact-order task count, the denominator of
//! A*'s `work_increase`.

use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use crate::access::{check_source, with_weights};
use crate::sssp::reference::dijkstra_quad;
use crate::sssp::UNREACHED_DIST;
use crate::AlgoError;

/// The result of [`dijkstra_to_target`].
#[derive(Clone, Debug, PartialEq)]
pub struct TargetReference {
    /// The exact distance from the source to the target; `None` when the
    /// target is unreachable.
    pub distance: Option<u64>,
    /// Vertices settled before the search stopped (the target included);
    /// all reachable vertices when the target is unreachable.
    pub settled: u64,
    /// Wall time of the search in seconds (allocation included).
    pub time_s: f64,
}

/// Dijkstra's algorithm (4-ary heap, lazy deletion) from `source`, stopped
/// when `target` is settled. Unweighted graphs use weight 1.
/// `O((n + m) log n)` in the worst case, usually much less.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] / [`AlgoError::TargetOutOfRange`] when
/// either is not a vertex.
pub fn dijkstra_to_target(
    graph: &Graph,
    source: VertexId,
    target: VertexId,
) -> Result<TargetReference, AlgoError> {
    check_source(graph, source)?;
    check_target(graph, target)?;
    let start = Instant::now();
    let (dist, settled) = with_weights!(graph, |w| dijkstra_quad(graph, source, target, w));
    let distance = Some(dist[target as usize]).filter(|&d| d != UNREACHED_DIST);
    Ok(TargetReference { distance, settled, time_s: start.elapsed().as_secs_f64() })
}

/// Checks that `target` names a vertex of `graph`.
pub(crate) fn check_target(graph: &Graph, target: VertexId) -> Result<(), AlgoError> {
    if (target as usize) < graph.num_vertices() {
        Ok(())
    } else {
        Err(AlgoError::TargetOutOfRange { target_vertex: target as u64, num_vertices: graph.num_vertices() })
    }
}
