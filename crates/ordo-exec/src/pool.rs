//! The persistent pool of worker threads that every [`for_each`](crate::for_each)
//! runs on.
//!
//! Threads are created once, optionally pinned one per core, and reused: a run
//! broadcasts one job (a closure of the worker index) to every worker and
//! returns when all of them returned from it.
//!
//! # The caller is worker 0
//! A pool of `n` workers creates `n - 1` threads; the thread that broadcasts
//! runs worker 0's share itself, as OpenMP's master thread does. A run on
//! one worker then starts no thread at all, and a run on `n` wakes `n - 1`:
//! waking a sleeping worker is a system call and, on a virtual machine, a
//! wait for the host to schedule the woken vCPU, which is not negligible
//! against a shortest-path run of a few milliseconds (figures in
//! `docs/design/2026-11-26-executor-costs.md`). Worker 0 also starts with
//! the caches of the thread that just prepared the run's data.
//!
//! In a pinned pool, worker `i` runs on the CPU
//! [`ordo_sched::affinity::cpu_of_thread`]`(i)` gives — the `i`-th CPU of
//! the process's affinity mask — which is the CPU [`Topology`] places
//! thread `i` on, so the socket a scheduler assigns to worker `i` is the
//! socket it runs on. Workers `i > 0` stay there for good; the caller is
//! pinned to worker 0's CPU for the length of its share and gets its own
//! affinity back afterwards (Linux; elsewhere nothing is pinned and
//! [`Pool::pinned`] says so). The placement does not depend on where the
//! process started or on earlier pools; processes that must not share
//! CPUs are started with disjoint masks (`taskset`).
//!
//! [`Topology`]: ordo_sched::topology::Topology
//!
//! # Waiting
//! A worker that finished its share spins for a while ([`SPIN_BEFORE_SLEEP`])
//! before it blocks, so a run that follows shortly (the next repetition of
//! a benchmark, a phase of a phased computation) finds it awake; so does the
//! caller waiting for the last worker. Spinning yields the core every few
//! rounds, so pools with more threads than cores still make progress.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ordo_sched::affinity;

/// How long a thread that waits for a job (a worker) or for the end of one
/// (the caller) spins before it blocks.
const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(200);

/// Spins between yields (and between reads of the clock) while waiting.
const SPINS_PER_YIELD: u32 = 64;

/// Most workers a [`Pool`] creates. Far beyond the largest machines (a few
/// hundred hardware threads) and far below where thread creation fails
/// partway (on Linux each thread takes memory maps for its stack and guard
/// pages; near the map limit, about 32,000 threads by default, the standard
/// library aborts the process while starting a thread instead of returning
/// an error). Thread counts beyond hardware are for `ordo-sim`.
pub const MAX_THREADS: usize = 4096;

/// Why a [`Pool`] could not be created.
#[derive(Debug)]
pub enum PoolError {
    /// A pool needs at least one thread.
    ZeroThreads,
    /// More threads than [`MAX_THREADS`] were asked for.
    TooManyThreads(usize),
    /// The operating system refused to create worker thread `index`.
    Spawn {
        /// The worker that could not be created.
        index: usize,
        /// The error of `std::thread::Builder::spawn`.
        source: std::io::Error,
    },
}

impl fmt::Display for PoolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolError::ZeroThreads => f.write_str("a thread pool needs at least one thread (got 0)"),
            PoolError::TooManyThreads(t) => {
                write!(f, "{t} threads asked for; a thread pool has at most {MAX_THREADS}")
            }
            PoolError::Spawn { index, source } => write!(f, "cannot create worker thread {index}: {source}"),
        }
    }
}

impl std::error::Error for PoolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PoolError::ZeroThreads | PoolError::TooManyThreads(_) => None,
            PoolError::Spawn { source, .. } => Some(source),
        }
    }
}

/// Configures a [`Pool`]: thread count and pinning.
#[derive(Clone, Debug)]
pub struct PoolBuilder {
    threads: usize,
    pin: bool,
}

