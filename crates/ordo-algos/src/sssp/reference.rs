//! The sequential reference of SSSP: Dijkstra's algorithm.
//!
//! They serve twice: as the exact answer every parallel run is verified
//! against, and as the physical speed bar (`vs_seq` = reference time /
//! parallel time). Dijkstra is therefore written for speed:
//! flat CSR slices, no allocation per edge, and a 4-ary min-heap with lazy
//! deletion, whose shallower tree halves the levels a pop sifts through
//! compared with a binary heap while the four children of a node share a
//! cache line (16-byte entries, 64-byte line). [`dijkstra_binary_heap`] is the
//! plain `std::collections::BinaryHeap` version kept as the comparison point.
//!
//! Unweighted graphs are treated as having weight 1 on every edge. The
//! single-source result type [`Reference`] is shared with BFS's queue search.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use ordo_graph::{Graph, VertexId};

use super::UNREACHED_DIST;
use crate::access::{check_source, with_weights};
use crate::AlgoError;

/// The result of a sequential reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<D> {
    /// Per-vertex value (distance or level), `UNREACHED_*` when unreachable.
    pub values: Vec<D>,
    /// Vertices settled, i.e. reachable from the source: the task count of
    /// the exact-order execution, the denominator of `work_increase`.
    pub settled: u64,
    /// Wall time of the search in seconds (allocation of the result
    /// included, as in the parallel runs' setup it is not: it is small).
    pub time_s: f64,
}

/// A min-heap of `(distance, vertex)` with four children per node.
///
/// Lazy deletion: a vertex may be in the heap several times; entries whose
/// distance is above the vertex's current distance are skipped when popped.
/// Both sift operations move a "hole" instead of swapping, so each level
/// costs one write.
struct QuadHeap {
    entries: Vec<(u64, VertexId)>,
}

impl QuadHeap {
    const ARITY: usize = 4;

    fn with_capacity(cap: usize) -> Self {
        QuadHeap { entries: Vec::with_capacity(cap) }
    }

    #[inline]
    fn push(&mut self, dist: u64, v: VertexId) {
        let mut hole = self.entries.len();
        self.entries.push((dist, v));
        while hole > 0 {
            let parent = (hole - 1) / Self::ARITY;
            let p = self.entries[parent];
            if p.0 <= dist {
                break;
            }
            self.entries[hole] = p;
            hole = parent;
        }
        self.entries[hole] = (dist, v);
    }

    #[inline]
    fn pop(&mut self) -> Option<(u64, VertexId)> {
        let last = self.entries.pop()?;
        let len = self.entries.len();
        if len == 0 {
            return Some(last);
        }
        let top = self.entries[0];
        // Sift `last` down from the root.
        let mut hole = 0;
        loop {
            let first = hole * Self::ARITY + 1;
            if first >= len {
                break;
            }
            let end = (first + Self::ARITY).min(len);
            let mut best = first;
            let mut best_d = self.entries[first].0;
            for c in first + 1..end {
                let d = self.entries[c].0;
                if d < best_d {
                    best = c;
                    best_d = d;
                }
            }
            if best_d >= last.0 {
                break;
            }
            self.entries[hole] = self.entries[best];
            hole = best;
        }
        self.entries[hole] = last;
        Some(top)
    }
}

/// Dijkstra's algorithm from `source` with a 4-ary heap.
///
/// Returns the exact distances (`UNREACHED_DIST` for unreachable vertices),
/// the number of settled vertices and the time. `O((n + m) log n)` time,
/// `O(n + m)` memory in the worst case of the lazy heap.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
pub fn dijkstra(graph: &Graph, source: VertexId) -> Result<Reference<u64>, AlgoError> {
    check_source(graph, source)?;
    crate::access::check_integer_weights(graph, "dijkstra")?;
    let start = Instant::now();
    let (values, settled) = with_weights!(graph, |w| dijkstra_quad(graph, source, NO_STOP, w));
    Ok(Reference { values, settled, time_s: start.elapsed().as_secs_f64() })
}

/// The `stop` argument of [`dijkstra_quad`] that never matches a vertex
/// (ids are below `n <= u32::MAX`).
pub(crate) const NO_STOP: VertexId = VertexId::MAX;

