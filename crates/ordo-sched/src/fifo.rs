//! `fifo`: a chunked unordered bag that ignores priorities (baseline), and the
//! chunked-bag machinery shared with [`crate::lifo`].
//!
//! This is Galois' `PerSocketChunkFIFO` (Galois source): a
//! thread appends to a private chunk `next` and publishes it to its socket's
//! queue when full; it pops from a private chunk `cur`, refills `cur` with a
//! whole chunk from the queues (own socket first, then a steal), and falls
//! back on its own unpublished `next` chunk, so no task is ever stranded.
//! The `lifo` variant (`PerSocketChunkLIFO`) pops the newest task of `next`
//! and takes the newest chunk from a stack of chunks.

use std::marker::PhantomData;

use crate::bag::{Bag, ChunkOrder};
use crate::chunk::{Chunk, ChunkPool, DEFAULT_CHUNK};
use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::topology::Topology;
use crate::{Handle, Prio, PrivateTasks, Scheduler};

/// Configuration of the chunked bags `fifo` and `lifo`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkedConfig {
    /// Tasks per chunk (`chunk`, default 64, at most 4096).
    pub chunk: usize,
}

impl Default for ChunkedConfig {
    fn default() -> Self {
        ChunkedConfig { chunk: DEFAULT_CHUNK }
    }
}

impl SchedConfig for ChunkedConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        Ok(ChunkedConfig { chunk: p.take_chunk()? })
    }

    fn to_params(&self) -> String {
        format!("chunk={}", self.chunk)
    }
}

/// A single chunked bag with per-socket queues; `LIFO` selects the stack
/// variant. Use the aliases [`Fifo`] and [`crate::lifo::Lifo`].
pub struct Chunked<T, const LIFO: bool> {
    bag: Bag<T>,
    topology: Topology,
    chunk: usize,
}

/// The `fifo` scheduler: chunk-FIFO, priorities ignored.
pub type Fifo<T> = Chunked<T, false>;

impl<T: Send, const LIFO: bool> Chunked<T, LIFO> {
    /// A scheduler for the threads of `topology`.
    pub fn with_topology(topology: Topology, cfg: &ChunkedConfig) -> Self {
        let order = if LIFO { ChunkOrder::Lifo } else { ChunkOrder::Fifo };
        Chunked { bag: Bag::new(topology.num_sockets(), order), chunk: cfg.chunk, topology }
    }
}

impl<T: Send, const LIFO: bool> BuildScheduler<T> for Chunked<T, LIFO> {
    type Config = ChunkedConfig;

    fn build(threads: usize, cfg: &ChunkedConfig) -> Self {
        Self::with_topology(Topology::detect_or_warn(threads), cfg)
    }
}

impl<T: Send, const LIFO: bool> Scheduler<T> for Chunked<T, LIFO> {
    type Handle<'s>
        = ChunkedHandle<'s, T, LIFO>
    where
        T: 's;

    fn handle(&self, tid: usize) -> ChunkedHandle<'_, T, LIFO> {
        ChunkedHandle {
            sched: self,
            socket: self.topology.socket_of_thread(tid),
            pool: ChunkPool::new(self.chunk),
            cur: None,
            next: None,
            chunks_published: 0,
            chunks_taken: 0,
            steals: 0,
            own_chunk_pops: 0,
            _not_send: PhantomData,
        }
    }
}

/// A thread's handle on a [`Chunked`] bag.
pub struct ChunkedHandle<'s, T, const LIFO: bool> {
    sched: &'s Chunked<T, LIFO>,
    socket: usize,
    pool: ChunkPool<T>,
    /// FIFO only: the chunk being popped.
    cur: Option<Chunk<T>>,
    /// The chunk being filled (and, for LIFO, popped).
    next: Option<Chunk<T>>,
    chunks_published: u64,
    chunks_taken: u64,
    steals: u64,
    own_chunk_pops: u64,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send, const LIFO: bool> ChunkedHandle<'_, T, LIFO> {
    fn take_chunk(&mut self) -> Option<Chunk<T>> {
        let (chunk, stolen) = self.sched.bag.pop_chunk(self.socket)?;
        self.chunks_taken += 1;
        self.steals += u64::from(stolen);
        Some(chunk)
    }

    fn publish_next(&mut self) {
        if let Some(c) = self.next.take() {
            if c.is_empty() {
                self.pool.put(c);
            } else {
                self.sched.bag.push_chunk(self.socket, c);
                self.chunks_published += 1;
            }
        }
    }
}

impl<T: Send, const LIFO: bool> Handle<T> for ChunkedHandle<'_, T, LIFO> {
    fn push(&mut self, prio: Prio, task: T) {
        let next = self.next.get_or_insert_with(|| self.pool.get());
        next.push(prio, task);
        if self.pool.is_full(next) {
            self.publish_next();
        }
    }

    fn pop(&mut self) -> Option<(Prio, T)> {
        if LIFO {
            loop {
                if let Some(item) = self.next.as_mut().and_then(|c| c.pop_back()) {
                    return Some(item);
                }
                let fresh = self.take_chunk()?;
                if let Some(empty) = self.next.replace(fresh) {
                    self.pool.put(empty);
                }
            }
        }
        loop {
            if let Some(item) = self.cur.as_mut().and_then(|c| c.pop_front()) {
                return Some(item);
            }
            let fresh = match self.take_chunk() {
                Some(c) => c,
                None => {
                    // Nothing published anywhere: fall back on our own
                    // unpublished chunk.
                    let own = self.next.take().filter(|c| !c.is_empty())?;
                    self.own_chunk_pops += 1;
                    own
                }
            };
            if let Some(empty) = self.cur.replace(fresh) {
                self.pool.put(empty);
            }
        }
    }

    fn flush(&mut self) {
        self.publish_next();
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("chunks_published", self.chunks_published),
            ("chunks_taken", self.chunks_taken),
            ("steals", self.steals),
            ("own_chunk_pops", self.own_chunk_pops),
        ]
    }

    /// FIFO: the chunk being filled is unpublished, the chunk being popped
    /// claimed. LIFO pushes onto and pops from one chunk, which after a take
    /// mixes a taken chunk with new pushes; all of it counts as unpublished.
    fn private_tasks(&self) -> PrivateTasks {
        let len = |c: &Option<Chunk<T>>| c.as_ref().map_or(0, Chunk::len);
        PrivateTasks { unpublished: len(&self.next), claimed: len(&self.cur) }
    }
}

