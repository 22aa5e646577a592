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
//!   tasks per bucket (`adapt`).
//! - Giving work only when asked (work requesting rather than always-public
//!   deques): private deques of Acar, Charguéraud and Rainey (PPoPP'13).
//!
//! # How it works
//! - A push appends `(prio, task)` to bucket `prio >> shift` of the
//!   thread's ring ([`buckets`]); a pop takes the newest task of the current
//!   bucket, and when it is empty moves to the next occupied bucket (a
//!   bitmap scan). At a bucket change the width controller (`adapt`) may
//!   change `shift` (each thread its own).
//! - A thread that has no work, or that moves to a bucket while another
//!   thread works at a lower level, posts a *want* (the level it would work
//!   at). While some thread wants, working threads look at the wants at
//!   their pops and one whose level is more urgent moves half of its current
//!   bucket into its stash (`stash`), where the asking thread takes it.
//! - At each bucket change a thread first takes any offered batch more
//!   urgent than its next bucket.
//! - `flush` (and dropping a handle) moves everything private into the
//!   stash, which keeps the `Handle` contract; see `README.md` next to this
//!   file for the protocol and the argument.

pub(crate) mod adapt;
pub mod buckets;
pub mod rounds;
pub(crate) mod stash;

#[cfg(all(test, not(loom)))]
mod test;

#[cfg(loom)]
mod loom_model;

use std::marker::PhantomData;

use adapt::Controller;
use buckets::{Buckets, PushKind};
use stash::{Batch, Shared, Take, ThreadShared, NO_WANT, WANT_ANY};

use crate::spec::{BuildScheduler, Params, SchedConfig, SpecError};
use crate::sync::Ordering;
use crate::{Execution, Handle, Prio, PrivateTasks, SchedReport, Scheduler, Trace};

/// Default wanted tasks per bucket (asynchronous mode).
pub const DEFAULT_DENSITY: u64 = 16;

/// Default wanted tasks per round and thread (rounds mode).
pub const DEFAULT_ROUND_TASKS: u64 = 256;
/// Default number of bucket keys one round covers (rounds mode).
pub const DEFAULT_ROUND_KEYS: u64 = 16;
/// Wanted tasks per round and thread when the application's priorities are
/// levels (rounds mode; see [`rounds::RoundsSpec::config`]).
pub const LEVEL_ROUND_TASKS: u64 = 1024;
/// Bucket keys per round when the application's priorities are levels.
pub const LEVEL_ROUND_KEYS: u64 = 1;

/// How `auto` runs under the executor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Bulk-synchronous rounds (the default): [`rounds`] and the executor's
    /// rounds loop.
    Rounds,
    /// The pop loop over this module's handles: per-thread buckets, shared
    /// on demand, no barrier.
    Async,
}

/// Largest batch `flush` publishes in one piece.
const FLUSH_BATCH: usize = 1024;

/// Configuration of [`Auto`]. Nothing needs to be set: the parameters exist
/// for experiments.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoConfig {
    /// Rounds (default) or asynchronous (`mode=rounds|async`).
    pub mode: Mode,
    /// Rounds mode: wanted tasks per round and thread (`round`); `None`
    /// (`round=auto`, the default) leaves it to the application's kind of
    /// priorities ([`rounds::RoundsSpec::config`]).
    pub round_tasks: Option<u64>,
    /// Rounds mode: bucket keys per round (`keys`); `None` (`keys=auto`,
    /// the default) as for `round`.
    pub round_keys: Option<u64>,
    /// log2 of the bucket width; `None` (`shift=auto`, the default) adapts
    /// it online, a number fixes it.
    pub shift: Option<u32>,
    /// Wanted tasks per bucket of the adaptation (`density`, default 16).
    pub density: u64,
    /// Experimental: how many bucket widths a thread may run ahead of the
    /// least advanced thread before it waits for it (`slack`, `none` = never
    /// waits).
    pub slack: Option<u64>,
}

impl Default for AutoConfig {
    fn default() -> Self {
        AutoConfig {
            mode: Mode::Rounds,
            round_tasks: None,
            round_keys: None,
            shift: None,
            density: DEFAULT_DENSITY,
            slack: None,
        }
    }
}

