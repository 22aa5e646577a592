//! `ordo plot DIR`: the figures and the Table 5 summary of the scheduler
//! papers, drawn from the runs `ordo bench` wrote to `DIR/runs.jsonl`.
//!
//! Every plot uses medians over repetitions and is skipped when its data is
//! absent. Files (in `DIR/plots` unless `--out`), each as PNG and SVG:
//! - `speedup-<app>-<input>`: speedup over the same spec on 1 thread vs
//!   threads, one solid line per spec, and dashed the speedup over the
//!   sequential reference (`vs_seq`) in the same colour (PMOD paper Fig. 5/13).
//! - `breakdown-<app>-<input>`: stacked cycle breakdown per spec, fractions of
//!   the summed classes, at the largest thread count measured with cycles
//!   (Fig. 6/14; classes of Table 1).
//! - `work-<app>-<input>`: work increase per spec at the largest thread count.
//! - `delta-<experiment>-<app>-<input>-<sched>`: speedup (or time) vs delta for
//!   sweeps over `delta` (Fig. 8), one line per thread count (and per value
//!   of any other sweep variable).
//! - `heatmap-<experiment>-<app>-<input>-<sched>-t<threads>`: median time over
//!   a two-variable sweep, fastest cell framed (SMQ paper Fig. 1).
//! - `lmf`: PMOD's merging factor over dequeues, one line per (app, input,
//!   spec), the median run at its largest thread count (Table 6 as a plot).
//! - `shift`: the same for `auto`'s bucket width (log2, the mean over the
//!   threads at each change).
//! - `table5` and `table5.md`: the geometric-mean closeness to the best
//!   scheduler (PMOD paper Table 5); see [`data::table5`].
//! - `sim-work-…`, `sim-rank-…`, `sim-invisible-…`: work increase, rank and
//!   unpublished work against virtual threads, from `ordo sim --json`
//!   records (see [`sim`]).
//! - `index.md`: every image with a one-line caption.
//!
//! The comparison plots (speedup, breakdown, work) use the runs outside
//! sweeps when a case has any; Table 5 uses every run, each spec string
//! (sweep members included) counting as its own scheduler. Runs measured with
//! cycle timing (they carry a `breakdown`) feed the breakdown plots; the
//! time-based plots and Table 5 leave them out wherever the same
//! configuration was also measured without it ([`data::timing_runs`]).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use ordo_graph::output::write_atomically;

use crate::console;

pub(crate) mod data;
pub(crate) mod draw;
pub(crate) mod sim;

use data::{by_case, comparison_runs, median, median_run, median_times, sorted_values, specs_in_order, Run};
use draw::{BarChart, Chart, Format, Heatmap, Line, LineChart};

/// Arguments of `ordo plot`.
#[derive(Args)]
pub(crate) struct PlotArgs {
    /// Results directory of `ordo bench` (reads DIR/runs.jsonl).
    dir: PathBuf,
    /// Where to write the plots (default: DIR/plots).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Image formats, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "png,svg")]
    format: Vec<Format>,
}

/// One written image (all its formats) and its caption for `index.md`.
struct Written {
    stem: String,
    caption: String,
}

/// Stems already used in this output directory, to keep them distinct.
#[derive(Default)]
struct Stems(HashSet<String>);

impl Stems {
    /// A file-name-safe stem from `parts`: paths reduced to their file name,
    /// anything but letters, digits, `.` and `_` turned into `-`.
    fn make(&mut self, parts: &[&str]) -> String {
        let cleaned: Vec<String> = parts
            .iter()
            .map(|p| {
                let p = if p.contains('/') { p.rsplit('/').find(|s| !s.is_empty()).unwrap_or(p) } else { p };
                let mut s = String::new();
                for c in p.chars() {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                        s.push(c);
                    } else if !s.ends_with('-') {
                        s.push('-');
                    }
                }
                s.trim_matches('-').to_string()
            })
            .filter(|s| !s.is_empty())
            .collect();
        let base = cleaned.join("-");
        let mut stem = base.clone();
        let mut k = 2;
        while !self.0.insert(stem.clone()) {
            stem = format!("{base}-{k}");
            k += 1;
        }
        stem
    }
}

