//! Direction-optimizing breadth-first search (Beamer, Asanović and
//! Patterson, "Direction-Optimizing Breadth-First Search", SC 2012), in the
//! form of GAPBS's `bfs.cc`: level-synchronous rounds, each either top-down
//! or bottom-up, on the data-parallel loops of [`Pool`].
//!
//! A top-down step scans the out-edges of every frontier vertex and claims
//! each unvisited target (a compare-and-swap on its level, a load and a store
//! on a pool of one worker, the only writer); every worker gathers the
//! vertices it claimed in its own buffer, and the buffers, concatenated, are
//! the next frontier. A bottom-up step turns the search around: every
//! unvisited vertex scans its in-edges for a parent in the frontier (a
//! bitmap) and stops at the first one it finds, so that when the frontier
//! holds a large share of the graph most edges are never looked at. A step
//! writes the bits of 64 consecutive vertices as one word, and a loop chunk
//! is whole words, so no two workers write one word and the bottom-up step
//! needs no atomic read-modify-write at all.
//!
//! The switch is GAPBS's heuristic: go bottom-up when the out-edges of the
//! frontier (`scout`, the sum of the out-degrees of the vertices it holds)
//! exceed `1/alpha` of the edges not yet examined by a top-down step; go back
//! top-down when the frontier shrinks (it woke fewer vertices than the step
//! before) and holds at most `n / beta` vertices. `alpha = 15`, `beta = 18`
//! as in the paper and GAPBS.
//!
//! Parents follow Graph500: the source is its own parent, every other
//! reached vertex has the vertex it was discovered from, one level closer to
//! the source; [`NO_PARENT`] marks the unreached.
//!
//! Memory ordering: every read of a level or a bitmap word written in the
//! same step either tests "unvisited" (a stale answer only costs a failed
//! claim in a top-down step; a bottom-up step reads only levels its own
//! chunk writes) or reads the frontier, written in an earlier step. Steps
//! are separated by the join of the pool's loop, which orders them, so every
//! access is `Relaxed`.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use ordo_exec::Pool;
use ordo_graph::{Graph, VertexId};

use super::{BfsTree, UNREACHED_LEVEL};
use crate::access::check_source;
use crate::AlgoError;

/// The parent of a vertex the source cannot reach.
pub const NO_PARENT: VertexId = VertexId::MAX;

/// Frontier vertices per chunk of a top-down step: small, because one
/// vertex of a power-law graph can hold a large share of the edges.
const TOP_DOWN_GRAIN: usize = 64;

/// A top-down step whose frontier has at most this many vertices plus
/// out-edges runs on the calling thread alone: high-diameter graphs (road
/// networks, meshes) have thousands of such levels, and the wake-up and join
/// of the workers would cost more than the step.
const SEQUENTIAL_STEP_WORK: u64 = 1 << 13;

/// Bitmap words (64 vertices each) per chunk of a bottom-up step, GAPBS's
/// 1024 vertices.
const BOTTOM_UP_GRAIN_WORDS: usize = 16;

/// When a [`bfs_direction`] run switches between the two directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switching {
    /// GAPBS's rule with these parameters (see the module docs).
    Heuristic {
        /// Go bottom-up when the frontier's out-edges exceed the unexamined
        /// edges divided by `alpha`.
        alpha: u64,
        /// Go back top-down once the frontier shrinks to `n / beta` vertices.
        beta: u64,
    },
    /// Every step top-down (the plain parallel queue BFS).
    TopDownOnly,
}

impl Switching {
    /// GAPBS's and the paper's parameters.
    pub const GAPBS: Switching = Switching::Heuristic { alpha: 15, beta: 18 };
}

/// How many steps (levels) of a [`bfs_direction`] run went each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    /// Steps over the out-edges of the frontier.
    pub top_down: u32,
    /// Steps over the in-edges of the unvisited vertices.
    pub bottom_up: u32,
}

/// Direction-optimizing BFS from `source` on `pool` (module docs): levels,
/// and with `parents` the BFS tree. `in_edges` is a graph whose out-edges
/// of `v` are the edges into `v` of `graph` (`graph` itself when it is
/// symmetric, see `crate::access::in_edges`); it is read only by bottom-up
/// steps. `O(n + m)` work per top-down-only run; a bottom-up step costs
/// `O(n)` plus the in-edges it scans.
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex;
/// [`AlgoError::InvalidParameter`] when `in_edges` has another vertex count.
///
/// # Example
/// ```
/// # use ordo_graph::EdgeList;
/// use ordo_algos::bfs::direction::{bfs_direction, Switching};
/// let mut edges = EdgeList::new(3, false);
/// edges.push(0, 1, 0);
/// edges.push(1, 2, 0);
/// let graph = edges.into_graph().unwrap();
/// let in_edges = ordo_graph::transform::transpose(&graph); // the graph is directed
/// let pool = ordo_exec::Pool::new(2).unwrap();
/// let (tree, _steps) = bfs_direction(&pool, &graph, &in_edges, 0, true, Switching::GAPBS).unwrap();
/// assert_eq!(tree.levels, vec![0, 1, 2]);
/// assert_eq!(tree.parents, Some(vec![0, 0, 1]));
/// ```
pub fn bfs_direction(
    pool: &Pool,
    graph: &Graph,
    in_edges: &Graph,
    source: VertexId,
    parents: bool,
    switching: Switching,
) -> Result<(BfsTree, Steps), AlgoError> {
    check_source(graph, source)?;
    if in_edges.num_vertices() != graph.num_vertices() {
        return Err(AlgoError::InvalidParameter(format!(
            "the in-edges have {} vertices, the graph {}",
            in_edges.num_vertices(),
            graph.num_vertices()
        )));
    }
    let search = Search::new(pool, graph, in_edges, source, parents);
    Ok(match (pool.threads() == 1, parents) {
        (true, true) => search.run::<true, true>(switching),
        (true, false) => search.run::<true, false>(switching),
        (false, true) => search.run::<false, true>(switching),
        (false, false) => search.run::<false, false>(switching),
    })
}

