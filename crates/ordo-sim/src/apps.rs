//! The applications of `ordo_algos::app` that the simulator runs: SSSP, BFS
//! and A*. A simulated run of a prepared application returns the same
//! output type as its real run, so the application layer verifies it and
//! writes it (`--out`) exactly as it does for `ordo run`.

use ordo_algos::app::{Algorithm, Fields};
use ordo_algos::astar::app::Astar;
use ordo_algos::astar::{AstarResult, Heuristic};
use ordo_algos::bfs::app::Bfs;
use ordo_algos::bfs::BfsTree;
use ordo_algos::sssp::app::{Distances, Sssp};
use ordo_algos::summarize;
use ordo_graph::{Graph, VertexId};
use ordo_sched::SchedulerSpec;
use serde_json::json;

use crate::{SimConfig, SimError, SimRun};

/// An application the simulator can run.
pub trait Simulated: Algorithm {
    /// One simulated run of the prepared application `self`, which was
    /// prepared on `graph`, on the scheduler `spec`.
    ///
    /// # Errors
    /// As [`crate::simulate`], or a graph other than the one `self` was
    /// prepared on.
    fn simulate(
        &self,
        graph: &Graph,
        spec: &SchedulerSpec,
        cfg: &SimConfig,
    ) -> Result<SimRun<Self::Output>, SimError>;

    /// Checksums of a result for the report (as the real run reports them).
    fn checksums(output: &Self::Output) -> Fields;
}

/// A vertex parameter of the prepared application, as it resolved it.
fn vertex_param(app: &impl Algorithm, name: &str, graph: &Graph) -> Result<VertexId, SimError> {
    let v = app.params().get(name).and_then(serde_json::Value::as_u64);
    match v.and_then(|v| VertexId::try_from(v).ok()) {
        Some(v) if (v as usize) < graph.num_vertices() => Ok(v),
        _ => Err(SimError::Config(format!(
            "{}: no `{name}` among the parameters, or not a vertex of this graph (prepared on another graph?)",
            std::any::type_name_of_val(app)
        ))),
    }
}

/// `reached`, `max_dist`, `sum_dist`, as `ordo run` reports them.
fn label_checksums<L: ordo_algos::sssp::verify::Label>(values: &[L]) -> Fields {
    let s = summarize(values);
    Fields::from([
        ("reached".to_string(), json!(s.reached)),
        ("max_dist".to_string(), json!(s.max)),
        (
            "sum_dist".to_string(),
            u64::try_from(s.sum).map_or_else(|_| json!(s.sum.to_string()), |v| json!(v)),
        ),
    ])
}

impl Simulated for Sssp {
    fn simulate(
        &self,
        graph: &Graph,
        spec: &SchedulerSpec,
        cfg: &SimConfig,
    ) -> Result<SimRun<Distances>, SimError> {
        if graph.has_real_weights() {
            return Err(SimError::Config("the simulator does not take real edge weights".into()));
        }
        let run = crate::sssp(graph, vertex_param(self, "source", graph)?, spec, cfg)?;
        Ok(SimRun { result: Distances::Int(run.result), measures: run.measures })
    }

    fn checksums(output: &Distances) -> Fields {
        match output {
            Distances::Int(values) => label_checksums(values),
            Distances::Real(values) => {
                let finite = values.iter().filter(|d| d.is_finite());
                Fields::from([
                    ("reached".to_string(), json!(finite.clone().count())),
                    ("max_dist".to_string(), json!(finite.clone().fold(0.0f64, |m, &d| m.max(d)))),
                    ("sum_dist".to_string(), json!(finite.sum::<f64>())),
                ])
            }
        }
    }
}

impl Simulated for Bfs {
    fn simulate(
        &self,
        graph: &Graph,
        spec: &SchedulerSpec,
        cfg: &SimConfig,
    ) -> Result<SimRun<BfsTree>, SimError> {
        let run = crate::bfs(graph, vertex_param(self, "source", graph)?, spec, cfg)?;
        Ok(SimRun { result: BfsTree { levels: run.result, parents: None }, measures: run.measures })
    }

    fn checksums(output: &BfsTree) -> Fields {
        label_checksums(&output.levels)
    }
}

impl Simulated for Astar {
    /// The heuristic is rebuilt from the graph ([`Heuristic::for_graph`] is
    /// deterministic, so it is the one the application uses).
    fn simulate(
        &self,
        graph: &Graph,
        spec: &SchedulerSpec,
        cfg: &SimConfig,
    ) -> Result<SimRun<AstarResult>, SimError> {
        let source = vertex_param(self, "source", graph)?;
        let target = vertex_param(self, "target", graph)?;
        crate::astar(graph, source, target, &Heuristic::for_graph(graph), spec, cfg)
    }

    fn checksums(output: &AstarResult) -> Fields {
        Fields::from([
            ("distance".to_string(), output.distance.map_or(json!("unreachable"), |d| json!(d))),
            ("path_edges".to_string(), json!(output.path.len().saturating_sub(1))),
        ])
    }
}
