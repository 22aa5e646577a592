//! The applications of the library's registry (`ordo_algos::app::APPS`) as
//! one Python entry point, [`run_app`]; `ordo/_apps.py` makes one Python
//! function per registered application from [`apps`]. A run is prepared,
//! run (and with `verify`, checked against the sequential reference) with
//! the GIL released on a lent pool, stopped by Ctrl-C, and reported with the
//! library's report (the keys of `ordo run --json`).

use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2};
use ordo_algos::app::report::{ReportHeader, RunReport};
use ordo_algos::app::{self, AnyOutput, AppError, AppInfo, AppRun, Fields, Params, PreparedApp, RunEnv};
use ordo_algos::bc::BcResult;
use ordo_algos::bfs::{BfsTree, NO_PARENT};
use ordo_algos::cc::app::ComponentLabels;
use ordo_algos::loop_micro::Checksum;
use ordo_algos::mst::SpanningForest;
use ordo_algos::pagerank::app::PrResult;
use ordo_algos::pagerank::PageRank;
use ordo_algos::pr_pull::PrPullResult;
use ordo_algos::spanning::app::Parents;
use ordo_algos::sssp::app::Distances;
use ordo_algos::tc::TcResult;
use ordo_algos::AstarResult;
use ordo_exec::{ExecOptions, RunMonitor};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyTuple};

use crate::graph::PyGraph;
use crate::pools::{lend, thread_count};
use crate::runner::{interruptible, Outcome};

/// An application error as a Python exception: bad parameters and inputs
/// are `ValueError`s, a result that differs from the reference and other
/// failures `RuntimeError`s.
fn app_error(e: AppError) -> PyErr {
    match e {
        AppError::Param(_) | AppError::Algo(_) => PyValueError::new_err(e.to_string()),
        AppError::Mismatch(_) => PyRuntimeError::new_err(format!("verification failed: {e}")),
        AppError::Failed(_) | AppError::Cancelled => PyRuntimeError::new_err(e.to_string()),
    }
}

