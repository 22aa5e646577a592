//! The simulation loop: N handles of one scheduler driven from one OS
//! thread, one scheduler operation per step, the thread of each turn chosen
//! by the [`Policy`].
//!
//! # A virtual thread
//! Each virtual thread runs the executor's worker loop (`ordo-exec`), one
//! scheduler operation per step:
//! - with children of its last executed task still to push, it pushes the
//!   next one (the executor pushes a task's children one by one after its
//!   operator returns);
//! - otherwise it pops; a popped task runs at once, atomically (the
//!   algorithm's operator, [`SimApp::execute`]), and its children wait to
//!   be pushed in the following steps of this thread;
//! - a pop that finds nothing is an empty pop; the first one after a
//!   successful pop also flushes the handle, as the executor does before
//!   going idle.
//!
//! # Time and idle threads
//! Time counts in *turns*: each turn the policy picks a thread, which
//! performs one operation unless it is backing off. A thread's turn stands
//! for the time of one scheduler operation (about a microsecond: a pop or a
//! push with its share of a task). An idle thread backs off as the
//! executor's idle loop does ([`Idle::Backoff`], the default, mirroring
//! `ordo-exec`'s sleep policy): after consecutive empty pops it pops again
//! at once for the first 6 (spinning), skips one turn per pop for the next
//! 10 (yielding), then parks for 50 turns, doubling up to 1000 (the
//! executor's 50 µs to 1 ms park timeouts); a thread that pushed 32 tasks
//! wakes the longest-parked thread, as the executor's pushers do.
//! [`Idle::Spin`] makes idle threads pop at every turn instead.
//!
//! With [`SimConfig::costs`] time counts in cycles instead ([`crate::costs`]):
//! the thread with the earliest clock takes the turn, its operation advances
//! its clock by what that operation costs (a task by its degree, each remote
//! access by a line transfer), and a backoff turn costs a microsecond.
//!
//! Initial tasks are split into contiguous blocks, one per thread, and
//! pushed before the first turn, as `ordo_exec::for_each` does. The run ends
//! when no task is pending in the scheduler and no thread has children left
//! to push. Between two steps no operation is in progress, so by the
//! [`ordo_sched::Handle`] contract a thread holding tasks privately finds
//! them at its next pop (and a thread that holds tasks never parks: its last
//! pop succeeded): a run always finishes, and a run that stops progressing
//! for many turns is reported as a broken contract.

use ordo_graph::VertexId;
use ordo_sched::probe::{Access, Recording};
use ordo_sched::{
    Execution, Handle, Prio, PrivateTasks, SchedReport, Scheduler, SchedulerSpec, SchedulerVisitor,
};

use crate::app::{Outcome, SimApp};
use crate::comm::{Coherence, CommStats};
use crate::costs::{Costs, Meter, SimTime, STALL_CYCLES};
use crate::policy::{Interleaver, Policy};
use crate::rank::{self, EventLog, RankStats};
use crate::SimError;

/// What an idle thread (its last pop found nothing) does at its turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Idle {
    /// Back off as the executor does (module docs).
    #[default]
    Backoff,
    /// Pop at every turn.
    Spin,
}

/// Consecutive empty pops spent spinning (no turn skipped), as `ordo-exec`.
const SPIN_POPS: u32 = 6;
/// Further empty pops that skip one turn each (the executor yields).
const YIELD_POPS: u32 = 10;
/// Turns of the first park (50 µs at a microsecond per turn); they double.
const FIRST_PARK_TURNS: u64 = 50;
/// Turns of the longest park (the executor's 1 ms).
const MAX_PARK_TURNS: u64 = 1000;
/// Pushes after which a pusher wakes one parked thread (the executor's).
const WAKE_EVERY_PUSHES: u32 = 32;

