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
mod inflate;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use self::coords::{load_coords, parse_coords, sibling_coords};
pub use self::format::{detect_format, Format};
pub use crate::weights::WeightSpec;

use self::content::{FileBytes, GZIP_MAGIC};
use self::inflate::{inflate, Expect};
use crate::csr::Graph;
use crate::error::{GraphError, Result};
use crate::memory::{self, LoadPlan, WorkingMemory};
use crate::read::{self, edgelist::Flavor, ReadOptions, ReadPlan};
use crate::transform::{dedup_edges_owned, symmetrize, symmetrize_edge_list};

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
    /// Leave the coordinates out, for applications that read none: a
    /// `.ordo` file's are neither faulted in nor kept, no coordinate file is
    /// read, a graph held in memory loses its own. Wins over `coords`,
    /// except that a weight rule that reads coordinates (`euclid`) still
    /// has them, and they are dropped once it has run.
    pub drop_coords: bool,
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
    /// Drop self loops and parallel edges (keeping the least weight), after
    /// symmetrizing and weighting: the simple graph that GAPBS's and Wasp's
    /// builders make of every input. Adjacency lists end up sorted.
    pub simplify: bool,
    /// Copy the finished graph's offsets, targets and weights into
    /// transparent huge pages (see [`crate::huge_pages`]): fewer TLB misses
    /// on graphs read at random places, for a copy instead of the zero-copy
    /// load of the binary format.
    pub huge_pages: bool,
    /// Called with `(bytes done, bytes total)` while parsing.
    pub progress: Option<Progress>,
    /// Memory the caller will need per vertex and edge once the graph is
    /// loaded. The load estimates its own peak from the header's sizes and
    /// refuses, before allocating, when the peak or the graph plus this
    /// working memory exceeds the budget (see [`crate::memory`]).
    pub working_memory: WorkingMemory,
}

impl fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("format", &self.format)
            .field("weights", &self.weights)
            .field("coords", &self.coords)
            .field("drop_coords", &self.drop_coords)
            .field("remap_ids", &self.remap_ids)
            .field("one_based", &self.one_based)
            .field("symmetrize", &self.symmetrize)
            .field("simplify", &self.simplify)
            .field("huge_pages", &self.huge_pages)
            .field("progress", &self.progress.is_some())
            .field("working_memory", &self.working_memory)
            .finish()
    }
}

/// Loads the graph in `path` (gzip-compressed or not), see [`LoadOptions`].
///
/// Uncompressed files are memory-mapped while they are parsed: the file
/// must not be truncated or rewritten meanwhile.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Graph> {
    let content = FileBytes::open(path, "a graph file", Expect::Graph(opts.format))?;
    let bytes = content.bytes();
    let format = match opts.format {
        Some(f) => f,
        None => detect_format(path, bytes),
    };
    if format == Format::Binary && !content.was_compressed() {
        // Zero-copy: let the binary loader map the file itself, once the
        // header's sizes are known to fit.
        check_binary(path, bytes, 0, opts)?;
        drop(content);
        let parts =
            crate::binary::Parts { weights: opts.weights != WeightSpec::Drop, coords: opts.reads_coords() };
        let graph = crate::binary::load_parts(path, parts)?;
        return finish_binary(path, graph, opts);
    }
    let coords_path = match &opts.coords {
        _ if !opts.reads_coords() => None,
        Some(p) => Some(p.clone()),
        None => sibling_coords(path, format),
    };
    content.read_sequentially();
    parse_and_build(path, content, format, coords_path.as_deref(), opts)
}

/// Loads a graph from bytes already in memory (`name` is used in error
/// messages). Gzip-compressed bytes are decompressed. Coordinates are read
/// only from an explicit [`LoadOptions::coords`]; no sibling is looked for.
/// This is the entry point of the fuzz targets.
pub fn load_bytes(name: &Path, bytes: &[u8], format: Format, opts: &LoadOptions) -> Result<Graph> {
    let content = if bytes.starts_with(&GZIP_MAGIC) {
        FileBytes::Owned { bytes: inflate(name, bytes, Expect::Graph(Some(format)))?, compressed: true }
    } else {
        FileBytes::Borrowed(bytes)
    };
    let coords = opts.coords.as_deref().filter(|_| opts.reads_coords());
    parse_and_build(name, content, format, coords, opts)
}

impl LoadOptions {
    /// Applies the options that change a graph to one held in memory (from
    /// a generator or from arrays), in the order of a load: symmetrize
    /// (parallel edges merged, the least weight kept), weights, simplify,
    /// then the copy into huge pages; the coordinates are dropped after the
    /// weights when `drop_coords`. Format, a coordinate file, id remapping
    /// and progress concern reading a file and are not looked at.
    pub fn apply(&self, graph: Graph) -> Result<Graph> {
        let mut graph = if self.symmetrize { dedup_edges_owned(symmetrize(&graph)) } else { graph };
        crate::weights::apply(&mut graph, &self.weights)?;
        self.finish(graph)
    }

