//! The machinery shared by `obim` and `pmod`: one bag per priority key,
//! found through a per-thread cached copy of a global, append-only log of
//! bags (PMOD paper §2.2; Galois `OrderedByIntegerMetric`).
//!
//! # Structure
//! - **Global log** (`Ordered::log`): every bag ever created, in creation
//!   order, with its key. It only grows; bags live until the scheduler is
//!   dropped. `Ordered::version` (the log length) lets a thread notice new
//!   bags without locking. Galois reads its log without a lock; here the log
//!   is a `Mutex<Vec<_>>` that a thread locks only to create a bag or to
//!   replay entries it has not seen (a *miss*): lookups of known bags never
//!   touch it.
//! - **Local map** (per handle): `key -> log index`, ordered by key, replayed
//!   from the log by version. The handle's `slots[log index]` hold the bag and
//!   this thread's private push chunk for it.
//! - **Current bag**: a thread keeps popping from the bag it found until that
//!   bag is empty (its pop chunk, then the bag's shared chunks, then its own
//!   unpublished push chunk), then scans its local map in key order from the
//!   back-scan bound (a *slow pop*, PMOD's synchronising dequeue). A push to a
//!   more urgent key switches the current bag to it at once.
//! - **Back-scan prevention** (BSP, as in Galois): each
//!   thread's `scanStart` is a lower bound of the keys where it may have left
//!   work; it is lowered by pushes and raised to the bag where a slow pop
//!   succeeds. A socket leader scans from the minimum over all threads, any
//!   other thread from the minimum of its own and its leader's bound.
//!   Departure from Galois, which leaves `scanStart` alone when a slow pop
//!   fails: here a failed slow pop sets it to "no work" (above every key),
//!   and a thread starts with "no work". Otherwise an idle thread's old bound
//!   holds every leader's scan down at it, and with many small bags (obim at
//!   `delta=0` on road graphs) each slow pop rescans thousands of empty bags:
//!   SSSP on a 1500-vertex road graph took minutes on two threads.
//!
//! # The handle contract
//! Galois' hierarchical bound can skip a bag another (non-leader) thread
//! published below the scanning thread's bound. To keep [`crate::Handle`]'s
//! promise that `pop` fails only if no task is visible, a failed scan is
//! retried once from the minimum bound over *all* threads. Every task lies at
//! a key at or above some thread's bound: a thread's pushes lower its own
//! bound to the task's key, and a thread raises its bound past a key only
//! after finding that bag empty (own private chunks included) or after
//! taking its chunk into its own pop chunk at the current bag, whose key is
//! never below the bound. A failed slow pop scanned everything from its own
//! bound on, so the thread holds no task and "no work" is a valid bound. So
//! the retried scan sees every published task.
//! The bounds are read with relaxed loads: under concurrency a stale value only
//! costs quality; with no other thread operating, the synchronisation that
//! established quiescence makes the final values visible.
//!
//! # Probes and private tasks (for the simulator)
//! Shared structures for [`crate::probe`]: the global log with its version
//! (one structure), each thread's back-scan bound, and each bag's socket
//! queues (probed in `crate::bag`). A handle's private tasks
//! ([`Handle::private_tasks`]) are its unpublished push chunks (counted as
//! they change: a sum over the dirty slots would not be O(1)) and its pop
//! chunk (claimed; an own push chunk taken by a pop becomes claimed).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use crate::bag::{Bag, ChunkOrder};
use crate::chunk::{Chunk, ChunkPool};
use crate::spec::{BuildScheduler, SchedConfig};
use crate::sync::{AtomicUsize, Mutex, MutexGuard, Ordering};
use crate::topology::Topology;
use crate::{probe, Handle, Prio, PrivateTasks, SchedReport, Scheduler};

/// `scanStart` value meaning "this thread left no work anywhere": the bound
/// lies above every key. Any other value is a log index.
const NO_WORK: usize = usize::MAX;

/// A back-scan bound as a position in key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bound<K> {
    /// Below every key: scan everything.
    Earliest,
    /// From this key on.
    At(K),
    /// Above every key: nothing to scan.
    Latest,
}

/// What distinguishes `obim` from `pmod`: how a priority maps to a bag key,
/// and hooks on every event (PMOD counts them to adapt its merging factor).
/// Hooks default to nothing and cost nothing for `obim`.
pub trait Policy: Send + Sync + Sized {
    /// The bag key; bags are visited in increasing key order.
    type Key: Ord + Copy + Send + Sync + fmt::Debug;
    /// The policy's per-thread state, kept in the handle.
    type Local: Default;
    /// The policy's configuration, parsed from a spec.
    type Config: SchedConfig;

