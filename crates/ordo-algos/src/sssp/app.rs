//! SSSP as an application: parallel runs on any scheduler, Dijkstra as the
//! reference, exact verification plus the fixpoint check, `vertex value`
//! output, and the good / useless work split (`classify`).
//!
//! The pieces shared with BFS (same task structure, unit weights, `u32`
//! levels) are the generic functions of this module, used by
//! [`crate::bfs::app`].

use std::io::{self, Write};
use std::sync::Arc;

use ordo_exec::{ExecOptions, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::verify::{self, EdgeCost, Label};
use crate::app::params::{CLASSIFY, OPERATOR, SOURCE};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::sssp::reference::Reference;
use crate::sssp::OperatorVariant;
use crate::work_split;

/// Single-source shortest paths from one source (priority = distance).
pub struct Sssp {
    graph: Arc<Graph>,
    source: VertexId,
    classify: bool,
    /// The operator's form.
    operator: OperatorVariant,
}

/// The distances of an SSSP run: integers on unweighted and
/// integer-weighted graphs ([`crate::sssp::UNREACHED_DIST`] when
/// unreachable), reals on real-weighted ones (`f64::INFINITY` when
/// unreachable).
#[derive(Clone, Debug, PartialEq)]
pub enum Distances {
    /// Integer distances.
    Int(Vec<u64>),
    /// Real distances.
    Real(Vec<f64>),
}

/// What `--out` writes for SSSP and BFS.
pub(crate) const VALUES_OUT: &str = "`vertex value` per line (0-based ids, `inf` when unreachable)";
/// What `--out` writes for SSSP.
const SSSP_OUT: &str = "`vertex value` per line (0-based ids, `inf` when unreachable; on real weights the \
                        value is a real in Rust's shortest round-trip notation, e.g. `2.5`, `3.0`, `1e-7`)";

impl Algorithm for Sssp {
    const NAME: &'static str = "sssp";
    const ABOUT: &'static str = "Single-source shortest paths (unordered, priority = distance); verified \
                                 against Dijkstra, exactly, plus the fixpoint check.";
    const PARAMS: &'static [&'static ParamDef] = &[&SOURCE, &CLASSIFY, &OPERATOR];
    const CYCLES: bool = true;
    const OUT_FORMAT: &'static str = SSSP_OUT;
    const REAL_WEIGHTS: bool = true;
    type Strategy = SchedulerSpec;
    /// `auto`: the best scheduler on every input of `bench/papers.toml` at 2 threads
    /// (Table 5 runs of 2026-11-25 to 2026-11-27, `docs/results.md`).
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = Distances;
    type Reference = Distances;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let source = params.take_vertex(&SOURCE, &graph)?.unwrap_or(0);
        let classify = params.take_flag(&CLASSIFY)?;
        let operator = take_operator(params)?;
        if graph.num_vertices() == 0 {
            return Err(AppError::Param("the graph has no vertex to start from".into()));
        }
        Ok(Sssp { graph, source, classify, operator })
    }

    fn params(&self) -> Fields {
        Fields::from([
            ("source".to_string(), json!(self.source)),
            ("operator".to_string(), json!(self.operator.name())),
        ])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<Distances>, AppError> {
        if self.graph.has_real_weights() {
            if self.classify {
                return Err(AppError::Param("classify: not available on real weights".into()));
            }
            let (values, stats) = super::sssp_real(env.pool, spec, &self.graph, self.source, env.exec)?;
            return Ok(real_run(values, stats));
        }
        let opts = with_task_log(env.exec, self.classify);
        let (values, stats) =
            super::sssp_with_operator(env.pool, spec, &self.graph, self.source, &opts, self.operator)?;
        Ok(path_run(values, stats, self.classify, env.exec.log_tasks).map_output(Distances::Int))
    }

    fn reference(&self) -> Result<RefRun<Distances>, AppError> {
        if self.graph.has_real_weights() {
            let start = std::time::Instant::now();
            let values = super::dijkstra_real(&self.graph, self.source);
            let settled = values.iter().filter(|d| d.is_finite()).count() as u64;
            let time_s = start.elapsed().as_secs_f64();
            return Ok(RefRun { output: Distances::Real(values), time_s, baseline_tasks: Some(settled) });
        }
        Ok(reference_run(super::dijkstra(&self.graph, self.source)?).map_output(Distances::Int))
    }

    fn verify(&self, got: &Distances, want: &Distances) -> Result<(), AppError> {
        match (got, want) {
            (Distances::Int(got), Distances::Int(want)) => {
                verify_labels(&self.graph, self.source, EdgeCost::Weights, got, want)
            }
            (Distances::Real(got), Distances::Real(want)) => {
                super::real::verify_real(&self.graph, self.source, got, want)
                    .map_err(|e| AppError::Mismatch(format!("differs from the sequential reference: {e}")))
            }
            _ => Err(AppError::Mismatch("integer and real distances compared".into())),
        }
    }

    fn write_out(&self, values: &Distances, out: &mut dyn Write) -> io::Result<()> {
        match values {
            Distances::Int(values) => write_labels(values, out),
            Distances::Real(values) => write_real_labels(values, out),
        }
    }
}

