//! The bulk-synchronous rounds that run `auto` ([`Execution::Rounds`]):
//! Δ-stepping with thread-local buckets, as GAPBS's `sssp` does it, and a
//! bucket width chosen online instead of a tuned Δ.
//!
//! # A round
//! Every thread keeps its own [`Buckets`] (bucket `k` holds the tasks with
//! `prio >> shift == k`); a push from the operator is an append to one of
//! them, with no lock and no atomic. Rounds alternate with decisions:
//! 1. *Decision.* Each thread reports its most urgent bucket's lower edge
//!    and how many tasks it holds, then waits at the barrier; the last to
//!    arrive (the leader) ends the run if nothing is queued anywhere, and
//!    otherwise asks the [`RoundController`] for the next span: a bucket
//!    width and a number of keys `J` (see "Several keys per round"). The
//!    round covers the keys `k..=k + J - 1`, `k` being the smallest
//!    reported edge at that width.
//! 2. *Adoption.* Each thread adopts the width (redistributing its buckets
//!    if it changed). No task moves: a thread's tasks of the round stay in
//!    its buckets.
//! 3. *Work.* Each thread runs its own buckets of key `≤ k + J - 1`, the
//!    most urgent first, each oldest push first, the bucket itself serving
//!    as the batch (as at one thread), and the tasks of those keys it
//!    pushes meanwhile in their turn (GAPBS's bucket fusion), until it has
//!    run [`RoundsConfig::fusion_limit`] tasks in the round ("Fusion and
//!    its limit" below). Every [`LOOK_EVERY`] tasks it
//!    looks whether another thread waits at the barrier; if one does, it
//!    files the rest of the bucket into its [`piles::Pile`], where the
//!    waiting thread takes half of it, and goes on with its pile in chunks
//!    (oldest first, see `piles`) of a share of what is left, between
//!    [`MIN_CHUNK`] and [`CHUNK`] tasks, so the last chunks of a round are
//!    short (guided self-scheduling). A thread with nothing of its own
//!    takes half of another thread's pile. When none of these has anything
//!    left it arrives at the barrier; while it waits, it leaves the barrier
//!    again to take half of any pile that holds work. A thread that found
//!    nothing for a while sleeps, and filing work into a pile wakes it
//!    (`Barrier::notify_work`), so a round whose work appears late (one
//!    bucket that fans out) still runs on every thread.
//!
//! Sharing only on demand keeps a thread on the vertices its own tasks just
//! touched and spares every task the trip through a pile (a lock per chunk
//! and a copy), which filing every bucket into the pile at the start of the
//! round would cost every task. [`LOOK_EVERY`] is small because a task may
//! follow a long chain of low-degree vertices (road networks): between two
//! looks a waiting thread waits for that many tasks. Measurements:
//! `docs/design/2026-11-30-auto-rounds.md`.
//!
//! # Running ahead
//! A thread that waits at the barrier with nothing to help with runs its
//! own tasks of the next span (the keys just past the round's, as many as
//! the round has), one at a time, newest of its most urgent bucket first,
//! looking between two tasks for the release and for a pile to help with.
//! Those tasks would most likely run in the next round anyway; running them
//! now turns waiting into work. It runs none of the round's own keys (a
//! thread stopped by the fusion limit keeps them for the next round) and
//! nothing further ahead, whose distances are less likely final (a wider
//! window gained nothing when measured). Running ahead changes which thread
//! runs a task and when, and barely how many tasks run.
//!
//! # Several keys per round
//! (For an operator whose priorities are levels, one key per round and a
//! four times larger target, unless the spec sets them:
//! `ordo_sched::auto::rounds::RoundsSpec::config`.)
//! A round's *span* (its keys times the bucket width) decides how many
//! tasks it gathers, so how many barriers the run pays; the bucket width
//! decides how finely each thread orders its own tasks inside it. With one
//! key per round the two are the same, and a wide span, cheap in barriers,
//! runs each thread's tasks in one coarse bucket: tasks run before their
//! distances are final and run again. The controller steers the span
//! toward its target of tasks per round, as it steered the width before;
//! the buckets are [`RoundController::keys`] (16) times narrower, so each
//! thread walks the span in 16 steps of priority, most urgent first, with
//! fusion inside each. No key is narrower than 4 priorities: a span
//! narrower than 16 such keys has fewer of them, and a span of 4 is one
//! bucket, below which it never narrows (`ordo_sched::auto::rounds`, "A
//! floor under a split span"); BFS's rounds have one key, of width 1 on a
//! road graph.
//! Several keys let a span stay wide (few barriers) while each thread runs
//! its own tasks in a finer order (fewer re-runs). Many more keys make
//! buckets too small to be batches: a bucket of about one task pays the
//! bucket's overhead per task. Why 16:
//! `docs/design/2026-11-30-auto-rounds.md`.
//!
//! # Fusion and its limit
//! Running the tasks a thread pushes into the round's keys in the same round
//! saves a barrier per generation of tasks, which is what makes Δ-stepping
//! with wide buckets cheap on road graphs. But a thread that fuses
//! generation after generation alone drifts ahead of the others: when every
//! task has nearly the same priority (PageRank, whose priorities separate
//! only residuals of 1 and more), the whole run is one round, and each
//! thread runs its vertices again and again before the other thread's
//! pushes into them have landed. So a thread takes its own bucket again in
//! a round only while it has run fewer than
//! [`RoundsConfig::fusion_limit`] tasks in it (four times its share of the
//! round target); past that, it finishes what it took and goes to the
//! barrier with its new tasks still queued, and when they include tasks of
//! the round's first key the next round begins at that key again. A round
//! is then about one generation long on every thread, as one thread's
//! batches are, and PageRank runs about the tasks one thread runs. SSSP's
//! rounds hold a few hundred tasks per thread and rarely reach the limit;
//! a tighter limit would cut SSSP's chains too
//! (`docs/design/2026-11-30-auto-rounds.md`).
//! The leader does not change the width after a round cut short
//! ([`RoundController::on_part`]): the parts of one key's round count as
//! one round, so the tasks a cut leaves queued are not redistributed by a
//! narrowing they did not call for. Tasks left only in the round's later
//! keys end the round as usual: the next one begins at the most urgent.
//!
//! Whatever runs a batch (a chunk of a pile, a private batch, a bucket at
//! one thread) calls the operator's prefetch hints ([`Operator::prefetch`]
//! 16 tasks ahead, [`Operator::prefetch_dependent`] 4 ahead), so the cache
//! misses that start consecutive tasks overlap instead of following one
//! another.
//!
//! # Plain stores
//! On more than one thread the rounds turn each context's store log on
//! ([`Context::logs_plain_stores`]) and call [`Operator::after_barrier`] on
//! every thread after every barrier, the last one included. An operator
//! may then lower shared state with a plain load and store, log the store,
//! and repair the few lost to a concurrent store in `after_barrier`, at
//! the second barrier after the one ending the store's interval: a thread's
//! stores between two barriers it passes, those it makes while running
//! ahead included, happen before the next barrier, not the one it waits at,
//! so a store can be lost to one made an interval later, and the recheck
//! must come after that interval's barrier. When the run ends, no thread
//! has a task left to run (ahead or otherwise), and the last recheck takes
//! every log. SSSP does this for its distances.
//!
//! # Continuations
//! A task the operator pushes with [`Context::push_next`] runs right after
//! the task that pushed it, on the same thread, whatever its priority: it
//! continues work whose data that task just brought into this core's cache
//! (Boruvka's merged component). The rounds alone honour it, and only for
//! an operator that declares it ([`Operator::CONTINUATIONS`]; the request
//! is a plain push everywhere else, so the other schedulers' order stays
//! what the papers describe). A continuation counts as pushed and popped
//! (`continued_tasks`), and each task continues at most one other. Boruvka
//! gains what newest-first order (`lifo`) gains there, without giving up
//! the rounds' order elsewhere (`docs/design/2026-11-30-auto-rounds.md`).
//!
//! Buckets, piles and batches hold entries: a task with its priority. An
//! operator whose priorities all lie below 2^32
//! ([`Operator::NARROW_PRIORITIES`]: SSSP's narrow distances, BFS levels)
//! gets entries with `u32` priorities, 8 bytes for a 4-byte task instead
//! of 16, so a push writes and a batch reads half the memory (GAPBS's bins
//! hold 4-byte vertex ids).
//!
//! With one thread there is no barrier and no pile: the thread runs its
//! buckets in order, each bucket batch by batch (tasks pushed into the
//! current bucket while it runs form the next batch), and the controller
//! sees one round per bucket key.
//!
//! # Round traces
//! The leader (or the lone thread, per bucket key) logs each round: when it
//! ended, how many tasks it ran and where the next one starts
//! (`round_log`), reported as the traces `round_tasks` and `round_level`
//! over microseconds, at most 256 points each, which `ordo plot` draws.
//! They show where a run's time goes, e.g. whether the first rounds near a
//! source with high-degree neighbours take most of it.
//!
//! # A stalled thread
//! On a shared machine the kernel deschedules a worker for a time slice
//! (milliseconds) in the middle of a round (tens of microseconds), and
//! every other thread would wait at the barrier until it runs again, round
//! after round. So a waiting thread watches the threads still working: each
//! stores its task count (its *progress*) into its report every batch, and
//! every [`LOOK_EVERY`] tasks of its own while a thread waits. A working
//! thread whose progress stands still for [`STALL_ROUNDS`] times the
//! recent rounds' length (a moving average the leader keeps, which a
//! stalled round barely raises), and at least [`STALL_MIN`], is taken for
//! descheduled, and the waiting thread *excuses* it: it arrives at the
//! barrier for it (`barrier.rs`, "Excusing a stalled thread"). The round
//! ends without it, and the next rounds open with it already counted, so
//! the others go on at the pace of the threads that run. Nothing of the
//! laggard's moves: its tasks stay in its private buckets (only their owner
//! may touch them, which is what keeps pushes free of atomics), and it runs
//! them when it resumes, to the end of its round as if nothing happened
//! (taking from the others' piles too). Its own arrival then fails, which
//! tells it that it was excused; it writes its report and comes back, and
//! the next decision counts the report and seats it again: full rounds
//! resume as soon as the laggard keeps up. The idle path gains one
//! compare-and-swap per thread and round (the seat, beside the barrier's
//! own read-modify-write) and a plain store per batch, no atomic
//! read-modify-write per task.
//!
//! While a thread is excused the run cannot end (its report is stale and
//! it may hold tasks): a leader that finds nothing queued in the reports
//! that count waits for it to come back instead, yielding its core. And
//! its tasks span the others' barriers, so no logged plain store is
//! rechecked at a barrier that opens a round with a thread excused
//! ([`Context::hold_plain_stores`]): the held logs become due at the
//! second barrier after the first full round, when every store the
//! laggard made (all before it came back) is visible.
//!
//! # Why rounds
//! With per-thread buckets and no barrier (`auto:mode=async`), threads drift
//! apart in priority and keep taking work from each other, and the cycle
//! breakdown's Deq share shows that cost (measured in
//! `docs/design/2026-11-27-simulator-turns-and-cycles.md`). A round
//! shares work only when a thread has run out, in chunks of 8 to 64 tasks
//! through one lock per chunk, and the barrier costs one synchronisation
//! per round, which the controller amortises by keeping enough tasks per
//! round. This is GAPBS's scheme (thread-local bins, bucket fusion) with one
//! barrier per round instead of two, no shared frontier unless a thread is
//! idle, and Δ chosen by the run.
//!
//! # Correctness
//! Tasks only move: from a thread's buckets into its own batch, from there
//! into the operator or (the rest of a bucket) into its pile, out of a pile
//! under its mutex into exactly one thread's batch or pile, and from there
//! into the operator; a continuation goes from the operator that pushed it
//! straight into the next operator call on the same thread, before that
//! thread takes another task, so none is left in a context at a barrier.
//! Excusing a thread moves none of its tasks; it only counts the thread at
//! the barrier (exactly once per generation, by one compare-and-swap on its
//! seat, its own or a waiter's). The excused thread's report is not used
//! until it comes back, and the run does not end while a thread is
//! excused, so "nothing queued" still means nothing queued anywhere.
//! A thread leaves a round's work only when its own pile is empty, no
//! other pile looked non-empty, and it has no task of key `≤ k + J - 1`
//! or has reached the fusion limit (those tasks then stay in
//! its buckets, counted in its report); after that nothing refills its pile
//! (only a pile's owner puts tasks into it). So when every thread has
//! arrived at the decision barrier all piles are empty, every queued task
//! is counted in some thread's buckets, and "nothing queued" means the run
//! is over. Running ahead changes a waiting thread's buckets after its
//! report, but only a thread that reported tasks can run ahead, so a run
//! whose reports all say "nothing queued" has no task anywhere; otherwise
//! the next round's reports count what running ahead left (a task's pushes
//! go into the thread's buckets, and its continuations run at once, as in
//! a round). The barrier orders each thread's report before the leader's
//! decision and the decision before everyone's next round (`barrier.rs`).
//! An operator's logged plain stores are rechecked by every thread after
//! every barrier, the one that ends the run included, before the thread
//! runs another task or returns (see "Plain stores").
//! Whether a thread waits is only a hint ([`Barrier`]'s arrival count, read
//! without ordering): a stale answer shares a bucket that nobody needed, or
//! shares it a few tasks later.

