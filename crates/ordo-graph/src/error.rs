//! Errors of graph loading, validation and writing.
//!
//! Every error that comes from a file names the file and the place in it (a
//! 1-based line for text formats, a byte offset for binary ones), so that the
//! CLI can print it as one clear line.

use std::io;
use std::path::{Path, PathBuf};

/// An error from reading, validating, building or writing a graph.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// A text file is malformed at a given line.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        /// The file being read.
        path: PathBuf,
        /// 1-based line number of the offending line.
        line: u64,
        /// What is wrong.
        msg: String,
    },
    /// A binary file is malformed at a given byte offset.
    #[error("{}: byte {offset}: {msg}", path.display())]
    Binary {
        /// The file being read.
        path: PathBuf,
        /// Byte offset of the offending field.
        offset: u64,
        /// What is wrong.
        msg: String,
    },
    /// A problem with a whole file that has no single location (e.g. the
    /// edge count announced in the header differs from the edges found).
    #[error("{}: {msg}", path.display())]
    File {
        /// The file being read.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },
    /// The operating system failed to read or write a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file being accessed.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A graph built in memory violates an invariant of the CSR format.
    #[error("invalid graph: {0}")]
    Invalid(String),
}

impl GraphError {
    /// A parse error at `line` (1-based) of `path`.
    pub fn parse(path: &Path, line: u64, msg: impl Into<String>) -> Self {
        GraphError::Parse { path: path.to_path_buf(), line, msg: msg.into() }
    }

    /// A binary-format error at byte `offset` of `path`.
    pub fn binary(path: &Path, offset: u64, msg: impl Into<String>) -> Self {
        GraphError::Binary { path: path.to_path_buf(), offset, msg: msg.into() }
    }

    /// A whole-file error.
    pub fn file(path: &Path, msg: impl Into<String>) -> Self {
        GraphError::File { path: path.to_path_buf(), msg: msg.into() }
    }

    /// An I/O error on `path`.
    pub fn io(path: &Path, source: io::Error) -> Self {
        GraphError::Io { path: path.to_path_buf(), source }
    }
}

/// Result type of this crate.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;