impl SchedConfig for AutoConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let mode = match p.take_str_or("mode", "rounds")?.as_str() {
            "rounds" => Mode::Rounds,
            "async" => Mode::Async,
            other => return Err(SpecError(format!("auto: `mode={other}`: expected rounds or async"))),
        };
        let round_tasks = p.take_u64_or_auto("round", None)?;
        if round_tasks == Some(0) {
            return Err(SpecError("auto: `round=0`: expected auto or at least 1".into()));
        }
        let round_keys = p.take_u64_or_auto("keys", None)?;
        if round_keys == Some(0) {
            return Err(SpecError("auto: `keys=0`: expected auto or at least 1".into()));
        }
        let shift = p.take_u64_or_auto("shift", None)?;
        if shift.is_some_and(|s| s > 63) {
            return Err(SpecError(format!("auto: `shift={}`: expected auto or 0 to 63", shift.unwrap_or(0))));
        }
        let density = p.take_u64("density", DEFAULT_DENSITY)?;
        if density == 0 {
            return Err(SpecError("auto: `density=0`: expected at least 1".into()));
        }
        let slack = p.take_u64_or_auto("slack", None)?;
        Ok(AutoConfig { mode, round_tasks, round_keys, shift: shift.map(|s| s as u32), density, slack })
    }

    fn to_params(&self) -> String {
        // Each mode prints its own parameters; the other mode's appear only
        // when they differ from their defaults, so a spec round-trips.
        let shift = self.shift.map_or("auto".to_string(), |s| s.to_string());
        let or_auto = |v: Option<u64>| v.map_or("auto".to_string(), |v| v.to_string());
        let round = format!(",round={},keys={}", or_auto(self.round_tasks), or_auto(self.round_keys));
        let density = format!(",density={}", self.density);
        let slack = self.slack.map_or(String::new(), |s| format!(",slack={s}"));
        match self.mode {
            Mode::Rounds => {
                let density = if self.density == DEFAULT_DENSITY { String::new() } else { density };
                format!("mode=rounds,shift={shift}{round}{density}{slack}")
            }
            Mode::Async => {
                let round =
                    if (self.round_tasks, self.round_keys) == (None, None) { String::new() } else { round };
                format!("mode=async,shift={shift}{density}{slack}{round}")
            }
        }
    }
}

/// The `auto` scheduler: per-thread adaptive buckets, sharing on demand.
pub struct Auto<T> {
    cfg: AutoConfig,
    shared: Shared<T>,
    /// The `shift` trace; see [`ShiftTrace`].
    trace: std::sync::Mutex<ShiftTrace>,
}

/// The adaptation over the run: at the start and at each change of any
/// thread's width, (pops so far over all threads, the mean log2 width,
/// rounded, of the threads that adapted so far). Each thread steers its own
/// width; the mean is one line per run that a plot can draw, where the
/// threads' changes interleaved would zig-zag between them.
struct ShiftTrace {
    /// Each thread's width after its last change (`None`: never changed).
    shifts: Vec<Option<u32>>,
    points: Vec<(u64, u64)>,
}

impl ShiftTrace {
    fn record(&mut self, tid: usize, pops: u64, shift: u32) {
        self.shifts[tid] = Some(shift);
        let (sum, n) =
            self.shifts.iter().flatten().fold((0u64, 0u64), |(s, n), &x| (s + u64::from(x), n + 1));
        let mean = (sum + n / 2) / n.max(1);
        if self.points.last().is_none_or(|p| p.1 != mean) {
            self.points.push((pops, mean));
        }
    }
}

impl<T: Send> Auto<T> {
    /// A scheduler for `threads` threads.
    pub fn new(threads: usize, cfg: &AutoConfig) -> Self {
        Auto {
            shared: Shared::new(threads),
            trace: std::sync::Mutex::new(ShiftTrace {
                shifts: vec![None; threads],
                points: vec![(0, u64::from(cfg.shift.unwrap_or(0)))],
            }),
            cfg: cfg.clone(),
        }
    }

