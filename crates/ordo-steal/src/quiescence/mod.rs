//! Global quiescence detection and phase advance for improperly nested
//! computations, without counting frames: the `checkCount`-and-barrier scheme
//! of XWS (Cong et al., "Solving large, irregular graph problems using
//! adaptive work-stealing", ICPP 2008, §2.2 and §2.3).
//!
//! The protocol, its invariant and its memory-ordering argument are in
//! `README.md` next to this file. In short: `check_count` is the number of
//! *counted* workers — those that may hold frames of the current phase. A
//! worker leaves the count when its now-deque is empty (after a handshake on
//! its own steal lock); a thief joins it while still holding the victim's
//! lock. The worker whose check-out brings the count to zero is the barrier:
//! every frame of the phase has run. It then either ends the job (no worker
//! announced next-phase work) or re-initialises the count with the number of
//! workers that announced next-phase work and publishes the next phase.

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(all(test, not(loom)))]
mod test;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// The shared state of the protocol for one job.
pub(crate) struct Quiescence {
    /// XWS's `checkCount`: workers that may hold frames of the current phase.
    check_count: CachePadded<AtomicUsize>,
    /// Workers that announced frames for the next phase (each at most once
    /// per phase); read and reset by the barrier.
    next_workers: CachePadded<AtomicUsize>,
    /// The barrier's phase number; only the barrier writes it.
    phase: CachePadded<AtomicU64>,
    /// Set once when the job is over (or a frame panicked).
    done: CachePadded<AtomicBool>,
}

/// What a worker's check-out did to the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CheckOut {
    /// Other workers are still counted: the phase goes on.
    PhaseGoesOn,
    /// This check-out was the barrier: the phase quiesced and the next one,
    /// with this number, is published.
    Advanced(u64),
    /// This check-out was the barrier and no worker has next-phase work:
    /// the job is over.
    Finished,
}

impl Quiescence {
    /// A job whose initial frames sit in the now-deques of `counted`
    /// workers. With no frame at all the job is over at once.
    pub(crate) fn new(counted: usize) -> Self {
        Quiescence {
            check_count: CachePadded::new(AtomicUsize::new(counted)),
            next_workers: CachePadded::new(AtomicUsize::new(0)),
            phase: CachePadded::new(AtomicU64::new(0)),
            done: CachePadded::new(AtomicBool::new(counted == 0)),
        }
    }

    /// The current phase. Acquire: a worker that sees phase `k` also sees
    /// the count the barrier set for `k`.
    #[inline]
    pub(crate) fn phase(&self) -> u64 {
        self.phase.load(Ordering::Acquire)
    }

    /// Whether the job is over.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// A thief that just took a frame joins the count. Must be called while
    /// it still holds the victim's steal lock, so that the victim (still
    /// counted: it cannot check out before taking that lock) keeps the count
    /// positive until the thief is counted.
    #[inline]
    pub(crate) fn check_in(&self) {
        self.check_count.fetch_add(1, Ordering::AcqRel);
    }

    /// A counted worker has frames in its next-deque: the barrier must count
    /// it in the next phase. Called at most once per worker and phase, before
    /// that worker's check-out (whose release publishes it to the barrier).
    #[inline]
    pub(crate) fn announce_next(&self) {
        self.next_workers.fetch_add(1, Ordering::Relaxed);
    }

    /// A counted worker whose now-deque is empty leaves the count (after the
    /// handshake on its own steal lock, see `README.md`). The worker that
    /// takes the count to zero runs the barrier action.
    pub(crate) fn check_out(&self) -> CheckOut {
        let before = self.check_count.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(before > 0, "check-out of a worker that was not counted");
        if before != 1 {
            return CheckOut::PhaseGoesOn;
        }
        // We are the barrier. Every other counted worker of this phase
        // checked out before us (their release RMWs on `check_count` are in
        // the release sequence our acquire read), so every announcement is
        // visible, and no worker holds or can create a frame of this phase.
        let next = self.next_workers.swap(0, Ordering::Relaxed);
        if next == 0 {
            self.done.store(true, Ordering::Release);
            return CheckOut::Finished;
        }
        self.check_count.store(next, Ordering::Relaxed);
        let phase = self.phase.load(Ordering::Relaxed) + 1;
        // Release: publishes the count (and the reset of `next_workers`) to
        // every worker that reads the new phase.
        self.phase.store(phase, Ordering::Release);
        CheckOut::Advanced(phase)
    }

    /// Ends the job early (a frame panicked): every worker leaves at its next
    /// idle check.
    pub(crate) fn abort(&self) {
        self.done.store(true, Ordering::Release);
    }
}
