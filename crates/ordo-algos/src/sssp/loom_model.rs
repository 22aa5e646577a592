//! Loom models of SSSP's logged plain lowering (module docs, "Memory
//! ordering"): plain stores that a concurrent store may overwrite, logged,
//! and rechecked at the second barrier after the one ending their interval.
//! Two threads pass a barrier built like the rounds' (arrive, and the last
//! to arrive opens it), and a thread waiting at it may still lower a
//! distance before it opens, as the rounds' running ahead does. The slot,
//! the lowering and the recheck are the run's own (`Lowering`, `DistSlot`,
//! `Context::recheck_plain_stores`). Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-algos --release --lib sssp::loom`.

use loom::sync::atomic::{AtomicU32, AtomicUsize};
use loom::sync::Arc;
use loom::thread;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

use ordo_exec::Context;
use ordo_graph::VertexId;

use super::{DistSlot, Lowering};

const LOGGED: Lowering = Lowering { plain: true, logged: true };

/// A barrier of two threads: the second to arrive opens it.
struct Barrier {
    arrived: AtomicUsize,
    generation: AtomicUsize,
}

impl Barrier {
    /// Arrives; returns the generation to wait for the end of, or `None` if
    /// this thread opened the barrier.
    fn arrive(&self) -> Option<usize> {
        let generation = self.generation.load(Acquire);
        if self.arrived.fetch_add(1, AcqRel) == 1 {
            self.arrived.store(0, Relaxed);
            self.generation.store(generation + 1, Release);
            None
        } else {
            Some(generation)
        }
    }

    fn wait(&self, generation: usize) {
        while self.generation.load(Acquire) == generation {
            thread::yield_now();
        }
    }
}

/// What a thread does in a round: `work` before it arrives, `ahead` after
/// arriving and before the barrier opens (only when it waits). Each is a
/// list of candidates for vertex 0.
struct Round {
    work: &'static [u64],
    ahead: &'static [u64],
}

/// What a task does to vertex 0 when it finds `candidate` for it.
fn lower(slot: &AtomicU32, ctx: &mut Context<VertexId>, candidate: u64) {
    if LOGGED.lower(slot, candidate) {
        LOGGED.log(ctx, 0, candidate);
    }
}

/// One thread's run: its rounds, each ended by the barrier and followed by
/// the recheck, the last one taking every log. Returns the smallest
/// candidate it tried (a thread that opens the barrier runs nothing ahead).
fn thread_run(slot: &AtomicU32, barrier: &Barrier, rounds: &[Round]) -> u64 {
    let mut ctx = Context::new(0);
    let mut smallest = u64::MAX;
    for (i, round) in rounds.iter().enumerate() {
        for &c in round.work {
            lower(slot, &mut ctx, c);
            smallest = smallest.min(c);
        }
        if let Some(generation) = barrier.arrive() {
            for &c in round.ahead {
                lower(slot, &mut ctx, c);
                smallest = smallest.min(c);
            }
            barrier.wait(generation);
        }
        if i + 1 == rounds.len() {
            ctx.end_store_log();
        }
        ctx.recheck_plain_stores(|c, _| slot.lower(c));
    }
    smallest
}

/// Runs the two threads' rounds (the same number each) from distance 100;
/// returns the final distance and the smallest candidate either tried.
fn run(rounds: [&'static [Round]; 2]) -> (u64, u64) {
    let slot = Arc::new(AtomicU32::new(100));
    let barrier = Arc::new(Barrier { arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) });
    let other = {
        let (slot, barrier) = (Arc::clone(&slot), Arc::clone(&barrier));
        thread::spawn(move || thread_run(&slot, &barrier, rounds[1]))
    };
    let smallest = thread_run(&slot, &barrier, rounds[0]);
    let smallest = smallest.min(other.join().expect("no panic"));
    (slot.get(), smallest.min(100))
}

const IDLE: Round = Round { work: &[], ahead: &[] };

/// Two threads lower the same vertex to 10 and 20 in one round; the larger
/// may overwrite the smaller, and a later recheck brings back 10.
#[test]
fn a_lost_lowering_is_repaired() {
    loom::model(|| {
        let a: &[Round] = &[Round { work: &[10], ahead: &[] }, IDLE];
        let b: &[Round] = &[Round { work: &[20], ahead: &[] }, IDLE];
        assert_eq!(run([a, b]), (10, 10), "a lowering was lost");
    });
}

/// A store made while waiting at the first barrier is ordered only before
/// the second, so a store of the second round can overwrite it after the
/// first barrier's recheck: the recheck must wait for the third barrier
/// (rechecked at the first, the vertex could end at 20).
#[test]
fn a_store_made_while_waiting_is_rechecked_late_enough() {
    loom::model(|| {
        let a: &[Round] = &[Round { work: &[], ahead: &[10] }, IDLE, IDLE];
        let b: &[Round] = &[IDLE, Round { work: &[20], ahead: &[] }, IDLE];
        // Thread 0 runs ahead only if it waits (if thread 1 arrives first).
        let (last, smallest) = run([a, b]);
        assert_eq!(last, smallest, "a lowering made while waiting was lost");
    });
}

/// The repair itself can be overwritten by a plain store made while it
/// runs (thread 1 lowers to 15 from the 20 it loaded before thread 0's
/// repair to 10): the repair is logged again and rechecked in turn.
/// Without that entry the vertex could end at 15.
#[test]
fn a_lost_repair_is_repaired_again() {
    loom::model(|| {
        let a: &[Round] = &[Round { work: &[10], ahead: &[] }, IDLE, IDLE, IDLE];
        let b: &[Round] = &[Round { work: &[20], ahead: &[] }, IDLE, IDLE, Round { work: &[15], ahead: &[] }];
        assert_eq!(run([a, b]), (10, 10), "a repaired lowering was lost");
    });
}
