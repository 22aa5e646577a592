//! Distributed SSSP: Distributed Control (DC) in the paper's variants, run
//! by the runtime's scheduler loop, and the distributed Δ-stepping baseline.
//!
//! | variant | what (DC-SSSP paper §4–5) |
//! |---------|------|
//! | `np` | no plug-in: arriving items become ordinary handler tasks that push into the rank's priority queue; a drain task (an ordinary task) pops and relaxes, yielding every `freq` items — DC as the HPX-5 libPXGL code writes it inside the application |
//! | `dc` | plug-in scheduler over the rank's priority queue; the producer returns `None` only when the queue is empty, so the network progresses only then |
//! | `ff` | as `dc`, and the producer hands control back every `freq` items (fixed frequency) |
//! | `af` | as `ff` with an adaptive frequency: when the queue grew since the producer last handed control back (network progress brought work) `freq` decreases by one, otherwise it increases by one, within `freq_min..=freq_max` |
//! | `fc` | `ff` plus flow control (the paper's DC_ff,fc): every `send_threshold`-th send of a thread asks for an acknowledgement; the producer returns `None` while the rank has more than `sync_threshold` acknowledgements outstanding |
//! | `af+fc` | `af` plus flow control (the paper's best, DC_af,fc) |
//! | `delta` | Δ-stepping (Meyer and Sanders), bulk-synchronous: every phase of every bucket ends with a global exchange |

mod dc;
mod delta;

pub(crate) use dc::run_dc;
pub use dc::Relax;
pub(crate) use delta::run_delta;

use std::fmt;
use std::str::FromStr;

/// Which algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// DC without a plug-in scheduler (ordinary tasks).
    Np,
    /// DC with the plug-in scheduler, network progress only when idle.
    Dc,
    /// DC, network progress at a fixed frequency.
    Ff,
    /// DC, network progress at an adaptive frequency.
    Af,
    /// DC, fixed frequency and flow control.
    Fc,
    /// DC, adaptive frequency and flow control.
    AfFc,
    /// Distributed Δ-stepping.
    Delta,
}

impl Variant {
    /// Every variant, in the paper's order, then Δ-stepping.
    pub const ALL: [Variant; 7] =
        [Variant::Np, Variant::Dc, Variant::Ff, Variant::Af, Variant::Fc, Variant::AfFc, Variant::Delta];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Np => "np",
            Variant::Dc => "dc",
            Variant::Ff => "ff",
            Variant::Af => "af",
            Variant::Fc => "fc",
            Variant::AfFc => "af+fc",
            Variant::Delta => "delta",
        }
    }

    /// Whether the producer hands control back every `freq` items.
    pub(crate) fn has_frequency(self) -> bool {
        matches!(self, Variant::Ff | Variant::Af | Variant::Fc | Variant::AfFc)
    }

    /// Whether `freq` adapts.
    pub(crate) fn adaptive(self) -> bool {
        matches!(self, Variant::Af | Variant::AfFc)
    }

    /// Whether flow control is on.
    pub(crate) fn flow_control(self) -> bool {
        matches!(self, Variant::Fc | Variant::AfFc)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
            format!("unknown variant `{s}` (variants: {})", Variant::ALL.map(Variant::name).join(", "))
        })
    }
}

/// Parameters of the DC variants. `None` fields take their defaults,
/// resolved per run by [`DcParams::resolve`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DcParams {
    /// Items per round before control goes back to the runtime (`ff`, `fc`,
    /// `np`'s yield; the starting value of `af`). Default 128.
    pub freq: Option<u32>,
    /// Least adaptive frequency. Default 16.
    pub freq_min: Option<u32>,
    /// Largest adaptive frequency. Default 1024.
    pub freq_max: Option<u32>,
    /// Every this many sends of a thread, one asks for an acknowledgement.
    /// Default: scaled from the paper's 10000 by the edges each rank sends
    /// (see [`default_send_threshold`]).
    pub send_threshold: Option<u64>,
    /// The producer stops while more acknowledgements than this are
    /// outstanding. Default 2 (the paper's).
    pub sync_threshold: Option<u64>,
}

