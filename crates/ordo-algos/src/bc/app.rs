//! `bc` as an application: Brandes betweenness centrality with an outer loop
//! over the sources and a parallel BFS per source (Callisto-RTS §4.3, GAPBS
//! `bc.cc`).
//!
//! - Strategy (`--loop`): `default`, the fastest, on the run's pool (see
//!   [`Bc::default_plan`]: each search on every thread, or one source per
//!   thread), or an ordo-loops distributor or rayon by name, nested as
//!   `--nest` says (`--nest` applies to those only).
//! - Prepare: uses the input as it is when its adjacency lists are sorted
//!   without repeats, else drops parallel edges (one copy); no transpose.
//! - Parameters: `sources` (K sources sampled among the vertices with an
//!   out-edge; default every such vertex),
//!   `seed` (1), `nest` (`core`: levels `thread,core`, the source loop at
//!   level 1 — one source per core, its BFS on the core's threads;
//!   `socket`: the same per socket; `flat`: the source loop at level 0 on
//!   every thread, each BFS inline; `inner`: the source loop on one thread,
//!   each BFS on every thread). Cores and sockets come from the topology
//!   (`ORDO_TOPOLOGY` may pretend them).
//! - Report: `nest`, and `seed` with `--sources`; metrics: `sources` and
//!   `traversals` (searches run: one per source), `participants` (search
//!   states allocated), `kernel` (`default:inner`, `default:flat` or the loop
//!   spec), `bc_sum`, `bc_max`, `bc_max_vertex`.
//! - Reference: sequential Brandes over the same sources; verify: every
//!   value within 1e-9 relative ([`super::verify`]).
//! - `--out`: `vertex value` per line, networkx's
//!   `betweenness_centrality(G, normalized=False)` of the graph as a
//!   `DiGraph` (scaled as networkx scales a sample with `--sources`).

use std::io::{self, Write};
use std::str::FromStr;
use std::sync::Arc;

use ordo_loops::LevelMap;
use serde_json::json;

use super::{BcGraph, BcParams, BcResult, DefaultPlan, Sources};
use crate::app::params::{NEST, SEED, SOURCES};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::{LoopRunner, LoopStrategy};
use crate::pr_pull::app::{add_combining, loop_run};
use ordo_graph::memory::WorkingMemory;

/// How the source loop and the searches share the threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nest {
    /// One source per core, its BFS on the core's threads.
    Core,
    /// One source per socket, its BFS on the socket's threads.
    Socket,
    /// One source per thread, each BFS sequential.
    Flat,
    /// One source at a time, each BFS on every thread.
    Inner,
}

impl Nest {
    /// The name of `--nest`.
    pub fn name(self) -> &'static str {
        match self {
            Nest::Core => "core",
            Nest::Socket => "socket",
            Nest::Flat => "flat",
            Nest::Inner => "inner",
        }
    }

    /// The nesting levels of the runtime and the level of the source loop.
    pub fn levels(self) -> (LevelMap, usize) {
        let levels = |s: &str| s.parse::<LevelMap>().expect("valid level maps");
        match self {
            Nest::Core => (levels("thread,core"), 1),
            Nest::Socket => (levels("thread,socket"), 1),
            Nest::Flat => (LevelMap::default(), 0),
            Nest::Inner => (LevelMap::default(), 1),
        }
    }
}

impl FromStr for Nest {
    type Err = AppError;
    fn from_str(s: &str) -> Result<Self, AppError> {
        match s.trim() {
            "core" => Ok(Nest::Core),
            "socket" => Ok(Nest::Socket),
            "flat" => Ok(Nest::Flat),
            "inner" => Ok(Nest::Inner),
            _ => Err(AppError::Param(format!("nest = `{s}`: expected core, socket, flat or inner"))),
        }
    }
}

/// Betweenness centrality on one input.
pub struct Bc {
    graph: BcGraph,
    sources: Sources,
    nest: Nest,
}