impl PoolBuilder {
    /// Number of workers (at least 1), the thread that starts a run (worker
    /// 0) included: the pool creates one thread fewer. The default is every
    /// core the OS reports. (The `ordo` CLI reads `ORDO_THREADS` and passes
    /// it here.)
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Pin each worker to its own core (default on): worker `i` on the CPU
    /// the topology places thread `i` on, the `i`-th of the process's
    /// affinity mask (worker 0, the caller, only while it runs its share);
    /// see the module docs. Pinning is only attempted when there are at most
    /// as many workers as CPUs; whether it worked is reported by
    /// [`Pool::pinned`].
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Creates the threads.
    pub fn build(self) -> Result<Pool, PoolError> {
        Pool::create(self.threads, self.pin)
    }
}

/// A type-erased job: `Fn(worker index)`, with its lifetime erased (see the
/// SAFETY argument in [`Pool::broadcast`]).
#[derive(Clone, Copy)]
struct JobRef(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the pointee is `Sync`, so calling it from any thread through a
// shared pointer is sound; its lifetime is guaranteed by `Pool::broadcast`.
unsafe impl Send for JobRef {}

/// What the workers and the broadcasting caller share.
struct PoolState {
    /// Incremented by every broadcast; a worker runs the job once per value.
    generation: u64,
    /// The current job, while a broadcast is in progress.
    job: Option<JobRef>,
    /// Created workers that have not yet returned from the current job.
    running: usize,
    /// The first panic raised by a worker in the current job.
    panic: Option<Box<dyn Any + Send + 'static>>,
    /// Whether the current job may run on fewer workers than the pool has
    /// ([`Pool::broadcast_elastic`]).
    elastic: bool,
    /// Workers that took the current job.
    started: usize,
    /// Set by the caller of an elastic job once its own share returned:
    /// workers that have not taken the job by then skip it.
    closed: bool,
    /// Set by `Drop`: workers exit.
    shutdown: bool,
}

struct Shared {
    state: Mutex<PoolState>,
    job_posted: Condvar,
    job_finished: Condvar,
    /// `state.generation`, readable without the lock by spinning workers
    /// (written under the lock, `Release`).
    generation_hint: AtomicU64,
    /// `state.running`, readable without the lock by the spinning caller
    /// (written under the lock, `Release`: a worker's job happens before
    /// the caller reads its decrement).
    running_hint: AtomicUsize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // No code panics while holding this lock, but be robust anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

thread_local! {
    /// The pool (address of its shared state) this thread is a worker of, or 0.
    static WORKER_OF: Cell<usize> = const { Cell::new(0) };
}

/// A persistent pool of worker threads (see the module docs: the thread
/// that starts a run is worker 0).
pub struct Pool {
    shared: Arc<Shared>,
    /// Serialises broadcasts from different caller threads.
    broadcast_lock: Mutex<()>,
    /// Workers 1 and up.
    workers: Vec<JoinHandle<()>>,
    /// The CPU worker 0 (the caller) runs on, in a pinned pool.
    caller_cpu: Option<usize>,
    pinned: bool,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool").field("threads", &self.threads()).field("pinned", &self.pinned).finish()
    }
}

impl Pool {
    /// A pool of `threads` workers, pinned one per core when they fit.
    /// `threads == 0` is an error.
    pub fn new(threads: usize) -> Result<Pool, PoolError> {
        Pool::builder().threads(threads).build()
    }

    /// A builder defaulting to one pinned worker per core.
    pub fn builder() -> PoolBuilder {
        PoolBuilder { threads: available_cores(), pin: true }
    }

    /// A pool of `threads` workers, pinned one per core if `pin` and they fit.
    pub fn with_pinning(threads: usize, pin: bool) -> Result<Pool, PoolError> {
        Pool::builder().threads(threads).pin(pin).build()
    }

    /// Number of workers, the caller of a run (worker 0) included.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Whether every worker runs on its own core: the created ones for
    /// good, the caller while it runs worker 0's share.
    pub fn pinned(&self) -> bool {
        self.pinned
    }

    fn create(threads: usize, pin: bool) -> Result<Pool, PoolError> {
        if threads == 0 {
            return Err(PoolError::ZeroThreads);
        }
        if threads > MAX_THREADS {
            return Err(PoolError::TooManyThreads(threads));
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(PoolState {
                generation: 0,
                job: None,
                running: 0,
                panic: None,
                elastic: false,
                started: 0,
                closed: false,
                shutdown: false,
            }),
            job_posted: Condvar::new(),
            job_finished: Condvar::new(),
            generation_hint: AtomicU64::new(0),
            running_hint: AtomicUsize::new(0),
        });
        let cpus = affinity::process_cpus().len();
        let pin = pin && affinity::SUPPORTED && threads <= cpus;
        // The topology's placement, so that sockets and cores match.
        let pin_to = |i: usize| if pin { affinity::cpu_of_thread(i) } else { None };
        let (pinned_tx, pinned_rx) = mpsc::channel::<bool>();
        let mut pool = Pool {
            shared: shared.clone(),
            broadcast_lock: Mutex::new(()),
            workers: Vec::new(),
            caller_cpu: pin_to(0),
            pinned: false,
        };
        for index in 1..threads {
            let shared = shared.clone();
            let core = pin_to(index);
            let pinned_tx = pinned_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("ordo-worker-{index}"))
                .spawn(move || {
                    let pinned = core.is_some_and(affinity::pin_current_thread);
                    let _ = pinned_tx.send(pinned);
                    drop(pinned_tx);
                    worker_main(&shared, index);
                })
                .map_err(|source| PoolError::Spawn { index, source })?; // Drop joins the ones created.
            pool.workers.push(worker);
        }
        drop(pinned_tx);
        let pinned_count = pinned_rx.iter().take(threads - 1).filter(|&p| p).count();
        pool.pinned = pin && pinned_count == threads - 1;
        if !pool.pinned {
            pool.caller_cpu = None;
        }
        Ok(pool)
    }

    /// Whether the calling thread is one of this pool's workers (a run
    /// started from there could never begin: the pool waits for it).
    pub fn is_own_worker(&self) -> bool {
        WORKER_OF.with(Cell::get) == Arc::as_ptr(&self.shared) as usize
    }

    /// Runs `job(i)` on every worker `i` and returns when all have returned:
    /// `job(0)` on the calling thread, the others on the pool's threads. If
    /// jobs panicked, the first panic is re-raised here after every worker
    /// has finished.
    ///
    /// This is the pool's one primitive: the `for_each` executor and other
    /// runtimes built on the pool (ordo-steal's jobs) run through it.
    ///
    /// # Panics
    /// When called from a worker of this same pool, worker 0's share
    /// included (that would deadlock), and when a job panicked.
    pub fn broadcast(&self, job: &(dyn Fn(usize) + Sync)) {
        self.post(job, false);
    }

    /// Runs `job(0)` on the calling thread and `job(i)` on every worker `i`
    /// that takes the job before the caller's share returns; a worker that
    /// has not taken it by then (descheduled by the OS, still waking up)
    /// skips it. Returns when the caller and every worker that took the job
    /// have returned from it.
    ///
    /// For jobs whose workers are interchangeable and whose caller's share
    /// returns only when no work is left to claim (the chunked loops of
    /// `parallel`): on a machine shared with other processes, or with more
    /// workers than cores, a loop then never waits for a worker the OS has
    /// not run yet, only for the chunks already claimed.
    ///
    /// # Panics
    /// As [`Pool::broadcast`].
    pub(crate) fn broadcast_elastic(&self, job: &(dyn Fn(usize) + Sync)) {
        self.post(job, true);
    }

    /// [`Pool::broadcast`], or [`Pool::broadcast_elastic`] when `elastic`.
    fn post(&self, job: &(dyn Fn(usize) + Sync), elastic: bool) {
        assert!(
            !self.is_own_worker(),
            "ordo-exec: a run (for_each, or a job) started from a worker of the same pool (nested runs would deadlock)"
        );
        let _serial = self.broadcast_lock.lock().unwrap_or_else(|e| e.into_inner());
        if !self.workers.is_empty() {
            // SAFETY: only the lifetime bound of the trait object changes;
            // the layout of the fat pointer is identical. The erased
            // `'static` is never relied upon: workers call the job only
            // between the generation bump below and their `running -= 1`,
            // and this function does not return (nor unwind: worker 0's
            // share runs under `catch_unwind`, and nothing else between here
            // and the wait can panic) before `running` is back to 0 and the
            // job is removed from the shared state, so `job` outlives every
            // use. An elastic job is closed under the lock before that wait:
            // a worker takes a job only under the lock and only while it is
            // open, and `running` then counts exactly the workers that took
            // it, so none calls it after this function returns.
            let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe {
                std::mem::transmute::<
                    *const (dyn Fn(usize) + Sync + '_),
                    *const (dyn Fn(usize) + Sync + 'static),
                >(job as *const _)
            };
            let mut state = self.shared.lock();
            state.job = Some(JobRef(erased));
            state.running = self.workers.len();
            state.elastic = elastic;
            state.started = 0;
            state.closed = false;
            self.shared.running_hint.store(state.running, Ordering::Release);
            state.generation += 1;
            self.shared.generation_hint.store(state.generation, Ordering::Release);
            self.shared.job_posted.notify_all();
        }
        let own_share = self.run_own_share(job);
        let mut panic = None;
        if elastic && !self.workers.is_empty() {
            // Close the job: the workers that have not taken it never will,
            // and are not waited for.
            let mut state = self.shared.lock();
            state.closed = true;
            let skipped = self.workers.len() - state.started;
            state.running -= skipped;
            self.shared.running_hint.store(state.running, Ordering::Release);
        }
        if !self.workers.is_empty() {
            // The last worker usually finishes within microseconds of this
            // one: spin before blocking (module docs, "Waiting").
            spin_until(|| self.shared.running_hint.load(Ordering::Acquire) == 0);
            let mut state = self.shared.lock();
            while state.running > 0 {
                state = self.shared.job_finished.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            state.job = None;
            panic = state.panic.take();
        }
        // Worker 0's panic first, then the first of the others'.
        if let Some(payload) = own_share.err().or(panic) {
            panic::resume_unwind(payload);
        }
    }

    /// Runs worker 0's share of `job` on the calling thread, which counts as
    /// a worker of this pool meanwhile (a run started from inside it must
    /// panic, not deadlock) and, in a pinned pool, runs on worker 0's core.
    fn run_own_share(&self, job: &(dyn Fn(usize) + Sync)) -> std::thread::Result<()> {
        let previous = WORKER_OF.with(|w| w.replace(Arc::as_ptr(&self.shared) as usize));
        let pin = self.caller_cpu.and_then(affinity::CallerPin::pin);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| job(0)));
        drop(pin);
        WORKER_OF.with(|w| w.set(previous));
        outcome
    }
}

