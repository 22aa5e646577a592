//! `spraylist`: the SprayList (Alistarh, Kopinsky, Li, Shavit, PPoPP'15;
//! summarised in pmod-priority-scheduling-sc19 §2.2): a lock-free skip list whose delete-min is a
//! random *spray* walk, so that concurrent deletes spread over the first
//! roughly `p·log³p` tasks instead of all fighting for the minimum.
//!
//! # The spray
//! A delete walks from the head: starting at level `height - 1`, at each level
//! it moves a uniform random number of steps in `[0, jump]` along that level
//! (stopping at the end of the level), then descends one level, down to the
//! bottom. It then claims the node it reached. Defaults follow the paper:
//! `height = jump = floor(log2 p) + 1` for `p` threads, so a delete returns
//! one of roughly `p·log³p` smallest tasks. With one thread both are 1 and the
//! spray returns the exact minimum (one step from the head at the bottom level
//! is the first node; zero steps fall back to the first node).
//!
//! As in the paper, nodes already claimed by other deletes are passed without
//! counting as steps. A walk that stays on the head takes the first unclaimed
//! node instead (`head_fallbacks` counter). A walk whose landing node was
//! claimed first by another delete (`lost_races`) retries, at most
//! [`SPRAY_ATTEMPTS`] sprays in all, then also falls back to the first
//! unclaimed node.
//!
//! # The lock-free protocol (module `list`)
//! Fraser's / Herlihy–Shavit's lock-free skip list (*The Art of
//! Multiprocessor Programming* §14.4), keyed by `(priority, sequence)` with a
//! sequence number unique per push (handles reserve blocks of
//! [`SEQ_BLOCK`] numbers), so equal priorities are allowed and keys distinct.
//! - **Insert**: find the predecessors and successors at every level, link
//!   the bottom level by CAS (the node is now in the list), then each higher
//!   level by CAS, re-finding on failure; finally set `fully_linked`.
//! - **Delete**: CAS the node's `claimed` flag from false to true (only fully
//!   linked nodes): the single winner moves the value out of the node's
//!   `UnsafeCell<MaybeUninit<T>>`, sets the mark bit on its `next` pointers
//!   top-down (logical deletion; a marked pointer is frozen), then runs a
//!   search for its key, which unlinks it at every level, and retires it.
//! - **Helping**: every search (and the head fallback) unlinks the marked
//!   nodes it passes by CAS on the predecessor's pointer, restarting when
//!   that CAS fails or when a predecessor turns out marked.
//! - **Memory**: `crossbeam-epoch`. A node is retired (once, by its claimer)
//!   only after it is linked at no level; a traversal follows a pointer only
//!   when it read it unmarked from a node linked at that level (so the target
//!   was linked, hence not retired, after the traversal pinned), or right
//!   after its own successful unlink CAS. The spray never follows a marked
//!   pointer at all (it stops at that node).
//!
//! Only fully linked nodes are claimable, so an inserter never links a level
//! of a node that a deleter is unlinking (the race Fraser resolves with
//! re-searches and crossbeam-skiplist with reference counts).
//!
//! # What is built vs the paper (honest deviations)
//! - Keys are `(priority, sequence)`; the paper's list has distinct keys.
//! - No padding levels and no *cleaner* threads: the paper periodically lets
//!   one delete clean the front of the list; here front nodes that sprays
//!   rarely land on accumulate until a head fallback or a lucky walk takes
//!   them, so landing ranks drift above the fresh-list average (test
//!   `popping_relaxes_the_order_but_stays_near_the_front`).
//! - The descent parameter `D` is 1 (one level per descent).
//! - The spray does not help unlink: it stops at a deleted node and retries,
//!   leaving the unlinking to searches, as the paper's spray does not count
//!   deleted nodes but does not clean them either.
//! - A bounded number of retries ([`SPRAY_ATTEMPTS`]) before the head
//!   fallback, where the paper retries the spray; the fallback keeps the
//!   `Handle` contract without relying on luck.
//! - Memory reclamation by epochs (`crossbeam-epoch`), where the paper's C
//!   implementation uses its own epoch-based garbage collector (ssmem).
//!
//! # Termination (the `Handle` contract)
//! Handles buffer nothing: a push is in the shared list (and fully linked)
//! when it returns. A pop that runs while no other thread is inside the
//! scheduler finds every linked node unclaimed and fully linked (each pop
//! unlinks its node before returning), so its head fallback returns the first
//! node if there is one; only concurrent operations can make a pop fail.
//!
//! # Verification
//! Unit and stress tests in `test.rs`; the claim/mark/unlink protocol is
//! model-checked with `loom` in `loom_model.rs` on an index-based copy of the
//! list (crossbeam-epoch has no loom support): see that file.

mod list;

#[cfg(all(test, not(loom)))]
mod test;

#[cfg(all(test, loom))]
mod loom_model;

use std::marker::PhantomData;

use crate::rng::FastRng;
use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::{AtomicU64, Ordering};
use crate::{Handle, Prio, Scheduler};

use list::{LockFreeSkipList, MAX_LEVEL};

/// How many sprays a pop tries before it falls back to the first unclaimed
/// node (each failed spray landed on a node another delete claimed first).
pub const SPRAY_ATTEMPTS: usize = 3;

