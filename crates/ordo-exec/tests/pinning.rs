//! Where a pinned pool puts its workers: the process's first pool starts on
//! the core the process runs on, so processes the OS placed on different
//! cores do not stack on one. (Its own test binary: the first pool of the
//! process is the one under test.)

#![cfg(target_os = "linux")]

use std::sync::Mutex;

use ordo_exec::Pool;

/// The CPU the calling thread runs on.
fn current_cpu() -> usize {
    // SAFETY: `sched_getcpu` takes no argument and reads only the calling
    // thread's state.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).expect("sched_getcpu failed")
}

/// Restricts the calling thread to `cpus`; false if the system refused.
fn set_affinity(cpus: &[usize]) -> bool {
    // SAFETY: `cpu_set_t` is a plain bit array, valid when zeroed; `CPU_SET`
    // writes one bit below `CPU_SETSIZE` (checked), and `sched_setaffinity`
    // (pid 0: the calling thread) reads exactly `size_of::<cpu_set_t>()` bytes.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            assert!(cpu < libc::CPU_SETSIZE as usize);
            libc::CPU_SET(cpu, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

#[test]
fn the_first_pool_starts_on_the_core_the_process_runs_on() {
    let cores: Vec<usize> =
        core_affinity::get_core_ids().unwrap_or_default().into_iter().map(|c| c.id).collect();
    if cores.len() < 2 {
        eprintln!("skipped: needs two cores, this process may use {}", cores.len());
        return;
    }
    let last = *cores.last().unwrap();
    // Move this thread to the last core, then allow it every core again (a
    // thread stays where it runs unless the OS has a reason to move it, which
    // an idle test process rarely gives in the microseconds until the pool
    // looks): the pool must start on the core the thread runs on, not on the
    // first of the cores it may use.
    assert!(set_affinity(&[last]), "could not move the test thread to core {last}");
    assert!(set_affinity(&cores));
    assert_eq!(current_cpu(), last);
    let pool = Pool::builder().threads(1).pin(true).build().unwrap();
    assert!(pool.pinned(), "a one-worker pool on a machine of {} cores should pin", cores.len());
    let ran_on = Mutex::new(Vec::new());
    for _ in 0..5 {
        pool.broadcast(&|_| ran_on.lock().unwrap().push(current_cpu()));
    }
    let ran_on = ran_on.into_inner().unwrap();
    assert_eq!(ran_on, vec![last; 5], "worker 0 should run on core {last}, where the process was");
}
