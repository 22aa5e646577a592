//! The result of `ordo run`: one record with the measures of design.md §4,
//! printed either as a human-readable block or as one JSON object.
//!
//! # Cycle breakdown (JSON schema, read by the bench driver and the plots)
//! With `--cycles`, the top-level object `breakdown` holds where the
//! threads' time went, summed over threads, in the classes of Table 1 of the
//! PMOD paper (pmod-priority-scheduling-sc19 §3.1), and
//! `breakdown_per_thread` is a list (index = thread) of objects with the same
//! keys for each thread. Without `--cycles` both are `null`. Keys:
//!
//! | key | meaning |
//! |-----|---------|
//! | `cycles_task` | running the operator (all tasks) |
//! | `cycles_good` | operator cycles of good tasks; `null` unless `--classify` |
//! | `cycles_useless` | operator cycles of useless tasks; `null` unless `--classify` |
//! | `cycles_enq` | pushing into the scheduler (Enq) |
//! | `cycles_deq` | successful pops (Deq) |
//! | `cycles_failed_deq` | pops that found nothing (failed Deq) |
//! | `cycles_other` | the rest: start barrier, idling, termination detection |
//! | `cycles_total` | `task + enq + deq + failed_deq + other`: the thread's whole run |
//! | `cycles_per_enq` | `cycles_enq / enq_ops` (float; `null` with no Enq), Figure 7 |
//! | `cycles_per_deq` | `cycles_deq / deq_ops` (float; `null` with no Deq), Figure 7 |
//! | `enq_ops`, `deq_ops` | the operations timed (extra keys, for the ratios) |
//!
//! The unit is [`ordo_exec::CYCLE_UNIT`] (TSC cycles on x86-64). The six
//! classes of Table 1 are good, useless, Enq, Deq, failed Deq and other:
//! `cycles_good + cycles_useless == cycles_task` exactly when every task is
//! classified (SSSP, BFS: the same clock reads feed both), and the five
//! measured classes add up to `cycles_total` exactly by construction (Other
//! is the thread's total minus the rest).
//!
//! With `--classify`, the top-level object `work_split` holds `good_tasks`,
//! `useless_tasks`, `good_cycles`, `useless_cycles` (cycles 0 without
//! `--cycles`); `null` otherwise.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ordo_exec::{CycleBreakdown, RunStats};
use serde::{Serialize, Serializer};
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

/// One thread's (or all threads') time in the classes of Table 1 of the
/// PMOD paper, plus the cost per Enq and per Deq (Figure 7). The JSON keys
/// are a fixed schema: see the module docs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Breakdown {
    /// Operator cycles of every task.
    pub(crate) cycles_task: u64,
    /// Operator cycles of the good tasks (`None` unless classified).
    pub(crate) cycles_good: Option<u64>,
    /// Operator cycles of the useless tasks (`None` unless classified).
    pub(crate) cycles_useless: Option<u64>,
    /// Enq cycles.
    pub(crate) cycles_enq: u64,
    /// Successful Deq cycles.
    pub(crate) cycles_deq: u64,
    /// Failed Deq cycles.
    pub(crate) cycles_failed_deq: u64,
    /// Everything else.
    pub(crate) cycles_other: u64,
    /// The sum of the five measured classes.
    pub(crate) cycles_total: u64,
    /// Cycles per Enq operation (`None` without any).
    pub(crate) cycles_per_enq: Option<f64>,
    /// Cycles per successful Deq (`None` without any).
    pub(crate) cycles_per_deq: Option<f64>,
    /// Enq operations timed.
    pub(crate) enq_ops: u64,
    /// Successful Deq operations timed.
    pub(crate) deq_ops: u64,
}

impl Breakdown {
    /// The breakdown of `cycles`, with the good / useless split when known.
    pub(crate) fn new(cycles: &CycleBreakdown, split: Option<&WorkSplit>) -> Breakdown {
        let per = |total: u64, ops: u64| (ops > 0).then(|| total as f64 / ops as f64);
        Breakdown {
            cycles_task: cycles.task,
            cycles_good: split.map(|w| w.good_cycles),
            cycles_useless: split.map(|w| w.useless_cycles),
            cycles_enq: cycles.enq,
            cycles_deq: cycles.deq,
            cycles_failed_deq: cycles.failed_deq,
            cycles_other: cycles.other,
            cycles_total: cycles.total(),
            cycles_per_enq: per(cycles.enq, cycles.enq_ops),
            cycles_per_deq: per(cycles.deq, cycles.deq_ops),
            enq_ops: cycles.enq_ops,
            deq_ops: cycles.deq_ops,
        }
    }

