//! Unit tests of `auto`: the `Handle` contract, exact order at width 1 on
//! one thread, sharing with hungry threads, and the width adaptation.

use super::*;
use crate::test_support::{
    check_concurrent_exactly_once, check_exact_order_one_thread, check_exactly_once,
    check_flush_and_lone_pops,
};
use crate::SchedulerSpec;

fn build(threads: usize, spec: &str) -> Auto<u64> {
    let SchedulerSpec::Auto(cfg) = spec.parse().unwrap() else { panic!("not an auto spec") };
    Auto::new(threads, &cfg)
}

const VARIANTS: &[&str] = &["auto", "auto:shift=0", "auto:shift=5", "auto:density=1", "auto:density=1000"];

#[test]
fn every_variant_returns_exactly_the_pushed_tasks() {
    for spec in VARIANTS {
        check_exactly_once(spec, &build(3, spec));
    }
}

#[test]
fn width_one_on_one_thread_pops_in_exact_order() {
    check_exact_order_one_thread("auto:shift=0", &build(1, "auto:shift=0"));
}

#[test]
fn flushed_pushes_are_visible_and_a_lone_pop_never_fails() {
    for spec in VARIANTS {
        check_flush_and_lone_pops(spec, &build(4, spec));
    }
}

#[test]
fn concurrent_pushes_and_pops_lose_nothing() {
    for spec in VARIANTS {
        let s = build(4, spec);
        check_concurrent_exactly_once(spec, &s, &[20_000, 5, 7_000, 0], 1000, 3);
    }
}

#[test]
fn a_thread_takes_half_of_a_busy_threads_pile_without_its_help() {
    let s = build(2, "auto:shift=0");
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    for i in 0..8 {
        a.push(5, i);
    }
    a.push(9, 100);
    // a's first pop publishes its current bucket (8 tasks) in its pile and
    // takes the newest half of it privately.
    assert_eq!(a.pop(), Some((5, 7)));
    assert_eq!(s.shared.threads[0].pile.len_hint(), 4);
    // b has nothing: it takes half of a's pile (the newest two) while a does
    // nothing at all.
    assert_eq!(b.pop(), Some((5, 3)));
    assert_eq!(b.pop(), Some((5, 2)));
    assert_eq!(s.shared.threads[0].pile.len_hint(), 2);
    let mut rest: Vec<u64> = std::iter::from_fn(|| a.pop()).map(|e| e.1).collect();
    rest.extend(std::iter::from_fn(|| b.pop()).map(|e| e.1));
    rest.sort_unstable();
    assert_eq!(rest, vec![0, 1, 4, 5, 6, 100]);
}

#[test]
fn a_hungry_thread_is_offered_work_from_later_buckets() {
    let s = build(2, "auto:shift=0");
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    a.push(7, 0);
    for i in 1..=6 {
        a.push(9, i);
    }
    assert_eq!(b.pop(), None, "nothing visible yet");
    assert_eq!(s.shared.wanting.load(Ordering::Relaxed), 1, "b counts itself hungry");
    // a's pop sees a hungry thread while nothing of its own is visible: its
    // current bucket holds one task, so it offers its whole later bucket
    // (priority 9) in its stash.
    assert_eq!(a.pop(), Some((7, 0)));
    assert_eq!(s.shared.threads[0].stash.len_hint(), 1);
    let got: Vec<u64> = std::iter::from_fn(|| b.pop()).map(|e| e.1).collect();
    assert_eq!(got, vec![6, 5, 4, 3, 2, 1], "b ran the offered bucket");
    assert_eq!(s.shared.wanting.load(Ordering::Relaxed), 1, "b is hungry again");
    drop(b);
    assert_eq!(s.shared.wanting.load(Ordering::Relaxed), 0, "b left");
    assert_eq!(a.pop(), None);
    assert_eq!(s.shared.wanting.load(Ordering::Relaxed), 1, "a is hungry now");
}