/// Turns an idle thread skips after its `failures`-th consecutive empty pop.
fn backoff_turns(failures: u32) -> u64 {
    let round = failures.saturating_sub(1);
    if round < SPIN_POPS {
        0
    } else if round < SPIN_POPS + YIELD_POPS {
        1
    } else {
        (FIRST_PARK_TURNS << (round - SPIN_POPS - YIELD_POPS).min(5)).min(MAX_PARK_TURNS)
    }
}

/// How to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Virtual threads (at least 1); the scheduler is built for this many.
    pub vthreads: usize,
    /// Which thread performs each step.
    pub policy: Policy,
    /// Seed of the policy's random choices (the scheduler's own random
    /// choices follow its spec's `seed`).
    pub seed: u64,
    /// What idle threads do.
    pub idle: Idle,
    /// Stop with [`SimError::Budget`] once more tasks than this have run
    /// (`None`: no limit). Keeps sweeps bounded where a scheduler degenerates.
    pub max_tasks: Option<u64>,
    /// At most this many points in the invisible-work trace.
    pub trace_points: usize,
    /// Count time in cycles with these costs ([`crate::costs`]): the thread
    /// with the earliest clock acts next, in place of the `policy`.
    /// `None`: time in turns.
    pub costs: Option<Costs>,
}

impl SimConfig {
    /// `vthreads` threads, round robin, seed 1, executor-like backoff, 200
    /// trace points.
    pub fn new(vthreads: usize) -> Self {
        SimConfig {
            vthreads,
            policy: Policy::RoundRobin,
            seed: 1,
            idle: Idle::Backoff,
            max_tasks: None,
            trace_points: 200,
            costs: None,
        }
    }
}

/// Tasks in private buffers over a run (`ordo_sched::Handle::private_tasks`
/// summed over the threads after every step), as time averages (over turns).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvisibleStats {
    /// Largest number of private tasks (unpublished + claimed) at any time.
    pub max: u64,
    /// Mean over time.
    pub mean: f64,
    /// Largest number of unpublished tasks at any time.
    pub unpublished_max: u64,
    /// Mean over time of the unpublished tasks.
    pub unpublished_mean: f64,
    /// Mean over the time with pending tasks of private / pending.
    pub fraction_mean: f64,
    /// Mean over the time with pending tasks of unpublished / pending.
    pub unpublished_fraction_mean: f64,
    /// Samples over the run: `(tasks executed so far, private tasks,
    /// unpublished tasks, pending tasks)`, evenly spaced in turns.
    pub trace: Vec<(u64, u64, u64, u64)>,
}

/// Everything measured in one simulated run (see the crate docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimMeasures {
    /// Turns (the unit of time: one per thread chosen by the policy).
    pub turns: u64,
    /// Steps (scheduler operations of all threads, empty pops included).
    pub steps: u64,
    /// Tasks executed (successful pops).
    pub tasks: u64,
    /// Tasks that did no relaxation (outdated or pruned).
    pub stale_tasks: u64,
    /// Pushes (initial tasks included).
    pub pushes: u64,
    /// Pops that found nothing.
    pub empty_pops: u64,
    /// Flushes (after the first empty pop following a task).
    pub flushes: u64,
    /// Parks of idle threads (see [`Idle::Backoff`]).
    pub parks: u64,
    /// Tasks executed per virtual thread.
    pub tasks_per_thread: Vec<u64>,
    /// The rank of every pop among the pending tasks.
    pub rank: RankStats,
    /// Work invisible to other threads.
    pub invisible: InvisibleStats,
    /// Communication between threads.
    pub comm: CommStats,
    /// The handles' counters summed over threads, by name, in first-seen order.
    pub sched_counters: Vec<(&'static str, u64)>,
    /// The scheduler's global counters and traces (e.g. PMOD's lmf).
    pub sched_report: SchedReport,
    /// The time in cycles, when the run counted them ([`SimConfig::costs`]).
    pub time: Option<SimTime>,
}