    /// The policy for `threads` threads.
    fn new(threads: usize, cfg: &Self::Config) -> Self;
    /// Tasks per chunk.
    fn chunk(cfg: &Self::Config) -> usize;
    /// The bag key of a task of priority `prio`.
    fn key(&self, prio: Prio) -> Self::Key;

    /// A task of priority `prio` is being pushed into the bag of `key`;
    /// `switched` says the push moved the thread to a more urgent bag.
    #[inline]
    fn on_push(&self, _tid: usize, _local: &mut Self::Local, _prio: Prio, _key: Self::Key, _switched: bool) {}
    /// A pop starts (PMOD's nDeqs).
    #[inline]
    fn on_pop_start(&self, _tid: usize, _local: &mut Self::Local) {}
    /// A pop found its current bag empty and goes to the map (PMOD's
    /// synchronising dequeue).
    #[inline]
    fn on_sync_pop(&self, _tid: usize, _local: &mut Self::Local) {}
    /// A pop returned a task from the bag of `key`; `same_bag` says it came
    /// from the current bag without a slow pop.
    #[inline]
    fn on_popped(&self, _tid: usize, _local: &mut Self::Local, _key: Self::Key, _same_bag: bool) {}
    /// Adds the policy's global counters and traces.
    fn report(&self, _out: &mut SchedReport) {}
}

/// The global log: every bag with its key, in creation order.
type Log<K, T> = Vec<(K, Arc<Bag<T>>)>;

/// A bag per priority key with a global log and per-thread cached maps.
/// Use the aliases [`crate::obim::Obim`] and [`crate::pmod::Pmod`].
pub struct Ordered<T, P: Policy> {
    pub(crate) policy: P,
    topology: Topology,
    chunk: usize,
    /// Every bag ever created, in creation order (the "global map").
    log: Mutex<Log<P::Key, T>>,
    /// `log.len()`, readable without the lock.
    version: AtomicUsize,
    /// Each thread's back-scan bound: a log index, or `NO_WORK`.
    scan_start: Box<[CachePadded<AtomicUsize>]>,
}

impl<T: Send, P: Policy> Ordered<T, P> {
    /// A scheduler for the threads of `topology`.
    pub fn with_topology(topology: Topology, cfg: &P::Config) -> Self {
        let threads = topology.threads();
        Ordered {
            policy: P::new(threads, cfg),
            chunk: P::chunk(cfg),
            log: Mutex::new(Vec::new()),
            version: AtomicUsize::new(0),
            scan_start: (0..threads).map(|_| CachePadded::new(AtomicUsize::new(NO_WORK))).collect(),
            topology,
        }
    }

    fn lock_log(&self) -> MutexGuard<'_, Log<P::Key, T>> {
        match self.log.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Number of bags created so far.
    pub fn bags_created(&self) -> usize {
        self.version.load(Ordering::Acquire)
    }
}

impl<T: Send, P: Policy> BuildScheduler<T> for Ordered<T, P> {
    type Config = P::Config;

    fn build(threads: usize, cfg: &P::Config) -> Self {
        Self::with_topology(Topology::detect_or_warn(threads), cfg)
    }
}

impl<T: Send, P: Policy> Scheduler<T> for Ordered<T, P> {
    type Handle<'s>
        = OrderedHandle<'s, T, P>
    where
        Self: 's;

    fn handle(&self, tid: usize) -> OrderedHandle<'_, T, P> {
        // Two live handles must not share a `tid` (the trait's contract): they
        // would share one back-scan bound.
        debug_assert!(tid < self.scan_start.len(), "tid {tid} >= {} threads", self.scan_start.len());
        let tid = tid.min(self.scan_start.len() - 1);
        // A previous handle of this thread may have published work: keep its
        // bound (initially `NO_WORK`).
        let scan_start = self.scan_start[tid].load(Ordering::Relaxed);
        let leader = self.topology.leader_of_thread(tid);
        OrderedHandle {
            sched: self,
            tid,
            socket: self.topology.socket_of_thread(tid),
            leader,
            slots: Vec::new(),
            map: BTreeMap::new(),
            current: None,
            pop_chunk: None,
            scan_start,
            dirty: Vec::new(),
            pool: ChunkPool::new(self.chunk),
            local: P::Local::default(),
            stats: Stats::default(),
            unpublished: 0,
            _not_send: PhantomData,
        }
    }

    fn report(&self) -> SchedReport {
        let mut out = SchedReport::default();
        out.counters.push(("bags_created", self.bags_created() as u64));
        self.policy.report(&mut out);
        out
    }
}

