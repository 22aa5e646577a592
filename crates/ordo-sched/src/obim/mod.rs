//! `obim` ("ordered by integer metric"), faithful to the PMOD paper §2.2 and
//! Galois' `OrderedByIntegerMetric` (Galois source): one bag
//! per priority `p >> delta`, each bag a set of per-socket FIFO queues of
//! chunks; a thread buffers pushes in a private chunk per bag, pops whole
//! chunks, keeps working on its current bag until it is empty, and finds bags
//! through a per-thread cached copy of a global map (see [`ordered`]).

pub mod ordered;

#[cfg(all(test, not(loom)))]
mod test;

use crate::spec::{Params, SchedConfig, SpecError};
use crate::Prio;

pub use ordered::{Ordered, OrderedHandle, Policy};

/// Configuration of [`Obim`].
#[derive(Clone, Debug, PartialEq)]
pub struct ObimConfig {
    /// Priorities are grouped by `p >> delta` (`delta`, default 0, at most 63).
    pub delta: u32,
    /// Tasks per chunk (`chunk`, default 64).
    pub chunk: usize,
}

impl Default for ObimConfig {
    fn default() -> Self {
        ObimConfig { delta: 0, chunk: crate::chunk::DEFAULT_CHUNK }
    }
}

impl SchedConfig for ObimConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let delta = p.take_u64("delta", 0)?;
        if delta > 63 {
            return Err(SpecError(format!("obim: `delta={delta}`: expected 0 to 63")));
        }
        Ok(ObimConfig { delta: delta as u32, chunk: p.take_chunk()? })
    }

    fn to_params(&self) -> String {
        format!("delta={},chunk={}", self.delta, self.chunk)
    }
}

/// obim's policy: the key is `p >> delta`; no adaptation.
pub struct ObimPolicy {
    delta: u32,
}

impl Policy for ObimPolicy {
    type Key = u64;
    type Local = ();
    type Config = ObimConfig;

    fn new(_threads: usize, cfg: &ObimConfig) -> Self {
        ObimPolicy { delta: cfg.delta.min(63) }
    }

    fn chunk(cfg: &ObimConfig) -> usize {
        cfg.chunk
    }

    #[inline]
    fn key(&self, prio: Prio) -> u64 {
        prio >> self.delta
    }
}

/// The `obim` scheduler.
pub type Obim<T> = Ordered<T, ObimPolicy>;
