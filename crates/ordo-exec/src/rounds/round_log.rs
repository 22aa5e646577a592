//! The rounds' progress over time: after each round, when it ended, how
//! many tasks it ran and the priority the next round starts from (the
//! lower edge of its first bucket). Reported
//! as two traces of [`RunStats`](crate::RunStats), `round_tasks` and
//! `round_level`, whose x is the microseconds since the run began, so a plot
//! shows where a run spends its time: on Slashdot at two threads the first
//! 16 of 123 rounds (the hubs near the source, thousands of edges a task)
//! take five sixths of the run, and the last hundred rounds a tenth.
//!
//! A run may have thousands of rounds (SSSP on a road graph of 4·10^6
//! vertices: about 5,000 at two threads, far more buckets at one), so the
//! log keeps at most [`MAX_POINTS`] points: when full, it merges each pair
//! of neighbouring points and from then on gathers twice as many rounds per
//! point. A merged point ends when its last round ended, counts the tasks
//! of all its rounds (so the `round_tasks` points always sum to the run's
//! tasks) and holds the level its last round left. The clock is read only
//! when a point is complete.

use std::time::Instant;

use ordo_sched::{Prio, Trace};

/// Most points each trace keeps.
pub(crate) const MAX_POINTS: usize = 256;

/// One point: rounds that ended by `micros`, the tasks they ran and the
/// first priority of the round after them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Point {
    micros: u64,
    tasks: u64,
    level: Prio,
}

/// The log of a run's rounds (see the module docs).
#[derive(Debug)]
pub(crate) struct RoundLog {
    start: Instant,
    points: Vec<Point>,
    /// The rounds gathered so far into the next point, and their tasks.
    pending_rounds: u64,
    pending_tasks: u64,
    /// Rounds per point.
    stride: u64,
    /// The level the last round left (kept when a round leaves none).
    level: Prio,
}

impl RoundLog {
    /// An empty log whose clock starts now.
    pub(crate) fn new() -> Self {
        RoundLog {
            start: Instant::now(),
            points: Vec::with_capacity(MAX_POINTS),
            pending_rounds: 0,
            pending_tasks: 0,
            stride: 1,
            level: 0,
        }
    }

    /// A round ran `tasks` tasks; the next one starts at priority `next`
    /// (`None`: no round follows, the level stays the last one).
    pub(crate) fn record(&mut self, tasks: u64, next: Option<Prio>) {
        if let Some(level) = next {
            self.level = level;
        }
        self.pending_tasks += tasks;
        self.pending_rounds += 1;
        if self.pending_rounds == self.stride {
            self.close_pending();
        }
    }

    /// Ends the pending point now.
    fn close_pending(&mut self) {
        // `Instant` is monotonic: the x of a trace never goes back.
        let micros = u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.points.push(Point { micros, tasks: self.pending_tasks, level: self.level });
        self.pending_tasks = 0;
        self.pending_rounds = 0;
        if self.points.len() == MAX_POINTS {
            self.merge_pairs();
        }
    }

    /// Halves the points: each pair becomes one, and later points gather
    /// twice as many rounds.
    fn merge_pairs(&mut self) {
        let merged: Vec<Point> = self
            .points
            .chunks(2)
            .map(|pair| {
                let last = pair[pair.len() - 1];
                Point { tasks: pair.iter().map(|p| p.tasks).sum(), ..last }
            })
            .collect();
        self.points = merged;
        self.stride *= 2;
    }

    /// The `round_tasks` and `round_level` traces, the rounds not yet in a
    /// point closing the last one.
    pub(crate) fn into_traces(mut self) -> [Trace; 2] {
        if self.pending_rounds > 0 {
            self.close_pending();
        }
        let tasks = self.points.iter().map(|p| (p.micros, p.tasks)).collect();
        let levels = self.points.iter().map(|p| (p.micros, p.level)).collect();
        [
            Trace { name: "round_tasks", x_label: "microseconds", points: tasks },
            Trace { name: "round_level", x_label: "microseconds", points: levels },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_rounds_get_a_point_each() {
        let mut log = RoundLog::new();
        log.record(0, Some(5));
        log.record(10, Some(7));
        log.record(4, None);
        let [tasks, levels] = log.into_traces();
        assert_eq!(tasks.points.iter().map(|p| p.1).collect::<Vec<_>>(), [0, 10, 4]);
        assert_eq!(
            levels.points.iter().map(|p| p.1).collect::<Vec<_>>(),
            [5, 7, 7],
            "no next round: level kept"
        );
        assert_eq!((tasks.name, levels.name), ("round_tasks", "round_level"));
        assert!(tasks.points.windows(2).all(|w| w[0].0 <= w[1].0), "time never goes back");
    }

    #[test]
    fn many_rounds_merge_into_at_most_max_points_and_keep_every_task() {
        let rounds = 10 * MAX_POINTS as u64 + 37;
        let mut log = RoundLog::new();
        for r in 0..rounds {
            log.record(r % 7 + 1, Some(r));
        }
        let [tasks, levels] = log.into_traces();
        assert!(tasks.points.len() <= MAX_POINTS, "{} points", tasks.points.len());
        assert!(tasks.points.len() > MAX_POINTS / 4, "still fine-grained: {} points", tasks.points.len());
        let expected: u64 = (0..rounds).map(|r| r % 7 + 1).sum();
        assert_eq!(tasks.points.iter().map(|p| p.1).sum::<u64>(), expected, "merging keeps every task");
        assert_eq!(levels.points.last().unwrap().1, rounds - 1, "the last level is the last round's");
        assert!(
            levels.points.windows(2).all(|w| w[0].1 < w[1].1),
            "a merged point keeps its last round's level"
        );
        assert!(tasks.points.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn an_empty_log_has_empty_traces() {
        let [tasks, levels] = RoundLog::new().into_traces();
        assert!(tasks.points.is_empty() && levels.points.is_empty());
    }
}
