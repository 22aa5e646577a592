//! Loop completion (Callisto-RTS §2.1): how followers join a published loop,
//! how the loop is closed once its iterations are all claimed, and how the
//! leader learns that every participant has finished.
//!
//! Every leader thread has one [`LoopSlot`] per loop level it can lead. A
//! slot holds, per socket of the machine, one word
//! `generation | open | active count`; the work item (on the leader's
//! stack) is reached through the slot only by threads counted as active.
//! See `README.md` in this folder for the protocol and why it is correct.

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod test;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use crate::wait::{Backoff, SpinBudget};

/// Bits of a slot word holding the active count.
const COUNT_BITS: u32 = 15;
/// The active count of a slot word.
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Set while the loop of the word's generation accepts new participants.
const OPEN: u64 = 1 << COUNT_BITS;
/// Where the generation starts in a slot word.
const GEN_SHIFT: u32 = COUNT_BITS + 1;
/// Generations are counted modulo 2^44 (they also travel in the 64-bit
/// values followers watch, next to a 20-bit slot number).
pub(crate) const GEN_BITS: u32 = 44;
/// Mask of a generation.
pub(crate) const GEN_MASK: u64 = (1 << GEN_BITS) - 1;
/// The most threads of one socket that can be active in a loop at once.
pub(crate) const MAX_ACTIVE_PER_SOCKET: usize = COUNT_MASK as usize;

/// Rounds of [`LoopSlot::wait_idle`] spent with [`Backoff`] before the
/// leader parks.
#[cfg(not(loom))]
const WAIT_ROUNDS_BEFORE_PARK: u32 = 40;

/// The completion state of the loops one leader runs at one level.
pub(crate) struct LoopSlot {
    /// Per socket: `generation << GEN_SHIFT | OPEN? | active count`.
    words: Box<[CachePadded<AtomicU64>]>,
    /// The work item of the open generation (type-erased; see `runtime.rs`).
    item: AtomicPtr<()>,
    /// The last generation opened. Written only by the leader between loops.
    generation: AtomicU64,
    /// Set while the leader is parked in [`LoopSlot::wait_idle`].
    leader_parked: AtomicBool,
    /// The parked leader, to wake it.
    #[cfg(not(loom))]
    leader: std::sync::Mutex<Option<std::thread::Thread>>,
}

impl LoopSlot {
    /// A slot for a machine with `sockets` sockets, never opened.
    pub(crate) fn new(sockets: usize) -> Self {
        LoopSlot {
            words: (0..sockets.max(1)).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            item: AtomicPtr::new(std::ptr::null_mut()),
            generation: AtomicU64::new(0),
            leader_parked: AtomicBool::new(false),
            #[cfg(not(loom))]
            leader: std::sync::Mutex::new(None),
        }
    }

    /// The generation the next [`LoopSlot::open`] will use.
    pub(crate) fn next_generation(&self) -> u64 {
        (self.generation.load(Ordering::Relaxed) + 1) & GEN_MASK
    }

    /// Leader: opens generation [`LoopSlot::next_generation`] with `item`
    /// as its work item and returns it. The previous generation must be
    /// closed and idle (every loop ends with [`LoopSlot::close`] and
    /// [`LoopSlot::wait_idle`]).
    pub(crate) fn open(&self, item: *mut ()) -> u64 {
        let generation = self.next_generation();
        self.generation.store(generation, Ordering::Relaxed);
        self.item.store(item, Ordering::Relaxed);
        for word in self.words.iter() {
            debug_assert_eq!(
                word.load(Ordering::Relaxed) & (COUNT_MASK | OPEN),
                0,
                "slot reopened while busy"
            );
            // Release: a follower whose CAS reads this value sees the item.
            word.store(generation << GEN_SHIFT | OPEN, Ordering::Release);
        }
        generation
    }

    /// Follower on socket `socket`: joins generation `generation` if it is
    /// still open, and returns its work item. The item stays valid until the
    /// matching [`LoopSlot::leave`].
    pub(crate) fn try_enter(&self, generation: u64, socket: usize) -> Option<*mut ()> {
        let word = &self.words[socket];
        let mut current = word.load(Ordering::Relaxed);
        loop {
            if current >> GEN_SHIFT != generation || current & OPEN == 0 {
                return None;
            }
            debug_assert!(current & COUNT_MASK < COUNT_MASK, "active count overflow");
            // Acquire: pairs with the leader's release in `open` (every later
            // write of the word is a read-modify-write, so it continues that
            // release sequence).
            match word.compare_exchange_weak(current, current + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return Some(self.item.load(Ordering::Relaxed)),
                Err(seen) => current = seen,
            }
        }
    }

    /// Follower on socket `socket`: done with the loop it entered. Everything
    /// it did before happens before the leader's return from
    /// [`LoopSlot::wait_idle`].
    pub(crate) fn leave(&self, socket: usize) {
        // SeqCst (not just Release): with `leader_parked` below and the
        // leader's SeqCst store of it and loads of the words, at least one
        // side sees the other (no lost wake-up; the park has a timeout too).
        self.words[socket].fetch_sub(1, Ordering::SeqCst);
        if self.leader_parked.load(Ordering::SeqCst) {
            self.wake_leader();
        }
    }

    /// Any participant: stops generation `generation` from accepting new
    /// participants (its iterations are all claimed, or it failed). Idempotent;
    /// a no-op once the generation is over.
    pub(crate) fn close(&self, generation: u64) {
        for word in self.words.iter() {
            let mut current = word.load(Ordering::Relaxed);
            while current >> GEN_SHIFT == generation && current & OPEN != 0 {
                match word.compare_exchange_weak(
                    current,
                    current & !OPEN,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => break,
                    Err(seen) => current = seen,
                }
            }
        }
    }

    /// Whether no follower is active (every word's count is 0). SeqCst (an
    /// acquire, and the Dekker pairing with `leave`):
    /// a `true` answer makes every participant's work visible.
    fn idle(&self) -> bool {
        self.words.iter().all(|w| w.load(Ordering::SeqCst) & COUNT_MASK == 0)
    }

    /// Leader, after [`LoopSlot::close`]: waits until every follower that
    /// entered has left. Spins, then yields, then parks (woken by the last
    /// `leave`, or by a timeout).
    pub(crate) fn wait_idle(&self, budget: SpinBudget) {
        let mut backoff = Backoff::new(budget);
        while !self.idle() {
            #[cfg(not(loom))]
            if backoff.rounds() >= WAIT_ROUNDS_BEFORE_PARK {
                self.park_leader();
                continue;
            }
            backoff.snooze();
        }
    }

    #[cfg(not(loom))]
    fn park_leader(&self) {
        {
            let mut leader = self.leader.lock().unwrap_or_else(|e| e.into_inner());
            if leader.as_ref().map(std::thread::Thread::id) != Some(std::thread::current().id()) {
                *leader = Some(std::thread::current());
            }
        }
        self.leader_parked.store(true, Ordering::SeqCst);
        if !self.idle() {
            std::thread::park_timeout(std::time::Duration::from_micros(500));
        }
        self.leader_parked.store(false, Ordering::Relaxed);
    }

    #[cfg(not(loom))]
    fn wake_leader(&self) {
        if let Some(t) = self.leader.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            t.unpark();
        }
    }

    #[cfg(loom)]
    fn wake_leader(&self) {}
}
