//! Loom models of the rounds' protocol: the barrier a waiting thread may
//! leave to help, and the piles work moves through. Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-exec --release --lib rounds::loom`.

use loom::sync::atomic::AtomicU64;
use loom::sync::Arc;
use loom::thread;

use super::barrier::{Arrival, Barrier, Excused, Seat, Wake};
use super::piles::Piles;
use crate::sync::Ordering;

/// A thread's round, as the executor runs it: its own pile, then half of
/// another's, until both are empty; every task taken is counted in `ran`.
fn round_work(tid: usize, piles: &Piles<(u64, u64)>, ran: &[AtomicU64]) {
    let mut batch = Vec::new();
    loop {
        if piles.get(tid).take(1, &mut batch) == 0 && piles.steal(tid, &mut batch) == 0 {
            return;
        }
        for (_, task) in batch.drain(..) {
            ran[task as usize].fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Arrives, and while waiting leaves to help whenever a pile holds work
/// (a bounded number of looks, then a plain wait); the leader writes the
/// decision. Returns the decision this thread saw after the release.
fn arrive_and_wait(
    tid: usize,
    barrier: &Barrier,
    piles: &Piles<(u64, u64)>,
    ran: &[AtomicU64],
    decision: &AtomicU64,
    leaders: &AtomicU64,
) -> u64 {
    loop {
        let generation = match barrier.arrive() {
            Arrival::Leader => {
                leaders.fetch_add(1, Ordering::Relaxed);
                // The round is over: every task ran exactly once.
                for r in ran {
                    assert_eq!(r.load(Ordering::Relaxed), 1, "a task was left or ran twice at the barrier");
                }
                decision.store(42, Ordering::Relaxed);
                barrier.release();
                return decision.load(Ordering::Relaxed);
            }
            Arrival::Wait(g) => g,
        };
        let mut helped = false;
        for _ in 0..2 {
            if barrier.is_released(generation) {
                return decision.load(Ordering::Relaxed);
            }
            if piles.others_have_work(tid) && barrier.try_leave(generation) {
                round_work(tid, piles, ran);
                helped = true;
                break;
            }
            thread::yield_now();
        }
        if !helped {
            barrier.wait(generation).expect("not aborted");
            return decision.load(Ordering::Relaxed);
        }
    }
}

/// What the threads of a two-thread round share in the models below.
struct Round {
    piles: Piles<(u64, u64)>,
    barrier: Barrier,
    /// Runs per task.
    ran: Vec<AtomicU64>,
    decision: AtomicU64,
    leaders: AtomicU64,
}

impl Round {
    /// A round of two threads over `tasks` tasks, none run yet.
    fn new(tasks: u64) -> Arc<Round> {
        Arc::new(Round {
            piles: Piles::new(2),
            barrier: Barrier::new(2),
            ran: (0..tasks).map(|_| AtomicU64::new(0)).collect(),
            decision: AtomicU64::new(0),
            leaders: AtomicU64::new(0),
        })
    }

    fn round_work(&self, tid: usize) {
        round_work(tid, &self.piles, &self.ran);
    }

    fn arrive_and_wait(&self, tid: usize) -> u64 {
        arrive_and_wait(tid, &self.barrier, &self.piles, &self.ran, &self.decision, &self.leaders)
    }
}

/// Thread 0 owns all the work; thread 1 has none and goes to the barrier at
/// once, then leaves it to help. Exactly one leader, every task exactly
/// once before the decision, and both threads see the decision.
#[test]
fn loom_rounds_barrier_with_helping_runs_every_task_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let round = Round::new(3);
        let mut tasks: Vec<(u64, u64)> = (0..3).map(|t| (0, t)).collect();
        round.piles.get(0).put(&mut tasks);
        let handles: Vec<_> = (0..2)
            .map(|tid| {
                let round = round.clone();
                thread::spawn(move || {
                    if tid == 0 {
                        round.round_work(tid);
                    }
                    round.arrive_and_wait(tid)
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 42, "a thread left the barrier without the decision");
        }
        assert_eq!(round.leaders.load(Ordering::Relaxed), 1);
    });
}

/// Two generations in a row: the second barrier is not confused with the
/// first (the generation in the state word), one leader each.
#[test]
fn loom_rounds_barrier_two_generations_one_leader_each() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let barrier = Arc::new(Barrier::new(2));
        let leaders = Arc::new(AtomicU64::new(0));
        let seen = Arc::new(AtomicU64::new(0));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let (barrier, leaders, seen) = (barrier.clone(), leaders.clone(), seen.clone());
                thread::spawn(move || {
                    for round in 1..=2u64 {
                        match barrier.arrive() {
                            Arrival::Leader => {
                                leaders.fetch_add(1, Ordering::Relaxed);
                                seen.store(round, Ordering::Relaxed);
                                barrier.release();
                            }
                            Arrival::Wait(g) => {
                                barrier.wait(g).expect("not aborted");
                            }
                        }
                        assert_eq!(seen.load(Ordering::Relaxed), round, "released before the decision");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(leaders.load(Ordering::Relaxed), 2);
    });
}

/// A pile's owner takes chunks while a thief takes halves and puts them in
/// its own pile: every task leaves exactly once.
#[test]
fn loom_rounds_pile_tasks_leave_exactly_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let piles = Arc::new(Piles::<(u64, u64)>::new(2));
        let ran: Arc<Vec<AtomicU64>> = Arc::new((0..4).map(|_| AtomicU64::new(0)).collect());
        let mut tasks: Vec<(u64, u64)> = (0..4).map(|t| (0, t)).collect();
        piles.get(0).put(&mut tasks);
        let thief = {
            let (piles, ran) = (piles.clone(), ran.clone());
            thread::spawn(move || {
                let mut batch = Vec::new();
                if piles.steal(1, &mut batch) > 0 {
                    piles.get(1).put(&mut batch);
                }
                round_work(1, &piles, &ran);
            })
        };
        round_work(0, &piles, &ran);
        thief.join().unwrap();
        // Anything a late steal left in a pile is taken now.
        round_work(0, &piles, &ran);
        for r in ran.iter() {
            assert_eq!(r.load(Ordering::Relaxed), 1);
        }
    });
}

