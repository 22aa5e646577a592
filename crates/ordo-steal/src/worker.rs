//! Frames, the worker handle they run with, and each worker's scheduling
//! loop: pop from the own now-deque, check out when it is empty, then steal
//! from random victims or follow the barrier into the next phase.
//!
//! XWS (Cong et al., ICPP 2008, §2.1): frames are *stashed* on the deque
//! ("task stashing": `pushFrame`, then return) rather than run as
//! subroutines with continuations, so no frame ever waits for another and
//! termination is global quiescence (§2.2), not a join.

use crossbeam_utils::CachePadded;

use crate::quiescence::{CheckOut, Quiescence};
use crate::sleep::{Sleep, Waited};
use crate::sync::{self, deque, Mutex};

/// An activity: a unit of work that runs once on some worker and may create
/// more frames, for this phase ([`Worker::push`]) or the next
/// ([`Worker::push_next`]).
///
/// Frames are values moved through the deques, so keep them small (a few
/// words: a batch head and a reference to shared state, say); the job that
/// runs them may borrow from the caller's stack.
pub trait Frame: Send + Sized {
    /// Per-worker state of the job, handed to [`Worker::local`] and returned
    /// in [`JobReport::locals`](crate::JobReport::locals) (counters, the
    /// batch estimate of a phased search, ...). `()` when not needed.
    type Local: Send;

    /// Runs the frame on `worker`.
    fn compute(self, worker: &mut Worker<'_, Self>);

    /// Called when `worker`'s now-deque has run empty, before the worker
    /// leaves the check count: the place to push what frames collected in
    /// [`Worker::local`] across frames (a partly filled batch, say). Frames
    /// it pushes with [`Worker::push`] keep the worker working. The default
    /// does nothing.
    fn on_empty(worker: &mut Worker<'_, Self>) {
        let _ = worker;
    }
}

/// Counters of one worker in one job. Plain fields, merged after the job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Frames this worker ran.
    pub frames: u64,
    /// Frames pushed to the now-deque.
    pub pushes: u64,
    /// Frames pushed to the next-deque.
    pub pushes_next: u64,
    /// Frames taken from other workers.
    pub steals: u64,
    /// Victims tried (non-empty when looked at).
    pub steal_attempts: u64,
    /// Steal rounds over all victims that found nothing.
    pub failed_rounds: u64,
    /// Times this worker parked on the condition variable.
    pub parks: u64,
    /// Times this worker left the check count (its now-deque ran empty).
    pub check_outs: u64,
    /// Barrier actions this worker ran (phase advances plus the final one).
    pub barriers: u64,
    /// Phases this worker jumped over without taking part (XWS §2.3).
    pub phases_skipped: u64,
}

impl WorkerStats {
    /// Adds `other`'s counters to `self`.
    pub fn merge(&mut self, other: &WorkerStats) {
        self.frames += other.frames;
        self.pushes += other.pushes;
        self.pushes_next += other.pushes_next;
        self.steals += other.steals;
        self.steal_attempts += other.steal_attempts;
        self.failed_rounds += other.failed_rounds;
        self.parks += other.parks;
        self.check_outs += other.check_outs;
        self.barriers += other.barriers;
        self.phases_skipped += other.phases_skipped;
    }
}

/// What thieves see of one worker: its now-deque's stealing end and the lock
/// that XWS's thieves take before stealing (§2.1, the "modified Dekker
/// protocol"): it orders a thief's check-in before the victim's check-out.
pub(crate) struct Slot<F> {
    pub(crate) thief: deque::Thief<F>,
    pub(crate) steal_lock: Mutex<()>,
}

/// The shared state of one job.
pub(crate) struct JobState<F> {
    pub(crate) slots: Box<[CachePadded<Slot<F>>]>,
    pub(crate) quiescence: Quiescence,
    pub(crate) sleep: Sleep,
}

