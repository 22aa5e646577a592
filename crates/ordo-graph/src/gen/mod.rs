//! Deterministic graph generators and the [`GenSpec`] strings that name them.
//!
//! A spec is `kind` or `kind:key=value,key=value,...`, for example
//! `road:n=1000000,seed=1`, `kron:scale=20`, `grid:w=1000,h=1000,wmax=10000`.
//! Numbers accept `_` separators, powers `2^20` and integral scientific
//! notation `1e6`. Every generator takes `seed=` (default 1) and produces the
//! same graph for the same spec on any machine and with any thread count
//! (random streams are split by fixed-size chunk, not by thread). Generated
//! graphs are always weighted; generators with uniform weights take
//! `wmin=`/`wmax=` (inclusive).
//!
//! | kind | model | parameters (defaults) |
//! |------|-------|------------|
//! | `road` | road-like planar graph with coordinates, see [`road`] | `n` (required), `deg`=2.6, `min_len`=10, `max_len`=100000 |
//! | `rmat` | R-MAT, directed multigraph | `scale` (required), `ef`=16, `a`=0.57, `b`=0.19, `c`=0.19, `wmin`=1, `wmax`=255, `sym`=false, `simple`=false, `permute`=false |
//! | `kron` | Graph500 Kronecker: R-MAT with scrambled ids, symmetric, simple | as `rmat` but `sym`, `simple`, `permute` default true |
//! | `torus` | 2D torus, 4 neighbours with wrap-around | `w`, `h` (required, >= 3), `wmin`=1, `wmax`=10000 |
//! | `grid` | 2D grid, 4 neighbours | `w`, `h` (required), `wmin`=1, `wmax`=10000 |
//! | `random` | `m` uniformly random directed edges without self loops | `n`, `m` (required), `wmin`=1, `wmax`=10000 |
//! | `kgraph` | every vertex has `k` distinct random out-neighbours | `n`, `k` (required), `wmin`=1, `wmax`=10000 |

pub mod grid;
pub mod kgraph;
mod part;
pub mod random;
pub mod rmat;
pub mod road;
pub mod torus;

use std::fmt;
use std::str::FromStr;

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::csr::Graph;

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

/// Key-value pairs of a spec, tracking which keys were used.
struct Params<'a> {
    spec: &'a str,
    pairs: Vec<(&'a str, &'a str, bool)>,
}

impl<'a> Params<'a> {
    fn err(&self, msg: impl Into<String>) -> GenError {
        GenError { spec: self.spec.to_string(), msg: msg.into() }
    }

    fn raw(&mut self, key: &str) -> Option<&'a str> {
        self.pairs.iter_mut().find(|(k, _, _)| *k == key).map(|(_, v, used)| {
            *used = true;
            *v
        })
    }

    fn int(&mut self, key: &str, default: Option<u64>) -> Result<u64, GenError> {
        match self.raw(key) {
            Some(v) => {
                parse_int(v).ok_or_else(|| self.err(format!("{key}={v}: expected a non-negative integer")))
            }
            None => default.ok_or_else(|| self.err(format!("missing required parameter `{key}`"))),
        }
    }

    fn float(&mut self, key: &str, default: f64) -> Result<f64, GenError> {
        match self.raw(key) {
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.err(format!("{key}={v}: expected a number"))),
            },
            None => Ok(default),
        }
    }

    fn flag(&mut self, key: &str, default: bool) -> Result<bool, GenError> {
        match self.raw(key) {
            Some("true" | "1" | "yes") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(v) => Err(self.err(format!("{key}={v}: expected true or false"))),
            None => Ok(default),
        }
    }

    fn weights(&mut self, lo: u32, hi: u32) -> Result<WeightRange, GenError> {
        let wmin = self.int("wmin", Some(u64::from(lo)))?;
        let wmax = self.int("wmax", Some(u64::from(hi)))?;
        if wmax > u64::from(u32::MAX) || wmin > wmax {
            return Err(
                self.err(format!("weights wmin={wmin}..wmax={wmax}: need wmin <= wmax <= {}", u32::MAX))
            );
        }
        Ok(WeightRange { lo: wmin as u32, hi: wmax as u32 })
    }

    fn finish(&self, allowed: &[&str]) -> Result<(), GenError> {
        if let Some((k, _, _)) = self.pairs.iter().find(|(_, _, used)| !used) {
            return Err(
                self.err(format!("unknown parameter `{k}` (expected one of: {})", allowed.join(", ")))
            );
        }
        Ok(())
    }
}

