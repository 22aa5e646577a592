//! The application layer: every algorithm behind one typed interface, so
//! that every front end (the `ordo` CLI, the benchmark driver, the Python
//! package, a Rust program) prepares, runs, verifies, reports and writes it
//! the same way.
//!
//! An application ([`Algorithm`]) is prepared once per input graph and
//! parameters ([`Algorithm::prepare`]: resolve the source, build a
//! transpose, ...), then run any number of times with a strategy (the
//! scheduler for priority-scheduled apps) on a pool of threads
//! ([`Algorithm::run`]); its sequential reference gives the exact answer,
//! the speed bar and the exact-order task count ([`Algorithm::reference`]),
//! and [`Algorithm::verify`] compares the two. Results go to text files with
//! [`Algorithm::write_out`] and to the report ([`report::RunReport`], the
//! `ordo run --json` object).
//!
//! # Adding an application
//! One folder `src/<alg>/` with `mod.rs` (the parallel algorithm),
//! `reference.rs` (the sequential reference), `verify.rs` (the comparison)
//! and `app.rs` (a type implementing [`Algorithm`]), plus one line in
//! [`APPS`]. The CLI builds its `ordo run <app>` flags from the parameters
//! each application declares ([`ParamDef`]), so nothing else changes.
//!
//! # Front ends
//! Typed use (a Rust program, the Python package) goes through
//! [`Prepared<A>`]; front ends that pick the application by name at run time
//! (CLI, bench) through [`find`] and the object-safe [`PreparedApp`], whose
//! outputs are type-erased and only ever read back by the application that
//! made them.

pub mod kernel;
pub mod params;
pub mod report;
pub mod stats;

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use ordo_exec::{ExecOptions, Pool, RunStats};
use ordo_graph::memory::WorkingMemory;
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use serde_json::Value;

pub use kernel::{Kernel, KernelChoice, KernelSet};
pub use params::{ParamDef, Params};

use crate::work_split::WorkSplit;
use crate::AlgoError;

/// Named values for the report (parameters as resolved, checksums of a
/// result), flattened into the JSON object.
pub type Fields = BTreeMap<String, Value>;

/// Why an application could not be prepared, run or verified.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A parameter or strategy that is unknown, malformed, out of range, or
    /// does not apply to the application.
    #[error("{0}")]
    Param(String),
    /// The algorithm refused its input.
    #[error(transparent)]
    Algo(#[from] AlgoError),
    /// The result differs from the sequential reference.
    #[error("{0}")]
    Mismatch(String),
    /// Another failure of the algorithm, with its message.
    #[error("{0}")]
    Failed(String),
    /// The run was cancelled through its monitor before it finished.
    #[error("the run was cancelled")]
    Cancelled,
}

/// How a run of an application is scheduled, chosen per run: a scheduler
/// spec for the priority-scheduled applications. Parsed from the text a user
/// gives on the command line (`--sched obim:delta=14`), in a plan or in
/// Python (`scheduler="obim:delta=14"`).
pub trait Strategy: Clone + fmt::Display + Send + Sync + 'static {
    /// The command-line flag (`--FLAG`) and Python keyword that choose it.
    const FLAG: &'static str;
    /// The placeholder of its value in help texts.
    const VALUE_NAME: &'static str;
    /// Help text of the flag.
    const HELP: &'static str;
    /// Parses a strategy; the error is one line naming the problem.
    fn parse(text: &str) -> Result<Self, String>;
}

impl Strategy for SchedulerSpec {
    const FLAG: &'static str = "sched";
    const VALUE_NAME: &'static str = "SPEC";
    const HELP: &'static str = "The scheduler, with optional parameters, e.g. `pmod`, \
                                `obim:delta=14,chunk=64`, `strict`; an unknown name or parameter is \
                                an error that lists what exists.";
    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e: ordo_sched::SpecError| e.to_string())
    }
}

/// What a run gets besides the strategy: the threads to run on and the
/// executor options (cycle timing, a monitor for progress and cancellation).
#[derive(Clone, Copy, Debug)]
pub struct RunEnv<'a> {
    /// The worker threads.
    pub pool: &'a Pool,
    /// Options of the `for_each` executor; runtimes other than the executor
    /// honour the monitor where they can.
    pub exec: &'a ExecOptions,
}

