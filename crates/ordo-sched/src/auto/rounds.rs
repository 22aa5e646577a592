//! The width policy of `auto`'s bulk-synchronous rounds: which span of
//! priorities the next round covers, chosen from how many tasks the last
//! rounds ran, and in how many bucket keys each thread walks it (with
//! several threads, [`RoundsConfig::keys`]; alone, one key per bucket). The
//! rounds themselves are run by `ordo-exec`, whose module docs explain the
//! keys per round.
//!
//! # Why tasks per round
//! The best Δ of Δ-stepping spans three orders of magnitude across inputs
//! (GAPBS's tuned Δ on this project's inputs: 1 on a Kronecker graph, 2^12
//! on a road graph, 2^18 on Florida with weights up to 10^5), because what
//! matters is how many tasks a bucket gathers, not the weights. A round
//! ends at a barrier, so it must carry enough tasks to pay for them and to
//! keep every thread busy, and no more: a wider bucket runs more tasks
//! before their distances are final (more re-relaxations). ρ-stepping (Dong
//! et al., SPAA'21) picks each step's threshold so that about ρ vertices
//! are processed; here the span is steered, in power-of-two steps, toward
//! [`RoundController::target`] tasks per round (a constant per thread), as
//! measured over the last rounds. (Below, "width" is the span; with one key
//! per round they are the same.)
//!
//! # Amortising a change
//! A width change redistributes every queued task (one move each), so the
//! controller decides only after at least [`MIN_ROUNDS`] rounds and after
//! running at least half as many tasks as are queued since the last change:
//! redistribution then costs at most two moves per task run.
//!
//! # A floor under a split span
//! When a round's span is split into keys, each thread walks it in
//! priority order anyway, one key after the other, so a span of a few
//! priorities orders the tasks no better than a wider one: narrowing it
//! only adds rounds, each a barrier and a wait for the last task. So a
//! span walked in keys is never narrowed below [`MIN_SPLIT_SPAN_SHIFT`]
//! (4 priorities). The floor binds only where a single priority holds more
//! tasks than a round wants: SSSP on power-law graphs with small weights
//! (a social network's hubs near the source). On roads, the grid and
//! Florida, and for PageRank, Boruvka and BFS (one key per round), it does
//! not bind. Where it binds, the run has about half the rounds with the
//! same tasks; 4 is the narrowest floor that gained on both power-law
//! inputs measured (`docs/design/2026-11-30-auto-rounds.md`).
//!
//! The same floor holds for the keys themselves: a key is never narrower
//! than 4 priorities. A span of 4 is then one bucket, run in push order,
//! rather than four buckets of one priority each, a span of 16 (where a
//! single source starts) four keys of 4, and only spans of 64 priorities or
//! more have 16 keys. One bucket of 4 run in push order costs less than
//! four buckets of one priority each holding the same tasks (fewer buckets
//! filling at once, fewer hand-overs to a waiting thread), and a thread
//! walks a span of 4 in priority order no better than in push order. On
//! roads, the grid and Florida the floor binds only in the first rounds,
//! whose spans are narrower than 64. A single thread (no keys) and BFS
//! (one key per round, no floor) are unaffected
//! (`docs/design/2026-11-30-auto-rounds.md`).
//!
//! # The first round
//! A run starts at the narrowest width that puts every initial task into
//! one bucket ([`RoundsConfig::covering`]); with a single initial task (the
//! source of SSSP, BFS, A*) that is width 1. An application that starts
//! with many tasks lists them in an order of its own, usually vertex
//! order, whose locality width-1 buckets would break into one sweep over
//! the graph per priority value, and the controller can change the width
//! only between rounds, after the damage. Boruvka's initial priorities are
//! vertex degrees (1 to 10 on road graphs): at width 1 its first sweeps go
//! degree by degree and every task misses the cache on its component's
//! lock, on the neighbour's and on its edge heap; in one bucket they run
//! in vertex order, as `fifo` runs them. PageRank's pushes keep their
//! priorities (the ceiling minus the residual) inside the initial span,
//! so PR and PR-D then run as one round in push order, with fewer tasks on
//! PR-D (`docs/design/2026-11-30-auto-rounds.md`).

