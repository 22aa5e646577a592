//! C-style baselines in the spirit of the SIMPLE code of Bader and Cong that
//! the XWS paper compares with (§3.1), on plain scoped threads:
//!
//! - [`span_dfs`]: every thread runs DFS on its own stack of single vertices
//!   (no batching). An idle thread *copies* the older half of a random
//!   victim's stack without synchronising with it ("the steals may get stale
//!   values, yet the correctness is not jeopardized"): the victim keeps its
//!   entries, both may meet a vertex, and a per-vertex *expanded* flag lets
//!   only the first expand it. The run ends when every thread is idle.
//! - [`span_bfs`]: level-synchronous SPMD: each thread expands an equal
//!   slice of the frontier into a local queue; after a barrier the queues
//!   are concatenated into the next frontier.
//!
//! Both use the same state word, component sweep and probe as the
//! work-stealing versions, so only the parallel search differs.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use ordo_graph::{Graph, VertexId};

use super::forest::{Engine, ForestState, Order};
use super::{run_engine, Counted, SpanRun, SpanStats, Undirected};

/// The spanning forest by steal-half DFS on `threads` threads (module docs).
pub fn span_dfs(threads: usize, graph: &Undirected<'_>) -> SpanRun {
    run_engine(graph, Order::Depth, &mut SimpleDfs { threads: threads.max(1), stats: SpanStats::default() })
}

/// The spanning forest by level-synchronous BFS on `threads` threads
/// (module docs).
pub fn span_bfs(threads: usize, graph: &Undirected<'_>) -> SpanRun {
    run_engine(graph, Order::Breadth, &mut SimpleBfs { threads: threads.max(1), stats: SpanStats::default() })
}

/// Waits with spin, then yield, then short sleeps (so that oversubscribed
/// runs make progress); `round` counts the consecutive waits.
fn back_off(round: u32) {
    if round < 6 {
        for _ in 0..(1u32 << round) {
            std::hint::spin_loop();
        }
    } else if round < 22 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
}

struct SimpleDfs {
    threads: usize,
    stats: SpanStats,
}

impl Counted for SimpleDfs {
    fn stats(&self) -> SpanStats {
        self.stats.clone()
    }
}

/// One thread's stack, readable by thieves: `slots[..top]` are the entries;
/// thieves copy from `floor` up (the part no thief copied yet) and advance it.
struct Stack {
    slots: Box<[AtomicU32]>,
    top: AtomicUsize,
    floor: AtomicUsize,
}

impl Stack {
    fn new(capacity: usize) -> Self {
        Stack {
            slots: (0..capacity).map(|_| AtomicU32::new(0)).collect(),
            top: AtomicUsize::new(0),
            floor: AtomicUsize::new(0),
        }
    }
}

/// The owner's side: its shared stack plus a private overflow (a stack
/// holds at most `n` entries when every entry is distinct; stale copies
/// could in principle repeat one, and then the overflow keeps them).
struct Owner<'s> {
    stack: &'s Stack,
    spill: Vec<VertexId>,
}

