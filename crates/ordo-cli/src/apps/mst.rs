//! MST as a [`PreparedApp`]: the minimum spanning forest by priority-scheduled
//! Boruvka (`ordo_algos::mst` documents the algorithm and its correctness).
//!
//! - Prepare: the simple undirected version of the input
//!   ([`UndirectedGraph::new`]: directions ignored, self loops dropped,
//!   parallel edges kept once with their least weight; an unweighted graph
//!   weighs 1 per edge), built once per input. Parameter reported:
//!   `undirected_edges`.
//! - Metrics of a run: `mst_weight`, `mst_edges`, `components` (connected
//!   components, isolated vertices included).
//! - Reference: Kruskal (sort + union-find) with the same total order on
//!   edges, `(weight, min(u, v), max(u, v))`, so the MSF is unique.
//! - `work_increase` baseline: the tasks of the same operator run on one
//!   thread in exact priority order (`boruvka_exact_order`, computed with
//!   the reference, not timed), stale tasks included: a vertex absorbed
//!   before its initial task ran leaves a stale task in any order, so about
//!   `n` of the `~2n` tasks are stale even there. Known only with `--verify`.
//! - Verify: weight, edge count, components and the edge set equal
//!   Kruskal's exactly, and the forest passes the structural check (graph
//!   edges, acyclic, spanning).
//! - `--out`: one `u v weight` line per forest edge, 0-based, `u < v`, sorted
//!   by `(u, v)`.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;
use ordo_algos::mst::{self, SpanningForest, UndirectedGraph};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::{json, Value};

use super::{output, App, AppParams, AppRun, PreparedApp, RefRun};

/// The MSF application on one input.
pub(crate) struct MstApp {
    graph: UndirectedGraph,
}

impl MstApp {
    /// Builds the simple undirected graph of `graph`.
    pub(crate) fn new(graph: &Graph, _params: &AppParams) -> anyhow::Result<Self> {
        Ok(MstApp { graph: UndirectedGraph::new(graph) })
    }
}

impl PreparedApp for MstApp {
    fn app(&self) -> App {
        App::Mst
    }

    fn params(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([("undirected_edges".to_string(), json!(self.graph.num_edges()))])
    }

    fn run(&self, pool: &Pool, spec: &SchedulerSpec, opts: &ExecOptions) -> anyhow::Result<AppRun> {
        let (forest, stats) = mst::boruvka(pool, spec, &self.graph, opts);
        let metrics = BTreeMap::from([
            ("mst_weight".to_string(), json!(forest.total_weight)),
            ("mst_edges".to_string(), json!(forest.edges.len())),
            ("components".to_string(), json!(forest.components)),
        ]);
        Ok(AppRun { stats, metrics, work_split: None, output: Box::new(forest) })
    }

    fn reference(&self) -> anyhow::Result<RefRun> {
        let run = mst::kruskal(&self.graph);
        let exact_order = mst::boruvka_exact_order(&self.graph);
        mst::compare_forests(&run.forest, &exact_order.forest)
            .context("the exact-order Boruvka baseline differs from Kruskal")?;
        Ok(RefRun { time_s: run.time_s, baseline_tasks: exact_order.tasks, output: Box::new(run.forest) })
    }

    fn verify(&self, run: &AppRun, reference: &RefRun) -> anyhow::Result<()> {
        let got = output::<SpanningForest>(&*run.output);
        let want = output::<SpanningForest>(&*reference.output);
        mst::compare_forests(want, got).context("differs from Kruskal's minimum spanning forest")?;
        mst::check_spanning_forest(&self.graph, got).context("is not a spanning forest of the graph")?;
        Ok(())
    }

    fn baseline_without_reference(&self, _run: &AppRun) -> Option<u64> {
        None // only the exact-order run knows it
    }

    fn write_out(&self, run: &AppRun, path: &Path) -> anyhow::Result<()> {
        let forest = output::<SpanningForest>(&*run.output);
        let err = || format!("cannot write {}", path.display());
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path).with_context(err)?);
        for e in &forest.edges {
            writeln!(w, "{} {} {}", e.u, e.v, e.weight).with_context(err)?;
        }
        w.flush().with_context(err)
    }
}
