//! `ordo bench --plan FILE.toml --out DIR`: the benchmark driver. It runs
//! every configuration of a plan (input × application × strategy spec ×
//! threads, see [`plan`]) the requested number of times, verifies each run
//! against the sequential reference, and writes one JSON line per run to
//! `DIR/runs.jsonl` plus `summary.csv` / `summary.md` (see `bench/README.md`
//! for the file formats, which `ordo plot` reads).
//!
//! Order of work, so that each expensive step happens once and a slow phase
//! of the machine cannot bias one configuration: per input (plan order)
//! load the graph once and drop it before the next; per (input,
//! application, parameters) prepare once and time the sequential reference
//! `reference_repetitions` times (median = `seq_time_s`); per experiment,
//! run the repetitions of its configurations **interleaved**: round `r`
//! runs repetition `r` of every configuration (in plan order, or shuffled
//! with the plan's seed), each configuration's warmup runs just before its
//! first measured one. Every line records its `round` and its `position` in
//! the session. One worker pool per thread count lives for the whole
//! session.

use std::collections::{btree_map, BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ordo_algos::app::report::{ReportHeader, RunReport};
use ordo_algos::app::{stats, AppRefRun, AppRun, Params, PreparedApp, RunEnv};
use ordo_exec::{ExecOptions, Pool, RunMonitor};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::{json, Value};

use crate::console;
use crate::interrupt::interrupted;

mod plan;
pub(crate) mod record;
mod summary;

use plan::{Config, Filter, Order, Plan};
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
            console::note!("{}: {} unreadable line(s) ignored", runs_path.display(), existing.bad_lines);
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
        console::note!("resume: {skipped} of {} configurations already complete", configs.len());
    }

    crate::output::write_text(&out.join("plan.toml"), &plan.text)?;
    let machine = Machine::detect();
    let machine_json = serde_json::to_value(&machine)?;
    crate::output::write_text(&out.join("machine.json"), serde_json::to_string_pretty(&machine_json)? + "\n")
        .context("cannot write machine.json")?;

    // The first Ctrl-C cancels the run in progress (it is not recorded) and
    // stops the session; the second quits at once.
    let monitor = Arc::new(RunMonitor::new(plan.max_threads()));
    let cancel = monitor.clone();
    crate::interrupt::on_first_interrupt(move || cancel.cancel());
    let mut runs_file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&runs_path)
        .with_context(|| format!("cannot open {}", runs_path.display()))?;
    end_with_newline(&runs_path, &mut runs_file)?;

    let session = Session::new(&plan, &machine_json, runs_file, &pending, monitor);
    let outcome = session.run_all(&pending, gen_threads);
    // The summary covers whatever is on disk, also after an error or Ctrl-C.
    let rows = summary::write(&out);
    let (failures, finished) = outcome?;
    let rows = rows?;
    console::note!(
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
        console::note!("failed runs:");
        for f in &failures {
            console::note!("  {f}");
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
    for p in &pending {
        let c = &p.config;
        let input = &plan.inputs[c.input];
        let note = if input.missing.is_some() { "  (input file absent: skipped)" } else { "" };
        console::outln!(
            "{}\t{}\t{}\t{}\tthreads={}\treps={}{}{}",
            c.experiment.name,
            input.name,
            c.app.name,
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
    console::outln!(
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
        app: c.app.name.to_string(),
        spec: c.spec.text.clone(),
        threads: c.threads,
        rep,
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

/// An application prepared on the current input, and its reference runs.
struct PreparedSlot {
    app: Box<dyn PreparedApp>,
    references: Vec<AppRefRun>,
    /// Index of the median reference run.
    median: usize,
}

/// The parameters an application gets on an input in an experiment: the
/// experiment's `params`, the input's `source`/`target` and the
/// experiment's `classify` and `operator`, each only where the application
/// takes it.
fn params_for(plan: &Plan, c: &Config<'_>) -> Params {
    let input = &plan.inputs[c.input];
    let mut params = c.experiment.params.clone();
    if c.app.takes("source") {
        params.set("source", input.source.to_string());
    }
    if let (Some(t), true) = (input.target, c.app.takes("target")) {
        params.set("target", t.to_string());
    }
    if c.experiment.classify && c.app.takes("classify") {
        params.set_flag("classify");
    }
    if let (Some(op), true) = (&c.experiment.operator, c.app.takes("operator")) {
        params.set("operator", op.clone());
    }
    params
}

/// State of one `ordo bench` session.
struct Session<'p> {
    plan: &'p Plan,
    machine: &'p Value,
    runs_file: File,
    pools: BTreeMap<usize, Pool>,
    monitor: Arc<RunMonitor>,
    bar: ProgressBar,
    terminal: bool,
    failures: Vec<String>,
    finished: usize,
    /// Measured runs started so far in this session: the `position` field.
    position: u64,
}

impl<'p> Session<'p> {
    fn new(
        plan: &'p Plan,
        machine: &'p Value,
        runs_file: File,
        pending: &[Pending<'_>],
        monitor: Arc<RunMonitor>,
    ) -> Session<'p> {
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
            monitor,
            bar,
            terminal,
            failures: Vec::new(),
            finished: 0,
            position: 0,
        }
    }

    /// A line for the log above the bar (or stderr without a terminal).
    fn log(&self, msg: String) {
        if self.terminal {
            self.bar.println(msg);
        } else {
            console::note!("{msg}");
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
            // Without weights (coordinates) when no application run on it reads them.
            let reads_weights = work.iter().any(|p| p.config.app.reads_weights);
            let reads_coords = work.iter().any(|p| p.config.app.reads_coords);
            let graph = Arc::new(if input.none {
                crate::input::empty_graph()
            } else {
                let names: Vec<&str> = work.iter().map(|p| p.config.app.name).collect();
                let args = input.args.for_app(&names.join(", "), reads_weights, reads_coords);
                crate::input::load_input(&args, gen_threads)
                    .with_context(|| format!("{}: input `{}`", self.plan.path.display(), input.name))?
            });
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

    /// Runs the configurations of one input, experiment by experiment, each
    /// experiment's repetitions interleaved (module docs).
    fn run_input(
        &mut self,
        index: usize,
        graph: &Arc<ordo_graph::Graph>,
        work: &[&Pending<'_>],
    ) -> anyhow::Result<()> {
        let plan = self.plan;
        let input = &plan.inputs[index];
        let mut prepared: HashMap<(&'static str, Params), PreparedSlot> = HashMap::new();
        let mut experiments: Vec<&str> = Vec::new();
        for p in work {
            if !experiments.contains(&p.config.experiment.name.as_str()) {
                experiments.push(&p.config.experiment.name);
            }
        }
        for name in experiments {
            let configs: Vec<&Pending<'_>> =
                work.iter().copied().filter(|p| p.config.experiment.name == name).collect();
            // Prepare each application (and time its reference) once.
            for p in &configs {
                let key = (p.config.app.name, params_for(plan, &p.config));
                if prepared.contains_key(&key) || interrupted() {
                    continue;
                }
                let app = p.config.app.prepare(graph.clone(), key.1.clone()).with_context(|| {
                    format!("{}: input `{}`, {}", plan.path.display(), input.name, p.config.app.name)
                })?;
                self.bar.set_message(format!("reference {} on {}", p.config.app.name, input.name));
                let references = (0..plan.reference_repetitions)
                    .map(|_| app.reference())
                    .collect::<Result<Vec<_>, _>>()
                    .with_context(|| format!("sequential {} on {}", p.config.app.name, input.name))?;
                let median = stats::median_index(&references.iter().map(|r| r.time_s).collect::<Vec<_>>())
                    .expect("at least one reference repetition");
                prepared.insert(key, PreparedSlot { app, references, median });
            }
            self.run_interleaved(&configs, &prepared, graph)?;
            if interrupted() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Round `r` runs the `r`-th pending repetition of every configuration
    /// (module docs); then logs each configuration's median and min–max.
    fn run_interleaved(
        &mut self,
        configs: &[&Pending<'_>],
        prepared: &HashMap<(&'static str, Params), PreparedSlot>,
        graph: &ordo_graph::Graph,
    ) -> anyhow::Result<()> {
        let plan = self.plan;
        let rounds = configs.iter().map(|p| p.reps.len()).max().unwrap_or(0);
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
        let mut warm_errors: Vec<Option<String>> = vec![None; configs.len()];
        let mut rng = match plan.order {
            Order::Shuffled { seed } => Some(rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed)),
            Order::RoundRobin => None,
        };
        for round in 0..rounds {
            let mut order: Vec<usize> = (0..configs.len()).collect();
            if let Some(rng) = rng.as_mut() {
                order.shuffle(rng);
            }
            for ci in order {
                let p = configs[ci];
                let Some(&rep) = p.reps.get(round) else { continue };
                if interrupted() {
                    return Ok(());
                }
                let slot = &prepared[&(p.config.app.name, params_for(plan, &p.config))];
                if round == 0 {
                    warm_errors[ci] = self.warm_up(&p.config, &*slot.app)?;
                }
                if let Some(time) =
                    self.measure(&p.config, rep, round, slot, graph, warm_errors[ci].as_deref())?
                {
                    times[ci].push(time);
                }
            }
        }
        for (p, t) in configs.iter().zip(&times) {
            if let Some(s) = stats::spread(t.iter().copied()) {
                let c = &p.config;
                self.log(format!(
                    "{} {} {} {} t={}: median {:.4} s (min {:.4}, max {:.4}) of {}",
                    c.experiment.name,
                    plan.inputs[c.input].name,
                    c.app.name,
                    c.spec.text,
                    c.threads,
                    s.median,
                    s.min,
                    s.max,
                    s.count
                ));
            }
        }
        Ok(())
    }

    /// The pool of `threads` workers (created on first use).
    fn pool(&mut self, threads: usize) -> anyhow::Result<&Pool> {
        if let btree_map::Entry::Vacant(slot) = self.pools.entry(threads) {
            slot.insert(
                Pool::new(threads).with_context(|| format!("cannot start {threads} worker threads"))?,
            );
        }
        Ok(&self.pools[&threads])
    }

    fn exec_options(&self, c: &Config<'_>) -> ExecOptions {
        ExecOptions {
            cycle_timing: c.experiment.cycles,
            monitor: Some(self.monitor.clone()),
            ..Default::default()
        }
    }

    /// The untimed runs before a configuration's first measured run; returns
    /// the error of a failed one.
    fn warm_up(&mut self, c: &Config<'_>, app: &dyn PreparedApp) -> anyhow::Result<Option<String>> {
        let exec = self.exec_options(c);
        for _ in 0..c.experiment.warmup {
            if interrupted() {
                return Ok(None);
            }
            self.bar.set_message(format!("warmup {}", self.label(c)));
            let env = RunEnv { pool: self.pool(c.threads)?, exec: &exec };
            let result = app.run(&env, &c.spec.text);
            self.bar.inc(1);
            if let Err(err) = result {
                return Ok(Some(format!("{err:#}")));
            }
        }
        Ok(None)
    }

    fn label(&self, c: &Config<'_>) -> String {
        let input = &self.plan.inputs[c.input];
        format!("{} {} {} {} t={}", c.experiment.name, input.name, c.app.name, c.spec.text, c.threads)
    }

    /// One measured run: verified, written as one line. Returns its time
    /// when it produced a result.
    fn measure(
        &mut self,
        c: &Config<'_>,
        rep: u32,
        round: usize,
        slot: &PreparedSlot,
        graph: &ordo_graph::Graph,
        warm_error: Option<&str>,
    ) -> anyhow::Result<Option<f64>> {
        let label = self.label(c);
        self.bar.set_message(label.clone());
        let position = self.position;
        self.position += 1;
        let exec = self.exec_options(c);
        let outcome = match warm_error {
            Some(err) => Err(format!("warmup failed: {err}")),
            None => {
                let env = RunEnv { pool: self.pool(c.threads)?, exec: &exec };
                slot.app.run(&env, &c.spec.text).map_err(|e| format!("{e:#}"))
            }
        };
        if interrupted() {
            return Ok(None); // cancelled by Ctrl-C: not recorded
        }
        let mut time = None;
        let mut line = match outcome {
            Ok(run) => {
                time = Some(run.time_s);
                let reference = &slot.references[slot.median];
                let verdict = c
                    .experiment
                    .verify
                    .then(|| slot.app.verify(&run, reference).map_err(|err| format!("{err:#}")));
                self.run_line(c, rep, graph, slot, run, verdict)
            }
            Err(err) => self.failure_line(c, rep, err),
        };
        let obj = line.as_object_mut().expect("a line is an object");
        obj.insert("round".into(), json!(round));
        obj.insert("position".into(), json!(position));
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
        Ok(time)
    }

    /// The JSON line of one measured run: the single run's report plus the
    /// bench fields.
    fn run_line(
        &self,
        c: &Config<'_>,
        rep: u32,
        graph: &ordo_graph::Graph,
        slot: &PreparedSlot,
        run: AppRun,
        verdict: Option<Result<(), String>>,
    ) -> Value {
        // The report of this single run against the median reference run;
        // the other reference times are listed in seq_times_s.
        let reference = &slot.references[slot.median];
        let header = ReportHeader {
            app: c.app.name.to_string(),
            graph: self.plan.inputs[c.input].args.describe(),
            n: graph.num_vertices(),
            m: graph.num_edges(),
            scheduler: slot.app.check_strategy(&c.spec.text).unwrap_or_else(|_| c.spec.text.clone()),
            threads: c.threads,
            params: slot.app.params(),
        };
        let verified_metrics = slot.app.verified_metrics(&run, reference);
        let mut report = RunReport::from_runs(
            header,
            std::slice::from_ref(&run),
            std::slice::from_ref(reference),
            verified_metrics,
        );
        report.seq_times_s = slot.references.iter().map(|r| r.time_s).collect();
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
            "app": c.app.name,
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
