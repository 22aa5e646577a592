//! Regression guard for the executor's own cost (no dependencies, so it
//! builds fast): per-task overhead of `for_each` on trivial tasks, and the
//! latency of a run with nothing to do (broadcast + termination detection),
//! back to back and after a pause; and a run's per-vertex array written by
//! the caller alone against [`Pool::collect_indexed`].
//! Prints one `key=value` line per measurement for scripts to grep.
//!
//! `cargo bench -p ordo-exec --bench overhead`

use std::sync::atomic::AtomicU32;
use std::time::Instant;

use ordo_exec::{for_each, ExecOptions, Pool};
use ordo_sched::SchedulerSpec;

fn tree_run(pool: &Pool, spec: &SchedulerSpec, n: u64, opts: &ExecOptions) -> f64 {
    let stats = for_each(
        pool,
        spec,
        [(0, 0u64)],
        |depth, i, ctx| {
            for child in [2 * i + 1, 2 * i + 2] {
                if child < n {
                    ctx.push(depth + 1, child);
                }
            }
        },
        opts,
    );
    assert_eq!(stats.total.tasks, n);
    stats.time_s
}

/// Median milliseconds of `runs` builds of a distance array of `len`
/// slots, alternating the caller alone and the pool's workers, each build a
/// fresh allocation (as every SSSP run makes).
fn collect_ms(pool: &Pool, len: usize, runs: usize) -> (f64, f64) {
    let median = |mut ms: Vec<f64>| {
        ms.sort_by(f64::total_cmp);
        ms[ms.len() / 2]
    };
    let (mut alone, mut parallel) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let v: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(u32::MAX)).collect();
        alone.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(v));
        let start = Instant::now();
        let v: Vec<AtomicU32> = pool.collect_indexed(len, |_| AtomicU32::new(u32::MAX));
        parallel.push(start.elapsed().as_secs_f64() * 1e3);
        drop(std::hint::black_box(v));
    }
    (median(alone), median(parallel))
}

fn main() {
    let n = 2_000_000u64;
    for threads in [1, 2] {
        let pool = Pool::new(threads).expect("pool");
        for name in ["fifo", "obim", "strict"] {
            let Ok(spec) = name.parse::<SchedulerSpec>() else { continue };
            for cycle_timing in [false, true] {
                let opts = ExecOptions { cycle_timing, ..ExecOptions::default() };
                let best = (0..3).map(|_| tree_run(&pool, &spec, n, &opts)).fold(f64::INFINITY, f64::min);
                println!(
                    "bench=tree_tasks sched={spec} threads={threads} cycle_timing={cycle_timing} tasks={n} ns_per_task={:.1}",
                    best * 1e9 / n as f64
                );
            }
        }
        let spec: SchedulerSpec = "strict".parse().expect("strict");
        let runs = 2000;
        let start = Instant::now();
        for _ in 0..runs {
            for_each(&pool, &spec, std::iter::empty::<(u64, u32)>(), |_, _, _| {}, &ExecOptions::default());
        }
        println!(
            "bench=empty_run threads={threads} runs={runs} us_per_run={:.1}",
            start.elapsed().as_secs_f64() * 1e6 / runs as f64
        );
        // The same after a pause long enough for waiting workers to block:
        // the cost of waking them (median of the runs).
        let mut us: Vec<f64> = (0..200)
            .map(|_| {
                std::thread::sleep(std::time::Duration::from_millis(2));
                let start = Instant::now();
                for_each(
                    &pool,
                    &spec,
                    std::iter::empty::<(u64, u32)>(),
                    |_, _, _| {},
                    &ExecOptions::default(),
                );
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        us.sort_by(f64::total_cmp);
        println!(
            "bench=empty_run_after_pause threads={threads} pause_ms=2 runs=200 median_us={:.1}",
            us[100]
        );
        for len in [1 << 20, 4 << 20, 24 << 20] {
            let (alone, parallel) = collect_ms(&pool, len, 21);
            println!(
                "bench=collect_indexed threads={threads} len={len} runs=21 caller_alone_ms={alone:.3} \
                 collect_indexed_ms={parallel:.3}"
            );
        }
    }
}
