//! `smq`: the Stealing Multi-Queue (stealing-multiqueue-2021 §2.2,
//! Listings 2 and 4; Appendix D): one sequential d-ary heap per thread,
//! touched only by its owner, plus a *stealing buffer* per thread holding the
//! owner's best `steal` tasks, which other threads can compare against and
//! steal as a whole, guarded by one `(epoch, tag)` word (`buffer.rs`,
//! `README.md`).
//!
//! - insert: push into the own heap; refill the own buffer if it is empty.
//! - delete: (1) serve previously stolen tasks first; (2) with probability
//!   `p_steal` compare the own best task with a random other thread's buffer
//!   top and steal that buffer if it is better; (3) take the own best task
//!   (from the heap, or by taking back the own buffer when it is better);
//!   (4) if the own heap and buffer are empty, visit every other queue
//!   (random start) and steal the first buffer found.
//! - NUMA: victims on other nodes are drawn with weight `1/K` (§4, `numa_k`,
//!   default 8 as in the paper's "SMQ (Default)"; 0 means K = T).
//!
//! The local queue is a type parameter ([`LocalQueue`], `local.rs`): `smq`
//! uses the d-ary heap ([`HeapQueue`]); `smq-skiplist` ([`SmqSkipList`]) uses a
//! `crossbeam-skiplist` skip list ([`SkipQueue`]) with the same buffer, spill
//! and parameters (no `d`). The skip list is touched only by its owner, so its
//! concurrency is unused; it costs epoch pinning per operation.
//!
//! Defaults follow the paper's "SMQ (Default)": `d=4,steal=4,p_steal=1/8`.
//! The public artifact's `smq_default` uses a batch of 8: `smq:steal=8`.
//!
//! # Termination (the `Handle` contract)
//! The heap is private, so tasks in it are visible to others only through the
//! buffer. `flush` therefore moves the whole heap into the queue's locked
//! *spill* heap, which every thread's step (4) also visits; a dropped handle
//! spills everything it holds. In the executor `flush` follows a `pop` that
//! found the own heap empty, so the spill costs nothing on the hot path.
//! A `pop` that returns `None` holds nothing privately: its heap, its own
//! buffer and its stolen tasks are empty.
//!
//! # Probes and private tasks (for the simulator)
//! Shared structures for [`crate::probe`]: each queue's stealing buffer
//! (probed in `buffer.rs`) and its spill. Private tasks
//! ([`Handle::private_tasks`]): the local heap is *unpublished* — no other
//! thread can take a task from it; its best `steal` tasks are exposed in the
//! stealing buffer, which is public and not counted — and the stolen tasks
//! not yet returned are *claimed*. So SMQ keeps most of its work invisible
//! by design; what matters for quality is that the most urgent part is
//! exposed, which the rank measure shows.

mod buffer;
mod local;

#[cfg(all(test, not(loom)))]
mod test;

#[cfg(all(test, not(loom)))]
mod skiplist_test;

#[cfg(all(test, loom))]
mod loom_model;

use std::marker::PhantomData;

use crossbeam_utils::CachePadded;

use crate::dary_heap::{DaryHeap, MAX_ARITY};
use crate::mq::{effective_k, QueueSampler, MAX_BATCH};
use crate::rng::{probability_threshold, Chance, FastRng};
use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::{AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::topology::Topology;
use crate::{probe, Handle, Prio, PrivateTasks, Scheduler};

use buffer::{BufferTop, StealBuffer};
pub use local::{HeapQueue, LocalQueue, SkipQueue};

/// Configuration of [`StealingMultiQueue`].
#[derive(Clone, Debug, PartialEq)]
pub struct SmqConfig {
    /// Heap arity (`d`, default 4, §4).
    pub arity: usize,
    /// Tasks per stealing buffer, STEAL_SIZE (`steal`, default 4).
    pub steal: usize,
    /// Probability of a steal attempt per delete (`p_steal`, default 1/8).
    pub p_steal: f64,
    /// Weight divisor for victims on other NUMA nodes (`numa_k`, default 8;
    /// 0 = the thread count; 1 = NUMA-oblivious).
    pub numa_k: u64,
    /// Seed of the random choices (`seed`, default 1).
    pub seed: u64,
}

impl Default for SmqConfig {
    fn default() -> Self {
        SmqConfig { arity: 4, steal: 4, p_steal: 0.125, numa_k: 8, seed: 1 }
    }
}

impl SchedConfig for SmqConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let d = SmqConfig::default();
        Ok(SmqConfig {
            arity: p.take_in_range("d", d.arity as u64, 2, MAX_ARITY as u64)? as usize,
            steal: p.take_in_range("steal", d.steal as u64, 1, MAX_BATCH as u64)? as usize,
            p_steal: p.take_prob("p_steal", d.p_steal)?,
            numa_k: p.take_u64("numa_k", d.numa_k)?,
            seed: p.take_u64("seed", d.seed)?,
        })
    }

    fn to_params(&self) -> String {
        format!(
            "d={},steal={},p_steal={},numa_k={},seed={}",
            self.arity, self.steal, self.p_steal, self.numa_k, self.seed
        )
    }
}

