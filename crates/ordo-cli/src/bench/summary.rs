//! `summary.csv` and `summary.md`: one row per (experiment, input, app,
//! spec, threads) of `runs.jsonl` with medians and min–max, computed from the
//! file itself so that resumed and interrupted sessions summarise every run
//! on disk.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use ordo_algos::app::stats::{self, Spread};
use serde_json::Value;

/// The key of one run in `runs.jsonl`: what `--resume` matches on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RunKey {
    pub(crate) experiment: String,
    pub(crate) input: String,
    pub(crate) app: String,
    pub(crate) spec: String,
    pub(crate) threads: usize,
    pub(crate) rep: u32,
}

impl RunKey {
    fn from_line(v: &Value) -> Option<RunKey> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(RunKey {
            experiment: s("experiment")?,
            input: s("input")?,
            app: s("app")?,
            spec: s("spec")?,
            threads: usize::try_from(v.get("threads")?.as_u64()?).ok()?,
            rep: u32::try_from(v.get("rep")?.as_u64()?).ok()?,
        })
    }
}

/// The parsed lines of `runs.jsonl`; lines that do not parse (a run cut
/// short by a kill) are counted and skipped.
pub(crate) struct RunsFile {
    /// Parsed objects, in file order.
    pub(crate) lines: Vec<Value>,
    /// Lines that were not JSON objects with the key fields.
    pub(crate) bad_lines: usize,
}

impl RunsFile {
    /// Reads `path`; a missing file is empty.
    pub(crate) fn read(path: &Path) -> anyhow::Result<RunsFile> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let mut lines = Vec::new();
        let mut bad_lines = 0;
        for l in text.lines().filter(|l| !l.trim().is_empty()) {
            match serde_json::from_str::<Value>(l) {
                Ok(v) if RunKey::from_line(&v).is_some() => lines.push(v),
                _ => bad_lines += 1,
            }
        }
        Ok(RunsFile { lines, bad_lines })
    }

    /// The keys of every recorded run (failed ones included).
    pub(crate) fn keys(&self) -> HashSet<RunKey> {
        self.lines.iter().filter_map(RunKey::from_line).collect()
    }
}

/// One summary row: median with min and max of each measure over the
/// row's runs that did not fail (median as `ordo_algos::app::stats`
/// defines it: the lower median, always a measured value).
struct Row {
    key: RunKey,
    runs: usize,
    failed: usize,
    time: Option<Spread>,
    tasks: Option<Spread>,
    work_increase: Option<Spread>,
    speedup: Option<f64>,
    vs_seq: Option<Spread>,
    empty_pops: Option<Spread>,
    breakdown: BTreeMap<&'static str, f64>,
}

/// The breakdown classes summarised (medians over the runs that have them).
const BREAKDOWN: [&str; 8] = [
    "cycles_good",
    "cycles_useless",
    "cycles_task",
    "cycles_enq",
    "cycles_deq",
    "cycles_failed_deq",
    "cycles_other",
    "cycles_total",
];

/// The CSV header (also the column order of the Markdown table).
pub(crate) const CSV_HEADER: &str = "experiment,input,app,spec,threads,runs,failed,median_time_s,min_time_s,\
max_time_s,median_tasks,min_tasks,max_tasks,work_increase,min_work_increase,max_work_increase,speedup,vs_seq,\
min_vs_seq,max_vs_seq,empty_pops,cycles_good,cycles_useless,cycles_task,cycles_enq,cycles_deq,\
cycles_failed_deq,cycles_other,cycles_total";

fn failed(v: &Value) -> bool {
    v.get("error").is_some_and(|e| !e.is_null()) || v.get("time_s").and_then(Value::as_f64).is_none()
}

