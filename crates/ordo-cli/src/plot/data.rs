//! Reading `runs.jsonl` (written by `ordo bench`) into typed runs, and the
//! aggregations the plots share: medians over repetitions, grouping by
//! (app, input), and the Table 5 summary of the PMOD paper (§6.3.1).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context};
use serde_json::{Map, Value};

/// One measured run, the fields the plots use (unknown keys are ignored).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    /// The plan's experiment name (empty when absent).
    pub(crate) experiment: String,
    /// The input (file path or generator spec).
    pub(crate) input: String,
    /// The application (`sssp`, `bfs`, ...).
    pub(crate) app: String,
    /// The scheduler spec as written in the plan, sweep expanded: the
    /// "scheduler" of every plot and of Table 5.
    pub(crate) spec: String,
    /// The sweep variables of this run (empty outside sweeps), values as text.
    pub(crate) sweep: BTreeMap<String, String>,
    /// Worker threads.
    pub(crate) threads: usize,
    /// Wall time of the parallel phase.
    pub(crate) time_s: f64,
    /// Tasks / tasks of the exact-order baseline.
    pub(crate) work_increase: Option<f64>,
    /// Sequential reference time / time.
    pub(crate) vs_seq: Option<f64>,
    /// Traces by name: (x label, points).
    pub(crate) traces: BTreeMap<String, (String, Vec<(f64, f64)>)>,
    /// Cycle breakdown by measure name (`cycles_task`, ...); null values
    /// are left out.
    pub(crate) breakdown: Option<BTreeMap<String, f64>>,
}

/// The runs of a results directory and what was skipped.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    /// The usable runs, in file order.
    pub(crate) runs: Vec<Run>,
    /// Lines skipped because the run failed (`"verified": false` or an
    /// `error` key).
    pub(crate) failed: usize,
    /// A final line cut short (an interrupted bench), skipped.
    pub(crate) truncated_last_line: bool,
    /// Simulated runs (`ordo sim`), set aside for [`super::sim`].
    pub(crate) simulated: usize,
}

/// Reads `path` (a `runs.jsonl`). A malformed line is an error naming the
/// file and line, except a final line without its newline (an interrupted
/// writer), which is skipped and reported in [`Runs::truncated_last_line`].
pub(crate) fn read_runs(path: &Path) -> anyhow::Result<Runs> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let mut out = Runs::default();
    let lines: Vec<&str> = text.split('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let is_unterminated_last = i + 1 == lines.len();
        let at = || format!("{}:{}", path.display(), i + 1);
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(_) if is_unterminated_last => {
                out.truncated_last_line = true;
                continue;
            }
            Err(e) => bail!("{}: not a JSON object: {e}", at()),
        };
        let Value::Object(obj) = value else { bail!("{}: not a JSON object", at()) };
        if super::sim::is_sim_record(&obj) {
            out.simulated += 1;
            continue;
        }
        if obj.contains_key("error") || obj.get("verified") == Some(&Value::Bool(false)) {
            out.failed += 1;
            continue;
        }
        out.runs.push(parse_run(&obj).with_context(at)?);
    }
    Ok(out)
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn required<'a>(obj: &'a Map<String, Value>, key: &str) -> anyhow::Result<&'a Value> {
    obj.get(key).filter(|v| !v.is_null()).with_context(|| format!("missing field `{key}`"))
}

fn opt_f64(obj: &Map<String, Value>, key: &str) -> Option<f64> {
    obj.get(key).and_then(Value::as_f64).filter(|v| v.is_finite())
}

