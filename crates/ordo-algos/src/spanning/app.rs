//! Spanning forests as applications: `span-dfs` (pseudo-DFS with adaptive
//! batching) and `span-bfs` (phased BFS with predictive batching) on the
//! XWS work-stealing runtime, and the baselines, chosen per run by the
//! `--batch` strategy ([`SpanStrategy`]).
//!
//! - Prepare: the undirected view of the input ([`Undirected::new`]: a
//!   symmetric graph as it is, any other symmetrized and simplified).
//!   Parameter reported: `undirected_edges`.
//! - Metrics of a run: `meps` (million undirected edges per second, the
//!   XWS paper's measure: `undirected_edges / time_s / 10^6`),
//!   `components`, `parallel_components`, `frames`, `steals`,
//!   `vertices_per_frame`, `phases` (BFS levels run as phases), `parks`.
//! - Reference: sequential queue BFS forest (`span-bfs`) or stack DFS forest
//!   (`span-dfs`), the speed bar.
//! - Verify: the result is a spanning forest of the undirected graph (every
//!   non-root's parent a neighbour, no cycle, one root per connected
//!   component from a union-find); for `span-bfs` every depth is also the
//!   BFS distance from the root. The reference must have as many trees.
//! - `--out`: one `vertex parent` line per vertex, 0-based; a root is its
//!   own parent.

use std::fmt;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ordo_graph::{Graph, VertexId};
use serde_json::json;

use super::{reference, simple, verify, with_rayon, BatchPolicy, SpanOptions, SpanRun, Undirected};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv, Strategy};
use ordo_graph::memory::WorkingMemory;

/// How a spanning-forest run is computed: the `--batch` flag.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpanStrategy {
    /// The ordo-steal search with this batch policy (`adaptive`,
    /// `adaptive:S`, or a fixed `S`).
    Steal(BatchPolicy),
    /// The C-style SIMPLE baseline (steal-half DFS, SPMD BFS).
    Simple,
    /// The rayon baseline with batches (DFS) or chunks (BFS) of `S`.
    Rayon(u32),
}

impl fmt::Display for SpanStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpanStrategy::Steal(b) => write!(f, "{b}"),
            SpanStrategy::Simple => f.write_str("simple"),
            SpanStrategy::Rayon(s) => write!(f, "rayon:{s}"),
        }
    }
}

impl Strategy for SpanStrategy {
    const FLAG: &'static str = "batch";
    const VALUE_NAME: &'static str = "BATCH";
    const HELP: &'static str = "How the spanning forest is computed: `adaptive` (XWS adaptive batching, \
                                batches of min(2^Q, 128) vertices, Q the worker's deque size; \
                                `adaptive:S` caps at S), a fixed batch size `S` (1 to 2^20), or a \
                                baseline: `simple` (C-style steal-half DFS / SPMD BFS) or `rayon[:S]` \
                                (rayon scope/spawn DFS / parallel-iterator BFS, S default 128).";

    fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t == "simple" {
            return Ok(SpanStrategy::Simple);
        }
        if let Some(rest) = t.strip_prefix("rayon") {
            let size = match rest.strip_prefix(':') {
                None if rest.is_empty() => super::DEFAULT_MAX_BATCH,
                Some(s) => match s.parse::<u32>() {
                    Ok(v) if v >= 1 => v,
                    _ => return Err(format!("batch `{text}`: rayon:S needs an integer S >= 1")),
                },
                None => return Err(format!("batch `{text}`: expected rayon or rayon:S")),
            };
            return Ok(SpanStrategy::Rayon(size));
        }
        t.parse::<BatchPolicy>().map(SpanStrategy::Steal).map_err(|e| format!("{e}, `simple` or `rayon[:S]`"))
    }
}

/// Pools of the runtimes the strategies use, made on first use for the
/// thread count of the run (the executor's pool in [`RunEnv`] only gives the
/// count).
#[derive(Default)]
struct Pools {
    steal: Option<ordo_steal::Pool>,
    rayon: Option<rayon::ThreadPool>,
}

