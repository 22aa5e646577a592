//! Scan permits: at most `k` idle workers scan the scheduler for work at a
//! time; the other idle workers wait, blocked, until a permit is free.
//!
//! Why: an idle scan becomes active in the termination word, pops, and goes
//! idle again, and two overlapping scans make each other fail (each sees the
//! other as active). With far more threads than cores, unbounded scanners
//! overlap almost always, and both termination and the work itself starve:
//! even a run of a few tasks takes seconds. With at most `k` scanners
//! (`k` = the cores, or the threads when fewer), idling costs what it costs
//! on a machine that is not oversubscribed, whatever the thread count.
//!
//! The protocol (`README.md` next to this file): the free permits and the
//! registered waiters share one atomic word, so that "take a permit or
//! register as a waiter" and "give a permit back and see whether anyone
//! waits" are each a single read-modify-write, totally ordered with each
//! other. A worker that finds no free permit registers, holding the mutex,
//! and blocks on a condition variable; a release that sees a registered
//! waiter notifies one under the mutex, which the waiter held from its
//! registration until it blocked. So a release either comes before a
//! registration in the word's order (and the registering worker takes the
//! permit instead of blocking) or after it (and its notify reaches the
//! blocked worker).

use crate::sync::{AtomicU64, Condvar, Mutex, Ordering::AcqRel, Ordering::Acquire};

/// One registered waiter in [`ScanPermits::state`].
const WAITER: u64 = 1 << 32;
/// The free-permit count in [`ScanPermits::state`].
const FREE: u64 = WAITER - 1;

/// The scan permits of one run.
pub(crate) struct ScanPermits {
    /// `(waiters << 32) | free`: workers registered as waiting for a
    /// permit, and permits not held by any worker.
    state: AtomicU64,
    lock: Mutex<()>,
    freed: Condvar,
}

/// How [`ScanPermits::acquire`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Acquired {
    /// Got a permit without blocking.
    Immediately,
    /// Got a permit after blocking.
    AfterWaiting,
    /// The run ended while waiting: no permit.
    RunEnded,
}

impl ScanPermits {
    /// `k` permits (at least one).
    pub(crate) fn new(k: usize) -> Self {
        let k = (k.max(1) as u64).min(FREE);
        ScanPermits { state: AtomicU64::new(k), lock: Mutex::new(()), freed: Condvar::new() }
    }

    /// Applies `f` to the state word until the compare-exchange succeeds;
    /// returns the value it replaced.
    fn update(&self, f: impl Fn(u64) -> Option<u64>) -> u64 {
        let mut s = self.state.load(Acquire);
        while let Some(new) = f(s) {
            match self.state.compare_exchange_weak(s, new, AcqRel, Acquire) {
                Ok(_) => return s,
                Err(now) => s = now,
            }
        }
        s
    }

    /// Takes a permit, blocking until one is free or `run_ended()` is true.
    /// `run_ended` must become true only together with a call of
    /// [`ScanPermits::wake_all`] made after it became true.
    pub(crate) fn acquire(&self, run_ended: impl Fn() -> bool) -> Acquired {
        // Fast path: take a free permit, without the mutex.
        if self.update(|s| (s & FREE > 0).then(|| s - 1)) & FREE > 0 {
            return Acquired::Immediately;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut waited = false;
        loop {
            if run_ended() {
                return Acquired::RunEnded;
            }
            // Take a permit, or else register as a waiter: one step.
            let before = self.update(|s| Some(if s & FREE > 0 { s - 1 } else { s + WAITER }));
            if before & FREE > 0 {
                return if waited { Acquired::AfterWaiting } else { Acquired::Immediately };
            }
            guard = self.freed.wait(guard).unwrap_or_else(|e| e.into_inner());
            waited = true;
            self.state.fetch_sub(WAITER, AcqRel);
        }
    }

    /// Gives a permit back and wakes one waiter, if any is registered.
    pub(crate) fn release(&self) {
        if self.state.fetch_add(1, AcqRel) >= WAITER {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.freed.notify_one();
        }
    }

    /// Whether a worker waits for a permit while one is free: then a waker
    /// may call [`ScanPermits::wake_one`].
    pub(crate) fn waiter_could_scan(&self) -> bool {
        let s = self.state.load(Acquire);
        s >= WAITER && s & FREE > 0
    }

    /// Wakes one waiter (it re-checks for a free permit).
    pub(crate) fn wake_one(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.freed.notify_one();
    }

    /// Wakes every waiter; called after the run ended.
    pub(crate) fn wake_all(&self) {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.freed.notify_all();
    }
}

#[cfg(all(test, loom))]
mod loom_model {
    //! `RUSTFLAGS="--cfg loom" cargo test -p ordo-exec --release --lib loom_permits`
    //! (a few minutes)

    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    use super::{Acquired, ScanPermits};