mod barrier;
mod piles;
mod round_log;

#[cfg(loom)]
mod loom_model;

use std::cell::Cell;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use ordo_sched::auto::buckets::{Buckets, PrioWord};
use ordo_sched::auto::rounds::{RoundController, RoundsConfig, CHUNK, GUIDED_SHARES, LOOK_EVERY, MIN_CHUNK};
use ordo_sched::{Prio, Trace};

use crate::executor::{run_workers, Counters, Observer};
use crate::monitor::PUBLISH_EVERY;
use crate::operator::{PREFETCH_AHEAD, PREFETCH_DEPENDENT_AHEAD};
use crate::pool::Pool;
use crate::sync::{AtomicBool, AtomicU32, AtomicU64, Mutex, Ordering};
use crate::{timing, Context, ExecOptions, Operator, RoundBuckets, RunStats, TaskNote, ThreadStats};

use barrier::{Aborted, Arrival, Barrier, Seat, Wake};
use piles::Piles;
use round_log::RoundLog;

/// Rounds of looking for work to help with while waiting at the barrier
/// before waiting without looking (a yield every 64).
const HELP_SPINS: u32 = 1 << 12;

/// A thread that works in a round and whose progress counter has not moved
/// for this many times the recent rounds' length (but at least
/// [`STALL_MIN`]) is taken for descheduled and excused from the round
/// (module docs, "A stalled thread"). A thread that runs is seldom that
/// late: the fusion limit and the sharing with a waiting thread keep a
/// round's threads within a generation of each other.
const STALL_ROUNDS: u64 = 4;
/// The shortest stall that excuses a thread: a page fault or an
/// interrupt is not a descheduling.
const STALL_MIN: Duration = Duration::from_micros(50);

