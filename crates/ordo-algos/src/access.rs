//! How the algorithms read a graph: argument checks shared by every
//! single-source algorithm, and the weight accessor that monomorphises the
//! weighted and unweighted cases of an inner loop.

use ordo_graph::{Graph, VertexId};

use crate::AlgoError;

/// Checks that `source` names a vertex of `graph`.
pub(crate) fn check_source(graph: &Graph, source: VertexId) -> Result<(), AlgoError> {
    if (source as usize) < graph.num_vertices() {
        Ok(())
    } else {
        Err(AlgoError::SourceOutOfRange { source_vertex: source as u64, num_vertices: graph.num_vertices() })
    }
}

/// Checks that `graph` has no real weights, for `algorithm`'s integer path
/// (which reads [`Graph::weights`] and would take a real-weighted graph for
/// an unweighted one).
pub(crate) fn check_integer_weights(graph: &Graph, algorithm: &'static str) -> Result<(), AlgoError> {
    if graph.has_real_weights() {
        Err(AlgoError::RealWeights { algorithm })
    } else {
        Ok(())
    }
}

/// Runs `f` with the graph's weight of edge `e` as a `u64` function, the
/// weighted and unweighted cases monomorphised separately so the inner loop
/// has no branch on weightedness.
macro_rules! with_weights {
    ($graph:expr, |$w:ident| $body:expr) => {
        match $graph.weights() {
            Some(ws) => {
                let $w = |e: usize| ws[e] as u64;
                $body
            }
            None => {
                let $w = |_e: usize| 1u64;
                $body
            }
        }
    };
}
pub(crate) use with_weights;

/// The in-edges of `graph` as a graph whose out-edges of `v` are the edges
/// into `v`: `graph` itself when it is symmetric (every edge has its
/// reverse, so nothing is copied), else its transpose. Kernels that pull
/// over in-edges (bottom-up BFS, PageRank by pull) or need both directions
/// of a directed graph (weak components) read them through this.
pub(crate) fn in_edges(graph: &std::sync::Arc<Graph>) -> std::sync::Arc<Graph> {
    if ordo_graph::stats::is_symmetric(graph) {
        std::sync::Arc::clone(graph)
    } else {
        std::sync::Arc::new(ordo_graph::transform::transpose(graph))
    }
}
