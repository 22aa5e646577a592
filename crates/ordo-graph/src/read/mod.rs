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
use crate::memory::{self, GraphShape, LoadPlan};

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
    /// What the load does besides parsing, for the memory check.
    pub(crate) plan: ReadPlan,
}

/// The memory-relevant facts of a load that a reader cannot see.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ReadPlan {
    /// Inflated input, symmetrization, new weights, working memory.
    pub(crate) load: LoadPlan,
    /// Whether a coordinate file will be attached.
    pub(crate) coords: bool,
}

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        ReadOptions {
            keep_weights: true,
            remap_ids: false,
            one_based: None,
            progress: None,
            release: None,
            plan: ReadPlan::default(),
        }
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

/// Checks the sizes a header announces (or that a headerless file implies):
/// `n` against [`MAX_VERTICES`], then the memory of loading a graph of `n`
/// vertices and `m` directed edges (weighted or not) against the budget,
/// with what the load does besides ([`ReadOptions::plan`], see
/// [`crate::memory::load_need`]). `line` locates the error (computed only
/// when there is one: counting lines re-reads the file).
pub(crate) fn check_counts(
    path: &Path,
    line: impl Fn() -> u64,
    n: u64,
    m: u64,
    weighted: bool,
    opts: &ReadOptions<'_>,
) -> Result<usize> {
    if n > MAX_VERTICES {
        return Err(GraphError::parse(
            path,
            line(),
            format!("{n} vertices exceed the supported maximum {MAX_VERTICES}"),
        ));
    }
    let shape = GraphShape { n, m, weighted, coords: opts.plan.coords };
    let need = memory::load_need(&shape, &opts.plan.load);
    memory::check(need, || memory::load_phrase(n, m, &opts.plan.load))
        .map_err(|e| GraphError::parse(path, line(), e.to_string()))?;
    Ok(n as usize)
}

/// Capacity to reserve for `announced` items of a file of `file_len` bytes:
/// the announcement, but never more than the file could hold (each item takes
/// at least `min_bytes` bytes), so that a lying header cannot make us
/// allocate gigabytes.
pub(crate) fn reserve_for(announced: u64, file_len: usize, min_bytes: usize) -> usize {
    announced.min((file_len / min_bytes.max(1) + 1) as u64) as usize
}
