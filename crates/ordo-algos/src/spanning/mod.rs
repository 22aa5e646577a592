//! Spanning forests by parallel graph search on the XWS work-stealing
//! runtime (Cong, Kodali, Krishnamoorthy, Lea, Saraswat, Wen, ICPP 2008):
//! pseudo-DFS with adaptive batching (§3.3) and phased BFS (§2.3), plus the
//! baselines the paper compares with.
//!
//! # Input
//! A spanning forest is defined on an undirected graph. [`Undirected::new`]
//! keeps a symmetric graph as it is (self loops and parallel edges included:
//! the searches handle both) and turns any other graph into the simple
//! undirected one by [`ordo_graph::transform::symmetrize_simple`] (every arc
//! `(u, v)` read as the edge `{u, v}`, self loops dropped, parallel edges
//! kept once).
//!
//! # Output
//! `parent[v]` for every vertex: a neighbour of `v` in its tree, or `v`
//! itself for the one root of each connected component. [`verify`] checks
//! exactly that against a sequential union-find; the BFS variants also
//! produce exact BFS levels from their roots ([`verify::check_bfs_levels`]).
//!
//! # How
//! Each vertex has one 64-bit state word: its parent and a link that chains
//! the vertices of one *batch* (a frame is the head of such a list, as in
//! XWS). A worker expanding a vertex claims each unvisited neighbour with one
//! CAS that sets its parent and links it into the worker's current batch.
//! - [`span_dfs`]: a batch is pushed as a frame once it holds
//!   `min(2^Q, S)` vertices (`Q` the worker's deque size, [`BatchPolicy`]);
//!   when the frame's own list is exhausted it continues with its partial
//!   batch instead of pushing and popping it (the paper's list swapping).
//! - [`span_bfs`]: batches go to the next phase ([`ordo_steal::Worker::push_next`]);
//!   their size is predicted from the worker's work in the previous phase
//!   ([`PhaseEstimate`]).
//!
//! Components: the caller explores vertex 0's component, then every vertex
//! still unvisited, in increasing order, roots the next one. A component is
//! first searched sequentially up to 1024 vertices; only larger ones start a
//! parallel job (seeded with that probe's frontier), so thousands of tiny
//! components cost no job each. Finding the unvisited vertices and
//! collecting the parents are parallel jobs too.
//!
//! # Baselines
//! - [`simple`]: C-style implementations in the spirit of the SIMPLE code of
//!   Bader and Cong the paper compares with (§3.1): DFS with per-thread
//!   stacks and steal-half, BFS as level-synchronous SPMD with barriers.
//! - [`with_rayon`]: what a rayon user would write: DFS by `scope`/`spawn`
//!   with fixed batches, BFS level by level with parallel iterators.
//! - [`reference`](mod@reference): sequential BFS and DFS forests (the speed bar) and the
//!   union-find component labels the checker uses.
//!
//! # Example
//! ```
//! use ordo_algos::spanning::{self, SpanOptions, Undirected};
//! use ordo_graph::EdgeList;
//! use ordo_steal::Pool;
//!
//! // A path 0-1-2 and an isolated vertex 3, given one way only.
//! let mut edges = EdgeList::new(4, false);
//! edges.push(0, 1, 1);
//! edges.push(1, 2, 1);
//! let input = edges.into_graph().unwrap();
//! let graph = Undirected::new(&input);
//! let pool = Pool::new(2).unwrap();
//! let run = spanning::span_dfs(&pool, &graph, &SpanOptions::default());
//! let summary = spanning::verify::check_spanning_forest(&graph, &run.parent).unwrap();
//! assert_eq!(summary.components, 2);
//! assert_eq!(run.parent[3], 3);
//! ```

pub mod app;
mod forest;
pub mod reference;
pub mod simple;
pub mod verify;
pub mod with_rayon;

#[cfg(test)]
mod test;

use std::borrow::Cow;
use std::time::{Duration, Instant};

use ordo_graph::{stats, transform, Graph, VertexId};
use ordo_steal::{Frame, Job, Pool, Worker, WorkerStats};

pub use ordo_steal::{BatchPolicy, PhaseEstimate, DEFAULT_MAX_BATCH, DEFAULT_PHASE_FRACTION};

use forest::{Engine, ForestState, Order, NONE};

/// A symmetric graph: the input of every spanning-forest function (module
/// docs, "Input").
#[derive(Clone, Debug)]
pub struct Undirected<'g> {
    graph: Cow<'g, Graph>,
}

