//! MST as an application: the minimum spanning forest by parallel
//! filter-Kruskal by default, or by the PMOD paper's priority-scheduled
//! Boruvka on a scheduler (the module docs of [`super`] give the algorithms
//! and their correctness).
//!
//! - Strategy (`--sched`): `default` (the fastest kernel for the input),
//!   `filter-kruskal` by name, or a scheduler spec (`auto`, `pmod`, ...),
//!   which runs the papers' priority-scheduled Boruvka exactly as the papers'
//!   experiments do (`bench/papers.toml`). The `kernel` metric names what
//!   ran (`filter-kruskal` or `boruvka`).
//!
//! - Prepare: the simple undirected version of the input
//!   ([`UndirectedGraph::new`]: directions ignored, self loops dropped,
//!   parallel edges kept once with their least weight; an unweighted graph
//!   weighs 1 per edge), built once per input. Parameter reported:
//!   `undirected_edges`.
//! - Metrics of a run: `kernel`, `mst_weight`, `mst_edges`, `components`
//!   (connected components, isolated vertices included); filter-Kruskal adds
//!   `scanned_edges` (edges sorted and scanned, the rest were filtered),
//!   `splits` and `key_bits` (64, or 128 when weights and ids do not fit).
//! - Reference: Kruskal (sort + union-find) with the same total order on
//!   edges, `(weight, min(u, v), max(u, v))`, so the MSF is unique.
//! - `work_increase` baseline (scheduled Boruvka only): the tasks of the same operator run on one
//!   thread in exact priority order (`boruvka_exact_order`, computed with
//!   the reference, not timed), stale tasks included: a vertex absorbed
//!   before its initial task ran leaves a stale task in any order, so about
//!   `n` of the `~2n` tasks are stale even there. Known only with the
//!   reference.
//! - Verify: weight, edge count, components and the edge set equal
//!   Kruskal's exactly, and the forest passes the structural check (graph
//!   edges, acyclic, spanning).
//! - `--out`: one `u v weight` line per forest edge, 0-based, `u < v`, sorted
//!   by `(u, v)`.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use ordo_graph::Graph;
use serde_json::json;

use super::{SpanningForest, UndirectedGraph};
use crate::app::{
    Algorithm, AppError, Fields, Kernel, KernelChoice, KernelSet, ParamDef, Params, RefRun, Run, RunEnv,
};
use ordo_graph::memory::WorkingMemory;

/// The kernels of `mst`: filter-Kruskal by name and the priority-scheduled
/// Boruvka on any scheduler.
pub struct MstKernels;

impl KernelSet for MstKernels {
    const NAMED: &'static [(&'static str, &'static str)] =
        &[("filter-kruskal", "parallel filter-Kruskal (Osipov, Sanders, Singler 2009)")];
    const SCHEDULED: bool = true;
    const FLAG: &'static str = "sched";
    const HELP: &'static str = "`default` (the fastest kernel for the input: parallel filter-Kruskal), \
                                `filter-kruskal`, or a scheduler spec (`auto`, `pmod`, \
                                `obim:delta=14`, ...) for the PMOD paper's priority-scheduled Boruvka.";
}

/// The minimum spanning forest of the symmetrized input.
pub struct Mst {
    graph: UndirectedGraph,
    /// The rayon pool of filter-Kruskal, made on first use for the run's
    /// thread count (the executor's pool in [`RunEnv`] only gives the count).
    rayon: Mutex<Option<rayon::ThreadPool>>,
}

