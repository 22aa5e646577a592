//! The report of a run: one record with the measures every front end
//! prints (`ordo run`'s text block and its `--json` object, the lines of
//! `ordo bench`, the `stats` dict of the Python package).
//!
//! # Measures
//! `time_s` (wall time of the parallel phase, loading excluded), `tasks`,
//! `work_increase` (tasks / tasks of the exact-order execution), `vs_seq`
//! (sequential reference time / time), the executor's counters and the
//! scheduler's counters and traces. Applications not run by the `for_each`
//! executor report `null` for the executor's fields.
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

use super::{stats, Fields, RefRun, Run};
use crate::work_split::WorkSplit;

/// A traced scheduler parameter (e.g. PMOD's lmf) in the JSON output.
#[derive(Clone, Debug, Serialize)]
pub struct TraceOut {
    /// What the x coordinate counts (e.g. `dequeues`).
    pub x_label: String,
    /// `[x, value]` at each change, starting with the initial value.
    pub points: Vec<(u64, u64)>,
}

/// One thread's (or all threads') time in the classes of Table 1 of the
/// PMOD paper, plus the cost per Enq and per Deq (Figure 7). The JSON keys
/// are a fixed schema: see the module docs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Breakdown {
    /// Operator cycles of every task.
    pub cycles_task: u64,
    /// Operator cycles of the good tasks (`None` unless classified).
    pub cycles_good: Option<u64>,
    /// Operator cycles of the useless tasks (`None` unless classified).
    pub cycles_useless: Option<u64>,
    /// Enq cycles.
    pub cycles_enq: u64,
    /// Successful Deq cycles.
    pub cycles_deq: u64,
    /// Failed Deq cycles.
    pub cycles_failed_deq: u64,
    /// Everything else.
    pub cycles_other: u64,
    /// The sum of the five measured classes.
    pub cycles_total: u64,
    /// Cycles per Enq operation (`None` without any).
    pub cycles_per_enq: Option<f64>,
    /// Cycles per successful Deq (`None` without any).
    pub cycles_per_deq: Option<f64>,
    /// Enq operations timed.
    pub enq_ops: u64,
    /// Successful Deq operations timed.
    pub deq_ops: u64,
}

impl Breakdown {
    /// The breakdown of `cycles`, with the good / useless split when known.
    pub fn new(cycles: &CycleBreakdown, split: Option<&WorkSplit>) -> Breakdown {
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

/// Everything reported about one configuration's runs. Field names are the
/// measure names shared by `ordo run`, `ordo bench`, the plots and Python.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The application (`sssp`, `bfs`, ...).
    pub app: String,
    /// The input: a file path or a generator spec, with the load options.
    pub graph: String,
    /// Vertices.
    pub n: usize,
    /// Directed edges.
    pub m: usize,
    /// The full strategy (for priority apps the scheduler spec), every
    /// parameter included.
    pub scheduler: String,
    /// Worker threads.
    pub threads: usize,
    /// The application's parameters as resolved on this input (e.g.
    /// `source`), flattened into the JSON object.
    #[serde(flatten)]
    pub params: Fields,
    /// Wall time of the parallel phase, graph loading excluded: the median
    /// over the runs (`crate::app::stats`).
    pub time_s: f64,
    /// Tasks executed (`null` for applications not run by `for_each`).
    pub tasks: Option<u64>,
    /// `tasks` / tasks of the exact-order baseline (for SSSP and BFS: the
    /// vertices reached from the source). `null` when unknown without the
    /// reference.
    pub work_increase: Option<f64>,
    /// Pops that found nothing.
    pub empty_pops: Option<u64>,
    /// Tasks whose vertex had already been improved when they ran.
    pub stale_tasks: Option<u64>,
    /// Tasks pushed (the initial ones included).
    pub pushes: Option<u64>,
    /// Successful pops.
    pub pops: Option<u64>,
    /// Times an idle worker scanned the scheduler for work (executor).
    pub idle_scans: Option<u64>,
    /// Times an idle worker parked or waited for a scan permit (executor).
    pub parks: Option<u64>,
    /// Tasks executed by each worker: shows load imbalance.
    pub tasks_per_thread: Option<Vec<u64>>,
    /// Scheduler counters: per-thread ones summed, then the global ones.
    pub sched_counters: BTreeMap<String, u64>,
    /// Scheduler traces by name.
    pub traces: BTreeMap<String, TraceOut>,
    /// Time of the sequential reference (median), when it ran.
    pub seq_time_s: Option<f64>,
    /// Every run's `time_s` (one entry for a single run); `time_s` is
    /// their median.
    pub times_s: Vec<f64>,
    /// Every reference run's time; `seq_time_s` is their median.
    pub seq_times_s: Vec<f64>,
    /// `seq_time_s / time_s`, when the reference ran.
    pub vs_seq: Option<f64>,
    /// Whether the result was checked against the reference (a failed
    /// check is an error, so this is never reported as false after a check).
    pub verified: bool,
    /// Where the time went, summed over threads (Table 1 classes; module
    /// docs), with cycle timing.
    pub breakdown: Option<Breakdown>,
    /// The same for each thread (index = thread), with cycle timing.
    pub breakdown_per_thread: Option<Vec<Breakdown>>,
    /// Good vs useless work, with the `classify` parameter.
    #[serde(serialize_with = "serialize_work_split")]
    pub work_split: Option<WorkSplit>,
    /// The process's peak resident memory in bytes when the report was made
    /// (`VmHWM`, see [`ordo_graph::memory::peak_resident_bytes`]): loading,
    /// preparing, the reference and every run included; `null` where the
    /// system does not report it.
    pub peak_rss_bytes: Option<u64>,
    /// The application's checksums (SSSP/BFS: `reached`, `max_dist`,
    /// `sum_dist`), flattened into the JSON object.
    #[serde(flatten)]
    pub metrics: Fields,
}

impl RunReport {
    /// Fills the scheduler-side fields from the executor's statistics.
    pub fn stats_fields(stats: &RunStats) -> (BTreeMap<String, u64>, BTreeMap<String, TraceOut>) {
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
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report of numbers and strings always serialises")
    }