/// One parallel run of an application.
#[derive(Debug)]
pub struct Run<O> {
    /// The result.
    pub output: O,
    /// Wall time of the parallel phase in seconds (setup of per-vertex
    /// state included as in `for_each`'s own timer, graph loading excluded).
    pub time_s: f64,
    /// The executor's statistics, for applications run by `for_each`.
    pub stats: Option<RunStats>,
    /// Checksums and facts of the result (e.g. `reached`, `sum_dist`),
    /// flattened into the report.
    pub metrics: Fields,
    /// The exact-order task count (the denominator of `work_increase`) when
    /// the run alone determines it (SSSP, BFS: the vertices reached).
    pub baseline_tasks: Option<u64>,
    /// With the `classify` parameter: each thread's good / useless work
    /// split (PMOD paper §3.1); empty otherwise.
    pub work_split: Vec<WorkSplit>,
}

impl<O> Run<O> {
    /// A run of the `for_each` executor: its time comes from `stats`.
    pub fn executed(output: O, stats: RunStats, metrics: Fields) -> Self {
        Run {
            output,
            time_s: stats.time_s,
            stats: Some(stats),
            metrics,
            baseline_tasks: None,
            work_split: Vec::new(),
        }
    }

    /// The same run with its output transformed.
    pub fn map_output<P>(self, f: impl FnOnce(O) -> P) -> Run<P> {
        Run {
            output: f(self.output),
            time_s: self.time_s,
            stats: self.stats,
            metrics: self.metrics,
            baseline_tasks: self.baseline_tasks,
            work_split: self.work_split,
        }
    }

    /// The good / useless split of all threads together, when classified.
    pub fn work_split_total(&self) -> Option<WorkSplit> {
        (!self.work_split.is_empty()).then(|| WorkSplit::sum(&self.work_split))
    }
}

/// One run of an application's sequential reference.
#[derive(Debug)]
pub struct RefRun<R> {
    /// The reference result.
    pub output: R,
    /// Wall time in seconds: the `seq_time_s` of the report.
    pub time_s: f64,
    /// Tasks of the exact-order execution (the denominator of
    /// `work_increase`), when the application has such a baseline.
    pub baseline_tasks: Option<u64>,
}

impl<R> RefRun<R> {
    /// The same reference run with its output transformed.
    pub fn map_output<P>(self, f: impl FnOnce(R) -> P) -> RefRun<P> {
        RefRun { output: f(self.output), time_s: self.time_s, baseline_tasks: self.baseline_tasks }
    }
}

