//! Stress test of `for_each` for every registered scheduler (picked up from
//! `SchedulerSpec::names()`, so new schedulers are covered automatically):
//! millions of uniquely numbered tasks spawned in waves from all threads; each
//! must run exactly once, and `for_each` must return only after all ran.
//!
//! Sizes: 10^7 tasks on 2 threads per scheduler, 10^6 on 1 and 4 threads.
//! `ORDO_STRESS_TASKS` overrides the large size (e.g. for a quick local run).

mod common;

use std::time::Instant;

use common::{Hoard, Tree};
use ordo_exec::{
    for_each, for_each_on, for_each_operator, with_continuations, with_prefetch, ExecOptions, Pool,
};
use ordo_sched::SchedulerSpec;

const LARGE: u64 = 10_000_000;
const SMALL: u64 = 1_000_000;

fn large() -> u64 {
    std::env::var("ORDO_STRESS_TASKS").ok().and_then(|v| v.parse().ok()).unwrap_or(LARGE)
}

fn stress_every_scheduler(threads: usize, n: u64) {
    let pool = Pool::new(threads).unwrap();
    for name in SchedulerSpec::names() {
        let spec: SchedulerSpec = name.parse().unwrap_or_else(|e| panic!("default spec `{name}`: {e}"));
        stress_one(&pool, &spec, n);
    }
}

/// `n` tasks of a tree with 1000 roots under `spec` on `pool`: each runs
/// exactly once.
fn stress_one(pool: &Pool, spec: &SchedulerSpec, n: u64) {
    let threads = pool.threads();
    let tree = Tree::new(n, 1000);
    let start = Instant::now();
    let stats =
        for_each(pool, spec, tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &ExecOptions::default());
    let what = format!("{spec} on {threads} threads, {n} tasks");
    tree.check(&stats, &what);
    assert_eq!(stats.scheduler, spec.to_string());
    assert_eq!(stats.threads, threads);
    eprintln!("{what}: {:.2} s ({:.2} s in for_each)", start.elapsed().as_secs_f64(), stats.time_s);
}

#[test]
fn every_scheduler_2_threads_large() {
    stress_every_scheduler(2, large());
}

#[test]
fn every_scheduler_1_thread() {
    stress_every_scheduler(1, SMALL);
}

#[test]
fn every_scheduler_4_threads() {
    stress_every_scheduler(4, SMALL);
}

/// `auto` with an operator that declares narrow priorities keeps its tasks
/// in entries with `u32` priorities (every priority of the tree is small):
/// the same exactly-once guarantee on 1, 2 and 4 threads.
#[test]
fn auto_with_narrow_priorities() {
    for (threads, n) in [(1, SMALL), (2, large()), (4, SMALL)] {
        let pool = Pool::new(threads).unwrap();
        let spec: SchedulerSpec = "auto".parse().unwrap();
        let tree = Tree::new(n, 1000);
        let op = with_prefetch(|p, id, ctx: &mut _| tree.run(p, id, ctx), |_, _: &u64| {}, |_, _: &u64| {})
            .with_narrow_priorities();
        let stats = for_each_operator(&pool, &spec, tree.initial(), op, &ExecOptions::default());
        tree.check(&stats, &format!("auto, narrow priorities, {threads} threads, {n} tasks"));
    }
}

/// `auto`'s rounds with one key per round (the bucket is the span), the
/// layout before several keys per round: every task still exactly once.
#[test]
fn auto_with_one_key_per_round() {
    for threads in [2, 4] {
        stress_one(&Pool::new(threads).unwrap(), &"auto:keys=1".parse().unwrap(), SMALL);
    }
}

/// Continuations (`Context::push_next`): `auto`'s rounds run every first
/// child right after its parent, on the same thread, ahead of its priority;
/// every other scheduler pushes it. Either way every task runs exactly once
/// and counts as pushed and popped once.
#[test]
fn continuations_lose_no_task() {
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for name in ["auto", "auto:keys=1", "fifo", "obim", "smq"] {
            let n = if threads == 2 && name == "auto" { large() } else { SMALL };
            let spec: SchedulerSpec = name.parse().unwrap();
            let tree = Tree::new(n, 1000);
            let op = with_continuations(|p, id, ctx: &mut _| tree.run_continuing(p, id, ctx));
            let stats = for_each_operator(&pool, &spec, tree.initial(), op, &ExecOptions::default());
            let what = format!("{name} with continuations, {threads} threads, {n} tasks");
            tree.check(&stats, &what);
            let continued: u64 = stats
                .per_thread
                .iter()
                .flat_map(|t| &t.sched_counters)
                .filter(|(c, _)| *c == "continued_tasks")
                .map(|&(_, v)| v)
                .sum();
            if name.starts_with("auto") {
                // The first children: tasks `1000 + 2 * id` below `n`.
                assert_eq!(continued, (n - 1000).div_ceil(2), "{what}: continuations");
            } else {
                assert_eq!(continued, 0, "{what}: continuations outside auto's rounds");
            }
        }
    }
}

