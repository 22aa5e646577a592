//! Simulated time in cycles: what each operation of a virtual thread costs,
//! and the clocks that order the threads by it.
//!
//! Without costs a turn is the unit of time, so a pop of a lock-free
//! multiqueue and a pop of `auto`'s private buckets weigh the same, and a
//! task with 30,000 edges weighs as much as a task with one. On a real
//! machine the first differ by a factor of ten and more (the executor's
//! `--cycles` breakdown) and the second by four orders of magnitude, so a
//! turn-based comparison of execution modes says nothing about their times.
//! With [`Costs`] every virtual thread keeps a clock in cycles: each of its
//! operations advances it by the operation's cost, and the thread with the
//! earliest clock acts next (a discrete-event simulation; ties go to the
//! lowest index). The run's simulated time is the latest clock at the end.
//!
//! What an operation costs:
//! - a task that relaxes: `task + edge × degree`; an outdated task: `stale`;
//! - a push: `push`; a successful pop: `pop`; a pop that finds nothing (or a
//!   waiting thread's look for work): `empty_pop`;
//! - every **remote access**: `remote`. Remote accesses are those of the
//!   communication proxy ([`crate::comm`]) on the scheduler's shared
//!   structures, plus those of the algorithm's own data: a task reads the
//!   line of its vertex and, when it relaxes, the lines of its neighbours,
//!   and writes the lines of the neighbours it improves, one line holding 16
//!   vertices (4-byte labels in a 64-byte line, as the executor stores them);
//!   a line last written by another thread and not read since is remote;
//! - a backoff turn of an idle thread (the executor's yields and parks,
//!   [`crate::Idle::Backoff`]): `microsecond`, the cycles of the microsecond
//!   a turn stands for.
//!
//! The per-operation costs of one scheduler are measured on a real machine
//! at one thread (`ordo sim --costs measured`: the executor's cycle
//! breakdown and its per-task cycle log, fitted); `remote` cannot be
//! measured at one thread and is given (the cycles of a cache-line transfer
//! between two cores). The model leaves out what a cost per operation cannot
//! say: contention queueing on one line, memory bandwidth, and a cache that
//! holds only part of the data.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

use ordo_graph::VertexId;
use ordo_sched::Prio;

use crate::app::SimApp;
use crate::SimError;

/// Cycles per operation kind (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// A task that relaxes, before its edges.
    pub task: u32,
    /// Each edge of a task that relaxes.
    pub edge: u32,
    /// A task found outdated (or pruned).
    pub stale: u32,
    /// One push into the scheduler.
    pub push: u32,
    /// One successful pop.
    pub pop: u32,
    /// One pop that finds nothing, or one look for work while waiting.
    pub empty_pop: u32,
    /// One remote access (a cache line fetched from another core).
    pub remote: u32,
    /// The cycles of a microsecond: one backoff turn of an idle thread.
    pub microsecond: u32,
}

/// The names of [`Costs`]' fields, in the order they print.
const FIELDS: [&str; 8] = ["task", "edge", "stale", "push", "pop", "empty_pop", "remote", "microsecond"];

impl Costs {
    fn fields_mut(&mut self) -> [&mut u32; 8] {
        [
            &mut self.task,
            &mut self.edge,
            &mut self.stale,
            &mut self.push,
            &mut self.pop,
            &mut self.empty_pop,
            &mut self.remote,
            &mut self.microsecond,
        ]
    }

    fn fields(&self) -> [u32; 8] {
        [self.task, self.edge, self.stale, self.push, self.pop, self.empty_pop, self.remote, self.microsecond]
    }

    /// Sets the fields named in `list` (`name=cycles`, comma-separated) and
    /// keeps the others.
    ///
    /// # Errors
    /// An unknown name, a value that is not a whole number of cycles.
    pub fn with_overrides(mut self, list: &str) -> Result<Self, SimError> {
        let bad = |why: String| SimError::Costs(format!("{why} (fields: {})", FIELDS.join(", ")));
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) =
                part.split_once('=').ok_or_else(|| bad(format!("`{part}` is not name=cycles")))?;
            let i = FIELDS
                .iter()
                .position(|&f| f == name.trim())
                .ok_or_else(|| bad(format!("`{part}`: unknown field `{}`", name.trim())))?;
            let cycles: u32 =
                value.trim().parse().map_err(|_| bad(format!("`{part}`: not a whole number of cycles")))?;
            *self.fields_mut()[i] = cycles;
        }
        // An idle thread must advance its clock, or it would spin forever
        // at one instant while the others wait to act.
        if self.empty_pop == 0 || self.microsecond == 0 {
            return Err(bad(format!("`{list}`: `empty_pop` and `microsecond` must be at least 1")));
        }
        Ok(self)
    }

    /// The cost of running a task of `degree` edges (`ran`: it relaxed).
    pub(crate) fn task_cycles(&self, ran: bool, degree: usize) -> u64 {
        if ran {
            u64::from(self.task) + u64::from(self.edge) * degree as u64
        } else {
            u64::from(self.stale)
        }
    }
}

