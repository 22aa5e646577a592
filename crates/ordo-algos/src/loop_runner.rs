//! How the loop kernels ([`pr_pull`](crate::pr_pull), [`tc`](crate::tc),
//! [`bc`](crate::bc), [`loop_micro`](crate::loop_micro)) run their parallel
//! loops: on an ordo-loops runtime with a work distributor (Callisto-RTS), or
//! on rayon, the baseline they are compared with.
//!
//! A [`LoopSpec`] is parsed from `--loop` text: a distributor spec of
//! ordo-loops (`shared`, `striped`, `combining`, `async-combining`, `static`,
//! with `batch=B` and their other parameters) or `rayon` (rayon's adaptive
//! splitting of `par_iter`) or `rayon:batch=B` (`par_iter().with_min_len(B)`:
//! no piece smaller than `B` iterations, rayon's closest analogue of a
//! batch size).

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use ordo_loops::{
    CombiningCounts, DistributorKind, DistributorSpec, LevelMap, LoopBody, Runtime, RuntimeBuilder,
};
use rayon::prelude::*;

use crate::AlgoError;

/// Which runtime runs a kernel's loops, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// An ordo-loops distributor.
    Loops(DistributorSpec),
    /// rayon's `par_iter`, with `with_min_len(min_len)` when given.
    Rayon {
        /// The smallest piece rayon may split a range into.
        min_len: Option<usize>,
    },
}

/// A `--loop` spec: the runtime and distributor of a kernel's loops, and
/// optionally how many threads run them.
///
/// `NAME[:key=value,...]` where `NAME` is an ordo-loops distributor
/// (`shared`, `striped`, `combining`, `async-combining`, `static`, with
/// their parameters) or `rayon` (parameter `batch`: `with_min_len`). Every
/// name also takes `threads=T`: run the loops on `T` threads instead of the
/// run's thread count, so that a benchmark plan can sweep threads and batch
/// size as the two variables of one heatmap (Callisto-RTS Figure 5).
///
/// ```
/// use ordo_algos::loop_runner::LoopSpec;
/// let s: LoopSpec = "shared:batch=4,threads=2".parse().unwrap();
/// assert_eq!((s.batch(), s.threads), (Some(4), Some(2)));
/// assert_eq!(s.to_string(), "shared:batch=4,threads=2");
/// assert_eq!("rayon".parse::<LoopSpec>().unwrap().to_string(), "rayon");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopSpec {
    /// The runtime and distributor.
    pub kind: LoopKind,
    /// The threads to run on, when not the run's.
    pub threads: Option<usize>,
}

impl Default for LoopSpec {
    fn default() -> Self {
        LoopSpec { kind: LoopKind::Loops(DistributorSpec::default()), threads: None }
    }
}

impl LoopSpec {
    /// A spec of `kind` on the run's threads.
    pub fn new(kind: LoopKind) -> Self {
        LoopSpec { kind, threads: None }
    }

    /// Every name `--loop` accepts.
    pub fn names() -> Vec<&'static str> {
        let mut names = DistributorSpec::names();
        names.push("rayon");
        names
    }

    /// The batch size (rayon: the minimum piece length), if it has one.
    pub fn batch(&self) -> Option<usize> {
        match &self.kind {
            LoopKind::Loops(d) => (d.kind() != ordo_loops::DistributorKind::Static).then(|| d.batch()),
            LoopKind::Rayon { min_len } => *min_len,
        }
    }

    /// The threads to run on: `threads=T` if given, else `default`.
    pub fn threads_or(&self, default: usize) -> usize {
        self.threads.unwrap_or(default).max(1)
    }
}

impl fmt::Display for LoopSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = match &self.kind {
            LoopKind::Loops(d) => d.to_string(),
            LoopKind::Rayon { min_len: None } => "rayon".to_string(),
            LoopKind::Rayon { min_len: Some(b) } => format!("rayon:batch={b}"),
        };
        match self.threads {
            None => f.write_str(&base),
            Some(t) => write!(f, "{base}{}threads={t}", if base.contains(':') { ',' } else { ':' }),
        }
    }
}

impl FromStr for LoopSpec {
    type Err = AlgoError;

