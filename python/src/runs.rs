//! The algorithms as Python functions: arguments checked, the run on a lent
//! pool with the GIL released and Ctrl-C honoured, results as numpy arrays.

use numpy::PyArray1;
use ordo_exec::{ExecOptions, RunStats};
use ordo_sched::SchedulerSpec;
use pyo3::prelude::*;

use crate::errors::value_error;
use crate::graph::PyGraph;
use crate::pools::{lend, thread_count};
use crate::runner::{interruptible, Outcome};

/// The scheduler `ordo run` uses when none is given.
pub(crate) const DEFAULT_SCHEDULER: &str = "pmod";

/// Parses a scheduler spec (`None` = the default); a bad one is a
/// `ValueError` listing what exists.
pub(crate) fn scheduler(spec: Option<&str>) -> PyResult<SchedulerSpec> {
    spec.unwrap_or(DEFAULT_SCHEDULER)
        .parse::<SchedulerSpec>()
        .map_err(|e| value_error(format!("scheduler: {e}")))
}

/// A vertex argument: an id of the graph, else a `ValueError`.
pub(crate) fn vertex(what: &str, v: i64, graph: &PyGraph) -> PyResult<u32> {
    let n = graph.graph.num_vertices();
    u32::try_from(v)
        .ok()
        .filter(|&v| (v as usize) < n)
        .ok_or_else(|| value_error(format!("{what} {v}: the graph has {n} vertices (ids 0..{n})")))
}

/// Runs `algo` on a pool of `threads` workers, interruptibly.
fn run<R: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    algo: impl FnOnce(&ordo_exec::Pool, &ExecOptions) -> PyResult<(R, RunStats)> + Send,
) -> PyResult<R> {
    let threads = thread_count(threads)?;
    interruptible(py, |cancel| {
        let pool = lend(threads)?;
        let opts = ExecOptions { cancel: Some(cancel.clone()), ..ExecOptions::default() };
        let (result, stats) = algo(&pool, &opts)?;
        Ok(if stats.cancelled { Outcome::Cancelled } else { Outcome::Done(result) })
    })
}

/// Shortest-path distances from ``source`` (float64, ``inf`` where
/// unreachable; an unweighted graph's edges weigh 1).
#[pyfunction]
#[pyo3(signature = (g, source, scheduler=None, threads=None))]
pub(crate) fn sssp<'py>(
    py: Python<'py>,
    g: &Bound<'py, PyGraph>,
    source: i64,
    scheduler: Option<&str>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let graph = g.get();
    let source = vertex("source", source, graph)?;
    let spec = self::scheduler(scheduler)?;
    let graph = &graph.graph;
    let dist = run(py, threads, |pool, opts| {
        ordo_algos::sssp(pool, &spec, graph, source, opts).map_err(value_error)
    })?;
    let dist: Vec<f64> = dist
        .into_iter()
        .map(|d| if d == ordo_algos::UNREACHED_DIST { f64::INFINITY } else { d as f64 })
        .collect();
    Ok(PyArray1::from_vec(py, dist))
}

/// Breadth-first levels from ``source`` (float64, ``inf`` where
/// unreachable).
#[pyfunction]
#[pyo3(signature = (g, source, scheduler=None, threads=None))]
pub(crate) fn bfs<'py>(
    py: Python<'py>,
    g: &Bound<'py, PyGraph>,
    source: i64,
    scheduler: Option<&str>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let graph = g.get();
    let source = vertex("source", source, graph)?;
    let spec = self::scheduler(scheduler)?;
    let graph = &graph.graph;
    let levels = run(py, threads, |pool, opts| {
        ordo_algos::bfs(pool, &spec, graph, source, opts).map_err(value_error)
    })?;
    let levels: Vec<f64> = levels
        .into_iter()
        .map(|l| if l == ordo_algos::UNREACHED_LEVEL { f64::INFINITY } else { f64::from(l) })
        .collect();
    Ok(PyArray1::from_vec(py, levels))
}
