//! loom model of the SprayList's lock-free protocol (claim, mark, unlink by
//! helping searches, bottom-up insert with `fully_linked`, head fallback).
//!
//! crossbeam-epoch has no loom support, so this is a **copy of `list.rs`'s
//! algorithm on a tiny fixed arena**: links are indices packed with the mark
//! bit into one atomic word instead of epoch pointers, two levels, nodes
//! allocated up front. Every step (loads, CASes, orderings) mirrors
//! `list.rs` line by line; keep the two in sync. What the model adds:
//! - the value lives in a `loom::cell::UnsafeCell`, so loom reports a data
//!   race if the claim did not order the inserter's write before the
//!   claimer's read, or if two threads took the same value;
//! - retirement is modelled as in epoch reclamation: a node retired before an
//!   operation pinned must never be reached by that operation (this is the
//!   use-after-free that epochs would allow), checked at every dereference;
//! - after the threads join, every level is checked to be sorted and to hold
//!   exactly the unclaimed nodes.
//!
//! - in the tests with a concurrent insert, link reads are no-op RMWs
//!   (`read_link`): with plain loads loom never ordered the delete's read after
//!   the insert's CAS, and a mutation (claiming nodes not yet fully linked)
//!   went unnoticed; with RMW reads it is caught. The price: those tests
//!   read only the latest value of a link (no stale reads).
//!
//! Mutation checks done (each makes a test fail): the claim CAS replaced by
//! a store; `fully_linked` not required for a claim.
//!
//! The spray is replaced by a fixed number of steps per level (the protocol
//! does not depend on the random choice). Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-sched --release --lib loom`.

use loom::cell::UnsafeCell;
use loom::thread;

use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering};

/// Levels of the model list.
const LEVELS: usize = 2;
/// Nodes in the arena, the head (index 0) included.
const NODES: usize = 4;
/// The head's index.
const HEAD: usize = 0;
/// The mark bit of a link word; the node index + 1 is in the bits above it.
const MARK: usize = 1;

fn link(node: usize) -> usize {
    (node + 1) << 1
}
/// The node a link word points to (`None` for null), ignoring the mark.
fn target(word: usize) -> Option<usize> {
    (word >> 1).checked_sub(1)
}

struct ModelNode {
    key: u64,
    height: usize,
    value: UnsafeCell<u64>,
    claimed: AtomicBool,
    fully_linked: AtomicBool,
    next: [AtomicUsize; LEVELS],
    /// The retirement clock value (0 = not retired).
    retired_at: AtomicUsize,
}

struct ModelList {
    nodes: Vec<ModelNode>,
    /// Counts retirements; an operation's pin reads it.
    clock: AtomicUsize,
    /// Link reads are RMWs (see `read_link`).
    rmw_reads: bool,
}

// SAFETY: as for `LockFreeSkipList`: a node's value is written by its inserter
// before the node is published and read once by the claim winner; loom's
// `UnsafeCell` checks exactly that ordering in every explored execution.
unsafe impl Sync for ModelList {}
unsafe impl Send for ModelList {}

/// One operation's view: its pin, to check that it never reaches a node
/// retired before it started.
#[derive(Clone, Copy)]
struct Pin(usize);

impl ModelList {
    /// The head and `NODES - 1` unlinked nodes with the given keys and heights.
    fn new(nodes: [(u64, usize); NODES - 1], rmw_reads: bool) -> Self {
        let mk = |key, height| ModelNode {
            key,
            height,
            value: UnsafeCell::new(0),
            claimed: AtomicBool::new(false),
            fully_linked: AtomicBool::new(false),
            next: [AtomicUsize::new(0), AtomicUsize::new(0)],
            retired_at: AtomicUsize::new(0),
        };
        let mut all = vec![mk(0, LEVELS)];
        all.extend(nodes.iter().map(|&(k, h)| mk(k, h)));
        ModelList { nodes: all, clock: AtomicUsize::new(0), rmw_reads }
    }