/// A [`PrioWord`] whose buckets a [`Context`] can hold.
pub(crate) trait RoundWord: PrioWord {
    /// `buckets` as the context keeps them.
    fn wrap<T>(buckets: Buckets<T, Self>) -> RoundBuckets<T>;
    /// The buckets of this word that [`RoundWord::wrap`] gave the context.
    fn buckets_of<T>(buckets: &mut RoundBuckets<T>) -> &mut Buckets<T, Self>;
}

impl RoundWord for Prio {
    fn wrap<T>(buckets: Buckets<T, Self>) -> RoundBuckets<T> {
        RoundBuckets::Wide(buckets)
    }
    #[inline(always)]
    fn buckets_of<T>(buckets: &mut RoundBuckets<T>) -> &mut Buckets<T, Self> {
        match buckets {
            RoundBuckets::Wide(b) => b,
            RoundBuckets::Narrow(_) => unreachable!("a run keeps buckets of one priority word"),
        }
    }
}

impl RoundWord for u32 {
    fn wrap<T>(buckets: Buckets<T, Self>) -> RoundBuckets<T> {
        RoundBuckets::Narrow(buckets)
    }
    #[inline(always)]
    fn buckets_of<T>(buckets: &mut RoundBuckets<T>) -> &mut Buckets<T, Self> {
        match buckets {
            RoundBuckets::Narrow(b) => b,
            RoundBuckets::Wide(_) => unreachable!("a run keeps buckets of one priority word"),
        }
    }
}

/// Per-thread counters of the rounds, reported as scheduler counters.
#[derive(Default, Clone, Copy)]
struct RoundCounters {
    /// Fillings of this thread's pile (the rest of an own bucket, or a
    /// stolen half too large to run at once).
    published: u64,
    /// Tasks taken from this thread's own buckets of the round's keys.
    own_tasks: u64,
    /// Of those, tasks filed into the pile for a waiting thread.
    shared_tasks: u64,
    /// Takes of half of another thread's pile, and the tasks they moved.
    steals: u64,
    stolen_tasks: u64,
    /// Tasks moved by width changes.
    rebucketed: u64,
    /// Barrier waits that blocked.
    parks: u64,
    /// Arrivals at the barrier with tasks of the round's first key still
    /// queued (stopped by the fusion limit).
    fusion_stops: u64,
    /// Times this thread left the barrier to help with another's pile.
    helps: u64,
    /// Tasks run at once as continuations (`Context::push_next`), counted
    /// as pushed and popped though they never entered a bucket.
    continued: u64,
    /// Tasks run ahead of their round while waiting at the barrier.
    ahead: u64,
    /// Times this thread found that it had been excused from a round.
    excused: u64,
    /// Times this thread excused another one.
    excusals: u64,
}

/// What the threads of a run share.
struct Shared<T, W> {
    threads: usize,
    piles: Piles<(W, T)>,
    barrier: Barrier,
    /// Each thread's report for the next decision, written before it
    /// arrives at the barrier (again, if it left to help).
    reports: Box<[CachePadded<Report>]>,
    /// The decision: the round's bucket width, first key and number of
    /// keys, or the end of the run.
    shift: AtomicU32,
    key: AtomicU64,
    keys: AtomicU64,
    done: AtomicBool,
    /// Whether every thread takes part in the round that was just opened
    /// (no thread stays excused): only then are logged plain stores
    /// rechecked (`Context::hold_plain_stores`).
    full: AtomicBool,
    /// The recent rounds' length in nanoseconds (a moving average, the
    /// leader's), and when the last round was opened, since `epoch`.
    round_ns: AtomicU64,
    opened_ns: AtomicU64,
    epoch: Instant,
    controller: Mutex<RoundController>,
    /// The rounds' progress over time (the leader's, or the lone thread's).
    round_log: Mutex<RoundLog>,
    log_tasks: bool,
    monitor: Option<std::sync::Arc<crate::RunMonitor>>,
    cancelled: std::sync::atomic::AtomicBool,
}

/// What a thread tells the leader: the lower edge of its most urgent
/// bucket, how many tasks it holds, how many it ran in the round.
struct Report {
    level: AtomicU64,
    queued: AtomicU64,
    tasks: AtomicU64,
    /// Whether the thread stopped at the fusion limit with tasks of the
    /// round's first key queued: the round was cut short.
    cut: AtomicBool,
    /// The thread's task count, stored now and then while it works (every
    /// batch, and every [`LOOK_EVERY`] tasks of its own while another
    /// thread waits), so that a waiting thread can tell a thread that works
    /// from one that does not run.
    progress: AtomicU64,
}

