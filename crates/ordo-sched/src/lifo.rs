//! `lifo`: a chunked unordered stack that ignores priorities (baseline).
//!
//! Galois' `PerSocketChunkLIFO` (Galois source): a thread
//! pushes onto and pops from the back of its private chunk; a full chunk is
//! published onto its socket's stack of chunks, and an empty one is replaced
//! by the newest published chunk (own socket first, then a steal). The shared
//! machinery lives in [`crate::fifo`].

use crate::fifo::Chunked;

/// The `lifo` scheduler: chunk-LIFO, priorities ignored. Configured by
/// [`crate::fifo::ChunkedConfig`].
pub type Lifo<T> = Chunked<T, true>;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::fifo::tests::exactly_once;
    use crate::fifo::ChunkedConfig;
    use crate::topology::Topology;
    use crate::{Handle, Scheduler};

    #[test]
    fn lifo_single_thread_pops_newest_first() {
        let s: Lifo<u64> = Lifo::with_topology(Topology::single(1), &ChunkedConfig { chunk: 4 });
        let mut h = s.handle(0);
        for i in 0..10 {
            h.push(i, i);
        }
        // Chunks [0..4) and [4..8) are published; [8, 9] is private.
        let got: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|(_, t)| t).collect();
        assert_eq!(got, vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert!(h.pop().is_none());
    }

    #[test]
    fn lifo_exactly_once_multithreaded() {
        for threads in [1, 2, 4] {
            for topo in [Topology::single(threads), Topology::even(threads, 2)] {
                let s: Lifo<u64> = Lifo::with_topology(topo, &ChunkedConfig { chunk: 16 });
                exactly_once(&s, threads, 100_000, 1);
            }
        }
    }
}
