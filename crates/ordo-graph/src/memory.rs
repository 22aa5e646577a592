//! Memory estimates, and the budget they are checked against before a large
//! allocation, so that a hostile or mistaken input is refused with one clear
//! error instead of an abort in the allocator (or a machine driven into
//! swap).
//!
//! A 26-byte DIMACS file may announce 10^9 vertices, a generator spec a
//! graph of 2^35 edges, a 4 MB gzip stream inflate to gigabytes. Every such
//! size is known before the memory is touched: the header's `n` and `m`, the
//! generator's parameters, the `.ordo` header. The loaders, the generators
//! and the statistics estimate their peak from those sizes ([`GraphShape`],
//! [`load_need`], [`crate::gen::GenSpec::memory_needed`],
//! [`crate::stats::WORKING_MEMORY`]) and call [`check`], which compares the
//! estimate with [`budget`]:
//!
//! * `ORDO_MEMORY_LIMIT`, when set: a size such as `512M`, `4G`, `1.5GB`,
//!   `64MiB` or a plain byte count (`K`, `M`, `G`, `T` are powers of 1000;
//!   `KiB`, `MiB`, `GiB`, `TiB` powers of 1024), or `off` to disable the
//!   checks. It replaces what the machine reports (tests force a small limit
//!   with it; a user who knows better may raise it);
//! * otherwise the smaller of `MemAvailable` in `/proc/meminfo` and the
//!   headroom of the process's cgroup (limit minus usage, page cache that
//!   can be dropped not counted as used), on Linux. Elsewhere nothing is
//!   checked.
//!
//! Needs below [`CHECK_FLOOR`] are never refused, so small inputs cost no
//! system call. Estimates are of the peak and deliberately simple (arrays
//! times their element sizes, as documented at each estimate); they are
//! upper bounds for the data structures this crate builds, not for
//! allocator overhead.
//!
//! Where an allocation's size comes from input, library code also allocates
//! with `try_reserve` ([`try_filled`]), so that an estimate that was too
//! optimistic still ends in an error rather than an abort.

use std::fmt;

/// Needs below this many bytes are not checked (64 MiB).
pub const CHECK_FLOOR: u64 = 64 << 20;

/// The environment variable that overrides the detected budget.
pub const LIMIT_VAR: &str = "ORDO_MEMORY_LIMIT";

/// How much memory may be used, and where that figure comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Bytes that may be allocated.
    pub bytes: u64,
    /// Where the figure comes from, e.g. `MemAvailable` or
    /// `ORDO_MEMORY_LIMIT=1G`.
    pub source: String,
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} available ({})", format_bytes(self.bytes), self.source)
    }
}

/// An estimated need that exceeds the budget, a refused allocation, or an
/// unusable `ORDO_MEMORY_LIMIT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryError {
    /// The estimate exceeds the budget.
    OverBudget {
        /// What needs the memory, as a phrase ("loading 10^9 vertices ...").
        what: String,
        /// Bytes needed.
        need: u64,
        /// The budget exceeded.
        budget: Budget,
    },
    /// The allocator refused.
    AllocationFailed {
        /// What was being allocated.
        what: String,
        /// Bytes asked for.
        need: u64,
    },
    /// `ORDO_MEMORY_LIMIT` does not parse.
    BadLimit(String),
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::OverBudget { what, need, budget } => {
                write!(f, "{what} needs about {} of memory, more than the {budget}", format_bytes(*need))
            }
            MemoryError::AllocationFailed { what, need } => {
                write!(f, "{what}: allocating {} failed (out of memory)", format_bytes(*need))
            }
            MemoryError::BadLimit(value) => {
                write!(f, "{LIMIT_VAR}={value} is not a size like 512M or 4G, nor off")
            }
        }
    }
}

impl std::error::Error for MemoryError {}

/// Checks that `need` bytes fit the [`budget`]; `what` names the operation
/// for the error (computed only on error). Needs below [`CHECK_FLOOR`] always
/// pass. An unparsable `ORDO_MEMORY_LIMIT` is an error too.
pub fn check(need: u64, what: impl FnOnce() -> String) -> Result<(), MemoryError> {
    if need < CHECK_FLOOR {
        return Ok(());
    }
    match budget()? {
        Some(budget) if need > budget.bytes => Err(MemoryError::OverBudget { what: what(), need, budget }),
        _ => Ok(()),
    }
}