use super::{DEFAULT_ROUND_KEYS, DEFAULT_ROUND_TASKS, LEVEL_ROUND_KEYS, LEVEL_ROUND_TASKS};
use crate::Prio;

/// What the executor needs to run `auto` in rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundsConfig {
    /// The initial log2 bucket width.
    pub shift: u32,
    /// Whether the width adapts ([`RoundController`]) or stays fixed.
    pub adapt: bool,
    /// Wanted tasks per round and thread (the target is this times the
    /// thread count; a single thread aims at an eighth of it, see
    /// [`RoundsConfig::controller`]).
    pub tasks_per_thread: u64,
    /// Most consecutive bucket keys one round covers with several threads
    /// and an adapting width (rounded down to a power of two; 1 makes the
    /// bucket the span). See `ordo-exec`'s rounds, "Several keys per round".
    pub keys: u64,
}

/// `auto`'s rounds as its spec gives them: what the spec leaves to `auto`
/// (`round=auto`, `keys=auto`, the defaults) the application's kind of
/// priorities decides ([`RoundsSpec::config`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundsSpec {
    /// The initial log2 bucket width.
    pub shift: u32,
    /// Whether the width adapts.
    pub adapt: bool,
    /// Wanted tasks per round and thread, if the spec sets it.
    pub tasks_per_thread: Option<u64>,
    /// Most bucket keys per round, if the spec sets it.
    pub keys: Option<u64>,
}

impl RoundsSpec {
    /// The configuration of a run whose operator declares `levels`
    /// priorities (each task pushes its successors at its own priority plus
    /// one, as BFS does) or not.
    ///
    /// Unset, the round target and keys are [`DEFAULT_ROUND_TASKS`] and
    /// [`DEFAULT_ROUND_KEYS`]: 16 keys walk a shortest-path span most
    /// urgent first. With levels they are [`LEVEL_ROUND_TASKS`] and
    /// [`LEVEL_ROUND_KEYS`]: one bucket per round, four times the tasks.
    /// Levels need no ordering inside a span (a bucket of several levels
    /// runs them oldest push first, i.e. level by level, as a queue does)
    /// and re-run few vertices when a round covers several of them, while
    /// every round ends at a barrier and re-deals the threads' work, so a
    /// thread's next round starts on vertices the other thread touched.
    /// At the defaults BFS would keep one level per round (the width cannot
    /// go below 1), about twice the rounds on a road graph and four times
    /// on a grid. Of the round targets that did equally well for levels,
    /// the smaller is taken, which keeps a thread's drift (the fusion
    /// limit, four times the target) shorter
    /// (`docs/design/2026-11-30-auto-rounds.md`).
    pub fn config(self, levels: bool) -> RoundsConfig {
        let (tasks, keys) = if levels {
            (LEVEL_ROUND_TASKS, LEVEL_ROUND_KEYS)
        } else {
            (DEFAULT_ROUND_TASKS, DEFAULT_ROUND_KEYS)
        };
        RoundsConfig {
            shift: self.shift,
            adapt: self.adapt,
            tasks_per_thread: self.tasks_per_thread.unwrap_or(tasks),
            keys: self.keys.unwrap_or(keys),
        }
    }
}

/// How much smaller a single thread's rounds are than one thread's share of
/// a parallel round.
pub const SINGLE_THREAD_DIVISOR: u64 = 8;

impl RoundsConfig {
    /// This configuration starting at the narrowest width that puts every
    /// one of `initial_priorities` into one bucket, if that is wider than
    /// [`RoundsConfig::shift`] (see "The first round" in the module docs).
    pub fn covering(self, initial_priorities: impl IntoIterator<Item = Prio>) -> RoundsConfig {
        let (lo, hi) =
            initial_priorities.into_iter().fold((Prio::MAX, 0), |(lo, hi), p| (lo.min(p), hi.max(p)));
        if lo > hi {
            return self;
        }
        RoundsConfig { shift: self.shift.max(covering_shift(lo, hi)), ..self }
    }

