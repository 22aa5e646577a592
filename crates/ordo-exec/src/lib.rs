//! ordo-exec: the Galois-style `for_each` executor over any scheduler.
//!
//! A persistent [`Pool`] of worker threads runs [`for_each`]: every worker
//! pops a task from the scheduler and runs the operator on it; the operator
//! pushes new tasks through its [`Context`]. The loop ends when global
//! termination is detected, which is correct although tasks may sit in
//! private, not-yet-visible scheduler buffers (see `termination/README.md`).
//!
//! ```text
//! Pool::new(threads)           persistent workers, pinned one per core when they fit
//! for_each(pool, spec, ..)     builds the scheduler, runs to termination, returns RunStats
//! for_each_on(pool, &sched, ..) the same on a scheduler built by hand
//! for_each_operator(..)        for_each with any Operator, e.g. with_prefetch(op, ..)
//! pool.collect_indexed(n, f)   a run's per-vertex array, each worker writing a block
//! pool.for_chunks(n, grain, f) a data-parallel loop, chunks claimed dynamically (`parallel`)
//! ```
//!
//! The `auto` scheduler's runs are bulk-synchronous rounds instead of the
//! pop loop (`rounds/`); they run tasks in batches and call an operator's
//! prefetch hints ([`Operator`]) a few tasks ahead.
//!
//! Statistics are per-thread plain counters merged at the end; the optional
//! cycle breakdown ([`ExecOptions::cycle_timing`]) follows Table 1 of the
//! PMOD paper (Yesil et al., SC'19, §3.1).
//! The optional task notes ([`ExecOptions::log_tasks`], [`Context::note`],
//! 16 bytes per task) are the raw material of that table's good / useless
//! work split, computed after the run by `ordo_algos::work_split`.

mod executor;
mod first_touch;
mod monitor;
mod operator;
mod parallel;
mod pool;
mod rounds;
mod sleep;
mod sync;
mod termination;
mod timing;

pub use executor::{for_each, for_each_on, for_each_operator};
pub use first_touch::PARALLEL_COLLECT_MIN_LEN;
pub use monitor::{RunMonitor, PUBLISH_EVERY};
pub use operator::{
    prefetch, with_barrier_hook, with_continuations, with_prefetch, Operator, WithBarrierHook,
    WithContinuations, WithPrefetch, PREFETCH_AHEAD, PREFETCH_DEPENDENT_AHEAD,
};
pub use pool::{available_cores, Pool, PoolBuilder, PoolError, MAX_THREADS};
pub use timing::CYCLE_UNIT;

/// The workspace README's Rust code blocks, compiled and run as doc tests of
/// this crate so that the README's example cannot drift from the API. Its
/// shell and Python blocks are tagged with their languages, which rustdoc
/// does not run.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

use ordo_sched::{Prio, Trace};

/// Options of one [`for_each`] run.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Split each thread's time into task / Enq / Deq / failed-Deq / other
    /// with the time-stamp counter (PMOD paper, Table 1). Costs a few cycles
    /// per operation, so it is off by default.
    pub cycle_timing: bool,
    /// Keep a [`TaskNote`] for every task whose operator calls
    /// [`Context::note`], handed back in [`RunStats::task_notes`]; the
    /// useless-work classification (good vs useless work, PMOD paper §3.1,
    /// Table 1) is computed from them after the run.
    ///
    /// Memory: 16 bytes per executed task (`size_of::<TaskNote>()`), held
    /// until the run returns, so 1.6 GB per 10^8 tasks. Off by default; when
    /// off, [`Context::note`] is one predictable branch.
    pub log_tasks: bool,
    /// Progress counters to publish into and a cancellation flag to obey
    /// (see [`RunMonitor`]); `None` costs one predictable branch per
    /// [`PUBLISH_EVERY`] tasks.
    pub monitor: Option<std::sync::Arc<RunMonitor>>,
}

