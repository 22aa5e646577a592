//! The barrier between rounds: the last thread to arrive runs the round's
//! decision, then releases the others; a waiting thread may leave it again
//! to help with work that appeared while it waited. Waiting threads spin briefly, then
//! yield, then block on a condition variable, so a run with more threads
//! than cores (hundreds per core) makes progress instead of spinning its
//! time slices away. A worker that panics or a cancelled run aborts the
//! barrier: every waiter returns at once, and so does every later wait.
//!
//! # Ordering
//! A thread's writes before [`Barrier::arrive`] happen before the leader's
//! decision: every arrival and leave is a read-modify-write of `state` with
//! `AcqRel`, so the leader's own arrival (the last in that RMW chain)
//! acquires every earlier one's release. The leader's writes happen before
//! every waiter returns: it bumps the generation with a `Release` store
//! after deciding, and waiters return only after loading the new
//! generation (`Acquire` or stronger). No wake-up is lost: the leader
//! stores the new generation, then loads `sleepers`; a waiter about to
//! block increments `sleepers`, then loads the generation, under the lock
//! that it holds until it blocks. A `SeqCst` fence between each side's
//! store and load makes at least one see the other's write: either the
//! waiter sees the release and does not block, or the leader sees the
//! sleeper, takes the lock (so the waiter is blocked by then, or has not
//! yet checked) and notifies. The leader takes no lock when nobody sleeps,
//! and the state word has a cache line of its own, which the waiters'
//! spinning reads then share with nothing the leader writes (the lock and
//! the decision, beside it, would make every spinning read miss while the
//! leader decides). Abort sets its flag under the lock. The wait also
//! times out every millisecond, as a second guard.
//!
//! # Work that appears while a thread sleeps
//! A round's work can appear after the other threads went to sleep at the
//! barrier: a thread that ran its last chunk files the tasks it pushed into
//! its pile, and one bucket can hold most of a round (a breadth-first search
//! whose level fans out, or a wide bucket). [`Barrier::wait_or_work`] also
//! returns when the caller's `has_work` says so, and [`Barrier::notify_work`]
//! (called after every filing into a pile) wakes the sleepers. A store-load
//! pair decides whether a sleeper is missed: the filer stores its pile's
//! length, then loads `sleepers`; the sleeper increments `sleepers`, then
//! loads the piles' lengths. Both sides put a `SeqCst` fence between their
//! store and their load, so at least one of them sees the other's write:
//! either the sleeper sees the work and does not block, or the filer sees
//! the sleeper and notifies it under the lock (which the sleeper holds from
//! its check until it blocks, so the notification cannot fall in between).
//! Without this, a round whose work appears late can run on one thread
//! while the others sleep through it: a breadth-first search with one
//! fanning bucket per level would run at the speed of one thread.
//!
//! # Excusing a stalled thread
//! A thread the kernel has descheduled in the middle of a round (a busy
//! co-runner on the machine) would hold every other thread at the barrier
//! until it runs again, and a run has thousands of rounds. A waiting thread
//! that sees such a laggard make no progress may *excuse* it: arrive on its
//! behalf, so that the round ends without it. The laggard keeps its tasks
//! (they are in its private buckets, which nobody else may touch) and runs
//! them when it resumes; it then comes *back* and the next decision seats
//! it again. Every thread has a seat word, `(generation << 8) | tag`:
//!
//! - `WORKING(g)`: the thread works in generation `g` and has not arrived;
//! - `ARRIVED(g)`: it arrived in `g` (on its own);
//! - `EXCUSED`: another thread arrived for it; it is counted in every
//!   generation until it is seated again;
//! - `BACK`: it was excused, has run its tasks and written its report, and
//!   joins the open generation, or waits for a deciding leader to seat it.
//!
//! Its own arrival ([`Barrier::arrive_seated`]) is a compare-and-swap
//! `WORKING(g) → ARRIVED(g)` and an excuse ([`Barrier::excuse`]) is a
//! compare-and-swap `WORKING(g) → EXCUSED` by a thread that waits in `g`,
//! each followed by the arrival count's increment only when it succeeded:
//! of the two, exactly one succeeds, so the thread is counted exactly once
//! in `g`. A failed arrival tells the laggard that it was excused. Only the
//! leader writes the seats of arrived and back threads
//! ([`Barrier::reseat`]), while every thread is counted (so nobody arrives,
//! leaves or excuses meanwhile): `ARRIVED` and `BACK` become `WORKING(g+1)`,
//! `EXCUSED` stays, and the release opens generation `g + 1` with the
//! excused threads already counted (`pre`). An excused thread writes only
//! `EXCUSED → BACK`, after its report (`Release`, read by the leader with
//! `Acquire`), and then joins the open generation by itself
//! ([`Barrier::come_back`]): it is counted in it (in advance, or by the
//! excuse), so it counts itself out as a thread that leaves to help does
//! (which fails while a leader decides) and works in it. A thread is
//! seated again by the one that runs it, not by a decision it may be too
//! descheduled to see: a leader that seated a sleeping thread would wait
//! for it at the next barrier and excuse it again, round after round. A
//! thread seated by a leader (one that waited for it to come back) starts
//! its round only once the generation named in its seat is open, so its
//! arrival counts in that generation.

