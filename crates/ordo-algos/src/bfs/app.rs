//! BFS as an application: three kernels behind one strategy
//! ([`Kernel<BfsKernels>`]), queue BFS as the reference, exact levels plus
//! the fixpoint check, and with `parents` the Graph500 check of the tree.
//!
//! - `default`: the fastest kernel (`default_kernel`); the report's
//!   `kernel` says which ran.
//! - `direction`: direction-optimizing BFS ([`super::direction`]).
//! - `top-down`: the same rounds, every one top-down.
//! - any scheduler spec (`auto`, `pmod`, `obim:delta=1`, ...): the papers'
//!   priority BFS ([`super::bfs`]) on that scheduler, as the papers'
//!   experiments run it; `--classify` and `--cycles` measure this kernel.
//!
//! The pieces shared with SSSP's application are in [`crate::sssp::app`].

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Instant;

use ordo_graph::memory::WorkingMemory;
use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::direction::{bfs_direction, Switching};
use super::{BfsTree, NO_PARENT, UNREACHED_LEVEL};
use crate::app::params::{CLASSIFY, PARENTS, SOURCE};
use crate::app::{
    Algorithm, AppError, Fields, Kernel, KernelChoice, KernelSet, ParamDef, Params, RefRun, Run, RunEnv,
};
use crate::sssp::app::{path_run, reference_run, verify_labels, with_task_log, VALUES_OUT};
use crate::sssp::verify::EdgeCost;

/// The kernels of BFS besides the default.
pub struct BfsKernels;

impl KernelSet for BfsKernels {
    const NAMED: &'static [(&'static str, &'static str)] = &[
        (
            "direction",
            "direction-optimizing BFS (Beamer et al. SC'12, as GAPBS): top-down and bottom-up steps",
        ),
        ("top-down", "level-synchronous parallel BFS, every step top-down"),
    ];
    const SCHEDULED: bool = true;
    const FLAG: &'static str = "sched";
    const HELP: &'static str = "The BFS kernel: `default` (the fastest: direction-optimizing, or with \
                                --classify / --cycles the priority BFS on `auto`; the report's `kernel` \
                                says which ran), \
                                `direction` (direction-optimizing), `top-down`, or a scheduler spec \
                                (`auto`, `pmod`, `obim:delta=14,chunk=64`, `strict`, ...) to run the \
                                papers' priority BFS on it. An unknown name is an error that lists what \
                                exists.";
}

/// The kernel that runs, once the default is resolved.
#[derive(Clone, Debug, PartialEq)]
enum Chosen {
    Direction,
    TopDown,
    Priority(SchedulerSpec),
}

impl Chosen {
    fn name(&self) -> &'static str {
        match self {
            Chosen::Direction => "direction",
            Chosen::TopDown => "top-down",
            Chosen::Priority(_) => "priority",
        }
    }
}

/// The `auto` scheduler with its default configuration.
fn auto() -> SchedulerSpec {
    SchedulerSpec::Auto(ordo_sched::auto::AutoConfig::default())
}

/// The kernel `default` runs: direction-optimizing BFS on every input.
///
/// Its top-down steps on small frontiers run on the calling thread, so on
/// high-diameter graphs (road networks, meshes: thousands of narrow levels)
/// it pays no join per level, and it was faster there than the priority BFS
/// on `auto` as well as on power-law graphs, at one and at two threads
/// (`docs/bfs-kernels.md`), so no fact of the input changes the choice.
/// `--classify` and `--cycles` measure tasks, which only the priority BFS
/// has: with them the default is the priority BFS on `auto`.
fn default_kernel(measures_tasks: bool) -> Chosen {
    if measures_tasks {
        Chosen::Priority(auto())
    } else {
        Chosen::Direction
    }
}

/// Breadth-first search levels (and with `parents` the tree) from one source.
pub struct Bfs {
    graph: Arc<Graph>,
    /// The in-edges of `graph` (itself when symmetric), for bottom-up steps
    /// and for the parents of the priority BFS.
    in_edges: Arc<Graph>,
    source: VertexId,
    classify: bool,
    parents: bool,
}

impl Bfs {
    /// The kernel a run with `strategy` uses; `cycles`: the run times its
    /// cycles.
    fn resolve(&self, strategy: &Kernel<BfsKernels>, cycles: bool) -> Result<Chosen, AppError> {
        let chosen = match &strategy.choice {
            KernelChoice::Default => default_kernel(self.classify || cycles),
            KernelChoice::Named("direction") => Chosen::Direction,
            KernelChoice::Named("top-down") => Chosen::TopDown,
            KernelChoice::Named(other) => {
                return Err(AppError::Param(format!("--sched: no BFS kernel `{other}`")))
            }
            KernelChoice::Scheduled(spec) => Chosen::Priority(spec.clone()),
        };
        if self.classify && !matches!(chosen, Chosen::Priority(_)) {
            return Err(AppError::Param(format!(
                "--classify needs tasks: it applies to the priority BFS (--sched SPEC), not `{}`",
                chosen.name()
            )));
        }
        Ok(chosen)
    }
}

