//! ordo-exec: the Galois-style `for_each` executor over any scheduler.
//!
//! A persistent [`Pool`] of worker threads runs [`for_each`]: every worker
//! pops a task from the scheduler and runs the operator on it; the operator
//! pushes new tasks through its [`Context`]. The loop ends when global
//! termination is detected, which is correct although tasks may sit in
//! private, not-yet-visible scheduler buffers (see `termination`).

use ordo_sched::{Prio, SchedulerSpec, Trace};

/// Options of one [`for_each`] run.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Split each thread's time into task / Enq / Deq / failed-Deq / other
    /// with the time-stamp counter (PMOD paper, Table 1). Costs a few cycles
    /// per operation, so it is off by default.
    pub cycle_timing: bool,
}

/// What the operator sees while running a task: where it pushes new tasks.
///
/// Pushes are buffered and handed to the scheduler after the operator
/// returns (as Galois does), so the operator closure stays non-generic while
/// every scheduler call is statically dispatched.
pub struct Context<T> {
    tid: usize,
    pushes: Vec<(Prio, T)>,
    stale: u64,
}

impl<T> Context<T> {
    /// A context for worker `tid`.
    pub fn new(tid: usize) -> Self {
        Context { tid, pushes: Vec::new(), stale: 0 }
    }

    /// Schedules `task` with priority `prio` (lower is more urgent).
    #[inline]
    pub fn push(&mut self, prio: Prio, task: T) {
        self.pushes.push((prio, task));
    }

    /// The worker's index, `0..threads`.
    #[inline]
    pub fn tid(&self) -> usize {
        self.tid
    }

    /// Records that the current task was stale (its vertex had already been
    /// improved), so it did no useful work.
    #[inline]
    pub fn mark_stale(&mut self) {
        self.stale += 1;
    }

    /// Removes the buffered pushes (used by the executor).
    pub fn drain_pushes(&mut self) -> std::vec::Drain<'_, (Prio, T)> {
        self.pushes.drain(..)
    }

    /// Number of tasks marked stale so far.
    pub fn stale_count(&self) -> u64 {
        self.stale
    }
}

/// Statistics of one worker thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadStats {
    /// Tasks executed.
    pub tasks: u64,
    /// Tasks pushed (including the initial ones this thread inserted).
    pub pushes: u64,
    /// Successful pops.
    pub pops: u64,
    /// Pops that returned nothing.
    pub empty_pops: u64,
    /// Tasks the operator marked stale.
    pub stale_tasks: u64,
    /// Explicit flushes of the handle's private buffers.
    pub flushes: u64,
    /// Scheduler-specific counters of this thread's handle.
    pub sched_counters: Vec<(&'static str, u64)>,
    /// Cycle breakdown, with [`ExecOptions::cycle_timing`].
    pub cycles: Option<CycleBreakdown>,
}

/// Where a thread's time went, in TSC cycles (PMOD paper, Table 1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CycleBreakdown {
    /// Running the operator.
    pub task: u64,
    /// Pushing into the scheduler (Enq).
    pub enq: u64,
    /// Successful pops (Deq).
    pub deq: u64,
    /// Pops that found nothing (failed Deq).
    pub failed_deq: u64,
    /// Everything else: termination detection, idling, bookkeeping.
    pub other: u64,
    /// Number of Enq operations timed.
    pub enq_ops: u64,
    /// Number of successful Deq operations timed.
    pub deq_ops: u64,
}

/// Merged statistics of a [`for_each`] run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunStats {
    /// The scheduler spec as a string, with every parameter.
    pub scheduler: String,
    /// Worker threads used.
    pub threads: usize,
    /// Wall time of the parallel phase in seconds.
    pub time_s: f64,
    /// Sums over threads.
    pub total: ThreadStats,
    /// Each thread's own statistics.
    pub per_thread: Vec<ThreadStats>,
    /// Scheduler-wide counters (from `Scheduler::report`).
    pub sched_counters: Vec<(&'static str, u64)>,
    /// Scheduler traces, e.g. PMOD's lmf over dequeues.
    pub traces: Vec<Trace>,
}

#[doc(hidden)]
pub fn _api_placeholder(_spec: &SchedulerSpec) {}
