//! `mq`: the classic Multi-Queue (stealing-multiqueue-2021 §2.1, Listing 1)
//! and its optimisations (§2.1 "Task Batching" and "Temporal Locality",
//! Appendix C; NUMA-aware sampling, §4 "NUMA-Awareness" and Appendix E).
//!
//! `C·T` sequential d-ary heaps, each behind its own lock, each with a
//! cached copy of its top priority that anyone may read without the lock.
//! - insert: lock a random queue (re-pick on a failed try-lock) and push.
//! - delete: pick two distinct random queues, compare their cached tops,
//!   try-lock the better one and pop its top (re-pick on a failed try-lock).
//!
//! Optimisations, all off by default (their value 1 means "classic"):
//! - `insert_batch=B`: pushes collect in a private buffer of `B` tasks that
//!   goes into one queue under one lock acquisition when full (or on flush).
//! - `delete_batch=B`: a successful delete takes up to `B` tasks from the
//!   chosen queue into a private buffer that later pops serve first.
//! - `insert_stickiness=S` / `delete_stickiness=S`: temporal locality. The
//!   thread keeps using the same queue and switches with probability `1/S`
//!   per operation (so for `S` operations on average). A sticky delete pops
//!   from its queue without comparing with another one, as in the artifact
//!   (its "Prob" pop); the switch (or a failure)
//!   does a two-choice delete whose queue becomes the new sticky one.
//! - `numa_k=K`: a queue of another NUMA node is sampled with weight `1/K`
//!   relative to the thread's own node's queues (§4). Queues belong to the
//!   node of the thread they are laid out for (`C` per thread). `numa_k=0`
//!   (default) means "grow K linearly with the thread count" (K = T, §4),
//!   `numa_k=1` is NUMA-oblivious. One socket makes every queue local.
//!
//! A delete makes 4 two-choice attempts (the artifact's ATTEMPTS = 4); a pair
//! whose tops are both empty counts as a failed attempt. After that it takes
//! the best task of its own insert buffer, and finally scans every queue with
//! a blocking lock, so a `pop` that runs while no other thread operates finds
//! any task (the `Handle` contract).
//!
//! Each locked queue is one structure for the [`crate::probe`]: reading its
//! cached top reads it, a lock attempt writes it. A handle's private tasks
//! are its insert buffer (unpublished) and delete buffer (claimed).
//!
//! The cached top encodes "empty" as `u64::MAX`; a task of priority
//! `u64::MAX` is cached as `u64::MAX - 1`, so a non-empty queue never looks
//! empty. The cache is only a hint:
//! every removal re-checks the heap under its lock.

use std::marker::PhantomData;
use std::sync::TryLockError;

use crossbeam_utils::CachePadded;

use crate::dary_heap::{DaryHeap, MAX_ARITY};
use crate::rng::{probability_threshold, Chance, FastRng};
use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::{AtomicU64, Mutex, MutexGuard, Ordering};
use crate::topology::Topology;
use crate::{probe, Handle, Prio, PrivateTasks, Scheduler};

/// The cached top of an empty queue.
pub(crate) const EMPTY_TOP: u64 = u64::MAX;

/// Two-choice attempts per delete before falling back (the artifact's ATTEMPTS).
const DELETE_ATTEMPTS: usize = 4;

/// Failed try-locks tolerated per delete before falling back to the scan.
const MAX_LOCK_FAILURES: usize = 64;

/// The largest batch size accepted.
pub(crate) const MAX_BATCH: usize = 1 << 16;

/// Configuration of [`MultiQueue`]; see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub struct MqConfig {
    /// Queues per thread (`c`, default 4; the paper's Tables 2–3 use C = 4).
    pub c: usize,
    /// Heap arity (`d`, default 8, as in the artifact's classic MQ).
    pub arity: usize,
    /// Private insert buffer size (`insert_batch`, default 1 = no batching).
    pub insert_batch: usize,
    /// Tasks taken per delete (`delete_batch`, default 1 = no batching).
    pub delete_batch: usize,
    /// Expected inserts into one queue before switching
    /// (`insert_stickiness`, default 1 = a fresh random queue every time).
    pub insert_stickiness: u64,
    /// Expected deletes from one queue before a two-choice re-pick
    /// (`delete_stickiness`, default 1 = classic two-choice every time).
    pub delete_stickiness: u64,
    /// Weight divisor for queues of other NUMA nodes (`numa_k`, default 0 =
    /// the thread count, as §4 prescribes; 1 = NUMA-oblivious).
    pub numa_k: u64,
    /// Seed of the random queue choices (`seed`, default 1).
    pub seed: u64,
}

