//! Tests of PMOD: the key order against the paper's definition, the checks on
//! synthetic windows, adaptation in runs, exactly-once delivery.

use std::cmp::Ordering as CmpOrdering;

use proptest::prelude::*;

use super::adapt::{merge_check, unmerge_check, Window};
use super::*;
use crate::fifo::tests::exactly_once;
use crate::spec::SchedulerSpec;
use crate::topology::Topology;
use crate::{Handle, Scheduler};

/// The paper's order (§4.2, as the PMOD artifact sorts), on raw priorities.
fn paper_cmp((k1, d1): (u64, u32), (k2, d2): (u64, u32)) -> CmpOrdering {
    let s = d1.max(d2);
    (k1 >> s).cmp(&(k2 >> s)).then(d1.cmp(&d2))
}

fn arb_key() -> impl Strategy<Value = (u64, u32)> {
    // Small priorities collide often; large ones exercise high bits.
    (prop_oneof![0u64..64, 0u64..100_000, any::<u64>()], 0u32..=MAX_LMF)
}

proptest! {
    #[test]
    fn key_order_is_the_papers(a in arb_key(), b in arb_key()) {
        let (ka, kb) = (PmodKey::new(a.0, a.1), PmodKey::new(b.0, b.1));
        prop_assert_eq!(ka.cmp(&kb), paper_cmp(a, b));
        prop_assert_eq!(ka == kb, (a.0 >> a.1) == (b.0 >> b.1) && a.1 == b.1);
        prop_assert_eq!(ka.group(), a.0 >> a.1);
    }

    #[test]
    fn key_order_is_transitive(a in arb_key(), b in arb_key(), c in arb_key()) {
        let mut keys = [a, b, c];
        keys.sort_by(|x, y| paper_cmp(*x, *y));
        prop_assert_ne!(paper_cmp(keys[0], keys[2]), CmpOrdering::Greater);
    }
}

#[test]
fn key_order_matches_the_papers_example() {
    // Queues at lmf 0, then a task of priority 9 pushed at lmf 3 -> (1, 3).
    let new = PmodKey::new(9, 3);
    assert_eq!((new.group(), new.lmf()), (1, 3));
    for p in [1, 5, 8, 10, 11] {
        assert!(PmodKey::new(p, 0) < new, "({p}, 0) before (1, 3)");
    }
    assert!(new < PmodKey::new(32, 0));
    assert_eq!(PmodKey::new(8, 3), PmodKey::new(15, 3));
    assert_ne!(PmodKey::new(8, 3), PmodKey::new(8, 2));
}

fn cfg() -> PmodConfig {
    PmodConfig::default()
}

#[test]
fn merge_check_follows_figure_4() {
    // 1000 dequeues, half synchronising (> 1/64); 100 enqueues over
    // priorities 0..=9999 at lmf 0: 10000 queues, fill 0.01 < 64.
    let sparse = Window { deqs: 1000, sync_deqs: 500, enqs: 100, min_b: 0, max_b: 9999 };
    // log2(64 / 0.01) = 12.6 -> +12.
    assert_eq!(merge_check(&sparse, 0, &cfg()), Some(12));
    // At lmf 12 there are 3 queues, fill 33.3 -> log2(1.92) rounds to 0.
    assert_eq!(merge_check(&sparse, 12, &cfg()), None);
    // Few synchronising dequeues: no merge however sparse.
    assert_eq!(merge_check(&Window { sync_deqs: 15, ..sparse }, 0, &cfg()), None);
    // Dense enough: 6400 tasks on 100 queues = 64 per queue.
    assert_eq!(merge_check(&Window { enqs: 6400, max_b: 99, ..sparse }, 0, &cfg()), None);
    // Nothing enqueued: no range, no decision.
    assert_eq!(merge_check(&Window { enqs: 0, ..sparse }, 0, &cfg()), None);
    // A single group (the figure's 0 queues) is one queue here.
    let one = Window { deqs: 100, sync_deqs: 100, enqs: 4, min_b: 7, max_b: 7 };
    assert_eq!(one.num_queues(0), 1);
    assert_eq!(merge_check(&one, 0, &cfg()), Some(4));
    // lmf never exceeds 63.
    let huge = Window { deqs: 10, sync_deqs: 10, enqs: 1, min_b: 0, max_b: u64::MAX };
    assert_eq!(merge_check(&huge, 60, &cfg()), Some(MAX_LMF));
    assert_eq!(merge_check(&huge, MAX_LMF, &cfg()), None);
}

