//! Interleaving policies: which virtual thread performs the next scheduler
//! operation.
//!
//! - `round-robin`: threads `0, 1, …, N−1, 0, 1, …` — every thread runs at
//!   the same speed, in lock step.
//! - `random`: a uniformly random thread at every step (the uniform
//!   scheduling distribution of the SMQ paper's analysis, γ = 0).
//! - `skewed[:gamma=G]` (default G = 0.5): thread `i` is chosen with a
//!   fixed probability `π_i`, the stochastic scheduler of the SMQ paper's
//!   analysis (stealing-multiqueue-2021 §3, Theorem 1), whose unfairness
//!   bound is `1 − γ ≤ 1/(π_i N) ≤ 1 + γ`. Here `π_i N` falls linearly from
//!   `2 − 1/(1 + G)` for thread 0 (the fastest) to `1/(1 + G)` for thread
//!   `N − 1` (the slowest), so the probabilities sum to 1 and
//!   `1/(π_i N)` lies in `[(1 + G)/(1 + 2G), 1 + G]`, inside the bound with
//!   `γ = G`: the slowest thread sits exactly at the bound. `G` lies in
//!   `[0, 1)`; the theorem needs `γ ≤ 1/2`.

use std::fmt;
use std::str::FromStr;

use crate::costs::Clocks;
use crate::rng::SplitMix64;
use crate::SimError;

/// How the simulator interleaves the virtual threads' operations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Policy {
    /// Threads in turn, one operation each.
    #[default]
    RoundRobin,
    /// A uniformly random thread per operation.
    Random,
    /// A random thread per operation, thread `i` with a fixed probability
    /// falling linearly with `i`, within the SMQ paper's unfairness bound
    /// `γ = gamma` (module docs).
    Skewed {
        /// The unfairness γ, in `[0, 1)`.
        gamma: f64,
    },
}

/// The default unfairness of `skewed`.
pub const DEFAULT_GAMMA: f64 = 0.5;

impl FromStr for Policy {
    type Err = SimError;

    fn from_str(s: &str) -> Result<Self, SimError> {
        let bad = |why: &str| {
            SimError::Policy(format!("`{s}`: {why} (policies: round-robin, random, skewed[:gamma=G])"))
        };
        let (name, params) = s.trim().split_once(':').unwrap_or((s.trim(), ""));
        match name {
            "round-robin" | "random" if !params.trim().is_empty() => Err(bad("takes no parameters")),
            "round-robin" => Ok(Policy::RoundRobin),
            "random" => Ok(Policy::Random),
            "skewed" => {
                let mut gamma = DEFAULT_GAMMA;
                for part in params.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    match part.split_once('=') {
                        Some(("gamma", v)) => {
                            gamma = v.trim().parse().map_err(|_| bad("`gamma` is not a number"))?;
                        }
                        _ => return Err(bad(&format!("unknown parameter `{part}`"))),
                    }
                }
                if !(0.0..1.0).contains(&gamma) {
                    return Err(bad("`gamma` must lie in [0, 1)"));
                }
                Ok(Policy::Skewed { gamma })
            }
            _ => Err(bad("unknown policy")),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::RoundRobin => f.write_str("round-robin"),
            Policy::Random => f.write_str("random"),
            Policy::Skewed { gamma } => write!(f, "skewed:gamma={gamma}"),
        }
    }
}

/// Draws the virtual thread of each step: by the policy, or, when the
/// simulation counts cycles, the thread whose clock is earliest
/// ([`crate::costs`]).
#[derive(Clone, Debug)]
pub(crate) struct Interleaver {
    threads: usize,
    next: usize,
    rng: SplitMix64,
    /// Skewed: cumulative probabilities, last one 1.
    cumulative: Vec<f64>,
    policy: Policy,
    clocks: Option<Clocks>,
}

impl Interleaver {
    /// The interleaving of `threads >= 1` threads under `policy`, seeded.
    pub(crate) fn new(policy: Policy, threads: usize, seed: u64) -> Self {
        let cumulative = match policy {
            Policy::Skewed { gamma } => skewed_cumulative(threads, gamma),
            _ => Vec::new(),
        };
        Interleaver { threads, next: 0, rng: SplitMix64::new(seed), cumulative, policy, clocks: None }
    }