/// Dijkstra with the 4-ary heap from `source`, ending early once `stop` is
/// settled (then the distances of unsettled vertices are upper bounds, and
/// `stop`'s is exact). Returns the distances and the number of vertices
/// settled. Shared by [`dijkstra`] and A*'s stopped reference.
#[inline(always)]
pub(crate) fn dijkstra_quad(
    graph: &Graph,
    source: VertexId,
    stop: VertexId,
    weight: impl Fn(usize) -> u64,
) -> (Vec<u64>, u64) {
    let n = graph.num_vertices();
    let offsets = graph.offsets();
    let targets = graph.targets();
    let mut dist = vec![UNREACHED_DIST; n];
    let mut heap = QuadHeap::with_capacity(1024.min(n));
    let mut settled = 0u64;
    dist[source as usize] = 0;
    heap.push(0, source);
    while let Some((d, u)) = heap.pop() {
        if d > dist[u as usize] {
            continue; // an outdated entry (lazy deletion)
        }
        settled += 1;
        if u == stop {
            break;
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
    (dist, settled)
}

/// Dijkstra's algorithm with `std::collections::BinaryHeap<Reverse<(dist, v)>>`
/// and lazy deletion: the textbook version, kept so that [`dijkstra`] can be
/// measured against it. Same results and errors as [`dijkstra`].
pub fn dijkstra_binary_heap(graph: &Graph, source: VertexId) -> Result<Reference<u64>, AlgoError> {
    check_source(graph, source)?;
    let start = Instant::now();
    let n = graph.num_vertices();
    let mut dist = vec![UNREACHED_DIST; n];
    let mut heap = BinaryHeap::new();
    let mut settled = 0u64;
    dist[source as usize] = 0;
    heap.push(Reverse((0u64, source)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        settled += 1;
        for (v, w) in graph.weighted_neighbors(u) {
            let nd = d + w as u64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    Ok(Reference { values: dist, settled, time_s: start.elapsed().as_secs_f64() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::EdgeList;

    fn graph(n: usize, edges: &[(u32, u32, u32)]) -> Graph {
        let mut el = EdgeList::new(n, true);
        for &(u, v, w) in edges {
            el.push(u, v, w);
        }
        el.into_graph().unwrap()
    }

    /// Bellman–Ford: an independent, obviously correct reference.
    fn bellman_ford(g: &Graph, s: u32) -> Vec<u64> {
        let mut d = vec![UNREACHED_DIST; g.num_vertices()];
        d[s as usize] = 0;
        loop {
            let mut changed = false;
            for (u, v, w) in g.edges() {
                if d[u as usize] != UNREACHED_DIST && d[u as usize] + (w as u64) < d[v as usize] {
                    d[v as usize] = d[u as usize] + w as u64;
                    changed = true;
                }
            }
            if !changed {
                return d;
            }
        }
    }

    #[test]
    fn quad_heap_pops_in_order() {
        let mut h = QuadHeap::with_capacity(0);
        let mut x: u64 = 12345;
        let mut keys = Vec::new();
        for i in 0..1000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let k = (x >> 40) % 100;
            keys.push(k);
            h.push(k, i);
        }
        keys.sort_unstable();
        let popped: Vec<u64> = std::iter::from_fn(|| h.pop().map(|e| e.0)).collect();
        assert_eq!(popped, keys);
    }

    #[test]
    fn dijkstra_matches_bellman_ford_on_random_graphs() {
        let mut x: u64 = 99;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as u32
        };
        for trial in 0..30 {
            let n = 1 + (next() % 60) as usize;
            let m = next() % 200;
            let edges: Vec<_> =
                (0..m).map(|_| (next() % n as u32, next() % n as u32, next() % (1 + trial * 50))).collect();
            let g = graph(n, &edges);
            let s = next() % n as u32;
            let expected = bellman_ford(&g, s);
            let quad = dijkstra(&g, s).unwrap();
            let plain = dijkstra_binary_heap(&g, s).unwrap();
            assert_eq!(quad.values, expected);
            assert_eq!(plain.values, expected);
            let reached = expected.iter().filter(|&&d| d != UNREACHED_DIST).count() as u64;
            assert_eq!(quad.settled, reached);
            assert_eq!(plain.settled, reached);
        }
    }

    #[test]
    fn huge_weights_do_not_overflow() {
        let w = u32::MAX;
        let g = graph(4, &[(0, 1, w), (1, 2, w), (2, 3, w), (0, 3, w)]);
        let r = dijkstra(&g, 0).unwrap();
        assert_eq!(r.values, vec![0, w as u64, 2 * w as u64, w as u64]);
    }

    #[test]
    fn bad_source_is_an_error() {
        let g = graph(2, &[(0, 1, 1)]);
        assert_eq!(
            dijkstra(&g, 2).unwrap_err(),
            AlgoError::SourceOutOfRange { source_vertex: 2, num_vertices: 2 }
        );
    }
}
