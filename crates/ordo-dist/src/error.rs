//! The one error type of distributed runs.

use ordo_graph::gen::GenError;
use ordo_graph::GraphError;

/// Why a distributed run failed. Every rank of a failed run returns an
/// error: the rank where the problem arose its own, the others
/// [`DistError::Remote`] naming that rank.
#[derive(Debug, thiserror::Error)]
pub enum DistError {
    /// The graph part could not be read.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// The generator spec is invalid.
    #[error(transparent)]
    Gen(#[from] GenError),
    /// A bad parameter (source vertex, scheduler spec, thresholds, ...).
    #[error("{0}")]
    Config(String),
    /// Another rank failed; `message` is its error.
    #[error("rank {rank} failed: {message}")]
    Remote {
        /// The rank that failed first.
        rank: usize,
        /// Its error message.
        message: String,
    },
    /// A message broke the protocol (a bug, or a corrupted message).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The transport failed (e.g. MPI could not start).
    #[error("transport: {0}")]
    Transport(String),
}

impl DistError {
    /// Whether the error arose on this rank (not a report of another's).
    pub fn is_local(&self) -> bool {
        !matches!(self, DistError::Remote { .. })
    }
}