    /// The human-readable block: what a user asks of a run (input,
    /// strategy, threads, time, work increase, the result's checksums,
    /// verification and speed against the reference, and the breakdowns
    /// `--cycles` and `--classify` asked for). With `verbose`, also the
    /// executor's and the scheduler's internals: push, pop and stale-task
    /// counts, idle scans, tasks per thread, the scheduler's counters and
    /// traces (all of which `--json` always has).
    pub fn to_text(&self, verbose: bool) -> String {
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
        if let Some(tasks) = self.tasks {
            line("tasks", tasks.to_string());
            line(
                "work increase",
                self.work_increase.map_or("unknown (use --verify)".into(), |w| format!("{w:.4}")),
            );
        }
        if verbose {
            let counts = [
                ("stale tasks", self.stale_tasks),
                ("pushes", self.pushes),
                ("pops", self.pops),
                ("empty pops", self.empty_pops),
            ];
            for (name, count) in counts {
                if let Some(c) = count {
                    line(name, c.to_string());
                }
            }
            if let (Some(scans), Some(parks)) = (self.idle_scans, self.parks) {
                line("idle scans", format!("{scans} ({parks} parks)"));
            }
            if let Some(per_thread) = &self.tasks_per_thread {
                line("tasks/thread", format!("{per_thread:?}"));
            }
            for (k, v) in &self.sched_counters {
                line(&format!("  {k}"), v.to_string());
            }
            for (name, t) in &self.traces {
                line(&format!("{name} trace"), format_trace(t));
            }
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
        if let Some(peak) = self.peak_rss_bytes {
            line(
                "peak memory",
                format!("{} resident (whole process)", ordo_graph::memory::format_bytes(peak)),
            );
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

/// What a report is made of besides the runs: who ran on what.
#[derive(Clone, Debug)]
pub struct ReportHeader {
    /// The application's name.
    pub app: String,
    /// The input's name.
    pub graph: String,
    /// Vertices of the input.
    pub n: usize,
    /// Edges of the input.
    pub m: usize,
    /// The strategy, canonical (every parameter spelled out).
    pub scheduler: String,
    /// Worker threads.
    pub threads: usize,
    /// The application's parameters as resolved.
    pub params: Fields,
}

impl RunReport {
    /// The report of repeated runs of one configuration: the median run's
    /// measures (median as `crate::app::stats` defines it), every run's
    /// time, and the median reference run's time and baseline, when the
    /// reference ran. `verified_metrics` (measures that needed the
    /// reference) are added to the median run's metrics. `runs` must not be
    /// empty.
    pub fn from_runs<O, R>(
        header: ReportHeader,
        runs: &[Run<O>],
        references: &[RefRun<R>],
        verified_metrics: Fields,
    ) -> RunReport {
        let times_s: Vec<f64> = runs.iter().map(|r| r.time_s).collect();
        let run = &runs[stats::median_index(&times_s).expect("a report needs at least one run")];
        let seq_times_s: Vec<f64> = references.iter().map(|r| r.time_s).collect();
        let reference = stats::median_index(&seq_times_s).map(|i| &references[i]);
        let baseline = reference.and_then(|r| r.baseline_tasks).or(run.baseline_tasks);
        let stats = run.stats.as_ref();
        let (counters, traces) = stats.map(RunReport::stats_fields).unwrap_or_default();
        let t = stats.map(|s| &s.total);
        let split = run.work_split_total();
        let mut metrics = run.metrics.clone();
        metrics.extend(verified_metrics);
        RunReport {
            app: header.app,
            graph: header.graph,
            n: header.n,
            m: header.m,
            scheduler: header.scheduler,
            threads: header.threads,
            params: header.params,
            time_s: run.time_s,
            tasks: t.map(|t| t.tasks),
            work_increase: t.zip(baseline).map(|(t, b)| crate::work_increase(t.tasks, b)),
            empty_pops: t.map(|t| t.empty_pops),
            stale_tasks: t.map(|t| t.stale_tasks),
            pushes: t.map(|t| t.pushes),
            pops: t.map(|t| t.pops),
            idle_scans: t.map(|t| t.idle_scans),
            parks: t.map(|t| t.parks),
            tasks_per_thread: stats.map(|s| s.per_thread.iter().map(|p| p.tasks).collect()),
            sched_counters: counters,
            traces,
            seq_time_s: reference.map(|r| r.time_s),
            times_s,
            seq_times_s,
            vs_seq: reference.map(|r| if run.time_s > 0.0 { r.time_s / run.time_s } else { 0.0 }),
            verified: reference.is_some(),
            breakdown: t.and_then(|t| t.cycles.as_ref()).map(|c| Breakdown::new(c, split.as_ref())),
            breakdown_per_thread: stats.and_then(|s| per_thread_breakdowns(s, &run.work_split)),
            work_split: split,
            peak_rss_bytes: ordo_graph::memory::peak_resident_bytes(),
            metrics,
        }
    }
}

/// `value@x` pairs (a step trace's first point is its initial value, each
/// later one a change); long traces show their first and last points.
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
    format!("{} points over {}: {body}", pts.len(), t.x_label)
}