/// Runs `app` to completion on the scheduler `spec` with `cfg.vthreads`
/// virtual threads on the calling thread. Returns the measures; the
/// algorithm's result is left in `app`.
///
/// # Errors
/// [`SimError::Config`] for zero threads or a thread that already records
/// probes; [`SimError::Stalled`] or [`SimError::Contract`] when the
/// scheduler breaks the `Handle` contract.
pub fn simulate(
    spec: &SchedulerSpec,
    app: &mut dyn SimApp,
    cfg: &SimConfig,
) -> Result<SimMeasures, SimError> {
    struct Visit<'a> {
        app: &'a mut dyn SimApp,
        cfg: &'a SimConfig,
        name: String,
    }
    impl SchedulerVisitor<VertexId> for Visit<'_> {
        type Output = Result<SimMeasures, SimError>;
        fn visit<S: Scheduler<VertexId>>(self, sched: S) -> Self::Output {
            match sched.execution() {
                // `auto`'s rounds keep their own buckets (no handles).
                Execution::Rounds(rounds) => {
                    let rounds = rounds.config(self.app.level_priorities());
                    crate::rounds::simulate_rounds(rounds, &self.name, self.app, self.cfg)
                }
                Execution::PopLoop => simulate_on(&sched, &self.name, self.app, self.cfg),
            }
        }
    }
    if cfg.vthreads == 0 {
        return Err(SimError::Config("at least one virtual thread is needed".into()));
    }
    spec.build(cfg.vthreads, Visit { app, cfg, name: spec.to_string() })
}

/// Like [`simulate`], on a scheduler built by hand for `cfg.vthreads`
/// threads (e.g. one under test); `name` names it in errors.
///
/// # Errors
/// As [`simulate`].
pub fn simulate_on<S: Scheduler<VertexId>>(
    sched: &S,
    name: &str,
    app: &mut dyn SimApp,
    cfg: &SimConfig,
) -> Result<SimMeasures, SimError> {
    if cfg.vthreads == 0 {
        return Err(SimError::Config("at least one virtual thread is needed".into()));
    }
    if sched.execution() != Execution::PopLoop {
        return Err(SimError::Config(format!(
            "{name} runs in bulk-synchronous rounds, which `simulate` models and this pop-loop driver does not"
        )));
    }
    let recording = Recording::start().ok_or_else(|| {
        SimError::Config("this thread is already recording probes (nested simulation)".into())
    })?;
    let mut measures = {
        let mut run = Run::new(sched, app, cfg, &recording);
        run.execute(name)?;
        run.finish()
    };
    measures.sched_report = sched.report();
    Ok(measures)
}

/// One virtual thread's loop state.
#[derive(Default)]
struct VThread {
    /// Children of the last executed task; `children[next..]` are not pushed yet.
    children: Vec<(Prio, VertexId)>,
    next: usize,
    /// Whether the thread flushed since its last successful pop.
    flushed: bool,
    /// Consecutive empty pops.
    failures: u32,
    /// Turns still to skip (backing off).
    wait: u64,
    /// Parked (a long wait that a pusher may cut short).
    parked: bool,
    /// Parks so far: names the current park in the queue of parked threads.
    park_seq: u64,
    /// Pushes since this thread last woke a parked one.
    pushes_since_wake: u32,
    /// Its handle's private tasks after its last step.
    private: PrivateTasks,
    tasks: u64,
}

/// The state of one run on scheduler `S`.
struct Run<'s, 'a, S: Scheduler<VertexId> + 's> {
    handles: Vec<S::Handle<'s>>,
    threads: Vec<VThread>,
    app: &'a mut dyn SimApp,
    cfg: &'a SimConfig,
    recording: &'a Recording,
    interleaver: Interleaver,
    log: EventLog,
    coherence: Coherence,
    accesses: Vec<Access>,
    m: SimMeasures,
    /// Tasks in the scheduler (pushed, not popped).
    pending: u64,
    /// Children waiting to be pushed, over all threads.
    queued: u64,
    private: PrivateTasks,
    /// Parked threads with their park number, longest parked first (may
    /// hold parks that ended since).
    parked: std::collections::VecDeque<(usize, u64)>,
    averages: TimeAverages,
    /// With costs: what counts the cycles.
    meter: Option<Meter>,
}

