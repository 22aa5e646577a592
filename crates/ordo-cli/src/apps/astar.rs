//! A* as a [`PreparedApp`]: the heuristic and the default target are built
//! once per input; runs report the target, the distance, the path's edge
//! count and the heuristic; verification compares the distance with Dijkstra
//! stopped at the target and checks the path; `--out` writes the path.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context as _;
use ordo_algos::astar::{self, AstarResult, Heuristic, HeuristicKind, TargetReference};
use ordo_algos::work_split;
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::{json, Value};

use super::{output, vertex_arg, App, AppParams, AppRun, PreparedApp, RefRun, WorkSplit};

/// A* from one source to one target on one graph.
pub(crate) struct AstarApp<'g> {
    graph: &'g Graph,
    source: u32,
    target: u32,
    /// Whether `--target` was given (else [`astar::far_target`] chose it).
    target_given: bool,
    heuristic: Heuristic,
    /// `--classify`: log every task and split good from useless work.
    classify_work: bool,
}

/// The output of one parallel run: the search result and, with
/// `--classify`, the good / useless split of each thread (the task notes
/// are dropped once classified, so repeated runs do not keep them).
struct AstarOutput {
    result: AstarResult,
    split_per_thread: Vec<WorkSplit>,
}

impl<'g> AstarApp<'g> {
    /// Resolves the source and the target (default: the reachable vertex
    /// with the largest BFS level from the source, smallest id among ties)
    /// and builds the heuristic from the graph's coordinates.
    pub(crate) fn new(graph: &'g Graph, params: &AppParams) -> anyhow::Result<Self> {
        let source = vertex_arg("--source", params.source, graph)?;
        let (target, target_given) = match params.target {
            Some(t) => (vertex_arg("--target", t, graph)?, true),
            None => (astar::far_target(graph, source)?, false),
        };
        let heuristic = Heuristic::for_graph(graph);
        Ok(AstarApp { graph, source, target, target_given, heuristic, classify_work: params.classify_work })
    }

    /// The heuristic's description for the report.
    fn heuristic_text(&self) -> String {
        match self.heuristic.kind() {
            HeuristicKind::Zero => "zero (no coordinates: A* is SSSP pruned by the target distance)".into(),
            HeuristicKind::Euclidean => "euclidean".into(),
            HeuristicKind::Equirectangular { reference_latitude_deg } => {
                format!("equirectangular (metres, reference latitude {reference_latitude_deg:.4} deg)")
            }
        }
    }
}

impl PreparedApp for AstarApp<'_> {
    fn app(&self) -> App {
        App::Astar
    }

    fn params(&self) -> BTreeMap<String, Value> {
        let choice = if self.target_given { "given" } else { "farthest BFS level from the source" };
        BTreeMap::from([
            ("source".to_string(), json!(self.source)),
            ("target".to_string(), json!(self.target)),
            ("target_choice".to_string(), json!(choice)),
        ])
    }

    fn run(&self, pool: &Pool, spec: &SchedulerSpec, opts: &ExecOptions) -> anyhow::Result<AppRun> {
        let opts = ExecOptions { log_tasks: self.classify_work, ..opts.clone() };
        let (result, mut stats) =
            astar::astar(pool, spec, self.graph, self.source, self.target, &self.heuristic, &opts)?;
        // A task is good when it ran with its vertex's final label, first
        // such execution; pruned tasks are noted so that they never are
        // (see `ordo_algos::astar`).
        let split_per_thread = if self.classify_work {
            work_split::classify_per_thread(&stats.task_notes, |v| result.labels[v as usize])
        } else {
            Vec::new()
        };
        stats.task_notes = Vec::new();
        let work_split = self.classify_work.then(|| WorkSplit::sum(&split_per_thread));
        let metrics = BTreeMap::from([
            // `target` is among the parameters (one JSON key, not two).
            ("distance".to_string(), result.distance.map_or(json!("unreachable"), |d| json!(d))),
            ("path_edges".to_string(), json!(result.path.len().saturating_sub(1))),
            ("heuristic".to_string(), json!(self.heuristic_text())),
            ("heuristic_scale".to_string(), json!(self.heuristic.scale())),
        ]);
        Ok(AppRun { stats, metrics, work_split, output: Box::new(AstarOutput { result, split_per_thread }) })
    }

    fn work_split_per_thread(&self, run: &AppRun) -> Vec<WorkSplit> {
        output::<AstarOutput>(&*run.output).split_per_thread.clone()
    }

    fn reference(&self) -> anyhow::Result<RefRun> {
        let r = astar::dijkstra_to_target(self.graph, self.source, self.target)?;
        Ok(RefRun { time_s: r.time_s, baseline_tasks: r.settled, output: Box::new(r) })
    }

    fn verify(&self, run: &AppRun, reference: &RefRun) -> anyhow::Result<()> {
        let got = &output::<AstarOutput>(&*run.output).result;
        let want = output::<TargetReference>(&*reference.output);
        let text = |d: Option<u64>| d.map_or("unreachable".to_string(), |d| d.to_string());
        anyhow::ensure!(
            got.distance == want.distance,
            "distance from {} to {}: expected {} (Dijkstra), got {}",
            self.source,
            self.target,
            text(want.distance),
            text(got.distance)
        );
        match got.distance {
            Some(d) => astar::check_path(self.graph, self.source, self.target, &got.path, d)?,
            None => anyhow::ensure!(got.path.is_empty(), "a path to an unreachable target"),
        }
        Ok(())
    }

    fn baseline_without_reference(&self, _run: &AppRun) -> Option<u64> {
        None // only the stopped Dijkstra knows how many vertices it settles
    }

    fn write_out(&self, run: &AppRun, path: &Path) -> anyhow::Result<()> {
        write_path(path, &output::<AstarOutput>(&*run.output).result)
    }
}

/// Writes the path, one vertex per line from source to target, then
/// `length <distance>` (`length inf` and no vertex when unreachable): the
/// `--out` format of A* (`ordo run`, `ordo sim`).
pub(crate) fn write_path(path: &Path, result: &AstarResult) -> anyhow::Result<()> {
    let err = || format!("cannot write {}", path.display());
    let mut w = BufWriter::new(File::create(path).with_context(err)?);
    for v in &result.path {
        writeln!(w, "{v}").with_context(err)?;
    }
    match result.distance {
        Some(d) => writeln!(w, "length {d}"),
        None => writeln!(w, "length inf"),
    }
    .with_context(err)?;
    w.flush().with_context(err)
}