/// `auto` when every task has the same priority (as PageRank's mostly do):
/// the whole run is one key, so each round ends at the fusion limit with
/// tasks of the key still queued, and the next round continues the key.
/// Every task still runs exactly once, and the cut rounds are counted.
#[test]
fn auto_rounds_cut_at_the_fusion_limit_lose_no_task() {
    for (threads, n) in [(2, SMALL), (4, SMALL)] {
        let pool = Pool::new(threads).unwrap();
        let spec: SchedulerSpec = "auto".parse().unwrap();
        let tree = Tree::new(n, 2);
        let stats = for_each(
            &pool,
            &spec,
            tree.initial().into_iter().map(|(_, id)| (7, id)),
            |prio, id, ctx| tree.run_at_one_priority(prio, id, ctx),
            &ExecOptions::default(),
        );
        let what = format!("auto, one priority, {threads} threads, {n} tasks");
        tree.check(&stats, &what);
        let parts = stats.sched_counters.iter().find(|(name, _)| *name == "round_parts").map(|&(_, v)| v);
        assert!(parts.is_some_and(|p| p > 0), "{what}: no round was cut ({parts:?})");
    }
}

/// `auto`'s round traces (`round_tasks`, `round_level`): one point per
/// round, merged beyond 256 points, over microseconds that never go back,
/// and every task of the run counted in exactly one point, whether the
/// rounds end normally, at the fusion limit (one priority) or one bucket
/// at a time (one thread).
#[test]
fn auto_round_traces_count_every_task() {
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        let spec: SchedulerSpec = "auto".parse().unwrap();
        for one_priority in [false, true] {
            let tree = Tree::new(SMALL / 4, 1000);
            let stats = if one_priority {
                for_each(
                    &pool,
                    &spec,
                    tree.initial().into_iter().map(|(_, id)| (7, id)),
                    |prio, id, ctx| tree.run_at_one_priority(prio, id, ctx),
                    &ExecOptions::default(),
                )
            } else {
                for_each(
                    &pool,
                    &spec,
                    tree.initial(),
                    |p, id, ctx| tree.run(p, id, ctx),
                    &ExecOptions::default(),
                )
            };
            let what = format!("auto, {threads} threads, one priority: {one_priority}");
            tree.check(&stats, &what);
            let trace = |name: &str| {
                stats
                    .traces
                    .iter()
                    .find(|t| t.name == name)
                    .unwrap_or_else(|| panic!("{what}: no {name} trace"))
            };
            let (tasks, levels) = (trace("round_tasks"), trace("round_level"));
            assert_eq!(tasks.x_label, "microseconds");
            assert!(
                !tasks.points.is_empty() && tasks.points.len() <= 256,
                "{what}: {} points",
                tasks.points.len()
            );
            assert_eq!(
                tasks.points.iter().map(|p| p.1).sum::<u64>(),
                stats.total.tasks,
                "{what}: the rounds' tasks add up to the run's"
            );
            let times = |t: &ordo_sched::Trace| t.points.iter().map(|p| p.0).collect::<Vec<_>>();
            assert_eq!(times(tasks), times(levels), "{what}: one x per point in both traces");
            assert!(tasks.points.windows(2).all(|w| w[0].0 <= w[1].0), "{what}: time went back");
            if one_priority {
                // A level is the lower edge of a round's first bucket, so
                // 7 with its lowest bits cleared (buckets of several
                // threads' rounds are at least 4 wide).
                assert!(
                    levels.points.iter().all(|p| (0..3).any(|s| p.1 == (7 >> s) << s)),
                    "{what}: every round starts at the edge of 7's bucket"
                );
            }
        }
    }
}

/// The hoarding scheduler hides up to 63 tasks per thread and fails pops
/// spuriously: the case termination detection must get right.
#[test]
fn hoarding_scheduler_many_threads() {
    for threads in [1, 2, 3, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        for roots in [1, 7, 1000] {
            let n = 300_000;
            let tree = Tree::new(n, roots);
            let sched = Hoard::new();
            let stats = for_each_on(
                &pool,
                &sched,
                tree.initial(),
                |p, id, ctx| tree.run(p, id, ctx),
                &ExecOptions::default(),
            );
            tree.check(&stats, &format!("hoard, {threads} threads, {roots} roots"));
        }
    }
}

/// Many tiny runs on one pool: termination right at the start (no task, one
/// task) and reuse of the persistent threads.
#[test]
fn many_tiny_runs_reuse_the_pool() {
    let pool = Pool::new(4).unwrap();
    let spec: SchedulerSpec = "strict".parse().unwrap();
    for round in 0..2000u64 {
        let n = round % 5;
        let tree = Tree::new(n, n.min(1));
        let stats = for_each(
            &pool,
            &spec,
            tree.initial(),
            |p, id, ctx| tree.run(p, id, ctx),
            &ExecOptions::default(),
        );
        tree.check(&stats, &format!("tiny run {round}"));
        let sched = Hoard::new();
        let tree = Tree::new(n, n.min(1));
        let stats = for_each_on(
            &pool,
            &sched,
            tree.initial(),
            |p, id, ctx| tree.run(p, id, ctx),
            &ExecOptions::default(),
        );
        tree.check(&stats, &format!("tiny hoard run {round}"));
    }
}
