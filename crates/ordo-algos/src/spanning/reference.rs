//! Sequential spanning forests: queue BFS and stack pseudo-DFS (the speed
//! bar of the parallel searches) and union-find (Kruskal's structure without
//! the sort), each rooting every component at its smallest vertex.

use std::collections::VecDeque;

use ordo_graph::VertexId;

use super::Undirected;
use ordo_graph::UnionFind;

/// Marks "no parent yet".
const UNSET: VertexId = VertexId::MAX;

/// The BFS forest: for each vertex in increasing order that no earlier
/// search reached, a queue BFS rooted at it. `O(n + m)`.
pub fn bfs_forest(graph: &Undirected<'_>) -> Vec<VertexId> {
    let g = graph.graph();
    let n = g.num_vertices();
    let mut parent = vec![UNSET; n];
    let mut queue = VecDeque::new();
    for root in 0..n as VertexId {
        if parent[root as usize] != UNSET {
            continue;
        }
        parent[root as usize] = root;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            for &u in g.neighbors(v) {
                if parent[u as usize] == UNSET {
                    parent[u as usize] = v;
                    queue.push_back(u);
                }
            }
        }
    }
    parent
}

/// The pseudo-DFS forest (a vertex's parent is the vertex whose expansion
/// found it first; expansion order is LIFO): what [`span_dfs`](super::span_dfs)
/// computes on one worker with `S = 1`. `O(n + m)`.
pub fn dfs_forest(graph: &Undirected<'_>) -> Vec<VertexId> {
    let g = graph.graph();
    let n = g.num_vertices();
    let mut parent = vec![UNSET; n];
    let mut stack = Vec::new();
    for root in 0..n as VertexId {
        if parent[root as usize] != UNSET {
            continue;
        }
        parent[root as usize] = root;
        stack.push(root);
        while let Some(v) = stack.pop() {
            for &u in g.neighbors(v) {
                if parent[u as usize] == UNSET {
                    parent[u as usize] = v;
                    stack.push(u);
                }
            }
        }
    }
    parent
}

/// The union-find forest: the edges that join two sets, in CSR order, then
/// oriented from the smallest vertex of each component. `O(m α(n) + n)`.
pub fn union_find_forest(graph: &Undirected<'_>) -> Vec<VertexId> {
    let g = graph.graph();
    let n = g.num_vertices();
    let mut sets = UnionFind::new(n);
    let mut tree: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    for (u, v, _) in g.edges() {
        if sets.union(u, v) {
            tree[u as usize].push(v);
            tree[v as usize].push(u);
        }
    }
    let mut parent = vec![UNSET; n];
    let mut stack = Vec::new();
    for root in 0..n as VertexId {
        if parent[root as usize] != UNSET {
            continue;
        }
        parent[root as usize] = root;
        stack.push(root);
        while let Some(v) = stack.pop() {
            for &u in &tree[v as usize] {
                if parent[u as usize] == UNSET {
                    parent[u as usize] = v;
                    stack.push(u);
                }
            }
        }
    }
    parent
}
