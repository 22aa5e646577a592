//! loom model of the whole SMQ handle code (not just the buffer): an owner
//! pushes, pops and flushes while another thread's handle steals (always,
//! `p_steal = 1`, and from the spill when its own queue is empty). Every task
//! must come out exactly once with its own priority. Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-sched --release --lib loom_model`.

use super::*;
use crate::sync::Arc;
use loom::thread;

fn sched() -> StealingMultiQueue<Box<u64>> {
    let cfg = SmqConfig { steal: 2, p_steal: 1.0, ..SmqConfig::default() };
    StealingMultiQueue::with_topology(Topology::single(2), &cfg)
}

fn record(got: &mut Vec<u64>, item: Option<(Prio, Box<u64>)>) {
    if let Some((p, t)) = item {
        assert_eq!(p, *t, "a task came back with another priority");
        got.push(*t);
    }
}

#[test]
fn owner_and_thief_handles_deliver_each_task_once() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let s = Arc::new(sched());
        let thief = {
            let s = s.clone();
            thread::spawn(move || {
                let mut h = s.handle(1);
                let mut got = Vec::new();
                record(&mut got, h.pop());
                record(&mut got, h.pop());
                got
            })
        };
        let mut got = Vec::new();
        {
            let mut h = s.handle(0);
            // The first push fills the buffer with [1]; the pop takes it back
            // and refills it with [2, 3], which the thief may steal as a
            // batch (3 then waits in its private stolen list).
            for p in [1, 2, 3, 4] {
                h.push(p, Box::new(p));
            }
            record(&mut got, h.pop());
            h.flush();
        }
        got.extend(thief.join().unwrap());
        // Alone now: two fresh handles must find everything left.
        let mut a = s.handle(0);
        let mut b = s.handle(1);
        while let Some(e) = b.pop() {
            record(&mut got, Some(e));
        }
        assert!(a.pop().is_none(), "a lone pop after a lone empty pop found a task");
        got.sort_unstable();
        assert_eq!(got, vec![1, 2, 3, 4]);
    });
}
