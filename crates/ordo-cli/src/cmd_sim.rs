//! `ordo sim <app>`: run a scheduler with N virtual threads on one OS
//! thread, deterministically (`ordo-sim`), and report its scheduling
//! quality — work increase, rank error, invisible work, communication — for
//! each virtual-thread count, as text or as one JSON object per count in the
//! record format of `ordo bench` (so that `ordo plot` draws it).
//!
//! The application layer (`ordo_algos::app`) prepares the application
//! (source, default target), runs its sequential reference, verifies every
//! simulated result against it (a difference is an error) and writes
//! `--out` (the result of the last count) exactly as for `ordo run`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use ordo_algos::app::{Fields, Params, Prepared, RunEnv};
use ordo_algos::astar::app::Astar;
use ordo_algos::bfs::app::Bfs;
use ordo_algos::sssp::app::Sssp;
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::Graph;
use ordo_sched::topology::Topology;
use ordo_sched::SchedulerSpec;
use ordo_sim::{
    Costs, Idle, Measured, MeasuredTask, Policy, SimConfig, SimError, SimMeasures, SimTime, Simulated,
};
use serde_json::{json, Map, Value};

use crate::bench::record;
use crate::console;

/// The input when neither `--graph` nor `--gen` is given: a road-like graph
/// of 100,000 vertices (a tenth of `ordo run`'s default, since a simulated
/// run executes every virtual thread on one core).
pub(crate) const DEFAULT_GEN: &str = "road:n=100000,seed=1";

/// Cycles of a remote access (a cache line fetched from another core) when
/// `--costs measured` does not say: a one-thread run cannot measure it.
const DEFAULT_REMOTE_CYCLES: u32 = 200;
/// Cycles of a look for work that finds nothing, likewise.
const DEFAULT_EMPTY_POP_CYCLES: u32 = 50;

/// The most virtual threads accepted.
const MAX_VTHREADS: usize = 1 << 16;

/// Arguments of `ordo sim`.
#[derive(clap::Args)]
pub(crate) struct SimArgs {
    /// The application: sssp, bfs or astar.
    app: String,

    #[command(flatten)]
    input: crate::input::InputArgs,

    /// The scheduler, with optional parameters, e.g. `smq`, `obim:delta=4`.
    #[arg(long, default_value = "pmod")]
    sched: String,

    /// Virtual-thread counts, comma-separated; one simulated run each.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16,64")]
    vthreads: Vec<usize>,

    /// Which virtual thread performs each step: round-robin, random, or
    /// skewed[:gamma=G] (thread i scheduled with a fixed probability
    /// falling linearly with i, within the SMQ paper's unfairness bound
    /// gamma, default 0.5).
    #[arg(long, default_value = "round-robin")]
    policy: String,

    /// Seed of the interleaving (the scheduler's own random choices follow
    /// its spec's `seed`).
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// What idle virtual threads do: `backoff` (spin, yield, then park as
    /// the executor does; a turn counts as about a microsecond) or `spin`
    /// (pop at every turn).
    #[arg(long, default_value = "backoff", value_parser = ["backoff", "spin"])]
    idle: String,

    /// Stop a run once its work increase exceeds this (it is then reported
    /// as failed, with `error`, and the other counts still run; the exit
    /// status is non-zero). Keeps sweeps bounded where a scheduler degenerates.
    #[arg(long, value_name = "X")]
    max_work_increase: Option<f64>,

    /// Source vertex (0-based).
    #[arg(long, default_value_t = 0)]
    source: u64,

    /// The SSSP / A* operator modelled: `paper` (PMOD Fig. 1b, the only
    /// one the simulator has); recorded as the `operator` field.
    #[arg(long, default_value = "paper")]
    operator: String,

    /// Target vertex of A* (0-based); default: a far vertex chosen
    /// deterministically, as `ordo run` does.
    #[arg(long)]
    target: Option<u64>,

