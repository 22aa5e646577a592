//! The sequential PageRank-by-pull loop: Figure 1 of Callisto-RTS run on
//! one thread, written independently of the parallel kernel (a plain `f64`
//! vector, no atomics, no loop runtime). Same arithmetic per vertex, so the
//! ranks agree bit for bit after the same number of iterations.

use ordo_graph::Graph;

use super::{check_transpose, PrPullParams, PrPullResult, Stop};
use crate::AlgoError;

/// Sequential PageRank by pull with the stopping rule of `params`.
pub fn pr_pull(graph: &Graph, transpose: &Graph, params: &PrPullParams) -> Result<PrPullResult, AlgoError> {
    params.validate()?;
    check_transpose(graph, transpose)?;
    let start = std::time::Instant::now();
    let n = graph.num_vertices();
    let (max_iterations, tolerance) = match params.stop {
        Stop::Iterations(k) => (k, None),
        Stop::Tolerance { tolerance, max_iterations } => (max_iterations, Some(tolerance)),
    };
    let d = params.damping;
    let mut rank = vec![1.0 / n as f64; n];
    let mut next = vec![0.0; n];
    let mut changes = Vec::new();
    while n > 0 && (changes.len() as u32) < max_iterations {
        let base = (1.0 - d) / n as f64;
        let mut diff = 0.0;
        for t in 0..n {
            let mut val = 0.0;
            for &w in transpose.neighbors(t as u32) {
                val += rank[w as usize] / graph.degree(w) as f64;
            }
            next[t] = base + d * val;
            diff += (next[t] - rank[t]).abs();
        }
        std::mem::swap(&mut rank, &mut next);
        changes.push(diff);
        if tolerance.is_some_and(|tol| diff <= tol) {
            break;
        }
    }
    Ok(PrPullResult {
        ranks: if n == 0 { Vec::new() } else { rank },
        iterations: changes.len() as u32,
        changes,
        time_s: start.elapsed().as_secs_f64(),
    })
}