/// What one executed task said about itself through [`Context::note`], and
/// how long its operator ran: the raw material of the good / useless work
/// split (PMOD paper §3.1, Table 1).
///
/// 16 bytes: the key and the cycles share one 8-byte word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskNote {
    /// The value the task was scheduled with (e.g. the tentative distance).
    pub value: u64,
    /// What the task works on (e.g. the vertex).
    pub key: u32,
    /// The operator's cycles for this task, the same clock reads that feed
    /// [`CycleBreakdown::task`]; 0 without [`ExecOptions::cycle_timing`].
    /// A task longer than `u32::MAX` cycles (over a second) is recorded as
    /// `u32::MAX` ([`TaskNote::SATURATED_CYCLES`]).
    pub cycles: u32,
}

impl TaskNote {
    /// The `cycles` of a task whose operator ran at least `2^32 - 1` cycles.
    pub const SATURATED_CYCLES: u32 = u32::MAX;
}

const _: () = assert!(std::mem::size_of::<TaskNote>() == 16);

/// The per-thread buckets of `auto`'s rounds, by how an entry stores its
/// priority (see [`Operator::NARROW_PRIORITIES`]).
pub(crate) enum RoundBuckets<T> {
    /// Whole `u64` priorities.
    Wide(ordo_sched::auto::buckets::Buckets<T>),
    /// Priorities below 2^32, stored as `u32`.
    Narrow(ordo_sched::auto::buckets::Buckets<T, u32>),
}

/// What the operator sees while running a task: where it pushes new tasks.
///
/// Under the pop loop, pushes are buffered and handed to the scheduler
/// after the operator returns (as Galois does), so the operator closure
/// stays non-generic while every scheduler call is statically dispatched.
/// Under `auto`'s rounds the context holds the thread's buckets and a push
/// goes straight into them (no second copy of the task).
pub struct Context<T> {
    tid: usize,
    pushes: Vec<(Prio, T)>,
    /// The rounds' per-thread buckets.
    buckets: Option<RoundBuckets<T>>,
    /// Whether pushes go to `pushes` even with `buckets` (the rounds loop
    /// with cycle timing, so that pushing stays a separate, timed phase).
    buffer: bool,
    /// The task [`Context::push_next`] asked to run right after the current
    /// one, while the executor honours it (`continues`).
    next: Option<(Prio, T)>,
    /// Whether the executor runs [`Context::push_next`]'s task at once.
    continues: bool,
    stale: u64,
    /// [`ExecOptions::log_tasks`]: whether [`Context::note`] records.
    log_tasks: bool,
    /// Whether the current task already has its note (the last of `notes`).
    noted_this_task: bool,
    /// This worker's notes, in execution order.
    notes: Vec<TaskNote>,
    /// [`Context::logs_plain_stores`].
    store_log_on: bool,
    /// The plain stores logged since the last barrier.
    store_log: Vec<(Prio, T)>,
    /// The logs of the two intervals before, the more recent first: a
    /// store is rechecked at the second barrier after its interval's.
    store_log_sealed: [Vec<(Prio, T)>; 2],
    /// Whether the run is over (the next recheck is the last and takes
    /// every log).
    store_log_over: bool,
    /// Set for the next recheck when a thread was excused from a round
    /// ([`Context::hold_plain_stores`]).
    store_log_hold: bool,
    /// Log entries rechecked, and repaired, so far.
    rechecked_stores: u64,
    repaired_stores: u64,
}

impl<T> Context<T> {
    /// A context for worker `tid`, with task notes off.
    pub fn new(tid: usize) -> Self {
        Context {
            tid,
            pushes: Vec::new(),
            buckets: None,
            buffer: true,
            next: None,
            continues: false,
            stale: 0,
            log_tasks: false,
            noted_this_task: false,
            notes: Vec::new(),
            store_log_on: false,
            store_log: Vec::new(),
            store_log_sealed: [Vec::new(), Vec::new()],
            store_log_over: false,
            store_log_hold: false,
            rechecked_stores: 0,
            repaired_stores: 0,
        }
    }

