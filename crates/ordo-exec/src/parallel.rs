//! Data-parallel loops on a [`Pool`]: the building block of the
//! round-synchronous kernels (a BFS level, a PageRank iteration, a
//! connected-components pass), the way GAPBS writes them with OpenMP's
//! `parallel for schedule(dynamic, grain)`.
//!
//! A loop over `0..len` is cut into chunks of `grain` consecutive indices;
//! every worker claims the next unclaimed chunk from one shared counter
//! until none is left, and the loop returns when every chunk is finished.
//! Dynamic claiming keeps threads busy on skewed work (a hub's row costs a
//! thousand times a leaf's) and bounds what a descheduled thread holds up: a
//! worker the kernel takes off its core keeps at most the one chunk it is
//! running, every chunk not yet claimed goes to the threads that run, and a
//! worker that has not started when the caller runs out of chunks is not
//! waited for at all (the loops run on `Pool::broadcast_elastic`), so a
//! loop on a machine shared with other processes, or with more workers than
//! cores, does not wait for the OS to schedule an idle worker.
//!
//! Per-worker state ([`Pool::fold_chunks`]) is created by a worker before its
//! first chunk and handed back after the loop, one per worker that claimed a
//! chunk, in no particular order: a reduction combines them, and a kernel
//! that needs a deterministic result combines them in an order-independent
//! way (integer sums, minima) or sorts them.
//!
//! The body is a generic closure called once per chunk, so the loop over a
//! chunk's indices is compiled into the kernel; the pool itself sees one
//! `dyn Fn` call per worker and loop.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use crate::Pool;

/// Loops shorter than this many chunks, or run on one worker, run on the
/// calling thread alone: waking the workers would cost more than it saves.
const INLINE_MAX_CHUNKS: usize = 1;

impl Pool {
    /// Calls `body(chunk)` for consecutive chunks of `grain` indices
    /// (the last one shorter) that together cover `0..len` exactly once,
    /// claimed dynamically by the workers (module docs). A `grain` of 0 is
    /// taken as 1.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    /// let pool = ordo_exec::Pool::new(2).unwrap();
    /// let sum = AtomicU64::new(0);
    /// pool.for_chunks(1000, 64, |chunk| {
    ///     sum.fetch_add(chunk.map(|i| i as u64).sum(), Relaxed);
    /// });
    /// assert_eq!(sum.into_inner(), 499_500);
    /// ```
    ///
    /// # Panics
    /// When `body` panics (re-raised after every worker stopped, as
    /// [`Pool::broadcast`] does) and when called from a worker of this pool
    /// on a loop long enough to be shared.
    pub fn for_chunks(&self, len: usize, grain: usize, body: impl Fn(Range<usize>) + Sync) {
        self.fold_chunks(len, grain, |_| (), |(), chunk| body(chunk));
    }

