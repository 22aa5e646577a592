//! The one entry point for reading a graph file of any supported format.
//!
//! One submodule per concern: `format` (the [`Format`] enum and
//! [`detect_format`]), `content` (the file's bytes: memory-mapped, or
//! inflated from gzip), `coords` (coordinate side files). Weights for
//! unweighted inputs live in [`crate::weights`], symmetrization in
//! [`crate::transform`].
//!
//! Text files are read whole into memory (mapped when uncompressed) and
//! parsed byte by byte; the parsed edge list is turned into CSR after the
//! file has been released, so peak memory is the edge list plus the CSR.

mod content;
mod coords;
mod format;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use self::coords::{load_coords, parse_coords, sibling_coords};
pub use self::format::{detect_format, Format};
pub use crate::weights::WeightSpec;

use self::content::{gunzip, FileBytes, GZIP_MAGIC};
use crate::csr::Graph;
use crate::error::Result;
use crate::read::{self, edgelist::Flavor, ReadOptions};
use crate::transform::{dedup_edges, symmetrize, symmetrize_edge_list};

/// A progress callback: `(bytes done, bytes total)`.
pub type Progress = Arc<dyn Fn(u64, u64) + Send + Sync>;

/// Options of [`load`].
#[derive(Clone, Default)]
pub struct LoadOptions {
    /// The file format; `None` detects it (see [`detect_format`]).
    pub format: Option<Format>,
    /// How to weight the edges (default: keep the file's).
    pub weights: WeightSpec,
    /// Coordinate file (`.co` or `.xyz`, told apart by content). Default: the
    /// sibling `.co` of a DIMACS graph or `.xyz` of a METIS graph, if present.
    pub coords: Option<PathBuf>,
    /// Edge lists: map arbitrary ids to dense `0..n` in first-seen order.
    pub remap_ids: bool,
    /// Edge lists: whether ids start at 1. `None` detects: SNAP files, and
    /// plain edge lists with a SNAP `# Nodes: N` comment (as ordo writes
    /// them), are 0-based; any other plain edge list is 1-based exactly when
    /// its smallest id is 1. DIMACS, METIS and Matrix Market are 1-based by
    /// definition.
    pub one_based: Option<bool>,
    /// Add the reverse of every edge, then drop parallel edges (keeping the
    /// least weight); self loops stay once. Adjacency lists end up sorted.
    pub symmetrize: bool,
    /// Called with `(bytes done, bytes total)` while parsing.
    pub progress: Option<Progress>,
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("format", &self.format)
            .field("weights", &self.weights)
            .field("coords", &self.coords)
            .field("remap_ids", &self.remap_ids)
            .field("one_based", &self.one_based)
            .field("symmetrize", &self.symmetrize)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// Loads the graph in `path` (gzip-compressed or not), see [`LoadOptions`].
///
/// Uncompressed files are memory-mapped while they are parsed: the file
/// must not be truncated or rewritten meanwhile.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Graph> {
    let content = FileBytes::open(path, "a graph file")?;
    let bytes = content.bytes();
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path, bytes),
    };
    if format == Format::Binary && !content.was_compressed() {
        // Zero-copy: let the binary loader map the file itself.
        drop(content);
        return finish_binary(crate::binary::load(path)?, opts);
    }
    let coords_path = match &opts.coords {
        Some(p) => Some(p.clone()),
        None => sibling_coords(path, format),
    };
    parse_and_build(path, content, format, coords_path.as_deref(), opts)
}

/// Loads a graph from bytes already in memory (`name` is used in error
/// messages). Gzip-compressed bytes are decompressed. Coordinates are read
/// only from an explicit [`LoadOptions::coords`]; no sibling is looked for.
/// This is the entry point of the fuzz targets.
pub fn load_bytes(name: &Path, bytes: &[u8], format: Format, opts: &LoadOptions) -> Result<Graph> {
    let content = if bytes.starts_with(&GZIP_MAGIC) {
        FileBytes::Owned { bytes: gunzip(name, bytes)?, compressed: true }
    } else {
        FileBytes::Borrowed(bytes)
    };
    parse_and_build(name, content, format, opts.coords.as_deref(), opts)
}

/// Applies weights and symmetrization to a graph read from the binary format.
fn finish_binary(graph: Graph, opts: &LoadOptions) -> Result<Graph> {
    let mut graph = if opts.symmetrize { dedup_edges(&symmetrize(&graph)) } else { graph };
    crate::weights::apply(&mut graph, &opts.weights)?;
    Ok(graph)
}

/// Parses a text format, releases the bytes, then builds and weights the CSR.
fn parse_and_build(
    path: &Path,
    content: FileBytes<'_>,
    format: Format,
    coords_path: Option<&Path>,
    opts: &LoadOptions,
) -> Result<Graph> {
    let release = |parsed: usize| content.release_before(parsed);
    let ropts = ReadOptions {
        keep_weights: opts.weights == WeightSpec::Keep,
        remap_ids: opts.remap_ids,
        one_based: opts.one_based,
        progress: opts.progress.as_deref(),
        release: Some(&release),
    };
    let bytes = content.bytes();
    let mut el = match format {
        Format::DimacsGr => read::dimacs::read(path, bytes, &ropts)?,
        Format::Snap => read::edgelist::read(path, bytes, Flavor::Snap, &ropts)?,
        Format::EdgeList => read::edgelist::read(path, bytes, Flavor::Plain, &ropts)?,
        Format::MatrixMarket => read::mtx::read(path, bytes, &ropts)?,
        Format::Metis => read::metis::read(path, bytes, &ropts)?,
        Format::Binary => {
            let graph = crate::binary::from_bytes(path, bytes)?;
            drop(content);
            return finish_binary(graph, opts);
        }
    };
    drop(content);
    if let Some(cp) = coords_path {
        el.coords = Some(load_coords(cp, el.num_vertices)?);
    }
    let mut graph = if opts.symmetrize { symmetrize_edge_list(el)? } else { el.into_graph()? };
    crate::weights::apply(&mut graph, &opts.weights)?;
    Ok(graph)
}