impl FromStr for Costs {
    type Err = SimError;

    /// Every field as `name=cycles`, comma-separated, in any order.
    fn from_str(s: &str) -> Result<Self, SimError> {
        let mut given = [false; 8];
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(i) =
                FIELDS.iter().position(|&f| Some(f) == part.split_once('=').map(|(n, _)| n.trim()))
            {
                given[i] = true;
            }
        }
        if let Some(i) = given.iter().position(|&g| !g) {
            return Err(SimError::Costs(format!(
                "`{s}`: `{}` is missing (every field is needed)",
                FIELDS[i]
            )));
        }
        let zero =
            Costs { task: 0, edge: 0, stale: 0, push: 0, pop: 0, empty_pop: 0, remote: 0, microsecond: 0 };
        zero.with_overrides(s)
    }
}

impl fmt::Display for Costs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (name, value)) in FIELDS.iter().zip(self.fields()).enumerate() {
            let sep = if i == 0 { "" } else { "," };
            write!(f, "{sep}{name}={value}")?;
        }
        Ok(())
    }
}

/// One task of a measured one-thread run, in execution order: what the
/// executor's task log and cycle timing say about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeasuredTask {
    /// The vertex it worked on.
    pub vertex: VertexId,
    /// The value it was scheduled with (distance, level).
    pub value: u64,
    /// The vertex's out-degree.
    pub degree: usize,
    /// The operator's cycles.
    pub cycles: u32,
}

/// What a real one-thread run of a scheduler measured, to fit [`Costs`] on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// Every task, in execution order.
    pub tasks: Vec<MeasuredTask>,
    /// Tasks the operator found outdated.
    pub stale_tasks: u64,
    /// Cycles in pushes, and pushes.
    pub push_cycles: u64,
    pub pushes: u64,
    /// Cycles in successful pops, and pops.
    pub pop_cycles: u64,
    pub pops: u64,
    /// Cycles in the operator over all tasks (0: unknown). Logging every
    /// task slows it: `tasks`' cycles give only the shape (how a task's cost
    /// grows with its degree, what an outdated one costs), scaled to this
    /// total.
    pub task_cycles: u64,
    /// The cycle counter's rate.
    pub cycles_per_microsecond: u32,
}

