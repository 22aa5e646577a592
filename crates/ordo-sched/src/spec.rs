//! Parsing scheduler specifications such as `obim:delta=14,chunk=64` and
//! dispatching them to concrete scheduler types.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A bad scheduler specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// The `key=value` parameters of a spec. A scheduler's config takes the keys
/// it knows with the `take_*` methods and then calls [`Params::finish`], which
/// rejects whatever is left, naming the keys that exist.
#[derive(Clone, Debug, Default)]
pub struct Params {
    scheduler: String,
    values: BTreeMap<String, String>,
    known: Vec<&'static str>,
}

impl Params {
    /// Parses `k=v,k=v` (possibly empty) for scheduler `scheduler`.
    pub fn parse(scheduler: &str, text: &str) -> Result<Self, SpecError> {
        let mut values = BTreeMap::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                SpecError(format!("{scheduler}: parameter `{part}` is not of the form key=value"))
            })?;
            if values.insert(k.trim().to_string(), v.trim().to_string()).is_some() {
                return Err(SpecError(format!("{scheduler}: parameter `{}` given twice", k.trim())));
            }
        }
        Ok(Params { scheduler: scheduler.to_string(), values, known: Vec::new() })
    }

    fn take_str(&mut self, key: &'static str) -> Option<String> {
        self.known.push(key);
        self.values.remove(key)
    }

    /// An unsigned integer parameter, `default` when absent.
    pub fn take_u64(&mut self, key: &'static str, default: u64) -> Result<u64, SpecError> {
        match self.take_str(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| {
                SpecError(format!("{}: `{key}={v}`: expected a non-negative integer", self.scheduler))
            }),
        }
    }

    /// A string parameter, `default` when absent.
    pub fn take_str_or(&mut self, key: &'static str, default: &str) -> Result<String, SpecError> {
        Ok(self.take_str(key).unwrap_or_else(|| default.to_string()))
    }

    /// An unsigned integer parameter that may be `auto`: `Ok(None)` for
    /// `auto`, `default` when absent.
    pub fn take_u64_or_auto(
        &mut self,
        key: &'static str,
        default: Option<u64>,
    ) -> Result<Option<u64>, SpecError> {
        match self.take_str(key) {
            None => Ok(default),
            Some(v) if v == "auto" => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| {
                SpecError(format!(
                    "{}: `{key}={v}`: expected `auto` or a non-negative integer",
                    self.scheduler
                ))
            }),
        }
    }

    /// A `usize` parameter, `default` when absent.
    pub fn take_usize(&mut self, key: &'static str, default: usize) -> Result<usize, SpecError> {
        self.take_u64(key, default as u64).map(|v| v as usize)
    }

    /// A probability given as a decimal (`0.125`) or a fraction (`1/8`),
    /// `default` when absent; must lie in [0, 1].
    pub fn take_prob(&mut self, key: &'static str, default: f64) -> Result<f64, SpecError> {
        let Some(v) = self.take_str(key) else { return Ok(default) };
        let bad = || {
            SpecError(format!("{}: `{key}={v}`: expected a probability like 0.125 or 1/8", self.scheduler))
        };
        let p = match v.split_once('/') {
            Some((a, b)) => {
                let a: f64 = a.trim().parse().map_err(|_| bad())?;
                let b: f64 = b.trim().parse().map_err(|_| bad())?;
                a / b
            }
            None => v.parse().map_err(|_| bad())?,
        };
        if (0.0..=1.0).contains(&p) {
            Ok(p)
        } else {
            Err(bad())
        }
    }

    /// A boolean parameter (`true`/`false`/`1`/`0`/`on`/`off`), `default`
    /// when absent.
    pub fn take_bool(&mut self, key: &'static str, default: bool) -> Result<bool, SpecError> {
        match self.take_str(key).as_deref() {
            None => Ok(default),
            Some("true" | "1" | "on" | "yes") => Ok(true),
            Some("false" | "0" | "off" | "no") => Ok(false),
            Some(v) => Err(SpecError(format!("{}: `{key}={v}`: expected true or false", self.scheduler))),
        }
    }

    /// An unsigned integer parameter that must lie in `lo..=hi`, `default`
    /// when absent.
    pub fn take_in_range(
        &mut self,
        key: &'static str,
        default: u64,
        lo: u64,
        hi: u64,
    ) -> Result<u64, SpecError> {
        let v = self.take_u64(key, default)?;
        if !(lo..=hi).contains(&v) {
            return Err(SpecError(format!("{}: `{key}={v}`: expected {lo} to {hi}", self.scheduler)));
        }
        Ok(v)
    }

    /// The `chunk` parameter of the chunked schedulers (tasks per chunk,
    /// `0..=`[`MAX_CHUNK`](crate::chunk::MAX_CHUNK), default
    /// [`DEFAULT_CHUNK`](crate::chunk::DEFAULT_CHUNK)).
    ///
    /// `chunk=0` is the PMOD paper's `c0`, "chunking disabled" (§6.2.5):
    /// every Enq and Deq touches the shared structures. A chunk of one task
    /// is exactly that (a push publishes its chunk at once, a pop takes one
    /// task from the shared bag), so 0 is read as 1 and the run reports
    /// `chunk=1`.
    pub fn take_chunk(&mut self) -> Result<usize, SpecError> {
        let (default, max) = (crate::chunk::DEFAULT_CHUNK as u64, crate::chunk::MAX_CHUNK as u64);
        self.take_in_range("chunk", default, 0, max).map(|c| c.max(1) as usize)
    }

    /// Rejects parameters no `take_*` call asked for.
    pub fn finish(self) -> Result<(), SpecError> {
        if let Some(k) = self.values.keys().next() {
            let known = if self.known.is_empty() { "none".to_string() } else { self.known.join(", ") };
            return Err(SpecError(format!(
                "{}: unknown parameter `{k}` (parameters: {known})",
                self.scheduler
            )));
        }
        Ok(())
    }
}