use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::sync::{fence, AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering};

/// Spins on the generation before yielding.
#[cfg(not(loom))]
const SPINS: u32 = 1 << 10;
/// Yields before blocking.
#[cfg(not(loom))]
const YIELDS: u32 = 64;
// Under loom every spin is a scheduling point: keep the model small.
#[cfg(loom)]
const SPINS: u32 = 0;
#[cfg(loom)]
const YIELDS: u32 = 1;

/// The barrier was aborted (a worker panicked or the run was cancelled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aborted;

/// What an arrival at the barrier made of the arriving thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// It arrived last: it decides, then calls [`Barrier::release`].
    Leader,
    /// Others are still working: it waits for the release of this
    /// generation (or leaves again with [`Barrier::try_leave`]).
    Wait(u32),
}

/// Why [`Barrier::wait_or_work`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The generation was released.
    Released,
    /// The caller's `has_work` found work; the generation may still be
    /// running (leave with [`Barrier::try_leave`] to help) or be over.
    Work,
}

/// A reusable barrier for `threads` threads that a waiting thread may leave
/// again while the round is not over (to help with work that appeared).
///
/// `state` holds the generation (high 32 bits) and the number of threads
/// that arrived in it (low 32 bits) in one word, so that leaving can check
/// both in one compare-and-swap: a thread leaves only while the count is
/// below `threads`, so once the count reaches `threads` (the leader's
/// arrival) nobody leaves and the leader is unique. The generation cannot
/// advance while a thread of it waits (the next release needs that thread's
/// arrival), so a compare-and-swap never mistakes an old word for a new one.
pub(crate) struct Barrier {
    threads: u64,
    /// The threads counted in the open generation before any arrived: the
    /// excused ones (written by the leader before the release).
    pre: AtomicU64,
    /// Each thread's seat (module docs, "Excusing a stalled thread").
    seats: Box<[CachePadded<AtomicU64>]>,
    /// On a cache line of its own: waiters spin on it, and the leader's
    /// release should move nothing else.
    state: CachePadded<AtomicU64>,
    aborted: AtomicBool,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

const COUNT: u64 = (1 << 32) - 1;

const WORKING: u64 = 0;
const ARRIVED: u64 = 1;
const EXCUSED: u64 = 2;
const BACK: u64 = 3;
const TAG: u64 = 0xff;

fn seat(generation: u32, tag: u64) -> u64 {
    (u64::from(generation) << 8) | tag
}

/// A seat as the leader finds it while deciding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seat {
    /// The thread arrived, or came back from being excused: its report
    /// counts.
    Reported,
    /// The thread was excused and has not come back: its report is stale
    /// and it may still hold tasks.
    Excused,
}

/// What an excused thread that came back found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Excused;

impl Barrier {
    pub(crate) fn new(threads: usize) -> Self {
        let threads = threads.max(1);
        Barrier {
            threads: threads as u64,
            pre: AtomicU64::new(0),
            seats: (0..threads).map(|_| CachePadded::new(AtomicU64::new(seat(0, WORKING)))).collect(),
            state: CachePadded::new(AtomicU64::new(0)),
            aborted: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Whether the barrier was aborted.
    #[inline]
    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Relaxed)
    }

    /// Aborts: every current and later wait returns [`Aborted`].
    pub(crate) fn abort(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.aborted.store(true, Ordering::Relaxed);
        self.wake.notify_all();
    }

    /// Counts this thread in. Everything it wrote before happens before
    /// the leader's decision.
    pub(crate) fn arrive(&self) -> Arrival {
        let old = self.state.fetch_add(1, Ordering::AcqRel);
        if (old & COUNT) + 1 == self.threads {
            Arrival::Leader
        } else {
            Arrival::Wait((old >> 32) as u32)
        }
    }

    /// Counts thread `tid` in, unless another thread excused it in the
    /// generation it works in: then it returns [`Excused`] and the thread
    /// must [`Barrier::come_back`]. Everything it wrote before an arrival
    /// happens before the leader's decision.
    pub(crate) fn arrive_seated(&self, tid: usize) -> Result<Arrival, Excused> {
        let s = &self.seats[tid];
        let now = s.load(Ordering::Relaxed);
        debug_assert!(now & TAG == WORKING || now & TAG == EXCUSED, "a thread arrives once per generation");
        if now & TAG == WORKING
            && s.compare_exchange(now, (now & !TAG) | ARRIVED, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            return Ok(self.arrive());
        }
        Err(Excused)
    }

