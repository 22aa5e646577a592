//! The one error type of the crate: bad configuration text and failures to
//! start the runtime's threads.

use std::fmt;

/// Why a spec, a configuration or a runtime was rejected.
#[derive(Debug)]
pub enum LoopError {
    /// A malformed distributor spec (`ORDO_LOOP`, `--loop`).
    Spec(String),
    /// A malformed nesting configuration (`ORDO_LOOP_LEVELS`).
    Levels(String),
    /// A malformed `ORDO_TOPOLOGY` or `ORDO_THREADS`.
    Config(String),
    /// A runtime needs at least one thread and at most [`MAX_THREADS`](crate::MAX_THREADS).
    Threads(usize),
    /// The operating system refused to create worker thread `index`.
    Spawn {
        /// The worker that could not be created.
        index: usize,
        /// The error of `std::thread::Builder::spawn`.
        source: std::io::Error,
    },
}

impl fmt::Display for LoopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoopError::Spec(m) | LoopError::Levels(m) | LoopError::Config(m) => f.write_str(m),
            LoopError::Threads(n) => {
                write!(f, "a loop runtime needs 1 to {} threads (got {n})", crate::MAX_THREADS)
            }
            LoopError::Spawn { index, source } => {
                write!(f, "cannot create loop worker thread {index}: {source}")
            }
        }
    }
}

impl std::error::Error for LoopError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LoopError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}
