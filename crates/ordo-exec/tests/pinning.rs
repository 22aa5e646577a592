//! Where a pinned pool puts its workers: worker `i` on the CPU the topology
//! places thread `i` on, whatever CPU the process started on and however
//! many pools exist before, so that the socket a scheduler assigns to a
//! worker is the socket it runs on. (Its own test binary: it moves the test
//! thread between CPUs.)

#![cfg(target_os = "linux")]

use std::path::Path;
use std::sync::Mutex;

use ordo_exec::Pool;
use ordo_sched::affinity::{self, current_cpu};
use ordo_sched::topology::Topology;

/// The CPU each worker of `pool` ran on, seen from inside the worker, over
/// a few runs (a worker that ran on two CPUs fails the test).
fn cpus_seen_by_workers(pool: &Pool) -> Vec<usize> {
    let seen = Mutex::new(vec![Vec::new(); pool.threads()]);
    for _ in 0..5 {
        pool.broadcast(&|i| seen.lock().unwrap()[i].push(current_cpu().expect("sched_getcpu failed")));
    }
    let seen = seen.into_inner().unwrap();
    seen.iter()
        .enumerate()
        .map(|(i, cpus)| {
            assert!(cpus.windows(2).all(|w| w[0] == w[1]), "pinned worker {i} moved: {cpus:?}");
            cpus[0]
        })
        .collect()
}

/// The physical package sysfs gives `cpu`, if readable.
fn package_of(cpu: usize) -> Option<String> {
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/topology/physical_package_id");
    std::fs::read_to_string(Path::new(&path)).ok().map(|t| t.trim().to_string())
}

#[test]
fn workers_run_on_the_socket_the_topology_assigns() {
    let cpus = affinity::process_cpus().to_vec();
    if cpus.len() < 2 {
        eprintln!("skipped: needs two CPUs, this process may use {}", cpus.len());
        return;
    }
    // Start from the last CPU, not the first, and create pools first (as
    // `ordo bench` does, one per thread count): neither may shift placement.
    let last = *cpus.last().unwrap();
    if !affinity::pin_current_thread(last) {
        eprintln!("skipped: affinity refused");
        return;
    }
    let earlier: Vec<Pool> = [1, 2, 1].iter().map(|&t| Pool::new(t).unwrap()).collect();
    let mut sizes = vec![2, cpus.len()];
    sizes.dedup();
    for threads in sizes {
        let pool = Pool::builder().threads(threads).pin(true).build().unwrap();
        if !pool.pinned() {
            eprintln!("skipped: affinity refused for {threads} workers");
            return;
        }
        let ran_on = cpus_seen_by_workers(&pool);
        // A pretended two-socket machine (what `ORDO_TOPOLOGY=sockets=2` gives).
        let pretended = Topology::parse_override("sockets=2", threads).unwrap();
        assert_eq!(pretended.num_sockets(), 2);
        for (i, &cpu) in ran_on.iter().enumerate() {
            assert_eq!(Some(cpu), pretended.cpu_of_thread(i), "worker {i} of {threads}");
            assert_eq!(
                pretended.socket_of_cpu(cpu),
                Some(pretended.socket_of_thread(i)),
                "worker {i} of {threads} runs on CPU {cpu}, on another socket than the one the scheduler assigns"
            );
        }
        // The detected topology: workers the scheduler puts on one socket
        // run on CPUs of one physical package, and the other way round.
        let detected = Topology::from_sysfs(Path::new("/sys/devices/system/cpu"), threads);
        for i in 0..threads {
            for j in 0..threads {
                let (pi, pj) = (package_of(ran_on[i]), package_of(ran_on[j]));
                if pi.is_some() && pj.is_some() {
                    assert_eq!(
                        detected.socket_of_thread(i) == detected.socket_of_thread(j),
                        pi == pj,
                        "workers {i} and {j} of {threads}: CPUs {} and {}",
                        ran_on[i],
                        ran_on[j]
                    );
                }
            }
        }
    }
    drop(earlier);
}
