//! Distributed termination detection by counting every work item: the
//! counters each worker thread keeps (`WorkCounters`) and the waves rank 0
//! runs over them (`Detector`).
//!
//! Every work item is counted once as *created* — by the thread that makes
//! it, before it leaves that thread — and once as *finished* — by the thread
//! that ends it, after every item it created was counted. Rank 0 collects
//! the sums of both counters from every rank in waves; it declares
//! termination when two consecutive waves see the same balanced sums
//! (`created == finished`, equal in both waves), the double check of the
//! HPX-5 count termination. The argument that this is never early, under
//! any message order, is in `README.md` next to this file.

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(all(test, not(loom)))]
mod test;

use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, Ordering};

/// One worker thread's counters. Only the owning thread writes them (plain
/// stores with release ordering of its own running totals); any thread of
/// the rank reads them to answer a wave.
#[derive(Default)]
pub(crate) struct WorkCounters {
    created: CachePadded<AtomicU64>,
    finished: CachePadded<AtomicU64>,
}

impl WorkCounters {
    /// Publishes the owner's running total of created items. Must happen
    /// before any of those items can be seen by another thread.
    #[inline]
    pub(crate) fn publish_created(&self, total: u64) {
        self.created.store(total, Ordering::Release);
    }

    /// Publishes the owner's running total of finished items.
    #[inline]
    pub(crate) fn publish_finished(&self, total: u64) {
        self.finished.store(total, Ordering::Release);
    }
}

/// The sums `(created, finished)` over `counters`, as one wave reports
/// them: every `finished` is read before any `created`, each with acquire
/// ordering, so that an item whose end is counted has its creation counted
/// too (README, "one rank's report").
pub(crate) fn read_sums(counters: &[WorkCounters]) -> (u64, u64) {
    let finished: u64 = counters.iter().map(|c| c.finished.load(Ordering::Acquire)).sum();
    let created: u64 = counters.iter().map(|c| c.created.load(Ordering::Acquire)).sum();
    (created, finished)
}

/// The outcome of a completed wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Reports of the current wave are still missing.
    Pending,
    /// Not (yet) terminated: a new wave is needed.
    Continue,
    /// Every item ever created has finished, and no new one can appear.
    Terminated,
}

/// First wait after an unbalanced wave; doubled up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_micros(20);
/// Longest wait between waves.
const MAX_BACKOFF: Duration = Duration::from_millis(1);

/// Rank 0's side of the waves: which wave is out, the sums so far, and the
/// sums of the last completed wave.
#[derive(Debug)]
pub(crate) struct Detector {
    ranks: usize,
    /// Number of the latest wave started (waves count from 1).
    wave: u64,
    /// Reports still expected for `wave`; 0 when no wave is out.
    waiting: usize,
    /// Sums of the reports of `wave` received so far.
    sums: (u64, u64),
    /// Sums of the previous completed wave, if it was balanced.
    previous: Option<(u64, u64)>,
    /// No wave starts before this instant.
    not_before: Instant,
    backoff: Duration,
}

impl Detector {
    /// The detector of a run over `ranks` ranks, starting at `now`.
    pub(crate) fn new(ranks: usize, now: Instant) -> Self {
        Detector {
            ranks,
            wave: 0,
            waiting: 0,
            sums: (0, 0),
            previous: None,
            not_before: now,
            backoff: MIN_BACKOFF,
        }
    }

    /// Waves started so far.
    pub(crate) fn waves(&self) -> u64 {
        self.wave
    }

    /// Starts a wave if none is out and the backoff has passed, with rank
    /// 0's own sums `own` (read now). Returns the wave number to request
    /// from the other ranks; with a single rank the wave is complete at
    /// once and [`Detector::complete_single`] gives its verdict.
    pub(crate) fn try_start(&mut self, own: impl FnOnce() -> (u64, u64), now: Instant) -> Option<u64> {
        if self.waiting > 0 || now < self.not_before {
            return None;
        }
        self.wave += 1;
        self.sums = own();
        self.waiting = self.ranks - 1;
        Some(self.wave)
    }

    /// The verdict of a wave started on a single rank (no report to wait for).
    pub(crate) fn complete_single(&mut self, now: Instant) -> Verdict {
        debug_assert_eq!(self.waiting, 0);
        self.evaluate(now)
    }

    /// Adds the report `(created, finished)` of some rank for `wave`.
    /// Reports of older waves are ignored (they cannot exist: a wave is
    /// complete only when all its reports are in, and a new one starts only
    /// then).
    pub(crate) fn report(&mut self, wave: u64, (created, finished): (u64, u64), now: Instant) -> Verdict {
        if wave != self.wave || self.waiting == 0 {
            return Verdict::Pending;
        }
        self.sums.0 += created;
        self.sums.1 += finished;
        self.waiting -= 1;
        if self.waiting > 0 {
            return Verdict::Pending;
        }
        self.evaluate(now)
    }

    fn evaluate(&mut self, now: Instant) -> Verdict {
        let balanced = self.sums.0 == self.sums.1;
        if balanced && self.previous == Some(self.sums) {
            return Verdict::Terminated;
        }
        self.previous = balanced.then_some(self.sums);
        if balanced {
            // Confirm at once: the second wave decides.
            self.backoff = MIN_BACKOFF;
            self.not_before = now;
        } else {
            self.not_before = now + self.backoff;
            self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
        }
        Verdict::Continue
    }
}