/// [`DcParams`] with every value fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResolvedDcParams {
    /// See [`DcParams::freq`].
    pub freq: u32,
    /// See [`DcParams::freq_min`].
    pub freq_min: u32,
    /// See [`DcParams::freq_max`].
    pub freq_max: u32,
    /// See [`DcParams::send_threshold`].
    pub send_threshold: u64,
    /// See [`DcParams::sync_threshold`].
    pub sync_threshold: u64,
}

/// The paper's best flow-control setting (Fig. 2: scale-25 Graph500 graph
/// on 64 nodes): one acknowledged send every 10000 sends, at most 2
/// outstanding.
pub const PAPER_SEND_THRESHOLD: u64 = 10_000;
/// See [`PAPER_SEND_THRESHOLD`].
pub const PAPER_SYNC_THRESHOLD: u64 = 2;
/// Relax messages one node sends in the paper's setting when every edge is
/// relaxed once: a scale-25 Graph500 graph has `2^25 · 16` undirected
/// edges, `2^30` directed ones, of which a node owns 1/64 and sends 63/64
/// away.
pub const PAPER_REMOTE_EDGES_PER_NODE: u64 = (1u64 << 30) / 64 * 63 / 64;

/// The default `send_threshold` for ranks that own `remote_edges` edges
/// leading to other ranks (on average): the paper's 10000 scaled by the
/// ratio of `remote_edges` to the paper's per-node figure, clamped to
/// `16..=10000`.
///
/// Why scale by the traffic: with `sync_threshold` fixed, `send_threshold ×
/// sync_threshold` is the window of items a rank may send before it must
/// wait for an acknowledgement. In the paper that window (20000) is about
/// 1/800 of what a node sends in a sweep over its edges; keeping that
/// fraction keeps the same number of flow-control round trips per sweep at
/// our sizes (e.g. Kronecker scale 18 on 4 ranks: about 1.4 M remote edges
/// per rank, send_threshold ≈ 860).
pub fn default_send_threshold(remote_edges: u64) -> u64 {
    let scaled =
        (remote_edges as u128 * PAPER_SEND_THRESHOLD as u128 / PAPER_REMOTE_EDGES_PER_NODE as u128) as u64;
    scaled.clamp(16, PAPER_SEND_THRESHOLD)
}

impl DcParams {
    /// Fills in the defaults; `remote_edges` is the mean number of edges
    /// per rank that lead to another rank.
    pub fn resolve(&self, remote_edges: u64) -> Result<ResolvedDcParams, String> {
        let freq = self.freq.unwrap_or(128);
        let freq_min = self.freq_min.unwrap_or(16.min(freq));
        let freq_max = self.freq_max.unwrap_or(1024.max(freq));
        if freq == 0 || freq_min == 0 || freq_min > freq || freq > freq_max {
            return Err(format!(
                "frequencies must satisfy 1 <= freq_min <= freq <= freq_max (got {freq_min}, {freq}, {freq_max})"
            ));
        }
        let send_threshold = self.send_threshold.unwrap_or_else(|| default_send_threshold(remote_edges));
        if send_threshold == 0 {
            return Err("send_threshold must be at least 1".into());
        }
        let sync_threshold = self.sync_threshold.unwrap_or(PAPER_SYNC_THRESHOLD);
        Ok(ResolvedDcParams { freq, freq_min, freq_max, send_threshold, sync_threshold })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_print() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>().unwrap(), v);
        }
        assert!("xx".parse::<Variant>().unwrap_err().contains("af+fc"));
    }

    #[test]
    fn send_threshold_scales_with_traffic() {
        assert_eq!(default_send_threshold(PAPER_REMOTE_EDGES_PER_NODE), PAPER_SEND_THRESHOLD);
        assert_eq!(default_send_threshold(u64::MAX / 1_000_000), PAPER_SEND_THRESHOLD);
        assert_eq!(default_send_threshold(0), 16);
        let k18 = default_send_threshold(1_400_000);
        assert!((800..900).contains(&k18), "{k18}");
        let p = DcParams::default().resolve(1_400_000).unwrap();
        assert_eq!((p.freq, p.freq_min, p.freq_max, p.sync_threshold), (128, 16, 1024, 2));
        assert!(DcParams { freq: Some(0), ..DcParams::default() }.resolve(1).is_err());
        assert!(DcParams { freq_min: Some(200), ..DcParams::default() }.resolve(1).is_err());
    }
}