#[test]
fn an_offered_batch_more_urgent_than_the_next_bucket_is_taken_first() {
    let s = build(2, "auto:shift=0");
    let mut a = s.handle(0);
    let mut b = s.handle(1);
    b.push(100, 100);
    b.push(200, 200);
    for i in 0..4 {
        a.push(10, i);
    }
    a.flush();
    // a's batch (10) is more urgent than b's current bucket (100), but b
    // looks elsewhere only when its current bucket runs out.
    assert_eq!(b.pop(), Some((100, 100)));
    // Now b's next bucket is 200 and a's batch (10) is better: taken first.
    let got: Vec<Prio> = std::iter::from_fn(|| b.pop()).map(|e| e.0).collect();
    assert_eq!(got, vec![10, 10, 10, 10, 200]);
}

/// Pops everything of a one-thread scheduler fed by `feed` (called with
/// each popped priority, returning the priorities to push).
fn run_one_thread(
    spec: &str,
    start: &[Prio],
    feed: impl Fn(Prio) -> Vec<Prio>,
) -> (u64, Vec<(&'static str, u64)>, u32) {
    let s = build(1, spec);
    let mut h = s.handle(0);
    for &p in start {
        h.push(p, 0);
    }
    let mut pops = 0;
    while let Some((p, _)) = h.pop() {
        pops += 1;
        for q in feed(p) {
            h.push(q, 0);
        }
    }
    let shift = h.buckets.shift();
    (pops, h.counters(), shift)
}

#[test]
fn the_width_settles_near_the_wanted_tasks_per_bucket() {
    // 64 chains of tasks, each task spawning its successor 1000..2000 later
    // up to a horizon: a wave of about 64 tasks per 1500 priority units.
    let feed = |p: Prio| {
        if p < 3_000_000 {
            vec![p + 1000 + (p.wrapping_mul(2654435761) >> 7) % 1000]
        } else {
            Vec::new()
        }
    };
    let start: Vec<Prio> = (0..64).map(|i| i * 10).collect();
    let (pops, counters, shift) = run_one_thread("auto", &start, feed);
    let get = |n: &str| counters.iter().find(|c| c.0 == n).unwrap().1;
    let per_bucket = pops as f64 / get("buckets_visited") as f64;
    assert!(get("width_changes") >= 1);
    assert!(
        (DEFAULT_DENSITY as f64 / 4.0..=DEFAULT_DENSITY as f64 * 4.0).contains(&per_bucket),
        "tasks per bucket {per_bucket:.1} with final shift {shift}"
    );
    // A fixed width never changes.
    let (_, counters, shift) = run_one_thread("auto:shift=3", &start, feed);
    assert_eq!(shift, 3);
    assert_eq!(counters.iter().find(|c| c.0 == "width_changes").unwrap().1, 0);
}

#[test]
fn spec_round_trips_and_rejects_bad_values() {
    for text in [
        "auto",
        "auto:shift=auto,density=16",
        "auto:shift=12,density=3",
        "auto:mode=async,round=100",
        "auto:mode=rounds,round=64,slack=2",
        "auto:mode=rounds,round=64,keys=4",
        "auto:mode=async,keys=2",
        "auto:round=auto,keys=8",
    ] {
        let spec: SchedulerSpec = text.parse().unwrap();
        let again: SchedulerSpec = spec.to_string().parse().unwrap();
        assert_eq!(spec, again);
    }
    assert_eq!(
        "auto".parse::<SchedulerSpec>().unwrap().to_string(),
        "auto:mode=rounds,shift=auto,round=auto,keys=auto"
    );
    assert_eq!(
        "auto:round=64".parse::<SchedulerSpec>().unwrap().to_string(),
        "auto:mode=rounds,shift=auto,round=64,keys=auto"
    );
    assert_eq!(
        "auto:mode=async".parse::<SchedulerSpec>().unwrap().to_string(),
        "auto:mode=async,shift=auto,density=16"
    );
    for bad in [
        "auto:shift=64",
        "auto:shift=x",
        "auto:density=0",
        "auto:delta=3",
        "auto:mode=x",
        "auto:round=0",
        "auto:keys=0",
    ] {
        assert!(bad.parse::<SchedulerSpec>().is_err(), "{bad}");
    }
}

#[test]
fn debug_lost_task() {
    let s = build(3, "auto:density=1000");
    let mut handles: Vec<_> = (0..3).map(|t| s.handle(t)).collect();
    let ps = crate::test_support::prios(3000);
    for (i, &p) in ps.iter().enumerate() {
        handles[i % 3].push(p, i as u64);
    }
    let mut got = Vec::new();
    let mut active = [true; 3];
    while active.iter().any(|&a| a) {
        for (k, (h, a)) in handles.iter_mut().zip(active.iter_mut()).enumerate() {
            match h.pop() {
                Some((_, t)) => got.push(t),
                None => {
                    *a = false;
                    eprintln!("handle {k} done after {} pops", got.len());
                }
            }
        }
    }
    for (k, h) in handles.iter().enumerate() {
        eprintln!(
            "handle {k}: ring {} popbuf {} pile {} stash {} spare {} taken {}",
            h.buckets.len(),
            h.popbuf.len(),
            s.shared.threads[k].pile.len_hint(),
            s.shared.threads[k].stash.len_hint(),
            h.spare.len(),
            h.taken.len()
        );
    }
    got.sort_unstable();
    got.dedup();
    eprintln!("got {}", got.len());
}

#[test]
fn the_shift_trace_follows_the_mean_width_of_the_adapted_threads() {
    let mut t = ShiftTrace { shifts: vec![None; 3], points: vec![(0, 0)] };
    t.record(0, 100, 6);
    t.record(1, 150, 6);
    t.record(2, 200, 3);
    t.record(0, 300, 9);
    assert_eq!(
        t.points,
        vec![(0, 0), (100, 6), (200, 5), (300, 6)],
        "(6+6+3)/3 = 5, (9+6+3)/3 = 6; no point without a change"
    );
}

#[test]
fn an_adapting_run_reports_its_width_changes_in_the_shift_trace() {
    // Priorities 0, 1, 2, ...: one task per width-1 bucket, so the
    // controller widens.
    let s = build(1, "auto");
    let mut h = s.handle(0);
    for i in 0..4096 {
        h.push(i, i);
    }
    let mut n = 0;
    while h.pop().is_some() {
        n += 1;
    }
    assert_eq!(n, 4096);
    drop(h);
    let report = s.report();
    let trace = report.traces.iter().find(|t| t.name == "shift").expect("a shift trace");
    assert_eq!(trace.points[0], (0, 0));
    assert!(trace.points.len() > 1, "sparse buckets widen: {:?}", trace.points);
    assert!(trace.points.windows(2).all(|w| w[0].0 <= w[1].0), "x increases");
    assert!(trace.points.last().unwrap().1 > 0);
}

#[test]
fn one_thread_pops_what_flush_moved_to_its_stash() {
    // A distributed rank's local queue flushes while it still holds tasks;
    // alone, its pop must still find them (the stash is its own work).
    for spec in ["auto:mode=async", "auto:mode=async,shift=0"] {
        let s = build(1, spec);
        let mut h = s.handle(0);
        for i in 0..100u64 {
            h.push(i * 7 % 31, i);
        }
        h.flush();
        h.push(5, 100);
        let mut got: Vec<u64> = std::iter::from_fn(|| h.pop().map(|(_, t)| t)).collect();
        got.sort_unstable();
        assert_eq!(got, (0..=100).collect::<Vec<_>>(), "{spec}");
        drop(h);
        // A new handle of the same thread takes over what the dropped one published.
        let mut h = s.handle(0);
        h.push(1, 7);
        drop(h);
        let mut h = s.handle(0);
        assert_eq!(h.pop(), Some((1, 7)), "{spec}");
        assert_eq!(h.pop(), None, "{spec}");
    }
}
