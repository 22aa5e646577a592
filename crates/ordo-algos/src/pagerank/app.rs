//! PR and PR-D as applications.
//!
//! - `pr`: by default GAPBS's pull iterations ([`super::pull`]); with a
//!   scheduler spec (`--sched pmod`, `--sched auto`, ...) the PMOD paper's
//!   data-driven pull-push operator with residuals ([`super`]) on that
//!   scheduler, priority = the whole part of the residual. Both compute the
//!   same ranks (unnormalised, summing to about `n`).
//! - `pr-d`: the residual operator only, priority = the residual with three
//!   decimals (1000× the levels).
//!
//! **`--tolerance` means what the kernel that runs stops on.** Pull: the
//! L1 change of the normalised ranks in one iteration (GAPBS's `error`,
//! default `1e-4`, at most `--iterations` iterations, default 20; 0 runs
//! every iteration); stopped by the tolerance, the normalised ranks are
//! within `α/(1 - α)·tolerance` of the fixed point in L1. Residual
//! operator: the residual below which a vertex stops running (default 0.01,
//! on ranks summing to about `n`); the normalised ranks are then within
//! `tolerance/(1 - α)`, in practice within `Σresidual/(n·(1 - α))`. So a
//! residual tolerance `α·τ` promises what a pull tolerance `τ` does (the
//! defaults promise `5.7e-4` and `6.7e-2`); the work to reach either
//! differs per kernel and input.
//!
//! - Prepare: the in-edges once per input (`crate::access::in_edges`: the
//!   graph itself when symmetric, else its transpose), and the pull kernel's
//!   out-degree divisors of a directed graph.
//! - Metrics: `kernel` (`pull` or `residual`), `tolerance` as that kernel
//!   reads it, `rank_sum`, `max_rank`, `error_bound` (the proven bound on
//!   the L1 distance to the exact ranks); pull also `iterations`,
//!   `max_iterations`, `last_change`; residual also `amp` and
//!   `residual_left`. With the reference also `l1_vs_reference`.
//! - Reference: power iteration to `1e-10·n` in L1 (the accuracy reference),
//!   the sequential pull loop (the exact reference of the pull kernel; its
//!   time is `seq_time_s` of `pr`), and the residual operator on one thread
//!   with an exact priority queue (the `work_increase` baseline; its time is
//!   `seq_time_s` of `pr-d`, and `residual_seq_time_s` of `pr`).
//! - Verify: pull: bit for bit against the sequential loop and within its
//!   bound of the power iteration ([`super::pull::verify`]); residual:
//!   every residual below the tolerance and the L1 distance to the power
//!   iteration within the bound.
//! - `--out`: `vertex rank` per line, 0-based, ranks unnormalised (they sum
//!   to about `n`), printed in Rust's shortest form that parses back to the
//!   same `f64` (at most 17 significant digits), so the file is exact.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use ordo_graph::memory::WorkingMemory;
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::pull::reference::{sequential_pull, SequentialPull};
use super::pull::verify::{pull_rounding_slack, verify_against_sequential, verify_within_pull_bound};
use super::pull::{pull_pagerank, PullInput, PullPageRank, PullParams};
use super::{PageRank, PageRankError, PageRankParams, PowerIteration, SequentialRun};
use crate::app::params::{ALPHA, ITERATIONS, TOLERANCE};
use crate::app::{
    Algorithm, AppError, Fields, Kernel, KernelChoice, KernelSet, ParamDef, Params, RefRun, Run, RunEnv,
};

fn failed(e: PageRankError) -> AppError {
    AppError::Failed(e.to_string())
}

/// The residual operator on one input: what `pr --sched ...` and `pr-d` run.
struct Residual {
    graph: Arc<Graph>,
    in_edges: Arc<Graph>,
    params: PageRankParams,
}

impl Residual {
    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<PageRank>, AppError> {
        let (result, stats) =
            super::pagerank(env.pool, spec, &self.graph, &self.in_edges, &self.params, env.exec)
                .map_err(failed)?;
        let metrics = Fields::from([
            ("kernel".to_string(), json!("residual")),
            ("tolerance".to_string(), json!(self.params.tolerance)),
            ("amp".to_string(), json!(self.params.amp)),
            ("rank_sum".to_string(), json!(result.rank_sum())),
            ("max_rank".to_string(), json!(result.max_rank())),
            ("residual_left".to_string(), json!(result.residual_sum())),
            ("error_bound".to_string(), json!(result.error_bound(self.params.alpha))),
        ]);
        Ok(Run::executed(result, stats, metrics))
    }

