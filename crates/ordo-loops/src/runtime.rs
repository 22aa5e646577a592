//! The runtime (Callisto-RTS §2): a set of worker threads arranged in the
//! thread tree, and the code that leads and follows loops.
//!
//! The thread that calls a loop from outside the runtime is the *root*
//! (thread 0 of the tree); the runtime's own workers are threads `1..n`.
//! A leader publishes a loop by opening its [`LoopSlot`] with a work item
//! that lives on its stack, and by writing `(slot, generation)` into the
//! location(s) its followers watch. Every follower watches exactly one
//! location, its parent's location for the follower's level; when it sees a
//! new value it tries to join the loop, forwards the value to its own
//! children that take part (levels `>=` the loop's), runs batches until the
//! distributor has none left, and leaves. The leader runs batches too, then
//! waits at the implicit barrier until every follower has left (the
//! per-socket active counts of `completion`). Shutdown is one more value,
//! [`SHUTDOWN`], written into every location.
//!
//! Idle followers spin for a short while, then yield, then park; a publisher
//! unparks the children it publishes to if they are parked.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use ordo_sched::affinity;
use ordo_sched::topology::Topology;

use crate::body::{Each, LoopBody};
use crate::combining::{CombiningCounts, CombiningDistributor, Packed, Padded};
use crate::completion::{LoopSlot, GEN_BITS, GEN_MASK, MAX_ACTIVE_PER_SOCKET};
use crate::distribute::shared::SharedDistributor;
use crate::distribute::striped::StripedDistributor;
use crate::distribute::Distribute;
use crate::error::LoopError;
use crate::levels::{LevelMap, LEVELS_ENV};
use crate::spec::{DistributorKind, DistributorSpec, Granularity, Upstream, LOOP_ENV};
use crate::tree::{Member, Team, Tree};
use crate::wait::SpinBudget;

/// The most threads a runtime can have.
pub const MAX_THREADS: usize = MAX_ACTIVE_PER_SOCKET;

/// The environment variable [`RuntimeBuilder::from_env`] reads the thread
/// count from (as the `ordo` command does).
pub const THREADS_ENV: &str = "ORDO_THREADS";

/// The value of a location telling its watchers to exit.
const SHUTDOWN: u64 = u64::MAX;
/// Bits of a location value holding `slot + 1` (the rest is the generation).
const SLOT_BITS: u32 = 64 - GEN_BITS;
/// Yields of an idle follower between spinning and parking.
const IDLE_YIELDS: u32 = 16;
/// Longest park of an idle follower (a wake-up is never needed for
/// correctness, but a lost one costs at most this).
const IDLE_PARK: Duration = Duration::from_millis(5);
/// How long an idle follower spins for the next loop by default, when the
/// runtime has no more threads than cores.
const DEFAULT_IDLE_SPIN: Duration = Duration::from_micros(50);

fn encode(slot: usize, generation: u64) -> u64 {
    (generation & GEN_MASK) << SLOT_BITS | (slot as u64 + 1)
}

fn decode(value: u64) -> (usize, u64) {
    (((value & ((1 << SLOT_BITS) - 1)) - 1) as usize, value >> SLOT_BITS)
}

/// What the thread-local context says about the current thread.
#[derive(Clone, Copy)]
struct Context {
    /// The runtime the thread is working for (null: none).
    shared: *const Shared,
    /// The thread's id in that runtime.
    tid: usize,
    /// The level of the innermost loop the thread is running part of; for
    /// the root outside any loop, the top level.
    level: usize,
}

impl Context {
    const NONE: Context = Context { shared: std::ptr::null(), tid: 0, level: 0 };
}

thread_local! {
    static CONTEXT: Cell<Context> = const { Cell::new(Context::NONE) };
}

/// Restores the previous context when dropped (also on unwinding).
struct ContextGuard(Context);

impl ContextGuard {
    fn set(context: Context) -> ContextGuard {
        ContextGuard(CONTEXT.with(|c| c.replace(context)))
    }

    fn set_level(level: usize) -> ContextGuard {
        let mut context = CONTEXT.with(Cell::get);
        context.level = level;
        Self::set(context)
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        CONTEXT.with(|c| c.set(self.0));
    }
}

