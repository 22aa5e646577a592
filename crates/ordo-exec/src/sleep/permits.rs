//! Scan permits: at most `k` idle workers scan the scheduler for work at a
//! time; the other idle workers wait, blocked, until a permit is free.
//!
//! Why: an idle scan becomes active in the termination word, pops, and goes
//! idle again, and two overlapping scans make each other fail (each sees the
//! other as active). With far more threads than cores, unbounded scanners
//! overlap almost always, and both termination and the work itself starve
//! (a 3-vertex SSSP took 42 s at 2000 threads). With at most `k` scanners
//! (`k` = the cores, or the threads when fewer), idling costs what it costs
//! on a machine that is not oversubscribed, whatever the thread count.
//!
//! The protocol (`README.md` next to this file): the free count is an atomic
//! with a lock-free fast path; a worker that finds none registers as a
//! waiter and blocks on a condition variable under the mutex; a release adds
//! the permit back and, if it sees a waiter, notifies one under the mutex.
//! A waiter re-checks the free count after registering, so a release either
//! sees the waiter (and notifies it after it blocked, since the waiter holds
//! the mutex until it blocks) or happened before the re-check (which then
//! takes the permit). All operations are `SeqCst`: this path is cold.

use crate::sync::{AtomicUsize, Condvar, Mutex, Ordering::SeqCst};

/// The scan permits of one run.
pub(crate) struct ScanPermits {
    /// Permits not held by any worker.
    free: AtomicUsize,
    /// Workers registered as waiting for a permit.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    freed: Condvar,
}

/// How [`ScanPermits::acquire`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Acquired {
    /// Got a permit at once.
    Immediately,
    /// Got a permit after blocking.
    AfterWaiting,
    /// The run ended while waiting: no permit.
    RunEnded,
}

impl ScanPermits {
    /// `k` permits (at least one).
    pub(crate) fn new(k: usize) -> Self {
        ScanPermits {
            free: AtomicUsize::new(k.max(1)),
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            freed: Condvar::new(),
        }
    }

    /// Takes a free permit without blocking, if there is one.
    fn try_acquire(&self) -> bool {
        let mut free = self.free.load(SeqCst);
        while free > 0 {
            match self.free.compare_exchange_weak(free, free - 1, SeqCst, SeqCst) {
                Ok(_) => return true,
                Err(now) => free = now,
            }
        }
        false
    }

    /// Takes a permit, blocking until one is free or `run_ended()` is true.
    /// `run_ended` must become true only together with a call of
    /// [`ScanPermits::wake_all`] made after it became true.
    pub(crate) fn acquire(&self, run_ended: impl Fn() -> bool) -> Acquired {
        if self.try_acquire() {
            return Acquired::Immediately;
        }
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if run_ended() {
                return Acquired::RunEnded;
            }
            self.waiters.fetch_add(1, SeqCst);
            if self.try_acquire() {
                self.waiters.fetch_sub(1, SeqCst);
                return Acquired::AfterWaiting;
            }
            guard = self.freed.wait(guard).unwrap_or_else(|e| e.into_inner());
            self.waiters.fetch_sub(1, SeqCst);
        }
    }

    /// Gives a permit back and wakes one waiter, if any.
    pub(crate) fn release(&self) {
        self.free.fetch_add(1, SeqCst);
        if self.waiters.load(SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.freed.notify_one();
        }
    }

    /// Whether a worker waits for a permit while one is free: then a waker
    /// may call [`ScanPermits::wake_one`].
    pub(crate) fn waiter_could_scan(&self) -> bool {
        self.waiters.load(SeqCst) > 0 && self.free.load(SeqCst) > 0
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

    use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    use super::{Acquired, ScanPermits};

    /// Three workers share one permit, each scanning twice: every acquire
    /// returns (no lost wake-up: a lost one deadlocks, which loom reports),
    /// and never do two workers hold the permit at once.
    #[test]
    fn loom_permits_exclusive_and_no_lost_wakeup() {
        loom::model(|| {
            let permits = Arc::new(ScanPermits::new(1));
            let holders = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..3)
                .map(|_| {
                    let (permits, holders) = (permits.clone(), holders.clone());
                    thread::spawn(move || {
                        for _ in 0..2 {
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
        });
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