    /// Whether the executor runs [`Operator::after_barrier`] on this thread
    /// after every barrier, the last one included: true under `auto`'s
    /// rounds on more than one thread, false everywhere else.
    ///
    /// Then an operator may lower a shared value with a plain load and
    /// store instead of an atomic read-modify-write, which a concurrent
    /// store can overwrite (a *lost* lowering), provided it logs every such
    /// store ([`Context::log_plain_store`]) and repairs the lost ones in
    /// `after_barrier` ([`Context::recheck_plain_stores`]). (A store whose
    /// value goes with a task pushed right after it may instead be logged
    /// by that task when it runs, if the task repairs a larger value it
    /// finds and is not stale while the store's value stands; SSSP's
    /// module docs give the argument.) A store is
    /// rechecked after the second barrier that follows the one ending its
    /// interval: a store is lost only to one whose load came before it, a
    /// task never spans a barrier, and the stores a thread makes between
    /// two barriers it passes reach every thread by the barrier after
    /// (not before: a thread that has arrived at a barrier may still run
    /// tasks until it opens, the rounds' running ahead). So whatever
    /// overwrote a store, made at most one interval later, is visible by
    /// then, and the recheck restores the smaller value; the run's last
    /// recheck takes every log, when no plain store can come any more.
    /// On x86 an atomic lowering is a `lock cmpxchg`, which stalls the core
    /// until its store buffer drains; a plain store does not, and the log
    /// costs only an append per store and a load per recheck
    /// (`docs/design/2026-11-30-auto-rounds.md`).
    ///
    /// [`Operator::after_barrier`]: crate::Operator::after_barrier
    #[inline(always)]
    pub fn logs_plain_stores(&self) -> bool {
        self.store_log_on
    }

    /// Turns the store log on (the rounds on more than one thread).
    pub(crate) fn enable_store_log(&mut self) {
        self.store_log_on = true;
    }

    /// Marks the run as over, before the last call of
    /// [`Operator::after_barrier`]: its
    /// recheck takes every log, since no plain store can come any more.
    /// Called by the executor (public for models of the protocol).
    pub fn end_store_log(&mut self) {
        self.store_log_over = true;
    }

    /// Whether the next recheck holds every log instead of rechecking the
    /// due one. The rounds set it at a barrier that a thread did not pass
    /// (it was excused from the round while descheduled, and runs its tasks
    /// across the others' barriers): its tasks then span barriers, so a
    /// store of any interval since it left may still be overwritten by one
    /// of its loads from before. Held logs become due two barriers after
    /// the first one every thread passes again.
    pub(crate) fn hold_plain_stores(&mut self, hold: bool) {
        self.store_log_hold = hold;
    }

    /// Logs a plain store of `prio` into the state of `task`, to be
    /// rechecked later (see [`Context::logs_plain_stores`]).
    #[inline(always)]
    pub fn log_plain_store(&mut self, prio: Prio, task: T) {
        self.store_log.push((prio, task));
    }

    /// Rechecks the stores that are due, those logged before the barrier
    /// two before this one (every logged store, once the run is over).
    /// `repair(prio, task)` makes sure the state of `task` is at least as
    /// good as `prio` (atomically: other threads may be storing again) and
    /// returns whether it had to change it. A repaired entry is logged
    /// again, because a plain store that began before the repair may
    /// overwrite it in turn.
    pub fn recheck_plain_stores(&mut self, mut repair: impl FnMut(Prio, &T) -> bool) {
        if self.store_log_over {
            let [recent, older] = &mut self.store_log_sealed;
            for (p, t) in older.drain(..).chain(recent.drain(..)).chain(self.store_log.drain(..)) {
                self.rechecked_stores += 1;
                // Nothing can overwrite a repair now.
                self.repaired_stores += u64::from(repair(p, &t));
            }
            return;
        }
        if self.store_log_hold {
            // Nothing is due: the interval's log joins the recent one.
            let mut log = std::mem::take(&mut self.store_log);
            self.store_log_sealed[0].append(&mut log);
            self.store_log = log;
            return;
        }
        let mut due = std::mem::take(&mut self.store_log_sealed[1]);
        self.store_log_sealed[1] = std::mem::take(&mut self.store_log_sealed[0]);
        self.store_log_sealed[0] = std::mem::take(&mut self.store_log);
        self.rechecked_stores += due.len() as u64;
        for (p, t) in due.drain(..) {
            if repair(p, &t) {
                self.repaired_stores += 1;
                self.store_log.push((p, t));
            }
        }
        // The drained log's buffer becomes the new interval's log.
        due.append(&mut self.store_log);
        self.store_log = due;
    }