/// Work filed while the other thread sleeps at the barrier wakes it: thread
/// 0 files two tasks into its pile once thread 1 is at the barrier (asleep
/// or not yet), then waits (without taking them itself) until thread 1 ran them.
/// A lost wake-up leaves thread 1 asleep and thread 0 waiting forever, which
/// loom reports. (Removing the fence of `notify_work` or of the sleeper's
/// registration makes this model fail.)
#[test]
fn loom_rounds_work_filed_while_a_thread_sleeps_wakes_it() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let piles = Arc::new(Piles::<(u64, u64)>::new(2));
        let barrier = Arc::new(Barrier::new(2));
        let ran: Arc<Vec<AtomicU64>> = Arc::new((0..2).map(|_| AtomicU64::new(0)).collect());
        let waiting = Arc::new(AtomicU64::new(0));
        let helper = {
            let (piles, barrier, ran, waiting) =
                (piles.clone(), barrier.clone(), ran.clone(), waiting.clone());
            thread::spawn(move || {
                let Arrival::Wait(generation) = barrier.arrive() else { panic!("thread 0 has not arrived") };
                waiting.store(1, Ordering::Relaxed);
                loop {
                    let (wake, _) =
                        barrier.wait_or_work(generation, || piles.others_have_work(1)).expect("not aborted");
                    match wake {
                        Wake::Released => return,
                        Wake::Work => {
                            assert!(barrier.try_leave(generation), "thread 0 has not arrived");
                            round_work(1, &piles, &ran);
                            if barrier.arrive() == Arrival::Leader {
                                barrier.release();
                                return;
                            }
                        }
                    }
                }
            })
        };
        // File the work only once thread 1 is at the barrier, so that it
        // may already be asleep.
        while waiting.load(Ordering::Relaxed) == 0 {
            thread::yield_now();
        }
        let mut tasks: Vec<(u64, u64)> = (0..2).map(|t| (0, t)).collect();
        piles.get(0).put(&mut tasks);
        barrier.notify_work();
        // Only thread 1 can run them.
        while ran.iter().any(|r| r.load(Ordering::Relaxed) == 0) {
            thread::yield_now();
        }
        match barrier.arrive() {
            Arrival::Leader => barrier.release(),
            Arrival::Wait(g) => {
                barrier.wait(g).expect("not aborted");
            }
        }
        helper.join().unwrap();
        for r in ran.iter() {
            assert_eq!(r.load(Ordering::Relaxed), 1);
        }
    });
}

/// A bucket run privately is shared only when a thread waits: thread 0 runs
/// its own bucket of three tasks, looking before each task whether a thread
/// waits at the barrier, and if so files the rest into its pile and wakes
/// it (as `run_own_bucket` does); thread 1 has nothing, arrives at once and
/// leaves the barrier to help when it finds work. Exactly one leader, every
/// task exactly once before the decision, both see the decision.
#[test]
fn loom_rounds_own_bucket_shared_with_a_waiting_thread_runs_every_task_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let round = Round::new(3);
        let helper = {
            let round = round.clone();
            thread::spawn(move || round.arrive_and_wait(1))
        };
        let mut bucket: Vec<(u64, u64)> = (0..3).map(|t| (0, t)).collect();
        let mut tasks = bucket.drain(..);
        let mut rest = Vec::new();
        while let Some((_, task)) = tasks.next() {
            round.ran[task as usize].fetch_add(1, Ordering::Relaxed);
            if tasks.len() > 0 && round.barrier.has_waiters() {
                rest.extend(tasks.by_ref());
                round.piles.get(0).put(&mut rest);
                round.barrier.notify_work();
            }
        }
        drop(tasks);
        round.round_work(0);
        let seen = round.arrive_and_wait(0);
        assert_eq!(seen, 42, "thread 0 left the barrier without the decision");
        assert_eq!(helper.join().unwrap(), 42, "thread 1 left the barrier without the decision");
        assert_eq!(round.leaders.load(Ordering::Relaxed), 1);
    });
}