/// The memory budget (see the module docs); `Ok(None)` when unknown or
/// disabled, an error when `ORDO_MEMORY_LIMIT` does not parse.
pub fn budget() -> Result<Option<Budget>, MemoryError> {
    if let Ok(v) = std::env::var(LIMIT_VAR) {
        let v = v.trim();
        if matches!(v.to_ascii_lowercase().as_str(), "off" | "none" | "unlimited") {
            return Ok(None);
        }
        return match parse_size(v) {
            Some(bytes) => Ok(Some(Budget { bytes, source: format!("{LIMIT_VAR}={v}") })),
            None => Err(MemoryError::BadLimit(v.to_string())),
        };
    }
    let available = mem_available().map(|b| Budget { bytes: b, source: "MemAvailable".into() });
    let cgroup = cgroup_headroom();
    Ok(match (available, cgroup) {
        (Some(a), Some(c)) => Some(if c.bytes < a.bytes { c } else { a }),
        (a, c) => a.or(c),
    })
}

/// Parses `123`, `512M`, `1.5GB`, `64MiB`, `2g` (see the module docs).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = num.parse().ok()?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = value * scale;
    (0.0..1.8e19).contains(&bytes).then_some(bytes as u64)
}

/// `bytes` for people: `812 kB`, `64.0 MB`, `8.0 GB`, `1649.3 GB`.
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{} kB", bytes.div_ceil(1000))
    }
}

/// `MemAvailable` of `/proc/meminfo` in bytes (Linux), `None` elsewhere.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_field(&info, "MemAvailable:")
}

fn meminfo_field(info: &str, key: &str) -> Option<u64> {
    let kb = info.lines().find_map(|l| l.strip_prefix(key))?;
    kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|k| k * 1024)
}

/// The smallest `limit - usage` over the cgroups (v2 and v1 memory
/// controller) that hold this process, with reclaimable page cache
/// (`inactive_file`) not counted as usage; `None` when no limit is set.
fn cgroup_headroom() -> Option<Budget> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut best: Option<Budget> = None;
    let mut consider = |dir: std::path::PathBuf, max_file: &str, usage_file: &str, inactive_key: &str| {
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let Some(limit) = read(max_file).and_then(|s| s.trim().parse::<u64>().ok()) else { return };
        if limit >= 1 << 60 {
            return; // "unlimited" in cgroup v1
        }
        let usage = read(usage_file).and_then(|s| s.trim().parse::<u64>().ok()).unwrap_or(0);
        let inactive = read("memory.stat")
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix(inactive_key).and_then(|v| v.trim().parse::<u64>().ok()))
            })
            .unwrap_or(0);
        let headroom = limit.saturating_sub(usage.saturating_sub(inactive));
        if best.as_ref().is_none_or(|b| headroom < b.bytes) {
            best = Some(Budget {
                bytes: headroom,
                source: format!(
                    "cgroup memory limit {}, {} in use",
                    format_bytes(limit),
                    format_bytes(usage.saturating_sub(inactive))
                ),
            });
        }
    };
    for line in membership.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.is_empty() {
            // cgroup v2: the process's group and its ancestors.
            let mut dir = std::path::PathBuf::from("/sys/fs/cgroup").join(path);
            loop {
                consider(dir.clone(), "memory.max", "memory.current", "inactive_file ");
                if !dir.pop() || !dir.starts_with("/sys/fs/cgroup") {
                    break;
                }
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            // cgroup v1: the group's directory, or the mount root when the
            // container shows its own group as the root.
            for dir in
                ["/sys/fs/cgroup/memory".into(), std::path::Path::new("/sys/fs/cgroup/memory").join(path)]
            {
                consider(dir, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file ");
            }
        }
    }
    best
}

/// The sizes of a graph: as a file header announces them, as a generator
/// will produce them, or as loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphShape {
    /// Vertices.
    pub n: u64,
    /// Directed edges.
    pub m: u64,
    /// Whether each edge carries a `u32` weight.
    pub weighted: bool,
    /// Whether each vertex carries two `f64` coordinates.
    pub coords: bool,
}

impl GraphShape {
    /// Bytes of the CSR arrays: `8 (n + 1)` offsets, `4 m` targets, `4 m`
    /// weights, `16 n` coordinates.
    pub fn csr_bytes(&self) -> u64 {
        let (n, m) = (self.n, self.m);
        8u64.saturating_mul(n.saturating_add(1))
            .saturating_add(m.saturating_mul(if self.weighted { 8 } else { 4 }))
            .saturating_add(if self.coords { n.saturating_mul(16) } else { 0 })
    }

    /// Bytes of an edge list of this shape: `8 m` endpoints, `4 m` weights,
    /// `16 n` coordinates.
    pub fn edge_list_bytes(&self) -> u64 {
        self.m.saturating_mul(if self.weighted { 12 } else { 8 }).saturating_add(if self.coords {
            self.n.saturating_mul(16)
        } else {
            0
        })
    }

