//! The machine's socket layout as the schedulers see it: which socket (NUMA
//! package) each worker thread runs on, so that per-socket queues (obim's
//! bags, PMOD paper §2.2) keep chunks close to the threads that made them.
//!
//! Threads are mapped to CPUs in order (thread `t` on the `t`-th online CPU,
//! wrapping around), and a CPU's socket is read from
//! `/sys/devices/system/cpu/cpuN/topology/physical_package_id`. The
//! environment variable `ORDO_TOPOLOGY=sockets=N` overrides the detection: it
//! pretends there are `N` sockets and splits the threads evenly among them, so
//! that the multi-socket code paths run on a one-socket machine. When sysfs is
//! unreadable the machine is taken to have one socket.

use std::fmt;
use std::path::Path;

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

/// Which socket each of a run's worker threads belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    num_sockets: usize,
    socket_of: Vec<usize>,
}

impl Topology {
    /// One socket holding all `threads` threads.
    pub fn single(threads: usize) -> Self {
        Topology { num_sockets: 1, socket_of: vec![0; threads.max(1)] }
    }

    /// `sockets` pretend sockets with the `threads` threads split evenly and
    /// in order among them (thread `t` on socket `t * sockets / threads`).
    /// `sockets` is clamped to `1..=threads`.
    pub fn even(threads: usize, sockets: usize) -> Self {
        let threads = threads.max(1);
        let sockets = sockets.clamp(1, threads);
        let socket_of = (0..threads).map(|t| t * sockets / threads).collect();
        Topology { num_sockets: sockets, socket_of }
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

    /// Parses an override such as `sockets=2`.
    pub fn parse_override(text: &str, threads: usize) -> Result<Self, TopologyError> {
        let bad = |why: &str| TopologyError(format!("{TOPOLOGY_ENV}=`{text}`: {why} (expected sockets=N)"));
        let mut sockets = None;
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("sockets", v)) => {
                    let n: usize =
                        v.trim().parse().map_err(|_| bad("`sockets` is not a positive integer"))?;
                    if n == 0 {
                        return Err(bad("`sockets` must be at least 1"));
                    }
                    sockets = Some(n);
                }
                Some((k, _)) => return Err(bad(&format!("unknown key `{k}`"))),
                None => return Err(bad(&format!("`{part}` is not key=value"))),
            }
        }
        let sockets = sockets.ok_or_else(|| bad("missing `sockets`"))?;
        Ok(Self::even(threads, sockets))
    }

    /// Reads the package id of every `cpuN` under `cpu_dir`, maps thread `t`
    /// to the `t`-th CPU (by number, wrapping) and renumbers packages densely
    /// in order of first appearance. One socket if nothing is readable.
    pub fn from_sysfs(cpu_dir: &Path, threads: usize) -> Self {
        let threads = threads.max(1);
        let mut cpus: Vec<(usize, u64)> = Vec::new();
        if let Ok(entries) = std::fs::read_dir(cpu_dir) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(num) = name.to_str().and_then(|n| n.strip_prefix("cpu")) else { continue };
                let Ok(cpu) = num.parse::<usize>() else { continue };
                let id_path = entry.path().join("topology/physical_package_id");
                let Ok(text) = std::fs::read_to_string(id_path) else { continue };
                // Offline CPUs report -1; skip anything that is not a package id.
                if let Ok(package) = text.trim().parse::<u64>() {
                    cpus.push((cpu, package));
                }
            }
        }
        if cpus.is_empty() {
            return Self::single(threads);
        }
        cpus.sort_unstable();
        let mut packages: Vec<u64> = Vec::new();
        let socket_of_cpu: Vec<usize> = cpus
            .iter()
            .map(|&(_, p)| {
                packages.iter().position(|&q| q == p).unwrap_or_else(|| {
                    packages.push(p);
                    packages.len() - 1
                })
            })
            .collect();
        let socket_of: Vec<usize> = (0..threads).map(|t| socket_of_cpu[t % socket_of_cpu.len()]).collect();
        // Only sockets that actually hold a thread count; renumber densely.
        let mut used: Vec<usize> = socket_of.clone();
        used.sort_unstable();
        used.dedup();
        let socket_of = socket_of.iter().map(|s| used.iter().position(|u| u == s).unwrap_or(0)).collect();
        Topology { num_sockets: used.len(), socket_of }
    }

    /// The number of sockets that hold at least one thread.
    pub fn num_sockets(&self) -> usize {
        self.num_sockets
    }

    /// The number of threads this topology was made for.
    pub fn threads(&self) -> usize {
        self.socket_of.len()
    }

    /// The socket of thread `tid` (socket 0 for a `tid` out of range).
    pub fn socket_of_thread(&self, tid: usize) -> usize {
        self.socket_of.get(tid).copied().unwrap_or(0)
    }

    /// The socket leader of thread `tid`: the lowest thread id on its socket.
    /// Leaders aggregate per-socket information (obim's back-scan bound).
    pub fn leader_of_thread(&self, tid: usize) -> usize {
        let s = self.socket_of_thread(tid);
        self.socket_of.iter().position(|&x| x == s).unwrap_or(0)
    }
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
    fn override_parsing_rejects_bad_text() {
        assert_eq!(Topology::parse_override("sockets=2", 4).unwrap(), Topology::even(4, 2));
        for bad in ["", "sockets=0", "sockets=x", "cores=2", "sockets"] {
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
        let t = Topology::from_sysfs(&dir, 6);
        assert_eq!(t.num_sockets(), 2);
        assert_eq!(t.socket_of, vec![0, 0, 1, 1, 0, 0]);
        let t2 = Topology::from_sysfs(&dir, 2);
        assert_eq!(t2.num_sockets(), 1, "only sockets holding threads count");
        let none = Topology::from_sysfs(&dir.join("missing"), 3);
        assert_eq!(none, Topology::single(3));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
