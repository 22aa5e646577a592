//! Runs `for_each` on a binary tree of tasks and prints what the executor
//! measured.
//!
//! `cargo run -p ordo-exec --release --example count_tasks -- [scheduler] [threads] [tasks] [--cycles]`

use std::sync::atomic::{AtomicU64, Ordering};

use ordo_exec::{available_cores, for_each, ExecOptions, Pool, CYCLE_UNIT};
use ordo_sched::SchedulerSpec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cycle_timing = args.iter().any(|a| a == "--cycles");
    let mut positional = args.iter().filter(|a| !a.starts_with("--"));
    let spec: SchedulerSpec = positional.next().map_or("strict", String::as_str).parse()?;
    let threads: usize = positional.next().map_or(Ok(available_cores()), |t| t.parse())?;
    let n: u64 = positional.next().map_or(Ok(1_000_000), |t| t.parse())?;

    let pool = Pool::new(threads)?;
    let checksum = AtomicU64::new(0);
    // Task i spawns 2i+1 and 2i+2 below n, with priority = depth in the tree.
    let op = |depth: u64, i: u64, ctx: &mut ordo_exec::Context<u64>| {
        checksum.fetch_add(i, Ordering::Relaxed);
        for child in [2 * i + 1, 2 * i + 2] {
            if child < n {
                ctx.push(depth + 1, child);
            }
        }
    };
    let stats =
        for_each(&pool, &spec, [(0, 0u64)], op, &ExecOptions { cycle_timing, ..ExecOptions::default() });
    let expected = n * (n - 1) / 2;
    println!(
        "scheduler={} threads={} pinned={} tasks={} time_s={:.3} checksum_ok={}",
        stats.scheduler,
        stats.threads,
        pool.pinned(),
        stats.total.tasks,
        stats.time_s,
        checksum.into_inner() == expected
    );
    println!(
        "pushes={} pops={} empty_pops={} flushes={} idle_scans={} parks={}",
        stats.total.pushes,
        stats.total.pops,
        stats.total.empty_pops,
        stats.total.flushes,
        stats.total.idle_scans,
        stats.total.parks
    );
    if let Some(c) = stats.total.cycles {
        let pct = |x: u64| 100.0 * x as f64 / c.total().max(1) as f64;
        println!(
            "cycles ({CYCLE_UNIT}): task {:.1}%  enq {:.1}%  deq {:.1}%  failed_deq {:.1}%  other {:.1}%",
            pct(c.task),
            pct(c.enq),
            pct(c.deq),
            pct(c.failed_deq),
            pct(c.other)
        );
    }
    Ok(())
}