/// How a thread is woken when it parks.
struct Signal {
    parked: AtomicBool,
    thread: OnceLock<std::thread::Thread>,
}

/// The failure of a loop: an abort flag every participant checks before
/// claiming, and the first panic, re-raised by the leader.
#[derive(Default)]
struct Failure {
    aborted: AtomicBool,
    payload: Mutex<Option<Box<dyn Any + Send + 'static>>>,
}

impl Failure {
    fn record(&self, payload: Box<dyn Any + Send + 'static>) {
        self.aborted.store(true, Ordering::Relaxed);
        self.payload.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(payload);
    }

    fn rethrow(self) {
        if let Some(payload) = self.payload.into_inner().unwrap_or_else(|e| e.into_inner()) {
            panic::resume_unwind(payload);
        }
    }
}

/// A published loop, as followers see it. Lives on the leader's stack.
struct WorkItem {
    /// Runs a participant's share of the loop. Lifetime erased: see the
    /// SAFETY argument in [`Shared::lead`].
    run: *const (dyn Fn(&Member) + Sync + 'static),
    /// The loop's team (owned by the tree, alive as long as the runtime).
    team: *const Team,
    /// The loop's level.
    level: usize,
}

/// Closes and drains a loop when dropped, so that the leader cannot leave
/// [`Shared::lead`] (by returning or unwinding) while a follower may still
/// use its work item.
struct Completion<'a> {
    slot: &'a LoopSlot,
    generation: u64,
    budget: SpinBudget,
}

impl Drop for Completion<'_> {
    fn drop(&mut self) {
        self.slot.close(self.generation);
        self.slot.wait_idle(self.budget);
    }
}

/// What the runtime's threads share.
pub(crate) struct Shared {
    tree: Tree,
    slots: Vec<LoopSlot>,
    /// `slot_of[t][k]`: the slot of the level-`k` loops led by `t`.
    slot_of: Vec<Vec<usize>>,
    /// `locations[t][c]`: what `t`'s children at level `c` watch.
    locations: Vec<Vec<CachePadded<AtomicU64>>>,
    signals: Vec<CachePadded<Signal>>,
    distributor: DistributorSpec,
    budget: SpinBudget,
    idle_spin: Duration,
    /// Serialises loops started from outside the runtime (the root role).
    root_lock: Mutex<()>,
    /// The CPU thread 0 runs on while it leads a loop started from outside,
    /// set once the workers are pinned (unset: the caller is not pinned).
    leader_cpu: OnceLock<Option<usize>>,
    /// The combining counts of every combining loop that has ended.
    combining: Mutex<CombiningCounts>,
}

impl Shared {
    /// Writes `value` into `t`'s location for level-`c` children and wakes
    /// the ones that are parked.
    fn publish(&self, t: usize, c: usize, value: u64) {
        self.locations[t][c].store(value, Ordering::SeqCst);
        for &child in self.tree.children(t, c) {
            self.wake(child);
        }
    }

    fn wake(&self, t: usize) {
        let signal = &self.signals[t];
        // SeqCst pairs with the watcher's SeqCst store of `parked` and load
        // of the location (`wait_for_work`): one of the two sees the other.
        if signal.parked.load(Ordering::SeqCst) {
            if let Some(thread) = signal.thread.get() {
                thread.unpark();
            }
        }
    }