/// An algorithm as an application: prepared once per input, run many times,
/// checked against its sequential reference. See the module docs.
pub trait Algorithm: Sized + Send + Sync + 'static {
    /// The name on the command line, in JSON reports, plans and Python.
    const NAME: &'static str;
    /// One line for `ordo run --help`.
    const ABOUT: &'static str;
    /// The parameters it accepts besides the graph and the strategy; any
    /// other given parameter is an error.
    const PARAMS: &'static [&'static ParamDef];
    /// Whether its runs can split their time into the classes of the PMOD
    /// paper's Table 1 (`--cycles`): applications run by `for_each`.
    const CYCLES: bool;
    /// What `--out` writes, for help texts.
    const OUT_FORMAT: &'static str;
    /// Whether it runs on an input graph. An application that does not (a
    /// microbenchmark) is prepared on the empty graph: `ordo run` takes no
    /// `--graph`/`--gen` for it, and a plan gives it an input `none = true`.
    const NEEDS_GRAPH: bool = true;
    /// Whether it reads edge weights. An application that does not (BFS,
    /// PageRank, triangle counting, ...) is given its graph without them:
    /// front ends load and generate it unweighted, which saves four bytes
    /// per edge in every copy of the graph (the loaded one, a transpose, a
    /// symmetrized one). The default is the safe answer for a new
    /// application.
    const READS_WEIGHTS: bool = true;
    /// Whether it reads vertex coordinates (A*'s heuristic). One that does
    /// not is given its graph without them: front ends leave a `.ordo`
    /// file's coordinates unmapped and read no coordinate file, sixteen
    /// bytes per vertex. The default is the common answer; an application
    /// that reads them says so.
    const READS_COORDS: bool = false;
    /// Whether it takes real (`f64`) edge weights. One that reads weights
    /// but not real ones refuses a real-weighted graph at preparation, with
    /// one line saying so, rather than running on it as if unweighted.
    const REAL_WEIGHTS: bool = false;
    /// Memory a run needs beyond the graph, per vertex and per edge (its
    /// per-vertex state, a symmetrized or oriented copy), an estimate that a
    /// front end passes to the loader so that a graph which loads but could
    /// not then be processed is refused before loading, in one line.
    const RUN_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 16, per_edge: 0 };
    /// Memory the sequential reference and the verification need beyond
    /// the graph, when the run is verified.
    const REFERENCE_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 24, per_edge: 0 };
    /// How a run is scheduled.
    type Strategy: Strategy;
    /// The strategy used when none is given.
    const DEFAULT_STRATEGY: &'static str;
    /// The result of a parallel run.
    type Output: Send + Sync + 'static;
    /// The result of the sequential reference.
    type Reference: Send + Sync + 'static;

    /// Prepares the application on `graph` with `params` (the caller has
    /// checked that only declared parameters are given; take the ones you
    /// need, each at most once). Checks the parameters against the graph, so
    /// that a bad source is an error before any run.
    fn prepare(graph: Arc<Graph>, params: &mut Params) -> Result<Self, AppError>;

    /// The parameters as resolved on this input (e.g. `source`, a default
    /// `target`), for the report.
    fn params(&self) -> Fields;

    /// One parallel run.
    fn run(&self, env: &RunEnv<'_>, strategy: &Self::Strategy) -> Result<Run<Self::Output>, AppError>;

    /// One timed run of the sequential reference.
    fn reference(&self) -> Result<RefRun<Self::Reference>, AppError>;

    /// Compares a result with the reference's; the error names the first
    /// difference.
    fn verify(&self, output: &Self::Output, reference: &Self::Reference) -> Result<(), AppError>;

    /// Measures that need the reference (e.g. PageRank's `l1_vs_reference`),
    /// added to the report when the reference ran.
    fn verified_metrics(&self, _output: &Self::Output, _reference: &Self::Reference) -> Fields {
        Fields::new()
    }

    /// Writes the result as text (the format of [`Algorithm::OUT_FORMAT`]).
    fn write_out(&self, output: &Self::Output, out: &mut dyn Write) -> io::Result<()>;
}

/// An application prepared on one input: the typed entry point.
pub struct Prepared<A: Algorithm> {
    app: A,
}

impl<A: Algorithm> Prepared<A> {
    /// Prepares `A` on `graph`; every parameter in `params` must be one `A`
    /// declares (the error names the applications that take it otherwise).
    pub fn new(graph: Arc<Graph>, mut params: Params) -> Result<Self, AppError> {
        check_params_apply(A::NAME, A::PARAMS, &params)?;
        if A::READS_WEIGHTS && !A::REAL_WEIGHTS && graph.has_real_weights() {
            return Err(AppError::Param(format!(
                "{} does not take real edge weights (replace them, e.g. --weights uniform:1..100)",
                A::NAME
            )));
        }
        let app = A::prepare(graph, &mut params)?;
        if let Some(left) = params.names().next() {
            // A declared parameter the application forgot to read.
            return Err(AppError::Failed(format!("{}: parameter `{left}` was not used", A::NAME)));
        }
        Ok(Prepared { app })
    }

    /// The application.
    pub fn app(&self) -> &A {
        &self.app
    }

    /// Parses a strategy text (or takes the default when `None`).
    pub fn strategy(text: Option<&str>) -> Result<A::Strategy, AppError> {
        let text = text.unwrap_or(A::DEFAULT_STRATEGY);
        A::Strategy::parse(text).map_err(|e| AppError::Param(format!("--{}: {e}", A::Strategy::FLAG)))
    }

    /// One parallel run with `strategy`; a cancelled run is an error.
    pub fn run(&self, env: &RunEnv<'_>, strategy: &A::Strategy) -> Result<Run<A::Output>, AppError> {
        let run = self.app.run(env, strategy)?;
        if run.stats.as_ref().is_some_and(|s| s.cancelled)
            || env.exec.monitor.as_ref().is_some_and(|m| m.is_cancelled())
        {
            return Err(AppError::Cancelled);
        }
        Ok(run)
    }

