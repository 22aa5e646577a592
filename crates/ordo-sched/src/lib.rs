//! ordo-sched: concurrent priority schedulers behind one interface.
//!
//! A [`Scheduler`] is shared by all worker threads; each thread works through
//! its own [`Handle`], which owns that thread's private state (chunks being
//! filled, a cached map of bags, a local heap, stolen tasks). Schedulers are
//! selected at run time by a [`SchedulerSpec`] parsed from a string such as
//! `obim:delta=14,chunk=64` and dispatched statically: [`SchedulerSpec::build`]
//! hands the concrete scheduler to a [`SchedulerVisitor`], so the executor is
//! monomorphised per scheduler and no push or pop goes through a virtual call.
//!
//! Priorities are integers ([`Prio`]); lower is more urgent.
//!
//! # Adding a scheduler
//! Write one module with the scheduler, its handle and its config (parsed from
//! [`spec::Params`]), then add one line to the `schedulers!` registration list in
//! [`spec`]. For the deterministic simulator (`ordo-sim`) to measure it, also:
//! - implement [`Handle::private_tasks`] if the handle holds tasks other
//!   handles cannot pop (the default reports none, right for a handle that
//!   buffers nothing);
//! - call [`probe::read`] / [`probe::write`] with the address of each shared
//!   structure where an operation reads or writes it (locks and
//!   read-modify-writes are writes), so that its communication is counted.

pub mod affinity;
pub mod auto;
pub(crate) mod bag;
pub mod chunk;
pub(crate) mod dary_heap;
pub mod fifo;
pub mod lifo;
pub mod mq;
pub mod obim;
pub mod pmod;
pub mod probe;
pub mod reld;
pub(crate) mod rng;
pub mod smq;
pub mod spec;
pub mod spraylist;
pub mod strict;
pub(crate) mod sync;
pub mod topology;

#[cfg(test)]
pub(crate) mod test_support;

pub use spec::{Params, SchedulerSpec, SpecError};

/// A task priority; lower values are more urgent.
pub type Prio = u64;

/// A concurrent priority scheduler of tasks of type `T`.
pub trait Scheduler<T: Send>: Sync {
    /// The per-thread access point. Created on the thread that uses it.
    type Handle<'s>: Handle<T>
    where
        Self: 's;

    /// The handle of worker `tid` (`0..threads`, the thread count given at
    /// construction). Each `tid` is used by at most one live handle at a time.
    fn handle(&self, tid: usize) -> Self::Handle<'_>;

    /// Scheduler-wide counters and traces, read after a run (e.g. PMOD's lmf
    /// trace). Per-thread counters come from [`Handle::counters`].
    fn report(&self) -> SchedReport {
        SchedReport::default()
    }

    /// How the executor drives this scheduler: by default with the pop loop
    /// through [`Scheduler::handle`]; `auto` asks for bulk-synchronous
    /// rounds instead (see [`Execution`]).
    fn execution(&self) -> Execution {
        Execution::PopLoop
    }
}

/// How an executor drives a scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Execution {
    /// Every worker pops a task through its [`Handle`], runs it and pushes
    /// what it produced, until termination is detected (the Galois loop).
    PopLoop,
    /// Bulk-synchronous rounds over per-thread buckets
    /// ([`auto::buckets::Buckets`]): in each round every thread runs the
    /// tasks of one bucket key, shared in chunks, and the width of the next
    /// round's buckets comes from [`auto::rounds::RoundController`]. The
    /// scheduler's handles are not used; the executor keeps the buckets.
    Rounds(auto::rounds::RoundsSpec),
}

/// One thread's access to a [`Scheduler`].
///
/// # Contract (termination detection depends on it)
/// - `pop` returns tasks pushed through this handle that are still in its
///   private buffers, as well as visible tasks of other threads.
/// - `pop` may fail spuriously (return `None` although tasks exist) only while
///   other threads are operating on the scheduler. When no other thread is
///   inside a scheduler operation, `pop` returns `None` only if the scheduler
///   holds no task at all.
/// - After `flush`, every task pushed through this handle is visible to the
///   other threads' `pop`.
pub trait Handle<T> {
    /// Inserts `task` with priority `prio`. It may stay private to this
    /// handle until a buffer fills or [`Handle::flush`] is called.
    fn push(&mut self, prio: Prio, task: T);

    /// Removes a task, ideally one of the most urgent ones.
    fn pop(&mut self) -> Option<(Prio, T)>;

    /// Makes every task buffered in this handle visible to other threads.
    fn flush(&mut self);

    /// Scheduler-specific per-thread event counters, by name (e.g. chunks
    /// published, slow pops, steals). The executor sums them over threads.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// The tasks this handle holds that no other handle's `pop` can return
    /// now (invisible work, PMOD paper §3.3 O2), split by how they got there.
    /// Used by the deterministic simulator after every operation, so it must
    /// be O(1) and exact; nothing calls it in normal runs. The default, no
    /// task, is right for handles that buffer nothing.
    fn private_tasks(&self) -> PrivateTasks {
        PrivateTasks::default()
    }
}

/// Tasks a handle holds privately (see [`Handle::private_tasks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrivateTasks {
    /// Pushed through this handle and never made visible yet: partly filled
    /// chunks (obim, PMOD, fifo), an insert buffer (MQ), the local heap
    /// behind the stealing buffer (SMQ).
    pub unpublished: usize,
    /// Taken out of a shared structure into a private one: a chunk being
    /// popped (obim, PMOD, fifo), a delete buffer (MQ), stolen tasks (SMQ).
    pub claimed: usize,
}

impl PrivateTasks {
    /// Both kinds together.
    pub fn total(&self) -> usize {
        self.unpublished + self.claimed
    }
}

/// Scheduler-wide results reported after a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchedReport {
    /// Named global counters.
    pub counters: Vec<(&'static str, u64)>,
    /// Named traces of a parameter over the run.
    pub traces: Vec<Trace>,
}

/// A parameter's value over a run, e.g. PMOD's merging factor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// What is traced (e.g. `"lmf"`).
    pub name: &'static str,
    /// What the x coordinate counts (e.g. `"dequeues"`).
    pub x_label: &'static str,
    /// `(x, value)` at each change, starting with the initial value.
    pub points: Vec<(u64, u64)>,
}

/// Receives a concrete scheduler built from a [`SchedulerSpec`]; this is how a
/// run-time choice becomes a statically dispatched, monomorphised call.
pub trait SchedulerVisitor<T: Send> {
    /// What the visit produces.
    type Output;
    /// Called with the scheduler the spec describes.
    fn visit<S: Scheduler<T>>(self, sched: S) -> Self::Output;
}
