//! The bucket width controller of one thread: it watches what the run does
//! and moves `shift` (the bucket width is `2^shift`) toward the width at
//! which a bucket holds about `density` tasks.
//!
//! # Why tasks per bucket
//! The best Δ of Δ-stepping differs by orders of magnitude between inputs
//! (about 15 times the mean weight on road networks, a fiftieth of it on Kronecker graphs)
//! because what matters is not the weights but how many tasks a bucket
//! gets: too few and the per-bucket cost (finding the next bucket, for a
//! parallel run the hand-over of work) dominates; too many and tasks run
//! before their distance is final and are redone. ρ-stepping (Dong et al.,
//! SPAA'21) fixes the number of vertices per step instead of Δ for the same
//! reason; PMOD (Yesil et al., SC'19, §4) merges priority levels when bags
//! are sparse and splits them when they are long. This controller measures
//! the tasks per visited bucket directly and steers the width, in powers of
//! two, to keep it in `[density / 2, 2 · density]`.
//!
//! # The rule
//! A window closes at a bucket transition once it holds at least
//! [`MIN_WINDOW`] pops and at least half as many pops as tasks are queued
//! (so the redistribution a change costs is paid by the pops of the
//! window). Then, with `d` = pops per visited bucket in the window:
//! - if more than an eighth of the window's pushes went beyond the ring
//!   (the overflow), widen by at least one: the queued priorities span more
//!   buckets than the ring holds;
//! - else if `d < density / 2`, widen by `floor(log2(density / d))`;
//! - else if `d > 2 · density`, narrow by `floor(log2(d / density))`.
//!
//! Steps are capped at [`MAX_STEP`] so one odd window cannot jump across
//! the whole range.

use super::buckets::PushCounts;

/// Smallest number of pops in a window.
pub(crate) const MIN_WINDOW: u64 = 64;
/// Largest change of `shift` in one decision.
pub(crate) const MAX_STEP: u32 = 6;

/// The counters of the current window and the decision rule.
#[derive(Clone, Debug)]
pub(crate) struct Controller {
    /// Wanted tasks per bucket; 0 disables adaptation (fixed width).
    density: u64,
    pops: u64,
    transitions: u64,
    /// The push counts when the window opened.
    window_start: PushCounts,
    /// Pops of the windows closed so far.
    closed_pops: u64,
    /// Decisions taken so far.
    pub(crate) changes: u64,

    /// Buckets entered since the start.
    pub(crate) buckets_visited: u64,
    /// Empty buckets stepped over since the start.
    pub(crate) buckets_skipped: u64,
}

impl Controller {
    /// A controller aiming at `density` tasks per bucket; `density == 0`
    /// keeps the width fixed.
    pub(crate) fn new(density: u64) -> Self {
        Controller {
            density,
            pops: 0,
            transitions: 0,
            window_start: PushCounts::default(),
            closed_pops: 0,
            changes: 0,

            buckets_visited: 0,
            buckets_skipped: 0,
        }
    }

    #[inline]
    pub(crate) fn on_pop(&mut self) {
        self.pops += 1;
    }

    /// Successful pops since the start.
    pub(crate) fn total_pops(&self) -> u64 {
        self.closed_pops + self.pops
    }

    /// A new bucket became current after `skipped` empty ones; `counts`
    /// are the buckets' push counts. Returns the new shift when the window
    /// closes with a change.
    #[inline]
    pub(crate) fn on_transition(
        &mut self,
        skipped: u64,
        shift: u32,
        queued: usize,
        counts: PushCounts,
    ) -> Option<u32> {
        self.transitions += 1;
        self.buckets_visited += 1;
        self.buckets_skipped += skipped;
        if self.density == 0 || self.pops < MIN_WINDOW || self.pops < queued as u64 / 2 {
            return None;
        }
        self.decide(shift, counts)
    }

    /// Closes the window: the new shift, if it changes.
    #[cold]
    fn decide(&mut self, shift: u32, counts: PushCounts) -> Option<u32> {
        let density = self.pops as f64 / self.transitions.max(1) as f64;
        let target = self.density as f64;
        let pushes = counts.pushes - self.window_start.pushes;
        let far = counts.far - self.window_start.far;
        let far_heavy = far * 8 > pushes;
        self.window_start = counts;
        self.closed_pops += self.pops;
        self.pops = 0;
        self.transitions = 0;
        let widen = (target / density).log2().floor().max(0.0) as u32;
        let new = if far_heavy || density < target / 2.0 {
            shift + widen.clamp(1, MAX_STEP)
        } else if density > target * 2.0 {
            shift.saturating_sub(((density / target).log2().floor() as u32).clamp(1, MAX_STEP))
        } else {
            shift
        }
        .min(63);
        (new != shift).then(|| {
            self.changes += 1;
            new
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds a window of `pops` pops over `transitions` buckets; returns
    /// push counts with `pushes` more pushes, `far` of them far.
    fn window(
        c: &mut Controller,
        counts: &mut PushCounts,
        pops: u64,
        transitions: u64,
        pushes: u64,
        far: u64,
    ) -> PushCounts {
        counts.pushes += pushes;
        counts.far += far;
        for _ in 0..pops {
            c.on_pop();
        }
        c.transitions = transitions - 1;
        *counts
    }

    #[test]
    fn sparse_buckets_widen_dense_ones_narrow_in_range_stays() {
        let mut c = Controller::new(16);
        let mut n = PushCounts::default();
        let w = window(&mut c, &mut n, 256, 256, 256, 0);
        assert_eq!(c.on_transition(0, 3, 0, w), Some(7), "1 task per bucket: widen by log2(16)");
        let w = window(&mut c, &mut n, 256, 2, 256, 0);
        assert_eq!(c.on_transition(0, 7, 0, w), Some(4), "128 per bucket: narrow by log2(8)");
        let w = window(&mut c, &mut n, 256, 16, 256, 0);
        assert_eq!(c.on_transition(0, 4, 0, w), None, "16 per bucket: stay");
        let w = window(&mut c, &mut n, 256, 256, 256, 100);
        assert_eq!(c.on_transition(0, 4, 0, w), Some(8), "overflow-heavy and sparse: widen by log2(16)");
        let w = window(&mut c, &mut n, 256, 16, 256, 100);
        assert_eq!(c.on_transition(0, 8, 0, w), Some(9), "overflow-heavy, dense enough: widen by one");
        assert_eq!(c.changes, 4);
    }

    #[test]
    fn windows_need_enough_pops_and_fixed_width_never_changes() {
        let mut c = Controller::new(16);
        let mut n = PushCounts::default();
        let w = window(&mut c, &mut n, 32, 32, 32, 0);
        assert_eq!(c.on_transition(0, 0, 0, w), None, "below MIN_WINDOW");
        let w = window(&mut c, &mut n, 100, 100, 100, 0);
        assert_eq!(c.on_transition(0, 0, 10_000, w), None, "fewer pops than half the queue");
        let mut fixed = Controller::new(0);
        let w = window(&mut fixed, &mut n, 1000, 1000, 1000, 0);
        assert_eq!(fixed.on_transition(0, 0, 0, w), None);
        let mut c = Controller::new(4096);
        let w = window(&mut c, &mut PushCounts::default(), 256, 256, 256, 0);
        assert_eq!(c.on_transition(0, 0, 0, w), Some(MAX_STEP), "step capped");
    }
}
