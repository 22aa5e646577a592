//! The `for_each` executor: the worker loop that pops, runs the operator and
//! pushes what it produced, around the termination protocol.
//!
//! The loop is written once and monomorphised per scheduler handle, operator
//! and timing mode (`TIMED`): with timing off, no clock is read in the loop.
//!
//! Cycle timing reads the clock once per boundary between phases ("laps"):
//! the time since the previous lap goes to the phase that just ended. The
//! hot path (pop, run, push) costs three clock reads per task; the short loop
//! overhead between the end of a push and the next pop is counted as Deq.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use ordo_sched::{Execution, Handle, Prio, Scheduler, SchedulerSpec, SchedulerVisitor};

use crate::monitor::{RunMonitor, PUBLISH_EVERY};
use crate::pool::Pool;
use crate::sleep::{Sleep, Waited};
use crate::termination::Termination;
use crate::{timing, Context, CycleBreakdown, ExecOptions, Operator, RunStats, TaskNote, ThreadStats};

/// A worker that pushed this many tasks since it last woke a parked worker
/// wakes one (if any is parked).
const WAKE_EVERY_PUSHES: u64 = 32;

/// Per-thread counters of the loop, kept in plain integers.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) tasks: u64,
    pub(crate) stale: u64,
    pub(crate) pushes: u64,
    pub(crate) pops: u64,
    pub(crate) empty_pops: u64,
    pub(crate) flushes: u64,
    pub(crate) idle_scans: u64,
    pub(crate) parks: u64,
    pushes_since_wake: u64,
    /// Cycle sums; only written when the loop is `TIMED`.
    pub(crate) cycles: CycleBreakdown,
    /// Clock at the last lap (`TIMED` only).
    pub(crate) last_lap: u64,
}

impl Counters {
    /// Cycles since the previous lap (0 when not `TIMED`: no clock read).
    #[inline(always)]
    pub(crate) fn lap<const TIMED: bool>(&mut self) -> u64 {
        if TIMED {
            let now = timing::now();
            let elapsed = now.wrapping_sub(self.last_lap);
            self.last_lap = now;
            elapsed
        } else {
            0
        }
    }
}

/// One pop, counted (and timed as Deq or failed Deq).
#[inline(always)]
fn pop_counted<T, H: Handle<T>, const TIMED: bool>(handle: &mut H, c: &mut Counters) -> Option<(Prio, T)> {
    let popped = handle.pop();
    let dt = c.lap::<TIMED>();
    if popped.is_some() {
        c.pops += 1;
        if TIMED {
            c.cycles.deq += dt;
            c.cycles.deq_ops += 1;
        }
    } else {
        c.empty_pops += 1;
        if TIMED {
            c.cycles.failed_deq += dt;
        }
    }
    popped
}

/// Runs the operator on one task and hands its pushes to the scheduler.
#[inline(always)]
fn run_task<T, H, F, const TIMED: bool>(
    handle: &mut H,
    op: &F,
    ctx: &mut Context<T>,
    sleep: &Sleep,
    c: &mut Counters,
    (prio, task): (Prio, T),
) where
    H: Handle<T>,
    F: Operator<T>,
{
    op.run(prio, task, ctx);
    let task_cycles = c.lap::<TIMED>();
    c.cycles.task += task_cycles;
    // The task's note (good vs useless work) gets the same cycles.
    ctx.end_task(task_cycles);
    c.tasks += 1;
    let mut pushed = 0;
    for (p, t) in ctx.drain_pushes() {
        handle.push(p, t);
        pushed += 1;
    }
    if TIMED {
        c.cycles.enq += c.lap::<TIMED>();
        c.cycles.enq_ops += pushed;
    }
    c.pushes += pushed;
    c.pushes_since_wake += pushed;
    if c.pushes_since_wake >= WAKE_EVERY_PUSHES {
        c.pushes_since_wake = 0;
        sleep.wake_one();
    }
}

/// What a worker's loop reports to and obeys from the outside: its index
/// and the run's monitor (progress counters, cancellation), if any.
pub(crate) struct Observer<'a> {
    pub(crate) tid: usize,
    pub(crate) monitor: Option<&'a RunMonitor>,
    /// Set when a worker saw the monitor's cancellation and ended the run.
    pub(crate) cancelled: &'a AtomicBool,
}