    /// The controller of a run on `threads` threads. With several threads a
    /// round ends at a barrier (a synchronisation of every thread, plus the
    /// wait for the last chunk), so it needs `tasks_per_thread` tasks per
    /// thread to pay for it; alone, a thread only moves to its next bucket
    /// (a few loads and stores), and narrower buckets waste less work, so
    /// its target is [`SINGLE_THREAD_DIVISOR`] times smaller (the best of
    /// the one-thread targets tried on road-like inputs).
    pub fn controller(&self, threads: usize) -> RoundController {
        let target = match (self.adapt, threads) {
            (false, _) => 0,
            (true, 0 | 1) => (self.tasks_per_thread / SINGLE_THREAD_DIVISOR).max(1),
            (true, t) => self.tasks_per_thread.saturating_mul(t as u64),
        };
        let controller = RoundController::new(self.shift, target);
        if self.adapt && threads > 1 {
            controller.with_keys(self.keys)
        } else {
            controller
        }
    }

    /// Most tasks a thread runs in one round before it stops taking the
    /// tasks it pushed into the round's key (bucket fusion), leaving them
    /// for the next round: [`FUSION_LIMIT_SHARES`] times its share of the
    /// round target. It keeps threads within about a generation of each
    /// other when a round's key holds nearly every task (PageRank); see
    /// `ordo-exec`'s rounds for the measurements.
    pub fn fusion_limit(&self) -> u64 {
        self.tasks_per_thread.saturating_mul(FUSION_LIMIT_SHARES).max(1)
    }
}

/// Most tasks a thread of the rounds takes from its own pile at once (the
/// sharing protocol is `ordo-exec`'s rounds; `ordo-sim` replays it).
pub const CHUNK: usize = 64;

/// Fewest tasks a thread takes from its own pile at once (unless fewer are
/// left).
pub const MIN_CHUNK: usize = 8;

/// A thread running a bucket of its own looks every this many tasks
/// whether another thread waits for work.
pub const LOOK_EVERY: usize = 8;

/// A thread takes `1 / (GUIDED_SHARES × threads)` of its pile at once,
/// between [`MIN_CHUNK`] and [`CHUNK`] tasks.
pub const GUIDED_SHARES: usize = 2;

/// [`RoundsConfig::fusion_limit`] in shares of the round target per thread
/// (a limit of 2 shares also cut SSSP's chains on road graphs).
pub const FUSION_LIMIT_SHARES: u64 = 4;

/// The narrowest log2 width whose buckets put `lo` and `hi` (and every
/// priority between them) into one bucket, at most [`MAX_SHIFT`].
pub fn covering_shift(lo: Prio, hi: Prio) -> u32 {
    (Prio::BITS - (lo ^ hi).leading_zeros()).min(MAX_SHIFT)
}

/// Fewest rounds between two width decisions.
pub const MIN_ROUNDS: u32 = 4;
/// log2 of the narrowest span of a round split into keys (module docs, "A
/// floor under a split span").
pub const MIN_SPLIT_SPAN_SHIFT: u32 = 2;
/// Largest change of `shift` in one decision.
pub const MAX_STEP: u32 = 4;
/// Widest bucket (`2^MAX_SHIFT`); beyond it every key is one bucket anyway.
pub const MAX_SHIFT: u32 = 40;

/// Chooses the span of each round: its bucket width and how many keys.
#[derive(Clone, Debug)]
pub struct RoundController {
    /// Wanted tasks per round (all threads together); 0 keeps the width.
    target: u64,
    /// log2 of the round's span (bucket width times keys per round).
    shift: u32,
    /// log2 of the most keys per round ([`RoundController::with_keys`]).
    keys_log2: u32,
    /// Smoothed tasks per round since the last change.
    smoothed: f64,
    rounds_since_change: u32,
    tasks_since_change: u64,
    total_tasks: u64,
    rounds: u64,
    changes: u64,
    /// `(tasks run so far, log2 bucket width)` at the start and at every
    /// change.
    trace: Vec<(u64, u64)>,
    /// Tasks of the parts of the current key's round so far.
    part_tasks: u64,
    parts: u64,
}