    /// Count simulated time in cycles, with these costs per operation:
    /// `measured` fits them on a real one-thread run of the scheduler on
    /// this input (the executor's cycle timing and task log), with a remote
    /// access (a cache line from another core) at 200 cycles and a look for
    /// work at 50 unless given; or every field as a list:
    /// task=,edge=,stale=,push=,pop=,empty_pop=,remote=,microsecond=
    /// (cycles). `measured,remote=300` overrides a field. The thread with
    /// the earliest clock acts next, in place of --policy.
    #[arg(long, value_name = "COSTS")]
    costs: Option<String>,

    /// Print one JSON object per virtual-thread count (one line each).
    #[arg(long)]
    json: bool,

    /// Write the result of the last virtual-thread count to FILE, in the
    /// format of `ordo run --out` (SSSP/BFS `vertex value` lines, A* the
    /// path and `length <distance>`).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

pub(crate) fn run(args: SimArgs, threads: usize) -> anyhow::Result<()> {
    match args.app.as_str() {
        "sssp" => run_app::<Sssp>(&args, threads),
        "bfs" => run_app::<Bfs>(&args, threads),
        "astar" => run_app::<Astar>(&args, threads),
        other => {
            ordo_algos::app::find(other)?;
            anyhow::bail!("ordo sim runs sssp, bfs and astar, not {other}")
        }
    }
}

/// Everything `ordo sim` does, for one application.
fn run_app<A: Simulated>(args: &SimArgs, threads: usize) -> anyhow::Result<()> {
    // Check the cheap arguments before loading a possibly large graph.
    let spec: SchedulerSpec = args.sched.parse().map_err(|e| anyhow::anyhow!("--sched: {e}"))?;
    let policy: Policy = args.policy.parse()?;
    anyhow::ensure!(!args.vthreads.is_empty(), "--vthreads: give at least one count");
    if let Some(&bad) = args.vthreads.iter().find(|&&v| v == 0 || v > MAX_VTHREADS) {
        anyhow::bail!("--vthreads {bad}: expected 1 to {MAX_VTHREADS}");
    }
    if let Some(x) = args.max_work_increase {
        anyhow::ensure!(
            x.is_finite() && x >= 1.0,
            "--max-work-increase {x}: expected a number of at least 1"
        );
    }
    // `measured[,overrides]`, or every cost given (checked now).
    let costs_text = args.costs.as_deref().map(str::trim);
    anyhow::ensure!(
        costs_text.is_none() || policy == Policy::RoundRobin,
        "--policy {policy} does not apply with --costs: timed threads act in the order of their clocks"
    );
    let measured_overrides = costs_text
        .and_then(|t| t.strip_prefix("measured"))
        .filter(|rest| rest.is_empty() || rest.starts_with(','))
        .map(|rest| rest.trim_start_matches(','));
    if let Some(overrides) = measured_overrides {
        // Names and numbers now; the fitted costs they override come later.
        let ones = "task=1,edge=1,stale=1,push=1,pop=1,empty_pop=1,remote=1,microsecond=1";
        ones.parse::<Costs>()?.with_overrides(overrides).map_err(|e| anyhow::anyhow!("--{e}"))?;
    }
    let given_costs = match costs_text {
        Some(text) if measured_overrides.is_none() => {
            Some(text.parse::<Costs>().map_err(|e| anyhow::anyhow!("--{e}"))?)
        }
        _ => None,
    };
    let mut params = Params::new().with("source", args.source.to_string());
    if A::PARAMS.iter().any(|p| p.name == "operator") {
        let operator: ordo_algos::sssp::OperatorVariant =
            args.operator.parse().map_err(|e| anyhow::anyhow!("--operator: {e}"))?;
        anyhow::ensure!(
            operator == ordo_algos::sssp::OperatorVariant::Paper,
            "--operator {operator}: ordo sim models the papers' operator only (PMOD Fig. 1b, \
             `--operator paper`); ordo's chain following and plain stores have no simulated form"
        );
        params.set("operator", operator.name());
    }
    if let Some(t) = args.target {
        params.set("target", t.to_string());
    }
    let mut input = args.input.clone();
    if input.graph.is_none() && input.gen.is_none() {
        input.gen = Some(DEFAULT_GEN.to_string());
    }
    let graph = Arc::new(crate::input::load_input(&input, threads)?);
    anyhow::ensure!(
        !graph.has_real_weights(),
        "ordo sim does not take real edge weights (replace them, e.g. --weights uniform:1..100)"
    );
    let graph_name = input.describe();
    let input_params = params.clone();
    let prepared = Prepared::<A>::new(Arc::clone(&graph), params)?;
    let reference = prepared.reference()?;
    let baseline = reference.baseline_tasks.unwrap_or(0);
    let idle = if args.idle == "spin" { Idle::Spin } else { Idle::Backoff };
    let costs = match measured_overrides {
        None => given_costs,
        Some(overrides) => Some(
            measured_costs(&prepared, &graph, &input_params, &spec)?
                .with_overrides(overrides)
                .map_err(|e| anyhow::anyhow!("--{e}"))?,
        ),
    };
    let max_tasks = args.max_work_increase.map(|x| (x * baseline.max(1) as f64).ceil() as u64);
    let machine = serde_json::to_value(record::Machine::detect())?;
    let line = Line {
        args,
        graph_name: &graph_name,
        graph: &graph,
        spec: &spec,
        policy,
        app_params: prepared.app().params(),
    };
    if !args.json {
        console::out!("{}", line.text_header(baseline, costs.as_ref()))?;
    }
    let mut last = None;
    let mut over_budget = Vec::new();
    for &vthreads in &args.vthreads {
        let cfg = SimConfig {
            vthreads,
            policy,
            seed: args.seed,
            idle,
            max_tasks,
            costs,
            ..SimConfig::new(vthreads)
        };
        let what = || format!("{} on {spec} with {vthreads} virtual threads", args.app);
        let start = Instant::now();
        let run = match prepared.app().simulate(&graph, &spec, &cfg) {
            Err(e @ SimError::Budget { .. }) => {
                let msg =
                    format!("{e}: work increase over {}", args.max_work_increase.unwrap_or(f64::INFINITY));
                if args.json {
                    console::outln!("{}", Value::Object(line.failure(&cfg, &msg, &machine)))?;
                } else {
                    console::outln!("{vthreads:>8} {msg}")?;
                }
                over_budget.push(format!("{vthreads} virtual threads"));
                continue;
            }
            other => other.with_context(what)?,
        };
        let sim_time_s = start.elapsed().as_secs_f64();
        prepared.app().verify(&run.result, &reference.output).with_context(what)?;
        if args.json {
            let checks = A::checksums(&run.result);
            let obj = line.record(&cfg, baseline, &run.measures, checks, sim_time_s, &machine);
            console::outln!("{}", Value::Object(obj))?;
        } else {
            console::outln!("{}", text_row(vthreads, baseline, &run.measures, sim_time_s))?;
            if let Some(time) = &run.measures.time {
                console::outln!("{}", time_row(time, vthreads))?;
            }
        }
        last = Some(run.result);
    }
    if let (Some(path), Some(output)) = (&args.out, &last) {
        crate::output::write_file(path, |w| prepared.app().write_out(output, w))?;
    }
    anyhow::ensure!(
        over_budget.is_empty(),
        "{spec}: over the work budget with {} (--max-work-increase)",
        over_budget.join(", ")
    );
    Ok(())
}

/// What every line of one invocation shares.
struct Line<'a> {
    args: &'a SimArgs,
    graph_name: &'a str,
    graph: &'a Graph,
    spec: &'a SchedulerSpec,
    policy: Policy,
    /// The application's parameters as it resolved them (`source`, `target`, ...).
    app_params: Fields,
}

