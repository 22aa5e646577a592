//! Benchmark plans: the TOML format read by `ordo bench --plan` (documented
//! in `bench/README.md`), its validation, and its expansion into the list of
//! configurations to run.
//!
//! Every error names the plan file and, where the TOML parser knows it, the
//! line and column of the offending value.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ordo_algos::app::{self, AppInfo, Params};
use ordo_graph::{Format, WeightSpec};
use serde::Deserialize;
use serde_json::Value;
use toml::Spanned;

use crate::input::{InputArgs, LoadArgs};

/// The settings `[settings]` gives and each experiment may override
/// (serde's `flatten` loses spans and unknown-key checks, so both structs
/// list the fields and convert to this one).
#[derive(Default, Clone)]
struct RunSettingsFile {
    repetitions: Option<Spanned<u32>>,
    warmup: Option<u32>,
    threads: Option<Spanned<Vec<usize>>>,
    verify: Option<bool>,
    cycles: Option<bool>,
    classify: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    repetitions: Option<Spanned<u32>>,
    warmup: Option<u32>,
    threads: Option<Spanned<Vec<usize>>>,
    verify: Option<bool>,
    cycles: Option<bool>,
    classify: Option<bool>,
    /// Timed runs of the sequential reference per (input, application).
    reference_repetitions: Option<Spanned<u32>>,
    /// How the repetitions of an experiment's configurations are ordered.
    order: Option<Spanned<String>>,
    /// Seed of the `shuffled` order.
    seed: Option<u64>,
}