    /// Log entries rechecked and repaired so far (used by the executor).
    pub(crate) fn store_log_counts(&self) -> (u64, u64) {
        (self.rechecked_stores, self.repaired_stores)
    }

    /// A context for worker `tid` that records task notes when `log_tasks`.
    pub(crate) fn with_task_log(tid: usize, log_tasks: bool) -> Self {
        let mut ctx = Context::new(tid);
        ctx.log_tasks = log_tasks;
        ctx
    }

    /// Notes what the current task is (`key`, e.g. its vertex) and the value
    /// it was scheduled with (`value`, e.g. its tentative distance), for the
    /// good / useless work split computed after the run.
    ///
    /// Call it once at the start of every task, stale ones included; a second
    /// call in the same task replaces the first. With
    /// [`ExecOptions::log_tasks`] on it records a [`TaskNote`] (16 bytes; the
    /// executor fills its `cycles` when the operator returns); off, it is one
    /// predictable branch and nothing else.
    #[inline]
    pub fn note(&mut self, key: u32, value: u64) {
        if self.log_tasks {
            self.record_note(key, value);
        }
    }

    /// The logging half of [`Context::note`], kept out of line so the
    /// logging-off path stays a single branch.
    #[inline(never)]
    fn record_note(&mut self, key: u32, value: u64) {
        let note = TaskNote { key, value, cycles: 0 };
        match self.notes.last_mut() {
            Some(last) if self.noted_this_task => *last = note,
            _ => {
                self.notes.push(note);
                self.noted_this_task = true;
            }
        }
    }

    /// Whether [`Context::note`] records (task notes are on): an operator
    /// that would do some tasks' work inline instead of scheduling them
    /// should schedule them then, so that each piece of work has its note.
    #[inline]
    pub fn records_notes(&self) -> bool {
        self.log_tasks
    }

    /// Closes the current task's note, if it has one, with the operator's
    /// `cycles` (used by the executor after the operator returns).
    #[inline]
    pub(crate) fn end_task(&mut self, cycles: u64) {
        if self.log_tasks && self.noted_this_task {
            self.noted_this_task = false;
            if let Some(last) = self.notes.last_mut() {
                last.cycles = u32::try_from(cycles).unwrap_or(TaskNote::SATURATED_CYCLES);
            }
        }
    }

    /// Takes this worker's notes, in execution order (used by the executor).
    pub(crate) fn take_notes(&mut self) -> Vec<TaskNote> {
        std::mem::take(&mut self.notes)
    }

    /// Schedules `task` with priority `prio` (lower is more urgent).
    // Always inlined: the operator's hot loop pushes, and with two kinds of
    // buckets the compiler's own choice is an out-of-line call, a visible
    // share of a task that does little else.
    #[inline(always)]
    pub fn push(&mut self, prio: Prio, task: T) {
        if !self.buffer {
            match &mut self.buckets {
                Some(RoundBuckets::Wide(b)) => {
                    b.push(prio, task);
                    return;
                }
                Some(RoundBuckets::Narrow(b)) => {
                    b.push(prio, task);
                    return;
                }
                None => {}
            }
        }
        self.pushes.push((prio, task));
    }

    /// Schedules `task` with priority `prio`, as [`Context::push`] does, and
    /// asks to run it on this thread right after the current task.
    ///
    /// For a task that continues what the current one just made hot: Boruvka
    /// pushes the component it has just merged, whose heap and lock are in
    /// this core's cache now and may not be when its bucket comes up (a
    /// LIFO scheduler runs it next by construction). `auto`'s rounds honour the
    /// request: the task runs at once, ahead of its priority, and counts as
    /// pushed and popped. Every other executor treats it as a push, so the
    /// priority order of the scheduler under study is untouched. The rounds
    /// look for a continuation only after the tasks of an operator that
    /// declares them ([`Operator::CONTINUATIONS`], [`with_continuations`]);
    /// for any other operator this is [`Context::push`]. A second call in
    /// the same task pushes the first one's task normally: only the newest
    /// continues.
    #[inline]
    pub fn push_next(&mut self, prio: Prio, task: T) {
        if !self.continues {
            self.push(prio, task);
        } else if let Some((p, t)) = self.next.replace((prio, task)) {
            self.push(p, t);
        }
    }

