//! The machine's socket and core layout as the runtimes see it: which socket
//! (NUMA package) and which core each worker thread runs on, so that
//! per-socket queues (obim's bags, PMOD paper §2.2) keep chunks close to the
//! threads that made them, and so that parallel loops can stripe and combine
//! work per core or per socket (Callisto-RTS, ordo-loops).
//!
//! Threads are mapped to CPUs by the pools' placement rule
//! ([`affinity`](crate::affinity): thread `t` on the `t`-th CPU of the
//! process's affinity mask, wrapping around), so the socket and core given
//! here are the ones a pinned worker runs on; a CPU's socket and core are
//! read from
//! `/sys/devices/system/cpu/cpuN/topology/{physical_package_id,core_id}`
//! (hardware threads of one core share a core). The environment variable
//! `ORDO_TOPOLOGY` overrides the detection so that the multi-socket and
//! multi-core code paths run on a small machine:
//!
//! - `sockets=N`: `N` sockets, the threads split evenly and in order among
//!   them, every thread on a core of its own;
//! - `cores=C`: `C` cores on one socket, the threads split evenly and in order
//!   among the cores (so `threads / C` hardware threads per core);
//! - `sockets=N,cores=C`: both, the cores split evenly among the sockets.
//!
//! A pretended topology keeps the same placement: thread `t` still runs on
//! the `t`-th CPU of the mask, and that CPU counts as part of the socket the
//! override gives thread `t` ([`Topology::socket_of_cpu`]).
//!
//! When sysfs is unreadable every thread is taken to be a core of one socket.

use std::fmt;
use std::path::Path;

use crate::affinity;

/// The environment variable that overrides the detected topology.
pub const TOPOLOGY_ENV: &str = "ORDO_TOPOLOGY";

/// A bad `ORDO_TOPOLOGY` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError(pub String);

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TopologyError {}

/// Which socket and which core each of a run's worker threads belongs to.
/// Cores nest in sockets: threads of one core are on one socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    num_sockets: usize,
    socket_of: Vec<usize>,
    num_cores: usize,
    core_of: Vec<usize>,
    /// The CPU each thread is pinned to (the placement rule), if known.
    cpu_of: Vec<Option<usize>>,
}

impl Topology {
    /// One socket holding all `threads` threads, each on a core of its own.
    pub fn single(threads: usize) -> Self {
        Self::even(threads, 1)
    }

    /// `sockets` pretend sockets with the `threads` threads split evenly and
    /// in order among them (thread `t` on socket `t * sockets / threads`),
    /// each thread on a core of its own. `sockets` is clamped to `1..=threads`.
    pub fn even(threads: usize, sockets: usize) -> Self {
        let threads = threads.max(1);
        Self::with_cores(threads, threads, sockets)
    }

    /// `cores` pretend cores split evenly and in order among `sockets`
    /// pretend sockets (core `c` on socket `c * sockets / cores`), and the
    /// `threads` threads split evenly and in order among the cores (thread
    /// `t` on core `t * cores / threads`). `cores` is clamped to
    /// `1..=threads` and `sockets` to `1..=cores`.
    pub fn with_cores(threads: usize, cores: usize, sockets: usize) -> Self {
        let threads = threads.max(1);
        let cores = cores.clamp(1, threads);
        let sockets = sockets.clamp(1, cores);
        let core_of: Vec<usize> = (0..threads).map(|t| t * cores / threads).collect();
        let socket_of = core_of.iter().map(|&c| c * sockets / cores).collect();
        let cpu_of = (0..threads).map(affinity::cpu_of_thread).collect();
        Topology { num_sockets: sockets, socket_of, num_cores: cores, core_of, cpu_of }
    }

    /// The topology for `threads` threads: `ORDO_TOPOLOGY` if set, else sysfs,
    /// else one socket. Fails only on a malformed `ORDO_TOPOLOGY`.
    pub fn detect(threads: usize) -> Result<Self, TopologyError> {
        match std::env::var(TOPOLOGY_ENV) {
            Ok(text) => Self::parse_override(&text, threads),
            Err(_) => Ok(Self::from_sysfs(Path::new("/sys/devices/system/cpu"), threads)),
        }
    }

