//! Request combining (Callisto-RTS §3): the threads of one core (or socket)
//! share a *combiner*. A thread that needs work posts a request in its slot;
//! whichever thread holds the combiner's lock collects every posted request,
//! claims work for all of them from the upstream counters at once, and
//! writes each requester its batch. With *asynchronous* combining a thread
//! posts its request for the next batch before it runs the current one, so
//! that the others can serve it meanwhile and it rarely waits or takes the
//! lock itself.
//!
//! The slot protocol and its correctness argument are in `README.md` next to
//! this file; `loom_model.rs` checks it.

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod test;

use std::ops::Range;

use crossbeam_utils::CachePadded;

use crate::distribute::shared::SharedCounter;
use crate::distribute::striped::{StripeCursor, Stripes};
use crate::distribute::Distribute;
use crate::spec::Granularity;
use crate::sync::{AtomicBool, AtomicU64, Ordering};
use crate::tree::{Member, Team};
use crate::wait::{Backoff, SpinBudget};

/// The `start` of a slot holding a request (no iteration index reaches it).
const REQ: u64 = u64::MAX;

/// One thread's request slot: `(start, end)` as in the paper's table.
/// `(REQ, _)` is a request; `(s, e)` with `s != REQ` is the answer
/// `s..e` — empty when the loop has no iterations left — or, before the first
/// request, the quiescent state.
#[repr(C)]
pub(crate) struct RequestSlot {
    start: AtomicU64,
    end: AtomicU64,
}

impl RequestSlot {
    fn new() -> Self {
        RequestSlot { start: AtomicU64::new(0), end: AtomicU64::new(0) }
    }
}

/// How a combiner's slots are laid out in memory.
pub(crate) trait SlotLayout: Sync + Sized {
    /// `n` quiescent slots.
    fn with_len(n: usize) -> Self;
    /// Slot `i`.
    fn slot(&self, i: usize) -> &RequestSlot;
    /// The number of slots.
    fn len(&self) -> usize;
}

/// Slots packed onto as few cache lines as possible (four per line): for
/// threads that share an L1 cache, i.e. per-core combiners (§3).
pub(crate) struct Packed(Box<[RequestSlot]>);

/// A cache line per slot: for threads on different cores, i.e. per-socket
/// combiners (§3).
pub(crate) struct Padded(Box<[CachePadded<RequestSlot>]>);