impl Costs {
    /// Fits the per-operation costs on a measured one-thread run; `remote`
    /// and `empty_pop` cannot be measured at one thread and are given.
    ///
    /// - `push`, `pop`: the mean cycles per push and per pop;
    /// - `task`, `edge`: a least-squares line of the operator's cycles over
    ///   the vertex's degree, on the tasks that did the needed work (the
    ///   first task of each vertex with its final, smallest, value);
    /// - `stale`: the mean of the cheapest of the other tasks, as many as the
    ///   operator found outdated (an outdated task reads one label and
    ///   returns, so it is cheaper than any task that relaxes);
    /// - then `task`, `edge` and `stale` are scaled to add up to
    ///   `task_cycles` over the run's tasks.
    ///
    /// # Errors
    /// A run without tasks, pushes or pops; costs out of range.
    pub fn fit(m: &Measured, remote: u32, empty_pop: u32) -> Result<Costs, SimError> {
        if m.tasks.is_empty() || m.pushes == 0 || m.pops == 0 {
            return Err(SimError::Costs("cannot be fitted on a run without tasks, pushes or pops".into()));
        }
        let cycles = |x: f64| x.round().clamp(0.0, f64::from(u32::MAX)) as u32;
        // The final value of each vertex is the smallest it was scheduled with.
        let mut best: std::collections::HashMap<VertexId, u64> = std::collections::HashMap::new();
        for t in &m.tasks {
            let b = best.entry(t.vertex).or_insert(t.value);
            *b = (*b).min(t.value);
        }
        let mut good = Vec::new();
        let mut useless = Vec::new();
        for t in &m.tasks {
            if best.get(&t.vertex) == Some(&t.value) {
                best.remove(&t.vertex);
                good.push(t);
            } else {
                useless.push(t);
            }
        }
        let n = good.len() as f64;
        let mean_x = good.iter().map(|t| t.degree as f64).sum::<f64>() / n;
        let mean_y = good.iter().map(|t| f64::from(t.cycles)).sum::<f64>() / n;
        let sxx: f64 = good.iter().map(|t| (t.degree as f64 - mean_x).powi(2)).sum();
        let sxy: f64 = good.iter().map(|t| (t.degree as f64 - mean_x) * (f64::from(t.cycles) - mean_y)).sum();
        let (mut task, mut edge) = if sxx > 0.0 {
            let slope = sxy / sxx;
            (mean_y - slope * mean_x, slope)
        } else {
            (0.0, if mean_x > 0.0 { mean_y / mean_x } else { 0.0 })
        };
        if edge < 0.0 {
            (task, edge) = (mean_y, 0.0);
        } else if task < 0.0 {
            (task, edge) = (0.0, if mean_x > 0.0 { mean_y / mean_x } else { 0.0 });
        }
        useless.sort_unstable_by_key(|t| t.cycles);
        let stale_n = (m.stale_tasks as usize).min(useless.len());
        let outdated = &useless[..stale_n];
        let mut stale = if stale_n == 0 {
            task
        } else {
            outdated.iter().map(|t| f64::from(t.cycles)).sum::<f64>() / stale_n as f64
        };
        // The shape's total over the run: the tasks that relaxed on the
        // line, the outdated ones at `stale`.
        let all_edges: f64 = m.tasks.iter().map(|t| t.degree as f64).sum();
        let relaxed_edges = all_edges - outdated.iter().map(|t| t.degree as f64).sum::<f64>();
        let relaxed = (m.tasks.len() - stale_n) as f64;
        let shape_total = relaxed * task + relaxed_edges * edge + stale_n as f64 * stale;
        let (push, pop) = (m.push_cycles as f64 / m.pushes as f64, m.pop_cycles as f64 / m.pops as f64);
        if m.task_cycles > 0 && shape_total > 0.0 {
            let k = m.task_cycles as f64 / shape_total;
            (task, edge, stale) = (task * k, edge * k, stale * k);
        }
        let fitted = Costs {
            task: cycles(task),
            edge: cycles(edge),
            stale: cycles(stale).max(1),
            push: cycles(push),
            pop: cycles(pop),
            empty_pop,
            remote,
            microsecond: m.cycles_per_microsecond,
        };
        // No override: only the check that idle threads advance their clocks.
        fitted.with_overrides("")
    }

    /// The costs with every operation's (`task`, `edge`, `stale`, `push`,
    /// `pop`) multiplied by `factor`: to match a measured total, when timing
    /// each operation inflated them all.
    pub fn scale_operations(mut self, factor: f64) -> Costs {
        let scale =
            |c: &mut u32| *c = (f64::from(*c) * factor).round().clamp(0.0, f64::from(u32::MAX)) as u32;
        for c in [&mut self.task, &mut self.edge, &mut self.stale, &mut self.push, &mut self.pop] {
            scale(c);
        }
        self
    }
}

/// The simulated time of a run counted in cycles ([`crate::SimConfig::costs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimTime {
    /// The costs it was counted with.
    pub costs: Costs,
    /// The latest virtual thread's clock at the end: the run's time.
    pub cycles: u64,
    /// Cycles the threads spent idle (empty pops, backoff, waiting for
    /// work), summed over threads.
    pub idle_cycles: u64,
    /// Remote accesses to the algorithm's data (cache lines of labels last
    /// written by another thread); those to the scheduler's structures are
    /// in [`crate::CommStats::remote_accesses`].
    pub remote_data_accesses: u64,
}

/// What the drivers need to count cycles: the costs, and the data lines.
pub(crate) struct Meter {
    pub(crate) costs: Costs,
    lines: DataLines,
}

impl Meter {
    pub(crate) fn new(costs: Costs, vertices: usize, threads: usize) -> Self {
        Meter { costs, lines: DataLines::new(vertices, threads) }
    }

