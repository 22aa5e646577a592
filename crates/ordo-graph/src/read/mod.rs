//! Text readers, one module per file format, all built on the byte scanner in
//! [`scan`]. Each reader turns the bytes of a whole file into an
//! [`EdgeList`](crate::EdgeList) (or coordinates), validating as it goes;
//! [`crate::load()`] picks the reader, attaches weights and builds the CSR.

pub(crate) mod coords;
pub(crate) mod dimacs;
pub(crate) mod edgelist;
pub(crate) mod metis;
pub(crate) mod mtx;
pub(crate) mod scan;

use std::path::Path;

use crate::error::{GraphError, Result};

/// What a reader needs to know besides the bytes.
#[derive(Clone, Copy)]
pub(crate) struct ReadOptions<'a> {
    /// Store the file's weights. When false they will be replaced, so
    /// weight fields are only checked to be numbers.
    pub(crate) keep_weights: bool,
    /// Edge lists: map arbitrary ids to dense ids in first-seen order.
    pub(crate) remap_ids: bool,
    /// Edge lists: whether ids start at 1 (`None`: detect).
    pub(crate) one_based: Option<bool>,
    /// `(bytes done, bytes total)` callback.
    pub(crate) progress: Option<&'a (dyn Fn(u64, u64) + Send + Sync)>,
    /// Called now and then with the number of leading bytes parsed, which
    /// the caller may drop from memory (they are only re-read, slowly, to
    /// compute a line number for an error).
    pub(crate) release: Option<&'a (dyn Fn(usize) + Sync)>,
}

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        ReadOptions { keep_weights: true, remap_ids: false, one_based: None, progress: None, release: None }
    }
}

/// Largest vertex count a header may announce. Fuzzing builds use a small
/// cap so that a one-line file announcing four billion isolated vertices does
/// not exhaust the fuzzer's memory; real runs accept the full `u32` id range.
#[cfg(fuzzing)]
pub(crate) const MAX_VERTICES: u64 = 1 << 20;
/// Largest vertex count a header may announce (the `u32` id range).
#[cfg(not(fuzzing))]
pub(crate) const MAX_VERTICES: u64 = u32::MAX as u64;

/// Checks a vertex count announced by a header (or implied by the largest
/// id) against [`MAX_VERTICES`]; `line` locates the error (computed only
/// when there is one: counting lines re-reads the file).
pub(crate) fn check_vertex_count(path: &Path, line: impl FnOnce() -> u64, n: u64) -> Result<usize> {
    if n > MAX_VERTICES {
        return Err(GraphError::parse(
            path,
            line(),
            format!("{n} vertices exceed the supported maximum {MAX_VERTICES}"),
        ));
    }
    // A header may announce far more (isolated) vertices than memory holds;
    // say so instead of dying in the allocator. Checked only for counts
    // whose offset array alone is large.
    if n > 1 << 26 {
        if let Some(available) = available_memory_bytes() {
            let needed = (n + 1).saturating_mul(8);
            if needed > available {
                return Err(GraphError::parse(
                    path,
                    line(),
                    format!(
                        "{n} vertices need {:.1} GB for the offsets alone, more than the {:.1} GB of memory available",
                        needed as f64 / 1e9,
                        available as f64 / 1e9
                    ),
                ));
            }
        }
    }
    Ok(n as usize)
}

/// `MemAvailable` of `/proc/meminfo` in bytes (Linux), `None` elsewhere.
fn available_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb = info.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|k| k * 1024)
}

/// Capacity to reserve for `announced` items of a file of `file_len` bytes:
/// the announcement, but never more than the file could hold (each item takes
/// at least `min_bytes` bytes), so that a lying header cannot make us
/// allocate gigabytes.
pub(crate) fn reserve_for(announced: u64, file_len: usize, min_bytes: usize) -> usize {
    announced.min((file_len / min_bytes.max(1) + 1) as u64) as usize
}
