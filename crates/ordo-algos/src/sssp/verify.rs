//! Verification of SSSP and BFS results: exact comparison with a sequential
//! reference, the Lonestar fixpoint check, and the checksums (reached, max,
//! sum of distances) that Lonestar prints and that different implementations
//! can compare (Lonestar's `sssp` and the GAPBS verifier).

use std::fmt;

use ordo_graph::{Graph, VertexId};

use crate::access::with_weights;
use crate::bfs::UNREACHED_LEVEL;
use crate::sssp::UNREACHED_DIST;
use crate::AlgoError;

/// A per-vertex label with a distinguished "unreachable" value: `u64`
/// distances and `u32` BFS levels.
pub trait Label: Copy + Eq + Ord + fmt::Debug + Send + Sync {
    /// The value of an unreachable vertex.
    const UNREACHED: Self;
    /// The label widened to `u64` (`UNREACHED` maps to `u64::MAX`).
    fn to_u64(self) -> u64;
}

impl Label for u64 {
    const UNREACHED: u64 = UNREACHED_DIST;
    fn to_u64(self) -> u64 {
        self
    }
}

impl Label for u32 {
    const UNREACHED: u32 = UNREACHED_LEVEL;
    fn to_u64(self) -> u64 {
        if self == UNREACHED_LEVEL {
            u64::MAX
        } else {
            self as u64
        }
    }
}

/// A label as text: the number, or `inf` when unreachable (the format of
/// `ordo run --out`).
pub fn label_text<L: Label>(value: L) -> String {
    if value == L::UNREACHED {
        "inf".to_string()
    } else {
        value.to_u64().to_string()
    }
}

/// Compares a result with its reference value by value.
///
/// # Errors
/// [`AlgoError::LengthMismatch`] or [`AlgoError::Mismatch`] naming the first
/// differing vertex with both values.
pub fn compare_exact<L: Label>(expected: &[L], got: &[L]) -> Result<(), AlgoError> {
    if expected.len() != got.len() {
        return Err(AlgoError::LengthMismatch { expected: expected.len(), got: got.len() });
    }
    match expected.iter().zip(got).position(|(e, g)| e != g) {
        None => Ok(()),
        Some(vertex) => Err(AlgoError::Mismatch {
            vertex,
            expected: label_text(expected[vertex]),
            got: label_text(got[vertex]),
        }),
    }
}

/// What an edge costs in a fixpoint check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeCost {
    /// The graph's weights (1 when the graph is unweighted): SSSP.
    Weights,
    /// Every edge costs 1: BFS levels.
    Unit,
}

/// Checks, without a reference, that `values` are the shortest-path labels
/// from `source`:
/// 1. the source has label 0;
/// 2. no edge `(u, v, w)` with `d(u)` finite has `d(v) > d(u) + w` (the
///    Lonestar check: the labels are a fixpoint of relaxation, so none is
///    too high);
/// 3. every reached vertex other than the source has an in-edge with
///    `d(v) = d(u) + w` (a tight predecessor), so no label is an invented
///    low value. With positive weights, 1–3 together imply the labels are
///    exact; zero-weight cycles can fool check 3, which is why `ordo run
///    --verify` also compares with a sequential reference.
///
/// `O(n + m)` time, `n` bits of extra memory.
///
/// # Errors
/// [`AlgoError::SourceNotZero`], [`AlgoError::NotFixpoint`] (the first
/// violating edge in CSR order), [`AlgoError::Mismatch`] (a vertex without a
/// tight predecessor: expected is "a tight in-edge"), or
/// [`AlgoError::LengthMismatch`] if `values` does not have one entry per vertex.
pub fn check_fixpoint<L: Label>(
    graph: &Graph,
    source: VertexId,
    values: &[L],
    cost: EdgeCost,
) -> Result<(), AlgoError> {
    let n = graph.num_vertices();
    if values.len() != n {
        return Err(AlgoError::LengthMismatch { expected: n, got: values.len() });
    }
    crate::access::check_source(graph, source)?;
    if values[source as usize].to_u64() != 0 {
        return Err(AlgoError::SourceNotZero {
            source_vertex: source,
            got: label_text(values[source as usize]),
        });
    }
    let mut supported = vec![false; n];
    supported[source as usize] = true;
    let offsets = graph.offsets();
    let targets = graph.targets();
    let mut check = |weight: &dyn Fn(usize) -> u64| -> Result<(), AlgoError> {
        for u in 0..n {
            let du = values[u].to_u64();
            if du == u64::MAX {
                continue;
            }
            let (lo, hi) = (offsets[u] as usize, offsets[u + 1] as usize);
            for (e, &v) in (lo..hi).zip(&targets[lo..hi]) {
                let w = weight(e);
                let bound = du as u128 + w as u128;
                let dv = values[v as usize].to_u64();
                let dv_wide = if dv == u64::MAX { u128::MAX } else { dv as u128 };
                if dv_wide > bound {
                    return Err(AlgoError::NotFixpoint {
                        from: u as u32,
                        to: v,
                        weight: w,
                        dist_from: du,
                        dist_to: label_text(values[v as usize]),
                    });
                }
                if dv_wide == bound {
                    supported[v as usize] = true;
                }
            }
        }
        Ok(())
    };
    match cost {
        EdgeCost::Unit => check(&|_| 1)?,
        EdgeCost::Weights => with_weights!(graph, |w| check(&w))?,
    }
    if let Some(v) = (0..n).find(|&v| values[v] != L::UNREACHED && !supported[v]) {
        return Err(AlgoError::Mismatch {
            vertex: v,
            expected: "a tight in-edge (d(u) + w = d(v))".to_string(),
            got: format!("label {} without one", label_text(values[v])),
        });
    }
    Ok(())
}

