//! The lock-free skip list under the SprayList: Fraser's / Herlihy–Shavit's
//! lock-free skip list (Herlihy & Shavit, *The Art of Multiprocessor
//! Programming*, §14.4; Fraser, *Practical lock-freedom*, 2004) with a
//! per-node `claimed` flag for delete-by-claim, and memory reclamation through
//! `crossbeam-epoch`. The protocol and its memory-safety argument are in the
//! parent module's docs ("The lock-free protocol").
//!
//! For the [`crate::probe`], a node is one structure named by its tower (the
//! allocation of its `next` pointers; key and flags are read with them), the
//! head is another, and the list's `top` a third: following or reading a
//! link reads the tower, a CAS or mark writes it, claiming writes the node's
//! tower; a removed node's tower is retired.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;

use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned, Shared};

use crate::probe;
use crate::rng::FastRng;
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use crate::Prio;

/// The most levels a node (and the head) may have.
pub(crate) const MAX_LEVEL: usize = 32;

/// The tag bit on a `next` pointer that marks its node as logically deleted
/// at that level (Harris's mark bit). A marked pointer is never changed again.
const MARK: usize = 1;

/// A node's key: its priority and a sequence number unique in the list, so
/// that equal priorities are allowed and every key is distinct.
pub(crate) type Key = (Prio, u64);

/// One row of successor pointers: a node's tower, or the head's.
type Tower<T> = [Atomic<Node<T>>];

/// A skip-list node.
pub(crate) struct Node<T> {
    key: Key,
    /// The task; initialised by the inserter, moved out exactly once by the
    /// thread that wins `claimed`.
    value: UnsafeCell<MaybeUninit<T>>,
    /// Set (once, by CAS) by the deleter that owns the value.
    claimed: AtomicBool,
    /// Set by the inserter after the node is linked at every level; only
    /// fully linked nodes may be claimed, so the inserter never links a level
    /// of a node that a deleter is already unlinking.
    fully_linked: AtomicBool,
    /// The successor at each of the node's levels (`next.len()` is its height).
    next: Box<Tower<T>>,
}

impl<T> Node<T> {
    /// The node's priority (tests read where a walk landed).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn prio(&self) -> Prio {
        self.key.0
    }
}

