//! How idle workers wait between steal rounds, and how they are woken.
//!
//! An idle worker spins briefly, then yields its core, then parks on a
//! condition variable with a timeout that doubles from 50 µs to 1 ms, so
//! that pools with more threads than cores (the tests run up to 4×
//! oversubscribed) leave the cores to the workers that have frames.
//!
//! Wake-ups for *work* (a push while somebody sleeps) are only an
//! optimisation: one lost to a race costs one timeout. Wake-ups for the
//! *barrier* (a new phase, or the end of the job) cannot be lost: the barrier
//! stores the new phase or `done` before it notifies under the mutex, and a
//! sleeper re-checks both under that mutex before it waits.

/// Consecutive failed steal rounds spent spinning before yielding.
#[cfg(not(loom))]
const SPIN_ROUNDS: u32 = 6;
/// Consecutive failed steal rounds spent yielding before parking.
#[cfg(not(loom))]
const YIELD_ROUNDS: u32 = 16;
/// First parking timeout, in microseconds; it doubles up to [`MAX_PARK_US`].
#[cfg(not(loom))]
const FIRST_PARK_US: u64 = 50;
/// Longest parking timeout, in microseconds.
#[cfg(not(loom))]
const MAX_PARK_US: u64 = 1000;

/// How a worker waited, for the statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(loom, allow(dead_code))]
pub(crate) enum Waited {
    /// Busy-waited a few iterations.
    Spun,
    /// Gave its core away once.
    Yielded,
    /// Parked on the condition variable (or found the barrier moved).
    Parked,
}

/// The parking lot of one job.
#[cfg(not(loom))]
pub(crate) struct Sleep {
    /// Parked workers; read by pushing workers to skip the notify when
    /// nobody sleeps (the common case: one uncontended shared load).
    sleepers: crossbeam_utils::CachePadded<std::sync::atomic::AtomicUsize>,
    lock: std::sync::Mutex<()>,
    wake: std::sync::Condvar,
}

/// Under loom waiting is a yield: the models check that the protocol does
/// not depend on wake-ups.
#[cfg(loom)]
pub(crate) struct Sleep;

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

    /// Waits before the next steal round; `round` counts the consecutive
    /// failed rounds so far. `barrier_moved` is checked under the mutex
    /// before parking: true when the phase changed or the job ended.
    pub(crate) fn back_off(&self, round: u32, barrier_moved: impl Fn() -> bool) -> Waited {
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
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            if !barrier_moved() {
                let _unused = self.wake.wait_timeout(guard, timeout).unwrap_or_else(|e| e.into_inner());
            }
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
            Waited::Parked
        }
    }

    /// Wakes one parked worker, if any: called by a worker that pushed a
    /// frame others may steal.
    #[inline]
    pub(crate) fn wake_one(&self) {
        if self.sleepers.load(std::sync::atomic::Ordering::Relaxed) > 0 {
            self.wake.notify_one();
        }
    }

    /// Wakes every parked worker after the barrier moved (the caller already
    /// stored the new phase or `done`).
    pub(crate) fn wake_all(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }
}

#[cfg(loom)]
impl Sleep {
    pub(crate) fn new() -> Self {
        Sleep
    }

    pub(crate) fn back_off(&self, _round: u32, _barrier_moved: impl Fn() -> bool) -> Waited {
        loom::thread::yield_now();
        Waited::Yielded
    }

    #[inline]
    pub(crate) fn wake_one(&self) {}

    pub(crate) fn wake_all(&self) {}
}