    /// The text lines of the breakdown: each class in cycles and percent of
    /// the total, then the per-operation costs.
    fn text_lines(&self) -> Vec<(String, String)> {
        let pct = |c: u64| 100.0 * c as f64 / self.cycles_total.max(1) as f64;
        let class = |c: u64| format!("{c} ({:.1}%)", pct(c));
        let mut lines =
            vec![("total".to_string(), format!("{} {}", self.cycles_total, ordo_exec::CYCLE_UNIT))];
        match (self.cycles_good, self.cycles_useless) {
            (Some(good), Some(useless)) => {
                lines.push(("good work".into(), class(good)));
                lines.push(("useless work".into(), class(useless)));
            }
            _ => lines.push(("task".into(), class(self.cycles_task))),
        }
        lines.push(("enq".into(), class(self.cycles_enq)));
        lines.push(("deq".into(), class(self.cycles_deq)));
        lines.push(("failed deq".into(), class(self.cycles_failed_deq)));
        lines.push(("other".into(), class(self.cycles_other)));
        let per = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.1}"));
        lines.push((
            "per enq / deq".into(),
            format!(
                "{} / {} ({} enq, {} deq)",
                per(self.cycles_per_enq),
                per(self.cycles_per_deq),
                self.enq_ops,
                self.deq_ops
            ),
        ));
        lines
    }
}

/// The per-thread breakdowns of `stats` (`None` without cycle timing), each
/// with its thread's split when `splits` has one per thread.
fn per_thread_breakdowns(stats: &RunStats, splits: &[WorkSplit]) -> Option<Vec<Breakdown>> {
    let have_splits = splits.len() == stats.per_thread.len();
    stats
        .per_thread
        .iter()
        .enumerate()
        .map(|(tid, t)| t.cycles.as_ref().map(|c| Breakdown::new(c, have_splits.then(|| &splits[tid]))))
        .collect()
}

/// Writes a [`WorkSplit`] as the JSON object `{good_tasks, useless_tasks,
/// good_cycles, useless_cycles}` (the type lives in ordo-algos, without serde).
fn serialize_work_split<S: Serializer>(split: &Option<WorkSplit>, serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Out {
        good_tasks: u64,
        useless_tasks: u64,
        good_cycles: u64,
        useless_cycles: u64,
    }
    split
        .map(|w| Out {
            good_tasks: w.good_tasks,
            useless_tasks: w.useless_tasks,
            good_cycles: w.good_cycles,
            useless_cycles: w.useless_cycles,
        })
        .serialize(serializer)
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
    /// Where the time went, summed over threads (Table 1 classes; module
    /// docs), with `--cycles`.
    pub(crate) breakdown: Option<Breakdown>,
    /// The same for each thread (index = thread), with `--cycles`.
    pub(crate) breakdown_per_thread: Option<Vec<Breakdown>>,
    /// Good vs useless work, with `--classify` (applications that support it).
    #[serde(serialize_with = "serialize_work_split")]
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
        if let Some(b) = &self.breakdown {
            line("cycles", String::new());
            for (k, v) in b.text_lines() {
                line(&format!("  {k}"), v);
            }
        }
        if let Some(threads) = self.breakdown_per_thread.as_ref().filter(|t| t.len() > 1) {
            for (tid, b) in threads.iter().enumerate() {
                let text: Vec<String> = b.text_lines().into_iter().map(|(k, v)| format!("{k} {v}")).collect();
                line(&format!("  thread {tid}"), text.join(", "));
            }
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
            if self.verified {
                "yes (checked against the sequential reference)"
            } else {
                "no (use --verify)"
            }
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
        let (counters, traces) = RunReport::stats_fields(stats);
        let splits_per_thread = prepared.work_split_per_thread(run);
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
            breakdown: t.cycles.as_ref().map(|c| Breakdown::new(c, run.work_split.as_ref())),
            breakdown_per_thread: per_thread_breakdowns(stats, &splits_per_thread),
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
