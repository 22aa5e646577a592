//! The persistent pool of worker threads that jobs run on.
//!
//! Threads are created once, optionally pinned one per core, and reused: a
//! submission hands the job to every worker and blocks until all of them
//! have left it. The submitting thread does not work; it waits (XWS §2.1:
//! "the thread submitting the job suspends until F is executed to
//! completion"). One job is active at a time.

use std::any::Any;
use std::cell::Cell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::job::{Job, JobReport};
use crate::sync::deque;
use crate::worker::{run_worker, Frame, JobState, Seed, WorkerStats};

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
            PoolError::ZeroThreads => f.write_str("a work-stealing pool needs at least one thread (got 0)"),
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
    /// OS reports. The library reads no environment variable; the `ordo`
    /// command line passes `ORDO_THREADS` here.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Pin each worker to its own core (default on) when there are at most
    /// as many workers as cores; [`Pool::pinned`] tells whether it worked.
    /// Pools alive at the same time rotate over the cores.
    pub fn pin(mut self, pin: bool) -> Self {
        self.pin = pin;
        self
    }

    /// Creates the threads.
    pub fn build(self) -> Result<Pool, PoolError> {
        Pool::create(self.threads, self.pin)
    }
}

/// Where worker `i` leaves its local state and counters at the end of a job.
type WorkerResult<F> = Mutex<Option<(<F as Frame>::Local, WorkerStats)>>;

