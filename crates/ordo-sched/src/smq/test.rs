//! Unit tests of the Stealing Multi-Queue: nothing lost or duplicated, the
//! `Handle` contract (own buffers, flush, lone pops), stealing of better
//! buffers, single ownership and the spec.

use super::*;
use crate::test_support::{
    check_concurrent_exactly_once, check_exact_order_one_thread, check_exactly_once,
    check_flush_and_lone_pops,
};
use crate::SchedulerSpec;

fn build(threads: usize, spec: &str) -> StealingMultiQueue<u64> {
    let SchedulerSpec::Smq(cfg) = spec.parse().unwrap() else { panic!("not an smq spec") };
    StealingMultiQueue::with_topology(Topology::single(threads), &cfg)
}

const VARIANTS: &[&str] =
    &["smq", "smq:steal=1", "smq:steal=8", "smq:p_steal=1,d=2", "smq:p_steal=0,steal=16"];

#[test]
fn every_variant_returns_exactly_the_pushed_tasks() {
    for spec in VARIANTS {
        check_exactly_once(spec, &build(3, spec));
    }
}

#[test]
fn one_thread_pops_in_exact_order() {
    for spec in VARIANTS {
        check_exact_order_one_thread(spec, &build(1, spec));
    }
}

#[test]
fn flushed_pushes_are_visible_and_a_lone_pop_never_fails() {
    for spec in VARIANTS {
        check_flush_and_lone_pops(spec, &build(4, spec));
    }
}

#[test]
fn without_flush_the_buffer_is_stealable() {
    let s = build(2, "smq:steal=4,p_steal=0");
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    for i in 0..10 {
        a.push(i, i);
    }
    // The first push filled a's buffer (Listing 4 addLocal) with task 0; a
    // pop by a takes it back and refills the buffer with the next 4.
    assert_eq!(a.pop().map(|e| e.0), Some(0));
    // b's own queue is empty, so it steals a's buffer: [1, 2, 3, 4].
    let got: Vec<u64> = (0..4).map(|_| b.pop().unwrap().0).collect();
    assert_eq!(got, vec![1, 2, 3, 4]);
    assert_eq!(b.counters()[0], ("steals", 1));
    // The rest of a's heap is private until a operates again or flushes.
    assert_eq!(b.pop(), None);
    let rest: Vec<u64> = std::iter::from_fn(|| a.pop()).map(|e| e.0).collect();
    assert_eq!(rest, (5..10).collect::<Vec<_>>());
}

#[test]
fn a_better_buffer_is_stolen_with_probability_one() {
    let s = build(2, "smq:steal=2,p_steal=1");
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    for p in 1..=5 {
        a.push(p, p);
    }
    assert_eq!(a.pop().map(|e| e.0), Some(1));
    // a: buffer [2, 3], heap [4, 5].
    for p in [100, 101, 102] {
        b.push(p, p);
    }
    // b's best is 100 and a's buffer top is 2: b steals [2, 3].
    assert_eq!(b.pop().map(|e| e.0), Some(2));
    assert_eq!(b.pop().map(|e| e.0), Some(3), "stolen tasks are served next");
    // a's buffer is empty until a operates: b takes its own best.
    assert_eq!(b.pop().map(|e| e.0), Some(100));
    assert_eq!(a.pop().map(|e| e.0), Some(4));
    // a refilled its buffer with 5, which beats b's 101: stolen.
    assert_eq!(b.pop().map(|e| e.0), Some(5));
    assert_eq!(b.pop().map(|e| e.0), Some(101));
    assert_eq!(b.counters()[0], ("steals", 2));
}

#[test]
fn dropped_handles_spill_and_the_next_owner_resumes() {
    let s = build(2, "smq");
    {
        let mut a = s.handle(0);
        for i in 0..30 {
            a.push(i, i);
        }
        assert_eq!(a.pop().map(|e| e.1), Some(0));
    }
    let mut got = Vec::new();
    {
        let mut a = s.handle(0);
        got.extend((0..10).map(|_| a.pop().unwrap().1));
    }
    let mut b = s.handle(1);
    got.extend(std::iter::from_fn(|| b.pop()).map(|e| e.1));
    got.sort_unstable();
    assert_eq!(got, (1..30).collect::<Vec<_>>());
}

