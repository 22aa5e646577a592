//! Cancellation of `for_each` through its `RunMonitor`, for every registered
//! scheduler: an endless run stops once the monitor is cancelled from
//! another thread, a monitor cancelled before the start stops the run at the
//! first check, an uncancelled monitor changes nothing, and the pool stays
//! usable.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use common::Tree;
use ordo_exec::{for_each, ExecOptions, Pool, RunMonitor, PUBLISH_EVERY};
use ordo_sched::SchedulerSpec;

/// Tasks after which an endless run that was never stopped gives up with a
/// panic (the test then fails instead of hanging).
const RUNAWAY: u64 = 20_000_000;

fn every_spec() -> impl Iterator<Item = SchedulerSpec> {
    SchedulerSpec::names().iter().map(|name| name.parse().unwrap_or_else(|e| panic!("spec `{name}`: {e}")))
}

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs an endless workload (every task pushes two more, so the scheduler
/// never drains) and cancels it from another thread once `after` tasks ran.
fn cancel_endless_run(pool: &Pool, spec: &SchedulerSpec, after: u64) {
    let ran = AtomicU64::new(0);
    let run_over = AtomicBool::new(false);
    let monitor = Arc::new(RunMonitor::new(pool.threads()));
    let opts = ExecOptions { monitor: Some(monitor.clone()), ..ExecOptions::default() };
    let stats = std::thread::scope(|s| {
        s.spawn(|| {
            while ran.load(Ordering::Relaxed) < after && !run_over.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            monitor.cancel();
        });
        // Lets the canceller go if the run ends some other way (a panic).
        let _over = SetOnDrop(&run_over);
        for_each(
            pool,
            spec,
            (0..4u64).map(|i| (i, i)),
            |p, i, ctx| {
                let before = ran.fetch_add(1, Ordering::Relaxed);
                assert!(before < RUNAWAY, "{spec}: the run ignored its cancellation");
                // Ids only tell tasks apart; depth-first schedulers make them
                // grow past 64 bits.
                ctx.push(p + 1, i.wrapping_mul(2).wrapping_add(1));
                ctx.push(p + 2, i.wrapping_mul(2).wrapping_add(2));
            },
            &opts,
        )
    });
    assert!(stats.cancelled, "{spec}: a cancelled run says so");
    let ran = ran.into_inner();
    assert!(ran >= after, "{spec}: {ran} tasks ran before the cancel at {after}");
    assert_eq!(stats.total.tasks, ran, "{spec}: the statistics count the tasks that ran");
    // Every task pushes two: the run stopped with tasks left (dropped with
    // the scheduler), i.e. it really ended early.
    assert!(stats.total.pushes > stats.total.tasks, "{spec}");
}

#[test]
fn an_endless_run_stops_when_cancelled_from_another_thread() {
    for threads in [1, 2, 3] {
        let pool = Pool::new(threads).unwrap();
        for spec in every_spec() {
            cancel_endless_run(&pool, &spec, 20_000);
        }
    }
}

#[test]
fn a_monitor_cancelled_before_the_run_stops_it_at_the_first_check() {
    let pool = Pool::new(2).unwrap();
    for spec in every_spec() {
        let monitor = Arc::new(RunMonitor::new(2));
        monitor.cancel();
        let opts = ExecOptions { monitor: Some(monitor), ..ExecOptions::default() };
        let ran = AtomicU64::new(0);
        let stats = for_each(
            &pool,
            &spec,
            (0..10_000u64).map(|i| (i, i)),
            |_, _, _| {
                ran.fetch_add(1, Ordering::Relaxed);
            },
            &opts,
        );
        assert!(stats.cancelled, "{spec}");
        // Each worker checks at least every PUBLISH_EVERY tasks.
        let ran = ran.into_inner();
        assert!(ran <= 2 * PUBLISH_EVERY, "{spec}: {ran} tasks ran after the cancellation");
    }
}

#[test]
fn an_uncancelled_monitor_changes_nothing_and_a_cancelled_pool_runs_on() {
    let pool = Pool::new(2).unwrap();
    for spec in every_spec() {
        // First a cancelled run on this pool, then complete runs.
        cancel_endless_run(&pool, &spec, 1000);
        let tree = Tree::new(100_000, 100);
        let opts = ExecOptions { monitor: Some(Arc::new(RunMonitor::new(2))), ..ExecOptions::default() };
        let stats = for_each(&pool, &spec, tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &opts);
        assert!(!stats.cancelled, "{spec}");
        tree.check(&stats, &format!("{spec} with an uncancelled monitor after a cancelled run"));
    }
}

#[test]
fn a_monitor_cancelled_after_the_run_leaves_it_complete() {
    let pool = Pool::new(2).unwrap();
    let monitor = Arc::new(RunMonitor::new(2));
    let opts = ExecOptions { monitor: Some(monitor.clone()), ..ExecOptions::default() };
    let tree = Tree::new(10_000, 100);
    let stats =
        for_each(&pool, &"obim".parse().unwrap(), tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &opts);
    monitor.cancel();
    assert!(!stats.cancelled, "the run reached termination before the cancel");
    tree.check(&stats, "obim, cancelled after the run");
}
