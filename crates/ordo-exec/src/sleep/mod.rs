//! How idle workers wait between scans for work, and how they are woken.
//!
//! Only a bounded number of idle workers scan for work at a time (the scan
//! permits of [`permits`], as many as there are cores); the others block
//! until a permit is free, so that a run with far more threads than cores
//! idles and terminates as cheaply as one that fits the machine. A scanning
//! worker spins briefly between scans, then yields its core, then parks on a
//! condition variable with a timeout that doubles from 50 µs to 1 ms.
//!
//! Wake-ups are only an optimisation: a worker that pushed tasks wakes one
//! parked scanner now and then (or, when none is parked, a worker waiting for
//! a free permit), and a scanner that found work gives its permit to a
//! waiter; correctness never depends on a wake-up (every park has a timeout,
//! and a free permit is never left unclaimed while a worker waits for one),
//! except termination, whose flag is set under the mutex so that no sleeper
//! can miss it. `README.md` next to this file gives the argument.

mod permits;

#[cfg(not(loom))]
use permits::{Acquired, ScanPermits};

use crate::termination::Termination;

// The backoff schedule (unused under loom, where waiting is a yield).
/// Consecutive failed scans spent spinning before yielding.
#[cfg_attr(loom, allow(dead_code))]
const SPIN_ROUNDS: u32 = 6;
/// Consecutive failed scans spent yielding before parking.
#[cfg_attr(loom, allow(dead_code))]
const YIELD_ROUNDS: u32 = 10;
/// First parking timeout, in microseconds; it doubles up to [`MAX_PARK_US`].
#[cfg_attr(loom, allow(dead_code))]
const FIRST_PARK_US: u64 = 50;
/// Longest parking timeout, in microseconds.
#[cfg_attr(loom, allow(dead_code))]
const MAX_PARK_US: u64 = 1000;

/// The parking lot of one run.
#[cfg(not(loom))]
pub(crate) struct Sleep {
    /// Number of parked scanners; read (uncontended, it rarely changes) by
    /// workers that pushed tasks, to skip the notify when nobody sleeps.
    sleepers: crossbeam_utils::CachePadded<std::sync::atomic::AtomicUsize>,
    lock: std::sync::Mutex<()>,
    wake: std::sync::Condvar,
    /// Workers blocked in the start barrier wait on this (under `lock`).
    started: std::sync::Condvar,
    /// Who may scan for work while idle.
    permits: ScanPermits,
}

/// Under loom, waiting is a yield: the model checks the termination
/// protocol, which must not depend on wake-ups.
#[cfg(loom)]
pub(crate) struct Sleep;

/// How a worker waited, for statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waited {
    /// Busy-waited a few iterations.
    Spun,
    /// Gave its core away once.
    Yielded,
    /// Parked on the condition variable.
    Parked,
}

/// How many idle workers of a run of `threads` may scan at once: every one
/// when they fit the cores, else one per core.
pub(crate) fn scanners_for(threads: usize) -> usize {
    threads.min(crate::available_cores()).max(1)
}

#[cfg(not(loom))]
impl Sleep {
    /// A parking lot with nobody in it, for a run of `threads` workers.
    pub(crate) fn new(threads: usize) -> Self {
        Sleep {
            sleepers: crossbeam_utils::CachePadded::new(std::sync::atomic::AtomicUsize::new(0)),
            lock: std::sync::Mutex::new(()),
            wake: std::sync::Condvar::new(),
            started: std::sync::Condvar::new(),
            permits: ScanPermits::new(scanners_for(threads)),
        }
    }

    /// Takes a scan permit, blocking while every permit is held by another
    /// idle worker. Returns `None` when the run ended meanwhile, else whether
    /// the worker had to wait (a park, for the statistics).
    pub(crate) fn acquire_scan_permit(&self, term: &Termination) -> Option<Waited> {
        match self.permits.acquire(|| term.is_done()) {
            Acquired::Immediately => Some(Waited::Spun),
            Acquired::AfterWaiting => Some(Waited::Parked),
            Acquired::RunEnded => None,
        }
    }

    /// Gives a scan permit back (the worker found work): a waiting worker
    /// takes over the scanning.
    pub(crate) fn release_scan_permit(&self) {
        self.permits.release();
    }

