//! The generator specs: one parameter struct per generator, the
//! [`GenSpec`] enum naming a generator and its parameters, their validation
//! and canonical printing, and [`GenSpec::generate`]. Parsing is in `parse`.

use std::fmt;

use super::{grid, kgraph, random, rmat, road, torus};
use crate::csr::Graph;
use crate::memory::{self, GraphShape};

/// A spec string that does not parse or names impossible parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("generator spec `{spec}`: {msg}")]
pub struct GenError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub msg: String,
}

/// An inclusive range of uniformly drawn edge weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightRange {
    /// Smallest weight.
    pub lo: u32,
    /// Largest weight.
    pub hi: u32,
}

/// Parameters of the road-like generator ([`road`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RoadParams {
    /// Number of vertices.
    pub n: u64,
    /// Target average out-degree (between 2 and 4).
    pub avg_degree: f64,
    /// Smallest grid cell side (length units of the coordinates).
    pub min_len: f64,
    /// Largest grid cell side.
    pub max_len: f64,
    /// Random seed.
    pub seed: u64,
}

/// Parameters of the R-MAT and Kronecker generators ([`rmat`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RmatParams {
    /// `n = 2^scale`.
    pub scale: u32,
    /// Edges generated per vertex: `m = edge_factor · n` before symmetrizing
    /// and simplifying.
    pub edge_factor: u64,
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Probability of the top-right quadrant.
    pub b: f64,
    /// Probability of the bottom-left quadrant (`d = 1 - a - b - c`).
    pub c: f64,
    /// Uniform edge weights.
    pub weights: WeightRange,
    /// Add the reverse of every edge, with the same weight.
    pub symmetric: bool,
    /// Remove self loops and parallel edges (least weight kept).
    pub simple: bool,
    /// Relabel vertices by a random permutation (Graph500 scrambling).
    pub permute: bool,
    /// Random seed.
    pub seed: u64,
}

/// Parameters of the grid and torus generators.
#[derive(Clone, Debug, PartialEq)]
pub struct LatticeParams {
    /// Columns.
    pub w: u64,
    /// Rows.
    pub h: u64,
    /// Uniform edge weights (one per undirected edge, both directions equal).
    pub weights: WeightRange,
    /// Random seed.
    pub seed: u64,
}

/// Parameters of the uniform random generator.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomParams {
    /// Vertices.
    pub n: u64,
    /// Directed edges.
    pub m: u64,
    /// Uniform edge weights.
    pub weights: WeightRange,
    /// Random seed.
    pub seed: u64,
}

/// Parameters of the k-out-regular random generator.
#[derive(Clone, Debug, PartialEq)]
pub struct KGraphParams {
    /// Vertices.
    pub n: u64,
    /// Out-degree of every vertex.
    pub k: u64,
    /// Uniform edge weights.
    pub weights: WeightRange,
    /// Random seed.
    pub seed: u64,
}

/// A parsed generator spec; [`GenSpec::generate`] builds the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GenSpec {
    /// Road-like planar graph.
    Road(RoadParams),
    /// R-MAT.
    Rmat(RmatParams),
    /// Graph500 Kronecker.
    Kron(RmatParams),
    /// 2D torus.
    Torus(LatticeParams),
    /// 2D grid.
    Grid(LatticeParams),
    /// Uniform random `(n, m)`.
    Random(RandomParams),
    /// k-out-regular random graph.
    KGraph(KGraphParams),
}

/// Largest vertex count (vertex ids are `u32`).
const MAX_VERTICES: u64 = u32::MAX as u64;

