//! PR and PR-D as applications: data-driven pull-push PageRank with the
//! residual as priority (whole part for PR, three more decimals for PR-D;
//! the module docs of [`super`] give the formulation and the bound).
//!
//! - Prepare: builds the transpose once per input (tasks pull over it).
//! - Parameters: `alpha` 0.85, `tolerance` 0.01 (the PMOD artifact runs),
//!   `amp` 1 (PR) or 1000 (PR-D), reported in the JSON.
//! - Metrics of a run: `rank_sum`, `max_rank`, `residual_left` (sum of the
//!   residuals left) and `error_bound` (`residual_left / (1 - alpha)`, the
//!   proven bound on the L1 distance to the exact ranks); with the reference
//!   also `l1_vs_reference`.
//! - Reference: power iteration to `1e-10·n` in L1 (the accuracy
//!   reference), and the same operator on one thread with an exact priority
//!   queue, whose task count is the `work_increase` baseline and whose time
//!   is `seq_time_s` (same tolerance, so the same accuracy contract).
//! - Verify: every residual below the tolerance and the L1 distance to the
//!   power iteration within the bound.
//! - `--out`: `vertex rank` per line, 0-based, ranks unnormalised (they sum to
//!   about `n`), printed in Rust's shortest form that parses back to the same
//!   `f64` (at most 17 significant digits), so the file is exact.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::{PageRank, PageRankParams, PowerIteration, SequentialRun};
use crate::app::params::{ALPHA, TOLERANCE};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use ordo_graph::memory::WorkingMemory;

/// What the reference step computes.
pub struct PageRankReference {
    /// The accuracy reference.
    pub exact: PowerIteration,
    /// The exact-priority sequential run (work baseline and time).
    pub baseline: SequentialRun,
}

/// PageRank on one input: PR (`FINE = false`, priority scale 1) or PR-D
/// (`FINE = true`, scale 1000); see [`Pr`] and [`PrD`].
pub struct PageRankApp<const FINE: bool> {
    graph: Arc<Graph>,
    transpose: Graph,
    params: PageRankParams,
}

/// PR: priority = the whole part of the residual.
pub type Pr = PageRankApp<false>;

/// PR-D: priority = the residual with three decimals (1000× the levels).
pub type PrD = PageRankApp<true>;

impl<const FINE: bool> Algorithm for PageRankApp<FINE> {
    const NAME: &'static str = if FINE { "pr-d" } else { "pr" };
    const ABOUT: &'static str = if FINE {
        "PageRank with priority = residual with three decimals (1000x the levels of pr); verified as pr."
    } else {
        "PageRank, data-driven pull-push with residuals; priority = whole part of the residual; verified \
         against power iteration within the proven L1 bound."
    };
    const PARAMS: &'static [&'static ParamDef] = &[&ALPHA, &TOLERANCE];
    const CYCLES: bool = true;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str =
        "`vertex rank` per line (0-based; shortest decimal that parses back to the same f64)";
    /// Ranks and residuals; power iteration keeps two rank vectors.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 32, per_edge: 0 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 24, per_edge: 0 };
    type Strategy = SchedulerSpec;
    /// `auto` for both: the fastest scheduler on both inputs at one and two threads.
    /// PR: `pmod` takes 1.01–1.26× its time, `obim` 1.02–1.21×; PR-D: `pmod` 1.07–3.3×,
    /// `obim` 2.5–3.2×. Geometric mean of best / its time over the four cases (two inputs,
    /// one and two threads): PR 1.00 for `auto`, 0.87 for `pmod`; PR-D 1.00 and 0.56.
    /// (`bench/papers.toml`, experiment `pagerank`, full run of 2026-11-27 in
    /// `docs/results.md`.)
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = PageRank;
    type Reference = PageRankReference;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let mut p = if FINE { PageRankParams::pr_d() } else { PageRankParams::pr() };
        p.alpha = params.take_f64(&ALPHA)?.unwrap_or(p.alpha);
        p.tolerance = params.take_f64(&TOLERANCE)?.unwrap_or(p.tolerance);
        p.validate().map_err(|e| AppError::Param(e.to_string()))?;
        let transpose = ordo_graph::transform::transpose(&graph);
        Ok(PageRankApp { graph, transpose, params: p })
    }

    fn params(&self) -> Fields {
        Fields::from([
            ("alpha".to_string(), json!(self.params.alpha)),
            ("tolerance".to_string(), json!(self.params.tolerance)),
            ("amp".to_string(), json!(self.params.amp)),
        ])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<PageRank>, AppError> {
        let (result, stats) =
            super::pagerank(env.pool, spec, &self.graph, &self.transpose, &self.params, env.exec)
                .map_err(|e| AppError::Failed(e.to_string()))?;
        let metrics = Fields::from([
            ("rank_sum".to_string(), json!(result.rank_sum())),
            ("max_rank".to_string(), json!(result.max_rank())),
            ("residual_left".to_string(), json!(result.residual_sum())),
            ("error_bound".to_string(), json!(result.error_bound(self.params.alpha))),
        ]);
        Ok(Run::executed(result, stats, metrics))
    }

    fn reference(&self) -> Result<RefRun<PageRankReference>, AppError> {
        let failed = |e: super::PageRankError| AppError::Failed(e.to_string());
        let exact =
            super::power_iteration(&self.graph, &self.transpose, self.params.alpha).map_err(failed)?;
        let baseline =
            super::sequential_priority(&self.graph, &self.transpose, &self.params).map_err(failed)?;
        Ok(RefRun {
            time_s: baseline.time_s,
            baseline_tasks: Some(baseline.tasks),
            output: PageRankReference { exact, baseline },
        })
    }

    fn verify(&self, got: &PageRank, want: &PageRankReference) -> Result<(), AppError> {
        super::verify_within_bound(got, &want.exact, &self.params).map_err(|e| {
            AppError::Mismatch(format!(
                "differs from the power-iteration reference by more than the bound: {e}"
            ))
        })?;
        // The baseline must satisfy the same contract (a check of the reference step).
        super::verify_within_bound(&want.baseline.result, &want.exact, &self.params)
            .map_err(|e| AppError::Failed(format!("the sequential baseline is outside the bound: {e}")))?;
        Ok(())
    }

    fn verified_metrics(&self, got: &PageRank, want: &PageRankReference) -> Fields {
        Fields::from([
            ("l1_vs_reference".to_string(), json!(super::l1_distance(&got.ranks, &want.exact.ranks))),
            ("reference_iterations".to_string(), json!(want.exact.iterations)),
        ])
    }

    fn write_out(&self, result: &PageRank, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, x) in result.ranks.iter().enumerate() {
            writeln!(w, "{v} {x}")?;
        }
        w.flush()
    }
}
