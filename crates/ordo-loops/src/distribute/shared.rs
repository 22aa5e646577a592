//! One shared iteration counter claimed with fetch-and-add: the simplest
//! distributor of Callisto-RTS §3 and the way OpenMP runtimes implement
//! `schedule(dynamic, BATCH)`. Also the upstream of combiners configured
//! with `upstream=shared`.

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::distribute::Distribute;
use crate::sync::{AtomicU64, Ordering};
use crate::tree::Member;

/// A counter over `next..end`, on a cache line of its own.
pub(crate) struct SharedCounter {
    next: CachePadded<AtomicU64>,
    end: u64,
}

impl SharedCounter {
    /// A counter over `range`.
    pub(crate) fn new(range: Range<u64>) -> Self {
        SharedCounter { next: CachePadded::new(AtomicU64::new(range.start)), end: range.end }
    }

    /// Claims up to `n` iterations (`n >= 1`); `None` when none are left.
    ///
    /// Relaxed suffices: the claims only need atomicity (each value of the
    /// counter is returned once); the iterations' data is ordered by the
    /// loop's start and end. A claim that finds the counter past the end
    /// does not write it, so the counter overshoots `end` by at most one `n`
    /// per concurrent claimer and never wraps.
    #[inline]
    pub(crate) fn claim(&self, n: u64) -> Option<Range<u64>> {
        if self.next.load(Ordering::Relaxed) >= self.end {
            return None;
        }
        let start = self.next.fetch_add(n, Ordering::Relaxed);
        (start < self.end).then(|| start..(start + n).min(self.end))
    }
}

/// The `shared` distributor: every participant claims `batch` iterations at
/// a time from one counter.
pub(crate) struct SharedDistributor {
    counter: SharedCounter,
    batch: u64,
}

impl SharedDistributor {
    /// The distributor of `range` in batches of `batch`.
    pub(crate) fn new(range: Range<u64>, batch: u64) -> Self {
        SharedDistributor { counter: SharedCounter::new(range), batch: batch.max(1) }
    }
}

impl Distribute for SharedDistributor {
    type Cursor = ();

    fn cursor(&self, _member: &Member) {}

    #[inline]
    fn next(&self, _cursor: &mut ()) -> Option<Range<u64>> {
        self.counter.claim(self.batch)
    }
}