/// What the models of excusing a stalled thread share: the barrier with its
/// seats, each thread's report (tasks it still holds), runs per task, the
/// leaders' count and the run's end.
struct Seated {
    barrier: Barrier,
    queued: Vec<AtomicU64>,
    ran: Vec<AtomicU64>,
    leaders: AtomicU64,
    done: AtomicU64,
}

impl Seated {
    fn new(threads: usize) -> Arc<Seated> {
        Arc::new(Seated {
            barrier: Barrier::new(threads),
            queued: (0..threads).map(|_| AtomicU64::new(0)).collect(),
            ran: (0..threads).map(|_| AtomicU64::new(0)).collect(),
            leaders: AtomicU64::new(0),
            done: AtomicU64::new(0),
        })
    }

    /// The leader's part, as `Shared::lead` does it: a report counts only
    /// from a thread that is not excused, and the run ends only when none
    /// is excused and nothing is queued; with nothing queued and a thread
    /// excused, wait for it to come back.
    fn lead(&self) {
        self.leaders.fetch_add(1, Ordering::Relaxed);
        loop {
            let (mut queued, mut excused) = (0, 0);
            for tid in 0..self.queued.len() {
                if self.barrier.seat_of(tid) == Seat::Excused {
                    excused += 1;
                } else {
                    queued += self.queued[tid].load(Ordering::Relaxed);
                }
            }
            if queued == 0 && excused > 0 {
                thread::yield_now();
                continue;
            }
            if queued == 0 {
                // Every task ran, exactly once, before the run ends.
                for r in &self.ran {
                    assert_eq!(r.load(Ordering::Relaxed), 1, "a task was left or ran twice");
                }
                self.done.store(1, Ordering::Relaxed);
            }
            break;
        }
        self.barrier.reseat();
        self.barrier.release();
    }

    /// A thread's arrival, as `arrive_and_wait` does it (without helping):
    /// its own arrival or, if it was excused, coming back; a waiter excuses
    /// the thread `excuse` (if any) once, as if it had seen it stand still.
    fn arrive(&self, tid: usize, excuse: Option<usize>) {
        match self.barrier.arrive_seated(tid) {
            Ok(Arrival::Leader) => self.lead(),
            Ok(Arrival::Wait(generation)) => {
                if let Some(laggard) = excuse {
                    if self.barrier.excuse(laggard, generation) == Some(Arrival::Leader) {
                        self.lead();
                        return;
                    }
                }
                self.barrier.wait(generation).expect("not aborted");
            }
            Err(Excused) => {
                self.barrier.come_back(tid).expect("not aborted");
            }
        }
    }

    /// Runs thread `tid`'s task (once: it is in its private buckets, which
    /// only it touches) when `round` is `task_round`, then reports and
    /// arrives, round after round until the run ends.
    fn rounds(&self, tid: usize, task_round: u64, excuse: Option<usize>) {
        let mut round = 0;
        loop {
            if round == task_round {
                self.ran[tid].fetch_add(1, Ordering::Relaxed);
            }
            let left = u64::from(round < task_round);
            self.queued[tid].store(left, Ordering::Relaxed);
            self.arrive(tid, excuse);
            if self.done.load(Ordering::Relaxed) == 1 {
                return;
            }
            round += 1;
        }
    }
}

/// Thread 0 runs its one task and arrives while thread 1, which ran its
/// own and waits at the
/// barrier, excuses it (as if it had stalled): whichever of the two
/// compare-and-swaps on its seat wins, thread 0 is counted once, its task
/// runs once, its report counts before the run ends (the leader waits for
/// it to come back), one leader per generation, and both threads see the
/// end.
#[test]
fn loom_rounds_an_excused_thread_is_counted_once_and_its_task_runs_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let s = Seated::new(2);
        let laggard = {
            let s = s.clone();
            thread::spawn(move || s.rounds(0, 0, None))
        };
        s.rounds(1, 0, Some(0));
        laggard.join().unwrap();
        assert_eq!(s.done.load(Ordering::Relaxed), 1);
    });
}

/// Rounds go on without the excused thread: thread 1 has a task for the
/// second round and excuses thread 0 in every round it waits in; thread 0's
/// task runs in the first. Thread 0 may be excused, come back, be seated
/// and be excused again before it sees its seat; every task still runs
/// once and the run ends on both threads.
#[test]
fn loom_rounds_go_on_without_an_excused_thread_and_seat_it_again() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let s = Seated::new(2);
        let laggard = {
            let s = s.clone();
            thread::spawn(move || s.rounds(0, 0, None))
        };
        s.rounds(1, 1, Some(0));
        laggard.join().unwrap();
        assert_eq!(s.done.load(Ordering::Relaxed), 1);
    });
}
