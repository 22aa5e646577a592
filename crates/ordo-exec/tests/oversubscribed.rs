//! Runs with far more threads than cores (256 and 1024 workers on this
//! machine's few cores) must terminate, run every task exactly once, and
//! idle cheaply: only a bounded number of idle workers scan for work at a
//! time, the others block. Without scan permits (`src/sleep/permits.rs`)
//! unbounded scanners starve termination, and a run of a few tasks at
//! thousands of threads may not finish.
//!
//! Each run has a watchdog: a run that does not end within a generous bound
//! is reported as a hang (a liveness failure, not a performance check).

mod common;

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use common::Tree;
use ordo_exec::{for_each, ExecOptions, Pool, RunMonitor, RunStats};
use ordo_sched::SchedulerSpec;

/// Longest a run may take before the test calls it hung.
const HANG: Duration = Duration::from_secs(120);

/// Runs `f` on a helper thread; panics if it has not returned within [`HANG`].
fn without_hanging<R: Send + 'static>(what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: failed (its panic is printed above)"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: no termination within {HANG:?} (livelock?)"),
    }
}

/// Runs a task tree of `n` tasks from `roots` roots on `threads` workers
/// with every scheduler in `specs`, checking each task ran exactly once.
fn trees(threads: usize, specs: &[&str], n: u64, roots: u64) {
    let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    without_hanging(&format!("{threads} threads, {n} tasks"), move || {
        let pool = Pool::new(threads).unwrap();
        for spec in &specs {
            let spec: SchedulerSpec = spec.parse().unwrap();
            let tree = Tree::new(n, roots);
            let stats = for_each(
                &pool,
                &spec,
                tree.initial(),
                |p, id, ctx| tree.run(p, id, ctx),
                &ExecOptions::default(),
            );
            tree.check(&stats, &format!("{spec} on {threads} threads, {n} tasks"));
            assert!(!stats.cancelled);
        }
    });
}

#[test]
fn tiny_runs_on_256_threads_every_scheduler() {
    trees(256, SchedulerSpec::names(), 3, 1);
}

#[test]
fn tiny_runs_on_1024_threads() {
    trees(1024, &["strict", "obim", "pmod", "smq", "fifo"], 3, 1);
}

#[test]
fn hundred_thousand_tasks_on_256_and_1024_threads() {
    trees(256, &["obim", "pmod", "smq", "mq"], 100_000, 64);
    trees(1024, &["obim", "pmod", "smq"], 100_000, 64);
}

#[test]
fn empty_run_on_1024_threads() {
    trees(1024, &["pmod"], 0, 0);
}

/// A run cancelled through its monitor stops early, says so, and the pool
/// serves the next run normally.
#[test]
fn cancelled_run_stops_early_and_the_pool_survives() {
    without_hanging("cancellation", || {
        let pool = Pool::new(2).unwrap();
        let monitor = Arc::new(RunMonitor::new(2));
        let opts = ExecOptions { monitor: Some(monitor.clone()), ..ExecOptions::default() };
        let n = 5_000_000;
        let tree = Tree::new(n, 1);
        let stats: RunStats = for_each(
            &pool,
            &"fifo".parse().unwrap(),
            tree.initial(),
            |p, id, ctx| {
                if id == 100_000 {
                    monitor.cancel();
                }
                tree.run(p, id, ctx)
            },
            &opts,
        );
        assert!(stats.cancelled, "the run must report its cancellation");
        assert!(stats.total.tasks < n, "a cancelled run stops before the end ({} tasks)", stats.total.tasks);
        // Published progress covers what ran, to within one batch per worker.
        let published = monitor.tasks_done();
        assert!(
            published <= stats.total.tasks && published + 2 * ordo_exec::PUBLISH_EVERY > stats.total.tasks
        );
        monitor.clear_cancel();
        let again = Tree::new(10_000, 4);
        let stats = for_each(
            &pool,
            &"fifo".parse().unwrap(),
            again.initial(),
            |p, id, ctx| again.run(p, id, ctx),
            &opts,
        );
        again.check(&stats, "the run after a cancelled one");
        assert!(!stats.cancelled);
        assert_eq!(monitor.tasks_done(), 10_000);
    });
}
