//! Loom model of the request-combining slot protocol: the real
//! [`CombiningDistributor`] (combiner lock, request slots, aggregate
//! upstream claims, the empty answer at the end), synchronous and
//! asynchronous, with two or three threads on one combiner.
//!
//! Checked: every iteration is handed out exactly once, every thread
//! terminates (loom explores every interleaving of its bounded loops; a lost
//! request would leave a thread waiting forever, which loom reports as a
//! deadlock or an exceeded branch budget), and the iterations a thread was
//! handed are the ones written in its slot (the answer is read consistently).
//!
//! Run: `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ordo-loops --release --lib loom`

use loom::sync::atomic::{AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

use super::{CombiningDistributor, Packed, Padded, SlotLayout};
use crate::distribute::Distribute;
use crate::spec::Granularity;
use crate::tree::Team;
use crate::wait::SpinBudget;

fn model<S: SlotLayout + Send + 'static, const ASYNC: bool>(
    threads: usize,
    iterations: u64,
    batch: u64,
    striped: bool,
    preemptions: Option<usize>,
) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    builder.check(move || {
        let team = Arc::new(Team::solo_for_test(threads, 1));
        let dist: Arc<CombiningDistributor<S, ASYNC>> = Arc::new(CombiningDistributor::new(
            0..iterations,
            &team,
            Granularity::Core,
            striped,
            batch,
            SpinBudget::NONE,
        ));
        let runs: Arc<Vec<AtomicU64>> = Arc::new((0..iterations).map(|_| AtomicU64::new(0)).collect());
        let work = {
            let (team, dist, runs) = (team.clone(), dist.clone(), runs.clone());
            move |rank: usize| {
                let mut cursor = dist.cursor(team.member(rank));
                while let Some(r) = dist.next(&mut cursor) {
                    assert!(!r.is_empty() && r.end <= iterations && r.end - r.start <= batch, "bad batch {r:?}");
                    for i in r {
                        runs[i as usize].fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        };
        let handles: Vec<_> = (1..threads)
            .map(|rank| {
                let work = work.clone();
                thread::spawn(move || work(rank))
            })
            .collect();
        work(0);
        for h in handles {
            h.join().unwrap();
        }
        for (i, c) in runs.iter().enumerate() {
            assert_eq!(c.load(Ordering::Relaxed), 1, "iteration {i} handed out once");
        }
    });
}

#[test]
fn loom_combining_sync_two_threads() {
    model::<Packed, false>(2, 3, 1, false, None);
}

#[test]
fn loom_combining_async_two_threads() {
    model::<Packed, true>(2, 3, 1, false, None);
}

#[test]
fn loom_combining_async_two_threads_striped_upstream() {
    model::<Padded, true>(2, 3, 2, true, None);
}

#[test]
fn loom_combining_sync_three_threads() {
    model::<Packed, false>(3, 2, 1, false, Some(3));
}

#[test]
fn loom_combining_async_three_threads() {
    model::<Padded, true>(3, 2, 1, false, Some(3));
}