    /// The cycles of a task of `v` that thread `t` just ran (`ran`: it
    /// relaxed, creating `children`): its operator and its remote data
    /// accesses, then its successful pop.
    pub(crate) fn task(
        &mut self,
        app: &dyn SimApp,
        t: usize,
        v: VertexId,
        ran: bool,
        children: &[(Prio, VertexId)],
    ) -> u64 {
        let mut remote = u64::from(self.lines.access(t, v as usize, false));
        let mut degree = 0;
        if ran {
            let neighbors = app.neighbors(v);
            degree = neighbors.len();
            for &u in neighbors {
                remote += u64::from(self.lines.access(t, u as usize, false));
            }
            for &(_, u) in children {
                remote += u64::from(self.lines.access(t, u as usize, true));
            }
        }
        u64::from(self.costs.pop)
            + self.costs.task_cycles(ran, degree)
            + remote * u64::from(self.costs.remote)
    }

    /// The cycles of `remote` remote accesses to the scheduler's structures.
    pub(crate) fn remote(&self, remote: u64) -> u64 {
        remote * u64::from(self.costs.remote)
    }

    /// The measures of a run that ended with `clocks`.
    pub(crate) fn time(&self, clocks: &Clocks) -> SimTime {
        SimTime {
            costs: self.costs,
            cycles: clocks.makespan(),
            idle_cycles: clocks.idle(),
            remote_data_accesses: self.lines.remote(),
        }
    }
}

/// Simulated cycles without progress after which a timed run is reported
/// as stalled: a second at a few GHz, far beyond any task (an operator of
/// 10^8 edges) or park (a millisecond).
pub(crate) const STALL_CYCLES: u64 = 4_000_000_000;

/// The virtual threads' clocks: the thread with the earliest clock acts
/// next, and its operation advances its clock.
#[derive(Clone, Debug)]
pub(crate) struct Clocks {
    now: Vec<u64>,
    /// Every thread but the one acting, by clock then index.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
    /// The thread acting since the last [`Clocks::next_thread`].
    acting: Option<usize>,
    idle: u64,
}

impl Clocks {
    pub(crate) fn new(threads: usize) -> Self {
        Clocks {
            now: vec![0; threads],
            queue: (0..threads).map(|t| Reverse((0, t))).collect(),
            acting: None,
            idle: 0,
        }
    }

    /// The thread whose clock is earliest (the one that acted last goes back
    /// into the queue at its new time first).
    pub(crate) fn next_thread(&mut self) -> usize {
        if let Some(t) = self.acting.take() {
            self.queue.push(Reverse((self.now[t], t)));
        }
        let Reverse((_, t)) = self.queue.pop().expect("at least one thread");
        self.acting = Some(t);
        t
    }

    /// Advances the acting thread's clock by `cycles` of work.
    pub(crate) fn charge(&mut self, cycles: u64) {
        if let Some(t) = self.acting {
            self.now[t] += cycles;
        }
    }

    /// Advances the acting thread's clock by `cycles` spent idle.
    pub(crate) fn charge_idle(&mut self, cycles: u64) {
        self.idle += cycles;
        self.charge(cycles);
    }

    /// The acting thread's clock.
    pub(crate) fn now(&self) -> u64 {
        self.acting.map_or(0, |t| self.now[t])
    }

    /// The latest clock: the run's simulated time.
    pub(crate) fn makespan(&self) -> u64 {
        self.now.iter().copied().max().unwrap_or(0)
    }

    /// Cycles spent idle, over all threads.
    pub(crate) fn idle(&self) -> u64 {
        self.idle
    }
}

/// The algorithm's data as cache lines of 16 vertices: which thread wrote
/// each line last and which threads read it since (the protocol of
/// [`crate::comm`], on dense per-line state).
pub(crate) struct DataLines {
    words: usize,
    writer: Vec<u32>,
    seen: Vec<u64>,
    remote: u64,
}

/// Vertices per cache line (4-byte labels, 64-byte lines).
const VERTICES_PER_LINE: usize = 16;
const NOBODY: u32 = u32::MAX;

impl DataLines {
    pub(crate) fn new(vertices: usize, threads: usize) -> Self {
        let lines = vertices.div_ceil(VERTICES_PER_LINE);
        let words = threads.div_ceil(64).max(1);
        DataLines { words, writer: vec![NOBODY; lines], seen: vec![0; lines * words], remote: 0 }
    }

    /// Thread `t` reads (`write` false) or writes vertex `v`'s line;
    /// whether the access was remote.
    pub(crate) fn access(&mut self, t: usize, v: usize, write: bool) -> bool {
        let line = v / VERTICES_PER_LINE;
        let (word, bit) = (t / 64, 1u64 << (t % 64));
        let set = &mut self.seen[line * self.words..(line + 1) * self.words];
        let writer = self.writer[line];
        let remote = writer != NOBODY && writer != t as u32 && set[word] & bit == 0;
        if write {
            self.writer[line] = t as u32;
            set.fill(0);
        }
        set[word] |= bit;
        self.remote += u64::from(remote);
        remote
    }

