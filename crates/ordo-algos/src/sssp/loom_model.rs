//! Loom models of SSSP's logged plain lowering (module docs, "Memory
//! ordering"): plain stores that a concurrent store may overwrite, logged,
//! and rechecked at the second barrier after the one ending their interval;
//! or, where every lowered vertex gets a task, not logged at the store but
//! by the task when it runs and is not stale.
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
/// list of its protocol's items: candidates for vertex 0 ([`StoreLogs`]) or
/// steps ([`TaskLogs`]).
struct Round<I: 'static> {
    work: &'static [I],
    ahead: &'static [I],
}

/// What a task does to vertex 0 when it finds `candidate` for it.
fn lower(slot: &AtomicU32, ctx: &mut Context<VertexId>, candidate: u64) {
    if LOGGED.lower(slot, candidate) {
        LOGGED.log(ctx, 0, candidate);
    }
}

/// What a task `(candidate, 0)` does when it runs, where its lowering was
/// not logged (the operator's path without following): a stale task (the
/// vertex holds less) does nothing; one that finds more repairs it; one
/// that is not stale logs itself.
fn run_task(slot: &AtomicU32, ctx: &mut Context<VertexId>, candidate: u64) {
    let current = slot.get();
    if candidate > current {
        return;
    }
    if candidate < current {
        slot.lower(candidate);
    }
    LOGGED.log(ctx, 0, candidate);
}

/// A step of a thread whose lowerings each leave a task: a lowering (a
/// plain store, not logged) queues its task, and `Run` runs the oldest
/// queued task.
#[derive(Clone, Copy)]
enum Step {
    Lower(u64),
    Run,
}

/// How a thread's lowerings are made exact.
trait Protocol {
    /// What a round lists for a thread.
    type Item: Copy + 'static;
    /// Does `item`; the candidate it tried, if it lowered.
    fn step(&mut self, slot: &AtomicU32, ctx: &mut Context<VertexId>, item: Self::Item) -> Option<u64>;
}

/// Each plain store logged at once.
struct StoreLogs;

impl Protocol for StoreLogs {
    type Item = u64;
    fn step(&mut self, slot: &AtomicU32, ctx: &mut Context<VertexId>, c: u64) -> Option<u64> {
        lower(slot, ctx, c);
        Some(c)
    }
}

/// Plain stores unlogged, each queueing a task that logs itself.
#[derive(Default)]
struct TaskLogs {
    queued: std::collections::VecDeque<u64>,
}

impl Protocol for TaskLogs {
    type Item = Step;
    fn step(&mut self, slot: &AtomicU32, ctx: &mut Context<VertexId>, step: Step) -> Option<u64> {
        match step {
            Step::Lower(c) => {
                if LOGGED.unlogged().lower(slot, c) {
                    self.queued.push_back(c);
                }
                Some(c)
            }
            Step::Run => {
                if let Some(c) = self.queued.pop_front() {
                    run_task(slot, ctx, c);
                }
                None
            }
        }
    }
}