/// The state of one search.
struct Search<'a> {
    pool: &'a Pool,
    graph: &'a Graph,
    in_edges: &'a Graph,
    source: VertexId,
    level: Vec<AtomicU32>,
    /// Empty unless parents are recorded.
    parent: Vec<AtomicU32>,
}

impl<'a> Search<'a> {
    fn new(pool: &'a Pool, graph: &'a Graph, in_edges: &'a Graph, source: VertexId, parents: bool) -> Self {
        let n = graph.num_vertices();
        let level = pool.collect_indexed(n, |_| AtomicU32::new(UNREACHED_LEVEL));
        let parent =
            if parents { pool.collect_indexed(n, |_| AtomicU32::new(NO_PARENT)) } else { Vec::new() };
        Search { pool, graph, in_edges, source, level, parent }
    }

    /// The rounds. `ALONE`: one worker, so a claim is a load and a store;
    /// `PARENTS`: record parents.
    fn run<const ALONE: bool, const PARENTS: bool>(self, switching: Switching) -> (BfsTree, Steps) {
        let n = self.graph.num_vertices();
        let offsets = self.graph.offsets();
        let source = self.source;
        self.level[source as usize].store(0, Relaxed);
        if PARENTS {
            self.parent[source as usize].store(source, Relaxed);
        }
        let mut queue = vec![source];
        let mut depth = 0u32;
        let mut steps = Steps::default();
        // Out-edges not yet scanned by a top-down step, and those of the
        // frontier (GAPBS's `edges_to_check` and `scout_count`).
        let mut unexamined = self.graph.num_edges() as u64;
        let mut scout = offsets[source as usize + 1] - offsets[source as usize];
        let mut bitmaps: Option<(Vec<AtomicU64>, Vec<AtomicU64>)> = None;
        while !queue.is_empty() {
            let go_bottom_up = match switching {
                Switching::Heuristic { alpha, .. } => scout > unexamined / alpha.max(1),
                Switching::TopDownOnly => false,
            };
            if let (true, Switching::Heuristic { beta, .. }) = (go_bottom_up, switching) {
                let (front, next) = bitmaps.get_or_insert_with(|| {
                    let words = n.div_ceil(64);
                    (
                        self.pool.collect_indexed(words, |_| AtomicU64::new(0)),
                        self.pool.collect_indexed(words, |_| AtomicU64::new(0)),
                    )
                });
                self.queue_to_bitmap::<ALONE>(&queue, front);
                let mut awake = queue.len() as u64;
                loop {
                    let before = awake;
                    awake = self.bottom_up_step::<PARENTS>(front, next, depth + 1);
                    steps.bottom_up += 1;
                    depth += 1;
                    std::mem::swap(front, next);
                    if awake < before && awake <= n as u64 / beta.max(1) {
                        break;
                    }
                }
                queue = self.bitmap_to_queue(front);
                scout = 1;
            } else {
                unexamined = unexamined.saturating_sub(scout);
                // A step this small costs less than waking the workers
                // and joining them: the caller runs it alone, so a claim is
                // a load and a store.
                let small = scout + queue.len() as u64 <= SEQUENTIAL_STEP_WORK;
                let (next, next_scout) = if ALONE || small {
                    self.top_down_step::<true, PARENTS>(&queue, depth + 1, queue.len())
                } else {
                    self.top_down_step::<false, PARENTS>(&queue, depth + 1, TOP_DOWN_GRAIN)
                };
                steps.top_down += 1;
                depth += 1;
                queue = next;
                scout = next_scout;
            }
        }
        let tree = BfsTree {
            levels: self.level.into_iter().map(AtomicU32::into_inner).collect(),
            parents: PARENTS.then(|| self.parent.into_iter().map(AtomicU32::into_inner).collect()),
        };
        (tree, steps)
    }

