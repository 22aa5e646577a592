//! `auto`: the scheduler that needs no tuning. Each thread keeps its own
//! Δ-stepping buckets (plain appends, no lock, no atomic on a push), adapts
//! the bucket width online to the tasks per bucket it observes, and gives
//! work to other threads only when one of them has none.
//!
//! # Where the ideas come from
//! - Thread-local bins, one per bucket index, appended to without
//!   synchronisation: GAPBS `sssp` (Beamer et al.), itself Δ-stepping
//!   (Meyer and Sanders 2003) with bucket fusion (Zhang et al., CGO'20).
//! - No global barrier: each thread runs its own buckets and other threads
//!   take work from it; an idle thread takes the most urgent work offered:
//!   Wasp (D'Antonio et al., SC'25), which also skips stale tasks by the
//!   stored distance, as every ordo application does.
//! - Choosing the step from what the run shows instead of from a parameter:
//!   ρ-stepping (Dong et al., SPAA'21) processes about ρ vertices per step;
//!   PMOD (Yesil et al., SC'19, §4) merges and splits priority levels by
//!   observed bag occupancy. Here the width is steered toward a number of
//!   tasks per bucket ([`adapt`]).
//! - Giving work only when asked (work requesting rather than always-public
//!   deques): private deques of Acar, Charguéraud and Rainey (PPoPP'13).
//!
//! # How it works
//! - A push appends `(prio, task)` to bucket `prio >> shift` of the
//!   thread's ring ([`buckets`]); a pop takes the oldest task of the current
//!   bucket, and when it is empty moves to the next occupied bucket (a
//!   bitmap scan). At a bucket change the width controller may change
//!   `shift` (each thread its own).
//! - A thread that finds no work anywhere counts itself *hungry*. While
//!   some thread is hungry, every working thread checks at each pop whether
//!   it has a batch on offer, and if not, moves half of its current bucket
//!   (or a later bucket when the current one has a single task) into its
//!   stash ([`stash`]), where the hungry thread takes it.
//! - At each bucket change a thread first takes any offered batch more
//!   urgent than its next bucket, so threads that were given work keep to
//!   the same priority levels.
//! - `flush` (and dropping a handle) moves everything private into the
//!   stash, which keeps the `Handle` contract; see `README.md`.

pub(crate) mod adapt;
pub(crate) mod buckets;
pub(crate) mod stash;

#[cfg(all(test, not(loom)))]
mod test;

#[cfg(loom)]
mod loom_model;

use std::marker::PhantomData;

use adapt::Controller;
use buckets::Buckets;
use stash::{Batch, Shared, Take, ThreadShared, NO_WANT, WANT_ANY};

use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::Ordering;
use crate::{Handle, Prio, SchedReport, Scheduler, Trace};

/// Default wanted tasks per bucket.
pub const DEFAULT_DENSITY: u64 = 16;

/// Largest batch `flush` publishes in one piece.
const FLUSH_BATCH: usize = 1024;

/// Configuration of [`Auto`]. Nothing needs to be set: both parameters
/// exist for experiments.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoConfig {
    /// log2 of the bucket width; `None` (`shift=auto`, the default) adapts
    /// it online, a number fixes it.
    pub shift: Option<u32>,
    /// Wanted tasks per bucket of the adaptation (`density`, default 16).
    pub density: u64,
}

impl Default for AutoConfig {
    fn default() -> Self {
        AutoConfig { shift: None, density: DEFAULT_DENSITY }
    }
}

impl SchedConfig for AutoConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let shift = p.take_u64_or_auto("shift", None)?;
        if shift.is_some_and(|s| s > 63) {
            return Err(SpecError(format!("auto: `shift={}`: expected auto or 0 to 63", shift.unwrap_or(0))));
        }
        let density = p.take_u64("density", DEFAULT_DENSITY)?;
        if density == 0 {
            return Err(SpecError("auto: `density=0`: expected at least 1".into()));
        }
        Ok(AutoConfig { shift: shift.map(|s| s as u32), density })
    }

    fn to_params(&self) -> String {
        match self.shift {
            Some(s) => format!("shift={s},density={}", self.density),
            None => format!("shift=auto,density={}", self.density),
        }
    }
}

/// The `auto` scheduler: per-thread adaptive buckets, sharing on demand.
pub struct Auto<T> {
    cfg: AutoConfig,
    shared: Shared<T>,
    /// (pops so far over all threads, new shift) at the start and at each
    /// change of any thread's width.
    trace: std::sync::Mutex<Vec<(u64, u64)>>,
}

impl<T: Send> Auto<T> {
    /// A scheduler for `threads` threads.
    pub fn new(threads: usize, cfg: &AutoConfig) -> Self {
        Auto {
            shared: Shared::new(threads),
            trace: std::sync::Mutex::new(vec![(0, u64::from(cfg.shift.unwrap_or(0)))]),
            cfg: cfg.clone(),
        }
    }

