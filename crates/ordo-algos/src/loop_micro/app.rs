//! `loop-micro` as an application: the work-scheduling microbenchmark of
//! Callisto-RTS §4.1 on any `--loop` (distributors, the static partition,
//! rayon), for `ordo run` and `ordo bench`.
//!
//! It needs no graph ([`Algorithm::NEEDS_GRAPH`] is false): `ordo run
//! loop-micro` takes no `--graph`/`--gen`, and a bench plan gives it an
//! input `none = true`. The loop is described by its parameters instead:
//! `size` (iterations, 2^22), `work` (increments per even iteration, 10),
//! `shape` (`even` or `skewed`).
//!
//! - Metrics: `size`, `work`, `shape`, `ns_per_iteration`, `loop_threads`.
//! - Reference: the unsynchronised sequential loop (the base of the paper's
//!   speedups: `vs_seq`); verify: the checksum equals the closed form.
//! - `--out`: one line, `iterations index_sum increments`.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::Graph;
use serde_json::json;

use super::{reference, Checksum, MicroParams, Shape};
use crate::app::params::{SHAPE, SIZE, WORK};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::LoopSpec;
use crate::pr_pull::app::{add_combining, loop_run, runner};

/// The microbenchmark with its parameters.
pub struct LoopMicro {
    params: MicroParams,
}

impl Algorithm for LoopMicro {
    const NAME: &'static str = "loop-micro";
    const ABOUT: &'static str =
        "The parallel-loop microbenchmark of Callisto-RTS 4.1 (even or skewed work per \
                                 iteration, no graph); checksum verified.";
    const PARAMS: &'static [&'static ParamDef] = &[&SIZE, &WORK, &SHAPE];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = "one line: `iterations index_sum increments` (the checksum)";
    const NEEDS_GRAPH: bool = false;
    type Strategy = LoopSpec;
    const DEFAULT_STRATEGY: &'static str = "striped:batch=32";
    type Output = Checksum;
    type Reference = Checksum;

    fn prepare(_graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let defaults = MicroParams::default();
        let size = params.take_u64(&SIZE)?.map_or(Ok(defaults.iterations), |n| {
            usize::try_from(n).map_err(|_| AppError::Param(format!("size {n}: too large")))
        })?;
        let work = params.take_u64(&WORK)?.map_or(Ok(defaults.work), |w| {
            u32::try_from(w)
                .ok()
                .filter(|&w| w >= 1)
                .ok_or_else(|| AppError::Param(format!("work {w}: expected 1 to 2^32-1")))
        })?;
        let shape =
            params.take_text(&SHAPE).map(|s| s.parse::<Shape>()).transpose()?.unwrap_or(defaults.shape);
        Ok(LoopMicro { params: MicroParams { iterations: size, work, shape } })
    }

    fn params(&self) -> Fields {
        Fields::from([
            ("size".to_string(), json!(self.params.iterations)),
            ("work".to_string(), json!(self.params.work)),
            ("shape".to_string(), json!(self.params.shape.name())),
        ])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &LoopSpec) -> Result<Run<Checksum>, AppError> {
        let runner = runner(env, spec)?;
        let (sum, time_s) = super::run(&runner, &self.params);
        let mut metrics = Fields::from([
            ("ns_per_iteration".to_string(), json!(time_s * 1e9 / self.params.iterations.max(1) as f64)),
            ("loop_threads".to_string(), json!(runner.threads())),
        ]);
        add_combining(&mut metrics, runner.combining_counts());
        Ok(loop_run(sum, time_s, metrics))
    }

    fn reference(&self) -> Result<RefRun<Checksum>, AppError> {
        let (sum, time_s) = reference::run(&self.params);
        super::verify::verify(&reference::expected(&self.params), &sum)
            .map_err(|e| AppError::Failed(format!("the sequential loop is wrong: {e}")))?;
        Ok(RefRun { output: sum, time_s, baseline_tasks: None })
    }

    fn verify(&self, got: &Checksum, want: &Checksum) -> Result<(), AppError> {
        super::verify::verify(want, got).map_err(|e| AppError::Mismatch(e.to_string()))
    }

    fn write_out(&self, sum: &Checksum, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{} {} {}", sum.iterations, sum.index_sum, sum.increments)
    }
}