/// Runs `ordo plot`.
pub(crate) fn run(args: PlotArgs, _threads: usize) -> anyhow::Result<()> {
    let dir = &args.dir;
    if !dir.is_dir() {
        bail!("{}: no such results directory", dir.display());
    }
    let runs_path = dir.join("runs.jsonl");
    if !runs_path.is_file() {
        bail!("{}: no runs.jsonl in this directory (write it with `ordo bench`)", dir.display());
    }
    let loaded = data::read_runs(&runs_path)?;
    if loaded.failed > 0 {
        console::note!(
            "warning: {}: skipped {} failed runs (verified false or error)",
            runs_path.display(),
            loaded.failed
        );
    }
    if loaded.truncated_last_line {
        console::note!("warning: {}: skipped a final line cut short", runs_path.display());
    }
    if loaded.runs.is_empty() && loaded.simulated == 0 {
        bail!("{}: no usable runs", runs_path.display());
    }
    let formats = if args.format.is_empty() { vec![Format::Png, Format::Svg] } else { dedup(args.format) };
    let out = args.out.clone().unwrap_or_else(|| dir.join("plots"));
    std::fs::create_dir_all(&out).with_context(|| format!("{}: cannot create", out.display()))?;
    let timed = data::timing_runs(&loaded.runs);
    let mut written = write_all(&loaded.runs, &timed, &out, &formats)?;
    written.extend(sim::write(&runs_path, &out, &formats)?);
    let table = data::table5(&timed);
    let table_path = out.join("table5.md");
    write_atomically(&table_path, |w| w.write_all(data::table5_markdown(&table).as_bytes()))?;
    let index_path = out.join("index.md");
    write_atomically(&index_path, |w| {
        w.write_all(index_markdown(dir, &loaded, &written, &formats).as_bytes())
    })?;
    console::outln!(
        "{} runs, {} simulated -> {} plots ({}) in {}, with index.md and table5.md",
        loaded.runs.len(),
        loaded.simulated,
        written.len(),
        formats.iter().map(|f| f.ext()).collect::<Vec<_>>().join(", "),
        out.display()
    )?;
    Ok(())
}

