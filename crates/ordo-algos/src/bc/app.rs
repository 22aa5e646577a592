//! `bc` as an application: Brandes betweenness centrality with an outer loop
//! over the sources and a parallel BFS per source (Callisto-RTS §4.3), on
//! ordo-loops (or rayon) chosen with `--loop`, nested as `--nest` says.
//!
//! - Prepare: drops self loops and parallel edges, builds the transpose.
//! - Parameters: `sources` (K sampled sources; default every vertex),
//!   `seed` (1), `nest` (`core`: levels `thread,core`, the source loop at
//!   level 1 — one source per core, its BFS on the core's threads;
//!   `socket`: the same per socket; `flat`: the source loop at level 0 on
//!   every thread, each BFS inline; `inner`: the source loop on one thread,
//!   each BFS on every thread). Cores and sockets come from the topology
//!   (`ORDO_TOPOLOGY` may pretend them).
//! - Report: `nest`, and `seed` with `--sources`; metrics: `sources` (how
//!   many were used), `bc_sum`, `bc_max`, `bc_max_vertex`.
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

use super::{BcGraph, BcParams, BcResult, Sources};
use crate::app::params::{NEST, SEED, SOURCES};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::loop_runner::{LoopRunner, LoopSpec};
use crate::pr_pull::app::loop_run;
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
    /// Per-source BFS state (distances, path counts, dependencies).
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 64, per_edge: 0 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 32, per_edge: 0 };
    type Strategy = LoopSpec;
    const DEFAULT_STRATEGY: &'static str = "striped:batch=32";
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

    fn run(&self, env: &RunEnv<'_>, spec: &LoopSpec) -> Result<Run<BcResult>, AppError> {
        let (levels, outer_level) = self.nest.levels();
        let runner = LoopRunner::new(spec, env.pool.threads(), Some(levels))
            .map_err(|e| AppError::Param(format!("--loop: {e}")))?;
        let r = super::betweenness(&runner, &self.graph, &BcParams { sources: self.sources, outer_level })?;
        let (max_vertex, max) =
            r.values
                .iter()
                .copied()
                .enumerate()
                .fold((0, 0.0f64), |best, (v, x)| if x > best.1 { (v, x) } else { best });
        let metrics = Fields::from([
            ("sources".to_string(), json!(r.sources.len())),
            ("bc_sum".to_string(), json!(r.values.iter().sum::<f64>())),
            ("bc_max".to_string(), json!(max)),
            ("bc_max_vertex".to_string(), json!(max_vertex)),
            ("loop_threads".to_string(), json!(runner.threads())),
        ]);
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