fn parse_run(obj: &Map<String, Value>) -> anyhow::Result<Run> {
    let string = |key: &str| -> anyhow::Result<String> { Ok(text_of(required(obj, key)?)) };
    let threads = required(obj, "threads")?
        .as_u64()
        .filter(|&t| t > 0)
        .context("field `threads`: expected a positive integer")? as usize;
    let time_s = required(obj, "time_s")?
        .as_f64()
        .filter(|t| t.is_finite() && *t > 0.0)
        .context("field `time_s`: expected a positive number")?;
    // `spec` is the plan's spelling; fall back on the full `scheduler`.
    let spec = match obj.get("spec").filter(|v| !v.is_null()) {
        Some(v) => text_of(v),
        None => string("scheduler").context("neither `spec` nor `scheduler` given")?,
    };
    let sweep = match obj.get("sweep") {
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (k.clone(), text_of(v))).collect(),
        _ => BTreeMap::new(),
    };
    let mut traces = BTreeMap::new();
    if let Some(Value::Object(m)) = obj.get("traces") {
        for (name, t) in m {
            let x_label = t.get("x_label").map(text_of).unwrap_or_else(|| "x".to_string());
            let points: Vec<(f64, f64)> = t
                .get("points")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            let p = p.as_array()?;
                            Some((p.first()?.as_f64()?, p.get(1)?.as_f64()?))
                        })
                        .collect()
                })
                .unwrap_or_default();
            if !points.is_empty() {
                traces.insert(name.clone(), (x_label, points));
            }
        }
    }
    let breakdown = match obj.get("breakdown") {
        Some(Value::Object(m)) => Some(
            m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_f64().filter(|x| x.is_finite())?))).collect(),
        ),
        _ => None,
    };
    Ok(Run {
        experiment: obj.get("experiment").map(text_of).unwrap_or_default(),
        input: string("input")?,
        app: string("app")?,
        spec,
        sweep,
        threads,
        time_s,
        work_increase: opt_f64(obj, "work_increase"),
        vs_seq: opt_f64(obj, "vs_seq"),
        traces,
        breakdown,
    })
}

/// The runs whose times the time-based plots and Table 5 use: a run measured
/// with cycle timing (it has a `breakdown`) is slower by the timing itself,
/// so it is left out wherever the same (app, input, spec, threads) also has
/// runs without it.
pub(crate) fn timing_runs(runs: &[Run]) -> Vec<Run> {
    let untimed: BTreeSet<(&str, &str, &str, usize)> = runs
        .iter()
        .filter(|r| r.breakdown.is_none())
        .map(|r| (r.app.as_str(), r.input.as_str(), r.spec.as_str(), r.threads))
        .collect();
    runs.iter()
        .filter(|r| {
            r.breakdown.is_none()
                || !untimed.contains(&(r.app.as_str(), r.input.as_str(), r.spec.as_str(), r.threads))
        })
        .cloned()
        .collect()
}

pub(crate) use ordo_algos::app::stats::median;

/// The run whose time is the median one (`ordo_algos::app::stats`: the
/// lower median), so that its other measures belong to one real run.
pub(crate) fn median_run<'a>(runs: &[&'a Run]) -> Option<&'a Run> {
    let times: Vec<f64> = runs.iter().map(|r| r.time_s).collect();
    ordo_algos::app::stats::median_index(&times).map(|i| runs[i])
}

/// An (app, input) pair: the unit of most plots and of Table 5.
pub(crate) type Case = (String, String);

/// The runs of each (app, input).
pub(crate) fn by_case(runs: &[Run]) -> BTreeMap<Case, Vec<&Run>> {
    let mut m: BTreeMap<Case, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        m.entry((r.app.clone(), r.input.clone())).or_default().push(r);
    }
    m
}

/// The runs of one case that the scheduler-comparison plots (speedup,
/// breakdown, work increase) use: those outside parameter sweeps, or all of
/// them when the case has only sweep runs.
pub(crate) fn comparison_runs<'a>(runs: &[&'a Run]) -> Vec<&'a Run> {
    let plain: Vec<&Run> = runs.iter().copied().filter(|r| r.sweep.is_empty()).collect();
    if plain.is_empty() {
        runs.to_vec()
    } else {
        plain
    }
}

/// Specs in first-appearance order (stable colours and legend order).
pub(crate) fn specs_in_order(runs: &[&Run]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    runs.iter().filter(|r| seen.insert(r.spec.clone())).map(|r| r.spec.clone()).collect()
}

/// The median time of each (spec, threads) among `runs`.
pub(crate) fn median_times(runs: &[&Run]) -> BTreeMap<(String, usize), f64> {
    let mut times: BTreeMap<(String, usize), Vec<f64>> = BTreeMap::new();
    for r in runs {
        times.entry((r.spec.clone(), r.threads)).or_default().push(r.time_s);
    }
    times.into_iter().filter_map(|(k, v)| Some((k, median(v)?))).collect()
}