fn dedup(formats: Vec<Format>) -> Vec<Format> {
    let mut out = Vec::new();
    for f in formats {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

fn index_markdown(dir: &Path, loaded: &data::Runs, written: &[Written], formats: &[Format]) -> String {
    let mut s = format!(
        "# Plots of `{}`\n\n{} runs ({} failed runs skipped); every value is a median over repetitions. \
         [Table 5 summary](table5.md).\n\n",
        dir.display(),
        loaded.runs.len(),
        loaded.failed
    );
    for w in written {
        let links: Vec<String> =
            formats.iter().map(|f| format!("[{}]({}.{})", f.ext(), w.stem, f.ext())).collect();
        s.push_str(&format!("- `{}`: {} ({})\n", w.stem, w.caption, links.join(", ")));
    }
    s
}

/// Builds and writes every chart: `all` runs for the cycle breakdowns and
/// the lmf traces, the `timed` ones (see [`data::timing_runs`]) for the rest.
fn write_all(all: &[Run], timed: &[Run], out: &Path, formats: &[Format]) -> anyhow::Result<Vec<Written>> {
    let mut charts: Vec<(String, String, Chart)> = Vec::new();
    let mut stems = Stems::default();
    let timed_by_case = by_case(timed);
    for ((app, input), case_runs) in by_case(all) {
        let cmp = comparison_runs(&case_runs);
        let timed_cmp =
            timed_by_case.get(&(app.clone(), input.clone())).map(|r| comparison_runs(r)).unwrap_or_default();
        if let Some(c) = speedup_chart(&app, &input, &timed_cmp) {
            charts.push((
                stems.make(&["speedup", &app, &input]),
                format!("{app} on {input}: speedup vs threads (solid: over itself on 1 thread; dashed: over the sequential reference)"),
                c,
            ));
        }
        if let Some((threads, c)) = breakdown_chart(&app, &input, &cmp) {
            charts.push((
                stems.make(&["breakdown", &app, &input]),
                format!("{app} on {input}: cycle breakdown per scheduler at {threads} threads"),
                c,
            ));
        }
        if let Some((threads, c)) = work_chart(&app, &input, &timed_cmp) {
            charts.push((
                stems.make(&["work", &app, &input]),
                format!("{app} on {input}: work increase per scheduler at {threads} threads"),
                c,
            ));
        }
    }
    for ((experiment, app, input, sched), group) in sweep_groups(timed) {
        let vars: BTreeSet<&String> = group.iter().flat_map(|r| r.sweep.keys()).collect();
        if vars.contains(&"delta".to_string()) {
            if let Some(c) = delta_chart(&experiment, &app, &input, &sched, &group) {
                charts.push((
                    stems.make(&["delta", &experiment, &app, &input, &sched]),
                    format!("{app} on {input}, {sched} ({experiment}): performance vs delta"),
                    c,
                ));
            }
        }
        if vars.len() == 2 {
            let vars: Vec<&String> = vars.into_iter().collect();
            let threads: BTreeSet<usize> = group.iter().map(|r| r.threads).collect();
            for t in threads {
                let at: Vec<&Run> = group.iter().copied().filter(|r| r.threads == t).collect();
                if let Some(c) = heatmap_chart(&experiment, &app, &input, &sched, t, vars[0], vars[1], &at) {
                    charts.push((
                        stems.make(&["heatmap", &experiment, &app, &input, &sched, &format!("t{t}")]),
                        format!(
                            "{app} on {input}, {sched} ({experiment}), {t} threads: median time over {} × {}",
                            vars[0], vars[1]
                        ),
                        c,
                    ));
                }
            }
        }
    }
    if let Some(c) = trace_chart(all, "lmf", "PMOD: lmf over the run") {
        charts.push((stems.make(&["lmf"]), "PMOD's lmf over the run (dequeues), median runs".into(), c));
    }
    if let Some(c) = trace_chart(all, "shift", "auto: log2 of the bucket width over the run") {
        charts.push((
            stems.make(&["shift"]),
            "auto's bucket width (log2) over the run (dequeues, all threads), median runs".into(),
            c,
        ));
    }
    // Priorities and round sizes differ by orders of magnitude between
    // inputs: one chart per (app, input).
    let mut by_input: BTreeMap<(&str, &str), Vec<&Run>> = BTreeMap::new();
    for r in all.iter().filter(|r| r.traces.contains_key("round_level")) {
        by_input.entry((r.app.as_str(), r.input.as_str())).or_default().push(r);
    }
    let round_charts = [
        ("round_level", "round-level", "the priority each round of auto starts from"),
        (
            "round_tasks",
            "round-tasks",
            "tasks per round of auto (beyond 256 points a point gathers several rounds)",
        ),
    ];
    for ((app, input), group) in by_input {
        for (name, stem, what) in round_charts {
            if let Some(c) =
                trace_chart(group.iter().copied(), name, &format!("auto's rounds: {app} on {input}"))
            {
                charts.push((
                    stems.make(&[stem, app, input]),
                    format!("{app} on {input}: {what}, over the run (microseconds), median runs"),
                    c,
                ));
            }
        }
    }
    let table = data::table5(timed);
    if !table.rows.is_empty() {
        charts.push((
            stems.make(&["table5"]),
            "Table 5: geometric mean over (app, input) of best median time / its median time".into(),
            Chart::Bars(BarChart {
                title: "Closeness to the best scheduler (geomean of best/its, largest thread count)".into(),
                x_label: "geometric mean of best time / its time (1 = always the best)".into(),
                rows: table.rows.iter().map(|r| r.spec.clone()).collect(),
                segments: vec!["score".into()],
                values: table.rows.iter().map(|r| vec![r.geomean_vs_best]).collect(),
                annotate: true,
                reference: Some(1.0),
            }),
        ));
    }
    let mut written = Vec::new();
    for (stem, caption, chart) in charts {
        chart.render(out, &stem, formats)?;
        written.push(Written { stem, caption });
    }
    Ok(written)
}

/// Speedup lines (needs at least two thread counts).
fn speedup_chart(app: &str, input: &str, runs: &[&Run]) -> Option<Chart> {
    let thread_counts: BTreeSet<usize> = runs.iter().map(|r| r.threads).collect();
    if thread_counts.len() < 2 {
        return None;
    }
    let medians = median_times(runs);
    let mut lines = Vec::new();
    for (i, spec) in specs_in_order(runs).iter().enumerate() {
        if let Some(&t1) = medians.get(&(spec.clone(), 1)) {
            let points: Vec<(f64, f64)> = thread_counts
                .iter()
                .filter_map(|&t| Some((t as f64, t1 / medians.get(&(spec.clone(), t))?)))
                .collect();
            if points.len() >= 2 {
                lines.push(Line { label: spec.clone(), colour: i, points, dashed: false });
            }
        }
        let seq: Vec<(f64, f64)> = thread_counts
            .iter()
            .filter_map(|&t| {
                let v = runs.iter().filter(|r| &r.spec == spec && r.threads == t).filter_map(|r| r.vs_seq);
                Some((t as f64, median(v)?))
            })
            .collect();
        if !seq.is_empty() {
            let label =
                if lines.last().is_some_and(|l| &l.label == spec) { String::new() } else { spec.clone() };
            lines.push(Line { label, colour: i, points: seq, dashed: true });
        }
    }
    (!lines.is_empty()).then(|| {
        Chart::Lines(LineChart {
            title: format!("{app} on {input}: speedup"),
            x_label: "threads".into(),
            y_label: "speedup (solid: over 1 thread; dashed: over sequential)".into(),
            lines,
            integer_x: true,
            markers: true,
            x_log2: false,
        })
    })
}

/// Stacked breakdown at the largest thread count that has breakdowns.
fn breakdown_chart(app: &str, input: &str, runs: &[&Run]) -> Option<(usize, Chart)> {
    let with: Vec<&Run> = runs.iter().copied().filter(|r| r.breakdown.is_some()).collect();
    let threads = with.iter().map(|r| r.threads).max()?;
    let with: Vec<&Run> = with.into_iter().filter(|r| r.threads == threads).collect();
    let chosen: Vec<(String, &BTreeMap<String, f64>)> = specs_in_order(&with)
        .into_iter()
        .filter_map(|spec| {
            let of: Vec<&Run> = with.iter().copied().filter(|r| r.spec == spec).collect();
            Some((spec, median_run(&of)?.breakdown.as_ref()?))
        })
        .collect();
    let split = chosen.iter().all(|(_, b)| b.contains_key("cycles_good") && b.contains_key("cycles_useless"));
    let (mut names, mut keys): (Vec<&str>, Vec<&str>) = if split {
        (vec!["good work", "useless work"], vec!["cycles_good", "cycles_useless"])
    } else {
        (vec!["task"], vec!["cycles_task"])
    };
    names.extend(["Enq", "Deq", "failed Deq", "other"]);
    keys.extend(["cycles_enq", "cycles_deq", "cycles_failed_deq", "cycles_other"]);
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for (spec, b) in &chosen {
        let raw: Vec<f64> = keys.iter().map(|k| b.get(*k).copied().unwrap_or(0.0).max(0.0)).collect();
        let total: f64 = raw.iter().sum();
        if total > 0.0 {
            rows.push(spec.clone());
            values.push(raw.iter().map(|v| v / total).collect());
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some((
        threads,
        Chart::Bars(BarChart {
            title: format!("{app} on {input}: cycle breakdown, {threads} threads"),
            x_label: "fraction of cycles".into(),
            rows,
            segments: names.into_iter().map(String::from).collect(),
            values,
            annotate: false,
            reference: None,
        }),
    ))
}

/// Work increase bars at the largest thread count that has them.
fn work_chart(app: &str, input: &str, runs: &[&Run]) -> Option<(usize, Chart)> {
    let with: Vec<&Run> = runs.iter().copied().filter(|r| r.work_increase.is_some()).collect();
    let threads = with.iter().map(|r| r.threads).max()?;
    let with: Vec<&Run> = with.into_iter().filter(|r| r.threads == threads).collect();
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for spec in specs_in_order(&with) {
        let w = median(with.iter().filter(|r| r.spec == spec).filter_map(|r| r.work_increase))?;
        rows.push(spec);
        values.push(vec![w]);
    }
    Some((
        threads,
        Chart::Bars(BarChart {
            title: format!("{app} on {input}: work increase, {threads} threads"),
            x_label: "tasks / tasks of the exact-order baseline".into(),
            rows,
            segments: vec!["work increase".into()],
            values,
            annotate: true,
            reference: Some(1.0),
        }),
    ))
}

/// The scheduler name of a spec (`obim` of `obim:delta=4`).
fn base_name(spec: &str) -> &str {
    spec.split_once(':').map_or(spec, |(n, _)| n).trim()
}

type SweepKey = (String, String, String, String);

/// Sweep runs by (experiment, app, input, scheduler name).
fn sweep_groups(runs: &[Run]) -> BTreeMap<SweepKey, Vec<&Run>> {
    let mut m: BTreeMap<SweepKey, Vec<&Run>> = BTreeMap::new();
    for r in runs.iter().filter(|r| !r.sweep.is_empty()) {
        let key = (r.experiment.clone(), r.app.clone(), r.input.clone(), base_name(&r.spec).to_string());
        m.entry(key).or_default().push(r);
    }
    m
}

/// The sweep variables other than `skip`, as `k=v, k=v`.
fn other_vars(r: &Run, skip: &str) -> String {
    r.sweep
        .iter()
        .filter(|(k, _)| k.as_str() != skip)
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Performance vs delta: speedup over 1 thread at the smallest delta (same
/// other sweep values) when every line has that baseline, else median time.
fn delta_chart(experiment: &str, app: &str, input: &str, sched: &str, group: &[&Run]) -> Option<Chart> {
    let with: Vec<&Run> = group.iter().copied().filter(|r| r.sweep.contains_key("delta")).collect();
    let deltas = sorted_values(with.iter().map(|r| r.sweep["delta"].clone()));
    if deltas.len() < 2 {
        return None;
    }
    let delta_x = |v: &str| data::sweep_value_key(v).1;
    // (threads, other vars) -> delta value -> times.
    let mut series: BTreeMap<(usize, String), BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for r in &with {
        series
            .entry((r.threads, other_vars(r, "delta")))
            .or_default()
            .entry(r.sweep["delta"].clone())
            .or_default()
            .push(r.time_s);
    }
    let medians: BTreeMap<&(usize, String), BTreeMap<&String, f64>> = series
        .iter()
        .map(|(k, by)| (k, by.iter().filter_map(|(d, ts)| Some((d, median(ts.iter().copied())?))).collect()))
        .collect();
    let baseline = |others: &str| -> Option<f64> {
        let one = medians.get(&(1, others.to_string()))?;
        deltas.iter().find_map(|d| one.get(d).copied())
    };
    let as_speedup = medians.keys().all(|(_, others)| baseline(others).is_some());
    let lines: Vec<Line> = medians
        .iter()
        .enumerate()
        .map(|(i, ((threads, others), by))| {
            let base = baseline(others);
            let mut points: Vec<(f64, f64)> = by
                .iter()
                .map(|(d, &m)| (delta_x(d), if as_speedup { base.unwrap_or(m) / m } else { m }))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let unit = if *threads == 1 { "thread" } else { "threads" };
            let label = if others.is_empty() {
                format!("{threads} {unit}")
            } else {
                format!("{threads} {unit}, {others}")
            };
            Line { label, colour: i, points, dashed: false }
        })
        .collect();
    Some(Chart::Lines(LineChart {
        title: format!("{app} on {input}: {sched} vs delta ({experiment})"),
        x_label: "delta".into(),
        y_label: if as_speedup {
            format!("speedup over 1 thread, delta={}", deltas[0])
        } else {
            "median time (s)".into()
        },
        lines,
        integer_x: deltas.iter().all(|d| data::sweep_value_key(d).1.fract() == 0.0),
        markers: true,
        x_log2: false,
    }))
}

/// Median time over two sweep variables at one thread count.
#[allow(clippy::too_many_arguments)]
fn heatmap_chart(
    experiment: &str,
    app: &str,
    input: &str,
    sched: &str,
    threads: usize,
    x_var: &str,
    y_var: &str,
    runs: &[&Run],
) -> Option<Chart> {
    let with: Vec<&Run> =
        runs.iter().copied().filter(|r| r.sweep.contains_key(x_var) && r.sweep.contains_key(y_var)).collect();
    let xs = sorted_values(with.iter().map(|r| r.sweep[x_var].clone()));
    let ys = sorted_values(with.iter().map(|r| r.sweep[y_var].clone()));
    if xs.len() * ys.len() < 2 {
        return None;
    }
    let cells: Vec<Vec<Option<f64>>> = ys
        .iter()
        .map(|y| {
            xs.iter()
                .map(|x| {
                    median(
                        with.iter()
                            .filter(|r| &r.sweep[x_var] == x && &r.sweep[y_var] == y)
                            .map(|r| r.time_s),
                    )
                })
                .collect()
        })
        .collect();
    Some(Chart::Heat(Heatmap {
        title: format!("{app} on {input}: {sched}, {threads} threads, median time (s) ({experiment})"),
        x_label: x_var.to_string(),
        y_label: y_var.to_string(),
        x_values: xs,
        y_values: ys,
        cells,
        lower_is_better: true,
    }))
}

/// A scheduler's trace `name` (PMOD's `lmf` and auto's `shift` over
/// dequeues, auto's `round_level` and `round_tasks` over microseconds): per
/// (app, input, spec), the median run at the largest thread count among
/// runs with that trace; drawn as a step function.
fn trace_chart<'a>(runs: impl IntoIterator<Item = &'a Run>, name: &str, title: &str) -> Option<Chart> {
    let mut groups: BTreeMap<(String, String, String), Vec<&Run>> = BTreeMap::new();
    for r in runs.into_iter().filter(|r| r.traces.contains_key(name)) {
        groups.entry((r.app.clone(), r.input.clone(), r.spec.clone())).or_default().push(r);
    }
    let mut x_label = String::from("dequeues");
    let mut lines = Vec::new();
    for (i, ((app, input, spec), group)) in groups.iter().enumerate() {
        let threads = group.iter().map(|r| r.threads).max()?;
        let at: Vec<&Run> = group.iter().copied().filter(|r| r.threads == threads).collect();
        let (label, points) = &median_run(&at)?.traces[name];
        x_label.clone_from(label);
        let mut steps = Vec::new();
        for (k, &(x, v)) in points.iter().enumerate() {
            if k > 0 {
                steps.push((x, points[k - 1].1));
            }
            steps.push((x, v));
        }
        lines.push(Line {
            label: format!("{app} on {input}, {spec}, {threads} threads"),
            colour: i,
            points: steps,
            dashed: false,
        });
    }
    (!lines.is_empty()).then(|| {
        Chart::Lines(LineChart {
            title: title.into(),
            x_label,
            y_label: name.into(),
            lines,
            integer_x: false,
            markers: false,
            x_log2: false,
        })
    })
}
