//! `ordo run <app>`: run a graph algorithm on a scheduler, optionally
//! verify it against the sequential reference, and report the measures of
//! design.md §4 (as text, or as one JSON object with `--json`).

use std::path::PathBuf;

use anyhow::Context as _;
use ordo_exec::{ExecOptions, Pool};
use ordo_sched::SchedulerSpec;

use crate::apps::{self, App, AppParams};
use crate::report::RunReport;

/// The input used when neither `--graph` nor `--gen` is given: a road-like
/// graph of one million vertices with a fixed seed.
pub(crate) const DEFAULT_GEN: &str = "road:n=1000000,seed=1";

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

    /// Target vertex of A* (0-based); default: a far vertex chosen
    /// deterministically.
    #[arg(long)]
    target: Option<u64>,

    /// Also run the sequential reference, compare the results (exactly, or
    /// within the application's stated bound), and report its time
    /// (`seq_time_s`) and `vs_seq`. A mismatch is an error.
    #[arg(long)]
    verify: bool,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,

    /// Write the result to FILE as text: SSSP/BFS `vertex value` per line
    /// (0-based ids, `inf` when unreachable); A* the path, one vertex per
    /// line from source to target, then `length <distance>` (`length inf`
    /// and no vertex when the target is unreachable); PageRank `vertex rank`
    /// per line (shortest exact round-trip decimal); MST `u v weight` per
    /// forest edge (0-based, u < v, sorted by (u, v)).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Split each thread's time into task / Enq / Deq / failed Deq / other
    /// (PMOD paper, Table 1), in total and per thread, with the cycles per
    /// Enq and per Deq (JSON: `breakdown`, `breakdown_per_thread`).
    #[arg(long)]
    cycles: bool,

    /// Classify every executed task as good (the first execution that saw
    /// its vertex's final value) or useless, and with `--cycles` split task
    /// time into good and useless work (SSSP, BFS, A*). Memory: one 16-byte
    /// note per executed task (27 MB for SSSP on the default 1M-vertex road
    /// graph: 1.7 M tasks), held until the run is classified.
    #[arg(long)]
    classify: bool,

    /// PageRank damping factor alpha, in (0, 1) (default 0.85).
    #[arg(long)]
    alpha: Option<f64>,

    /// PageRank tolerance: a vertex runs while its residual is at least
    /// this (default 0.01, ranks summing to about n; the L1 error is at most
    /// n x tolerance / (1 - alpha)).
    #[arg(long)]
    tolerance: Option<f64>,

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
    let params = AppParams {
        source: args.source,
        target: args.target,
        classify_work: args.classify,
        alpha: args.alpha,
        tolerance: args.tolerance,
    };
    let prepared = apps::prepare(args.app, &graph, &params)?;
    let pool = Pool::new(threads).context("cannot start the worker threads")?;
    let opts = ExecOptions { cycle_timing: args.cycles, ..ExecOptions::default() };

    let app = args.app.name();
    let runs =
        (0..args.repeat).map(|_| prepared.run(&pool, &spec, &opts)).collect::<anyhow::Result<Vec<_>>>()?;
    drop(pool); // the reference runs alone, with no idle workers around
    let references = (0..if args.verify { args.repeat } else { 0 })
        .map(|_| prepared.reference())
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(reference) = references.first() {
        for (i, run) in runs.iter().enumerate() {
            let which =
                if runs.len() > 1 { format!(" (run {} of {})", i + 1, runs.len()) } else { String::new() };
            prepared.verify(run, reference).with_context(|| format!("{app} result{which}"))?;
        }
    }
    let report = RunReport::from_runs(&graph_name, &graph, &*prepared, &runs, &references);
    if let Some(path) = &args.out {
        let median = crate::report::median_index(&report.times_s);
        prepared.write_out(&runs[median], path)?;
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
