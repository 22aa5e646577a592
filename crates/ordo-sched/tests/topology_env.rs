//! `ORDO_TOPOLOGY` overrides the detected topology. The only test in this
//! binary, so that setting the variable races with no other test.

use ordo_sched::topology::{Topology, TOPOLOGY_ENV};
use ordo_sched::{Handle, Scheduler, SchedulerSpec, SchedulerVisitor};

/// Pushes from thread 0 and pops everything from thread 3 (another socket
/// when two are pretended).
struct CrossSocket;

impl SchedulerVisitor<u64> for CrossSocket {
    type Output = (Vec<u64>, u64);
    fn visit<S: Scheduler<u64>>(self, sched: S) -> (Vec<u64>, u64) {
        let mut a = sched.handle(0);
        for i in 0..1000 {
            a.push(i % 37, i);
        }
        a.flush();
        let mut b = sched.handle(3);
        let mut got: Vec<u64> = std::iter::from_fn(|| b.pop()).map(|(_, t)| t).collect();
        got.sort_unstable();
        let steals = b.counters().into_iter().find(|(n, _)| *n == "steals").map_or(0, |(_, v)| v);
        (got, steals)
    }
}

#[test]
fn override_is_read_and_bad_values_are_errors() {
    std::env::set_var(TOPOLOGY_ENV, "sockets=2");
    assert_eq!(Topology::detect(4).unwrap(), Topology::even(4, 2));
    assert_eq!(Topology::detect(4).unwrap().socket_of_thread(3), 1);
    for name in ["fifo", "lifo", "obim", "pmod"] {
        let spec: SchedulerSpec = name.parse().unwrap();
        let (got, steals) = spec.build(4, CrossSocket);
        assert_eq!(got, (0..1000).collect::<Vec<_>>(), "{name}");
        assert!(steals > 0, "{name}: thread 3 must steal from socket 0's queues");
    }
    std::env::set_var(TOPOLOGY_ENV, "sockets=zero");
    let e = Topology::detect(4).unwrap_err();
    assert!(e.to_string().contains("ORDO_TOPOLOGY=`sockets=zero`"), "{e}");
    // Schedulers warn and fall back rather than fail.
    assert_eq!(Topology::detect_or_warn(4).threads(), 4);
    std::env::remove_var(TOPOLOGY_ENV);
    assert!(Topology::detect(4).is_ok());
}
