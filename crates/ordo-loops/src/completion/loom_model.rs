//! Loom model of loop completion: a leader publishes a loop whose work item
//! lives on its "stack" (a loom `UnsafeCell` it overwrites after the loop,
//! standing for the stack frame being reused), followers join through the
//! slot, every participant claims iterations from a shared counter, and the
//! leader closes the loop and waits at the barrier.
//!
//! Checked: no follower reads the work item after the leader's barrier
//! (loom reports the conflicting accesses otherwise), every iteration runs
//! exactly once, and every participant's writes are visible to the leader
//! after the barrier (read with relaxed loads, so only the protocol's
//! happens-before makes them visible). A follower holding the value of an
//! older loop cannot join a newer one.
//!
//! Run: `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ordo-loops --release --lib loom`

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

use super::LoopSlot;
use crate::distribute::shared::SharedCounter;
use crate::wait::SpinBudget;

/// What a published loop consists of in the model: the work item on the
/// leader's stack, the counter of its iterations, and per-iteration run
/// counts.
struct Model {
    slot: LoopSlot,
    /// The published `generation` (0: none yet), as a location.
    location: AtomicU64,
    item: UnsafeCell<u64>,
    counter: SharedCounter,
    runs: Vec<AtomicU64>,
}

/// A participant's share: claims single iterations until none is left,
/// reading the work item for each, then closes the loop.
fn participate(m: &Model, generation: u64) {
    while let Some(r) = m.counter.claim(1) {
        let seen = m.item.with(|p| unsafe { *p });
        assert_eq!(seen, generation, "the work item of this loop");
        for i in r {
            let c = &m.runs[i as usize];
            c.store(c.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
    }
    m.slot.close(generation);
}

fn follower(m: Arc<Model>, socket: usize) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        // Relaxed: the slot alone must order the work item before its use
        // (the runtime's locations happen to synchronise too).
        let generation = m.location.load(Ordering::Relaxed);
        if generation == 0 {
            return;
        }
        if m.slot.try_enter(generation, socket).is_some() {
            // As the runtime does: read the work item as soon as entered.
            let seen = m.item.with(|p| unsafe { *p });
            assert_eq!(seen, generation, "the work item of the loop entered");
            participate(&m, generation);
            m.slot.leave(socket);
        }
    })
}

/// Explores the model with `followers` followers; with two, every
/// interleaving with up to 2 preemptions (the wait loops make the full space
/// too large).
fn model(iterations: u64, sockets: usize, followers: usize) {
    let mut builder = loom::model::Builder::new();
    if followers > 1 {
        builder.preemption_bound = builder.preemption_bound.or(Some(2));
    }
    builder.check(move || {
        let m = Arc::new(Model {
            slot: LoopSlot::new(sockets),
            location: AtomicU64::new(0),
            item: UnsafeCell::new(0),
            counter: SharedCounter::new(0..iterations),
            runs: (0..iterations).map(|_| AtomicU64::new(0)).collect(),
        });
        let handles: Vec<_> = (0..followers).map(|f| follower(m.clone(), f % sockets)).collect();
        // The leader: fill the item, open, publish, take part, close, wait.
        let generation = m.slot.next_generation();
        m.item.with_mut(|p| unsafe { *p = generation });
        let opened = m.slot.open(std::ptr::null_mut());
        assert_eq!(opened, generation);
        m.location.store(generation, Ordering::Release);
        participate(&m, generation);
        m.slot.close(generation);
        m.slot.wait_idle(SpinBudget::NONE);
        for (i, c) in m.runs.iter().enumerate() {
            assert_eq!(c.load(Ordering::Relaxed), 1, "iteration {i} ran once and its run is visible");
        }
        // The stack frame is reused: no follower may read the item now.
        m.item.with_mut(|p| unsafe { *p = u64::MAX });
        for h in handles {
            h.join().unwrap();
        }
    });
}

#[test]
fn loom_completion_one_follower() {
    model(2, 1, 1);
}

#[test]
fn loom_completion_two_followers_two_sockets() {
    model(2, 2, 2);
}

#[test]
fn loom_completion_two_followers_one_socket() {
    model(1, 1, 2);
}

/// Two loops in a row on one slot; the follower may read the first loop's
/// value late, when the second is open. It must then stay out (or, having
/// entered the first, delay the first barrier).
#[test]
fn loom_completion_stale_value_cannot_join_the_next_loop() {
    loom::model(|| {
        let slot = Arc::new(LoopSlot::new(1));
        let location = Arc::new(AtomicU64::new(0));
        let item = Arc::new(UnsafeCell::new(0u64));
        let follower = {
            let (slot, location, item) = (slot.clone(), location.clone(), item.clone());
            thread::spawn(move || {
                let generation = location.load(Ordering::Relaxed);
                if generation != 0 && slot.try_enter(generation, 0).is_some() {
                    let seen = item.with(|p| unsafe { *p });
                    assert_eq!(seen, generation, "joined generation {generation} but saw the item of {seen}");
                    slot.leave(0);
                }
            })
        };
        for _ in 0..2 {
            let generation = slot.next_generation();
            item.with_mut(|p| unsafe { *p = generation });
            slot.open(std::ptr::null_mut());
            location.store(generation, Ordering::Release);
            slot.close(generation);
            slot.wait_idle(SpinBudget::NONE);
        }
        item.with_mut(|p| unsafe { *p = u64::MAX });
        follower.join().unwrap();
    });
}
