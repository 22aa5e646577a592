//! The stealing buffer of one SMQ queue (stealing-multiqueue-2021 §4,
//! Listing 4): up to `STEAL_SIZE` of the owner's best tasks, which any
//! thread may read the top of and steal as a whole, guarded by one 64-bit
//! `(epoch, tag)` word. The protocol and its happens-before argument are in
//! `README.md` next to this file; `loom_model` below checks it. For the
//! [`crate::probe`] the buffer is one structure: `top` and `is_empty` read
//! it, a take or a publishing fill writes it.

use std::mem::MaybeUninit;

use crate::sync::{AtomicU64, AtomicUsize, Ordering};
use crate::Prio;

/// The tag of the state word: the buffer holds nothing (the owner may fill it).
const EMPTY: u64 = 0;
/// The tag: the buffer holds tasks that one CAS winner may take.
const FULL: u64 = 1;
/// The tag: a CAS winner is moving the tasks out.
const TAKING: u64 = 2;
const TAG_MASK: u64 = 3;

#[inline]
fn tag(state: u64) -> u64 {
    state & TAG_MASK
}

#[inline]
fn with_tag(state: u64, tag: u64) -> u64 {
    (state & !TAG_MASK) | tag
}

/// One task slot, written by the owner while the buffer is `EMPTY` and moved
/// out only by the winner of the `FULL -> TAKING` CAS. Under `cfg(loom)` it
/// is loom's `UnsafeCell`, so loom reports any access the protocol fails to
/// order.
struct TaskCell<T> {
    #[cfg(not(loom))]
    cell: std::cell::UnsafeCell<MaybeUninit<T>>,
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<MaybeUninit<T>>,
}

impl<T> TaskCell<T> {
    fn new() -> Self {
        #[cfg(not(loom))]
        let cell = std::cell::UnsafeCell::new(MaybeUninit::uninit());
        #[cfg(loom)]
        let cell = loom::cell::UnsafeCell::new(MaybeUninit::uninit());
        TaskCell { cell }
    }

    /// Stores `task`, overwriting (without dropping) what was there.
    ///
    /// # Safety
    /// No other thread accesses the cell during the call.
    unsafe fn put(&self, task: T) {
        #[cfg(not(loom))]
        // SAFETY: exclusive access is the caller's obligation.
        unsafe {
            (*self.cell.get()).write(task);
        }
        #[cfg(loom)]
        // SAFETY: exclusive access is the caller's obligation.
        self.cell.with_mut(|p| unsafe {
            (*p).write(task);
        });
    }

    /// Moves the task out, leaving the cell logically uninitialised.
    ///
    /// # Safety
    /// The cell holds a task put there and not yet taken, and no other thread
    /// writes the cell during the call.
    unsafe fn take(&self) -> T {
        #[cfg(not(loom))]
        // SAFETY: initialised and not concurrently written, by the caller.
        unsafe {
            (*self.cell.get()).assume_init_read()
        }
        #[cfg(loom)]
        // SAFETY: initialised and not concurrently written, by the caller.
        self.cell.with(|p| unsafe { (*p).assume_init_read() })
    }
}

/// A consistent view of a full buffer: the state word it was read at and
/// the priority of its best task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BufferTop {
    /// The state word (epoch and `FULL` tag) the priority belongs to.
    pub(crate) state: u64,
    /// The best priority in the buffer.
    pub(crate) prio: Prio,
}

/// The stealing buffer (see the module docs and `README.md`).
pub(crate) struct StealBuffer<T> {
    /// `epoch << 2 | tag`; the epoch grows by one per fill, so a state value
    /// never repeats and a stale CAS cannot succeed (no ABA).
    state: AtomicU64,
    /// Tasks in the buffer; meaningful while `FULL` or `TAKING`.
    len: AtomicUsize,
    /// Priorities of the slots, readable by anyone (for `top`).
    prios: Box<[AtomicU64]>,
    slots: Box<[TaskCell<T>]>,
}

// SAFETY: the slots are accessed only as the protocol allows: written by the
// single owner while the tag is EMPTY, read (moved out) only by the single
// winner of the FULL -> TAKING CAS, with release/acquire edges between the
// two (README.md). Tasks move between threads, hence `T: Send`.
unsafe impl<T: Send> Sync for StealBuffer<T> {}

