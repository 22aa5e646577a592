//! `ordo sim <app>`: run a scheduler with N virtual threads on one OS
//! thread, deterministically (`ordo-sim`), and report its scheduling
//! quality — work increase, rank error, invisible work, communication — for
//! each virtual-thread count, as text or as one JSON object per count in the
//! record format of `ordo bench` (so that `ordo plot` draws it).
//!
//! Every run's result is verified against the sequential reference (a
//! difference is an error); `--out` writes the result of the last count as
//! `ordo run --out` does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use ordo_algos::astar::{self, AstarResult, Heuristic, TargetReference};
use ordo_algos::reference::Reference;
use ordo_algos::verify::{self, EdgeCost, Label};
use ordo_graph::Graph;
use ordo_sched::topology::Topology;
use ordo_sched::SchedulerSpec;
use ordo_sim::{Idle, Policy, SimConfig, SimError, SimMeasures};
use serde_json::{json, Map, Value};

use crate::apps::{vertex_arg, App};
use crate::bench::record;

/// The input when neither `--graph` nor `--gen` is given: a road-like graph
/// of 100,000 vertices (a tenth of `ordo run`'s default, since a simulated
/// run executes every virtual thread on one core).
pub(crate) const DEFAULT_GEN: &str = "road:n=100000,seed=1";

/// The most virtual threads accepted.
const MAX_VTHREADS: usize = 1 << 16;

/// Arguments of `ordo sim`.
#[derive(clap::Args)]
pub(crate) struct SimArgs {
    /// The algorithm (sssp, bfs or astar).
    #[arg(value_enum)]
    app: App,

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

    /// Target vertex of A* (0-based); default: a far vertex chosen
    /// deterministically, as `ordo run` does.
    #[arg(long)]
    target: Option<u64>,

    /// Print one JSON object per virtual-thread count (one line each).
    #[arg(long)]
    json: bool,