    fn from_str(text: &str) -> Result<Self, AlgoError> {
        let trimmed = text.trim();
        let (name, params) = trimmed.split_once(':').unwrap_or((trimmed, ""));
        let name = name.trim();
        let mut threads = None;
        let mut rest: Vec<&str> = Vec::new();
        for part in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some((k, v)) if k.trim() == "threads" => {
                    let t: usize = v.trim().parse().ok().filter(|&t| t >= 1).ok_or_else(|| {
                        AlgoError::InvalidParameter(format!(
                            "{name}: `threads={v}`: expected a positive integer"
                        ))
                    })?;
                    if threads.replace(t).is_some() {
                        return Err(AlgoError::InvalidParameter(format!(
                            "{name}: parameter `threads` given twice"
                        )));
                    }
                }
                _ => rest.push(part),
            }
        }
        let kind = if name == "rayon" {
            let mut min_len = None;
            for part in rest {
                let batch = part.strip_prefix("batch=").ok_or_else(|| {
                    AlgoError::InvalidParameter(format!(
                        "rayon: unknown parameter `{part}` (known: batch, threads)"
                    ))
                })?;
                let b: usize = batch.trim().parse().ok().filter(|&b| b >= 1).ok_or_else(|| {
                    AlgoError::InvalidParameter(format!(
                        "rayon: `batch={batch}`: expected a positive integer"
                    ))
                })?;
                if min_len.replace(b).is_some() {
                    return Err(AlgoError::InvalidParameter("rayon: parameter `batch` given twice".into()));
                }
            }
            LoopKind::Rayon { min_len }
        } else {
            let spec = if rest.is_empty() { name.to_string() } else { format!("{name}:{}", rest.join(",")) };
            let d = spec.parse::<DistributorSpec>().map_err(|e| {
                let msg = e.to_string();
                // Name rayon among the known loops too, and `threads` among the parameters.
                AlgoError::InvalidParameter(
                    msg.replace("async-combining, static)", "async-combining, static, rayon)")
                        .replace("(known: batch", "(known: threads, batch")
                        .replace("it takes no parameters", "known: threads"),
                )
            })?;
            LoopKind::Loops(d)
        };
        Ok(LoopSpec { kind, threads })
    }
}

impl crate::app::Strategy for LoopSpec {
    const FLAG: &'static str = "loop";
    const VALUE_NAME: &'static str = "LOOP";
    const HELP: &'static str = "How the parallel loops are scheduled: an ordo-loops distributor \
                                (shared, striped, combining, async-combining, static) or rayon, with \
                                parameters, e.g. `striped:batch=32`, `async-combining:batch=4,level=core`, \
                                `rayon:batch=64`; every name also takes threads=T (run the loops on T \
                                threads). An unknown name or parameter is an error that lists what exists.";

    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| match e {
            AlgoError::InvalidParameter(m) => m,
            e => e.to_string(),
        })
    }
}

/// The strategy of a loop application that has a default kernel:
/// `default`, the application's fastest loops for the input (on the run's
/// [`Pool`](ordo_exec::Pool), chosen per input without a knob, reported in
/// the run's metrics), or a [`LoopSpec`] naming an ordo-loops distributor or
/// rayon, so the papers' runtimes stay available by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopStrategy {
    /// The application's fastest loops.
    Default,
    /// The loops a `--loop` spec names.
    Spec(LoopSpec),
}

impl fmt::Display for LoopStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoopStrategy::Default => f.write_str("default"),
            LoopStrategy::Spec(spec) => spec.fmt(f),
        }
    }
}

impl crate::app::Strategy for LoopStrategy {
    const FLAG: &'static str = "loop";
    const VALUE_NAME: &'static str = "LOOP";
    const HELP: &'static str = "How the parallel loops are scheduled: `default` (the application's fastest \
                                loops for the input), or an ordo-loops distributor (shared, striped, \
                                combining, async-combining, static) or rayon, with parameters, e.g. \
                                `striped:batch=32`, `async-combining:batch=4,level=core`, `rayon:batch=64`; \
                                every name also takes threads=T (run the loops on T threads). An unknown \
                                name or parameter is an error that lists what exists.";

    fn parse(text: &str) -> Result<Self, String> {
        if text.trim() == "default" {
            return Ok(LoopStrategy::Default);
        }
        <LoopSpec as crate::app::Strategy>::parse(text)
            .map(LoopStrategy::Spec)
            .map_err(|e| e.replace("(known: shared", "(known: default, shared"))
    }
}

/// Where a kernel's parallel loops run: a [`LoopRunner`] (a `--loop` spec),
/// the run's [`Pool`](ordo_exec::Pool) ([`PoolLoops`]), or the calling
/// thread ([`Sequential`]). A kernel written against it runs unchanged on
/// each, so the default kernel and the papers' runtimes share one body.
pub trait ParallelLoops: Sync {
    /// The threads the loops run on.
    fn threads(&self) -> usize;