    fn exact(&self) -> Result<PowerIteration, AppError> {
        super::power_iteration(&self.graph, &self.in_edges, self.params.alpha).map_err(failed)
    }

    fn baseline(&self) -> Result<SequentialRun, AppError> {
        super::sequential_priority(&self.graph, &self.in_edges, &self.params).map_err(failed)
    }

    fn verify(
        &self,
        got: &PageRank,
        exact: &PowerIteration,
        baseline: &SequentialRun,
    ) -> Result<(), AppError> {
        super::verify_within_bound(got, exact, &self.params).map_err(|e| {
            AppError::Mismatch(format!(
                "differs from the power-iteration reference by more than the bound: {e}"
            ))
        })?;
        // The baseline must satisfy the same contract (a check of the reference step).
        super::verify_within_bound(&baseline.result, exact, &self.params)
            .map_err(|e| AppError::Failed(format!("the sequential baseline is outside the bound: {e}")))?;
        Ok(())
    }
}

fn write_ranks(ranks: &[f64], out: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    for (v, x) in ranks.iter().enumerate() {
        writeln!(w, "{v} {x}")?;
    }
    w.flush()
}

fn accuracy_metrics(ranks: &[f64], exact: &PowerIteration) -> Fields {
    Fields::from([
        ("l1_vs_reference".to_string(), json!(super::l1_distance(ranks, &exact.ranks))),
        ("reference_iterations".to_string(), json!(exact.iterations)),
    ])
}

const OUT_FORMAT: &str =
    "`vertex rank` per line (0-based; ranks sum to about n; shortest decimal that parses back to the same f64)";

/// The kernels of `pr`: the pull iterations (default) and the residual
/// operator on any scheduler.
pub struct PrKernels;

impl KernelSet for PrKernels {
    const NAMED: &'static [(&'static str, &'static str)] =
        &[("pull", "GAPBS's pull iterations, the default (by name)")];
    const SCHEDULED: bool = true;
    const FLAG: &'static str = "sched";
    const HELP: &'static str = "`default`: GAPBS's pull iterations (also by name: `pull`), stopping on \
                                the L1 change of the normalised ranks; a scheduler spec (`auto`, `pmod`, \
                                `obim:delta=14`, `strict`, ...): the PMOD paper's data-driven residual \
                                operator on that scheduler, stopping on the residuals. An unknown name is \
                                an error that lists what exists.";
}

/// What `pr` returns: the pull kernel's result or the residual operator's.
#[derive(Clone, Debug, PartialEq)]
pub enum PrResult {
    /// From the pull kernel.
    Pull(PullPageRank),
    /// From the residual operator on a scheduler.
    Residual(PageRank),
}

impl PrResult {
    /// The ranks (unnormalised, summing to about `n`).
    pub fn ranks(&self) -> &[f64] {
        match self {
            PrResult::Pull(r) => &r.ranks,
            PrResult::Residual(r) => &r.ranks,
        }
    }
}

/// What the reference step of `pr` computes.
pub struct PrReference {
    /// The accuracy reference.
    pub exact: PowerIteration,
    /// The sequential pull loop with the pull kernel's stopping rule.
    pub pull: SequentialPull,
    /// The residual operator's exact-priority sequential run (`None` when
    /// the tolerance given is one it cannot stop on, 0).
    pub baseline: Option<SequentialRun>,
}

/// `pr` on one input: the pull kernel by default, the residual operator on
/// a scheduler (module docs).
pub struct Pr {
    residual: Residual,
    /// Whether the residual operator can run with the parameters given.
    residual_valid: Result<(), String>,
    pull: PullInput,
    pull_params: PullParams,
    /// `--iterations` was given (it applies to the pull kernel only).
    iterations_given: bool,
}

impl Pr {
    fn sequential_pull(&self, params: &PullParams) -> Result<SequentialPull, AppError> {
        sequential_pull(&self.residual.graph, &self.pull.in_edges, params).map_err(failed)
    }
}