/// One scheduler's line of the Table 5 summary.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table5Row {
    /// The spec.
    pub(crate) spec: String,
    /// Geometric mean over the cases it ran of (best median time / its
    /// median time), at each case's largest thread count.
    pub(crate) geomean_vs_best: f64,
    /// Geometric mean over the same cases of its speedup over itself on one
    /// thread, when every case has a one-thread run.
    pub(crate) geomean_speedup: Option<f64>,
    /// Cases it ran at the largest thread count.
    pub(crate) cases: usize,
}

/// Table 5 and the per-case ratios it is made of.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Table5 {
    /// Rows, best first.
    pub(crate) rows: Vec<Table5Row>,
    /// Per case: the thread count used, the best spec, and each spec's
    /// ratio best/its.
    pub(crate) per_case: Vec<(Case, usize, String, BTreeMap<String, f64>)>,
}

/// The Table 5 summary of the PMOD paper (§6.3.1), on these runs: for each
/// case (app, input), take its largest thread count and every spec's median
/// time there; the best spec has the lowest. A spec's score is the geometric
/// mean over the cases it ran of (best time / its time): 1 means it was the
/// best everywhere. Every distinct spec string is a scheduler here, so the
/// members of a sweep (`obim:delta=2`, `obim:delta=4`) are separate rows.
pub(crate) fn table5(runs: &[Run]) -> Table5 {
    let mut ratios: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut speedups: BTreeMap<String, Vec<Option<f64>>> = BTreeMap::new();
    let mut per_case = Vec::new();
    for (case, case_runs) in by_case(runs) {
        let Some(max_threads) = case_runs.iter().map(|r| r.threads).max() else { continue };
        let medians = median_times(&case_runs);
        let at_max: BTreeMap<&str, f64> = medians
            .iter()
            .filter(|((_, t), _)| *t == max_threads)
            .map(|((s, _), &m)| (s.as_str(), m))
            .collect();
        let Some((best_spec, best)) = at_max.iter().min_by(|a, b| a.1.total_cmp(b.1)).map(|(s, &m)| (*s, m))
        else {
            continue;
        };
        let mut case_ratios = BTreeMap::new();
        for (&spec, &m) in &at_max {
            let ratio = best / m;
            ratios.entry(spec.to_string()).or_default().push(ratio);
            let one = medians.get(&(spec.to_string(), 1)).map(|t1| t1 / m);
            speedups.entry(spec.to_string()).or_default().push(one);
            case_ratios.insert(spec.to_string(), ratio);
        }
        per_case.push((case, max_threads, best_spec.to_string(), case_ratios));
    }
    let geomean = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let mut rows: Vec<Table5Row> = ratios
        .into_iter()
        .map(|(spec, r)| {
            let s: Option<Vec<f64>> = speedups[&spec].iter().copied().collect();
            Table5Row {
                geomean_vs_best: geomean(&r),
                geomean_speedup: s.map(|s| geomean(&s)),
                cases: r.len(),
                spec,
            }
        })
        .collect();
    rows.sort_by(|a, b| b.geomean_vs_best.total_cmp(&a.geomean_vs_best).then_with(|| a.spec.cmp(&b.spec)));
    Table5 { rows, per_case }
}

/// Table 5 as Markdown: the summary, then the per-case ratios.
pub(crate) fn table5_markdown(t: &Table5) -> String {
    let mut s = String::from(
        "# Table 5 analogue: how close each scheduler is to the best one\n\n\
         For each (app, input) at its largest thread count, every scheduler's median time is compared \
         with the best scheduler's: `best / its` (1 = the best). The score is the geometric mean of \
         that ratio over the (app, input) pairs the scheduler ran (PMOD paper, §6.3.1, Table 5). \
         A scheduler is a spec string, so sweep members (e.g. `obim:delta=4`) are separate rows. \
         `speedup` is the geometric mean of its speedup over itself on 1 thread (when measured).\n\n\
         | scheduler | geomean best/its | cases | geomean speedup |\n|---|---:|---:|---:|\n",
    );
    for r in &t.rows {
        let speedup = r.geomean_speedup.map_or("–".to_string(), |v| format!("{v:.3}"));
        s.push_str(&format!("| `{}` | {:.9} | {} | {} |\n", r.spec, r.geomean_vs_best, r.cases, speedup));
    }
    s.push_str("\n## Per (app, input)\n\n| app | input | threads | best | ratios best/its |\n|---|---|---:|---|---|\n");
    for ((app, input), threads, best, ratios) in &t.per_case {
        let mut list: Vec<(&String, &f64)> = ratios.iter().collect();
        list.sort_by(|a, b| b.1.total_cmp(a.1));
        let list: Vec<String> = list.iter().map(|(s, r)| format!("`{s}` {r:.4}")).collect();
        s.push_str(&format!("| {app} | {input} | {threads} | `{best}` | {} |\n", list.join(", ")));
    }
    s
}

