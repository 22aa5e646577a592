//! Betweenness centrality (Brandes), unweighted, with nested parallelism:
//! the workload of Callisto-RTS §4.3, in the form of GAPBS `bc.cc`. An
//! outer loop over the source vertices runs, per source, a parallel
//! breadth-first search of several inner loops; with a nesting
//! configuration such as `thread,core` the outer loop is distributed over
//! cores and each search over the threads of a core (Figure 7's "nested"),
//! with the outer loop at level 0 the searches run sequentially inside it
//! ("flat").
//!
//! The graph is taken as a simple directed graph (parallel edges and self
//! loops dropped), paths follow the edges, and a vertex's value is
//! `Σ_{s ≠ v ≠ t} σ_st(v)/σ_st`, as networkx's
//! `betweenness_centrality(G, normalized=False)` of a `DiGraph`. Sources
//! are drawn among the vertices with an out-edge (a source without one has
//! no paths, so with every source the sum is unchanged): with `k` sampled of
//! the `c` candidates, the sum runs over those and is scaled so that its
//! expectation is the full value, as networkx ≥ 3.5 scales a sample
//! (`endpoints=False`): a vertex's other sources are a uniform sample of the
//! candidates other than itself, so it is scaled by `(c - [v candidate])/k`,
//! or `(c-1)/(k-1)` when it is a source itself.
//!
//! Per source `s` (state private to the outer participant, allocated once
//! per run in its `fork`, so only threads that take part allocate it —
//! §2.1 — and nothing per source):
//! 1. level-synchronous BFS over one queue in BFS order; each level is one
//!    inner loop over the frontier that claims unseen targets (`dist` by
//!    CAS, appended through per-participant buffers flushed at `join`),
//!    and for every edge `u -> w` into the next level sets the edge's bit in
//!    the *successor bitmap* and adds `σ(u)` to `σ(w)` (path counts per
//!    level, pushed);
//! 2. one inner loop per level, deepest first, computing
//!    `δ(u) = Σ_{u -> w successor} σ(u)/σ(w)·(1 + δ(w))` over the edges whose
//!    bit is set, and adding it to the participant's values;
//! 3. one inner loop resetting what the search touched, and the bitmap.
//!
//! Only the out-edges are read (no transpose), and the input is used as it
//! is when its adjacency lists are already sorted without repeats.
//! Path counts are integers, summed exactly below 2^53 in any order; the
//! dependencies are summed per vertex in CSR order on one thread, so the
//! result depends on the thread count only through the order in which
//! sources are summed (see [`verify`]).

pub mod app;
pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ordo_graph::transform::simplify;
use ordo_graph::{Graph, VertexId};

use crate::loop_runner::{LoopRunner, ParallelLoops, PoolLoops, Sequential};
use crate::AlgoError;

const UNSEEN: u32 = u32::MAX;

/// The graph BC runs on: the simple directed version of the input.
#[derive(Clone, Debug)]
pub struct BcGraph {
    /// Out-edges, without parallel edges, sorted (self loops, which no
    /// shortest path uses, may remain).
    pub graph: Arc<Graph>,
}

impl BcGraph {
    /// `graph` itself when every adjacency list is strictly increasing,
    /// else its simple version (one copy).
    pub fn new(graph: &Arc<Graph>) -> BcGraph {
        if ordo_graph::stats::is_sorted_without_repeats(graph) {
            BcGraph { graph: Arc::clone(graph) }
        } else {
            BcGraph { graph: Arc::new(simplify(graph)) }
        }
    }

    /// [`BcGraph::new`] of a graph not yet shared.
    pub fn from_graph(graph: Graph) -> BcGraph {
        BcGraph::new(&Arc::new(graph))
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Whether `v` has an out-edge to another vertex (may be a source).
    pub fn is_candidate(&self, v: VertexId) -> bool {
        self.graph.neighbors(v).iter().any(|&w| w != v)
    }
}

/// Which sources the sum runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sources {
    /// Every vertex with an out-edge.
    All,
    /// `k` distinct vertices with an out-edge, drawn with a seeded
    /// generator (all of them if there are at most `k`).
    Sample {
        /// How many.
        k: usize,
        /// The seed.
        seed: u64,
    },
}

