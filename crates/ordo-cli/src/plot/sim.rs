//! The figures of simulated runs (`ordo sim --json` records, `"kind":
//! "sim"`, in `runs.jsonl`): scheduling quality against virtual threads,
//! per (app, input, interleaving policy), one line per scheduler spec, the
//! x axis in powers of two:
//! - `sim-work-<app>-<input>-<policy>`: work increase (SMQ paper Fig. 2,
//!   bottom row; PMOD paper Fig. 9);
//! - `sim-rank-<app>-<input>-<policy>`: mean rank (solid) and 99th
//!   percentile (dashed, same colour) of the popped tasks;
//! - `sim-invisible-<app>-<input>-<policy>`: the mean fraction of the
//!   pending tasks that sit unpublished in private buffers (PMOD paper O2);
//! - `sim-speedup-<app>-<input>-timed`: for runs timed in cycles (`ordo sim
//!   --costs`, policy `timed`), the simulated time of one virtual thread
//!   over that of N, per spec with a one-thread run.
//!
//! Several records of one (spec, virtual threads) — e.g. several seeds —
//! are reduced to their median. `sim.md` lists the same medians as tables.
//! Tools must not write these records into bench directories by hand
//! without `"kind": "sim"`: the measured-run plots need a `time_s`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context;
use serde_json::{Map, Value};

use super::data::median;
use super::draw::{Chart, Format, Line, LineChart};
use super::Written;

/// Whether a `runs.jsonl` object is a simulated run (they carry no time).
pub(crate) fn is_sim_record(obj: &Map<String, Value>) -> bool {
    obj.get("kind").and_then(Value::as_str) == Some("sim")
}

/// One simulated run, the fields the figures use.
#[derive(Clone, Debug, PartialEq)]
struct SimRun {
    app: String,
    input: String,
    policy: String,
    spec: String,
    vthreads: u64,
    work_increase: f64,
    rank_mean: f64,
    rank_p99: f64,
    unpublished_fraction: Option<f64>,
    touches_per_task: Option<f64>,
    /// Simulated time in microseconds, for runs timed in cycles.
    simulated_us: Option<f64>,
}

fn parse(obj: &Map<String, Value>) -> anyhow::Result<SimRun> {
    let text = |k: &str| -> anyhow::Result<String> {
        let v = obj.get(k).with_context(|| format!("missing field `{k}`"))?;
        Ok(v.as_str().map_or_else(|| v.to_string(), str::to_string))
    };
    let num = |k: &str| -> anyhow::Result<f64> {
        obj.get(k)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite())
            .with_context(|| format!("field `{k}`: expected a number"))
    };
    let vthreads = obj
        .get("vthreads")
        .and_then(Value::as_u64)
        .filter(|&v| v > 0)
        .context("field `vthreads`: expected a positive integer")?;
    Ok(SimRun {
        app: text("app")?,
        input: text("input")?,
        policy: text("policy").unwrap_or_else(|_| "round-robin".into()),
        spec: text("spec").or_else(|_| text("scheduler"))?,
        vthreads,
        work_increase: num("work_increase")?,
        rank_mean: num("rank_mean")?,
        rank_p99: num("rank_p99")?,
        unpublished_fraction: num("unpublished_fraction_mean").ok(),
        touches_per_task: num("shared_touches_per_task").ok(),
        simulated_us: num("simulated_us").ok(),
    })
}

/// Reads the simulated runs of `path`; a malformed one is an error naming
/// the line (a final line cut short is skipped, as for measured runs).
fn read(path: &Path) -> anyhow::Result<Vec<SimRun>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    let lines: Vec<&str> = text.split('\n').collect();
    let mut runs = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line.trim()) else { continue };
        if is_sim_record(&obj) && obj.get("error").is_none() {
            runs.push(parse(&obj).with_context(|| format!("{}:{}", path.display(), i + 1))?);
        }
    }
    Ok(runs)
}

/// The value of `pick` per spec (first-appearance order) and virtual-thread
/// count, medians over repeated records.
fn series(runs: &[&SimRun], pick: impl Fn(&SimRun) -> Option<f64>) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut order: Vec<String> = Vec::new();
    let mut values: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
    for r in runs {
        if !order.contains(&r.spec) {
            order.push(r.spec.clone());
        }
        if let Some(v) = pick(r) {
            values.entry((r.spec.clone(), r.vthreads)).or_default().push(v);
        }
    }
    order
        .into_iter()
        .map(|spec| {
            let points = values
                .iter()
                .filter(|((s, _), _)| *s == spec)
                .filter_map(|((_, t), v)| Some(((*t as f64).log2(), median(v.iter().copied())?)))
                .collect();
            (spec, points)
        })
        .filter(|(_, p): &(String, Vec<(f64, f64)>)| !p.is_empty())
        .collect()
}