impl SettingsFile {
    fn run(&self) -> RunSettingsFile {
        RunSettingsFile {
            repetitions: self.repetitions.clone(),
            warmup: self.warmup,
            threads: self.threads.clone(),
            verify: self.verify,
            cycles: self.cycles,
            classify: self.classify,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InputFile {
    name: Spanned<String>,
    gen: Option<Spanned<String>>,
    graph: Option<Spanned<PathBuf>>,
    weights: Option<Spanned<String>>,
    #[serde(default)]
    symmetrize: bool,
    #[serde(default)]
    simplify: bool,
    #[serde(default)]
    huge_pages: bool,
    coords: Option<Spanned<PathBuf>>,
    #[serde(default)]
    remap: bool,
    format: Option<Spanned<String>>,
    source: Option<u64>,
    target: Option<u64>,
    #[serde(default)]
    optional: bool,
    /// No graph: the empty graph, for applications that need none (the
    /// loop microbenchmark).
    #[serde(default)]
    none: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentFile {
    name: Spanned<String>,
    apps: Vec<Spanned<String>>,
    inputs: Option<Vec<Spanned<String>>>,
    schedulers: Vec<Spanned<String>>,
    #[serde(default)]
    sweep: BTreeMap<String, Spanned<toml::Value>>,
    /// Application parameters (as `ordo run --NAME VALUE`), e.g. `{ alpha = 0.9 }`.
    #[serde(default)]
    params: BTreeMap<String, Spanned<toml::Value>>,
    /// The operator form (`paper` or `fast`) of the applications that take
    /// `--operator`; the others of the experiment ignore it.
    operator: Option<Spanned<String>>,
    repetitions: Option<Spanned<u32>>,
    warmup: Option<u32>,
    threads: Option<Spanned<Vec<usize>>>,
    verify: Option<bool>,
    cycles: Option<bool>,
    classify: Option<bool>,
}

impl ExperimentFile {
    fn run(&self) -> RunSettingsFile {
        RunSettingsFile {
            repetitions: self.repetitions.clone(),
            warmup: self.warmup,
            threads: self.threads.clone(),
            verify: self.verify,
            cycles: self.cycles,
            classify: self.classify,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    #[serde(default)]
    settings: SettingsFile,
    #[serde(default, rename = "input")]
    inputs: Vec<InputFile>,
    #[serde(default, rename = "experiment")]
    experiments: Vec<ExperimentFile>,
}

/// One input of a plan: how to load it and the application parameters that
/// depend on it.
#[derive(Debug)]
pub(crate) struct PlanInput {
    /// The plan's name of the input (the `input` field of every run).
    pub(crate) name: String,
    /// File or generator plus load options, as `ordo run` takes them.
    pub(crate) args: InputArgs,
    /// Source vertex of the path applications (default 0).
    pub(crate) source: u64,
    /// Target vertex of A* (default: chosen by the application).
    pub(crate) target: Option<u64>,
    /// The input's file is absent and the plan marks it `optional`: its
    /// configurations are skipped with a message.
    pub(crate) missing: Option<PathBuf>,
    /// `none = true`: no graph (the empty graph), for applications that
    /// need none.
    pub(crate) none: bool,
}

/// A strategy spec (for priority apps a scheduler spec) after sweep
/// expansion, checked by every application of its experiment.
#[derive(Debug, Clone)]
pub(crate) struct ExpandedSpec {
    /// The spec as written with the placeholders replaced (the `spec` field).
    pub(crate) text: String,
    /// The sweep variables used by this spec and their values (the `sweep`
    /// field): integers and decimals as JSON numbers, anything else as a string.
    pub(crate) sweep: BTreeMap<String, Value>,
}

/// The order in which the repetitions of an experiment's configurations run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Round `r` runs repetition `r` of every configuration, in plan order:
    /// a slow phase of the machine spreads over all configurations instead
    /// of landing on one.
    RoundRobin,
    /// As round-robin, but each round visits the configurations in an order
    /// drawn with the seed (the same seed gives the same order).
    Shuffled {
        /// The seed.
        seed: u64,
    },
}

/// One `[[experiment]]` with its settings resolved.
#[derive(Debug)]
pub(crate) struct Experiment {
    /// Its name (the `experiment` field).
    pub(crate) name: String,
    /// Applications, in plan order.
    pub(crate) apps: Vec<&'static AppInfo>,
    /// Indices into [`Plan::inputs`], in plan order of the inputs.
    pub(crate) inputs: Vec<usize>,
    /// Expanded strategy specs.
    pub(crate) specs: Vec<ExpandedSpec>,
    /// Application parameters given by the experiment (`params`).
    pub(crate) params: Params,
    /// `--operator` for the applications that take it (`operator`).
    pub(crate) operator: Option<String>,
    /// Thread counts.
    pub(crate) threads: Vec<usize>,
    /// Measured runs per configuration.
    pub(crate) repetitions: u32,
    /// Untimed runs per configuration before the measured ones.
    pub(crate) warmup: u32,
    /// Verify every run against the sequential reference.
    pub(crate) verify: bool,
    /// Cycle timing (`ordo run --cycles`).
    pub(crate) cycles: bool,
    /// Good/useless classification (`ordo run --classify`).
    pub(crate) classify: bool,
}

/// A validated, expanded plan.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The plan file.
    pub(crate) path: PathBuf,
    /// The file's text (copied to `DIR/plan.toml`).
    pub(crate) text: String,
    /// Inputs in plan order.
    pub(crate) inputs: Vec<PlanInput>,
    /// Experiments in plan order.
    pub(crate) experiments: Vec<Experiment>,
    /// Timed runs of the sequential reference per (input, application); the
    /// median is `seq_time_s`.
    pub(crate) reference_repetitions: u32,
    /// How repetitions are interleaved.
    pub(crate) order: Order,
}

/// One configuration: the unit that is warmed up and repeated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Config<'p> {
    /// The experiment it belongs to.
    pub(crate) experiment: &'p Experiment,
    /// Index into [`Plan::inputs`].
    pub(crate) input: usize,
    /// The application.
    pub(crate) app: &'static AppInfo,
    /// The strategy.
    pub(crate) spec: &'p ExpandedSpec,
    /// Worker threads.
    pub(crate) threads: usize,
}

/// Error context: `file:line:col` of a span of `text`.
struct Locator<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Locator<'_> {
    fn at(&self, span: std::ops::Range<usize>) -> String {
        let before = &self.text[..span.start.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("{}:{line}:{col}", self.path.display())
    }

    fn err<T>(&self, span: std::ops::Range<usize>, msg: impl std::fmt::Display) -> anyhow::Result<T> {
        Err(anyhow::anyhow!("{}: {msg}", self.at(span)))
    }
}

impl Plan {
    /// Reads and validates the plan at `path`. Relative file paths in the
    /// plan are relative to the plan file's directory.
    pub(crate) fn load(path: &Path) -> anyhow::Result<Plan> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("cannot read plan {}: {e}", path.display()))?;
        Plan::parse(path, text)
    }

    /// Validates the plan `text` read from `path`.
    pub(crate) fn parse(path: &Path, text: String) -> anyhow::Result<Plan> {
        let loc = Locator { path, text: &text };
        let file: PlanFile = toml::from_str(&text).or_else(|e| {
            let msg = e.message().replace('\n', " ");
            match e.span() {
                Some(span) => loc.err(span, msg),
                None => Err(anyhow::anyhow!("{}: {msg}", path.display())),
            }
        })?;
        let base = path.parent().unwrap_or(Path::new("."));

        let defaults = &file.settings.run();
        let reference_repetitions = match &file.settings.reference_repetitions {
            Some(r) if *r.get_ref() == 0 => {
                return loc.err(r.span(), "reference_repetitions must be at least 1")
            }
            Some(r) => *r.get_ref(),
            None => 3,
        };
        let order = match file.settings.order.as_ref().map(|o| (o.get_ref().as_str(), o.span())) {
            None | Some(("round-robin", _)) => Order::RoundRobin,
            Some(("shuffled", _)) => Order::Shuffled { seed: file.settings.seed.unwrap_or(1) },
            Some((other, span)) => {
                return loc.err(span, format!("order `{other}`: expected round-robin or shuffled"))
            }
        };
        let mut inputs = Vec::new();
        let mut input_names = HashSet::new();
        for i in &file.inputs {
            let name = i.name.get_ref().clone();
            if name.is_empty() || !input_names.insert(name.clone()) {
                return loc.err(i.name.span(), format!("input name `{name}` is empty or used twice"));
            }
            inputs.push(parse_input(&loc, base, i)?);
        }
        anyhow::ensure!(!file.experiments.is_empty(), "{}: the plan has no [[experiment]]", path.display());
        let mut experiments = Vec::new();
        let mut experiment_names = HashSet::new();
        for e in &file.experiments {
            let name = e.name.get_ref().clone();
            if name.is_empty() || !experiment_names.insert(name.clone()) {
                return loc.err(e.name.span(), format!("experiment name `{name}` is empty or used twice"));
            }
            experiments.push(parse_experiment(&loc, defaults, &inputs, e)?);
        }
        Ok(Plan { path: path.to_path_buf(), text, inputs, experiments, reference_repetitions, order })
    }

    /// The most threads any experiment uses.
    pub(crate) fn max_threads(&self) -> usize {
        self.experiments.iter().flat_map(|e| e.threads.iter().copied()).max().unwrap_or(1)
    }

    /// Every configuration accepted by `filter`, grouped by input (plan
    /// order of the inputs), then experiment, application, spec, threads.
    pub(crate) fn configurations(&self, filter: Option<&Filter>) -> Vec<Config<'_>> {
        let mut out = Vec::new();
        for input in 0..self.inputs.len() {
            for e in self.experiments.iter().filter(|e| e.inputs.contains(&input)) {
                for &app in &e.apps {
                    for spec in &e.specs {
                        for &threads in &e.threads {
                            let c = Config { experiment: e, input, app, spec, threads };
                            if filter.is_none_or(|f| f.accepts(self, &c)) {
                                out.push(c);
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

fn parse_input(loc: &Locator<'_>, base: &Path, i: &InputFile) -> anyhow::Result<PlanInput> {
    let name = i.name.get_ref();
    let mut load = LoadArgs {
        symmetrize: i.symmetrize,
        simplify: i.simplify,
        huge_pages: i.huge_pages,
        remap: i.remap,
        ..LoadArgs::default()
    };
    if let Some(w) = &i.weights {
        load.weights = match WeightSpec::from_str(w.get_ref()) {
            Ok(w) => w,
            Err(e) => return loc.err(w.span(), format!("input `{name}`: weights: {e}")),
        };
    }
    if let Some(f) = &i.format {
        load.format = match Format::from_str(f.get_ref()) {
            Ok(f) => Some(f),
            Err(e) => return loc.err(f.span(), format!("input `{name}`: format: {e}")),
        };
    }
    let resolve = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { base.join(p) };
    load.coords = i.coords.as_ref().map(|c| resolve(c.get_ref()));
    let mut args = InputArgs { graph: None, gen: None, load };
    let mut missing = None;
    if i.none {
        let given = [
            (i.graph.is_some(), "graph"),
            (i.gen.is_some(), "gen"),
            (i.weights.is_some(), "weights"),
            (i.symmetrize, "symmetrize"),
            (i.simplify, "simplify"),
            (i.huge_pages, "huge_pages"),
            (i.coords.is_some(), "coords"),
            (i.remap, "remap"),
            (i.format.is_some(), "format"),
        ];
        if let Some((_, what)) = given.iter().find(|(set, _)| *set) {
            return loc.err(i.name.span(), format!("input `{name}`: `none = true` takes no `{what}`"));
        }
        return Ok(PlanInput {
            name: name.clone(),
            args,
            source: 0,
            target: None,
            missing: None,
            none: true,
        });
    }
    match (&i.graph, &i.gen) {
        (Some(g), None) => {
            let p = resolve(g.get_ref());
            if !p.exists() {
                if !i.optional {
                    return loc.err(
                        g.span(),
                        format!(
                            "input `{name}`: {} not found (mark the input `optional = true` to skip it)",
                            p.display()
                        ),
                    );
                }
                missing = Some(p.clone());
            }
            args.graph = Some(p);
        }
        (None, Some(g)) => {
            if let Err(e) = g.get_ref().parse::<ordo_graph::gen::GenSpec>() {
                return loc.err(g.span(), format!("input `{name}`: gen: {e}"));
            }
            for (set, what) in
                [(i.coords.is_some(), "coords"), (i.remap, "remap"), (i.format.is_some(), "format")]
            {
                if set {
                    return loc.err(
                        i.name.span(),
                        format!("input `{name}`: `{what}` applies to graph files, not to gen"),
                    );
                }
            }
            args.gen = Some(g.get_ref().clone());
        }
        _ => return loc.err(i.name.span(), format!("input `{name}`: give exactly one of `graph` or `gen`")),
    }
    Ok(PlanInput {
        name: name.clone(),
        args,
        source: i.source.unwrap_or(0),
        target: i.target,
        missing,
        none: false,
    })
}

fn parse_experiment(
    loc: &Locator<'_>,
    defaults: &RunSettingsFile,
    inputs: &[PlanInput],
    e: &ExperimentFile,
) -> anyhow::Result<Experiment> {
    let name = e.name.get_ref();
    let ctx = |what: &str| format!("experiment `{name}`: {what}");
    let mut apps: Vec<&'static AppInfo> = Vec::new();
    for a in &e.apps {
        match app::find(a.get_ref()) {
            Ok(info) if !apps.iter().any(|x| x.name == info.name) => apps.push(info),
            Ok(_) => return loc.err(a.span(), ctx(&format!("application `{}` listed twice", a.get_ref()))),
            Err(err) => return loc.err(a.span(), ctx(&err.to_string())),
        }
    }
    let Some(first) = apps.first() else {
        return loc.err(e.name.span(), ctx("`apps` is empty"));
    };
    if let Some(other) = apps.iter().find(|a| a.strategy_flag != first.strategy_flag) {
        return loc.err(
            e.name.span(),
            ctx(&format!(
                "{} is scheduled by --{} but {} by --{}: put them in separate experiments",
                first.name, first.strategy_flag, other.name, other.strategy_flag
            )),
        );
    }
    let mut params = Params::new();
    for (name, v) in &e.params {
        let text = match v.get_ref() {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return loc.err(v.span(), ctx(&format!("params.{name}: unexpected {}", other.type_str())))
            }
        };
        params.set(name, text);
    }
    for info in &apps {
        if let Err(err) = info.check_params(&params) {
            return loc.err(e.name.span(), ctx(&format!("params: {err}")));
        }
    }
    let operator = match &e.operator {
        None => None,
        Some(op) => {
            if let Err(err) = op.get_ref().parse::<ordo_algos::sssp::OperatorVariant>() {
                return loc.err(op.span(), ctx(&format!("operator: {err}")));
            }
            if !apps.iter().any(|a| a.takes("operator")) {
                return loc
                    .err(op.span(), ctx("operator: no application of the experiment takes --operator"));
            }
            Some(op.get_ref().trim().to_string())
        }
    };
    if let Some(other) = apps.iter().find(|a| a.needs_graph != first.needs_graph) {
        let (with, without) = if first.needs_graph { (first, other) } else { (other, first) };
        return loc.err(
            e.name.span(),
            ctx(&format!(
                "{} runs on a graph but {} runs without one: put them in separate experiments",
                with.name, without.name
            )),
        );
    }
    let needs_graph = first.needs_graph;
    let input_idx = match &e.inputs {
        // By default, every input the applications can run on.
        None => (0..inputs.len()).filter(|&k| inputs[k].none != needs_graph).collect::<Vec<_>>(),
        Some(list) => {
            let mut idx = Vec::new();
            for i in list {
                match inputs.iter().position(|p| &p.name == i.get_ref()) {
                    Some(k) if inputs[k].none == needs_graph => {
                        let what = if needs_graph {
                            format!(
                                "input `{}` has no graph (`none = true`) but {} needs one",
                                i.get_ref(),
                                first.name
                            )
                        } else {
                            format!(
                                "{} runs without a graph: give it an input with `none = true`, not `{}`",
                                first.name,
                                i.get_ref()
                            )
                        };
                        return loc.err(i.span(), ctx(&what));
                    }
                    Some(k) if !idx.contains(&k) => idx.push(k),
                    Some(_) => {
                        return loc.err(i.span(), ctx(&format!("input `{}` listed twice", i.get_ref())))
                    }
                    None => {
                        let known: Vec<_> = inputs.iter().map(|p| p.name.as_str()).collect();
                        return loc.err(
                            i.span(),
                            ctx(&format!("unknown input `{}` (inputs: {})", i.get_ref(), known.join(", "))),
                        );
                    }
                }
            }
            idx.sort_unstable();
            idx
        }
    };
    if input_idx.is_empty() {
        return loc.err(e.name.span(), ctx("no inputs"));
    }

    // Sweep variables and their values.
    let mut sweep: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (var, v) in &e.sweep {
        if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return loc.err(v.span(), ctx(&format!("sweep variable `{var}`: use letters, digits and _")));
        }
        let values =
            sweep_values(v.get_ref()).or_else(|m| loc.err(v.span(), ctx(&format!("sweep `{var}`: {m}"))))?;
        sweep.insert(var, values);
    }
    let mut used = HashSet::new();
    let mut specs: Vec<ExpandedSpec> = Vec::new();
    for s in &e.schedulers {
        let vars = placeholders(s.get_ref()).or_else(|m| loc.err(s.span(), ctx(&m)))?;
        for v in &vars {
            if !sweep.contains_key(v.as_str()) {
                return loc.err(
                    s.span(),
                    ctx(&format!("`{}` uses {{{v}}}, which `sweep` does not define", s.get_ref())),
                );
            }
            used.insert(v.clone());
        }
        // Cartesian product of the variables this spec uses, first variable outermost.
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for v in &vars {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    sweep[v.as_str()].iter().map(move |val| {
                        let mut c = c.clone();
                        c.push((v.clone(), val.clone()));
                        c
                    })
                })
                .collect();
        }
        for combo in combos {
            let mut text = s.get_ref().clone();
            for (var, val) in &combo {
                text = text.replace(&format!("{{{var}}}"), val);
            }
            for info in &apps {
                if let Err(err) = info.check_strategy(&text) {
                    return loc.err(s.span(), ctx(&format!("`{text}` for {}: {err}", info.name)));
                }
            }
            if specs.iter().any(|x| x.text == text) {
                return loc.err(s.span(), ctx(&format!("scheduler `{text}` appears twice")));
            }
            let sweep = combo.into_iter().map(|(k, v)| (k, sweep_json(&v))).collect();
            specs.push(ExpandedSpec { text, sweep });
        }
    }
    if specs.is_empty() {
        return loc.err(e.name.span(), ctx("`schedulers` is empty"));
    }
    if let Some(unused) = sweep.keys().find(|k| !used.contains(**k)) {
        return loc.err(
            e.sweep[*unused].span(),
            ctx(&format!("sweep variable `{unused}` is used by no scheduler")),
        );
    }

    let run = e.run();
    let repetitions = match run.repetitions.clone().or_else(|| defaults.repetitions.clone()) {
        Some(r) if *r.get_ref() == 0 => return loc.err(r.span(), ctx("repetitions must be at least 1")),
        Some(r) => *r.get_ref(),
        None => 5,
    };
    let threads = match run.threads.clone().or_else(|| defaults.threads.clone()) {
        Some(t) if t.get_ref().is_empty() || t.get_ref().contains(&0) => {
            return loc.err(t.span(), ctx("threads must be a non-empty list of counts >= 1"))
        }
        Some(t) => t.into_inner(),
        None => vec![1, crate::thread_count(None)?],
    };
    let mut threads_unique = Vec::new();
    for t in threads {
        if !threads_unique.contains(&t) {
            threads_unique.push(t);
        }
    }
    Ok(Experiment {
        name: name.clone(),
        apps,
        inputs: input_idx,
        specs,
        params,
        operator,
        threads: threads_unique,
        repetitions,
        warmup: run.warmup.or(defaults.warmup).unwrap_or(1),
        verify: run.verify.or(defaults.verify).unwrap_or(true),
        cycles: run.cycles.or(defaults.cycles).unwrap_or(false),
        classify: run.classify.or(defaults.classify).unwrap_or(false),
    })
}

/// The `{name}` placeholders of a scheduler template, in order of first use.
fn placeholders(template: &str) -> Result<Vec<String>, String> {
    let mut vars: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("`{template}`: `}}` without `{{`"));
        }
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or_else(|| format!("`{template}`: `{{` without `}}`"))?;
        let var = &after[..close];
        if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`{template}`: bad placeholder `{{{var}}}`"));
        }
        if !vars.iter().any(|v| v == var) {
            vars.push(var.to_string());
        }
        rest = &after[close + 1..];
    }
    Ok(vars)
}