impl<'g> Undirected<'g> {
    /// The symmetrized graph, if the input was not symmetric.
    pub(crate) fn into_symmetrized(self) -> Option<Graph> {
        match self.graph {
            Cow::Owned(g) => Some(g),
            Cow::Borrowed(_) => None,
        }
    }

    /// A view of a graph known to be symmetric (no check).
    pub(crate) fn of_symmetric(graph: &'g Graph) -> Self {
        Undirected { graph: Cow::Borrowed(graph) }
    }

    /// `graph` itself when it is symmetric (every arc has its reverse), else
    /// its simple symmetrization. `O(m log d)` to check.
    pub fn new(graph: &'g Graph) -> Self {
        if stats::is_symmetric(graph) {
            Undirected { graph: Cow::Borrowed(graph) }
        } else {
            Undirected { graph: Cow::Owned(transform::symmetrize_simple(graph)) }
        }
    }

    /// Whether the input was not symmetric and was symmetrized.
    pub fn was_symmetrized(&self) -> bool {
        matches!(self.graph, Cow::Owned(_))
    }

    /// The symmetric CSR graph (each undirected edge appears as two arcs).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Vertices.
    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Undirected edges, the `E` of million edges per second (MEPS): half
    /// the arcs of the symmetric graph, i.e. each edge `{u, v}` once. The
    /// XWS paper's code counts `M = 4n` for a torus (its arcs) and the
    /// generated undirected edges for random and k-graphs; on a torus its
    /// MEPS are twice ours for the same time.
    pub fn num_edges(&self) -> u64 {
        self.graph.num_edges() as u64 / 2
    }
}

/// Options of [`span_dfs`] and [`span_bfs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanOptions {
    /// When a batch of newly found vertices becomes a frame (default:
    /// adaptive with `S = 128`).
    pub batch: BatchPolicy,
    /// BFS only: the fraction of the previous phase's per-worker work used
    /// as the batch size ([`PhaseEstimate::limit`]).
    pub phase_fraction: f64,
}

impl Default for SpanOptions {
    fn default() -> Self {
        SpanOptions { batch: BatchPolicy::default(), phase_fraction: DEFAULT_PHASE_FRACTION }
    }
}

/// Counters of one spanning-forest run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpanStats {
    /// Connected components (= roots).
    pub components: u64,
    /// Components large enough for a parallel job (the others were finished
    /// by the sequential probe).
    pub parallel_components: u64,
    /// BFS levels run as phases of the parallel jobs (0 for DFS).
    pub phases: u64,
    /// The runtime's counters summed over the search jobs (frames = batches
    /// run; zero for the baselines, which have no frames).
    pub runtime: WorkerStats,
    /// Vertices expanded inside the search jobs (each once).
    pub expanded_in_jobs: u64,
}

impl SpanStats {
    /// Vertices per frame run: the paper's "actual nodes processed per task"
    /// (§3.4, "Connectivity"); 0 without frames.
    pub fn vertices_per_frame(&self) -> f64 {
        if self.runtime.frames == 0 {
            0.0
        } else {
            self.expanded_in_jobs as f64 / self.runtime.frames as f64
        }
    }
}

/// A spanning forest and how it was computed.
#[derive(Clone, Debug)]
pub struct SpanRun {
    /// `parent[v]`: `v`'s tree neighbour towards the root; a root is its own
    /// parent.
    pub parent: Vec<VertexId>,
    /// Counters.
    pub stats: SpanStats,
    /// Wall time of the whole computation (allocation, searches, output).
    pub elapsed: Duration,
}

/// The spanning forest of `graph` by parallel pseudo-DFS with batching
/// (XWS §3.3) on `pool`.
///
/// `O(n + m)` work; each vertex is claimed once (one CAS) and expanded once.
pub fn span_dfs(pool: &Pool, graph: &Undirected<'_>, options: &SpanOptions) -> SpanRun {
    run_engine(graph, Order::Depth, &mut StealEngine::new(pool, Order::Depth, *options))
}

/// The spanning forest of `graph` by phased parallel BFS (XWS §2.3,
/// Example 2.2) with predictive batching (§3.3) on `pool`: every vertex's
/// depth in its tree is its BFS distance from the root.
///
/// `O(n + m)` work plus one barrier per level.
pub fn span_bfs(pool: &Pool, graph: &Undirected<'_>, options: &SpanOptions) -> SpanRun {
    run_engine(graph, Order::Breadth, &mut StealEngine::new(pool, Order::Breadth, *options))
}

/// Engines report their counters through this.
pub(crate) trait Counted: Engine {
    fn stats(&self) -> SpanStats;
}