    /// Runs a loop at `level` reached by thread `tid` inside a loop at
    /// `enclosing` (the top level for the root outside any loop).
    fn run_loop<B: LoopBody>(
        &self,
        tid: usize,
        enclosing: usize,
        level: usize,
        spec: &DistributorSpec,
        range: Range<usize>,
        body: &B,
    ) {
        if range.is_empty() {
            return;
        }
        let one_batch = (range.len() as u64) <= spec.inline_len();
        let team = match self.tree.team(tid, level, enclosing) {
            Some(team) if !one_batch => team,
            _ => {
                // Nobody can help, or there is only one batch: run it here.
                let _level = ContextGuard::set_level(enclosing.min(level));
                let mut state = body.fork();
                body.work_range(&mut state, range);
                body.join(state);
                return;
            }
        };
        let r = range.start as u64..range.end as u64;
        let batch = spec.batch() as u64;
        let budget = self.budget;
        match spec.kind() {
            DistributorKind::Shared => {
                self.lead(tid, enclosing, level, team, &SharedDistributor::new(r, batch), body)
            }
            DistributorKind::Striped => {
                let units = team.units(spec.level());
                self.lead(
                    tid,
                    enclosing,
                    level,
                    team,
                    &StripedDistributor::new(r, units, spec.level(), batch),
                    body,
                )
            }
            DistributorKind::Static => self.lead(
                tid,
                enclosing,
                level,
                team,
                &StripedDistributor::static_partition(r, team.len()),
                body,
            ),
            DistributorKind::Combining | DistributorKind::AsyncCombining => {
                let striped = spec.upstream() == Upstream::Striped;
                let lvl = spec.level();
                match (spec.kind() == DistributorKind::AsyncCombining, lvl) {
                    (false, Granularity::Socket) => {
                        let d =
                            CombiningDistributor::<Padded, false>::new(r, team, lvl, striped, batch, budget);
                        self.lead(tid, enclosing, level, team, &d, body);
                        self.add_combining(d.counts());
                    }
                    (false, _) => {
                        let d =
                            CombiningDistributor::<Packed, false>::new(r, team, lvl, striped, batch, budget);
                        self.lead(tid, enclosing, level, team, &d, body);
                        self.add_combining(d.counts());
                    }
                    (true, Granularity::Socket) => {
                        let d =
                            CombiningDistributor::<Padded, true>::new(r, team, lvl, striped, batch, budget);
                        self.lead(tid, enclosing, level, team, &d, body);
                        self.add_combining(d.counts());
                    }
                    (true, _) => {
                        let d =
                            CombiningDistributor::<Packed, true>::new(r, team, lvl, striped, batch, budget);
                        self.lead(tid, enclosing, level, team, &d, body);
                        self.add_combining(d.counts());
                    }
                }
            }
        }
    }

    /// Adds an ended loop's combining counts to the runtime's.
    fn add_combining(&self, counts: CombiningCounts) {
        let mut total = self.combining.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *total = *total + counts;
    }