/// The registered applications: name, one-line description, parameters
/// (name, value name or `None` for a flag, help), default strategy, the
/// strategy's keyword help, and whether `cycles` applies.
#[pyfunction]
pub(crate) fn apps(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for info in app::APPS {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("about", info.about)?;
        let params = PyList::empty(py);
        for p in info.params {
            params.append((p.name, p.value_name, p.help))?;
        }
        d.set_item("params", params)?;
        d.set_item("default_strategy", info.default_strategy)?;
        d.set_item("strategy_flag", info.strategy_flag)?;
        d.set_item("strategy_help", info.strategy_help)?;
        d.set_item("cycles", info.cycles)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The parameters of a call: `None` and `False` are left out (the
/// application's default), `True` is a flag, anything else its `str()`.
fn params_of(given: &Bound<'_, PyDict>) -> PyResult<Params> {
    let mut params = Params::new();
    for (name, value) in given.iter() {
        let name: String = name.extract()?;
        if value.is_none() {
            continue;
        }
        if let Ok(flag) = value.cast::<PyBool>() {
            if flag.is_true() {
                params.set_flag(&name);
            }
            continue;
        }
        params.set(&name, value.str()?.to_cow()?.into_owned());
    }
    Ok(params)
}

/// What a run hands back from the worker thread.
struct Finished {
    run: AppRun,
    report: RunReport,
    /// The `--out` text of a result [`output_to_python`] does not know.
    text: Option<String>,
}

/// Whether [`output_to_python`] converts this output to arrays.
fn known_output(output: &AnyOutput) -> bool {
    output.is::<Vec<u64>>()
        || output.is::<Distances>()
        || output.is::<Vec<u32>>()
        || output.is::<BfsTree>()
        || output.is::<AstarResult>()
        || output.is::<PageRank>()
        || output.is::<SpanningForest>()
        || output.is::<Parents>()
        || output.is::<ComponentLabels>()
        || output.is::<PrResult>()
        || output.is::<PrPullResult>()
        || output.is::<TcResult>()
        || output.is::<BcResult>()
        || output.is::<Checksum>()
}

/// Prepares, runs and (with `verify`) checks one application; the report
/// is the one `ordo run --json` prints.
fn prepare_and_run(
    info: &'static AppInfo,
    graph: &PyGraph,
    params: Params,
    strategy: String,
    env: &RunEnv<'_>,
    verify: bool,
) -> Result<Finished, AppError> {
    let prepared: Box<dyn PreparedApp> = info.prepare(graph.graph.clone(), params)?;
    let run = prepared.run(env, &strategy)?;
    let mut references = Vec::new();
    let mut verified_metrics = Fields::new();
    if verify {
        let reference = prepared.reference()?;
        prepared.verify(&run, &reference)?;
        verified_metrics = prepared.verified_metrics(&run, &reference);
        references.push(reference);
    }
    let header = ReportHeader {
        app: info.name.to_string(),
        graph: graph.name.clone(),
        n: graph.graph.num_vertices(),
        m: graph.graph.num_edges(),
        scheduler: strategy,
        threads: env.pool.threads(),
        params: prepared.params(),
    };
    let report = RunReport::from_runs(header, std::slice::from_ref(&run), &references, verified_metrics);
    let text = if known_output(&run.output) {
        None
    } else {
        let mut out = Vec::new();
        prepared.write_out(&run, &mut out).map_err(|e| AppError::Failed(e.to_string()))?;
        Some(String::from_utf8_lossy(&out).into_owned())
    };
    Ok(Finished { run, report, text })
}

/// Runs the registered application `app` on `g` (see `ordo/_apps.py`,
/// which documents the Python functions made of it).
#[pyfunction]
#[pyo3(signature = (app, g, params, scheduler=None, threads=None, stats=false, verify=false, cycles=false))]
#[allow(clippy::too_many_arguments)] // the keywords of the Python functions
pub(crate) fn run_app<'py>(
    py: Python<'py>,
    app: &str,
    g: &Bound<'py, PyGraph>,
    params: &Bound<'py, PyDict>,
    scheduler: Option<&str>,
    threads: Option<usize>,
    stats: bool,
    verify: bool,
    cycles: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let info = app::find(app).map_err(app_error)?;
    let strategy = info.check_strategy(scheduler.unwrap_or(info.default_strategy)).map_err(|e| {
        PyValueError::new_err(format!("scheduler: {}", e.to_string().trim_start_matches("--sched: ")))
    })?;
    let params = params_of(params)?;
    info.check_params(&params).map_err(app_error)?;
    if cycles && !info.cycles {
        return Err(PyValueError::new_err(format!(
            "cycles does not apply to {} (not run by for_each)",
            info.name
        )));
    }
    let threads = thread_count(threads)?;
    let graph = g.get();
    let monitor = Arc::new(RunMonitor::new(threads));
    let finished = interruptible(py, &monitor, || {
        let pool = lend(threads)?;
        let exec =
            ExecOptions { cycle_timing: cycles, monitor: Some(monitor.clone()), ..ExecOptions::default() };
        let env = RunEnv { pool: &pool, exec: &exec };
        match prepare_and_run(info, graph, params, strategy, &env, verify) {
            Ok(f) => Ok(Outcome::Done(f)),
            Err(AppError::Cancelled) => Ok(Outcome::Cancelled),
            Err(e) => Err(app_error(e)),
        }
    })?;
    let result = match finished.text {
        Some(text) => text.into_pyobject(py)?.into_any(),
        None => output_to_python(py, info, &finished.run.output)?,
    };
    if !stats {
        return Ok(result);
    }
    let report = py.import("json")?.call_method1("loads", (finished.report.to_json(),))?;
    Ok(PyTuple::new(py, [result, report])?.into_any())
}

/// A distance array as float64, `inf` where unreached.
fn distances<'py, T: Copy + PartialEq + Into<f64>>(
    py: Python<'py>,
    values: &[T],
    unreached: T,
) -> Bound<'py, PyAny> {
    let v: Vec<f64> = values.iter().map(|&d| if d == unreached { f64::INFINITY } else { d.into() }).collect();
    PyArray1::from_vec(py, v).into_any()
}