    /// Thread `tid`, which found itself excused, has written its report:
    /// it joins the open generation at once (it is counted in it, so it
    /// counts itself out, as a thread that leaves to help does), or, while
    /// that generation's leader decides, waits for the decision, which
    /// seats it in the next one. Returns once it works in an open
    /// generation (or the barrier is aborted): whether it blocked, and how
    /// many times it came back (more than once if it was excused again
    /// before it saw its seat).
    pub(crate) fn come_back(&self, tid: usize) -> Result<(bool, u64), Aborted> {
        let s = &self.seats[tid];
        let (mut blocked, mut returns) = (false, 0);
        loop {
            let generation = (self.state.load(Ordering::Acquire) >> 32) as u32;
            let now = s.load(Ordering::Acquire);
            if now & TAG == WORKING && (now >> 8) as u32 == generation {
                // Seated by the leader.
                return Ok((blocked, returns));
            }
            if now & TAG == EXCUSED {
                returns += 1;
                // The report before the tag (the leader acquires it). Only
                // the leader writes the seat of an excused thread
                // otherwise, and it leaves `EXCUSED` as it is.
                s.store(seat(0, BACK), Ordering::Release);
            }
            // Excused or back, and not seated by the decision that opened
            // `generation` (it would have found `BACK` and written
            // `WORKING(generation)`): counted in `generation`, from its
            // start or by the excuse. Leaving needs a count below the
            // thread count, so it fails while a leader decides.
            if now & TAG != WORKING && self.try_leave(generation) {
                // No leader can read the seat before this thread arrives
                // again.
                s.store(seat(generation, WORKING), Ordering::Relaxed);
                return Ok((blocked, returns));
            }
            // A leader decides (and seats it), or the seat names the
            // generation about to open.
            blocked |= self.wait(generation)?;
        }
    }

    /// Excuses thread `tid`, which works in `generation` and has not
    /// arrived, by arriving for it; the caller waits in `generation`.
    /// Returns the arrival, or `None` if the thread arrived meanwhile (or
    /// was excused by another waiter).
    pub(crate) fn excuse(&self, tid: usize, generation: u32) -> Option<Arrival> {
        let working = seat(generation, WORKING);
        self.seats[tid]
            .compare_exchange(working, seat(generation, EXCUSED), Ordering::Relaxed, Ordering::Relaxed)
            .ok()
            .map(|_| self.arrive())
    }

    /// Whether thread `tid` works in `generation` and has not arrived (a
    /// thread that may be excused).
    #[inline]
    pub(crate) fn is_working(&self, tid: usize, generation: u32) -> bool {
        self.seats[tid].load(Ordering::Relaxed) == seat(generation, WORKING)
    }

    /// How the leader finds thread `tid`'s seat (call only while every
    /// thread is counted, between the leader's arrival and its release).
    pub(crate) fn seat_of(&self, tid: usize) -> Seat {
        match self.seats[tid].load(Ordering::Acquire) & TAG {
            EXCUSED => Seat::Excused,
            _ => Seat::Reported,
        }
    }

    /// The leader's seating for the next generation (call only while every
    /// thread is counted, right before [`Barrier::release`]): arrived and
    /// back threads work in it, excused ones stay counted. Returns how many
    /// stay excused.
    pub(crate) fn reseat(&self) -> u64 {
        let next = ((self.state.load(Ordering::Relaxed) >> 32) as u32).wrapping_add(1);
        let mut pre = 0;
        for s in self.seats.iter() {
            // `Acquire`: a back thread's report, and an excuse's tag, come
            // before. An excused thread may turn `BACK` right after this
            // load; it is seated by the next decision.
            let now = s.load(Ordering::Acquire);
            if now & TAG == EXCUSED {
                pre += 1;
            } else {
                s.store(seat(next, WORKING), Ordering::Relaxed);
            }
        }
        self.pre.store(pre, Ordering::Relaxed);
        pre
    }

    /// Counts thread `tid` out again (see [`Barrier::try_leave`]), if
    /// generation `generation` is not over yet; its seat then says it works
    /// in `generation` again.
    pub(crate) fn try_leave_seated(&self, tid: usize, generation: u32) -> bool {
        if !self.try_leave(generation) {
            return false;
        }
        // Nobody else writes an arrived seat, and no leader can decide
        // before this thread arrives again.
        self.seats[tid].store(seat(generation, WORKING), Ordering::Relaxed);
        true
    }