    /// Waits before the next scan; `round` counts the consecutive failed
    /// scans so far.
    pub(crate) fn back_off(&self, round: u32, term: &Termination) -> Waited {
        use std::sync::atomic::Ordering;
        if round < SPIN_ROUNDS {
            for _ in 0..(1u32 << round) {
                std::hint::spin_loop();
            }
            Waited::Spun
        } else if round < SPIN_ROUNDS + YIELD_ROUNDS {
            std::thread::yield_now();
            Waited::Yielded
        } else {
            let doublings = (round - SPIN_ROUNDS - YIELD_ROUNDS).min(5);
            let timeout = std::time::Duration::from_micros((FIRST_PARK_US << doublings).min(MAX_PARK_US));
            let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.sleepers.fetch_add(1, Ordering::Relaxed);
            // `done` is set under this mutex (`announce_done`), so checking it
            // here, holding the mutex, cannot miss the final notify_all.
            if !term.is_done() {
                let _unused = self.wake.wait_timeout(guard, timeout).unwrap_or_else(|e| e.into_inner());
            }
            self.sleepers.fetch_sub(1, Ordering::Relaxed);
            Waited::Parked
        }
    }

    /// Wakes one parked scanner, or else a worker waiting for a free scan
    /// permit, if any: called now and then by a worker that pushed tasks. A
    /// wake-up lost to a race only costs one timeout.
    #[inline]
    pub(crate) fn wake_one(&self) {
        if self.sleepers.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            self.wake.notify_one();
        } else if self.permits.waiter_could_scan() {
            self.permits.wake_one();
        }
    }

    /// Ends the run and wakes every parked or waiting worker.
    pub(crate) fn announce_done(&self, term: &Termination) {
        {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            term.mark_done();
            self.wake.notify_all();
            self.started.notify_all();
        }
        self.permits.wake_all();
    }

    /// Waits until `arrived` reaches `threads` or the run was aborted: the
    /// barrier between the initial pushes and the loop. Hand-made (rather
    /// than `std::sync::Barrier`) so that a worker that panicked during its
    /// initial pushes cannot leave the others blocked forever. The last
    /// worker to arrive wakes the others, which block rather than poll: with
    /// thousands of threads on a few cores, polling would starve the workers
    /// that still have to arrive.
    pub(crate) fn wait_for_all(
        &self,
        arrived: &std::sync::atomic::AtomicUsize,
        threads: usize,
        term: &Termination,
    ) {
        use std::sync::atomic::Ordering;
        if arrived.fetch_add(1, Ordering::AcqRel) + 1 == threads {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.started.notify_all();
            return;
        }
        for round in 0..SPIN_ROUNDS + YIELD_ROUNDS {
            if arrived.load(Ordering::Acquire) >= threads || term.is_done() {
                return;
            }
            if round < SPIN_ROUNDS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // The last arrival and `announce_done` notify under this mutex, after
        // their update, so checking under it cannot miss them.
        while arrived.load(Ordering::Acquire) < threads && !term.is_done() {
            guard = self.started.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(loom)]
impl Sleep {
    pub(crate) fn new(_threads: usize) -> Self {
        Sleep
    }

    /// Under loom every idle worker may scan: the termination model checks
    /// the protocol with all its scanners (the permits have their own model).
    pub(crate) fn acquire_scan_permit(&self, term: &Termination) -> Option<Waited> {
        (!term.is_done()).then_some(Waited::Spun)
    }

    pub(crate) fn release_scan_permit(&self) {}

    /// Not used by the models (they start from `run_loop`).
    pub(crate) fn wait_for_all(
        &self,
        arrived: &std::sync::atomic::AtomicUsize,
        threads: usize,
        term: &Termination,
    ) {
        use std::sync::atomic::Ordering;
        arrived.fetch_add(1, Ordering::AcqRel);
        while arrived.load(Ordering::Acquire) < threads && !term.is_done() {
            std::thread::yield_now();
        }
    }

    pub(crate) fn back_off(&self, _round: u32, _term: &Termination) -> Waited {
        loom::thread::yield_now();
        Waited::Yielded
    }

    #[inline]
    pub(crate) fn wake_one(&self) {}

    pub(crate) fn announce_done(&self, term: &Termination) {
        term.mark_done();
    }
}