    /// [`Pool::for_chunks`] with per-worker state: a worker calls
    /// `init(worker)` before its first chunk and `body(&mut state, chunk)`
    /// for every chunk it claims; the states of the workers that claimed a
    /// chunk are returned, in no particular order (empty when `len` is 0).
    ///
    /// ```
    /// let pool = ordo_exec::Pool::new(2).unwrap();
    /// let partial = pool.fold_chunks(10_000, 128, |_| 0u64, |sum, chunk| {
    ///     *sum += chunk.map(|i| i as u64).sum::<u64>()
    /// });
    /// assert_eq!(partial.iter().sum::<u64>(), 49_995_000);
    /// ```
    ///
    /// # Panics
    /// As [`Pool::for_chunks`].
    pub fn fold_chunks<S: Send>(
        &self,
        len: usize,
        grain: usize,
        init: impl Fn(usize) -> S + Sync,
        body: impl Fn(&mut S, Range<usize>) + Sync,
    ) -> Vec<S> {
        let grain = grain.max(1);
        if len == 0 {
            return Vec::new();
        }
        let chunks = len.div_ceil(grain);
        if self.threads() == 1 || chunks <= INLINE_MAX_CHUNKS {
            let mut state = init(0);
            let mut start = 0;
            while start < len {
                let end = (start + grain).min(len);
                body(&mut state, start..end);
                start = end;
            }
            return vec![state];
        }
        let next = CachePadded::new(AtomicUsize::new(0));
        let states = Mutex::new(Vec::with_capacity(self.threads()));
        self.broadcast_elastic(&|worker| {
            let mut state: Option<S> = None;
            loop {
                // Relaxed: the counter only hands out disjoint chunks; what a
                // chunk's body reads was written before the broadcast, which
                // orders it (the pool's job hand-over synchronises).
                let start = next.fetch_add(grain, Relaxed);
                if start >= len {
                    break;
                }
                let s = state.get_or_insert_with(|| init(worker));
                body(s, start..(start + grain).min(len));
            }
            if let Some(s) = state {
                states.lock().unwrap_or_else(|e| e.into_inner()).push(s);
            }
        });
        states.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_index_is_visited_exactly_once() {
        for threads in [1, 2, 3] {
            let pool = Pool::new(threads).unwrap();
            for (len, grain) in [(0, 4), (1, 4), (7, 0), (7, 3), (64, 64), (65, 64), (10_001, 17)] {
                let seen: Vec<AtomicU32> = (0..len).map(|_| AtomicU32::new(0)).collect();
                pool.for_chunks(len, grain, |chunk| {
                    assert!(chunk.len() <= grain.max(1) && !chunk.is_empty());
                    for i in chunk {
                        seen[i].fetch_add(1, Relaxed);
                    }
                });
                assert!(seen.iter().all(|c| c.load(Relaxed) == 1), "{threads} threads, {len} / {grain}");
            }
        }
    }

    #[test]
    fn states_come_back_one_per_claiming_worker() {
        let pool = Pool::new(3).unwrap();
        let states =
            pool.fold_chunks(3000, 1, |worker| (worker, 0usize), |(_, count), chunk| *count += chunk.len());
        assert!(!states.is_empty() && states.len() <= 3);
        assert_eq!(states.iter().map(|s| s.1).sum::<usize>(), 3000);
        let mut workers: Vec<usize> = states.iter().map(|s| s.0).collect();
        workers.sort_unstable();
        workers.dedup();
        assert_eq!(workers.len(), states.len(), "one state per worker");
        assert!(pool.fold_chunks(0, 8, |w| w, |_, _| ()).is_empty());
    }

    /// Workers that start late skip a loop instead of being waited for; none
    /// may touch the loop after it returned. With more workers than cores
    /// many start late: every chunk still runs once, and a body called after
    /// its loop returned would find the loop's flag cleared.
    #[test]
    fn late_workers_skip_a_finished_loop_and_never_run_it_after_it_returned() {
        use std::sync::atomic::AtomicBool;
        let pool = Pool::new(8).unwrap();
        let after_return = AtomicU32::new(0);
        let mut short_loops = 0;
        for round in 0..2000 {
            let alive = AtomicBool::new(true);
            let len = 1 + round % 40;
            let states = pool.fold_chunks(
                len,
                1,
                |_| 0usize,
                |count, chunk| {
                    if !alive.load(Relaxed) {
                        after_return.fetch_add(1, Relaxed);
                    }
                    *count += chunk.len();
                },
            );
            alive.store(false, Relaxed);
            assert_eq!(states.iter().sum::<usize>(), len, "every chunk once");
            short_loops += usize::from(states.len() < 8);
            if round % 8 == 0 {
                // Long enough for the workers to stop spinning and block:
                // the next loop's wake-ups reach some of them late.
                std::thread::sleep(std::time::Duration::from_micros(500));
            }
        }
        assert!(crate::pool::SKIPPED_JOBS.load(Relaxed) > 0, "no worker ever started late");
        assert_eq!(after_return.load(Relaxed), 0, "a body ran after its loop returned");
        assert!(short_loops > 0, "loops of 1 to 40 chunks on 8 workers always ran on all 8");
        // Every worker is still alive and takes whole-pool jobs (a worker
        // that took a closed job would have died or miscounted the join).
        let pool = std::sync::Arc::new(pool);
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let whole = std::sync::Arc::clone(&pool);
        std::thread::spawn(move || {
            let ran = AtomicU32::new(0);
            whole.broadcast(&|_| {
                ran.fetch_add(1, Relaxed);
            });
            let _ = done_tx.send(ran.into_inner());
        });
        let ran = done_rx.recv_timeout(std::time::Duration::from_secs(30));
        assert_eq!(ran, Ok(8), "a broadcast after the loops did not run on all 8 workers");
    }

    /// The whole-pool broadcast still waits for every worker.
    #[test]
    fn broadcast_still_runs_every_worker() {
        let pool = Pool::new(4).unwrap();
        for _ in 0..200 {
            let ran = AtomicU32::new(0);
            pool.broadcast(&|_| {
                ran.fetch_add(1, Relaxed);
            });
            assert_eq!(ran.load(Relaxed), 4);
        }
    }

    #[test]
    fn a_panicking_body_reaches_the_caller_and_the_pool_keeps_working() {
        let pool = Pool::new(2).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.for_chunks(1000, 10, |chunk| assert!(!chunk.contains(&555), "index 555"));
        }));
        assert!(result.is_err());
        let sum = pool.fold_chunks(1000, 10, |_| 0usize, |s, c| *s += c.len());
        assert_eq!(sum.iter().sum::<usize>(), 1000);
    }
}
