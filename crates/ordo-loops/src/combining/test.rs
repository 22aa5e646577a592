//! The combiner on one thread (what one serve does) and under real
//! concurrency (every iteration handed out once).

use std::sync::atomic::AtomicUsize;

use super::*;
use crate::tree::Team;

fn shared_upstream(n: u64) -> UpstreamCounters {
    UpstreamCounters::Shared(SharedCounter::new(0..n))
}

#[test]
fn one_serve_answers_every_posted_request() {
    let c: Combiner<Packed> = Combiner::new(3, 0);
    let up = shared_upstream(10);
    c.post(0);
    c.post(2);
    // Thread 0 takes the lock and serves slots 0 and 2 with one claim.
    assert_eq!(c.await_answer(0, &up, 4, SpinBudget::NONE), 0..4);
    assert_eq!(c.answer(2), Some(4..8));
    assert_eq!(c.answer(1), Some(0..0), "slot 1 never asked: still quiescent");
    assert_eq!(c.counts(), CombiningCounts { serves: 1, requests: 2 }, "one serve combined two requests");
    // The next requests get the short rest, then "empty".
    c.post(1);
    c.post(2);
    assert_eq!(c.await_answer(1, &up, 4, SpinBudget::NONE), 8..10);
    assert!(c.answer(2).unwrap().is_empty(), "nothing left: an empty answer");
    c.post(0);
    assert!(c.await_answer(0, &up, 4, SpinBudget::NONE).is_empty());
    assert_eq!(c.counts(), CombiningCounts { serves: 3, requests: 5 });
}

#[test]
fn striped_upstream_moves_on_after_the_home_stripe() {
    // Two combiners, stripes 0..6 and 6..12; combiner 1 drains its own
    // stripe, then combiner 0's.
    let up = UpstreamCounters::Striped(Stripes::new(0..12, 2));
    let c1: Combiner<Padded> = Combiner::new(1, 1);
    let mut got = Vec::new();
    loop {
        c1.post(0);
        let r = c1.await_answer(0, &up, 4, SpinBudget::NONE);
        if r.is_empty() {
            break;
        }
        got.push(r);
    }
    assert_eq!(got, vec![6..10, 10..12, 0..4, 4..6]);
}

#[test]
fn more_than_64_slots_are_served_in_groups() {
    let c: Combiner<Padded> = Combiner::new(70, 0);
    let up = shared_upstream(1000);
    for i in 0..70 {
        c.post(i);
    }
    let first = c.await_answer(69, &up, 1, SpinBudget::NONE);
    assert_eq!(first, 69..70);
    let mut starts: Vec<u64> = (0..70).map(|i| c.answer(i).unwrap().start).collect();
    starts.sort_unstable();
    assert_eq!(starts, (0..70).collect::<Vec<_>>());
}

fn exactly_once<S: SlotLayout + Send, const ASYNC: bool>(
    threads: usize,
    cores: usize,
    striped: bool,
    batch: u64,
) {
    let n = 20_000u64;
    let team = Team::solo_for_test(threads, cores);
    let dist: CombiningDistributor<S, ASYNC> =
        CombiningDistributor::new(0..n, &team, Granularity::Core, striped, batch, SpinBudget::NONE);
    let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
    let batches = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for rank in 0..threads {
            let (dist, hits, team, batches) = (&dist, &hits, &team, &batches);
            s.spawn(move || {
                let mut cursor = dist.cursor(team.member(rank));
                while let Some(r) = dist.next(&mut cursor) {
                    assert!(!r.is_empty());
                    batches.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    for i in r {
                        hits[i as usize].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                assert!(dist.next(&mut cursor).is_none(), "done stays done");
            });
        }
    });
    for (i, h) in hits.iter().enumerate() {
        assert_eq!(h.load(std::sync::atomic::Ordering::Relaxed), 1, "iteration {i}");
    }
    // Every request is answered once: each batch, and each thread's final
    // "no iterations left".
    let counts = dist.counts();
    let answers = batches.into_inner() + threads;
    assert_eq!(counts.requests, answers as u64, "{counts:?}");
    assert!(counts.serves >= 1 && counts.serves <= counts.requests, "{counts:?}");
    if cores >= threads {
        assert_eq!(counts.serves, counts.requests, "one-member combiners combine nothing");
    }
}

#[test]
fn concurrent_requests_hand_out_every_iteration_once() {
    for batch in [1, 3, 64] {
        exactly_once::<Packed, false>(4, 1, false, batch);
        exactly_once::<Packed, true>(4, 2, true, batch);
        exactly_once::<Padded, false>(3, 2, true, batch);
        exactly_once::<Padded, true>(5, 2, false, batch);
        exactly_once::<Packed, true>(2, 2, false, batch);
    }
}