fn rows(runs: &RunsFile) -> Vec<Row> {
    // Group in order of first appearance.
    let mut order: Vec<RunKey> = Vec::new();
    let mut groups: HashMap<RunKey, Vec<&Value>> = HashMap::new();
    for v in &runs.lines {
        let mut k = RunKey::from_line(v).expect("RunsFile keeps only lines with keys");
        k.rep = 0;
        if !groups.contains_key(&k) {
            order.push(k.clone());
        }
        groups.entry(k).or_default().push(v);
    }
    let mut rows: Vec<Row> = order
        .into_iter()
        .map(|key| {
            let all = &groups[&key];
            let ok: Vec<&&Value> = all.iter().filter(|v| !failed(v)).collect();
            let col = |k: &str| stats::spread(ok.iter().filter_map(|v| v.get(k).and_then(Value::as_f64)));
            let mut breakdown = BTreeMap::new();
            for class in BREAKDOWN {
                let xs = ok.iter().filter_map(|v| v.get("breakdown")?.get(class)?.as_f64());
                if let Some(m) = stats::median(xs) {
                    breakdown.insert(class, m);
                }
            }
            Row {
                runs: all.len(),
                failed: all.len() - ok.len(),
                time: col("time_s"),
                tasks: col("tasks"),
                work_increase: col("work_increase"),
                speedup: None,
                vs_seq: col("vs_seq"),
                empty_pops: col("empty_pops"),
                breakdown,
                key,
            }
        })
        .collect();
    // speedup = median time of the same spec on 1 thread / this median.
    let one_thread: HashMap<(String, String, String, String), f64> = rows
        .iter()
        .filter(|r| r.key.threads == 1)
        .filter_map(|r| {
            let k = &r.key;
            Some(((k.experiment.clone(), k.input.clone(), k.app.clone(), k.spec.clone()), r.time?.median))
        })
        .collect();
    for r in &mut rows {
        let k = &r.key;
        let base = one_thread.get(&(k.experiment.clone(), k.input.clone(), k.app.clone(), k.spec.clone()));
        r.speedup = match (base, r.time) {
            (Some(&b), Some(t)) if t.median > 0.0 => Some(b / t.median),
            _ => None,
        };
    }
    rows
}

fn num(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| {
        if v.fract() == 0.0 && v.abs() < 1e15 {
            format!("{v:.0}")
        } else {
            format!("{v:.6}")
        }
    })
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn cells(r: &Row) -> Vec<String> {
    let k = &r.key;
    let mut c = vec![
        k.experiment.clone(),
        k.input.clone(),
        k.app.clone(),
        k.spec.clone(),
        k.threads.to_string(),
        r.runs.to_string(),
        r.failed.to_string(),
    ];
    for (spread, with_speedup) in
        [(r.time, false), (r.tasks, false), (r.work_increase, true), (r.vs_seq, false)]
    {
        c.extend([num(spread.map(|s| s.median)), num(spread.map(|s| s.min)), num(spread.map(|s| s.max))]);
        if with_speedup {
            c.push(num(r.speedup));
        }
    }
    c.push(num(r.empty_pops.map(|s| s.median)));
    c.extend(BREAKDOWN.iter().map(|b| num(r.breakdown.get(b).copied())));
    c
}