    /// One run of the sequential reference.
    pub fn reference(&self) -> Result<RefRun<A::Reference>, AppError> {
        self.app.reference()
    }

    /// Checks a run against a reference run.
    pub fn verify(&self, run: &Run<A::Output>, reference: &RefRun<A::Reference>) -> Result<(), AppError> {
        self.app.verify(&run.output, &reference.output)
    }
}

/// Checks that every parameter given is one the application declares.
fn check_params_apply(app: &str, declared: &[&ParamDef], params: &Params) -> Result<(), AppError> {
    for name in params.names() {
        if declared.iter().any(|d| d.name == name) {
            continue;
        }
        let takers: Vec<&str> =
            APPS.iter().filter(|a| a.params.iter().any(|d| d.name == name)).map(|a| a.name).collect();
        return Err(AppError::Param(if takers.is_empty() {
            format!("unknown parameter {name} for {app}")
        } else {
            format!("{name} does not apply to {app} (it applies to {})", takers.join(", "))
        }));
    }
    Ok(())
}

/// A type-erased output, read back only by the application that made it.
pub type AnyOutput = Box<dyn Any + Send + Sync>;

/// A run of an application chosen at run time.
pub type AppRun = Run<AnyOutput>;

/// A reference run of an application chosen at run time.
pub type AppRefRun = RefRun<AnyOutput>;

/// An application prepared on one input, chosen by name at run time (the
/// object-safe face of [`Prepared`]).
pub trait PreparedApp: Send + Sync {
    /// The application's registration.
    fn info(&self) -> &'static AppInfo;
    /// The parameters as resolved on this input.
    fn params(&self) -> Fields;
    /// Checks a strategy text and returns its canonical form (every
    /// parameter spelled out, as reports name it).
    fn check_strategy(&self, text: &str) -> Result<String, AppError>;
    /// One parallel run with the strategy `strategy` (text).
    fn run(&self, env: &RunEnv<'_>, strategy: &str) -> Result<AppRun, AppError>;
    /// One run of the sequential reference.
    fn reference(&self) -> Result<AppRefRun, AppError>;
    /// Checks `run` against `reference`.
    fn verify(&self, run: &AppRun, reference: &AppRefRun) -> Result<(), AppError>;
    /// Measures that need the reference.
    fn verified_metrics(&self, run: &AppRun, reference: &AppRefRun) -> Fields;
    /// Writes the result of `run` as text.
    fn write_out(&self, run: &AppRun, out: &mut dyn Write) -> io::Result<()>;
}

/// The output of an erased run, as the application that produced it typed it.
fn typed<'r, T: 'static>(app: &str, output: &'r AnyOutput) -> Result<&'r T, AppError> {
    output
        .downcast_ref::<T>()
        .ok_or_else(|| AppError::Failed(format!("{app}: a result of another application was passed back")))
}

impl<A: Algorithm> PreparedApp for Prepared<A> {
    fn info(&self) -> &'static AppInfo {
        find(A::NAME).expect("an application prepared through the registry is registered")
    }

    fn params(&self) -> Fields {
        self.app.params()
    }

    fn check_strategy(&self, text: &str) -> Result<String, AppError> {
        canonical_strategy::<A>(text)
    }

    fn run(&self, env: &RunEnv<'_>, strategy: &str) -> Result<AppRun, AppError> {
        let strategy = Prepared::<A>::strategy(Some(strategy))?;
        Ok(Prepared::run(self, env, &strategy)?.map_output(|o| Box::new(o) as AnyOutput))
    }

    fn reference(&self) -> Result<AppRefRun, AppError> {
        Ok(self.app.reference()?.map_output(|o| Box::new(o) as AnyOutput))
    }

    fn verify(&self, run: &AppRun, reference: &AppRefRun) -> Result<(), AppError> {
        let got = typed::<A::Output>(A::NAME, &run.output)?;
        let want = typed::<A::Reference>(A::NAME, &reference.output)?;
        self.app.verify(got, want)
    }

    fn verified_metrics(&self, run: &AppRun, reference: &AppRefRun) -> Fields {
        match (typed::<A::Output>(A::NAME, &run.output), typed::<A::Reference>(A::NAME, &reference.output)) {
            (Ok(got), Ok(want)) => self.app.verified_metrics(got, want),
            _ => Fields::new(),
        }
    }

    fn write_out(&self, run: &AppRun, out: &mut dyn Write) -> io::Result<()> {
        let got = typed::<A::Output>(A::NAME, &run.output).map_err(io::Error::other)?;
        self.app.write_out(got, out)
    }
}

/// An application's registration: what front ends need to offer it.
pub struct AppInfo {
    /// [`Algorithm::NAME`].
    pub name: &'static str,
    /// [`Algorithm::ABOUT`].
    pub about: &'static str,
    /// [`Algorithm::PARAMS`].
    pub params: &'static [&'static ParamDef],
    /// [`Algorithm::CYCLES`].
    pub cycles: bool,
    /// [`Algorithm::OUT_FORMAT`].
    pub out_format: &'static str,
    /// [`Algorithm::NEEDS_GRAPH`].
    pub needs_graph: bool,
    /// [`Algorithm::READS_WEIGHTS`].
    pub reads_weights: bool,
    /// [`Algorithm::READS_COORDS`].
    pub reads_coords: bool,
    /// [`Algorithm::RUN_MEMORY`].
    pub run_memory: WorkingMemory,
    /// [`Algorithm::REFERENCE_MEMORY`].
    pub reference_memory: WorkingMemory,
    /// [`Strategy::FLAG`] of its strategy.
    pub strategy_flag: &'static str,
    /// [`Strategy::VALUE_NAME`] of its strategy.
    pub strategy_value_name: &'static str,
    /// [`Strategy::HELP`] of its strategy.
    pub strategy_help: &'static str,
    /// [`Algorithm::DEFAULT_STRATEGY`].
    pub default_strategy: &'static str,
    prepare: PrepareFn,
    check_strategy: fn(&str) -> Result<String, AppError>,
}

