//! `summary.csv` and `summary.md`: one row per (experiment, input, app,
//! spec, threads) of `runs.jsonl` with medians and min–max, computed from the
//! file itself so that resumed and interrupted sessions summarise every run
//! on disk.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
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

/// One summary row.
struct Row {
    key: RunKey,
    runs: usize,
    failed: usize,
    time: Option<(f64, f64, f64)>,
    tasks: Option<f64>,
    work_increase: Option<f64>,
    speedup: Option<f64>,
    vs_seq: Option<f64>,
    empty_pops: Option<f64>,
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
max_time_s,median_tasks,work_increase,speedup,vs_seq,empty_pops,cycles_good,cycles_useless,cycles_task,\
cycles_enq,cycles_deq,cycles_failed_deq,cycles_other,cycles_total";

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    Some(if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 })
}

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
            let col = |k: &str| median(ok.iter().filter_map(|v| v.get(k).and_then(Value::as_f64)).collect());
            let times: Vec<f64> = ok.iter().filter_map(|v| v["time_s"].as_f64()).collect();
            let time = median(times.clone()).map(|m| {
                (
                    m,
                    times.iter().copied().fold(f64::INFINITY, f64::min),
                    times.iter().copied().fold(0.0, f64::max),
                )
            });
            let mut breakdown = BTreeMap::new();
            for class in BREAKDOWN {
                let xs = ok.iter().filter_map(|v| v.get("breakdown")?.get(class)?.as_f64()).collect();
                if let Some(m) = median(xs) {
                    breakdown.insert(class, m);
                }
            }
            Row {
                runs: all.len(),
                failed: all.len() - ok.len(),
                time,
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
            Some(((k.experiment.clone(), k.input.clone(), k.app.clone(), k.spec.clone()), r.time?.0))
        })
        .collect();
    for r in &mut rows {
        let k = &r.key;
        let base = one_thread.get(&(k.experiment.clone(), k.input.clone(), k.app.clone(), k.spec.clone()));
        r.speedup = match (base, r.time) {
            (Some(&b), Some((t, _, _))) if t > 0.0 => Some(b / t),
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
        num(r.time.map(|t| t.0)),
        num(r.time.map(|t| t.1)),
        num(r.time.map(|t| t.2)),
        num(r.tasks),
        num(r.work_increase),
        num(r.speedup),
        num(r.vs_seq),
        num(r.empty_pops),
    ];
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
    std::fs::write(&path, csv).with_context(|| format!("cannot write {}", path.display()))?;

    let mut md = String::from("# Benchmark summary\n\n");
    let _ = writeln!(
        md,
        "Medians over the verified runs of `runs.jsonl` ({} runs; min–max in brackets). speedup = median \
         time of the same spec on 1 thread / this median; vs_seq = sequential reference time / time.\n",
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
        let mut head = "| input | app | spec | threads | time_s (min–max) | tasks | work_increase | speedup | vs_seq | empty_pops |"
            .to_string();
        if with_cycles {
            head.push_str(" task | enq | deq | failed_deq | other | useless |");
        }
        let _ = writeln!(md, "{head}");
        let _ = writeln!(md, "|{}", "---|".repeat(head.matches('|').count() - 1));
        for r in list {
            let k = &r.key;
            let time = match r.time {
                Some((m, lo, hi)) => format!("{m:.4} ({lo:.4}–{hi:.4})"),
                None => "—".into(),
            };
            let time = if r.failed > 0 { format!("{time} **{} failed**", r.failed) } else { time };
            let f2 = |x: Option<f64>| x.map_or("—".into(), |v| format!("{v:.3}"));
            let mut line = format!(
                "| {} | {} | `{}` | {} | {time} | {} | {} | {} | {} | {} |",
                k.input,
                k.app,
                k.spec,
                k.threads,
                num(r.tasks),
                f2(r.work_increase),
                f2(r.speedup),
                f2(r.vs_seq),
                num(r.empty_pops)
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
    std::fs::write(&path, md).with_context(|| format!("cannot write {}", path.display()))?;
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
        assert_eq!(rows[0].time, Some((5.0, 4.0, 6.0)));
        assert_eq!((rows[1].runs, rows[1].failed), (3, 1));
        assert_eq!(rows[1].time.unwrap().0, 2.5, "the failed run's time is not in the median");
        assert_eq!(rows[1].speedup, Some(2.0));
        assert_eq!(rows[2].speedup, None, "no 1-thread run of strict");
        assert_eq!(csv_field("obim:delta=2,chunk=64"), "\"obim:delta=2,chunk=64\"");
        assert_eq!(cells(&rows[2]).len(), CSV_HEADER.split(',').count());
    }
}