/// Writes `summary.csv` and `summary.md` in `dir` from `dir/runs.jsonl`;
/// returns the number of rows.
pub(crate) fn write(dir: &Path) -> anyhow::Result<usize> {
    let runs = RunsFile::read(&dir.join("runs.jsonl"))?;
    let rows = rows(&runs);
    let mut csv = String::from(CSV_HEADER);
    csv.push('\n');
    for r in &rows {
        csv.push_str(&cells(r).iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        csv.push('\n');
    }
    let path = dir.join("summary.csv");
    crate::output::write_text(&path, csv)?;

    let mut md = String::from("# Benchmark summary\n\n");
    let _ = writeln!(
        md,
        "Medians over the verified runs of `runs.jsonl` ({} runs; median = the lower median, a measured \
         value; min–max in brackets). speedup = median time of the same spec on 1 thread / this median; \
         vs_seq = sequential reference time / time.\n",
        runs.lines.len()
    );
    let mut by_experiment: Vec<(&str, Vec<&Row>)> = Vec::new();
    for r in &rows {
        match by_experiment.iter_mut().find(|(e, _)| *e == r.key.experiment) {
            Some((_, list)) => list.push(r),
            None => by_experiment.push((&r.key.experiment, vec![r])),
        }
    }
    for (experiment, list) in by_experiment {
        let with_cycles = list.iter().any(|r| !r.breakdown.is_empty());
        let _ = writeln!(md, "## {experiment}\n");
        let mut head = "| input | app | spec | threads | time_s (min–max) | tasks (min–max) | work_increase (min–max) | speedup | vs_seq (min–max) | empty_pops |"
            .to_string();
        if with_cycles {
            head.push_str(" task | enq | deq | failed_deq | other | useless |");
        }
        let _ = writeln!(md, "{head}");
        let _ = writeln!(md, "|{}", "---|".repeat(head.matches('|').count() - 1));
        for r in list {
            let k = &r.key;
            let spread = |s: Option<Spread>, f: fn(f64) -> String| match s {
                Some(s) if s.min == s.max => f(s.median),
                Some(s) => format!("{} ({}–{})", f(s.median), f(s.min), f(s.max)),
                None => "—".into(),
            };
            let time = spread(r.time, |x| format!("{x:.4}"));
            let time = if r.failed > 0 { format!("{time} **{} failed**", r.failed) } else { time };
            let f3 = |x: f64| format!("{x:.3}");
            let mut line = format!(
                "| {} | {} | `{}` | {} | {time} | {} | {} | {} | {} | {} |",
                k.input,
                k.app,
                k.spec,
                k.threads,
                spread(r.tasks, |x| num(Some(x))),
                spread(r.work_increase, f3),
                r.speedup.map_or("—".into(), f3),
                spread(r.vs_seq, f3),
                num(r.empty_pops.map(|s| s.median))
            );
            if with_cycles {
                // Fractions of the total cycles, as in the PMOD paper's Figure 6.
                let total = r.breakdown.get("cycles_total").copied().filter(|t| *t > 0.0);
                for class in [
                    "cycles_task",
                    "cycles_enq",
                    "cycles_deq",
                    "cycles_failed_deq",
                    "cycles_other",
                    "cycles_useless",
                ] {
                    let frac = total.and_then(|t| r.breakdown.get(class).map(|c| c / t));
                    let _ = write!(line, " {} |", frac.map_or("—".into(), |f| format!("{:.1}%", 100.0 * f)));
                }
            }
            let _ = writeln!(md, "{line}");
        }
        md.push('\n');
    }
    let path = dir.join("summary.md");
    crate::output::write_text(&path, md)?;
    Ok(rows.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(spec: &str, threads: usize, rep: u32, time: f64) -> Value {
        json!({"experiment": "e", "input": "g", "app": "sssp", "spec": spec, "threads": threads,
               "rep": rep, "time_s": time, "tasks": 10, "work_increase": 1.0, "vs_seq": 0.5,
               "empty_pops": 3, "verified": true})
    }

    #[test]
    fn medians_speedup_and_failures() {
        let mut failed = line("fifo", 2, 2, 100.0);
        failed["verified"] = json!(false);
        failed["error"] = json!("differs");
        let runs = RunsFile {
            lines: vec![
                line("fifo", 1, 0, 4.0),
                line("fifo", 1, 1, 6.0),
                line("fifo", 1, 2, 5.0),
                line("fifo", 2, 0, 2.0),
                line("fifo", 2, 1, 3.0),
                failed,
                line("strict", 2, 0, 1.0),
            ],
            bad_lines: 0,
        };
        let rows = rows(&runs);
        assert_eq!(rows.len(), 3);
        let t = rows[0].time.unwrap();
        assert_eq!((t.median, t.min, t.max), (5.0, 4.0, 6.0));
        assert_eq!((rows[1].runs, rows[1].failed), (3, 1));
        let t = rows[1].time.unwrap();
        assert_eq!(
            (t.median, t.count),
            (2.0, 2),
            "the failed run's time is not in the median (lower median)"
        );
        assert_eq!(rows[1].speedup, Some(2.5));
        assert_eq!(rows[2].speedup, None, "no 1-thread run of strict");
        assert_eq!(csv_field("obim:delta=2,chunk=64"), "\"obim:delta=2,chunk=64\"");
        assert_eq!(cells(&rows[2]).len(), CSV_HEADER.split(',').count());
    }
}