    fn record(&self, pops: u64, shift: u32) {
        let mut t = self.trace.lock().unwrap_or_else(|p| p.into_inner());
        t.push((pops, u64::from(shift)));
    }
}

impl<T: Send> BuildScheduler<T> for Auto<T> {
    type Config = AutoConfig;

    fn build(threads: usize, cfg: &AutoConfig) -> Self {
        Auto::new(threads, cfg)
    }
}

impl<T: Send> Scheduler<T> for Auto<T> {
    type Handle<'s>
        = AutoHandle<'s, T>
    where
        Self: 's;

    fn handle(&self, tid: usize) -> AutoHandle<'_, T> {
        let threads = self.shared.threads.len();
        debug_assert!(tid < threads, "tid {tid} >= {threads} threads");
        AutoHandle {
            sched: self,
            tid: tid.min(threads - 1),
            multi: threads > 1,
            buckets: Buckets::new(self.cfg.shift.unwrap_or(0)),
            ctl: Controller::new(if self.cfg.shift.is_some() { 0 } else { self.cfg.density }),
            want: NO_WANT,
            serve_countdown: 0,
            stats: Stats::default(),
            _not_send: PhantomData,
        }
    }

    fn report(&self) -> SchedReport {
        let mut points = self.trace.lock().unwrap_or_else(|p| p.into_inner()).clone();
        points.sort_by_key(|p| p.0);
        SchedReport {
            counters: Vec::new(),
            traces: vec![Trace { name: "shift", x_label: "dequeues", points }],
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Stats {
    donated_batches: u64,
    donated_tasks: u64,
    stolen_batches: u64,
    stolen_tasks: u64,
    flushed_batches: u64,
    rebucketed_tasks: u64,
}

/// A thread's handle on [`Auto`].
pub struct AutoHandle<'s, T> {
    sched: &'s Auto<T>,
    tid: usize,
    /// More than one thread: sharing is possible.
    multi: bool,
    buckets: Buckets<T>,
    ctl: Controller,
    /// Our request, mirrored in `ThreadShared::want` ([`NO_WANT`] if none).
    want: Prio,
    /// Pops left before we look at other threads' requests again.
    serve_countdown: u32,
    stats: Stats,
    _not_send: PhantomData<*const ()>,
}

impl<T: Send> AutoHandle<'_, T> {
    fn me(&self) -> &ThreadShared<T> {
        &self.sched.shared.threads[self.tid]
    }

    /// Sets our request; keeps `Shared::wanting` counting the threads that
    /// have one.
    fn set_want(&mut self, want: Prio) {
        if want == self.want {
            return;
        }
        let shared = &self.sched.shared;
        shared.threads[self.tid].want.store(want, Ordering::Relaxed);
        if self.want == NO_WANT {
            shared.wanting.fetch_add(1, Ordering::Relaxed);
        } else if want == NO_WANT {
            shared.wanting.fetch_sub(1, Ordering::Relaxed);
        }
        self.want = want;
    }

    /// Publishes the level we work at.
    fn publish_level(&self) {
        let level = self.buckets.level();
        let slot = &self.me().level;
        if slot.load(Ordering::Relaxed) != level {
            slot.store(level, Ordering::Relaxed);
        }
    }

    /// Some thread has a request: take an offered batch if we asked for one,
    /// and offer half of our current bucket to a thread that would
    /// otherwise work at a worse level than ours.
    #[cold]
    fn on_requests(&mut self) {
        let shared = &self.sched.shared;
        if self.want != NO_WANT && shared.offered.load(Ordering::Relaxed) != 0 {
            let level = self.buckets.level();
            if self.take_better(level, Some(self.tid)) {
                self.set_want(NO_WANT);
                self.publish_level();
                return;
            }
        }
        if self.serve_countdown > 0 {
            self.serve_countdown -= 1;
            return;
        }
        // Look again after about threads / 4 pops (at most a few loads a pop).
        self.serve_countdown = (shared.threads.len() / 4) as u32;
        if self.me().stash.len_hint() != 0 || self.buckets.len() < 2 {
            return;
        }
        let level = self.buckets.level();
        let asked = shared.threads.iter().enumerate().any(|(i, t)| {
            i != self.tid
                && t.want.load(Ordering::Relaxed) > level
                && t.want.load(Ordering::Relaxed) != NO_WANT
        });
        if asked {
            if let Some(tasks) = self.buckets.split_off_share(usize::MAX) {
                self.stats.donated_batches += 1;
                self.stats.donated_tasks += tasks.len() as u64;
                shared.put(self.tid, Batch::new(tasks));
            }
        }
    }

    /// Moves a taken batch into our buckets.
    fn absorb(&mut self, batch: Batch<T>) {
        self.stats.stolen_batches += 1;
        self.stats.stolen_tasks += batch.tasks.len() as u64;
        for (p, t) in batch.tasks {
            self.buckets.push(p, t);
        }
    }

    /// Takes an offered batch more urgent than `level`, not from `skip`.
    fn take_better(&mut self, level: Prio, skip: Option<usize>) -> bool {
        match self.sched.shared.take_below(level, skip) {
            Take::Taken(b) => {
                self.absorb(b);
                true
            }
            Take::Empty | Take::Busy => false,
        }
    }

    /// Whether another thread works at a level below `level`.
    fn others_behind(&self, level: Prio) -> bool {
        self.sched
            .shared
            .threads
            .iter()
            .enumerate()
            .any(|(i, t)| i != self.tid && t.level.load(Ordering::Relaxed) < level)
    }

    /// A new bucket is current: let the controller see it and apply its
    /// decision.
    fn on_transition(&mut self, skipped: u64) {
        let pops = self.ctl.total_pops();
        self.me().pops.store(pops, Ordering::Relaxed);
        if let Some(shift) = self.ctl.on_transition(skipped, self.buckets.shift(), self.buckets.len()) {
            self.stats.rebucketed_tasks += self.buckets.set_shift(shift) as u64;
            let shared = &self.sched.shared;
            let others: u64 = shared
                .threads
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != self.tid)
                .map(|(_, t)| t.pops.load(Ordering::Relaxed))
                .sum();
            self.sched.record(others + pops, shift);
        }
    }

    /// The current bucket is empty: move to the next one (taking offered
    /// work that is more urgent first), or find work elsewhere.
    fn pop_slow(&mut self) -> Option<(Prio, T)> {
        loop {
            match self.buckets.advance() {
                Some(skipped) => {
                    if self.multi {
                        let level = self.buckets.level();
                        if self.take_better(level, Some(self.tid)) {
                            self.set_want(NO_WANT);
                        } else {
                            // Ahead of another thread: ask for its work.
                            self.set_want(if self.others_behind(level) { level } else { NO_WANT });
                        }
                        self.publish_level();
                    }
                    self.on_transition(skipped);
                }
                None => {
                    if !self.multi {
                        return None;
                    }
                    if !self.take_better(Prio::MAX, None) {
                        self.set_want(WANT_ANY);
                        self.publish_level();
                        return None;
                    }
                    self.set_want(NO_WANT);
                    self.publish_level();
                }
            }
            if let Some(item) = self.buckets.pop_current() {
                self.ctl.on_pop();
                return Some(item);
            }
        }
    }
}