    /// Leads one loop: publishes it, runs the leader's share, and waits for
    /// the followers at the implicit barrier.
    fn lead<D: Distribute, B: LoopBody>(
        &self,
        tid: usize,
        enclosing: usize,
        level: usize,
        team: &Arc<Team>,
        distributor: &D,
        body: &B,
    ) {
        let slot_id = self.slot_of[tid][level];
        let slot = &self.slots[slot_id];
        let generation = slot.next_generation();
        let failure = Failure::default();
        let run = |member: &Member| participate(distributor, body, member, slot, generation, &failure);
        let run: &(dyn Fn(&Member) + Sync) = &run;
        // SAFETY: only the lifetime bound of the trait object changes (same
        // fat-pointer layout). The erased `'static` is never relied upon:
        // followers call `run` only between a successful `try_enter` of this
        // generation and their `leave`; `try_enter` fails once the
        // generation is closed, and `completion` below closes it and waits
        // until no follower is entered before `run`, `failure` and
        // `distributor` go out of scope — when this function returns and
        // when it unwinds (the guard is dropped first, being declared last).
        let run: *const (dyn Fn(&Member) + Sync + 'static) = unsafe {
            std::mem::transmute::<
                *const (dyn Fn(&Member) + Sync + '_),
                *const (dyn Fn(&Member) + Sync + 'static),
            >(run as *const _)
        };
        let item = WorkItem { run, team: Arc::as_ptr(team), level };
        let opened = slot.open(&item as *const WorkItem as *mut ());
        debug_assert_eq!(opened, generation);
        let completion = Completion { slot, generation, budget: self.budget };
        let value = encode(slot_id, generation);
        for c in level..enclosing.min(self.tree.level(tid)) {
            self.publish(tid, c, value);
        }
        {
            let _level = ContextGuard::set_level(level);
            // SAFETY: `run` points to the closure above, alive here.
            unsafe { (*run)(team.member(0)) };
        }
        drop(completion);
        failure.rethrow();
    }

    /// The body of worker thread `tid`: follows loops until shutdown.
    fn follow(&self, tid: usize) {
        let level = self.tree.level(tid);
        let parent = self.tree.parent(tid).expect("workers are not the root");
        let watched = &self.locations[parent][level];
        let socket = self.tree.socket_of(tid);
        let mut seen = 0;
        loop {
            let value = self.wait_for_work(tid, watched, seen);
            seen = value;
            if value == SHUTDOWN {
                return;
            }
            let (slot_id, generation) = decode(value);
            let slot = &self.slots[slot_id];
            let Some(item) = slot.try_enter(generation, socket) else { continue };
            // SAFETY: `try_enter` succeeded, so the leader of this
            // generation is inside `lead` and stays there (with the item
            // alive) until we `leave` below.
            let item = unsafe { &*(item as *const WorkItem) };
            for c in item.level..level {
                self.publish(tid, c, value);
            }
            // SAFETY: the team is owned by `self.tree`, alive as long as `self`.
            let team = unsafe { &*item.team };
            if let Some(member) = team.member_of(tid) {
                let _level = ContextGuard::set_level(item.level);
                // SAFETY: as for `item`: alive until we leave.
                unsafe { (*item.run)(member) };
            } else {
                debug_assert!(false, "thread {tid} saw a loop whose team it is not in");
            }
            slot.leave(socket);
        }
    }

    /// Waits until `watched` differs from `seen`: spins, yields, then parks.
    fn wait_for_work(&self, tid: usize, watched: &AtomicU64, seen: u64) -> u64 {
        let signal = &self.signals[tid];
        let spin_until = Instant::now() + self.idle_spin;
        let mut round = 0u32;
        let mut yields = 0u32;
        loop {
            let value = watched.load(Ordering::Acquire);
            if value != seen {
                return value;
            }
            round = round.wrapping_add(1);
            if round % 64 != 0 || (yields == 0 && Instant::now() < spin_until) {
                std::hint::spin_loop();
            } else if yields < IDLE_YIELDS {
                yields += 1;
                std::thread::yield_now();
            } else {
                signal.parked.store(true, Ordering::SeqCst);
                if watched.load(Ordering::SeqCst) == seen {
                    std::thread::park_timeout(IDLE_PARK);
                }
                signal.parked.store(false, Ordering::Relaxed);
            }
        }
    }

    /// Runs a loop for the calling thread: nested in the loop it is running
    /// part of, or as the root when it calls from outside.
    pub(crate) fn enter<B: LoopBody>(
        &self,
        level: usize,
        spec: &DistributorSpec,
        range: Range<usize>,
        body: &B,
    ) {
        let context = CONTEXT.with(Cell::get);
        if std::ptr::eq(context.shared, self) {
            self.run_loop(context.tid, context.level, level, spec, range, body);
        } else {
            let _root = self.root_lock.lock().unwrap_or_else(|e| e.into_inner());
            // The caller is thread 0: on thread 0's CPU while it leads.
            let _pin = self.leader_cpu.get().copied().flatten().and_then(affinity::CallerPin::pin);
            let top = self.tree.top();
            let _context = ContextGuard::set(Context { shared: self, tid: 0, level: top });
            self.run_loop(0, top, level, spec, range, body);
        }
    }

    /// The runtime the calling thread is running a loop of, if any.
    pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Shared>) -> R) -> R {
        let context = CONTEXT.with(Cell::get);
        if context.shared.is_null() {
            f(None)
        } else {
            // SAFETY: the context is set only while the thread runs part of a
            // loop of that runtime (a worker holds an `Arc` of it; the root
            // is inside a call borrowing the runtime), and restored after.
            f(Some(unsafe { &*context.shared }))
        }
    }

    /// The runtime's default distributor.
    pub(crate) fn distributor(&self) -> &DistributorSpec {
        &self.distributor
    }
}