/// Sequence numbers a handle reserves at a time from the shared counter, so
/// that making keys unique costs one shared atomic operation per block.
pub const SEQ_BLOCK: u64 = 1024;

/// The largest accepted `jump`: far beyond any useful walk (the paper's is
/// `log2 p + 1`), small enough that `jump + 1` cannot overflow.
pub const MAX_JUMP: usize = 1 << 20;

/// Configuration of [`SprayList`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SprayConfig {
    /// Levels the spray walks (`height`; 0, the default, means
    /// `floor(log2 p) + 1` for `p` threads).
    pub height: usize,
    /// Most steps per level (`jump`; 0, the default, means `floor(log2 p) + 1`).
    pub jump: usize,
    /// Seed of the random choices (`seed`, default 1).
    pub seed: u64,
}

impl SchedConfig for SprayConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let height = p.take_usize("height", 0)?;
        if height > MAX_LEVEL {
            return Err(SpecError(format!(
                "spraylist: `height={height}`: at most {MAX_LEVEL} (0 = from the thread count)"
            )));
        }
        let jump = p.take_usize("jump", 0)?;
        if jump > MAX_JUMP {
            return Err(SpecError(format!(
                "spraylist: `jump={jump}`: at most {MAX_JUMP} (0 = from the thread count)"
            )));
        }
        Ok(SprayConfig { height, jump, seed: p.take_u64("seed", 1)? })
    }

    fn to_params(&self) -> String {
        format!("height={},jump={},seed={}", self.height, self.jump, self.seed)
    }
}

/// `floor(log2 p) + 1`, the paper's default height and jump for `p` threads.
fn log2_plus_one(threads: usize) -> usize {
    (usize::BITS - threads.max(1).leading_zeros()) as usize
}

/// The SprayList priority scheduler (module docs): one lock-free skip list
/// shared by all threads, deletes by spray.
pub struct SprayList<T> {
    list: LockFreeSkipList<T>,
    /// The next unreserved block of sequence numbers (in units of one number).
    next_seq_block: AtomicU64,
    height: usize,
    jump: usize,
    seed: u64,
}

impl<T: Send> SprayList<T> {
    /// A SprayList for `threads` threads with `cfg` (0 = paper default).
    pub fn new(threads: usize, cfg: &SprayConfig) -> Self {
        let auto = log2_plus_one(threads);
        SprayList {
            list: LockFreeSkipList::new(),
            next_seq_block: AtomicU64::new(0),
            height: if cfg.height == 0 { auto } else { cfg.height }.min(MAX_LEVEL),
            jump: if cfg.jump == 0 { auto } else { cfg.jump },
            seed: cfg.seed,
        }
    }
}

impl<T: Send> BuildScheduler<T> for SprayList<T> {
    type Config = SprayConfig;

    fn build(threads: usize, cfg: &SprayConfig) -> Self {
        SprayList::new(threads, cfg)
    }
}

impl<T: Send> Scheduler<T> for SprayList<T> {
    type Handle<'s>
        = SprayHandle<'s, T>
    where
        T: 's;

    fn handle(&self, tid: usize) -> SprayHandle<'_, T> {
        SprayHandle {
            sched: self,
            rng: FastRng::for_thread(self.seed, tid),
            seq: 0,
            seq_end: 0,
            head_fallbacks: 0,
            lost_races: 0,
            _not_send: PhantomData,
        }
    }
}

/// A thread's handle on a [`SprayList`]: its random generator and its block
/// of sequence numbers; it buffers no task.
pub struct SprayHandle<'s, T> {
    sched: &'s SprayList<T>,
    rng: FastRng,
    /// The next sequence number of this handle's reserved block.
    seq: u64,
    /// The end of the reserved block.
    seq_end: u64,
    head_fallbacks: u64,
    lost_races: u64,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send> SprayHandle<'_, T> {
    /// A sequence number no other push of this list uses.
    fn next_seq(&mut self) -> u64 {
        if self.seq == self.seq_end {
            crate::probe::write(&self.sched.next_seq_block);
            self.seq = self.sched.next_seq_block.fetch_add(SEQ_BLOCK, Ordering::Relaxed);
            self.seq_end = self.seq + SEQ_BLOCK;
        }
        self.seq += 1;
        self.seq - 1
    }
}

impl<T: Send> Handle<T> for SprayHandle<'_, T> {
    fn push(&mut self, prio: Prio, task: T) {
        // Geometric node height, P(height > k) = 2^-k.
        let height = (1 + self.rng.next_u64().trailing_ones() as usize).min(MAX_LEVEL);
        let seq = self.next_seq();
        let guard = LockFreeSkipList::<T>::pin();
        self.sched.list.insert((prio, seq), task, height, &guard);
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        let list = &self.sched.list;
        let guard = LockFreeSkipList::<T>::pin();
        for _ in 0..SPRAY_ATTEMPTS {
            let Some(node) = list.spray(&mut self.rng, self.sched.height, self.sched.jump, &guard) else {
                break;
            };
            if let Some(taken) = list.try_take(node, &guard) {
                return Some(taken);
            }
            self.lost_races += 1;
        }
        let first = list.pop_first(&guard);
        self.head_fallbacks += u64::from(first.is_some());
        first
    }

    fn flush(&mut self) {}

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("head_fallbacks", self.head_fallbacks), ("lost_races", self.lost_races)]
    }
}
