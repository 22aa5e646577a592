//! Rust errors as Python exceptions, and the guard that keeps a Rust panic
//! from ever reaching the interpreter as anything but an exception.
//!
//! | Rust | Python |
//! |---|---|
//! | a malformed graph file ([`GraphError`] other than I/O) | `ordo.GraphFormatError` (a `ValueError`) with the CLI's one-line message |
//! | a missing file / other I/O error | `FileNotFoundError` / `OSError` |
//! | a bad argument (scheduler spec, weight rule, array) | `ValueError` |
//! | a panic (a bug in ordo) | `RuntimeError("ordo internal error: ...")` |

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

use ordo_graph::GraphError;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    ordo,
    GraphFormatError,
    PyValueError,
    "A graph file is malformed. The message is the one `ordo` prints: the file, \
     the line (or byte offset) and the problem, e.g. `g.gr:3: expected 'a u v w'`."
);

/// The exception for an error of reading the graph file `path`: I/O errors
/// keep their OS meaning, everything else is a [`GraphFormatError`].
pub(crate) fn file_error(e: GraphError) -> PyErr {
    match &e {
        GraphError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        GraphError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => GraphFormatError::new_err(e.to_string()),
    }
}

/// The exception for an error of changing a graph held in memory: an
/// `OSError` where the operating system refused memory for huge pages, a
/// `ValueError` otherwise (a weight rule that does not fit the graph).
pub(crate) fn in_memory_error(e: GraphError) -> PyErr {
    match &e {
        GraphError::HugePages(_) => PyOSError::new_err(e.to_string()),
        _ => value_error(e),
    }
}

/// The exception for a graph that cannot be built from in-memory arrays
/// (the caller passed inconsistent arrays): a `ValueError`.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Runs `f`, turning a panic into a `RuntimeError` instead of letting it
/// unwind into the interpreter. Panics in the worker threads of a run come
/// back here too: the pool re-raises them in the thread that started it.
pub(crate) fn no_panic<R>(f: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panic_error(payload.as_ref())))
}

/// The exception for a caught panic.
pub(crate) fn panic_error(payload: &(dyn Any + Send)) -> PyErr {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    PyRuntimeError::new_err(format!("ordo internal error (please report it): {msg}"))
}
