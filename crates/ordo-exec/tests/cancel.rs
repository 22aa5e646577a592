//! Cancellation of `for_each` through `ExecOptions::cancel`, for every
//! registered scheduler: an endless run stops once the token is cancelled
//! from another thread, a token cancelled before the start stops the run at
//! once, an uncancelled token changes nothing, and the pool stays usable.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::Tree;
use ordo_exec::{for_each, CancelToken, ExecOptions, Pool};
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
    let cancel = CancelToken::new();
    let opts = ExecOptions { cancel: Some(cancel.clone()), ..ExecOptions::default() };
    let stats = std::thread::scope(|s| {
        s.spawn(|| {
            while ran.load(Ordering::Relaxed) < after && !run_over.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            cancel.cancel();
        });
        // Lets the canceller go if the run ends some other way (a panic).
        let _over = SetOnDrop(&run_over);
        for_each(
            pool,
            spec,
            (0..4u64).map(|i| (i, i)),
            |p, i, ctx| {
                let before = ran.fetch_add(1, Ordering::Relaxed);
                assert!(before < RUNAWAY, "{spec}: the run ignored its cancel token");
                // Ids only tell tasks apart; depth-first schedulers make them
                // grow past 64 bits.
                ctx.push(p + 1, i.wrapping_mul(2).wrapping_add(1));
                ctx.push(p + 2, i.wrapping_mul(2).wrapping_add(2));
            },
            &opts,
        )
    });
    assert!(stats.cancelled, "{spec}: a run stopped by its token says so");
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
fn a_token_cancelled_before_the_run_stops_it_at_the_first_check() {
    let pool = Pool::new(2).unwrap();
    for spec in every_spec() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let opts = ExecOptions { cancel: Some(cancel), ..ExecOptions::default() };
        let ran = AtomicU64::new(0);
        let stats = for_each(
            &pool,
            &spec,
            (0..1000u64).map(|i| (i, i)),
            |_, _, _| {
                ran.fetch_add(1, Ordering::Relaxed);
            },
            &opts,
        );
        assert!(stats.cancelled, "{spec}");
        // Each worker checks after its first task (or first idle scan).
        assert!(ran.into_inner() <= 2, "{spec}: at most one task per worker ran");
    }
}

#[test]
fn an_uncancelled_token_changes_nothing_and_a_cancelled_pool_runs_on() {
    let pool = Pool::new(2).unwrap();
    for spec in every_spec() {
        // First a cancelled run on this pool, then complete runs.
        cancel_endless_run(&pool, &spec, 1000);
        let tree = Tree::new(100_000, 100);
        let opts = ExecOptions { cancel: Some(CancelToken::new()), ..ExecOptions::default() };
        let stats = for_each(&pool, &spec, tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &opts);
        assert!(!stats.cancelled, "{spec}");
        tree.check(&stats, &format!("{spec} with an uncancelled token after a cancelled run"));
    }
}

#[test]
fn a_token_cancelled_after_the_run_leaves_it_complete() {
    let pool = Pool::new(2).unwrap();
    let cancel = CancelToken::new();
    let opts = ExecOptions { cancel: Some(cancel.clone()), ..ExecOptions::default() };
    let tree = Tree::new(10_000, 100);
    let stats =
        for_each(&pool, &"obim".parse().unwrap(), tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &opts);
    cancel.cancel();
    assert!(cancel.is_cancelled() && cancel.clone().is_cancelled(), "clones share the flag");
    assert!(!stats.cancelled, "the run reached termination before the cancel");
    tree.check(&stats, "obim, cancelled after the run");
}
