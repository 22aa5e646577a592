//! Behaviour of the pool and of `for_each` beyond raw correctness: errors,
//! panics, nesting, concurrent callers, statistics and cycle timing.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use common::{Hoard, Tree};
use ordo_exec::{for_each, for_each_on, ExecOptions, Pool, PoolError, MAX_THREADS};
use ordo_sched::SchedulerSpec;

fn strict() -> SchedulerSpec {
    "strict".parse().unwrap()
}

#[test]
fn zero_threads_is_an_error() {
    let err = Pool::new(0).unwrap_err();
    assert!(matches!(err, PoolError::ZeroThreads));
    assert!(err.to_string().contains("at least one thread"), "{err}");
}

#[test]
fn more_than_max_threads_is_an_error_before_any_thread_starts() {
    let err = Pool::new(MAX_THREADS + 1).unwrap_err();
    assert!(matches!(err, PoolError::TooManyThreads(t) if t == MAX_THREADS + 1));
    assert_eq!(
        err.to_string(),
        format!("{} threads asked for; a thread pool has at most {MAX_THREADS}", MAX_THREADS + 1)
    );
    assert!(Pool::new(usize::MAX).is_err());
}

#[test]
fn builder_sets_threads_and_pinning() {
    let pool = Pool::builder().threads(3).pin(false).build().unwrap();
    assert_eq!(pool.threads(), 3);
    assert!(!pool.pinned());
    let pool = Pool::with_pinning(2, false).unwrap();
    assert_eq!(pool.threads(), 2);
    assert!(!pool.pinned());
    // More threads than cores are never pinned.
    let pool = Pool::new(ordo_exec::available_cores() + 1).unwrap();
    assert!(!pool.pinned());
}

#[test]
fn initial_tasks_are_split_evenly_across_threads() {
    let pool = Pool::new(4).unwrap();
    let seen = Mutex::new(Vec::new());
    let stats = for_each(
        &pool,
        &strict(),
        (0..4002u64).map(|i| (i % 7, i)),
        |_, i, _| seen.lock().unwrap().push(i),
        &ExecOptions::default(),
    );
    let pushes: Vec<u64> = stats.per_thread.iter().map(|t| t.pushes).collect();
    assert_eq!(pushes, vec![1001, 1001, 1000, 1000]);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, (0..4002).collect::<Vec<_>>());
}

#[test]
fn one_thread_strict_runs_in_priority_order_with_the_right_priority() {
    let pool = Pool::new(1).unwrap();
    let order = Mutex::new(Vec::new());
    let prio_of = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    let stats = for_each(
        &pool,
        &strict(),
        (0..5000u64).map(|i| (prio_of(i), i)),
        |p, i, _| {
            assert_eq!(p, prio_of(i), "operator got the wrong priority for task {i}");
            order.lock().unwrap().push(p);
        },
        &ExecOptions::default(),
    );
    let order = order.into_inner().unwrap();
    assert_eq!(order.len(), 5000);
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "strict on one thread must pop in priority order");
    assert_eq!(stats.total.tasks, 5000);
    assert_eq!(stats.scheduler, "strict");
}

#[test]
fn operator_panic_is_reraised_and_the_pool_survives() {
    // `auto` runs in rounds (its own loop and barrier): it must stop too.
    for spec in [strict(), "auto".parse().unwrap()] {
        operator_panic_is_reraised(&spec);
    }
}

fn operator_panic_is_reraised(spec: &SchedulerSpec) {
    let pool = Pool::new(3).unwrap();
    let tree = Tree::new(200_000, 10);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        for_each(
            &pool,
            spec,
            tree.initial(),
            |p, id, ctx| {
                if id == 5000 {
                    // Like `panic!` but without the panic hook, whose backtrace
                    // printing (RUST_BACKTRACE) would let the others finish first.
                    panic::resume_unwind(Box::new("boom at task 5000"));
                }
                tree.run(p, id, ctx)
            },
            &ExecOptions::default(),
        )
    }));
    let payload = outcome.expect_err("the panic must reach the caller");
    let ran = tree.runs_total();
    assert!(ran < 100_000, "the other workers stop early instead of finishing the work ({ran} tasks ran)");
    let msg = payload.downcast_ref::<&str>().copied().unwrap_or("");
    assert_eq!(msg, "boom at task 5000");
    // The same pool runs the next job normally.
    let tree = Tree::new(100_000, 10);
    let stats =
        for_each(&pool, spec, tree.initial(), |p, id, ctx| tree.run(p, id, ctx), &ExecOptions::default());
    tree.check(&stats, "run after a panic");
}