    /// Claims the unvisited out-neighbours of `frontier` at level `next`:
    /// the next frontier, and the sum of its out-degrees. Chunks of `grain`
    /// vertices; `ALONE` only when one thread runs the step (one worker, or
    /// one chunk, which the caller runs itself).
    fn top_down_step<const ALONE: bool, const PARENTS: bool>(
        &self,
        frontier: &[VertexId],
        next: u32,
        grain: usize,
    ) -> (Vec<VertexId>, u64) {
        let offsets = self.graph.offsets();
        let targets = self.graph.targets();
        let (level, parent) = (&self.level, &self.parent);
        let mut found = self.pool.fold_chunks(
            frontier.len(),
            grain,
            |_| (Vec::new(), 0u64),
            |(claimed, scout): &mut (Vec<VertexId>, u64), chunk| {
                for &u in &frontier[chunk] {
                    let (lo, hi) = (offsets[u as usize] as usize, offsets[u as usize + 1] as usize);
                    for &v in &targets[lo..hi] {
                        if claim::<ALONE>(&level[v as usize], next) {
                            if PARENTS {
                                parent[v as usize].store(u, Relaxed);
                            }
                            claimed.push(v);
                            *scout += offsets[v as usize + 1] - offsets[v as usize];
                        }
                    }
                }
            },
        );
        let scout = found.iter().map(|(_, s)| s).sum();
        if found.len() == 1 {
            return (found.pop().map(|(q, _)| q).unwrap_or_default(), scout);
        }
        let mut queue = Vec::with_capacity(found.iter().map(|(q, _)| q.len()).sum());
        for (claimed, _) in &found {
            queue.extend_from_slice(claimed);
        }
        (queue, scout)
    }

    /// Every unvisited vertex looks among its in-neighbours for one in
    /// `front`; those that find one get level `next` and their bit in
    /// `awake` (every word of which is written). Returns how many woke.
    fn bottom_up_step<const PARENTS: bool>(
        &self,
        front: &[AtomicU64],
        awake: &[AtomicU64],
        next: u32,
    ) -> u64 {
        let n = self.graph.num_vertices();
        let offsets = self.in_edges.offsets();
        let sources = self.in_edges.targets();
        let (level, parent) = (&self.level, &self.parent);
        let in_front = |v: VertexId| front[v as usize / 64].load(Relaxed) >> (v % 64) & 1 == 1;
        let counts = self.pool.fold_chunks(
            awake.len(),
            BOTTOM_UP_GRAIN_WORDS,
            |_| 0u64,
            |count, words| {
                for w in words {
                    let mut bits = 0u64;
                    for v in w * 64..(w * 64 + 64).min(n) {
                        if level[v].load(Relaxed) != UNREACHED_LEVEL {
                            continue;
                        }
                        let (lo, hi) = (offsets[v] as usize, offsets[v + 1] as usize);
                        if let Some(&u) = sources[lo..hi].iter().find(|&&u| in_front(u)) {
                            level[v].store(next, Relaxed);
                            if PARENTS {
                                parent[v].store(u, Relaxed);
                            }
                            bits |= 1 << (v % 64);
                            *count += 1;
                        }
                    }
                    awake[w].store(bits, Relaxed);
                }
            },
        );
        counts.iter().sum()
    }

    /// Clears `bitmap` and sets the bits of `queue`'s vertices.
    fn queue_to_bitmap<const ALONE: bool>(&self, queue: &[VertexId], bitmap: &[AtomicU64]) {
        self.pool.for_chunks(bitmap.len(), 4096, |words| {
            for w in &bitmap[words] {
                w.store(0, Relaxed);
            }
        });
        self.pool.for_chunks(queue.len(), 4096, |chunk| {
            for &v in &queue[chunk] {
                let (word, bit) = (&bitmap[v as usize / 64], 1u64 << (v % 64));
                if ALONE {
                    word.store(word.load(Relaxed) | bit, Relaxed);
                } else {
                    word.fetch_or(bit, Relaxed);
                }
            }
        });
    }

    /// The vertices whose bits are set, in no particular order.
    fn bitmap_to_queue(&self, bitmap: &[AtomicU64]) -> Vec<VertexId> {
        let mut found = self.pool.fold_chunks(
            bitmap.len(),
            1024,
            |_| Vec::new(),
            |out: &mut Vec<VertexId>, words| {
                for w in words {
                    let mut bits = bitmap[w].load(Relaxed);
                    while bits != 0 {
                        out.push((w * 64) as VertexId + bits.trailing_zeros());
                        bits &= bits - 1;
                    }
                }
            },
        );
        if found.len() == 1 {
            return found.pop().unwrap_or_default();
        }
        let mut queue = Vec::with_capacity(found.iter().map(Vec::len).sum());
        for part in &found {
            queue.extend_from_slice(part);
        }
        queue
    }
}

/// Sets `slot` from unvisited to `next`; true for the one caller that did.
/// `ALONE`: the pool has one worker, the only writer, so a load and a store
/// do what the compare-and-swap does.
#[inline(always)]
fn claim<const ALONE: bool>(slot: &AtomicU32, next: u32) -> bool {
    if slot.load(Relaxed) != UNREACHED_LEVEL {
        return false;
    }
    if ALONE {
        slot.store(next, Relaxed);
        true
    } else {
        slot.compare_exchange(UNREACHED_LEVEL, next, Relaxed, Relaxed).is_ok()
    }
}
