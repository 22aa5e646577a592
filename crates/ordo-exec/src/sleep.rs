//! How idle workers wait between scans for work, and how they are woken.
//!
//! An idle worker spins briefly, then yields its core, then parks on a
//! condition variable with a timeout that doubles from 50 µs to 1 ms. Parking
//! keeps runs with more threads than cores (and the test suite) fast. Wake-ups
//! are only an optimisation: a worker that pushed tasks wakes one parked
//! worker now and then, and termination wakes them all, but correctness never
//! depends on a wake-up (the timeout bounds every wait), except termination,
//! whose flag is set under the mutex so that no sleeper can miss it.

use crate::termination::Termination;

/// Consecutive failed scans spent spinning before yielding.
const SPIN_ROUNDS: u32 = 6;
/// Consecutive failed scans spent yielding before parking.
const YIELD_ROUNDS: u32 = 10;
/// First parking timeout, in microseconds; it doubles up to [`MAX_PARK_US`].
const FIRST_PARK_US: u64 = 50;
/// Longest parking timeout, in microseconds.
const MAX_PARK_US: u64 = 1000;

/// The parking lot of one run.
#[cfg(not(loom))]
pub(crate) struct Sleep {
    /// Number of parked workers; read (uncontended, it rarely changes) by
    /// workers that pushed tasks, to skip the notify when nobody sleeps.
    sleepers: crossbeam_utils::CachePadded<std::sync::atomic::AtomicUsize>,
    lock: std::sync::Mutex<()>,
    wake: std::sync::Condvar,
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

#[cfg(not(loom))]
impl Sleep {
    /// A parking lot with nobody in it.
    pub(crate) fn new() -> Self {
        Sleep {
            sleepers: crossbeam_utils::CachePadded::new(std::sync::atomic::AtomicUsize::new(0)),
            lock: std::sync::Mutex::new(()),
            wake: std::sync::Condvar::new(),
        }
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

    /// Wakes one parked worker, if any: called now and then by a worker that
    /// pushed tasks. A wake-up lost to a race only costs one timeout.
    #[inline]
    pub(crate) fn wake_one(&self) {
        if self.sleepers.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            self.wake.notify_one();
        }
    }

    /// Ends the run and wakes every parked worker.
    pub(crate) fn announce_done(&self, term: &Termination) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        term.mark_done();
        self.wake.notify_all();
    }
}

#[cfg(loom)]
impl Sleep {
    pub(crate) fn new() -> Self {
        Sleep
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

/// Waits until `arrived` reaches `threads` or the run was aborted: the
/// barrier between the initial pushes and the loop. Hand-made (rather than
/// `std::sync::Barrier`) so that a worker that panicked during its initial
/// pushes cannot leave the others blocked forever.
pub(crate) fn wait_for_all(arrived: &std::sync::atomic::AtomicUsize, threads: usize, term: &Termination) {
    use std::sync::atomic::Ordering;
    arrived.fetch_add(1, Ordering::AcqRel);
    let mut round = 0u32;
    while arrived.load(Ordering::Acquire) < threads && !term.is_done() {
        if round < SPIN_ROUNDS {
            std::hint::spin_loop();
        } else if round < SPIN_ROUNDS + YIELD_ROUNDS {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(FIRST_PARK_US));
        }
        round = round.saturating_add(1);
    }
}