#[test]
fn nested_for_each_on_the_same_pool_is_refused() {
    let pool = Pool::new(2).unwrap();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        for_each(
            &pool,
            &strict(),
            [(0, 0u32)],
            |_, _, _| {
                for_each(&pool, &strict(), [(0, 0u32)], |_, _, _| {}, &ExecOptions::default());
            },
            &ExecOptions::default(),
        )
    }));
    let payload = outcome.expect_err("nested run must panic, not deadlock");
    let msg = payload.downcast_ref::<&str>().copied().unwrap_or("");
    assert!(msg.contains("nested"), "{msg}");
    // A nested run on another pool is fine.
    let inner_pool = Pool::new(1).unwrap();
    let inner_tasks = AtomicU64::new(0);
    for_each(
        &pool,
        &strict(),
        [(0, 0u32), (0, 1)],
        |_, _, _| {
            let s = for_each(&inner_pool, &strict(), [(0, 0u32)], |_, _, _| {}, &ExecOptions::default());
            inner_tasks.fetch_add(s.total.tasks, Ordering::Relaxed);
        },
        &ExecOptions::default(),
    );
    assert_eq!(inner_tasks.into_inner(), 2);
}

#[test]
fn concurrent_callers_share_one_pool() {
    let pool = Pool::new(2).unwrap();
    std::thread::scope(|s| {
        for caller in 0..3 {
            let pool = &pool;
            s.spawn(move || {
                for round in 0..20 {
                    let tree = Tree::new(20_000 + caller * 1000 + round, 3);
                    let stats = for_each(
                        pool,
                        &strict(),
                        tree.initial(),
                        |p, id, ctx| tree.run(p, id, ctx),
                        &ExecOptions::default(),
                    );
                    tree.check(&stats, &format!("caller {caller} round {round}"));
                }
            });
        }
    });
}

#[test]
fn stale_marks_and_scheduler_counters_are_merged() {
    let pool = Pool::new(2).unwrap();
    let tree = Tree::new(50_000, 4);
    let sched = Hoard::new();
    let stats = for_each_on(
        &pool,
        &sched,
        tree.initial(),
        |p, id, ctx| {
            if id % 3 == 0 {
                ctx.mark_stale();
            }
            tree.run(p, id, ctx)
        },
        &ExecOptions::default(),
    );
    tree.check(&stats, "hoard with stale marks");
    assert_eq!(stats.total.stale_tasks, (0..50_000u64).filter(|i| i % 3 == 0).count() as u64);
    let per_thread_spurious: u64 = stats
        .per_thread
        .iter()
        .map(|t| t.sched_counters.iter().find(|(n, _)| *n == "spurious_empty_pops").unwrap().1)
        .sum();
    assert_eq!(stats.total.sched_counters, vec![("spurious_empty_pops", per_thread_spurious)]);
    assert_eq!(stats.per_thread.len(), 2);
    assert!(stats.total.empty_pops >= 2, "each thread fails at least one pop before terminating");
}

#[test]
fn cycle_timing_accounts_for_every_operation() {
    for spec in [strict(), "auto".parse().unwrap()] {
        cycle_timing_accounts(&spec);
    }
}

fn cycle_timing_accounts(spec: &SchedulerSpec) {
    let pool = Pool::new(2).unwrap();
    let tree = Tree::new(100_000, 8);
    let spin = |id: u64| (0..50u64).fold(id, |a, b| std::hint::black_box(a.rotate_left(5) ^ b));
    let stats = for_each(
        &pool,
        spec,
        tree.initial(),
        |p, id, ctx| {
            std::hint::black_box(spin(id));
            tree.run(p, id, ctx)
        },
        &ExecOptions { cycle_timing: true, ..ExecOptions::default() },
    );
    tree.check(&stats, "timed run");
    for (tid, t) in stats.per_thread.iter().enumerate() {
        let c = t.cycles.expect("cycle timing was on");
        assert_eq!(c.deq_ops, t.pops, "thread {tid}: every successful pop is timed");
        assert_eq!(c.enq_ops, t.pushes, "thread {tid}: every push is timed");
        assert!(c.total() >= c.task + c.enq + c.deq + c.failed_deq);
        if t.tasks > 0 {
            assert!(c.task > 0 && c.deq > 0, "thread {tid}: {c:?}");
        }
    }
    let total = stats.total.cycles.expect("merged cycles");
    assert_eq!(total.deq_ops, 100_000);
    assert!(total.task > 0 && total.enq > 0 && total.deq > 0);

    let untimed = for_each(
        &pool,
        &strict(),
        [(0, 0u64)],
        |_, _, _| {},
        &ExecOptions { cycle_timing: false, ..ExecOptions::default() },
    );
    assert!(untimed.total.cycles.is_none() && untimed.per_thread.iter().all(|t| t.cycles.is_none()));
}