/// How the registry prepares an application chosen at run time.
type PrepareFn = fn(Arc<Graph>, Params) -> Result<Box<dyn PreparedApp>, AppError>;

impl fmt::Debug for AppInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppInfo").field("name", &self.name).finish_non_exhaustive()
    }
}

fn prepare_boxed<A: Algorithm>(graph: Arc<Graph>, params: Params) -> Result<Box<dyn PreparedApp>, AppError> {
    Ok(Box::new(Prepared::<A>::new(graph, params)?))
}

fn canonical_strategy<A: Algorithm>(text: &str) -> Result<String, AppError> {
    Prepared::<A>::strategy(Some(text)).map(|s| s.to_string())
}

impl AppInfo {
    /// The registration of `A`.
    pub const fn of<A: Algorithm>() -> AppInfo {
        AppInfo {
            name: A::NAME,
            about: A::ABOUT,
            params: A::PARAMS,
            cycles: A::CYCLES,
            out_format: A::OUT_FORMAT,
            needs_graph: A::NEEDS_GRAPH,
            reads_weights: A::READS_WEIGHTS,
            reads_coords: A::READS_COORDS,
            run_memory: A::RUN_MEMORY,
            reference_memory: A::REFERENCE_MEMORY,
            strategy_flag: <A::Strategy as Strategy>::FLAG,
            strategy_value_name: <A::Strategy as Strategy>::VALUE_NAME,
            strategy_help: <A::Strategy as Strategy>::HELP,
            default_strategy: A::DEFAULT_STRATEGY,
            prepare: prepare_boxed::<A>,
            check_strategy: canonical_strategy::<A>,
        }
    }

    /// The memory beyond the graph of one run, with its verification when
    /// `verify` (both are alive at once: the run's result is compared with
    /// the reference's).
    pub fn working_memory(&self, verify: bool) -> WorkingMemory {
        let run = self.run_memory;
        if !verify {
            return run;
        }
        let reference = self.reference_memory;
        WorkingMemory {
            per_vertex: run.per_vertex.saturating_add(reference.per_vertex),
            per_edge: run.per_edge.saturating_add(reference.per_edge),
        }
    }

    /// Checks a strategy text for this application (without a graph) and
    /// returns its canonical form; the error names the flag.
    pub fn check_strategy(&self, text: &str) -> Result<String, AppError> {
        (self.check_strategy)(text)
    }

    /// Checks that every parameter in `params` is one this application
    /// declares (without a graph; values are checked by preparation).
    pub fn check_params(&self, params: &Params) -> Result<(), AppError> {
        check_params_apply(self.name, self.params, params)
    }