impl Observer<'_> {
    /// Publishes the task count; true when the run was cancelled (then the
    /// caller ends the run).
    #[inline]
    pub(crate) fn check_in(&self, tasks: u64) -> bool {
        match self.monitor {
            Some(m) => {
                m.publish(self.tid, tasks);
                if m.is_cancelled() {
                    self.cancelled.store(true, Ordering::Relaxed);
                    return true;
                }
                false
            }
            None => false,
        }
    }
}

/// The loop of one worker, from "active, tasks possibly pushed" until global
/// termination. Protocol: `termination/README.md`; idling and the scan
/// permits: `sleep/README.md`.
pub(crate) fn run_loop<T, H, F, const TIMED: bool>(
    handle: &mut H,
    op: &F,
    term: &Termination,
    sleep: &Sleep,
    ctx: &mut Context<T>,
    c: &mut Counters,
    observer: &Observer<'_>,
) where
    H: Handle<T>,
    F: Operator<T>,
{
    let mut found: Option<(Prio, T)> = None;
    loop {
        // Active: run tasks until even our own flushed buffers give nothing.
        loop {
            let task = match found.take() {
                Some(task) => task,
                None => match pop_counted::<T, H, TIMED>(handle, c) {
                    Some(task) => task,
                    None => {
                        handle.flush();
                        c.flushes += 1;
                        c.cycles.enq += c.lap::<TIMED>();
                        match pop_counted::<T, H, TIMED>(handle, c) {
                            Some(task) => task,
                            None => break,
                        }
                    }
                },
            };
            run_task::<T, H, F, TIMED>(handle, op, ctx, sleep, c, task);
            // `done` is only set early when another worker panicked or the
            // run was cancelled (a real termination leaves no task to run):
            // stop promptly then. The flag's cache line is read-mostly, so
            // this load is an L1 hit.
            if term.is_done() {
                return;
            }
            if c.tasks & (PUBLISH_EVERY - 1) == 0 && observer.check_in(c.tasks) {
                sleep.announce_done(term);
                return;
            }
        }
        term.go_idle();
        // Idle: hold a scan permit (wait for one while other idle workers
        // hold them all), then scan for work (as an active thread) until a
        // task turns up or a scan proves termination.
        match sleep.acquire_scan_permit(term) {
            None => return,
            Some(Waited::Parked) => c.parks += 1,
            Some(_) => {}
        }
        let mut round = 0u32;
        while found.is_none() {
            if term.is_done() {
                return;
            }
            if observer.check_in(c.tasks) {
                sleep.announce_done(term);
                return;
            }
            // Idling, backing off and the termination word count as Other.
            c.cycles.other += c.lap::<TIMED>();
            let ticket = term.begin_scan();
            c.idle_scans += 1;
            match pop_counted::<T, H, TIMED>(handle, c) {
                Some(task) => {
                    found = Some(task);
                    sleep.release_scan_permit();
                }
                None => {
                    if term.end_empty_scan(ticket) {
                        sleep.announce_done(term);
                        return;
                    }
                    if sleep.back_off(round, term) == Waited::Parked {
                        c.parks += 1;
                    }
                    round = round.saturating_add(1);
                }
            }
        }
    }
}

