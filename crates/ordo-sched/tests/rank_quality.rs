//! Rank quality of the relaxed schedulers, driven deterministically from one
//! thread through several handles, in the analytical model of
//! stealing-multiqueue-2021 §3: all insertions first, in increasing priority
//! order, each through a uniformly random handle (so into a random queue for
//! `mq`, a random thread's queue for `smq`); then deletions through uniformly
//! random handles (a uniform thread scheduler, γ = 0). The *rank* of a
//! deleted task is the number of tasks still present with a more urgent
//! priority (0 = exact), computed independently with a Fenwick tree.
//!
//! Claims checked against the theory:
//! - the classic Multi-Queue's average rank is O(m), m = C·T queues
//!   (Alistarh et al. via §1), and grows with C; delete batching worsens it;
//! - the SMQ's average rank is O(n·B/p_steal · log(1/p_steal)) (Theorem 1)
//!   and grows when p_steal shrinks, and when the steal batch B grows beyond
//!   4 (below that, see the comment in the SMQ test);
//! - `strict` has rank 0 (a check of the measurement itself).

use ordo_sched::{Handle, Scheduler, SchedulerSpec, SchedulerVisitor};

const HANDLES: usize = 8;
const TASKS: u64 = 100_000;
const DELETES: usize = 50_000;

/// Counts of present priorities with prefix sums (a Fenwick tree).
struct Present {
    tree: Vec<i64>,
}

impl Present {
    fn new(n: usize) -> Self {
        Present { tree: vec![0; n + 1] }
    }
    fn add(&mut self, p: u64, d: i64) {
        let mut i = p as usize + 1;
        while i < self.tree.len() {
            self.tree[i] += d;
            i += i & i.wrapping_neg();
        }
    }
    /// Present priorities strictly below `p`.
    fn below(&self, p: u64) -> i64 {
        let mut i = p as usize;
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// A fixed LCG for the test's own random choices (not the scheduler's).
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// The result of one run: average and maximum rank of the deleted tasks.
#[derive(Debug, Clone, Copy)]
struct Ranks {
    average: f64,
    max: i64,
}

struct RankRun;

impl SchedulerVisitor<u64> for RankRun {
    type Output = Ranks;

    fn visit<S: Scheduler<u64>>(self, sched: S) -> Ranks {
        let mut handles: Vec<_> = (0..HANDLES).map(|t| sched.handle(t)).collect();
        let mut rng = Lcg(42);
        let mut present = Present::new(TASKS as usize);
        for p in 0..TASKS {
            handles[rng.below(HANDLES)].push(p, p);
            present.add(p, 1);
        }
        let (mut total, mut max) = (0i64, 0i64);
        for _ in 0..DELETES {
            let (p, task) = handles[rng.below(HANDLES)].pop().expect("tasks remain, no other thread runs");
            assert_eq!(p, task, "a task came back with another priority");
            let rank = present.below(p);
            present.add(p, -1);
            assert!(present.below(p + 1) == present.below(p), "task {p} deleted twice");
            total += rank;
            max = max.max(rank);
        }
        Ranks { average: total as f64 / DELETES as f64, max }
    }
}

fn ranks(spec: &str) -> Ranks {
    let spec: SchedulerSpec = spec.parse().unwrap();
    let r = spec.build(HANDLES, RankRun);
    eprintln!("{spec:<60} average rank {:>9.2}  max {:>7}", r.average, r.max);
    r
}

#[test]
fn strict_has_rank_zero() {
    let r = ranks("strict");
    assert_eq!((r.average, r.max), (0.0, 0));
}

#[test]
fn multiqueue_rank_is_order_m_and_grows_with_c_and_batching() {
    let mut averages = Vec::new();
    for c in [2usize, 4, 8] {
        let m = (c * HANDLES) as f64;
        let r = ranks(&format!("mq:c={c}"));
        assert!(
            r.average > m / 8.0 && r.average < 4.0 * m,
            "mq c={c}: average rank {} vs m = {m}",
            r.average
        );
        averages.push(r.average);
    }
    assert!(averages[0] * 1.3 < averages[1] && averages[1] * 1.3 < averages[2], "{averages:?}");
    let classic = averages[1];
    let batched = ranks("mq:c=4,delete_batch=8").average;
    assert!(batched > 1.5 * classic, "delete batching must relax the order: {batched} vs {classic}");
    let sticky = ranks("mq:c=4,delete_stickiness=8").average;
    assert!(sticky > 1.5 * classic, "temporal locality must relax the order: {sticky} vs {classic}");
}

#[test]
fn smq_rank_is_within_theorem_1_and_grows_as_theory_says() {
    let n = HANDLES as f64;
    let bound = |b: f64, p: f64| n * b / p * (1.0 / p).log2().max(1.0);
    let mut by_p = Vec::new();
    for (text, p) in [("1/2", 0.5), ("1/8", 0.125), ("1/32", 1.0 / 32.0)] {
        let r = ranks(&format!("smq:steal=4,p_steal={text}"));
        assert!(
            r.average > 0.0 && r.average < bound(4.0, p),
            "smq p_steal={text}: average rank {} vs n·B/p·log(1/p) = {}",
            r.average,
            bound(4.0, p)
        );
        by_p.push(r.average);
    }
    assert!(by_p[0] * 1.3 < by_p[1] && by_p[1] * 1.3 < by_p[2], "smaller p_steal must relax: {by_p:?}");
    // Batch size. Theorem 1 scales with B because in its model (Listing 3)
    // *every* delete takes B tasks. In the implementation (Listing 2) local
    // deletes take one task and only steals take B, so a larger B first
    // strengthens the balancing that steals provide (B = 1 gives a clearly
    // larger rank than B = 4) and then relaxes the order as
    // stolen batches hoard more tasks: from B = 4 on, the rank grows with B.
    let mut by_b = Vec::new();
    for b in [1usize, 4, 16, 64] {
        let r = ranks(&format!("smq:steal={b},p_steal=1/8"));
        assert!(r.average < bound(b as f64, 0.125), "smq steal={b}: {}", r.average);
        by_b.push(r.average);
    }
    assert!(by_b[1] * 1.3 < by_b[2] && by_b[2] * 1.3 < by_b[3], "larger batches must relax: {by_b:?}");
}

#[test]
fn reld_is_much_more_relaxed_than_two_choice() {
    // Local dequeue ignores the other queues' tops entirely: its rank grows
    // with the queue contents, far beyond the Multi-Queue's O(m).
    let reld = ranks("reld").average;
    let mq = ranks("mq:c=1").average;
    assert!(reld > 4.0 * mq, "reld {reld} vs mq {mq}");
}