impl Line<'_> {
    /// The fields every record has: what ran and where.
    fn common(&self, cfg: &SimConfig, machine: &Value) -> Map<String, Value> {
        let mut obj = Map::new();
        let mut put = |k: &str, v: Value| {
            obj.insert(k.to_string(), v);
        };
        put("kind", json!("sim"));
        put("experiment", json!("sim"));
        put("app", json!(self.args.app));
        put("input", json!(self.graph_name));
        put("graph", json!(self.graph_name));
        put("n", json!(self.graph.num_vertices()));
        put("m", json!(self.graph.num_edges()));
        put("scheduler", json!(self.spec.to_string()));
        put("spec", json!(self.args.sched.trim()));
        put("sweep", json!({}));
        put("rep", json!(0));
        put("threads", json!(cfg.vthreads));
        put("vthreads", json!(cfg.vthreads));
        // Timed runs follow the clocks, not the policy.
        let policy = if cfg.costs.is_some() { "timed".to_string() } else { self.policy.to_string() };
        put("policy", json!(policy));
        put("seed", json!(cfg.seed));
        put("idle", json!(self.args.idle));
        put("sockets", json!(Topology::detect(cfg.vthreads).ok().map(|t| t.num_sockets())));
        put("peak_rss_bytes", json!(record::peak_rss_bytes()));
        put("machine", machine.clone());
        put("git_rev", json!(record::GIT_REV));
        put("ordo_version", json!(env!("CARGO_PKG_VERSION")));
        put("timestamp", json!(record::timestamp_now()));
        obj.extend(self.app_params.clone());
        obj
    }

    /// The text report's header: what is simulated.
    fn text_header(&self, baseline: u64, costs: Option<&Costs>) -> String {
        let params: Vec<String> = self.app_params.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let interleaving = match costs {
            Some(c) => format!("timed, cycles per operation {c}"),
            None => format!("policy {}", self.policy),
        };
        format!(
            "ordo sim {}: {} (n {}, m {}), {}\nscheduler {}, {interleaving}, seed {}; exact-order baseline {baseline} \
             tasks; every result verified\n\
             {:>8} {:>10} {:>8} {:>10} {:>6} {:>6} {:>7} {:>8} {:>10} {:>9} {:>10} {:>8}\n",
            self.args.app,
            self.graph_name,
            self.graph.num_vertices(),
            self.graph.num_edges(),
            params.join(", "),
            self.spec,
            self.args.seed,
            "vthreads",
            "tasks",
            "work_inc",
            "rank_mean",
            "p50",
            "p90",
            "p99",
            "rank_max",
            "invis_max",
            "unpub_frac",
            "touches/t",
            "time_s",
        )
    }

    /// The record of a run stopped over the work budget.
    fn failure(&self, cfg: &SimConfig, error: &str, machine: &Value) -> Map<String, Value> {
        let mut obj = self.common(cfg, machine);
        obj.insert("verified".into(), json!(false));
        obj.insert("error".into(), json!(error));
        obj
    }

    /// The JSON record of one run: the `ordo bench` fields that apply
    /// (`experiment` is `sim`, `threads` the virtual-thread count) and the
    /// simulator's measures.
    fn record(
        &self,
        cfg: &SimConfig,
        base: u64,
        m: &SimMeasures,
        checks: Fields,
        sim_time_s: f64,
        machine: &Value,
    ) -> Map<String, Value> {
        let per_task = |x: u64| if m.tasks == 0 { 0.0 } else { x as f64 / m.tasks as f64 };
        let counters: BTreeMap<&str, u64> = m.sched_counters.iter().copied().collect();
        let report_counters: BTreeMap<&str, u64> = m.sched_report.counters.iter().copied().collect();
        let mut traces = Map::new();
        let trace = |label: &str, pick: fn(&(u64, u64, u64, u64)) -> u64| {
            let points: Vec<(u64, u64)> = m.invisible.trace.iter().map(|p| (p.0, pick(p))).collect();
            json!({"x_label": label, "points": points})
        };
        traces.insert("invisible".into(), trace("tasks executed", |p| p.1));
        traces.insert("unpublished".into(), trace("tasks executed", |p| p.2));
        traces.insert("pending".into(), trace("tasks executed", |p| p.3));
        for t in &m.sched_report.traces {
            traces.insert(t.name.into(), json!({"x_label": t.x_label, "points": t.points}));
        }
        let histogram: Vec<(u64, u64, u64)> =
            m.rank.histogram.iter().map(|b| (b.lo, b.hi, b.count)).collect();
        let mut obj = self.common(cfg, machine);
        let mut put = |k: &str, v: Value| {
            obj.insert(k.to_string(), v);
        };
        put("steps", json!(m.steps));
        put("turns", json!(m.turns));
        put("tasks", json!(m.tasks));
        put("stale_tasks", json!(m.stale_tasks));
        put("pushes", json!(m.pushes));
        put("pops", json!(m.tasks));
        put("empty_pops", json!(m.empty_pops));
        put("flushes", json!(m.flushes));
        put("baseline_tasks", json!(base));
        put("work_increase", json!(ordo_algos::work_increase(m.tasks, base)));
        put("tasks_per_thread", json!(m.tasks_per_thread));
        put("rank_mean", json!(m.rank.mean));
        put("rank_p50", json!(m.rank.p50));
        put("rank_p90", json!(m.rank.p90));
        put("rank_p99", json!(m.rank.p99));
        put("rank_max", json!(m.rank.max));
        put("rank_exact_fraction", json!(m.rank.exact_fraction));
        put("rank_histogram", json!(histogram));
        put("invisible_max", json!(m.invisible.max));
        put("invisible_mean", json!(m.invisible.mean));
        put("invisible_fraction_mean", json!(m.invisible.fraction_mean));
        put("unpublished_max", json!(m.invisible.unpublished_max));
        put("unpublished_mean", json!(m.invisible.unpublished_mean));
        put("unpublished_fraction_mean", json!(m.invisible.unpublished_fraction_mean));
        put("shared_touches", json!(m.comm.shared_touches));
        put("shared_touches_per_task", json!(per_task(m.comm.shared_touches)));
        put("shared_accesses", json!(m.comm.accesses));
        put("remote_accesses", json!(m.comm.remote_accesses));
        put("shared_structures", json!(m.comm.structures));
        put("sched_counters", json!(counters));
        put("sched_report_counters", json!(report_counters));
        put("traces", Value::Object(traces));
        put("verified", json!(true));
        put("sim_time_s", json!(sim_time_s));
        if let Some(time) = &m.time {
            put("costs", json!(time.costs.to_string()));
            put("simulated_cycles", json!(time.cycles));
            put("simulated_us", json!(time.cycles as f64 / f64::from(time.costs.microsecond)));
            put("idle_cycles", json!(time.idle_cycles));
            put("idle_fraction", json!(idle_fraction(time, cfg.vthreads)));
            put("remote_data_accesses", json!(time.remote_data_accesses));
        }
        obj.extend(checks);
        obj
    }
}

