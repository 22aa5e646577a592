//! The sequential triangle count, by a different method than the parallel
//! kernel: the edge iterator with a marker array over the simple graph
//! (no orientation, no merging). For every edge `u < v` (by id) it marks
//! `N(u)` and counts the `w > v` in `N(v)` that are marked, so each
//! triangle `u < v < w` is counted once. `O(Σ_{u<v} deg(v))`.

use ordo_graph::transform::symmetrize_simple;
use ordo_graph::{Graph, VertexId};

/// Triangles of the simple undirected graph underlying `graph`.
pub fn triangles(graph: &Graph) -> u64 {
    triangles_in_simple(&symmetrize_simple(graph))
}

/// Triangles of `simple`, which must be simple and symmetric (as
/// `symmetrize_simple` returns it).
pub fn triangles_in_simple(simple: &Graph) -> u64 {
    let n = simple.num_vertices();
    let mut marked = vec![false; n];
    let mut count = 0u64;
    for u in 0..n as VertexId {
        for &x in simple.neighbors(u) {
            marked[x as usize] = true;
        }
        for &v in simple.neighbors(u) {
            if v <= u {
                continue;
            }
            count += simple.neighbors(v).iter().filter(|&&w| w > v && marked[w as usize]).count() as u64;
        }
        for &x in simple.neighbors(u) {
            marked[x as usize] = false;
        }
    }
    count
}