impl Default for MqConfig {
    fn default() -> Self {
        MqConfig {
            c: 4,
            arity: 8,
            insert_batch: 1,
            delete_batch: 1,
            insert_stickiness: 1,
            delete_stickiness: 1,
            numa_k: 0,
            seed: 1,
        }
    }
}

impl SchedConfig for MqConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let d = MqConfig::default();
        let batch = MAX_BATCH as u64;
        Ok(MqConfig {
            c: p.take_in_range("c", d.c as u64, 1, 1024)? as usize,
            arity: p.take_in_range("d", d.arity as u64, 2, MAX_ARITY as u64)? as usize,
            insert_batch: p.take_in_range("insert_batch", 1, 1, batch)? as usize,
            delete_batch: p.take_in_range("delete_batch", 1, 1, batch)? as usize,
            insert_stickiness: p.take_in_range("insert_stickiness", 1, 1, u64::MAX)?,
            delete_stickiness: p.take_in_range("delete_stickiness", 1, 1, u64::MAX)?,
            numa_k: p.take_u64("numa_k", 0)?,
            seed: p.take_u64("seed", d.seed)?,
        })
    }

    fn to_params(&self) -> String {
        format!(
            "c={},d={},insert_batch={},delete_batch={},insert_stickiness={},delete_stickiness={},\
             numa_k={},seed={}",
            self.c,
            self.arity,
            self.insert_batch,
            self.delete_batch,
            self.insert_stickiness,
            self.delete_stickiness,
            self.numa_k,
            self.seed
        )
    }
}

/// The cached-top value of a heap.
#[inline]
pub(crate) fn top_hint<T>(heap: &DaryHeap<T>) -> u64 {
    heap.peek_prio().map_or(EMPTY_TOP, |p| p.min(EMPTY_TOP - 1))
}

/// One sequential heap behind a lock, with its top priority cached in an
/// atomic that is written only under the lock and read without it.
pub(crate) struct LockedQueue<T> {
    top: AtomicU64,
    heap: Mutex<DaryHeap<T>>,
}

/// A locked [`LockedQueue`]: refreshes the cached top when released.
pub(crate) struct QueueGuard<'a, T> {
    queue: &'a LockedQueue<T>,
    heap: MutexGuard<'a, DaryHeap<T>>,
}

impl<T> QueueGuard<'_, T> {
    /// The locked heap.
    pub(crate) fn heap(&mut self) -> &mut DaryHeap<T> {
        &mut self.heap
    }
}

impl<T> Drop for QueueGuard<'_, T> {
    fn drop(&mut self) {
        // Written before the unlock, so the next lock holder and every
        // reader that synchronises with the unlock see it.
        self.queue.top.store(top_hint(&self.heap), Ordering::Release);
    }
}

impl<T> LockedQueue<T> {
    /// An empty queue whose heap has `arity` children per node.
    pub(crate) fn new(arity: usize) -> Self {
        LockedQueue { top: AtomicU64::new(EMPTY_TOP), heap: Mutex::new(DaryHeap::new(arity)) }
    }

    /// The cached top priority ([`EMPTY_TOP`] when empty); may be stale.
    #[inline]
    pub(crate) fn top(&self) -> u64 {
        probe::read(self);
        self.top.load(Ordering::Acquire)
    }

    /// Locks the queue if nobody holds it.
    #[inline]
    pub(crate) fn try_lock(&self) -> Option<QueueGuard<'_, T>> {
        probe::write(self);
        let heap = match self.heap.try_lock() {
            Ok(heap) => heap,
            // A poisoned heap is still valid (see `lock`); never treat it as busy forever.
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        Some(QueueGuard { queue: self, heap })
    }

