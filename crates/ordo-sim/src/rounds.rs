//! `auto`'s bulk-synchronous rounds with N virtual threads: the protocol of
//! `ordo-exec`'s rounds replayed one task per turn, so that the default
//! scheduler, as `ordo run` runs it, can be measured at thread counts this
//! machine does not have.
//!
//! # The model
//! Every virtual thread keeps its own [`Buckets`] and a pile, as a worker
//! of the rounds does. At each turn the [`Policy`](crate::Policy) picks a
//! thread, which does what the executor's worker would do next:
//! - with children of its last task still to push, it pushes the next one
//!   into its own buckets;
//! - **working**, it runs the next task of its batch. Before each task of a batch taken from
//!   its own buckets it counts down [`LOOK_EVERY`]; at zero, if some thread
//!   waits at the barrier and at least [`MIN_CHUNK`] tasks are left, it
//!   files them into its pile. With its batch done it takes, in this order,
//!   a guided chunk of its own pile, its own buckets of the round's keys
//!   (while under the fusion limit, [`RoundsConfig::fusion_limit`]), or half
//!   of the fullest other pile (kept in its own pile when larger than
//!   [`CHUNK`]), and runs that batch's first task in the same turn; when
//!   none has anything it reports and arrives at the barrier;
//! - **waiting**, it leaves the barrier to help when another pile holds
//!   work, and otherwise runs ahead: the newest task of its most urgent
//!   bucket if that lies in the next span. A turn with neither is idle
//!   (counted as an empty pop).
//!
//! When the last thread arrives, the decision is made at once from the
//! reports as they were written on arrival (tasks run ahead since are not
//! in them, as in the executor): the run ends if nothing is queued,
//! otherwise the [`RoundController`] gives the next round's width and keys.
//! A single thread runs bucket after bucket, batch after batch, as the
//! executor's lone worker does.
//!
//! A turn is one operation, as in the pop-loop driver (a task, a push, or
//! an idle look); the barrier, the piles' locks and the decision take no
//! turn. Turns do not compare with the pop-loop driver's as times (a pop of
//! the own buckets costs a few cycles, one of a shared scheduler tens to
//! hundreds): with [`crate::SimConfig::costs`] each turn costs its
//! operations' cycles instead ([`crate::costs`]), which do. The measures
//! are those of the pop-loop driver ([`SimMeasures`]): work increase and
//! rank error; every task in a thread's buckets or batch counts as private
//! and unpublished (only the piles are visible to the others); the
//! communication proxy sees the shared structures of the protocol (each
//! pile with its length hint, the barrier, each report and the decision,
//! read and written as the executor does), never the buckets.

use ordo_graph::VertexId;
use ordo_sched::auto::buckets::Buckets;
use ordo_sched::auto::rounds::{RoundController, RoundsConfig, CHUNK, GUIDED_SHARES, LOOK_EVERY, MIN_CHUNK};
use ordo_sched::probe::{Access, AccessKind};
use ordo_sched::{Prio, SchedReport, Trace};

use crate::app::{Outcome, SimApp};
use crate::comm::Coherence;
use crate::costs::{Meter, STALL_CYCLES};
use crate::driver::{SimConfig, SimMeasures, TimeAverages};
use crate::policy::Interleaver;
use crate::rank::{self, EventLog, RankStats};
use crate::SimError;

/// A queued task: its priority and vertex.
type Entry = (Prio, VertexId);

/// The names of the protocol's shared structures for the communication
/// proxy (any distinct numbers do: the proxy compares them only).
const BARRIER: usize = 1;
const DECISION: usize = 2;
const PILES: usize = 1 << 20;
const REPORTS: usize = 2 << 20;

/// A thread's report to the decision, written when it arrives.
#[derive(Clone, Copy, Default)]
struct Report {
    level: Prio,
    queued: u64,
    tasks: u64,
    cut: bool,
}