/// The result of [`LockFreeSkipList::find`]: at every level below the list's
/// top, the last node with a smaller key (its tower) and its successor.
struct Position<'g, T> {
    preds: [&'g Tower<T>; MAX_LEVEL],
    succs: [Shared<'g, Node<T>>; MAX_LEVEL],
}

/// A lock-free skip list of `(key, value)` pairs ordered by key, whose
/// deletes claim a node rather than search for a key (see the module docs).
pub(crate) struct LockFreeSkipList<T> {
    head: Box<Tower<T>>,
    /// The tallest node height ever inserted; levels at and above it are
    /// empty, so searches start there. Only grows.
    top: AtomicUsize,
}

// SAFETY: the list owns its values and hands each one out by value to exactly
// one thread (the claim winner); it never shares `&T` between threads, so
// sending and sharing the list only needs `T: Send`. All shared node fields
// are atomics or written before publication.
unsafe impl<T: Send> Send for LockFreeSkipList<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for LockFreeSkipList<T> {}

impl<T> LockFreeSkipList<T> {
    /// An empty list.
    pub(crate) fn new() -> Self {
        LockFreeSkipList { head: (0..MAX_LEVEL).map(|_| Atomic::null()).collect(), top: AtomicUsize::new(1) }
    }

    /// Pins the current thread for a list operation.
    pub(crate) fn pin() -> Guard {
        epoch::pin()
    }

    /// At every level below `top`, the last node whose key is below `key`
    /// and its successor, unlinking (helping) every marked node met on the
    /// way. After it returns, a node with key `key` that was marked at every
    /// level before the call is linked at no level (module docs).
    fn find<'g>(&'g self, key: Key, guard: &'g Guard) -> Position<'g, T> {
        if probe::recording() {
            self.find_probed::<true>(key, guard)
        } else {
            self.find_probed::<false>(key, guard)
        }
    }

    /// [`LockFreeSkipList::find`], probing every node it reads when `REC`
    /// (two copies, so that the unprobed one has no test inside its loop).
    fn find_probed<'g, const REC: bool>(&'g self, key: Key, guard: &'g Guard) -> Position<'g, T> {
        'retry: loop {
            let mut pos = Position { preds: [&self.head[..]; MAX_LEVEL], succs: [Shared::null(); MAX_LEVEL] };
            let mut pred: &'g Tower<T> = &self.head;
            if REC {
                probe::read(&self.top);
            }
            for level in (0..self.top.load(Ordering::Acquire)).rev() {
                if REC {
                    probe::read(pred);
                }
                let mut curr = pred[level].load(Ordering::Acquire, guard);
                if curr.tag() == MARK {
                    // `pred` is being deleted at this level: its successor may
                    // already be unlinked and retired, so never follow it.
                    continue 'retry;
                }
                // SAFETY: `curr` was read unmarked from `pred`, which was linked
                // at this level at that moment, so `curr` was linked too and is
                // not retired before this guard was pinned; same below for
                // every `curr` reached by an unmarked pointer or a won unlink.
                while let Some(c) = unsafe { curr.as_ref() } {
                    if REC {
                        probe::read(&*c.next);
                    }
                    let succ = c.next[level].load(Ordering::Acquire, guard);
                    if succ.tag() == MARK {
                        // `c` is deleted at this level: unlink it (help).
                        let unmarked = succ.with_tag(0);
                        if REC {
                            probe::write(pred);
                        }
                        match pred[level].compare_exchange(
                            curr,
                            unmarked,
                            Ordering::AcqRel,
                            Ordering::Acquire,
                            guard,
                        ) {
                            Ok(_) => curr = unmarked,
                            Err(_) => continue 'retry,
                        }
                        continue;
                    }
                    if c.key < key {
                        pred = &c.next;
                        curr = succ;
                    } else {
                        break;
                    }
                }
                pos.preds[level] = pred;
                pos.succs[level] = curr;
            }
            return pos;
        }
    }

    /// Inserts `value` under the unique `key` as a node of `height` levels
    /// (`1..=MAX_LEVEL`): bottom level first, then upwards, each by CAS.
    pub(crate) fn insert(&self, key: Key, value: T, height: usize, guard: &Guard) {
        debug_assert!((1..=MAX_LEVEL).contains(&height));
        probe::read(&self.top);
        if self.top.load(Ordering::Relaxed) < height {
            probe::write(&self.top);
            self.top.fetch_max(height, Ordering::AcqRel);
        }
        let node = Owned::new(Node {
            key,
            value: UnsafeCell::new(MaybeUninit::new(value)),
            claimed: AtomicBool::new(false),
            fully_linked: AtomicBool::new(false),
            next: (0..height).map(|_| Atomic::null()).collect(),
        })
        .into_shared(guard);
        // SAFETY: `node` was just allocated and is only retired by a claimer,
        // which needs `fully_linked`, set at the end of this function.
        let n = unsafe { node.deref() };
        // Bottom level: the node becomes a member of the list.
        let mut pos = self.find(key, guard);
        loop {
            for (level, link) in n.next.iter().enumerate() {
                // Not yet visible (or, for levels >= 1, not yet linked at that
                // level), so plain stores by the only writer suffice.
                link.store(pos.succs[level], Ordering::Relaxed);
            }
            probe::write(pos.preds[0]);
            match pos.preds[0][0].compare_exchange(
                pos.succs[0],
                node,
                Ordering::AcqRel,
                Ordering::Acquire,
                guard,
            ) {
                Ok(_) => break,
                Err(_) => pos = self.find(key, guard),
            }
        }
        // Upper levels. No deleter touches them before `fully_linked`.
        for level in 1..height {
            loop {
                n.next[level].store(pos.succs[level], Ordering::Release);
                probe::write(pos.preds[level]);
                if pos.preds[level][level]
                    .compare_exchange(pos.succs[level], node, Ordering::AcqRel, Ordering::Acquire, guard)
                    .is_ok()
                {
                    break;
                }
                pos = self.find(key, guard);
            }
        }
        probe::write(&*n.next);
        n.fully_linked.store(true, Ordering::Release);
    }

    /// Claims `node` for the caller if it is fully linked and unclaimed: the
    /// CAS on `claimed` has exactly one winner per node.
    fn try_claim(node: &Node<T>) -> bool {
        probe::write(&*node.next);
        node.fully_linked.load(Ordering::Acquire)
            && !node.claimed.load(Ordering::Relaxed)
            && node.claimed.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// Claims `node` (on the walk's landing) and removes it; `None` when the
    /// node is not fully linked or another deleter claimed it first.
    pub(crate) fn try_take<'g>(&'g self, node: Shared<'g, Node<T>>, guard: &'g Guard) -> Option<(Prio, T)> {
        // SAFETY: the caller got `node` from `spray` under `guard`.
        let n = unsafe { node.deref() };
        if Self::try_claim(n) {
            Some(self.remove_claimed(node, guard))
        } else {
            None
        }
    }

    /// Takes the value of a node this thread has claimed, marks the node's
    /// levels top-down, unlinks it everywhere and retires it.
    fn remove_claimed<'g>(&'g self, node: Shared<'g, Node<T>>, guard: &'g Guard) -> (Prio, T) {
        // SAFETY: the caller holds `node` under `guard`; it is not retired
        // before this function retires it (only the claimer retires).
        let n = unsafe { node.deref() };
        // SAFETY: this thread won the claim CAS, the only way to reach this
        // read, so the value is read exactly once; the inserter initialised it
        // before its release store of `fully_linked`, which the claim's
        // acquire load observed.
        let value = unsafe { (*n.value.get()).assume_init_read() };
        probe::write(&*n.next);
        for link in n.next.iter().rev() {
            link.fetch_or(MARK, Ordering::AcqRel, guard);
        }
        // Unlinks `n` at every level (marked everywhere; see `find`).
        self.find(n.key, guard);
        // SAFETY: `n` is linked at no level now and can never be relinked
        // (a marked pointer is frozen, so nothing links past it to `n` again);
        // threads that still hold it are pinned, which epoch reclamation
        // respects; and only the claim winner gets here, so it is retired
        // once. Its value was moved out above, and the deferred drop of a
        // `Node` touches no `T` (`MaybeUninit` value; `Atomic` links do not
        // own their targets), so running it later, even after the list and
        // `T`'s borrows are gone, is sound.
        unsafe { guard.defer_destroy(node) };
        probe::retire(&*n.next);
        (n.key.0, value)
    }

    /// The spray (module docs): from the head at level `height - 1`, at each
    /// level a uniform number of steps in `[0, jump]` (claimed nodes are
    /// passed without counting), then down one level. Never follows a marked
    /// pointer, so a walk may stop early at a deleted node. The node reached,
    /// or `None` when the walk stayed on the head.
    pub(crate) fn spray<'g>(
        &'g self,
        rng: &mut FastRng,
        height: usize,
        jump: usize,
        guard: &'g Guard,
    ) -> Option<Shared<'g, Node<T>>> {
        if probe::recording() {
            self.spray_probed::<true>(rng, height, jump, guard)
        } else {
            self.spray_probed::<false>(rng, height, jump, guard)
        }
    }

    /// The spray, probing every node it reads when `REC`.
    fn spray_probed<'g, const REC: bool>(
        &'g self,
        rng: &mut FastRng,
        height: usize,
        jump: usize,
        guard: &'g Guard,
    ) -> Option<Shared<'g, Node<T>>> {
        let mut tower: &'g Tower<T> = &self.head;
        let mut reached = Shared::null();
        for level in (0..height.min(MAX_LEVEL)).rev() {
            let steps = rng.below(jump + 1);
            let mut taken = 0;
            while taken < steps {
                if REC {
                    probe::read(tower);
                }
                let next = tower[level].load(Ordering::Acquire, guard);
                if next.tag() == MARK {
                    break;
                }
                // SAFETY: read unmarked from a tower linked at this level
                // (the head, or a node reached at this level or above, which
                // is linked here too because levels are linked bottom-up), so
                // `next` was linked and is protected by `guard`.
                let Some(node) = (unsafe { next.as_ref() }) else { break };
                tower = &node.next;
                reached = next;
                if !node.claimed.load(Ordering::Relaxed) {
                    taken += 1;
                }
            }
        }
        if reached.is_null() {
            None
        } else {
            Some(reached)
        }
    }

    /// Claims and removes the first unclaimed, fully linked node along the
    /// bottom level (the spray's fallback), helping to unlink marked nodes.
    /// `None` only if it met no claimable node; with no other thread inside
    /// the list, every linked node is claimable, so this is then exact.
    pub(crate) fn pop_first(&self, guard: &Guard) -> Option<(Prio, T)> {
        if probe::recording() {
            self.pop_first_probed::<true>(guard)
        } else {
            self.pop_first_probed::<false>(guard)
        }
    }

    /// [`LockFreeSkipList::pop_first`], probing every node it reads when `REC`.
    fn pop_first_probed<const REC: bool>(&self, guard: &Guard) -> Option<(Prio, T)> {
        'retry: loop {
            let mut pred: &Tower<T> = &self.head;
            if REC {
                probe::read(pred);
            }
            let mut curr = pred[0].load(Ordering::Acquire, guard);
            // SAFETY: as in `find`: `curr` is always read unmarked from a
            // linked `pred` or installed by our own won unlink CAS.
            while let Some(c) = unsafe { curr.as_ref() } {
                if REC {
                    probe::read(&*c.next);
                }
                let succ = c.next[0].load(Ordering::Acquire, guard);
                if succ.tag() == MARK {
                    let unmarked = succ.with_tag(0);
                    if REC {
                        probe::write(pred);
                    }
                    match pred[0].compare_exchange(curr, unmarked, Ordering::AcqRel, Ordering::Acquire, guard)
                    {
                        Ok(_) => curr = unmarked,
                        Err(_) => continue 'retry,
                    }
                    continue;
                }
                if Self::try_claim(c) {
                    return Some(self.remove_claimed(curr, guard));
                }
                pred = &c.next;
                curr = succ;
            }
            return None;
        }
    }
}

impl<T> Drop for LockFreeSkipList<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can reach the list any more.
        let guard = unsafe { epoch::unprotected() };
        let mut curr = self.head[0].load(Ordering::Relaxed, guard);
        // SAFETY: every node still linked at the bottom level is live (claimed
        // nodes are unlinked everywhere before their pop returns), owned by
        // the list alone, and visited once.
        while let Some(node) = unsafe { curr.as_ref() } {
            let next = node.next[0].load(Ordering::Relaxed, guard).with_tag(0);
            let claimed = node.claimed.load(Ordering::Relaxed);
            debug_assert!(!claimed, "a claimed node is still linked");
            if !claimed {
                // SAFETY: unclaimed, so the value is initialised and was never
                // moved out, and the node was never retired: the list owns
                // both, and each node is visited once.
                unsafe {
                    (*node.value.get()).assume_init_drop();
                    drop(curr.into_owned());
                }
            }
            curr = next;
        }
    }
}