    /// Locks the queue, waiting if needed. A poisoned lock (a panic while a
    /// task was being pushed) still holds a valid heap, so it is used as is.
    pub(crate) fn lock(&self) -> QueueGuard<'_, T> {
        probe::write(self);
        let heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        QueueGuard { queue: self, heap }
    }
}

/// Draws queue indices for one thread: queues of the thread's own NUMA node
/// have weight 1, the others weight `1/K` (stealing-multiqueue-2021 §4).
#[derive(Clone, Debug)]
pub(crate) struct QueueSampler {
    local: Vec<usize>,
    remote: Vec<usize>,
    /// `local.len() * K`, compared with a draw in `0..local_weight + remote.len()`.
    local_weight: u64,
}

impl QueueSampler {
    /// A sampler over the queues `0..queue_socket.len()` except `exclude`,
    /// where queue `q` lives on node `queue_socket[q]`, for a thread on node
    /// `socket`; `k >= 1`.
    pub(crate) fn new(queue_socket: &[usize], socket: usize, k: u64, exclude: Option<usize>) -> Self {
        let (mut local, mut remote) = (Vec::new(), Vec::new());
        for (q, &s) in queue_socket.iter().enumerate() {
            if Some(q) == exclude {
                continue;
            }
            if s == socket {
                local.push(q);
            } else {
                remote.push(q);
            }
        }
        let local_weight = (local.len() as u64).saturating_mul(k.max(1));
        QueueSampler { local, remote, local_weight }
    }

    /// How many queues may be drawn.
    pub(crate) fn len(&self) -> usize {
        self.local.len() + self.remote.len()
    }

    /// Draws a queue; the sampler must not be empty.
    #[inline]
    pub(crate) fn sample(&self, rng: &mut FastRng) -> usize {
        if self.remote.is_empty() {
            return self.local[rng.below(self.local.len())];
        }
        if self.local.is_empty() {
            return self.remote[rng.below(self.remote.len())];
        }
        let total = self.local_weight.saturating_add(self.remote.len() as u64);
        let r = ((u128::from(rng.next_u64()) * u128::from(total)) >> 64) as u64;
        if r < self.local_weight {
            self.local[rng.below(self.local.len())]
        } else {
            self.remote[rng.below(self.remote.len())]
        }
    }

    /// Draws a queue different from `first` (when there are two or more);
    /// after a few weighted draws it falls back to a uniform distinct one.
    #[inline]
    pub(crate) fn sample_other(&self, rng: &mut FastRng, first: usize) -> usize {
        for _ in 0..8 {
            let q = self.sample(rng);
            if q != first {
                return q;
            }
        }
        let all = self.len();
        let pos = self.local.iter().chain(&self.remote).position(|&q| q == first);
        match pos {
            Some(p) if all > 1 => {
                let i = (p + 1 + rng.below(all - 1)) % all;
                *self.local.iter().chain(&self.remote).nth(i).unwrap_or(&first)
            }
            _ => self.sample(rng),
        }
    }
}

/// The NUMA weight K for `threads` threads: `k`, or the thread count when
/// `k == 0` (K growing linearly with T, stealing-multiqueue-2021 §4).
pub(crate) fn effective_k(k: u64, threads: usize) -> u64 {
    if k == 0 {
        threads.max(1) as u64
    } else {
        k
    }
}

/// The classic Multi-Queue and its optimised variants (module docs).
pub struct MultiQueue<T> {
    queues: Box<[CachePadded<LockedQueue<T>>]>,
    /// The NUMA node of each queue.
    queue_socket: Vec<usize>,
    topology: Topology,
    cfg: MqConfig,
    k: u64,
}