    /// Like [`Topology::detect`], but a malformed `ORDO_TOPOLOGY` is reported
    /// on stderr and ignored. Schedulers use this: their constructors cannot
    /// fail, and a bad override must not abort a run.
    pub fn detect_or_warn(threads: usize) -> Self {
        Self::detect(threads).unwrap_or_else(|e| {
            eprintln!("warning: {e}; using the detected topology");
            Self::from_sysfs(Path::new("/sys/devices/system/cpu"), threads)
        })
    }

    /// Parses an override such as `sockets=2` or `sockets=2,cores=4` (see
    /// the module documentation).
    pub fn parse_override(text: &str, threads: usize) -> Result<Self, TopologyError> {
        let bad = |why: &str| {
            TopologyError(format!(
                "{TOPOLOGY_ENV}=`{text}`: {why} (expected sockets=N, cores=C or sockets=N,cores=C)"
            ))
        };
        let mut sockets = None;
        let mut cores = None;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) =
                part.split_once('=').ok_or_else(|| bad(&format!("`{part}` is not key=value")))?;
            let target = match key.trim() {
                "sockets" => &mut sockets,
                "cores" => &mut cores,
                k => return Err(bad(&format!("unknown key `{k}`"))),
            };
            let n: usize =
                value.trim().parse().map_err(|_| bad(&format!("`{key}` is not a positive integer")))?;
            if n == 0 {
                return Err(bad(&format!("`{key}` must be at least 1")));
            }
            if target.replace(n).is_some() {
                return Err(bad(&format!("`{key}` given twice")));
            }
        }
        match (sockets, cores) {
            (None, None) => Err(bad("missing `sockets` or `cores`")),
            (Some(s), None) => Ok(Self::even(threads, s)),
            (s, Some(c)) => Ok(Self::with_cores(threads, c, s.unwrap_or(1))),
        }
    }

    /// Reads the package and core id of every `cpuN` under `cpu_dir`, maps
    /// thread `t` to the CPU the placement rule pins it to
    /// ([`affinity::cpu_of_thread`]) and renumbers packages and cores
    /// densely in order of first appearance. A CPU without a readable
    /// `core_id` is a core of its own, one without a readable package a
    /// socket of its own. Where the process's CPUs are unknown, thread `t`
    /// is taken to run on the `t`-th CPU of `cpu_dir`; one socket (and a
    /// core per thread) if nothing is readable.
    pub fn from_sysfs(cpu_dir: &Path, threads: usize) -> Self {
        Self::from_sysfs_placed(cpu_dir, affinity::process_cpus(), threads)
    }

    /// [`Topology::from_sysfs`] with thread `t` on CPU `placement[t %
    /// placement.len()]` (all of `cpu_dir`'s CPUs, by number, if
    /// `placement` is empty).
    fn from_sysfs_placed(cpu_dir: &Path, placement: &[usize], threads: usize) -> Self {
        let threads = threads.max(1);
        let mut cpus: Vec<(usize, u64, Option<u64>)> = Vec::new();
        if let Ok(entries) = std::fs::read_dir(cpu_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(num) = name.to_str().and_then(|n| n.strip_prefix("cpu")) else { continue };
                let Ok(cpu) = num.parse::<usize>() else { continue };
                let id_path = entry.path().join("topology/physical_package_id");
                let Ok(text) = std::fs::read_to_string(id_path) else { continue };
                // Offline CPUs report -1; skip anything that is not a package id.
                if let Ok(package) = text.trim().parse::<u64>() {
                    let core = std::fs::read_to_string(entry.path().join("topology/core_id"))
                        .ok()
                        .and_then(|t| t.trim().parse::<u64>().ok());
                    cpus.push((cpu, package, core));
                }
            }
        }
        if cpus.is_empty() {
            return Self::single(threads);
        }
        cpus.sort_unstable();
        let placed: Vec<(usize, u64, Option<u64>)> = if placement.is_empty() {
            cpus.clone()
        } else {
            // A placed CPU sysfs says nothing about: a socket of its own.
            let described = |cpu: usize| cpus.iter().copied().find(|c| c.0 == cpu);
            placement
                .iter()
                .map(|&cpu| described(cpu).unwrap_or((cpu, u64::MAX - cpu as u64, None)))
                .collect()
        };
        let cpu_of =
            (0..threads).map(|t| (!placement.is_empty()).then(|| placed[t % placed.len()].0)).collect();
        // The physical identity of each thread's CPU: (package, core), where a
        // CPU without a core id is a core of its own (keyed by its number).
        let cpu_of_thread = |t: usize| placed[t % placed.len()];
        let package_of: Vec<u64> = (0..threads).map(|t| cpu_of_thread(t).1).collect();
        let core_key_of: Vec<(u64, u64, bool)> = (0..threads)
            .map(|t| {
                let (cpu, package, core) = cpu_of_thread(t);
                match core {
                    Some(c) => (package, c, true),
                    None => (package, cpu as u64, false),
                }
            })
            .collect();
        // Only sockets and cores that actually hold a thread count; renumber
        // them densely in order of first appearance.
        let (num_sockets, socket_of) = dense_ids(&package_of);
        let (num_cores, core_of) = dense_ids(&core_key_of);
        Topology { num_sockets, socket_of, num_cores, core_of, cpu_of }
    }

    /// The number of sockets that hold at least one thread.
    pub fn num_sockets(&self) -> usize {
        self.num_sockets
    }

    /// The number of cores that hold at least one thread.
    pub fn num_cores(&self) -> usize {
        self.num_cores
    }

    /// The core of thread `tid` (core 0 for a `tid` out of range). Cores are
    /// numbered densely from 0 in order of their first thread.
    pub fn core_of_thread(&self, tid: usize) -> usize {
        self.core_of.get(tid).copied().unwrap_or(0)
    }

    /// The number of threads this topology was made for.
    pub fn threads(&self) -> usize {
        self.socket_of.len()
    }

    /// The socket of thread `tid` (socket 0 for a `tid` out of range).
    pub fn socket_of_thread(&self, tid: usize) -> usize {
        self.socket_of.get(tid).copied().unwrap_or(0)
    }

    /// The CPU a pinned pool runs thread `tid` on ([`affinity`]'s rule);
    /// `None` where the process's CPUs are unknown or `tid` is out of range.
    pub fn cpu_of_thread(&self, tid: usize) -> Option<usize> {
        self.cpu_of.get(tid).copied().flatten()
    }

    /// The socket that CPU `cpu` belongs to in this topology: the socket of
    /// the first thread placed on it (for a pretended topology, the socket
    /// the override gives the threads that run there); `None` if no thread
    /// is placed on `cpu`.
    pub fn socket_of_cpu(&self, cpu: usize) -> Option<usize> {
        self.cpu_of.iter().position(|&c| c == Some(cpu)).map(|t| self.socket_of[t])
    }

    /// The socket leader of thread `tid`: the lowest thread id on its socket.
    /// Leaders aggregate per-socket information (obim's back-scan bound).
    pub fn leader_of_thread(&self, tid: usize) -> usize {
        let s = self.socket_of_thread(tid);
        self.socket_of.iter().position(|&x| x == s).unwrap_or(0)
    }
}