/// One participant's share of a loop: claims batches until none is left (or
/// the loop failed), creating its state at its first batch.
fn participate<D: Distribute, B: LoopBody>(
    distributor: &D,
    body: &B,
    member: &Member,
    slot: &LoopSlot,
    generation: u64,
    failure: &Failure,
) {
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        let mut cursor = distributor.cursor(member);
        let mut state: Option<B::State> = None;
        while !failure.aborted.load(Ordering::Relaxed) {
            match distributor.next(&mut cursor) {
                Some(batch) => {
                    let state = state.get_or_insert_with(|| body.fork());
                    body.work_range(state, batch.start as usize..batch.end as usize);
                }
                None => {
                    // The last batch is claimed: no point in others joining.
                    slot.close(generation);
                    break;
                }
            }
        }
        if let Some(state) = state {
            body.join(state);
        }
    }));
    if let Err(payload) = outcome {
        failure.record(payload);
        slot.close(generation);
    }
}

/// Configures a [`Runtime`]: threads, topology, nesting levels, default
/// distributor, pinning and idle spinning.
#[derive(Clone, Debug)]
pub struct RuntimeBuilder {
    threads: usize,
    topology: Option<Topology>,
    levels: LevelMap,
    distributor: DistributorSpec,
    pin: bool,
    idle_spin: Option<Duration>,
}

impl Default for RuntimeBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl RuntimeBuilder {
    /// Defaults: one thread per core the OS grants, the detected topology
    /// (`ORDO_TOPOLOGY` overrides it), one nesting level, per-thread striped
    /// counters with batches of 32, pinned workers.
    pub fn new() -> Self {
        RuntimeBuilder {
            threads: available_cores(),
            topology: None,
            levels: LevelMap::default(),
            distributor: DistributorSpec::default(),
            pin: true,
            idle_spin: None,
        }
    }

