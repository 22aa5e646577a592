//! loom model of the `auto` handle code: an owner pushes, pops (offering
//! half of its current bucket when the other thread is hungry) and flushes,
//! while another handle runs dry, counts itself hungry and takes what is
//! offered. Every task must come out exactly once with its own priority,
//! and afterwards lone handles must find everything left (the `Handle`
//! contract); and the pile alone, with an owner and a thief taking halves.
//! Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-sched --release --lib auto::loom_model`.

use super::*;
use crate::sync::Arc;
use loom::thread;

fn sched() -> Auto<Box<u64>> {
    Auto::new(2, &AutoConfig { shift: Some(0), ..AutoConfig::default() })
}

fn record(got: &mut Vec<u64>, item: Option<(Prio, Box<u64>)>) {
    if let Some((p, t)) = item {
        assert_eq!(p / 10, *t, "a task came back with another priority");
        got.push(*t);
    }
}

/// The hand-over of an offered batch: the thief's pops race with the
/// owner's offer, pops and flush.
#[test]
fn offered_batches_are_taken_exactly_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let s = Arc::new(sched());
        let thief = {
            let s = s.clone();
            thread::spawn(move || {
                let mut h = s.handle(1);
                let mut got = Vec::new();
                for _ in 0..3 {
                    record(&mut got, h.pop());
                }
                got
            })
        };
        let mut got = Vec::new();
        {
            let mut h = s.handle(0);
            // Three tasks in the bucket of priority 10, one in a later bucket:
            // the first pop may offer the newest task of the current bucket.
            for (p, t) in [(10, 1), (10, 1), (10, 1), (20, 2)] {
                h.push(p, Box::new(t));
            }
            record(&mut got, h.pop());
            record(&mut got, h.pop());
            h.flush();
        }
        got.extend(thief.join().unwrap());
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        while let Some(e) = b.pop() {
            record(&mut got, Some(e));
        }
        assert!(a.pop().is_none(), "a lone pop after a lone empty pop found a task");
        got.sort_unstable();
        assert_eq!(got, vec![1, 1, 1, 2]);
        drop(a);
        drop(b);
        assert_eq!(s.shared.wanting.load(Ordering::Relaxed), 0, "dropped handles withdraw their requests");
    });
}

/// Two handles both run dry while each holds a flushed batch of the other:
/// the hints and `try_lock` never make both miss work that exists once the
/// other has stopped.
#[test]
fn two_thieves_never_both_miss_a_published_batch() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let s = Arc::new(sched());
        let spawn = |tid: usize, p: u64| {
            let s = s.clone();
            thread::spawn(move || {
                let mut h = s.handle(tid);
                h.push(p * 10, Box::new(p));
                h.flush();
                let mut got = Vec::new();
                record(&mut got, h.pop());
                record(&mut got, h.pop());
                got
            })
        };
        let (t0, t1) = (spawn(0, 1), spawn(1, 2));
        let mut got = t0.join().unwrap();
        got.extend(t1.join().unwrap());
        let mut h = s.handle(0);
        while let Some(e) = h.pop() {
            record(&mut got, Some(e));
        }
        got.sort_unstable();
        assert_eq!(got, vec![1, 2]);
    });
}

/// Taking half of a pile: the owner publishes one bucket, takes its block,
/// publishes the next bucket and takes again, while a thief takes halves
/// with `try_lock`. Every task leaves the pile exactly once, and the hints
/// end exact (no task, level `MAX`).
#[test]
fn pile_halves_are_taken_exactly_once() {
    use super::stash::{Pile, Take};
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(|| {
        let pile = Arc::new(Pile::<Box<u64>>::new());
        let thief = {
            let pile = pile.clone();
            thread::spawn(move || {
                let mut out = Vec::new();
                for _ in 0..2 {
                    // `Busy` while the owner holds the lock: nothing taken.
                    let _ = pile.take_half(&mut out, false, usize::MAX);
                }
                out
            })
        };
        let mut got = Vec::new();
        let mut bucket: Vec<(Prio, Box<u64>)> = (1..=3).map(|t| (10, Box::new(t))).collect();
        pile.publish(&mut bucket, 10);
        assert!(bucket.is_empty(), "publish leaves the bucket empty");
        pile.take_half(&mut got, true, 1);
        let mut bucket: Vec<(Prio, Box<u64>)> = (4..=5).map(|t| (20, Box::new(t))).collect();
        pile.publish(&mut bucket, 20);
        pile.take_half(&mut got, true, 1);
        got.extend(thief.join().unwrap());
        while pile.take_half(&mut got, true, usize::MAX) != Take::Empty {}
        assert_eq!(pile.len_hint(), 0);
        assert_eq!(pile.level_hint(), Prio::MAX, "an empty pile has no level");
        for (p, t) in &got {
            assert_eq!(*p, if **t <= 3 { 10 } else { 20 }, "a task came back with another priority");
        }
        let mut ids: Vec<u64> = got.into_iter().map(|(_, t)| *t).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 2, 3, 4, 5]);
    });
}