    /// Remote accesses so far.
    pub(crate) fn remote(&self) -> u64 {
        self.remote
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prints_and_overrides() {
        let text = "task=40,edge=30,stale=20,push=60,pop=3,empty_pop=25,remote=150,microsecond=2300";
        let c: Costs = text.parse().unwrap();
        assert_eq!(c.to_string(), text);
        assert_eq!(c.task_cycles(true, 4), 160);
        assert_eq!(c.task_cycles(false, 4), 20);
        let d = c.with_overrides("remote=300, pop=5").unwrap();
        assert_eq!((d.remote, d.pop, d.push), (300, 5, 60));
        for bad in ["task=1", "task=x", "nope=3"] {
            assert!(c.with_overrides(bad).is_ok() == (bad == "task=1"), "{bad}");
        }
        let e = "task=40,edge=30".parse::<Costs>().unwrap_err().to_string();
        assert!(e.contains("`stale` is missing"), "{e}");
        let e = c.with_overrides("pop=-1").unwrap_err().to_string();
        assert!(e.contains("not a whole number"), "{e}");
    }

    #[test]
    fn fit_finds_the_line_and_the_stale_cost() {
        let task = |vertex, value, degree, cycles| MeasuredTask { vertex, value, degree, cycles };
        let m = Measured {
            // Good tasks on the line 40 + 30 × degree; vertex 1 first ran
            // with a value a later task improved (relaxed: 130 cycles), and
            // two outdated tasks cost 12 and 14.
            tasks: vec![
                task(0, 0, 2, 100),
                task(1, 9, 3, 130),
                task(1, 5, 3, 130),
                task(2, 7, 1, 70),
                task(1, 9, 3, 12),
                task(3, 8, 4, 160),
                task(2, 8, 1, 14),
            ],
            stale_tasks: 2,
            push_cycles: 600,
            pushes: 10,
            pop_cycles: 35,
            pops: 7,
            task_cycles: 0,
            cycles_per_microsecond: 2300,
        };
        let c = Costs::fit(&m, 150, 25).unwrap();
        assert_eq!(
            c.to_string(),
            "task=40,edge=30,stale=13,push=60,pop=5,empty_pop=25,remote=150,microsecond=2300"
        );
        // On the line, the run's tasks add up to 5 × 40 + 13 edges × 30 +
        // 2 × 13 = 616 cycles: twice that doubles the task costs.
        let timed = Measured { task_cycles: 1232, ..m.clone() };
        assert_eq!(
            Costs::fit(&timed, 150, 25).unwrap().to_string().split(",empty").next(),
            Some("task=80,edge=60,stale=26,push=60,pop=5")
        );
        let scaled = Costs::fit(&timed, 150, 25).unwrap().scale_operations(0.5);
        assert_eq!(
            scaled.to_string(),
            "task=40,edge=30,stale=13,push=30,pop=3,empty_pop=25,remote=150,microsecond=2300"
        );
        assert!(Costs::fit(&Measured::default(), 150, 25).is_err());
    }

    #[test]
    fn the_earliest_clock_acts_next() {
        let mut c = Clocks::new(3);
        let mut order = Vec::new();
        for cost in [5, 1, 1, 1, 1, 1] {
            let t = c.next_thread();
            order.push((t, c.now()));
            c.charge(cost);
        }
        // Ties go to the lowest index; thread 0 waits out its 5 cycles.
        assert_eq!(order, vec![(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (1, 2)]);
        c.charge_idle(10);
        assert_eq!((c.makespan(), c.idle()), (13, 10), "thread 1 at 3, then idle 10");
    }

    #[test]
    fn a_line_written_elsewhere_is_remote_once() {
        let mut d = DataLines::new(40, 2);
        assert!(!d.access(0, 3, true), "nobody wrote it");
        assert!(!d.access(0, 15, false), "same line, same thread");
        assert!(d.access(1, 0, false), "written by thread 0");
        assert!(!d.access(1, 1, false), "seen since");
        assert!(!d.access(1, 16, false), "another line, never written");
        assert!(!d.access(1, 2, true), "a write after a read of the same line");
        assert!(d.access(0, 3, false), "now thread 1 wrote it");
        assert_eq!(d.remote(), 2);
    }
}
