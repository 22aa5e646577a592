//! The persistent pool of worker threads that every [`for_each`](crate::for_each)
//! runs on.
//!
//! Threads are created once, optionally pinned one per core, and reused: a run
//! broadcasts one job (a closure of the worker index) to every worker and
//! blocks until all of them returned from it. The caller thread does not work;
//! it only waits (so worker `i` is always the same, possibly pinned, thread).

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Why a [`Pool`] could not be created.
#[derive(Debug)]
pub enum PoolError {
    /// A pool needs at least one thread.
    ZeroThreads,
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
            PoolError::Spawn { index, source } => write!(f, "cannot create worker thread {index}: {source}"),
        }
    }
}

impl std::error::Error for PoolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PoolError::ZeroThreads => None,
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
    /// Number of worker threads (at least 1). The default is every core the
    /// OS reports. (The `ordo` CLI reads `ORDO_THREADS` and passes it here.)
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Pin each worker to its own core (default on): worker `i` of the first
    /// pool of the process on core `i`; later pools rotate on from where the
    /// previous one ended, so concurrently alive pools spread over the cores.
    /// Pinning is only attempted when there are at most as many workers as
    /// cores; whether it worked is reported by [`Pool::pinned`].
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
    /// Workers that have not yet returned from the current job.
    running: usize,
    /// The first panic raised by a worker in the current job.
    panic: Option<Box<dyn Any + Send + 'static>>,
    /// Set by `Drop`: workers exit.
    shutdown: bool,
}

struct Shared {
    state: Mutex<PoolState>,
    job_posted: Condvar,
    job_finished: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // No code panics while holding this lock, but be robust anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where the next pinned pool's worker 0 goes (modulo the core count).
static NEXT_PIN_BASE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The pool (address of its shared state) this thread is a worker of, or 0.
    static WORKER_OF: Cell<usize> = const { Cell::new(0) };
}

/// A persistent pool of worker threads.
pub struct Pool {
    shared: Arc<Shared>,
    /// Serialises broadcasts from different caller threads.
    broadcast_lock: Mutex<()>,
    workers: Vec<JoinHandle<()>>,
    pinned: bool,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool").field("threads", &self.workers.len()).field("pinned", &self.pinned).finish()
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

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Whether every worker was pinned to its own core.
    pub fn pinned(&self) -> bool {
        self.pinned
    }

    fn create(threads: usize, pin: bool) -> Result<Pool, PoolError> {
        if threads == 0 {
            return Err(PoolError::ZeroThreads);
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(PoolState {
                generation: 0,
                job: None,
                running: 0,
                panic: None,
                shutdown: false,
            }),
            job_posted: Condvar::new(),
            job_finished: Condvar::new(),
        });
        let cores = if pin { core_affinity::get_core_ids().unwrap_or_default() } else { Vec::new() };
        let pin = pin && !cores.is_empty() && threads <= cores.len();
        // The first pool of the process puts worker i on core i; later pools
        // start where the previous one ended, so that pools alive at the same
        // time (tests running in parallel) do not all stack on core 0.
        let base = if pin { NEXT_PIN_BASE.fetch_add(threads, Ordering::Relaxed) } else { 0 };
        let pin_to = |i: usize| pin.then(|| cores[(base + i) % cores.len()]);
        let (pinned_tx, pinned_rx) = mpsc::channel::<bool>();
        let mut pool = Pool {
            shared: shared.clone(),
            broadcast_lock: Mutex::new(()),
            workers: Vec::new(),
            pinned: false,
        };
        for index in 0..threads {
            let shared = shared.clone();
            let core = pin_to(index);
            let pinned_tx = pinned_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("ordo-worker-{index}"))
                .spawn(move || {
                    let pinned = core.is_some_and(core_affinity::set_for_current);
                    let _ = pinned_tx.send(pinned);
                    drop(pinned_tx);
                    worker_main(&shared, index);
                })
                .map_err(|source| PoolError::Spawn { index, source })?; // Drop joins the ones created.
            pool.workers.push(worker);
        }
        drop(pinned_tx);
        let pinned_count = pinned_rx.iter().take(threads).filter(|&p| p).count();
        pool.pinned = pinned_count == threads;
        Ok(pool)
    }

    /// Whether the calling thread is one of this pool's workers (a run
    /// started from there could never begin: the pool waits for it).
    pub fn is_own_worker(&self) -> bool {
        WORKER_OF.with(Cell::get) == Arc::as_ptr(&self.shared) as usize
    }

    /// Runs `job(i)` on every worker `i` and returns when all have returned.
    /// If jobs panicked, the first panic is re-raised here after every worker
    /// has finished.
    ///
    /// This is the pool's one primitive: the `for_each` executor and other
    /// runtimes built on the pool (ordo-steal's jobs) run through it.
    ///
    /// # Panics
    /// When called from a worker of this same pool (that would deadlock), and
    /// when a job panicked.
    pub fn broadcast(&self, job: &(dyn Fn(usize) + Sync)) {
        assert!(
            !self.is_own_worker(),
            "ordo-exec: a run (for_each, or a job) started from a worker of the same pool (nested runs would deadlock)"
        );
        let _serial = self.broadcast_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: only the lifetime bound of the trait object changes; the
        // layout of the fat pointer is identical. The erased `'static` is never
        // relied upon: workers call the job only between the generation bump
        // below and their `running -= 1`, and this function does not return
        // (nor unwind: nothing between here and the wait can panic) before
        // `running` is back to 0 and the job is removed from the shared state,
        // so `job` outlives every use.
        let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync + 'static)>(
                job as *const _,
            )
        };
        let mut state = self.shared.lock();
        state.job = Some(JobRef(erased));
        state.running = self.workers.len();
        state.generation += 1;
        self.shared.job_posted.notify_all();
        while state.running > 0 {
            state = self.shared.job_finished.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.job = None;
        let panic = state.panic.take();
        drop(state);
        if let Some(payload) = panic {
            panic::resume_unwind(payload);
        }
    }
}

/// The body of worker thread `index`: waits for jobs until shutdown.
fn worker_main(shared: &Arc<Shared>, index: usize) {
    WORKER_OF.with(|w| w.set(Arc::as_ptr(shared) as usize));
    let mut seen_generation = 0;
    loop {
        let job = {
            let mut state = shared.lock();
            while state.generation == seen_generation && !state.shutdown {
                state = shared.job_posted.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            if state.shutdown {
                return;
            }
            seen_generation = state.generation;
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
        if state.running == 0 {
            shared.job_finished.notify_all();
        }
    }
}

impl Drop for Pool {
    /// Stops and joins every worker.
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
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