/// Everything one worker does in a run: create its handle, push its block of
/// initial tasks, wait for the others, loop, report.
fn worker<S, T, F, const TIMED: bool>(
    sched: &S,
    tid: usize,
    initial: Vec<(Prio, T)>,
    op: &F,
    run: &RunShared,
) -> WorkerReport
where
    S: Scheduler<T>,
    T: Send,
    F: Operator<T>,
{
    let mut c = Counters::default();
    c.lap::<TIMED>();
    let start = c.last_lap;
    let mut handle = sched.handle(tid);
    c.cycles.other += c.lap::<TIMED>();
    let initial_count = initial.len() as u64;
    for (p, t) in initial {
        handle.push(p, t);
    }
    c.pushes += initial_count;
    c.cycles.enq += c.lap::<TIMED>();
    c.cycles.enq_ops += if TIMED { initial_count } else { 0 };
    let observer = Observer { tid, monitor: run.monitor.as_deref(), cancelled: &run.cancelled };
    observer.check_in(0);
    run.sleep.wait_for_all(&run.arrived, run.threads, &run.term);
    c.cycles.other += c.lap::<TIMED>();
    let mut ctx = Context::with_task_log(tid, run.log_tasks);
    run_loop::<T, _, F, TIMED>(&mut handle, op, &run.term, &run.sleep, &mut ctx, &mut c, &observer);
    if let Some(m) = observer.monitor {
        m.publish(tid, c.tasks);
    }
    c.stale = ctx.stale_count();
    let cycles = TIMED.then(|| {
        let total = timing::now().wrapping_sub(start);
        let mut b = c.cycles;
        let accounted = b.task + b.enq + b.deq + b.failed_deq;
        b.other = total.saturating_sub(accounted);
        b
    });
    let stats = ThreadStats {
        tasks: c.tasks,
        pushes: c.pushes,
        pops: c.pops,
        empty_pops: c.empty_pops,
        stale_tasks: c.stale,
        flushes: c.flushes,
        idle_scans: c.idle_scans,
        parks: c.parks,
        sched_counters: handle.counters(),
        cycles,
    };
    (stats, ctx.take_notes())
}

/// What one worker hands back: its statistics and its task notes.
pub(crate) type WorkerReport = (ThreadStats, Vec<TaskNote>);

/// What the workers of one run share besides the scheduler and operator.
struct RunShared {
    threads: usize,
    term: Termination,
    sleep: Sleep,
    arrived: AtomicUsize,
    /// [`ExecOptions::log_tasks`].
    log_tasks: bool,
    /// [`ExecOptions::monitor`].
    monitor: Option<std::sync::Arc<RunMonitor>>,
    /// A worker ended the run because the monitor was cancelled.
    cancelled: AtomicBool,
}

/// Runs `op` on every task until none is left, on scheduler `sched`, which
/// must have been built for `pool.threads()` threads.
///
/// `initial` tasks are split into one contiguous block per worker; each worker
/// pushes its block through its own handle, then all wait for each other, then
/// all pop and run tasks (as Galois does). The operator pushes new tasks
/// through its [`Context`]; they reach the scheduler when it returns. Returns
/// when every task ran, i.e. when termination is detected. A panic in the
/// operator stops the run and is re-raised here once every worker stopped.
///
/// Prefer [`for_each`], which builds the scheduler from a spec; use this to
/// run a scheduler built by hand (e.g. one under test).
pub fn for_each_on<S, T, I, F>(pool: &Pool, sched: &S, initial: I, op: F, opts: &ExecOptions) -> RunStats
where
    S: Scheduler<T>,
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    F: Fn(Prio, T, &mut Context<T>) + Sync,
{
    run_on(pool, sched, initial, op, opts)
}

/// [`for_each_on`] for any [`Operator`]. (The public functions take closures
/// by their `Fn` signature, so that a closure's argument types need no
/// annotation; this one takes the trait.)
fn run_on<S, T, I, F>(pool: &Pool, sched: &S, initial: I, op: F, opts: &ExecOptions) -> RunStats
where
    S: Scheduler<T>,
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    F: Operator<T>,
{
    if let Execution::Rounds(spec) = sched.execution() {
        let cfg = spec.config(F::LEVEL_PRIORITIES);
        return crate::rounds::run(pool, cfg, std::any::type_name::<S>(), initial, op, opts);
    }
    let threads = pool.threads();
    let run = RunShared {
        threads,
        term: Termination::new(threads),
        sleep: Sleep::new(threads),
        arrived: AtomicUsize::new(0),
        log_tasks: opts.log_tasks,
        monitor: opts.monitor.clone(),
        cancelled: AtomicBool::new(false),
    };
    let timed = opts.cycle_timing;
    let (time_s, per_thread, notes) = run_workers(
        pool,
        initial,
        |tid, initial| {
            if timed {
                worker::<S, T, F, true>(sched, tid, initial, &op, &run)
            } else {
                worker::<S, T, F, false>(sched, tid, initial, &op, &run)
            }
        },
        // The others would wait forever for this worker's share of the work.
        || run.sleep.announce_done(&run.term),
    );
    let task_notes = if opts.log_tasks { notes } else { Vec::new() };
    let report = sched.report();
    RunStats {
        scheduler: std::any::type_name::<S>().to_string(),
        threads,
        time_s,
        total: ThreadStats::sum(&per_thread),
        per_thread,
        sched_counters: report.counters,
        traces: report.traces,
        task_notes,
        cancelled: run.cancelled.load(Ordering::Relaxed),
    }
}