impl RoundController {
    /// A controller starting at width `2^shift`, steering toward `target`
    /// tasks per round (`0`: never change the width).
    pub fn new(shift: u32, target: u64) -> Self {
        RoundController {
            target,
            shift,
            keys_log2: 0,
            smoothed: 0.0,
            rounds_since_change: 0,
            tasks_since_change: 0,
            total_tasks: 0,
            rounds: 0,
            changes: 0,
            trace: vec![(0, u64::from(shift))],
            part_tasks: 0,
            parts: 0,
        }
    }

    /// This controller with rounds of up to `keys` keys (rounded down to a
    /// power of two): the span it steers is `keys` buckets wide, each
    /// bucket `keys` times narrower than the span, until a bucket would be
    /// narrower than the floor, `2^`[`MIN_SPLIT_SPAN_SHIFT`] priorities (or
    /// `keys`, if fewer); then buckets keep the floor's width and the round
    /// has fewer keys, one at a span as narrow as the floor, below which a
    /// decision does not narrow the span (module docs, "A floor under a
    /// split span"). The starting span is `keys` times the width
    /// [`RoundController::new`] was given, and its buckets that width or
    /// the floor's, whichever is wider.
    pub fn with_keys(mut self, keys: u64) -> Self {
        self.keys_log2 = keys.max(1).ilog2();
        self.shift = (self.shift + self.keys_log2).min(MAX_SHIFT);
        self.trace = vec![(0, u64::from(self.bucket_shift()))];
        self
    }

    /// The narrowest log2 span a decision may choose, and the narrowest
    /// log2 bucket width of a span split into keys: the floor, none with
    /// one key per round.
    fn min_shift(&self) -> u32 {
        MIN_SPLIT_SPAN_SHIFT.min(self.keys_log2)
    }

    /// log2 of the bucket width of the next round: the span split into the
    /// most keys [`RoundController::with_keys`] allows, but no narrower than
    /// the floor.
    pub fn bucket_shift(&self) -> u32 {
        // The span is never narrower than the floor (`with_keys`,
        // `on_round`), so neither is the bucket wider than the span.
        self.shift.saturating_sub(self.keys_log2).max(self.min_shift())
    }

    /// The number of keys (buckets) the next round covers.
    pub fn keys(&self) -> u64 {
        1 << (self.shift - self.bucket_shift())
    }

    /// The wanted tasks per round.
    pub fn target(&self) -> u64 {
        self.target
    }

    /// log2 of the current span (the bucket width with one key per round).
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Rounds seen.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Width changes made.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// `(tasks run so far, log2 bucket width)` at the start and at every
    /// change.
    pub fn trace(&self) -> &[(u64, u64)] {
        &self.trace
    }

    /// A round cut short by the fusion limit ran `tasks` tasks, and its
    /// first key still holds tasks: the next round continues from that key
    /// with the same span. The parts of a key's round count as one round at the next
    /// [`RoundController::on_round`], so the width follows the tasks a
    /// bucket gathers, not where the limit cut it.
    pub fn on_part(&mut self, tasks: u64) {
        self.rounds += 1;
        self.parts += 1;
        self.total_tasks += tasks;
        self.part_tasks += tasks;
    }

    /// Rounds cut short by the fusion limit ([`RoundController::on_part`]).
    pub fn parts(&self) -> u64 {
        self.parts
    }

