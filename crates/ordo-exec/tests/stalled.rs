//! `auto`'s rounds with a worker that stalls in the middle of rounds (the
//! operator sleeps now and then on one thread, as a thread the kernel has
//! descheduled would stand still): the waiting threads excuse it from the
//! rounds, it runs its own tasks when it resumes and is seated again.
//! Every task must still run exactly once, the counts must agree, and the
//! excuse must actually have happened (or the test proves nothing).

mod common;

use std::time::Duration;

use common::Tree;
use ordo_exec::{for_each, ExecOptions, Pool, RunStats};
use ordo_sched::SchedulerSpec;

/// The sum over the threads of the scheduler counter `name`.
fn counter(stats: &RunStats, name: &str) -> u64 {
    stats
        .per_thread
        .iter()
        .flat_map(|t| t.sched_counters.iter())
        .filter(|(n, _)| *n == name)
        .map(|&(_, v)| v)
        .sum()
}

/// `n` tasks of the tree on `threads` threads under `spec`; the thread
/// `stalled` sleeps for `pause` before every `every`-th task it runs.
fn run_with_a_stall(spec: &str, threads: usize, stalled: usize, n: u64, every: u64, pause: Duration) {
    let pool = Pool::new(threads).unwrap();
    let spec: SchedulerSpec = spec.parse().unwrap();
    let tree = Tree::new(n, 1000);
    let stats = for_each(
        &pool,
        &spec,
        tree.initial(),
        |p, id, ctx| {
            if ctx.tid() == stalled && id % every == 0 {
                std::thread::sleep(pause);
            }
            tree.run(p, id, ctx)
        },
        &ExecOptions::default(),
    );
    let what = format!("{spec} on {threads} threads, thread {stalled} stalling");
    tree.check(&stats, &what);
    let (excused, excusals) = (counter(&stats, "excused"), counter(&stats, "excusals"));
    eprintln!("{what}: {:.3} s, excused {excused} times", stats.time_s);
    assert!(excusals > 0, "{what}: no thread was excused");
    // An excuse is found by the excused thread at its next arrival, unless
    // the run was abandoned (it was not).
    assert_eq!(excused, excusals, "{what}: every excuse is seen by the thread excused");
}

#[test]
fn a_stalled_worker_is_excused_and_every_task_runs_once() {
    for stalled in [0, 1] {
        run_with_a_stall("auto", 2, stalled, 1_000_000, 997, Duration::from_millis(2));
    }
}

#[test]
fn a_stalled_worker_among_three_and_one_key_rounds() {
    run_with_a_stall("auto", 3, 2, 1_000_000, 997, Duration::from_millis(2));
    run_with_a_stall("auto:keys=1", 2, 1, 1_000_000, 997, Duration::from_millis(2));
}