    /// The shape with twice the edges (an upper bound after symmetrizing).
    pub fn doubled(&self) -> GraphShape {
        GraphShape { m: self.m.saturating_mul(2), ..*self }
    }
}

/// Memory a caller will need per vertex and per edge once a graph is built
/// (an algorithm's distances, the statistics' arrays), on top of the graph.
/// Passing it to the loader ([`crate::LoadOptions::working_memory`]) lets a
/// graph that loads but cannot then be processed be refused before loading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkingMemory {
    /// Bytes per vertex.
    pub per_vertex: u64,
    /// Bytes per directed edge.
    pub per_edge: u64,
}

impl WorkingMemory {
    /// Nothing beyond the graph.
    pub const NONE: WorkingMemory = WorkingMemory { per_vertex: 0, per_edge: 0 };

    /// Bytes for a graph of `shape`.
    pub fn bytes(&self, shape: &GraphShape) -> u64 {
        self.per_vertex.saturating_mul(shape.n).saturating_add(self.per_edge.saturating_mul(shape.m))
    }

    /// The larger of two needs, component by component (for a caller that
    /// runs one step after the other).
    pub fn max(self, other: WorkingMemory) -> WorkingMemory {
        WorkingMemory {
            per_vertex: self.per_vertex.max(other.per_vertex),
            per_edge: self.per_edge.max(other.per_edge),
        }
    }
}

/// What a load does besides building the CSR, for [`load_need`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadPlan {
    /// Bytes of the input held in memory while it is parsed (the inflated
    /// text of a gzip file; 0 for a mapped file, whose pages are released
    /// as parsing goes).
    pub resident_input: u64,
    /// Whether the input is text parsed into an edge list (false: the
    /// binary format, mapped or decoded).
    pub text: bool,
    /// Whether the graph is symmetrized after loading.
    pub symmetrize: bool,
    /// Whether self loops and parallel edges are dropped after loading.
    pub simplify: bool,
    /// Whether the graph is copied into huge pages at the end.
    pub huge_pages: bool,
    /// Whether new weights replace the file's.
    pub reweight: bool,
    /// Whether the file's weights are dropped (the graph is held without
    /// weights, whatever the shape announces).
    pub drop_weights: bool,
    /// What the caller needs afterwards.
    pub working: WorkingMemory,
}

/// The peak memory of loading a graph of `shape` (as the file announces it)
/// by `plan`, then holding it with the caller's working memory:
///
/// * text: the input plus the edge list while parsing, then the edge list
///   plus the offsets while building the CSR in place
///   ([`crate::EdgeList::into_graph`]);
/// * binary: the mapped arrays (the CSR itself);
/// * symmetrizing: an edge list or graph of twice the edges, then two CSRs
///   of that size while parallel edges are dropped;
/// * new weights: one more weight array;
/// * simplifying: two CSRs of the final size (the graph and its simple copy);
/// * copying into huge pages: two CSRs of the final size (the graph and its
///   copy);
/// * finally the graph plus [`WorkingMemory`].
pub fn load_need(shape: &GraphShape, plan: &LoadPlan) -> u64 {
    let shape = &GraphShape { weighted: shape.weighted && !plan.drop_weights, ..*shape };
    let offsets = 8u64.saturating_mul(shape.n.saturating_add(1));
    let coords = if shape.coords { shape.n.saturating_mul(16) } else { 0 };
    let final_shape = if plan.symmetrize { shape.doubled() } else { *shape };
    let mut peak = if plan.text {
        let parse = plan.resident_input.saturating_add(shape.edge_list_bytes());
        let build = final_shape.edge_list_bytes().saturating_add(offsets);
        parse.max(build).saturating_add(coords)
    } else {
        shape.csr_bytes()
    };
    if plan.symmetrize {
        let sym = GraphShape { coords: false, ..final_shape };
        let dedup = shape.csr_bytes().saturating_add(sym.csr_bytes().saturating_mul(2));
        peak = peak.max(dedup.saturating_add(coords));
    }
    let reweight = if plan.reweight { final_shape.m.saturating_mul(4) } else { 0 };
    if plan.simplify {
        let simple = final_shape.csr_bytes().saturating_add(reweight).saturating_mul(2);
        peak = peak.max(simple.saturating_add(coords));
    }
    if plan.huge_pages {
        let copied = final_shape.csr_bytes().saturating_add(reweight).saturating_mul(2);
        peak = peak.max(copied.saturating_add(coords));
    }
    let holding =
        final_shape.csr_bytes().saturating_add(reweight).saturating_add(plan.working.bytes(&final_shape));
    peak.max(holding)
}

