//! `ordo run <sssp|bfs>`: run a graph algorithm on a scheduler, optionally
//! verify it against the sequential reference, and report the measures of
//! design.md §4 (as text, or as one JSON object with `--json`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use ordo_algos::reference::{self, Reference};
use ordo_algos::verify::{self, EdgeCost, Label};
use ordo_exec::{ExecOptions, Pool, RunStats};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;

use crate::report::RunReport;

/// The input used when neither `--graph` nor `--gen` is given: a road-like
/// graph of one million vertices with a fixed seed.
pub(crate) const DEFAULT_GEN: &str = "road:n=1000000,seed=1";

/// The algorithms `ordo run` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum App {
    /// Single-source shortest paths (unordered, priority = distance).
    Sssp,
    /// Breadth-first search levels (priority = level).
    Bfs,
}

impl App {
    fn name(self) -> &'static str {
        match self {
            App::Sssp => "sssp",
            App::Bfs => "bfs",
        }
    }
}

/// Arguments of `ordo run`.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The algorithm.
    #[arg(value_enum)]
    app: App,

    #[command(flatten)]
    input: crate::input::InputArgs,

    /// The scheduler, with optional parameters, e.g. `pmod`,
    /// `obim:delta=14,chunk=64`, `strict`.
    #[arg(long, default_value = "pmod")]
    sched: String,

    /// Source vertex (0-based).
    #[arg(long, default_value_t = 0)]
    source: u64,

    /// Also run the sequential reference (Dijkstra or queue BFS), compare
    /// every value exactly, and report its time (`seq_time_s`) and `vs_seq`.
    /// A mismatch is an error.
    #[arg(long)]
    verify: bool,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,

    /// Write the per-vertex result to FILE: `vertex value` per line,
    /// 0-based ids, `inf` for unreachable vertices.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Split each thread's time into task / Enq / Deq / failed Deq / other
    /// (PMOD paper, Table 1); reported among the scheduler counters.
    #[arg(long)]
    cycles: bool,

    /// Run the algorithm (and, with `--verify`, the reference) this many
    /// times on the loaded graph and report the median time (`time_s`,
    /// `seq_time_s`) with every run's time (`times_s`, `seq_times_s`); the
    /// other measures come from the median run. Every run is verified.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

pub(crate) fn run(args: RunArgs, threads: usize) -> anyhow::Result<()> {
    // Check the cheap arguments before loading a possibly large graph.
    let spec: SchedulerSpec = args.sched.parse().map_err(|e| anyhow::anyhow!("--sched: {e}"))?;
    let mut input = args.input.clone();
    if input.graph.is_none() && input.gen.is_none() {
        input.gen = Some(DEFAULT_GEN.to_string());
    }
    let graph = crate::input::load_input(&input, threads)?;
    let graph_name = input.describe();
    let n = graph.num_vertices();
    let source = u32::try_from(args.source).ok().filter(|&s| (s as usize) < n).ok_or_else(|| {
        anyhow::anyhow!("--source {}: the graph has {n} vertices (ids 0..{n})", args.source)
    })?;
    let pool = Pool::new(threads).context("cannot start the worker threads")?;
    // Struct update kept on purpose: ExecOptions will grow (issue #5).
    #[allow(clippy::needless_update)]
    let opts = ExecOptions { cycle_timing: args.cycles, ..ExecOptions::default() };

    let repeat = args.repeat as usize;
    let report = match args.app {
        App::Sssp => {
            let runs = (0..repeat)
                .map(|_| ordo_algos::sssp(&pool, &spec, &graph, source, &opts))
                .collect::<Result<Vec<_>, _>>()?;
            drop(pool); // the reference runs alone, with no idle workers around
            let references = (0..if args.verify { repeat } else { 0 })
                .map(|_| reference::dijkstra(&graph, source))
                .collect::<Result<Vec<_>, _>>()?;
            finish(&args, &graph, &graph_name, source, &runs, &references, EdgeCost::Weights)?
        }
        App::Bfs => {
            let runs = (0..repeat)
                .map(|_| ordo_algos::bfs(&pool, &spec, &graph, source, &opts))
                .collect::<Result<Vec<_>, _>>()?;
            drop(pool); // the reference runs alone, with no idle workers around
            let references = (0..if args.verify { repeat } else { 0 })
                .map(|_| reference::bfs_levels(&graph, source))
                .collect::<Result<Vec<_>, _>>()?;
            finish(&args, &graph, &graph_name, source, &runs, &references, EdgeCost::Unit)?
        }
    };
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}

