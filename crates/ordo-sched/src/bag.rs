//! Bags: unordered, distributed collections of full chunks, one queue of
//! chunks per socket (PMOD paper §2.2, "each bag is a distributed structure
//! consisting of as many FIFO queues as sockets"; Galois' `PerSocketChunkFIFO`
//! and `PerSocketChunkLIFO`).
//!
//! A thread publishes a chunk into its own socket's queue and takes chunks
//! from its own socket's queue first, then from the other sockets' queues in
//! order (a steal), as Galois does. Each queue is a `Mutex<VecDeque<_>>` with
//! an atomic chunk count that lets a taker skip empty queues without locking
//! (Galois' queues are locked too, with the same lock-free emptiness
//! pre-check).
//!
//! # Visibility
//! The count is incremented with `Release` after the chunk is in the queue and
//! read with `Acquire`, so a taker that happens after a publication (through
//! any synchronisation, e.g. the executor's termination protocol) sees the
//! chunk. A stale zero is possible only while another thread is publishing,
//! which the [`crate::Handle`] contract allows.
//!
//! Each socket queue is one structure for the [`crate::probe`]: the emptiness
//! pre-check reads it, a lock writes it.

use std::collections::VecDeque;

use crate::chunk::Chunk;
use crate::sync::{AtomicUsize, Mutex, Ordering};

/// Which end of a socket queue chunks are taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChunkOrder {
    /// Oldest chunk first (a queue of chunks).
    Fifo,
    /// Newest chunk first (a stack of chunks).
    Lifo,
}

struct SocketQueue<T> {
    /// Number of chunks in `chunks`; a hint read without the lock.
    len: AtomicUsize,
    chunks: Mutex<VecDeque<Chunk<T>>>,
}

/// A bag of chunks with one queue per socket.
///
/// The per-socket queues are not cache padded: obim creates one bag per
/// priority value, possibly millions, and 128 bytes of padding per socket per
/// bag would dominate memory. Different bags are separate allocations.
pub(crate) struct Bag<T> {
    queues: Box<[SocketQueue<T>]>,
    order: ChunkOrder,
}

impl<T> Bag<T> {
    /// An empty bag for `sockets` sockets (at least one).
    pub(crate) fn new(sockets: usize, order: ChunkOrder) -> Self {
        let queues = (0..sockets.max(1))
            .map(|_| SocketQueue { len: AtomicUsize::new(0), chunks: Mutex::new(VecDeque::new()) })
            .collect();
        Bag { queues, order }
    }

    /// Publishes a (non-empty) chunk into `socket`'s queue.
    pub(crate) fn push_chunk(&self, socket: usize, chunk: Chunk<T>) {
        debug_assert!(!chunk.is_empty());
        let q = &self.queues[socket % self.queues.len()];
        crate::probe::write(q);
        let mut chunks = lock(&q.chunks);
        chunks.push_back(chunk);
        q.len.store(chunks.len(), Ordering::Release);
    }

    /// Takes a chunk, from `socket`'s own queue first and then from the other
    /// sockets' queues in order. Returns the chunk and whether it was stolen
    /// from another socket.
    pub(crate) fn pop_chunk(&self, socket: usize) -> Option<(Chunk<T>, bool)> {
        let n = self.queues.len();
        let home = socket % n;
        for i in 0..n {
            let s = (home + i) % n;
            let q = &self.queues[s];
            crate::probe::read(q);
            if q.len.load(Ordering::Acquire) == 0 {
                continue;
            }
            crate::probe::write(q);
            let mut chunks = lock(&q.chunks);
            let chunk = match self.order {
                ChunkOrder::Fifo => chunks.pop_front(),
                ChunkOrder::Lifo => chunks.pop_back(),
            };
            q.len.store(chunks.len(), Ordering::Release);
            if let Some(c) = chunk {
                return Some((c, s != home));
            }
        }
        None
    }

    /// Whether some socket queue appears to hold a chunk (a hint).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn looks_nonempty(&self) -> bool {
        self.queues.iter().any(|q| q.len.load(Ordering::Acquire) > 0)
    }
}

/// Locks `m`, ignoring poisoning: a panic elsewhere cannot leave a queue of
/// chunks in an inconsistent state (every critical section is one push or pop).
fn lock<X>(m: &Mutex<X>) -> crate::sync::MutexGuard<'_, X> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn chunk(tasks: &[u32]) -> Chunk<u32> {
        let mut c = Chunk::with_capacity(tasks.len());
        for &t in tasks {
            c.push(u64::from(t), t);
        }
        c
    }

    #[test]
    fn own_socket_first_then_steal() {
        let bag = Bag::new(2, ChunkOrder::Fifo);
        bag.push_chunk(1, chunk(&[10]));
        bag.push_chunk(0, chunk(&[1]));
        bag.push_chunk(0, chunk(&[2]));
        let (c, stolen) = bag.pop_chunk(0).unwrap();
        assert_eq!((c.len(), stolen), (1, false));
        let mut c = c;
        assert_eq!(c.pop_front(), Some((1, 1)), "FIFO takes the oldest chunk");
        let (mut c, stolen) = bag.pop_chunk(1).unwrap();
        assert_eq!((c.pop_front(), stolen), (Some((10, 10)), false));
        let (mut c, stolen) = bag.pop_chunk(1).unwrap();
        assert_eq!((c.pop_front(), stolen), (Some((2, 2)), true));
        assert!(bag.pop_chunk(0).is_none());
        assert!(!bag.looks_nonempty());
    }

    #[test]
    fn lifo_takes_newest_chunk() {
        let bag = Bag::new(1, ChunkOrder::Lifo);
        bag.push_chunk(0, chunk(&[1]));
        bag.push_chunk(0, chunk(&[2]));
        assert_eq!(bag.pop_chunk(0).unwrap().0.pop_front(), Some((2, 2)));
        assert_eq!(bag.pop_chunk(5).unwrap().0.pop_front(), Some((1, 1)));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::thread;

    /// Two threads publish and take chunks concurrently: every task comes out
    /// exactly once, and after both finish the leftovers are visible.
    #[test]
    fn loom_bag_exactly_once() {
        loom::model(|| {
            let bag = crate::sync::Arc::new(Bag::new(2, ChunkOrder::Fifo));
            let handles: Vec<_> = (0..2u32)
                .map(|s| {
                    let bag = bag.clone();
                    thread::spawn(move || {
                        let mut c = Chunk::with_capacity(1);
                        c.push(u64::from(s), s);
                        bag.push_chunk(s as usize, c);
                        bag.pop_chunk(s as usize).map(|(mut c, _)| c.pop_front().unwrap().1)
                    })
                })
                .collect();
            let mut got: Vec<u32> = handles.into_iter().filter_map(|h| h.join().unwrap()).collect();
            while let Some((mut c, _)) = bag.pop_chunk(0) {
                got.push(c.pop_front().unwrap().1);
            }
            got.sort_unstable();
            assert_eq!(got, vec![0, 1]);
        });
    }
}
