//! `ordo run <app>`: run an application on its input with a strategy (the
//! scheduler for priority-scheduled apps), optionally verify it against the
//! sequential reference, and report the measures (as text, or as one JSON
//! object with `--json`). The application layer (`ordo_algos::app`) does
//! the work; this module parses, shows progress and prints.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use ordo_algos::app::report::{ReportHeader, RunReport};
use ordo_algos::app::{self, stats, AppRefRun, AppRun, Fields, RunEnv};
use ordo_exec::{ExecOptions, Pool, RunMonitor};

use crate::app_flags::AppFlags;
use crate::console;
use crate::progress::RunProgress;

/// The input used when neither `--graph` nor `--gen` is given: a road-like
/// graph of one million vertices with a fixed seed.
pub(crate) const DEFAULT_GEN: &str = "road:n=1000000,seed=1";

/// Arguments of `ordo run`.
#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The application.
    #[arg(value_parser = crate::app_flags::app_arg())]
    app: String,

    #[command(flatten)]
    input: crate::input::InputArgs,

    #[command(flatten)]
    app_flags: AppFlags,

    /// Also run the sequential reference, compare the results (exactly, or
    /// within the application's stated bound), and report its time
    /// (`seq_time_s`) and `vs_seq`. A mismatch is an error.
    #[arg(long)]
    verify: bool,

    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,

    /// The text report also shows the executor's and the scheduler's
    /// internals: push, pop and stale-task counts, idle scans, tasks per
    /// thread, the scheduler's counters and traces (`--json` always has
    /// them).
    #[arg(long, short = 'v')]
    verbose: bool,

    /// Write the result to FILE as text (each application's format is in
    /// the list of applications above: `vertex value` lines for sssp/bfs,
    /// ...). The file is written whole or not at all.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Split each thread's time into task / Enq / Deq / failed Deq / other
    /// (PMOD paper, Table 1), in total and per thread, with the cycles per
    /// Enq and per Deq (JSON: `breakdown`, `breakdown_per_thread`).
    /// Applications run by the `for_each` executor only.
    #[arg(long)]
    cycles: bool,

    /// Run the application (and, with `--verify`, the reference) this many
    /// times on the loaded graph and report the median time (`time_s`,
    /// `seq_time_s`; the lower median for an even count) with every run's
    /// time (`times_s`, `seq_times_s`); the other measures come from the
    /// median run. Every run is verified.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

pub(crate) fn run(args: RunArgs, threads: usize) -> anyhow::Result<()> {
    // Check the cheap arguments before loading a possibly large graph.
    let info = app::find(&args.app)?;
    let strategy = args.app_flags.strategy(info)?;
    let params = args.app_flags.params(info)?;
    anyhow::ensure!(
        !args.cycles || info.cycles,
        "--cycles does not apply to {} (it is not run by the for_each executor)",
        info.name
    );
    let mut input = args.input.clone();
    let graph = if info.needs_graph {
        if input.graph.is_none() && input.gen.is_none() {
            input.gen = Some(DEFAULT_GEN.to_string());
        }
        let load = input.for_app(info.name, info.reads_weights, info.reads_coords);
        Arc::new(crate::input::load_input_with(&load, threads, info.working_memory(args.verify))?)
    } else {
        anyhow::ensure!(
            input.graph.is_none() && input.gen.is_none(),
            "{} runs without an input graph: drop --graph/--gen",
            info.name
        );
        Arc::new(crate::input::empty_graph())
    };
    let prepared = info.prepare(graph.clone(), params)?;
    let monitor = Arc::new(RunMonitor::new(threads));
    let cancel_on_interrupt = monitor.clone();
    crate::interrupt::on_first_interrupt(move || cancel_on_interrupt.cancel());
    let name = info.name;

    // The sequential reference runs first, alone (no worker thread exists
    // yet), so that each parallel run is checked as soon as it ends and its
    // result freed: a result kept until the end would make every further
    // repetition fault in fresh pages for its per-vertex arrays (163 page
    // faults per SSSP run on Slashdot), a cost a peer repeating its trials
    // in one process does not pay.
    let mut references: Vec<AppRefRun> = Vec::new();
    if args.verify {
        for _ in 0..args.repeat {
            references.push(prepared.reference().with_context(|| format!("sequential {name}"))?);
        }
    }

    let pool = Pool::new(threads).context("cannot start the worker threads")?;
    let exec =
        ExecOptions { cycle_timing: args.cycles, monitor: Some(monitor.clone()), ..ExecOptions::default() };
    let env = RunEnv { pool: &pool, exec: &exec };
    let progress = RunProgress::new(monitor.clone());
    let mut runs: Vec<AppRun> = Vec::new();
    // With `--verify`, each run's measures that need the reference.
    let mut verified: Vec<Fields> = Vec::new();
    for i in 0..args.repeat {
        let which = (args.repeat > 1).then(|| format!("run {} of {}", i + 1, args.repeat));
        let label = which.as_ref().map_or_else(|| name.to_string(), |w| format!("{name} {w}"));
        progress.begin(label);
        let run = prepared.run(&env, &strategy);
        progress.end();
        let mut run = run.map_err(|e| match e {
            app::AppError::Cancelled => anyhow::anyhow!("interrupted (Ctrl-C): no result"),
            e => e.into(),
        })?;
        if let Some(reference) = references.first() {
            let which = which.as_ref().map_or_else(String::new, |w| format!(" ({w})"));
            prepared.verify(&run, reference).with_context(|| format!("{name} result{which}"))?;
            verified.push(prepared.verified_metrics(&run, reference));
        }
        if args.out.is_none() {
            run.output = Box::new(()); // checked and not written: free it now
        }
        runs.push(run);
    }
    drop(progress);
    drop(pool);
    let median = stats::median_index(&runs.iter().map(|r| r.time_s).collect::<Vec<_>>())
        .expect("--repeat is at least 1");
    let verified_metrics =
        if verified.is_empty() { Default::default() } else { verified.swap_remove(median) };
    let header = ReportHeader {
        app: name.to_string(),
        graph: input.describe(),
        n: graph.num_vertices(),
        m: graph.num_edges(),
        scheduler: strategy,
        threads,
        params: prepared.params(),
    };
    let report = RunReport::from_runs(header, &runs, &references, verified_metrics);
    if let Some(path) = &args.out {
        crate::output::write_file(path, |w| prepared.write_out(&runs[median], w))?;
    }
    if args.json {
        console::outln!("{}", report.to_json())?;
    } else {
        console::out!("{}", report.to_text(args.verbose))?;
    }
    Ok(())
}