impl Mst {
    fn filter_kruskal(&self, threads: usize) -> Result<Run<SpanningForest>, AppError> {
        let mut rayon = self.rayon.lock().unwrap_or_else(|e| e.into_inner());
        if rayon.as_ref().is_none_or(|p| p.current_num_threads() != threads) {
            *rayon = None;
            let built = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            *rayon =
                Some(built.map_err(|e| AppError::Failed(format!("cannot create the thread pool: {e}")))?);
        }
        let pool = rayon.as_ref().expect("made above");
        let run = super::filter_kruskal(pool, &self.graph);
        let mut metrics = forest_metrics("filter-kruskal", &run.forest);
        metrics.insert("scanned_edges".to_string(), json!(run.scanned_edges));
        metrics.insert("splits".to_string(), json!(run.splits));
        metrics.insert("key_bits".to_string(), json!(run.key_bits));
        Ok(Run {
            output: run.forest,
            time_s: run.time_s,
            stats: None,
            metrics,
            baseline_tasks: None,
            work_split: Vec::new(),
        })
    }
}

/// The metrics every kernel reports.
fn forest_metrics(kernel: &str, forest: &SpanningForest) -> Fields {
    Fields::from([
        ("kernel".to_string(), json!(kernel)),
        ("mst_weight".to_string(), json!(forest.total_weight)),
        ("mst_edges".to_string(), json!(forest.edges.len())),
        ("components".to_string(), json!(forest.components)),
    ])
}

impl Algorithm for Mst {
    const NAME: &'static str = "mst";
    const ABOUT: &'static str = "Minimum spanning forest of the symmetrized graph by parallel \
                                 filter-Kruskal, or with --sched SPEC by priority-scheduled Boruvka \
                                 (priority = the component's edge count); verified against Kruskal: \
                                 weight, edge count and edge set exact.";
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = true;
    const OUT_FORMAT: &'static str = "`u v weight` per forest edge (0-based, u < v, sorted by (u, v))";
    /// Component state and the undirected edge list; Kruskal sorts every edge.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 32, per_edge: 24 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 16 };
    type Strategy = Kernel<MstKernels>;
    /// Filter-Kruskal: it sorts only the edges that may enter the forest, in
    /// parallel, where scheduled Boruvka runs a task per merge
    /// (docs/results.md compares them).
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = SpanningForest;
    type Reference = SpanningForest;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        Ok(Mst { graph: UndirectedGraph::new(&graph), rayon: Mutex::new(None) })
    }

    fn params(&self) -> Fields {
        Fields::from([("undirected_edges".to_string(), json!(self.graph.num_edges()))])
    }

    fn run(&self, env: &RunEnv<'_>, kernel: &Kernel<MstKernels>) -> Result<Run<SpanningForest>, AppError> {
        match &kernel.choice {
            KernelChoice::Default | KernelChoice::Named(_) => self.filter_kruskal(env.pool.threads()),
            KernelChoice::Scheduled(spec) => {
                let (forest, stats) = super::boruvka(env.pool, spec, &self.graph, env.exec);
                let metrics = forest_metrics("boruvka", &forest);
                Ok(Run::executed(forest, stats, metrics))
            }
        }
    }

    fn reference(&self) -> Result<RefRun<SpanningForest>, AppError> {
        let run = super::kruskal(&self.graph);
        let exact_order = super::boruvka_exact_order(&self.graph);
        super::compare_forests(&run.forest, &exact_order.forest).map_err(|e| {
            AppError::Failed(format!("the exact-order Boruvka baseline differs from Kruskal: {e}"))
        })?;
        Ok(RefRun { time_s: run.time_s, baseline_tasks: Some(exact_order.tasks), output: run.forest })
    }

    fn verify(&self, got: &SpanningForest, want: &SpanningForest) -> Result<(), AppError> {
        super::compare_forests(want, got).map_err(|e| {
            AppError::Mismatch(format!("differs from Kruskal's minimum spanning forest: {e}"))
        })?;
        super::check_spanning_forest(&self.graph, got)
            .map_err(|e| AppError::Mismatch(format!("is not a spanning forest of the graph: {e}")))
    }

    fn write_out(&self, forest: &SpanningForest, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for e in &forest.edges {
            writeln!(w, "{} {} {}", e.u, e.v, e.weight)?;
        }
        w.flush()
    }
}
