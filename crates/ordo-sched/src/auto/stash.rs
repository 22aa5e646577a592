//! The shared part of `auto`: per thread, its *pile* (the tasks of its
//! current bucket that other threads may take half of) and its *stash*
//! (batches it gave away to an idle thread or made visible by `flush`), and
//! the count of threads that have no work.
//!
//! Both are a `Mutex` with hints beside it (number of tasks or batches,
//! their level), written under the lock with `Release` and read without it
//! with `Acquire`: a thread that looks for work reads hints and locks only a
//! pile or stash that has something. Other threads use `try_lock`, so a take
//! fails spuriously only while another thread holds that lock, i.e. is
//! inside a scheduler operation (the `Handle` contract,
//! `termination/README.md` of ordo-exec). The protocol and its loom model
//! are described in `README.md`.

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU64, AtomicUsize, Mutex, MutexGuard, Ordering};
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

/// The outcome of taking from a pile or a stash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Take {
    /// This many tasks were moved out.
    Got(usize),
    /// There was nothing.
    Empty,
    /// Another thread held the lock: try again later.
    Busy,
}

/// Locks `m`, ignoring poisoning: every critical section moves tasks
/// between vectors, which a panic cannot leave half done.
fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// The published part of a thread's current bucket.
pub(crate) struct Pile<T> {
    tasks: Mutex<Vec<(Prio, T)>>,
    /// Number of tasks (hint).
    len: AtomicUsize,
    /// The lower edge (a priority) of the bucket the tasks belong to (hint).
    level: AtomicU64,
}

impl<T> Pile<T> {
    pub(crate) fn new() -> Self {
        Pile { tasks: Mutex::new(Vec::new()), len: AtomicUsize::new(0), level: AtomicU64::new(Prio::MAX) }
    }

    /// Number of tasks, as last published.
    #[inline]
    pub(crate) fn len_hint(&self) -> usize {
        crate::probe::read(self);
        self.len.load(Ordering::Acquire)
    }

    /// The level of the tasks, as last published.
    #[inline]
    pub(crate) fn level_hint(&self) -> Prio {
        self.level.load(Ordering::Acquire)
    }

    /// Adds `tasks` (of a bucket at `level`) to the pile, leaving `tasks`
    /// empty (when the pile was empty the two vectors are swapped, so the
    /// caller gets the pile's old allocation back).
    pub(crate) fn publish(&self, tasks: &mut Vec<(Prio, T)>, level: Prio) {
        crate::probe::write(self);
        let mut pile = lock(&self.tasks);
        if pile.is_empty() {
            std::mem::swap(&mut *pile, tasks);
            self.level.store(level, Ordering::Release);
        } else {
            pile.append(tasks);
            self.level.store(level.min(self.level.load(Ordering::Relaxed)), Ordering::Release);
        }
        self.len.store(pile.len(), Ordering::Release);
    }

    /// Moves the newest half (rounded up) of the pile, at most `max` tasks,
    /// into `out`. The owner waits for the lock (`wait`); other threads do
    /// not.
    pub(crate) fn take_half(&self, out: &mut Vec<(Prio, T)>, wait: bool, max: usize) -> Take {
        if self.len_hint() == 0 {
            return Take::Empty;
        }
        crate::probe::write(self);
        let mut pile = if wait {
            lock(&self.tasks)
        } else {
            match self.tasks.try_lock() {
                Ok(g) => g,
                Err(_) => return Take::Busy,
            }
        };
        let n = pile.len();
        if n == 0 {
            // The hint was stale: another thread took the rest meanwhile.
            return Take::Empty;
        }
        let k = n.div_ceil(2).min(max.max(1));
        out.extend(pile.drain(n - k..));
        self.len.store(n - k, Ordering::Release);
        if n == k {
            self.level.store(Prio::MAX, Ordering::Release);
        }
        Take::Got(k)
    }
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
        crate::probe::read(self);
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

    /// Publishes a batch (waits for the lock: a taker holds it for a few
    /// instructions).
    pub(crate) fn put(&self, batch: Batch<T>) {
        crate::probe::write(self);
        let mut batches = lock(&self.batches);
        batches.push(batch);
        self.publish_hints(&batches);
    }

