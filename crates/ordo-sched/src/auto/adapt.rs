//! The bucket width controller of one thread: it watches what the run does
//! and moves `shift` (the bucket width is `2^shift`) toward the width at
//! which a bucket holds about `density` tasks.
//!
//! # Why tasks per bucket
//! The best Δ of Δ-stepping differs by orders of magnitude between inputs
//! (about 15× the mean weight on road networks, 0.02× on Kronecker graphs)
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

use super::buckets::PushKind;

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
    pushes: u64,
    far: u64,
    /// Pops of the windows closed so far.
    closed_pops: u64,
    /// Decisions taken so far.
    pub(crate) changes: u64,
    /// Pushes into the current bucket and below it since the start
    /// (statistics).
    pub(crate) same_bucket_pushes: u64,
    pub(crate) below_pushes: u64,
    /// Pushes into the overflow, closed windows only.
    closed_far: u64,
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
            pushes: 0,
            far: 0,
            closed_pops: 0,
            changes: 0,
            same_bucket_pushes: 0,
            below_pushes: 0,
            closed_far: 0,
            buckets_visited: 0,
            buckets_skipped: 0,
        }
    }

    #[inline]
    pub(crate) fn on_push(&mut self, kind: PushKind) {
        self.pushes += 1;
        match kind {
            PushKind::Ahead => {}
            PushKind::Current => self.same_bucket_pushes += 1,
            PushKind::Below => self.below_pushes += 1,
            PushKind::Far => self.far += 1,
        }
    }

    #[inline]
    pub(crate) fn on_pop(&mut self) {
        self.pops += 1;
    }

    /// Pushes into the overflow since the start.
    pub(crate) fn far_pushes(&self) -> u64 {
        self.closed_far + self.far
    }

    /// Successful pops since the start.
    pub(crate) fn total_pops(&self) -> u64 {
        self.closed_pops + self.pops
    }

    /// A new bucket became current after `skipped` empty ones. Returns the
    /// new shift when the window closes with a change.
    #[inline]
    pub(crate) fn on_transition(&mut self, skipped: u64, shift: u32, queued: usize) -> Option<u32> {
        self.transitions += 1;
        self.buckets_visited += 1;
        self.buckets_skipped += skipped;
        if self.density == 0 || self.pops < MIN_WINDOW || self.pops < queued as u64 / 2 {
            return None;
        }
        self.decide(shift)
    }

    /// Closes the window: the new shift, if it changes.
    #[cold]
    fn decide(&mut self, shift: u32) -> Option<u32> {
        let density = self.pops as f64 / self.transitions.max(1) as f64;
        let target = self.density as f64;
        let far_heavy = self.far * 8 > self.pushes;
        self.closed_far += self.far;
        self.closed_pops += self.pops;
        self.pops = 0;
        self.transitions = 0;
        self.pushes = 0;
        self.far = 0;
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

    fn window(c: &mut Controller, pops: u64, transitions: u64, pushes: u64, far: u64) {
        for _ in 0..pushes - far {
            c.on_push(PushKind::Ahead);
        }
        for _ in 0..far {
            c.on_push(PushKind::Far);
        }
        for _ in 0..pops {
            c.on_pop();
        }
        c.transitions = transitions - 1;
    }

    #[test]
    fn sparse_buckets_widen_dense_ones_narrow_in_range_stays() {
        let mut c = Controller::new(16);
        window(&mut c, 256, 256, 256, 0);
        assert_eq!(c.on_transition(0, 3, 0), Some(7), "1 task per bucket: widen by log2(16)");
        window(&mut c, 256, 2, 256, 0);
        assert_eq!(c.on_transition(0, 7, 0), Some(4), "128 per bucket: narrow by log2(8)");
        window(&mut c, 256, 16, 256, 0);
        assert_eq!(c.on_transition(0, 4, 0), None, "16 per bucket: stay");
        window(&mut c, 256, 256, 256, 100);
        assert_eq!(c.on_transition(0, 4, 0), Some(8), "overflow-heavy and sparse: widen by log2(16)");
        window(&mut c, 256, 16, 256, 100);
        assert_eq!(c.on_transition(0, 8, 0), Some(9), "overflow-heavy, dense enough: widen by one");
        assert_eq!(c.changes, 4);
    }

    #[test]
    fn windows_need_enough_pops_and_fixed_width_never_changes() {
        let mut c = Controller::new(16);
        window(&mut c, 32, 32, 32, 0);
        assert_eq!(c.on_transition(0, 0, 0), None, "below MIN_WINDOW");
        window(&mut c, 100, 100, 100, 0);
        assert_eq!(c.on_transition(0, 0, 10_000), None, "fewer pops than half the queue");
        let mut fixed = Controller::new(0);
        window(&mut fixed, 1000, 1000, 1000, 0);
        assert_eq!(fixed.on_transition(0, 0, 0), None);
        let mut c = Controller::new(4096);
        window(&mut c, 256, 256, 256, 0);
        assert_eq!(c.on_transition(0, 0, 0), Some(MAX_STEP), "step capped");
    }
}