    /// A round ran `tasks` tasks and `queued` tasks wait: returns the log2
    /// span of the next round (its bucket width and keys:
    /// [`RoundController::bucket_shift`], [`RoundController::keys`]).
    pub fn on_round(&mut self, tasks: u64, queued: u64) -> u32 {
        self.rounds += 1;
        self.total_tasks += tasks;
        // With the parts before it, if the limit cut this key's round.
        let tasks = tasks + std::mem::take(&mut self.part_tasks);
        self.tasks_since_change += tasks;
        self.rounds_since_change += 1;
        self.smoothed = if self.rounds_since_change == 1 {
            tasks as f64
        } else {
            0.75 * self.smoothed + 0.25 * tasks as f64
        };
        if self.target == 0
            || self.rounds_since_change < MIN_ROUNDS
            || self.tasks_since_change.saturating_mul(2) < queued
        {
            return self.shift;
        }
        let ratio = self.target as f64 / self.smoothed.max(1.0);
        let new = if ratio >= 2.0 {
            (self.shift + (ratio.log2().floor() as u32).min(MAX_STEP)).min(MAX_SHIFT)
        } else if ratio <= 0.5 {
            let narrower = self.shift.saturating_sub(((1.0 / ratio).log2().floor() as u32).min(MAX_STEP));
            narrower.max(self.min_shift())
        } else {
            self.shift
        };
        if new != self.shift {
            self.shift = new;
            self.changes += 1;
            self.rounds_since_change = 0;
            self.tasks_since_change = 0;
            if self.trace.last().is_none_or(|&(_, b)| b != u64::from(self.bucket_shift())) {
                self.trace.push((self.total_tasks, u64::from(self.bucket_shift())));
            }
        }
        self.shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_rounds_widen_dense_rounds_narrow_on_target_stays() {
        let mut c = RoundController::new(0, 256);
        for _ in 0..MIN_ROUNDS - 1 {
            assert_eq!(c.on_round(1, 0), 0, "no decision before MIN_ROUNDS");
        }
        assert_eq!(c.on_round(1, 0), MAX_STEP, "1 task per round: widen by the largest step");
        for _ in 0..MIN_ROUNDS - 1 {
            c.on_round(4096, 0);
        }
        assert_eq!(c.on_round(4096, 0), 0, "16x too many: narrow by log2(16)");
        for _ in 0..3 * MIN_ROUNDS {
            assert_eq!(c.on_round(300, 0), 0, "within a factor 2 of the target: stay");
        }
        assert_eq!(c.changes(), 2);
        assert_eq!(c.trace(), &[(0, 0), (4, 4), (4 + 4 * 4096, 0)]);
    }

    #[test]
    fn a_split_span_and_its_keys_are_no_narrower_than_the_floor() {
        // 16 keys from width 1 (a single source): a span of 16 priorities
        // in 4 keys of the floor's width.
        let mut c = RoundController::new(0, 512).with_keys(16);
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (4, MIN_SPLIT_SPAN_SHIFT, 4));
        // Sparse rounds widen the span in keys of the floor's width, then
        // in wider keys once there are 16.
        for _ in 0..MIN_ROUNDS {
            c.on_round(128, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (6, MIN_SPLIT_SPAN_SHIFT, 16));
        for _ in 0..MIN_ROUNDS {
            c.on_round(1, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (10, 6, 16));
        // 64x too many: narrowed by the largest step, then to the floor.
        for _ in 0..MIN_ROUNDS {
            c.on_round(512 * 64, 0);
        }
        assert_eq!(
            (c.shift(), c.bucket_shift(), c.keys()),
            (6, MIN_SPLIT_SPAN_SHIFT, 16),
            "a step of 4 at most"
        );
        for _ in 0..MIN_ROUNDS {
            c.on_round(512 * 64, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (MIN_SPLIT_SPAN_SHIFT, MIN_SPLIT_SPAN_SHIFT, 1));
        for _ in 0..2 * MIN_ROUNDS {
            c.on_round(512 * 64, 0);
        }
        assert_eq!(c.shift(), MIN_SPLIT_SPAN_SHIFT, "stays at the floor");
        assert_eq!(c.changes(), 4);
        // Sparse rounds widen from the floor as from anywhere, once the
        // smoothed count has come down.
        for _ in 0..40 {
            c.on_round(64, 0);
        }
        assert!(c.shift() > MIN_SPLIT_SPAN_SHIFT, "widened from the floor: {}", c.shift());
        // Fewer keys than the floor's width: the floor is the keys.
        let two = RoundController::new(0, 512).with_keys(2);
        assert_eq!((two.shift(), two.bucket_shift(), two.keys()), (1, 1, 1));
        let mut two = RoundController::new(3, 512).with_keys(2);
        for _ in 0..2 * MIN_ROUNDS {
            two.on_round(512 * 64, 0);
        }
        assert_eq!((two.shift(), two.bucket_shift(), two.keys()), (1, 1, 1));
        // One key per round (levels) has no floor: the span is the bucket.
        let mut one = RoundController::new(3, 512).with_keys(1);
        for _ in 0..MIN_ROUNDS {
            one.on_round(512 * 64, 0);
        }
        assert_eq!(one.shift(), 0);
        // Nor has a single thread's controller (no keys).
        let mut alone = RoundController::new(3, 64);
        for _ in 0..MIN_ROUNDS {
            alone.on_round(64 * 64, 0);
        }
        assert_eq!(alone.shift(), 0);
    }

    #[test]
    fn the_parts_of_a_cut_round_count_as_one_round() {
        let mut c = RoundController::new(10, 256);
        for _ in 0..2 * MIN_ROUNDS {
            c.on_part(5000);
            assert_eq!(c.shift(), 10, "no decision on a part");
        }
        assert_eq!(c.changes(), 0);
        // Three rounds of 200 tasks, then one key in 8 parts of 32: the
        // smoothed round is 0.75 · 200 + 0.25 · 256 = 214 tasks, within a
        // factor 2 of the target; as rounds of 32 the parts would widen.
        let mut c = RoundController::new(10, 256);
        for _ in 0..MIN_ROUNDS - 1 {
            c.on_round(200, 0);
        }
        for _ in 0..7 {
            c.on_part(32);
        }
        assert_eq!(c.on_round(32, 0), 10, "one round of 256 tasks: stay");
        assert_eq!((c.rounds(), c.parts()), (11, 7));
        assert_eq!(c.trace(), &[(0, 10)]);
    }

    #[test]
    fn unset_round_settings_follow_the_kind_of_priorities_and_set_ones_stay() {
        let unset = RoundsSpec { shift: 3, adapt: true, tasks_per_thread: None, keys: None };
        let general = unset.config(false);
        assert_eq!((general.tasks_per_thread, general.keys), (DEFAULT_ROUND_TASKS, DEFAULT_ROUND_KEYS));
        let levels = unset.config(true);
        assert_eq!((levels.tasks_per_thread, levels.keys), (LEVEL_ROUND_TASKS, LEVEL_ROUND_KEYS));
        assert_eq!((levels.shift, levels.adapt), (3, true));
        assert_eq!(levels.controller(2).keys(), 1, "levels: one bucket per round");
        assert_eq!(levels.controller(2).target(), 2 * LEVEL_ROUND_TASKS);
        // What the spec sets is kept, whatever the priorities.
        let set = RoundsSpec { tasks_per_thread: Some(64), keys: Some(4), ..unset };
        for levels in [false, true] {
            let cfg = set.config(levels);
            assert_eq!((cfg.tasks_per_thread, cfg.keys), (64, 4));
        }
        let half = RoundsSpec { keys: Some(8), ..unset }.config(true);
        assert_eq!((half.tasks_per_thread, half.keys), (LEVEL_ROUND_TASKS, 8));
    }

    #[test]
    fn several_keys_split_the_span_into_narrower_buckets() {
        // Starting at bucket width 2^10 with 16 keys: the span is 2^14.
        let mut c = RoundController::new(10, 256).with_keys(16);
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (14, 10, 16));
        assert_eq!(c.trace(), &[(0, 10)], "the trace follows the bucket width");
        // Rounds 16 times too large narrow the span by 4: buckets of 2^6.
        for _ in 0..MIN_ROUNDS {
            c.on_round(4096, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (10, 6, 16));
        // Narrower than 16 keys of the floor's width: buckets of the floor's
        // width and fewer keys, down to one.
        for _ in 0..MIN_ROUNDS {
            c.on_round(1 << 20, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (6, MIN_SPLIT_SPAN_SHIFT, 16));
        for _ in 0..MIN_ROUNDS {
            c.on_round(600, 0);
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (5, MIN_SPLIT_SPAN_SHIFT, 8));
        for _ in 0..2 {
            for _ in 0..MIN_ROUNDS {
                c.on_round(1 << 20, 0);
            }
        }
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (MIN_SPLIT_SPAN_SHIFT, MIN_SPLIT_SPAN_SHIFT, 1));
        // A start at the floor's width or wider keeps its buckets.
        let c = RoundController::new(MIN_SPLIT_SPAN_SHIFT, 256).with_keys(16);
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (6, MIN_SPLIT_SPAN_SHIFT, 16));
        // A count that is not a power of two rounds down; 1 is one key.
        let c = RoundController::new(3, 256).with_keys(20);
        assert_eq!((c.bucket_shift(), c.keys()), (3, 16));
        let c = RoundController::new(3, 256).with_keys(1);
        assert_eq!((c.shift(), c.bucket_shift(), c.keys()), (3, 3, 1));
        // Only several threads with an adapting width get several keys.
        let cfg = RoundsConfig { shift: 5, adapt: true, tasks_per_thread: 256, keys: 16 };
        assert_eq!(cfg.controller(2).keys(), 16);
        assert_eq!(cfg.controller(1).keys(), 1);
        assert_eq!(RoundsConfig { adapt: false, ..cfg }.controller(2).keys(), 1);
    }

    #[test]
    fn a_change_waits_until_half_the_queue_ran_and_fixed_never_changes() {
        let mut c = RoundController::new(3, 256);
        for _ in 0..10 {
            assert_eq!(c.on_round(1, 1_000_000), 3, "queue too long to redistribute yet");
        }
        let mut fixed = RoundController::new(5, 0);
        for _ in 0..10 {
            assert_eq!(fixed.on_round(1, 0), 5);
        }
        assert_eq!(fixed.changes(), 0);
    }

    #[test]
    fn the_first_width_covers_the_initial_priorities() {
        assert_eq!(covering_shift(5, 5), 0, "one priority: width 1");
        assert_eq!(covering_shift(1, 10), 4, "1..=10 lie in bucket 0 of width 16, not of width 8");
        assert_eq!(covering_shift(16, 31), 4);
        assert_eq!(covering_shift(15, 16), 5, "neighbours across a boundary of width 16");
        assert_eq!(covering_shift(0, Prio::MAX), MAX_SHIFT);
        for (lo, hi) in [(1u64, 10u64), (16, 31), (15, 16), (1000, 1_000_000), (7, 7)] {
            let s = covering_shift(lo, hi);
            assert_eq!(lo >> s, hi >> s, "{lo}..{hi} in one bucket at shift {s}");
            if s > 0 {
                assert_ne!(lo >> (s - 1), hi >> (s - 1), "{lo}..{hi}: shift {s} is the narrowest");
            }
        }
        let cfg = RoundsConfig { shift: 0, adapt: true, tasks_per_thread: 256, keys: 16 };
        assert_eq!(cfg.covering([3, 1, 10, 7]).shift, 4);
        assert_eq!(cfg.covering([42]).shift, 0);
        assert_eq!(cfg.covering(std::iter::empty()).shift, 0, "no initial task: unchanged");
        let wide = RoundsConfig { shift: 9, ..cfg };
        assert_eq!(wide.covering([1, 10]).shift, 9, "never narrower than configured");
    }

    #[test]
    fn width_stays_in_range() {
        let mut c = RoundController::new(MAX_SHIFT - 1, u64::MAX / 2);
        for _ in 0..4 * MIN_ROUNDS {
            c.on_round(1, 0);
        }
        assert_eq!(c.shift(), MAX_SHIFT);
        let mut c = RoundController::new(1, 1);
        for _ in 0..4 * MIN_ROUNDS {
            c.on_round(1 << 20, 0);
        }
        assert_eq!(c.shift(), 0);
    }
}