/// What both applications share.
struct Span {
    /// The input, kept when it is symmetric.
    input: Arc<Graph>,
    /// Its simple symmetrization otherwise.
    symmetrized: Option<Graph>,
    pools: Mutex<Pools>,
}

impl Span {
    fn prepare(input: Arc<Graph>) -> Self {
        let symmetrized = Undirected::new(&input).into_symmetrized();
        Span { input, symmetrized, pools: Mutex::new(Pools::default()) }
    }

    /// The undirected graph the runs search.
    fn graph(&self) -> Undirected<'_> {
        Undirected::of_symmetric(self.symmetrized.as_ref().unwrap_or(&self.input))
    }

    fn params(&self) -> Fields {
        Fields::from([("undirected_edges".to_string(), json!(self.graph().num_edges()))])
    }

    fn run(&self, threads: usize, strategy: &SpanStrategy, bfs: bool) -> Result<Run<Parents>, AppError> {
        let graph = self.graph();
        let pool_error =
            |e: &dyn fmt::Display| AppError::Failed(format!("cannot create the thread pool: {e}"));
        let mut pools = self.pools.lock().unwrap_or_else(|e| e.into_inner());
        let run: SpanRun = match *strategy {
            SpanStrategy::Steal(batch) => {
                if pools.steal.as_ref().is_none_or(|p| p.threads() != threads) {
                    pools.steal = None;
                    pools.steal = Some(ordo_steal::Pool::new(threads).map_err(|e| pool_error(&e))?);
                }
                let pool = pools.steal.as_ref().expect("made above");
                let options = SpanOptions { batch, ..SpanOptions::default() };
                if bfs {
                    super::span_bfs(pool, &graph, &options)
                } else {
                    super::span_dfs(pool, &graph, &options)
                }
            }
            SpanStrategy::Simple => {
                if bfs {
                    simple::span_bfs(threads, &graph)
                } else {
                    simple::span_dfs(threads, &graph)
                }
            }
            SpanStrategy::Rayon(size) => {
                if pools.rayon.as_ref().is_none_or(|p| p.current_num_threads() != threads) {
                    pools.rayon = None;
                    let built = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                    pools.rayon = Some(built.map_err(|e| pool_error(&e))?);
                }
                let pool = pools.rayon.as_ref().expect("made above");
                if bfs {
                    with_rayon::span_bfs(pool, &graph, size)
                } else {
                    with_rayon::span_dfs(pool, &graph, size)
                }
            }
        };
        let time_s = run.elapsed.as_secs_f64();
        let s = &run.stats;
        let metrics = Fields::from([
            ("meps".to_string(), json!(graph.num_edges() as f64 / time_s.max(1e-12) / 1e6)),
            ("components".to_string(), json!(s.components)),
            ("parallel_components".to_string(), json!(s.parallel_components)),
            ("frames".to_string(), json!(s.runtime.frames)),
            ("steals".to_string(), json!(s.runtime.steals)),
            ("vertices_per_frame".to_string(), json!(s.vertices_per_frame())),
            ("phases".to_string(), json!(s.phases)),
            ("parks".to_string(), json!(s.runtime.parks)),
        ]);
        Ok(Run {
            output: Parents(run.parent),
            time_s,
            stats: None,
            metrics,
            baseline_tasks: None,
            work_split: Vec::new(),
        })
    }

    fn reference(&self, bfs: bool) -> RefRun<Parents> {
        let graph = self.graph();
        let start = Instant::now();
        let parent = if bfs { reference::bfs_forest(&graph) } else { reference::dfs_forest(&graph) };
        RefRun { time_s: start.elapsed().as_secs_f64(), baseline_tasks: None, output: Parents(parent) }
    }

    fn verify(&self, got: &[VertexId], want: &[VertexId], bfs: bool) -> Result<(), AppError> {
        let graph = self.graph();
        let mismatch = |e: verify::SpanError| AppError::Mismatch(format!("is not a spanning forest: {e}"));
        let summary = verify::check_spanning_forest(&graph, got).map_err(mismatch)?;
        if bfs {
            verify::check_bfs_levels(&graph, got)
                .map_err(|e| AppError::Mismatch(format!("is not a BFS forest: {e}")))?;
        }
        let trees = want.iter().enumerate().filter(|&(v, &p)| p as usize == v).count() as u64;
        if trees != summary.components {
            return Err(AppError::Mismatch(format!(
                "has {} trees but the sequential reference has {trees}",
                summary.components
            )));
        }
        Ok(())
    }

    fn write_out(&self, parent: &[VertexId], out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, p) in parent.iter().enumerate() {
            writeln!(w, "{v} {p}")?;
        }
        w.flush()
    }
}

