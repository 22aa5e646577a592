//! Where worker threads run: the one placement rule that the thread pools
//! pin by and that [`Topology`](crate::topology::Topology) describes.
//!
//! Worker `t` of every pool goes on the `t`-th CPU (by number, wrapping) of
//! the set the process may run on, read once when first asked for. The rule
//! depends on nothing else — not on the CPU the process happened to start
//! on, not on how many pools were created before — so the socket and core a
//! scheduler assigns to thread `t` (per-socket bags, NUMA weights, combiner
//! groups) are the socket and core thread `t` runs on. Processes that must
//! not share CPUs are kept apart by starting them with disjoint affinity
//! masks (`taskset -c 0-3`, `taskset -c 4-7`): the rule counts within the
//! mask.
//!
//! On platforms other than Linux the process's CPUs are unknown, nothing is
//! pinned, and [`SUPPORTED`] is false.

/// The CPUs this process may run on, in increasing order; empty where the
/// system does not say. Read from the affinity mask of the first thread
/// that asks, and fixed for the process after that (a pool pins its
/// threads, and a pinned thread's own mask would hide the others).
pub fn process_cpus() -> &'static [usize] {
    static CPUS: std::sync::OnceLock<Vec<usize>> = std::sync::OnceLock::new();
    CPUS.get_or_init(os::allowed_cpus)
}

/// The CPU that thread `t` of a pool is pinned to: the `t`-th of
/// [`process_cpus`], wrapping; `None` when the process's CPUs are unknown.
pub fn cpu_of_thread(t: usize) -> Option<usize> {
    let cpus = process_cpus();
    (!cpus.is_empty()).then(|| cpus[t % cpus.len()])
}

/// Whether threads can be pinned (and pinned callers restored) here.
pub const SUPPORTED: bool = os::SUPPORTED;

/// The CPU the calling thread runs on now, if the system says.
pub fn current_cpu() -> Option<usize> {
    os::current_cpu()
}

/// Restricts the calling thread to `cpu` for good; false if the system
/// refused (or cannot pin).
pub fn pin_current_thread(cpu: usize) -> bool {
    os::set_affinity(&[cpu])
}

/// The calling thread pinned to one CPU until this is dropped, when it gets
/// its previous affinity back. The thread that starts a parallel run is the
/// run's worker 0 and runs there for the length of its share only.
#[derive(Debug)]
pub struct CallerPin {
    saved: os::Mask,
}

impl CallerPin {
    /// Pins the calling thread to `cpu`; `None` (nothing changed) if it is
    /// already restricted to that CPU alone, or if the system refused.
    pub fn pin(cpu: usize) -> Option<CallerPin> {
        let saved = os::Mask::of_current_thread()?;
        if saved.is_only(cpu) || !os::set_affinity(&[cpu]) {
            return None;
        }
        Some(CallerPin { saved })
    }
}

impl Drop for CallerPin {
    fn drop(&mut self) {
        // If the restore fails the thread stays on worker 0's CPU, which is
        // still one it was allowed on.
        self.saved.restore();
    }
}

#[cfg(target_os = "linux")]
mod os {
    pub(super) const SUPPORTED: bool = true;

    const SET_BITS: usize = 8 * std::mem::size_of::<libc::cpu_set_t>();

    /// A thread's affinity mask.
    #[derive(Clone, Copy)]
    pub(super) struct Mask(libc::cpu_set_t);

    impl std::fmt::Debug for Mask {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_list().entries(self.cpus()).finish()
        }
    }

    impl Mask {
        pub(super) fn of_current_thread() -> Option<Mask> {
            // SAFETY: `cpu_set_t` is a plain bit array, valid when zeroed;
            // `sched_getaffinity` (pid 0: the calling thread) writes at most
            // `size_of::<cpu_set_t>()` bytes into it.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                (libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0)
                    .then_some(Mask(set))
            }
        }

        pub(super) fn cpus(&self) -> Vec<usize> {
            // SAFETY: `CPU_ISSET` reads bit `cpu < SET_BITS` of the set.
            (0..SET_BITS).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &self.0) }).collect()
        }

        pub(super) fn is_only(&self, cpu: usize) -> bool {
            self.cpus() == [cpu]
        }

        pub(super) fn restore(&self) {
            // SAFETY: `sched_setaffinity` (pid 0: the calling thread) reads
            // exactly `size_of::<cpu_set_t>()` bytes of a valid set.
            unsafe {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
            }
        }
    }

    pub(super) fn allowed_cpus() -> Vec<usize> {
        Mask::of_current_thread().map(|m| m.cpus()).unwrap_or_default()
    }

    pub(super) fn current_cpu() -> Option<usize> {
        // SAFETY: `sched_getcpu` takes no argument and only reads the
        // calling thread's state; a negative result is an error.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }

    pub(super) fn set_affinity(cpus: &[usize]) -> bool {
        if cpus.is_empty() || cpus.iter().any(|&c| c >= SET_BITS) {
            return false;
        }
        // SAFETY: `cpu_set_t` is a plain bit array, valid when zeroed;
        // `CPU_SET` writes bit `c < SET_BITS` (checked above), and
        // `sched_setaffinity` (pid 0: the calling thread) reads exactly
        // `size_of::<cpu_set_t>()` bytes of it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    pub(super) const SUPPORTED: bool = false;

    #[derive(Clone, Copy, Debug)]
    pub(super) struct Mask;

    impl Mask {
        pub(super) fn of_current_thread() -> Option<Mask> {
            None
        }
        pub(super) fn is_only(&self, _cpu: usize) -> bool {
            false
        }
        pub(super) fn restore(&self) {}
    }

    pub(super) fn allowed_cpus() -> Vec<usize> {
        Vec::new()
    }

    pub(super) fn current_cpu() -> Option<usize> {
        None
    }

    pub(super) fn set_affinity(_cpus: &[usize]) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_counts_within_the_process_cpus_and_wraps() {
        let cpus = process_cpus();
        if cpus.is_empty() {
            assert_eq!(cpu_of_thread(0), None);
            return;
        }
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?} is sorted");
        for t in 0..3 * cpus.len() {
            assert_eq!(cpu_of_thread(t), Some(cpus[t % cpus.len()]));
        }
    }

    #[test]
    fn a_pinned_caller_gets_its_mask_back() {
        let Some(&last) = process_cpus().last() else { return };
        let before = os::Mask::of_current_thread().map(|m| format!("{m:?}"));
        match CallerPin::pin(last) {
            Some(pin) => {
                assert_eq!(current_cpu(), Some(last), "pinned to CPU {last}");
                drop(pin);
                assert_eq!(os::Mask::of_current_thread().map(|m| format!("{m:?}")), before);
            }
            None => eprintln!("skipped: pinning refused or the thread already runs on CPU {last} alone"),
        }
    }
}