/// The run of SSSP on real weights: checksums `reached`, `max_dist` and
/// `sum_dist` as reals, and the vertices reached as the exact-order baseline.
fn real_run(values: Vec<f64>, stats: RunStats) -> Run<Distances> {
    let finite = values.iter().filter(|d| d.is_finite());
    let reached = finite.clone().count() as u64;
    let max = finite.clone().fold(0.0f64, |m, &d| m.max(d));
    let sum: f64 = finite.sum();
    let metrics = Fields::from([
        ("reached".to_string(), json!(reached)),
        ("max_dist".to_string(), json!(max)),
        ("sum_dist".to_string(), json!(sum)),
    ]);
    let mut run = Run::executed(Distances::Real(values), stats, metrics);
    run.baseline_tasks = Some(reached);
    run
}

/// Writes `vertex value` lines of real distances (`inf` when unreachable,
/// as the integer path writes; otherwise Rust's shortest round-trip form).
fn write_real_labels(values: &[f64], out: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    for (v, &x) in values.iter().enumerate() {
        if x.is_infinite() {
            writeln!(w, "{v} inf")?;
        } else {
            writeln!(w, "{v} {x:?}")?;
        }
    }
    w.flush()
}

/// The `operator` parameter (default [`OperatorVariant::Fast`]).
pub(crate) fn take_operator(params: &mut Params) -> Result<OperatorVariant, AppError> {
    match params.take_text(&OPERATOR) {
        None => Ok(OperatorVariant::default()),
        Some(text) => text.parse().map_err(|e| AppError::Param(format!("operator: {e}"))),
    }
}

/// The executor options of a run: the caller's, with task notes when
/// classifying work (or when the caller asked for them).
pub(crate) fn with_task_log(opts: &ExecOptions, classify: bool) -> ExecOptions {
    ExecOptions { log_tasks: classify || opts.log_tasks, ..opts.clone() }
}

/// The run of a path application that produced `values`: checksums
/// (`reached`, `max_dist`, `sum_dist`), the exact-order baseline (the
/// vertices reached: Dijkstra and queue BFS settle each once), and with
/// `classify` the good / useless split (a task is good when it ran with its
/// vertex's final value, first such execution; see [`work_split`]). The task
/// notes are dropped once classified, so repeated runs do not keep them,
/// unless the caller's options asked for them (`keep_notes`).
pub(crate) fn path_run<L: Label>(
    values: Vec<L>,
    mut stats: RunStats,
    classify: bool,
    keep_notes: bool,
) -> Run<Vec<L>> {
    let split = if classify {
        work_split::classify_per_thread(&stats.task_notes, |v| values[v as usize].to_u64())
    } else {
        Vec::new()
    };
    if !keep_notes {
        stats.task_notes = Vec::new();
    }
    let s = verify::summarize(&values);
    let metrics = Fields::from([
        ("reached".to_string(), json!(s.reached)),
        ("max_dist".to_string(), json!(s.max)),
        // u128 does not fit a JSON number everywhere; u64 sums print as numbers.
        (
            "sum_dist".to_string(),
            u64::try_from(s.sum).map_or_else(|_| json!(s.sum.to_string()), |v| json!(v)),
        ),
    ]);
    let mut run = Run::executed(values, stats, metrics);
    run.baseline_tasks = Some(s.reached);
    run.work_split = split;
    run
}

/// The reference run of a path application.
pub(crate) fn reference_run<L>(r: Reference<L>) -> RefRun<Vec<L>> {
    RefRun { output: r.values, time_s: r.time_s, baseline_tasks: Some(r.settled) }
}

/// Exact comparison with the reference, then the fixpoint check.
pub(crate) fn verify_labels<L: Label>(
    graph: &Graph,
    source: VertexId,
    cost: EdgeCost,
    got: &[L],
    want: &[L],
) -> Result<(), AppError> {
    verify::compare_exact(want, got)
        .map_err(|e| AppError::Mismatch(format!("differs from the sequential reference: {e}")))?;
    verify::check_fixpoint(graph, source, got, cost)
        .map_err(|e| AppError::Mismatch(format!("fails the fixpoint check: {e}")))
}

/// Writes `vertex value` lines (0-based, `inf` when unreachable).
pub(crate) fn write_labels<L: Label>(values: &[L], out: &mut dyn Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    for (v, &x) in values.iter().enumerate() {
        if x == L::UNREACHED {
            writeln!(w, "{v} inf")?;
        } else {
            writeln!(w, "{v} {}", x.to_u64())?;
        }
    }
    w.flush()
}