fn chart(title: String, y_label: &str, lines: Vec<Line>) -> Chart {
    Chart::Lines(LineChart {
        title,
        x_label: "virtual threads".into(),
        y_label: y_label.into(),
        lines,
        integer_x: true,
        markers: true,
        x_log2: true,
    })
}

/// Draws the figures of the simulated runs in `runs_path` into `out`;
/// nothing when there are none.
pub(super) fn write(runs_path: &Path, out: &Path, formats: &[Format]) -> anyhow::Result<Vec<Written>> {
    let runs = read(runs_path)?;
    let mut groups: BTreeMap<(String, String, String), Vec<&SimRun>> = BTreeMap::new();
    for r in &runs {
        groups.entry((r.app.clone(), r.input.clone(), r.policy.clone())).or_default().push(r);
    }
    let mut written = Vec::new();
    let mut stems = BTreeSet::new();
    for ((app, input, policy), group) in groups {
        let what = format!("{app} on {input}, simulated ({policy})");
        let solid = |(i, (spec, points)): (usize, (String, Vec<(f64, f64)>))| Line {
            label: spec,
            colour: i,
            points,
            dashed: false,
        };
        let work: Vec<Line> =
            series(&group, |r| Some(r.work_increase)).into_iter().enumerate().map(solid).collect();
        let mut rank: Vec<Line> = Vec::new();
        for (i, ((spec, mean), (_, p99))) in series(&group, |r| Some(r.rank_mean))
            .into_iter()
            .zip(series(&group, |r| Some(r.rank_p99)))
            .enumerate()
        {
            rank.push(Line { label: spec, colour: i, points: mean, dashed: false });
            rank.push(Line { label: String::new(), colour: i, points: p99, dashed: true });
        }
        let invisible: Vec<Line> =
            series(&group, |r| r.unpublished_fraction).into_iter().enumerate().map(solid).collect();
        let speedup: Vec<Line> =
            speedups(series(&group, |r| r.simulated_us)).into_iter().enumerate().map(solid).collect();
        let figures = [
            ("sim-work", "work increase", "tasks / tasks of the exact-order baseline", work),
            ("sim-rank", "rank of popped tasks", "rank (solid: mean; dashed: 99th percentile)", rank),
            ("sim-invisible", "unpublished work", "mean fraction of pending tasks unpublished", invisible),
            (
                "sim-speedup",
                "speedup in simulated cycles",
                "simulated time of 1 virtual thread / of N",
                speedup,
            ),
        ];
        for (kind, title, y_label, lines) in figures {
            if lines.is_empty() {
                continue;
            }
            let mut stem = super::Stems::default().make(&[kind, &app, &input, &policy]);
            while !stems.insert(stem.clone()) {
                stem.push('x');
            }
            chart(format!("{what}: {title}"), y_label, lines).render(out, &stem, formats)?;
            written.push(Written { stem, caption: format!("{what}: {title} vs virtual threads") });
        }
    }
    if !runs.is_empty() {
        let path = out.join("sim.md");
        crate::output::write_text(&path, markdown(&runs))?;
    }
    Ok(written)
}

/// Each series of times as speedups over its one-thread point (`x` = 0 on
/// the log2 axis); a series without one is left out.
fn speedups(times: Vec<(String, Vec<(f64, f64)>)>) -> Vec<(String, Vec<(f64, f64)>)> {
    times
        .into_iter()
        .filter_map(|(spec, points)| {
            let alone = points.iter().find(|p| p.0 == 0.0).map(|p| p.1).filter(|&t| t > 0.0)?;
            let s = points.iter().filter(|p| p.1 > 0.0).map(|&(x, t)| (x, alone / t)).collect();
            Some((spec, s))
        })
        .collect()
}