    /// Prepares the application on `graph` with `params` (see
    /// [`Prepared::new`]).
    pub fn prepare(&self, graph: Arc<Graph>, params: Params) -> Result<Box<dyn PreparedApp>, AppError> {
        (self.prepare)(graph, params)
    }

    /// Whether the application declares the parameter `name`.
    pub fn takes(&self, name: &str) -> bool {
        self.params.iter().any(|p| p.name == name)
    }
}

/// Every application, in the order help texts list them. Adding one is one
/// line here (module docs).
pub static APPS: &[AppInfo] = &[
    AppInfo::of::<crate::sssp::app::Sssp>(),
    AppInfo::of::<crate::bfs::app::Bfs>(),
    AppInfo::of::<crate::astar::app::Astar>(),
    AppInfo::of::<crate::pagerank::app::Pr>(),
    AppInfo::of::<crate::pagerank::app::PrD>(),
    AppInfo::of::<crate::mst::app::Mst>(),
    AppInfo::of::<crate::spanning::app::SpanDfs>(),
    AppInfo::of::<crate::spanning::app::SpanBfs>(),
    AppInfo::of::<crate::cc::app::Cc>(),
    AppInfo::of::<crate::pr_pull::app::PrPull>(),
    AppInfo::of::<crate::tc::app::Tc>(),
    AppInfo::of::<crate::bc::app::Bc>(),
    AppInfo::of::<crate::loop_micro::app::LoopMicro>(),
];

/// The application named `name`; the error lists the known ones.
pub fn find(name: &str) -> Result<&'static AppInfo, AppError> {
    APPS.iter().find(|a| a.name == name).ok_or_else(|| {
        let known: Vec<&str> = APPS.iter().map(|a| a.name).collect();
        AppError::Param(format!("unknown application `{name}` (known: {})", known.join(", ")))
    })
}

/// Every parameter some application declares, once each (first declaration
/// wins; the definitions of one name agree), with the applications taking
/// it: what a front end offers.
pub fn all_params() -> Vec<(&'static ParamDef, Vec<&'static str>)> {
    let mut out: Vec<(&'static ParamDef, Vec<&'static str>)> = Vec::new();
    for app in APPS {
        for &def in app.params {
            match out.iter_mut().find(|(d, _)| d.name == def.name) {
                Some((_, apps)) => apps.push(app.name),
                None => out.push((def, vec![app.name])),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_found() {
        for (i, a) in APPS.iter().enumerate() {
            assert!(APPS[..i].iter().all(|b| b.name != a.name), "{} registered twice", a.name);
            assert_eq!(find(a.name).unwrap().name, a.name);
            assert!(!a.about.is_empty() && !a.out_format.is_empty());
        }
        let e = find("nope").unwrap_err().to_string();
        assert!(e.starts_with("unknown application `nope` (known: sssp, bfs"), "{e}");
    }

    #[test]
    fn parameter_definitions_of_one_name_agree() {
        for app in APPS {
            for def in app.params {
                for other in APPS.iter().flat_map(|o| o.params.iter()).filter(|d| d.name == def.name) {
                    assert_eq!(*def, *other, "two definitions of `{}`", def.name);
                }
            }
        }
    }

    #[test]
    fn parameters_that_do_not_apply_are_errors_naming_who_takes_them() {
        let graph = Arc::new(ordo_graph::EdgeList::new(3, false).into_graph().unwrap());
        let prep = |app: &str, p: Params| find(app).unwrap().prepare(graph.clone(), p).map(|_| ());
        let e = prep("sssp", Params::new().with("alpha", "0.5")).unwrap_err().to_string();
        assert_eq!(e, "alpha does not apply to sssp (it applies to pr, pr-d, pr-pull)");
        let e = prep("bfs", Params::new().with("target", "1")).unwrap_err().to_string();
        assert_eq!(e, "target does not apply to bfs (it applies to astar)");
        let e = prep("pr", Params::new().with_flag("classify")).unwrap_err().to_string();
        assert_eq!(e, "classify does not apply to pr (it applies to sssp, bfs, astar)");
        let e = prep("mst", Params::new().with("bogus", "1")).unwrap_err().to_string();
        assert_eq!(e, "unknown parameter bogus for mst");
        prep("pr", Params::new().with("alpha", "0.5")).unwrap();
    }
}