    /// The name reports give a graph held with these options: `base` (the
    /// file path or generator spec) followed by the options that change the
    /// graph or how it is held, e.g. `FLA.gr [weights=uniform:1..100000:seed=1,
    /// symmetrized]`; `base` alone when none is set.
    pub fn describe(&self, base: &str) -> String {
        let mut changes = Vec::new();
        if self.weights != WeightSpec::Keep {
            changes.push(format!("weights={}", self.weights));
        }
        let flags = [
            (self.symmetrize, "symmetrized"),
            (self.simplify, "simplified"),
            (self.remap_ids, "remapped"),
            (self.huge_pages, "huge pages"),
        ];
        changes.extend(flags.iter().filter(|(set, _)| *set).map(|(_, change)| change.to_string()));
        if changes.is_empty() {
            base.to_string()
        } else {
            format!("{base} [{}]", changes.join(", "))
        }
    }

    /// Whether the load reads the input's coordinates: unless they are
    /// dropped, or when the weight rule needs them.
    fn reads_coords(&self) -> bool {
        !self.drop_coords || self.weights.reads_coords()
    }

    /// What these options ask of memory, for [`memory::load_need`]: the
    /// steps that copy the graph and the caller's working memory (the
    /// input's residency and text-ness are the loader's to fill in).
    pub fn memory_plan(&self) -> LoadPlan {
        LoadPlan {
            symmetrize: self.symmetrize,
            simplify: self.simplify,
            huge_pages: self.huge_pages,
            reweight: !matches!(self.weights, WeightSpec::Keep | WeightSpec::Drop),
            drop_weights: self.weights == WeightSpec::Drop,
            working: self.working_memory,
            ..LoadPlan::default()
        }
    }

    /// The last steps of every load, after the weights: the coordinates
    /// dropped when `drop_coords`, the graph without self loops and parallel edges when `simplify` (weights that depend on
    /// the edge's two ends, as all [`WeightSpec`]s do, are the same whether
    /// or not the graph is simplified), then copied into huge pages when
    /// `huge_pages`.
    fn finish(&self, mut graph: Graph) -> Result<Graph> {
        if self.drop_coords {
            graph.clear_coords();
        }
        let graph = if self.simplify { crate::transform::simplify_owned(graph) } else { graph };
        if !self.huge_pages {
            return Ok(graph);
        }
        graph.into_huge_pages().map_err(GraphError::HugePages)
    }
}

/// [`LoadOptions::apply`] to a graph read from the binary format.
fn finish_binary(path: &Path, graph: Graph, opts: &LoadOptions) -> Result<Graph> {
    opts.apply(graph).map_err(|e| in_file(path, e))
}

/// [`LoadOptions::finish`] to a graph parsed from the text file `path`.
fn finish(path: &Path, graph: Graph, opts: &LoadOptions) -> Result<Graph> {
    opts.finish(graph).map_err(|e| in_file(path, e))
}

/// `e`, naming the file `path` when `e` is about no file.
fn in_file(path: &Path, e: GraphError) -> GraphError {
    match e {
        GraphError::HugePages(_) => GraphError::file(path, e.to_string()),
        e => e,
    }
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
    let resident_input = if content.is_mapped() { 0 } else { content.bytes().len() as u64 };
    let ropts = ReadOptions {
        keep_weights: opts.weights.reads_existing(),
        remap_ids: opts.remap_ids,
        one_based: opts.one_based,
        progress: opts.progress.as_deref(),
        release: Some(&release),
        plan: ReadPlan {
            load: LoadPlan { resident_input, text: true, ..opts.memory_plan() },
            coords: coords_path.is_some(),
        },
    };
    let bytes = content.bytes();
    let mut el = match format {
        Format::DimacsGr => read::dimacs::read(path, bytes, &ropts)?,
        Format::Snap => read::edgelist::read(path, bytes, Flavor::Snap, &ropts)?,
        Format::EdgeList => read::edgelist::read(path, bytes, Flavor::Plain, &ropts)?,
        Format::MatrixMarket => read::mtx::read(path, bytes, &ropts)?,
        Format::Metis => read::metis::read(path, bytes, &ropts)?,
        Format::Binary => {
            check_binary(path, bytes, resident_input, opts)?;
            let graph = crate::binary::from_bytes(path, bytes)?;
            drop(content);
            return finish_binary(path, graph, opts);
        }
    };
    drop(content);
    if let Some(cp) = coords_path {
        el.coords = Some(load_coords(cp, el.num_vertices)?);
    }
    let mut graph = if opts.symmetrize { symmetrize_edge_list(el)? } else { el.into_graph()? };
    crate::weights::apply(&mut graph, &opts.weights)?;
    finish(path, graph, opts)
}

/// Checks the memory of loading the `.ordo` image whose header starts
/// `bytes` (a malformed header is left to the loader to report).
fn check_binary(path: &Path, bytes: &[u8], resident_input: u64, opts: &LoadOptions) -> Result<()> {
    let Some((shape, len)) = crate::binary::announced(bytes) else { return Ok(()) };
    if len != bytes.len() as u64 {
        return Ok(()); // truncated or too long: the loader says so
    }
    let plan = LoadPlan { resident_input, ..opts.memory_plan() };
    let need = memory::load_need(&shape, &plan).saturating_add(resident_input);
    memory::check(need, || memory::load_phrase(shape.n, shape.m, &plan))
        .map_err(|e| GraphError::binary(path, 16, e.to_string()))
}