/// The result of a run as numpy arrays: SSSP distances and BFS levels as
/// float64 with `inf` (BFS with `parents`: `(levels, parents)`, the parents
/// int64 with -1 where unreached); A* `(path, length)`; PageRank ranks (both kinds);
/// MST the forest's edges as a `(k, 3)` int64 array of `u, v, weight`;
/// spanning forests the int64 parent of every vertex; components the int64
/// label of every vertex; betweenness the
/// float64 value of every vertex; triangles an int; the loop
/// microbenchmark its checksum as a dict (an application whose output is
/// none of these gives its `--out` text instead).
fn output_to_python<'py>(py: Python<'py>, info: &AppInfo, output: &AnyOutput) -> PyResult<Bound<'py, PyAny>> {
    if let Some(Distances::Real(d)) = output.downcast_ref::<Distances>() {
        return Ok(PyArray1::from_vec(py, d.clone()).into_any());
    }
    let ints = match output.downcast_ref::<Distances>() {
        Some(Distances::Int(d)) => Some(d),
        _ => output.downcast_ref::<Vec<u64>>(),
    };
    if let Some(d) = ints {
        // Distances fit f64 exactly below 2^53 (sums of u32 weights over
        // paths of fewer than 2^21 edges always do).
        let v: Vec<f64> = d
            .iter()
            .map(|&x| if x == ordo_algos::UNREACHED_DIST { f64::INFINITY } else { x as f64 })
            .collect();
        return Ok(PyArray1::from_vec(py, v).into_any());
    }
    if let Some(levels) = output.downcast_ref::<Vec<u32>>() {
        return Ok(distances(py, levels, ordo_algos::UNREACHED_LEVEL));
    }
    if let Some(tree) = output.downcast_ref::<BfsTree>() {
        let levels = distances(py, &tree.levels, ordo_algos::UNREACHED_LEVEL);
        let Some(parents) = &tree.parents else { return Ok(levels) };
        let parents: Vec<i64> =
            parents.iter().map(|&p| if p == NO_PARENT { -1 } else { i64::from(p) }).collect();
        return Ok(PyTuple::new(py, [levels, PyArray1::from_vec(py, parents).into_any()])?.into_any());
    }
    if let Some(a) = output.downcast_ref::<AstarResult>() {
        let path: Vec<i64> = a.path.iter().map(|&v| i64::from(v)).collect();
        let length = a.distance.map_or(f64::INFINITY, |d| d as f64);
        return Ok(PyTuple::new(
            py,
            [PyArray1::from_vec(py, path).into_any(), length.into_pyobject(py)?.into_any()],
        )?
        .into_any());
    }
    if let Some(pr) = output.downcast_ref::<PageRank>() {
        return Ok(PyArray1::from_slice(py, &pr.ranks).into_any());
    }
    if let Some(pr) = output.downcast_ref::<PrResult>() {
        return Ok(PyArray1::from_slice(py, pr.ranks()).into_any());
    }
    if let Some(f) = output.downcast_ref::<SpanningForest>() {
        let mut edges = Array2::<i64>::zeros((f.edges.len(), 3));
        for (row, e) in edges.outer_iter_mut().zip(&f.edges) {
            let mut row = row;
            row[0] = i64::from(e.u);
            row[1] = i64::from(e.v);
            row[2] = i64::from(e.weight);
        }
        return Ok(PyArray2::from_owned_array(py, edges).into_any());
    }
    if let Some(p) = output.downcast_ref::<Parents>() {
        let parents: Vec<i64> = p.0.iter().map(|&v| i64::from(v)).collect();
        return Ok(PyArray1::from_vec(py, parents).into_any());
    }
    if let Some(c) = output.downcast_ref::<ComponentLabels>() {
        let labels: Vec<i64> = c.0.iter().map(|&v| i64::from(v)).collect();
        return Ok(PyArray1::from_vec(py, labels).into_any());
    }
    if let Some(pr) = output.downcast_ref::<PrPullResult>() {
        return Ok(PyArray1::from_slice(py, &pr.ranks).into_any());
    }
    if let Some(bc) = output.downcast_ref::<BcResult>() {
        return Ok(PyArray1::from_slice(py, &bc.values).into_any());
    }
    if let Some(tc) = output.downcast_ref::<TcResult>() {
        return Ok(tc.triangles.into_pyobject(py)?.into_any());
    }
    if let Some(c) = output.downcast_ref::<Checksum>() {
        let d = PyDict::new(py);
        d.set_item("iterations", c.iterations)?;
        d.set_item("index_sum", c.index_sum)?;
        d.set_item("increments", c.increments)?;
        return Ok(d.into_any());
    }
    Err(PyRuntimeError::new_err(format!(
        "{}: this version of the Python package cannot convert its result",
        info.name
    )))
}