impl<T> StealBuffer<T> {
    /// An empty buffer of `capacity >= 1` slots.
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        StealBuffer {
            state: AtomicU64::new(EMPTY),
            len: AtomicUsize::new(0),
            prios: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            slots: (0..capacity).map(|_| TaskCell::new()).collect(),
        }
    }

    /// The best priority of a full buffer, read consistently (seqlock: the
    /// state word is read before and after; a change means a refill raced
    /// and the read is retried). `None` if the buffer is not full.
    pub(crate) fn top(&self) -> Option<BufferTop> {
        crate::probe::read(self);
        loop {
            let before = self.state.load(Ordering::Acquire);
            if tag(before) != FULL {
                return None;
            }
            let prio = self.prios[0].load(Ordering::Acquire);
            let after = self.state.load(Ordering::Acquire);
            if before == after {
                return Some(BufferTop { state: before, prio });
            }
        }
    }

    /// Takes every task if the buffer is still in state `seen` (from
    /// [`StealBuffer::top`]); appends them to `out` in priority order and
    /// returns true. False if another thread took or refilled it first.
    /// Thieves and the owner both take tasks this way.
    pub(crate) fn try_take(&self, seen: u64, out: &mut Vec<(Prio, T)>) -> bool {
        if tag(seen) != FULL {
            return false;
        }
        crate::probe::write(self);
        // Acquire: synchronises with the owner's release store of `seen`,
        // so the slot writes of that fill happen before our reads.
        if self
            .state
            .compare_exchange(seen, with_tag(seen, TAKING), Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        let len = self.len.load(Ordering::Relaxed);
        for (slot, prio) in self.slots[..len].iter().zip(&self.prios[..len]) {
            // SAFETY: we won the CAS from FULL, so the slot holds a task of
            // this fill that nobody took, and the owner does not write slots
            // until it sees the EMPTY we store below.
            let task = unsafe { slot.take() };
            out.push((prio.load(Ordering::Relaxed), task));
        }
        // Release: our slot reads happen before the owner's next fill, which
        // starts with an acquire load that sees this store.
        self.state.store(with_tag(seen, EMPTY), Ordering::Release);
        true
    }

    /// Whether the owner may fill the buffer now.
    pub(crate) fn is_empty(&self) -> bool {
        crate::probe::read(self);
        tag(self.state.load(Ordering::Acquire)) == EMPTY
    }

    /// Owner only: if the buffer is empty, fills it with up to `capacity`
    /// tasks from `next` (best first) and publishes them. Returns whether it
    /// published anything.
    ///
    /// # Safety
    /// Only one thread, the buffer's owner, ever calls `fill`, never
    /// concurrently with itself.
    pub(crate) unsafe fn fill(&self, mut next: impl FnMut() -> Option<(Prio, T)>) -> bool {
        // Acquire: pairs with the release store of EMPTY by the last taker.
        crate::probe::read(self);
        let state = self.state.load(Ordering::Acquire);
        if tag(state) != EMPTY {
            return false;
        }
        // From here on nobody but us changes `state` (only the owner leaves
        // EMPTY) and nobody touches the slots (takers need FULL).
        let mut len = 0;
        while len < self.slots.len() {
            let Some((prio, task)) = next() else { break };
            // SAFETY: the tag is EMPTY and we are the only filler, so no
            // other thread accesses this slot now; its previous task (if
            // any) was moved out by a taker.
            unsafe { self.slots[len].put(task) };
            // Release: a `top` reader that sees this value also sees that the
            // state has left the FULL it read before (README.md).
            self.prios[len].store(prio, Ordering::Release);
            len += 1;
        }
        if len == 0 {
            return false;
        }
        crate::probe::write(self);
        self.len.store(len, Ordering::Relaxed);
        let next_epoch = (state >> 2) + 1;
        // Release: publishes the slots, prios and len to the next taker.
        self.state.store((next_epoch << 2) | FULL, Ordering::Release);
        true
    }
}

