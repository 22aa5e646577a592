//! Verification of a PageRank result against the power-iteration
//! reference, within the proven L1 bound (module docs of [`super`]).

use ordo_graph::Graph;

use super::reference::PowerIteration;
use super::{PageRank, PageRankError, PageRankParams};

/// Checks that `transpose` can be the transpose of `graph`: same vertex and
/// edge counts, and every vertex's in-degree in `graph` equals its
/// out-degree in `transpose`.
pub fn check_transpose(graph: &Graph, transpose: &Graph) -> Result<(), PageRankError> {
    let mismatch = |problem: String| Err(PageRankError::TransposeMismatch { problem });
    if graph.num_vertices() != transpose.num_vertices() {
        return mismatch(format!("{} vs {} vertices", graph.num_vertices(), transpose.num_vertices()));
    }
    if graph.num_edges() != transpose.num_edges() {
        return mismatch(format!("{} vs {} edges", graph.num_edges(), transpose.num_edges()));
    }
    let mut in_degree = vec![0u64; graph.num_vertices()];
    for &w in graph.targets() {
        in_degree[w as usize] += 1;
    }
    let t_offsets = transpose.offsets();
    for (v, &d) in in_degree.iter().enumerate() {
        let t_degree = t_offsets[v + 1] - t_offsets[v];
        if d != t_degree {
            return mismatch(format!("vertex {v} has in-degree {d} but {t_degree} edges in the transpose"));
        }
    }
    Ok(())
}

/// The L1 distance `Σ |a_v - b_v|` (over the common prefix).
pub fn l1_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// Slack for floating-point rounding in the comparison with the reference:
/// `1e-9` per vertex (the sums round at about `1e-16` relative, over at most
/// millions of terms of size about 1).
pub fn rounding_slack(n: usize) -> f64 {
    1e-9 * n as f64
}

/// Verifies a run against the power-iteration reference: every residual is
/// below `params.tolerance`, and the L1 distance is within the proven bound
/// `residuals left/(1 - α) + reference error + rounding slack`. Returns the
/// L1 distance.
///
/// # Errors
/// [`PageRankError::LengthMismatch`], [`PageRankError::ResidualLeft`] or
/// [`PageRankError::BoundExceeded`], naming the numbers.
pub fn verify_within_bound(
    result: &PageRank,
    reference: &PowerIteration,
    params: &PageRankParams,
) -> Result<f64, PageRankError> {
    if result.ranks.len() != reference.ranks.len() || result.residuals.len() != reference.ranks.len() {
        return Err(PageRankError::LengthMismatch {
            expected: reference.ranks.len(),
            got: result.ranks.len(),
        });
    }
    if let Some((vertex, &residual)) =
        result.residuals.iter().enumerate().find(|(_, &r)| !(r < params.tolerance && r >= 0.0))
    {
        return Err(PageRankError::ResidualLeft { vertex, residual, tolerance: params.tolerance });
    }
    let l1 = l1_distance(&result.ranks, &reference.ranks);
    let bound = result.error_bound(params.alpha) + reference.error_bound + rounding_slack(result.ranks.len());
    if l1 <= bound {
        Ok(l1)
    } else {
        Err(PageRankError::BoundExceeded { l1, bound })
    }
}
