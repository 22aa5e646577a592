//! The result of `ordo run`: one record with the measures of design.md §4,
//! printed either as a human-readable block or as one JSON object.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ordo_exec::RunStats;
use serde::Serialize;

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
    /// `sssp` or `bfs`.
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
    /// Source vertex (0-based).
    pub(crate) source: u32,
    /// Wall time of the parallel phase, graph loading excluded.
    pub(crate) time_s: f64,
    /// Tasks executed.
    pub(crate) tasks: u64,
    /// `tasks` / vertices settled by the exact-order reference (= vertices
    /// reached from the source).
    pub(crate) work_increase: f64,
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
    /// Vertices reached from the source.
    pub(crate) reached: u64,
    /// Largest finite distance (or level).
    pub(crate) max_dist: u64,
    /// Sum of the finite distances (or levels): a checksum comparable
    /// across implementations.
    pub(crate) sum_dist: u128,
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
        line("source", self.source.to_string());
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
        line("work increase", format!("{:.4}", self.work_increase));
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
        line("reached", format!("{} (max {}, sum {})", self.reached, self.max_dist, self.sum_dist));
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
