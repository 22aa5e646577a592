//! The persistent pool of worker threads that jobs run on.
//!
//! Threads are created once, optionally pinned one per core, and reused: a
//! submission hands the job to every worker and returns when all of them
//! have left it (XWS §2.1: "the thread submitting the job suspends until F
//! is executed to completion"). The submitting thread is worker 0 meanwhile,
//! as OpenMP's master thread is, so a pool of `n` workers creates `n - 1`
//! threads. One job is active at a time. The threads are an
//! [`ordo_exec::Pool`]: the same workers, pinning and broadcast as the
//! `for_each` executor's.

use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::time::Instant;

pub use ordo_exec::{available_cores, PoolError};

use crate::job::{Job, JobReport};
use crate::sync::deque;
use crate::worker::{run_worker, Frame, JobState, Seed, WorkerStats};

/// Configures a [`Pool`]: thread count and pinning.
#[derive(Clone, Debug)]
pub struct PoolBuilder {
    threads: usize,
    pin: bool,
}

impl PoolBuilder {
    /// Number of workers (at least 1), the submitting thread included. The
    /// default is every core the OS reports. The library reads no
    /// environment variable; the `ordo` command line passes `ORDO_THREADS`
    /// here.
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
        let threads = ordo_exec::Pool::builder().threads(self.threads).pin(self.pin).build()?;
        Ok(Pool { threads, submit_lock: Mutex::new(()) })
    }
}

/// Where worker `i` leaves its local state and counters at the end of a job.
type WorkerResult<F> = Mutex<Option<(<F as Frame>::Local, WorkerStats)>>;

/// A pool of work-stealing workers (XWS `new Pool(N)`).
pub struct Pool {
    threads: ordo_exec::Pool,
    /// Serialises submissions: one job at a time.
    submit_lock: Mutex<()>,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool").field("threads", &self.threads()).field("pinned", &self.pinned()).finish()
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

    /// Number of workers, the submitting thread included.
    pub fn threads(&self) -> usize {
        self.threads.threads()
    }

    /// Whether every worker was pinned to its own core.
    pub fn pinned(&self) -> bool {
        self.threads.pinned()
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
        assert!(
            !self.threads.is_own_worker(),
            "ordo-steal: Pool::submit called from a frame of the same pool (the job could never start)"
        );
        let _serial = self.submit_lock.lock().unwrap_or_else(|e| e.into_inner());
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
            self.threads.broadcast(&|index| {
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
}