/// Parses `123`, `1_000`, `2^20`, `1e6` (integral only).
fn parse_int(s: &str) -> Option<u64> {
    let s: String = s.chars().filter(|&c| c != '_').collect();
    if let Some((b, e)) = s.split_once('^') {
        return b.parse::<u64>().ok()?.checked_pow(e.parse().ok()?);
    }
    if let Ok(v) = s.parse::<u64>() {
        return Some(v);
    }
    let f: f64 = s.parse().ok()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 1.8e19).then_some(f as u64)
}

impl FromStr for GenSpec {
    type Err = GenError;

    fn from_str(spec: &str) -> Result<Self, GenError> {
        let spec = spec.trim();
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let mut p = Params { spec, pairs: Vec::new() };
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) =
                item.split_once('=').ok_or_else(|| p.err(format!("`{item}`: expected key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            if p.pairs.iter().any(|(pk, _, _)| *pk == k) {
                return Err(p.err(format!("parameter `{k}` given twice")));
            }
            p.pairs.push((k, v, false));
        }
        let seed = p.int("seed", Some(1))?;
        let parsed = match kind {
            "road" => {
                let r = RoadParams {
                    n: p.int("n", None)?,
                    avg_degree: p.float("deg", 2.6)?,
                    min_len: p.float("min_len", 10.0)?,
                    max_len: p.float("max_len", 100_000.0)?,
                    seed,
                };
                p.finish(&["n", "deg", "min_len", "max_len", "seed"])?;
                GenSpec::Road(r)
            }
            "rmat" | "kron" => {
                let kron = kind == "kron";
                let r = RmatParams {
                    scale: p.int("scale", None)?.min(u64::from(u32::MAX)) as u32,
                    edge_factor: p.int("ef", Some(16))?,
                    a: p.float("a", 0.57)?,
                    b: p.float("b", 0.19)?,
                    c: p.float("c", 0.19)?,
                    weights: p.weights(1, 255)?,
                    symmetric: p.flag("sym", kron)?,
                    simple: p.flag("simple", kron)?,
                    permute: p.flag("permute", kron)?,
                    seed,
                };
                p.finish(&[
                    "scale", "ef", "a", "b", "c", "wmin", "wmax", "sym", "simple", "permute", "seed",
                ])?;
                if kron {
                    GenSpec::Kron(r)
                } else {
                    GenSpec::Rmat(r)
                }
            }
            "torus" | "grid" => {
                let l = LatticeParams {
                    w: p.int("w", None)?,
                    h: p.int("h", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["w", "h", "wmin", "wmax", "seed"])?;
                if kind == "torus" {
                    GenSpec::Torus(l)
                } else {
                    GenSpec::Grid(l)
                }
            }
            "random" => {
                let r = RandomParams {
                    n: p.int("n", None)?,
                    m: p.int("m", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["n", "m", "wmin", "wmax", "seed"])?;
                GenSpec::Random(r)
            }
            "kgraph" => {
                let r = KGraphParams {
                    n: p.int("n", None)?,
                    k: p.int("k", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["n", "k", "wmin", "wmax", "seed"])?;
                GenSpec::KGraph(r)
            }
            other => {
                return Err(p.err(format!(
                    "unknown generator `{other}` (expected road, rmat, kron, torus, grid, random or kgraph)"
                )))
            }
        };
        parsed.validate().map_err(|msg| p.err(msg))?;
        Ok(parsed)
    }
}

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
    fn validate(&self) -> Result<(), String> {
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
    pub fn generate_with_threads(&self, threads: usize) -> Result<Graph, GenError> {
        self.validate().map_err(|msg| GenError { spec: self.to_string(), msg })?;
        let threads = threads.max(1);
        Ok(match self {
            GenSpec::Road(r) => road::generate(r),
            GenSpec::Rmat(r) | GenSpec::Kron(r) => rmat::generate(r, threads),
            GenSpec::Torus(l) => torus::generate(l),
            GenSpec::Grid(l) => grid::generate(l),
            GenSpec::Random(r) => random::generate(r, threads),
            GenSpec::KGraph(r) => kgraph::generate(r, threads),
        })
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

/// SplitMix64 finaliser: decorrelates seeds of neighbouring streams.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream number `stream` of `seed`: streams are independent
/// of each other and of the thread that consumes them.
pub(crate) fn stream_rng(seed: u64, stream: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(mix(seed ^ mix(stream)))
}

/// Edges produced by one random stream in the chunked generators.
pub(crate) const EDGES_PER_STREAM: usize = 1 << 16;

/// Fills `a`, `b`, `w` (equal lengths) in chunks of `chunk` elements on
/// `threads` threads; `f(chunk_index, a, b, w)` fills one chunk. Which thread
/// runs a chunk does not affect the result.
pub(crate) fn par_fill<F>(threads: usize, chunk: usize, a: &mut [u32], b: &mut [u32], w: &mut [u32], f: F)
where
    F: Fn(usize, &mut [u32], &mut [u32], &mut [u32]) + Sync,
{
    let mut jobs: Vec<_> = a
        .chunks_mut(chunk)
        .zip(b.chunks_mut(chunk))
        .zip(w.chunks_mut(chunk))
        .enumerate()
        .map(|(i, ((a, b), w))| (i, a, b, w))
        .collect();
    if jobs.is_empty() {
        return;
    }
    let per_thread = jobs.len().div_ceil(threads.max(1));
    std::thread::scope(|s| {
        for group in jobs.chunks_mut(per_thread) {
            let f = &f;
            s.spawn(move || {
                for (i, a, b, w) in group.iter_mut() {
                    f(*i, a, b, w);
                }
            });
        }
    });
}

/// Builds a CSR graph from generated edge arrays: with `symmetric`, every
/// edge `(u, v, w)` with `u != v` also yields `(v, u, w)`; with `simple`,
/// self loops are dropped and parallel edges merged (least weight kept) and
/// each adjacency list is sorted by target. Without `simple` the out-edges
/// of each vertex keep their order in the arrays (a stable counting sort).
///
/// An out-of-place scatter (fast for the random edge orders generators
/// produce) plus, for `simple`, a per-vertex sort of packed `(target, weight)`
/// keys on `threads` threads.
pub(crate) fn build_csr(
    n: usize,
    src: &[u32],
    dst: &[u32],
    wts: &[u32],
    symmetric: bool,
    simple: bool,
    threads: usize,
) -> Graph {
    let keep = |u: u32, v: u32| !(simple && u == v);
    let mut offsets = vec![0u64; n + 1];
    for (&u, &v) in src.iter().zip(dst) {
        if keep(u, v) {
            offsets[u as usize + 1] += 1;
            if symmetric && u != v {
                offsets[v as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let m = offsets[n] as usize;
    let mut cursor: Vec<u64> = offsets[..n].to_vec();
    if !simple {
        let mut targets = vec![0u32; m];
        let mut weights = vec![0u32; m];
        let mut put = |a: u32, b: u32, w: u32| {
            let slot = cursor[a as usize] as usize;
            cursor[a as usize] += 1;
            targets[slot] = b;
            weights[slot] = w;
        };
        for ((&u, &v), &w) in src.iter().zip(dst).zip(wts) {
            put(u, v, w);
            if symmetric && u != v {
                put(v, u, w);
            }
        }
        return Graph::from_parts(offsets.into(), targets.into(), Some(weights.into()), None)
            .expect("generator built an invalid CSR (bug)");
    }
    // Packed keys: sorting them orders by target, then weight.
    let mut keys = vec![0u64; m];
    let mut put = |a: u32, b: u32, w: u32| {
        let slot = cursor[a as usize] as usize;
        cursor[a as usize] += 1;
        keys[slot] = (u64::from(b) << 32) | u64::from(w);
    };
    for ((&u, &v), &w) in src.iter().zip(dst).zip(wts) {
        if u != v {
            put(u, v, w);
            if symmetric {
                put(v, u, w);
            }
        }
    }
    drop(cursor);
    // Sort and dedup each list in place; new_deg[v] = distinct targets.
    let mut new_deg = vec![0u64; n];
    let threads = threads.clamp(1, n.max(1));
    // Vertex ranges with about equal edge counts, one per thread.
    let mut bounds = vec![0usize];
    for t in 1..threads {
        let goal = (m as u64 * t as u64) / threads as u64;
        let v = offsets.partition_point(|&o| o < goal).min(n);
        bounds.push(v.max(*bounds.last().expect("non-empty")));
    }
    bounds.push(n);
    std::thread::scope(|s| {
        let mut rest_keys: &mut [u64] = &mut keys;
        let mut rest_deg: &mut [u64] = &mut new_deg;
        let mut consumed = 0usize;
        for part in bounds.windows(2) {
            let (lo, hi) = (part[0], part[1]);
            let edges = (offsets[hi] - offsets[lo]) as usize;
            let (k, kr) = std::mem::take(&mut rest_keys).split_at_mut(edges);
            let (d, dr) = std::mem::take(&mut rest_deg).split_at_mut(hi - lo);
            rest_keys = kr;
            rest_deg = dr;
            let base = offsets[lo] as usize;
            debug_assert_eq!(base, consumed);
            consumed += edges;
            let offsets = &offsets;
            s.spawn(move || {
                for v in lo..hi {
                    let list = &mut k[offsets[v] as usize - base..offsets[v + 1] as usize - base];
                    list.sort_unstable();
                    let mut len = 0;
                    for i in 0..list.len() {
                        if len == 0 || list[i] >> 32 != list[len - 1] >> 32 {
                            list[len] = list[i];
                            len += 1;
                        }
                    }
                    d[v - lo] = len as u64;
                }
            });
        }
    });
    let mut new_offsets = Vec::with_capacity(n + 1);
    new_offsets.push(0u64);
    let total: u64 = new_deg.iter().sum();
    let mut targets = Vec::with_capacity(total as usize);
    let mut weights = Vec::with_capacity(total as usize);
    for v in 0..n {
        let start = offsets[v] as usize;
        for &key in &keys[start..start + new_deg[v] as usize] {
            targets.push((key >> 32) as u32);
            weights.push(key as u32);
        }
        new_offsets.push(targets.len() as u64);
    }
    Graph::from_parts(new_offsets.into(), targets.into(), Some(weights.into()), None)
        .expect("generator built an invalid CSR (bug)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_canonically() {
        for s in [
            "road:n=1000",
            "kron:scale=10",
            "rmat:scale=8,ef=4,sym=true",
            "grid:w=3,h=4,wmax=9",
            "torus:w=3,h=3",
        ] {
            let g: GenSpec = s.parse().unwrap();
            let again: GenSpec = g.to_string().parse().unwrap();
            assert_eq!(g, again, "{s}");
        }
        let g: GenSpec = "random:n=2^10,m=1e4,seed=7".parse().unwrap();
        assert_eq!(
            g,
            GenSpec::Random(RandomParams {
                n: 1024,
                m: 10_000,
                weights: WeightRange { lo: 1, hi: 10_000 },
                seed: 7
            })
        );
    }

    #[test]
    fn rejects_bad_specs_with_reasons() {
        let cases = [
            ("road", "missing required parameter `n`"),
            ("road:n=0", "n=0 must be between 1"),
            ("road:n=10,x=1", "unknown parameter `x`"),
            ("road:n=ten", "n=ten: expected a non-negative integer"),
            ("torus:w=2,h=5", "at least 3"),
            ("kgraph:n=5,k=5", "need n > k"),
            ("random:n=1,m=3", "need n >= 2"),
            ("grid:w=2,h=2,wmin=5,wmax=4", "need wmin <= wmax"),
            ("foo:n=1", "unknown generator `foo`"),
            ("rmat:scale=40", "scale=40"),
            ("road:n=5,n=6", "given twice"),
        ];
        for (spec, want) in cases {
            let e = spec.parse::<GenSpec>().unwrap_err().to_string();
            assert!(e.contains(want) && e.contains(spec), "{spec}: {e}");
        }
    }

    #[test]
    fn build_csr_matches_the_transforms() {
        use rand::RngExt;
        let mut rng = stream_rng(5, 5);
        for n in [1usize, 2, 7, 50] {
            let m = 6 * n;
            let src: Vec<u32> = (0..m).map(|_| rng.random_range(0..n as u32)).collect();
            let dst: Vec<u32> = (0..m).map(|_| rng.random_range(0..n as u32)).collect();
            let w: Vec<u32> = (0..m).map(|_| rng.random_range(1..4u32)).collect();
            let reference = crate::csr::EdgeList {
                num_vertices: n,
                src: src.clone(),
                dst: dst.clone(),
                weights: Some(w.clone()),
                coords: None,
            }
            .into_graph()
            .unwrap();
            for threads in [1, 3] {
                assert_eq!(build_csr(n, &src, &dst, &w, false, false, threads), reference);
                assert_eq!(
                    build_csr(n, &src, &dst, &w, true, true, threads),
                    crate::transform::symmetrize_simple(&reference)
                );
                assert_eq!(
                    build_csr(n, &src, &dst, &w, false, true, threads),
                    crate::transform::dedup_edges(&crate::transform::drop_self_loops(&reference))
                );
                let sym = build_csr(n, &src, &dst, &w, true, false, threads);
                let mut a: Vec<_> = sym.edges().collect();
                let mut b: Vec<_> = crate::transform::symmetrize(&reference).edges().collect();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b);
            }
        }
    }
}