/// What the leader found in the reports.
enum Decision {
    /// The next round is decided (or the run is over).
    Made,
    /// No thread that reported has a task, but an excused thread may still
    /// hold some: wait for it to come back.
    WaitForBack,
}

impl<T, W> Shared<T, W> {
    /// The leader's part, when every thread is counted at the barrier: the
    /// decision (waiting first for an excused thread to come back if
    /// nothing else is queued), the seats of the next round, the release.
    fn lead(&self) -> Result<(), Aborted> {
        let mut waits = 0u32;
        while let Decision::WaitForBack = self.decide() {
            // Every other thread is counted and idle: the excused one needs
            // this core more than the leader does.
            if self.barrier.is_aborted() {
                return Err(Aborted);
            }
            waits += 1;
            if waits < 64 {
                crate::sync::yield_now();
            } else {
                #[cfg(not(loom))]
                std::thread::sleep(Duration::from_micros(20));
                #[cfg(loom)]
                crate::sync::yield_now();
            }
        }
        let excused = self.barrier.reseat();
        self.full.store(excused == 0, Ordering::Relaxed);
        let now = self.epoch.elapsed().as_nanos() as u64;
        let length = now.saturating_sub(self.opened_ns.load(Ordering::Relaxed));
        self.round_ns.store(next_mean(self.round_ns.load(Ordering::Relaxed), length), Ordering::Relaxed);
        self.opened_ns.store(now, Ordering::Relaxed);
        self.barrier.release();
        Ok(())
    }

    /// How long a working thread's progress may stand still before a
    /// waiting thread excuses it.
    fn stall_limit(&self) -> Duration {
        Duration::from_nanos(STALL_ROUNDS * self.round_ns.load(Ordering::Relaxed)).max(STALL_MIN)
    }

    /// The leader's decision, made when every thread is counted. The
    /// reports of excused threads are stale and not counted, and while one
    /// is excused the run does not end (it may hold tasks).
    fn decide(&self) -> Decision {
        let (mut level, mut queued, mut tasks, mut cut) = (Prio::MAX, 0u64, 0u64, false);
        let mut excused = 0;
        for (tid, r) in self.reports.iter().enumerate() {
            if self.barrier.seat_of(tid) == Seat::Excused {
                excused += 1;
                continue;
            }
            level = level.min(r.level.load(Ordering::Relaxed));
            queued += r.queued.load(Ordering::Relaxed);
            tasks += r.tasks.load(Ordering::Relaxed);
            cut |= r.cut.load(Ordering::Relaxed);
        }
        if queued == 0 && excused > 0 {
            return Decision::WaitForBack;
        }
        let next = (queued > 0).then_some(level);
        self.round_log.lock().unwrap_or_else(|e| e.into_inner()).record(tasks, next);
        if queued == 0 {
            self.done.store(true, Ordering::Relaxed);
            return Decision::Made;
        }
        let mut controller = self.controller.lock().unwrap_or_else(|e| e.into_inner());
        if cut {
            controller.on_part(tasks);
        } else {
            controller.on_round(tasks, queued);
        }
        let shift = controller.bucket_shift();
        self.shift.store(shift, Ordering::Relaxed);
        self.key.store(level >> shift, Ordering::Relaxed);
        self.keys.store(controller.keys(), Ordering::Relaxed);
        Decision::Made
    }
}

/// Runs `op` on every task until none is left, in bulk-synchronous rounds
/// (see the module docs); the statistics are those of
/// [`for_each_on`](crate::for_each_on). `name` names the scheduler in them.
/// An operator with [`Operator::NARROW_PRIORITIES`] gets buckets, piles and
/// batches of entries with `u32` priorities.
pub(crate) fn run<T, I, F>(
    pool: &Pool,
    cfg: RoundsConfig,
    name: &str,
    initial: I,
    op: F,
    opts: &ExecOptions,
) -> RunStats
where
    T: Send,
    I: IntoIterator<Item = (Prio, T)>,
    F: Operator<T>,
{
    if F::NARROW_PRIORITIES {
        run_with::<T, u32, I, F>(pool, cfg, name, initial, op, opts)
    } else {
        run_with::<T, Prio, I, F>(pool, cfg, name, initial, op, opts)
    }
}

/// [`run`] with entries whose priorities are stored as `W`.
fn run_with<T, W, I, F>(
    pool: &Pool,
    cfg: RoundsConfig,
    name: &str,
    initial: I,
    op: F,
    opts: &ExecOptions,
) -> RunStats
where
    T: Send,
    W: RoundWord,
    I: IntoIterator<Item = (Prio, T)>,
    F: Operator<T>,
{
    let threads = pool.threads();
    // An adapting width starts wide enough to hold every initial task in one
    // bucket, so they run in the order the application gave them
    // (`RoundsConfig::covering`).
    let initial: Vec<(Prio, T)> = initial.into_iter().collect();
    let cfg = if cfg.adapt { cfg.covering(initial.iter().map(|&(p, _)| p)) } else { cfg };
    let shared = Shared {
        threads,
        piles: Piles::new(threads),
        barrier: Barrier::new(threads),
        reports: (0..threads)
            .map(|_| {
                CachePadded::new(Report {
                    level: AtomicU64::new(Prio::MAX),
                    queued: AtomicU64::new(0),
                    tasks: AtomicU64::new(0),
                    cut: AtomicBool::new(false),
                    progress: AtomicU64::new(0),
                })
            })
            .collect(),
        shift: AtomicU32::new(cfg.shift),
        key: AtomicU64::new(0),
        keys: AtomicU64::new(1),
        done: AtomicBool::new(false),
        full: AtomicBool::new(true),
        round_ns: AtomicU64::new(0),
        opened_ns: AtomicU64::new(0),
        epoch: Instant::now(),
        controller: Mutex::new(cfg.controller(threads)),
        round_log: Mutex::new(RoundLog::new()),
        log_tasks: opts.log_tasks,
        monitor: opts.monitor.clone(),
        cancelled: std::sync::atomic::AtomicBool::new(false),
    };
    let timed = opts.cycle_timing;
    let (time_s, per_thread, notes) = run_workers(
        pool,
        initial,
        |tid, initial| {
            if timed {
                worker::<T, W, F, true>(&shared, tid, initial, &op, cfg)
            } else {
                worker::<T, W, F, false>(&shared, tid, initial, &op, cfg)
            }
        },
        // The others would wait for this worker at the next barrier.
        || shared.barrier.abort(),
    );
    let controller = shared.controller.into_inner().unwrap_or_else(|e| e.into_inner());
    let [round_tasks, round_level] =
        shared.round_log.into_inner().unwrap_or_else(|e| e.into_inner()).into_traces();
    RunStats {
        scheduler: name.to_string(),
        threads,
        time_s,
        total: ThreadStats::sum(&per_thread),
        per_thread,
        sched_counters: vec![
            ("rounds", controller.rounds()),
            ("width_changes", controller.changes()),
            ("round_parts", controller.parts()),
            ("round_target", controller.target()),
        ],
        traces: vec![
            Trace { name: "shift", x_label: "dequeues", points: controller.trace().to_vec() },
            round_tasks,
            round_level,
        ],
        task_notes: if opts.log_tasks { notes } else { Vec::new() },
        cancelled: shared.cancelled.load(std::sync::atomic::Ordering::Relaxed),
    }
}