/// Renumbers `keys` densely in order of first appearance: the number of
/// distinct keys and each entry's number.
fn dense_ids<K: PartialEq + Copy>(keys: &[K]) -> (usize, Vec<usize>) {
    let mut seen: Vec<K> = Vec::new();
    let ids = keys
        .iter()
        .map(|k| {
            seen.iter().position(|s| s == k).unwrap_or_else(|| {
                seen.push(*k);
                seen.len() - 1
            })
        })
        .collect();
    (seen.len().max(1), ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_split_assigns_threads_in_order() {
        let t = Topology::even(4, 2);
        assert_eq!(t.num_sockets(), 2);
        assert_eq!((0..4).map(|i| t.socket_of_thread(i)).collect::<Vec<_>>(), vec![0, 0, 1, 1]);
        assert_eq!(t.leader_of_thread(3), 2);
        assert_eq!(t.leader_of_thread(1), 0);
        // More sockets than threads is clamped.
        assert_eq!(Topology::even(2, 8).num_sockets(), 2);
        assert_eq!(Topology::even(3, 2).socket_of, vec![0, 0, 1]);
    }

    #[test]
    fn cores_nest_in_sockets() {
        let t = Topology::with_cores(8, 4, 2);
        assert_eq!((t.num_cores(), t.num_sockets()), (4, 2));
        assert_eq!((0..8).map(|i| t.core_of_thread(i)).collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!((0..8).map(|i| t.socket_of_thread(i)).collect::<Vec<_>>(), vec![0, 0, 0, 0, 1, 1, 1, 1]);
        // Clamping: no more cores than threads, no more sockets than cores.
        let c = Topology::with_cores(3, 8, 8);
        assert_eq!((c.num_cores(), c.num_sockets()), (3, 3));
        // `even` and `single` give every thread a core of its own.
        assert_eq!(Topology::even(4, 2).num_cores(), 4);
        assert_eq!(Topology::single(3).core_of, vec![0, 1, 2]);
    }

    #[test]
    fn pretended_topologies_keep_the_pools_placement() {
        let t = Topology::even(4, 2);
        for tid in 0..4 {
            assert_eq!(t.cpu_of_thread(tid), affinity::cpu_of_thread(tid));
        }
        if let Some(cpu) = t.cpu_of_thread(0) {
            assert_eq!(t.socket_of_cpu(cpu), Some(0), "thread 0's CPU is on thread 0's socket");
        }
    }

    #[test]
    fn override_parsing_accepts_cores() {
        assert_eq!(Topology::parse_override("sockets=2,cores=4", 8).unwrap(), Topology::with_cores(8, 4, 2));
        assert_eq!(Topology::parse_override(" cores=2 ", 4).unwrap(), Topology::with_cores(4, 2, 1));
    }

    #[test]
    fn override_parsing_rejects_bad_text() {
        assert_eq!(Topology::parse_override("sockets=2", 4).unwrap(), Topology::even(4, 2));
        for bad in ["", "sockets=0", "sockets=x", "threads=2", "sockets", "cores=0", "cores=1,cores=2"] {
            let e = Topology::parse_override(bad, 4).unwrap_err();
            assert!(e.0.contains("ORDO_TOPOLOGY"), "{e}");
        }
    }

    #[test]
    fn sysfs_layout_is_read_and_renumbered() {
        let dir = std::env::temp_dir().join(format!("ordo-topo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (cpu, pkg) in [(0, "3"), (1, "3"), (2, "7"), (3, "7"), (4, "-1")] {
            let d = dir.join(format!("cpu{cpu}/topology"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("physical_package_id"), format!("{pkg}\n")).unwrap();
        }
        std::fs::create_dir_all(dir.join("cpufreq")).unwrap();
        let t = Topology::from_sysfs_placed(&dir, &[], 6);
        assert_eq!(t.num_sockets(), 2);
        assert_eq!(t.socket_of, vec![0, 0, 1, 1, 0, 0]);
        assert_eq!(t.core_of, vec![0, 1, 2, 3, 0, 1], "no core_id: every CPU is a core");
        // Two hardware threads per core: CPUs 0/1 share core 0 of package 3,
        // CPUs 2/3 are cores 0 and 1 of package 7.
        for (cpu, core) in [(0, "0"), (1, "0"), (2, "0"), (3, "1")] {
            std::fs::write(dir.join(format!("cpu{cpu}/topology/core_id")), format!("{core}\n")).unwrap();
        }
        let h = Topology::from_sysfs_placed(&dir, &[], 4);
        assert_eq!((h.num_cores(), h.num_sockets()), (3, 2));
        assert_eq!(h.core_of, vec![0, 0, 1, 2]);
        let t2 = Topology::from_sysfs_placed(&dir, &[], 2);
        assert_eq!(t2.num_sockets(), 1, "only sockets holding threads count");
        // Placed on CPUs 2, 3 and 0 (the process's mask, say): thread t gets
        // the socket and core of the CPU it is pinned to.
        let p = Topology::from_sysfs_placed(&dir, &[2, 3, 0], 4);
        assert_eq!(
            (0..4).map(|t| p.cpu_of_thread(t)).collect::<Vec<_>>(),
            [Some(2), Some(3), Some(0), Some(2)]
        );
        assert_eq!(p.socket_of, vec![0, 0, 1, 0], "package 7 first, then package 3");
        assert_eq!(p.core_of, vec![0, 1, 2, 0]);
        assert_eq!((p.socket_of_cpu(0), p.socket_of_cpu(3), p.socket_of_cpu(1)), (Some(1), Some(0), None));
        // A placed CPU without sysfs entry is a socket of its own.
        let q = Topology::from_sysfs_placed(&dir, &[0, 9], 2);
        assert_eq!(q.num_sockets(), 2);
        let none = Topology::from_sysfs(&dir.join("missing"), 3);
        assert_eq!(none, Topology::single(3));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