    /// A loop over `range` with per-participant state: every participant
    /// calls `fork` once, `work(state, i)` for the indices it claims, and
    /// `join(state)` when it has no more.
    fn fold<S: Send>(
        &self,
        range: Range<usize>,
        fork: impl Fn() -> S + Sync,
        work: impl Fn(&mut S, usize) + Sync,
        join: impl Fn(S) + Sync,
    );

    /// A loop running `f(i)` for every `i` in `range`.
    fn each(&self, range: Range<usize>, f: impl Fn(usize) + Sync) {
        self.fold(range, || (), |_, i| f(i), |_| ());
    }
}

impl ParallelLoops for LoopRunner {
    fn threads(&self) -> usize {
        self.threads
    }

    fn fold<S: Send>(
        &self,
        range: Range<usize>,
        fork: impl Fn() -> S + Sync,
        work: impl Fn(&mut S, usize) + Sync,
        join: impl Fn(S) + Sync,
    ) {
        self.for_each(range, &ordo_loops::ForkWorkJoin::new(fork, work, join));
    }
}

/// Loops on a [`Pool`](ordo_exec::Pool), claimed `grain` indices at a time
/// ([`Pool::fold_chunks`](ordo_exec::Pool::fold_chunks), OpenMP's
/// `schedule(dynamic, grain)`).
#[derive(Clone, Copy, Debug)]
pub struct PoolLoops<'a> {
    /// The workers.
    pub pool: &'a ordo_exec::Pool,
    /// Indices per claim.
    pub grain: usize,
}

impl ParallelLoops for PoolLoops<'_> {
    fn threads(&self) -> usize {
        self.pool.threads()
    }

    fn fold<S: Send>(
        &self,
        range: Range<usize>,
        fork: impl Fn() -> S + Sync,
        work: impl Fn(&mut S, usize) + Sync,
        join: impl Fn(S) + Sync,
    ) {
        let start = range.start;
        let states = self.pool.fold_chunks(
            range.len(),
            self.grain,
            |_| fork(),
            |state, chunk| {
                for i in chunk {
                    work(state, start + i);
                }
            },
        );
        states.into_iter().for_each(join);
    }
}

/// Loops run on the calling thread, in index order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl ParallelLoops for Sequential {
    fn threads(&self) -> usize {
        1
    }

    fn fold<S: Send>(
        &self,
        range: Range<usize>,
        fork: impl Fn() -> S + Sync,
        work: impl Fn(&mut S, usize) + Sync,
        join: impl Fn(S) + Sync,
    ) {
        let mut state = fork();
        for i in range {
            work(&mut state, i);
        }
        join(state);
    }
}

/// Runs the parallel loops of a kernel on the runtime its [`LoopSpec`] names.
pub struct LoopRunner {
    backend: Backend,
    threads: usize,
}

enum Backend {
    Loops { runtime: Runtime, spec: DistributorSpec },
    Rayon { pool: rayon::ThreadPool, min_len: Option<usize> },
}

impl fmt::Debug for LoopRunner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopRunner")
            .field("spec", &self.spec().to_string())
            .field("threads", &self.threads)
            .finish()
    }
}