    /// [`RuntimeBuilder::new`] with the environment's configuration:
    /// `ORDO_THREADS` (thread count), `ORDO_LOOP` (default distributor, a
    /// spec such as `async-combining:batch=4`), `ORDO_LOOP_LEVELS` (nesting,
    /// e.g. `thread,core`). A malformed value is an error naming it.
    pub fn from_env() -> Result<Self, LoopError> {
        let mut builder = Self::new();
        if let Ok(text) = std::env::var(THREADS_ENV) {
            let n: usize = text.trim().parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                LoopError::Config(format!("{THREADS_ENV}=`{text}`: expected a positive integer"))
            })?;
            builder.threads = n;
        }
        if let Ok(text) = std::env::var(LOOP_ENV) {
            builder.distributor =
                text.parse().map_err(|e: LoopError| LoopError::Spec(format!("{LOOP_ENV}=`{text}`: {e}")))?;
        }
        if let Ok(text) = std::env::var(LEVELS_ENV) {
            builder.levels = text.parse()?;
        }
        Ok(builder)
    }

    /// The number of threads, the caller included (1 ..= [`MAX_THREADS`]).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Use this topology rather than detecting one (it must be made for the
    /// same number of threads).
    pub fn topology(mut self, topology: Topology) -> Self {
        self.topology = Some(topology);
        self
    }

    /// How nesting levels map to the machine.
    pub fn levels(mut self, levels: LevelMap) -> Self {
        self.levels = levels;
        self
    }

    /// The distributor of loops that do not name one.
    pub fn distributor(mut self, spec: DistributorSpec) -> Self {
        self.distributor = spec;
        self
    }

    /// Pin thread `t` to the CPU the topology places it on (default on; only
    /// when there are no more threads than CPUs): the `t`-th CPU of the
    /// process's affinity mask ([`ordo_sched::affinity`]), the same rule the
    /// `ordo-exec` pool pins by. The calling thread, thread 0 of the loops it
    /// starts, runs on thread 0's CPU while it leads a loop and gets its own
    /// affinity back afterwards.
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// How long an idle worker spins for the next loop before it yields and
    /// parks. Default 50 µs, or 0 when there are more threads than cores.
    pub fn idle_spin(mut self, spin: Duration) -> Self {
        self.idle_spin = Some(spin);
        self
    }

    /// Creates the worker threads.
    pub fn build(self) -> Result<Runtime, LoopError> {
        let threads = self.threads;
        if threads == 0 || threads > MAX_THREADS {
            return Err(LoopError::Threads(threads));
        }
        let topology = match self.topology {
            Some(t) if t.threads() == threads => t,
            Some(t) => {
                return Err(LoopError::Config(format!(
                    "the topology is made for {} threads, the runtime has {threads}",
                    t.threads()
                )))
            }
            None => Topology::detect(threads).map_err(|e| LoopError::Config(e.to_string()))?,
        };
        let tree = Tree::new(&topology, &self.levels);
        let mut slots = Vec::new();
        let slot_of: Vec<Vec<usize>> = (0..threads)
            .map(|t| {
                (0..tree.level(t))
                    .map(|_| {
                        slots.push(LoopSlot::new(tree.sockets()));
                        slots.len() - 1
                    })
                    .collect()
            })
            .collect();
        if slots.len() >= (1 << SLOT_BITS) - 2 {
            return Err(LoopError::Config(format!(
                "{threads} threads with {} nesting levels need too many loop slots",
                self.levels.len()
            )));
        }
        let locations = (0..threads)
            .map(|t| (0..tree.level(t)).map(|_| CachePadded::new(AtomicU64::new(0))).collect())
            .collect();
        let signals = (0..threads)
            .map(|_| CachePadded::new(Signal { parked: AtomicBool::new(false), thread: OnceLock::new() }))
            .collect();
        let cores = available_cores();
        let oversubscribed = threads > cores;
        let shared = Arc::new(Shared {
            tree,
            slots,
            slot_of,
            locations,
            signals,
            distributor: self.distributor,
            budget: if oversubscribed { SpinBudget::NONE } else { SpinBudget::DEFAULT },
            idle_spin: self.idle_spin.unwrap_or(if oversubscribed {
                Duration::ZERO
            } else {
                DEFAULT_IDLE_SPIN
            }),
            root_lock: Mutex::new(()),
            leader_cpu: OnceLock::new(),
            combining: Mutex::new(CombiningCounts::default()),
        });
        let pin = self.pin
            && !oversubscribed
            && affinity::SUPPORTED
            && (0..threads).all(|t| topology.cpu_of_thread(t).is_some())
            && threads <= affinity::process_cpus().len();
        let cpu_of: Vec<Option<usize>> =
            (0..threads).map(|t| topology.cpu_of_thread(t).filter(|_| pin)).collect();
        let mut runtime = Runtime {
            shared: shared.clone(),
            workers: Vec::with_capacity(threads - 1),
            topology,
            levels: self.levels,
            pinned: pin,
        };
        let (pinned_tx, pinned_rx) = std::sync::mpsc::channel::<bool>();
        for (tid, &core) in cpu_of.iter().enumerate().skip(1) {
            let shared = shared.clone();
            let pinned_tx = pinned_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("ordo-loops-{tid}"))
                .spawn(move || {
                    let pinned = core.is_some_and(affinity::pin_current_thread);
                    let _ = pinned_tx.send(pinned);
                    drop(pinned_tx);
                    let _ = shared.signals[tid].thread.set(std::thread::current());
                    let _context = ContextGuard::set(Context { shared: &*shared, tid, level: 0 });
                    shared.follow(tid);
                })
                .map_err(|source| LoopError::Spawn { index: tid, source })?; // Drop stops the ones created.
            runtime.workers.push(worker);
        }
        drop(pinned_tx);
        runtime.pinned = pin && pinned_rx.iter().take(threads - 1).all(|p| p);
        if runtime.pinned {
            let _ = shared.leader_cpu.set(cpu_of[0]);
        }
        Ok(runtime)
    }
}

