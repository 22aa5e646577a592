//! Errors of graph loading, validation and writing.
//!
//! Every error that comes from a file names the file and the place in it (a
//! 1-based line for text formats, a byte offset for binary ones), so that the
//! CLI can print it as one clear line.

use std::io;
use std::path::{Path, PathBuf};

use crate::memory::MemoryError;

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
    /// The operating system failed to read or write a file. The message
    /// includes the operating system's reason, so the `io::Error` is not
    /// also returned by [`std::error::Error::source`] (a chain printer would
    /// show it twice); [`GraphError::io_error`] gives access to it.
    #[error("{}: {}", path.display(), describe_io(error))]
    Io {
        /// The file being accessed.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
    /// Not enough memory for what an input asks (see [`crate::memory`]).
    #[error("{0}")]
    Memory(MemoryError),
    /// A graph built in memory violates an invariant of the CSR format.
    #[error("invalid graph: {0}")]
    Invalid(String),
    /// The operating system refused the memory for a copy of a graph held
    /// in memory into huge pages (see [`crate::huge_pages`]); a load names
    /// the file instead, as a [`GraphError::File`].
    #[error("cannot copy the graph into huge pages: {0}")]
    HugePages(io::Error),
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
    pub fn io(path: &Path, error: io::Error) -> Self {
        GraphError::Io { path: path.to_path_buf(), error }
    }

    /// The operating system's error, for an [`GraphError::Io`].
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            GraphError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The reason of an I/O error as one short phrase: the operating system's
/// message (`No such file or directory (os error 2)`), except for the
/// errors a directory given as a file causes, which are named as such.
fn describe_io(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::IsADirectory => "is a directory, expected a file".to_string(),
        _ => e.to_string(),
    }
}

/// Opens `path` for reading and returns it with its length, refusing a
/// directory with "is a directory, expected `what`" (mapping a directory
/// would fail with the baffling "No such device").
pub(crate) fn open_input(path: &Path, what: &str) -> Result<(std::fs::File, u64)> {
    let file = std::fs::File::open(path).map_err(|e| GraphError::io(path, e))?;
    let meta = file.metadata().map_err(|e| GraphError::io(path, e))?;
    if meta.is_dir() {
        return Err(GraphError::file(path, format!("is a directory, expected {what}")));
    }
    Ok((file, meta.len()))
}

/// Result type of this crate.
pub type Result<T, E = GraphError> = std::result::Result<T, E>;

impl From<MemoryError> for GraphError {
    fn from(e: MemoryError) -> Self {
        GraphError::Memory(e)
    }
}
