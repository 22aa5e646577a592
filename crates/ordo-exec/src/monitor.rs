//! A live view of a running parallel loop: how many tasks each worker has
//! executed so far, for a progress display, and a way to ask the run to stop.
//!
//! Workers keep their counters in plain local integers and copy them into
//! the monitor only every [`PUBLISH_EVERY`] tasks, each into its own cache
//! line with a relaxed store: no shared counter is written on the hot path,
//! and the reader (a display thread polling a few times per second) costs
//! the workers one cache miss per poll at most. Cancellation is a flag the
//! workers read at the same points and whenever they are idle.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

/// A worker publishes its task count once per this many tasks (a power of
/// two: the check is a mask).
pub const PUBLISH_EVERY: u64 = 64;

/// Progress counters and a cancellation request shared by a run's workers
/// and an observer (a progress display, a signal handler, a Python
/// `KeyboardInterrupt`). Give it to a run through
/// [`ExecOptions::monitor`](crate::ExecOptions::monitor); it may be reused
/// for the next run (each worker zeroes its counter when it starts).
#[derive(Debug)]
pub struct RunMonitor {
    /// Tasks executed per worker, published every [`PUBLISH_EVERY`] tasks and
    /// at the end of the run.
    tasks: Box<[CachePadded<AtomicU64>]>,
    /// Set by [`RunMonitor::cancel`]; cleared by [`RunMonitor::clear_cancel`].
    cancel: AtomicBool,
    /// A stall to inject ([`RunMonitor::with_stall`]).
    stall: Option<Stall>,
}

/// One worker sleeps at some of its check-ins (tests only).
#[derive(Debug, Clone, Copy)]
struct Stall {
    tid: usize,
    every: u64,
    pause: std::time::Duration,
}

impl RunMonitor {
    /// A monitor for runs of up to `threads` workers (workers beyond that
    /// are not counted).
    pub fn new(threads: usize) -> Self {
        RunMonitor {
            tasks: (0..threads).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
            cancel: AtomicBool::new(false),
            stall: None,
        }
    }

    /// A monitor whose worker `tid` sleeps for `pause` at every `every`-th
    /// check-in (every `every * PUBLISH_EVERY` tasks), as a worker the
    /// kernel deschedules would stand still: for tests of what the other
    /// workers do meanwhile.
    #[doc(hidden)]
    pub fn with_stall(threads: usize, tid: usize, every: u64, pause: std::time::Duration) -> Self {
        let mut m = RunMonitor::new(threads);
        m.stall = Some(Stall { tid, every: every.max(1), pause });
        m
    }

    /// Tasks executed so far by all workers of the current (or last) run, as
    /// last published: at most `PUBLISH_EVERY - 1` per worker behind.
    pub fn tasks_done(&self) -> u64 {
        self.tasks.iter().map(|t| t.load(Relaxed)).sum()
    }

    /// Asks the run to stop as soon as possible. The workers stop within
    /// [`PUBLISH_EVERY`] tasks each (or at once when idle); the run returns
    /// with [`RunStats::cancelled`](crate::RunStats::cancelled) set and the
    /// tasks still queued are dropped unrun.
    pub fn cancel(&self) {
        self.cancel.store(true, Relaxed);
    }

    /// Whether [`RunMonitor::cancel`] was called (and not cleared).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Relaxed)
    }

    /// Withdraws a cancellation request, so that the monitor can serve the
    /// next run.
    pub fn clear_cancel(&self) {
        self.cancel.store(false, Relaxed);
    }

    /// Worker `tid` has executed `tasks` tasks in this run.
    #[inline]
    pub fn publish(&self, tid: usize, tasks: u64) {
        if let Some(slot) = self.tasks.get(tid) {
            slot.store(tasks, Relaxed);
        }
        if let Some(s) = self.stall {
            if s.tid == tid && (tasks / PUBLISH_EVERY) % s.every == 0 {
                std::thread::sleep(s.pause);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_published_counts_and_ignores_extra_workers() {
        let m = RunMonitor::new(2);
        m.publish(0, 10);
        m.publish(1, 5);
        m.publish(7, 1000);
        assert_eq!(m.tasks_done(), 15);
        assert!(!m.is_cancelled());
        m.cancel();
        assert!(m.is_cancelled());
        m.clear_cancel();
        assert!(!m.is_cancelled());
    }
}