impl Sources {
    /// The source list for `g`, in the order the outer loop visits them:
    /// the candidates (vertices with an out-edge) in increasing order, or
    /// the first `k` of a seeded Fisher–Yates shuffle of them (SplitMix64),
    /// sorted.
    pub fn list(&self, g: &BcGraph) -> Vec<VertexId> {
        let mut ids: Vec<VertexId> =
            (0..g.num_vertices() as VertexId).filter(|&v| g.is_candidate(v)).collect();
        if let Sources::Sample { k, seed } = *self {
            let c = ids.len();
            if k < c {
                let mut state = seed;
                for i in 0..k {
                    let j = i + (splitmix64(&mut state) % (c - i) as u64) as usize;
                    ids.swap(i, j);
                }
                ids.truncate(k);
                ids.sort_unstable();
            }
        }
        ids
    }
}

pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Scales sums over `sources` as the module docs say (no-op when the
/// sources are every candidate).
pub fn scale_sample(values: &mut [f64], sources: &[VertexId], g: &BcGraph) {
    let n = values.len();
    let is_candidate: Vec<bool> = (0..n as VertexId).map(|v| g.is_candidate(v)).collect();
    let (c, k) = (is_candidate.iter().filter(|&&x| x).count(), sources.len());
    if k >= c {
        return;
    }
    let mut is_source = vec![false; n];
    for &s in sources {
        is_source[s as usize] = true;
    }
    let as_source = if k > 1 { (c - 1) as f64 / (k - 1) as f64 } else { 0.0 };
    for (v, x) in values.iter_mut().enumerate() {
        *x *= if is_source[v] { as_source } else { (c - usize::from(is_candidate[v])) as f64 / k as f64 };
    }
}

/// Parameters of [`betweenness`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BcParams {
    /// The sources.
    pub sources: Sources,
    /// The nesting level of the outer loop over the sources: 1 runs it on
    /// the threads the runtime's level 1 names (one per core with
    /// `thread,core`) and each search on the rest; 0 runs it on every
    /// thread, each search sequentially ("flat").
    pub outer_level: usize,
}

impl Default for BcParams {
    fn default() -> Self {
        BcParams { sources: Sources::All, outer_level: 1 }
    }
}

/// The values and the sources they were summed over.
#[derive(Clone, Debug, PartialEq)]
pub struct BcResult {
    /// The betweenness of every vertex.
    pub values: Vec<f64>,
    /// The sources, in increasing order.
    pub sources: Vec<VertexId>,
    /// Seconds spent (outer loop, all searches).
    pub time_s: f64,
    /// Outer participants that ran searches (each held one search state).
    pub participants: usize,
}

/// The per-search arrays of one outer participant (its fork state),
/// allocated once and reset after every source.
struct Search {
    dist: Vec<AtomicU32>,
    /// σ as `f64` bits.
    sigma: Vec<AtomicU64>,
    /// δ as `f64` bits.
    delta: Vec<AtomicU64>,
    /// One bit per edge: set when the edge joins two consecutive levels.
    successors: Vec<AtomicU64>,
    /// The vertices in BFS order.
    order: Vec<AtomicU32>,
    len: AtomicUsize,
    /// This participant's sums, as `f64` bits.
    values: Vec<AtomicU64>,
    /// Where each BFS level starts in `order` (and where the last ends).
    levels: Vec<usize>,
    /// Frontier buffers of the inner participants, kept between levels.
    buffers: Mutex<Vec<Vec<VertexId>>>,
}

#[inline]
fn load(bits: &AtomicU64) -> f64 {
    f64::from_bits(bits.load(Relaxed))
}

/// Words of the successor bitmap cleared per index of the reset loop.
const CLEAR_WORDS: usize = 1 << 12;

