//! The sequential reference of A*: Dijkstra's algorithm from the source,
//! stopped when the target is settled. Its distance is exact, and the number
//! of vertices it settled is the exact-order task count, the denominator of
//! A*'s `work_increase` (design.md §4).

use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use crate::reference::{check_source, with_weights, QuadHeap, UNREACHED_DIST};
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
    let (distance, settled) = with_weights!(graph, |w| search(graph, source, target, w));
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

#[inline(always)]
fn search(
    graph: &Graph,
    source: VertexId,
    target: VertexId,
    weight: impl Fn(usize) -> u64,
) -> (Option<u64>, u64) {
    let offsets = graph.offsets();
    let targets = graph.targets();
    let mut dist = vec![UNREACHED_DIST; graph.num_vertices()];
    let mut heap = QuadHeap::with_capacity(1024.min(graph.num_vertices()));
    let mut settled = 0u64;
    dist[source as usize] = 0;
    heap.push(0, source);
    while let Some((d, u)) = heap.pop() {
        if d > dist[u as usize] {
            continue; // an outdated entry (lazy deletion)
        }
        settled += 1;
        if u == target {
            return (Some(d), settled);
        }
        let (lo, hi) = (offsets[u as usize] as usize, offsets[u as usize + 1] as usize);
        for (e, &v) in (lo..hi).zip(&targets[lo..hi]) {
            let nd = d + weight(e);
            let dv = &mut dist[v as usize];
            if nd < *dv {
                *dv = nd;
                heap.push(nd, v);
            }
        }
    }
    (None, settled)
}
