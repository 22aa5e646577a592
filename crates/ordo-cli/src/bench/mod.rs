//! `ordo bench --plan FILE.toml --out DIR`: the benchmark driver. It runs
//! every configuration of a plan (input × application × scheduler spec ×
//! threads, see [`plan`]) the requested number of times, verifies each run
//! against the sequential reference, and writes one JSON line per run to
//! `DIR/runs.jsonl` plus `summary.csv` / `summary.md` (see `bench/README.md`
//! for the file formats, which `ordo plot` reads).
//!
//! Order of work, so that each expensive step happens once: per input (plan
//! order) load the graph once and drop it before the next; per (input,
//! application) prepare once and time the sequential reference
//! `reference_repetitions` times (median = `seq_time_s`); per configuration
//! run `warmup` untimed runs, then the measured repetitions. One worker pool
//! per thread count lives for the whole session.

use std::collections::hash_map::Entry;
use std::collections::{btree_map, BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ordo_exec::{ExecOptions, Pool};
use serde_json::{json, Value};

use crate::apps::{self, AppParams, AppRun, PreparedApp, RefRun};
use crate::report::RunReport;

mod plan;
pub(crate) mod record;
mod summary;

use plan::{Config, Filter, Plan};
use record::Machine;
use summary::{RunKey, RunsFile};

/// Arguments of `ordo bench`.
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// The plan (TOML; format in bench/README.md).
    #[arg(long, value_name = "FILE")]
    plan: PathBuf,

    /// Output directory (created): runs.jsonl, plan.toml, machine.json,
    /// summary.csv, summary.md. Required unless --dry-run.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,

    /// Continue in an existing DIR: runs whose (experiment, input, app,
    /// spec, threads, rep) are already in DIR/runs.jsonl are skipped.
    #[arg(long)]
    resume: bool,

    /// Print the expanded configurations and their count; run nothing.
    #[arg(long)]
    dry_run: bool,

    /// Run only matching configurations: comma-separated terms, a bare word
    /// is an experiment name; `input=`, `app=`, `threads=`, `experiment=`
    /// match exactly, `spec=` is a prefix. Same key: any; different keys: all.
    #[arg(long, value_name = "EXPR")]
    only: Option<String>,
}

/// Ctrl-C presses seen (the first asks to stop after the current run, the
/// second exits at once).
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

fn interrupted() -> bool {
    INTERRUPTS.load(Ordering::SeqCst) > 0
}

/// A configuration with the repetitions still to run.
struct Pending<'p> {
    config: Config<'p>,
    reps: Vec<u32>,
}

pub(crate) fn run(args: BenchArgs, gen_threads: usize) -> anyhow::Result<()> {
    let plan = Plan::load(&args.plan)?;
    let filter = args.only.as_deref().map(Filter::parse).transpose()?;
    let configs = plan.configurations(filter.as_ref());
    anyhow::ensure!(!configs.is_empty(), "{}: no configuration matches --only", plan.path.display());

    if args.dry_run {
        return dry_run(&plan, &configs, args.out.as_deref().filter(|_| args.resume));
    }
    let out = args.out.clone().ok_or_else(|| anyhow::anyhow!("--out DIR is required (or use --dry-run)"))?;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let runs_path = out.join("runs.jsonl");
    let done = if args.resume {
        let existing = RunsFile::read(&runs_path)?;
        if existing.bad_lines > 0 {
            eprintln!("{}: {} unreadable line(s) ignored", runs_path.display(), existing.bad_lines);
        }
        existing.keys()
    } else {
        if std::fs::metadata(&runs_path).is_ok_and(|m| m.len() > 0) {
            anyhow::bail!("{} exists: use --resume to continue it, or another --out", runs_path.display());
        }
        HashSet::new()
    };
    let pending = pending_runs(&plan, &configs, &done);
    let skipped = configs.len() - pending.len();
    if args.resume && skipped > 0 {
        eprintln!("resume: {skipped} of {} configurations already complete", configs.len());
    }

    std::fs::write(out.join("plan.toml"), &plan.text).context("cannot write plan.toml")?;
    let machine = Machine::detect();
    let machine_json = serde_json::to_value(&machine)?;
    std::fs::write(out.join("machine.json"), serde_json::to_string_pretty(&machine_json)? + "\n")
        .context("cannot write machine.json")?;

    install_interrupt_handler();
    let mut runs_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&runs_path)
        .with_context(|| format!("cannot open {}", runs_path.display()))?;
    end_with_newline(&runs_path, &mut runs_file)?;

    let session = Session::new(&plan, &machine_json, runs_file, &pending);
    let outcome = session.run_all(&pending, gen_threads);
    // The summary covers whatever is on disk, also after an error or Ctrl-C.
    let rows = summary::write(&out);
    let (failures, finished) = outcome?;
    let rows = rows?;
    eprintln!(
        "{finished} runs written to {}; summary: {} rows in {}",
        runs_path.display(),
        rows,
        out.join("summary.md").display()
    );
    if interrupted() {
        anyhow::bail!(
            "interrupted: the finished runs are in {}; continue with --resume",
            runs_path.display()
        );
    }
    if !failures.is_empty() {
        eprintln!("failed runs:");
        for f in &failures {
            eprintln!("  {f}");
        }
        anyhow::bail!("{} run(s) failed (listed above and marked in runs.jsonl)", failures.len());
    }
    Ok(())
}

