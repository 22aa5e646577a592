//! Distributed counters (Callisto-RTS §3): the iteration space split evenly
//! into stripes, one per thread, core or socket of the loop. A thread claims
//! from its *home* stripe (its own, its core's or its socket's) until that is
//! exhausted, then moves on to the next stripe, and so on until it is back at
//! its home stripe. With whole-stripe claims this is the static partition:
//! each stripe goes to one thread in one claim.

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::distribute::Distribute;
use crate::spec::Granularity;
use crate::sync::{AtomicU64, Ordering};
use crate::tree::Member;

/// One stripe: a counter over `next..end`.
struct Stripe {
    next: AtomicU64,
    end: u64,
}

/// The stripes of one loop, each on a cache line of its own.
pub(crate) struct Stripes {
    stripes: Box<[CachePadded<Stripe>]>,
}

/// A claimer's position among the stripes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StripeCursor {
    /// The stripe claimed from now.
    pub(crate) current: usize,
    /// How many stripes the claimer has moved past since its home stripe.
    pub(crate) moves: usize,
}

impl StripeCursor {
    /// A cursor starting at stripe `home`.
    pub(crate) fn at(home: usize) -> Self {
        StripeCursor { current: home, moves: 0 }
    }
}

impl Stripes {
    /// `range` split into `count` stripes (at least one) of sizes differing
    /// by at most one: stripe `i` is `[len·i/count, len·(i+1)/count)`.
    pub(crate) fn new(range: Range<u64>, count: usize) -> Self {
        let count = count.max(1) as u64;
        let len = range.end.saturating_sub(range.start);
        let bound = |i: u64| range.start + ((len as u128 * i as u128) / count as u128) as u64;
        let stripes = (0..count)
            .map(|i| CachePadded::new(Stripe { next: AtomicU64::new(bound(i)), end: bound(i + 1) }))
            .collect();
        Stripes { stripes }
    }

    /// The number of stripes.
    pub(crate) fn len(&self) -> usize {
        self.stripes.len()
    }

    /// Claims up to `n` iterations (`whole`: the rest of a stripe), from the
    /// cursor's stripe or, once that is exhausted, from the following ones;
    /// `None` when the cursor is back at its home stripe with nothing found.
    ///
    /// Relaxed, as [`SharedCounter::claim`](super::shared::SharedCounter::claim):
    /// only atomicity matters. An exhausted stripe is recognised by a load,
    /// without writing it.
    #[inline]
    pub(crate) fn claim(&self, cursor: &mut StripeCursor, n: u64, whole: bool) -> Option<Range<u64>> {
        loop {
            let stripe = &self.stripes[cursor.current];
            if stripe.next.load(Ordering::Relaxed) < stripe.end {
                let start = if whole {
                    stripe.next.swap(stripe.end, Ordering::Relaxed)
                } else {
                    stripe.next.fetch_add(n, Ordering::Relaxed)
                };
                if start < stripe.end {
                    let end = if whole { stripe.end } else { (start + n).min(stripe.end) };
                    return Some(start..end);
                }
            }
            if cursor.moves + 1 >= self.stripes.len() {
                return None;
            }
            cursor.moves += 1;
            cursor.current = (cursor.current + 1) % self.stripes.len();
        }
    }
}

/// The `striped` distributor (and, with whole-stripe claims, `static`).
pub(crate) struct StripedDistributor {
    stripes: Stripes,
    batch: u64,
    level: Granularity,
    whole: bool,
}

impl StripedDistributor {
    /// `range` striped over `units` units at granularity `level`, claimed
    /// `batch` iterations at a time.
    pub(crate) fn new(range: Range<u64>, units: usize, level: Granularity, batch: u64) -> Self {
        StripedDistributor { stripes: Stripes::new(range, units), batch: batch.max(1), level, whole: false }
    }

    /// The static partition: one stripe per thread, claimed whole.
    pub(crate) fn static_partition(range: Range<u64>, threads: usize) -> Self {
        StripedDistributor {
            stripes: Stripes::new(range, threads),
            batch: 1,
            level: Granularity::Thread,
            whole: true,
        }
    }
}

impl Distribute for StripedDistributor {
    type Cursor = StripeCursor;

    fn cursor(&self, member: &Member) -> StripeCursor {
        StripeCursor::at(member.unit(self.level) % self.stripes.len())
    }

    #[inline]
    fn next(&self, cursor: &mut StripeCursor) -> Option<Range<u64>> {
        self.stripes.claim(cursor, self.batch, self.whole)
    }
}
