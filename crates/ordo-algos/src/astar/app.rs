//! A* as an application: the heuristic and the default target are built
//! once per input; runs report the distance, the path's edge count and the
//! heuristic; verification compares the distance with Dijkstra stopped at the
//! target and checks the path edge by edge; `--out` writes the path.

use std::io::{self, Write};
use std::sync::Arc;

use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;
use serde_json::json;

use super::{AstarResult, Heuristic, HeuristicKind, TargetReference};
use crate::app::params::{CLASSIFY, OPERATOR, SOURCE, TARGET};
use crate::app::{Algorithm, AppError, Fields, ParamDef, Params, RefRun, Run, RunEnv};
use crate::sssp::app::{take_operator, with_task_log};
use crate::sssp::OperatorVariant;
use crate::work_split;

/// A* from one source to one target (priority = distance + heuristic).
pub struct Astar {
    graph: Arc<Graph>,
    source: VertexId,
    target: VertexId,
    /// Whether the target was given (else [`super::far_target`] chose it).
    target_given: bool,
    heuristic: Heuristic,
    classify: bool,
    /// The operator's form.
    operator: OperatorVariant,
}

impl Astar {
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

impl Algorithm for Astar {
    const NAME: &'static str = "astar";
    const ABOUT: &'static str = "Shortest path to one target, priority = distance so far + an admissible \
                                 coordinate heuristic; verified against Dijkstra stopped at the target, \
                                 the path checked edge by edge.";
    const PARAMS: &'static [&'static ParamDef] = &[&SOURCE, &TARGET, &CLASSIFY, &OPERATOR];
    const CYCLES: bool = true;
    const READS_COORDS: bool = true;
    const OUT_FORMAT: &'static str = "the path, one vertex per line from source to target, then \
                                      `length <distance>` (`length inf` and no vertex when unreachable)";
    type Strategy = SchedulerSpec;
    /// `auto`: the best scheduler on every input of `bench/papers.toml` at 2 threads
    /// (Table 5 runs of 2026-11-25 to 2026-11-27, `docs/results.md`).
    const DEFAULT_STRATEGY: &'static str = "auto";
    type Output = AstarResult;
    type Reference = TargetReference;

    /// Resolves the source and the target (default: the reachable vertex
    /// with the largest BFS level from the source, smallest id among ties)
    /// and builds the heuristic from the graph's coordinates.
    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError> {
        if graph.num_vertices() == 0 {
            return Err(AppError::Param("the graph has no vertex to start from".into()));
        }
        let source = params.take_vertex(&SOURCE, &graph)?.unwrap_or(0);
        let (target, target_given) = match params.take_vertex(&TARGET, &graph)? {
            Some(t) => (t, true),
            None => (super::far_target(&graph, source)?, false),
        };
        let classify = params.take_flag(&CLASSIFY)?;
        let operator = take_operator(params)?;
        let heuristic = Heuristic::for_graph(&graph);
        Ok(Astar { graph, source, target, target_given, heuristic, classify, operator })
    }

    fn params(&self) -> Fields {
        let choice = if self.target_given { "given" } else { "farthest BFS level from the source" };
        Fields::from([
            ("source".to_string(), json!(self.source)),
            ("target".to_string(), json!(self.target)),
            ("target_choice".to_string(), json!(choice)),
            ("operator".to_string(), json!(self.operator.name())),
        ])
    }

    fn run(&self, env: &RunEnv<'_>, spec: &SchedulerSpec) -> Result<Run<AstarResult>, AppError> {
        let opts = with_task_log(env.exec, self.classify);
        let (result, mut stats) = super::astar_with_operator(
            env.pool,
            spec,
            &self.graph,
            self.source,
            self.target,
            &self.heuristic,
            &opts,
            self.operator,
        )?;
        // A task is good when it ran with its vertex's final label, first
        // such execution; pruned tasks are noted so that they never are
        // (module docs of `crate::astar`).
        let split = if self.classify {
            work_split::classify_per_thread(&stats.task_notes, |v| result.labels[v as usize])
        } else {
            Vec::new()
        };
        if !env.exec.log_tasks {
            stats.task_notes = Vec::new();
        }
        let metrics = Fields::from([
            // `target` is among the parameters (one JSON key, not two).
            ("distance".to_string(), result.distance.map_or(json!("unreachable"), |d| json!(d))),
            ("path_edges".to_string(), json!(result.path.len().saturating_sub(1))),
            ("heuristic".to_string(), json!(self.heuristic_text())),
            ("heuristic_scale".to_string(), json!(self.heuristic.scale())),
        ]);
        let mut run = Run::executed(result, stats, metrics);
        run.work_split = split;
        Ok(run)
    }

    fn reference(&self) -> Result<RefRun<TargetReference>, AppError> {
        let r = super::dijkstra_to_target(&self.graph, self.source, self.target)?;
        Ok(RefRun { time_s: r.time_s, baseline_tasks: Some(r.settled), output: r })
    }

    fn verify(&self, got: &AstarResult, want: &TargetReference) -> Result<(), AppError> {
        let text = |d: Option<u64>| d.map_or("unreachable".to_string(), |d| d.to_string());
        if got.distance != want.distance {
            return Err(AppError::Mismatch(format!(
                "distance from {} to {}: expected {} (Dijkstra), got {}",
                self.source,
                self.target,
                text(want.distance),
                text(got.distance)
            )));
        }
        match got.distance {
            Some(d) => super::check_path(&self.graph, self.source, self.target, &got.path, d)?,
            None if !got.path.is_empty() => {
                return Err(AppError::Mismatch("a path to an unreachable target".into()))
            }
            None => {}
        }
        Ok(())
    }

    fn write_out(&self, result: &AstarResult, out: &mut dyn Write) -> io::Result<()> {
        let mut w = io::BufWriter::new(out);
        for v in &result.path {
            writeln!(w, "{v}")?;
        }
        match result.distance {
            Some(d) => writeln!(w, "length {d}")?,
            None => writeln!(w, "length inf")?,
        }
        w.flush()
    }
}