/// One thread's run: its rounds, each ended by the barrier and followed by
/// the recheck, the last one taking every log. Returns the smallest
/// candidate it tried (a thread that opens the barrier runs nothing ahead).
fn thread_run<P: Protocol>(
    slot: &AtomicU32,
    barrier: &Barrier,
    mut protocol: P,
    rounds: &[Round<P::Item>],
) -> u64 {
    let mut ctx = Context::new(0);
    let mut smallest = u64::MAX;
    for (i, round) in rounds.iter().enumerate() {
        for &item in round.work {
            if let Some(c) = protocol.step(slot, &mut ctx, item) {
                smallest = smallest.min(c);
            }
        }
        if let Some(generation) = barrier.arrive() {
            for &item in round.ahead {
                if let Some(c) = protocol.step(slot, &mut ctx, item) {
                    smallest = smallest.min(c);
                }
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

/// Runs two threads (the same number of rounds each) from distance 100;
/// returns the final distance and the smallest candidate either tried.
fn run_threads<P>(protocols: [P; 2], rounds: [&'static [Round<P::Item>]; 2]) -> (u64, u64)
where
    P: Protocol + Send + 'static,
    P::Item: Sync,
{
    let slot = Arc::new(AtomicU32::new(100));
    let barrier = Arc::new(Barrier { arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) });
    let [first, second] = protocols;
    let other = {
        let (slot, barrier) = (Arc::clone(&slot), Arc::clone(&barrier));
        thread::spawn(move || thread_run(&slot, &barrier, second, rounds[1]))
    };
    let smallest = thread_run(&slot, &barrier, first, rounds[0]);
    let smallest = smallest.min(other.join().expect("no panic"));
    (slot.get(), smallest.min(100))
}

/// [`run_threads`] with every store logged.
fn run(rounds: [&'static [Round<u64>]; 2]) -> (u64, u64) {
    run_threads([StoreLogs, StoreLogs], rounds)
}

/// [`run_threads`] with the tasks logging.
fn run_tasks(rounds: [&'static [Round<Step>]; 2]) -> (u64, u64) {
    run_threads([TaskLogs::default(), TaskLogs::default()], rounds)
}

const IDLE: Round<u64> = Round { work: &[], ahead: &[] };

/// Two threads lower the same vertex to 10 and 20 in one round; the larger
/// may overwrite the smaller, and a later recheck brings back 10.
#[test]
fn a_lost_lowering_is_repaired() {
    loom::model(|| {
        let a: &[Round<u64>] = &[Round { work: &[10], ahead: &[] }, IDLE];
        let b: &[Round<u64>] = &[Round { work: &[20], ahead: &[] }, IDLE];
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
        let a: &[Round<u64>] = &[Round { work: &[], ahead: &[10] }, IDLE, IDLE];
        let b: &[Round<u64>] = &[IDLE, Round { work: &[20], ahead: &[] }, IDLE];
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
        let a: &[Round<u64>] = &[Round { work: &[10], ahead: &[] }, IDLE, IDLE, IDLE];
        let b: &[Round<u64>] =
            &[Round { work: &[20], ahead: &[] }, IDLE, IDLE, Round { work: &[15], ahead: &[] }];
        assert_eq!(run([a, b]), (10, 10), "a repaired lowering was lost");
    });
}

const TASK_IDLE: Round<Step> = Round { work: &[], ahead: &[] };
use Step::{Lower, Run};

/// Tasks logging instead of stores: two threads lower the same vertex to
/// 10 and 20 and run their tasks in the same round (fused); the larger
/// store may overwrite the smaller after the smaller's task ran, and the
/// task's entry brings back 10.
#[test]
fn a_lowering_lost_after_its_task_ran_is_repaired() {
    loom::model(|| {
        let a: &[Round<Step>] = &[Round { work: &[Lower(10), Run], ahead: &[] }, TASK_IDLE];
        let b: &[Round<Step>] = &[Round { work: &[Lower(20), Run], ahead: &[] }, TASK_IDLE];
        assert_eq!(run_tasks([a, b]), (10, 10), "a lowering was lost");
    });
}

/// Tasks logging: the task of 10 runs a round after its store, while the
/// other thread's store of 20 may come at any point of the first round or
/// while it waits; the task either repairs or logs itself.
#[test]
fn a_task_run_a_round_later_covers_its_store() {
    loom::model(|| {
        let a: &[Round<Step>] =
            &[Round { work: &[Lower(10)], ahead: &[] }, Round { work: &[Run], ahead: &[] }, TASK_IDLE];
        let b: &[Round<Step>] = &[Round { work: &[], ahead: &[Lower(20), Run] }, TASK_IDLE, TASK_IDLE];
        let (last, smallest) = run_tasks([a, b]);
        assert_eq!(last, smallest, "a lowering was lost");
    });
}

/// Tasks logging: a store and its task made while waiting at the first
/// barrier, the other thread's store in the second round; the task's entry
/// must be rechecked after the third barrier, as a store's.
#[test]
fn a_task_run_while_waiting_is_rechecked_late_enough() {
    loom::model(|| {
        let a: &[Round<Step>] = &[Round { work: &[], ahead: &[Lower(10), Run] }, TASK_IDLE, TASK_IDLE];
        let b: &[Round<Step>] = &[TASK_IDLE, Round { work: &[Lower(20), Run], ahead: &[] }, TASK_IDLE];
        let (last, smallest) = run_tasks([a, b]);
        assert_eq!(last, smallest, "a lowering made while waiting was lost");
    });
}