impl Search {
    fn new(n: usize, m: usize) -> Search {
        Search {
            dist: (0..n).map(|_| AtomicU32::new(UNSEEN)).collect(),
            sigma: (0..n).map(|_| AtomicU64::new(0)).collect(),
            delta: (0..n).map(|_| AtomicU64::new(0)).collect(),
            successors: (0..m.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            order: (0..n).map(|_| AtomicU32::new(0)).collect(),
            len: AtomicUsize::new(0),
            values: (0..n).map(|_| AtomicU64::new(0)).collect(),
            levels: Vec::new(),
            buffers: Mutex::new(Vec::new()),
        }
    }

    fn take_buffer(&self) -> Vec<VertexId> {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default()
    }

    /// Adds the dependencies of source `s` to `self.values`, running the
    /// inner loops on `loops`. The arrays are back to their initial state
    /// afterwards. On one thread the read-modify-writes are plain loads and
    /// stores (nothing else touches the arrays).
    fn run(&mut self, g: &Graph, s: VertexId, loops: &impl ParallelLoops) {
        let shared = loops.threads() > 1;
        let mut levels = std::mem::take(&mut self.levels);
        levels.clear();
        levels.extend([0, 1]);
        let this = &*self;
        this.dist[s as usize].store(0, Relaxed);
        this.sigma[s as usize].store(1f64.to_bits(), Relaxed);
        this.order[0].store(s, Relaxed);
        this.len.store(1, Relaxed);
        let targets = g.targets();
        // 1. Forward, one level at a time: discover level `depth + 1`, mark
        // the edges into it and push the path counts along them.
        for depth in 0u32.. {
            let (lo, hi) = (levels[depth as usize], levels[depth as usize + 1]);
            loops.fold(
                lo..hi,
                || this.take_buffer(),
                |found: &mut Vec<VertexId>, i: usize| {
                    let u = this.order[i].load(Relaxed);
                    let sigma_u = load(&this.sigma[u as usize]);
                    for e in g.edge_range(u) {
                        let w = targets[e] as usize;
                        let d = &this.dist[w];
                        let mut dw = d.load(Relaxed);
                        if dw == UNSEEN {
                            if !shared {
                                d.store(depth + 1, Relaxed);
                                dw = depth + 1;
                                found.push(w as VertexId);
                            } else if d.compare_exchange(UNSEEN, depth + 1, Relaxed, Relaxed).is_ok() {
                                dw = depth + 1;
                                found.push(w as VertexId);
                            } else {
                                dw = d.load(Relaxed);
                            }
                        }
                        if dw == depth + 1 {
                            let (word, bit) = (&this.successors[e / 64], 1u64 << (e % 64));
                            let sigma = &this.sigma[w];
                            if shared {
                                word.fetch_or(bit, Relaxed);
                                let _ = sigma.fetch_update(Relaxed, Relaxed, |x| {
                                    Some((f64::from_bits(x) + sigma_u).to_bits())
                                });
                            } else {
                                word.store(word.load(Relaxed) | bit, Relaxed);
                                sigma.store((load(sigma) + sigma_u).to_bits(), Relaxed);
                            }
                        }
                    }
                },
                |mut found: Vec<VertexId>| {
                    if !found.is_empty() {
                        let at = this.len.fetch_add(found.len(), Relaxed);
                        for (k, &w) in found.iter().enumerate() {
                            this.order[at + k].store(w, Relaxed);
                        }
                        found.clear();
                    }
                    this.buffers.lock().unwrap_or_else(|e| e.into_inner()).push(found);
                },
            );
            let next = this.len.load(Relaxed);
            if next == hi {
                break;
            }
            levels.push(next);
        }
        // 2. Backward, deepest level with successors first (the deepest
        // level's δ is 0); the source (level 0) gets no value.
        let deepest = levels.len() - 2;
        for depth in (1..deepest).rev() {
            loops.each(levels[depth]..levels[depth + 1], |i| {
                let u = this.order[i].load(Relaxed);
                let sigma_u = load(&this.sigma[u as usize]);
                let mut dependency = 0.0;
                for e in g.edge_range(u) {
                    if this.successors[e / 64].load(Relaxed) & (1u64 << (e % 64)) != 0 {
                        let w = targets[e] as usize;
                        dependency += sigma_u / load(&this.sigma[w]) * (1.0 + load(&this.delta[w]));
                    }
                }
                this.delta[u as usize].store(dependency.to_bits(), Relaxed);
                let value = &this.values[u as usize];
                value.store((load(value) + dependency).to_bits(), Relaxed);
            });
        }
        // 3. Reset what the search touched, and the bitmap.
        loops.each(0..this.len.load(Relaxed), |i| {
            let w = this.order[i].load(Relaxed) as usize;
            this.dist[w].store(UNSEEN, Relaxed);
            this.sigma[w].store(0, Relaxed);
            this.delta[w].store(0, Relaxed);
        });
        loops.each(0..this.successors.len().div_ceil(CLEAR_WORDS), |c| {
            let end = ((c + 1) * CLEAR_WORDS).min(this.successors.len());
            for word in &this.successors[c * CLEAR_WORDS..end] {
                word.store(0, Relaxed);
            }
        });
        self.levels = levels;
    }
}

/// How the default kernel shares the threads between sources and searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultPlan {
    /// One source at a time, each search on every thread of the pool.
    Inner,
    /// One source per thread of the pool, each search sequential.
    Flat,
}

