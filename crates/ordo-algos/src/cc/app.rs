//! `cc` as an application: weakly connected components by Afforest on the
//! pool's threads, one label per vertex (the smallest vertex id of its
//! component).
//!
//! - Prepare: checks whether the graph is symmetric (untimed); a directed
//!   graph's transpose is built, untimed, before the first run of a kernel
//!   that reads in-edges, and its time is reported as `transpose_s`.
//! - Strategy (`--kernel`): `default` picks per input; `afforest` is the
//!   GAPBS kernel (largest sampled component skipped, in-edges linked on a
//!   directed graph); `afforest-out` reads out-edges only and skips no
//!   vertex on a directed graph (no transpose). On a symmetric graph the
//!   two are the same run.
//! - Metrics: `components`, `largest_component`, `kernel` (the one that
//!   ran), counted after the timed run.
//! - Reference: a sequential union-find over every edge; verify: the same
//!   partition, exactly.
//! - `--out`: one `vertex label` line per vertex, 0-based.

use std::io::{self, Write};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use ordo_graph::memory::WorkingMemory;
use ordo_graph::{Graph, VertexId};
use serde_json::json;

use super::{afforest, component_stats, Finish};
use crate::app::{
    Algorithm, AppError, Fields, Kernel, KernelChoice, KernelSet, ParamDef, Params, RefRun, Run, RunEnv,
};

/// The kernels of `cc`.
pub struct CcKernels;

impl KernelSet for CcKernels {
    const NAMED: &'static [(&'static str, &'static str)] = &[
        (AFFOREST, "Afforest as in GAPBS: the largest sampled component skipped, in-edges linked on a directed graph"),
        (AFFOREST_OUT, "Afforest over out-edges only: on a directed graph no vertex is skipped and no transpose is built"),
    ];
    const SCHEDULED: bool = false;
    const FLAG: &'static str = "kernel";
    const HELP: &'static str = "The components kernel: `default` (the fastest for the input), `afforest` \
                                (GAPBS: skips the largest sampled component, links in-edges on a directed \
                                graph, which needs its transpose) or `afforest-out` (out-edges only; on a \
                                directed graph skips nothing).";
}

const AFFOREST: &str = "afforest";
const AFFOREST_OUT: &str = "afforest-out";

/// The result of a run: the label of every vertex, the smallest vertex id
/// of its component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentLabels(pub Vec<VertexId>);

/// Connected components on one input.
pub struct Cc {
    graph: Arc<Graph>,
    symmetric: bool,
    /// The transpose of a directed graph and the seconds it took, built on
    /// first use.
    transpose: OnceLock<(Graph, f64)>,
}

impl Cc {
    /// The kernel a choice runs on this input.
    fn kernel(&self, choice: &KernelChoice) -> &'static str {
        match choice {
            // On a symmetric graph both kernels are GAPBS's run.
            _ if self.symmetric => AFFOREST,
            KernelChoice::Named(name) => name,
            // Without in-edges a directed graph is scanned whole; with
            // them the skipped component saves most of the edges but the
            // transpose costs a pass over all of them first.
            _ => AFFOREST_OUT,
        }
    }
}

impl Algorithm for Cc {
    const NAME: &'static str = "cc";
    const ABOUT: &'static str =
        "Weakly connected components by Afforest (Sutton et al., IPDPS'18; GAPBS cc): \
                                 the smallest vertex id of each component as its label; exact against a \
                                 sequential union-find.";
    const PARAMS: &'static [&'static ParamDef] = &[];
    const CYCLES: bool = false;
    const READS_WEIGHTS: bool = false;
    const OUT_FORMAT: &'static str =
        "one `vertex label` line per vertex, 0-based; the label is the smallest \
                                      vertex id of the vertex's weakly connected component";
    /// The parent array and the labels; the transpose of a directed graph
    /// for `afforest`.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 8 + 8, per_edge: 4 };
    /// The union-find, the names of its roots and the verification's maps.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 12 + 8, per_edge: 0 };
    type Strategy = Kernel<CcKernels>;
    const DEFAULT_STRATEGY: &'static str = "default";
    type Output = ComponentLabels;
    type Reference = Vec<VertexId>;

    fn prepare(graph: Arc<Graph>, _params: &mut Params) -> Result<Self, AppError> {
        let symmetric = ordo_graph::stats::is_symmetric(&graph);
        Ok(Cc { graph, symmetric, transpose: OnceLock::new() })
    }

    fn params(&self) -> Fields {
        Fields::from([("symmetric".to_string(), json!(self.symmetric))])
    }

    fn run(&self, env: &RunEnv<'_>, kernel: &Kernel<CcKernels>) -> Result<Run<ComponentLabels>, AppError> {
        let name = self.kernel(&kernel.choice);
        let mut metrics = Fields::new();
        let finish = if self.symmetric {
            Finish::Skip
        } else if name == AFFOREST {
            let (transpose, seconds) = self.transpose.get_or_init(|| {
                let start = Instant::now();
                let t = ordo_graph::transform::transpose(&self.graph);
                (t, start.elapsed().as_secs_f64())
            });
            metrics.insert("transpose_s".to_string(), json!(seconds));
            Finish::SkipWithInEdges(transpose)
        } else {
            Finish::All
        };
        let start = Instant::now();
        let labels = afforest(env.pool, &self.graph, finish);
        let time_s = start.elapsed().as_secs_f64();
        let stats = component_stats(&labels);
        metrics.insert("components".to_string(), json!(stats.components));
        metrics.insert("largest_component".to_string(), json!(stats.largest));
        metrics.insert("kernel".to_string(), json!(name));
        Ok(Run {
            output: ComponentLabels(labels),
            time_s,
            stats: None,
            metrics,
            baseline_tasks: None,
            work_split: Vec::new(),
        })
    }

    fn reference(&self) -> Result<RefRun<Vec<VertexId>>, AppError> {
        let start = Instant::now();
        let labels = super::reference::component_labels(&self.graph);
        Ok(RefRun { output: labels, time_s: start.elapsed().as_secs_f64(), baseline_tasks: None })
    }

    fn verify(&self, got: &ComponentLabels, want: &Vec<VertexId>) -> Result<(), AppError> {
        super::verify::same_partition(&got.0, want).map_err(|e| AppError::Mismatch(format!("cc: {e}")))
    }

    fn write_out(&self, labels: &ComponentLabels, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 20, out);
        for (v, label) in labels.0.iter().enumerate() {
            writeln!(w, "{v} {label}")?;
        }
        w.flush()
    }
}
