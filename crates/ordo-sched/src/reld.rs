//! `reld`: random enqueue, local dequeue (pmod-priority-scheduling-sc19
//! §2.2, the design of the Swarm architecture's hardware queues): one locked
//! d-ary heap per thread; a push goes to a uniformly random queue, a pop
//! takes the top of the thread's own queue.
//!
//! The paper's Deq *blocks* while the own queue is empty. In software that
//! would strand tasks (a queue whose thread has gone idle) and deadlock
//! termination, so here a thread whose own queue is
//! empty (or locked) looks elsewhere: two random other queues by their
//! cached tops (two-choice, as in [`crate::mq`]), then every queue with a
//! blocking lock. A `pop` that runs while no other thread operates therefore
//! finds any task, and nothing is ever private: `flush` has nothing to do,
//! and [`Handle::private_tasks`] keeps its default (none). The queues are
//! probed in [`crate::mq`]'s locked queue.

use std::marker::PhantomData;

use crossbeam_utils::CachePadded;

use crate::dary_heap::MAX_ARITY;
use crate::mq::{LockedQueue, EMPTY_TOP};
use crate::rng::FastRng;
use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::{Handle, Prio, Scheduler};

/// Failed try-locks tolerated per operation before a blocking fallback.
const MAX_LOCK_FAILURES: usize = 64;

/// Configuration of [`Reld`].
#[derive(Clone, Debug, PartialEq)]
pub struct ReldConfig {
    /// Heap arity (`d`, default 8).
    pub arity: usize,
    /// Seed of the random queue choices (`seed`, default 1).
    pub seed: u64,
}

impl Default for ReldConfig {
    fn default() -> Self {
        ReldConfig { arity: 8, seed: 1 }
    }
}

impl SchedConfig for ReldConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let d = ReldConfig::default();
        Ok(ReldConfig {
            arity: p.take_in_range("d", d.arity as u64, 2, MAX_ARITY as u64)? as usize,
            seed: p.take_u64("seed", d.seed)?,
        })
    }

    fn to_params(&self) -> String {
        format!("d={},seed={}", self.arity, self.seed)
    }
}

/// Random enqueue, local dequeue (module docs).
pub struct Reld<T> {
    queues: Box<[CachePadded<LockedQueue<T>>]>,
    cfg: ReldConfig,
}

impl<T: Send> BuildScheduler<T> for Reld<T> {
    type Config = ReldConfig;

    fn build(threads: usize, cfg: &ReldConfig) -> Self {
        let queues = (0..threads.max(1)).map(|_| CachePadded::new(LockedQueue::new(cfg.arity))).collect();
        Reld { queues, cfg: cfg.clone() }
    }
}

impl<T: Send> Scheduler<T> for Reld<T> {
    type Handle<'s>
        = ReldHandle<'s, T>
    where
        T: 's;

    fn handle(&self, tid: usize) -> ReldHandle<'_, T> {
        ReldHandle {
            sched: self,
            own: tid % self.queues.len(),
            rng: FastRng::for_thread(self.cfg.seed, tid),
            lock_failures: 0,
            remote_pops: 0,
            scans: 0,
            _not_send: PhantomData,
        }
    }
}

/// A thread's handle on [`Reld`]; it buffers nothing.
pub struct ReldHandle<'s, T> {
    sched: &'s Reld<T>,
    own: usize,
    rng: FastRng,
    lock_failures: u64,
    remote_pops: u64,
    scans: u64,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send> ReldHandle<'_, T> {
    /// Two random queues compared by cached top, the better one popped.
    fn two_choice_pop(&mut self) -> Option<(Prio, T)> {
        let queues = &self.sched.queues;
        let n = queues.len();
        if n < 2 {
            return None;
        }
        for _ in 0..MAX_LOCK_FAILURES {
            let i = self.rng.below(n);
            let j = (i + 1 + self.rng.below(n - 1)) % n;
            let (ti, tj) = (queues[i].top(), queues[j].top());
            if ti.min(tj) == EMPTY_TOP {
                return None;
            }
            let q = if tj < ti { j } else { i };
            match queues[q].try_lock() {
                Some(mut g) => {
                    let got = g.heap().pop();
                    self.remote_pops += u64::from(got.is_some());
                    return got;
                }
                None => self.lock_failures += 1,
            }
        }
        None
    }

    /// Every queue, from a random start, with a blocking lock.
    fn scan_pop(&mut self) -> Option<(Prio, T)> {
        self.scans += 1;
        let queues = &self.sched.queues;
        let start = self.rng.below(queues.len());
        (0..queues.len()).map(|k| (start + k) % queues.len()).find_map(|q| {
            if queues[q].top() == EMPTY_TOP {
                None
            } else {
                queues[q].lock().heap().pop()
            }
        })
    }
}

impl<T: Send> Handle<T> for ReldHandle<'_, T> {
    fn push(&mut self, prio: Prio, task: T) {
        let queues = &self.sched.queues;
        let mut failures = 0;
        let mut guard = loop {
            let q = self.rng.below(queues.len());
            if failures >= MAX_LOCK_FAILURES {
                break queues[q].lock();
            }
            match queues[q].try_lock() {
                Some(g) => break g,
                None => {
                    failures += 1;
                    self.lock_failures += 1;
                }
            }
        };
        guard.heap().push(prio, task);
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        let own = &self.sched.queues[self.own];
        if own.top() != EMPTY_TOP {
            if let Some(mut g) = own.try_lock() {
                if let Some(task) = g.heap().pop() {
                    return Some(task);
                }
            } else {
                self.lock_failures += 1;
            }
        }
        if let Some(task) = self.two_choice_pop() {
            return Some(task);
        }
        self.scan_pop()
    }

    fn flush(&mut self) {}

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("lock_failures", self.lock_failures), ("remote_pops", self.remote_pops), ("scans", self.scans)]
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::SchedulerSpec;

    fn build(threads: usize) -> Reld<u64> {
        Reld::build(threads, &ReldConfig::default())
    }

    #[test]
    fn every_task_comes_back_once_and_lone_pops_never_fail() {
        let s = build(3);
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        for i in 0..500u64 {
            a.push(i % 37, i);
        }
        // b's own queue got about a third; it must still drain everything alone.
        let mut got: Vec<u64> = (0..500).map(|_| b.pop().expect("spurious empty pop").1).collect();
        assert!(b.pop().is_none());
        assert!(a.pop().is_none());
        got.sort_unstable();
        assert_eq!(got, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn a_thread_dequeues_its_own_queue_in_order() {
        let s = build(1);
        let mut h = s.handle(0);
        for p in [5u64, 1, 9, 3, 7] {
            h.push(p, p);
        }
        let got: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|e| e.0).collect();
        assert_eq!(got, vec![1, 3, 5, 7, 9]);
    }

    #[test]
    fn pushes_spread_over_all_queues() {
        let s = build(4);
        let mut h = s.handle(0);
        for i in 0..4000 {
            h.push(i, i);
        }
        for q in s.queues.iter() {
            let n = std::iter::from_fn(|| q.lock().heap().pop()).count();
            assert!((800..1200).contains(&n), "{n}");
        }
    }

    #[test]
    fn concurrent_use_delivers_each_task_once() {
        crate::test_support::check_concurrent_exactly_once("reld", &build(4), &[20_000; 4], 501, 2);
    }

    #[test]
    fn spec_round_trips() {
        let spec: SchedulerSpec = "reld:d=4,seed=9".parse().unwrap();
        assert_eq!(spec, spec.to_string().parse().unwrap());
        assert!("reld:c=2".parse::<SchedulerSpec>().is_err());
    }
}
