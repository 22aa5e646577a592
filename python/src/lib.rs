//! `ordo._ordo`: the Rust extension module of the `ordo` Python package.
//!
//! Graphs ([`graph`]) are ordo's CSR graphs, made from files, generators,
//! `scipy.sparse` matrices or numpy arrays ([`arrays`] decides what is
//! shared and what is copied). Runs release the GIL and stop on Ctrl-C
//! ([`runner`]) on worker pools kept between calls ([`pools`]). No Rust
//! panic reaches the interpreter: every entry point turns one into a
//! `RuntimeError` ([`errors`]).

use pyo3::prelude::*;

mod arrays;
mod errors;
mod graph;
mod pools;
mod runner;
mod runs;

/// The extension module; `ordo/__init__.py` re-exports its contents.
#[pymodule]
fn _ordo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<graph::PyGraph>()?;
    m.add("GraphFormatError", py.get_type::<errors::GraphFormatError>())?;
    m.add_function(wrap_pyfunction!(graph::generate, m)?)?;
    m.add_function(wrap_pyfunction!(runs::apps, m)?)?;
    m.add_function(wrap_pyfunction!(runs::run_app, m)?)?;
    m.add("CANCELLED_NOTE", runner::CANCELLED_NOTE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