/// The configuration of one scheduler, parsed from the parameters of a spec.
pub trait SchedConfig: Clone + fmt::Debug + PartialEq + Sized {
    /// Reads the parameters this scheduler knows (absent ones take their
    /// defaults). [`Params::finish`] is called afterwards by the parser.
    fn from_params(p: &mut Params) -> Result<Self, SpecError>;

    /// Every parameter with its value, e.g. `delta=0,chunk=64`, so that a run
    /// records the full configuration it used.
    fn to_params(&self) -> String;
}

/// A scheduler that can be built from its configuration for a thread count.
pub trait BuildScheduler<T: Send>: crate::Scheduler<T> + Sized {
    /// Its configuration type.
    type Config: SchedConfig;
    /// A new, empty scheduler for `threads` worker threads.
    fn build(threads: usize, cfg: &Self::Config) -> Self;
}

/// Declares every scheduler: its variant in [`SchedulerSpec`], its name in
/// specs, its type (generic over the task type) and its config type.
macro_rules! schedulers {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $ty:ident, $cfg:ty; )*) => {
        /// A scheduler chosen at run time, with its configuration.
        #[derive(Clone, Debug, PartialEq)]
        pub enum SchedulerSpec {
            $( $(#[$doc])* $variant($cfg), )*
        }

        impl SchedulerSpec {
            /// The names of every registered scheduler.
            pub fn names() -> &'static [&'static str] {
                &[$($name),*]
            }

            /// The scheduler's name.
            pub fn name(&self) -> &'static str {
                match self { $( SchedulerSpec::$variant(_) => $name, )* }
            }

            /// The full parameter list, e.g. `delta=0,chunk=64`.
            pub fn params(&self) -> String {
                match self { $( SchedulerSpec::$variant(c) => c.to_params(), )* }
            }

            /// Builds the scheduler for `threads` threads and hands it to
            /// `visitor`, monomorphised for its concrete type.
            #[allow(unreachable_code, unused_variables)]
            pub fn build<T: Send, V: crate::SchedulerVisitor<T>>(&self, threads: usize, visitor: V) -> V::Output {
                match self {
                    $( SchedulerSpec::$variant(c) => visitor.visit(<$ty<T> as BuildScheduler<T>>::build(threads, c)), )*
                }
            }
        }

        impl FromStr for SchedulerSpec {
            type Err = SpecError;

            fn from_str(s: &str) -> Result<Self, SpecError> {
                let s = s.trim();
                let (name, text) = s.split_once(':').unwrap_or((s, ""));
                let (name, text) = resolve_named(name, text);
                let (name, text) = (name, text.as_str());
                let mut params = Params::parse(name, text)?;
                let spec = match name {
                    $( $name => SchedulerSpec::$variant(<$cfg as SchedConfig>::from_params(&mut params)?), )*
                    _ => return Err(SpecError(format!(
                        "unknown scheduler `{name}` (schedulers: {}; named configurations: {})",
                        SchedulerSpec::names().join(", "),
                        NAMED_CONFIGS.iter().map(|c| c.name).collect::<Vec<_>>().join(", ")
                    ))),
                };
                params.finish()?;
                Ok(spec)
            }
        }
    };
}

/// A name that stands for a scheduler with some parameters set: a
/// configuration the papers name (PMOD paper §6), usable wherever a spec is,
/// with further parameters after a colon (`obim-D:chunk=32`), which win
/// over the preset ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedConfig {
    /// The name (matched without regard to case).
    pub name: &'static str,
    /// The scheduler it configures.
    pub scheduler: &'static str,
    /// Its parameters, `key=value,...`.
    pub params: &'static str,
    /// What it is, with its source.
    pub about: &'static str,
}

/// The named configurations.
pub const NAMED_CONFIGS: &[NamedConfig] = &[
    NamedConfig {
        name: "obim-D",
        scheduler: "obim",
        params: "delta=8",
        about: "obim with Galois's default delta 8: the PMOD paper's obim-D (§6)",
    },
    NamedConfig {
        name: "pmod-paper",
        scheduler: "pmod",
        params: "guard=false",
        about: "PMOD with the paper's Fig. 4 checks only (no guard on unmerging); `pmod` adds the guard",
    },
];

