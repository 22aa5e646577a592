//! `ordo`: load graphs, run priority-scheduled graph algorithms, benchmark
//! schedulers.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod app_flags;
mod bench;
mod cmd_convert;
mod cmd_dist;
mod cmd_gen;
mod cmd_info;
mod cmd_run;
mod cmd_sim;
mod input;
mod interrupt;
mod output;
mod plot;
mod progress;

/// ordo: priority-scheduled irregular graph algorithms.
#[derive(Parser)]
#[command(name = "ordo", version, about, long_about = None)]
struct Cli {
    /// Worker threads (default: all cores; the ORDO_THREADS environment
    /// variable overrides the default).
    #[arg(long, global = true)]
    threads: Option<usize>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a graph algorithm (verified against its sequential reference with --verify).
    Run(cmd_run::RunArgs),
    /// Generate a graph.
    Gen(cmd_gen::GenArgs),
    /// Convert a graph between formats.
    Convert(cmd_convert::ConvertArgs),
    /// Describe a graph: counts, degrees, weights, connectivity.
    Info(cmd_info::InfoArgs),
    /// Draw the figures and the Table 5 summary of a bench results directory.
    Plot(plot::PlotArgs),
    /// Benchmark schedulers: run a plan of inputs x apps x schedulers x threads.
    Bench(bench::BenchArgs),
    /// Run an algorithm across ranks: threads of this process, or MPI processes under mpirun.
    Dist(cmd_dist::DistArgs),
    /// Simulate a scheduler with N virtual threads on one core, deterministically:
    /// work increase, rank error, invisible work, communication.
    Sim(cmd_sim::SimArgs),
}

/// The thread count: `--threads`, else `ORDO_THREADS`, else all cores.
pub(crate) fn thread_count(flag: Option<usize>) -> anyhow::Result<usize> {
    if let Some(t) = flag {
        anyhow::ensure!(t > 0, "--threads must be at least 1");
        return Ok(t);
    }
    if let Ok(v) = std::env::var("ORDO_THREADS") {
        let t: usize =
            v.trim().parse().map_err(|_| anyhow::anyhow!("ORDO_THREADS={v}: expected a positive integer"))?;
        anyhow::ensure!(t > 0, "ORDO_THREADS must be at least 1");
        return Ok(t);
    }
    Ok(std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = thread_count(cli.threads).and_then(|threads| match cli.command {
        Command::Run(a) => cmd_run::run(a, threads),
        Command::Gen(a) => cmd_gen::run(a, threads),
        Command::Convert(a) => cmd_convert::run(a, threads),
        Command::Info(a) => cmd_info::run(a, threads),
        Command::Plot(a) => plot::run(a, threads),
        Command::Bench(a) => bench::run(a, threads),
        Command::Dist(a) => cmd_dist::run(a, cli.threads),
        Command::Sim(a) => cmd_sim::run(a, threads),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes.
            let mut msg = format!("error: {e}");
            for cause in e.chain().skip(1) {
                msg.push_str(&format!(": {cause}"));
            }
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