/// The share of the threads' time spent idle.
fn idle_fraction(time: &SimTime, vthreads: usize) -> f64 {
    let all = time.cycles as f64 * vthreads as f64;
    if all == 0.0 {
        0.0
    } else {
        time.idle_cycles as f64 / all
    }
}

/// The simulated time of a timed run, under its row.
fn time_row(time: &SimTime, vthreads: usize) -> String {
    format!(
        "{:>8} simulated {} cycles ({:.1} us), idle {:.1} %, {} remote data accesses",
        "",
        time.cycles,
        time.cycles as f64 / f64::from(time.costs.microsecond),
        100.0 * idle_fraction(time, vthreads),
        time.remote_data_accesses
    )
}

/// `--costs measured`: the costs fitted on real one-thread runs of `spec`
/// ([`measure`], [`Costs::fit`]), their operations scaled so that one
/// simulated thread takes the real run's time (timing every operation
/// inflates them, and the simulated operator does not follow chains inline).
fn measured_costs<A: Simulated>(
    prepared: &Prepared<A>,
    graph: &Arc<Graph>,
    params: &Params,
    spec: &SchedulerSpec,
) -> anyhow::Result<Costs> {
    let (measured, real_cycles) =
        measure::<A>(graph, params, spec).context("--costs measured: the one-thread runs to measure")?;
    let fitted = Costs::fit(&measured, DEFAULT_REMOTE_CYCLES, DEFAULT_EMPTY_POP_CYCLES)?;
    let alone = SimConfig { costs: Some(fitted), ..SimConfig::new(1) };
    let simulated = prepared.app().simulate(graph, spec, &alone)?.measures.time.map_or(0, |t| t.cycles);
    let factor = real_cycles as f64 / simulated.max(1) as f64;
    console::note!(
        "--costs measured: {:.2} ms on one real thread, {:.2} ms simulated with the cycles timed per operation: \
         operations scaled by {factor:.3}",
        real_cycles as f64 / f64::from(fitted.microsecond) / 1e3,
        simulated as f64 / f64::from(fitted.microsecond) / 1e3,
    );
    Ok(fitted.scale_operations(factor))
}

