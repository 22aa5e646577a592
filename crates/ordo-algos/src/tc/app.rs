//! `tc` as an application: triangle counting of the simple undirected graph
//! underlying the input, a parallel loop over the vertices of its
//! degree-ordered DAG.
//!
//! - Strategy (`--loop`): `default` (the fastest: the run's pool, claimed 64
//!   vertices at a time, GAPBS's `schedule(dynamic, 64)`), or an ordo-loops
//!   distributor or rayon by name (Callisto-RTS).
//! - Prepare: decides the ranking (by degree when the degree distribution
//!   is skewed) and whether the input is simple and symmetric; such an input
//!   ranked by id is counted in place ([`super::count_in_place`]), any other
//!   is oriented by the run itself ([`super::orient`]), which frees the DAG
//!   when it is done, so no copy of the graph outlives a run.
//! - Time: `time_s` is orientation plus count; `prep_time_s` is the
//!   orientation alone (0 in place).
//! - Metrics: `triangles`, `undirected_edges`, `relabelled`, `prep_time_s`,
//!   `kernel` (`default` or the loop spec that ran).
//! - Reference: the sequential edge-iterator count on the symmetrized simple
//!   graph, its time including that symmetrization; verify: exact equality.
//! - `--out`: one line, the number of triangles.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::transform::symmetrize_simple;
use ordo_graph::Graph;
use serde_json::json;

use super::{Order, TcResult};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::{LoopStrategy, PoolLoops};
use crate::pr_pull::app::{add_combining, loop_run, runner};
use ordo_graph::memory::WorkingMemory;

/// Vertices per claim of the default kernel's loops.
pub const DEFAULT_GRAIN: usize = 64;

/// Triangle counting on one input.
pub struct Tc {
    graph: Arc<Graph>,
    order: Order,
    /// Whether the graph is counted in place (simple, symmetric, ranked by
    /// id: [`super::UpperNeighbors`]), decided once per input.
    in_place: bool,
}

impl Tc {
    /// The count on `loops`: in place, or through an oriented copy.
    fn count(&self, loops: &impl crate::loop_runner::ParallelLoops) -> TcResult {
        if self.in_place {
            super::count_in_place(loops, super::UpperNeighbors::already_checked(&self.graph))
        } else {
            super::count(loops, &self.graph, self.order)
        }
    }
}

impl Algorithm for Tc {
    const NAME: &'static str = "tc";
    const ABOUT: &'static str = "Triangle counting of the simple undirected graph (GAPBS tc, Callisto-RTS 4.2), a \
                                 parallel loop over a degree-ordered DAG; exact against an edge-iterator count.";
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = "one line: the number of triangles";
    /// The DAG (half the edges of a symmetric input, up to all of a
    /// directed one, twice while missing reverses are merged in) and the
    /// per-vertex counts and ranks of its construction.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 40, per_edge: 4 };
    /// The symmetrized simple copy, built and sorted.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 17, per_edge: 16 };
    type Strategy = LoopStrategy;
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = TcResult;
    type Reference = u64;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        let order = Order::for_graph(&graph);
        let in_place = order == Order::ById && super::UpperNeighbors::applies(&graph);
        Ok(Tc { graph, order, in_place })
    }

    fn params(&self) -> Fields {
        Fields::new()
    }

    fn run(&self, env: &RunEnv<'_>, strategy: &LoopStrategy) -> Result<Run<TcResult>, AppError> {
        let (r, kernel, threads, combining) = match strategy {
            LoopStrategy::Default => {
                let loops = PoolLoops { pool: env.pool, grain: DEFAULT_GRAIN };
                let r = self.count(&loops);
                (r, "default".to_string(), env.pool.threads(), None)
            }
            LoopStrategy::Spec(spec) => {
                let runner = runner(env, spec)?;
                let r = self.count(&runner);
                (r, spec.to_string(), runner.threads(), runner.combining_counts())
            }
        };
        let mut metrics = Fields::from([
            ("triangles".to_string(), json!(r.triangles)),
            ("undirected_edges".to_string(), json!(r.undirected_edges)),
            ("relabelled".to_string(), json!(r.relabelled)),
            ("prep_time_s".to_string(), json!(r.prep_time_s)),
            ("kernel".to_string(), json!(kernel)),
            ("loop_threads".to_string(), json!(threads)),
        ]);
        add_combining(&mut metrics, combining);
        Ok(loop_run(r, r.time_s, metrics))
    }

    fn reference(&self) -> Result<RefRun<u64>, AppError> {
        let start = std::time::Instant::now();
        let count = super::reference::triangles_in_simple(&symmetrize_simple(&self.graph));
        Ok(RefRun { output: count, time_s: start.elapsed().as_secs_f64(), baseline_tasks: None })
    }

    fn verify(&self, got: &TcResult, want: &u64) -> Result<(), AppError> {
        super::verify::verify(*want, got.triangles).map_err(|e| AppError::Mismatch(e.to_string()))
    }

    fn write_out(&self, result: &TcResult, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", result.triangles)
    }
}