/// The invisible-work measures of a run, accounted turn by turn: running
/// sums of the time averages and the sampled trace (shared by the
/// pop-loop driver and the rounds, [`crate::rounds`]).
pub(crate) struct TimeAverages {
    private: f64,
    unpublished: f64,
    fraction: f64,
    unpublished_fraction: f64,
    turns_with_pending: u64,
    sample_every: u64,
}

impl TimeAverages {
    pub(crate) fn new() -> Self {
        TimeAverages {
            private: 0.0,
            unpublished: 0.0,
            fraction: 0.0,
            unpublished_fraction: 0.0,
            turns_with_pending: 0,
            sample_every: 1,
        }
    }

    /// Accounts the turn just counted in `m.turns`, with `private` tasks
    /// held privately (of which `unpublished`) out of `pending`.
    pub(crate) fn account(
        &mut self,
        m: &mut SimMeasures,
        private: u64,
        unpublished: u64,
        pending: u64,
        trace_points: usize,
    ) {
        let inv = &mut m.invisible;
        inv.max = inv.max.max(private);
        inv.unpublished_max = inv.unpublished_max.max(unpublished);
        self.private += private as f64;
        self.unpublished += unpublished as f64;
        if pending > 0 {
            self.fraction += private as f64 / pending as f64;
            self.unpublished_fraction += unpublished as f64 / pending as f64;
            self.turns_with_pending += 1;
        }
        // Keep at most 2·trace_points samples: halve them and double the
        // spacing when full.
        if m.turns % self.sample_every == 0 {
            inv.trace.push((m.tasks, private, unpublished, pending));
            if inv.trace.len() >= 2 * trace_points.max(1) {
                let kept: Vec<_> = inv.trace.iter().copied().skip(1).step_by(2).collect();
                inv.trace = kept;
                self.sample_every *= 2;
            }
        }
    }

    /// Writes the time averages into `m` at the end of the run.
    pub(crate) fn finish(&self, m: &mut SimMeasures) {
        let turns = m.turns.max(1) as f64;
        let with_pending = self.turns_with_pending.max(1) as f64;
        let inv = &mut m.invisible;
        inv.mean = self.private / turns;
        inv.unpublished_mean = self.unpublished / turns;
        inv.fraction_mean = self.fraction / with_pending;
        inv.unpublished_fraction_mean = self.unpublished_fraction / with_pending;
    }
}

impl<'s, 'a, S: Scheduler<VertexId>> Run<'s, 'a, S> {
    fn new(sched: &'s S, app: &'a mut dyn SimApp, cfg: &'a SimConfig, recording: &'a Recording) -> Self {
        let n = cfg.vthreads;
        let app_vertices = app.num_vertices();
        let handles = (0..n).map(|t| sched.handle(t)).collect();
        let mut accesses = Vec::new();
        // Creating the handles is not an operation.
        recording.drain_into(&mut accesses);
        accesses.clear();
        Run {
            handles,
            threads: (0..n).map(|_| VThread::default()).collect(),
            app,
            cfg,
            recording,
            interleaver: Interleaver::of(cfg),
            log: EventLog::new(),
            coherence: Coherence::new(n),
            accesses,
            m: SimMeasures { tasks_per_thread: vec![0; n], ..SimMeasures::default() },
            pending: 0,
            queued: 0,
            private: PrivateTasks::default(),
            parked: std::collections::VecDeque::new(),
            averages: TimeAverages::new(),
            meter: cfg.costs.map(|c| Meter::new(c, app_vertices, n)),
        }
    }

