//! Loom model of one rank's counters: a work item created on one thread,
//! handed to another (as the rank's priority queue hands it over, with
//! release/acquire), finished there, while a third thread answers a wave.
//! The report must never count the end of an item without its creation
//! (`created >= finished`), which is what makes a balanced report mean
//! "nothing outstanding on this rank". Reading `created` before `finished`
//! breaks it, and the second model shows loom finds that.
//!
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p ordo-dist --release --lib loom`

use loom::sync::atomic::AtomicBool;
use loom::sync::Arc;

use super::{read_sums, WorkCounters};
use crate::sync::Ordering;

fn model(read: fn(&[WorkCounters]) -> (u64, u64)) {
    loom::model(move || {
        let counters: Arc<[WorkCounters; 2]> = Arc::new([WorkCounters::default(), WorkCounters::default()]);
        let handed = Arc::new(AtomicBool::new(false));
        let (c1, h1) = (Arc::clone(&counters), Arc::clone(&handed));
        let creator = loom::thread::spawn(move || {
            c1[0].publish_created(1);
            h1.store(true, Ordering::Release);
        });
        let (c2, h2) = (Arc::clone(&counters), Arc::clone(&handed));
        let finisher = loom::thread::spawn(move || {
            if h2.load(Ordering::Acquire) {
                c2[1].publish_finished(1);
            }
        });
        let (created, finished) = read(&counters[..]);
        assert!(created >= finished, "report counts an end without its creation: {created} < {finished}");
        creator.join().unwrap();
        finisher.join().unwrap();
    });
}

#[test]
fn loom_report_never_counts_an_end_without_its_creation() {
    model(read_sums);
}

#[test]
#[should_panic(expected = "without its creation")]
fn loom_reading_created_first_is_caught() {
    model(|counters| {
        let created: u64 = counters.iter().map(|c| c.created.load(Ordering::Acquire)).sum();
        let finished: u64 = counters.iter().map(|c| c.finished.load(Ordering::Acquire)).sum();
        (created, finished)
    });
}
