//! Distributor specifications such as `striped:level=core,batch=16` or
//! `async-combining:batch=4`: which work distributor a loop uses (Callisto-RTS
//! §3) and its parameters, parsed from the same `NAME[:key=value,...]` form
//! as ordo's scheduler specifications.

use std::fmt;
use std::str::FromStr;

use crate::error::LoopError;

/// The environment variable holding the default distributor of a runtime
/// built with [`RuntimeBuilder::from_env`](crate::RuntimeBuilder::from_env).
pub const LOOP_ENV: &str = "ORDO_LOOP";

/// The batch size of a spec that names none: 32 iterations per claim, the
/// batch size Callisto-RTS uses in its comparison with Galois (§4.2, Galois'
/// default).
pub const DEFAULT_BATCH: usize = 32;

/// Which work distributor hands out a loop's iterations (Callisto-RTS §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DistributorKind {
    /// One shared counter, claimed with fetch-and-add: the OpenMP `dynamic`
    /// schedule.
    Shared,
    /// The iteration space split evenly into stripes, one per thread, core or
    /// socket of the loop; each thread claims from its home stripe first,
    /// then from the others in turn.
    Striped,
    /// Per-core or per-socket request combiners in front of the counters:
    /// a thread posts a request in its slot and one thread per combiner
    /// claims work for every posted request at once.
    Combining,
    /// Combining where a thread posts its request for the next batch before
    /// it runs the current one, so that others can serve it meanwhile.
    AsyncCombining,
    /// A static partition: one contiguous block per participating thread,
    /// claimed whole (OpenMP `static`); a block whose thread does not take
    /// part is claimed by another. A baseline, not a Callisto distributor.
    Static,
}

impl DistributorKind {
    /// Every distributor, in the order the documentation lists them.
    pub const ALL: [DistributorKind; 5] = [
        DistributorKind::Shared,
        DistributorKind::Striped,
        DistributorKind::Combining,
        DistributorKind::AsyncCombining,
        DistributorKind::Static,
    ];

    /// The name used in specs.
    pub fn name(self) -> &'static str {
        match self {
            DistributorKind::Shared => "shared",
            DistributorKind::Striped => "striped",
            DistributorKind::Combining => "combining",
            DistributorKind::AsyncCombining => "async-combining",
            DistributorKind::Static => "static",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// A unit of the machine: the granularity of stripes, of combiners, and of
/// nesting levels ([`LevelMap`](crate::LevelMap)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Granularity {
    /// Every hardware thread (every worker thread of the runtime).
    Thread,
    /// Every core: the threads that share a core's L1/L2 caches.
    Core,
    /// Every socket (NUMA package).
    Socket,
}

impl Granularity {
    /// The name used in specs.
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Thread => "thread",
            Granularity::Core => "core",
            Granularity::Socket => "socket",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "thread" => Some(Granularity::Thread),
            "core" => Some(Granularity::Core),
            "socket" => Some(Granularity::Socket),
            _ => None,
        }
    }
}

impl fmt::Display for Granularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a combiner gets the work it hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Upstream {
    /// One counter for the whole loop.
    Shared,
    /// One stripe per combiner (per core or per socket), home stripe first:
    /// the paper's "per-core counters with asynchronous combining".
    Striped,
}

impl Upstream {
    fn name(self) -> &'static str {
        match self {
            Upstream::Shared => "shared",
            Upstream::Striped => "striped",
        }
    }
}

/// A parsed distributor specification: `NAME[:key=value,...]`.
///
/// | name | parameters (defaults) |
/// |---|---|
/// | `shared` | `batch=32` |
/// | `striped` | `batch=32`, `level=thread\|core\|socket` (`thread`) |
/// | `combining` | `batch=32`, `level=core\|socket` (`core`), `upstream=striped\|shared` (`striped`) |
/// | `async-combining` | as `combining` |
/// | `static` | — |
///
/// `batch` is the number of iterations a thread claims at a time; `level`
/// the granularity of the stripes (striped) or of the combiners (combining:
/// the threads of one core, or of one socket, share a combiner);
/// `upstream=striped` gives the combiners stripes of their own granularity.
/// The default, [`DistributorSpec::default`], is per-thread striped counters
/// with batches of 32, the paper's choice for Intel machines (§4.1).
///
/// ```
/// use ordo_loops::{DistributorKind, DistributorSpec};
/// let spec: DistributorSpec = "async-combining:batch=4".parse().unwrap();
/// assert_eq!(spec.kind(), DistributorKind::AsyncCombining);
/// assert_eq!(spec.to_string(), "async-combining:batch=4,level=core,upstream=striped");
/// assert!("fancy".parse::<DistributorSpec>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DistributorSpec {
    kind: DistributorKind,
    batch: usize,
    level: Granularity,
    upstream: Upstream,
}

impl Default for DistributorSpec {
    fn default() -> Self {
        DistributorSpec::new(DistributorKind::Striped)
    }
}

impl DistributorSpec {
    /// The distributor `kind` with its default parameters.
    pub fn new(kind: DistributorKind) -> Self {
        let level = match kind {
            DistributorKind::Combining | DistributorKind::AsyncCombining => Granularity::Core,
            _ => Granularity::Thread,
        };
        DistributorSpec { kind, batch: DEFAULT_BATCH, level, upstream: Upstream::Striped }
    }