    /// The task [`Context::push_next`] left to run next, if any (used by
    /// the executor after each task).
    #[inline(always)]
    pub(crate) fn take_next(&mut self) -> Option<(Prio, T)> {
        self.next.take()
    }

    /// Gives the context the rounds' per-thread buckets; unless `buffer`,
    /// pushes go straight into them.
    /// With `continues`, [`Context::push_next`] keeps its task for the
    /// rounds to run at once.
    pub(crate) fn keep_buckets(&mut self, buckets: RoundBuckets<T>, buffer: bool, continues: bool) {
        self.buckets = Some(buckets);
        self.buffer = buffer;
        self.continues = continues;
    }

    /// The buckets given by [`Context::keep_buckets`].
    #[inline]
    pub(crate) fn round_buckets(&mut self) -> &mut RoundBuckets<T> {
        self.buckets.as_mut().expect("the rounds loop gives the context its buckets")
    }

    /// Moves the buffered pushes into the buckets; returns how many.
    pub(crate) fn file_pushes(&mut self) -> u64 {
        let n = self.pushes.len() as u64;
        match self.buckets.as_mut().expect("the rounds loop gives the context its buckets") {
            RoundBuckets::Wide(b) => self.pushes.drain(..).for_each(|(p, t)| {
                b.push(p, t);
            }),
            RoundBuckets::Narrow(b) => self.pushes.drain(..).for_each(|(p, t)| {
                b.push(p, t);
            }),
        }
        n
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
    /// Explicit flushes of the handle's private buffers (one each time the
    /// thread's pop came back empty while it was working).
    pub flushes: u64,
    /// Scans for work by this thread while idle (each one touches the shared
    /// termination word twice).
    pub idle_scans: u64,
    /// Times this thread parked (slept on the condition variable) while idle.
    pub parks: u64,
    /// Scheduler-specific counters of this thread's handle.
    pub sched_counters: Vec<(&'static str, u64)>,
    /// Cycle breakdown, with [`ExecOptions::cycle_timing`].
    pub cycles: Option<CycleBreakdown>,
}

/// Where a thread's time went, in TSC cycles ([`CYCLE_UNIT`]; nanoseconds on
/// targets without a TSC), as in Table 1 of the PMOD paper.
///
/// Initial pushes and flushes count as Enq; pops made while idle count as
/// Deq or failed Deq like any other; waiting at the start barrier, idling
/// and termination detection are Other.
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
    /// With [`ExecOptions::log_tasks`]: one list per thread (index = tid) of
    /// the notes of the tasks that thread ran, in its execution order (tasks
    /// whose operator never called [`Context::note`] have none). Empty when
    /// `log_tasks` is off.
    pub task_notes: Vec<Vec<TaskNote>>,
    /// The run stopped early because its [`RunMonitor`] was cancelled: the
    /// tasks left in the scheduler never ran, so the algorithm's result is
    /// incomplete.
    pub cancelled: bool,
}

impl CycleBreakdown {
    /// All the time of the thread: the sum of the five classes.
    pub fn total(&self) -> u64 {
        self.task + self.enq + self.deq + self.failed_deq + self.other
    }