    /// Steps until every task ran.
    fn execute(&mut self, spec: &str) -> Result<(), SimError> {
        // Initial tasks: contiguous blocks, one per thread (ordo_exec::for_each).
        let initial = self.app.initial_tasks();
        let n = self.cfg.vthreads;
        let (base, extra) = (initial.len() / n, initial.len() % n);
        let mut it = initial.into_iter();
        for t in 0..n {
            let len = base + usize::from(t < extra);
            for (p, v) in it.by_ref().take(len) {
                self.push(t, p, v);
            }
            self.end_operation(t, spec)?;
        }
        // A thread holding tasks privately gets its turn within a few rounds
        // and never parks, and a parked thread wakes within a thousand of
        // its turns; this many turns without progress means the scheduler
        // loses or hides tasks.
        // Timed, the same in simulated cycles.
        let stall_limit = 4 * MAX_PARK_TURNS * n as u64 + 100_000;
        let mut since_progress = 0u64;
        let mut progress_clock = 0u64;
        while self.pending + self.queued > 0 {
            let t = self.interleaver.next_thread();
            self.m.turns += 1;
            let vt = &mut self.threads[t];
            let progressed = if vt.wait > 0 {
                vt.wait -= 1;
                vt.parked &= vt.wait > 0;
                if let (Some(meter), Some(clocks)) = (&self.meter, self.interleaver.clocks()) {
                    clocks.charge_idle(u64::from(meter.costs.microsecond));
                }
                false
            } else {
                let cycles = self.step(t);
                let remote = self.end_operation(t, spec)?;
                self.m.steps += 1;
                if let (Some(meter), Some(clocks)) = (&self.meter, self.interleaver.clocks()) {
                    match cycles {
                        Some(c) => clocks.charge(c + meter.remote(remote)),
                        None => clocks.charge_idle(u64::from(meter.costs.empty_pop) + meter.remote(remote)),
                    }
                }
                cycles.is_some()
            };
            self.account_time();
            let timed_stall = self.interleaver.clocks().map(|c| c.now().saturating_sub(progress_clock));
            if progressed {
                since_progress = 0;
                progress_clock = self.interleaver.clocks().map_or(0, |c| c.now());
                if self.cfg.max_tasks.is_some_and(|max| self.m.tasks > max) {
                    return Err(SimError::Budget { scheduler: spec.to_string(), tasks: self.m.tasks });
                }
            } else {
                since_progress += 1;
                let stalled = match timed_stall {
                    Some(cycles) => cycles > STALL_CYCLES,
                    None => since_progress > stall_limit,
                };
                if stalled {
                    return Err(SimError::Stalled {
                        scheduler: spec.to_string(),
                        turns: since_progress,
                        pending: self.pending,
                        private: self.private.total() as u64,
                    });
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, t: usize, p: Prio, v: VertexId) {
        self.handles[t].push(p, v);
        self.log.push(p);
        self.pending += 1;
        self.m.pushes += 1;
        let vt = &mut self.threads[t];
        vt.pushes_since_wake += 1;
        if vt.pushes_since_wake >= WAKE_EVERY_PUSHES {
            vt.pushes_since_wake = 0;
            self.wake_one();
        }
    }

    /// Wakes the longest-parked thread, if any.
    fn wake_one(&mut self) {
        while let Some((u, seq)) = self.parked.pop_front() {
            let vt = &mut self.threads[u];
            if vt.parked && vt.park_seq == seq {
                vt.parked = false;
                vt.wait = 0;
                return;
            }
        }
    }

    /// One operation of thread `t`: `Some` when it pushed or popped a task,
    /// with its cycles when the run counts them (else 0), `None` when it
    /// found nothing.
    fn step(&mut self, t: usize) -> Option<u64> {
        let vt = &mut self.threads[t];
        if vt.next < vt.children.len() {
            let (p, v) = vt.children[vt.next];
            vt.next += 1;
            self.queued -= 1;
            self.push(t, p, v);
            return Some(self.meter.as_ref().map_or(0, |m| u64::from(m.costs.push)));
        }
        let vt = &mut self.threads[t];
        match self.handles[t].pop() {
            Some((p, v)) => {
                self.log.pop(p);
                self.pending -= 1;
                self.m.tasks += 1;
                vt.tasks += 1;
                vt.flushed = false;
                vt.failures = 0;
                vt.children.clear();
                vt.next = 0;
                let ran = self.app.execute(p, v, &mut vt.children) == Outcome::Ran;
                self.m.stale_tasks += u64::from(!ran);
                self.queued += vt.children.len() as u64;
                Some(self.meter.as_mut().map_or(0, |m| m.task(&*self.app, t, v, ran, &vt.children)))
            }
            None => {
                self.m.empty_pops += 1;
                if !vt.flushed {
                    vt.flushed = true;
                    self.handles[t].flush();
                    self.m.flushes += 1;
                }
                if self.cfg.idle == Idle::Backoff {
                    vt.failures = vt.failures.saturating_add(1);
                    vt.wait = backoff_turns(vt.failures);
                    if vt.wait > 1 {
                        vt.parked = true;
                        vt.park_seq += 1;
                        self.parked.push_back((t, vt.park_seq));
                        self.m.parks += 1;
                        if self.parked.len() > 4 * self.threads.len() {
                            let threads = &self.threads;
                            self.parked.retain(|&(u, seq)| threads[u].parked && threads[u].park_seq == seq);
                        }
                    }
                }
                None
            }
        }
    }

    /// Accounts the accesses and private tasks after an operation of `t`;
    /// the operation's remote accesses.
    fn end_operation(&mut self, t: usize, spec: &str) -> Result<u64, SimError> {
        self.recording.drain_into(&mut self.accesses);
        let remote = self.coherence.operation(t, &self.accesses);
        self.accesses.clear();
        // Only a handle's own operations change its private tasks.
        let now = self.handles[t].private_tasks();
        let before = std::mem::replace(&mut self.threads[t].private, now);
        self.private.unpublished = self.private.unpublished + now.unpublished - before.unpublished;
        self.private.claimed = self.private.claimed + now.claimed - before.claimed;
        if self.private.total() as u64 > self.pending {
            return Err(SimError::Contract(format!(
                "{spec}: the handles report {} private tasks but only {} are pending",
                self.private.total(),
                self.pending
            )));
        }
        Ok(remote)
    }

    /// Accounts one turn in the time averages and the trace.
    fn account_time(&mut self) {
        let (private, unpublished) = (self.private.total() as u64, self.private.unpublished as u64);
        self.averages.account(&mut self.m, private, unpublished, self.pending, self.cfg.trace_points);
    }

    fn finish(mut self) -> SimMeasures {
        self.averages.finish(&mut self.m);
        self.m.tasks_per_thread = self.threads.iter().map(|t| t.tasks).collect();
        let mut counters: Vec<(&'static str, u64)> = Vec::new();
        for h in &self.handles {
            for (name, v) in h.counters() {
                match counters.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sum)) => *sum += v,
                    None => counters.push((name, v)),
                }
            }
        }
        self.m.sched_counters = counters;
        self.m.comm = self.coherence.stats();
        self.m.rank = RankStats::of(&rank::ranks(&self.log));
        if let (Some(meter), Some(clocks)) = (&self.meter, self.interleaver.clocks()) {
            self.m.time = Some(meter.time(clocks));
        }
        // Dropping the handles may publish nothing (every task ran) but is
        // not an operation of the run.
        drop(self.handles);
        self.m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_follows_the_executor() {
        let turns: Vec<u64> = (1..=24).map(backoff_turns).collect();
        assert_eq!(&turns[..6], &[0; 6], "spinning");
        assert_eq!(&turns[6..16], &[1; 10], "yielding");
        assert_eq!(&turns[16..], &[50, 100, 200, 400, 800, 1000, 1000, 1000], "parking, doubling to 1000");
    }
}