impl<T, const LIFO: bool> Drop for ChunkedHandle<'_, T, LIFO> {
    /// Hands every task still private to this handle back to the bag, so
    /// dropping a handle never loses tasks.
    fn drop(&mut self) {
        for c in [self.cur.take(), self.next.take()].into_iter().flatten() {
            if !c.is_empty() {
                self.sched.bag.push_chunk(self.socket, c);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
pub(crate) mod tests {
    use super::*;
    use crate::spec::SchedulerSpec;

    /// Pushes `n` tasks from `threads` threads (each task's own id), pops from
    /// every thread until all are done, and checks each came out once.
    /// Used by every scheduler's tests.
    pub(crate) fn exactly_once<S: Scheduler<u64>>(sched: &S, threads: usize, n: u64, spread: u64) {
        use std::sync::atomic::{AtomicU64, Ordering};
        let seen: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let done = AtomicU64::new(0);
        let pushers_left = AtomicU64::new(threads as u64);
        std::thread::scope(|s| {
            for tid in 0..threads {
                let (seen, done, sched, pushers_left) = (&seen, &done, sched, &pushers_left);
                s.spawn(move || {
                    let mut h = sched.handle(tid);
                    let mut i = tid as u64;
                    // Interleave pushes and pops; each thread pushes a stride.
                    while i < n {
                        h.push((i * 7919) % spread.max(1), i);
                        if i % 3 == 0 {
                            if let Some((_, t)) = h.pop() {
                                seen[t as usize].fetch_add(1, Ordering::Relaxed);
                                done.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                        i += threads as u64;
                    }
                    h.flush();
                    pushers_left.fetch_sub(1, Ordering::SeqCst);
                    loop {
                        match h.pop() {
                            Some((_, t)) => {
                                seen[t as usize].fetch_add(1, Ordering::Relaxed);
                                done.fetch_add(1, Ordering::Relaxed);
                            }
                            None => {
                                if pushers_left.load(Ordering::SeqCst) == 0
                                    && done.load(Ordering::SeqCst) == n
                                {
                                    break;
                                }
                                std::thread::yield_now();
                            }
                        }
                    }
                });
            }
        });
        for (i, c) in seen.iter().enumerate() {
            assert_eq!(c.load(std::sync::atomic::Ordering::Relaxed), 1, "task {i}");
        }
    }

    fn drain<H: Handle<u64>>(h: &mut H) -> Vec<u64> {
        std::iter::from_fn(|| h.pop()).map(|(_, t)| t).collect()
    }

    #[test]
    fn fifo_single_thread_is_chunk_fifo_and_keeps_private_tasks() {
        let s: Fifo<u64> = Fifo::with_topology(Topology::single(1), &ChunkedConfig { chunk: 4 });
        let mut h = s.handle(0);
        for i in 0..10 {
            h.push(100 - i, i);
        }
        // Two full chunks published; 8, 9 still private; all come out in FIFO order.
        assert_eq!(drain(&mut h), (0..10).collect::<Vec<_>>());
        assert_eq!(h.own_chunk_pops, 1);
        assert!(h.pop().is_none());
    }

    #[test]
    fn flush_makes_private_tasks_visible_and_drop_returns_them() {
        let s: Fifo<u64> = Fifo::with_topology(Topology::even(2, 2), &ChunkedConfig::default());
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        a.push(0, 1);
        assert!(b.pop().is_none(), "a partial chunk is private");
        a.flush();
        assert_eq!(b.pop(), Some((0, 1)), "stolen from the other socket");
        assert_eq!(b.steals, 1);
        a.push(0, 2);
        a.push(0, 3);
        assert_eq!(a.pop(), Some((0, 2)));
        drop(a);
        assert_eq!(b.pop(), Some((0, 3)), "a dropped handle hands back its tasks");
    }

    #[test]
    fn fifo_exactly_once_multithreaded() {
        for threads in [1, 2, 4] {
            for topo in [Topology::single(threads), Topology::even(threads, 2)] {
                let s: Fifo<u64> = Fifo::with_topology(topo, &ChunkedConfig { chunk: 16 });
                exactly_once(&s, threads, 100_000, 1);
            }
        }
    }

    #[test]
    fn spec_parses_and_rejects() {
        let spec: SchedulerSpec = "fifo:chunk=8".parse().unwrap();
        assert_eq!(spec.to_string(), "fifo:chunk=8");
        assert_eq!("fifo".parse::<SchedulerSpec>().unwrap().to_string(), "fifo:chunk=64");
        let e = "fifo:chunks=8".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.0.contains("unknown parameter `chunks`") && e.0.contains("chunk"), "{e}");
        // chunk=0 is the PMOD paper's "chunking disabled": one task per chunk.
        assert_eq!("lifo:chunk=0".parse::<SchedulerSpec>().unwrap().to_string(), "lifo:chunk=1");
        let e = "lifo:chunk=4097".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.0.contains("chunk=4097") && e.0.contains("0 to 4096"), "{e}");
    }
}