    /// The same spec with batch size `batch` (at least 1; ignored by `static`).
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }

    /// The same spec with stripes / combiners per `level`. `combining` and
    /// `async-combining` take `Core` or `Socket` (a per-thread combiner would
    /// never combine): `Thread` is an error.
    pub fn with_level(mut self, level: Granularity) -> Result<Self, LoopError> {
        self.check_level(level)?;
        self.level = level;
        Ok(self)
    }

    /// The same combining spec with the given upstream counters.
    pub fn with_upstream(mut self, upstream: Upstream) -> Self {
        self.upstream = upstream;
        self
    }

    /// Which distributor.
    pub fn kind(&self) -> DistributorKind {
        self.kind
    }

    /// Iterations per claim.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Granularity of the stripes or combiners.
    pub fn level(&self) -> Granularity {
        self.level
    }

    /// The combiners' upstream counters.
    pub fn upstream(&self) -> Upstream {
        self.upstream
    }

    /// Loops of at most this many iterations run on their caller alone:
    /// one batch cannot be shared.
    pub(crate) fn inline_len(&self) -> u64 {
        match self.kind {
            DistributorKind::Static => 1,
            _ => self.batch as u64,
        }
    }

    /// The names of every distributor, for error messages and help texts.
    pub fn names() -> Vec<&'static str> {
        DistributorKind::ALL.iter().map(|k| k.name()).collect()
    }

    fn check_level(&self, level: Granularity) -> Result<(), LoopError> {
        let combining = matches!(self.kind, DistributorKind::Combining | DistributorKind::AsyncCombining);
        if combining && level == Granularity::Thread {
            return Err(LoopError::Spec(format!(
                "{}: `level=thread`: a combiner serves the threads of one core or socket (expected level=core or level=socket)",
                self.kind.name()
            )));
        }
        Ok(())
    }
}

impl fmt::Display for DistributorSpec {
    /// The full spec, every parameter spelled out (what a run reports).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DistributorKind::Static => f.write_str("static"),
            DistributorKind::Shared => write!(f, "shared:batch={}", self.batch),
            DistributorKind::Striped => write!(f, "striped:batch={},level={}", self.batch, self.level),
            DistributorKind::Combining | DistributorKind::AsyncCombining => write!(
                f,
                "{}:batch={},level={},upstream={}",
                self.kind.name(),
                self.batch,
                self.level,
                self.upstream.name()
            ),
        }
    }
}

impl FromStr for DistributorSpec {
    type Err = LoopError;

    /// Parses `NAME[:key=value,...]`; an unknown name or key, a bad value or
    /// a key given twice is an error naming what exists.
    fn from_str(text: &str) -> Result<Self, LoopError> {
        let text = text.trim();
        let (name, params) = text.split_once(':').unwrap_or((text, ""));
        let name = name.trim();
        let kind = DistributorKind::from_name(name).ok_or_else(|| {
            LoopError::Spec(format!(
                "unknown loop distributor `{name}` (known: {})",
                DistributorSpec::names().join(", ")
            ))
        })?;
        let mut spec = DistributorSpec::new(kind);
        let known: &[&str] = match kind {
            DistributorKind::Static => &[],
            DistributorKind::Shared => &["batch"],
            DistributorKind::Striped => &["batch", "level"],
            DistributorKind::Combining | DistributorKind::AsyncCombining => &["batch", "level", "upstream"],
        };
        let mut seen: Vec<&str> = Vec::new();
        for part in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                LoopError::Spec(format!("{name}: parameter `{part}` is not of the form key=value"))
            })?;
            let (key, value) = (key.trim(), value.trim());
            if !known.contains(&key) {
                let expected = if known.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("known: {}", known.join(", "))
                };
                return Err(LoopError::Spec(format!("{name}: unknown parameter `{key}` ({expected})")));
            }
            if seen.contains(&key) {
                return Err(LoopError::Spec(format!("{name}: parameter `{key}` given twice")));
            }
            seen.push(key);
            match key {
                "batch" => {
                    let b: usize = value.parse().ok().filter(|&b| b >= 1).ok_or_else(|| {
                        LoopError::Spec(format!("{name}: `batch={value}`: expected a positive integer"))
                    })?;
                    spec.batch = b;
                }
                "level" => {
                    let level = Granularity::parse(value).ok_or_else(|| {
                        LoopError::Spec(format!("{name}: `level={value}`: expected thread, core or socket"))
                    })?;
                    spec = spec.with_level(level)?;
                }
                "upstream" => {
                    spec.upstream = match value {
                        "shared" => Upstream::Shared,
                        "striped" => Upstream::Striped,
                        _ => {
                            return Err(LoopError::Spec(format!(
                                "{name}: `upstream={value}`: expected shared or striped"
                            )))
                        }
                    }
                }
                _ => unreachable!("keys are checked against `known`"),
            }
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_display() {
        for text in [
            "shared:batch=1",
            "striped:batch=32,level=thread",
            "striped:batch=7,level=socket",
            "combining:batch=4,level=core,upstream=striped",
            "async-combining:batch=1024,level=socket,upstream=shared",
            "static",
        ] {
            let spec: DistributorSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!("striped".parse::<DistributorSpec>().unwrap(), DistributorSpec::default());
        assert_eq!(" shared : batch = 8 ".parse::<DistributorSpec>().unwrap().batch(), 8);
    }

    #[test]
    fn bad_specs_name_the_problem() {
        for (text, needle) in [
            ("fancy", "known: shared, striped, combining, async-combining, static"),
            ("shared:batch=0", "positive integer"),
            ("shared:batch=x", "positive integer"),
            ("shared:level=core", "unknown parameter `level`"),
            ("static:batch=4", "takes no parameters"),
            ("striped:level=numa", "thread, core or socket"),
            ("combining:level=thread", "level=core or level=socket"),
            ("combining:upstream=tree", "shared or striped"),
            ("striped:batch=1,batch=2", "given twice"),
            ("striped:batch", "key=value"),
        ] {
            let e = text.parse::<DistributorSpec>().unwrap_err().to_string();
            assert!(e.contains(needle), "`{text}`: {e}");
        }
    }
}