/// The values of one sweep variable: a range string `A..=B[:STEP]` /
/// `A..B[:STEP]` of integers, a list of strings or numbers, or one value.
fn sweep_values(v: &toml::Value) -> Result<Vec<String>, String> {
    let scalar = |v: &toml::Value| match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(format!("expected a string, number or boolean, found {}", other.type_str())),
    };
    let values = match v {
        toml::Value::String(s) if s.contains("..") => integer_range(s)?,
        toml::Value::Array(items) => items.iter().map(scalar).collect::<Result<Vec<_>, _>>()?,
        other => vec![scalar(other)?],
    };
    if values.is_empty() {
        return Err("no values".into());
    }
    let mut seen = HashSet::new();
    if let Some(dup) = values.iter().find(|v| !seen.insert(v.as_str())) {
        return Err(format!("value `{dup}` appears twice"));
    }
    Ok(values)
}

/// `A..=B[:STEP]` (inclusive) or `A..B[:STEP]` (exclusive) of integers.
fn integer_range(s: &str) -> Result<Vec<String>, String> {
    let bad = || format!("`{s}`: expected a range START..=END[:STEP] or START..END[:STEP] of integers");
    let (range, step) = match s.split_once(':') {
        Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| bad())?),
        None => (s, 1),
    };
    if step <= 0 {
        return Err(format!("`{s}`: the step must be positive"));
    }
    let (a, b, inclusive) = if let Some((a, b)) = range.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = range.split_once("..") {
        (a, b, false)
    } else {
        return Err(bad());
    };
    let a: i64 = a.trim().parse().map_err(|_| bad())?;
    let b: i64 = b.trim().parse().map_err(|_| bad())?;
    let mut out = Vec::new();
    let mut x = a;
    while x < b || (inclusive && x == b) {
        out.push(x.to_string());
        if out.len() > 100_000 {
            return Err(format!("`{s}`: more than 100000 values"));
        }
        x = match x.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
    if out.is_empty() {
        return Err(format!("`{s}`: the range is empty"));
    }
    Ok(out)
}