#[test]
#[should_panic(expected = "already live")]
fn two_live_handles_for_one_thread_are_refused() {
    let s = build(2, "smq");
    let _a = s.handle(1);
    let _b = s.handle(1);
}

#[test]
fn spec_round_trips_and_rejects_bad_values() {
    let spec: SchedulerSpec = "smq:steal=8,p_steal=1/16,numa_k=0".parse().unwrap();
    assert_eq!(spec, spec.to_string().parse().unwrap());
    let SchedulerSpec::Smq(cfg) = &spec else { panic!() };
    assert_eq!((cfg.steal, cfg.p_steal, cfg.numa_k, cfg.arity), (8, 0.0625, 0, 4));
    assert_eq!(
        SchedulerSpec::Smq(SmqConfig::default()).to_string(),
        "smq:d=4,steal=4,p_steal=0.125,numa_k=8,seed=1"
    );
    for bad in ["smq:steal=0", "smq:p_steal=2", "smq:d=1", "smq:c=4"] {
        let e = bad.parse::<SchedulerSpec>().unwrap_err();
        assert!(e.0.starts_with("smq"), "{bad}: {e}");
    }
}

#[test]
fn concurrent_pushes_pops_and_steals_deliver_each_task_once() {
    // Thread 0 produces 3·per tasks, the others per/3, so the others live on steals.
    let per = 20_000u64;
    for spec in VARIANTS {
        check_concurrent_exactly_once(spec, &build(4, spec), &[3 * per, per / 3, per / 3, per / 3], 1013, 2);
    }
}

#[test]
fn under_contention_every_task_keeps_its_priority() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let threads = 2u64;
    let per = 200_000u64;
    for spec in VARIANTS {
        let s = build(threads as usize, spec);
        let seen: Vec<AtomicU64> = (0..threads * per).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|sc| {
            for t in 0..threads {
                let (s, seen) = (&s, &seen);
                sc.spawn(move || {
                    let mut h = s.handle(t as usize);
                    let check = |(p, id): (u64, u64)| {
                        assert_eq!(p, id * 7 % 100_003, "{spec}: task {id} has a foreign priority");
                        seen[id as usize].fetch_add(1, Ordering::Relaxed);
                    };
                    for i in 0..per {
                        let id = t * per + i;
                        h.push(id * 7 % 100_003, id);
                        if i % 4 != 0 {
                            if let Some(e) = h.pop() {
                                check(e);
                            }
                        }
                    }
                    h.flush();
                    while let Some(e) = h.pop() {
                        check(e);
                    }
                });
            }
        });
        let mut h = s.handle(0);
        while let Some((_, id)) = h.pop() {
            seen[id as usize].fetch_add(1, Ordering::Relaxed);
        }
        assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1), "{spec}");
    }
}

#[test]
fn victims_on_other_nodes_are_drawn_with_weight_one_over_k() {
    // 4 threads on 2 nodes: thread 3 (node 1) has one local victim (2) and
    // two remote ones (0, 1), so P(local) = K / (K + 2).
    for (k, expected) in [(1u64, 1.0 / 3.0), (8, 0.8), (0, 4.0 / 6.0)] {
        let cfg = SmqConfig { numa_k: k, ..SmqConfig::default() };
        let s: StealingMultiQueue<u64> = StealingMultiQueue::with_topology(Topology::even(4, 2), &cfg);
        let mut h = s.handle(3);
        let n = 100_000;
        let mut local = 0;
        for _ in 0..n {
            let v = h.victims.sample(&mut h.rng);
            assert_ne!(v, 3, "a thread never steals from itself");
            local += usize::from(v == 2);
        }
        let got = local as f64 / n as f64;
        assert!((got - expected).abs() < 0.01, "numa_k={k}: {got} vs {expected}");
    }
}