    /// Write the result of the last virtual-thread count to FILE, in the
    /// format of `ordo run --out` (SSSP/BFS `vertex value` lines, A* the
    /// path and `length <distance>`).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// The sequential reference of the application on this input.
enum Prepared {
    Sssp(Reference<u64>),
    Bfs(Reference<u32>),
    Astar { target: u32, heuristic: Heuristic, reference: TargetReference },
}

/// The result of one simulated run.
enum Outcome {
    Values64(Vec<u64>),
    Values32(Vec<u32>),
    Path(AstarResult),
}

pub(crate) fn run(args: SimArgs, threads: usize) -> anyhow::Result<()> {
    // Check the cheap arguments before loading a possibly large graph.
    anyhow::ensure!(
        matches!(args.app, App::Sssp | App::Bfs | App::Astar),
        "ordo sim runs sssp, bfs and astar, not {}",
        args.app.name()
    );
    let spec: SchedulerSpec = args.sched.parse().map_err(|e| anyhow::anyhow!("--sched: {e}"))?;
    let policy: Policy = args.policy.parse()?;
    anyhow::ensure!(!args.vthreads.is_empty(), "--vthreads: give at least one count");
    if let Some(&bad) = args.vthreads.iter().find(|&&v| v == 0 || v > MAX_VTHREADS) {
        anyhow::bail!("--vthreads {bad}: expected 1 to {MAX_VTHREADS}");
    }
    let mut input = args.input.clone();
    if input.graph.is_none() && input.gen.is_none() {
        input.gen = Some(DEFAULT_GEN.to_string());
    }
    let graph = crate::input::load_input(&input, threads)?;
    let graph_name = input.describe();
    let source = vertex_arg("--source", args.source, &graph)?;
    let prepared = match args.app {
        App::Bfs => Prepared::Bfs(ordo_algos::bfs_levels(&graph, source)?),
        App::Astar => {
            let target = match args.target {
                Some(t) => vertex_arg("--target", t, &graph)?,
                None => astar::far_target(&graph, source)?,
            };
            let reference = astar::dijkstra_to_target(&graph, source, target)?;
            Prepared::Astar { target, heuristic: Heuristic::for_graph(&graph), reference }
        }
        _ => Prepared::Sssp(ordo_algos::dijkstra(&graph, source)?),
    };
    if let Some(x) = args.max_work_increase {
        anyhow::ensure!(
            x.is_finite() && x >= 1.0,
            "--max-work-increase {x}: expected a number of at least 1"
        );
    }
    let idle = if args.idle == "spin" { Idle::Spin } else { Idle::Backoff };
    let max_tasks = args.max_work_increase.map(|x| (x * baseline(&prepared).max(1) as f64).ceil() as u64);
    let machine = serde_json::to_value(record::Machine::detect())?;
    let mut last = None;
    let mut over_budget = Vec::new();
    if !args.json {
        print!("{}", text_header(&args, &graph_name, &graph, &spec, policy, &prepared));
    }
    for &vthreads in &args.vthreads {
        let cfg =
            SimConfig { vthreads, policy, seed: args.seed, idle, max_tasks, ..SimConfig::new(vthreads) };
        let start = Instant::now();
        let line = Line { args: &args, graph_name: &graph_name, graph: &graph, spec: &spec, policy };
        let (outcome, measures, checks) = match simulate(&graph, source, &spec, &cfg, &prepared) {
            Err(e) if matches!(e.downcast_ref::<SimError>(), Some(SimError::Budget { .. })) => {
                let msg =
                    format!("{e}: work increase over {}", args.max_work_increase.unwrap_or(f64::INFINITY));
                if args.json {
                    println!("{}", Value::Object(line.failure(&cfg, &msg, &machine)));
                } else {
                    println!("{vthreads:>8} {msg}");
                }
                over_budget.push(format!("{vthreads} virtual threads"));
                continue;
            }
            other => other
                .with_context(|| format!("{} on {spec} with {vthreads} virtual threads", args.app.name()))?,
        };
        let sim_time_s = start.elapsed().as_secs_f64();
        if args.json {
            let obj = line.record(&cfg, &prepared, &measures, checks, sim_time_s, &machine);
            println!("{}", Value::Object(obj));
        } else {
            println!("{}", text_row(vthreads, baseline(&prepared), &measures, sim_time_s));
        }
        last = Some(outcome);
    }
    if let (Some(path), Some(outcome)) = (&args.out, &last) {
        match outcome {
            Outcome::Values64(v) => crate::apps::paths::write_values(path, v)?,
            Outcome::Values32(v) => crate::apps::paths::write_values(path, v)?,
            Outcome::Path(r) => crate::apps::astar::write_path(path, r)?,
        }
    }
    anyhow::ensure!(
        over_budget.is_empty(),
        "{spec}: over the work budget with {} (--max-work-increase)",
        over_budget.join(", ")
    );
    Ok(())
}

/// One simulated run of the prepared application, verified against its
/// reference: the result, the measures and the result's checksums.
fn simulate(
    graph: &Graph,
    source: u32,
    spec: &SchedulerSpec,
    cfg: &SimConfig,
    prepared: &Prepared,
) -> anyhow::Result<(Outcome, SimMeasures, Map<String, Value>)> {
    Ok(match prepared {
        Prepared::Sssp(r) => {
            let run = ordo_sim::sssp(graph, source, spec, cfg)?;
            let checks = check_values(graph, source, &r.values, &run.result, EdgeCost::Weights)?;
            (Outcome::Values64(run.result), run.measures, checks)
        }
        Prepared::Bfs(r) => {
            let run = ordo_sim::bfs(graph, source, spec, cfg)?;
            let checks = check_values(graph, source, &r.values, &run.result, EdgeCost::Unit)?;
            (Outcome::Values32(run.result), run.measures, checks)
        }
        Prepared::Astar { target, heuristic, reference } => {
            let run = ordo_sim::astar(graph, source, *target, heuristic, spec, cfg)?;
            let got = &run.result;
            let text = |d: Option<u64>| d.map_or("unreachable".to_string(), |d| d.to_string());
            anyhow::ensure!(
                got.distance == reference.distance,
                "distance from {source} to {target}: expected {} (Dijkstra), got {}",
                text(reference.distance),
                text(got.distance)
            );
            match got.distance {
                Some(d) => astar::check_path(graph, source, *target, &got.path, d)?,
                None => anyhow::ensure!(got.path.is_empty(), "a path to an unreachable target"),
            }
            let checks = Map::from_iter([
                ("target".to_string(), json!(target)),
                ("distance".to_string(), got.distance.map_or(json!("unreachable"), |d| json!(d))),
                ("path_edges".to_string(), json!(got.path.len().saturating_sub(1))),
            ]);
            (Outcome::Path(run.result), run.measures, checks)
        }
    })
}

/// The exact-order baseline: the denominator of the work increase.
fn baseline(prepared: &Prepared) -> u64 {
    match prepared {
        Prepared::Sssp(r) => r.settled,
        Prepared::Bfs(r) => r.settled,
        Prepared::Astar { reference, .. } => reference.settled,
    }
}

/// Checks distances or levels against the reference (exactly, then the
/// fixpoint check); returns the checksums `reached`, `max_dist`, `sum_dist`.
fn check_values<L: Label>(
    graph: &Graph,
    source: u32,
    want: &[L],
    got: &[L],
    cost: EdgeCost,
) -> anyhow::Result<Map<String, Value>> {
    verify::compare_exact(want, got).context("differs from the sequential reference")?;
    verify::check_fixpoint(graph, source, got, cost).context("fails the fixpoint check")?;
    let s = verify::summarize(got);
    let sum = u64::try_from(s.sum).map_or_else(|_| json!(s.sum.to_string()), |v| json!(v));
    Ok(Map::from_iter([
        ("reached".to_string(), json!(s.reached)),
        ("max_dist".to_string(), json!(s.max)),
        ("sum_dist".to_string(), sum),
    ]))
}

/// What every line of one invocation shares.
struct Line<'a> {
    args: &'a SimArgs,
    graph_name: &'a str,
    graph: &'a Graph,
    spec: &'a SchedulerSpec,
    policy: Policy,
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
        put("app", json!(self.args.app.name()));
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
        put("policy", json!(self.policy.to_string()));
        put("seed", json!(cfg.seed));
        put("idle", json!(self.args.idle));
        put("sockets", json!(Topology::detect(cfg.vthreads).ok().map(|t| t.num_sockets())));
        put("source", json!(self.args.source));
        put("peak_rss_bytes", json!(record::peak_rss_bytes()));
        put("machine", machine.clone());
        put("git_rev", json!(record::GIT_REV));
        put("ordo_version", json!(env!("CARGO_PKG_VERSION")));
        put("timestamp", json!(record::timestamp_now()));
        obj
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
        prepared: &Prepared,
        m: &SimMeasures,
        checks: Map<String, Value>,
        sim_time_s: f64,
        machine: &Value,
    ) -> Map<String, Value> {
        let base = baseline(prepared);
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
        obj.extend(checks);
        obj
    }
}

/// The text report's header: what is simulated.
fn text_header(
    args: &SimArgs,
    graph_name: &str,
    graph: &Graph,
    spec: &SchedulerSpec,
    policy: Policy,
    prepared: &Prepared,
) -> String {
    let target = match prepared {
        Prepared::Astar { target, .. } => format!(", target {target}"),
        _ => String::new(),
    };
    format!(
        "ordo sim {}: {graph_name} (n {}, m {}), source {}{target}\nscheduler {spec}, policy {policy}, seed {}; \
         exact-order baseline {} tasks; every result verified\n\
         {:>8} {:>10} {:>8} {:>10} {:>6} {:>6} {:>7} {:>8} {:>10} {:>9} {:>10} {:>8}\n",
        args.app.name(),
        graph.num_vertices(),
        graph.num_edges(),
        args.source,
        args.seed,
        baseline(prepared),
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