/// Runs `work(tid, block)` once on every thread of `pool`, `block` being the
/// thread's contiguous share of `initial`, and gathers the reports in
/// thread order with the wall time of the whole. A worker that panics first
/// calls `release_others` (so that no other worker waits for it forever),
/// then the pool re-raises its panic here once every worker stopped.
pub(crate) fn run_workers<T, I, W, R>(
    pool: &Pool,
    initial: I,
    work: W,
    release_others: R,
) -> (f64, Vec<ThreadStats>, Vec<Vec<TaskNote>>)
where
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    W: Fn(usize, Vec<(Prio, T)>) -> WorkerReport + Sync,
    R: Fn() + Sync,
{
    let threads = pool.threads();
    let blocks: Vec<Mutex<Vec<(Prio, T)>>> =
        split_into_blocks(initial, threads).into_iter().map(Mutex::new).collect();
    let results: Vec<Mutex<Option<WorkerReport>>> = (0..threads).map(|_| Mutex::new(None)).collect();
    let job = |tid: usize| {
        let block = std::mem::take(&mut *blocks[tid].lock().unwrap_or_else(|e| e.into_inner()));
        match panic::catch_unwind(AssertUnwindSafe(|| work(tid, block))) {
            Ok(report) => *results[tid].lock().unwrap_or_else(|e| e.into_inner()) = Some(report),
            Err(payload) => {
                release_others();
                panic::resume_unwind(payload);
            }
        }
    };
    let start = Instant::now();
    pool.broadcast(&job);
    let time_s = start.elapsed().as_secs_f64();
    let (per_thread, notes) = results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every worker reports"))
        .unzip();
    (time_s, per_thread, notes)
}

/// Splits `initial` into `threads` contiguous blocks of nearly equal size.
pub(crate) fn split_into_blocks<T, I: IntoIterator<Item = (Prio, T)>>(
    initial: I,
    threads: usize,
) -> Vec<Vec<(Prio, T)>> {
    let mut all: Vec<(Prio, T)> = initial.into_iter().collect();
    let base = all.len() / threads;
    let extra = all.len() % threads;
    let mut blocks = Vec::with_capacity(threads);
    // Cut from the back so each `split_off` moves only its own block.
    for tid in (0..threads).rev() {
        let len = base + usize::from(tid < extra);
        blocks.push(all.split_off(all.len() - len));
    }
    blocks.reverse();
    blocks
}

/// Runs `op` on every task until none is left, with the scheduler `spec`
/// describes, built for the pool's thread count and monomorphised (no
/// virtual call per push or pop). See [`for_each_on`] for the semantics.
///
/// # Example
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use ordo_exec::{for_each, ExecOptions, Pool};
///
/// let pool = Pool::new(2).unwrap();
/// let spec = "strict".parse().unwrap();
/// let sum = AtomicU64::new(0);
/// // Each task n < 100 spawns task n + 1: tasks 0..=100 all run once.
/// let stats = for_each(&pool, &spec, [(0, 0u64)], |_prio, n, ctx| {
///     sum.fetch_add(n, Ordering::Relaxed);
///     if n < 100 {
///         ctx.push(n + 1, n + 1);
///     }
/// }, &ExecOptions::default());
/// assert_eq!(stats.total.tasks, 101);
/// assert_eq!(sum.into_inner(), 5050);
/// ```
pub fn for_each<T, I, F>(pool: &Pool, spec: &SchedulerSpec, initial: I, op: F, opts: &ExecOptions) -> RunStats
where
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    F: Fn(Prio, T, &mut Context<T>) + Sync,
{
    for_each_operator(pool, spec, initial, op, opts)
}