#[test]
fn more_threads_than_cores_terminate_promptly() {
    let threads = 4 * ordo_exec::available_cores();
    let pool = Pool::new(threads).unwrap();
    let start = std::time::Instant::now();
    for round in 0..50 {
        let tree = Tree::new(2000, 1);
        let stats = for_each(
            &pool,
            &strict(),
            tree.initial(),
            |p, id, ctx| tree.run(p, id, ctx),
            &ExecOptions::default(),
        );
        tree.check(&stats, &format!("oversubscribed round {round}"));
    }
    eprintln!("50 oversubscribed runs on {threads} threads: {:?}", start.elapsed());
}

#[test]
fn pinned_workers_run_on_one_core_each() {
    let pool = Pool::new(1).unwrap();
    if !pool.pinned() {
        eprintln!("pinning not permitted here; skipping the affinity check");
        return;
    }
    let allowed = Mutex::new(Vec::new());
    for_each(
        &pool,
        &strict(),
        [(0, 0u32)],
        |_, _, _| *allowed.lock().unwrap() = core_affinity::get_core_ids().unwrap_or_default(),
        &ExecOptions::default(),
    );
    assert_eq!(allowed.into_inner().unwrap().len(), 1, "a pinned worker may run on exactly one core");
    let unpinned = Pool::with_pinning(1, false).unwrap();
    let allowed = Mutex::new(Vec::new());
    for_each(
        &unpinned,
        &strict(),
        [(0, 0u32)],
        |_, _, _| *allowed.lock().unwrap() = core_affinity::get_core_ids().unwrap_or_default(),
        &ExecOptions::default(),
    );
    // An unpinned worker inherits the affinity of the thread that made the pool.
    assert_eq!(allowed.into_inner().unwrap().len(), allowed_len_of_process());
}

/// Cores this process may run on.
fn allowed_len_of_process() -> usize {
    core_affinity::get_core_ids().map_or(1, |c| c.len())
}

/// A binary tree of tasks, all of priority 0, whose tasks record whether
/// they ran and check that their prefetch hints come before they run.
struct HintedTree {
    levels: u32,
    ran: Vec<AtomicU64>,
    prefetched: AtomicU64,
    prefetched_dependent: AtomicU64,
}

impl HintedTree {
    fn new(levels: u32) -> Self {
        HintedTree {
            levels,
            ran: (0..(1u64 << levels) - 1).map(|_| AtomicU64::new(0)).collect(),
            prefetched: AtomicU64::new(0),
            prefetched_dependent: AtomicU64::new(0),
        }
    }

    fn run(&self, threads: usize) -> ordo_exec::RunStats {
        let pool = Pool::new(threads).unwrap();
        let n = self.ran.len() as u64;
        let op = |_p: u64, id: u64, ctx: &mut ordo_exec::Context<u64>| {
            self.ran[id as usize].fetch_add(1, Ordering::Relaxed);
            for child in [2 * id + 1, 2 * id + 2] {
                if child < n {
                    ctx.push(0, child);
                }
            }
        };
        let hint = |counter: &AtomicU64, id: u64| {
            assert_eq!(self.ran[id as usize].load(Ordering::Relaxed), 0, "a hint for task {id} after it ran");
            counter.fetch_add(1, Ordering::Relaxed);
        };
        let operator = ordo_exec::with_prefetch(
            op,
            |_p: u64, &id: &u64| hint(&self.prefetched, id),
            |_p: u64, &id: &u64| hint(&self.prefetched_dependent, id),
        );
        let stats = ordo_exec::for_each_operator(
            &pool,
            &"auto".parse().unwrap(),
            [(0, 0u64)],
            operator,
            &ExecOptions::default(),
        );
        for (id, ran) in self.ran.iter().enumerate() {
            assert_eq!(ran.load(Ordering::Relaxed), 1, "task {id} ran {} times", ran.load(Ordering::Relaxed));
        }
        stats
    }
}

