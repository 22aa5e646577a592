//! Shared test fixtures: a deliberately unfriendly scheduler that hides tasks
//! in private buffers and fails pops spuriously, and the task-tree workload
//! of the stress tests.

#![allow(dead_code, unreachable_pub)]

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

use ordo_exec::{Context, RunStats};
use ordo_sched::{Handle, Prio, Scheduler};

/// Tasks a [`Hoard`] handle keeps private before publishing them.
pub const HOARD: usize = 64;

/// A shared LIFO bag plus, per handle, a private buffer of up to [`HOARD`]
/// tasks that other threads cannot see until it fills or is flushed; pops of
/// the shared bag use `try_lock` and fail spuriously under contention. This is
/// exactly what the `Handle` contract allows, and what breaks naive
/// termination detection.
pub struct Hoard<T> {
    shared: Mutex<Vec<(Prio, T)>>,
}

impl<T> Hoard<T> {
    pub fn new() -> Self {
        Hoard { shared: Mutex::new(Vec::new()) }
    }
}

pub struct HoardHandle<'s, T> {
    sched: &'s Hoard<T>,
    private: Vec<(Prio, T)>,
    spurious: u64,
}

impl<T: Send> Scheduler<T> for Hoard<T> {
    type Handle<'s>
        = HoardHandle<'s, T>
    where
        T: 's;

    fn handle(&self, _tid: usize) -> HoardHandle<'_, T> {
        HoardHandle { sched: self, private: Vec::with_capacity(HOARD), spurious: 0 }
    }
}

impl<T: Send> Handle<T> for HoardHandle<'_, T> {
    fn push(&mut self, prio: Prio, task: T) {
        self.private.push((prio, task));
        if self.private.len() == HOARD {
            self.flush();
        }
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        if let Some(t) = self.private.pop() {
            return Some(t);
        }
        match self.sched.shared.try_lock() {
            Ok(mut shared) => shared.pop(),
            Err(_) => {
                self.spurious += 1;
                None
            }
        }
    }

    fn flush(&mut self) {
        if !self.private.is_empty() {
            self.sched.shared.lock().unwrap().append(&mut self.private);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("spurious_empty_pops", self.spurious)]
    }
}

/// The task-tree workload: `roots` initial tasks `0..roots`; task `i` spawns
/// `roots + 2i` and `roots + 2i + 1` when they are below `n`. Every id in
/// `0..n` has exactly one parent (`(j - roots) / 2`) or is a root, so every
/// id is created exactly once. Priorities grow along the tree by 1..=8, so
/// work comes in overlapping waves of priorities.
pub struct Tree {
    pub n: u64,
    pub roots: u64,
    runs: Vec<AtomicU8>,
}

fn jitter(id: u64) -> u64 {
    (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 61) + 1
}

impl Tree {
    pub fn new(n: u64, roots: u64) -> Self {
        assert!(roots <= n);
        Tree { n, roots, runs: (0..n).map(|_| AtomicU8::new(0)).collect() }
    }

    pub fn initial(&self) -> Vec<(Prio, u64)> {
        (0..self.roots).map(|i| (jitter(i), i)).collect()
    }

    /// The operator: count the run, spawn the children.
    pub fn run(&self, prio: Prio, id: u64, ctx: &mut Context<u64>) {
        self.spawn(id, ctx, |child| prio + jitter(child));
    }

    /// [`Tree::run`] with the children at the parent's priority.
    #[allow(dead_code)]
    pub fn run_at_one_priority(&self, prio: Prio, id: u64, ctx: &mut Context<u64>) {
        self.spawn(id, ctx, |_| prio);
    }

    /// [`Tree::run`] with the first child pushed by
    /// [`Context::push_next`]: under `auto`'s rounds it runs right after
    /// its parent, elsewhere it is an ordinary push.
    #[allow(dead_code)]
    pub fn run_continuing(&self, prio: Prio, id: u64, ctx: &mut Context<u64>) {
        self.runs[id as usize].fetch_add(1, Ordering::Relaxed);
        let [first, second] = [self.roots + 2 * id, self.roots + 2 * id + 1];
        if second < self.n {
            ctx.push(prio + jitter(second), second);
        }
        if first < self.n {
            ctx.push_next(prio + jitter(first), first);
        }
    }

    /// Counts the run of `id` and pushes its children at `child_prio(child)`.
    fn spawn(&self, id: u64, ctx: &mut Context<u64>, child_prio: impl Fn(u64) -> Prio) {
        self.runs[id as usize].fetch_add(1, Ordering::Relaxed);
        for child in [self.roots + 2 * id, self.roots + 2 * id + 1] {
            if child < self.n {
                ctx.push(child_prio(child), child);
            }
        }
    }

    /// How many task executions were counted so far.
    pub fn runs_total(&self) -> u64 {
        self.runs.iter().map(|r| u64::from(r.load(Ordering::Relaxed))).sum()
    }

    /// Asserts that every task ran exactly once and that the statistics
    /// agree; `what` names the run in failure messages.
    pub fn check(&self, stats: &RunStats, what: &str) {
        let mut wrong = self
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.load(Ordering::Relaxed) != 1)
            .map(|(i, r)| (i, r.load(Ordering::Relaxed)));
        if let Some((id, runs)) = wrong.next() {
            panic!("{what}: task {id} ran {runs} times (and {} more tasks wrong)", wrong.count());
        }
        assert_eq!(stats.total.tasks, self.n, "{what}: tasks");
        assert_eq!(stats.total.pops, self.n, "{what}: successful pops");
        assert_eq!(stats.total.pushes, self.n, "{what}: pushes (initial included)");
        assert_eq!(stats.per_thread.iter().map(|t| t.tasks).sum::<u64>(), self.n, "{what}: per-thread sum");
    }
}