    /// The interleaving `cfg` asks for: by clocks when it counts cycles,
    /// else by its policy.
    pub(crate) fn of(cfg: &crate::SimConfig) -> Self {
        let mut i = Interleaver::new(cfg.policy, cfg.vthreads, cfg.seed);
        if cfg.costs.is_some() {
            i.clocks = Some(Clocks::new(cfg.vthreads));
        }
        i
    }

    /// The clocks, when the interleaving follows them.
    pub(crate) fn clocks(&mut self) -> Option<&mut Clocks> {
        self.clocks.as_mut()
    }

    /// The thread of the next step.
    pub(crate) fn next_thread(&mut self) -> usize {
        if let Some(clocks) = &mut self.clocks {
            return clocks.next_thread();
        }
        match self.policy {
            Policy::RoundRobin => {
                let t = self.next;
                self.next = if t + 1 == self.threads { 0 } else { t + 1 };
                t
            }
            Policy::Random => self.rng.below(self.threads),
            Policy::Skewed { .. } => {
                let u = self.rng.unit();
                self.cumulative.partition_point(|&c| c <= u).min(self.threads - 1)
            }
        }
    }
}

/// The probabilities of the skewed policy (module docs).
pub(crate) fn skewed_probabilities(threads: usize, gamma: f64) -> Vec<f64> {
    if threads == 1 {
        return vec![1.0];
    }
    let slowest = 1.0 / (1.0 + gamma);
    let fastest = 2.0 - slowest;
    let n = threads as f64;
    (0..threads).map(|i| (fastest - (fastest - slowest) * i as f64 / (n - 1.0)) / n).collect()
}

fn skewed_cumulative(threads: usize, gamma: f64) -> Vec<f64> {
    let mut acc = 0.0;
    let mut c: Vec<f64> = skewed_probabilities(threads, gamma)
        .into_iter()
        .map(|p| {
            acc += p;
            acc
        })
        .collect();
    if let Some(last) = c.last_mut() {
        *last = 1.0;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!("round-robin".parse::<Policy>().unwrap(), Policy::RoundRobin);
        assert_eq!("random".parse::<Policy>().unwrap(), Policy::Random);
        assert_eq!("skewed".parse::<Policy>().unwrap(), Policy::Skewed { gamma: 0.5 });
        let p: Policy = "skewed:gamma=0.25".parse().unwrap();
        assert_eq!(p.to_string(), "skewed:gamma=0.25");
        assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
        for bad in ["fifo", "random:x=1", "skewed:gamma=1", "skewed:gamma=-0.1", "skewed:delta=2"] {
            let e = bad.parse::<Policy>().unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn round_robin_cycles() {
        let mut i = Interleaver::new(Policy::RoundRobin, 3, 0);
        let got: Vec<usize> = (0..7).map(|_| i.next_thread()).collect();
        assert_eq!(got, vec![0, 1, 2, 0, 1, 2, 0]);
    }

    #[test]
    fn skewed_frequencies_follow_the_bound() {
        let (n, gamma) = (8, 0.5);
        let probs = skewed_probabilities(n, gamma);
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for &p in &probs {
            let inv = 1.0 / (p * n as f64);
            assert!((1.0 - gamma..=1.0 + gamma + 1e-12).contains(&inv), "{inv}");
        }
        assert!(
            (1.0 / (probs[n - 1] * n as f64) - (1.0 + gamma)).abs() < 1e-12,
            "the slowest is at the bound"
        );
        assert_eq!(skewed_probabilities(1, gamma), vec![1.0]);
        let mut i = Interleaver::new(Policy::Skewed { gamma }, n, 5);
        let mut counts = vec![0usize; n];
        let draws = 200_000;
        for _ in 0..draws {
            counts[i.next_thread()] += 1;
        }
        for (c, p) in counts.iter().zip(&probs) {
            let f = *c as f64 / draws as f64;
            assert!((f - p).abs() < 0.01, "{f} vs {p}");
        }
        assert!(counts[0] > counts[n - 1], "thread 0 is the fastest");
    }

    #[test]
    fn random_is_reproducible_from_the_seed() {
        let draw = |seed| {
            let mut i = Interleaver::new(Policy::Random, 64, seed);
            (0..50).map(|_| i.next_thread()).collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }
}
