//! Vectors written by every worker of a pool at once.
//!
//! A run's per-vertex arrays (distances, levels, a bitmap of low-degree
//! vertices) are written in full before the run starts. Written by one
//! thread, that pass is sequential work in the timed part of every run, and
//! on a fresh allocation it also takes every page fault on one thread. Written
//! by [`Pool::collect_indexed`], each worker fills one contiguous block of
//! the vector: the writes and the page faults run in parallel, and on a NUMA
//! machine each block's pages land on the node of the worker that first
//! touched them (the first-touch placement GAPBS's `pvector` fill and
//! Galois's blocked `LargeArray` allocation give their per-vertex arrays).

use std::mem::MaybeUninit;
use std::sync::Mutex;

use crate::Pool;

/// Shortest vector that [`Pool::collect_indexed`] splits among the workers;
/// shorter ones are written by the caller alone, since waking a sleeping
/// pool costs more than writing that many four-byte values
/// (`docs/design/2026-11-26-executor-costs.md`).
pub const PARALLEL_COLLECT_MIN_LEN: usize = 1 << 16;

impl Pool {
    /// The vector `[init(0), init(1), .., init(len - 1)]`, each worker of the
    /// pool writing one contiguous block of it (module docs). Vectors shorter
    /// than [`PARALLEL_COLLECT_MIN_LEN`] are written by the calling thread.
    ///
    /// # Panics
    /// When `init` panics (the first panic is re-raised after every worker
    /// stopped, as [`Pool::broadcast`] does; the values already written are
    /// leaked, never read), and when a vector long enough to be split is
    /// asked for from a worker of this pool.
    pub fn collect_indexed<T: Send>(&self, len: usize, init: impl Fn(usize) -> T + Sync) -> Vec<T> {
        if len < PARALLEL_COLLECT_MIN_LEN || self.threads() == 1 {
            return (0..len).map(init).collect();
        }
        let mut out: Vec<T> = Vec::with_capacity(len);
        let per_worker = len.div_ceil(self.threads());
        {
            // Each block behind its own lock, so that a worker can borrow its
            // block mutably through the shared job; each lock is taken once.
            let blocks: Vec<Mutex<&mut [MaybeUninit<T>]>> =
                out.spare_capacity_mut()[..len].chunks_mut(per_worker).map(Mutex::new).collect();
            self.broadcast(&|worker| {
                let Some(block) = blocks.get(worker) else { return };
                let mut block = block.lock().unwrap_or_else(|e| e.into_inner());
                let first = worker * per_worker;
                for (offset, slot) in block.iter_mut().enumerate() {
                    slot.write(init(first + offset));
                }
            });
        }
        // SAFETY: `broadcast` returned, so no job panicked (it re-raises the
        // first panic) and every worker finished its job: the blocks cover
        // `0..len` (`chunks_mut` of the first `len` spare slots), the block
        // of worker `i` is block `i`, every worker `i` below the number of
        // blocks wrote each slot of it, and the pool has at least as many
        // workers as blocks (`per_worker * threads >= len`). So the first
        // `len` slots are initialised, within the capacity reserved above.
        unsafe { out.set_len(len) };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    #[test]
    fn every_slot_holds_its_index_on_every_length_and_thread_count() {
        let lengths = [
            0,
            1,
            PARALLEL_COLLECT_MIN_LEN - 1,
            PARALLEL_COLLECT_MIN_LEN,
            PARALLEL_COLLECT_MIN_LEN + 1,
            3 * PARALLEL_COLLECT_MIN_LEN + 7,
        ];
        for threads in [1, 2, 3, 5] {
            let pool = Pool::new(threads).unwrap();
            for len in lengths {
                let calls = AtomicUsize::new(0);
                let v = pool.collect_indexed(len, |i| {
                    calls.fetch_add(1, Relaxed);
                    i as u64 * 3 + 1
                });
                assert_eq!(v.len(), len, "{threads} threads, length {len}");
                assert_eq!(calls.load(Relaxed), len, "init called once per slot");
                for (i, &x) in v.iter().enumerate() {
                    assert_eq!(x, i as u64 * 3 + 1, "slot {i} of {len}, {threads} threads");
                }
            }
        }
    }

    #[test]
    fn long_vectors_are_written_by_every_worker() {
        let pool = Pool::new(3).unwrap();
        let len = 4 * PARALLEL_COLLECT_MIN_LEN;
        let (by_caller, by_workers) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let caller = std::thread::current().id();
        let v = pool.collect_indexed(len, |i| {
            let writer = if std::thread::current().id() == caller { &by_caller } else { &by_workers };
            writer.fetch_add(1, Relaxed);
            i as u32
        });
        assert_eq!(v.len(), len);
        // The caller (worker 0) wrote the first block, the pool's threads the rest.
        assert_eq!(by_caller.load(Relaxed), len.div_ceil(3));
        assert_eq!(by_workers.load(Relaxed), len - len.div_ceil(3));
    }

    #[test]
    fn a_panicking_init_reaches_the_caller_and_the_pool_keeps_working() {
        let pool = Pool::new(2).unwrap();
        let len = 2 * PARALLEL_COLLECT_MIN_LEN;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.collect_indexed(len, |i| {
                assert!(i != len - 1, "the last slot");
                vec![i; 2]
            })
        }));
        assert!(result.is_err());
        let v = pool.collect_indexed(len, |i| vec![i; 2]);
        assert!(v.iter().enumerate().all(|(i, x)| x == &[i, i]));
    }
}