/// Prints the configurations, one per line, and the totals.
fn dry_run(plan: &Plan, configs: &[Config<'_>], resume_dir: Option<&Path>) -> anyhow::Result<()> {
    let done = match resume_dir {
        Some(dir) => RunsFile::read(&dir.join("runs.jsonl"))?.keys(),
        None => HashSet::new(),
    };
    let pending = pending_runs(plan, configs, &done);
    let mut out = std::io::stdout().lock();
    for p in &pending {
        let c = &p.config;
        let input = &plan.inputs[c.input];
        let note = if input.missing.is_some() { "  (input file absent: skipped)" } else { "" };
        writeln!(
            out,
            "{}\t{}\t{}\t{}\tthreads={}\treps={}{}{}",
            c.experiment.name,
            input.name,
            c.app.name(),
            c.spec.text,
            c.threads,
            p.reps.len(),
            if c.experiment.cycles { "\tcycles" } else { "" },
            note
        )?;
    }
    let runnable: Vec<_> = pending.iter().filter(|p| plan.inputs[p.config.input].missing.is_none()).collect();
    let measured: usize = runnable.iter().map(|p| p.reps.len()).sum();
    let warmup: usize = runnable.iter().map(|p| p.config.experiment.warmup as usize).sum();
    writeln!(
        out,
        "{} configurations, {measured} measured runs, {warmup} warmup runs ({} configurations skipped: input absent)",
        runnable.len(),
        pending.len() - runnable.len()
    )?;
    Ok(())
}

/// The configurations with repetitions not yet in `done`.
fn pending_runs<'p>(plan: &Plan, configs: &[Config<'p>], done: &HashSet<RunKey>) -> Vec<Pending<'p>> {
    configs
        .iter()
        .filter_map(|c| {
            let reps: Vec<u32> =
                (0..c.experiment.repetitions).filter(|&rep| !done.contains(&key(plan, c, rep))).collect();
            (!reps.is_empty()).then_some(Pending { config: *c, reps })
        })
        .collect()
}

fn key(plan: &Plan, c: &Config<'_>, rep: u32) -> RunKey {
    RunKey {
        experiment: c.experiment.name.clone(),
        input: plan.inputs[c.input].name.clone(),
        app: c.app.name().to_string(),
        spec: c.spec.text.clone(),
        threads: c.threads,
        rep,
    }
}

/// The first Ctrl-C asks to stop after the current run; the second exits.
fn install_interrupt_handler() {
    let result = ctrlc::set_handler(|| {
        if INTERRUPTS.fetch_add(1, Ordering::SeqCst) == 0 {
            eprintln!("\nCtrl-C: stopping after the current run (press again to quit at once)");
        } else {
            eprintln!("\nCtrl-C again: quitting; runs.jsonl holds every finished run");
            std::process::exit(130);
        }
    });
    if let Err(e) = result {
        eprintln!("warning: cannot catch Ctrl-C ({e}); an interrupt leaves no summary");
    }
}

/// A run cut short by a kill can leave a partial last line: start the next
/// one on a fresh line.
fn end_with_newline(path: &Path, file: &mut File) -> anyhow::Result<()> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if text.last().is_some_and(|&b| b != b'\n') {
        file.write_all(b"\n").with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// An application prepared on the current input and its reference runs.
type PreparedSlot<'g> = (Box<dyn PreparedApp + 'g>, Vec<RefRun>);

/// State of one `ordo bench` session.
struct Session<'p> {
    plan: &'p Plan,
    machine: &'p Value,
    runs_file: File,
    pools: BTreeMap<usize, Pool>,
    bar: ProgressBar,
    terminal: bool,
    failures: Vec<String>,
    finished: usize,
}