impl<T: Send> MultiQueue<T> {
    /// A Multi-Queue for the threads of `topology`.
    pub fn with_topology(topology: Topology, cfg: &MqConfig) -> Self {
        let threads = topology.threads();
        let c = cfg.c.max(1);
        let n = threads * c;
        let queues = (0..n).map(|_| CachePadded::new(LockedQueue::new(cfg.arity))).collect();
        let queue_socket = (0..n).map(|q| topology.socket_of_thread(q / c)).collect();
        MultiQueue { queues, queue_socket, k: effective_k(cfg.numa_k, threads), topology, cfg: cfg.clone() }
    }

    /// The number of queues (`C·T`).
    pub fn num_queues(&self) -> usize {
        self.queues.len()
    }
}

impl<T: Send> BuildScheduler<T> for MultiQueue<T> {
    type Config = MqConfig;

    fn build(threads: usize, cfg: &MqConfig) -> Self {
        Self::with_topology(Topology::detect_or_warn(threads), cfg)
    }
}

impl<T: Send> Scheduler<T> for MultiQueue<T> {
    type Handle<'s>
        = MqHandle<'s, T>
    where
        T: 's;

    fn handle(&self, tid: usize) -> MqHandle<'_, T> {
        let sampler =
            QueueSampler::new(&self.queue_socket, self.topology.socket_of_thread(tid), self.k, None);
        let mut rng = FastRng::for_thread(self.cfg.seed, tid);
        let first = sampler.sample(&mut rng);
        MqHandle {
            sched: self,
            rng,
            insert_switch: probability_threshold(1.0 / self.cfg.insert_stickiness as f64),
            delete_switch: probability_threshold(1.0 / self.cfg.delete_stickiness as f64),
            sampler,
            insert_buffer: Vec::new(),
            delete_buffer: Vec::new(),
            insert_queue: first,
            delete_queue: None,
            lock_failures: 0,
            empty_attempts: 0,
            sticky_pops: 0,
            scans: 0,
            _not_send: PhantomData,
        }
    }
}

/// A thread's handle on a [`MultiQueue`]: its random generator, sticky
/// queues and batch buffers.
pub struct MqHandle<'s, T: Send> {
    sched: &'s MultiQueue<T>,
    rng: FastRng,
    sampler: QueueSampler,
    insert_switch: Chance,
    delete_switch: Chance,
    /// Private pushes not yet in a queue (insert batching).
    insert_buffer: Vec<(Prio, T)>,
    /// Tasks taken by a batched delete, most urgent last.
    delete_buffer: Vec<(Prio, T)>,
    insert_queue: usize,
    delete_queue: Option<usize>,
    lock_failures: u64,
    empty_attempts: u64,
    sticky_pops: u64,
    scans: u64,
    _not_send: PhantomData<*const ()>,
}

