//! Tests of `obim` and the shared bag-per-key machinery.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;
use crate::fifo::tests::exactly_once;
use crate::spec::{SchedConfig, SchedulerSpec};
use crate::topology::Topology;
use crate::{Handle, Scheduler};

fn obim(threads: usize, delta: u32, chunk: usize) -> Obim<u64> {
    Obim::with_topology(Topology::single(threads), &ObimConfig { delta, chunk })
}

fn counter<H: Handle<u64>>(h: &H, name: &str) -> u64 {
    h.counters().into_iter().find(|(n, _)| *n == name).map(|(_, v)| v).unwrap()
}

#[test]
fn single_thread_pops_priority_classes_in_order() {
    for (delta, chunk) in [(0, 64), (0, 1), (3, 4), (5, 64)] {
        let s = obim(1, delta, chunk);
        let mut h = s.handle(0);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut pushed: Vec<(u64, u64)> = (0..5000).map(|i| (rng.random_range(0..300u64), i)).collect();
        for &(p, t) in &pushed {
            h.push(p, t);
        }
        let got: Vec<(u64, u64)> = std::iter::from_fn(|| h.pop()).collect();
        let classes: Vec<u64> = got.iter().map(|&(p, _)| p >> delta).collect();
        assert!(
            classes.windows(2).all(|w| w[0] <= w[1]),
            "delta={delta} chunk={chunk}: classes out of order"
        );
        let mut got_sorted = got.clone();
        got_sorted.sort_unstable();
        pushed.sort_unstable();
        assert_eq!(got_sorted, pushed, "every task exactly once, with its priority");
        let distinct: std::collections::BTreeSet<u64> = pushed.iter().map(|&(p, _)| p >> delta).collect();
        assert_eq!(s.bags_created(), distinct.len());
    }
}

#[test]
fn push_of_more_urgent_work_switches_bag_and_returns_chunk() {
    let s = obim(2, 0, 2);
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    for t in 0..4 {
        a.push(10, t); // two full chunks published in bag 10
    }
    assert_eq!(a.pop(), Some((10, 0)), "a takes the first chunk [0, 1]");
    a.push(5, 100);
    // a switched to bag 5; its half-used chunk of bag 10 went back.
    assert_eq!(a.pop(), Some((5, 100)));
    let mut rest: Vec<u64> = std::iter::from_fn(|| b.pop()).map(|(_, t)| t).collect();
    rest.sort_unstable();
    assert_eq!(rest, vec![1, 2, 3], "b sees the returned chunk and the other one");
    assert!(a.pop().is_none());
}

/// `chunk=0` (the PMOD paper's `c0`, chunking disabled): every push is
/// visible to the other threads at once, without a flush.
#[test]
fn chunk_zero_publishes_every_push() {
    let SchedulerSpec::Obim(cfg) = "obim:chunk=0".parse::<SchedulerSpec>().unwrap() else { panic!() };
    assert_eq!(cfg.chunk, 1);
    let s: Obim<u64> = Obim::with_topology(Topology::single(2), &cfg);
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    for t in 0..3 {
        a.push(5, t);
        assert_eq!(a.private_tasks().unpublished, 0, "nothing stays private");
    }
    assert_eq!(counter(&a, "chunks_published"), 3);
    let got: Vec<u64> = std::iter::from_fn(|| b.pop()).map(|(_, t)| t).collect();
    assert_eq!(got.len(), 3, "another thread takes every task unflushed: {got:?}");
}

#[test]
fn private_chunks_are_popped_by_owner_and_published_by_flush() {
    let s = obim(2, 0, 64);
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    a.push(3, 1);
    a.push(1, 2);
    assert!(b.pop().is_none(), "partial chunks are private");
    assert_eq!(a.pop(), Some((1, 2)), "the owner finds its own unpublished chunks");
    assert_eq!(counter(&a, "own_chunk_pops"), 1);
    a.flush();
    assert_eq!(b.pop(), Some((3, 1)), "flush publishes them");
    assert_eq!(counter(&a, "chunks_published"), 1);
    a.push(7, 3);
    drop(a);
    assert_eq!(b.pop(), Some((7, 3)), "a dropped handle publishes its private tasks");
    assert!(b.pop().is_none());
}

