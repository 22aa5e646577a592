//! The rank of every popped task among the tasks pending in the scheduler
//! at that moment, exactly, and its distribution.
//!
//! # Definition
//! A task is *pending* from the end of its `push` until the `pop` that
//! returns it, wherever it sits (shared queues, private buffers of any
//! thread, stolen-task buffers); stale tasks (whose vertex has improved
//! since) are pending too, since the scheduler cannot know. The *rank* of a
//! popped task of priority `p` is the number of pending tasks (itself
//! excluded) whose priority is **strictly** more urgent, `< p`. So rank 0
//! means the pop returned a most urgent task; ties never count against a
//! scheduler (BFS has many equal priorities, and any of them is a correct
//! exact choice). The papers' ranks start at 1 (the top element has rank 1):
//! ours are theirs minus one where priorities are distinct.
//!
//! # Computation
//! The driver logs each push and pop priority in order ([`EventLog`]).
//! Afterwards the priorities are compressed (sorted, deduplicated) and the
//! log is replayed through a Fenwick tree of counts per compressed
//! priority: a push adds 1, a pop queries the prefix sum below its priority
//! (its rank) and removes 1. `O(E log U)` for `E` events over `U` distinct
//! priorities, exact. [`brute_force_ranks`] is the obvious quadratic scan,
//! kept to test it.

use ordo_sched::Prio;

/// The push and pop priorities of a run, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog {
    /// Priorities, one per event.
    prios: Vec<Prio>,
    /// Bit `i` set: event `i` is a pop.
    pops: Vec<u64>,
}

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        EventLog::default()
    }

    /// A task of priority `prio` was pushed.
    pub fn push(&mut self, prio: Prio) {
        self.add(prio, false);
    }

    /// A task of priority `prio` was popped.
    pub fn pop(&mut self, prio: Prio) {
        self.add(prio, true);
    }

    fn add(&mut self, prio: Prio, pop: bool) {
        let i = self.prios.len();
        if i % 64 == 0 {
            self.pops.push(0);
        }
        if pop {
            self.pops[i / 64] |= 1 << (i % 64);
        }
        self.prios.push(prio);
    }

    /// Events logged.
    pub fn len(&self) -> usize {
        self.prios.len()
    }

    /// Whether nothing was logged.
    pub fn is_empty(&self) -> bool {
        self.prios.is_empty()
    }

    /// The events in order: `(priority, is_pop)`.
    pub fn iter(&self) -> impl Iterator<Item = (Prio, bool)> + '_ {
        self.prios.iter().enumerate().map(|(i, &p)| (p, self.pops[i / 64] >> (i % 64) & 1 == 1))
    }
}

/// A Fenwick (binary indexed) tree of counts over `0..n`.
struct Fenwick {
    tree: Vec<i64>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick { tree: vec![0; n + 1] }
    }

    /// Adds `delta` at index `i`.
    fn add(&mut self, i: usize, delta: i64) {
        let mut k = i + 1;
        while k < self.tree.len() {
            self.tree[k] += delta;
            k += k & k.wrapping_neg();
        }
    }

    /// The sum over `0..i`.
    fn prefix(&self, i: usize) -> i64 {
        let mut k = i;
        let mut s = 0;
        while k > 0 {
            s += self.tree[k];
            k &= k - 1;
        }
        s
    }
}

/// The rank of every pop of `log`, in pop order (module docs), by a
/// Fenwick tree over the compressed priorities.
///
/// # Panics
/// If the log pops a priority with no pending task of that priority (a
/// corrupt log; the driver never produces one).
pub fn ranks(log: &EventLog) -> Vec<u64> {
    let mut distinct: Vec<Prio> = log.prios.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let index = |p: Prio| distinct.binary_search(&p).expect("every priority was collected");
    let mut counts = Fenwick::new(distinct.len());
    let mut out = Vec::new();
    for (p, is_pop) in log.iter() {
        let i = index(p);
        if is_pop {
            let below = counts.prefix(i);
            assert!(counts.prefix(i + 1) > below, "pop of priority {p} with no such task pending");
            out.push(below as u64);
            counts.add(i, -1);
        } else {
            counts.add(i, 1);
        }
    }
    out
}

/// The same ranks by scanning the pending multiset at every pop: `O(E·P)`
/// for `P` pending tasks. For tests and small inputs.
pub fn brute_force_ranks(log: &EventLog) -> Vec<u64> {
    let mut pending: Vec<Prio> = Vec::new();
    let mut out = Vec::new();
    for (p, is_pop) in log.iter() {
        if is_pop {
            out.push(pending.iter().filter(|&&q| q < p).count() as u64);
            let at = pending.iter().position(|&q| q == p).expect("popped priority pending");
            pending.swap_remove(at);
        } else {
            pending.push(p);
        }
    }
    out
}

