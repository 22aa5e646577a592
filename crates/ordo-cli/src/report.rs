//! The result of `ordo run`: one record with the measures of design.md §4,
//! printed either as a human-readable block or as one JSON object.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ordo_exec::{CycleBreakdown, RunStats};
use serde::Serialize;
use serde_json::Value;

use crate::apps::{AppRun, PreparedApp, RefRun, WorkSplit};

/// A traced scheduler parameter (e.g. PMOD's lmf) in the JSON output.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct TraceOut {
    /// What the x coordinate counts (e.g. `dequeues`).
    pub(crate) x_label: String,
    /// `[x, value]` at each change, starting with the initial value.
    pub(crate) points: Vec<(u64, u64)>,
}

/// Everything `ordo run` reports about one run. Field names are the
/// measure names of design.md §4, shared with `ordo bench` and the plots.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RunReport {
    /// The application (`sssp`, `bfs`, ...).
    pub(crate) app: String,
    /// The input: a file path or `gen:<spec>`.
    pub(crate) graph: String,
    /// Vertices.
    pub(crate) n: usize,
    /// Directed edges.
    pub(crate) m: usize,
    /// The full scheduler spec, every parameter included.
    pub(crate) scheduler: String,
    /// Worker threads.
    pub(crate) threads: usize,
    /// The application's parameters as resolved on this input (e.g.
    /// `source`), flattened into the JSON object.
    #[serde(flatten)]
    pub(crate) params: BTreeMap<String, Value>,
    /// Wall time of the parallel phase, graph loading excluded.
    pub(crate) time_s: f64,
    /// Tasks executed.
    pub(crate) tasks: u64,
    /// `tasks` / tasks of the exact-order baseline (for SSSP and BFS: the
    /// vertices reached from the source). `null` when unknown without the
    /// reference.
    pub(crate) work_increase: Option<f64>,
    /// Pops that found nothing.
    pub(crate) empty_pops: u64,
    /// Tasks whose vertex had already been improved when they ran.
    pub(crate) stale_tasks: u64,
    /// Tasks pushed (the initial one included).
    pub(crate) pushes: u64,
    /// Successful pops.
    pub(crate) pops: u64,
    /// Times an idle worker scanned the scheduler for work (executor).
    pub(crate) idle_scans: u64,
    /// Times an idle worker parked (executor backoff).
    pub(crate) parks: u64,
    /// Tasks executed by each worker: shows load imbalance.
    pub(crate) tasks_per_thread: Vec<u64>,
    /// Scheduler counters: per-thread ones summed, then the global ones.
    pub(crate) sched_counters: BTreeMap<String, u64>,
    /// Scheduler traces by name.
    pub(crate) traces: BTreeMap<String, TraceOut>,
    /// Time of the sequential reference (with `--verify`).
    pub(crate) seq_time_s: Option<f64>,
    /// Every run's `time_s` (one entry without `--repeat`); `time_s` is
    /// their median.
    pub(crate) times_s: Vec<f64>,
    /// Every reference run's time; `seq_time_s` is their median.
    pub(crate) seq_times_s: Vec<f64>,
    /// `seq_time_s / time_s` (with `--verify`).
    pub(crate) vs_seq: Option<f64>,
    /// Whether the result was checked against the reference (a failed
    /// check is an error, so this is never reported as false after a check).
    pub(crate) verified: bool,
    /// Per-thread cycle breakdown (Table 1 classes), with `--cycles`.
    pub(crate) cycles_per_thread: Vec<BTreeMap<String, u64>>,
    /// Good vs useless work, with `--classify` (applications that support it).
    pub(crate) work_split: Option<WorkSplit>,
    /// The application's checksums (SSSP/BFS: `reached`, `max_dist`,
    /// `sum_dist`), flattened into the JSON object.
    #[serde(flatten)]
    pub(crate) metrics: BTreeMap<String, Value>,
}

impl RunReport {
    /// Fills the scheduler-side fields from the executor's statistics.
    pub(crate) fn stats_fields(stats: &RunStats) -> (BTreeMap<String, u64>, BTreeMap<String, TraceOut>) {
        let mut counters = BTreeMap::new();
        for (name, value) in stats.total.sched_counters.iter().chain(&stats.sched_counters) {
            *counters.entry(name.to_string()).or_insert(0) += value;
        }
        let traces = stats
            .traces
            .iter()
            .map(|t| {
                (t.name.to_string(), TraceOut { x_label: t.x_label.to_string(), points: t.points.clone() })
            })
            .collect();
        (counters, traces)
    }

