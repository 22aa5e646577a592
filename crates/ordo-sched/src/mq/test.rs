//! Unit tests of the Multi-Queue: nothing lost or duplicated under every
//! option, the `Handle` contract, the NUMA sampling weights and the spec.

use super::*;
use crate::test_support::{check_concurrent_exactly_once, check_exactly_once, prios};
use crate::SchedulerSpec;

fn build(threads: usize, spec: &str) -> MultiQueue<u64> {
    let SchedulerSpec::Mq(cfg) = spec.parse().unwrap() else { panic!("not an mq spec") };
    MultiQueue::with_topology(Topology::single(threads), &cfg)
}

const VARIANTS: &[&str] = &[
    "mq",
    "mq:c=1",
    "mq:insert_batch=8",
    "mq:delete_batch=8",
    "mq:insert_batch=4,delete_batch=16",
    "mq:insert_stickiness=8,delete_stickiness=8",
    "mq:insert_stickiness=4,delete_batch=4,d=2",
];

#[test]
fn every_variant_returns_exactly_the_pushed_tasks() {
    for spec in VARIANTS {
        check_exactly_once(spec, &build(3, spec));
    }
}

#[test]
fn one_queue_pops_in_exact_order() {
    let s = build(1, "mq:c=1");
    let mut h = s.handle(0);
    let ps = prios(500);
    for (i, &p) in ps.iter().enumerate() {
        h.push(p, i as u64);
    }
    let got: Vec<u64> = std::iter::from_fn(|| h.pop()).map(|e| e.0).collect();
    let mut want = ps.clone();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn flushed_pushes_are_visible_to_other_handles_and_pop_never_fails_alone() {
    for spec in VARIANTS {
        let s = build(4, spec);
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        for i in 0..37 {
            a.push(i, i);
        }
        a.flush();
        // No other thread operates: every pop of b must succeed until all 37 are gone.
        let mut got: Vec<u64> = (0..37).map(|_| b.pop().expect("spurious empty pop").1).collect();
        assert!(b.pop().is_none(), "{spec}");
        assert!(a.pop().is_none(), "{spec}");
        got.sort_unstable();
        assert_eq!(got, (0..37).collect::<Vec<_>>(), "{spec}");
    }
}

#[test]
fn dropped_handles_give_back_their_buffered_tasks() {
    let s = build(2, "mq:insert_batch=64,delete_batch=8");
    {
        let mut a = s.handle(0);
        for i in 0..20 {
            a.push(i, i);
        }
        assert_eq!(a.pop().map(|e| e.1), Some(0), "own insert buffer serves the owner");
    }
    {
        let mut b = s.handle(1);
        b.push(100, 100);
        b.flush();
        assert!(b.pop().is_some());
    }
    let mut c = s.handle(1);
    let mut got: Vec<u64> = std::iter::from_fn(|| c.pop()).map(|e| e.1).collect();
    got.sort_unstable();
    let mut want: Vec<u64> = (1..20).chain([100]).collect();
    // The popped one of {1..20, 100} (by b) is missing; exactly 19 remain.
    assert_eq!(got.len(), 19);
    got.iter().for_each(|t| assert!(want.contains(t)));
    want.retain(|t| !got.contains(t));
    assert_eq!(want.len(), 1);
}

#[test]
fn numa_sampler_weights_other_nodes_by_one_over_k() {
    // 4 threads on 2 nodes, C = 2: queues 0..4 on node 0, 4..8 on node 1.
    let topo = Topology::even(4, 2);
    let queue_socket: Vec<usize> = (0..8).map(|q| topo.socket_of_thread(q / 2)).collect();
    let mut rng = FastRng::for_thread(1, 0);
    for k in [1u64, 4, 16] {
        let s = QueueSampler::new(&queue_socket, 0, k, None);
        let n = 200_000;
        let local = (0..n).filter(|_| s.sample(&mut rng) < 4).count() as f64 / n as f64;
        let expected = (4 * k) as f64 / (4 * k + 4) as f64;
        assert!((local - expected).abs() < 0.01, "k={k}: {local} vs {expected}");
        for _ in 0..1000 {
            let i = s.sample(&mut rng);
            assert_ne!(s.sample_other(&mut rng, i), i);
        }
    }
    let excl = QueueSampler::new(&queue_socket, 1, 8, Some(5));
    assert_eq!(excl.len(), 7);
    assert!((0..10_000).all(|_| excl.sample(&mut rng) != 5));
}

#[test]
fn spec_round_trips_and_rejects_bad_values() {
    let spec: SchedulerSpec = "mq:c=2,insert_batch=8,delete_stickiness=16,numa_k=4".parse().unwrap();
    let again: SchedulerSpec = spec.to_string().parse().unwrap();
    assert_eq!(spec, again);
    let SchedulerSpec::Mq(cfg) = &spec else { panic!() };
    assert_eq!((cfg.c, cfg.insert_batch, cfg.delete_stickiness, cfg.numa_k), (2, 8, 16, 4));
    for bad in ["mq:c=0", "mq:insert_batch=0", "mq:delete_stickiness=0", "mq:d=1", "mq:bogus=1", "mq:c=x"] {
        let e = bad.parse::<SchedulerSpec>().unwrap_err();
        assert!(e.0.starts_with("mq"), "{bad}: {e}");
    }
}

#[test]
fn concurrent_pushes_and_pops_deliver_each_task_once() {
    for spec in VARIANTS {
        check_concurrent_exactly_once(spec, &build(4, spec), &[20_000; 4], 977, 3);
    }
}

#[test]
fn queues_belong_to_the_node_of_the_thread_they_are_laid_out_for() {
    let cfg = MqConfig { c: 3, numa_k: 0, ..MqConfig::default() };
    let s: MultiQueue<u64> = MultiQueue::with_topology(Topology::even(4, 2), &cfg);
    assert_eq!(s.num_queues(), 12);
    assert_eq!(s.queue_socket, vec![0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    assert_eq!(s.k, 4, "numa_k=0 means K = T");
    // With a large K a thread of node 1 pushes almost only into node-1 queues.
    let cfg = MqConfig { c: 3, numa_k: 1000, ..MqConfig::default() };
    let s: MultiQueue<u64> = MultiQueue::with_topology(Topology::even(4, 2), &cfg);
    let mut h = s.handle(3);
    for i in 0..3000 {
        h.push(i, i);
    }
    let on_node0: usize =
        (0..6).map(|q| std::iter::from_fn(|| s.queues[q].lock().heap().pop()).count()).sum();
    assert!(on_node0 < 30, "{on_node0} of 3000 pushes went to the other node");
}
