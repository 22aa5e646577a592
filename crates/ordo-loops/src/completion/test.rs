//! Sequential interleavings of the completion protocol: who may join a
//! loop, when, and when the leader may leave.

use super::*;

#[test]
fn followers_join_only_the_open_generation() {
    let slot = LoopSlot::new(2);
    let mut item = 7u32;
    let ptr = &mut item as *mut u32 as *mut ();
    assert!(slot.try_enter(1, 0).is_none(), "nothing opened yet");
    let g = slot.open(ptr);
    assert_eq!(g, 1);
    assert_eq!(slot.try_enter(g, 0), Some(ptr));
    assert_eq!(slot.try_enter(g, 1), Some(ptr));
    assert!(slot.try_enter(g + 1, 0).is_none(), "a future generation is not open");
    assert!(!slot.idle());
    slot.close(g);
    assert!(slot.try_enter(g, 0).is_none(), "closed: no new participant");
    assert!(!slot.idle(), "the two entered followers are still active");
    slot.leave(0);
    assert!(!slot.idle());
    slot.leave(1);
    assert!(slot.idle());
    slot.wait_idle(SpinBudget::NONE);
}

#[test]
fn a_stale_generation_cannot_join_or_close_the_next_one() {
    let slot = LoopSlot::new(1);
    let g1 = slot.open(std::ptr::null_mut());
    slot.close(g1);
    slot.wait_idle(SpinBudget::NONE);
    let g2 = slot.open(std::ptr::null_mut());
    assert_eq!(g2, g1 + 1);
    assert!(slot.try_enter(g1, 0).is_none(), "a follower that saw the old value");
    slot.close(g1);
    assert!(slot.try_enter(g2, 0).is_some(), "closing an old generation leaves the new one open");
    slot.close(g2);
    slot.close(g2);
    slot.leave(0);
    assert!(slot.idle());
}

#[test]
fn generations_wrap_around() {
    let slot = LoopSlot::new(1);
    slot.generation.store(GEN_MASK, Ordering::Relaxed);
    let g = slot.open(std::ptr::null_mut());
    assert_eq!(g, 0);
    assert!(slot.try_enter(0, 0).is_some());
    slot.leave(0);
    slot.close(0);
    assert!(slot.idle());
}

#[test]
fn the_leader_waits_for_a_follower_on_another_thread() {
    let slot = std::sync::Arc::new(LoopSlot::new(1));
    let g = slot.open(std::ptr::null_mut());
    assert!(slot.try_enter(g, 0).is_some());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let follower = {
        let (slot, done) = (slot.clone(), done.clone());
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            slot.leave(0);
        })
    };
    slot.close(g);
    slot.wait_idle(SpinBudget::NONE);
    assert!(done.load(std::sync::atomic::Ordering::Relaxed), "wait_idle returned before the follower left");
    follower.join().unwrap();
}