/// [`for_each`] for any [`Operator`], e.g. one with prefetch hints made by
/// [`with_prefetch`](crate::with_prefetch).
pub fn for_each_operator<T, I, F>(
    pool: &Pool,
    spec: &SchedulerSpec,
    initial: I,
    op: F,
    opts: &ExecOptions,
) -> RunStats
where
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    F: Operator<T>,
{
    struct Run<'a, I, F> {
        pool: &'a Pool,
        initial: I,
        op: F,
        opts: &'a ExecOptions,
    }
    impl<T, I, F> SchedulerVisitor<T> for Run<'_, I, F>
    where
        T: Send,
        I: IntoIterator<Item = (Prio, T)>,
        F: Operator<T>,
    {
        type Output = RunStats;
        fn visit<S: Scheduler<T>>(self, sched: S) -> RunStats {
            run_on(self.pool, &sched, self.initial, self.op, self.opts)
        }
    }
    let mut stats = spec.build(pool.threads(), Run { pool, initial, op, opts });
    stats.scheduler = spec.to_string();
    stats
}

#[cfg(test)]
mod tests {
    use super::split_into_blocks;
    use crate::{for_each, ExecOptions, Pool, TaskNote};

    /// Runs tasks `0..=100` (task n pushes n + 1) where every task notes
    /// `(n % 7, n)` and task 50 notes twice; returns the run's notes.
    fn noted_chain(threads: usize, opts: &ExecOptions) -> crate::RunStats {
        let pool = Pool::new(threads).unwrap();
        for_each(
            &pool,
            &"strict".parse().unwrap(),
            [(0, 0u64)],
            |_, n, ctx| {
                if n == 50 {
                    ctx.note(999, 999);
                }
                ctx.note((n % 7) as u32, n);
                if n < 100 {
                    ctx.push(n + 1, n + 1);
                }
            },
            opts,
        )
    }

    #[test]
    fn notes_one_per_task_in_execution_order_second_call_replaces_first() {
        for threads in [1, 2] {
            for cycle_timing in [false, true] {
                let opts = ExecOptions { cycle_timing, log_tasks: true, ..ExecOptions::default() };
                let stats = noted_chain(threads, &opts);
                assert_eq!(stats.task_notes.len(), threads);
                for (notes, t) in stats.task_notes.iter().zip(&stats.per_thread) {
                    assert_eq!(notes.len() as u64, t.tasks);
                    // A chain runs in order on each thread, whichever thread.
                    assert!(notes.windows(2).all(|w| w[0].value < w[1].value));
                    assert!(notes.iter().all(|n| n.key == (n.value % 7) as u32));
                    let note_cycles: u64 = notes.iter().map(|n| u64::from(n.cycles)).sum();
                    let saturated = notes.iter().any(|n| n.cycles == TaskNote::SATURATED_CYCLES);
                    match t.cycles {
                        Some(c) if !saturated => assert_eq!(note_cycles, c.task),
                        Some(_) => {}
                        None => assert_eq!(note_cycles, 0),
                    }
                }
                let mut all: Vec<u64> = stats.task_notes.iter().flatten().map(|n| n.value).collect();
                all.sort_unstable();
                assert_eq!(all, (0..=100).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn notes_are_off_by_default() {
        let stats = noted_chain(2, &ExecOptions { cycle_timing: true, ..ExecOptions::default() });
        assert_eq!(stats.total.tasks, 101);
        assert!(stats.task_notes.is_empty());
    }

    #[test]
    fn blocks_cover_everything_in_order_and_balanced() {
        for n in [0usize, 1, 5, 64, 101] {
            for threads in 1..6 {
                let blocks = split_into_blocks((0..n as u64).map(|i| (i, i)), threads);
                assert_eq!(blocks.len(), threads);
                let flat: Vec<u64> = blocks.iter().flatten().map(|&(_, t)| t).collect();
                assert_eq!(flat, (0..n as u64).collect::<Vec<_>>());
                let (min, max) = (blocks.iter().map(Vec::len).min(), blocks.iter().map(Vec::len).max());
                assert!(max.unwrap() - min.unwrap() <= 1);
            }
        }
    }
}