/// The index of the median of `times` (the lower one for an even count).
fn median_index(times: &[f64]) -> usize {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    order[(times.len() - 1) / 2]
}

/// Verifies every run (with `--verify`), writes `--out`, and assembles the
/// report from the median run.
fn finish<L: Label>(
    args: &RunArgs,
    graph: &Graph,
    graph_name: &str,
    source: u32,
    runs: &[(Vec<L>, RunStats)],
    references: &[Reference<L>],
    cost: EdgeCost,
) -> anyhow::Result<RunReport> {
    let app = args.app.name();
    if let Some(r) = references.first() {
        for (i, (values, _)) in runs.iter().enumerate() {
            let which =
                if runs.len() > 1 { format!(" (run {} of {})", i + 1, runs.len()) } else { String::new() };
            verify::compare_exact(&r.values, values)
                .with_context(|| format!("{app} result{which} differs from the sequential reference"))?;
            verify::check_fixpoint(graph, source, values, cost)
                .with_context(|| format!("{app} result{which} fails the fixpoint check"))?;
        }
    }
    let times_s: Vec<f64> = runs.iter().map(|(_, s)| s.time_s).collect();
    let (values, stats) = &runs[median_index(&times_s)];
    let seq_times_s: Vec<f64> = references.iter().map(|r| r.time_s).collect();
    let reference = (!references.is_empty()).then(|| &references[median_index(&seq_times_s)]);
    if let Some(path) = &args.out {
        write_values(path, values)?;
    }
    let summary = verify::summarize(values);
    // Dijkstra (or queue BFS) settles exactly the reachable vertices.
    let settled = reference.as_ref().map_or(summary.reached, |r| r.settled);
    let (sched_counters, traces) = RunReport::stats_fields(stats);
    let t = &stats.total;
    let mut counters = sched_counters;
    if let Some(c) = stats.total.cycles {
        for (k, v) in [
            ("cycles_task", c.task),
            ("cycles_enq", c.enq),
            ("cycles_deq", c.deq),
            ("cycles_failed_deq", c.failed_deq),
            ("cycles_other", c.other),
        ] {
            counters.insert(k.to_string(), v);
        }
    }
    Ok(RunReport {
        app: app.to_string(),
        graph: graph_name.to_string(),
        n: graph.num_vertices(),
        m: graph.num_edges(),
        scheduler: stats.scheduler.clone(),
        threads: stats.threads,
        source,
        time_s: stats.time_s,
        tasks: t.tasks,
        work_increase: ordo_algos::work_increase(t.tasks, settled),
        empty_pops: t.empty_pops,
        stale_tasks: t.stale_tasks,
        pushes: t.pushes,
        pops: t.pops,
        idle_scans: t.idle_scans,
        parks: t.parks,
        tasks_per_thread: stats.per_thread.iter().map(|p| p.tasks).collect(),
        sched_counters: counters,
        traces,
        seq_time_s: reference.as_ref().map(|r| r.time_s),
        times_s,
        seq_times_s,
        vs_seq: reference.as_ref().map(|r| if stats.time_s > 0.0 { r.time_s / stats.time_s } else { 0.0 }),
        verified: reference.is_some(),
        reached: summary.reached,
        max_dist: summary.max,
        sum_dist: summary.sum,
    })
}

/// Writes `vertex value` lines (0-based, `inf` when unreachable).
fn write_values<L: Label>(path: &Path, values: &[L]) -> anyhow::Result<()> {
    let err = || format!("cannot write {}", path.display());
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path).with_context(err)?);
    for (v, &x) in values.iter().enumerate() {
        if x == L::UNREACHED { writeln!(w, "{v} inf") } else { writeln!(w, "{v} {}", x.to_u64()) }
            .with_context(err)?;
    }
    w.flush().with_context(err)
}