/// `name` and `text` with a named configuration replaced by its scheduler
/// and preset parameters (those `text` sets itself left out).
fn resolve_named<'a>(name: &'a str, text: &str) -> (&'a str, String) {
    let Some(named) = NAMED_CONFIGS.iter().find(|c| c.name.eq_ignore_ascii_case(name)) else {
        return (name, text.to_string());
    };
    let given: Vec<&str> = text.split(',').filter_map(|p| p.split_once('=')).map(|(k, _)| k.trim()).collect();
    let preset =
        named.params.split(',').filter(|p| p.split_once('=').is_some_and(|(k, _)| !given.contains(&k)));
    let merged: Vec<&str> = preset.chain(text.split(',').map(str::trim).filter(|p| !p.is_empty())).collect();
    (named.scheduler, merged.join(","))
}

// Registration: one line per scheduler.
use crate::auto::{Auto, AutoConfig};
use crate::fifo::{ChunkedConfig, Fifo};
use crate::lifo::Lifo;
use crate::mq::{MqConfig, MultiQueue};
use crate::obim::{Obim, ObimConfig};
use crate::pmod::{Pmod, PmodConfig};
use crate::reld::{Reld, ReldConfig};
use crate::smq::{SmqConfig, SmqSkipConfig, SmqSkipList, StealingMultiQueue};
use crate::spraylist::{SprayConfig, SprayList};
use crate::strict::{self, Strict};
schedulers! {
    /// One locked binary heap: exact order.
    Strict => "strict", Strict, strict::StrictConfig;
    /// A chunked unordered bag, chunk-FIFO (baseline).
    Fifo => "fifo", Fifo, ChunkedConfig;
    /// A chunked unordered bag, chunk-LIFO (baseline).
    Lifo => "lifo", Lifo, ChunkedConfig;
    /// A bag per priority `p >> delta` (Galois obim, PMOD paper §2.2).
    Obim => "obim", Obim, ObimConfig;
    /// obim with adaptive priority merging (PMOD paper §4).
    Pmod => "pmod", Pmod, PmodConfig;
    /// The classic Multi-Queue and its optimisations (SMQ paper §2.1, §4, App. C, E).
    Mq => "mq", MultiQueue, MqConfig;
    /// The Stealing Multi-Queue (SMQ paper §2.2, §4, Listings 2 and 4).
    Smq => "smq", StealingMultiQueue, SmqConfig;
    /// The Stealing Multi-Queue with skip-list local queues (SMQ paper §2.2).
    SmqSkipList => "smq-skiplist", SmqSkipList, SmqSkipConfig;
    /// The SprayList: a lock-free skip list with random-walk (spray) deletes (PMOD paper §2.2).
    SprayList => "spraylist", SprayList, SprayConfig;
    /// Random enqueue, local dequeue (PMOD paper §2.2).
    Reld => "reld", Reld, ReldConfig;
    /// Per-thread Δ-stepping buckets with an online-adapted width, shared on demand.
    Auto => "auto", Auto, AutoConfig;
}

impl SchedulerSpec {
    /// The spec to use where the scheduler is driven through its handles,
    /// pop by pop, without the executor (the simulator, a distributed
    /// rank's local queue): `auto`'s rounds need the executor's barriers,
    /// so `auto` becomes `auto:mode=async` (its handles); every other spec
    /// is returned unchanged.
    pub fn handle_driven(&self) -> SchedulerSpec {
        match self {
            SchedulerSpec::Auto(cfg) if cfg.mode == crate::auto::Mode::Rounds => {
                SchedulerSpec::Auto(AutoConfig { mode: crate::auto::Mode::Async, ..cfg.clone() })
            }
            other => other.clone(),
        }
    }
}

impl fmt::Display for SchedulerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = self.params();
        if params.is_empty() {
            f.write_str(self.name())
        } else {
            write!(f, "{}:{}", self.name(), params)
        }
    }
}

#[cfg(test)]
mod named_config_tests {
    use super::*;

    #[test]
    fn named_configurations_expand_to_their_scheduler() {
        let parse = |s: &str| s.parse::<SchedulerSpec>().unwrap();
        assert_eq!(parse("obim-D"), parse("obim:delta=8"));
        assert_eq!(parse("OBIM-d:chunk=32"), parse("obim:delta=8,chunk=32"));
        assert_eq!(parse("obim-D:delta=14"), parse("obim:delta=14"), "given parameters win");
        assert_eq!(parse("pmod-paper"), parse("pmod:guard=false"));
        assert_ne!(parse("pmod-paper"), parse("pmod"));
        let e = "obim-x".parse::<SchedulerSpec>().unwrap_err();
        assert!(e.0.contains("pmod-paper"), "{e}");
        assert!("pmod-paper:guard=true,guard=false".parse::<SchedulerSpec>().is_err());
    }

    #[test]
    fn pmod_starts_from_the_given_merging_factor() {
        let SchedulerSpec::Pmod(cfg) = "pmod:lmf=14".parse::<SchedulerSpec>().unwrap() else { panic!() };
        assert_eq!(cfg.start_lmf, 14);
        assert!(cfg.to_params().contains("lmf=14"));
        assert!("pmod:lmf=64".parse::<SchedulerSpec>().is_err());
    }
}
