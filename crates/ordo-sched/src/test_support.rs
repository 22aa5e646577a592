//! Helpers shared by the schedulers' unit tests: a fixed priority stream and
//! checks of the `Handle` contract that hold for every scheduler.

use crate::{Handle, Scheduler};

/// Pseudo-random priorities in `0..1000` from a fixed LCG (independent of
/// any scheduler's own random numbers).
pub(crate) fn prios(n: usize) -> Vec<u64> {
    let mut x = 987654321u64;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 40) % 1000
        })
        .collect()
}

/// 3000 tasks pushed round-robin through three handles come back exactly
/// once, each with its own priority, when the three handles pop in turn
/// until a whole round of pops finds nothing. (A handle that found nothing
/// may find work again later: `auto` makes private work visible when it
/// sees a thread without work.)
pub(crate) fn check_exactly_once<S: Scheduler<u64>>(spec: &str, s: &S) {
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
                    *a = true;
                }
                None => *a = false,
            }
        }
    }
    got.sort_unstable();
    assert_eq!(got, (0..3000).collect::<Vec<_>>(), "{spec}");
}

/// With a single handle (built for one thread), pushes and pops interleaved:
/// every pop returns the current minimum.
pub(crate) fn check_exact_order_one_thread<S: Scheduler<u64>>(spec: &str, s: &S) {
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

/// After `flush`, another handle sees every task, and a pop with no other
/// thread active never fails while tasks remain (the contract termination
/// detection relies on).
pub(crate) fn check_flush_and_lone_pops<S: Scheduler<u64>>(spec: &str, s: &S) {
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

/// `produced.len()` threads each push their own block of `produced[t]`
/// tasks (ids contiguous across the blocks, priority `id % prio_modulus`),
/// popping once every `pop_every` pushes, then flush and drain their handle;
/// finally one more handle drains what is left. Every task must be seen
/// exactly once. Uneven blocks make the light threads live on what they
/// steal (SMQ) or find in other queues (MQ, RELD).
pub(crate) fn check_concurrent_exactly_once<S: Scheduler<u64>>(
    spec: &str,
    s: &S,
    produced: &[u64],
    prio_modulus: u64,
    pop_every: u64,
) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let first_ids: Vec<u64> =
        produced.iter().scan(0, |next, &n| Some(std::mem::replace(next, *next + n))).collect();
    let total: u64 = produced.iter().sum();
    let seen: Vec<AtomicU64> = (0..total).map(|_| AtomicU64::new(0)).collect();
    let record = |id: u64| seen[id as usize].fetch_add(1, Ordering::Relaxed);
    std::thread::scope(|sc| {
        for (t, (&first, &count)) in first_ids.iter().zip(produced).enumerate() {
            let record = &record;
            sc.spawn(move || {
                let mut h = s.handle(t);
                for i in 0..count {
                    let id = first + i;
                    h.push(id % prio_modulus, id);
                    if i % pop_every == 0 {
                        if let Some((_, id)) = h.pop() {
                            record(id);
                        }
                    }
                }
                h.flush();
                while let Some((_, id)) = h.pop() {
                    record(id);
                }
            });
        }
    });
    let mut h = s.handle(0);
    while let Some((_, id)) = h.pop() {
        record(id);
    }
    for (id, c) in seen.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "{spec}: task {id}");
    }
}