    /// Reads a link word (`list.rs`: an acquire load). With `rmw_reads` the
    /// read is an RMW that changes nothing: loom's exploration only reorders
    /// a thread's plain load after another thread's CAS on the same word when
    /// the load is an RMW too (found by mutation testing: without it, no
    /// explored execution let a spray see a concurrently inserted node), at
    /// the price of reading only the latest value.
    fn read_link(&self, link: &AtomicUsize) -> usize {
        if self.rmw_reads {
            link.fetch_or(0, Ordering::AcqRel)
        } else {
            link.load(Ordering::Acquire)
        }
    }

    fn pin(&self) -> Pin {
        Pin(self.clock.load(Ordering::SeqCst))
    }

    /// Dereferences node `i` for an operation pinned at `pin`.
    fn node(&self, i: usize, pin: Pin) -> &ModelNode {
        let retired = self.nodes[i].retired_at.load(Ordering::SeqCst);
        assert!(retired == 0 || retired > pin.0, "node {i} reached after it was retired (use after free)");
        &self.nodes[i]
    }

    /// `list.rs` `find`: predecessors and successor words at every level,
    /// unlinking marked nodes on the way.
    fn find(&self, key: u64, pin: Pin) -> ([usize; LEVELS], [usize; LEVELS]) {
        'retry: loop {
            let mut preds = [HEAD; LEVELS];
            let mut succs = [0; LEVELS];
            let mut pred = HEAD;
            for level in (0..LEVELS).rev() {
                let mut curr = self.read_link(&self.nodes[pred].next[level]);
                if curr & MARK != 0 {
                    continue 'retry;
                }
                while let Some(c) = target(curr) {
                    let c_node = self.node(c, pin);
                    let succ = self.read_link(&c_node.next[level]);
                    if succ & MARK != 0 {
                        let unmarked = succ & !MARK;
                        match self.nodes[pred].next[level].compare_exchange(
                            curr,
                            unmarked,
                            Ordering::AcqRel,
                            Ordering::Acquire,
                        ) {
                            Ok(_) => curr = unmarked,
                            Err(_) => continue 'retry,
                        }
                        continue;
                    }
                    if c_node.key < key {
                        pred = c;
                        curr = succ;
                    } else {
                        break;
                    }
                }
                preds[level] = pred;
                succs[level] = curr;
            }
            return (preds, succs);
        }
    }

    /// `list.rs` `insert` of the preallocated node `i` carrying `value`.
    fn insert(&self, i: usize, value: u64) {
        let pin = self.pin();
        let n = &self.nodes[i];
        // SAFETY: the node is not yet published; loom checks the access.
        n.value.with_mut(|v| unsafe { *v = value });
        let (mut preds, mut succs) = self.find(n.key, pin);
        loop {
            for level in 0..n.height {
                n.next[level].store(succs[level], Ordering::Relaxed);
            }
            match self.nodes[preds[0]].next[0].compare_exchange(
                succs[0],
                link(i),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(_) => (preds, succs) = self.find(n.key, pin),
            }
        }
        for level in 1..n.height {
            loop {
                n.next[level].store(succs[level], Ordering::Release);
                if self.nodes[preds[level]].next[level]
                    .compare_exchange(succs[level], link(i), Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    break;
                }
                (preds, succs) = self.find(n.key, pin);
            }
        }
        n.fully_linked.store(true, Ordering::Release);
    }

    fn try_claim(n: &ModelNode) -> bool {
        n.fully_linked.load(Ordering::Acquire)
            && !n.claimed.load(Ordering::Relaxed)
            && n.claimed.compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok()
    }

    /// `list.rs` `remove_claimed`: take the value, mark top-down, unlink by
    /// a search, retire.
    fn remove_claimed(&self, i: usize, pin: Pin) -> u64 {
        let n = self.node(i, pin);
        // SAFETY: only the claim winner reads the value; loom checks that the
        // inserter's write happens before.
        let value = n.value.with(|v| unsafe { *v });
        for level in (0..n.height).rev() {
            n.next[level].fetch_or(MARK, Ordering::AcqRel);
        }
        self.find(n.key, pin);
        let r = self.clock.fetch_add(1, Ordering::SeqCst) + 1;
        assert_eq!(n.retired_at.swap(r, Ordering::SeqCst), 0, "node {i} retired twice");
        value
    }

    /// `list.rs` `spray` with `steps[level]` steps at each level (so
    /// `[1, 0]` is one step on the bottom level only).
    fn spray(&self, steps: [usize; LEVELS], pin: Pin) -> Option<usize> {
        let mut tower = HEAD;
        let mut reached = None;
        for level in (0..LEVELS).rev() {
            let mut taken = 0;
            while taken < steps[level] {
                let next = self.read_link(&self.nodes[tower].next[level]);
                if next & MARK != 0 {
                    break;
                }
                let Some(node) = target(next) else { break };
                let n = self.node(node, pin);
                tower = node;
                reached = Some(node);
                if !n.claimed.load(Ordering::Relaxed) {
                    taken += 1;
                }
            }
        }
        reached
    }

    /// `list.rs` `pop_first`.
    fn pop_first(&self, pin: Pin) -> Option<u64> {
        'retry: loop {
            let mut pred = HEAD;
            let mut curr = self.read_link(&self.nodes[pred].next[0]);
            while let Some(c) = target(curr) {
                let c_node = self.node(c, pin);
                let succ = self.read_link(&c_node.next[0]);
                if succ & MARK != 0 {
                    let unmarked = succ & !MARK;
                    match self.nodes[pred].next[0].compare_exchange(
                        curr,
                        unmarked,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    ) {
                        Ok(_) => curr = unmarked,
                        Err(_) => continue 'retry,
                    }
                    continue;
                }
                if Self::try_claim(c_node) {
                    return Some(self.remove_claimed(c, pin));
                }
                pred = c;
                curr = succ;
            }
            return None;
        }
    }

    /// The handle's pop with one spray attempt (the real one makes up to
    /// `SPRAY_ATTEMPTS`; each attempt is the same step).
    fn pop(&self, steps: [usize; LEVELS]) -> Option<u64> {
        let pin = self.pin();
        if let Some(node) = self.spray(steps, pin) {
            if Self::try_claim(self.node(node, pin)) {
                return Some(self.remove_claimed(node, pin));
            }
        }
        self.pop_first(pin)
    }

    /// Alone: every level is sorted and holds exactly the unclaimed nodes of
    /// at least that height that were inserted (`inserted`).
    fn check_quiescent_structure(&self, inserted: &[usize]) {
        for level in 0..LEVELS {
            let mut at_level = Vec::new();
            let mut word = self.nodes[HEAD].next[level].load(Ordering::SeqCst);
            while let Some(i) = target(word) {
                assert_eq!(word & MARK, 0, "a marked pointer is still reachable at level {level}");
                at_level.push(i);
                word = self.nodes[i].next[level].load(Ordering::SeqCst);
            }
            assert!(
                at_level.windows(2).all(|w| self.nodes[w[0]].key < self.nodes[w[1]].key),
                "level {level}"
            );
            let mut want: Vec<usize> = inserted
                .iter()
                .copied()
                .filter(|&i| self.nodes[i].height > level && !self.nodes[i].claimed.load(Ordering::SeqCst))
                .collect();
            want.sort_by_key(|&i| self.nodes[i].key);
            assert_eq!(at_level, want, "level {level}");
        }
    }
}