/// The medians of every (app, input, policy, spec, virtual threads) as
/// Markdown tables, one per (app, input, policy).
fn markdown(runs: &[SimRun]) -> String {
    let mut groups: BTreeMap<(&str, &str, &str), Vec<&SimRun>> = BTreeMap::new();
    for r in runs {
        groups.entry((&r.app, &r.input, &r.policy)).or_default().push(r);
    }
    let cell = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.3}"));
    let mut s = String::from(
        "# Simulated runs (`ordo sim`)\n\nMedians over the records of each configuration. `work` = tasks / \
         exact-order baseline; ranks count the pending tasks strictly more urgent than the popped one; \
         `unpublished` = mean fraction of the pending tasks in private unpublished buffers; `touches/task` \
         = operations touching a structure another virtual thread wrote, per task; `sim µs` = simulated \
         time, for runs timed in cycles (policy `timed`).\n",
    );
    for ((app, input, policy), group) in groups {
        s.push_str(&format!(
            "\n## {app} on `{input}`, {policy}\n\n| scheduler | vthreads | work | rank mean | rank p99 | \
             unpublished | touches/task | sim µs |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
        ));
        let mut keys: Vec<(&str, u64)> = Vec::new();
        for r in &group {
            if !keys.contains(&(&r.spec, r.vthreads)) {
                keys.push((&r.spec, r.vthreads));
            }
        }
        for (spec, t) in keys {
            let of: Vec<&&SimRun> = group.iter().filter(|r| r.spec == spec && r.vthreads == t).collect();
            let med = |f: &dyn Fn(&SimRun) -> Option<f64>| median(of.iter().filter_map(|r| f(r)));
            s.push_str(&format!(
                "| `{spec}` | {t} | {} | {} | {} | {} | {} | {} |\n",
                cell(med(&|r| Some(r.work_increase))),
                cell(med(&|r| Some(r.rank_mean))),
                cell(med(&|r| Some(r.rank_p99))),
                cell(med(&|r| r.unpublished_fraction)),
                cell(med(&|r| r.touches_per_task)),
                med(&|r| r.simulated_us).map_or("–".to_string(), |v| format!("{v:.1}")),
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(spec: &str, vthreads: u64, wi: f64) -> SimRun {
        SimRun {
            app: "sssp".into(),
            input: "road".into(),
            policy: "round-robin".into(),
            spec: spec.into(),
            vthreads,
            work_increase: wi,
            rank_mean: 0.0,
            rank_p99: 0.0,
            unpublished_fraction: None,
            touches_per_task: None,
            simulated_us: None,
        }
    }

    #[test]
    fn timed_runs_give_speedups_over_one_thread() {
        let timed = |spec: &str, t: u64, us: f64| SimRun { simulated_us: Some(us), ..run(spec, t, 1.0) };
        let runs = [
            timed("auto", 1, 100.0),
            timed("auto", 2, 60.0),
            timed("auto", 2, 40.0),
            timed("auto", 2, 50.0),
            timed("mq", 4, 9.0),
        ];
        let refs: Vec<&SimRun> = runs.iter().collect();
        // Medians first (50 µs at 2), then over the one-thread time; `mq`
        // has no one-thread run.
        assert_eq!(
            speedups(series(&refs, |r| r.simulated_us)),
            vec![("auto".to_string(), vec![(0.0, 1.0), (1.0, 2.0)])]
        );
        assert!(
            markdown(&runs).contains("| `auto` | 2 | 1.000 | 0.000 | 0.000 | – | – | 50.0 |"),
            "{}",
            markdown(&runs)
        );
    }

    #[test]
    fn series_take_medians_per_count_on_a_log2_axis() {
        let runs = [
            run("smq", 4, 1.0),
            run("smq", 4, 3.0),
            run("smq", 4, 2.0),
            run("mq", 64, 5.0),
            run("smq", 1, 1.0),
        ];
        let refs: Vec<&SimRun> = runs.iter().collect();
        let s = series(&refs, |r| Some(r.work_increase));
        assert_eq!(
            s,
            vec![("smq".to_string(), vec![(0.0, 1.0), (2.0, 2.0)]), ("mq".to_string(), vec![(6.0, 5.0)])]
        );
        assert!(series(&refs, |r| r.unpublished_fraction).is_empty());
        let table = markdown(&runs);
        assert!(table.contains("| `smq` | 4 | 2.000 |"), "{table}");
        assert!(table.contains("| `mq` | 64 | 5.000 |"), "{table}");
    }

    #[test]
    fn records_parse_and_errors_name_the_field() {
        let obj: Value = serde_json::json!({"kind": "sim", "app": "bfs", "input": "g", "spec": "mq", "vthreads": 16,
            "work_increase": 1.5, "rank_mean": 3.0, "rank_p99": 9, "policy": "random"});
        let Value::Object(obj) = obj else { unreachable!() };
        assert!(is_sim_record(&obj));
        let r = parse(&obj).unwrap();
        assert_eq!((r.vthreads, r.rank_p99, r.policy.as_str()), (16, 9.0, "random"));
        let mut bad = obj.clone();
        bad.remove("rank_mean");
        assert!(parse(&bad).unwrap_err().to_string().contains("rank_mean"));
    }
}
