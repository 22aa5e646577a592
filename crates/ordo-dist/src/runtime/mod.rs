//! The per-rank many-task runtime: worker threads running the scheduler
//! loop of the DC-SSSP paper (Algorithm 1), with a plug-in scheduler that
//! the application provides (Algorithm 2), over any [`Endpoint`].
//!
//! Each worker thread loops, restarting from the top whenever a step found
//! something to do:
//!
//! 1. its **mailbox** (tasks addressed to this thread),
//! 2. its **yield queue** (tasks that yielded; one becomes runnable again
//!    once the thread has progressed the network since it yielded, so a
//!    yield lets the runtime go once around the loop),
//! 3. its **LIFO queue** of ordinary tasks,
//! 4. the **plug-in scheduler**'s work producer ([`PlugIn::produce`]), whose
//!    item the plug-in then executes,
//! 5. **network progress**: flush this thread's aggregated outgoing messages
//!    and handle what has arrived (work items go to the plug-in's consumer,
//!    [`PlugIn::consume`]),
//! 6. **stealing** between the rank's threads: the oldest task of another
//!    thread's LIFO queue, then the plug-in's own stealing
//!    ([`PlugIn::steal`]);
//!
//! and when all six come back empty the thread is idle: it backs off, and on
//! rank 0 it drives termination detection (see [`crate::termination`]).
//!
//! As in the paper, a plug-in that keeps producing keeps the network
//! unprogressed: returning `None` from `produce` is how a plug-in hands
//! control back (fixed or adaptive frequency, flow control).

mod cx;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use crossbeam_deque::{Injector, Steal, Stealer, Worker as Deque};

pub use cx::Cx;

use crate::termination::{self, Detector, Verdict, WorkCounters};
use crate::transport::Endpoint;
use crate::wire::{self, Kind, Wire};
use crate::DistError;

/// A distributed application as the runtime sees it: the type of its work
/// items, of its ordinary tasks, and its per-thread plug-in scheduler.
pub trait Program: Sync {
    /// A work item, sent between ranks (e.g. SSSP's vertex and distance).
    type Item: Wire;
    /// An ordinary runtime task of the application (e.g. a message
    /// handler, or a queue drain that yields).
    type Task: Send;
    /// One worker thread's plug-in scheduler and application state.
    type Worker<'p>: PlugIn<Self>
    where
        Self: 'p;

    /// The plug-in of worker thread `tid`, created on that thread.
    fn worker(&self, tid: usize) -> Self::Worker<'_>;
}