/// A thread's view of one bag: the bag and this thread's private push chunk.
struct Slot<K, T> {
    key: K,
    bag: Arc<Bag<T>>,
    push: Option<Chunk<T>>,
    /// Whether this slot is listed in `OrderedHandle::dirty`.
    in_dirty: bool,
}

#[derive(Default, Clone, Copy)]
struct Stats {
    chunks_published: u64,
    chunks_taken: u64,
    steals: u64,
    slow_pops: u64,
    own_chunk_pops: u64,
    bags_created: u64,
    local_map_refreshes: u64,
    bsp_rescans: u64,
    bags_scanned: u64,
}

/// A thread's handle on an [`Ordered`] scheduler.
pub struct OrderedHandle<'s, T, P: Policy> {
    sched: &'s Ordered<T, P>,
    tid: usize,
    socket: usize,
    leader: usize,
    /// Indexed by log index: every bag this thread knows of.
    slots: Vec<Slot<P::Key, T>>,
    /// The local map: key -> log index.
    map: BTreeMap<P::Key, usize>,
    /// The bag being worked on: (log index, key).
    current: Option<(usize, P::Key)>,
    /// The chunk being popped; belongs to the current bag.
    pop_chunk: Option<Chunk<T>>,
    /// Own back-scan bound (mirrored in `Ordered::scan_start[tid]`).
    scan_start: usize,
    /// Slots that may hold a private push chunk (each listed once).
    dirty: Vec<usize>,
    pool: ChunkPool<T>,
    local: P::Local,
    stats: Stats,
    /// Tasks in this handle's push chunks (unpublished), kept up to date so
    /// that [`Handle::private_tasks`] is O(1).
    unpublished: usize,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send, P: Policy> OrderedHandle<'_, T, P> {
    /// Appends log entries `slots.len()..` to the local map. `log` is held.
    fn replay_from(&mut self, log: &[(P::Key, Arc<Bag<T>>)]) {
        let fresh = log.get(self.slots.len()..).map(<[_]>::to_vec).unwrap_or_default();
        self.replay_from_copy(fresh);
    }

    /// Replays the global log into the local map if it has grown.
    /// The new entries are copied out under the lock and inserted into the
    /// local map after releasing it, so bag creators wait only for the copy.
    fn refresh(&mut self) {
        probe::read(&self.sched.log);
        if self.sched.version.load(Ordering::Acquire) != self.slots.len() {
            probe::write(&self.sched.log);
            let fresh = self.sched.lock_log().get(self.slots.len()..).map(<[_]>::to_vec).unwrap_or_default();
            self.replay_from_copy(fresh);
        }
    }

    /// Appends copied log entries that follow `slots.len()` to the local map.
    fn replay_from_copy(&mut self, fresh: Log<P::Key, T>) {
        if fresh.is_empty() {
            return;
        }
        self.stats.local_map_refreshes += 1;
        for (key, bag) in fresh {
            let idx = self.slots.len();
            self.slots.push(Slot { key, bag, push: None, in_dirty: false });
            self.map.insert(key, idx);
        }
    }

    /// The log index of the bag for `key`, creating the bag if needed.
    fn lookup_or_create(&mut self, key: P::Key) -> usize {
        if let Some(&i) = self.map.get(&key) {
            return i;
        }
        self.refresh();
        if let Some(&i) = self.map.get(&key) {
            return i;
        }
        let sched = self.sched;
        probe::write(&sched.log);
        let mut log = sched.lock_log();
        self.replay_from(&log);
        if let Some(&i) = self.map.get(&key) {
            return i;
        }
        let bag = Arc::new(Bag::new(sched.topology.num_sockets(), ChunkOrder::Fifo));
        log.push((key, Arc::clone(&bag)));
        sched.version.store(log.len(), Ordering::Release);
        drop(log);
        let idx = self.slots.len();
        self.slots.push(Slot { key, bag, push: None, in_dirty: false });
        self.map.insert(key, idx);
        self.stats.bags_created += 1;
        idx
    }

    fn set_scan_start(&mut self, idx: usize) {
        self.scan_start = idx;
        probe::write(&*self.sched.scan_start[self.tid]);
        self.sched.scan_start[self.tid].store(idx, Ordering::Relaxed);
    }

    /// Makes `idx` the current bag. A non-empty pop chunk of the previous
    /// bag goes back to that bag, so no task stays private to a bag this
    /// thread is no longer working on.
    fn switch_to(&mut self, idx: usize, key: P::Key) {
        if let Some(c) = self.pop_chunk.take() {
            match self.current {
                Some((old, _)) if !c.is_empty() => {
                    self.slots[old].bag.push_chunk(self.socket, c);
                    self.stats.chunks_published += 1;
                }
                _ => self.pool.put(c),
            }
        }
        self.current = Some((idx, key));
    }

    /// The bound a `scanStart` value stands for. An index not yet in the
    /// local map (impossible after a refresh, see the module docs) counts as
    /// `Earliest`, which is conservative.
    fn bound(&self, idx: usize) -> Bound<P::Key> {
        match idx {
            NO_WORK => Bound::Latest,
            _ => self.slots.get(idx).map_or(Bound::Earliest, |s| Bound::At(s.key)),
        }
    }

    /// The minimum bound over all threads.
    fn global_bound(&self) -> Bound<P::Key> {
        let rec = probe::recording();
        let others = self.sched.scan_start.iter().enumerate().filter(|&(t, _)| t != self.tid);
        others
            .map(|(_, s)| {
                if rec {
                    probe::read(&**s);
                }
                self.bound(s.load(Ordering::Relaxed))
            })
            .fold(self.bound(self.scan_start), Bound::min)
    }

    /// Where a slow pop starts scanning (Galois' hierarchical BSP).
    fn scan_bound(&self) -> Bound<P::Key> {
        if self.leader == self.tid {
            self.global_bound()
        } else {
            probe::read(&*self.sched.scan_start[self.leader]);
            let leader = self.sched.scan_start[self.leader].load(Ordering::Relaxed);
            self.bound(self.scan_start).min(self.bound(leader))
        }
    }

    /// Scans the local map from `from` in key order for a bag with work
    /// (shared chunks first, then this thread's own unpublished chunk); makes
    /// the first such bag current and returns a task from it.
    fn scan(&mut self, from: Bound<P::Key>) -> Option<(Prio, T)> {
        let range = match from {
            Bound::Earliest => self.map.range(..),
            Bound::At(k) => self.map.range(k..),
            Bound::Latest => return None,
        };
        let mut found = None;
        for (&key, &idx) in range {
            self.stats.bags_scanned += 1;
            let slot = &mut self.slots[idx];
            if let Some((chunk, stolen)) = slot.bag.pop_chunk(self.socket) {
                self.stats.chunks_taken += 1;
                self.stats.steals += u64::from(stolen);
                found = Some((idx, key, chunk));
                break;
            }
            if let Some(own) = slot.push.take_if(|c| !c.is_empty()) {
                self.stats.own_chunk_pops += 1;
                self.unpublished -= own.len();
                found = Some((idx, key, own));
                break;
            }
        }
        let (idx, key, chunk) = found?;
        self.switch_to(idx, key);
        self.set_scan_start(idx);
        let mut chunk = chunk;
        let item = chunk.pop_front();
        self.pop_chunk = Some(chunk);
        item
    }

    fn slow_pop(&mut self) -> Option<(Prio, T)> {
        self.stats.slow_pops += 1;
        self.sched.policy.on_sync_pop(self.tid, &mut self.local);
        self.refresh();
        let bound = self.scan_bound();
        if let Some(item) = self.scan(bound) {
            return Some(item);
        }
        let global = self.global_bound();
        if global < bound {
            self.stats.bsp_rescans += 1;
            if let Some(item) = self.scan(global) {
                return Some(item);
            }
        }
        // The scan covered every key from our own bound on and found nothing,
        // our own chunks included: we hold no work anywhere. Saying so keeps
        // an idle thread's stale bound from dragging every leader's scan back
        // to it (quadratic scanning when bags are many and small).
        self.set_scan_start(NO_WORK);
        None
    }

    /// Pops from the current bag: its pop chunk, then a shared chunk, then
    /// this thread's own unpublished chunk of that bag.
    fn pop_current(&mut self) -> Option<(Prio, T)> {
        let (cur, _) = self.current?;
        if let Some(item) = self.pop_chunk.as_mut().and_then(|c| c.pop_front()) {
            return Some(item);
        }
        let slot = &mut self.slots[cur];
        let mut fresh = match slot.bag.pop_chunk(self.socket) {
            Some((chunk, stolen)) => {
                self.stats.chunks_taken += 1;
                self.stats.steals += u64::from(stolen);
                chunk
            }
            None => {
                let own = slot.push.take_if(|c| !c.is_empty())?;
                self.stats.own_chunk_pops += 1;
                self.unpublished -= own.len();
                own
            }
        };
        let item = fresh.pop_front();
        if let Some(empty) = self.pop_chunk.replace(fresh) {
            self.pool.put(empty);
        }
        item
    }
}