    /// Field-wise sum.
    fn add(&mut self, o: &CycleBreakdown) {
        self.task += o.task;
        self.enq += o.enq;
        self.deq += o.deq;
        self.failed_deq += o.failed_deq;
        self.other += o.other;
        self.enq_ops += o.enq_ops;
        self.deq_ops += o.deq_ops;
    }
}

impl ThreadStats {
    /// The sum of `threads`' statistics: counters add up, scheduler counters
    /// add up by name (in order of first appearance), cycles add up when
    /// every thread has them.
    pub fn sum(threads: &[ThreadStats]) -> ThreadStats {
        let mut total = ThreadStats::default();
        let mut cycles = CycleBreakdown::default();
        for t in threads {
            total.tasks += t.tasks;
            total.pushes += t.pushes;
            total.pops += t.pops;
            total.empty_pops += t.empty_pops;
            total.stale_tasks += t.stale_tasks;
            total.flushes += t.flushes;
            total.idle_scans += t.idle_scans;
            total.parks += t.parks;
            for &(name, value) in &t.sched_counters {
                match total.sched_counters.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sum)) => *sum += value,
                    None => total.sched_counters.push((name, value)),
                }
            }
            if let Some(c) = &t.cycles {
                cycles.add(c);
            }
        }
        if !threads.is_empty() && threads.iter().all(|t| t.cycles.is_some()) {
            total.cycles = Some(cycles);
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(tasks: u64, counters: Vec<(&'static str, u64)>, cycles: Option<CycleBreakdown>) -> ThreadStats {
        ThreadStats { tasks, pushes: 2 * tasks, sched_counters: counters, cycles, ..ThreadStats::default() }
    }

    #[test]
    fn sum_adds_counters_by_name_and_cycles_only_when_all_have_them() {
        let c =
            |task| CycleBreakdown { task, enq: 1, deq: 2, failed_deq: 3, other: 4, enq_ops: 5, deq_ops: 6 };
        let a = thread(3, vec![("steals", 1), ("slow_pops", 10)], Some(c(7)));
        let b = thread(4, vec![("slow_pops", 5), ("merges", 2)], Some(c(8)));
        let s = ThreadStats::sum(&[a.clone(), b.clone()]);
        assert_eq!((s.tasks, s.pushes), (7, 14));
        assert_eq!(s.sched_counters, vec![("steals", 1), ("slow_pops", 15), ("merges", 2)]);
        let cy = s.cycles.unwrap();
        assert_eq!((cy.task, cy.enq, cy.other, cy.deq_ops), (15, 2, 8, 12));
        assert_eq!(cy.total(), 15 + 2 + 4 + 6 + 8);
        let no_cycles = thread(1, vec![], None);
        assert!(ThreadStats::sum(&[a, b, no_cycles]).cycles.is_none());
        assert_eq!(ThreadStats::sum(&[]), ThreadStats::default());
    }

    /// Runs a recheck that repairs the entries of `repaired` tasks; returns
    /// the entries it was given, in order.
    fn recheck(ctx: &mut Context<u32>, repaired: &[u32]) -> Vec<(Prio, u32)> {
        let mut seen = Vec::new();
        ctx.recheck_plain_stores(|prio, &task| {
            seen.push((prio, task));
            repaired.contains(&task)
        });
        seen
    }

    #[test]
    fn a_store_is_rechecked_at_the_second_barrier_after_its_interval() {
        let mut ctx = Context::<u32>::new(0);
        assert!(!ctx.logs_plain_stores(), "only the rounds turn the log on");
        ctx.log_plain_store(5, 1);
        ctx.log_plain_store(7, 2);
        // The barrier that ends their interval, then the next: not yet due.
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        ctx.log_plain_store(9, 3);
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        // The second barrier after their interval: due; one is repaired,
        // and logged again in the interval that begins.
        assert_eq!(recheck(&mut ctx, &[2]), vec![(5, 1), (7, 2)]);
        assert_eq!(ctx.store_log_counts(), (2, 1));
        ctx.log_plain_store(4, 8);
        assert_eq!(recheck(&mut ctx, &[]), vec![(9, 3)]);
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        // The repair and the store made after it, in the same interval.
        assert_eq!(recheck(&mut ctx, &[]), vec![(7, 2), (4, 8)]);
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        assert_eq!(ctx.store_log_counts(), (5, 1));
    }

    #[test]
    fn the_last_recheck_takes_every_log() {
        let mut ctx = Context::<u32>::new(0);
        ctx.log_plain_store(1, 1);
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        ctx.log_plain_store(2, 2);
        assert_eq!(recheck(&mut ctx, &[]), vec![]);
        ctx.log_plain_store(3, 3);
        assert_eq!(recheck(&mut ctx, &[]), vec![(1, 1)]);
        ctx.log_plain_store(4, 4);
        ctx.end_store_log();
        assert_eq!(recheck(&mut ctx, &[3]), vec![(2, 2), (3, 3), (4, 4)]);
        assert_eq!(ctx.store_log_counts(), (4, 1));
        assert_eq!(recheck(&mut ctx, &[]), vec![], "nothing is left");
    }
}