/// Configuration of `smq-skiplist` ([`SmqSkipList`]): the parameters and
/// defaults of [`SmqConfig`] without the heap arity.
#[derive(Clone, Debug, PartialEq)]
pub struct SmqSkipConfig {
    /// Tasks per stealing buffer (`steal`, default 4).
    pub steal: usize,
    /// Probability of a steal attempt per delete (`p_steal`, default 1/8).
    pub p_steal: f64,
    /// Weight divisor for victims on other NUMA nodes (`numa_k`, default 8).
    pub numa_k: u64,
    /// Seed of the random choices (`seed`, default 1).
    pub seed: u64,
}

impl SmqSkipConfig {
    /// The equivalent [`SmqConfig`] (the arity is unused by skip lists).
    pub fn to_smq(&self) -> SmqConfig {
        SmqConfig {
            steal: self.steal,
            p_steal: self.p_steal,
            numa_k: self.numa_k,
            seed: self.seed,
            ..SmqConfig::default()
        }
    }
}

impl Default for SmqSkipConfig {
    fn default() -> Self {
        let d = SmqConfig::default();
        SmqSkipConfig { steal: d.steal, p_steal: d.p_steal, numa_k: d.numa_k, seed: d.seed }
    }
}

impl SchedConfig for SmqSkipConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let d = SmqSkipConfig::default();
        Ok(SmqSkipConfig {
            steal: p.take_in_range("steal", d.steal as u64, 1, MAX_BATCH as u64)? as usize,
            p_steal: p.take_prob("p_steal", d.p_steal)?,
            numa_k: p.take_u64("numa_k", d.numa_k)?,
            seed: p.take_u64("seed", d.seed)?,
        })
    }

    fn to_params(&self) -> String {
        format!("steal={},p_steal={},numa_k={},seed={}", self.steal, self.p_steal, self.numa_k, self.seed)
    }
}

/// The Stealing Multi-Queue with a skip list (`crossbeam-skiplist`) as each
/// thread's local queue instead of the d-ary heap; stealing buffer, spill and
/// parameters are those of `smq`.
pub type SmqSkipList<T> = StealingMultiQueue<T, SkipQueue<T>>;

impl<T: Send> BuildScheduler<T> for SmqSkipList<T> {
    type Config = SmqSkipConfig;

    fn build(threads: usize, cfg: &SmqSkipConfig) -> Self {
        Self::with_topology(Topology::detect_or_warn(threads), &cfg.to_smq())
    }
}

/// The shared part of one thread's queue.
struct SmqQueue<T> {
    buffer: StealBuffer<T>,
    /// Tasks a flush or a dropped handle made public; locked, rarely used.
    spill: Mutex<DaryHeap<T>>,
    /// The spill's size, written under its lock, read without it.
    spill_len: AtomicUsize,
    /// Whether a handle owns this queue (the buffer needs a single filler).
    owned: AtomicBool,
}

/// The Stealing Multi-Queue (module docs), with local queues of type `Q`
/// (a d-ary heap for `smq`, a skip list for `smq-skiplist`).
pub struct StealingMultiQueue<T, Q = HeapQueue<T>> {
    queues: Box<[CachePadded<SmqQueue<T>>]>,
    topology: Topology,
    cfg: SmqConfig,
    k: u64,
    steal_chance: Chance,
    _local: PhantomData<fn() -> Q>,
}

impl<T: Send, Q: LocalQueue<T>> StealingMultiQueue<T, Q> {
    /// A Stealing Multi-Queue for the threads of `topology`.
    pub fn with_topology(topology: Topology, cfg: &SmqConfig) -> Self {
        let queues = (0..topology.threads())
            .map(|_| {
                CachePadded::new(SmqQueue {
                    buffer: StealBuffer::new(cfg.steal),
                    spill: Mutex::new(DaryHeap::new(cfg.arity)),
                    spill_len: AtomicUsize::new(0),
                    owned: AtomicBool::new(false),
                })
            })
            .collect();
        StealingMultiQueue {
            queues,
            k: effective_k(cfg.numa_k, topology.threads()),
            steal_chance: probability_threshold(cfg.p_steal),
            topology,
            cfg: cfg.clone(),
            _local: PhantomData,
        }
    }
}

impl<T: Send> BuildScheduler<T> for StealingMultiQueue<T> {
    type Config = SmqConfig;

    fn build(threads: usize, cfg: &SmqConfig) -> Self {
        Self::with_topology(Topology::detect_or_warn(threads), cfg)
    }
}

