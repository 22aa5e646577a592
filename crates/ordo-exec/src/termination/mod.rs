//! Global termination detection for [`for_each`](crate::for_each): decides
//! when no task is left anywhere, although tasks may sit in private,
//! not-yet-visible scheduler buffers.
//!
//! The protocol, its correctness argument and its memory-ordering argument are
//! in `README.md` next to this file. In short: one word packs
//! `(epoch << 32) | active_count`. Working threads count as active and never
//! touch the word; a thread touches it only when it goes idle and while it
//! scans for work as an idle thread. A scan that started with no active
//! thread and saw no other thread become active in between proves that the
//! scheduler was quiescent and empty.

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(all(test, not(loom)))]
mod test;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicU64, Ordering};

/// One unit of the epoch field of [`Termination::state`].
const EPOCH_ONE: u64 = 1 << 32;
/// Mask of the active-count field of [`Termination::state`].
const ACTIVE_MASK: u64 = EPOCH_ONE - 1;

/// The shared state of the termination protocol of one run.
pub(crate) struct Termination {
    /// `(epoch << 32) | active_count`. Every idle scan adds one to the epoch,
    /// so that a scanner can tell whether any other thread became active
    /// while it scanned. Padded: idle threads hammer it, workers must not
    /// share its cache line.
    state: CachePadded<AtomicU64>,
    /// Set once when termination is detected (or a worker panicked); never
    /// cleared during a run.
    done: CachePadded<AtomicBool>,
}

/// What an idle thread saw when it became active to scan for work; handed
/// back to [`Termination::end_empty_scan`].
#[derive(Clone, Copy, Debug)]
#[must_use]
pub(crate) struct ScanTicket(u64);

impl Termination {
    /// A run of `threads` workers, all of which start active.
    pub(crate) fn new(threads: usize) -> Self {
        assert!((threads as u64) < ACTIVE_MASK, "too many threads for the termination word");
        Termination {
            state: CachePadded::new(AtomicU64::new(threads as u64)),
            done: CachePadded::new(AtomicBool::new(false)),
        }
    }

    /// An active thread found no work even after flushing its own buffers:
    /// it stops counting as active. The release publishes everything it did
    /// before, in particular the flush that made its tasks visible.
    #[inline]
    pub(crate) fn go_idle(&self) {
        let before = self.state.fetch_sub(1, Ordering::AcqRel);
        debug_assert!(before & ACTIVE_MASK > 0, "go_idle by a thread that was not active");
    }

    /// An idle thread becomes active to look for work, and bumps the epoch so
    /// that concurrent scanners notice it. After this, it either found a task
    /// (and simply stays active) or calls [`Termination::end_empty_scan`].
    #[inline]
    pub(crate) fn begin_scan(&self) -> ScanTicket {
        ScanTicket(self.state.fetch_add(EPOCH_ONE + 1, Ordering::AcqRel))
    }

    /// The scan found nothing: the thread goes idle again. Returns true when
    /// the scan proves global termination: no other thread was active when it
    /// began, and none became active until it ended, so its pop ran alone on
    /// a scheduler whose every task was visible — and found nothing.
    #[inline]
    pub(crate) fn end_empty_scan(&self, ticket: ScanTicket) -> bool {
        let s1 = ticket.0;
        let s2 = self.state.fetch_sub(1, Ordering::AcqRel);
        s1 & ACTIVE_MASK == 0 && s2 == s1.wrapping_add(EPOCH_ONE + 1)
    }

    /// Whether the run is over.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Ends the run: every worker leaves its loop at its next idle check.
    #[inline]
    pub(crate) fn mark_done(&self) {
        self.done.store(true, Ordering::Release);
    }
}