impl Owner<'_> {
    #[inline]
    fn push(&mut self, v: VertexId) {
        let t = self.stack.top.load(Ordering::Relaxed);
        if t == self.stack.slots.len() {
            self.spill.push(v);
        } else {
            self.stack.slots[t].store(v, Ordering::Relaxed);
            self.stack.top.store(t + 1, Ordering::Release);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<VertexId> {
        if let Some(v) = self.spill.pop() {
            return Some(v);
        }
        let t = self.stack.top.load(Ordering::Relaxed);
        if t == 0 {
            return None;
        }
        let v = self.stack.slots[t - 1].load(Ordering::Relaxed);
        self.stack.top.store(t - 1, Ordering::Release);
        // Entries below the floor were copied by a thief; once we pop below
        // it, lower it so that our new pushes are stealable again.
        if t - 1 < self.stack.floor.load(Ordering::Relaxed) {
            self.stack.floor.fetch_min(t - 1, Ordering::Relaxed);
        }
        Some(v)
    }
}

impl Engine for SimpleDfs {
    fn explore(&mut self, graph: &Graph, state: &ForestState, seeds: Vec<VertexId>) -> Option<u64> {
        let p = self.threads;
        let n = state.len();
        let stacks: Vec<Stack> = (0..p).map(|_| Stack::new(n + 1)).collect();
        let idle = AtomicUsize::new(0);
        let done = AtomicBool::new(false);
        let steals = AtomicUsize::new(0);
        let expanded = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for t in 0..p {
                let (stacks, idle, done, steals, seeds) = (&stacks, &idle, &done, &steals, &seeds);
                let expanded = &expanded;
                scope.spawn(move || {
                    let mut me = Owner { stack: &stacks[t], spill: Vec::new() };
                    for &v in seeds.iter().skip(t).step_by(p) {
                        me.push(v);
                    }
                    let mut rng = 0x2545_F491_4F6C_DD1Du64 ^ (t as u64 + 1);
                    let mut mine = 0;
                    loop {
                        while let Some(v) = me.pop() {
                            if state.mark_expanded(v) {
                                mine += 1;
                                for &u in graph.neighbors(v) {
                                    if state.try_claim(u, v, super::NONE) {
                                        me.push(u);
                                    }
                                }
                            }
                        }
                        // Idle: count in, then look for a victim until all are idle.
                        idle.fetch_add(1, Ordering::AcqRel);
                        let mut round = 0;
                        loop {
                            if done.load(Ordering::Acquire) {
                                expanded.fetch_add(mine, Ordering::Relaxed);
                                return;
                            }
                            if idle.load(Ordering::Acquire) == p {
                                done.store(true, Ordering::Release);
                                expanded.fetch_add(mine, Ordering::Relaxed);
                                return;
                            }
                            rng ^= rng << 13;
                            rng ^= rng >> 7;
                            rng ^= rng << 17;
                            let victim = &stacks[(rng % p as u64) as usize];
                            let (floor, top) =
                                (victim.floor.load(Ordering::Acquire), victim.top.load(Ordering::Acquire));
                            if top >= floor + 2 {
                                // Busy again before copying, so that "all idle" stays a proof.
                                idle.fetch_sub(1, Ordering::AcqRel);
                                let half = (top - floor) / 2;
                                for slot in &victim.slots[floor..floor + half] {
                                    me.push(slot.load(Ordering::Relaxed));
                                }
                                let _ = victim.floor.compare_exchange(
                                    floor,
                                    floor + half,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                );
                                steals.fetch_add(1, Ordering::Relaxed);
                                break;
                            }
                            back_off(round);
                            round += 1;
                        }
                    }
                });
            }
        });
        self.stats.runtime.steals += steals.into_inner() as u64;
        let expanded = expanded.into_inner() as u64;
        self.stats.expanded_in_jobs += expanded;
        // Each vertex is expanded once (the flag), seeds included.
        Some(expanded - seeds.len() as u64)
    }
}

/// A barrier for threads that mostly arrive together: spin, then yield,
/// then sleep (see [`back_off`]).
struct SpinBarrier {
    arrived: AtomicUsize,
    generation: AtomicUsize,
    threads: usize,
}

impl SpinBarrier {
    fn new(threads: usize) -> Self {
        SpinBarrier { arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0), threads }
    }

    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
        } else {
            let mut round = 0;
            while self.generation.load(Ordering::Acquire) == generation {
                back_off(round);
                round += 1;
            }
        }
    }
}

struct SimpleBfs {
    threads: usize,
    stats: SpanStats,
}

impl Counted for SimpleBfs {
    fn stats(&self) -> SpanStats {
        self.stats.clone()
    }
}

impl Engine for SimpleBfs {
    fn explore(&mut self, graph: &Graph, state: &ForestState, seeds: Vec<VertexId>) -> Option<u64> {
        let p = self.threads;
        let barrier = SpinBarrier::new(p);
        let frontier = RwLock::new(seeds);
        let queues: Vec<Mutex<Vec<VertexId>>> = (0..p).map(|_| Mutex::new(Vec::new())).collect();
        let levels = AtomicUsize::new(0);
        let claimed = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for t in 0..p {
                let (barrier, frontier, queues, levels) = (&barrier, &frontier, &queues, &levels);
                let claimed = &claimed;
                scope.spawn(move || loop {
                    {
                        let current = frontier.read().unwrap_or_else(|e| e.into_inner());
                        if current.is_empty() {
                            return;
                        }
                        let (lo, hi) = (current.len() * t / p, current.len() * (t + 1) / p);
                        let mut local = queues[t].lock().unwrap_or_else(|e| e.into_inner());
                        for &v in &current[lo..hi] {
                            for &u in graph.neighbors(v) {
                                if state.try_claim(u, v, super::NONE) {
                                    local.push(u);
                                }
                            }
                        }
                    }
                    barrier.wait();
                    if t == 0 {
                        let mut next = Vec::new();
                        for q in queues {
                            next.append(&mut q.lock().unwrap_or_else(|e| e.into_inner()));
                        }
                        claimed.fetch_add(next.len(), Ordering::Relaxed);
                        *frontier.write().unwrap_or_else(|e| e.into_inner()) = next;
                        levels.fetch_add(1, Ordering::Relaxed);
                    }
                    barrier.wait();
                });
            }
        });
        self.stats.phases += levels.into_inner() as u64;
        Some(claimed.into_inner() as u64)
    }
}