    fn record(&self, tid: usize, pops: u64, shift: u32) {
        let mut t = self.trace.lock().unwrap_or_else(|p| p.into_inner());
        t.record(tid, pops, shift);
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
            popbuf: Vec::new(),
            level: Prio::MAX,
            taken: Vec::new(),
            spare: Vec::new(),
            want: NO_WANT,
            serve_countdown: 0,
            stats: Stats::default(),
            _not_send: PhantomData,
        }
    }

    fn execution(&self) -> Execution {
        match self.cfg.mode {
            Mode::Rounds => Execution::Rounds(rounds::RoundsSpec {
                shift: self.cfg.shift.unwrap_or(0),
                adapt: self.cfg.shift.is_none(),
                tasks_per_thread: self.cfg.round_tasks,
                keys: self.cfg.round_keys,
            }),
            Mode::Async => Execution::PopLoop,
        }
    }

    fn report(&self) -> SchedReport {
        let mut points = self.trace.lock().unwrap_or_else(|p| p.into_inner()).points.clone();
        // Each thread reads the others' pop counts a little late: keep x
        // increasing.
        points.sort_by_key(|p| p.0);
        SchedReport {
            counters: Vec::new(),
            traces: vec![Trace { name: "shift", x_label: "dequeues", points }],
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Stats {
    published_buckets: u64,
    offered_batches: u64,
    offered_tasks: u64,
    taken: u64,
    taken_tasks: u64,
    flushed_batches: u64,
    rebucketed_tasks: u64,
    waits: u64,
    wait_spins: u64,
    /// Pushes into the current bucket.
    same_bucket_pushes: u64,
}

/// A thread's handle on [`Auto`].
pub struct AutoHandle<'s, T> {
    sched: &'s Auto<T>,
    tid: usize,
    /// More than one thread: sharing is possible.
    multi: bool,
    buckets: Buckets<T>,
    ctl: Controller,
    /// With more than one thread: the private part of the current bucket,
    /// popped from the back; the rest is in our pile.
    popbuf: Vec<(Prio, T)>,
    /// The lower edge of the bucket `popbuf` and our pile belong to.
    level: Prio,
    /// Tasks just taken from another thread (reused buffer).
    taken: Vec<(Prio, T)>,
    /// An empty vector whose allocation is reused for the next bucket.
    spare: Vec<(Prio, T)>,
    /// Our request, mirrored in `ThreadShared::want`.
    want: Prio,
    /// Pops left before we look at other threads' requests again.
    serve_countdown: u32,
    stats: Stats,
    _not_send: PhantomData<*const ()>,
}

/// Buckets of at most this many tasks are not published in the pile: the
/// owner runs them at once.
const SMALL_BUCKET: usize = 2;

/// Most rounds a thread spins waiting for a thread that is behind (a few
/// microseconds): a thread that was descheduled must not stop the others.
const WAIT_SPINS: u32 = 256;

/// Most tasks the owner takes from its own pile at once: the rest stays
/// visible to the other threads.
const OWN_BLOCK: usize = 8;

impl<T: Send> AutoHandle<'_, T> {
    fn me(&self) -> &ThreadShared<T> {
        &self.sched.shared.threads[self.tid]
    }

    /// Sets our request ([`NO_WANT`], a level we wait at, or [`WANT_ANY`]);
    /// keeps `Shared::wanting` counting the threads that have one.
    fn set_want(&mut self, want: Prio) {
        if want == self.want {
            return;
        }
        let shared = &self.sched.shared;
        crate::probe::write(&shared.threads[self.tid].want);
        shared.threads[self.tid].want.store(want, Ordering::Relaxed);
        crate::probe::write(&*shared.wanting);
        if self.want == NO_WANT {
            shared.wanting.fetch_add(1, Ordering::Relaxed);
        } else if want == NO_WANT {
            shared.wanting.fetch_sub(1, Ordering::Relaxed);
        }
        self.want = want;
    }

    /// Some thread waits for work: if it would work at a worse level than
    /// ours and nothing of ours is visible, make half of our private current
    /// bucket visible in our pile; for a thread without any work, offer a
    /// part of our later buckets in our stash if we have nothing else.
    #[cold]
    fn serve(&mut self) {
        if self.serve_countdown > 0 {
            self.serve_countdown -= 1;
            return;
        }
        // Look again after about threads / 4 pops (a few loads per pop at most).
        self.serve_countdown = (self.sched.shared.threads.len() / 4) as u32;
        let me = &self.sched.shared.threads[self.tid];
        if me.pile.len_hint() != 0 {
            return;
        }
        let (mut asked, mut starving) = (false, false);
        for (i, t) in self.sched.shared.threads.iter().enumerate() {
            crate::probe::read(&t.want);
            let want = t.want.load(Ordering::Relaxed);
            if i != self.tid && want != NO_WANT {
                asked |= want > self.level;
                starving |= want == WANT_ANY;
            }
        }
        if asked && self.popbuf.len() >= 2 {
            let n = self.popbuf.len();
            let mut half = self.popbuf.split_off(n / 2);
            me.pile.publish(&mut half, self.level);
            self.stats.published_buckets += 1;
        } else if starving && me.stash.len_hint() == 0 {
            if let Some(tasks) = self.buckets.split_off_share(usize::MAX) {
                self.stats.offered_batches += 1;
                self.stats.offered_tasks += tasks.len() as u64;
                me.stash.put(Batch::new(tasks));
            }
        }
    }

    /// Takes work at or below `level` from another thread into our buckets.
    fn take_from_others(&mut self, level: Prio) -> bool {
        let mut taken = std::mem::take(&mut self.taken);
        let got = self.sched.shared.take_at_or_below(level, self.tid, &mut taken);
        let ok = matches!(got, Take::Got(_));
        if ok {
            self.stats.taken += 1;
            self.stats.taken_tasks += taken.len() as u64;
            for (p, t) in taken.drain(..) {
                self.push_counted(p, t);
            }
        }
        self.taken = taken;
        ok
    }

    /// Pushes into the buckets, counting the pushes into the current one
    /// (the buckets count only the rare kinds themselves).
    #[inline(always)]
    fn push_counted(&mut self, prio: Prio, task: T) {
        if self.buckets.push(prio, task) == PushKind::Current {
            self.stats.same_bucket_pushes += 1;
        }
    }

    /// A new bucket is current: let the controller see it and apply its
    /// decision.
    fn on_transition(&mut self, skipped: u64) {
        let pops = self.ctl.total_pops();
        crate::probe::write(&self.me().pops);
        self.me().pops.store(pops, Ordering::Relaxed);
        if let Some(shift) =
            self.ctl.on_transition(skipped, self.buckets.shift(), self.buckets.len(), self.buckets.counts())
        {
            self.stats.rebucketed_tasks += self.buckets.set_shift(shift) as u64;
            let shared = &self.sched.shared;
            let others: u64 = shared
                .threads
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != self.tid)
                .map(|(_, t)| {
                    crate::probe::read(&t.pops);
                    t.pops.load(Ordering::Relaxed)
                })
                .sum();
            self.sched.record(self.tid, others + pops, shift);
        }
    }

    /// Publishes `next` as our level and, while another thread works more
    /// than `slack` bucket widths below it, asks for work below `next` and
    /// waits (a bounded spin), taking work as soon as some is visible.
    /// Returns true if work was taken.
    fn wait_for_others(&mut self, next: Prio, slack: u64) -> bool {
        crate::probe::write(&self.me().level);
        self.me().level.store(next, Ordering::Relaxed);
        let bound = next.saturating_sub(slack.saturating_mul(1 << self.buckets.shift()));
        let behind = |h: &Self| {
            h.sched.shared.threads.iter().enumerate().any(|(i, t)| {
                crate::probe::read(&t.level);
                i != h.tid && t.level.load(Ordering::Relaxed) < bound
            })
        };
        if !behind(self) {
            return false;
        }
        self.set_want(next.max(1));
        self.stats.waits += 1;
        let mut got = false;
        for _ in 0..WAIT_SPINS {
            self.stats.wait_spins += 1;
            if self.take_from_others(next) {
                got = true;
                break;
            }
            if !behind(self) {
                break;
            }
            std::hint::spin_loop();
        }
        self.set_want(NO_WANT);
        got
    }

    /// One thread: the current bucket is empty; move to the next one. With
    /// no bucket left, take back what `flush` (or a dropped handle of this
    /// thread) moved into the stash: alone, the stash is still this
    /// thread's work.
    #[inline(never)]
    fn pop_slow_alone(&mut self) -> Option<(Prio, T)> {
        loop {
            let skipped = match self.buckets.advance() {
                Some(skipped) => skipped,
                None if self.take_from_others(Prio::MAX) => continue,
                None => return None,
            };
            self.on_transition(skipped);
            if let Some(item) = self.buckets.pop_current() {
                self.ctl.on_pop();
                return Some(item);
            }
        }
    }

    /// Several threads: `popbuf` is empty. Refill it from our pile, or
    /// publish the tasks of the current bucket (pushed since, or taken from
    /// another thread), or take more urgent work than our next bucket from
    /// another thread, or move to our next bucket; with nothing left
    /// anywhere, ask for any work and fail.
    #[inline(never)]
    fn pop_slow_shared(&mut self) -> Option<(Prio, T)> {
        loop {
            let me = &self.sched.shared.threads[self.tid];
            if !self.popbuf.is_empty() || me.pile.take_half(&mut self.popbuf, true, OWN_BLOCK) != Take::Empty
            {
                if let Some(item) = self.popbuf.pop() {
                    self.ctl.on_pop();
                    return Some(item);
                }
            }
            let level = self.buckets.level();
            if self.buckets.take_current(&mut self.spare) {
                self.level = level;
                crate::probe::write(&self.me().level);
                self.sched.shared.threads[self.tid].level.store(level, Ordering::Relaxed);
                if self.spare.len() <= SMALL_BUCKET {
                    std::mem::swap(&mut self.popbuf, &mut self.spare);
                } else {
                    self.stats.published_buckets += 1;
                    self.sched.shared.threads[self.tid].pile.publish(&mut self.spare, level);
                }
                continue;
            }
            let next = self.buckets.peek_level();
            if self.take_from_others(next) {
                self.set_want(NO_WANT);
                continue;
            }
            if let Some(slack) = self.sched.cfg.slack {
                if next != Prio::MAX && self.wait_for_others(next, slack) {
                    continue;
                }
            }
            match self.buckets.advance() {
                Some(skipped) => self.on_transition(skipped),
                None => {
                    // `take_from_others(peek_level = MAX)` above looked
                    // everywhere and found nothing: no work at all.
                    self.set_want(WANT_ANY);
                    crate::probe::write(&self.me().level);
                    self.me().level.store(Prio::MAX, Ordering::Relaxed);
                    return None;
                }
            }
        }
    }
}