impl<T: Send, Q: LocalQueue<T>> Scheduler<T> for StealingMultiQueue<T, Q> {
    type Handle<'s>
        = SmqHandle<'s, T, Q>
    where
        T: 's,
        Q: 's;

    /// # Panics
    /// If `tid` is not below the thread count, or a handle for `tid` is
    /// still live (the stealing buffer must have a single filler).
    fn handle(&self, tid: usize) -> SmqHandle<'_, T, Q> {
        let threads = self.queues.len();
        assert!(tid < threads, "smq: handle({tid}) of a scheduler built for {threads} threads");
        let already = self.queues[tid].owned.swap(true, Ordering::Acquire);
        assert!(!already, "smq: a handle for thread {tid} is already live");
        let queue_socket: Vec<usize> = (0..threads).map(|q| self.topology.socket_of_thread(q)).collect();
        let victims =
            QueueSampler::new(&queue_socket, self.topology.socket_of_thread(tid), self.k, Some(tid));
        SmqHandle {
            sched: self,
            tid,
            heap: Q::with_arity(self.cfg.arity),
            stolen: Vec::new(),
            scratch: Vec::with_capacity(self.cfg.steal),
            rng: FastRng::for_thread(self.cfg.seed, tid),
            victims,
            steals: 0,
            steal_attempts: 0,
            own_buffer_takes: 0,
            spill_takes: 0,
            _not_send: PhantomData,
        }
    }
}

/// A thread's handle on a [`StealingMultiQueue`]: its local heap, its stolen
/// tasks and its random generator.
pub struct SmqHandle<'s, T: Send, Q: LocalQueue<T> = HeapQueue<T>> {
    sched: &'s StealingMultiQueue<T, Q>,
    tid: usize,
    heap: Q,
    /// Stolen tasks not yet returned, most urgent last (Listing 2's stolenTasks).
    stolen: Vec<(Prio, T)>,
    /// Where taken buffers land (reused to avoid allocation).
    scratch: Vec<(Prio, T)>,
    rng: FastRng,
    victims: QueueSampler,
    steals: u64,
    steal_attempts: u64,
    own_buffer_takes: u64,
    spill_takes: u64,
    _not_send: PhantomData<*const ()>,
}

