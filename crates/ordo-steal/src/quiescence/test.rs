//! Sequential walks through the protocol word by word: who is the barrier,
//! what it publishes, when the job ends.

use super::{CheckOut, Quiescence};

#[test]
fn a_job_without_frames_is_over_at_once() {
    let q = Quiescence::new(0);
    assert!(q.is_done());
    assert_eq!(q.phase(), 0);
}

#[test]
fn the_last_check_out_ends_a_job_without_next_work() {
    let q = Quiescence::new(2);
    assert_eq!(q.check_out(), CheckOut::PhaseGoesOn);
    assert!(!q.is_done());
    q.check_in(); // a thief took a frame of the worker still counted
    assert_eq!(q.check_out(), CheckOut::PhaseGoesOn);
    assert!(!q.is_done());
    assert_eq!(q.check_out(), CheckOut::Finished);
    assert!(q.is_done());
    assert_eq!(q.phase(), 0);
}

#[test]
fn the_barrier_counts_exactly_the_announcing_workers() {
    let q = Quiescence::new(3);
    q.announce_next();
    assert_eq!(q.check_out(), CheckOut::PhaseGoesOn);
    assert_eq!(q.check_out(), CheckOut::PhaseGoesOn);
    q.announce_next();
    assert_eq!(q.check_out(), CheckOut::Advanced(1));
    assert_eq!(q.phase(), 1);
    assert!(!q.is_done());
    // Phase 1: the two announcing workers are counted; announcements were reset.
    assert_eq!(q.check_out(), CheckOut::PhaseGoesOn);
    assert_eq!(q.check_out(), CheckOut::Finished);
    assert!(q.is_done());
    assert_eq!(q.phase(), 1);
}

#[test]
fn phases_advance_one_at_a_time() {
    let q = Quiescence::new(1);
    for phase in 1..=5 {
        q.announce_next();
        assert_eq!(q.check_out(), CheckOut::Advanced(phase));
        assert_eq!(q.phase(), phase);
    }
    assert_eq!(q.check_out(), CheckOut::Finished);
}

#[test]
fn abort_ends_the_job() {
    let q = Quiescence::new(2);
    q.abort();
    assert!(q.is_done());
}
