//! A sequential d-ary min-heap of `(priority, task)` pairs: the local queue
//! of every Multi-Queue variant (`mq`, `smq`, `reld`).
//!
//! The Multi-Queue papers use d-ary heaps because a wider node makes the heap
//! shallower and sift-down scans `d` children that share cache lines
//! (stealing-multiqueue-2021 §4: "sequential d-ary heaps (typically, with
//! parameter d = 4)"; the classic MQ artifact uses d = 8). The arity is a run-time parameter.
//! Only the priority is compared, so the task type needs no ordering.

use crate::Prio;

/// The largest arity accepted by the schedulers' configurations.
pub(crate) const MAX_ARITY: usize = 64;

/// A d-ary min-heap ordered by priority.
#[derive(Debug)]
pub(crate) struct DaryHeap<T> {
    arity: usize,
    items: Vec<(Prio, T)>,
}

impl<T> DaryHeap<T> {
    /// An empty heap with `arity` children per node (clamped to 2..=64).
    pub(crate) fn new(arity: usize) -> Self {
        DaryHeap { arity: arity.clamp(2, MAX_ARITY), items: Vec::new() }
    }

    /// The number of tasks held.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The most urgent priority, if any.
    #[inline]
    pub(crate) fn peek_prio(&self) -> Option<Prio> {
        self.items.first().map(|e| e.0)
    }

    /// Inserts a task: O(log_d n).
    pub(crate) fn push(&mut self, prio: Prio, task: T) {
        self.items.push((prio, task));
        let mut i = self.items.len() - 1;
        while i > 0 {
            let parent = (i - 1) / self.arity;
            if self.items[parent].0 <= prio {
                break;
            }
            self.items.swap(i, parent);
            i = parent;
        }
    }

    /// Removes a task of the most urgent priority: O(d log_d n).
    pub(crate) fn pop(&mut self) -> Option<(Prio, T)> {
        let last = self.items.len().checked_sub(1)?;
        self.items.swap(0, last);
        let top = self.items.pop();
        self.sift_down(0);
        top
    }

    fn sift_down(&mut self, mut i: usize) {
        let n = self.items.len();
        loop {
            let first = i * self.arity + 1;
            if first >= n {
                return;
            }
            let end = (first + self.arity).min(n);
            let mut best = first;
            for c in first + 1..end {
                if self.items[c].0 < self.items[best].0 {
                    best = c;
                }
            }
            if self.items[best].0 >= self.items[i].0 {
                return;
            }
            self.items.swap(i, best);
            i = best;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a sorted reference: the popped priorities come out sorted and
        /// the tasks are exactly the ones pushed, for every arity.
        #[test]
        fn pops_sorted_and_loses_nothing(
            arity in 2usize..10,
            ops in proptest::collection::vec((any::<bool>(), 0u64..50), 0..300),
        ) {
            let mut h = DaryHeap::new(arity);
            let mut reference: Vec<(u64, usize)> = Vec::new();
            for (i, (is_push, p)) in ops.into_iter().enumerate() {
                if is_push || reference.is_empty() {
                    h.push(p, i);
                    reference.push((p, i));
                } else {
                    let (gp, gt) = h.pop().unwrap();
                    let min = reference.iter().map(|e| e.0).min().unwrap();
                    prop_assert_eq!(gp, min);
                    let pos = reference.iter().position(|e| *e == (gp, gt)).unwrap();
                    reference.swap_remove(pos);
                }
                prop_assert_eq!(h.len(), reference.len());
                prop_assert_eq!(h.peek_prio(), reference.iter().map(|e| e.0).min());
            }
            let mut rest: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
            let sorted = rest.windows(2).all(|w| w[0].0 <= w[1].0);
            prop_assert!(sorted);
            rest.sort();
            reference.sort();
            prop_assert_eq!(rest, reference);
        }
    }
}
