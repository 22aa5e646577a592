//! Chunks: the fixed-capacity batches of tasks that chunked schedulers move
//! between threads as one unit (PMOD paper §2.2 and §3.3 O3: enqueueing and
//! dequeueing a chunk at a time amortises the cost of shared accesses).
//!
//! A thread fills a private chunk, publishes it when it is full, and other
//! threads take whole chunks. Emptied chunks are kept in a small per-thread
//! `ChunkPool` and reused, so the steady state allocates nothing.

use std::collections::VecDeque;

use crate::Prio;

/// The default number of tasks per chunk (Galois' and the PMOD paper's 64).
pub const DEFAULT_CHUNK: usize = 64;

/// The largest accepted chunk size (Galois clamps to 4096 as well).
pub const MAX_CHUNK: usize = 4096;

/// A batch of at most `capacity` tasks with their priorities. The capacity is
/// held by the owner (the handle), not by the chunk.
pub(crate) struct Chunk<T> {
    items: VecDeque<(Prio, T)>,
}

impl<T> Chunk<T> {
    /// An empty chunk with room for `capacity` tasks.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Chunk { items: VecDeque::with_capacity(capacity) }
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn push(&mut self, prio: Prio, task: T) {
        self.items.push_back((prio, task));
    }

    /// The oldest task (FIFO order inside the chunk).
    pub(crate) fn pop_front(&mut self) -> Option<(Prio, T)> {
        self.items.pop_front()
    }

    /// The newest task (LIFO order inside the chunk).
    pub(crate) fn pop_back(&mut self) -> Option<(Prio, T)> {
        self.items.pop_back()
    }
}

/// A thread's stock of empty chunks, reused instead of freed.
pub(crate) struct ChunkPool<T> {
    capacity: usize,
    spare: Vec<Chunk<T>>,
}

/// How many empty chunks a thread keeps for reuse.
const POOL_LIMIT: usize = 16;

impl<T> ChunkPool<T> {
    /// A pool of chunks holding `capacity` tasks each (clamped to
    /// `1..=MAX_CHUNK`).
    pub(crate) fn new(capacity: usize) -> Self {
        ChunkPool { capacity: capacity.clamp(1, MAX_CHUNK), spare: Vec::new() }
    }

    /// Tasks per chunk.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// An empty chunk, reused if one is available.
    pub(crate) fn get(&mut self) -> Chunk<T> {
        self.spare.pop().unwrap_or_else(|| Chunk::with_capacity(self.capacity))
    }

    /// Returns an empty chunk for reuse (dropped if the pool is full).
    pub(crate) fn put(&mut self, chunk: Chunk<T>) {
        debug_assert!(chunk.is_empty());
        if self.spare.len() < POOL_LIMIT && chunk.items.capacity() >= self.capacity {
            self.spare.push(chunk);
        }
    }

    /// Whether `chunk` has reached the capacity and must be published.
    pub(crate) fn is_full(&self, chunk: &Chunk<T>) -> bool {
        chunk.len() >= self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keeps_fifo_and_lifo_order() {
        let mut c = Chunk::with_capacity(4);
        for i in 0..4u32 {
            c.push(u64::from(i), i);
        }
        assert_eq!(c.pop_front(), Some((0, 0)));
        assert_eq!(c.pop_back(), Some((3, 3)));
        assert_eq!(c.len(), 2);
        assert_eq!(c.pop_front(), Some((1, 1)));
        assert_eq!(c.pop_front(), Some((2, 2)));
        assert!(c.pop_front().is_none() && c.is_empty());
    }

    #[test]
    fn pool_reuses_and_bounds() {
        let mut pool: ChunkPool<u8> = ChunkPool::new(0);
        assert_eq!(pool.capacity(), 1, "capacity is clamped to at least 1");
        let mut c = pool.get();
        assert!(!pool.is_full(&c));
        c.push(1, 1);
        assert!(pool.is_full(&c));
        c.pop_front();
        pool.put(c);
        assert_eq!(pool.spare.len(), 1);
        let _reused = pool.get();
        assert!(pool.spare.is_empty(), "an empty chunk is reused");
        for _ in 0..2 * POOL_LIMIT {
            pool.put(Chunk::with_capacity(1));
        }
        assert_eq!(pool.spare.len(), POOL_LIMIT);
        assert_eq!(ChunkPool::<u8>::new(1 << 20).capacity(), MAX_CHUNK);
    }
}
