//! The applications `ordo run` and `ordo bench` know, behind one interface.
//!
//! An application is prepared once per input ([`prepare`]: resolve the
//! source/target, build derived graphs such as a transpose) and then run
//! many times on different schedulers and thread counts ([`PreparedApp`]).
//! `ordo run` and the benchmark driver both go through this module, so a new
//! application is one file here plus one line in [`App`] and [`prepare`].

use std::any::Any;
use std::collections::BTreeMap;
use std::path::Path;

use ordo_exec::{ExecOptions, Pool, RunStats};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::Value;

pub(crate) mod astar;
mod mst;
mod pagerank;
pub(crate) mod paths;

/// The algorithms ordo runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub(crate) enum App {
    /// Single-source shortest paths (unordered, priority = distance).
    Sssp,
    /// Breadth-first search levels (priority = level).
    Bfs,
    /// Shortest path to one target, priority = distance so far + an admissible
    /// coordinate heuristic (`--target`, default a far vertex).
    Astar,
    /// PageRank, data-driven pull-push; priority = whole part of the residual.
    Pr,
    /// PageRank with priority = residual with three decimals (1000x the levels).
    PrD,
    /// Minimum spanning forest of the symmetrized graph by Boruvka; priority =
    /// the component's edge count.
    Mst,
}

impl App {
    /// The name used on the command line, in JSON and in plans.
    pub(crate) fn name(self) -> &'static str {
        match self {
            App::Sssp => "sssp",
            App::Bfs => "bfs",
            App::Astar => "astar",
            App::Pr => "pr",
            App::PrD => "pr-d",
            App::Mst => "mst",
        }
    }

    /// Parses a name as [`App::name`] prints it.
    pub(crate) fn from_name(name: &str) -> anyhow::Result<App> {
        use clap::ValueEnum;
        App::value_variants().iter().copied().find(|a| a.name() == name).ok_or_else(|| {
            let known: Vec<_> = App::value_variants().iter().map(|a| a.name()).collect();
            anyhow::anyhow!("unknown application `{name}` (known: {})", known.join(", "))
        })
    }
}

/// The parameters of an application besides the graph. Each application
/// uses the ones that concern it and ignores the others.
#[derive(Clone, Debug, Default)]
pub(crate) struct AppParams {
    /// Source vertex (0-based) of the path applications.
    pub(crate) source: u64,
    /// Target vertex (0-based) of A*; `None` = chosen by the application.
    pub(crate) target: Option<u64>,
    /// Classify every executed task as good or useless (path applications):
    /// costs a log entry per executed task.
    pub(crate) classify_work: bool,
    /// PageRank damping factor; `None` = the application's default (0.85).
    pub(crate) alpha: Option<f64>,
    /// PageRank residual tolerance; `None` = the application's default (0.01).
    pub(crate) tolerance: Option<f64>,
}

/// Good and useless work of a run (PMOD paper §3.1, Table 1), computed by
/// [`ordo_algos::work_split`]; serialised by the report.
pub(crate) use ordo_algos::work_split::WorkSplit;

/// One parallel run of an application.
pub(crate) struct AppRun {
    /// The executor's statistics.
    pub(crate) stats: RunStats,
    /// Checksums and result facts for the report (e.g. `reached`,
    /// `max_dist`, `sum_dist`), flattened into the JSON object.
    pub(crate) metrics: BTreeMap<String, Value>,
    /// Good/useless split, when [`AppParams::classify_work`] was set and the
    /// application supports it.
    pub(crate) work_split: Option<WorkSplit>,
    /// The result itself, owned by the application module (downcast there).
    pub(crate) output: Box<dyn Any + Send>,
}

/// One run of the sequential reference.
pub(crate) struct RefRun {
    /// Wall time in seconds.
    pub(crate) time_s: f64,
    /// Tasks of the exact-order baseline: the denominator of `work_increase`
    /// (design.md §4).
    pub(crate) baseline_tasks: u64,
    /// The reference result, owned by the application module.
    pub(crate) output: Box<dyn Any + Send>,
}

/// An application prepared on one input.
pub(crate) trait PreparedApp: Sync {
    /// The application.
    fn app(&self) -> App;
    /// Parameters as resolved on this input (e.g. `source`, `target`,
    /// `tolerance`), for the report.
    fn params(&self) -> BTreeMap<String, Value>;
    /// One parallel run on `pool` with the scheduler `spec`.
    fn run(&self, pool: &Pool, spec: &SchedulerSpec, opts: &ExecOptions) -> anyhow::Result<AppRun>;
    /// One timed run of the sequential reference.
    fn reference(&self) -> anyhow::Result<RefRun>;
    /// Checks `run` against `reference`; the error names the first difference.
    fn verify(&self, run: &AppRun, reference: &RefRun) -> anyhow::Result<()>;
    /// Measures that need the reference (e.g. PageRank's `l1_vs_reference`),
    /// merged into the run's metrics in the report when the reference ran.
    fn verified_metrics(&self, _run: &AppRun, _reference: &RefRun) -> BTreeMap<String, Value> {
        BTreeMap::new()
    }
    /// The good / useless split of each thread of `run` (index = thread), for
    /// the per-thread breakdown; empty when the application does not classify
    /// its work or `run` was not classified.
    fn work_split_per_thread(&self, _run: &AppRun) -> Vec<WorkSplit> {
        Vec::new()
    }
    /// The exact-order task count when no reference ran (e.g. vertices
    /// reached), or `None` when only the reference knows it.
    fn baseline_without_reference(&self, run: &AppRun) -> Option<u64>;
    /// Writes the result of `run` as text to `path` (`--out`).
    fn write_out(&self, run: &AppRun, path: &Path) -> anyhow::Result<()>;
}

/// Prepares `app` on `graph` with `params`: checks the parameters against
/// the graph (a bad source is an error here, before any run).
pub(crate) fn prepare<'g>(
    app: App,
    graph: &'g Graph,
    params: &AppParams,
) -> anyhow::Result<Box<dyn PreparedApp + 'g>> {
    Ok(match app {
        App::Sssp | App::Bfs => Box::new(paths::PathApp::new(app, graph, params)?),
        App::Astar => Box::new(astar::AstarApp::new(graph, params)?),
        App::Pr | App::PrD => Box::new(pagerank::PageRankApp::new(app, graph, params)?),
        App::Mst => Box::new(mst::MstApp::new(graph, params)?),
    })
}

/// Checks `source` against the vertex count and names the flag when it is out of range.
pub(crate) fn vertex_arg(flag: &str, value: u64, graph: &Graph) -> anyhow::Result<u32> {
    let n = graph.num_vertices();
    u32::try_from(value)
        .ok()
        .filter(|&s| (s as usize) < n)
        .ok_or_else(|| anyhow::anyhow!("{flag} {value}: the graph has {n} vertices (ids 0..{n})"))
}

/// Downcasts an application's output to its concrete type (a mismatch is a
/// bug in the application module, hence the panic).
pub(crate) fn output<T: 'static>(o: &(dyn Any + Send)) -> &T {
    o.downcast_ref::<T>().expect("an application reads back the output type it produced")
}