impl<T> AutoHandle<'_, T> {
    /// Moves every private task into this thread's stash, in batches.
    fn publish_all(&mut self) {
        let mut all = std::mem::take(&mut self.popbuf);
        self.buckets.drain_all(&mut all);
        if all.is_empty() {
            return;
        }
        let mut rest = all.into_iter().peekable();
        while rest.peek().is_some() {
            let tasks: Vec<(Prio, T)> = rest.by_ref().take(FLUSH_BATCH).collect();
            self.stats.flushed_batches += 1;
            self.sched.shared.threads[self.tid].stash.put(Batch::new(tasks));
        }
    }
}

impl<T: Send> Handle<T> for AutoHandle<'_, T> {
    #[inline(always)]
    fn push(&mut self, prio: Prio, task: T) {
        self.push_counted(prio, task);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Prio, T)> {
        if self.multi {
            crate::probe::read(&*self.sched.shared.wanting);
            if self.sched.shared.wanting.load(Ordering::Relaxed) != 0 && self.want == NO_WANT {
                self.serve();
            }
            if let Some(item) = self.popbuf.pop() {
                self.ctl.on_pop();
                return Some(item);
            }
            return self.pop_slow_shared();
        }
        if let Some(item) = self.buckets.pop_current() {
            self.ctl.on_pop();
            return Some(item);
        }
        self.pop_slow_alone()
    }

    fn flush(&mut self) {
        self.publish_all();
    }

    /// The buckets and the overflow are unpublished; `popbuf` holds tasks
    /// claimed from this thread's pile (or a current bucket of at most
    /// `SMALL_BUCKET` tasks).
    fn private_tasks(&self) -> PrivateTasks {
        PrivateTasks { unpublished: self.buckets.len(), claimed: self.popbuf.len() }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.stats;
        let c = &self.ctl;
        vec![
            ("buckets_visited", c.buckets_visited),
            ("buckets_skipped", c.buckets_skipped),
            ("same_bucket_pushes", s.same_bucket_pushes),
            ("below_pushes", self.buckets.counts().below),
            ("far_pushes", self.buckets.counts().far),
            ("width_changes", c.changes),
            ("rebucketed_tasks", s.rebucketed_tasks),
            ("final_shift", u64::from(self.buckets.shift())),
            ("published_buckets", s.published_buckets),
            ("offered_batches", s.offered_batches),
            ("offered_tasks", s.offered_tasks),
            ("taken", s.taken),
            ("taken_tasks", s.taken_tasks),
            ("flushed_batches", s.flushed_batches),
            ("waits", s.waits),
            ("wait_spins", s.wait_spins),
        ]
    }
}

impl<T> Drop for AutoHandle<'_, T> {
    /// Publishes every task still private to this handle, so dropping a
    /// handle never loses tasks, and withdraws its request.
    fn drop(&mut self) {
        self.publish_all();
        let shared = &self.sched.shared;
        shared.threads[self.tid].level.store(Prio::MAX, Ordering::Relaxed);
        if self.want != NO_WANT {
            shared.threads[self.tid].want.store(NO_WANT, Ordering::Relaxed);
            shared.wanting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}