impl GenSpec {
    /// The generator's name (`road`, `kron`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            GenSpec::Road(_) => "road",
            GenSpec::Rmat(_) => "rmat",
            GenSpec::Kron(_) => "kron",
            GenSpec::Torus(_) => "torus",
            GenSpec::Grid(_) => "grid",
            GenSpec::Random(_) => "random",
            GenSpec::KGraph(_) => "kgraph",
        }
    }

    /// Checks the parameters; the message says what is impossible.
    pub(super) fn validate(&self) -> Result<(), String> {
        match self {
            GenSpec::Road(r) => {
                if r.n == 0 || r.n > MAX_VERTICES {
                    return Err(format!("n={} must be between 1 and {MAX_VERTICES}", r.n));
                }
                if !(2.0..=4.0).contains(&r.avg_degree) {
                    return Err(format!("deg={} must be between 2 and 4", r.avg_degree));
                }
                if !(r.min_len >= 1.0 && r.max_len >= r.min_len && r.max_len <= 1e9) {
                    return Err(format!(
                        "min_len={} max_len={}: need 1 <= min_len <= max_len <= 1e9",
                        r.min_len, r.max_len
                    ));
                }
            }
            GenSpec::Rmat(r) | GenSpec::Kron(r) => {
                if !(1..=31).contains(&r.scale) {
                    return Err(format!("scale={} must be between 1 and 31", r.scale));
                }
                let probs = [r.a, r.b, r.c];
                if probs.iter().any(|&p| !(0.0..=1.0).contains(&p)) || r.a + r.b + r.c > 1.0 + 1e-9 {
                    return Err(format!(
                        "a={} b={} c={}: need probabilities with a + b + c <= 1",
                        r.a, r.b, r.c
                    ));
                }
                let m = (1u64 << r.scale).checked_mul(r.edge_factor);
                if r.edge_factor == 0 || m.is_none_or(|m| m > (1 << 36)) {
                    return Err(format!(
                        "ef={} must be at least 1 and give at most 2^36 edges",
                        r.edge_factor
                    ));
                }
            }
            GenSpec::Torus(l) | GenSpec::Grid(l) => {
                let torus = matches!(self, GenSpec::Torus(_));
                let min = if torus { 3 } else { 1 };
                if l.w < min || l.h < min {
                    return Err(format!(
                        "w={} h={}: both must be at least {min}{}",
                        l.w,
                        l.h,
                        if torus { " so that the four neighbours are distinct" } else { "" }
                    ));
                }
                if l.w.checked_mul(l.h).is_none_or(|n| n > MAX_VERTICES) {
                    return Err(format!("w*h = {}*{} exceeds {MAX_VERTICES} vertices", l.w, l.h));
                }
            }
            GenSpec::Random(r) => {
                if r.n > MAX_VERTICES {
                    return Err(format!("n={} exceeds {MAX_VERTICES}", r.n));
                }
                if r.m > 0 && r.n < 2 {
                    return Err(format!("m={} edges without self loops need n >= 2 (n={})", r.m, r.n));
                }
                if r.m > 1 << 36 {
                    return Err(format!("m={} exceeds 2^36", r.m));
                }
            }
            GenSpec::KGraph(r) => {
                if r.n > MAX_VERTICES {
                    return Err(format!("n={} exceeds {MAX_VERTICES}", r.n));
                }
                if r.k >= r.n.max(1) && !(r.n == 0 || r.k == 0) {
                    return Err(format!(
                        "k={} distinct neighbours other than itself need n > k (n={})",
                        r.k, r.n
                    ));
                }
                if r.n.checked_mul(r.k).is_none_or(|m| m > 1 << 36) {
                    return Err(format!("n*k = {}*{} exceeds 2^36 edges", r.n, r.k));
                }
            }
        }
        Ok(())
    }

    /// Generates the graph on all available cores (the result does not depend
    /// on the thread count).
    pub fn generate(&self) -> Result<Graph, GenError> {
        self.generate_with_threads(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// Generates the graph on `threads` threads.
    ///
    /// Refuses, before allocating, a graph whose generation needs more
    /// memory than the budget ([`GenSpec::memory_needed`],
    /// [`crate::memory::check`]).
    pub fn generate_with_threads(&self, threads: usize) -> Result<Graph, GenError> {
        self.generate_with(threads, true)
    }

    /// Generates the graph on `threads` threads, without edge weights unless
    /// `weighted`: the same vertices and edges as [`GenSpec::generate_with_threads`]
    /// (the random streams are drawn alike), for applications that read no
    /// weights. The R-MAT, Kronecker, random and k-graph generators then
    /// never hold a weight array; the others drop theirs once built.
    ///
    /// Refuses, before allocating, a graph whose generation needs more
    /// memory than the budget, as [`GenSpec::generate_with_threads`] does.
    pub fn generate_with(&self, threads: usize, weighted: bool) -> Result<Graph, GenError> {
        let err = |msg: String| GenError { spec: self.to_string(), msg };
        self.validate().map_err(err)?;
        memory::check(self.memory_needed(), || "generating it".to_string())
            .map_err(|e| err(e.to_string()))?;
        let threads = threads.max(1);
        let mut graph = match self {
            GenSpec::Road(r) => road::generate(r),
            GenSpec::Rmat(r) | GenSpec::Kron(r) => {
                rmat::generate(r, threads, weighted).map_err(|e| err(e.to_string()))?
            }
            GenSpec::Torus(l) => torus::generate(l),
            GenSpec::Grid(l) => grid::generate(l),
            GenSpec::Random(r) => random::generate(r, threads, weighted).map_err(|e| err(e.to_string()))?,
            GenSpec::KGraph(r) => kgraph::generate(r, threads, weighted).map_err(|e| err(e.to_string()))?,
        };
        if !weighted {
            graph.clear_weights();
        }
        Ok(graph)
    }

    /// The shape of the generated graph: `n`, and `m` before any self loop
    /// or parallel edge is dropped (an upper bound for `kron` and simple
    /// `rmat`); always weighted; coordinates for `road`, `grid`, `torus`.
    pub fn shape(&self) -> GraphShape {
        let shape = |n: u64, m: u64, coords: bool| GraphShape { n, m, weighted: true, coords };
        match self {
            GenSpec::Road(r) => shape(r.n, road_edges(r), true),
            GenSpec::Rmat(r) | GenSpec::Kron(r) => shape(1u64 << r.scale.min(63), rmat_slots(r), false),
            GenSpec::Torus(l) | GenSpec::Grid(l) => {
                let n = l.w.saturating_mul(l.h);
                shape(n, n.saturating_mul(4), true)
            }
            GenSpec::Random(r) => shape(r.n, r.m, false),
            GenSpec::KGraph(r) => shape(r.n, r.n.saturating_mul(r.k), false),
        }
    }

    /// The peak memory of generating the graph, in bytes, from the arrays
    /// each generator holds at once (`n` vertices, `m` edges as in
    /// [`GenSpec::shape`], `m0` generated edges):
    ///
    /// * `road`: points, candidate edges, union-find (`34 n`), then points,
    ///   flags and the CSR (`26 n + 8 m`);
    /// * `grid`, `torus`: edge weights and the CSR with coordinates (`64 n`);
    /// * `rmat`, `kron`: the generated endpoints and weights (`12 m0`), the
    ///   offsets and cursors (`16 n`), the scattered edges (`8 m`) and, when
    ///   simple, the deduplicated copy and its counts (`8 m + 8 n`);
    /// * `random`: `12 m` generated, `16 n + 8 m` while building the CSR;
    /// * `kgraph`: `12 m` generated, `8 n` offsets.
    pub fn memory_needed(&self) -> u64 {
        let GraphShape { n, m, .. } = self.shape();
        let sum = |terms: &[u64]| terms.iter().fold(0u64, |a, &t| a.saturating_add(t));
        match self {
            GenSpec::Road(_) => n.saturating_mul(34).max(sum(&[n.saturating_mul(26), m.saturating_mul(8)])),
            GenSpec::Torus(_) | GenSpec::Grid(_) => n.saturating_mul(64),
            GenSpec::Rmat(r) | GenSpec::Kron(r) => {
                let generated = n.saturating_mul(r.edge_factor).saturating_mul(12);
                let dedup = if r.simple { sum(&[m.saturating_mul(8), n.saturating_mul(8)]) } else { 0 };
                sum(&[generated, n.saturating_mul(16), m.saturating_mul(8), dedup])
            }
            GenSpec::Random(_) => sum(&[m.saturating_mul(20), n.saturating_mul(16)]),
            GenSpec::KGraph(_) => sum(&[m.saturating_mul(12), n.saturating_mul(8)]),
        }
    }
}

/// Directed edges of a road graph: about `deg · n`, with the 1% margin the
/// generator reserves.
fn road_edges(r: &RoadParams) -> u64 {
    (r.avg_degree * r.n as f64 * 1.01) as u64 + 4
}

/// Directed edge slots of an R-MAT graph: `ef · 2^scale`, doubled when
/// symmetric.
fn rmat_slots(r: &RmatParams) -> u64 {
    let m0 = (1u64 << r.scale.min(63)).saturating_mul(r.edge_factor);
    if r.symmetric {
        m0.saturating_mul(2)
    } else {
        m0
    }
}

impl fmt::Display for GenSpec {
    /// The canonical spec with every parameter spelled out; parsing it gives
    /// back an equal spec.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = self.kind();
        match self {
            GenSpec::Road(r) => write!(
                f,
                "{k}:n={},deg={},min_len={},max_len={},seed={}",
                r.n, r.avg_degree, r.min_len, r.max_len, r.seed
            ),
            GenSpec::Rmat(r) | GenSpec::Kron(r) => write!(
                f,
                "{k}:scale={},ef={},a={},b={},c={},wmin={},wmax={},sym={},simple={},permute={},seed={}",
                r.scale,
                r.edge_factor,
                r.a,
                r.b,
                r.c,
                r.weights.lo,
                r.weights.hi,
                r.symmetric,
                r.simple,
                r.permute,
                r.seed
            ),
            GenSpec::Torus(l) | GenSpec::Grid(l) => {
                write!(
                    f,
                    "{k}:w={},h={},wmin={},wmax={},seed={}",
                    l.w, l.h, l.weights.lo, l.weights.hi, l.seed
                )
            }
            GenSpec::Random(r) => {
                write!(
                    f,
                    "{k}:n={},m={},wmin={},wmax={},seed={}",
                    r.n, r.m, r.weights.lo, r.weights.hi, r.seed
                )
            }
            GenSpec::KGraph(r) => {
                write!(
                    f,
                    "{k}:n={},k={},wmin={},wmax={},seed={}",
                    r.n, r.k, r.weights.lo, r.weights.hi, r.seed
                )
            }
        }
    }
}
