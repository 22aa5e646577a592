//! The local queue of a Stealing Multi-Queue thread: the owner-only priority
//! queue behind the stealing buffer. `smq` uses a d-ary heap (§4); the
//! `smq-skiplist` variant uses a skip list (stealing-multiqueue-2021 §2.2
//! mentions skip lists as the other local-queue choice).

use crossbeam_skiplist::SkipMap;

use crate::dary_heap::DaryHeap;
use crate::Prio;

/// A sequential min-priority queue touched only by its owning thread.
pub trait LocalQueue<T> {
    /// An empty queue; `arity` is the heap arity (ignored by queues without one).
    fn with_arity(arity: usize) -> Self;
    /// Inserts `task` with priority `prio`.
    fn push(&mut self, prio: Prio, task: T);
    /// Removes a task of the most urgent priority.
    fn pop(&mut self) -> Option<(Prio, T)>;
    /// The most urgent priority, if any.
    fn peek_prio(&self) -> Option<Prio>;
    /// The number of tasks held.
    fn len(&self) -> usize;
    /// Whether the queue holds no task.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The d-ary heap local queue of `smq` (stealing-multiqueue-2021 §4).
pub struct HeapQueue<T>(DaryHeap<T>);

impl<T> LocalQueue<T> for HeapQueue<T> {
    fn with_arity(arity: usize) -> Self {
        HeapQueue(DaryHeap::new(arity))
    }
    #[inline]
    fn push(&mut self, prio: Prio, task: T) {
        self.0.push(prio, task)
    }
    #[inline]
    fn pop(&mut self) -> Option<(Prio, T)> {
        self.0.pop()
    }
    #[inline]
    fn peek_prio(&self) -> Option<Prio> {
        self.0.peek_prio()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// A local queue kept in a `crossbeam-skiplist` [`SkipMap`].
///
/// The skip map only stores `'static` values, while tasks may borrow, so the
/// map holds keys `(priority, slot)` and the tasks live in `slots`; a slot
/// is reused once freed, which keeps keys unique among the live entries.
pub struct SkipQueue<T> {
    order: SkipMap<(Prio, usize), ()>,
    slots: Vec<Option<T>>,
    free: Vec<usize>,
}

impl<T> LocalQueue<T> for SkipQueue<T> {
    fn with_arity(_arity: usize) -> Self {
        SkipQueue { order: SkipMap::new(), slots: Vec::new(), free: Vec::new() }
    }

    fn push(&mut self, prio: Prio, task: T) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s] = Some(task);
                s
            }
            None => {
                self.slots.push(Some(task));
                self.slots.len() - 1
            }
        };
        self.order.insert((prio, slot), ());
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        let entry = self.order.pop_front()?;
        let (prio, slot) = *entry.key();
        self.free.push(slot);
        let task = self.slots[slot].take().expect("smq-skiplist: every key names a filled slot");
        Some((prio, task))
    }

    fn peek_prio(&self) -> Option<Prio> {
        self.order.front().map(|e| e.key().0)
    }

    fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Against a sorted reference: priorities come out sorted, tasks exactly once.
    #[test]
    fn skip_queue_pops_sorted_and_loses_nothing() {
        let mut q = SkipQueue::with_arity(4);
        let mut reference = Vec::new();
        let mut x = 12345u64;
        for i in 0..2000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let p = (x >> 40) % 100;
            q.push(p, i);
            reference.push((p, i));
            if i % 3 == 0 {
                let (gp, gt) = q.pop().unwrap();
                let min = reference.iter().map(|e| e.0).min().unwrap();
                assert_eq!(gp, min);
                let pos = reference.iter().position(|e| *e == (gp, gt)).unwrap();
                reference.swap_remove(pos);
            }
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.peek_prio(), reference.iter().map(|e| e.0).min());
        }
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert!(rest.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut rest = rest;
        rest.sort();
        reference.sort();
        assert_eq!(rest, reference);
    }
}