/// The plug-in scheduler an application gives the runtime (DC-SSSP paper
/// §3–4): a **work producer**, a **work consumer** and **work stealing**,
/// plus how to execute an item and an ordinary task.
///
/// Every work item must be counted exactly once as created and once as
/// finished through the [`Cx`] (sends count creation themselves); the
/// runtime's termination detection depends on it.
pub trait PlugIn<P: Program + ?Sized> {
    /// Called once on each thread before the loop starts (e.g. to seed the
    /// source); every rank's threads have run it before any thread of that
    /// rank answers a termination wave.
    fn start(&mut self, _cx: &mut Cx<'_, P>) {}

    /// Work consumer: `items` arrived for this rank (each already counted
    /// as created by its sender).
    fn consume(&mut self, cx: &mut Cx<'_, P>, items: &[P::Item]);

    /// Work producer (`f_p`): the next item to execute, or `None` to hand
    /// control back to the runtime (nothing to do, or time to progress the
    /// network).
    fn produce(&mut self, cx: &mut Cx<'_, P>) -> Option<P::Item>;

    /// Executes an item that [`PlugIn::produce`] or [`PlugIn::steal`] returned.
    fn execute(&mut self, cx: &mut Cx<'_, P>, item: P::Item);

    /// Work stealing: an item from another thread of this rank, when this
    /// thread has nothing else to do.
    fn steal(&mut self, _cx: &mut Cx<'_, P>) -> Option<P::Item> {
        None
    }

    /// Runs an ordinary task.
    fn run_task(&mut self, cx: &mut Cx<'_, P>, task: P::Task);

    /// The application's named counters of this thread, summed by the runtime.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// Runtime parameters of one rank.
#[derive(Clone, Copy, Debug)]
pub struct RuntimeOptions {
    /// Worker threads of the rank.
    pub threads: usize,
    /// A thread sends its buffer of items for a destination once it holds
    /// this many payload bytes (and at every network progress).
    pub flush_bytes: usize,
    /// Most messages handled by one network progress call.
    pub recv_batch: usize,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions { threads: 1, flush_bytes: 4096, recv_batch: 64 }
    }
}

/// What one worker thread did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Ordinary tasks run (mailbox, yield queue, LIFO, stolen).
    pub tasks: u64,
    /// Items the plug-in produced or stole and executed.
    pub items: u64,
    /// Network progress calls.
    pub progress_calls: u64,
    /// Network progress calls that received at least one message.
    pub progress_hits: u64,
    /// Messages sent (aggregated work items, acknowledgements, waves).
    pub messages_sent: u64,
    /// Bytes sent, headers included.
    pub bytes_sent: u64,
    /// Messages received.
    pub messages_received: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Work items sent to other ranks.
    pub items_sent: u64,
    /// Items sent with a request for acknowledgement (flow control).
    pub acked_sends: u64,
    /// Tasks taken from another thread's LIFO queue.
    pub steals: u64,
    /// Time spent idle (every step of the loop empty), in seconds.
    pub idle_s: f64,
    /// The plug-in's counters.
    pub app: Vec<(&'static str, u64)>,
}

impl WorkerStats {
    /// Sums `threads`' statistics (application counters by name).
    pub fn sum(threads: &[WorkerStats]) -> WorkerStats {
        let mut t = WorkerStats::default();
        for s in threads {
            t.tasks += s.tasks;
            t.items += s.items;
            t.progress_calls += s.progress_calls;
            t.progress_hits += s.progress_hits;
            t.messages_sent += s.messages_sent;
            t.bytes_sent += s.bytes_sent;
            t.messages_received += s.messages_received;
            t.bytes_received += s.bytes_received;
            t.items_sent += s.items_sent;
            t.acked_sends += s.acked_sends;
            t.steals += s.steals;
            t.idle_s += s.idle_s;
            for &(name, v) in &s.app {
                match t.app.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sum)) => *sum += v,
                    None => t.app.push((name, v)),
                }
            }
        }
        t
    }

    /// An application counter by name (0 if absent).
    pub fn app_counter(&self, name: &str) -> u64 {
        self.app.iter().find(|(n, _)| *n == name).map_or(0, |&(_, v)| v)
    }
}

/// The result of one rank's run of the scheduler loop.
#[derive(Debug)]
pub struct RankRun {
    /// Each worker thread's statistics.
    pub per_thread: Vec<WorkerStats>,
    /// Wall time from the start of the loop until this rank learned of
    /// termination, in seconds.
    pub time_s: f64,
    /// Termination waves rank 0 ran (0 on other ranks).
    pub waves: u64,
    /// Messages received by the loop that belong to later phases (kept for
    /// the caller's collective steps).
    pub leftovers: Vec<Vec<u8>>,
}

/// Everything a rank's worker threads share.
pub(crate) struct RankShared<'e, P: Program + ?Sized> {
    ep: &'e dyn Endpoint,
    rank: usize,
    ranks: usize,
    opts: RuntimeOptions,
    counters: Vec<WorkCounters>,
    /// Flow control: acknowledged sends whose acknowledgement has not come back.
    acks_outstanding: AtomicU64,
    mailboxes: Vec<Injector<P::Task>>,
    stealers: Vec<Stealer<P::Task>>,
    done: AtomicBool,
    failure: Mutex<Option<DistError>>,
    detector: Option<Mutex<Detector>>,
    /// Messages that arrived before the loop started; handled first.
    early: Mutex<Vec<Vec<u8>>>,
    /// Whether `early` may still hold messages (saves the lock afterwards).
    early_pending: AtomicBool,
    leftovers: Mutex<Vec<Vec<u8>>>,
}

impl<P: Program + ?Sized> RankShared<'_, P> {
    fn fail(&self, e: DistError) {
        let mut f = self.failure.lock().expect("failure lock");
        if f.is_none() {
            *f = Some(e);
        }
        self.done.store(true, Ordering::Release);
    }

    /// Tells every rank (this one included) that termination was detected.
    fn stop_all(&self) {
        for dest in (0..self.ranks).filter(|&r| r != self.rank) {
            self.ep.send(dest, wire::message(Kind::Stop, self.rank, 0, 0));
        }
        self.done.store(true, Ordering::Release);
    }
}