impl<T: Send, P: Policy> Handle<T> for OrderedHandle<'_, T, P> {
    fn push(&mut self, prio: Prio, task: T) {
        let key = self.sched.policy.key(prio);
        let mut switched = false;
        let idx = match self.current {
            Some((c, k)) if k == key => c,
            current => {
                let idx = self.lookup_or_create(key);
                if Bound::At(key) < self.bound(self.scan_start) {
                    self.set_scan_start(idx);
                }
                // Opportunistically move to more urgent work (Galois obim).
                if let Some((_, k)) = current {
                    if key < k {
                        self.switch_to(idx, key);
                        switched = true;
                    }
                }
                idx
            }
        };
        self.sched.policy.on_push(self.tid, &mut self.local, prio, key, switched);
        let slot = &mut self.slots[idx];
        let chunk = slot.push.get_or_insert_with(|| self.pool.get());
        chunk.push(prio, task);
        self.unpublished += 1;
        if self.pool.is_full(chunk) {
            if let Some(full) = slot.push.take() {
                self.unpublished -= full.len();
                slot.bag.push_chunk(self.socket, full);
                self.stats.chunks_published += 1;
            }
        } else if !slot.in_dirty {
            slot.in_dirty = true;
            self.dirty.push(idx);
        }
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        self.sched.policy.on_pop_start(self.tid, &mut self.local);
        if let Some(item) = self.pop_current() {
            if let Some((_, key)) = self.current {
                self.sched.policy.on_popped(self.tid, &mut self.local, key, true);
            }
            return Some(item);
        }
        let item = self.slow_pop()?;
        if let Some((_, key)) = self.current {
            self.sched.policy.on_popped(self.tid, &mut self.local, key, false);
        }
        Some(item)
    }

    fn flush(&mut self) {
        for idx in std::mem::take(&mut self.dirty) {
            let slot = &mut self.slots[idx];
            slot.in_dirty = false;
            if let Some(c) = slot.push.take() {
                if c.is_empty() {
                    self.pool.put(c);
                } else {
                    self.unpublished -= c.len();
                    slot.bag.push_chunk(self.socket, c);
                    self.stats.chunks_published += 1;
                }
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.stats;
        vec![
            ("chunks_published", s.chunks_published),
            ("chunks_taken", s.chunks_taken),
            ("steals", s.steals),
            ("slow_pops", s.slow_pops),
            ("own_chunk_pops", s.own_chunk_pops),
            ("bags_created", s.bags_created),
            ("local_map_refreshes", s.local_map_refreshes),
            ("bsp_rescans", s.bsp_rescans),
            ("bags_scanned", s.bags_scanned),
        ]
    }

    fn private_tasks(&self) -> PrivateTasks {
        PrivateTasks { unpublished: self.unpublished, claimed: self.pop_chunk.as_ref().map_or(0, Chunk::len) }
    }
}

impl<T, P: Policy> Drop for OrderedHandle<'_, T, P> {
    /// Publishes every task still private to this handle, so dropping a
    /// handle never loses tasks.
    fn drop(&mut self) {
        for idx in std::mem::take(&mut self.dirty) {
            let slot = &mut self.slots[idx];
            if let Some(c) = slot.push.take().filter(|c| !c.is_empty()) {
                slot.bag.push_chunk(self.socket, c);
            }
        }
        if let (Some((cur, _)), Some(c)) = (self.current, self.pop_chunk.take()) {
            if !c.is_empty() {
                self.slots[cur].bag.push_chunk(self.socket, c);
            }
        }
    }
}
