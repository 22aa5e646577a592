//! Sequential unit tests of the termination word: which interleavings of
//! idle/scan steps may and may not declare termination.

use super::Termination;

#[test]
fn no_termination_while_a_thread_is_active() {
    let term = Termination::new(2);
    term.go_idle(); // thread 0 idle, thread 1 still active
    let t = term.begin_scan();
    assert!(!term.end_empty_scan(t));
}

#[test]
fn lone_scan_with_everybody_idle_terminates() {
    let term = Termination::new(3);
    for _ in 0..3 {
        term.go_idle();
    }
    let t = term.begin_scan();
    assert!(term.end_empty_scan(t));
}

#[test]
fn overlapping_scans_do_not_terminate() {
    let term = Termination::new(2);
    term.go_idle();
    term.go_idle();
    let a = term.begin_scan();
    let b = term.begin_scan();
    // b began while a was active; a saw b begin (and end) during its scan.
    assert!(!term.end_empty_scan(b));
    assert!(!term.end_empty_scan(a));
    // A later clean scan succeeds.
    let c = term.begin_scan();
    assert!(term.end_empty_scan(c));
}

#[test]
fn scan_interrupted_by_a_complete_other_scan_does_not_terminate() {
    let term = Termination::new(2);
    term.go_idle();
    term.go_idle();
    let a = term.begin_scan();
    // Thread b starts after a (so sees a active) and finds a task: it stays
    // active and then goes idle again before a ends. The active count is back
    // where it was, only the epoch tells a that b was active meanwhile.
    let _b = term.begin_scan();
    term.go_idle();
    assert!(!term.end_empty_scan(a));
}

#[test]
fn scan_that_found_work_keeps_the_thread_active() {
    let term = Termination::new(1);
    term.go_idle();
    let _found_a_task = term.begin_scan();
    // Still active: a second scanner cannot terminate.
    let t = Termination::begin_scan(&term);
    assert!(!term.end_empty_scan(t));
    term.go_idle();
    let t = term.begin_scan();
    assert!(term.end_empty_scan(t));
}

#[test]
fn done_flag() {
    let term = Termination::new(1);
    assert!(!term.is_done());
    term.mark_done();
    assert!(term.is_done());
}