    /// `workers` workers share one permit, each taking and giving it back
    /// `rounds` times: every acquire returns (a lost wake-up deadlocks,
    /// which loom reports), and never do two workers hold it at once.
    fn exclusive_and_no_lost_wakeup(workers: usize, rounds: usize) {
        let permits = Arc::new(ScanPermits::new(1));
        let holders = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (permits, holders) = (permits.clone(), holders.clone());
                thread::spawn(move || {
                    for _ in 0..rounds {
                        assert_ne!(permits.acquire(|| false), Acquired::RunEnded);
                        assert_eq!(holders.fetch_add(1, Ordering::SeqCst), 0, "two permit holders");
                        holders.fetch_sub(1, Ordering::SeqCst);
                        permits.release();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    /// Two workers, one round each: exhaustive.
    #[test]
    fn loom_permits_two_workers_exhaustive() {
        loom::model(|| exclusive_and_no_lost_wakeup(2, 1));
    }

    /// Three workers, one round each (a released permit can be taken by a
    /// fast-path taker while a notified waiter wakes up): every schedule
    /// with up to `LOOM_PERMITS_PREEMPTIONS` preemptions (default 2).
    #[test]
    fn loom_permits_three_workers_bounded() {
        let mut builder = loom::model::Builder::new();
        let bound = std::env::var("LOOM_PERMITS_PREEMPTIONS").ok().and_then(|v| v.parse().ok());
        builder.preemption_bound = Some(bound.unwrap_or(2));
        builder.check(|| exclusive_and_no_lost_wakeup(3, 1));
    }

    /// The run ends while a worker waits: it returns without a permit.
    #[test]
    fn loom_permits_waiter_sees_the_end() {
        loom::model(|| {
            let permits = Arc::new(ScanPermits::new(1));
            let ended = Arc::new(AtomicBool::new(false));
            assert_eq!(permits.acquire(|| false), Acquired::Immediately);
            let waiter = {
                let (permits, ended) = (permits.clone(), ended.clone());
                thread::spawn(move || permits.acquire(|| ended.load(Ordering::SeqCst)))
            };
            ended.store(true, Ordering::SeqCst);
            permits.wake_all();
            // Either it ended, or it got there before the end and the
            // permit was free — it is not: the main thread holds it.
            assert_eq!(waiter.join().unwrap(), Acquired::RunEnded);
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use super::{Acquired, ScanPermits};

    #[test]
    fn at_most_k_holders_under_stress() {
        for k in [1, 2, 3] {
            let permits = Arc::new(ScanPermits::new(k));
            let holders = Arc::new(AtomicUsize::new(0));
            let most = Arc::new(AtomicUsize::new(0));
            let threads: Vec<_> = (0..16)
                .map(|_| {
                    let (permits, holders, most) = (permits.clone(), holders.clone(), most.clone());
                    std::thread::spawn(move || {
                        for _ in 0..2000 {
                            assert_ne!(permits.acquire(|| false), Acquired::RunEnded);
                            let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            std::hint::spin_loop();
                            holders.fetch_sub(1, Ordering::SeqCst);
                            permits.release();
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            let most = most.load(Ordering::SeqCst);
            assert!(most >= 1 && most <= k, "k = {k}: {most} holders at once");
        }
    }
}
