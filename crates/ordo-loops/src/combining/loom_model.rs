//! Loom model of the request-combining slot protocol: the real
//! [`CombiningDistributor`] (combiner lock, request slots, aggregate
//! upstream claims, the empty answer at the end), synchronous and
//! asynchronous, with two or three threads on one combiner.
//!
//! Checked: every iteration is handed out exactly once, every thread
//! terminates (a lost request would leave a thread waiting forever, which
//! loom reports as a deadlock or an exceeded branch budget), and every batch
//! a thread gets is a non-empty part of the loop no longer than a batch (so
//! `end` is read with its `start`). The two-thread models explore every
//! interleaving with up to 3 preemptions (2 with a striped upstream); the
//! three-thread models are 20-second searches with up to 2 preemptions.
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

/// Preemption bound of the two-thread models (`LOOM_MAX_PREEMPTIONS`
/// overrides every bound). The spin loops of the protocol make the
/// unbounded space too large to finish; loom's authors recommend 2–3.
const PREEMPTIONS: usize = 3;

/// How a model is explored.
#[derive(Clone, Copy)]
enum Search {
    /// Every interleaving with at most this many preemptions.
    Bounded(usize),
    /// A random-order search with at most 2 preemptions, stopped after this
    /// many seconds (the three-thread space is too large to exhaust:
    /// waiting for the lock is a loop whose every round is a choice).
    Timed(u64),
}

fn model<S: SlotLayout + Send + 'static, const ASYNC: bool>(
    threads: usize,
    iterations: u64,
    batch: u64,
    striped: bool,
    search: Search,
) {
    let mut builder = loom::model::Builder::new();
    // Waiting for a lock whose holder has not yet seen our request repeats
    // until the holder leaves: a long but finite execution.
    builder.max_branches = 100_000;
    match search {
        Search::Bounded(p) => {
            builder.preemption_bound = builder.preemption_bound.or(Some(p));
        }
        Search::Timed(seconds) => {
            builder.preemption_bound = builder.preemption_bound.or(Some(2));
            builder.max_duration = Some(std::time::Duration::from_secs(seconds));
        }
    }
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
                    assert!(
                        !r.is_empty() && r.end <= iterations && r.end - r.start <= batch,
                        "bad batch {r:?}"
                    );
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
    model::<Packed, false>(2, 3, 1, false, Search::Bounded(PREEMPTIONS));
}

#[test]
fn loom_combining_async_two_threads() {
    model::<Packed, true>(2, 3, 1, false, Search::Bounded(PREEMPTIONS));
}

#[test]
fn loom_combining_async_two_threads_striped_upstream() {
    model::<Padded, true>(2, 3, 2, true, Search::Bounded(2));
}

#[test]
fn loom_combining_sync_three_threads() {
    model::<Packed, false>(3, 2, 1, false, Search::Timed(20));
}

#[test]
fn loom_combining_async_three_threads() {
    model::<Padded, true>(3, 2, 1, false, Search::Timed(20));
}