/// Measures the scheduler `spec` on real one-thread runs of the
/// application on `graph`, for [`Costs::fit`]: one timed and logged (each
/// task's cycles; logged, the operator pushes every vertex it lowers, as the
/// simulated one does), one timed (the cycles per operation), then at least
/// five neither; returns the fit's input and the fastest of the last in
/// cycles (the real time the costs' level is set by).
fn measure<A: Simulated>(
    graph: &Arc<Graph>,
    params: &Params,
    spec: &SchedulerSpec,
) -> anyhow::Result<(Measured, u64)> {
    let prepared = Prepared::<A>::new(Arc::clone(graph), params.clone())?;
    let strategy = Prepared::<A>::strategy(Some(&spec.to_string()))?;
    let pool = Pool::new(1).context("cannot start the worker thread")?;
    let run = |exec: ExecOptions| {
        let run = prepared.run(&RunEnv { pool: &pool, exec: &exec }, &strategy)?;
        run.stats.context("the run has no executor statistics")
    };
    let logged = run(ExecOptions { cycle_timing: true, log_tasks: true, ..ExecOptions::default() })?;
    let tasks = logged
        .task_notes
        .iter()
        .flatten()
        .map(|n| MeasuredTask {
            vertex: n.key,
            value: n.value,
            degree: graph.degree(n.key),
            cycles: n.cycles,
        })
        .collect();
    drop(logged);
    let timed = run(ExecOptions { cycle_timing: true, ..ExecOptions::default() })?;
    let cycles = timed.total.cycles.unwrap_or_default();
    let per_us = cycles.total() as f64 / (timed.time_s * 1e6).max(1e-9);
    // Short runs are noisy: at least 5, and at least three tenths of a second of them.
    let (mut fastest, mut spent, mut runs) = (f64::INFINITY, 0.0, 0);
    while runs < 5 || (spent < 0.3 && runs < 100) {
        let time_s = run(ExecOptions::default())?.time_s;
        (fastest, spent, runs) = (fastest.min(time_s), spent + time_s, runs + 1);
    }
    let measured = Measured {
        tasks,
        stale_tasks: timed.total.stale_tasks,
        push_cycles: cycles.enq,
        pushes: cycles.enq_ops,
        pop_cycles: cycles.deq,
        pops: cycles.deq_ops,
        task_cycles: cycles.task,
        cycles_per_microsecond: per_us.round().clamp(1.0, f64::from(u32::MAX)) as u32,
    };
    Ok((measured, (fastest * 1e6 * per_us) as u64))
}

/// One text row.
fn text_row(vthreads: usize, base: u64, m: &SimMeasures, sim_time_s: f64) -> String {
    let touches = if m.tasks == 0 { 0.0 } else { m.comm.shared_touches as f64 / m.tasks as f64 };
    format!(
        "{vthreads:>8} {:>10} {:>8.4} {:>10.2} {:>6} {:>6} {:>7} {:>8} {:>10} {:>9.3} {:>10.3} {:>8.2}",
        m.tasks,
        ordo_algos::work_increase(m.tasks, base),
        m.rank.mean,
        m.rank.p50,
        m.rank.p90,
        m.rank.p99,
        m.rank.max,
        m.invisible.max,
        m.invisible.unpublished_fraction_mean,
        touches,
        sim_time_s
    )
}