impl<'p> Session<'p> {
    fn new(plan: &'p Plan, machine: &'p Value, runs_file: File, pending: &[Pending<'_>]) -> Session<'p> {
        let runnable = pending.iter().filter(|p| plan.inputs[p.config.input].missing.is_none());
        let total: u64 = runnable.map(|p| (p.reps.len() + p.config.experiment.warmup as usize) as u64).sum();
        let terminal = std::io::stderr().is_terminal();
        let bar = if terminal {
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} runs, {elapsed} elapsed, ETA {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        if terminal {
            bar.enable_steady_tick(Duration::from_millis(500));
        }
        Session {
            plan,
            machine,
            runs_file,
            pools: BTreeMap::new(),
            bar,
            terminal,
            failures: Vec::new(),
            finished: 0,
        }
    }

    /// A line for the log above the bar (or stderr without a terminal).
    fn log(&self, msg: String) {
        if self.terminal {
            self.bar.println(msg);
        } else {
            eprintln!("{msg}");
        }
    }

    /// Runs every pending configuration; returns the failures and the number
    /// of measured runs written.
    fn run_all(
        mut self,
        pending: &[Pending<'_>],
        gen_threads: usize,
    ) -> anyhow::Result<(Vec<String>, usize)> {
        for (index, input) in self.plan.inputs.iter().enumerate() {
            let work: Vec<&Pending<'_>> = pending.iter().filter(|p| p.config.input == index).collect();
            if work.is_empty() {
                continue;
            }
            if let Some(path) = &input.missing {
                self.log(format!(
                    "input {}: {} absent (optional): {} configurations skipped",
                    input.name,
                    path.display(),
                    work.len()
                ));
                continue;
            }
            if interrupted() {
                break;
            }
            self.bar.set_message(format!("loading {}", input.name));
            let graph = crate::input::load_input(&input.args, gen_threads)
                .with_context(|| format!("{}: input `{}`", self.plan.path.display(), input.name))?;
            self.log(format!(
                "input {}: {} (n {}, m {})",
                input.name,
                input.args.describe(),
                graph.num_vertices(),
                graph.num_edges()
            ));
            self.run_input(index, &graph, &work)?;
            // `graph` is dropped here, before the next input is loaded.
        }
        self.bar.finish_and_clear();
        Ok((self.failures, self.finished))
    }

    fn run_input(
        &mut self,
        index: usize,
        graph: &ordo_graph::Graph,
        work: &[&Pending<'_>],
    ) -> anyhow::Result<()> {
        let plan = self.plan;
        let input = &plan.inputs[index];
        let graph_name = input.args.describe();
        // Prepared applications and their reference runs, per (app, classify).
        let mut prepared: HashMap<(apps::App, bool), PreparedSlot<'_>> = HashMap::new();
        for p in work {
            if interrupted() {
                return Ok(());
            }
            let c = &p.config;
            let e = c.experiment;
            let (app, refs) = match prepared.entry((c.app, e.classify)) {
                Entry::Occupied(slot) => slot.into_mut(),
                Entry::Vacant(slot) => {
                    let params = AppParams {
                        source: input.source,
                        target: input.target,
                        classify_work: e.classify,
                        ..AppParams::default()
                    };
                    let app = apps::prepare(c.app, graph, &params).with_context(|| {
                        format!("{}: input `{}`, {}", plan.path.display(), input.name, c.app.name())
                    })?;
                    self.bar.set_message(format!("reference {} on {}", c.app.name(), input.name));
                    let refs = (0..plan.reference_repetitions)
                        .map(|_| app.reference())
                        .collect::<anyhow::Result<Vec<_>>>()
                        .with_context(|| format!("sequential {} on {}", c.app.name(), input.name))?;
                    slot.insert((app, refs))
                }
            };
            self.run_config(p, &graph_name, graph, &**app, refs)?;
        }
        Ok(())
    }

    fn run_config(
        &mut self,
        p: &Pending<'_>,
        graph_name: &str,
        graph: &ordo_graph::Graph,
        app: &dyn PreparedApp,
        refs: &[RefRun],
    ) -> anyhow::Result<()> {
        let c = &p.config;
        let e = c.experiment;
        let input = &self.plan.inputs[c.input];
        let label = format!("{} {} {} {} t={}", e.name, input.name, c.app.name(), c.spec.text, c.threads);
        self.bar.set_message(label.clone());
        if let btree_map::Entry::Vacant(slot) = self.pools.entry(c.threads) {
            slot.insert(
                Pool::new(c.threads).with_context(|| format!("cannot start {} worker threads", c.threads))?,
            );
        }
        let opts = ExecOptions { cycle_timing: e.cycles, ..ExecOptions::default() };
        let mut warm_error = None;
        for _ in 0..e.warmup {
            if interrupted() {
                return Ok(());
            }
            let result = app.run(&self.pools[&c.threads], &c.spec.spec, &opts);
            self.bar.inc(1);
            if let Err(err) = result {
                warm_error = Some(format!("{err:#}"));
                break;
            }
        }
        let reference_index = crate::report::median_index(&refs.iter().map(|r| r.time_s).collect::<Vec<_>>());
        let reference = &refs[reference_index];
        let mut times = Vec::new();
        for &rep in &p.reps {
            if interrupted() {
                break;
            }
            let line = match &warm_error {
                Some(err) => self.failure_line(c, rep, format!("warmup failed: {err}")),
                None => match app.run(&self.pools[&c.threads], &c.spec.spec, &opts) {
                    Ok(run) => {
                        let verdict = if e.verify {
                            Some(app.verify(&run, reference).map_err(|err| format!("{err:#}")))
                        } else {
                            None
                        };
                        times.push(run.stats.time_s);
                        self.run_line(c, rep, graph_name, graph, app, run, refs, reference_index, verdict)
                    }
                    Err(err) => self.failure_line(c, rep, format!("{err:#}")),
                },
            };
            if let Some(err) = line.get("error").and_then(Value::as_str) {
                let msg = format!("{label} rep {rep}: {err}");
                self.log(format!("FAILED {msg}"));
                self.failures.push(msg);
            }
            let mut text = serde_json::to_string(&line)?;
            text.push('\n');
            self.runs_file.write_all(text.as_bytes()).context("cannot append to runs.jsonl")?;
            self.runs_file.flush().context("cannot append to runs.jsonl")?;
            self.finished += 1;
            self.bar.inc(1);
        }
        if let Some(m) = median(&mut times) {
            self.log(format!("{label}: median {m:.4} s of {}", times.len()));
        }
        Ok(())
    }

    /// The JSON line of one measured run: the single run's report plus the
    /// bench fields.
    #[allow(clippy::too_many_arguments)]
    fn run_line(
        &self,
        c: &Config<'_>,
        rep: u32,
        graph_name: &str,
        graph: &ordo_graph::Graph,
        app: &dyn PreparedApp,
        run: AppRun,
        refs: &[RefRun],
        reference_index: usize,
        verdict: Option<Result<(), String>>,
    ) -> Value {
        // The report of this single run against the median reference run;
        // the other reference times are listed in seq_times_s.
        let reference = std::slice::from_ref(&refs[reference_index]);
        let mut report = RunReport::from_runs(graph_name, graph, app, std::slice::from_ref(&run), reference);
        report.seq_times_s = refs.iter().map(|r| r.time_s).collect();
        report.verified = matches!(verdict, Some(Ok(())));
        let mut line = serde_json::to_value(&report).expect("a report serialises");
        let obj = line.as_object_mut().expect("a report is an object");
        if let Some(Err(err)) = verdict {
            obj.insert("error".into(), json!(err));
        }
        self.add_bench_fields(obj, c, rep);
        line
    }

    /// The line of a run that produced no result (its error instead).
    fn failure_line(&self, c: &Config<'_>, rep: u32, error: String) -> Value {
        let mut line = json!({
            "app": c.app.name(),
            "threads": c.threads,
            "verified": false,
            "error": error,
        });
        self.add_bench_fields(line.as_object_mut().expect("an object"), c, rep);
        line
    }

    fn add_bench_fields(&self, obj: &mut serde_json::Map<String, Value>, c: &Config<'_>, rep: u32) {
        obj.insert("experiment".into(), json!(c.experiment.name));
        obj.insert("input".into(), json!(self.plan.inputs[c.input].name));
        obj.insert("rep".into(), json!(rep));
        obj.insert("spec".into(), json!(c.spec.text));
        obj.insert("sweep".into(), json!(c.spec.sweep));
        obj.insert("peak_rss_bytes".into(), json!(record::peak_rss_bytes()));
        obj.insert("machine".into(), self.machine.clone());
        obj.insert("git_rev".into(), json!(record::GIT_REV));
        obj.insert("ordo_version".into(), json!(env!("CARGO_PKG_VERSION")));
        obj.insert("timestamp".into(), json!(record::timestamp_now()));
    }
}

fn median(xs: &mut [f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    Some(xs[(xs.len() - 1) / 2])
}
