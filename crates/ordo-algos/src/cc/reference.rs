//! The sequential reference of connected components: a union-find over
//! every edge taken as undirected (union by size, path halving; the
//! sequential [`UnionFind`] of `ordo-graph`, which shares no code with the
//! parallel forest), labelled by the smallest vertex id of each set.

use ordo_graph::{Graph, UnionFind, VertexId};

/// The weakly connected components of `graph`: a label per vertex, the
/// smallest vertex id of its component. `O(m α(n))`.
///
/// ```
/// use ordo_algos::cc::reference::component_labels;
/// use ordo_graph::EdgeList;
///
/// let mut edges = EdgeList::new(5, false);
/// edges.push(4, 1, 1);
/// edges.push(3, 2, 1);
/// edges.push(2, 4, 1);
/// let graph = edges.into_graph().unwrap();
/// assert_eq!(component_labels(&graph), vec![0, 1, 1, 1, 1]);
/// ```
pub fn component_labels(graph: &Graph) -> Vec<VertexId> {
    let n = graph.num_vertices();
    let mut sets = UnionFind::new(n);
    for u in 0..n as VertexId {
        for &v in graph.neighbors(u) {
            sets.union(u, v);
        }
    }
    // The first vertex met of each set, in increasing id order, is its
    // smallest: it names the set's root.
    const UNNAMED: VertexId = VertexId::MAX;
    let mut name_of_root = vec![UNNAMED; n];
    (0..n as VertexId)
        .map(|v| {
            let root = sets.find(v) as usize;
            if name_of_root[root] == UNNAMED {
                name_of_root[root] = v;
            }
            name_of_root[root]
        })
        .collect()
}