impl Algorithm for Pr {
    const NAME: &'static str = "pr";
    const ABOUT: &'static str = "PageRank. Default: GAPBS's pull iterations until the L1 change of the normalised \
                                 ranks is below --tolerance (1e-4) or --iterations (20) ran, verified bit for bit \
                                 against the sequential loop. With --sched: the PMOD paper's data-driven residual \
                                 operator (priority = whole part of the residual, --tolerance = residual \
                                 threshold, 0.01). Both verified against power iteration within a proven L1 bound.";
    const PARAMS: &'static [&'static ParamDef] = &[&ALPHA, &TOLERANCE, &ITERATIONS];
    const CYCLES: bool = true;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = OUT_FORMAT;
    /// The in-edges, the pull kernel's ranks, two contribution buffers and
    /// the divisors of a directed graph (the residual operator's ranks and
    /// residuals fit in that).
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 40, per_edge: 4 };
    /// Power iteration's two vectors, the sequential pull's two, the
    /// sequential residual run's two.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 48, per_edge: 0 };
    type Strategy = Kernel<PrKernels>;
    /// The pull kernel: faster than the residual operator on every scheduler
    /// on the inputs of `docs/pagerank-pull.md`.
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = PrResult;
    type Reference = PrReference;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let alpha = params.take_f64(&ALPHA)?.unwrap_or(super::DEFAULT_ALPHA);
        let tolerance = params.take_f64(&TOLERANCE)?;
        let iterations = params.take_u64(&ITERATIONS)?;
        let residual_params = PageRankParams {
            alpha,
            tolerance: tolerance.unwrap_or(super::DEFAULT_TOLERANCE),
            ..PageRankParams::pr()
        };
        // A tolerance of 0 is the pull kernel's "run every iteration" (GAPBS's
        // `-t 0`); the residual operator would never stop on it, so only a
        // scheduled run refuses it.
        let residual_valid = residual_params.validate().map_err(|e| e.to_string());
        let max_iterations = match iterations {
            Some(k) => u32::try_from(k).map_err(|_| AppError::Param(format!("iterations {k}: too many")))?,
            None => super::pull::DEFAULT_MAX_ITERATIONS,
        };
        let pull_params = PullParams {
            alpha,
            tolerance: tolerance.unwrap_or(super::pull::DEFAULT_PULL_TOLERANCE),
            max_iterations,
        };
        pull_params.validate().map_err(|e| AppError::Param(e.to_string()))?;
        let in_edges = crate::access::in_edges(&graph);
        let pull = PullInput::new(&graph, Arc::clone(&in_edges)).map_err(failed)?;
        Ok(Pr {
            residual: Residual { graph, in_edges, params: residual_params },
            residual_valid,
            pull,
            pull_params,
            iterations_given: iterations.is_some(),
        })
    }

    fn params(&self) -> Fields {
        Fields::from([("alpha".to_string(), json!(self.pull_params.alpha))])
    }

    fn run(&self, env: &RunEnv<'_>, kernel: &Kernel<PrKernels>) -> Result<Run<PrResult>, AppError> {
        let spec = match &kernel.choice {
            KernelChoice::Default | KernelChoice::Named(_) => None,
            KernelChoice::Scheduled(spec) => Some(spec),
        };
        let Some(spec) = spec else {
            let began = Instant::now();
            let cancelled = || env.exec.monitor.as_ref().is_some_and(|m| m.is_cancelled());
            let r = pull_pagerank(env.pool, &self.pull, &self.pull_params, &cancelled).map_err(failed)?;
            let time_s = began.elapsed().as_secs_f64();
            let metrics = Fields::from([
                ("kernel".to_string(), json!("pull")),
                ("tolerance".to_string(), json!(self.pull_params.tolerance)),
                ("max_iterations".to_string(), json!(self.pull_params.max_iterations)),
                ("iterations".to_string(), json!(r.iterations())),
                ("last_change".to_string(), json!(r.last_change().is_finite().then_some(r.last_change()))),
                ("rank_sum".to_string(), json!(r.rank_sum())),
                ("max_rank".to_string(), json!(r.max_rank())),
                (
                    "error_bound".to_string(),
                    json!(r
                        .error_bound(self.pull_params.alpha)
                        .is_finite()
                        .then(|| r.error_bound(self.pull_params.alpha))),
                ),
            ]);
            return Ok(Run {
                output: PrResult::Pull(r),
                time_s,
                stats: None,
                metrics,
                baseline_tasks: None,
                work_split: Vec::new(),
            });
        };
        if self.iterations_given {
            return Err(AppError::Param(
                "--iterations applies to pr's default pull kernel, not to the residual operator that \
                 --sched runs (it stops on --tolerance alone)"
                    .to_string(),
            ));
        }
        self.residual_valid
            .clone()
            .map_err(|e| AppError::Param(format!("{e} (the residual operator of --sched)")))?;
        Ok(self.residual.run(env, spec)?.map_output(PrResult::Residual))
    }

    fn reference(&self) -> Result<RefRun<PrReference>, AppError> {
        let exact = self.residual.exact()?;
        let pull = self.sequential_pull(&self.pull_params)?;
        let baseline = match self.residual_valid {
            Ok(()) => Some(self.residual.baseline()?),
            Err(_) => None,
        };
        Ok(RefRun {
            time_s: pull.time_s,
            baseline_tasks: baseline.as_ref().map(|b| b.tasks),
            output: PrReference { exact, pull, baseline },
        })
    }

    fn verify(&self, got: &PrResult, want: &PrReference) -> Result<(), AppError> {
        match got {
            PrResult::Residual(r) => match &want.baseline {
                Some(baseline) => self.residual.verify(r, &want.exact, baseline),
                None => {
                    Err(AppError::Failed("the residual operator ran without a reference baseline".into()))
                }
            },
            PrResult::Pull(r) => {
                let rerun = |k: u32| {
                    // A tolerance no change of a run that has not stopped is below.
                    let fixed =
                        PullParams { max_iterations: k, tolerance: f64::MIN_POSITIVE, ..self.pull_params };
                    sequential_pull(&self.residual.graph, &self.pull.in_edges, &fixed).map(|s| s.result)
                };
                verify_against_sequential(&self.pull_params, r, &want.pull.result, rerun)
                    .map_err(|e| AppError::Mismatch(e.to_string()))?;
                let slack = pull_rounding_slack(&self.pull.in_edges, self.pull_params.alpha);
                verify_within_pull_bound(r, &want.exact, self.pull_params.alpha, slack).map_err(|e| {
                    AppError::Mismatch(format!(
                        "differs from the power-iteration reference by more than the bound: {e}"
                    ))
                })?;
                Ok(())
            }
        }
    }

    fn verified_metrics(&self, got: &PrResult, want: &PrReference) -> Fields {
        let mut f = accuracy_metrics(got.ranks(), &want.exact);
        if let Some(baseline) = &want.baseline {
            f.insert("residual_seq_time_s".to_string(), json!(baseline.time_s));
        }
        f
    }

    fn write_out(&self, result: &PrResult, out: &mut dyn Write) -> io::Result<()> {
        write_ranks(result.ranks(), out)
    }
}

