//! `tc` as an application: triangle counting of the simple undirected graph
//! underlying the input, a parallel loop over the vertices on ordo-loops or
//! rayon (`--loop`).
//!
//! - Prepare: symmetrizes the input (self loops and parallel edges dropped)
//!   and orients it by degree; neither is timed.
//! - Metrics: `triangles`, `undirected_edges`.
//! - Reference: the sequential edge-iterator count on the same simple graph
//!   (timed without the symmetrization); verify: exact equality.
//! - `--out`: one line, the number of triangles.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::transform::symmetrize_simple;
use ordo_graph::Graph;
use serde_json::json;

use super::{Oriented, TcResult};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::LoopSpec;
use crate::pr_pull::app::{loop_run, runner};
use ordo_graph::memory::WorkingMemory;

/// Triangle counting on one input.
pub struct Tc {
    simple: Graph,
    oriented: Oriented,
}

impl Algorithm for Tc {
    const NAME: &'static str = "tc";
    const ABOUT: &'static str = "Triangle counting of the simple undirected graph (Callisto-RTS 4.2), a parallel \
                                 loop over the vertices on ordo-loops or rayon; exact against an edge-iterator count.";
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = "one line: the number of triangles";
    /// The degree-oriented copy.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 4 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 4 };
    type Strategy = LoopSpec;
    const DEFAULT_STRATEGY: &'static str = "striped:batch=32";
    type Output = TcResult;
    type Reference = u64;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        let simple = symmetrize_simple(&graph);
        let oriented = Oriented::from_simple(&simple);
        Ok(Tc { simple, oriented })
    }

    fn params(&self) -> Fields {
        Fields::new()
    }

    fn run(&self, env: &RunEnv<'_>, spec: &LoopSpec) -> Result<Run<TcResult>, AppError> {
        let runner = runner(env, spec)?;
        let r = super::triangles(&runner, &self.oriented);
        let metrics = Fields::from([
            ("triangles".to_string(), json!(r.triangles)),
            ("undirected_edges".to_string(), json!(self.oriented.num_edges())),
            ("loop_threads".to_string(), json!(runner.threads())),
        ]);
        Ok(loop_run(r, r.time_s, metrics))
    }

    fn reference(&self) -> Result<RefRun<u64>, AppError> {
        let start = std::time::Instant::now();
        let count = super::reference::triangles_in_simple(&self.simple);
        Ok(RefRun { output: count, time_s: start.elapsed().as_secs_f64(), baseline_tasks: None })
    }

    fn verify(&self, got: &TcResult, want: &u64) -> Result<(), AppError> {
        super::verify::verify(*want, got.triangles).map_err(|e| AppError::Mismatch(e.to_string()))
    }

    fn write_out(&self, result: &TcResult, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", result.triangles)
    }
}