/// The phrase naming a load for [`MemoryError`]: "loading a graph of N
/// vertices and M edges", with "and processing" when the caller declared
/// working memory.
pub fn load_phrase(n: u64, m: u64, plan: &LoadPlan) -> String {
    let verb = if plan.working == WorkingMemory::NONE { "loading" } else { "loading and processing" };
    format!("{verb} a graph of {n} vertices and {m} edges")
}

/// The peak resident set size of this process so far (`VmHWM` of
/// `/proc/self/status`), in bytes; `None` where the system does not report
/// it. What `ordo run` reports as `peak_rss_bytes`: the memory the whole
/// process needed at its worst moment (loading, preparing and running), the
/// figure `/usr/bin/time` calls the maximum resident set size.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    meminfo_field(&status, "VmHWM:")
}

/// A vector of `len` copies of `value`, or a [`MemoryError`] naming `what`
/// when the allocator refuses (instead of aborting the process).
pub fn try_filled<T: Clone>(value: T, len: usize, what: &str) -> Result<Vec<T>, MemoryError> {
    let mut v = Vec::new();
    try_reserve_exact(&mut v, len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// `v.try_reserve_exact(additional)` with the error of [`try_filled`].
pub fn try_reserve_exact<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<(), MemoryError> {
    v.try_reserve_exact(additional).map_err(|_| MemoryError::AllocationFailed {
        what: what.to_string(),
        need: (additional as u64).saturating_mul(std::mem::size_of::<T>() as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("123"), Some(123));
        assert_eq!(parse_size("512M"), Some(512_000_000));
        assert_eq!(parse_size("1.5GB"), Some(1_500_000_000));
        assert_eq!(parse_size("64MiB"), Some(64 << 20));
        assert_eq!(parse_size("2g"), Some(2_000_000_000));
        assert_eq!(parse_size(" 4 G "), Some(4_000_000_000));
        for bad in ["", "G", "12 parsecs", "-1G", "1e99"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn bytes_print_in_decimal_units() {
        assert_eq!(format_bytes(8_000_000_008), "8.0 GB");
        assert_eq!(format_bytes(64 << 20), "67.1 MB");
        assert_eq!(format_bytes(1), "1 kB");
    }

    #[test]
    fn meminfo_is_read_in_kilobytes() {
        let info = "MemTotal:       24000000 kB\nMemAvailable:   21000000 kB\n";
        assert_eq!(meminfo_field(info, "MemAvailable:"), Some(21_000_000 * 1024));
        assert_eq!(meminfo_field(info, "Nope:"), None);
    }

    #[test]
    fn peak_resident_size_covers_a_touched_allocation() {
        if !std::path::Path::new("/proc/self/status").exists() {
            assert_eq!(peak_resident_bytes(), None);
            return;
        }
        let before = peak_resident_bytes().expect("Linux reports VmHWM");
        assert!(before > 0);
        let block = try_filled(1u8, 64 << 20, "a test block").unwrap();
        let after = peak_resident_bytes().unwrap();
        assert!(after >= before, "the peak never decreases");
        assert!(after >= block.len() as u64, "{after} < 64 MiB just written");
    }

    #[test]
    fn load_needs_follow_the_arrays() {
        // 10^9 isolated vertices and one edge: the offsets dominate.
        let shape = GraphShape { n: 1_000_000_000, m: 1, weighted: true, coords: false };
        let text = LoadPlan { text: true, ..Default::default() };
        assert_eq!(load_need(&shape, &text), 8 * (1_000_000_000 + 1) + 12);
        // A binary file needs its arrays; working memory comes on top.
        let shape = GraphShape { n: 100, m: 1000, weighted: false, coords: true };
        let plan = LoadPlan { working: WorkingMemory { per_vertex: 8, per_edge: 0 }, ..Default::default() };
        assert_eq!(load_need(&shape, &plan), 808 + 4000 + 1600 + 800);
        // Symmetrizing needs two CSRs of twice the edges.
        let plan = LoadPlan { text: true, symmetrize: true, ..Default::default() };
        let sym = GraphShape { n: 100, m: 2000, weighted: false, coords: false };
        assert!(load_need(&shape, &plan) >= 2 * sym.csr_bytes());
        // Copying into huge pages holds the graph twice for a moment.
        let plan = LoadPlan { huge_pages: true, ..Default::default() };
        assert_eq!(load_need(&shape, &plan), 2 * shape.csr_bytes() + 1600);
    }

    #[test]
    fn allocation_failures_are_errors() {
        let e = try_filled(0u64, usize::MAX / 16, "the offsets").unwrap_err();
        assert!(matches!(e, MemoryError::AllocationFailed { .. }));
        assert!(e.to_string().starts_with("the offsets: allocating "), "{e}");
        assert_eq!(try_filled(7u8, 3, "x").unwrap(), vec![7, 7, 7]);
    }
}