/// One virtual thread of the rounds.
struct VThread {
    buckets: Buckets<VertexId>,
    /// The batch being run; `batch[next..]` are still to run.
    batch: Vec<Entry>,
    next: usize,
    /// Whether the batch came from this thread's own buckets (shared with
    /// a waiting thread every [`LOOK_EVERY`] tasks).
    own_batch: bool,
    until_look: usize,
    /// The thread's pile, oldest first (the others may take half of it).
    pile: std::collections::VecDeque<Entry>,
    waiting: bool,
    /// Released by another thread's decision, not yet read.
    released: bool,
    report: Report,
    /// Tasks run since the last report (those run ahead count in the next).
    round_tasks: u64,
    ran_ahead: u64,
    took_own: bool,
    tasks: u64,
    /// Children of the last task; `children[next_child..]` are not pushed yet.
    children: Vec<Entry>,
    next_child: usize,
}

/// The protocol's counters, summed over threads (the executor's names).
#[derive(Default)]
struct Counters {
    pile_fillings: u64,
    own_tasks: u64,
    shared_tasks: u64,
    steals: u64,
    stolen_tasks: u64,
    barrier_helps: u64,
    fusion_stops: u64,
    tasks_ahead: u64,
    rebucketed_tasks: u64,
}

/// The state of one simulated run of the rounds.
struct Rounds<'a> {
    app: &'a mut dyn SimApp,
    cfg: &'a SimConfig,
    spec: String,
    threads: Vec<VThread>,
    controller: RoundController,
    fusion_limit: u64,
    /// The current round: bucket shift, first key, keys.
    shift: u32,
    key: u64,
    keys: u64,
    waiting: usize,
    done: bool,
    interleaver: Interleaver,
    log: EventLog,
    coherence: Coherence,
    accesses: Vec<Access>,
    m: SimMeasures,
    averages: TimeAverages,
    c: Counters,
    /// Tasks queued in buckets and batches (private), and in piles.
    private: u64,
    in_piles: u64,
    /// Children produced and not pushed yet, over all threads.
    unpushed: u64,
    /// With costs: what counts the cycles, and the cycles of the turn in
    /// progress (`None` while it made no progress).
    meter: Option<Meter>,
    turn_cycles: Option<u64>,
    progress_clock: u64,
}

/// Runs `app` to completion under `auto`'s rounds configured by `rounds`,
/// with `cfg.vthreads` virtual threads (module docs). `spec` names the
/// scheduler in errors.
///
/// # Errors
/// [`SimError::Budget`] past `cfg.max_tasks`; [`SimError::Stalled`] if the
/// protocol stopped making progress (a bug of the model).
pub fn simulate_rounds(
    rounds: RoundsConfig,
    spec: &str,
    app: &mut dyn SimApp,
    cfg: &SimConfig,
) -> Result<SimMeasures, SimError> {
    if cfg.vthreads == 0 {
        return Err(SimError::Config("at least one virtual thread is needed".into()));
    }
    let initial = app.initial_tasks();
    // As the executor: an adapting width starts wide enough to hold every
    // initial task in one bucket.
    let rounds = if rounds.adapt { rounds.covering(initial.iter().map(|&(p, _)| p)) } else { rounds };
    let n = cfg.vthreads;
    let controller = rounds.controller(n);
    let meter = cfg.costs.map(|c| Meter::new(c, app.num_vertices(), n));
    let mut run = Rounds {
        app,
        cfg,
        spec: spec.to_string(),
        threads: (0..n)
            .map(|_| VThread {
                buckets: Buckets::new(rounds.shift),
                batch: Vec::new(),
                next: 0,
                own_batch: false,
                until_look: LOOK_EVERY,
                pile: std::collections::VecDeque::new(),
                waiting: false,
                released: false,
                report: Report::default(),
                round_tasks: 0,
                ran_ahead: 0,
                took_own: false,
                tasks: 0,
                children: Vec::new(),
                next_child: 0,
            })
            .collect(),
        shift: rounds.shift,
        key: 0,
        keys: controller.keys(),
        controller,
        fusion_limit: rounds.fusion_limit(),
        waiting: 0,
        done: false,
        interleaver: Interleaver::of(cfg),
        log: EventLog::new(),
        coherence: Coherence::new(n),
        accesses: Vec::new(),
        m: SimMeasures { tasks_per_thread: vec![0; n], ..SimMeasures::default() },
        averages: TimeAverages::new(),
        c: Counters::default(),
        private: 0,
        in_piles: 0,
        unpushed: 0,
        meter,
        turn_cycles: None,
        progress_clock: 0,
    };
    // Initial tasks: contiguous blocks, one per thread (ordo_exec::for_each).
    let (base, extra) = (initial.len() / n, initial.len() % n);
    let mut it = initial.into_iter();
    for t in 0..n {
        for (p, v) in it.by_ref().take(base + usize::from(t < extra)) {
            run.push(t, p, v);
        }
    }
    // Pushing the initial tasks is not an operation of the run.
    run.turn_cycles = None;
    if n == 1 {
        run.run_alone()?;
    } else {
        run.run_rounds()?;
    }
    Ok(run.finish())
}

