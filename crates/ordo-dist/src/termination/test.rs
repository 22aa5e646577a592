//! Randomized interleavings of work, message delivery and termination
//! waves, all in one thread: the detector must never declare termination
//! while an item is outstanding, and must declare it soon after the work
//! is done. A naive single-wave rule run on the same schedules is caught
//! declaring too early, which shows the schedules reach the hard cases.

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{Detector, Verdict};

/// How rank 0 decides after each completed wave.
#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// The real detector.
    Detector,
    /// Terminate as soon as one wave is balanced (wrong).
    SingleWave,
}

/// One simulated system: per-rank counters and queues, items in flight,
/// wave requests and reports in flight.
struct Sim {
    rng: Xoshiro256PlusPlus,
    created: Vec<u64>,
    finished: Vec<u64>,
    queued: Vec<u64>,
    /// Items in flight, by destination.
    in_flight: Vec<usize>,
    /// Wave requests in flight: (destination, wave).
    requests: Vec<(usize, u64)>,
    /// Reports in flight: (wave, created, finished).
    reports: Vec<(u64, u64, u64)>,
    budget: u64,
}

impl Sim {
    fn outstanding(&self) -> u64 {
        self.queued.iter().sum::<u64>() + self.in_flight.len() as u64
    }
}

/// Runs one random schedule; returns whether termination was declared with
/// work outstanding (`Err`) or correctly (`Ok(steps)`).
fn run(seed: u64, ranks: usize, rule: Rule) -> Result<u64, String> {
    let mut s = Sim {
        rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        created: vec![0; ranks],
        finished: vec![0; ranks],
        queued: vec![0; ranks],
        in_flight: Vec::new(),
        requests: Vec::new(),
        reports: Vec::new(),
        budget: 300,
    };
    // The source item, created on rank 0 before any wave.
    s.created[0] = 1;
    s.queued[0] = 1;
    let start = Instant::now();
    let mut det = Detector::new(ranks, start);
    let mut balanced_sums: Option<(u64, u64)> = None;
    for step in 0..200_000u64 {
        // Virtual time: 10 µs per step, so backoffs pass.
        let now = start + std::time::Duration::from_micros(10 * step);
        let action = s.rng.random_range(0..6u32);
        match action {
            // A rank runs one of its items: creates children, then finishes it.
            0 | 1 => {
                let r = s.rng.random_range(0..ranks);
                if s.queued[r] > 0 {
                    s.queued[r] -= 1;
                    let children = if s.budget > 0 { s.rng.random_range(0..4u64) } else { 0 };
                    s.budget = s.budget.saturating_sub(children);
                    for _ in 0..children {
                        s.created[r] += 1;
                        let dest = s.rng.random_range(0..ranks);
                        s.in_flight.push(dest);
                    }
                    s.finished[r] += 1;
                }
            }
            // An item arrives; half of the arrivals are handled at once
            // (not improving: finished), the rest are queued.
            2 if !s.in_flight.is_empty() => {
                let i = s.rng.random_range(0..s.in_flight.len());
                let r = s.in_flight.swap_remove(i);
                if s.rng.random_bool(0.5) {
                    s.finished[r] += 1;
                } else {
                    s.queued[r] += 1;
                }
            }
            // Rank 0 starts a wave.
            3 => {
                let own = (s.created[0], s.finished[0]);
                if let Some(w) = det.try_start(|| own, now) {
                    for r in 1..ranks {
                        s.requests.push((r, w));
                    }
                    if ranks == 1 {
                        let v = match rule {
                            Rule::Detector => det.complete_single(now),
                            Rule::SingleWave => {
                                if own.0 == own.1 {
                                    Verdict::Terminated
                                } else {
                                    Verdict::Continue
                                }
                            }
                        };
                        if v == Verdict::Terminated {
                            return check(&s, step);
                        }
                    } else {
                        balanced_sums = Some(own);
                    }
                }
            }
            // A rank answers a wave request with its counters now.
            4 if !s.requests.is_empty() => {
                let i = s.rng.random_range(0..s.requests.len());
                let (r, w) = s.requests.swap_remove(i);
                s.reports.push((w, s.created[r], s.finished[r]));
            }
            // Rank 0 receives a report.
            5 if !s.reports.is_empty() => {
                let i = s.rng.random_range(0..s.reports.len());
                let (w, c, f) = s.reports.swap_remove(i);
                match rule {
                    Rule::Detector => {
                        if det.report(w, (c, f), now) == Verdict::Terminated {
                            return check(&s, step);
                        }
                    }
                    Rule::SingleWave => {
                        let sums = balanced_sums.as_mut().expect("a wave is out");
                        sums.0 += c;
                        sums.1 += f;
                        let before = det.waiting;
                        det.report(w, (c, f), now);
                        if before == 1 && sums.0 == sums.1 {
                            return check(&s, step);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Err(format!("seed {seed}: no termination declared in 200000 steps (outstanding {})", s.outstanding()))
}

fn check(s: &Sim, step: u64) -> Result<u64, String> {
    if s.outstanding() == 0 {
        Ok(step)
    } else {
        Err(format!("declared at step {step} with {} items outstanding", s.outstanding()))
    }
}

#[test]
fn never_early_and_always_terminates() {
    for ranks in 1..=5 {
        for seed in 0..400 {
            if let Err(e) = run(seed, ranks, Rule::Detector) {
                panic!("{ranks} ranks, seed {seed}: {e}");
            }
        }
    }
}

#[test]
fn a_single_balanced_wave_is_not_enough() {
    let early = (0..400).filter(|&seed| run(seed, 3, Rule::SingleWave).is_err()).count();
    assert!(early > 0, "the schedules never catch the single-wave rule: the test has no teeth");
}

#[test]
fn detector_waits_for_all_reports_and_ignores_old_waves() {
    let now = Instant::now();
    let mut d = Detector::new(3, now);
    assert_eq!(d.try_start(|| (5, 5), now), Some(1));
    assert_eq!(d.try_start(|| (5, 5), now), None, "one wave at a time");
    assert_eq!(d.report(1, (2, 2), now), Verdict::Pending);
    assert_eq!(d.report(1, (1, 1), now), Verdict::Continue, "first balanced wave only arms");
    assert_eq!(d.try_start(|| (5, 5), now), Some(2));
    assert_eq!(d.report(1, (9, 0), now), Verdict::Pending, "old wave ignored");
    assert_eq!(d.report(2, (2, 2), now), Verdict::Pending);
    assert_eq!(d.report(2, (1, 1), now), Verdict::Terminated);
    assert_eq!(d.waves(), 2);

    let mut d = Detector::new(2, now);
    d.try_start(|| (3, 3), now);
    assert_eq!(d.report(1, (1, 1), now), Verdict::Continue);
    assert_eq!(d.try_start(|| (4, 4), now), Some(2));
    assert_eq!(d.report(2, (1, 1), now), Verdict::Continue, "balanced but different sums");
    assert_eq!(d.try_start(|| (4, 4), now), Some(3));
    assert_eq!(d.report(3, (2, 1), now), Verdict::Continue, "unbalanced");
    assert_eq!(d.try_start(|| (4, 4), now), None, "backoff after an unbalanced wave");
}