    /// The one-line JSON object.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report of numbers and strings always serialises")
    }

    /// The human-readable block.
    pub(crate) fn to_text(&self) -> String {
        let mut s = String::new();
        let mut line = |k: &str, v: String| {
            let _ = writeln!(s, "{k:<15} {v}");
        };
        line("app", self.app.clone());
        line("graph", format!("{} (n {}, m {})", self.graph, self.n, self.m));
        line("scheduler", self.scheduler.clone());
        line("threads", self.threads.to_string());
        for (k, v) in &self.params {
            line(k, value_text(v));
        }
        if self.times_s.len() > 1 {
            let lo = self.times_s.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = self.times_s.iter().copied().fold(0.0, f64::max);
            line(
                "time",
                format!("{:.6} s (median of {}, min {lo:.6}, max {hi:.6})", self.time_s, self.times_s.len()),
            );
        } else {
            line("time", format!("{:.6} s", self.time_s));
        }
        line("tasks", self.tasks.to_string());
        line(
            "work increase",
            self.work_increase.map_or("unknown (use --verify)".into(), |w| format!("{w:.4}")),
        );
        line("stale tasks", self.stale_tasks.to_string());
        line("pushes", self.pushes.to_string());
        line("pops", self.pops.to_string());
        line("empty pops", self.empty_pops.to_string());
        line("idle scans", format!("{} ({} parks)", self.idle_scans, self.parks));
        line("tasks/thread", format!("{:?}", self.tasks_per_thread));
        for (k, v) in &self.sched_counters {
            line(&format!("  {k}"), v.to_string());
        }
        for (name, t) in &self.traces {
            line(&format!("{name} trace"), format_trace(t));
        }
        if let Some(w) = &self.work_split {
            let all = (w.good_tasks + w.useless_tasks).max(1) as f64;
            line(
                "good tasks",
                format!(
                    "{} ({:.1}%), useless {}",
                    w.good_tasks,
                    100.0 * w.good_tasks as f64 / all,
                    w.useless_tasks
                ),
            );
            if w.good_cycles + w.useless_cycles > 0 {
                line("good cycles", format!("{} (useless {})", w.good_cycles, w.useless_cycles));
            }
        }
        for (k, v) in &self.metrics {
            line(k, value_text(v));
        }
        if let (Some(seq), Some(vs)) = (self.seq_time_s, self.vs_seq) {
            line("seq time", format!("{seq:.6} s"));
            line("vs seq", format!("{vs:.3}x"));
        }
        line(
            "verified",
            if self.verified { "yes (equal to the sequential reference)" } else { "no (use --verify)" }
                .to_string(),
        );
        s
    }
}

/// A JSON value as plain text (strings without quotes).
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The index of the median of `times` (the lower one for an even count).
pub(crate) fn median_index(times: &[f64]) -> usize {
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    order[(times.len() - 1) / 2]
}

/// The Table 1 classes of a breakdown, by measure name.
pub(crate) fn cycle_fields(c: &CycleBreakdown) -> BTreeMap<String, u64> {
    [
        ("cycles_task", c.task),
        ("cycles_enq", c.enq),
        ("cycles_deq", c.deq),
        ("cycles_failed_deq", c.failed_deq),
        ("cycles_other", c.other),
        ("enq_ops", c.enq_ops),
        ("deq_ops", c.deq_ops),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

impl RunReport {
    /// The report of repeated runs of one configuration: the median run's
    /// measures, every run's time, and the reference's (when it ran).
    /// `runs` must not be empty.
    pub(crate) fn from_runs(
        graph_name: &str,
        graph: &ordo_graph::Graph,
        prepared: &dyn PreparedApp,
        runs: &[AppRun],
        references: &[RefRun],
    ) -> RunReport {
        let times_s: Vec<f64> = runs.iter().map(|r| r.stats.time_s).collect();
        let run = &runs[median_index(&times_s)];
        let stats = &run.stats;
        let seq_times_s: Vec<f64> = references.iter().map(|r| r.time_s).collect();
        let reference = (!references.is_empty()).then(|| &references[median_index(&seq_times_s)]);
        let baseline =
            reference.map(|r| r.baseline_tasks).or_else(|| prepared.baseline_without_reference(run));
        let (mut counters, traces) = RunReport::stats_fields(stats);
        if let Some(c) = &stats.total.cycles {
            counters.extend(cycle_fields(c));
        }
        let t = &stats.total;
        let mut metrics = run.metrics.clone();
        if let Some(r) = reference {
            metrics.extend(prepared.verified_metrics(run, r));
        }
        RunReport {
            app: prepared.app().name().to_string(),
            graph: graph_name.to_string(),
            n: graph.num_vertices(),
            m: graph.num_edges(),
            scheduler: stats.scheduler.clone(),
            threads: stats.threads,
            params: prepared.params(),
            time_s: stats.time_s,
            tasks: t.tasks,
            work_increase: baseline.map(|b| ordo_algos::work_increase(t.tasks, b)),
            empty_pops: t.empty_pops,
            stale_tasks: t.stale_tasks,
            pushes: t.pushes,
            pops: t.pops,
            idle_scans: t.idle_scans,
            parks: t.parks,
            tasks_per_thread: stats.per_thread.iter().map(|p| p.tasks).collect(),
            sched_counters: counters,
            traces,
            seq_time_s: reference.map(|r| r.time_s),
            times_s,
            seq_times_s,
            vs_seq: reference.map(|r| if stats.time_s > 0.0 { r.time_s / stats.time_s } else { 0.0 }),
            verified: reference.is_some(),
            cycles_per_thread: stats
                .per_thread
                .iter()
                .filter_map(|p| p.cycles.as_ref())
                .map(cycle_fields)
                .collect(),
            work_split: run.work_split,
            metrics,
        }
    }
}

/// `value@x` pairs; long traces show their first and last changes.
fn format_trace(t: &TraceOut) -> String {
    const SHOWN: usize = 12;
    let fmt = |p: &(u64, u64)| format!("{}@{}", p.1, p.0);
    let pts = &t.points;
    let body = if pts.len() <= SHOWN {
        pts.iter().map(fmt).collect::<Vec<_>>().join(" ")
    } else {
        let head: Vec<_> = pts[..SHOWN / 2].iter().map(fmt).collect();
        let tail: Vec<_> = pts[pts.len() - SHOWN / 2..].iter().map(fmt).collect();
        format!("{} ... ({} more) ... {}", head.join(" "), pts.len() - SHOWN, tail.join(" "))
    };
    format!("{} changes over {}: {body}", pts.len().saturating_sub(1), t.x_label)
}
