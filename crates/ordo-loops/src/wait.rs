//! Busy-waiting for the short waits of the loop protocols: a combiner lock
//! held by another thread, a batch being handed over, the last participants
//! of a loop finishing their batches.
//!
//! A waiter spins with exponentially growing pauses for a few rounds and then
//! yields its core on every further round. Callisto-RTS spins (it "assumes
//! exclusive use of h/w contexts", §2.1; on SPARC it pauses 128 cycles per
//! round with `wrpause`, §4); ordo also runs with more threads than cores
//! (tests, shared machines), where a spinning waiter would keep the thread it
//! waits for off the core. The runtime therefore sets the spin budget to 0
//! when it is oversubscribed, and waits that may last long (an idle follower
//! waiting for the next loop, a leader waiting at the end of a loop) park
//! after a while (`runtime.rs`).

/// How many rounds a [`Backoff`] spins before it starts yielding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpinBudget(pub(crate) u32);

impl SpinBudget {
    /// Spinning for up to 2^0 + … + 2^9 ≈ 1000 pause instructions before
    /// yielding: about a microsecond, the length of a fine-grained batch.
    pub(crate) const DEFAULT: SpinBudget = SpinBudget(10);
    /// Yield at once: for oversubscribed runs.
    pub(crate) const NONE: SpinBudget = SpinBudget(0);
}

/// One wait in progress.
pub(crate) struct Backoff {
    round: u32,
    budget: u32,
}

impl Backoff {
    /// A fresh wait with the given spin budget.
    #[inline]
    pub(crate) fn new(budget: SpinBudget) -> Self {
        Backoff { round: 0, budget: budget.0 }
    }

    /// Waits a little: `2^round` pause instructions while within the spin
    /// budget, a yield of the core afterwards. Under loom, a yield (so that
    /// the model checker explores the other threads).
    #[inline]
    pub(crate) fn snooze(&mut self) {
        #[cfg(loom)]
        {
            loom::thread::yield_now();
        }
        #[cfg(not(loom))]
        {
            if self.round < self.budget {
                for _ in 0..(1u32 << self.round) {
                    std::hint::spin_loop();
                }
            } else {
                std::thread::yield_now();
            }
        }
        self.round = self.round.saturating_add(1);
    }

    /// How many times [`Backoff::snooze`] was called.
    #[inline]
    pub(crate) fn rounds(&self) -> u32 {
        self.round
    }
}