/// One bucket of the rank histogram: ranks in `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// Smallest rank of the bucket.
    pub lo: u64,
    /// Largest rank of the bucket.
    pub hi: u64,
    /// Pops whose rank falls in the bucket.
    pub count: u64,
}

/// The distribution of the ranks of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankStats {
    /// Pops measured.
    pub pops: u64,
    /// Mean rank.
    pub mean: f64,
    /// Median rank (nearest-rank percentile).
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest rank.
    pub max: u64,
    /// Pops of rank 0 (a most urgent task) over all pops.
    pub exact_fraction: f64,
    /// Logarithmic histogram: `[0, 0]`, `[1, 1]`, `[2, 3]`, `[4, 7]`, …, up
    /// to the bucket holding the maximum (empty buckets included).
    pub histogram: Vec<Bucket>,
}

impl RankStats {
    /// The distribution of `ranks` (any order). Percentiles are
    /// nearest-rank: the smallest value with at least `q·n` values at or
    /// below it.
    pub fn of(ranks: &[u64]) -> RankStats {
        if ranks.is_empty() {
            return RankStats::default();
        }
        let mut sorted = ranks.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let pct = |q: f64| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        let max = sorted[n - 1];
        let buckets = if max == 0 { 1 } else { 2 + (63 - max.leading_zeros()) as usize };
        let mut histogram: Vec<Bucket> = (0..buckets)
            .map(|b| {
                let (lo, hi) = if b == 0 { (0, 0) } else { (1u64 << (b - 1), (1u64 << (b - 1)) * 2 - 1) };
                Bucket { lo, hi, count: 0 }
            })
            .collect();
        for &r in &sorted {
            let b = if r == 0 { 0 } else { 1 + (63 - r.leading_zeros()) as usize };
            histogram[b].count += 1;
        }
        RankStats {
            pops: n as u64,
            mean: sorted.iter().map(|&r| r as f64).sum::<f64>() / n as f64,
            p50: pct(0.5),
            p90: pct(0.9),
            p99: pct(0.99),
            max,
            exact_fraction: sorted.partition_point(|&r| r == 0) as f64 / n as f64,
            histogram,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn log_of(ops: &[(bool, Prio)]) -> EventLog {
        // (is_push, prio) with pops choosing a pending priority by index.
        let mut log = EventLog::new();
        let mut pending: Vec<Prio> = Vec::new();
        for &(push, p) in ops {
            if push || pending.is_empty() {
                log.push(p);
                pending.push(p);
            } else {
                let q = pending.swap_remove(p as usize % pending.len());
                log.pop(q);
            }
        }
        log
    }

    #[test]
    fn small_example_by_hand() {
        let mut log = EventLog::new();
        for p in [5, 3, 5, 9] {
            log.push(p);
        }
        log.pop(5); // pending 3,5,9 besides it: one smaller
        log.pop(3); // 0 smaller
        log.push(1);
        log.pop(9); // 5 and 1 smaller
        log.pop(1);
        log.pop(5);
        assert_eq!(ranks(&log), vec![1, 0, 2, 0, 0]);
        assert_eq!(brute_force_ranks(&log), vec![1, 0, 2, 0, 0]);
        let s = RankStats::of(&ranks(&log));
        assert_eq!((s.pops, s.p50, s.max), (5, 0, 2));
        assert!((s.mean - 0.6).abs() < 1e-12);
        assert!((s.exact_fraction - 0.6).abs() < 1e-12);
        assert_eq!(
            s.histogram,
            vec![
                Bucket { lo: 0, hi: 0, count: 3 },
                Bucket { lo: 1, hi: 1, count: 1 },
                Bucket { lo: 2, hi: 3, count: 1 }
            ]
        );
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let ranks: Vec<u64> = (1..=100).collect();
        let s = RankStats::of(&ranks);
        assert_eq!((s.p50, s.p90, s.p99, s.max), (50, 90, 99, 100));
        assert_eq!(s.histogram.last().unwrap(), &Bucket { lo: 64, hi: 127, count: 37 });
        assert_eq!(s.histogram.iter().map(|b| b.count).sum::<u64>(), 100);
        assert_eq!(RankStats::of(&[]), RankStats::default());
    }

    proptest! {
        /// The Fenwick ranks equal the brute-force count on random logs,
        /// with many ties (priorities from a small range).
        #[test]
        fn fenwick_matches_brute_force(ops in proptest::collection::vec((any::<bool>(), 0u64..20), 0..400)) {
            let log = log_of(&ops);
            prop_assert_eq!(ranks(&log), brute_force_ranks(&log));
        }
    }
}