/// The recent rounds' length after a round of `length` (nanoseconds), from
/// the mean `mean` before it (0 before the first round). A round that waited
/// for a stalled thread is not what a round is expected to take: a long
/// round raises the mean by at most an eighth of it, a short one lowers it
/// by half the difference, so the stalls the mean is meant to detect do not
/// raise the limit that detects them.
fn next_mean(mean: u64, length: u64) -> u64 {
    if mean == 0 {
        length
    } else if length <= mean {
        (mean + length) / 2
    } else {
        mean + (length - mean).min(mean) / 8
    }
}

/// Whether a task count that went from `before` to `after` passed a
/// multiple of [`PUBLISH_EVERY`] (a power of two): the moment to check in
/// with the monitor when one task can add several to the count (its
/// continuations), where `after % PUBLISH_EVERY == 0` could be stepped over.
#[inline(always)]
fn passed_publish_mark(before: u64, after: u64) -> bool {
    const _: () = assert!(PUBLISH_EVERY.is_power_of_two());
    (before ^ after) >= PUBLISH_EVERY
}

/// One thread's state in a run.
struct Worker<'a, T, W: RoundWord, F, const TIMED: bool> {
    shared: &'a Shared<T, W>,
    tid: usize,
    op: &'a F,
    /// Holds this thread's buckets (see [`Context::keep_buckets`]).
    ctx: Context<T>,
    c: Counters,
    r: RoundCounters,
    observer: Observer<'a>,
    /// Tasks run since the last report to the decision.
    round_tasks: u64,
    /// Tasks run ahead since the last report (counted in the next round).
    ran_ahead: u64,
    /// The rest of an own bucket on its way to the pile.
    share: Vec<(W, T)>,
    /// [`RoundsConfig::fusion_limit`].
    fusion_limit: u64,
    /// Whether this thread took its own bucket in the current round.
    took_own: bool,
    /// Per other thread, the progress this thread last saw it at while
    /// waiting, in which generation, and since when.
    watch: Vec<Cell<Watch>>,
}

/// A waiting thread's view of another thread's progress.
#[derive(Clone, Copy)]
struct Watch {
    generation: u32,
    progress: u64,
    since: Instant,
}

