//! Sequential Brandes betweenness ("A faster algorithm for betweenness
//! centrality", 2001, Algorithm 1), written independently of the parallel
//! kernel: a FIFO queue, predecessor lists, and the dependencies *pushed*
//! from each vertex to its predecessors in reverse BFS order.

use std::collections::VecDeque;

use ordo_graph::VertexId;

use super::{scale_sample, BcGraph, Sources};

/// Betweenness of every vertex of `g` summed over `sources` (scaled as
/// [`super::betweenness`] does for a sample).
pub fn betweenness(g: &BcGraph, sources: Sources) -> Vec<f64> {
    let n = g.num_vertices();
    let list = sources.list(g);
    let mut values = vec![0.0f64; n];
    let mut dist = vec![u32::MAX; n];
    let mut sigma = vec![0.0f64; n];
    let mut delta = vec![0.0f64; n];
    let mut preds: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    let mut stack: Vec<VertexId> = Vec::with_capacity(n);
    let mut queue: VecDeque<VertexId> = VecDeque::new();
    for &s in &list {
        dist[s as usize] = 0;
        sigma[s as usize] = 1.0;
        queue.push_back(s);
        while let Some(v) = queue.pop_front() {
            stack.push(v);
            for &w in g.graph.neighbors(v) {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = dist[v as usize] + 1;
                    queue.push_back(w);
                }
                if dist[w as usize] == dist[v as usize] + 1 {
                    sigma[w as usize] += sigma[v as usize];
                    preds[w as usize].push(v);
                }
            }
        }
        for &w in stack.iter().rev() {
            let coefficient = (1.0 + delta[w as usize]) / sigma[w as usize];
            for &v in &preds[w as usize] {
                delta[v as usize] += sigma[v as usize] * coefficient;
            }
            if w != s {
                values[w as usize] += delta[w as usize];
            }
        }
        for &v in &stack {
            dist[v as usize] = u32::MAX;
            sigma[v as usize] = 0.0;
            delta[v as usize] = 0.0;
            preds[v as usize].clear();
        }
        stack.clear();
    }
    scale_sample(&mut values, &list, g);
    values
}
