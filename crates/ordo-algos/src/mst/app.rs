//! MST as an application: the minimum spanning forest by priority-scheduled
//! Boruvka (the module docs of [`super`] give the algorithm and its
//! correctness).
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
//!   `n` of the `~2n` tasks are stale even there. Known only with the
//!   reference.
//! - Verify: weight, edge count, components and the edge set equal
//!   Kruskal's exactly, and the forest passes the structural check (graph
//!   edges, acyclic, spanning).
//! - `--out`: one `u v weight` line per forest edge, 0-based, `u < v`, sorted
//!   by `(u, v)`.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::{SpanningForest, UndirectedGraph};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use ordo_graph::memory::WorkingMemory;

/// The minimum spanning forest of the symmetrized input.
pub struct Mst {
    graph: UndirectedGraph,
}

impl Algorithm for Mst {
    const NAME: &'static str = "mst";
    const ABOUT: &'static str = "Minimum spanning forest of the symmetrized graph by Boruvka (priority = \
                                 the component's edge count); verified against Kruskal: weight, edge \
                                 count and edge set exact.";
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = true;
    const OUT_FORMAT: &'static str = "`u v weight` per forest edge (0-based, u < v, sorted by (u, v))";
    /// Component state and the undirected edge list; Kruskal sorts every edge.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 32, per_edge: 24 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 16 };
    type Strategy = SchedulerSpec;
    /// `auto`: on `bench/papers.toml` it is the fastest scheduler on both MST inputs at two
    /// threads (1.04× faster than `lifo`, ahead of `fifo`, and 1.7–2.1× faster than `pmod` and
    /// `obim`), since it starts with every vertex's task in one bucket, in vertex order, and
    /// runs the component a merge leaves at once (`Context::push_next`).
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = SpanningForest;
    type Reference = SpanningForest;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        Ok(Mst { graph: UndirectedGraph::new(&graph) })
    }

    fn params(&self) -> Fields {
        Fields::from([("undirected_edges".to_string(), json!(self.graph.num_edges()))])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<SpanningForest>, AppError> {
        let (forest, stats) = super::boruvka(env.pool, spec, &self.graph, env.exec);
        let metrics = Fields::from([
            ("mst_weight".to_string(), json!(forest.total_weight)),
            ("mst_edges".to_string(), json!(forest.edges.len())),
            ("components".to_string(), json!(forest.components)),
        ]);
        Ok(Run::executed(forest, stats, metrics))
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
