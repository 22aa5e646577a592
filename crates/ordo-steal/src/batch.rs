//! Batch sizes: how many newly found items a frame collects before it
//! stashes them as one new frame (XWS §3.3, "Batching").
//!
//! Thieves steal one frame, so one batch, at a time. Small batches spread
//! work early (a root must be stealable on its own); large ones amortise the
//! deque operations once everybody is busy. XWS's adaptive rule uses the
//! worker's own now-deque size `Q` as the estimate of stealing pressure: a
//! batch is pushed once it holds `min(2^Q, S)` items. For phased
//! computations (BFS) the now-deque says nothing about the *next* phase, so
//! the batch size there is predicted from the work the worker saw in the
//! previous phase ([`PhaseEstimate`]).

use std::fmt;
use std::str::FromStr;

/// The paper's best threshold on both of its machines (Table 1, normalised
/// to `S = 128`), and the default cap `S` of [`BatchPolicy::Adaptive`].
pub const DEFAULT_MAX_BATCH: u32 = 128;

/// The default fraction of the previous phase's per-worker work used as the
/// next phase's batch size by [`PhaseEstimate`]: a quarter, so that each
/// worker's next-phase work forms about four stealable batches or more.
pub const DEFAULT_PHASE_FRACTION: f64 = 0.25;

/// How large a batch grows before it is pushed as a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchPolicy {
    /// XWS's adaptive batching: `min(2^Q, max)`, `Q` the now-deque size
    /// (in a phased computation: the [`PhaseEstimate`]).
    Adaptive {
        /// The threshold `S`.
        max: u32,
    },
    /// Always the same size (`S = 1` is plain one-vertex-per-frame search).
    Fixed(u32),
}

impl Default for BatchPolicy {
    fn default() -> Self {
        BatchPolicy::Adaptive { max: DEFAULT_MAX_BATCH }
    }
}

impl BatchPolicy {
    /// The batch size for a worker whose now-deque holds `queued` frames.
    #[inline]
    pub fn limit(&self, queued: usize) -> u32 {
        match *self {
            BatchPolicy::Fixed(s) => s.max(1),
            BatchPolicy::Adaptive { max } => {
                let max = max.max(1);
                if queued >= 31 {
                    max
                } else {
                    (1u32 << queued).min(max)
                }
            }
        }
    }

    /// The largest batch this policy ever asks for.
    pub fn max(&self) -> u32 {
        match *self {
            BatchPolicy::Fixed(s) | BatchPolicy::Adaptive { max: s } => s.max(1),
        }
    }
}

impl fmt::Display for BatchPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BatchPolicy::Adaptive { max } if max == DEFAULT_MAX_BATCH => f.write_str("adaptive"),
            BatchPolicy::Adaptive { max } => write!(f, "adaptive:{max}"),
            BatchPolicy::Fixed(s) => write!(f, "{s}"),
        }
    }
}

/// A batch policy string that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchPolicyError(String);

impl fmt::Display for BatchPolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "batch `{}`: expected `adaptive`, `adaptive:S` or a fixed size S (an integer from 1 to 2^20)",
            self.0
        )
    }
}

impl std::error::Error for BatchPolicyError {}

/// Largest batch size accepted from a string.
const MAX_PARSED_BATCH: u32 = 1 << 20;

impl FromStr for BatchPolicy {
    type Err = BatchPolicyError;

    /// `adaptive`, `adaptive:S`, or `S` (fixed), with `1 <= S <= 2^20`.
    fn from_str(s: &str) -> Result<Self, BatchPolicyError> {
        let t = s.trim();
        let size = |x: &str| match x.parse::<u32>() {
            Ok(v) if (1..=MAX_PARSED_BATCH).contains(&v) => Ok(v),
            _ => Err(BatchPolicyError(s.to_string())),
        };
        if t == "adaptive" {
            Ok(BatchPolicy::default())
        } else if let Some(max) = t.strip_prefix("adaptive:") {
            Ok(BatchPolicy::Adaptive { max: size(max)? })
        } else {
            Ok(BatchPolicy::Fixed(size(t)?))
        }
    }
}