/// A sweep value's sort key: numbers (and fractions like `1/8`) by value,
/// anything else after them by text.
pub(crate) fn sweep_value_key(v: &str) -> (u8, f64, String) {
    let num = match v.split_once('/') {
        Some((a, b)) => a.trim().parse::<f64>().ok().zip(b.trim().parse::<f64>().ok()).map(|(a, b)| a / b),
        None => v.trim().parse::<f64>().ok(),
    };
    match num {
        Some(x) if x.is_finite() => (0, x, v.to_string()),
        _ => (1, 0.0, v.to_string()),
    }
}

/// Sorts sweep values with [`sweep_value_key`] and removes duplicates.
pub(crate) fn sorted_values(values: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = values.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
    v.sort_by(|a, b| {
        let (ka, kb) = (sweep_value_key(a), sweep_value_key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then_with(|| ka.2.cmp(&kb.2))
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(app: &str, input: &str, spec: &str, threads: usize, time_s: f64) -> Run {
        Run {
            experiment: "e".into(),
            input: input.into(),
            app: app.into(),
            spec: spec.into(),
            sweep: BTreeMap::new(),
            threads,
            time_s,
            work_increase: None,
            vs_seq: None,
            traces: BTreeMap::new(),
            breakdown: None,
        }
    }

    #[test]
    fn median_is_the_shared_lower_median() {
        assert_eq!(median([3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median([4.0, 1.0, 2.0, 3.0]), Some(2.0));
        assert_eq!(median(Vec::<f64>::new()), None);
    }

    #[test]
    fn table5_uses_largest_threads_and_geomean() {
        // Case A at 2 threads: x 1.0, y 2.0 (x best). Case B: x 3.0, y 1.5 (y best).
        // 1-thread runs must not count for the ratio.
        let runs = vec![
            run("sssp", "A", "x", 2, 1.0),
            run("sssp", "A", "y", 2, 2.0),
            run("sssp", "A", "y", 1, 0.1),
            run("sssp", "B", "x", 2, 3.0),
            run("sssp", "B", "y", 2, 1.5),
        ];
        let t = table5(&runs);
        let x = t.rows.iter().find(|r| r.spec == "x").unwrap();
        let y = t.rows.iter().find(|r| r.spec == "y").unwrap();
        assert!((x.geomean_vs_best - (1.0f64 * 0.5).sqrt()).abs() < 1e-12);
        assert!((y.geomean_vs_best - (0.5f64 * 1.0).sqrt()).abs() < 1e-12);
        assert_eq!(x.geomean_speedup, None);
        assert_eq!(t.per_case.len(), 2);
        assert_eq!(t.per_case[0].2, "x");
        assert_eq!(t.per_case[1].2, "y");
    }

    #[test]
    fn cycle_timed_runs_yield_to_untimed_ones() {
        let mut timed = run("sssp", "A", "x", 2, 9.0);
        timed.breakdown = Some(BTreeMap::from([("cycles_task".to_string(), 1.0)]));
        let mut only_timed = run("sssp", "A", "y", 2, 5.0);
        only_timed.breakdown = timed.breakdown.clone();
        let plain = run("sssp", "A", "x", 2, 1.0);
        let kept = timing_runs(&[timed, plain.clone(), only_timed.clone()]);
        assert_eq!(kept, vec![plain, only_timed]);
    }

    #[test]
    fn sweep_values_sort_numerically() {
        let v = sorted_values(["1/2", "10", "2", "1/8", "abc", "0.3"].map(String::from));
        assert_eq!(v, ["1/8", "0.3", "1/2", "2", "10", "abc"]);
    }
}