/// A type-erased broadcast: `Fn(worker index)`, lifetime erased (see the
/// SAFETY argument in [`Pool::broadcast`]).
#[derive(Clone, Copy)]
struct TaskRef(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the pointee is `Sync`, so calling it from any thread through a
// shared pointer is sound; its lifetime is guaranteed by `Pool::broadcast`.
unsafe impl Send for TaskRef {}

struct PoolState {
    /// Incremented by every broadcast; a worker runs the task once per value.
    generation: u64,
    task: Option<TaskRef>,
    /// Workers that have not yet returned from the current task.
    running: usize,
    /// The first panic raised by a worker in the current task.
    panic: Option<Box<dyn Any + Send + 'static>>,
    shutdown: bool,
}

struct Shared {
    state: Mutex<PoolState>,
    task_posted: Condvar,
    task_finished: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Where the next pinned pool's worker 0 goes (modulo the core count).
static NEXT_PIN_BASE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The pool (address of its shared state) this thread is a worker of, or 0.
    static WORKER_OF: Cell<usize> = const { Cell::new(0) };
}

/// A pool of work-stealing workers (XWS `new Pool(N)`).
pub struct Pool {
    shared: Arc<Shared>,
    /// Serialises submissions: one job at a time.
    submit_lock: Mutex<()>,
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

    /// Number of worker threads.
    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Whether every worker was pinned to its own core.
    pub fn pinned(&self) -> bool {
        self.pinned
    }

    /// Runs `job` to completion (XWS `pool.submit(job)`): deals its frames to
    /// the workers, lets them run, steal and advance phases until no worker
    /// holds a frame for the current phase nor the next one, and returns the
    /// workers' local states and counters.
    ///
    /// # Panics
    /// When called from a worker of this same pool (the job could never
    /// start), and, after every worker has left the job, with the first panic
    /// raised by a frame.
    pub fn submit<F: Frame>(&self, job: Job<'_, F>) -> JobReport<F::Local> {
        self.assert_not_own_worker();
        let start = Instant::now();
        let threads = self.threads();
        let Job { frames, mut make_local } = job;
        let mut owners = Vec::with_capacity(threads);
        let mut thieves = Vec::with_capacity(threads);
        for _ in 0..threads {
            let (owner, thief) = deque::new();
            owners.push(owner);
            thieves.push(thief);
        }
        let mut has_frames = vec![false; threads];
        for (i, frame) in frames.into_iter().enumerate() {
            owners[i % threads].push(frame);
            has_frames[i % threads] = true;
        }
        let counted = has_frames.iter().filter(|&&c| c).count();
        let state = JobState::new(thieves, counted);
        let seeds: Vec<Mutex<Option<Seed<F>>>> = owners
            .into_iter()
            .zip(&has_frames)
            .enumerate()
            .map(|(i, (now, &counted))| Mutex::new(Some(Seed { now, local: make_local(i), counted })))
            .collect();
        let results: Vec<WorkerResult<F>> = (0..threads).map(|_| Mutex::new(None)).collect();
        if counted > 0 {
            self.broadcast(&|index| {
                let seed = seeds[index].lock().unwrap_or_else(|e| e.into_inner()).take();
                let seed = seed.expect("each worker takes its seed once");
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| run_worker(&state, index, seed)));
                match outcome {
                    Ok(result) => *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result),
                    Err(payload) => {
                        state.quiescence.abort();
                        state.sleep.wake_all();
                        panic::resume_unwind(payload);
                    }
                }
            });
        }
        let mut locals = Vec::with_capacity(threads);
        let mut workers = Vec::with_capacity(threads);
        for (slot, seed) in results.into_iter().zip(seeds) {
            match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some((local, stats)) => {
                    locals.push(local);
                    workers.push(stats);
                }
                None => {
                    // No frame at all: the workers never started.
                    let seed = seed.into_inner().unwrap_or_else(|e| e.into_inner());
                    locals.push(seed.expect("an unstarted worker keeps its seed").local);
                    workers.push(WorkerStats::default());
                }
            }
        }
        let phases = if counted == 0 { 0 } else { state.quiescence.phase() + 1 };
        JobReport { locals, workers, phases, elapsed: start.elapsed() }
    }

    fn create(threads: usize, pin: bool) -> Result<Pool, PoolError> {
        if threads == 0 {
            return Err(PoolError::ZeroThreads);
        }
        let shared = Arc::new(Shared {
            state: Mutex::new(PoolState {
                generation: 0,
                task: None,
                running: 0,
                panic: None,
                shutdown: false,
            }),
            task_posted: Condvar::new(),
            task_finished: Condvar::new(),
        });
        let cores = if pin { core_affinity::get_core_ids().unwrap_or_default() } else { Vec::new() };
        let pin = pin && !cores.is_empty() && threads <= cores.len();
        let base = if pin { NEXT_PIN_BASE.fetch_add(threads, Ordering::Relaxed) } else { 0 };
        let pin_to = |i: usize| pin.then(|| cores[(base + i) % cores.len()]);
        let (pinned_tx, pinned_rx) = mpsc::channel::<bool>();
        let mut pool =
            Pool { shared: shared.clone(), submit_lock: Mutex::new(()), workers: Vec::new(), pinned: false };
        for index in 0..threads {
            let shared = shared.clone();
            let core = pin_to(index);
            let pinned_tx = pinned_tx.clone();
            let worker = std::thread::Builder::new()
                .name(format!("ordo-steal-{index}"))
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

    /// Runs `task(i)` on every worker `i` and returns when all have returned;
    /// re-raises the first panic.
    fn assert_not_own_worker(&self) {
        let me = Arc::as_ptr(&self.shared) as usize;
        assert!(
            WORKER_OF.with(Cell::get) != me,
            "ordo-steal: Pool::submit called from a frame of the same pool (the job could never start)"
        );
    }

    fn broadcast(&self, task: &(dyn Fn(usize) + Sync)) {
        self.assert_not_own_worker();
        let _serial = self.submit_lock.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: only the lifetime bound of the trait object changes; the
        // fat pointer's layout is identical. Workers call the task only
        // between the generation bump below and their `running -= 1`, and
        // this function does not return (nor unwind: nothing between here and
        // the end of the wait can panic) before `running` is back to 0 and
        // the task is removed from the shared state, so `task` outlives every
        // use.
        let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync + 'static)>(
                task as *const _,
            )
        };
        let mut state = self.shared.lock();
        state.task = Some(TaskRef(erased));
        state.running = self.workers.len();
        state.generation += 1;
        self.shared.task_posted.notify_all();
        while state.running > 0 {
            state = self.shared.task_finished.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.task = None;
        let panic = state.panic.take();
        drop(state);
        if let Some(payload) = panic {
            panic::resume_unwind(payload);
        }
    }
}

/// The body of worker thread `index`: waits for tasks until shutdown.
fn worker_main(shared: &Arc<Shared>, index: usize) {
    WORKER_OF.with(|w| w.set(Arc::as_ptr(shared) as usize));
    let mut seen_generation = 0;
    loop {
        let task = {
            let mut state = shared.lock();
            while state.generation == seen_generation && !state.shutdown {
                state = shared.task_posted.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            if state.shutdown {
                return;
            }
            seen_generation = state.generation;
            state.task.expect("a new generation always carries a task")
        };
        // SAFETY: `broadcast` keeps the task alive until this worker has
        // decremented `running` below, which happens after the call returns.
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*task.0)(index) }));
        let mut state = shared.lock();
        if let Err(payload) = outcome {
            state.panic.get_or_insert(payload);
        }
        state.running -= 1;
        if state.running == 0 {
            shared.task_finished.notify_all();
        }
    }
}

impl Drop for Pool {
    /// Stops and joins every worker.
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.task_posted.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// Number of cores the OS lets this process use (at least 1).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