/// A worker's predictive batch estimate for a phased computation (XWS §3.3,
/// adaptive BFS): "each thread uses its estimate of average workload in the
/// previous phase to control batch size", a constant multiple of it bounded
/// by a minimum (1) and a maximum (`S`).
///
/// The estimate is the larger of the items this worker processed in the
/// previous phase and those it processed so far in the current one (a
/// worker that skipped the previous phase, or steals its first frame, learns
/// from the current phase instead of pushing single items).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseEstimate {
    phase: u64,
    previous: u64,
    current: u64,
}

impl PhaseEstimate {
    /// Starts a frame in `phase`: rolls the counters over when the worker
    /// entered a new phase (the previous count only counts if the phase is
    /// the one right after it).
    #[inline]
    pub fn enter(&mut self, phase: u64) {
        if phase != self.phase {
            self.previous = if phase == self.phase + 1 { self.current } else { 0 };
            self.current = 0;
            self.phase = phase;
        }
    }

    /// Records `items` processed in the current phase.
    #[inline]
    pub fn processed(&mut self, items: u64) {
        self.current += items;
    }

    /// The batch size for the next phase's items: `fraction` of the
    /// estimate, between 1 and `policy`'s maximum for
    /// [`BatchPolicy::Adaptive`]; the fixed size for [`BatchPolicy::Fixed`].
    #[inline]
    pub fn limit(&self, policy: &BatchPolicy, fraction: f64) -> u32 {
        match *policy {
            BatchPolicy::Fixed(s) => s.max(1),
            BatchPolicy::Adaptive { max } => {
                let estimate = self.previous.max(self.current) as f64 * fraction;
                (estimate as u64).clamp(1, u64::from(max.max(1))) as u32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_limit_doubles_with_the_queue_up_to_the_cap() {
        let p = BatchPolicy::Adaptive { max: 128 };
        let limits: Vec<u32> = (0..10).map(|q| p.limit(q)).collect();
        assert_eq!(limits, [1, 2, 4, 8, 16, 32, 64, 128, 128, 128]);
        assert_eq!(p.limit(usize::MAX), 128);
        assert_eq!(BatchPolicy::Adaptive { max: 100 }.limit(7), 100);
        assert_eq!(BatchPolicy::Fixed(7).limit(0), 7);
        assert_eq!(BatchPolicy::Fixed(7).limit(30), 7);
    }

    #[test]
    fn parses_and_prints() {
        assert_eq!("adaptive".parse::<BatchPolicy>().unwrap(), BatchPolicy::default());
        assert_eq!("adaptive:64".parse::<BatchPolicy>().unwrap(), BatchPolicy::Adaptive { max: 64 });
        assert_eq!(" 2048 ".parse::<BatchPolicy>().unwrap(), BatchPolicy::Fixed(2048));
        for bad in ["0", "-1", "x", "adaptive:0", "adaptive:", "1048577", ""] {
            let e = bad.parse::<BatchPolicy>().unwrap_err().to_string();
            assert!(e.contains("expected `adaptive`"), "{bad}: {e}");
        }
        for p in [BatchPolicy::default(), BatchPolicy::Adaptive { max: 7 }, BatchPolicy::Fixed(3)] {
            assert_eq!(p.to_string().parse::<BatchPolicy>().unwrap(), p);
        }
    }

    #[test]
    fn phase_estimate_follows_the_previous_phase() {
        let p = BatchPolicy::Adaptive { max: 128 };
        let mut e = PhaseEstimate::default();
        e.enter(0);
        assert_eq!(e.limit(&p, 0.25), 1);
        e.processed(40);
        assert_eq!(e.limit(&p, 0.25), 10, "learns within the phase");
        e.enter(1);
        assert_eq!(e.limit(&p, 0.25), 10, "previous phase: 40 items");
        e.processed(4000);
        assert_eq!(e.limit(&p, 0.25), 128, "capped at S");
        e.enter(5);
        assert_eq!(e.limit(&p, 0.25), 1, "jumped phases: no previous estimate");
        assert_eq!(e.limit(&BatchPolicy::Fixed(9), 0.25), 9);
    }
}
