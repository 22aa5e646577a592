//! The sequential reference of BFS: a FIFO-queue search.

use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use super::UNREACHED_LEVEL;
use crate::access::check_source;
use crate::sssp::reference::Reference;
use crate::AlgoError;

/// Breadth-first search from `source` with a FIFO queue: the level (number
/// of edges on a shortest path) of every vertex, `UNREACHED_LEVEL` when
/// unreachable. Weights are ignored. `O(n + m)`.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
pub fn bfs_levels(graph: &Graph, source: VertexId) -> Result<Reference<u32>, AlgoError> {
    check_source(graph, source)?;
    let start = Instant::now();
    let n = graph.num_vertices();
    let offsets = graph.offsets();
    let targets = graph.targets();
    let mut level = vec![UNREACHED_LEVEL; n];
    // Every vertex enters the queue once, so a flat array with a read index
    // is the queue.
    let mut queue: Vec<VertexId> = Vec::with_capacity(n);
    level[source as usize] = 0;
    queue.push(source);
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        let next = level[u as usize] + 1;
        let (lo, hi) = (offsets[u as usize] as usize, offsets[u as usize + 1] as usize);
        for &v in &targets[lo..hi] {
            if level[v as usize] == UNREACHED_LEVEL {
                level[v as usize] = next;
                queue.push(v);
            }
        }
    }
    Ok(Reference { values: level, settled: queue.len() as u64, time_s: start.elapsed().as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::EdgeList;

    #[test]
    fn bfs_levels_on_a_small_graph() {
        // 0 -> 1 -> 2 -> 3, 0 -> 2 (heavy weight, irrelevant to BFS), 4 isolated.
        let mut el = EdgeList::new(5, true);
        for (u, v, w) in [(0, 1, 1), (1, 2, 1), (2, 3, 1), (0, 2, 100)] {
            el.push(u, v, w);
        }
        let g = el.into_graph().unwrap();
        let r = bfs_levels(&g, 0).unwrap();
        assert_eq!(r.values, vec![0, 1, 1, 2, UNREACHED_LEVEL]);
        assert_eq!(r.settled, 4);
    }

    #[test]
    fn bad_source_is_an_error() {
        let g = EdgeList::new(2, false).into_graph().unwrap();
        assert!(bfs_levels(&g, 7).is_err());
    }
}