impl<F> JobState<F> {
    /// A job on `thieves.len()` workers, of which `counted` start with
    /// frames in their now-deques.
    pub(crate) fn new(thieves: Vec<deque::Thief<F>>, counted: usize) -> Self {
        let slots = thieves
            .into_iter()
            .map(|thief| CachePadded::new(Slot { thief, steal_lock: Mutex::new(()) }))
            .collect();
        JobState { slots, quiescence: Quiescence::new(counted), sleep: Sleep::new() }
    }
}

/// What a worker starts a job with.
pub(crate) struct Seed<F: Frame> {
    /// Its now-deque, holding its share of the job's initial frames.
    pub(crate) now: deque::Owner<F>,
    /// Its local state.
    pub(crate) local: F::Local,
    /// Whether it holds initial frames (and so is counted from the start).
    pub(crate) counted: bool,
}

/// The worker running a frame: where the frame pushes new frames, and the
/// facts adaptive batching needs (the now-deque's size, the phase).
pub struct Worker<'j, F: Frame> {
    index: usize,
    job: &'j JobState<F>,
    now: deque::Owner<F>,
    /// Frames for the next phase: private, never stolen, moved to the
    /// now-deque when this worker enters the next phase.
    next: Vec<F>,
    /// The phase this worker is in (the barrier's phase whenever it is
    /// counted; it may lag behind while it is idle).
    phase: u64,
    /// Announced next-phase work to the barrier in this phase.
    announced: bool,
    rng: u64,
    local: F::Local,
    stats: WorkerStats,
}

impl<'j, F: Frame> Worker<'j, F> {
    /// This worker's index, `0..threads`.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// Workers in the pool.
    #[inline]
    pub fn threads(&self) -> usize {
        self.job.slots.len()
    }

    /// The current phase (0 for the job's initial frames; one more for each
    /// barrier passed). Frames run in the phase they were pushed for.
    #[inline]
    pub fn phase(&self) -> u64 {
        self.phase
    }

    /// Frames waiting in this worker's now-deque: the `Q` of adaptive
    /// batching (XWS §3.3), a cheap local estimate of stealing pressure.
    #[inline]
    pub fn now_len(&self) -> usize {
        self.now.len()
    }

    /// Frames waiting in this worker's next-deque.
    #[inline]
    pub fn next_len(&self) -> usize {
        self.next.len()
    }

    /// This worker's local state.
    #[inline]
    pub fn local(&mut self) -> &mut F::Local {
        &mut self.local
    }

    /// Stashes `frame` for this phase (XWS `pushFrame`): this worker pops
    /// it later (LIFO) unless a thief takes it first (oldest first).
    #[inline]
    pub fn push(&mut self, frame: F) {
        self.now.push(frame);
        self.stats.pushes += 1;
        self.job.sleep.wake_one();
    }

    /// Stashes `frame` for the next phase (XWS `pushFrameNext`): it runs
    /// after every frame of this phase has run.
    #[inline]
    pub fn push_next(&mut self, frame: F) {
        self.next.push(frame);
        self.stats.pushes_next += 1;
    }

    /// Runs frames from the own now-deque until it is empty and
    /// [`Frame::on_empty`] pushes no more.
    fn drain(&mut self) {
        loop {
            while let Some(frame) = self.now.pop() {
                self.stats.frames += 1;
                frame.compute(self);
            }
            F::on_empty(self);
            if self.now.len() == 0 {
                return;
            }
        }
    }

    /// Leaves the check count: the now-deque is empty and no frame runs.
    fn check_out(&mut self) {
        // Handshake (README, "Why the count stays positive"): a thief that
        // took our last frame holds our steal lock until it has checked in;
        // taking the lock once orders its check-in before our check-out.
        drop(sync::lock(&self.job.slots[self.index].steal_lock));
        let q = &self.job.quiescence;
        if !self.next.is_empty() && !self.announced {
            self.announced = true;
            q.announce_next();
        }
        self.stats.check_outs += 1;
        match q.check_out() {
            CheckOut::PhaseGoesOn => {}
            CheckOut::Advanced(_) | CheckOut::Finished => {
                self.stats.barriers += 1;
                self.job.sleep.wake_all();
            }
        }
    }