pub(crate) fn run_engine(graph: &Undirected<'_>, order: Order, engine: &mut impl Counted) -> SpanRun {
    let start = Instant::now();
    let (parent, counts) = forest::sweep(graph.graph(), order, engine);
    let elapsed = start.elapsed();
    let mut stats = engine.stats();
    stats.components = counts.components;
    stats.parallel_components = counts.parallel_components;
    SpanRun { parent, stats, elapsed }
}

/// Vertices per frame of the parallel scans (unvisited vertices, parents).
const SCAN_CHUNK: usize = 1 << 15;

/// The ordo-steal engine of [`span_dfs`] and [`span_bfs`].
struct StealEngine<'p> {
    pool: &'p Pool,
    order: Order,
    options: SpanOptions,
    stats: SpanStats,
}

impl<'p> StealEngine<'p> {
    fn new(pool: &'p Pool, order: Order, options: SpanOptions) -> Self {
        StealEngine { pool, order, options, stats: SpanStats::default() }
    }

    /// Initial batches: a few per worker, at most `S` vertices each.
    fn seed_chunk(&self, seeds: usize) -> usize {
        (seeds / (4 * self.pool.threads())).clamp(1, self.options.batch.max() as usize)
    }
}

impl Counted for StealEngine<'_> {
    fn stats(&self) -> SpanStats {
        self.stats.clone()
    }
}

impl Engine for StealEngine<'_> {
    fn explore(&mut self, graph: &Graph, state: &ForestState, seeds: Vec<VertexId>) -> Option<u64> {
        let heads = state.link_batches(&seeds, self.seed_chunk(seeds.len()));
        let search = Search::new(graph, state, self.options);
        let (expanded, runtime) = match self.order {
            Order::Depth => {
                let report =
                    self.pool.submit(Job::new(heads.iter().map(|&head| DfsBatch { head, search: &search })));
                (report.locals.iter().sum::<u64>(), report.total())
            }
            Order::Breadth => {
                let frames = heads.iter().map(|&head| BfsBatch { head, search: &search });
                let report = self.pool.submit(Job::with_locals(frames, |_| BfsLocal::new(&search)));
                self.stats.phases += report.phases;
                (report.locals.iter().map(|l| l.expanded).sum::<u64>(), report.total())
            }
        };
        self.stats.expanded_in_jobs += expanded;
        self.stats.runtime.merge(&runtime);
        // Every vertex claimed in the job is expanded once, and so is every seed.
        Some(expanded - seeds.len() as u64)
    }

    fn unvisited(&mut self, state: &ForestState) -> Vec<VertexId> {
        let n = state.len();
        let frames = (0..n.div_ceil(SCAN_CHUNK)).map(|chunk| ScanUnvisited { chunk, state });
        let report = self.pool.submit(Job::new(frames));
        let mut parts: Vec<(usize, Vec<VertexId>)> = report.locals.into_iter().flatten().collect();
        parts.sort_unstable_by_key(|&(chunk, _)| chunk);
        parts.into_iter().flat_map(|(_, v)| v).collect()
    }

    fn parents(&mut self, state: &ForestState) -> Vec<VertexId> {
        let mut out = vec![0 as VertexId; state.len()];
        let frames = out.chunks_mut(SCAN_CHUNK).enumerate().map(|(chunk, out)| CollectParents {
            first: chunk * SCAN_CHUNK,
            out,
            state,
        });
        self.pool.submit(Job::new(frames));
        out
    }
}

/// What every search frame of one job shares.
struct Search<'a> {
    offsets: &'a [u64],
    targets: &'a [VertexId],
    state: &'a ForestState,
    options: SpanOptions,
}

impl<'a> Search<'a> {
    fn new(graph: &'a Graph, state: &'a ForestState, options: SpanOptions) -> Self {
        Search { offsets: graph.offsets(), targets: graph.targets(), state, options }
    }

    #[inline]
    fn neighbors(&self, v: VertexId) -> &'a [VertexId] {
        let (lo, hi) = (self.offsets[v as usize] as usize, self.offsets[v as usize + 1] as usize);
        &self.targets[lo..hi]
    }
}

/// A DFS frame: the head of a batch list (XWS §3.3). Local state: vertices
/// expanded by the worker.
struct DfsBatch<'a> {
    head: VertexId,
    search: &'a Search<'a>,
}

