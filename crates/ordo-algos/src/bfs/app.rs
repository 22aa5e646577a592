//! BFS as an application: SSSP's application with unit costs and `u32`
//! levels (the shared pieces are in [`crate::sssp::app`]); queue BFS is the
//! reference.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;
use serde_json::json;

use crate::app::params::{CLASSIFY, SOURCE};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::sssp::app::{path_run, reference_run, verify_labels, with_task_log, write_labels, VALUES_OUT};
use crate::sssp::verify::EdgeCost;
use ordo_graph::memory::WorkingMemory;

/// Breadth-first search levels from one source (priority = level).
pub struct Bfs {
    graph: Arc<Graph>,
    source: VertexId,
    classify: bool,
}

impl Algorithm for Bfs {
    const NAME: &'static str = "bfs";
    const ABOUT: &'static str =
        "Breadth-first search levels (priority = level); verified against queue BFS, exactly.";
    const PARAMS: &'static [&'static ParamDef] = &[&SOURCE, &CLASSIFY];
    const CYCLES: bool = true;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = VALUES_OUT;
    /// Levels and the frontier.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 0 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 0 };
    type Strategy = SchedulerSpec;
    /// `auto`: the best scheduler on every input of `bench/papers.toml` at 2 threads
    /// (Table 5 runs of 2026-11-25 to 2026-11-27, `docs/results.md`).
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = Vec<u32>;
    type Reference = Vec<u32>;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let source = params.take_vertex(&SOURCE, &graph)?.unwrap_or(0);
        let classify = params.take_flag(&CLASSIFY)?;
        if graph.num_vertices() == 0 {
            return Err(AppError::Param("the graph has no vertex to start from".into()));
        }
        Ok(Bfs { graph, source, classify })
    }

    fn params(&self) -> Fields {
        Fields::from([("source".to_string(), json!(self.source))])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<Vec<u32>>, AppError> {
        let opts = with_task_log(env.exec, self.classify);
        let (values, stats) = super::bfs(env.pool, spec, &self.graph, self.source, &opts)?;
        Ok(path_run(values, stats, self.classify, env.exec.log_tasks))
    }

    fn reference(&self) -> Result<RefRun<Vec<u32>>, AppError> {
        Ok(reference_run(super::bfs_levels(&self.graph, self.source)?))
    }

    fn verify(&self, got: &Vec<u32>, want: &Vec<u32>) -> Result<(), AppError> {
        verify_labels(&self.graph, self.source, EdgeCost::Unit, got, want)
    }

    fn write_out(&self, values: &Vec<u32>, out: &mut dyn Write) -> io::Result<()> {
        write_labels(values, out)
    }
}
