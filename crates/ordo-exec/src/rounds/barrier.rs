//! The barrier between rounds: the last thread to arrive runs the round's
//! decision, then releases the others; a waiting thread may leave it again
//! to help with work that appeared while it waited. Waiting threads spin briefly, then
//! yield, then block on a condition variable, so a run with more threads
//! than cores (hundreds per core) makes progress instead of spinning its
//! time slices away. A worker that panics or a cancelled run aborts the
//! barrier: every waiter returns at once, and so does every later wait.
//!
//! # Ordering
//! A thread's writes before [`Barrier::arrive`] happen before the leader's
//! decision: every arrival and leave is a read-modify-write of `state` with
//! `AcqRel`, so the leader's own arrival (the last in that RMW chain)
//! acquires every earlier one's release. The leader's writes happen before
//! every waiter returns: it bumps the generation with a `Release` store
//! after deciding, and waiters return only after loading the new
//! generation (`Acquire` or stronger). No wake-up is lost: the leader bumps
//! the generation and reads `sleepers` under the lock, and a waiter
//! registers in `sleepers` and re-checks the generation under the same lock
//! before it blocks (abort likewise sets its flag under the lock). The wait
//! also times out every millisecond, as a second guard.

use std::time::Duration;

use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering};

/// Spins on the generation before yielding.
#[cfg(not(loom))]
const SPINS: u32 = 1 << 10;
/// Yields before blocking.
#[cfg(not(loom))]
const YIELDS: u32 = 64;
// Under loom every spin is a scheduling point: keep the model small.
#[cfg(loom)]
const SPINS: u32 = 0;
#[cfg(loom)]
const YIELDS: u32 = 1;

/// The barrier was aborted (a worker panicked or the run was cancelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aborted;

/// What an arrival at the barrier made of the arriving thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// It arrived last: it decides, then calls [`Barrier::release`].
    Leader,
    /// Others are still working: it waits for the release of this
    /// generation (or leaves again with [`Barrier::try_leave`]).
    Wait(u32),
}

/// A reusable barrier for `threads` threads that a waiting thread may leave
/// again while the round is not over (to help with work that appeared).
///
/// `state` holds the generation (high 32 bits) and the number of threads
/// that arrived in it (low 32 bits) in one word, so that leaving can check
/// both in one compare-and-swap: a thread leaves only while the count is
/// below `threads`, so once the count reaches `threads` (the leader's
/// arrival) nobody leaves and the leader is unique. The generation cannot
/// advance while a thread of it waits (the next release needs that thread's
/// arrival), so a compare-and-swap never mistakes an old word for a new one.
pub(crate) struct Barrier {
    threads: u64,
    state: AtomicU64,
    aborted: AtomicBool,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

const COUNT: u64 = (1 << 32) - 1;

impl Barrier {
    pub(crate) fn new(threads: usize) -> Self {
        Barrier {
            threads: threads.max(1) as u64,
            state: AtomicU64::new(0),
            aborted: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Whether the barrier was aborted.
    #[inline]
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Relaxed)
    }

    /// Aborts: every current and later wait returns [`Aborted`].
    pub(crate) fn abort(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.aborted.store(true, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Counts this thread in. Everything it wrote before happens before
    /// the leader's decision.
    pub(crate) fn arrive(&self) -> Arrival {
        let old = self.state.fetch_add(1, Ordering::AcqRel);
        if (old & COUNT) + 1 == self.threads {
            Arrival::Leader
        } else {
            Arrival::Wait((old >> 32) as u32)
        }
    }

    /// Counts this thread out again, if generation `generation` is not
    /// over yet (fewer than all threads counted in). Returns whether it
    /// left; then it must [`Barrier::arrive`] again later.
    pub(crate) fn try_leave(&self, generation: u32) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if (s >> 32) as u32 != generation || s & COUNT >= self.threads {
                return false;
            }
            match self.state.compare_exchange_weak(s, s - 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Whether generation `generation` was released.
    #[inline]
    pub(crate) fn is_released(&self, generation: u32) -> bool {
        (self.state.load(Ordering::Acquire) >> 32) as u32 != generation
    }

    /// Ends the generation (called by the leader after deciding): the
    /// decision happens before every waiter sees the release.
    pub(crate) fn release(&self) {
        // Under the lock, so a thread about to block (which checks the
        // generation under the same lock) cannot miss it.
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let s = self.state.load(Ordering::Relaxed);
        let next = u64::from(((s >> 32) as u32).wrapping_add(1)) << 32;
        self.state.store(next, Ordering::Release);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            self.wake.notify_all();
        }
    }

    /// Waits for the release of `generation` without helping: spins,
    /// yields, then blocks. Returns whether it blocked.
    pub(crate) fn wait(&self, generation: u32) -> Result<bool, Aborted> {
        for i in 0..SPINS + YIELDS {
            if self.is_released(generation) {
                return Ok(false);
            }
            if self.is_aborted() {
                return Err(Aborted);
            }
            if i < SPINS {
                crate::sync::spin_loop();
            } else {
                crate::sync::yield_now();
            }
        }
        self.park(generation).map(|()| true)
    }

    /// Blocks until `generation` is released or the barrier is aborted.
    pub(crate) fn park(&self, generation: u32) -> Result<(), Aborted> {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        while (self.state.load(Ordering::Acquire) >> 32) as u32 == generation
            && !self.aborted.load(Ordering::Relaxed)
        {
            guard = wait_timeout(&self.wake, guard);
        }
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
        if self.is_released(generation) {
            Ok(())
        } else {
            Err(Aborted)
        }
    }
}
/// One bounded wait on `cv` (a millisecond; loom has no timeouts, so under
/// loom a plain wait, which the ordering argument above makes safe).
fn wait_timeout<'a>(cv: &Condvar, guard: crate::sync::MutexGuard<'a, ()>) -> crate::sync::MutexGuard<'a, ()> {
    #[cfg(not(loom))]
    {
        cv.wait_timeout(guard, Duration::from_millis(1)).unwrap_or_else(|e| e.into_inner()).0
    }
    #[cfg(loom)]
    {
        let _ = Duration::ZERO;
        cv.wait(guard).unwrap_or_else(|e| e.into_inner())
    }
}