impl<T, W: RoundWord, F, const TIMED: bool> Worker<'_, T, W, F, TIMED>
where
    F: Operator<T>,
{
    /// This thread's buckets, kept in its context.
    #[inline(always)]
    fn buckets(&mut self) -> &mut Buckets<T, W> {
        W::buckets_of(self.ctx.round_buckets())
    }

    /// Runs every task of `batch` (leaving it empty) and files their
    /// pushes into the buckets. Returns false when the run must stop
    /// (cancelled, or another worker panicked).
    #[inline]
    fn run_batch(&mut self, batch: &mut Vec<(W, T)>) -> bool {
        self.run_tasks::<false>(batch)
    }

    /// [`Worker::run_batch`] for a bucket of this thread's own: every
    /// [`LOOK_EVERY`] tasks it looks whether another thread waits at the
    /// barrier, and if so files the rest of the bucket into its pile, where
    /// the waiting thread can take half of it.
    #[inline]
    fn run_own_bucket(&mut self, batch: &mut Vec<(W, T)>) -> bool {
        self.run_tasks::<true>(batch)
    }

    /// [`Worker::run_batch`], and with `SHARE` [`Worker::run_own_bucket`].
    #[inline(always)]
    fn run_tasks<const SHARE: bool>(&mut self, batch: &mut Vec<(W, T)>) -> bool {
        let mut n = batch.len() as u64;
        self.c.pops += n;
        if TIMED {
            self.c.cycles.deq += self.c.lap::<TIMED>();
            self.c.cycles.deq_ops += n;
        }
        let mut tasks = batch.drain(..);
        let mut until_look = LOOK_EVERY;
        while let Some((word, task)) = tasks.next() {
            if SHARE {
                until_look -= 1;
                if until_look == 0 {
                    until_look = LOOK_EVERY;
                    if self.shared.barrier.has_waiters() {
                        // A waiting thread watches this (`Worker::stalled`).
                        self.shared.reports[self.tid].progress.store(self.c.tasks, Ordering::Relaxed);
                    }
                    if tasks.len() >= MIN_CHUNK && self.shared.barrier.has_waiters() {
                        let rest = tasks.len() as u64;
                        self.share.extend(tasks.by_ref());
                        // They are popped when taken from the pile.
                        self.c.pops -= rest;
                        if TIMED {
                            self.c.cycles.deq_ops -= rest;
                        }
                        n -= rest;
                        self.r.shared_tasks += rest;
                        self.r.published += 1;
                        let mut share = std::mem::take(&mut self.share);
                        self.publish(&mut share);
                        self.share = share;
                    }
                }
            }
            let prio = word.unpack();
            // The batch runs in order, oldest push first (see `piles`):
            // `ahead(n)` is the task that runs `n` tasks after this one.
            let ahead = |n: usize| tasks.as_slice().get(n - 1);
            if let Some((p, t)) = ahead(PREFETCH_AHEAD) {
                self.op.prefetch(p.unpack(), t);
            }
            if let Some((p, t)) = ahead(PREFETCH_DEPENDENT_AHEAD) {
                self.op.prefetch_dependent(p.unpack(), t);
            }
            let before = self.c.tasks;
            self.run_task(prio, task);
            if F::CONTINUATIONS {
                n += self.run_continuations();
            }
            if passed_publish_mark(before, self.c.tasks) && !self.check_in() {
                // Drop the rest of the batch: the run is being abandoned.
                self.round_tasks += n;
                return false;
            }
        }
        self.round_tasks += n;
        true
    }

    /// Runs the continuations (`Context::push_next`) the task just run
    /// left, each at once, here; returns how many.
    #[inline(always)]
    fn run_continuations(&mut self) -> u64 {
        let mut ran = 0;
        while let Some((p, t)) = self.ctx.take_next() {
            self.r.continued += 1;
            self.c.pops += 1;
            ran += 1;
            if TIMED {
                self.c.cycles.deq_ops += 1;
            }
            self.run_task(p, t);
        }
        ran
    }

    /// Runs one task and files its pushes (timed runs: the Task and Enq
    /// phases).
    #[inline(always)]
    fn run_task(&mut self, prio: Prio, task: T) {
        self.op.run(prio, task, &mut self.ctx);
        if TIMED {
            let task_cycles = self.c.lap::<TIMED>();
            self.c.cycles.task += task_cycles;
            self.ctx.end_task(task_cycles);
            // Timed runs buffer the pushes, so that filing them into the
            // buckets is a phase of its own (Enq).
            let pushed = self.ctx.file_pushes();
            self.c.cycles.enq += self.c.lap::<TIMED>();
            self.c.cycles.enq_ops += pushed;
        } else {
            self.ctx.end_task(0);
        }
        self.c.tasks += 1;
    }

    /// Publishes progress; false if the run was cancelled or aborted.
    #[inline]
    fn check_in(&mut self) -> bool {
        if self.observer.check_in(self.c.tasks) {
            self.shared.barrier.abort();
            return false;
        }
        !self.shared.barrier.is_aborted()
    }

    /// One thread alone: bucket after bucket, batch after batch.
    fn run_alone(&mut self, shift: u32) {
        let mut controller = self.shared.controller.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // Nobody else locks it in a run of one thread.
        let mut log = self.shared.round_log.lock().unwrap_or_else(|e| e.into_inner());
        let mut shift = shift;
        let mut batch = Vec::new();
        'run: loop {
            let level = self.buckets().next_level();
            if level == Prio::MAX {
                break;
            }
            let tasks = std::mem::take(&mut self.round_tasks);
            log.record(tasks, Some(level));
            let next = controller.on_round(tasks, self.buckets().len() as u64);
            if next != shift {
                shift = next;
                self.r.rebucketed += self.buckets().set_shift(shift) as u64;
            }
            let key = self.buckets().next_level() >> shift;
            while self.buckets().take_due(key, &mut batch) {
                if !self.run_batch(&mut batch) {
                    break 'run;
                }
            }
            self.c.cycles.other += self.c.lap::<TIMED>();
        }
        log.record(std::mem::take(&mut self.round_tasks), None);
        *self.shared.controller.lock().unwrap_or_else(|e| e.into_inner()) = controller;
    }

    /// Several threads: rounds, each ended by one barrier. Returns on
    /// termination or abort.
    fn run_rounds(&mut self) -> Result<(), Aborted> {
        let shared = self.shared;
        let mut batch: Vec<(W, T)> = Vec::with_capacity(CHUNK);
        let mut key = None;
        loop {
            if let Some(k) = key {
                self.round_work(k, &mut batch)?;
            }
            self.arrive_and_wait(key, &mut batch)?;
            let done = shared.done.load(Ordering::Relaxed);
            if done {
                self.ctx.end_store_log();
            }
            // Logged plain stores (`Context::logs_plain_stores`), held
            // while a thread is excused.
            self.ctx.hold_plain_stores(!shared.full.load(Ordering::Relaxed));
            self.op.after_barrier(&mut self.ctx);
            if done {
                return Ok(());
            }
            self.round_tasks = std::mem::take(&mut self.ran_ahead);
            self.took_own = false;
            let (shift, k) = (shared.shift.load(Ordering::Relaxed), shared.key.load(Ordering::Relaxed));
            if self.buckets().shift() != shift {
                self.r.rebucketed += self.buckets().set_shift(shift) as u64;
            }
            key = Some(k);
        }
    }

    /// Files `batch` into this thread's pile, where the others can take
    /// from it, and wakes any thread sleeping at the barrier to help.
    fn publish(&self, batch: &mut Vec<(W, T)>) {
        self.shared.piles.get(self.tid).put(batch);
        self.shared.barrier.notify_work();
    }

    /// The work of the round whose first key is `key`: this thread's pile
    /// in chunks, then its own buckets of the round's keys, most urgent
    /// first (shared only with a waiting thread), then half of another
    /// thread's pile, until none of them has anything.
    fn round_work(&mut self, key: u64, batch: &mut Vec<(W, T)>) -> Result<(), Aborted> {
        let shared = self.shared;
        let me = shared.piles.get(self.tid);
        let last_key = key.saturating_add(shared.keys.load(Ordering::Relaxed) - 1);
        loop {
            // A plain store per batch, to this thread's own line (read only
            // by a waiting thread): progress for `Worker::stalled`.
            shared.reports[self.tid].progress.store(self.c.tasks, Ordering::Relaxed);
            // Guided chunks: a share of what is left, so the last chunks of
            // a round are short and no thread waits long at the barrier for
            // another's last chunk.
            let chunk = me.len_hint().div_ceil(GUIDED_SHARES * shared.threads).clamp(MIN_CHUNK, CHUNK);
            if me.take(chunk, batch) > 0 {
                if !self.run_batch(batch) {
                    return Err(Aborted);
                }
                continue;
            }
            // Past the fusion limit, the tasks pushed since the first take
            // wait for the next round (module docs, "Fusion and its limit").
            let may_fuse = !self.took_own || self.round_tasks < self.fusion_limit;
            if may_fuse && self.buckets().take_due(last_key, batch) {
                self.took_own = true;
                self.r.own_tasks += batch.len() as u64;
                if !self.run_own_bucket(batch) {
                    return Err(Aborted);
                }
                continue;
            }
            let stolen = shared.piles.steal(self.tid, batch);
            if stolen > 0 {
                self.r.steals += 1;
                self.r.stolen_tasks += stolen as u64;
                if stolen > CHUNK {
                    self.r.published += 1;
                    self.publish(batch);
                } else if !self.run_batch(batch) {
                    return Err(Aborted);
                }
                continue;
            }
            self.c.empty_pops += 1;
            if TIMED {
                self.c.cycles.failed_deq += self.c.lap::<TIMED>();
            }
            return Ok(());
        }
    }

    /// While waiting at the barrier: runs the newest task of this thread's
    /// most urgent bucket if its key lies in `first..=last` (past the
    /// round, whose tasks a fusion stop leaves alone), and says whether it
    /// did. The task counts toward the next round's size.
    fn run_one_ahead(&mut self, first: u64, last: u64) -> bool {
        // The wait so far (Other), then the look and the pop (Deq).
        self.c.cycles.other += self.c.lap::<TIMED>();
        let buckets = self.buckets();
        let level = buckets.next_level();
        if level == Prio::MAX || !(first..=last).contains(&(level >> buckets.shift())) {
            return false;
        }
        let Some((prio, task)) = buckets.pop_current() else { return false };
        if TIMED {
            self.c.cycles.deq += self.c.lap::<TIMED>();
            self.c.cycles.deq_ops += 1;
        }
        self.c.pops += 1;
        self.r.ahead += 1;
        self.run_task(prio, task);
        let continued = if F::CONTINUATIONS { self.run_continuations() } else { 0 };
        self.ran_ahead += 1 + continued;
        true
    }

    /// The first working thread, other than this one, whose progress has
    /// stood still in `generation` for longer than the stall limit, as seen
    /// over this thread's calls (module docs, "A stalled thread").
    fn stalled(&self, generation: u32) -> Option<usize> {
        let shared = self.shared;
        let now = Instant::now();
        let limit = shared.stall_limit();
        for (tid, watch) in self.watch.iter().enumerate() {
            if tid == self.tid || !shared.barrier.is_working(tid, generation) {
                continue;
            }
            let progress = shared.reports[tid].progress.load(Ordering::Relaxed);
            let w = watch.get();
            if w.generation != generation || w.progress != progress {
                watch.set(Watch { generation, progress, since: now });
            } else if now.duration_since(w.since) >= limit {
                return Some(tid);
            }
        }
        None
    }

    /// Excuses a stalled thread in `generation` (see [`Worker::stalled`]),
    /// if there is one; returns whether that ended the wait (the excuse
    /// was the last arrival, and this thread led the decision).
    fn excuse_stalled(&mut self, generation: u32) -> Result<bool, Aborted> {
        let Some(laggard) = self.stalled(generation) else { return Ok(false) };
        match self.shared.barrier.excuse(laggard, generation) {
            None => Ok(false),
            Some(arrival) => {
                self.r.excusals += 1;
                if arrival == Arrival::Leader {
                    self.shared.lead()?;
                    return Ok(true);
                }
                Ok(false)
            }
        }
    }

    /// Reports to the leader, arrives at the barrier and waits for the
    /// decision; while waiting, leaves the barrier again to help whenever
    /// another thread's pile holds work of the round `key`, and excuses a
    /// thread that stalls. A thread that finds it was excused comes back
    /// and waits to be seated again. Waiting counts as Other time.
    fn arrive_and_wait(&mut self, key: Option<u64>, batch: &mut Vec<(W, T)>) -> Result<(), Aborted> {
        let shared = self.shared;
        let barrier = &shared.barrier;
        // The keys a waiting thread may run ahead in (module docs, "Running
        // ahead"): the next span past this round's keys.
        let ahead = key.map(|k| {
            let keys = shared.keys.load(Ordering::Relaxed);
            (k.saturating_add(keys), k.saturating_add(2 * keys - 1))
        });
        loop {
            let report = &shared.reports[self.tid];
            let level = self.buckets().next_level();
            let shift = self.buckets().shift();
            // Tasks of the round's first key left queued: stopped by the
            // fusion limit (otherwise `round_work` returns only without
            // them). Tasks of its later keys left queued end the round like
            // any other: the next begins at the most urgent key left.
            let cut = key.is_some_and(|k| level != Prio::MAX && level >> shift <= k);
            self.r.fusion_stops += u64::from(cut);
            report.level.store(level, Ordering::Relaxed);
            report.queued.store(self.buckets().len() as u64, Ordering::Relaxed);
            report.tasks.store(self.round_tasks, Ordering::Relaxed);
            report.cut.store(cut, Ordering::Relaxed);
            report.progress.store(self.c.tasks, Ordering::Relaxed);
            self.c.idle_scans += 1;
            let generation = match barrier.arrive_seated(self.tid) {
                Ok(Arrival::Leader) => {
                    shared.lead()?;
                    self.c.cycles.other += self.c.lap::<TIMED>();
                    return Ok(());
                }
                Ok(Arrival::Wait(generation)) => generation,
                Err(barrier::Excused) => {
                    // Counted in every round since it was excused; its
                    // report (just written) counts in the decision that
                    // seats it again.
                    let (blocked, returns) = barrier.come_back(self.tid)?;
                    self.r.excused += returns;
                    self.r.parks += u64::from(blocked);
                    self.c.cycles.other += self.c.lap::<TIMED>();
                    return Ok(());
                }
            };
            let mut helped = false;
            for spin in 0..HELP_SPINS {
                if barrier.is_released(generation) {
                    self.c.cycles.other += self.c.lap::<TIMED>();
                    return Ok(());
                }
                if barrier.is_aborted() {
                    return Err(Aborted);
                }
                if let Some(k) = key {
                    if shared.piles.others_have_work(self.tid)
                        && barrier.try_leave_seated(self.tid, generation)
                    {
                        self.r.helps += 1;
                        self.c.cycles.other += self.c.lap::<TIMED>();
                        self.round_work(k, batch)?;
                        helped = true;
                        break;
                    }
                }
                if let Some((first, last)) = ahead {
                    let before = self.c.tasks;
                    if self.run_one_ahead(first, last) {
                        if passed_publish_mark(before, self.c.tasks) && !self.check_in() {
                            return Err(Aborted);
                        }
                        continue;
                    }
                }
                if spin % 64 == 63 {
                    if self.excuse_stalled(generation)? {
                        self.c.cycles.other += self.c.lap::<TIMED>();
                        return Ok(());
                    }
                    crate::sync::yield_now();
                } else {
                    crate::sync::spin_loop();
                }
            }
            if helped {
                continue;
            }
            // Nothing to help with for a while: sleep until the release,
            // until another thread files work into its pile, or until a
            // working thread looks stalled (the wait wakes every millisecond
            // to look).
            loop {
                let tid = self.tid;
                let has_work = || key.is_some() && shared.piles.others_have_work(tid);
                let (wake, blocked) =
                    barrier.wait_or_work(generation, || has_work() || self.stalled(generation).is_some())?;
                self.r.parks += u64::from(blocked);
                match (wake, key) {
                    (Wake::Released, _) => {
                        self.c.cycles.other += self.c.lap::<TIMED>();
                        return Ok(());
                    }
                    (Wake::Work, Some(k)) if has_work() && barrier.try_leave_seated(self.tid, generation) => {
                        self.r.helps += 1;
                        self.c.cycles.other += self.c.lap::<TIMED>();
                        self.round_work(k, batch)?;
                        break;
                    }
                    (Wake::Work, _) => {
                        if self.excuse_stalled(generation)? {
                            self.c.cycles.other += self.c.lap::<TIMED>();
                            return Ok(());
                        }
                        if has_work() {
                            // Everyone arrived meanwhile (the leader is
                            // deciding).
                            barrier.wait(generation)?;
                            self.c.cycles.other += self.c.lap::<TIMED>();
                            return Ok(());
                        }
                    }
                }
            }
        }
    }
}

