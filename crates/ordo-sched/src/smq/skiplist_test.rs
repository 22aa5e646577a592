//! Unit tests of `smq-skiplist` (the SMQ with skip-list local queues):
//! exactly once, exact order on one thread, the `Handle` contract and
//! concurrent delivery.

use super::*;
use crate::test_support::{
    check_concurrent_exactly_once, check_exact_order_one_thread, check_exactly_once,
    check_flush_and_lone_pops,
};
use crate::SchedulerSpec;

fn build(threads: usize, spec: &str) -> SmqSkipList<u64> {
    let SchedulerSpec::SmqSkipList(cfg) = spec.parse().unwrap() else { panic!("not an smq-skiplist spec") };
    SmqSkipList::with_topology(Topology::single(threads), &cfg.to_smq())
}

const VARIANTS: &[&str] =
    &["smq-skiplist", "smq-skiplist:steal=1", "smq-skiplist:p_steal=1", "smq-skiplist:p_steal=0,steal=16"];

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
    let per = 10_000u64;
    for spec in VARIANTS {
        check_concurrent_exactly_once(spec, &build(4, spec), &[3 * per, per / 3, per / 3, per / 3], 1013, 2);
    }
}