const OUT_FORMAT: &str = "`vertex parent` per vertex (0-based; a root is its own parent)";

/// The result of `span-dfs` and `span-bfs`: each vertex's parent (0-based;
/// a root is its own parent). A type of its own so that front ends (the
/// Python package) tell a forest from BFS levels, which are also `u32`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parents(pub Vec<VertexId>);

/// A spanning-forest app: parallel pseudo-DFS with batching (`BFS` false,
/// [`SpanDfs`]) or phased parallel BFS (`BFS` true, [`SpanBfs`]); the two
/// differ only in the search `Span` runs, verifies and names.
pub struct Spanning<const BFS: bool>(Span);

/// The spanning forest by parallel pseudo-DFS with batching.
pub type SpanDfs = Spanning<false>;

/// The spanning forest by phased parallel BFS.
pub type SpanBfs = Spanning<true>;

impl<const BFS: bool> Algorithm for Spanning<BFS> {
    const NAME: &'static str = if BFS { "span-bfs" } else { "span-dfs" };
    const ABOUT: &'static str = if BFS {
        "Spanning forest of the undirected graph by phased parallel BFS on the XWS \
         work-stealing runtime (one phase per level, predictive batching); \
         reports MEPS; verified: a spanning forest with exact BFS depths."
    } else {
        "Spanning forest of the undirected graph by parallel pseudo-DFS on the XWS \
         work-stealing runtime with adaptive batching; reports MEPS; verified: \
         tree edges are graph edges, no cycle, one root per component."
    };
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = OUT_FORMAT;
    /// The undirected copy and the parents.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 24, per_edge: 8 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8, per_edge: 0 };
    type Strategy = SpanStrategy;
    const DEFAULT_STRATEGY: &'static str = "adaptive";
    type Output = Parents;
    type Reference = Parents;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        Ok(Spanning(Span::prepare(graph)))
    }

    fn params(&self) -> Fields {
        self.0.params()
    }

    fn run(&self, env: &RunEnv<'_>, strategy: &SpanStrategy) -> Result<Run<Parents>, AppError> {
        self.0.run(env.pool.threads(), strategy, BFS)
    }

    fn reference(&self) -> Result<RefRun<Parents>, AppError> {
        Ok(self.0.reference(BFS))
    }

    fn verify(&self, got: &Parents, want: &Parents) -> Result<(), AppError> {
        self.0.verify(&got.0, &want.0, BFS)
    }

    fn write_out(&self, parent: &Parents, out: &mut dyn Write) -> io::Result<()> {
        self.0.write_out(&parent.0, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_and_print_canonically() {
        for (text, want) in [
            ("adaptive", SpanStrategy::Steal(BatchPolicy::default())),
            ("adaptive:64", SpanStrategy::Steal(BatchPolicy::Adaptive { max: 64 })),
            ("16", SpanStrategy::Steal(BatchPolicy::Fixed(16))),
            ("simple", SpanStrategy::Simple),
            ("rayon", SpanStrategy::Rayon(128)),
            ("rayon:8", SpanStrategy::Rayon(8)),
        ] {
            let got = SpanStrategy::parse(text).unwrap();
            assert_eq!(got, want, "{text}");
            assert_eq!(SpanStrategy::parse(&got.to_string()).unwrap(), got);
        }
        for bad in ["0", "fast", "rayon:0", "rayonx", "adaptive:"] {
            assert!(SpanStrategy::parse(bad).is_err(), "{bad}");
        }
    }
}
