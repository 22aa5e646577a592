//! A pinned loop runtime puts thread `t`, the calling thread (thread 0)
//! included, on the CPU its topology places thread `t` on. (Its own test
//! binary: it moves the test thread between CPUs.)

#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::sync::Mutex;

use ordo_loops::{DistributorSpec, Runtime, Topology};
use ordo_sched::affinity;

#[test]
fn every_thread_runs_where_the_topology_places_it() {
    let cpus = affinity::process_cpus().to_vec();
    if cpus.len() < 2 {
        eprintln!("skipped: needs two CPUs, this process may use {}", cpus.len());
        return;
    }
    let last = *cpus.last().unwrap();
    let threads = 2;
    let rt = Runtime::builder()
        .threads(threads)
        .topology(Topology::parse_override("sockets=2", threads).unwrap())
        .build()
        .unwrap();
    if !rt.pinned() {
        eprintln!("skipped: affinity refused");
        return;
    }
    // Call from the last CPU: thread 0 must still run on thread 0's CPU.
    if !affinity::pin_current_thread(last) {
        eprintln!("skipped: affinity refused");
        return;
    }
    let caller = std::thread::current().id();
    let seen = Mutex::new(Vec::new());
    let spec: DistributorSpec = "shared:batch=1".parse().unwrap();
    for _ in 0..5 {
        rt.parallel_for_with(&spec, 0..64, |_| {
            std::thread::sleep(std::time::Duration::from_micros(50));
            seen.lock()
                .unwrap()
                .push((std::thread::current().id() == caller, affinity::current_cpu().unwrap()));
        });
        assert_eq!(affinity::current_cpu(), Some(last), "the caller gets its own affinity back");
    }
    let topo = rt.topology();
    let seen = seen.into_inner().unwrap();
    let caller_cpus: BTreeSet<usize> = seen.iter().filter(|s| s.0).map(|s| s.1).collect();
    let worker_cpus: BTreeSet<usize> = seen.iter().filter(|s| !s.0).map(|s| s.1).collect();
    assert_eq!(caller_cpus, BTreeSet::from([topo.cpu_of_thread(0).unwrap()]), "thread 0 (the caller)");
    if !worker_cpus.is_empty() {
        assert_eq!(worker_cpus, BTreeSet::from([topo.cpu_of_thread(1).unwrap()]), "thread 1");
    }
    assert_ne!(topo.socket_of_cpu(cpus[0]), topo.socket_of_cpu(cpus[1]), "two pretended sockets");
}
