//! What a rayon user would write for a spanning forest, as a baseline:
//!
//! - [`span_dfs`]: pseudo-DFS with `rayon::scope`: a task expands a batch
//!   list (the same state word and lists as [`span_dfs`](super::span_dfs))
//!   and `spawn`s every completed batch of `batch` new vertices, continuing
//!   itself with its partial batch when its own list runs out (list
//!   swapping). rayon exposes no deque size, so the batch size is fixed.
//! - [`span_bfs`]: level-synchronous BFS: each level is a parallel iterator
//!   over chunks of `batch` frontier vertices, collecting the next level.

use rayon::prelude::*;
use rayon::ThreadPool;

use ordo_graph::{Graph, VertexId};

use super::forest::{Engine, ForestState, Order, NONE};
use super::{run_engine, Counted, SpanRun, SpanStats, Undirected};

/// The spanning forest by `scope`/`spawn` pseudo-DFS on `pool`, batches of
/// `batch` vertices (module docs).
pub fn span_dfs(pool: &ThreadPool, graph: &Undirected<'_>, batch: u32) -> SpanRun {
    let mut engine =
        RayonEngine { pool, batch: batch.max(1), order: Order::Depth, stats: SpanStats::default() };
    run_engine(graph, Order::Depth, &mut engine)
}

/// The spanning forest by level-synchronous BFS with parallel iterators on
/// `pool`, chunks of `batch` frontier vertices (module docs).
pub fn span_bfs(pool: &ThreadPool, graph: &Undirected<'_>, batch: u32) -> SpanRun {
    let mut engine =
        RayonEngine { pool, batch: batch.max(1), order: Order::Breadth, stats: SpanStats::default() };
    run_engine(graph, Order::Breadth, &mut engine)
}

struct RayonEngine<'p> {
    pool: &'p ThreadPool,
    batch: u32,
    order: Order,
    stats: SpanStats,
}

impl Counted for RayonEngine<'_> {
    fn stats(&self) -> SpanStats {
        self.stats.clone()
    }
}

/// Expands the list at `head`; spawns full batches into `scope`.
fn dfs_task<'s>(
    scope: &rayon::Scope<'s>,
    graph: &'s Graph,
    state: &'s ForestState,
    head: VertexId,
    batch: u32,
) {
    let mut old = head;
    let (mut new, mut new_len) = (NONE, 0u32);
    while old != NONE {
        let v = old;
        old = state.link(v);
        for &u in graph.neighbors(v) {
            if state.try_claim(u, v, new) {
                new = u;
                new_len += 1;
                if new_len >= batch {
                    if old == NONE {
                        old = new;
                    } else {
                        let full = new;
                        scope.spawn(move |s| dfs_task(s, graph, state, full, batch));
                    }
                    (new, new_len) = (NONE, 0);
                }
            }
        }
        if old == NONE {
            (old, new, new_len) = (new, NONE, 0);
        }
    }
}

impl Engine for RayonEngine<'_> {
    fn explore(&mut self, graph: &Graph, state: &ForestState, seeds: Vec<VertexId>) -> Option<u64> {
        let batch = self.batch;
        match self.order {
            Order::Depth => {
                let chunk = (seeds.len() / (4 * self.pool.current_num_threads())).clamp(1, batch as usize);
                let heads = state.link_batches(&seeds, chunk);
                self.pool.scope(|s| {
                    for head in heads {
                        s.spawn(move |s| dfs_task(s, graph, state, head, batch));
                    }
                });
                // Not counted (a shared counter would slow the tasks down).
                None
            }
            Order::Breadth => {
                let mut level = seeds;
                let (mut levels, mut claimed) = (0, 0);
                while !level.is_empty() {
                    level = self.pool.install(|| {
                        level
                            .par_chunks(batch as usize)
                            .flat_map_iter(|chunk| {
                                let mut next = Vec::new();
                                for &v in chunk {
                                    for &u in graph.neighbors(v) {
                                        if state.try_claim(u, v, NONE) {
                                            next.push(u);
                                        }
                                    }
                                }
                                next
                            })
                            .collect()
                    });
                    levels += 1;
                    claimed += level.len() as u64;
                }
                self.stats.phases += levels;
                Some(claimed)
            }
        }
    }

    fn unvisited(&mut self, state: &ForestState) -> Vec<VertexId> {
        const CHUNK: usize = 1 << 15;
        self.pool.install(|| {
            (0..state.len().div_ceil(CHUNK))
                .into_par_iter()
                .flat_map_iter(|c| {
                    let first = c * CHUNK;
                    let mut out = Vec::new();
                    state.unvisited_into(first, CHUNK.min(state.len() - first), &mut out);
                    out
                })
                .collect()
        })
    }

    fn parents(&mut self, state: &ForestState) -> Vec<VertexId> {
        const CHUNK: usize = 1 << 15;
        let mut out = vec![0 as VertexId; state.len()];
        self.pool.install(|| {
            out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, part)| state.parents_into(c * CHUNK, part));
        });
        out
    }
}