/// Spins (yielding every [`SPINS_PER_YIELD`] rounds) until `done` holds or
/// [`SPIN_BEFORE_SLEEP`] has passed; returns whether `done` held.
fn spin_until(done: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..SPINS_PER_YIELD {
            if done() {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN_BEFORE_SLEEP {
            return false;
        }
        std::thread::yield_now();
    }
}

/// Elastic jobs that a worker found closed and skipped, for the tests that
/// check the skipping happens.
#[cfg(test)]
pub(crate) static SKIPPED_JOBS: AtomicUsize = AtomicUsize::new(0);

/// The body of worker thread `index`: waits for jobs until shutdown.
fn worker_main(shared: &Arc<Shared>, index: usize) {
    WORKER_OF.with(|w| w.set(Arc::as_ptr(shared) as usize));
    let mut seen_generation = 0;
    loop {
        // A job that follows soon finds this worker awake (module docs,
        // "Waiting"); the lock below decides either way.
        spin_until(|| shared.generation_hint.load(Ordering::Acquire) != seen_generation);
        let job = {
            let mut state = shared.lock();
            while state.generation == seen_generation && !state.shutdown {
                state = shared.job_posted.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            if state.shutdown {
                return;
            }
            seen_generation = state.generation;
            if state.elastic && state.closed {
                // The caller no longer waits for this worker, and may
                // already have returned (`Pool::broadcast_elastic`).
                #[cfg(test)]
                SKIPPED_JOBS.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            state.started += 1;
            state.job.expect("a new generation always carries a job")
        };
        // SAFETY: `broadcast` keeps the job alive until this worker has
        // decremented `running` below, which happens after the call returns.
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)(index) }));
        let mut state = shared.lock();
        if let Err(payload) = outcome {
            state.panic.get_or_insert(payload);
        }
        state.running -= 1;
        shared.running_hint.store(state.running, Ordering::Release);
        if state.running == 0 {
            shared.job_finished.notify_all();
        }
    }
}

impl Drop for Pool {
    /// Stops and joins every worker.
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        // Spinning workers stop spinning and find the flag under the lock.
        self.shared.generation_hint.store(u64::MAX, Ordering::Release);
        self.shared.job_posted.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Number of cores the OS lets this process use (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