    /// Moves to phase `phase` (newer than ours), as XWS workers do when
    /// they see the barrier moved (§2.3): the next-deque becomes the
    /// now-deque. Returns whether the barrier counted this worker in the new
    /// phase, i.e. whether it announced next-phase work. A worker that did
    /// not may have jumped several phases; one that did cannot have (the
    /// barrier waits for its check-out in the phase after the announcement).
    fn enter_phase(&mut self, phase: u64) -> bool {
        debug_assert!(phase > self.phase, "phases only move forward");
        let counted = self.announced;
        debug_assert!(!counted || phase == self.phase + 1, "a counted worker cannot miss a phase");
        debug_assert_eq!(counted, !self.next.is_empty(), "announced exactly when next-phase work exists");
        self.stats.phases_skipped += phase - self.phase - 1;
        self.phase = phase;
        self.announced = false;
        for frame in self.next.drain(..) {
            self.now.push(frame);
        }
        counted
    }

    /// Looks for work while idle: follows the barrier, steals. Returns true
    /// with this worker counted and frames in its now-deque, or false when
    /// the job is over.
    fn find_work(&mut self) -> bool {
        let mut round = 0u32;
        loop {
            let q = &self.job.quiescence;
            if q.is_done() {
                return false;
            }
            let phase = q.phase();
            if phase != self.phase && self.enter_phase(phase) {
                return true;
            }
            if self.steal_round() {
                return true;
            }
            self.stats.failed_rounds += 1;
            let mine = self.phase;
            let q = &self.job.quiescence;
            if self.job.sleep.back_off(round, || q.is_done() || q.phase() != mine) == Waited::Parked {
                self.stats.parks += 1;
            }
            round = round.saturating_add(1);
        }
    }

    /// One pass over the other workers from a random start, skipping empty
    /// and contended victims (XWS's thief loop, one pass). On success the
    /// stolen frame is in our now-deque and we are counted.
    fn steal_round(&mut self) -> bool {
        let n = self.job.slots.len();
        if n == 1 {
            return false;
        }
        let start = (self.next_random() % n as u64) as usize;
        for i in 0..n {
            let victim = (start + i) % n;
            if victim == self.index {
                continue;
            }
            let slot = &self.job.slots[victim];
            if slot.thief.is_empty() {
                continue;
            }
            self.stats.steal_attempts += 1;
            let Some(guard) = sync::try_lock(&slot.steal_lock) else {
                continue;
            };
            if let deque::Stolen::Frame(frame) = slot.thief.steal() {
                // The victim is counted and cannot check out while we hold its
                // lock, so the phase cannot move now: the frame belongs to
                // the barrier's current phase. If we lag behind, catch up
                // first; the barrier may already count us for that phase.
                let q = &self.job.quiescence;
                let phase = q.phase();
                let counted = phase != self.phase && self.enter_phase(phase);
                if !counted {
                    q.check_in();
                }
                drop(guard);
                self.stats.steals += 1;
                self.now.push(frame);
                return true;
            }
        }
        false
    }

    /// xorshift64: victim selection only.
    fn next_random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }
}

/// Runs worker `index` of `job` until the job is over; returns its local
/// state and counters.
pub(crate) fn run_worker<F: Frame>(
    job: &JobState<F>,
    index: usize,
    seed: Seed<F>,
) -> (F::Local, WorkerStats) {
    let mut worker = Worker {
        index,
        job,
        now: seed.now,
        next: Vec::new(),
        phase: 0,
        announced: false,
        rng: 0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03)),
        local: seed.local,
        stats: WorkerStats::default(),
    };
    let mut counted = seed.counted;
    loop {
        if counted {
            worker.drain();
            worker.check_out();
        }
        counted = worker.find_work();
        if !counted {
            break;
        }
    }
    (worker.local, worker.stats)
}