    /// Moves the most urgent batch into `out`, without waiting for the lock.
    pub(crate) fn try_take(&self, out: &mut Vec<(Prio, T)>) -> Take {
        if self.len_hint() == 0 {
            return Take::Empty;
        }
        crate::probe::write(self);
        let Ok(mut batches) = self.batches.try_lock() else {
            return Take::Busy;
        };
        let Some(best) = (0..batches.len()).min_by_key(|&i| batches[i].min) else {
            // The hint was stale: the last batch went while we read it.
            return Take::Empty;
        };
        let mut batch = batches.swap_remove(best);
        self.publish_hints(&batches);
        drop(batches);
        let k = batch.tasks.len();
        out.append(&mut batch.tasks);
        Take::Got(k)
    }
}

/// `ThreadShared::want` of a thread that asks for nothing. (A thread never
/// waits for work below level 0, so 0 is free to mean "nothing".)
pub(crate) const NO_WANT: Prio = 0;
/// `ThreadShared::want` of a thread that has no work at all: any work helps.
pub(crate) const WANT_ANY: Prio = Prio::MAX;

/// What each thread shares.
pub(crate) struct ThreadShared<T> {
    pub(crate) pile: Pile<T>,
    pub(crate) stash: Stash<T>,
    /// [`NO_WANT`], or the level of the work this thread would do next
    /// while it waits for other threads to catch up: work below it helps
    /// ([`WANT_ANY`] while it has no work at all).
    pub(crate) want: AtomicU64,
    /// Pops so far, mirrored at bucket changes (relaxed; the x axis of the
    /// width trace).
    pub(crate) pops: AtomicU64,
    /// The lower edge of the bucket this thread works on or will work on
    /// next, `Prio::MAX` when it has no work (relaxed hint).
    pub(crate) level: AtomicU64,
}

/// The shared state of an `auto` scheduler.
pub(crate) struct Shared<T> {
    pub(crate) threads: Box<[CachePadded<ThreadShared<T>>]>,
    /// Number of threads whose `want` is not [`NO_WANT`]: while it is
    /// non-zero, working threads make part of their work visible at their
    /// pops.
    pub(crate) wanting: CachePadded<AtomicUsize>,
}

impl<T> Shared<T> {
    pub(crate) fn new(threads: usize) -> Self {
        Shared {
            threads: (0..threads.max(1))
                .map(|_| {
                    CachePadded::new(ThreadShared {
                        pile: Pile::new(),
                        stash: Stash::new(),
                        want: AtomicU64::new(NO_WANT),
                        pops: AtomicU64::new(0),
                        level: AtomicU64::new(Prio::MAX),
                    })
                })
                .collect(),
            wanting: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// Moves into `out` the most urgent work another thread offers at a
    /// level at or below `level` (`Prio::MAX`: any): half of another
    /// thread's pile, or a batch of any thread's stash (thread `me`'s own
    /// included). Candidates are tried from the most urgent hint on, each
    /// once; `Busy` if one that might hold work was locked.
    pub(crate) fn take_at_or_below(&self, level: Prio, me: usize, out: &mut Vec<(Prio, T)>) -> Take {
        let mut busy = false;
        // Bit 2i: thread i's pile tried; bit 2i + 1: its stash (first 32 threads).
        let mut tried = 0u64;
        let bit = |i: usize, stash: bool| if i < 32 { 1u64 << (2 * i + usize::from(stash)) } else { 0 };
        loop {
            let mut best: Option<(Prio, usize, bool)> = None;
            for (i, t) in self.threads.iter().enumerate() {
                if i != me && tried & bit(i, false) == 0 && t.pile.len_hint() != 0 {
                    let l = t.pile.level_hint();
                    if l <= level && best.is_none_or(|(b, _, _)| l < b) {
                        best = Some((l, i, false));
                    }
                }
                if tried & bit(i, true) == 0 && t.stash.len_hint() != 0 {
                    let m = t.stash.min_hint();
                    if m <= level && best.is_none_or(|(b, _, _)| m < b) {
                        best = Some((m, i, true));
                    }
                }
            }
            let Some((_, i, stash)) = best else {
                return if busy { Take::Busy } else { Take::Empty };
            };
            let t = &self.threads[i];
            let got = if stash { t.stash.try_take(out) } else { t.pile.take_half(out, false, usize::MAX) };
            match got {
                Take::Got(k) => return Take::Got(k),
                Take::Busy => busy = true,
                Take::Empty => {}
            }
            if i >= 32 {
                // Beyond 32 threads, no bookkeeping of what was tried: one
                // attempt at the best hint is all we do.
                return if busy { Take::Busy } else { Take::Empty };
            }
            tried |= bit(i, stash);
        }
    }
}