fn builder() -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b
}

/// Two threads delete concurrently from a three-node list with sprays of
/// `steps_a` and `steps_b` steps per level: they never return the same
/// element, and a lone drain afterwards finds exactly the rest.
fn two_concurrent_deletes(steps_a: [usize; LEVELS], steps_b: [usize; LEVELS]) {
    builder().check(move || {
        let list = Arc::new(ModelList::new([(10, 2), (20, 1), (30, 2)], false));
        for i in 1..NODES {
            list.insert(i, list.nodes[i].key);
        }
        let other = {
            let list = list.clone();
            thread::spawn(move || list.pop(steps_b))
        };
        let mine = list.pop(steps_a);
        let theirs = other.join().unwrap();
        // Three tasks, two deletes: each finds one (at most one claimed node
        // in its way).
        let (a, b) = (mine.expect("a pop failed"), theirs.expect("a pop failed"));
        assert_ne!(a, b, "two deletes returned the same element");
        list.check_quiescent_structure(&[1, 2, 3]);
        let mut got = vec![a, b];
        while let Some(v) = list.pop_first(list.pin()) {
            got.push(v);
        }
        got.sort_unstable();
        assert_eq!(got, vec![10, 20, 30]);
        list.check_quiescent_structure(&[1, 2, 3]);
    });
}

