//! PR and PR-D as [`PreparedApp`]s: data-driven pull-push PageRank with the
//! residual as priority (whole part for PR, three more decimals for PR-D;
//! `ordo_algos::pagerank` documents the formulation and the bound).
//!
//! - Prepare: builds the transpose once per input (tasks pull over it).
//! - Parameters: `alpha` 0.85, `tolerance` 0.01 (the PMOD artifact runs),
//!   `amp` 1 (PR) or 1000 (PR-D), reported in the JSON.
//! - Metrics of a run: `rank_sum`, `max_rank`, `residual_left` (sum of the
//!   residuals left) and `error_bound` (`residual_left / (1 - alpha)`, the
//!   proven bound on the L1 distance to the exact ranks); with `--verify`
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

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;
use ordo_algos::pagerank::{self, PageRank, PageRankParams, PowerIteration, SequentialRun};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::{json, Value};

use super::{output, App, AppParams, AppRun, PreparedApp, RefRun};

/// PR or PR-D on one input.
pub(crate) struct PageRankApp<'g> {
    app: App,
    graph: &'g Graph,
    transpose: Graph,
    params: PageRankParams,
}

/// What the reference step computes.
struct PageRankReference {
    /// The accuracy reference.
    exact: PowerIteration,
    /// The exact-priority sequential run (work baseline and time).
    baseline: SequentialRun,
}

impl<'g> PageRankApp<'g> {
    /// PR (`App::Pr`) or PR-D (any other `app`) on `graph`.
    pub(crate) fn new(app: App, graph: &'g Graph, app_params: &AppParams) -> anyhow::Result<Self> {
        let mut params = if app == App::Pr { PageRankParams::pr() } else { PageRankParams::pr_d() };
        params.alpha = app_params.alpha.unwrap_or(params.alpha);
        params.tolerance = app_params.tolerance.unwrap_or(params.tolerance);
        params.validate()?;
        Ok(PageRankApp { app, graph, transpose: ordo_graph::transform::transpose(graph), params })
    }
}

impl PreparedApp for PageRankApp<'_> {
    fn app(&self) -> App {
        self.app
    }

    fn params(&self) -> BTreeMap<String, Value> {
        BTreeMap::from([
            ("alpha".to_string(), json!(self.params.alpha)),
            ("tolerance".to_string(), json!(self.params.tolerance)),
            ("amp".to_string(), json!(self.params.amp)),
        ])
    }

    fn run(&self, pool: &Pool, spec: &SchedulerSpec, opts: &ExecOptions) -> anyhow::Result<AppRun> {
        let (result, stats) =
            pagerank::pagerank(pool, spec, self.graph, &self.transpose, &self.params, opts)?;
        let metrics = BTreeMap::from([
            ("rank_sum".to_string(), json!(result.rank_sum())),
            ("max_rank".to_string(), json!(result.max_rank())),
            ("residual_left".to_string(), json!(result.residual_sum())),
            ("error_bound".to_string(), json!(result.error_bound(self.params.alpha))),
        ]);
        Ok(AppRun { stats, metrics, work_split: None, output: Box::new(result) })
    }

    fn reference(&self) -> anyhow::Result<RefRun> {
        let exact = pagerank::power_iteration(self.graph, &self.transpose, self.params.alpha)?;
        let baseline = pagerank::sequential_priority(self.graph, &self.transpose, &self.params)?;
        Ok(RefRun {
            time_s: baseline.time_s,
            baseline_tasks: baseline.tasks,
            output: Box::new(PageRankReference { exact, baseline }),
        })
    }

    fn verify(&self, run: &AppRun, reference: &RefRun) -> anyhow::Result<()> {
        let reference = output::<PageRankReference>(&*reference.output);
        let got = output::<PageRank>(&*run.output);
        pagerank::verify_within_bound(got, &reference.exact, &self.params)
            .context("differs from the power-iteration reference by more than the bound")?;
        // The baseline must satisfy the same contract (a check of the reference step).
        pagerank::verify_within_bound(&reference.baseline.result, &reference.exact, &self.params)
            .context("the sequential baseline is outside the bound")?;
        Ok(())
    }

    fn verified_metrics(&self, run: &AppRun, reference: &RefRun) -> BTreeMap<String, Value> {
        let reference = output::<PageRankReference>(&*reference.output);
        let got = output::<PageRank>(&*run.output);
        BTreeMap::from([
            ("l1_vs_reference".to_string(), json!(pagerank::l1_distance(&got.ranks, &reference.exact.ranks))),
            ("reference_iterations".to_string(), json!(reference.exact.iterations)),
        ])
    }

    fn baseline_without_reference(&self, _run: &AppRun) -> Option<u64> {
        None
    }

    fn write_out(&self, run: &AppRun, path: &Path) -> anyhow::Result<()> {
        let ranks = &output::<PageRank>(&*run.output).ranks;
        let err = || format!("cannot write {}", path.display());
        let mut w = BufWriter::with_capacity(1 << 20, File::create(path).with_context(err)?);
        for (v, x) in ranks.iter().enumerate() {
            writeln!(w, "{v} {x}").with_context(err)?;
        }
        w.flush().with_context(err)
    }
}