impl Algorithm for Bfs {
    const NAME: &'static str = "bfs";
    const ABOUT: &'static str = "Breadth-first search levels (direction-optimizing, or priority = level on \
                                 a scheduler); verified against queue BFS, exactly.";
    const PARAMS: &'static [&'static ParamDef] = &[&SOURCE, &CLASSIFY, &PARENTS];
    const CYCLES: bool = true;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str = VALUES_OUT;
    /// Levels, parents, the frontier queues and the two bitmaps; the
    /// transpose of a directed graph (a target per edge).
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 20, per_edge: 4 };
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 9, per_edge: 0 };
    type Strategy = Kernel<BfsKernels>;
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = BfsTree;
    type Reference = Vec<u32>;

    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        let source = params.take_vertex(&SOURCE, &graph)?.unwrap_or(0);
        let classify = params.take_flag(&CLASSIFY)?;
        let parents = params.take_flag(&PARENTS)?;
        if graph.num_vertices() == 0 {
            return Err(AppError::Param("the graph has no vertex to start from".into()));
        }
        let in_edges = crate::access::in_edges(&graph);
        Ok(Bfs { graph, in_edges, source, classify, parents })
    }

    fn params(&self) -> Fields {
        Fields::from([("source".to_string(), json!(self.source))])
    }

    fn run(&self, env: &RunEnv<'_>, strategy: &Kernel<BfsKernels>) -> Result<Run<BfsTree>, AppError> {
        let chosen = self.resolve(strategy, env.exec.cycle_timing)?;
        let mut run = match &chosen {
            Chosen::Priority(spec) => {
                let opts = with_task_log(env.exec, self.classify);
                let (levels, stats) = super::bfs(env.pool, spec, &self.graph, self.source, &opts)?;
                let run = path_run(levels, stats, self.classify, env.exec.log_tasks);
                let start = Instant::now();
                let parents = self.parents.then(|| {
                    super::tree::parents_from_levels(env.pool, &self.in_edges, self.source, &run.output)
                });
                let derive_s = start.elapsed().as_secs_f64();
                let mut run = run.map_output(|levels| BfsTree { levels, parents });
                run.time_s += derive_s;
                run.metrics.insert("kernel_scheduler".to_string(), json!(spec.to_string()));
                run
            }
            Chosen::Direction | Chosen::TopDown => {
                let switching =
                    if chosen == Chosen::Direction { Switching::GAPBS } else { Switching::TopDownOnly };
                let start = Instant::now();
                let (tree, steps) = bfs_direction(
                    env.pool,
                    &self.graph,
                    &self.in_edges,
                    self.source,
                    self.parents,
                    switching,
                )?;
                let time_s = start.elapsed().as_secs_f64();
                let mut run = path_run(tree.levels, Default::default(), false, false);
                run.stats = None;
                run.time_s = time_s;
                run.metrics.insert("top_down_steps".to_string(), json!(steps.top_down));
                run.metrics.insert("bottom_up_steps".to_string(), json!(steps.bottom_up));
                run.map_output(|levels| BfsTree { levels, parents: tree.parents })
            }
        };
        run.metrics.insert("kernel".to_string(), json!(chosen.name()));
        Ok(run)
    }

    fn reference(&self) -> Result<RefRun<Vec<u32>>, AppError> {
        Ok(reference_run(super::bfs_levels(&self.graph, self.source)?))
    }

    fn verify(&self, got: &BfsTree, want: &Vec<u32>) -> Result<(), AppError> {
        verify_labels(&self.graph, self.source, EdgeCost::Unit, &got.levels, want)?;
        match (&got.parents, self.parents) {
            (Some(parents), _) => super::check_parent_tree(&self.graph, self.source, &got.levels, parents)
                .map_err(|e| AppError::Mismatch(e.to_string())),
            (None, true) => Err(AppError::Mismatch("the run computed no parents".into())),
            (None, false) => Ok(()),
        }
    }

    fn write_out(&self, tree: &BfsTree, out: &mut dyn Write) -> io::Result<()> {
        let Some(parents) = &tree.parents else {
            return crate::sssp::app::write_labels(&tree.levels, out);
        };
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, (&level, &parent)) in tree.levels.iter().zip(parents).enumerate() {
            if level == UNREACHED_LEVEL || parent == NO_PARENT {
                writeln!(w, "{v} inf -1")?;
            } else {
                writeln!(w, "{v} {level} {parent}")?;
            }
        }
        w.flush()
    }
}