impl LoopRunner {
    /// A runner for `spec` on its `threads=T`, else on `threads` threads.
    /// An ordo-loops runtime takes its topology and nesting levels from the
    /// environment (`ORDO_TOPOLOGY`, `ORDO_LOOP_LEVELS`), or `levels` when
    /// given.
    pub fn new(spec: &LoopSpec, threads: usize, levels: Option<LevelMap>) -> Result<Self, AlgoError> {
        let threads = spec.threads_or(threads);
        let err = |e: &dyn fmt::Display| AlgoError::InvalidParameter(e.to_string());
        let backend = match &spec.kind {
            LoopKind::Loops(d) => {
                let mut builder =
                    RuntimeBuilder::from_env().map_err(|e| err(&e))?.threads(threads).distributor(*d);
                if let Some(levels) = levels {
                    builder = builder.levels(levels);
                }
                Backend::Loops { runtime: builder.build().map_err(|e| err(&e))?, spec: *d }
            }
            LoopKind::Rayon { min_len } => Backend::Rayon {
                pool: rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| err(&e))?,
                min_len: *min_len,
            },
        };
        Ok(LoopRunner { backend, threads })
    }

    /// The request-combining counts of the loops run so far when the
    /// distributor combines (`combining`, `async-combining`); `None`
    /// otherwise.
    pub fn combining_counts(&self) -> Option<CombiningCounts> {
        match &self.backend {
            Backend::Loops { runtime, spec }
                if matches!(spec.kind(), DistributorKind::Combining | DistributorKind::AsyncCombining) =>
            {
                Some(runtime.combining_counts())
            }
            _ => None,
        }
    }

    /// A runner over an existing ordo-loops runtime with distributor `spec`.
    pub fn on_runtime(runtime: Runtime, spec: DistributorSpec) -> Self {
        let threads = runtime.threads();
        LoopRunner { backend: Backend::Loops { runtime, spec }, threads }
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The spec the loops run with.
    pub fn spec(&self) -> LoopSpec {
        let kind = match &self.backend {
            Backend::Loops { spec, .. } => LoopKind::Loops(*spec),
            Backend::Rayon { min_len, .. } => LoopKind::Rayon { min_len: *min_len },
        };
        LoopSpec { kind, threads: Some(self.threads) }
    }

    /// The ordo-loops runtime, if the runner uses one.
    pub fn runtime(&self) -> Option<&Runtime> {
        match &self.backend {
            Backend::Loops { runtime, .. } => Some(runtime),
            Backend::Rayon { .. } => None,
        }
    }

    /// A level-0 loop over `range` with per-thread state (on rayon: per
    /// piece of the split, `fold` then `for_each(join)`).
    pub fn for_each<B>(&self, range: Range<usize>, body: &B)
    where
        B: LoopBody,
        B::State: Send,
    {
        self.run(0, range, body, None);
    }

    /// A level-0 loop running `f(i)` for every `i` in `range`.
    pub fn for_each_index(&self, range: Range<usize>, f: impl Fn(usize) + Sync) {
        self.for_each(range, &ordo_loops::Each(f));
    }

    /// A loop at nesting level `level` (Callisto-RTS §2.2), claimed one
    /// iteration at a time (its iterations are large: they run inner
    /// loops). On rayon the level is ignored (rayon nests by work stealing).
    pub fn outer<B>(&self, level: usize, range: Range<usize>, body: &B)
    where
        B: LoopBody,
        B::State: Send,
    {
        self.run(level, range, body, Some(1));
    }

    fn run<B>(&self, level: usize, range: Range<usize>, body: &B, batch: Option<usize>)
    where
        B: LoopBody,
        B::State: Send,
    {
        match &self.backend {
            Backend::Loops { runtime, spec } => {
                let spec = batch.map_or(*spec, |b| spec.with_batch(b));
                runtime.outer_parallel_for(level, &spec, range, body);
            }
            Backend::Rayon { pool, min_len } => pool.install(|| {
                let min_len = batch.or(*min_len).unwrap_or(1);
                range
                    .into_par_iter()
                    .with_min_len(min_len)
                    .fold(
                        || body.fork(),
                        |mut state, i| {
                            body.work(&mut state, i);
                            state
                        },
                    )
                    .for_each(|state| body.join(state));
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_specs_parse_and_print() {
        for text in [
            "rayon",
            "rayon:batch=16",
            "shared:batch=4",
            "static",
            "async-combining:batch=2,level=core,upstream=striped",
        ] {
            assert_eq!(text.parse::<LoopSpec>().unwrap().to_string(), text);
        }
        assert_eq!("rayon:batch=8".parse::<LoopSpec>().unwrap().batch(), Some(8));
        assert_eq!("static".parse::<LoopSpec>().unwrap().batch(), None);
        for (bad, needle) in [
            ("rayon:min=3", "known: batch, threads"),
            ("rayon:batch=0", "positive"),
            ("fancy", "static, rayon)"),
            ("shared:threads=0", "positive"),
            ("shared:threads=1,threads=2", "twice"),
            ("static:batch=2", "known: threads"),
            ("shared:level=core", "known: threads, batch"),
        ] {
            let e = bad.parse::<LoopSpec>().unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn both_backends_run_every_index_with_state() {
        use std::sync::atomic::{AtomicU64, Ordering};
        for spec in ["rayon", "rayon:batch=7", "shared:batch=3", "async-combining:batch=2"] {
            let runner = LoopRunner::new(&spec.parse().unwrap(), 2, None).unwrap();
            let total = AtomicU64::new(0);
            let body = ordo_loops::ForkWorkJoin::new(
                || 0u64,
                |s: &mut u64, i| *s += i as u64,
                |s| {
                    total.fetch_add(s, Ordering::Relaxed);
                },
            );
            runner.for_each(0..1000, &body);
            runner.outer(1, 0..10, &body);
            assert_eq!(total.into_inner(), 499_500 + 45, "{spec}");
        }
    }
}