impl DefaultPlan {
    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DefaultPlan::Inner => "inner",
            DefaultPlan::Flat => "flat",
        }
    }
}

fn check_sources(sources: Sources) -> Result<(), AlgoError> {
    if let Sources::Sample { k: 0, .. } = sources {
        return Err(AlgoError::InvalidParameter(
            "betweenness needs at least one source (--sources 0)".into(),
        ));
    }
    Ok(())
}

/// Sums the searches' values in `totals`, scales a sample, and packs the
/// result.
fn finish(
    g: &BcGraph,
    totals: Mutex<Vec<f64>>,
    sources: Vec<VertexId>,
    start: Instant,
    participants: usize,
) -> BcResult {
    let mut values = totals.into_inner().unwrap_or_else(|e| e.into_inner());
    scale_sample(&mut values, &sources, g);
    BcResult { values, sources, time_s: start.elapsed().as_secs_f64(), participants }
}

fn add_into(totals: &Mutex<Vec<f64>>, search: &Search) {
    let mut totals = totals.lock().unwrap_or_else(|e| e.into_inner());
    for (t, v) in totals.iter_mut().zip(&search.values) {
        *t += load(v);
    }
}

/// Betweenness centrality of `g` (see the module docs): an outer loop at
/// `params.outer_level` over the sources, each running a parallel BFS of
/// level-0 loops on `runner`.
///
/// Memory: `36·n + m/8` bytes per outer participant. Time: `O(k·m)` work
/// for `k` sources.
///
/// ```
/// use ordo_algos::bc::{betweenness, BcGraph, BcParams};
/// use ordo_algos::loop_runner::LoopRunner;
/// use ordo_graph::EdgeList;
///
/// // A directed path 0 -> 1 -> 2: only the pair (0, 2) passes through 1.
/// let mut edges = EdgeList::new(3, false);
/// edges.push(0, 1, 1);
/// edges.push(1, 2, 1);
/// let g = BcGraph::from_graph(edges.into_graph().unwrap());
/// let runner = LoopRunner::new(&"striped:batch=1".parse().unwrap(), 2, None).unwrap();
/// let r = betweenness(&runner, &g, &BcParams::default()).unwrap();
/// assert_eq!(r.values, vec![0.0, 1.0, 0.0]);
/// ```
pub fn betweenness(runner: &LoopRunner, g: &BcGraph, params: &BcParams) -> Result<BcResult, AlgoError> {
    check_sources(params.sources)?;
    let (n, m) = (g.num_vertices(), g.graph.num_edges());
    let start = Instant::now();
    let sources = params.sources.list(g);
    let totals = Mutex::new(vec![0.0f64; n]);
    let participants = AtomicUsize::new(0);
    let outer = ordo_loops::ForkWorkJoin::new(
        || {
            participants.fetch_add(1, Relaxed);
            Search::new(n, m)
        },
        |search: &mut Search, i: usize| search.run(&g.graph, sources[i], runner),
        |search: Search| add_into(&totals, &search),
    );
    runner.outer(params.outer_level, 0..sources.len(), &outer);
    Ok(finish(g, totals, sources, start, participants.into_inner()))
}

/// Betweenness centrality of `g` on `pool`, the default kernel: the sources
/// one at a time with each search on every thread ([`DefaultPlan::Inner`],
/// GAPBS's form), or one source per thread with sequential searches
/// ([`DefaultPlan::Flat`]).
pub fn betweenness_on_pool(
    pool: &ordo_exec::Pool,
    g: &BcGraph,
    sources: Sources,
    plan: DefaultPlan,
) -> Result<BcResult, AlgoError> {
    check_sources(sources)?;
    let (n, m) = (g.num_vertices(), g.graph.num_edges());
    let start = Instant::now();
    let sources = sources.list(g);
    let totals = Mutex::new(vec![0.0f64; n]);
    let participants = match plan {
        DefaultPlan::Inner => {
            let loops = PoolLoops { pool, grain: 64 };
            let mut search = Search::new(n, m);
            for &s in &sources {
                search.run(&g.graph, s, &loops);
            }
            add_into(&totals, &search);
            1
        }
        DefaultPlan::Flat => {
            let searches = pool.fold_chunks(
                sources.len(),
                1,
                |_| Search::new(n, m),
                |search, chunk| {
                    for i in chunk {
                        search.run(&g.graph, sources[i], &Sequential);
                    }
                },
            );
            for search in &searches {
                add_into(&totals, search);
            }
            searches.len()
        }
    };
    Ok(finish(g, totals, sources, start, participants))
}