/// Everything one thread does in a run.
fn worker<T, W: RoundWord, F, const TIMED: bool>(
    shared: &Shared<T, W>,
    tid: usize,
    initial: Vec<(Prio, T)>,
    op: &F,
    cfg: RoundsConfig,
) -> (ThreadStats, Vec<TaskNote>)
where
    F: Operator<T>,
{
    let mut c = Counters::default();
    c.lap::<TIMED>();
    let start = c.last_lap;
    let shift = cfg.shift;
    let mut buckets = Buckets::<T, W>::new(shift);
    let initial_count = initial.len() as u64;
    for (p, t) in initial {
        buckets.push(p, t);
    }
    c.cycles.enq += c.lap::<TIMED>();
    c.cycles.enq_ops += if TIMED { initial_count } else { 0 };
    let observer = Observer { tid, monitor: shared.monitor.as_deref(), cancelled: &shared.cancelled };
    observer.check_in(0);
    let mut ctx = Context::with_task_log(tid, shared.log_tasks);
    if shared.threads > 1 {
        // `run_rounds` calls `Operator::after_barrier` after every barrier.
        ctx.enable_store_log();
    }
    ctx.keep_buckets(W::wrap(buckets), TIMED, F::CONTINUATIONS);
    let mut w = Worker::<T, W, F, TIMED> {
        shared,
        tid,
        op,
        ctx,
        c,
        r: RoundCounters::default(),
        observer,
        round_tasks: 0,
        ran_ahead: 0,
        share: Vec::new(),
        fusion_limit: cfg.fusion_limit(),
        took_own: false,
        watch: (0..shared.threads)
            .map(|_| Cell::new(Watch { generation: u32::MAX, progress: 0, since: Instant::now() }))
            .collect(),
    };
    if shared.threads == 1 {
        w.run_alone(shift);
    } else {
        // An abort (a panic elsewhere, or a cancelled run) ends the loop;
        // the panic is re-raised by the pool, a cancellation is reported.
        let _ = w.run_rounds();
    }
    if let Some(m) = w.observer.monitor {
        m.publish(tid, w.c.tasks);
    }
    let (pushes, final_shift, left_queued) = {
        let b = w.buckets();
        (b.pushes(), b.shift(), b.len() as u64)
    };
    let mut c = w.c;
    c.stale = w.ctx.stale_count();
    // Every push went through the buckets (the initial ones included),
    // but for the continuations.
    c.pushes = pushes + w.r.continued;
    let cycles = TIMED.then(|| {
        let total = timing::now().wrapping_sub(start);
        let mut b = c.cycles;
        b.other = total.saturating_sub(b.task + b.enq + b.deq + b.failed_deq);
        b
    });
    let r = w.r;
    let (rechecked_stores, repaired_stores) = w.ctx.store_log_counts();
    let stats = ThreadStats {
        tasks: c.tasks,
        pushes: c.pushes,
        pops: c.pops,
        empty_pops: c.empty_pops,
        stale_tasks: c.stale,
        flushes: 0,
        idle_scans: c.idle_scans,
        parks: r.parks,
        sched_counters: vec![
            ("pile_fillings", r.published),
            ("own_tasks", r.own_tasks - r.shared_tasks),
            ("shared_tasks", r.shared_tasks),
            ("steals", r.steals),
            ("stolen_tasks", r.stolen_tasks),
            ("barrier_helps", r.helps),
            ("fusion_stops", r.fusion_stops),
            ("continued_tasks", r.continued),
            ("tasks_ahead", r.ahead),
            ("excused", r.excused),
            ("excusals", r.excusals),
            ("rebucketed_tasks", r.rebucketed),
            ("final_shift", u64::from(final_shift)),
            ("left_queued", left_queued),
            ("rechecked_stores", rechecked_stores),
            ("repaired_stores", repaired_stores),
        ],
        cycles,
    };
    (stats, w.ctx.take_notes())
}

