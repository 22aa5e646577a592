//! SSSP and BFS as [`PreparedApp`]s: run, reference (Dijkstra / queue BFS),
//! exact verification plus the fixpoint check, `vertex value` output, and
//! the good / useless work split (`--classify`, [`ordo_algos::work_split`]).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;
use ordo_algos::reference::{self, Reference};
use ordo_algos::verify::{self, EdgeCost, Label};
use ordo_algos::work_split;
use ordo_exec::{ExecOptions, Pool, RunStats};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::{json, Value};

use super::{output, vertex_arg, App, AppParams, AppRun, PreparedApp, RefRun, WorkSplit};

/// SSSP (`u64` distances) or BFS (`u32` levels) from one source.
pub(crate) struct PathApp<'g> {
    app: App,
    graph: &'g Graph,
    source: u32,
    /// `--classify`: log every task and split good from useless work.
    classify_work: bool,
}

/// The output of one parallel run: the values, and with `--classify` the
/// good / useless split of each thread (the task notes themselves are
/// dropped once classified, so repeated runs do not keep them).
struct PathOutput<L> {
    values: Vec<L>,
    split_per_thread: Vec<WorkSplit>,
}

impl<'g> PathApp<'g> {
    pub(crate) fn new(app: App, graph: &'g Graph, params: &AppParams) -> anyhow::Result<Self> {
        let source = vertex_arg("--source", params.source, graph)?;
        Ok(PathApp { app, graph, source, classify_work: params.classify_work })
    }

    /// The executor options of a run: the caller's, with task notes when classifying.
    fn exec_options(&self, opts: &ExecOptions) -> ExecOptions {
        ExecOptions { log_tasks: self.classify_work, ..opts.clone() }
    }

    fn cost(&self) -> EdgeCost {
        if self.app == App::Bfs {
            EdgeCost::Unit
        } else {
            EdgeCost::Weights
        }
    }
}

/// The run's checksums (`reached`, `max_dist`, `sum_dist`).
fn metrics<L: Label>(values: &[L]) -> BTreeMap<String, Value> {
    let s = verify::summarize(values);
    BTreeMap::from([
        ("reached".to_string(), json!(s.reached)),
        ("max_dist".to_string(), json!(s.max)),
        // u128 does not fit a JSON number everywhere; u64 sums print as numbers.
        (
            "sum_dist".to_string(),
            u64::try_from(s.sum).map_or_else(|_| json!(s.sum.to_string()), |v| json!(v)),
        ),
    ])
}

impl PreparedApp for PathApp<'_> {
    fn app(&self) -> App {
        self.app
    }

    fn params(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([("source".to_string(), json!(self.source))])
    }

    fn run(&self, pool: &Pool, spec: &SchedulerSpec, opts: &ExecOptions) -> anyhow::Result<AppRun> {
        let opts = self.exec_options(opts);
        Ok(match self.app {
            App::Bfs => {
                let (values, stats) = ordo_algos::bfs(pool, spec, self.graph, self.source, &opts)?;
                app_run(stats, values, self.classify_work)
            }
            _ => {
                let (values, stats) = ordo_algos::sssp(pool, spec, self.graph, self.source, &opts)?;
                app_run(stats, values, self.classify_work)
            }
        })
    }

    fn work_split_per_thread(&self, run: &AppRun) -> Vec<WorkSplit> {
        match self.app {
            App::Bfs => output::<PathOutput<u32>>(&*run.output).split_per_thread.clone(),
            _ => output::<PathOutput<u64>>(&*run.output).split_per_thread.clone(),
        }
    }

    fn reference(&self) -> anyhow::Result<RefRun> {
        fn boxed<L: Label + 'static>(r: Reference<L>) -> RefRun {
            RefRun { time_s: r.time_s, baseline_tasks: r.settled, output: Box::new(r.values) }
        }
        Ok(match self.app {
            App::Bfs => boxed(reference::bfs_levels(self.graph, self.source)?),
            _ => boxed(reference::dijkstra(self.graph, self.source)?),
        })
    }

    fn verify(&self, run: &AppRun, reference: &RefRun) -> anyhow::Result<()> {
        fn check<L: Label + 'static>(
            graph: &Graph,
            source: u32,
            cost: EdgeCost,
            run: &AppRun,
            reference: &RefRun,
        ) -> anyhow::Result<()> {
            let got = &output::<PathOutput<L>>(&*run.output).values;
            let want = output::<Vec<L>>(&*reference.output);
            verify::compare_exact(want, got).context("differs from the sequential reference")?;
            verify::check_fixpoint(graph, source, got, cost).context("fails the fixpoint check")?;
            Ok(())
        }
        match self.app {
            App::Bfs => check::<u32>(self.graph, self.source, self.cost(), run, reference),
            _ => check::<u64>(self.graph, self.source, self.cost(), run, reference),
        }
    }

    fn baseline_without_reference(&self, run: &AppRun) -> Option<u64> {
        // Dijkstra (or queue BFS) settles exactly the reachable vertices.
        run.metrics.get("reached").and_then(Value::as_u64)
    }

    fn write_out(&self, run: &AppRun, path: &Path) -> anyhow::Result<()> {
        match self.app {
            App::Bfs => write_values(path, &output::<PathOutput<u32>>(&*run.output).values),
            _ => write_values(path, &output::<PathOutput<u64>>(&*run.output).values),
        }
    }
}

/// The [`AppRun`] of a run that produced `values`: checksums, and with
/// `classify` the good / useless split (a task is good when it ran with its
/// vertex's final value, first such execution; see [`ordo_algos::work_split`]).
fn app_run<L: Label + 'static>(mut stats: RunStats, values: Vec<L>, classify: bool) -> AppRun {
    let split_per_thread = if classify {
        work_split::classify_per_thread(&stats.task_notes, |v| values[v as usize].to_u64())
    } else {
        Vec::new()
    };
    stats.task_notes = Vec::new();
    let work_split = classify.then(|| WorkSplit::sum(&split_per_thread));
    let metrics = metrics(&values);
    AppRun { stats, metrics, work_split, output: Box::new(PathOutput { values, split_per_thread }) }
}

/// Writes `vertex value` lines (0-based, `inf` when unreachable): the
/// `--out` format of SSSP and BFS (`ordo run`, `ordo sim`).
pub(crate) fn write_values<L: Label>(path: &Path, values: &[L]) -> anyhow::Result<()> {
    let err = || format!("cannot write {}", path.display());
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path).with_context(err)?);
    for (v, &x) in values.iter().enumerate() {
        if x == L::UNREACHED { writeln!(w, "{v} inf") } else { writeln!(w, "{v} {}", x.to_u64()) }
            .with_context(err)?;
    }
    w.flush().with_context(err)
}