impl SlotLayout for Packed {
    fn with_len(n: usize) -> Self {
        Packed((0..n).map(|_| RequestSlot::new()).collect())
    }
    #[inline]
    fn slot(&self, i: usize) -> &RequestSlot {
        &self.0[i]
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

impl SlotLayout for Padded {
    fn with_len(n: usize) -> Self {
        Padded((0..n).map(|_| CachePadded::new(RequestSlot::new())).collect())
    }
    #[inline]
    fn slot(&self, i: usize) -> &RequestSlot {
        &self.0[i]
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Where combiners get work: one counter, or one stripe per combiner.
// The shared counter is padded to its own cache line (hence large); there
// is one of these per loop, never moved in a hot path.
#[allow(clippy::large_enum_variant)]
pub(crate) enum UpstreamCounters {
    /// One counter for the loop.
    Shared(SharedCounter),
    /// One stripe per combiner; combiner `i`'s home stripe is stripe `i`.
    Striped(Stripes),
}

/// One combiner: a lock, the request slots of its threads, and (guarded by
/// the lock) its position among the upstream stripes.
pub(crate) struct Combiner<S: SlotLayout> {
    lock: CachePadded<AtomicBool>,
    slots: S,
    /// The upstream stripe claimed from now, and how far the combiner has
    /// moved from its home stripe. Read and written only under `lock`
    /// (relaxed atomics rather than a cell: the lock orders them).
    stripe: AtomicU64,
    moves: AtomicU64,
    /// Set under the lock once upstream has no work left.
    exhausted: AtomicBool,
    /// Serves that answered at least one request, and the requests they
    /// answered ([`CombiningCounts`]). Written only under `lock` and read
    /// after the loop's barrier; plain std atomics, outside the loom model,
    /// since they order nothing.
    serves: std::sync::atomic::AtomicU64,
    answered: std::sync::atomic::AtomicU64,
}

/// How much combining a loop's combiners did: `requests / serves` is the
/// mean number of requests one claim of a combiner's lock answered. It is 1
/// when every combiner has a single member (one thread per core under
/// `level=core`): then nothing was combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CombiningCounts {
    /// Lock holdings that answered at least one posted request.
    pub serves: u64,
    /// Requests answered by them (the answers "no iterations left" included).
    pub requests: u64,
}

impl std::ops::Add for CombiningCounts {
    type Output = CombiningCounts;

    /// The counts of two sets of loops together.
    fn add(self, other: CombiningCounts) -> CombiningCounts {
        CombiningCounts { serves: self.serves + other.serves, requests: self.requests + other.requests }
    }
}

impl<S: SlotLayout> Combiner<S> {
    /// A combiner of `threads` slots whose home upstream stripe is `home`.
    pub(crate) fn new(threads: usize, home: usize) -> Self {
        Combiner {
            lock: CachePadded::new(AtomicBool::new(false)),
            slots: S::with_len(threads),
            stripe: AtomicU64::new(home as u64),
            moves: AtomicU64::new(0),
            exhausted: AtomicBool::new(false),
            serves: std::sync::atomic::AtomicU64::new(0),
            answered: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// This combiner's counts so far (exact once no thread uses it).
    fn counts(&self) -> CombiningCounts {
        use std::sync::atomic::Ordering::Relaxed;
        CombiningCounts { serves: self.serves.load(Relaxed), requests: self.answered.load(Relaxed) }
    }

    /// Posts a request in slot `i` (its owner only, and only when no request
    /// of it is pending).
    #[inline]
    pub(crate) fn post(&self, i: usize) {
        self.slots.slot(i).start.store(REQ, Ordering::Relaxed);
    }

    /// The answer in slot `i`, if its request was served.
    #[inline]
    fn answer(&self, i: usize) -> Option<Range<u64>> {
        let slot = self.slots.slot(i);
        // Acquire: pairs with the server's release of `start`, so `end` is
        // the one written with it.
        let start = slot.start.load(Ordering::Acquire);
        (start != REQ).then(|| start..slot.end.load(Ordering::Relaxed))
    }

    /// Waits for the answer to slot `i`'s pending request, serving every
    /// posted request itself whenever it gets the lock (§3's pseudocode).
    /// An empty range means the loop has no iterations left.
    pub(crate) fn await_answer(
        &self,
        i: usize,
        upstream: &UpstreamCounters,
        batch: u64,
        budget: SpinBudget,
    ) -> Range<u64> {
        let mut backoff = Backoff::new(budget);
        loop {
            if let Some(answer) = self.answer(i) {
                return answer;
            }
            if !self.lock.load(Ordering::Relaxed)
                && self.lock.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                self.serve(upstream, batch);
                self.lock.store(false, Ordering::Release);
            } else {
                // Lock busy: wait for its release (acquire, so the holder's
                // answers are visible), then test our slot again.
                while self.lock.load(Ordering::Acquire) {
                    backoff.snooze();
                }
            }
        }
    }

    /// Under the lock: answers every posted request, 64 slots at a time,
    /// with one aggregate upstream claim per group (more if upstream hands
    /// out less than asked, at a stripe's end).
    fn serve(&self, upstream: &UpstreamCounters, batch: u64) {
        let n = self.slots.len();
        let mut answered = 0;
        let mut base = 0;
        while base < n {
            let group = (n - base).min(64);
            let mut pending: u64 = 0;
            for j in 0..group {
                // Relaxed: only the value REQ is needed; nothing is published
                // with a request.
                if self.slots.slot(base + j).start.load(Ordering::Relaxed) == REQ {
                    pending |= 1 << j;
                }
            }
            answered += u64::from(pending.count_ones());
            while pending != 0 {
                let wanted = u64::from(pending.count_ones()) * batch;
                match self.claim_upstream(upstream, wanted) {
                    Some(mut got) => {
                        while pending != 0 && got.start < got.end {
                            let j = pending.trailing_zeros() as usize;
                            let end = (got.start + batch).min(got.end);
                            self.write_answer(base + j, got.start..end);
                            got.start = end;
                            pending &= pending - 1;
                        }
                    }
                    None => {
                        while pending != 0 {
                            let j = pending.trailing_zeros() as usize;
                            self.write_answer(base + j, 0..0);
                            pending &= pending - 1;
                        }
                    }
                }
            }
            base += group;
        }
        if answered > 0 {
            // Relaxed: only the lock holder writes them (see the fields).
            use std::sync::atomic::Ordering::Relaxed;
            self.serves.store(self.serves.load(Relaxed) + 1, Relaxed);
            self.answered.store(self.answered.load(Relaxed) + answered, Relaxed);
        }
    }

    /// Writes the answer `range` into slot `i`: `end` first, then `start`
    /// with release, which overwrites REQ (§3: "work is distributed by
    /// writing to the end field and then overwriting REQ in the start field").
    #[inline]
    fn write_answer(&self, i: usize, range: Range<u64>) {
        let slot = self.slots.slot(i);
        slot.end.store(range.end, Ordering::Relaxed);
        slot.start.store(range.start, Ordering::Release);
    }

    /// Under the lock: up to `n` iterations from upstream.
    fn claim_upstream(&self, upstream: &UpstreamCounters, n: u64) -> Option<Range<u64>> {
        if self.exhausted.load(Ordering::Relaxed) {
            return None;
        }
        let got = match upstream {
            UpstreamCounters::Shared(counter) => counter.claim(n),
            UpstreamCounters::Striped(stripes) => {
                let mut cursor = StripeCursor {
                    current: self.stripe.load(Ordering::Relaxed) as usize,
                    moves: self.moves.load(Ordering::Relaxed) as usize,
                };
                let got = stripes.claim(&mut cursor, n, false);
                self.stripe.store(cursor.current as u64, Ordering::Relaxed);
                self.moves.store(cursor.moves as u64, Ordering::Relaxed);
                got
            }
        };
        if got.is_none() {
            self.exhausted.store(true, Ordering::Relaxed);
        }
        got
    }
}

/// A participant's place in a combining distributor.
pub(crate) struct CombiningCursor {
    combiner: usize,
    slot: usize,
    /// A request of this participant is posted and not yet consumed.
    pending: bool,
    /// The loop answered "no iterations left".
    done: bool,
}

/// The `combining` (`ASYNC = false`) and `async-combining` (`ASYNC = true`)
/// distributors: one combiner per core or socket of the team, in front of
/// a shared counter or of one stripe per combiner.
pub(crate) struct CombiningDistributor<S: SlotLayout, const ASYNC: bool> {
    combiners: Box<[Combiner<S>]>,
    upstream: UpstreamCounters,
    level: Granularity,
    batch: u64,
    budget: SpinBudget,
}

impl<S: SlotLayout, const ASYNC: bool> CombiningDistributor<S, ASYNC> {
    /// The distributor of `range` for `team`, with a combiner per unit at
    /// `level` (core or socket), claiming `batch` iterations per request.
    pub(crate) fn new(
        range: Range<u64>,
        team: &Team,
        level: Granularity,
        striped_upstream: bool,
        batch: u64,
        budget: SpinBudget,
    ) -> Self {
        let sizes = team.unit_sizes(level);
        let combiners = sizes.iter().enumerate().map(|(home, &n)| Combiner::new(n, home)).collect();
        let upstream = if striped_upstream {
            UpstreamCounters::Striped(Stripes::new(range, sizes.len()))
        } else {
            UpstreamCounters::Shared(SharedCounter::new(range))
        };
        CombiningDistributor { combiners, upstream, level, batch: batch.max(1), budget }
    }

    /// The counts of every combiner (exact once the loop has ended).
    pub(crate) fn counts(&self) -> CombiningCounts {
        self.combiners.iter().map(Combiner::counts).fold(CombiningCounts::default(), |a, b| a + b)
    }
}

impl<S: SlotLayout, const ASYNC: bool> Distribute for CombiningDistributor<S, ASYNC> {
    type Cursor = CombiningCursor;

    fn cursor(&self, member: &Member) -> CombiningCursor {
        CombiningCursor {
            combiner: member.unit(self.level),
            slot: member.slot_in_unit(self.level),
            pending: false,
            done: false,
        }
    }

    #[inline]
    fn next(&self, cursor: &mut CombiningCursor) -> Option<Range<u64>> {
        if cursor.done {
            return None;
        }
        let combiner = &self.combiners[cursor.combiner];
        if !cursor.pending {
            combiner.post(cursor.slot);
        }
        let got = combiner.await_answer(cursor.slot, &self.upstream, self.batch, self.budget);
        cursor.pending = false;
        if got.is_empty() {
            cursor.done = true;
            return None;
        }
        if ASYNC {
            // Asynchronous combining: ask for the next batch now, before the
            // caller runs this one (§3).
            combiner.post(cursor.slot);
            cursor.pending = true;
        }
        Some(got)
    }
}
