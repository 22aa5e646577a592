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
mod console;
mod input;
mod interrupt;
mod memory;
mod output;
// Without the `plot` feature, `ordo plot` only explains how to get plots.
#[cfg_attr(not(feature = "plot"), path = "plot/disabled.rs")]
mod plot;
mod progress;

/// ordo: priority-scheduled irregular graph algorithms.
#[derive(Parser)]
#[command(name = "ordo", version, about, long_about = None)]
struct Cli {
    /// Worker threads, at most 4096 (default: all cores; the ORDO_THREADS
    /// environment variable overrides the default).
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
    const MAX: usize = ordo_exec::MAX_THREADS;
    // The count, the name of its source, and how an error shows it.
    let (t, name, shown) = match (flag, std::env::var("ORDO_THREADS")) {
        (Some(t), _) => (t, "--threads", format!("--threads {t}")),
        (None, Ok(v)) => {
            let t: usize = v
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("ORDO_THREADS={v}: expected a positive integer"))?;
            (t, "ORDO_THREADS", format!("ORDO_THREADS={t}"))
        }
        (None, Err(_)) => return Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    anyhow::ensure!(t > 0, "{name} must be at least 1");
    anyhow::ensure!(t <= MAX, "{shown}: at most {MAX} (`ordo sim --vthreads` models more)");
    Ok(t)
}

fn main() -> ExitCode {
    memory::keep_freed_memory();
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
        // The reader of standard output has gone (`ordo ... | head`).
        Err(e) if console::stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            console::note!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, `context: cause: cause`. A cause
/// whose text the line already holds is skipped: an error that prints its
/// source itself (as `std::io::Error` wrappers often do) would otherwise say
/// everything twice.
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !msg.contains(&cause) {
            msg.push_str(": ");
            msg.push_str(&cause);
        }
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let e = anyhow::Error::new(io).context("x.gr");
        assert_eq!(one_line(&e), "x.gr: No such file");
        #[derive(Debug)]
        struct Wrapper(std::io::Error);
        impl std::fmt::Display for Wrapper {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "y.gr: {}", self.0)
            }
        }
        impl std::error::Error for Wrapper {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = anyhow::Error::new(Wrapper(std::io::Error::other("disk full"))).context("writing");
        assert_eq!(one_line(&e), "writing: y.gr: disk full");
    }
}