#[cfg(test)]
mod tests {
    use super::{next_mean, passed_publish_mark, PUBLISH_EVERY};

    #[test]
    fn the_expected_round_length_follows_short_rounds_and_resists_stalls() {
        assert_eq!(next_mean(0, 40_000), 40_000, "the first round sets it");
        assert_eq!(next_mean(40_000, 20_000), 30_000, "a shorter round: half way down");
        assert_eq!(next_mean(40_000, 48_000), 41_000, "a longer one: an eighth of the excess");
        assert_eq!(next_mean(40_000, 4_000_000), 45_000, "a stall counts as twice the mean at most");
        // Every other round waiting a thousand times the usual length: the
        // mean stays within a small factor of the usual length.
        let mut mean = 25_000;
        for i in 0..1000 {
            mean = next_mean(mean, if i % 2 == 0 { 25_000_000 } else { 25_000 });
        }
        assert!(mean < 2 * 25_000, "{mean}");
    }

    #[test]
    fn a_publish_mark_is_passed_exactly_when_a_multiple_lies_in_between() {
        let m = PUBLISH_EVERY;
        assert!(passed_publish_mark(m - 1, m));
        assert!(passed_publish_mark(m - 3, m + 5), "a step over the multiple counts");
        assert!(passed_publish_mark(0, 3 * m + 1));
        assert!(!passed_publish_mark(0, m - 1));
        assert!(!passed_publish_mark(m, 2 * m - 1), "starting on a multiple is not passing one");
        // Against the definition, over every pair of counts in a few blocks.
        for before in 0..4 * m {
            for after in before..4 * m {
                assert_eq!(
                    passed_publish_mark(before, after),
                    before / m != after / m,
                    "{before} -> {after}"
                );
            }
        }
    }
}