impl<T> AutoHandle<'_, T> {
    /// Moves every private task into this thread's stash, in batches.
    fn publish_all(&mut self) {
        if self.buckets.is_empty() {
            return;
        }
        let mut all = Vec::with_capacity(self.buckets.len());
        self.buckets.drain_all(&mut all);
        let mut rest = all.into_iter().peekable();
        while rest.peek().is_some() {
            let tasks: Vec<(Prio, T)> = rest.by_ref().take(FLUSH_BATCH).collect();
            self.stats.flushed_batches += 1;
            self.sched.shared.put(self.tid, Batch::new(tasks));
        }
    }
}

impl<T: Send> Handle<T> for AutoHandle<'_, T> {
    #[inline]
    fn push(&mut self, prio: Prio, task: T) {
        let kind = self.buckets.push(prio, task);
        self.ctl.on_push(kind);
    }

    #[inline]
    fn pop(&mut self) -> Option<(Prio, T)> {
        if self.multi && self.sched.shared.wanting.load(Ordering::Relaxed) != 0 {
            self.on_requests();
        }
        if let Some(item) = self.buckets.pop_current() {
            self.ctl.on_pop();
            return Some(item);
        }
        self.pop_slow()
    }

    fn flush(&mut self) {
        self.publish_all();
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.stats;
        let c = &self.ctl;
        vec![
            ("buckets_visited", c.buckets_visited),
            ("buckets_skipped", c.buckets_skipped),
            ("same_bucket_pushes", c.same_bucket_pushes),
            ("below_pushes", c.below_pushes),
            ("far_pushes", c.far_pushes()),
            ("width_changes", c.changes),
            ("rebucketed_tasks", s.rebucketed_tasks),
            ("final_shift", u64::from(self.buckets.shift())),
            ("donated_batches", s.donated_batches),
            ("donated_tasks", s.donated_tasks),
            ("taken_batches", s.stolen_batches),
            ("taken_tasks", s.stolen_tasks),
            ("flushed_batches", s.flushed_batches),
        ]
    }
}

impl<T> Drop for AutoHandle<'_, T> {
    /// Publishes every task still private to this handle, so dropping a
    /// handle never loses tasks, and withdraws its request.
    fn drop(&mut self) {
        self.publish_all();
        let me = &self.sched.shared.threads[self.tid];
        me.level.store(Prio::MAX, Ordering::Relaxed);
        if self.want != NO_WANT {
            me.want.store(NO_WANT, Ordering::Relaxed);
            self.sched.shared.wanting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
