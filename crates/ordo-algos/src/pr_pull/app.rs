//! `pr-pull` as an application: PageRank by pull (Callisto-RTS Figure 1) on
//! ordo-loops or rayon, chosen with `--loop`.
//!
//! - Prepare: builds the transpose (the in-edges the loop pulls over).
//! - Parameters: `alpha` (the damping factor `d`, 0.85), `iterations`
//!   (default 20; the cap with `tolerance`, default 100 then), `tolerance`
//!   (stop once an iteration changes the ranks by at most this in L1).
//! - Report: `alpha`, `max_iterations` (the count, or the cap with a
//!   tolerance), `tolerance` when given.
//! - Metrics: `iterations` (run), `last_change` (L1 change of the last
//!   iteration), `fixed_point_bound` (`d/(1-d)·last_change`, the L1 distance
//!   to the true PageRank it guarantees), `rank_sum`, `max_rank`.
//! - Reference: the sequential loop; verify: the same iteration count (up to
//!   rounding at the tolerance) and bit-equal ranks ([`super::verify`]).
//! - `--out`: `vertex rank` per line, ranks summing to at most 1, in the
//!   shortest form that parses back to the same `f64`.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::Graph;
use serde_json::json;

use super::{PrPullParams, PrPullResult, Stop, DEFAULT_DAMPING, DEFAULT_MAX_ITERATIONS};
use crate::app::params::{ALPHA, ITERATIONS, TOLERANCE};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::{LoopRunner, LoopSpec};
use ordo_graph::memory::WorkingMemory;

/// The default number of iterations without a tolerance.
pub const DEFAULT_ITERATIONS: u32 = 20;

/// PageRank by pull on one input.
pub struct PrPull {
    graph: Arc<Graph>,
    transpose: Graph,
    params: PrPullParams,
}

/// Runs a loop kernel's runner for `spec` on `env`'s thread count (or the
/// spec's `threads=T`).
pub(crate) fn runner(env: &RunEnv<'_>, spec: &LoopSpec) -> Result<LoopRunner, AppError> {
    LoopRunner::new(spec, env.pool.threads(), None).map_err(|e| AppError::Param(format!("--loop: {e}")))
}

/// Adds a combining runner's counts to a loop kernel's `metrics`:
/// `combiner_serves` (combiner lock holdings that answered requests) and
/// `combined_requests` (the requests they answered). Their ratio is the mean
/// number of threads one claim served: 1 means nothing was combined (every
/// combiner had one member, or the threads never asked together).
pub(crate) fn add_combining(metrics: &mut Fields, counts: Option<ordo_loops::CombiningCounts>) {
    if let Some(c) = counts {
        metrics.insert("combiner_serves".to_string(), json!(c.serves));
        metrics.insert("combined_requests".to_string(), json!(c.requests));
    }
}

/// A run of a loop kernel: no executor statistics.
pub(crate) fn loop_run<O>(output: O, time_s: f64, metrics: Fields) -> Run<O> {
    Run { output, time_s, stats: None, metrics, baseline_tasks: None, work_split: Vec::new() }
}

impl Algorithm for PrPull {
    const NAME: &'static str = "pr-pull";
    const ABOUT: &'static str = "PageRank by pull (Callisto-RTS Figure 1), one parallel loop over the vertices per \
                                 iteration on ordo-loops or rayon; verified bit for bit against the sequential loop.";
    const PARAMS: &'static [&'static ParamDef] = &[&ALPHA, &ITERATIONS, &TOLERANCE];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str =
        "`vertex rank` per line (0-based; ranks sum to at most 1; shortest decimal that parses back to the same f64)";
    /// The transposed graph and two rank vectors.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 24, per_edge: 4 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 16, per_edge: 0 };
    type Strategy = LoopSpec;
    const DEFAULT_STRATEGY: &'static str = "striped:batch=32";
    type Output = PrPullResult;
    type Reference = PrPullResult;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let damping = params.take_f64(&ALPHA)?.unwrap_or(DEFAULT_DAMPING);
        let iterations = params.take_u64(&ITERATIONS)?;
        let tolerance = params.take_f64(&TOLERANCE)?;
        let cap = |k: u64| u32::try_from(k).map_err(|_| AppError::Param(format!("iterations {k}: too many")));
        let stop = match tolerance {
            Some(tolerance) => Stop::Tolerance {
                tolerance,
                max_iterations: iterations.map(cap).transpose()?.unwrap_or(DEFAULT_MAX_ITERATIONS),
            },
            None => Stop::Iterations(iterations.map(cap).transpose()?.unwrap_or(DEFAULT_ITERATIONS)),
        };
        let params = PrPullParams { damping, stop };
        params.validate().map_err(|e| AppError::Param(e.to_string()))?;
        let transpose = ordo_graph::transform::transpose(&graph);
        Ok(PrPull { graph, transpose, params })
    }

    fn params(&self) -> Fields {
        let mut f = Fields::from([("alpha".to_string(), json!(self.params.damping))]);
        match self.params.stop {
            Stop::Iterations(k) => {
                f.insert("max_iterations".into(), json!(k));
            }
            Stop::Tolerance { tolerance, max_iterations } => {
                f.insert("tolerance".into(), json!(tolerance));
                f.insert("max_iterations".into(), json!(max_iterations));
            }
        }
        f
    }

    fn run(&self, env: &RunEnv<'_>, spec: &LoopSpec) -> Result<Run<PrPullResult>, AppError> {
        let runner = runner(env, spec)?;
        let r = super::pr_pull(&runner, &self.graph, &self.transpose, &self.params)?;
        let mut metrics = Fields::from([
            ("iterations".to_string(), json!(r.iterations)),
            ("last_change".to_string(), json!(finite(r.last_change()))),
            (
                "fixed_point_bound".to_string(),
                json!(finite(super::verify::fixed_point_bound(self.params.damping, r.last_change()))),
            ),
            ("rank_sum".to_string(), json!(r.ranks.iter().sum::<f64>())),
            ("max_rank".to_string(), json!(r.ranks.iter().copied().fold(0.0, f64::max))),
            ("loop_threads".to_string(), json!(runner.threads())),
        ]);
        add_combining(&mut metrics, runner.combining_counts());
        let time_s = r.time_s;
        Ok(loop_run(r, time_s, metrics))
    }

    fn reference(&self) -> Result<RefRun<PrPullResult>, AppError> {
        let r = super::reference::pr_pull(&self.graph, &self.transpose, &self.params)?;
        Ok(RefRun { time_s: r.time_s, baseline_tasks: None, output: r })
    }

    fn verify(&self, got: &PrPullResult, want: &PrPullResult) -> Result<(), AppError> {
        super::verify::verify_against(&self.graph, &self.transpose, &self.params, got, want.clone())
            .map(|_| ())
            .map_err(|e| AppError::Mismatch(format!("differs from the sequential loop: {e}")))
    }

    fn write_out(&self, result: &PrPullResult, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, x) in result.ranks.iter().enumerate() {
            writeln!(w, "{v} {x}")?;
        }
        w.flush()
    }
}

/// `None` (JSON null) for an infinite value (no iteration ran).
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}