impl Frame for DfsBatch<'_> {
    type Local = u64;

    /// Expands the list; newly claimed neighbours go into a new batch,
    /// pushed once it holds `min(2^Q, S)` vertices. When the own list runs
    /// out, the partial (or just completed) new batch becomes the list
    /// instead of being pushed and popped: XWS's list swapping, after the
    /// `TorusSpanningTree` code distributed with jsr166.
    fn compute(self, w: &mut Worker<'_, Self>) {
        let s = self.search;
        let state = s.state;
        let mut old = self.head;
        let (mut new, mut new_len, mut limit) = (NONE, 0u32, 0u32);
        let mut expanded = 0u64;
        while old != NONE {
            let v = old;
            old = state.link(v);
            expanded += 1;
            for &u in s.neighbors(v) {
                if state.try_claim(u, v, new) {
                    new = u;
                    new_len += 1;
                    if limit == 0 {
                        limit = s.options.batch.limit(w.now_len());
                    }
                    if new_len >= limit {
                        if old == NONE {
                            old = new;
                        } else {
                            w.push(DfsBatch { head: new, search: s });
                        }
                        (new, new_len, limit) = (NONE, 0, 0);
                    }
                }
            }
            if old == NONE {
                (old, new, new_len, limit) = (new, NONE, 0, 0);
            }
        }
        *w.local() += expanded;
    }
}

/// Per-worker state of the BFS: the predictive batch estimate, the open
/// (partly filled) batch of next-level vertices, and the vertices expanded.
///
/// The open batch lives here rather than in a frame so that it keeps
/// filling across the worker's frames of one level: with per-frame batches,
/// every frame would push at least one (often tiny) batch and the batch count
/// could never shrink from level to level. It is pushed when full, and
/// before the worker checks out ([`Frame::on_empty`]), so it never outlives
/// its phase.
struct BfsLocal<'a> {
    search: &'a Search<'a>,
    estimate: PhaseEstimate,
    open: VertexId,
    open_len: u32,
    open_limit: u32,
    expanded: u64,
}

impl<'a> BfsLocal<'a> {
    fn new(search: &'a Search<'a>) -> Self {
        BfsLocal {
            search,
            estimate: PhaseEstimate::default(),
            open: NONE,
            open_len: 0,
            open_limit: 0,
            expanded: 0,
        }
    }
}

/// A BFS frame: the head of a batch list of one level; the next level's
/// vertices go to the next phase.
struct BfsBatch<'a> {
    head: VertexId,
    search: &'a Search<'a>,
}

impl<'a> Frame for BfsBatch<'a> {
    type Local = BfsLocal<'a>;

    fn compute(self, w: &mut Worker<'_, Self>) {
        let s = self.search;
        let state = s.state;
        let phase = w.phase();
        let local = w.local();
        local.estimate.enter(phase);
        let (mut new, mut new_len, mut limit) = (local.open, local.open_len, local.open_limit);
        let mut v = self.head;
        while v != NONE {
            let next = state.link(v);
            let local = w.local();
            local.estimate.processed(1);
            local.expanded += 1;
            for &u in s.neighbors(v) {
                if state.try_claim(u, v, new) {
                    new = u;
                    new_len += 1;
                    if limit == 0 {
                        limit = w.local().estimate.limit(&s.options.batch, s.options.phase_fraction);
                    }
                    if new_len >= limit {
                        w.push_next(BfsBatch { head: new, search: s });
                        (new, new_len, limit) = (NONE, 0, 0);
                    }
                }
            }
            v = next;
        }
        let local = w.local();
        (local.open, local.open_len, local.open_limit) = (new, new_len, limit);
    }

    fn on_empty(w: &mut Worker<'_, Self>) {
        let local = w.local();
        if local.open != NONE {
            let frame = BfsBatch { head: local.open, search: local.search };
            (local.open, local.open_len, local.open_limit) = (NONE, 0, 0);
            w.push_next(frame);
        }
    }
}

/// Collects the unvisited vertices of one chunk of ids.
struct ScanUnvisited<'a> {
    chunk: usize,
    state: &'a ForestState,
}

impl Frame for ScanUnvisited<'_> {
    type Local = Vec<(usize, Vec<VertexId>)>;

    fn compute(self, w: &mut Worker<'_, Self>) {
        let first = self.chunk * SCAN_CHUNK;
        let count = SCAN_CHUNK.min(self.state.len() - first);
        let mut found = Vec::new();
        self.state.unvisited_into(first, count, &mut found);
        if !found.is_empty() {
            w.local().push((self.chunk, found));
        }
    }
}

/// Writes the parents of one chunk of ids.
struct CollectParents<'a> {
    first: usize,
    out: &'a mut [VertexId],
    state: &'a ForestState,
}

impl Frame for CollectParents<'_> {
    type Local = ();

    fn compute(self, _: &mut Worker<'_, Self>) {
        self.state.parents_into(self.first, self.out);
    }
}