    /// Counts this thread out again, if generation `generation` is not
    /// over yet (fewer than all threads counted in). Returns whether it
    /// left; then it must [`Barrier::arrive`] again later.
    pub(crate) fn try_leave(&self, generation: u32) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if (s >> 32) as u32 != generation || s & COUNT >= self.threads {
                return false;
            }
            match self.state.compare_exchange_weak(s, s - 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Whether a thread waits at the barrier now (it arrived and did not
    /// leave again): a sign that it ran out of work.
    #[inline]
    pub(crate) fn has_waiters(&self) -> bool {
        self.state.load(Ordering::Relaxed) & COUNT > self.pre.load(Ordering::Relaxed)
    }

    /// Whether generation `generation` was released.
    #[inline]
    pub(crate) fn is_released(&self, generation: u32) -> bool {
        (self.state.load(Ordering::Acquire) >> 32) as u32 != generation
    }

    /// Ends the generation (called by the leader after deciding): the
    /// decision happens before every waiter sees the release.
    pub(crate) fn release(&self) {
        // Every thread but the leader has arrived and none can leave (a
        // leave needs a count below `threads`), so nothing else writes
        // `state` until this store.
        let s = self.state.load(Ordering::Relaxed);
        // The excused threads are counted from the start (`reseat`).
        let next = (u64::from(((s >> 32) as u32).wrapping_add(1)) << 32) | self.pre.load(Ordering::Relaxed);
        self.state.store(next, Ordering::Release);
        // The store-load pair against a thread about to block (module docs,
        // "Ordering"): the lock is taken only when someone sleeps.
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }

    /// Waits for the release of `generation` without helping: spins,
    /// yields, then blocks. Returns whether it blocked.
    pub(crate) fn wait(&self, generation: u32) -> Result<bool, Aborted> {
        match self.wait_or_work(generation, || false)? {
            (Wake::Released, blocked) => Ok(blocked),
            (Wake::Work, _) => unreachable!("no work is looked for"),
        }
    }

    /// Waits for the release of `generation` (spins, yields, then blocks)
    /// and returns early when `has_work` finds work, so that the caller can
    /// leave to help. Returns why it returned, and whether it blocked.
    pub(crate) fn wait_or_work(
        &self,
        generation: u32,
        has_work: impl Fn() -> bool,
    ) -> Result<(Wake, bool), Aborted> {
        for i in 0..SPINS + YIELDS {
            if self.is_released(generation) {
                return Ok((Wake::Released, false));
            }
            if self.is_aborted() {
                return Err(Aborted);
            }
            if has_work() {
                return Ok((Wake::Work, false));
            }
            if i < SPINS {
                crate::sync::spin_loop();
            } else {
                crate::sync::yield_now();
            }
        }
        self.park_until(generation, has_work).map(|wake| (wake, true))
    }

    /// Wakes the threads blocked in [`Barrier::wait_or_work`] so that they
    /// look for work again. Call it after making work visible to
    /// `has_work` (the store the `SeqCst` fence orders; see the module docs).
    #[inline]
    pub(crate) fn notify_work(&self) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }

    /// Blocks until `generation` is released, the barrier is aborted, or
    /// `has_work` finds work.
    fn park_until(&self, generation: u32, has_work: impl Fn() -> bool) -> Result<Wake, Aborted> {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::Relaxed);
        // Orders the registration before the loads of `has_work` (module docs).
        fence(Ordering::SeqCst);
        let mut work = false;
        while (self.state.load(Ordering::Acquire) >> 32) as u32 == generation
            && !self.aborted.load(Ordering::Relaxed)
        {
            if has_work() {
                work = true;
                break;
            }
            guard = wait_timeout(&self.wake, guard);
        }
        self.sleepers.fetch_sub(1, Ordering::Relaxed);
        drop(guard);
        if self.is_released(generation) {
            Ok(Wake::Released)
        } else if work {
            Ok(Wake::Work)
        } else {
            Err(Aborted)
        }
    }
}
/// One bounded wait on `cv` (a millisecond; loom has no timeouts, so under
/// loom a plain wait, which the ordering argument above makes safe).
fn wait_timeout<'a>(cv: &Condvar, guard: crate::sync::MutexGuard<'a, ()>) -> crate::sync::MutexGuard<'a, ()> {
    #[cfg(not(loom))]
    {
        cv.wait_timeout(guard, Duration::from_millis(1)).unwrap_or_else(|e| e.into_inner()).0
    }
    #[cfg(loom)]
    {
        let _ = Duration::ZERO;
        cv.wait(guard).unwrap_or_else(|e| e.into_inner())
    }
}
