//! The piles of a round: each thread's share of the round's tasks, visible
//! to the others so an idle thread can take half of a busy thread's pile.
//!
//! A pile is a `Mutex<VecDeque>` with a length hint beside it, written under
//! the lock (`Release`) and read without it (`Acquire`) to decide where to
//! look. Every access to a pile's tasks happens under its mutex and moves
//! them out with `drain`, so a task leaves a pile exactly once; a stale hint
//! only makes a look find nothing. The owner takes chunks from the front, in
//! the order the tasks were pushed (first in, first out: a PageRank task
//! run later has gathered more residual, and on R-MAT 2^14 at one thread
//! the first-in order ran 69,666 tasks where newest-first ran 80,976); a
//! thief takes the front half too, the oldest, into its own pile, where it
//! stays visible. (Taking the back half, as a deque thief would, ran the
//! newest tasks first on the thief: PageRank on Slashdot at two threads ran
//! 828,000 tasks that way and 790,000 with the front half; the mutex makes
//! either end cost the same.)

use std::collections::VecDeque;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicUsize, Mutex, Ordering};

/// One thread's pile of entries `E` (a task with its priority).
pub(crate) struct Pile<E> {
    tasks: Mutex<VecDeque<E>>,
    len: AtomicUsize,
}

impl<E> Pile<E> {
    pub(crate) fn new() -> Self {
        Pile { tasks: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0) }
    }

    /// The number of tasks, as last published (a hint).
    #[inline]
    pub(crate) fn len_hint(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Moves all of `tasks` behind the pile's tasks (exchanging buffers when
    /// the pile is empty, so no task is copied); `tasks` is left empty.
    pub(crate) fn put(&self, tasks: &mut Vec<E>) {
        if tasks.is_empty() {
            return;
        }
        let mut pile = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        if pile.is_empty() {
            // Both conversions keep their buffer: `tasks` gets the empty
            // pile's allocation back.
            let empty = std::mem::replace(&mut *pile, VecDeque::from(std::mem::take(tasks)));
            *tasks = Vec::from(empty);
        } else {
            pile.extend(tasks.drain(..));
        }
        self.len.store(pile.len(), Ordering::Release);
    }

    /// Moves up to `max` tasks from the front of the pile (the oldest) into
    /// `out`, in order; returns how many.
    pub(crate) fn take(&self, max: usize, out: &mut Vec<E>) -> usize {
        if self.len_hint() == 0 {
            return 0;
        }
        let mut pile = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let n = pile.len().min(max);
        out.extend(pile.drain(..n));
        self.len.store(pile.len(), Ordering::Release);
        n
    }

    /// Moves the front half (rounded up, the oldest tasks) of the pile into
    /// `out`, in order; returns how many tasks.
    pub(crate) fn take_half(&self, out: &mut Vec<E>) -> usize {
        if self.len_hint() == 0 {
            return 0;
        }
        let mut pile = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        let n = pile.len().div_ceil(2);
        out.extend(pile.drain(..n));
        self.len.store(pile.len(), Ordering::Release);
        n
    }
}

/// The piles of all threads, one cache line each at least.
pub(crate) struct Piles<E> {
    piles: Box<[CachePadded<Pile<E>>]>,
}

impl<E> Piles<E> {
    pub(crate) fn new(threads: usize) -> Self {
        Piles { piles: (0..threads).map(|_| CachePadded::new(Pile::new())).collect() }
    }

    pub(crate) fn get(&self, tid: usize) -> &Pile<E> {
        &self.piles[tid]
    }

    /// Moves half of the fullest-looking other pile into `out`, starting the
    /// search after `tid`; returns how many tasks.
    pub(crate) fn steal(&self, tid: usize, out: &mut Vec<E>) -> usize {
        let n = self.piles.len();
        let mut best: Option<(usize, usize)> = None;
        for i in 1..n {
            let victim = (tid + i) % n;
            let len = self.piles[victim].len_hint();
            if len > 0 && best.is_none_or(|(_, l)| len > l) {
                best = Some((victim, len));
            }
        }
        match best {
            Some((victim, _)) => self.piles[victim].take_half(out),
            None => 0,
        }
    }

    /// Whether the pile of a thread other than `tid` looks non-empty.
    pub(crate) fn others_have_work(&self, tid: usize) -> bool {
        self.piles.iter().enumerate().any(|(i, p)| i != tid && p.len_hint() > 0)
    }
}