impl<T> Drop for StealBuffer<T> {
    fn drop(&mut self) {
        if tag(self.state.load(Ordering::Relaxed)) == FULL {
            let len = self.len.load(Ordering::Relaxed);
            for slot in &self.slots[..len] {
                // SAFETY: `&mut self`: no other access; FULL means the first
                // `len` slots hold tasks nobody took.
                drop(unsafe { slot.take() });
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn fill_top_take_cycle() {
        let b: StealBuffer<String> = StealBuffer::new(3);
        assert_eq!(b.top(), None);
        let mut src = vec![(9, "c".to_string()), (5, "b".to_string()), (1, "a".to_string())];
        // SAFETY: single-threaded test, the only filler.
        assert!(unsafe { b.fill(|| src.pop()) });
        let top = b.top().unwrap();
        assert_eq!(top.prio, 1);
        // Not EMPTY: a second fill is refused.
        // SAFETY: as above.
        assert!(!unsafe { b.fill(|| Some((0, "x".to_string()))) });
        let mut out = Vec::new();
        assert!(b.try_take(top.state, &mut out));
        assert_eq!(out, vec![(1, "a".into()), (5, "b".into()), (9, "c".into())]);
        assert!(!b.try_take(top.state, &mut out), "a state never repeats");
        assert!(b.is_empty());
        let mut more = vec![(4, "d".to_string())];
        // SAFETY: as above.
        assert!(unsafe { b.fill(|| more.pop()) });
        let t2 = b.top().unwrap();
        assert_ne!(t2.state, top.state);
        assert!(!b.try_take(top.state, &mut out), "stale snapshot of an older epoch");
        // Dropping a full buffer drops its task (checked by Miri/ASan-style
        // leak tools; here it must simply not crash).
    }

    #[test]
    fn empty_source_publishes_nothing() {
        let b: StealBuffer<u8> = StealBuffer::new(4);
        // SAFETY: single-threaded test, the only filler.
        assert!(!unsafe { b.fill(|| None) });
        assert!(b.is_empty());
        assert_eq!(b.top(), None);
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    use super::*;
    use crate::sync::Arc;
    use loom::thread;

    /// Tasks are boxed so that a double move-out would be a double free, and
    /// loom's cell tracking reports any unordered slot access.
    type Task = Box<u64>;

    fn steal_once(b: &StealBuffer<Task>) -> Vec<u64> {
        let mut out = Vec::new();
        if let Some(top) = b.top() {
            if b.try_take(top.state, &mut out) {
                assert_eq!(top.prio, out[0].0, "the top read belongs to the taken fill");
            }
        }
        out.into_iter()
            .map(|(p, t)| {
                assert_eq!(p, *t, "priority travels with its task");
                *t
            })
            .collect()
    }

    /// The owner fills, takes its own buffer back and refills, while two
    /// thieves read the top and steal: every task is delivered exactly once.
    #[test]
    fn owner_refills_while_two_thieves_steal() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(3);
        builder.check(|| {
            let b = Arc::new(StealBuffer::<Task>::new(2));
            let mut heap: Vec<u64> = vec![4, 3, 2, 1];
            // SAFETY: this (main) thread is the buffer's only filler.
            assert!(unsafe { b.fill(|| heap.pop().map(|p| (p, Box::new(p)))) });
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let b = b.clone();
                    thread::spawn(move || steal_once(&b))
                })
                .collect();
            let mut mine = Vec::new();
            // The owner's pop: take its own buffer back if still there.
            mine.extend(steal_once(&b));
            // Refill from the rest of its heap (only if some thief or the
            // owner emptied it; a TAKING buffer is skipped).
            // SAFETY: as above.
            unsafe { b.fill(|| heap.pop().map(|p| (p, Box::new(p)))) };
            let mut all: Vec<u64> = mine;
            for t in thieves {
                all.extend(t.join().unwrap());
            }
            // After the joins: whatever is still buffered, plus the heap.
            all.extend(steal_once(&b));
            all.extend(heap);
            all.sort_unstable();
            assert_eq!(all, vec![1, 2, 3, 4]);
        });
    }

    /// A thief's top read races with the owner taking back and refilling
    /// with different priorities: the read is either a consistent snapshot
    /// of one fill or none.
    #[test]
    fn top_is_a_consistent_snapshot() {
        loom::model(|| {
            let b = Arc::new(StealBuffer::<Task>::new(1));
            // SAFETY: this (main) thread is the buffer's only filler.
            assert!(unsafe { b.fill(|| Some((10, Box::new(10)))) });
            let reader = {
                let b = b.clone();
                thread::spawn(move || b.top())
            };
            let first = b.top().unwrap();
            let mut out = Vec::new();
            assert!(b.try_take(first.state, &mut out));
            let mut next = Some((20, Box::new(20)));
            // SAFETY: as above.
            assert!(unsafe { b.fill(|| next.take()) });
            let seen = reader.join().unwrap();
            if let Some(top) = seen {
                let want = if top.state == first.state { 10 } else { 20 };
                assert_eq!(top.prio, want, "torn read: {top:?}");
            }
        });
    }
}
