//! Unit tests of `smq-skiplist` (the SMQ with skip-list local queues):
//! exactly once, exact order on one thread, the `Handle` contract and
//! concurrent delivery.

use super::*;
use crate::SchedulerSpec;

fn build(threads: usize, spec: &str) -> SmqSkipList<u64> {
    let SchedulerSpec::SmqSkipList(cfg) = spec.parse().unwrap() else { panic!("not an smq-skiplist spec") };
    SmqSkipList::with_topology(Topology::single(threads), &cfg.to_smq())
}

const VARIANTS: &[&str] =
    &["smq-skiplist", "smq-skiplist:steal=1", "smq-skiplist:p_steal=1", "smq-skiplist:p_steal=0,steal=16"];

/// Pseudo-random priorities from a fixed LCG (independent of the scheduler's rng).
fn prios(n: usize) -> Vec<u64> {
    let mut x = 987654321u64;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 40) % 1000
        })
        .collect()
}

#[test]
fn every_variant_returns_exactly_the_pushed_tasks() {
    for spec in VARIANTS {
        let s = build(3, spec);
        let mut handles: Vec<_> = (0..3).map(|t| s.handle(t)).collect();
        let ps = prios(3000);
        for (i, &p) in ps.iter().enumerate() {
            handles[i % 3].push(p, i as u64);
        }
        let mut got = Vec::new();
        let mut active = [true; 3];
        while active.iter().any(|&a| a) {
            for (h, a) in handles.iter_mut().zip(active.iter_mut()) {
                match h.pop() {
                    Some((p, t)) => {
                        assert_eq!(p, ps[t as usize], "{spec}: task {t} came back with another priority");
                        got.push(t);
                    }
                    None => *a = false,
                }
            }
        }
        got.sort_unstable();
        assert_eq!(got, (0..3000).collect::<Vec<_>>(), "{spec}");
    }
}

#[test]
fn one_thread_pops_in_exact_order() {
    for spec in VARIANTS {
        let s = build(1, spec);
        let mut h = s.handle(0);
        let ps = prios(700);
        let mut want = Vec::new();
        for (i, &p) in ps.iter().enumerate() {
            h.push(p, i as u64);
            want.push(p);
            if i % 3 == 2 {
                want.sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(h.pop().map(|e| e.0), want.pop(), "{spec}");
            }
        }
        want.sort_unstable_by(|a, b| b.cmp(a));
        while let Some(p) = want.pop() {
            assert_eq!(h.pop().map(|e| e.0), Some(p), "{spec}");
        }
        assert!(h.pop().is_none());
    }
}

#[test]
fn flushed_pushes_are_visible_and_a_lone_pop_never_fails() {
    for spec in VARIANTS {
        let s = build(4, spec);
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        for i in 0..41 {
            a.push(i, i);
        }
        a.flush();
        let mut got: Vec<u64> = (0..41).map(|_| b.pop().expect("spurious empty pop").1).collect();
        assert!(b.pop().is_none(), "{spec}");
        assert!(a.pop().is_none(), "{spec}");
        got.sort_unstable();
        assert_eq!(got, (0..41).collect::<Vec<_>>(), "{spec}");
    }
}

#[test]
fn a_dropped_handle_loses_nothing() {
    let s = build(2, "smq-skiplist");
    {
        let mut a = s.handle(0);
        for i in 0..100 {
            a.push(1000 - i, i);
        }
    }
    let mut b = s.handle(1);
    let mut got: Vec<u64> = std::iter::from_fn(|| b.pop().map(|e| e.1)).collect();
    got.sort_unstable();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn spec_round_trips_and_rejects_the_arity() {
    let spec: SchedulerSpec = "smq-skiplist:steal=8".parse().unwrap();
    assert_eq!(spec.to_string(), "smq-skiplist:steal=8,p_steal=0.125,numa_k=8,seed=1");
    assert_eq!(spec.to_string().parse::<SchedulerSpec>().unwrap(), spec);
    assert!("smq-skiplist:d=4".parse::<SchedulerSpec>().is_err());
    assert!("smq-skiplist:steal=0".parse::<SchedulerSpec>().is_err());
}

#[test]
fn concurrent_pushes_pops_and_steals_deliver_each_task_once() {
    use std::sync::atomic::{AtomicU64, Ordering};
    let threads = 4u64;
    let per = 10_000u64;
    let produced = |t: u64| if t == 0 { 3 * per } else { per / 3 };
    let first_id = |t: u64| if t == 0 { 0 } else { 3 * per + t * per };
    for spec in VARIANTS {
        let s = build(threads as usize, spec);
        let seen: Vec<AtomicU64> = (0..3 * per + threads * per).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|sc| {
            for t in 0..threads {
                let (s, seen) = (&s, &seen);
                sc.spawn(move || {
                    let mut h = s.handle(t as usize);
                    for i in 0..produced(t) {
                        let id = first_id(t) + i;
                        h.push(id % 1013, id);
                        if i % 2 == 0 {
                            if let Some((_, id)) = h.pop() {
                                seen[id as usize].fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    h.flush();
                    while let Some((_, id)) = h.pop() {
                        seen[id as usize].fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        let mut h = s.handle(0);
        while let Some((_, id)) = h.pop() {
            seen[id as usize].fetch_add(1, Ordering::Relaxed);
        }
        for t in 0..threads {
            for id in first_id(t)..first_id(t) + produced(t) {
                assert_eq!(seen[id as usize].load(Ordering::Relaxed), 1, "{spec}: task {id}");
            }
        }
    }
}
