//! The only shared part of `auto`: per-thread stashes of published batches
//! (work given away on request, or made visible by `flush`), the count of
//! threads that ran out of work, and each thread's level.
//!
//! A stash is a `Mutex<Vec<Batch>>` with two hints kept beside it, the
//! number of batches and the smallest priority among them, written under
//! the lock with `Release` and read without it with `Acquire`: a thread that
//! looks for work reads hints and locks only a stash that has something.
//! Takers use `try_lock`, so a take fails spuriously only while another
//! thread holds that stash's lock, i.e. is inside a scheduler operation
//! (the `Handle` contract, `termination/README.md` of ordo-exec).
//!
//! The protocol and its loom model are described in `README.md`.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, AtomicUsize, Mutex, Ordering};
use crate::Prio;

/// Tasks handed from one thread to another in one piece.
pub(crate) struct Batch<T> {
    /// The smallest priority in `tasks`.
    pub(crate) min: Prio,
    pub(crate) tasks: Vec<(Prio, T)>,
}

impl<T> Batch<T> {
    /// A batch of `tasks` (not empty).
    pub(crate) fn new(tasks: Vec<(Prio, T)>) -> Self {
        let min = tasks.iter().map(|t| t.0).min().unwrap_or(Prio::MAX);
        Batch { min, tasks }
    }
}

/// The outcome of [`Stash::try_take`].
pub(crate) enum Take<T> {
    /// A batch.
    Taken(Batch<T>),
    /// The stash held no batch.
    Empty,
    /// Another thread held the lock: try again later.
    Busy,
}

/// One thread's published batches.
pub(crate) struct Stash<T> {
    batches: Mutex<Vec<Batch<T>>>,
    /// Number of batches (hint).
    len: AtomicUsize,
    /// Smallest `min` over the batches, `Prio::MAX` when none (hint).
    min: AtomicU64,
}

impl<T> Stash<T> {
    pub(crate) fn new() -> Self {
        Stash { batches: Mutex::new(Vec::new()), len: AtomicUsize::new(0), min: AtomicU64::new(Prio::MAX) }
    }

    /// Number of batches, as last published.
    #[inline]
    pub(crate) fn len_hint(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Smallest priority of the batches, as last published.
    #[inline]
    pub(crate) fn min_hint(&self) -> Prio {
        self.min.load(Ordering::Acquire)
    }

    fn publish_hints(&self, batches: &[Batch<T>]) {
        let min = batches.iter().map(|b| b.min).min().unwrap_or(Prio::MAX);
        self.min.store(min, Ordering::Release);
        self.len.store(batches.len(), Ordering::Release);
    }

    /// Publishes a batch (waits for the lock: only the owner puts, and a
    /// taker holds the lock for a few instructions).
    pub(crate) fn put(&self, batch: Batch<T>) {
        let mut batches = lock(&self.batches);
        batches.push(batch);
        self.publish_hints(&batches);
    }

    /// Takes the most urgent batch, without waiting for the lock.
    pub(crate) fn try_take(&self) -> Take<T> {
        if self.len_hint() == 0 {
            return Take::Empty;
        }
        let Ok(mut batches) = self.batches.try_lock() else {
            return Take::Busy;
        };
        let Some(best) = (0..batches.len()).min_by_key(|&i| batches[i].min) else {
            // The hint was stale: the last batch went while we read it.
            return Take::Empty;
        };
        let batch = batches.swap_remove(best);
        self.publish_hints(&batches);
        Take::Taken(batch)
    }
}

/// Locks `m`, ignoring poisoning: every critical section is one push or one
/// removal, which a panic cannot leave half done.
fn lock<X>(m: &Mutex<X>) -> crate::sync::MutexGuard<'_, X> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `ThreadShared::want` of a thread that asks for nothing.
pub(crate) const NO_WANT: Prio = Prio::MAX;
/// `ThreadShared::want` of a thread that has no work at all: any batch helps.
pub(crate) const WANT_ANY: Prio = Prio::MAX - 1;

/// What each thread shares.
pub(crate) struct ThreadShared<T> {
    pub(crate) stash: Stash<T>,
    /// The lower edge (a priority) of the bucket this thread works on,
    /// `Prio::MAX` when it has no work; written at bucket changes.
    pub(crate) level: AtomicU64,
    /// [`NO_WANT`], or the level this thread would work at next: a batch
    /// more urgent than it should be offered to it ([`WANT_ANY`] when it
    /// has no work).
    pub(crate) want: AtomicU64,
    /// Pops so far, mirrored at bucket changes (relaxed; the x axis of the
    /// width trace).
    pub(crate) pops: AtomicU64,
}

/// The shared state of an `auto` scheduler.
pub(crate) struct Shared<T> {
    pub(crate) threads: Box<[CachePadded<ThreadShared<T>>]>,
    /// Number of threads whose `want` is not [`NO_WANT`]: while it is
    /// non-zero, working threads look at the requests at each pop.
    pub(crate) wanting: CachePadded<AtomicUsize>,
    /// Batches in all stashes (a hint, never below the true count: raised
    /// before a put, lowered after a take).
    pub(crate) offered: CachePadded<AtomicUsize>,
}

impl<T> Shared<T> {
    pub(crate) fn new(threads: usize) -> Self {
        Shared {
            threads: (0..threads.max(1))
                .map(|_| {
                    CachePadded::new(ThreadShared {
                        stash: Stash::new(),
                        level: AtomicU64::new(Prio::MAX),
                        want: AtomicU64::new(NO_WANT),
                        pops: AtomicU64::new(0),
                    })
                })
                .collect(),
            wanting: CachePadded::new(AtomicUsize::new(0)),
            offered: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Publishes `batch` in thread `tid`'s stash. `offered` is raised
    /// first, so it never counts fewer batches than the stashes hold.
    pub(crate) fn put(&self, tid: usize, batch: Batch<T>) {
        self.offered.fetch_add(1, Ordering::Relaxed);
        self.threads[tid].stash.put(batch);
    }

    /// Takes the most urgent published batch whose smallest priority is
    /// below `below`, trying the stashes from the most urgent hint on and
    /// skipping the stash of thread `skip`. `Busy` if some stash that might
    /// hold one was locked.
    pub(crate) fn take_below(&self, below: Prio, skip: Option<usize>) -> Take<T> {
        let mut busy = false;
        // One pass over the hints, then one attempt at the best stash; a
        // stash that was locked or empty is not tried again.
        let mut tried = 0u64;
        loop {
            let mut best: Option<(Prio, usize)> = None;
            for (i, t) in self.threads.iter().enumerate() {
                if Some(i) == skip || (i < 64 && tried & (1 << i) != 0) || t.stash.len_hint() == 0 {
                    continue;
                }
                let m = t.stash.min_hint();
                if m < below && best.is_none_or(|(bm, _)| m < bm) {
                    best = Some((m, i));
                }
            }
            let Some((_, i)) = best else {
                return if busy { Take::Busy } else { Take::Empty };
            };
            match self.threads[i].stash.try_take() {
                Take::Taken(b) => {
                    self.offered.fetch_sub(1, Ordering::Relaxed);
                    return Take::Taken(b);
                }
                Take::Busy => busy = true,
                Take::Empty => {}
            }
            if i < 64 {
                tried |= 1 << i;
            } else {
                // Beyond 64 threads, no bookkeeping of tried stashes: one
                // attempt at the best hint is all we do.
                return if busy { Take::Busy } else { Take::Empty };
            }
        }
    }
}
