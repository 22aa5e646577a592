//! What the deterministic simulator needs from every registered scheduler:
//! exact private-task counts ([`Handle::private_tasks`]) and probed shared
//! accesses ([`ordo_sched::probe`]).

use ordo_sched::probe::{Access, AccessKind, Recording};
use ordo_sched::{Handle, Prio, Scheduler, SchedulerSpec, SchedulerVisitor};

/// Handle 0 pushes `n` tasks (spread priorities, never flushed); handle 1
/// pops until it finds nothing. What handle 1 got plus handle 0's private
/// tasks must be all `n`, handle 1 must end with nothing private, and
/// handle 0 must then pop exactly its private tasks.
struct InvisibleWork {
    n: u64,
}

impl SchedulerVisitor<u64> for InvisibleWork {
    type Output = ();

    fn visit<S: Scheduler<u64>>(self, sched: S) {
        let mut a = sched.handle(0);
        let mut b = sched.handle(1);
        for i in 0..self.n {
            a.push((i * 7919) % 1000 + i / 10, i);
            assert!(a.private_tasks().total() as u64 <= i + 1);
        }
        let mut seen = vec![false; self.n as usize];
        let mut mark = |t: u64| {
            assert!(!seen[t as usize], "task {t} popped twice");
            seen[t as usize] = true;
        };
        let mut by_b = 0;
        while let Some((_, t)) = b.pop() {
            mark(t);
            by_b += 1;
        }
        assert_eq!(b.private_tasks().total(), 0, "a handle whose pop failed holds nothing");
        let private_a = a.private_tasks().total() as u64;
        assert_eq!(by_b + private_a, self.n, "popped by b {by_b} + private to a {private_a}");
        let mut by_a = 0;
        while let Some((_, t)) = a.pop() {
            mark(t);
            by_a += 1;
        }
        assert_eq!(by_a, private_a);
        assert_eq!(a.private_tasks().total(), 0);
    }
}

#[test]
fn private_tasks_are_exactly_the_tasks_others_cannot_pop() {
    for name in SchedulerSpec::names() {
        let spec: SchedulerSpec = name.parse().unwrap();
        for n in [1, 5, 63, 64, 65, 300] {
            spec.build(2, InvisibleWork { n });
        }
        // Batching makes MQ buffer privately.
        if *name == "mq" {
            let batched: SchedulerSpec = "mq:insert_batch=8,delete_batch=4".parse().unwrap();
            batched.build(2, InvisibleWork { n: 301 });
        }
    }
}

/// Handle 0 pushes and flushes, handle 1 pops everything: some shared
/// structure is written by handle 0's operations and touched by handle 1's.
struct SharedAccesses;

impl SchedulerVisitor<u64> for SharedAccesses {
    type Output = (Vec<Access>, Vec<Access>);

    fn visit<S: Scheduler<u64>>(self, sched: S) -> Self::Output {
        let mut a = sched.handle(0);
        let mut b = sched.handle(1);
        let recording = Recording::start().expect("no recording yet on this thread");
        let mut by_a = Vec::new();
        for i in 0..100 {
            a.push(i as Prio, i);
        }
        a.flush();
        recording.drain_into(&mut by_a);
        let mut by_b = Vec::new();
        while b.pop().is_some() {}
        recording.drain_into(&mut by_b);
        (by_a, by_b)
    }
}

#[test]
fn every_scheduler_probes_its_shared_structures() {
    for name in SchedulerSpec::names() {
        let spec: SchedulerSpec = name.parse().unwrap();
        let (by_a, by_b) = spec.build(2, SharedAccesses);
        let written: std::collections::HashSet<usize> =
            by_a.iter().filter(|x| x.kind == AccessKind::Write).map(|x| x.addr).collect();
        assert!(!written.is_empty(), "{name}: pushing wrote no shared structure");
        assert!(
            by_b.iter().any(|x| written.contains(&x.addr)),
            "{name}: the popping handle touched nothing the pushing handle wrote"
        );
    }
}