impl Algorithm for Bc {
    const NAME: &'static str = "bc";
    const ABOUT: &'static str = "Betweenness centrality (Brandes, unweighted, directed), a loop over sources with a \
                                 parallel BFS each, nested per core (Callisto-RTS 4.3); within 1e-9 of sequential Brandes.";
    const PARAMS: &'static [&'static ParamDef] = &[&SOURCES, &SEED, &NEST];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str =
        "`vertex value` per line (0-based; networkx betweenness_centrality(G, normalized=False) of the DiGraph)";
    /// One search state (distances, path counts, dependencies, queue,
    /// values, successor bitmap) and the totals; the flat plan holds one
    /// per thread, and is chosen only when they fit (see `default_plan`).
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 48, per_edge: 1 };
    /// Per-vertex arrays and the predecessor lists.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 56, per_edge: 4 };
    type Strategy = LoopStrategy;
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = BcResult;
    type Reference = Vec<f64>;

    fn prepare(graph: Arc<ordo_graph::Graph>, params: &mut Params) -> Result<Self, AppError> {
        let k = params.take_u64(&SOURCES)?;
        let seed = params.take_u64(&SEED)?.unwrap_or(1);
        let nest = params.take_text(&NEST).map(|t| t.parse()).transpose()?.unwrap_or(Nest::Core);
        let sources = match k {
            None => Sources::All,
            Some(0) => return Err(AppError::Param("sources 0: at least one source is needed".into())),
            Some(k) => Sources::Sample { k: usize::try_from(k).unwrap_or(usize::MAX), seed },
        };
        Ok(Bc { graph: BcGraph::new(&graph), sources, nest })
    }

    fn params(&self) -> Fields {
        let mut f = Fields::from([("nest".to_string(), json!(self.nest.name()))]);
        if let Sources::Sample { seed, .. } = self.sources {
            f.insert("seed".into(), json!(seed));
        }
        f
    }

    fn run(&self, env: &RunEnv<'_>, strategy: &LoopStrategy) -> Result<Run<BcResult>, AppError> {
        let (r, kernel, threads, combining) = match strategy {
            LoopStrategy::Default => {
                let plan = self.default_plan(env.pool.threads());
                let r = super::betweenness_on_pool(env.pool, &self.graph, self.sources, plan)?;
                (r, format!("default:{}", plan.name()), env.pool.threads(), None)
            }
            LoopStrategy::Spec(spec) => {
                let (levels, outer_level) = self.nest.levels();
                let runner = LoopRunner::new(spec, env.pool.threads(), Some(levels))
                    .map_err(|e| AppError::Param(format!("--loop: {e}")))?;
                let params = BcParams { sources: self.sources, outer_level };
                let r = super::betweenness(&runner, &self.graph, &params)?;
                (r, spec.to_string(), runner.threads(), runner.combining_counts())
            }
        };
        let (max_vertex, max) =
            r.values
                .iter()
                .copied()
                .enumerate()
                .fold((0, 0.0f64), |best, (v, x)| if x > best.1 { (v, x) } else { best });
        let mut metrics = Fields::from([
            ("sources".to_string(), json!(r.sources.len())),
            ("traversals".to_string(), json!(r.sources.len())),
            ("participants".to_string(), json!(r.participants)),
            ("kernel".to_string(), json!(kernel)),
            ("bc_sum".to_string(), json!(r.values.iter().sum::<f64>())),
            ("bc_max".to_string(), json!(max)),
            ("bc_max_vertex".to_string(), json!(max_vertex)),
            ("loop_threads".to_string(), json!(threads)),
        ]);
        add_combining(&mut metrics, combining);
        let time_s = r.time_s;
        Ok(loop_run(r, time_s, metrics))
    }

    fn reference(&self) -> Result<RefRun<Vec<f64>>, AppError> {
        let start = std::time::Instant::now();
        let values = super::reference::betweenness(&self.graph, self.sources);
        Ok(RefRun { output: values, time_s: start.elapsed().as_secs_f64(), baseline_tasks: None })
    }

    fn verify(&self, got: &BcResult, want: &Vec<f64>) -> Result<(), AppError> {
        super::verify::verify(want, &got.values).map(|_| ()).map_err(|e| {
            AppError::Mismatch(format!("differs from sequential Brandes by more than 1e-9 relative: {e}"))
        })
    }

    fn write_out(&self, result: &BcResult, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, x) in result.values.iter().enumerate() {
            writeln!(w, "{v} {x}")?;
        }
        w.flush()
    }
}

impl Bc {
    /// The default kernel's plan on `threads` threads: one source per
    /// thread when there are at least two sources per thread to balance
    /// and the per-thread states fit in memory, else every search on every
    /// thread.
    pub fn default_plan(&self, threads: usize) -> DefaultPlan {
        let g = &self.graph.graph;
        let k = match self.sources {
            Sources::All => g.num_vertices(),
            Sources::Sample { k, .. } => k,
        };
        let memory = Self::RUN_MEMORY;
        let state = memory.per_vertex * g.num_vertices() as u64 + memory.per_edge * g.num_edges() as u64;
        let fits = match ordo_graph::memory::budget() {
            Ok(Some(budget)) => state.saturating_mul(threads as u64) <= budget.bytes / 2,
            _ => true,
        };
        if threads > 1 && k >= 2 * threads && fits {
            DefaultPlan::Flat
        } else {
            DefaultPlan::Inner
        }
    }
}
