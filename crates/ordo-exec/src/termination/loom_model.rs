//! Loom model of the termination protocol: the real worker loop
//! (`executor::run_loop`) and the real termination word, over a tiny
//! scheduler whose handles hide one task privately until flushed.
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p ordo-exec --release --lib loom`

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

use ordo_sched::{Handle, Prio, Scheduler};

use crate::executor::{run_loop, Counters};
use crate::sleep::Sleep;
use crate::termination::Termination;
use crate::Context;

/// A shared bag plus a private one-task buffer per handle that only `flush`
/// (or the next push) makes visible. With `spurious`, pops of the shared bag
/// use `try_lock` and fail when another thread holds the lock.
struct ModelSched {
    shared: Mutex<Vec<(Prio, u32)>>,
    spurious: bool,
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

impl Handle<u32> for ModelHandle<'_> {
    fn push(&mut self, prio: Prio, task: u32) {
        if let Some(old) = self.private.replace((prio, task)) {
            self.sched.shared.lock().unwrap().push(old);
        }
    }

    fn pop(&mut self) -> Option<(Prio, u32)> {
        if let Some(t) = self.private.take() {
            return Some(t);
        }
        if self.sched.spurious {
            self.sched.shared.try_lock().ok().and_then(|mut s| s.pop())
        } else {
            self.sched.shared.lock().unwrap().pop()
        }
    }

    fn flush(&mut self) {
        if let Some(t) = self.private.take() {
            self.sched.shared.lock().unwrap().push(t);
        }
    }
}

/// Tasks: 0 spawns 1 and 2; `TASKS` in all.
const TASKS: usize = 3;

struct World {
    sched: ModelSched,
    term: Termination,
    sleep: Sleep,
    runs: [AtomicUsize; TASKS],
    total_runs: AtomicUsize,
}

fn worker(world: &World, tid: usize, initial: &[(Prio, u32)]) {
    let mut handle = world.sched.handle(tid);
    for &(p, t) in initial {
        handle.push(p, t);
    }
    let op = |prio: Prio, task: u32, ctx: &mut Context<u32>| {
        world.runs[task as usize].fetch_add(1, Ordering::Relaxed);
        world.total_runs.fetch_add(1, Ordering::Relaxed);
        if task == 0 {
            ctx.push(prio + 1, 1);
            ctx.push(prio + 1, 2);
        }
    };
    let mut ctx = Context::new(tid);
    let mut counters = Counters::default();
    run_loop::<u32, _, _, false>(&mut handle, &op, &world.term, &world.sleep, &mut ctx, &mut counters);
    // Exits only after every task ran (and sees their effects).
    assert_eq!(world.total_runs.load(Ordering::Relaxed), TASKS, "worker {tid} exited early");
}

fn check(threads: usize, spurious: bool, initial_owner: usize) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(move || {
        let world = Arc::new(World {
            sched: ModelSched { shared: Mutex::new(Vec::new()), spurious },
            term: Termination::new(threads),
            sleep: Sleep::new(),
            runs: std::array::from_fn(|_| AtomicUsize::new(0)),
            total_runs: AtomicUsize::new(0),
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
        for (task, runs) in world.runs.iter().enumerate() {
            assert_eq!(runs.load(Ordering::Relaxed), 1, "task {task}");
        }
    });
}

#[test]
fn loom_two_threads_private_buffers() {
    check(2, false, 0);
}

#[test]
fn loom_two_threads_initial_task_on_the_other_thread() {
    check(2, false, 1);
}

#[test]
fn loom_two_threads_spurious_pops() {
    check(2, true, 1);
}

#[test]
fn loom_three_threads() {
    check(3, false, 2);
}
