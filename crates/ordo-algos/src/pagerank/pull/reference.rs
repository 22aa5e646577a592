//! The sequential reference of the pull kernel: GAPBS's two loops per
//! iteration on one thread, written independently of the parallel kernel
//! (plain `f64` vectors, the contributions computed in their own pass, the
//! out-degrees read from the graph). Same arithmetic per vertex, so the
//! ranks agree bit for bit after the same number of iterations.

use std::time::Instant;

use ordo_graph::Graph;

use super::{PullPageRank, PullParams};
use crate::pagerank::{check_transpose, PageRankError};

/// A timed run of [`sequential_pull`].
#[derive(Clone, Debug, PartialEq)]
pub struct SequentialPull {
    /// The ranks and changes.
    pub result: PullPageRank,
    /// Wall time in seconds.
    pub time_s: f64,
}

/// Sequential PageRank by pull over `in_edges` (the transpose of `graph`, or
/// `graph` itself when symmetric) with the stopping rule of `params`.
///
/// # Errors
/// As [`super::pull_pagerank`], and [`PageRankError::TransposeMismatch`].
pub fn sequential_pull(
    graph: &Graph,
    in_edges: &Graph,
    params: &PullParams,
) -> Result<SequentialPull, PageRankError> {
    params.validate()?;
    check_transpose(graph, in_edges)?;
    let began = Instant::now();
    let n = graph.num_vertices();
    let alpha = params.alpha;
    let mut rank = vec![1.0f64; n];
    let mut contrib = vec![0.0f64; n];
    let mut changes = Vec::new();
    while n > 0 && (changes.len() as u32) < params.max_iterations {
        for (u, c) in contrib.iter_mut().enumerate() {
            *c = rank[u] / graph.degree(u as u32).max(1) as f64;
        }
        let mut change = 0.0;
        for (v, x) in rank.iter_mut().enumerate() {
            let mut sum = 0.0f64;
            for &u in in_edges.neighbors(v as u32) {
                sum += contrib[u as usize];
            }
            let new = (1.0 - alpha) + alpha * sum;
            change += (new - *x).abs();
            *x = new;
        }
        let change = change / n as f64;
        changes.push(change);
        if change < params.tolerance {
            break;
        }
    }
    Ok(SequentialPull {
        result: PullPageRank { ranks: rank, changes },
        time_s: began.elapsed().as_secs_f64(),
    })
}
