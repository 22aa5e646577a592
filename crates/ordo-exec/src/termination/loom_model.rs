//! Loom model of the termination protocol: the real worker loop
//! (`executor::run_loop`) and the real termination word, over a tiny
//! scheduler whose handles hide one task privately until flushed.
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p ordo-exec --release --lib loom`

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

use ordo_sched::{Handle, Prio, Scheduler};

use crate::executor::{run_loop, Counters, Observer};
use crate::sleep::Sleep;
use crate::termination::Termination;
use crate::Context;

/// When the model scheduler's `pop` fails although tasks are visible.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spurious {
    /// Never: `pop` waits for the lock.
    Never,
    /// When another thread holds the lock (`try_lock`).
    TryLock,
    /// Whenever another thread is inside any scheduler operation: the most
    /// the `Handle` contract allows. This is what makes "every thread idle
    /// while a task is visible" reachable, so that a scan can race with
    /// another scan that takes that task (the case the epoch exists for).
    WhileOthersInside,
}

/// A shared bag plus a private one-task buffer per handle that only `flush`
/// (or the next push) makes visible; pops fail spuriously as `spurious` says.
struct ModelSched {
    shared: Mutex<Vec<(Prio, u32)>>,
    spurious: Spurious,
    /// Threads inside a scheduler operation (for `WhileOthersInside`).
    inside: AtomicUsize,
}

struct ModelHandle<'s> {
    sched: &'s ModelSched,
    private: Option<(Prio, u32)>,
}

impl Scheduler<u32> for ModelSched {
    type Handle<'s> = ModelHandle<'s>;

    fn handle(&self, _tid: usize) -> ModelHandle<'_> {
        ModelHandle { sched: self, private: None }
    }
}

impl ModelHandle<'_> {
    /// Runs `f` counted as "inside the scheduler"; tells it whether another
    /// thread was inside when it entered.
    fn inside<R>(&mut self, f: impl FnOnce(&mut Self, bool) -> R) -> R {
        if self.sched.spurious != Spurious::WhileOthersInside {
            return f(self, false);
        }
        let others = self.sched.inside.fetch_add(1, Ordering::SeqCst) > 0;
        let r = f(self, others);
        self.sched.inside.fetch_sub(1, Ordering::SeqCst);
        r
    }
}

impl Handle<u32> for ModelHandle<'_> {
    fn push(&mut self, prio: Prio, task: u32) {
        self.inside(|h, _| {
            if let Some(old) = h.private.replace((prio, task)) {
                h.sched.shared.lock().unwrap().push(old);
            }
        })
    }

    fn pop(&mut self) -> Option<(Prio, u32)> {
        self.inside(|h, others_inside| {
            if let Some(t) = h.private.take() {
                return Some(t);
            }
            match h.sched.spurious {
                Spurious::Never => h.sched.shared.lock().unwrap().pop(),
                Spurious::TryLock => h.sched.shared.try_lock().ok().and_then(|mut s| s.pop()),
                Spurious::WhileOthersInside if others_inside => None,
                Spurious::WhileOthersInside => h.sched.shared.lock().unwrap().pop(),
            }
        })
    }

    fn flush(&mut self) {
        self.inside(|h, _| {
            if let Some(t) = h.private.take() {
                h.sched.shared.lock().unwrap().push(t);
            }
        })
    }
}

/// Task ids: 0 (initial) spawns 1 and 2 when the model `spawns`.
const MAX_TASKS: usize = 3;

struct World {
    sched: ModelSched,
    term: Termination,
    sleep: Sleep,
    runs: [AtomicUsize; MAX_TASKS],
    total_runs: AtomicUsize,
    spawns: bool,
}

impl World {
    fn tasks(&self) -> usize {
        if self.spawns {
            3
        } else {
            1
        }
    }
}

fn worker(world: &World, tid: usize, initial: &[(Prio, u32)]) {
    let mut handle = world.sched.handle(tid);
    for &(p, t) in initial {
        handle.push(p, t);
    }
    let op = |prio: Prio, task: u32, ctx: &mut Context<u32>| {
        world.runs[task as usize].fetch_add(1, Ordering::Relaxed);
        world.total_runs.fetch_add(1, Ordering::Relaxed);
        if task == 0 && world.spawns {
            ctx.push(prio + 1, 1);
            ctx.push(prio + 1, 2);
        }
    };
    let mut ctx = Context::new(tid);
    let mut counters = Counters::default();
    let not_cancelled = std::sync::atomic::AtomicBool::new(false);
    let observer = Observer { tid, monitor: None, cancelled: &not_cancelled };
    run_loop::<u32, _, _, false>(
        &mut handle,
        &op,
        &world.term,
        &world.sleep,
        &mut ctx,
        &mut counters,
        &observer,
    );
    // Exits only after every task ran (and sees their effects).
    assert_eq!(world.total_runs.load(Ordering::Relaxed), world.tasks(), "worker {tid} exited early");
}

/// Explores `threads` workers; worker `initial_owner` pushes task 0 into
/// its private buffer before its loop.
fn check(threads: usize, spurious: Spurious, spawns: bool, initial_owner: usize, preemptions: usize) {
    let mut builder = loom::model::Builder::new();
    // Idle threads spin (yielding) until they see termination; bounding
    // preemptions keeps those loops, and the model, finite.
    builder.preemption_bound = Some(preemptions);
    builder.max_branches = 100_000;
    if threads > 2 {
        // With three threads, every yield of an idle thread is a two-way
        // choice, so the exhaustive model grows exponentially with the number
        // of idle rounds: explore a bounded prefix of the schedule space.
        builder.max_duration = Some(std::time::Duration::from_secs(20));
        builder.checkpoint_interval = 500; // where loom checks the duration
    }
    builder.check(move || {
        let world = Arc::new(World {
            sched: ModelSched { shared: Mutex::new(Vec::new()), spurious, inside: AtomicUsize::new(0) },
            term: Termination::new(threads),
            sleep: Sleep::new(3),
            runs: std::array::from_fn(|_| AtomicUsize::new(0)),
            total_runs: AtomicUsize::new(0),
            spawns,
        });
        let others: Vec<_> = (1..threads)
            .map(|tid| {
                let world = world.clone();
                let initial: &'static [(Prio, u32)] = if tid == initial_owner { &[(0, 0)] } else { &[] };
                thread::spawn(move || worker(&world, tid, initial))
            })
            .collect();
        worker(&world, 0, if initial_owner == 0 { &[(0, 0)] } else { &[] });
        for t in others {
            t.join().unwrap();
        }
        for (task, runs) in world.runs.iter().enumerate().take(world.tasks()) {
            assert_eq!(runs.load(Ordering::Relaxed), 1, "task {task}");
        }
    });
}

#[test]
fn loom_two_threads_private_buffers() {
    check(2, Spurious::Never, true, 0, 3);
}

#[test]
fn loom_two_threads_initial_task_on_the_other_thread() {
    check(2, Spurious::Never, true, 1, 3);
}

#[test]
fn loom_two_threads_try_lock_pops() {
    check(2, Spurious::TryLock, true, 1, 3);
}

#[test]
fn loom_two_threads_adversarial_pops() {
    check(2, Spurious::WhileOthersInside, true, 0, 4);
}

#[test]
fn loom_three_threads() {
    check(3, Spurious::Never, false, 2, 2);
}