impl<'s, T: Send> MqHandle<'s, T> {
    /// Locks the queue for the next insertion: the sticky queue, switched
    /// with probability `1/insert_stickiness`, re-drawn on a failed try-lock.
    fn lock_insert_queue(&mut self) -> QueueGuard<'s, T> {
        let sched = self.sched;
        let queues = &sched.queues;
        if self.rng.hit(self.insert_switch) {
            self.insert_queue = self.sampler.sample(&mut self.rng);
        }
        loop {
            if let Some(g) = queues[self.insert_queue].try_lock() {
                return g;
            }
            self.lock_failures += 1;
            self.insert_queue = self.sampler.sample(&mut self.rng);
        }
    }

    /// Moves the private insert buffer into one queue.
    fn flush_inserts(&mut self) {
        if self.insert_buffer.is_empty() {
            return;
        }
        let mut g = self.lock_insert_queue();
        for (p, t) in self.insert_buffer.drain(..) {
            g.heap().push(p, t);
        }
    }

    /// Pops the top of a locked queue, plus up to `delete_batch - 1` more
    /// tasks into the delete buffer. `None` if the heap is empty.
    fn take_from(&mut self, mut g: QueueGuard<'_, T>) -> Option<(Prio, T)> {
        let first = g.heap().pop()?;
        let extra = self.sched.cfg.delete_batch - 1;
        if extra > 0 {
            debug_assert!(self.delete_buffer.is_empty());
            for _ in 0..extra {
                match g.heap().pop() {
                    Some(e) => self.delete_buffer.push(e),
                    None => break,
                }
            }
            drop(g);
            self.delete_buffer.reverse();
        }
        Some(first)
    }

    /// The sticky delete: pop from the last queue without comparing.
    fn sticky_pop(&mut self) -> Option<(Prio, T)> {
        let q = self.delete_queue?;
        if self.rng.hit(self.delete_switch) {
            return None;
        }
        let g = self.sched.queues[q].try_lock()?;
        let got = self.take_from(g);
        self.sticky_pops += u64::from(got.is_some());
        got
    }

    /// Up to [`DELETE_ATTEMPTS`] two-choice deletes.
    fn two_choice_pop(&mut self) -> Option<(Prio, T)> {
        let sched = self.sched;
        let queues = &sched.queues;
        let mut attempts = 0;
        let mut lock_failures = 0;
        while attempts < DELETE_ATTEMPTS {
            let i = self.sampler.sample(&mut self.rng);
            let j = self.sampler.sample_other(&mut self.rng, i);
            let (ti, tj) = (queues[i].top(), queues[j].top());
            let q = if tj < ti { j } else { i };
            if ti.min(tj) == EMPTY_TOP {
                attempts += 1;
                self.empty_attempts += 1;
                continue;
            }
            let Some(g) = queues[q].try_lock() else {
                self.lock_failures += 1;
                lock_failures += 1;
                if lock_failures >= MAX_LOCK_FAILURES {
                    return None;
                }
                continue;
            };
            match self.take_from(g) {
                Some(task) => {
                    self.delete_queue = Some(q);
                    return Some(task);
                }
                None => {
                    attempts += 1;
                    self.empty_attempts += 1;
                }
            }
        }
        None
    }

    /// The best task of the private insert buffer.
    fn pop_insert_buffer(&mut self) -> Option<(Prio, T)> {
        let best = (0..self.insert_buffer.len()).min_by_key(|&i| self.insert_buffer[i].0)?;
        Some(self.insert_buffer.swap_remove(best))
    }

    /// Visits every queue (from a random start) with a blocking lock.
    fn scan_pop(&mut self) -> Option<(Prio, T)> {
        self.scans += 1;
        let sched = self.sched;
        let queues = &sched.queues;
        let n = queues.len();
        let start = self.rng.below(n);
        for k in 0..n {
            let q = (start + k) % n;
            if queues[q].top() == EMPTY_TOP {
                continue;
            }
            if let Some(task) = self.take_from(queues[q].lock()) {
                self.delete_queue = Some(q);
                return Some(task);
            }
        }
        None
    }
}

impl<T: Send> Handle<T> for MqHandle<'_, T> {
    fn push(&mut self, prio: Prio, task: T) {
        if self.sched.cfg.insert_batch > 1 {
            self.insert_buffer.push((prio, task));
            if self.insert_buffer.len() >= self.sched.cfg.insert_batch {
                self.flush_inserts();
            }
        } else {
            self.lock_insert_queue().heap().push(prio, task);
        }
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        if let Some(task) = self.delete_buffer.pop() {
            return Some(task);
        }
        if let Some(task) = self.sticky_pop() {
            return Some(task);
        }
        if let Some(task) = self.two_choice_pop() {
            return Some(task);
        }
        if let Some(task) = self.pop_insert_buffer() {
            return Some(task);
        }
        self.scan_pop()
    }

    fn flush(&mut self) {
        self.flush_inserts();
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("lock_failures", self.lock_failures),
            ("empty_attempts", self.empty_attempts),
            ("sticky_pops", self.sticky_pops),
            ("scans", self.scans),
        ]
    }

    fn private_tasks(&self) -> PrivateTasks {
        PrivateTasks { unpublished: self.insert_buffer.len(), claimed: self.delete_buffer.len() }
    }
}

impl<T: Send> Drop for MqHandle<'_, T> {
    /// Nothing private is lost: buffered tasks go back into the queues.
    fn drop(&mut self) {
        self.insert_buffer.append(&mut self.delete_buffer);
        self.flush_inserts();
    }
}

#[cfg(all(test, not(loom)))]
mod test;