/// A parallel-loop runtime (Callisto-RTS): a fixed set of worker threads
/// that run the iterations of the loops its callers start.
///
/// The thread that starts a loop takes part in it as the loop's leader; the
/// loop returns when every iteration has run (an implicit barrier). Loops may
/// be nested: a loop started from a loop body runs on the threads the
/// [`LevelMap`] gives its level (see [`Runtime::outer_parallel_for`]).
/// Loops started from outside the runtime by different threads run one
/// after the other.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use ordo_loops::Runtime;
///
/// let rt = Runtime::builder().threads(2).build().unwrap();
/// let total = AtomicU64::new(0);
/// rt.parallel_for(0..11, |i| {
///     total.fetch_add(i as u64, Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 55);
/// ```
pub struct Runtime {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    topology: Topology,
    levels: LevelMap,
    pinned: bool,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("threads", &self.threads())
            .field("levels", &self.levels.to_string())
            .field("distributor", &self.shared.distributor.to_string())
            .field("pinned", &self.pinned)
            .finish()
    }
}

impl Runtime {
    /// A builder with the defaults of [`RuntimeBuilder::new`].
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder::new()
    }

    /// A runtime of `threads` threads (the caller included) with the
    /// default configuration.
    pub fn new(threads: usize) -> Result<Runtime, LoopError> {
        Self::builder().threads(threads).build()
    }

    /// The number of threads, the calling thread included.
    pub fn threads(&self) -> usize {
        self.shared.tree.threads()
    }

    /// The distributor of loops that do not name one.
    pub fn distributor(&self) -> &DistributorSpec {
        &self.shared.distributor
    }

    /// The nesting configuration.
    pub fn levels(&self) -> &LevelMap {
        &self.levels
    }

    /// The topology the thread tree was built from.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// Whether every worker was pinned to its own CPU.
    pub fn pinned(&self) -> bool {
        self.pinned
    }

    /// The request-combining counts of every `combining` / `async-combining`
    /// loop this runtime has finished: whether combining happened (requests
    /// per serve above 1) or every combiner served only its own thread.
    pub fn combining_counts(&self) -> CombiningCounts {
        *self.shared.combining.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `body(i)` for every `i` in `range` on the runtime's threads
    /// with the default distributor: a level-0 loop.
    pub fn parallel_for(&self, range: Range<usize>, body: impl Fn(usize) + Sync) {
        self.shared.enter(0, &self.shared.distributor, range, &Each(body));
    }

    /// [`Runtime::parallel_for`] with the distributor `spec`.
    pub fn parallel_for_with(
        &self,
        spec: &DistributorSpec,
        range: Range<usize>,
        body: impl Fn(usize) + Sync,
    ) {
        self.shared.enter(0, spec, range, &Each(body));
    }

    /// A level-0 loop with per-thread state (`fork` / `work` / `join`,
    /// see [`LoopBody`]).
    pub fn parallel_for_body<B: LoopBody>(&self, spec: &DistributorSpec, range: Range<usize>, body: &B) {
        self.shared.enter(0, spec, range, body);
    }

    /// A loop at nesting level `level` (Callisto-RTS §2.2): `level` counts
    /// the levels of parallel loops nested inside this one ("inside out":
    /// a leaf loop is level 0 wherever it is called from).
    ///
    /// The loop runs on the threads the [`LevelMap`] gives `level`: with
    /// `thread,core`, a level-1 loop runs on one thread per core, and a
    /// level-0 loop inside its body on the threads of that core. A loop at a
    /// level not below the enclosing loop's (or beyond the configured ones)
    /// runs on the calling thread alone.
    pub fn outer_parallel_for<B: LoopBody>(
        &self,
        level: usize,
        spec: &DistributorSpec,
        range: Range<usize>,
        body: &B,
    ) {
        self.shared.enter(level, spec, range, body);
    }

    /// The state shared with the workers.
    pub(crate) fn shared(&self) -> &Shared {
        &self.shared
    }
}

impl Drop for Runtime {
    /// Stops and joins every worker: writes the shutdown value into every
    /// location (not only the root's, so that no worker depends on a parent
    /// that failed to start) and wakes everyone.
    fn drop(&mut self) {
        let shared = &self.shared;
        for t in 0..shared.tree.threads() {
            for c in 0..shared.locations[t].len() {
                shared.locations[t][c].store(SHUTDOWN, Ordering::SeqCst);
            }
        }
        for signal in &shared.signals {
            if let Some(thread) = signal.thread.get() {
                thread.unpark();
            }
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Number of CPUs the OS lets this process use (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