#[test]
fn stale_local_map_is_refreshed_before_giving_up() {
    let s = obim(2, 0, 1);
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    b.push(9, 0);
    assert_eq!(b.pop(), Some((9, 0)));
    a.push(4, 1); // a new bag that b's local map does not know
    assert_eq!(b.pop(), Some((4, 1)));
    assert!(counter(&b, "local_map_refreshes") >= 1);
}

#[test]
fn back_scan_bound_never_hides_work() {
    // T0 is the socket leader; T1 and T2 only see their own and T0's bound.
    let s = obim(3, 0, 1);
    let (mut t0, mut t1, mut t2) = (s.handle(0), s.handle(1), s.handle(2));
    t0.push(20, 0);
    assert_eq!(t0.pop(), Some((20, 0)));
    t1.push(10, 1);
    assert_eq!(t1.pop(), Some((10, 1)));
    t2.push(3, 2);
    assert_eq!(t2.pop(), Some((3, 2)));
    t2.push(5, 3); // published in bag 5, below T1's and T0's bounds
    assert_eq!(t1.pop(), Some((5, 3)), "found by the retry from the global bound");
    assert_eq!(counter(&t1, "bsp_rescans"), 1);
    assert!(t1.pop().is_none() && t0.pop().is_none() && t2.pop().is_none());
}

#[test]
fn exactly_once_multithreaded() {
    for threads in [1, 2, 4] {
        for sockets in [1, 2] {
            for (delta, spread) in [(0, 1000), (4, 100_000), (0, 1)] {
                let s: Obim<u64> =
                    Obim::with_topology(Topology::even(threads, sockets), &ObimConfig { delta, chunk: 16 });
                exactly_once(&s, threads, 100_000, spread);
            }
        }
    }
}

#[test]
fn spec_round_trip_and_errors() {
    let spec: SchedulerSpec = "obim:delta=14,chunk=32".parse().unwrap();
    assert_eq!(spec.to_string(), "obim:delta=14,chunk=32");
    assert_eq!("obim".parse::<SchedulerSpec>().unwrap().params(), ObimConfig::default().to_params());
    let e = "obim:detla=3".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.0.contains("`detla`") && e.0.contains("delta, chunk"), "{e}");
    assert!("obim:delta=64".parse::<SchedulerSpec>().is_err());
    assert!("obim:chunk=5000".parse::<SchedulerSpec>().is_err());
    let e = "obimm".parse::<SchedulerSpec>().unwrap_err();
    assert!(e.0.contains("obim") && e.0.contains("fifo") && e.0.contains("strict"), "{e}");
}

#[test]
fn report_counts_bags() {
    let s = obim(1, 2, 8);
    let mut h = s.handle(0);
    for p in 0..16 {
        h.push(p, p);
    }
    drop(h);
    assert_eq!(s.report().counters, vec![("bags_created", 4)]);
}

#[test]
fn idle_thread_does_not_hold_back_the_leaders_scans() {
    // T1 works once at a low priority, then idles (its pops fail). T0, the
    // leader, then walks a wavefront of 4000 distinct priorities, each pop a
    // slow pop. Had T1 kept its old bound, every slow pop of T0 would rescan
    // all bags from T1's bound: about 4000^2 / 2 visits.
    let s = obim(2, 0, 64);
    let (mut t0, mut t1) = (s.handle(0), s.handle(1));
    t1.push(0, 0);
    assert_eq!(t1.pop(), Some((0, 0)));
    assert!(t1.pop().is_none());
    t0.push(1, 1);
    let mut n = 1;
    while let Some((p, _)) = t0.pop() {
        assert!(t1.pop().is_none(), "T0's single tasks stay private");
        if n < 4000 {
            t0.push(p + 1, n);
            n += 1;
        }
    }
    assert_eq!(n, 4000);
    let scanned = counter(&t0, "bags_scanned");
    assert!(scanned < 3 * 4000, "{scanned} bags scanned for 4000 slow pops");
}