#[test]
fn unmerge_check_follows_figure_4() {
    // 1000 tasks in priorities 0..=99 at lmf 6: 2 queues < 16 -> -3.
    let dense = Window { deqs: 2000, sync_deqs: 1, enqs: 1000, min_b: 0, max_b: 99 };
    assert_eq!(dense.num_queues(6), 2);
    assert_eq!(unmerge_check(&dense, 6, 257, &cfg()), Some(3));
    // Not after a short run in one group (MaxPops = 256).
    assert_eq!(unmerge_check(&dense, 6, 256, &cfg()), None);
    // Already at lmf 0, or enough queues.
    assert_eq!(unmerge_check(&dense, 0, 1000, &cfg()), None);
    assert_eq!(unmerge_check(&Window { max_b: 9999, ..dense }, 6, 1000, &cfg()), None);
    // Floored at 0: one queue at lmf 2 wants -4.
    assert_eq!(unmerge_check(&Window { max_b: 3, ..dense }, 2, 1000, &cfg()), Some(0));
}

fn pmod(threads: usize, cfg: PmodConfig) -> Pmod<u64> {
    Pmod::with_topology(Topology::single(threads), &cfg)
}

fn report_counter(s: &Pmod<u64>, name: &str) -> u64 {
    s.report().counters.into_iter().find(|(n, _)| *n == name).map(|(_, v)| v).unwrap()
}

/// A single thread works through a "wavefront": each popped task pushes up to
/// two tasks of slightly larger priority (SSSP-like), `n` tasks in all.
fn wavefront<H: Handle<u64>>(h: &mut H, n: u64, step: u64) -> Vec<u64> {
    let mut next = 1;
    h.push(0, 0);
    let mut popped = Vec::new();
    while let Some((p, t)) = h.pop() {
        popped.push(t);
        for k in 1..=2 {
            if next < n {
                h.push(p + k * step + next % 7, next);
                next += 1;
            }
        }
    }
    popped
}

#[test]
fn lmf_rises_on_sparse_priorities() {
    let s = pmod(1, cfg());
    let mut h = s.handle(0);
    // Every task has its own priority: one task per bag, every pop a slow pop.
    let mut popped = wavefront(&mut h, 20_000, 1000);
    drop(h);
    popped.sort_unstable();
    assert_eq!(popped, (0..20_000).collect::<Vec<_>>());
    let lmf = report_counter(&s, "final_lmf");
    assert!(lmf >= 6, "lmf {lmf} should merge thousand-apart priorities");
    assert!(report_counter(&s, "merges") >= 1);
    let trace = s.report().traces.remove(0);
    assert_eq!((trace.name, trace.x_label, trace.points[0]), ("lmf", "dequeues", (0, 0)));
    assert_eq!(trace.points.last().unwrap().1, lmf);
    assert!(trace.points.windows(2).all(|w| w[0].0 <= w[1].0), "x is nondecreasing");
    // Merging means far fewer bags than tasks.
    assert!(report_counter(&s, "bags_created") < 5_000);
}

#[test]
fn merge_can_be_switched_off() {
    let s = pmod(1, PmodConfig { merge: false, ..cfg() });
    let mut h = s.handle(0);
    wavefront(&mut h, 5_000, 1000);
    drop(h);
    assert_eq!(report_counter(&s, "final_lmf"), 0);
    assert_eq!(report_counter(&s, "merges"), 0);
}

#[test]
fn lmf_falls_back_when_groups_are_few_and_long() {
    let s = pmod(1, PmodConfig { merge: false, unmerge: true, ..cfg() });
    s.policy.force_lmf(20);
    let mut h = s.handle(0);
    // Dense priorities 0..100: at lmf 20 all in one group; at lmf 0, 100 groups.
    for round in 0..4u64 {
        for i in 0..1000 {
            h.push(i % 100, round * 1000 + i);
        }
        let popped = std::iter::from_fn(|| h.pop()).count();
        assert_eq!(popped, 1000);
    }
    drop(h);
    let lmf = report_counter(&s, "final_lmf");
    assert!(lmf < 20, "lmf should have unmerged, is {lmf}");
    assert!(report_counter(&s, "unmerges") >= 1);

    let off = pmod(1, PmodConfig { merge: false, unmerge: false, ..cfg() });
    off.policy.force_lmf(20);
    let mut h = off.handle(0);
    for i in 0..4000 {
        h.push(i % 100, i);
    }
    assert_eq!(std::iter::from_fn(|| h.pop()).count(), 4000);
    drop(h);
    assert_eq!(report_counter(&off, "final_lmf"), 20, "unmerge switched off");
}

#[test]
fn groups_pushed_before_a_merge_drain_first() {
    let s = pmod(1, PmodConfig { merge: false, unmerge: false, ..cfg() });
    let mut h = s.handle(0);
    for p in [1, 5, 8, 10, 11, 32] {
        h.push(p, p);
    }
    s.policy.force_lmf(3);
    h.push(9, 9); // bag (1, 3): after priorities 0..=11 at lmf 0, before 32
    let order: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|(_, t)| t).collect();
    assert_eq!(order, vec![1, 5, 8, 10, 11, 9, 32]);
}