/// Both sprays land on the first node (one step on the top level): the
/// claim CAS decides, the loser
/// falls back to the head and takes the next node.
#[test]
fn loom_two_deletes_landing_on_the_same_node_never_return_the_same_element() {
    two_concurrent_deletes([0, 1], [0, 1]);
}

/// One spray lands on the first node, the other walks over it (on both
/// levels) to the second: the two unlink neighbouring nodes concurrently.
#[test]
fn loom_two_deletes_of_neighbours_never_return_the_same_element() {
    two_concurrent_deletes([0, 1], [1, 1]);
}

/// An insert (a two-level node in front of the list) concurrent with a
/// delete by a spray of `steps` steps per level: the inserted element is
/// never lost, nothing is returned twice, and the structure is intact
/// afterwards.
fn insert_concurrent_with_delete(steps: [usize; LEVELS]) {
    builder().check(move || {
        let list = Arc::new(ModelList::new([(20, 2), (10, 2), (30, 1)], true));
        list.insert(1, 20);
        list.insert(3, 30);
        let inserter = {
            let list = list.clone();
            thread::spawn(move || list.insert(2, 10))
        };
        let deleted = list.pop(steps);
        inserter.join().unwrap();
        let mut got: Vec<u64> = deleted.into_iter().collect();
        assert_eq!(got.len(), 1, "a pop failed with two tasks present before it");
        list.check_quiescent_structure(&[1, 2, 3]);
        while let Some(v) = list.pop([0, 1]) {
            got.push(v);
        }
        got.sort_unstable();
        assert_eq!(got, vec![10, 20, 30]);
    });
}

/// The delete's spray walks past the front on the top level: it races with
/// the new node's upper-level link.
#[test]
fn loom_an_insert_concurrent_with_a_delete_is_never_lost() {
    insert_concurrent_with_delete([1, 1]);
}

/// The delete's spray takes the first node of the bottom level, which may be
/// the new node while it is linked only there: claiming it then would race
/// with its upper-level link (this is what `fully_linked` prevents).
#[test]
fn loom_a_delete_never_claims_a_node_still_being_linked() {
    insert_concurrent_with_delete([1, 0]);
}

/// A delete racing with an insert directly behind the deleted node: the
/// inserter's predecessor is being marked and unlinked while it links (the
/// case where its CAS fails and it must search again).
#[test]
fn loom_an_insert_behind_a_node_being_deleted_is_linked() {
    builder().check(|| {
        let list = Arc::new(ModelList::new([(10, 2), (20, 2), (30, 1)], true));
        list.insert(1, 10);
        list.insert(3, 30);
        let inserter = {
            let list = list.clone();
            thread::spawn(move || list.insert(2, 20))
        };
        let deleted = list.pop([0, 1]);
        inserter.join().unwrap();
        let mut got: Vec<u64> = deleted.into_iter().collect();
        assert_eq!(got.len(), 1);
        list.check_quiescent_structure(&[1, 2, 3]);
        while let Some(v) = list.pop_first(list.pin()) {
            got.push(v);
        }
        got.sort_unstable();
        assert_eq!(got, vec![10, 20, 30]);
    });
}