/// A sweep value in JSON: integers and decimals as numbers, else a string.
fn sweep_json(v: &str) -> Value {
    if let Ok(i) = v.parse::<i64>() {
        Value::from(i)
    } else if let Some(f) = v.parse::<f64>().ok().filter(|f| f.is_finite()) {
        Value::from(f)
    } else {
        Value::from(v)
    }
}

/// `--only EXPR`: comma-separated terms; a bare word is an experiment name,
/// `experiment=`, `input=`, `app=`, `threads=` match exactly and `spec=` is a
/// prefix of the expanded spec. Terms with the same key are alternatives;
/// different keys must all match.
#[derive(Debug)]
pub(crate) struct Filter {
    terms: BTreeMap<String, Vec<String>>,
}

impl Filter {
    /// Parses `EXPR`.
    pub(crate) fn parse(expr: &str) -> anyhow::Result<Filter> {
        let mut terms: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for t in expr.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (k, v) = t.split_once('=').unwrap_or(("experiment", t));
            anyhow::ensure!(
                ["experiment", "input", "app", "spec", "threads"].contains(&k),
                "--only {expr}: unknown key `{k}` (keys: experiment, input, app, spec, threads)"
            );
            terms.entry(k.to_string()).or_default().push(v.to_string());
        }
        anyhow::ensure!(!terms.is_empty(), "--only: empty expression");
        Ok(Filter { terms })
    }

    fn accepts(&self, plan: &Plan, c: &Config<'_>) -> bool {
        self.terms.iter().all(|(k, vals)| {
            vals.iter().any(|v| match k.as_str() {
                "experiment" => c.experiment.name == *v,
                "input" => plan.inputs[c.input].name == *v,
                "app" => c.app.name == v,
                "spec" => c.spec.text.starts_with(v.as_str()),
                _ => c.threads.to_string() == *v,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> anyhow::Result<Plan> {
        Plan::parse(Path::new("p.toml"), text.to_string())
    }

    const BASE: &str = "[[input]]\nname = \"g\"\ngen = \"grid:w=4,h=4\"\n";

    #[test]
    fn load_options_reach_the_input() {
        let plan = parse(
            "[[input]]\nname = \"g\"\ngen = \"grid:w=4,h=4\"\nsimplify = true\nhuge_pages = true\n\
             [[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"strict\"]\n",
        )
        .unwrap();
        let load = &plan.inputs[0].args.load;
        assert!(load.simplify && load.huge_pages && !load.symmetrize);
        assert!(plan.inputs[0].args.describe().ends_with(" [simplified, huge pages]"));
        let e = parse(
            "[[input]]\nname = \"x\"\nnone = true\nhuge_pages = true\n\
             [[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"strict\"]\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`none = true` takes no `huge_pages`"), "{e}");
    }

    #[test]
    fn ranges_lists_and_scalars() {
        assert_eq!(integer_range("0..=18:2").unwrap().len(), 10);
        assert_eq!(integer_range("0..18:2").unwrap().last().unwrap(), "16");
        assert_eq!(integer_range("3..=3").unwrap(), vec!["3"]);
        assert!(integer_range("5..=1").is_err());
        assert!(integer_range("0..=4:0").is_err());
        assert!(integer_range("a..=4").is_err());
        let list = toml::Value::Array(vec!["1/4".into(), toml::Value::Integer(8)]);
        assert_eq!(sweep_values(&list).unwrap(), vec!["1/4", "8"]);
        assert_eq!(sweep_json("8"), Value::from(8));
        assert_eq!(sweep_json("1/8"), Value::from("1/8"));
        assert_eq!(sweep_json("0.25"), Value::from(0.25));
    }

    #[test]
    fn expansion_is_the_product_of_the_variables_a_spec_uses() {
        let plan = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nthreads = [1]\n\
             schedulers = [\"strict\", \"smq:p_steal={{p}},steal={{s}}\", \"obim:delta={{d}}\"]\n\
             sweep = {{ p = [\"1/4\", \"1/8\"], s = \"1..=4:2\", d = \"0..=4:2\" }}\n"
        ))
        .unwrap();
        let texts: Vec<_> = plan.experiments[0].specs.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "strict",
                "smq:p_steal=1/4,steal=1",
                "smq:p_steal=1/4,steal=3",
                "smq:p_steal=1/8,steal=1",
                "smq:p_steal=1/8,steal=3",
                "obim:delta=0",
                "obim:delta=2",
                "obim:delta=4"
            ]
        );
        let smq = &plan.experiments[0].specs[4];
        assert_eq!(smq.sweep["p"], Value::from("1/8"));
        assert_eq!(smq.sweep["s"], Value::from(3));
        assert!(plan.experiments[0].specs[0].sweep.is_empty());
        assert_eq!(plan.configurations(None).len(), 8);
    }

    #[test]
    fn errors_name_the_file_line_and_problem() {
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"ssp\"]\nschedulers = [\"strict\"]\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("p.toml:6:") && e.contains("unknown application `ssp`"), "{e}");
        let e = parse(&format!("{BASE}colour = 1\n")).unwrap_err().to_string();
        assert!(e.starts_with("p.toml:4:") && e.contains("colour"), "{e}");
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"obim:delta={{x}}\"]\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("{x}") && e.contains("does not define"), "{e}");
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"strict\"]\nsweep = {{ d = \"1..=4\" }}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("used by no scheduler"), "{e}");
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"obim:delta={{d}}\"]\nsweep = {{ d = \"9..=4\" }}\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("empty"), "{e}");
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\ninputs = [\"nope\"]\nschedulers = [\"strict\"]\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown input `nope`"), "{e}");
        let e = parse(&format!(
            "{BASE}[[experiment]]\nname = \"e\"\napps = [\"sssp\"]\nschedulers = [\"obim:delt=1\"]\n"
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("obim:delt=1"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn settings_cascade_and_filter() {
        let plan = parse(&format!(
            "[settings]\nrepetitions = 2\nwarmup = 0\nthreads = [1, 2]\n{BASE}\
             [[experiment]]\nname = \"a\"\napps = [\"sssp\", \"bfs\"]\nschedulers = [\"strict\"]\n\
             [[experiment]]\nname = \"b\"\napps = [\"sssp\"]\nschedulers = [\"fifo\"]\nrepetitions = 4\ncycles = true\n"
        ))
        .unwrap();
        let (a, b) = (&plan.experiments[0], &plan.experiments[1]);
        assert_eq!((a.repetitions, a.warmup, a.cycles, a.verify), (2, 0, false, true));
        assert_eq!((b.repetitions, b.threads.clone(), b.cycles), (4, vec![1, 2], true));
        assert_eq!(plan.configurations(None).len(), 6);
        let f = Filter::parse("b").unwrap();
        assert_eq!(plan.configurations(Some(&f)).len(), 2);
        let f = Filter::parse("a,app=bfs,threads=2").unwrap();
        assert_eq!(plan.configurations(Some(&f)).len(), 1);
        assert!(Filter::parse("colour=red").is_err());
    }
}
