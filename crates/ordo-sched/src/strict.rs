//! `strict`: one binary heap behind one lock, popping in exact priority
//! order. The baseline every relaxed scheduler is compared with; it does not
//! scale, by design. Every operation locks the heap, a write of the one
//! shared structure for the [`crate::probe`]; nothing is private.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::marker::PhantomData;

use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::Mutex;
use crate::{Handle, Prio, Scheduler};

/// Configuration of [`Strict`]; it has no parameters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StrictConfig;

impl SchedConfig for StrictConfig {
    fn from_params(_p: &mut Params) -> Result<Self, SpecError> {
        Ok(StrictConfig)
    }

    fn to_params(&self) -> String {
        String::new()
    }
}

/// An entry of the heap: ordered by priority, then by insertion sequence so
/// that equal priorities pop first-in first-out and the task type needs no
/// ordering.
struct Entry<T> {
    prio: Prio,
    seq: u64,
    task: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.prio, self.seq) == (other.prio, other.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.prio, self.seq).cmp(&(other.prio, other.seq))
    }
}

struct Heap<T> {
    heap: BinaryHeap<Reverse<Entry<T>>>,
    next_seq: u64,
}

/// A single lock-protected min-heap: exact priority order.
pub struct Strict<T> {
    heap: Mutex<Heap<T>>,
}

impl<T: Send> BuildScheduler<T> for Strict<T> {
    type Config = StrictConfig;

    fn build(_threads: usize, _cfg: &StrictConfig) -> Self {
        Strict { heap: Mutex::new(Heap { heap: BinaryHeap::new(), next_seq: 0 }) }
    }
}

impl<T: Send> Scheduler<T> for Strict<T> {
    type Handle<'s>
        = StrictHandle<'s, T>
    where
        T: 's;

    fn handle(&self, _tid: usize) -> StrictHandle<'_, T> {
        StrictHandle { sched: self, _not_send: PhantomData }
    }
}

/// A thread's handle on [`Strict`]; it buffers nothing.
pub struct StrictHandle<'s, T> {
    sched: &'s Strict<T>,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send> Handle<T> for StrictHandle<'_, T> {
    fn push(&mut self, prio: Prio, task: T) {
        crate::probe::write(&self.sched.heap);
        let mut h = self.sched.heap.lock().unwrap();
        let seq = h.next_seq;
        h.next_seq += 1;
        h.heap.push(Reverse(Entry { prio, seq, task }));
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        crate::probe::write(&self.sched.heap);
        let mut h = self.sched.heap.lock().unwrap();
        h.heap.pop().map(|Reverse(e)| (e.prio, e.task))
    }

    fn flush(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_exact_order_fifo_among_equals() {
        let s: Strict<u32> = Strict::build(1, &StrictConfig);
        let mut h = s.handle(0);
        for (p, t) in [(5, 0), (1, 1), (5, 2), (0, 3), (1, 4)] {
            h.push(p, t);
        }
        let got: Vec<_> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(got, vec![(0, 3), (1, 1), (1, 4), (5, 0), (5, 2)]);
    }
}