/// What the reference step of `pr-d` computes.
pub struct PageRankReference {
    /// The accuracy reference.
    pub exact: PowerIteration,
    /// The exact-priority sequential run (work baseline and time).
    pub baseline: SequentialRun,
}

/// PR-D: the residual operator with priority = the residual with three
/// decimals (1000× the levels of `pr --sched`).
pub struct PrD {
    residual: Residual,
}

impl Algorithm for PrD {
    const NAME: &'static str = "pr-d";
    const ABOUT: &'static str =
        "PageRank, the PMOD paper's data-driven residual operator with priority = residual with three \
         decimals (1000x the levels of pr --sched); verified against power iteration within the proven L1 bound.";
    const PARAMS: &'static [&'static ParamDef] = &[&ALPHA, &TOLERANCE];
    const CYCLES: bool = true;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = OUT_FORMAT;
    /// Ranks and residuals, and the in-edges.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 40, per_edge: 4 };
    /// Power iteration keeps two rank vectors.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 24, per_edge: 0 };
    type Strategy = SchedulerSpec;
    /// `auto`: the fastest scheduler on both inputs at one and two threads
    /// (`bench/papers.toml`, experiment `pagerank`; figures in
    /// `docs/results.md`).
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = PageRank;
    type Reference = PageRankReference;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let mut p = PageRankParams::pr_d();
        p.alpha = params.take_f64(&ALPHA)?.unwrap_or(p.alpha);
        p.tolerance = params.take_f64(&TOLERANCE)?.unwrap_or(p.tolerance);
        p.validate().map_err(|e| AppError::Param(e.to_string()))?;
        let in_edges = crate::access::in_edges(&graph);
        Ok(PrD { residual: Residual { graph, in_edges, params: p } })
    }

    fn params(&self) -> Fields {
        Fields::from([("alpha".to_string(), json!(self.residual.params.alpha))])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<PageRank>, AppError> {
        self.residual.run(env, spec)
    }

    fn reference(&self) -> Result<RefRun<PageRankReference>, AppError> {
        let exact = self.residual.exact()?;
        let baseline = self.residual.baseline()?;
        Ok(RefRun {
            time_s: baseline.time_s,
            baseline_tasks: Some(baseline.tasks),
            output: PageRankReference { exact, baseline },
        })
    }

    fn verify(&self, got: &PageRank, want: &PageRankReference) -> Result<(), AppError> {
        self.residual.verify(got, &want.exact, &want.baseline)
    }

    fn verified_metrics(&self, got: &PageRank, want: &PageRankReference) -> Fields {
        accuracy_metrics(&got.ranks, &want.exact)
    }

    fn write_out(&self, result: &PageRank, out: &mut dyn Write) -> io::Result<()> {
        write_ranks(&result.ranks, out)
    }
}