/// Checksums of a result: Lonestar prints them, and they let different
/// implementations (or a published value) be compared cheaply.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Vertices with a finite label.
    pub reached: u64,
    /// The largest finite label (0 when nothing is reached).
    pub max: u64,
    /// The sum of the finite labels (`u128`: a sum of `u64` distances may
    /// exceed `u64`).
    pub sum: u128,
}

/// Computes the [`Summary`] of `values`.
pub fn summarize<L: Label>(values: &[L]) -> Summary {
    let mut s = Summary::default();
    for &v in values {
        if v != L::UNREACHED {
            let v = v.to_u64();
            s.reached += 1;
            s.max = s.max.max(v);
            s.sum += v as u128;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::EdgeList;

    fn path_graph() -> Graph {
        // 0 -5-> 1 -2-> 2, 0 -9-> 2, 3 isolated.
        let mut el = EdgeList::new(4, true);
        el.push(0, 1, 5);
        el.push(1, 2, 2);
        el.push(0, 2, 9);
        el.into_graph().unwrap()
    }

    #[test]
    fn exact_comparison_reports_first_mismatch() {
        assert!(compare_exact(&[0u64, 5, 7], &[0, 5, 7]).is_ok());
        assert_eq!(
            compare_exact(&[0u64, 5, UNREACHED_DIST], &[0, 6, 7]).unwrap_err(),
            AlgoError::Mismatch { vertex: 1, expected: "5".into(), got: "6".into() }
        );
        assert_eq!(
            compare_exact(&[0u32, UNREACHED_LEVEL], &[0, 3]).unwrap_err(),
            AlgoError::Mismatch { vertex: 1, expected: "inf".into(), got: "3".into() }
        );
        assert!(matches!(compare_exact(&[0u64], &[0, 1]), Err(AlgoError::LengthMismatch { .. })));
    }

    #[test]
    fn fixpoint_accepts_exact_and_rejects_wrong_labels() {
        let g = path_graph();
        let inf = UNREACHED_DIST;
        assert!(check_fixpoint(&g, 0, &[0u64, 5, 7, inf], EdgeCost::Weights).is_ok());
        // Too high: edge 1 -> 2 can still lower vertex 2.
        assert!(matches!(
            check_fixpoint(&g, 0, &[0u64, 5, 9, inf], EdgeCost::Weights),
            Err(AlgoError::NotFixpoint { from: 1, to: 2, .. })
        ));
        // Too low: vertex 2 has no tight predecessor.
        assert!(matches!(
            check_fixpoint(&g, 0, &[0u64, 5, 6, inf], EdgeCost::Weights),
            Err(AlgoError::Mismatch { vertex: 2, .. })
        ));
        // Reached although nothing leads there.
        assert!(check_fixpoint(&g, 0, &[0u64, 5, 7, 3], EdgeCost::Weights).is_err());
        assert!(matches!(
            check_fixpoint(&g, 0, &[1u64, 5, 7, inf], EdgeCost::Weights),
            Err(AlgoError::SourceNotZero { .. })
        ));
        // Unit costs: BFS levels.
        let lv = UNREACHED_LEVEL;
        assert!(check_fixpoint(&g, 0, &[0u32, 1, 1, lv], EdgeCost::Unit).is_ok());
        assert!(check_fixpoint(&g, 0, &[0u32, 1, 2, lv], EdgeCost::Unit).is_err());
    }

    #[test]
    fn summary_counts_finite_labels() {
        let s = summarize(&[0u64, 5, UNREACHED_DIST, u64::MAX - 1, 7]);
        assert_eq!(s.reached, 4);
        assert_eq!(s.max, u64::MAX - 1);
        assert_eq!(s.sum, 12 + (u64::MAX - 1) as u128);
        assert_eq!(summarize::<u32>(&[]), Summary::default());
    }
}