/// Runs the scheduler loop of `program` on this rank until termination is
/// detected (or some rank fails). Every rank of the run must call it; the
/// caller has already synchronized the ranks (the setup agreement) and
/// passes the loop's messages that arrived meanwhile as `early`.
///
/// # Errors
/// A failure of this rank (a malformed message, a panic in the plug-in),
/// or [`DistError::Remote`] when another rank failed.
pub fn run_rank<P: Program>(
    ep: &dyn Endpoint,
    program: &P,
    opts: RuntimeOptions,
    early: Vec<Vec<u8>>,
) -> Result<RankRun, DistError> {
    let threads = opts.threads.max(1);
    let opts = RuntimeOptions { threads, ..opts };
    let deques: Vec<Deque<P::Task>> = (0..threads).map(|_| Deque::new_lifo()).collect();
    let shared = RankShared::<P> {
        ep,
        rank: ep.rank(),
        ranks: ep.ranks(),
        opts,
        counters: (0..threads).map(|_| WorkCounters::default()).collect(),
        acks_outstanding: AtomicU64::new(0),
        mailboxes: (0..threads).map(|_| Injector::new()).collect(),
        stealers: deques.iter().map(Deque::stealer).collect(),
        done: AtomicBool::new(false),
        failure: Mutex::new(None),
        detector: (ep.rank() == 0).then(|| Mutex::new(Detector::new(ep.ranks(), Instant::now()))),
        early_pending: AtomicBool::new(!early.is_empty()),
        early: Mutex::new(early),
        leftovers: Mutex::new(Vec::new()),
    };
    let barrier = Barrier::new(threads);
    let start = Instant::now();
    let per_thread: Vec<WorkerStats> = std::thread::scope(|s| {
        let handles: Vec<_> = deques
            .into_iter()
            .enumerate()
            .map(|(tid, deque)| {
                let (shared, barrier) = (&shared, &barrier);
                std::thread::Builder::new()
                    .name(format!("ordo-rank{}-w{tid}", shared.rank))
                    .spawn_scoped(s, move || {
                        let run = panic::catch_unwind(AssertUnwindSafe(|| {
                            worker_loop(shared, program, tid, deque, barrier)
                        }));
                        run.unwrap_or_else(|payload| {
                            shared.fail(DistError::Protocol(format!(
                                "worker thread {tid} panicked: {}",
                                panic_message(&payload)
                            )));
                            WorkerStats::default()
                        })
                    })
                    .expect("cannot spawn a worker thread")
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker thread result")).collect()
    });
    let time_s = start.elapsed().as_secs_f64();
    if let Some(e) = shared.failure.lock().expect("failure lock").take() {
        return Err(e);
    }
    let waves = shared.detector.as_ref().map_or(0, |d| d.lock().expect("detector lock").waves());
    let leftovers = std::mem::take(&mut *shared.leftovers.lock().expect("leftovers lock"));
    Ok(RankRun { per_thread, time_s, waves, leftovers })
}

/// The text of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Takes one task from an injector, retrying while it reports a race.
fn take<T>(injector: &Injector<T>) -> Option<T> {
    loop {
        match injector.steal() {
            Steal::Success(t) => return Some(t),
            Steal::Empty => return None,
            Steal::Retry => {}
        }
    }
}

/// Tracks the idle stretches of a thread for `idle_s` and the backoff.
struct Idle {
    since: Option<Instant>,
    rounds: u32,
    total: Duration,
}

impl Idle {
    fn busy(&mut self) {
        if let Some(t) = self.since.take() {
            self.total += t.elapsed();
        }
        self.rounds = 0;
    }

    /// One idle pass. While `expecting` (acknowledgements are on their
    /// way, and the plug-in holds work it may not produce until they come)
    /// the thread yields but never sleeps.
    fn idle(&mut self, expecting: bool) {
        if self.since.is_none() {
            self.since = Some(Instant::now());
        }
        if expecting {
            self.rounds = self.rounds.min(128);
        }
        crate::comm::backoff(&mut self.rounds);
    }
}

/// One worker thread: the scheduler loop of the module docs.
fn worker_loop<P: Program>(
    shared: &RankShared<'_, P>,
    program: &P,
    tid: usize,
    deque: Deque<P::Task>,
    barrier: &Barrier,
) -> WorkerStats {
    let mut plug = program.worker(tid);
    let mut cx = Cx::new(shared, tid, deque);
    plug.start(&mut cx);
    barrier.wait();
    let mut idle = Idle { since: None, rounds: 0, total: Duration::ZERO };
    while !shared.done.load(Ordering::Acquire) {
        // 1. Mailbox.
        if let Some(task) = take(&shared.mailboxes[tid]) {
            idle.busy();
            cx.stats.tasks += 1;
            plug.run_task(&mut cx, task);
            continue;
        }
        // 2. Yield queue.
        if let Some(task) = cx.take_yielded() {
            idle.busy();
            cx.stats.tasks += 1;
            plug.run_task(&mut cx, task);
            continue;
        }
        // 3. LIFO queue.
        if let Some(task) = cx.lifo.pop() {
            idle.busy();
            cx.stats.tasks += 1;
            plug.run_task(&mut cx, task);
            continue;
        }
        // 4. Plug-in scheduler.
        if let Some(item) = plug.produce(&mut cx) {
            idle.busy();
            cx.stats.items += 1;
            plug.execute(&mut cx, item);
            continue;
        }
        // 5. Network progress.
        if progress(&mut cx, &mut plug) {
            idle.busy();
            continue;
        }
        // 6. Stealing between the rank's threads.
        if let Some(task) = cx.steal_task() {
            idle.busy();
            cx.stats.tasks += 1;
            cx.stats.steals += 1;
            plug.run_task(&mut cx, task);
            continue;
        }
        if let Some(item) = plug.steal(&mut cx) {
            idle.busy();
            cx.stats.items += 1;
            plug.execute(&mut cx, item);
            continue;
        }
        if shared.rank == 0 {
            drive_termination(&mut cx);
        }
        idle.idle(shared.acks_outstanding.load(Ordering::Relaxed) > 0);
    }
    idle.busy();
    cx.stats.idle_s = idle.total.as_secs_f64();
    cx.stats.app = plug.counters();
    cx.stats.clone()
}

/// Rank 0, idle: starts a termination wave if none is out.
fn drive_termination<P: Program + ?Sized>(cx: &mut Cx<'_, P>) {
    let shared = cx.shared;
    let Some(detector) = &shared.detector else { return };
    let mut det = detector.lock().expect("detector lock");
    let now = Instant::now();
    let Some(wave) = det.try_start(|| termination::read_sums(&shared.counters), now) else { return };
    if shared.ranks == 1 {
        if det.complete_single(now) == Verdict::Terminated {
            shared.stop_all();
        }
        return;
    }
    for dest in 1..shared.ranks {
        cx.send_control(dest, wire::message(Kind::TermRequest, 0, wave, 0));
    }
}

/// Network progress: flushes this thread's outgoing items and handles up to
/// `recv_batch` arrived messages. Returns whether anything arrived.
fn progress<P: Program>(cx: &mut Cx<'_, P>, plug: &mut P::Worker<'_>) -> bool {
    cx.stats.progress_calls += 1;
    cx.round += 1;
    cx.flush_all();
    let shared = cx.shared;
    let mut got = false;
    for _ in 0..shared.opts.recv_batch {
        let early = if shared.early_pending.load(Ordering::Relaxed) {
            let mut early = shared.early.lock().expect("early lock");
            if early.len() <= 1 {
                shared.early_pending.store(false, Ordering::Relaxed);
            }
            early.pop()
        } else {
            None
        };
        let Some(msg) = early.or_else(|| shared.ep.try_recv()) else { break };
        got = true;
        cx.stats.messages_received += 1;
        cx.stats.bytes_received += msg.len() as u64;
        if let Err(e) = handle(cx, plug, msg) {
            shared.fail(e);
            break;
        }
    }
    if got {
        cx.stats.progress_hits += 1;
    }
    got
}

/// Handles one arrived message.
fn handle<P: Program>(cx: &mut Cx<'_, P>, plug: &mut P::Worker<'_>, msg: Vec<u8>) -> Result<(), DistError> {
    let shared = cx.shared;
    let h = wire::header(&msg)?;
    match h.kind {
        Kind::Data => {
            let mut items = std::mem::take(&mut cx.scratch);
            wire::items(wire::payload(&msg), &mut items)?;
            plug.consume(cx, &items);
            cx.scratch = items;
            if h.tag > 0 {
                // The continuation of the acknowledged sends in this message.
                cx.send_control(h.source, wire::message(Kind::Ack, shared.rank, h.tag, 0));
            }
        }
        Kind::Ack => {
            shared.acks_outstanding.fetch_sub(h.tag, Ordering::AcqRel);
        }
        Kind::TermRequest => {
            let (created, finished) = termination::read_sums(&shared.counters);
            let mut report = wire::message(Kind::TermReport, shared.rank, h.tag, 16);
            report.extend_from_slice(&wire::u64s(&[created, finished]));
            cx.send_control(0, report);
        }
        Kind::TermReport => {
            let counts = wire::to_u64s(wire::payload(&msg))?;
            let [created, finished] = counts[..] else {
                return Err(DistError::Protocol(format!("termination report of {} values", counts.len())));
            };
            let detector = shared.detector.as_ref().ok_or_else(|| {
                DistError::Protocol(format!("rank {} got a termination report", shared.rank))
            })?;
            let verdict =
                detector.lock().expect("detector lock").report(h.tag, (created, finished), Instant::now());
            if verdict == Verdict::Terminated {
                shared.stop_all();
            }
        }
        Kind::Stop => shared.done.store(true, Ordering::Release),
        Kind::Abort => {
            return Err(DistError::Remote {
                rank: h.source,
                message: String::from_utf8_lossy(wire::payload(&msg)).into_owned(),
            })
        }
        Kind::Agree | Kind::Gather | Kind::Broadcast | Kind::DeltaStep | Kind::Fin => {
            shared.leftovers.lock().expect("leftovers lock").push(msg);
        }
    }
    Ok(())
}