#[test]
fn batches_give_prefetch_hints_ahead_of_each_task() {
    // One thread: every level of the tree is one batch (the tasks a batch
    // pushes into the current bucket form the next), and a batch of `s`
    // tasks hints `s - ahead` of them.
    let tree = HintedTree::new(14);
    let stats = tree.run(1);
    assert_eq!(stats.total.tasks, (1 << 14) - 1);
    let expected =
        |ahead: usize| (0..tree.levels).map(|k| (1usize << k).saturating_sub(ahead) as u64).sum::<u64>();
    assert_eq!(tree.prefetched.into_inner(), expected(ordo_exec::PREFETCH_AHEAD));
    assert_eq!(tree.prefetched_dependent.into_inner(), expected(ordo_exec::PREFETCH_DEPENDENT_AHEAD));
    // Two threads: batches are chunks of piles; hints still come first.
    let tree = HintedTree::new(16);
    tree.run(2);
    assert!(tree.prefetched.into_inner() > 0);
}

#[test]
fn an_operator_with_hints_runs_every_task_once_on_every_executor() {
    let pool = Pool::new(2).unwrap();
    for spec in ["strict", "obim", "pmod", "auto", "auto:mode=async"] {
        let ran: Vec<AtomicU64> = (0..1001).map(|_| AtomicU64::new(0)).collect();
        let operator = ordo_exec::with_prefetch(
            |_p: u64, n: u64, ctx: &mut ordo_exec::Context<u64>| {
                ran[n as usize].fetch_add(1, Ordering::Relaxed);
                if n < 1000 {
                    ctx.push(n + 1, n + 1);
                }
            },
            |_p: u64, &n: &u64| assert_eq!(ran[n as usize].load(Ordering::Relaxed), 0),
            |_p: u64, &n: &u64| assert_eq!(ran[n as usize].load(Ordering::Relaxed), 0),
        );
        let stats = ordo_exec::for_each_operator(
            &pool,
            &spec.parse().unwrap(),
            [(0, 0u64)],
            operator,
            &ExecOptions::default(),
        );
        assert_eq!(stats.total.tasks, 1001, "{spec}");
        assert!(ran.iter().all(|r| r.load(Ordering::Relaxed) == 1), "{spec}: a task ran other than once");
    }
}

#[test]
fn the_caller_runs_worker_0_and_gets_its_affinity_back() {
    for pin in [true, false] {
        let pool = Pool::with_pinning(2, pin).unwrap();
        let caller = std::thread::current().id();
        let allowed_before = allowed_len_of_process();
        let seen = Mutex::new(Vec::new());
        pool.broadcast(&|index| {
            let allowed = core_affinity::get_core_ids().map_or(0, |c| c.len());
            seen.lock().unwrap().push((index, std::thread::current().id(), pool.is_own_worker(), allowed));
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|s| s.0);
        assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [0, 1], "each worker runs its share once");
        assert_eq!(seen[0].1, caller, "worker 0 is the calling thread");
        assert_ne!(seen[1].1, caller, "worker 1 is a thread of the pool");
        assert!(seen.iter().all(|s| s.2), "every share counts as a worker of the pool");
        if pool.pinned() {
            assert!(seen.iter().all(|s| s.3 == 1), "a pinned worker runs on one core: {seen:?}");
        }
        assert!(!pool.is_own_worker(), "after the run the caller is no worker");
        assert_eq!(allowed_len_of_process(), allowed_before, "the caller gets its own affinity back");
    }
}

#[test]
fn a_panic_in_the_callers_share_waits_for_the_others() {
    let pool = Pool::new(3).unwrap();
    let finished = AtomicU64::new(0);
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        pool.broadcast(&|index| {
            if index == 0 {
                panic::resume_unwind(Box::new("boom in worker 0"));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            finished.fetch_add(1, Ordering::Relaxed);
        })
    }));
    let payload = outcome.expect_err("worker 0's panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>().copied(), Some("boom in worker 0"));
    assert_eq!(finished.load(Ordering::Relaxed), 2, "the broadcast returns only after every worker finished");
    assert!(!pool.is_own_worker(), "the caller is no worker after the panic");
    let ran = AtomicU64::new(0);
    pool.broadcast(&|_| {
        ran.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(ran.into_inner(), 3, "the pool runs the next job on every worker");
}