#[test]
fn exactly_once_multithreaded_while_adapting() {
    for threads in [1, 2, 4] {
        for sockets in [1, 2] {
            for spread in [1, 1000, 10_000_000] {
                let s: Pmod<u64> = Pmod::with_topology(
                    Topology::even(threads, sockets),
                    &PmodConfig { chunk: 16, ..PmodConfig::default() },
                );
                exactly_once(&s, threads, 100_000, spread);
                let trace = s.report().traces.remove(0).points;
                assert_eq!(
                    trace.len() as u64,
                    1 + report_counter(&s, "merges") + report_counter(&s, "unmerges")
                );
            }
        }
    }
}

#[test]
fn spec_defaults_derive_from_chunk_and_round_trip() {
    let spec: SchedulerSpec = "pmod".parse().unwrap();
    assert_eq!(
        spec.to_string(),
        "pmod:chunk=64,freq_global=0.015625,max_pops=256,min_density=64,min_queues=16,merge=true,unmerge=true,order=end,guard=true,lmf=0"
    );
    let spec: SchedulerSpec = "pmod:chunk=32,merge=false".parse().unwrap();
    let SchedulerSpec::Pmod(c) = &spec else { panic!("not pmod") };
    assert_eq!((c.freq_global, c.max_pops, c.merge, c.unmerge), (1.0 / 32.0, 128, false, true));
    assert_eq!(spec.to_string().parse::<SchedulerSpec>().unwrap(), spec);
    let spec: SchedulerSpec = "pmod:freq_global=1/8,max_pops=10".parse().unwrap();
    assert_eq!(spec.to_string().parse::<SchedulerSpec>().unwrap(), spec);
    let e = "pmod:min_densty=3".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.0.contains("`min_densty`") && e.0.contains("min_density") && e.0.contains("unmerge"), "{e}");
    assert!("pmod:min_queues=0".parse::<SchedulerSpec>().is_err());
    assert!("pmod:merge=maybe".parse::<SchedulerSpec>().is_err());
}

#[test]
fn start_order_puts_a_coarse_block_at_its_first_priority() {
    // After an unmerge (lmf 6 -> 4) the coarse block [64, 127] holds urgent
    // tasks: under the paper's order it runs after every finer group inside
    // it, under the start order before them.
    let coarse = |p| PmodKey::with_order(p, 6, GroupOrder::Start);
    let fine = |p| PmodKey::with_order(p, 4, GroupOrder::Start);
    assert!(coarse(64) < fine(80) && coarse(100) < fine(112));
    assert!(fine(64) < coarse(64), "on a tie the finer block first");
    assert!(fine(48) < coarse(64) && coarse(127) < fine(128));
    assert!(PmodKey::new(64, 6) > PmodKey::new(80, 4), "the paper's order: the other way round");
    assert_eq!(coarse(64), coarse(127));
    assert_eq!(coarse(100).group(), 1);
}

#[test]
fn the_guard_refuses_an_unmerge_while_coarser_tasks_are_queued() {
    let cfg = PmodConfig { unmerge: true, guard: true, ..PmodConfig::default() };
    let policy = PmodPolicy::with_config(2, cfg);
    let (mut a, mut b) = (PmodLocal::default(), PmodLocal::default());
    policy.count_enq(0, &mut a, 500, 6, false);
    policy.count_enq(0, &mut a, 20, 4, false);
    assert!(policy.coarser_queued(4) && !policy.coarser_queued(6));
    // Thread 1 pops the coarse task: nothing above 4 is queued any more.
    policy.count_popped(1, &mut b, 6);
    assert!(!policy.coarser_queued(4) && policy.coarser_queued(3));
}

/// `lmf=N` starts the run at merging factor 2^N: the trace starts there and
/// a run that never adapts keys every task by `p >> N`, so one thread pops
/// the blocks in order.
#[test]
fn a_run_starts_at_the_given_merging_factor() {
    let cfg = PmodConfig { start_lmf: 3, merge: false, unmerge: false, ..PmodConfig::default() };
    let s = pmod(1, cfg);
    let mut h = s.handle(0);
    for p in (0..64u64).rev() {
        h.push(p, p);
    }
    h.flush();
    let popped: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|(_, t)| t).collect();
    let mut sorted = popped.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..64).collect::<Vec<_>>(), "every task once");
    let blocks: Vec<u64> = popped.iter().map(|p| p >> 3).collect();
    assert!(blocks.windows(2).all(|w| w[0] <= w[1]), "blocks of 8 in order: {popped:?}");
    drop(h);
    let trace = s.report().traces.into_iter().find(|t| t.name == "lmf").unwrap();
    assert_eq!(trace.points[0], (0, 3));
}