impl Rounds<'_> {
    fn push(&mut self, t: usize, p: Prio, v: VertexId) {
        self.threads[t].buckets.push(p, v);
        self.log.push(p);
        self.private += 1;
        self.m.pushes += 1;
        self.spend(|m| u64::from(m.costs.push));
    }

    /// Adds the cycles `cost` gives to the turn in progress, when the run
    /// counts them.
    fn spend(&mut self, cost: impl FnOnce(&Meter) -> u64) {
        if let Some(meter) = &self.meter {
            *self.turn_cycles.get_or_insert(0) += cost(meter);
        }
    }

    /// Runs one task on thread `t`; its children are pushed one per turn
    /// afterwards, as in the pop-loop driver.
    fn run_task(&mut self, t: usize, (p, v): Entry) {
        self.log.pop(p);
        self.private -= 1;
        self.m.tasks += 1;
        let vt = &mut self.threads[t];
        vt.tasks += 1;
        vt.children.clear();
        vt.next_child = 0;
        let ran = self.app.execute(p, v, &mut vt.children) == Outcome::Ran;
        self.m.stale_tasks += u64::from(!ran);
        self.unpushed += vt.children.len() as u64;
        if let Some(meter) = &mut self.meter {
            let cycles = meter.task(&*self.app, t, v, ran, &self.threads[t].children);
            *self.turn_cycles.get_or_insert(0) += cycles;
        }
    }

    /// Pushes the next child of `t`'s last task, if one is left.
    fn push_child(&mut self, t: usize) -> bool {
        let vt = &mut self.threads[t];
        let Some(&(p, v)) = vt.children.get(vt.next_child) else { return false };
        vt.next_child += 1;
        self.unpushed -= 1;
        self.push(t, p, v);
        true
    }

    /// Accounts the end of a turn of thread `t` that made `progress`;
    /// errors past the work budget or after too long without progress.
    fn end_turn(&mut self, t: usize, progress: bool, since_progress: &mut u64) -> Result<(), SimError> {
        self.m.turns += 1;
        self.m.steps += 1;
        let remote = self.coherence.operation(t, &self.accesses);
        self.accesses.clear();
        let turn = self.turn_cycles.take();
        let mut stalled_cycles = None;
        if let (Some(meter), Some(clocks)) = (&self.meter, self.interleaver.clocks()) {
            let remote = meter.remote(remote);
            match turn {
                Some(cycles) if progress => clocks.charge(cycles + remote),
                // A turn that found nothing: one look for work.
                _ => clocks.charge_idle(turn.unwrap_or(0) + u64::from(meter.costs.empty_pop) + remote),
            }
            if progress {
                self.progress_clock = clocks.now();
            }
            stalled_cycles = Some(clocks.now().saturating_sub(self.progress_clock));
        }
        let pending = self.private + self.in_piles;
        self.averages.account(&mut self.m, self.private, self.private, pending, self.cfg.trace_points);
        if progress {
            *since_progress = 0;
            if self.cfg.max_tasks.is_some_and(|max| self.m.tasks > max) {
                return Err(SimError::Budget { scheduler: self.spec.clone(), tasks: self.m.tasks });
            }
        } else {
            self.m.empty_pops += 1;
            *since_progress += 1;
            // Every turn of a working thread runs a task, and a round ends
            // once every thread has found nothing: idle turns in a row (or,
            // timed, idle cycles) mean the model lost track of a task.
            let stalled = match stalled_cycles {
                Some(cycles) => cycles > STALL_CYCLES,
                None => *since_progress > 1_000 * self.threads.len() as u64 + 100_000,
            };
            if stalled {
                return Err(SimError::Stalled {
                    scheduler: self.spec.clone(),
                    turns: *since_progress,
                    pending,
                    private: self.private,
                });
            }
        }
        Ok(())
    }

    /// One thread: bucket after bucket, each bucket batch by batch, the
    /// controller seeing one round per bucket key.
    fn run_alone(&mut self) -> Result<(), SimError> {
        // The lone thread acts at every turn (and its clock counts them).
        self.interleaver.next_thread();
        let mut since_progress = 0;
        let mut key = None;
        loop {
            if self.push_child(0) {
                self.end_turn(0, true, &mut since_progress)?;
                continue;
            }
            let vt = &mut self.threads[0];
            if vt.next < vt.batch.len() {
                let task = vt.batch[vt.next];
                vt.next += 1;
                vt.round_tasks += 1;
                self.run_task(0, task);
                self.end_turn(0, true, &mut since_progress)?;
                continue;
            }
            vt.batch.clear();
            vt.next = 0;
            if let Some(k) = key {
                if vt.buckets.take_due(k, &mut vt.batch) {
                    continue;
                }
            }
            if vt.buckets.next_level() == Prio::MAX {
                return Ok(());
            }
            let queued = vt.buckets.len() as u64;
            let next = self.controller.on_round(std::mem::take(&mut vt.round_tasks), queued);
            if next != self.shift {
                self.shift = next;
                self.c.rebucketed_tasks += vt.buckets.set_shift(next) as u64;
            }
            key = Some(vt.buckets.next_level() >> self.shift);
        }
    }

    /// Several threads: turns until the decision finds nothing queued.
    fn run_rounds(&mut self) -> Result<(), SimError> {
        // The first decision: every thread reports its initial tasks.
        for t in 0..self.threads.len() {
            self.arrive(t, None);
        }
        // Setting up is not an operation of the run.
        self.accesses.clear();
        for vt in &mut self.threads {
            vt.released = false;
        }
        let mut since_progress = 0;
        while !self.done {
            let t = self.interleaver.next_thread();
            if std::mem::take(&mut self.threads[t].released) {
                self.touch(BARRIER, AccessKind::Read);
                self.touch(DECISION, AccessKind::Read);
            }
            let progress = if self.push_child(t) {
                true
            } else if self.threads[t].waiting {
                self.wait_turn(t)
            } else {
                self.work_turn(t)
            };
            self.end_turn(t, progress, &mut since_progress)?;
        }
        let left = self.private + self.in_piles + self.unpushed;
        if left > 0 {
            return Err(SimError::Contract(format!(
                "{}: the rounds ended with {left} tasks queued",
                self.spec
            )));
        }
        Ok(())
    }

    fn touch(&mut self, addr: usize, kind: AccessKind) {
        self.accesses.push(Access { addr, kind });
    }

    /// Whether a pile other than `t`'s holds tasks (the length hints read).
    fn others_have_work(&mut self, t: usize) -> bool {
        let mut found = false;
        for u in (0..self.threads.len()).filter(|&u| u != t) {
            self.touch(PILES + u, AccessKind::Read);
            if !self.threads[u].pile.is_empty() {
                found = true;
                break;
            }
        }
        found
    }

    /// A turn of a thread waiting at the barrier: help, run ahead, or idle.
    fn wait_turn(&mut self, t: usize) -> bool {
        self.touch(BARRIER, AccessKind::Read);
        if self.others_have_work(t) {
            // Leave the barrier to help.
            self.touch(BARRIER, AccessKind::Write);
            self.threads[t].waiting = false;
            self.waiting -= 1;
            self.c.barrier_helps += 1;
            return self.work_turn(t);
        }
        // Run ahead in the next span.
        let (first, last) = (self.key.saturating_add(self.keys), self.key.saturating_add(2 * self.keys - 1));
        let vt = &mut self.threads[t];
        let level = vt.buckets.next_level();
        if level == Prio::MAX || !(first..=last).contains(&(level >> vt.buckets.shift())) {
            return false;
        }
        let Some(task) = vt.buckets.pop_current() else { return false };
        vt.ran_ahead += 1;
        self.c.tasks_ahead += 1;
        self.run_task(t, task);
        true
    }

    /// A turn of a working thread: the next task of its batch, refilling
    /// the batch first if it is done; arrival when nothing is left.
    fn work_turn(&mut self, t: usize) -> bool {
        loop {
            if self.next_task(t) {
                return true;
            }
            if !self.refill(t) {
                self.arrive(t, Some(self.key));
                return false;
            }
        }
    }

    /// Runs the next task of `t`'s batch, sharing the rest first when it is
    /// time to look and a thread waits; false when the batch is done.
    fn next_task(&mut self, t: usize) -> bool {
        let waiting = self.waiting > 0;
        let vt = &mut self.threads[t];
        if vt.next >= vt.batch.len() {
            return false;
        }
        let task = vt.batch[vt.next];
        vt.next += 1;
        let mut looked = false;
        if vt.own_batch {
            vt.until_look -= 1;
            if vt.until_look == 0 {
                vt.until_look = LOOK_EVERY;
                looked = true;
            }
        }
        if looked {
            self.touch(BARRIER, AccessKind::Read);
            let vt = &mut self.threads[t];
            let rest = vt.batch.len() - vt.next;
            if rest >= MIN_CHUNK && waiting {
                vt.pile.extend(vt.batch.drain(vt.next..));
                self.c.shared_tasks += rest as u64;
                self.c.pile_fillings += 1;
                self.private -= rest as u64;
                self.in_piles += rest as u64;
                self.touch(PILES + t, AccessKind::Write);
            }
        }
        self.threads[t].round_tasks += 1;
        self.run_task(t, task);
        true
    }

    /// Gives `t` a new batch: a guided chunk of its pile, its own buckets
    /// of the round's keys, or half of the fullest other pile. False when
    /// none has anything.
    fn refill(&mut self, t: usize) -> bool {
        let n = self.threads.len();
        let last_key = self.key.saturating_add(self.keys - 1);
        let fusion_limit = self.fusion_limit;
        let vt = &mut self.threads[t];
        vt.batch.clear();
        vt.next = 0;
        vt.own_batch = false;
        if !vt.pile.is_empty() {
            let chunk = vt.pile.len().div_ceil(GUIDED_SHARES * n).clamp(MIN_CHUNK, CHUNK);
            let take = chunk.min(vt.pile.len());
            vt.batch.extend(vt.pile.drain(..take));
            self.in_piles -= take as u64;
            self.private += take as u64;
            self.touch(PILES + t, AccessKind::Write);
            return true;
        }
        let may_fuse = !vt.took_own || vt.round_tasks < fusion_limit;
        if may_fuse && vt.buckets.take_due(last_key, &mut vt.batch) {
            vt.took_own = true;
            vt.own_batch = true;
            vt.until_look = LOOK_EVERY;
            self.c.own_tasks += vt.batch.len() as u64;
            self.touch(PILES + t, AccessKind::Read);
            return true;
        }
        self.touch(PILES + t, AccessKind::Read);
        // Half of the fullest other pile, searching from `t + 1`.
        let mut best: Option<(usize, usize)> = None;
        for i in 1..n {
            let u = (t + i) % n;
            self.touch(PILES + u, AccessKind::Read);
            let len = self.threads[u].pile.len();
            if len > 0 && best.is_none_or(|(_, l)| len > l) {
                best = Some((u, len));
            }
        }
        let Some((victim, len)) = best else { return false };
        self.touch(PILES + victim, AccessKind::Write);
        let half = len.div_ceil(2);
        let stolen: Vec<Entry> = self.threads[victim].pile.drain(..half).collect();
        self.c.steals += 1;
        self.c.stolen_tasks += half as u64;
        let vt = &mut self.threads[t];
        if half > CHUNK {
            // Too many to run at once: kept visible in its own pile.
            vt.pile.extend(stolen);
            self.c.pile_fillings += 1;
            self.touch(PILES + t, AccessKind::Write);
        } else {
            vt.batch.extend(stolen);
            self.in_piles -= half as u64;
            self.private += half as u64;
        }
        true
    }

    /// Thread `t` reports and arrives at the barrier (`key`: the round it
    /// worked on, `None` before the first decision); the last to arrive
    /// decides.
    fn arrive(&mut self, t: usize, key: Option<u64>) {
        let vt = &mut self.threads[t];
        let level = vt.buckets.next_level();
        let shift = vt.buckets.shift();
        let cut = key.is_some_and(|k| level != Prio::MAX && level >> shift <= k);
        self.c.fusion_stops += u64::from(cut);
        vt.report = Report { level, queued: vt.buckets.len() as u64, tasks: vt.round_tasks, cut };
        vt.waiting = true;
        self.waiting += 1;
        self.touch(REPORTS + t, AccessKind::Write);
        self.touch(BARRIER, AccessKind::Write);
        if self.waiting == self.threads.len() {
            self.decide(t);
        }
    }

    /// The leader `t`'s decision, then the release of every thread.
    fn decide(&mut self, t: usize) {
        let (mut level, mut queued, mut tasks, mut cut) = (Prio::MAX, 0u64, 0u64, false);
        for u in 0..self.threads.len() {
            self.touch(REPORTS + u, AccessKind::Read);
            let r = self.threads[u].report;
            level = level.min(r.level);
            queued += r.queued;
            tasks += r.tasks;
            cut |= r.cut;
        }
        self.touch(DECISION, AccessKind::Write);
        if queued == 0 {
            self.done = true;
            return;
        }
        if cut {
            self.controller.on_part(tasks);
        } else {
            self.controller.on_round(tasks, queued);
        }
        self.shift = self.controller.bucket_shift();
        self.key = level >> self.shift;
        self.keys = self.controller.keys();
        self.waiting = 0;
        let shift = self.shift;
        for (u, vt) in self.threads.iter_mut().enumerate() {
            vt.waiting = false;
            vt.round_tasks = std::mem::take(&mut vt.ran_ahead);
            vt.took_own = false;
            // The others read the decision at their next turn; the
            // leader's reads are part of this operation.
            vt.released = u != t;
            if vt.buckets.shift() != shift {
                self.c.rebucketed_tasks += vt.buckets.set_shift(shift) as u64;
            }
        }
        self.touch(BARRIER, AccessKind::Write);
    }

    fn finish(mut self) -> SimMeasures {
        self.averages.finish(&mut self.m);
        self.m.tasks_per_thread = self.threads.iter().map(|t| t.tasks).collect();
        let c = &self.c;
        self.m.sched_counters = vec![
            ("pile_fillings", c.pile_fillings),
            ("own_tasks", c.own_tasks - c.shared_tasks),
            ("shared_tasks", c.shared_tasks),
            ("steals", c.steals),
            ("stolen_tasks", c.stolen_tasks),
            ("barrier_helps", c.barrier_helps),
            ("fusion_stops", c.fusion_stops),
            ("tasks_ahead", c.tasks_ahead),
            ("rebucketed_tasks", c.rebucketed_tasks),
        ];
        self.m.sched_report = SchedReport {
            counters: vec![
                ("rounds", self.controller.rounds()),
                ("width_changes", self.controller.changes()),
                ("round_parts", self.controller.parts()),
                ("round_target", self.controller.target()),
            ],
            traces: vec![Trace {
                name: "shift",
                x_label: "dequeues",
                points: self.controller.trace().to_vec(),
            }],
        };
        self.m.comm = self.coherence.stats();
        self.m.rank = RankStats::of(&rank::ranks(&self.log));
        if let (Some(meter), Some(clocks)) = (&self.meter, self.interleaver.clocks()) {
            self.m.time = Some(meter.time(clocks));
        }
        self.m
    }
}