impl<'s, T: Send, Q: LocalQueue<T>> SmqHandle<'s, T, Q> {
    fn own(&self) -> &'s SmqQueue<T> {
        &self.sched.queues[self.tid]
    }

    /// Refills the own buffer from the heap if it was taken.
    fn refill(&mut self) {
        if self.heap.peek_prio().is_none() {
            return;
        }
        let own = self.own();
        let heap = &mut self.heap;
        // SAFETY: this handle is the queue's only owner (`owned` flag taken
        // in `handle`, released in `drop`), hence the buffer's only filler.
        unsafe { own.buffer.fill(|| heap.pop()) };
    }

    /// Returns the first task of `scratch` and keeps the rest as stolen
    /// tasks (most urgent last).
    fn keep_stolen(&mut self) -> Option<(Prio, T)> {
        let mut tasks = self.scratch.drain(..);
        let first = tasks.next();
        self.stolen.extend(tasks.rev());
        first
    }

    /// Steals the buffer of queue `victim` if it is still at `top`.
    fn steal_from(&mut self, victim: usize, top: BufferTop) -> Option<(Prio, T)> {
        self.steal_attempts += 1;
        if !self.sched.queues[victim].buffer.try_take(top.state, &mut self.scratch) {
            return None;
        }
        self.steals += 1;
        self.keep_stolen()
    }

    /// Listing 2's `trySteal`: compare the own best task with a random
    /// victim's buffer top; steal if the victim's is better.
    fn steal_if_better(&mut self) -> Option<(Prio, T)> {
        let victim = self.victims.sample(&mut self.rng);
        let top = self.sched.queues[victim].buffer.top()?;
        let own_buffer = self.own().buffer.top().map(|t| t.prio);
        let local_best = match (self.heap.peek_prio(), own_buffer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if local_best.is_some_and(|l| l <= top.prio) {
            return None;
        }
        self.steal_from(victim, top)
    }

    /// The own best task: the heap top, or the own buffer taken back when
    /// its top is better. The buffer is then refilled with the best `steal`
    /// tasks among the taken-back rest and the heap (what the artifact gets
    /// by pushing the rest back into the heap and refilling, at one heap pop
    /// per task instead of `2·steal - 1` heap operations).
    fn extract_local(&mut self) -> Option<(Prio, T)> {
        if let Some(top) = self.own().buffer.top() {
            if self.heap.peek_prio().is_none_or(|h| top.prio < h)
                && self.own().buffer.try_take(top.state, &mut self.scratch)
            {
                self.own_buffer_takes += 1;
                let first = self.scratch.remove(0);
                let own = self.own();
                let heap = &mut self.heap;
                let mut rest = self.scratch.drain(..).peekable();
                let next = || match (rest.peek(), heap.peek_prio()) {
                    (Some(r), Some(h)) if h < r.0 => heap.pop(),
                    (Some(_), _) => rest.next(),
                    (None, _) => heap.pop(),
                };
                // SAFETY: this handle is the queue's only owner, hence the
                // buffer's only filler (see `refill`).
                unsafe { own.buffer.fill(next) };
                for (p, t) in rest {
                    heap.push(p, t);
                }
                return Some(first);
            }
        }
        let task = self.heap.pop()?;
        self.refill();
        Some(task)
    }

    /// Moves the own spill (filled by an earlier flush) back into the heap.
    fn reclaim_own_spill(&mut self) -> bool {
        let own = self.own();
        probe::read(&own.spill);
        if own.spill_len.load(Ordering::Acquire) == 0 {
            return false;
        }
        probe::write(&own.spill);
        let mut spill = own.spill.lock().unwrap_or_else(|e| e.into_inner());
        let mut moved = false;
        while let Some((p, t)) = spill.pop() {
            self.heap.push(p, t);
            moved = true;
        }
        own.spill_len.store(0, Ordering::Release);
        moved
    }

    /// The last resort: every other queue's buffer and spill, from a random
    /// start.
    fn steal_anywhere(&mut self) -> Option<(Prio, T)> {
        let sched = self.sched;
        let n = sched.queues.len();
        let start = self.rng.below(n);
        for k in 0..n {
            let victim = (start + k) % n;
            if victim == self.tid {
                continue;
            }
            let q = &sched.queues[victim];
            if let Some(top) = q.buffer.top() {
                if let Some(task) = self.steal_from(victim, top) {
                    return Some(task);
                }
            }
            probe::read(&q.spill);
            if q.spill_len.load(Ordering::Acquire) > 0 {
                probe::write(&q.spill);
                let mut spill = q.spill.lock().unwrap_or_else(|e| e.into_inner());
                for _ in 0..sched.cfg.steal {
                    match spill.pop() {
                        Some(e) => self.scratch.push(e),
                        None => break,
                    }
                }
                q.spill_len.store(spill.len(), Ordering::Release);
                drop(spill);
                if !self.scratch.is_empty() {
                    self.spill_takes += 1;
                    return self.keep_stolen();
                }
            }
        }
        None
    }

    /// Moves the heap and `extra` into the own spill, making them public.
    fn spill(&mut self, extra: Vec<(Prio, T)>) {
        if self.heap.peek_prio().is_none() && extra.is_empty() {
            return;
        }
        let own = self.own();
        probe::write(&own.spill);
        let mut spill = own.spill.lock().unwrap_or_else(|e| e.into_inner());
        while let Some((p, t)) = self.heap.pop() {
            spill.push(p, t);
        }
        for (p, t) in extra {
            spill.push(p, t);
        }
        own.spill_len.store(spill.len(), Ordering::Release);
    }
}

impl<T: Send, Q: LocalQueue<T>> Handle<T> for SmqHandle<'_, T, Q> {
    fn push(&mut self, prio: Prio, task: T) {
        self.heap.push(prio, task);
        if self.own().buffer.is_empty() {
            self.refill();
        }
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        if let Some(task) = self.stolen.pop() {
            if self.own().buffer.is_empty() {
                self.refill();
            }
            return Some(task);
        }
        if self.victims.len() > 0 && self.rng.hit(self.sched.steal_chance) {
            if let Some(task) = self.steal_if_better() {
                return Some(task);
            }
        }
        if let Some(task) = self.extract_local() {
            return Some(task);
        }
        if self.reclaim_own_spill() {
            if let Some(task) = self.extract_local() {
                return Some(task);
            }
        }
        self.steal_anywhere()
    }

    fn flush(&mut self) {
        self.spill(Vec::new());
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("steals", self.steals),
            ("steal_attempts", self.steal_attempts),
            ("own_buffer_takes", self.own_buffer_takes),
            ("spill_takes", self.spill_takes),
        ]
    }

    fn private_tasks(&self) -> PrivateTasks {
        PrivateTasks { unpublished: self.heap.len(), claimed: self.stolen.len() }
    }
}

impl<T: Send, Q: LocalQueue<T>> Drop for SmqHandle<'_, T, Q> {
    /// Nothing private is lost: the heap and stolen tasks are spilled; the
    /// buffer stays public. Then the queue's ownership is released.
    fn drop(&mut self) {
        let stolen = std::mem::take(&mut self.stolen);
        self.spill(stolen);
        self.own().owned.store(false, Ordering::Release);
    }
}
