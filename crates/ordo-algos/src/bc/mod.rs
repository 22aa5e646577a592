//! Betweenness centrality (Brandes), unweighted, with nested parallelism:
//! the workload of Callisto-RTS §4.3. An outer loop over the source vertices
//! runs, per source, a parallel breadth-first search of several inner
//! loops; with a nesting configuration such as `thread,core` the outer loop
//! is distributed over cores and each search over the threads of a core
//! (Figure 7's "nested"), with the outer loop at level 0 the searches run
//! sequentially inside it ("flat").
//!
//! The graph is taken as a simple directed graph (parallel edges and self
//! loops dropped), paths follow the edges, and a vertex's value is
//! `Σ_{s ≠ v ≠ t} σ_st(v)/σ_st`, as networkx's
//! `betweenness_centrality(G, normalized=False)` of a `DiGraph`. With `k`
//! sampled sources the sum runs over those sources and is scaled like
//! networkx ≥ 3.5 scales a sample (`endpoints=False`): by `(n-1)/k` for
//! vertices that are not sources and by `(n-1)/(k-1)` for sources (a
//! source's own paths cannot pass through it).
//!
//! Per source `s` (state private to the outer participant, allocated in its
//! `fork`, so only threads that take part allocate it — §2.1):
//! 1. level-synchronous BFS; each level is one inner loop over the frontier
//!    (`dist` claimed by CAS, the next frontier appended through per-thread
//!    buffers flushed at `join`) and one inner loop that *pulls* the path
//!    counts `σ(w) = Σ_{u -> w, dist(u) = dist(w) - 1} σ(u)` over the
//!    in-edges;
//! 2. one inner loop per level, deepest first, pulling the dependencies
//!    `δ(w) = Σ_{w -> v, dist(v) = dist(w) + 1} σ(w)/σ(v)·(1 + δ(v))` and
//!    adding them to the participant's values;
//! 3. one inner loop resetting what the search touched.
//!
//! Pulling keeps every sum in CSR order on one thread, so the result does
//! not depend on the thread count except for the order in which sources are
//! summed (see [`verify`]).

pub mod app;
pub mod reference;
pub mod verify;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use ordo_graph::transform::{simplify, transpose};
use ordo_graph::{Graph, VertexId};
use ordo_loops::ForkWorkJoin;

use crate::loop_runner::LoopRunner;
use crate::AlgoError;

const UNSEEN: u32 = u32::MAX;

/// The graph BC runs on: the simple directed version of the input and its
/// transpose.
#[derive(Clone, Debug)]
pub struct BcGraph {
    /// Out-edges, without self loops and parallel edges, sorted.
    pub graph: Graph,
    /// In-edges.
    pub transpose: Graph,
}

impl BcGraph {
    /// Drops self loops and parallel edges of `graph` and builds the
    /// transpose.
    pub fn new(graph: &Graph) -> BcGraph {
        let graph = simplify(graph);
        let transpose = transpose(&graph);
        BcGraph { graph, transpose }
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }
}

/// Which sources the sum runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sources {
    /// Every vertex.
    All,
    /// `k` distinct vertices drawn with a seeded generator (all if `k >= n`).
    Sample {
        /// How many.
        k: usize,
        /// The seed.
        seed: u64,
    },
}

impl Sources {
    /// The source list for a graph of `n` vertices, in the order the outer
    /// loop visits them: `0..n`, or the first `k` of a seeded Fisher–Yates
    /// shuffle (SplitMix64), sorted.
    pub fn list(&self, n: usize) -> Vec<VertexId> {
        match *self {
            Sources::Sample { k, seed } if k < n => {
                let mut ids: Vec<VertexId> = (0..n as VertexId).collect();
                let mut state = seed;
                for i in 0..k {
                    let j = i + (splitmix64(&mut state) % (n - i) as u64) as usize;
                    ids.swap(i, j);
                }
                ids.truncate(k);
                ids.sort_unstable();
                ids
            }
            _ => (0..n as VertexId).collect(),
        }
    }
}

pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Scales sums over `sources` as networkx does for a sample (no-op for all
/// sources): see the module docs.
pub fn scale_sample(values: &mut [f64], sources: &[VertexId]) {
    let (n, k) = (values.len(), sources.len());
    if k >= n || n < 2 {
        return;
    }
    let nonsource = (n - 1) as f64 / k as f64;
    let source = if k > 1 { (n - 1) as f64 / (k - 1) as f64 } else { 0.0 };
    let mut is_source = vec![false; n];
    for &s in sources {
        is_source[s as usize] = true;
    }
    for (v, x) in values.iter_mut().enumerate() {
        *x *= if is_source[v] { source } else { nonsource };
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
}

/// The per-search arrays of one outer participant (its fork state).
struct Search {
    dist: Vec<AtomicU32>,
    /// σ as `f64` bits.
    sigma: Vec<AtomicU64>,
    /// δ as `f64` bits.
    delta: Vec<AtomicU64>,
    /// The vertices in BFS order.
    order: Vec<AtomicU32>,
    len: AtomicUsize,
    /// This participant's sums, as `f64` bits.
    values: Vec<AtomicU64>,
    /// Where each BFS level starts in `order` (and where the last ends).
    levels: Vec<usize>,
}

#[inline]
fn load(bits: &AtomicU64) -> f64 {
    f64::from_bits(bits.load(Relaxed))
}

impl Search {
    fn new(n: usize) -> Search {
        Search {
            dist: (0..n).map(|_| AtomicU32::new(UNSEEN)).collect(),
            sigma: (0..n).map(|_| AtomicU64::new(0)).collect(),
            delta: (0..n).map(|_| AtomicU64::new(0)).collect(),
            order: (0..n).map(|_| AtomicU32::new(0)).collect(),
            len: AtomicUsize::new(0),
            values: (0..n).map(|_| AtomicU64::new(0)).collect(),
            levels: Vec::new(),
        }
    }

    /// Adds the dependencies of source `s` to `self.values`, running the
    /// inner loops on `runner`. The arrays are back to their initial state
    /// afterwards.
    fn run(&mut self, g: &BcGraph, s: VertexId, runner: &LoopRunner) {
        let mut levels = std::mem::take(&mut self.levels);
        levels.clear();
        levels.extend([0, 1]);
        let this = &*self;
        this.dist[s as usize].store(0, Relaxed);
        this.sigma[s as usize].store(1f64.to_bits(), Relaxed);
        this.order[0].store(s, Relaxed);
        this.len.store(1, Relaxed);
        // 1. Forward, one level at a time: discover level `depth + 1`, then
        // pull its path counts.
        for depth in 0u32.. {
            let (lo, hi) = (levels[depth as usize], levels[depth as usize + 1]);
            let expand = ForkWorkJoin::new(
                Vec::new,
                |found: &mut Vec<VertexId>, i: usize| {
                    let u = this.order[i].load(Relaxed);
                    for &w in g.graph.neighbors(u) {
                        let d = &this.dist[w as usize];
                        if d.load(Relaxed) == UNSEEN
                            && d.compare_exchange(UNSEEN, depth + 1, Relaxed, Relaxed).is_ok()
                        {
                            found.push(w);
                        }
                    }
                },
                |found: Vec<VertexId>| {
                    if !found.is_empty() {
                        let at = this.len.fetch_add(found.len(), Relaxed);
                        for (k, &w) in found.iter().enumerate() {
                            this.order[at + k].store(w, Relaxed);
                        }
                    }
                },
            );
            runner.for_each(lo..hi, &expand);
            let next = this.len.load(Relaxed);
            if next == hi {
                break;
            }
            runner.for_each_index(hi..next, |i| {
                let w = this.order[i].load(Relaxed);
                let mut paths = 0.0;
                for &u in g.transpose.neighbors(w) {
                    if this.dist[u as usize].load(Relaxed) == depth {
                        paths += load(&this.sigma[u as usize]);
                    }
                }
                this.sigma[w as usize].store(paths.to_bits(), Relaxed);
            });
            levels.push(next);
        }
        // 2. Backward, deepest level with successors first (the deepest
        // level's δ is 0); the source (level 0) gets no value.
        let deepest = levels.len() - 2;
        for depth in (1..deepest).rev() {
            runner.for_each_index(levels[depth]..levels[depth + 1], |i| {
                let w = this.order[i].load(Relaxed);
                let sigma_w = load(&this.sigma[w as usize]);
                let mut dependency = 0.0;
                for &v in g.graph.neighbors(w) {
                    if this.dist[v as usize].load(Relaxed) == depth as u32 + 1 {
                        dependency +=
                            sigma_w / load(&this.sigma[v as usize]) * (1.0 + load(&this.delta[v as usize]));
                    }
                }
                this.delta[w as usize].store(dependency.to_bits(), Relaxed);
                let value = &this.values[w as usize];
                value.store((load(value) + dependency).to_bits(), Relaxed);
            });
        }
        // 3. Reset what the search touched.
        runner.for_each_index(0..this.len.load(Relaxed), |i| {
            let w = this.order[i].load(Relaxed) as usize;
            this.dist[w].store(UNSEEN, Relaxed);
            this.sigma[w].store(0, Relaxed);
            this.delta[w].store(0, Relaxed);
        });
        self.levels = levels;
    }
}

/// Betweenness centrality of `g` (see the module docs): an outer loop at
/// `params.outer_level` over the sources, each running a parallel BFS of
/// level-0 loops on `runner`.
///
/// Memory: `32·n` bytes per outer participant. Time: `O(k·m)` work for `k`
/// sources.
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
/// let g = BcGraph::new(&edges.into_graph().unwrap());
/// let runner = LoopRunner::new(&"striped:batch=1".parse().unwrap(), 2, None).unwrap();
/// let r = betweenness(&runner, &g, &BcParams::default()).unwrap();
/// assert_eq!(r.values, vec![0.0, 1.0, 0.0]);
/// ```
pub fn betweenness(runner: &LoopRunner, g: &BcGraph, params: &BcParams) -> Result<BcResult, AlgoError> {
    let n = g.num_vertices();
    if let Sources::Sample { k: 0, .. } = params.sources {
        return Err(AlgoError::InvalidParameter(
            "betweenness needs at least one source (--sources 0)".into(),
        ));
    }
    let start = Instant::now();
    let sources = params.sources.list(n);
    let totals = Mutex::new(vec![0.0f64; n]);
    let outer = ForkWorkJoin::new(
        || Search::new(n),
        |search: &mut Search, i: usize| search.run(g, sources[i], runner),
        |search: Search| {
            let mut totals = totals.lock().unwrap_or_else(|e| e.into_inner());
            for (t, v) in totals.iter_mut().zip(&search.values) {
                *t += load(v);
            }
        },
    );
    runner.outer(params.outer_level, 0..sources.len(), &outer);
    let mut values = totals.into_inner().unwrap_or_else(|e| e.into_inner());
    scale_sample(&mut values, &sources);
    Ok(BcResult { values, sources, time_s: start.elapsed().as_secs_f64() })
}
