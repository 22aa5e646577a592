//! The one entry point for reading a graph file of any supported format:
//! format detection, transparent gzip, coordinate side files, weights for
//! unweighted inputs, symmetrization.
//!
//! Format detection ([`detect_format`]) looks at the content first (gzip and
//! `.ordo` magic bytes, the Matrix Market banner, DIMACS `c`/`p sp` lines, a
//! SNAP `# Nodes:` comment), then at the extension (after stripping `.gz`),
//! and finally tells METIS from a plain edge list by checking whether the
//! first line `n m ...` is followed by exactly `n` vertex lines.
//!
//! Text files are read whole into memory (mapped when uncompressed) and
//! parsed byte by byte; the parsed edge list is turned into CSR after the
//! file has been released, so peak memory is the edge list plus the CSR.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::csr::{Coordinates, EdgeList, Graph, Weight};
use crate::error::{GraphError, Result};
use crate::read::{self, edgelist::Flavor, ReadOptions};

/// A graph file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// DIMACS shortest-path `.gr` (`p sp n m`, `a u v w`), 1-based, with an
    /// optional `.co` coordinate file.
    DimacsGr,
    /// SNAP edge list: `#` comments, two ids per line, 0-based by default.
    Snap,
    /// Plain edge list `u v [w]`, blank or comma separated, `#`/`%`
    /// comments, base detected (see [`LoadOptions::one_based`]).
    EdgeList,
    /// Matrix Market coordinate matrix (`.mtx`).
    MatrixMarket,
    /// METIS / DIMACS-10 adjacency file (`.graph`), with an optional `.xyz`
    /// coordinate file.
    Metis,
    /// ordo's binary CSR format (`.ordo`), see [`crate::binary`].
    Binary,
}

impl Format {
    /// Every format, in a fixed order (for help texts).
    pub const ALL: [Format; 6] = [
        Format::DimacsGr,
        Format::Snap,
        Format::EdgeList,
        Format::MatrixMarket,
        Format::Metis,
        Format::Binary,
    ];

    /// The short name used on the command line (`gr`, `snap`, `edges`,
    /// `mtx`, `metis`, `ordo`).
    pub fn name(self) -> &'static str {
        match self {
            Format::DimacsGr => "gr",
            Format::Snap => "snap",
            Format::EdgeList => "edges",
            Format::MatrixMarket => "mtx",
            Format::Metis => "metis",
            Format::Binary => "ordo",
        }
    }

    /// The format conventionally stored under file extension `ext` (without
    /// the dot, case-insensitive); `None` when the extension says nothing.
    pub fn from_extension(ext: &str) -> Option<Format> {
        Some(match ext.to_ascii_lowercase().as_str() {
            "gr" | "dimacs" => Format::DimacsGr,
            "mtx" | "mm" => Format::MatrixMarket,
            "graph" | "metis" => Format::Metis,
            "ordo" => Format::Binary,
            "snap" => Format::Snap,
            "el" | "edges" | "edgelist" | "wel" | "csv" | "tsv" => Format::EdgeList,
            _ => return None,
        })
    }

    /// The format a file name's extension suggests (ignoring a final `.gz`).
    pub fn from_path(path: &Path) -> Option<Format> {
        let stem = strip_gz(path);
        stem.extension().and_then(|e| e.to_str()).and_then(Format::from_extension)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    /// Accepts the short names of [`Format::name`] and the extensions of
    /// [`Format::from_extension`], plus `dimacs`, `edgelist`, `binary`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "edgelist" | "edge-list" => Ok(Format::EdgeList),
            "binary" => Ok(Format::Binary),
            "matrixmarket" | "matrix-market" => Ok(Format::MatrixMarket),
            other => Format::from_extension(other).ok_or_else(|| {
                format!("unknown graph format '{s}' (expected one of: gr, snap, edges, mtx, metis, ordo)")
            }),
        }
    }
}

/// How to weight the edges of a loaded graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WeightSpec {
    /// Keep the file's weights; an unweighted file gives an unweighted graph.
    #[default]
    Keep,
    /// Every edge weighs 1 (replaces existing weights).
    Unit,
    /// Seeded uniform random weights in `lo..=hi` (replaces existing
    /// weights), the same for both directions of an edge; see
    /// [`crate::weights::uniform_pair_weight`].
    Uniform {
        /// Smallest weight.
        lo: Weight,
        /// Largest weight (inclusive).
        hi: Weight,
        /// Random seed.
        seed: u64,
    },
    /// `max(1, round(length))` of the edge from the vertex coordinates
    /// (Euclidean for planar coordinates, great-circle metres for DIMACS
    /// longitude/latitude); replaces existing weights.
    Euclidean,
    /// Like [`WeightSpec::Euclidean`] but `max(1, ceil(length))`, the
    /// convention of the DIMACS-10 road graphs' checked facts.
    EuclideanCeil,
}

impl FromStr for WeightSpec {
    type Err = String;

    /// Parses `keep`, `unit`, `uniform:LO..HI[:seed=S]` (seed 1 by default),
    /// `euclid` (or `euclidean`) and `euclid-ceil`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || {
            format!(
                "bad weight spec '{s}' (expected keep, unit, uniform:LO..HI[:seed=S], euclid, euclid-ceil)"
            )
        };
        match s {
            "keep" => return Ok(WeightSpec::Keep),
            "unit" => return Ok(WeightSpec::Unit),
            "euclid" | "euclidean" => return Ok(WeightSpec::Euclidean),
            "euclid-ceil" | "euclidean-ceil" => return Ok(WeightSpec::EuclideanCeil),
            _ => {}
        }
        let rest = s.strip_prefix("uniform:").ok_or_else(bad)?;
        let mut parts = rest.split(':');
        let range = parts.next().ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let hi = hi.strip_prefix('=').unwrap_or(hi);
        let lo: Weight = lo.parse().map_err(|_| bad())?;
        let hi: Weight = hi.parse().map_err(|_| bad())?;
        if lo > hi {
            return Err(format!("bad weight spec '{s}': {lo} > {hi}"));
        }
        let mut seed = 1u64;
        for p in parts {
            let v = p.strip_prefix("seed=").ok_or_else(bad)?;
            seed = v.parse().map_err(|_| bad())?;
        }
        Ok(WeightSpec::Uniform { lo, hi, seed })
    }
}

impl fmt::Display for WeightSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightSpec::Keep => f.write_str("keep"),
            WeightSpec::Unit => f.write_str("unit"),
            WeightSpec::Uniform { lo, hi, seed } => write!(f, "uniform:{lo}..{hi}:seed={seed}"),
            WeightSpec::Euclidean => f.write_str("euclid"),
            WeightSpec::EuclideanCeil => f.write_str("euclid-ceil"),
        }
    }
}

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

/// Pages of a mapped file are released in multiples of this (a multiple of
/// every page size in use).
const RELEASE_GRANULE: usize = 1 << 21;

/// The first two bytes of every gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Loads the graph in `path` (gzip-compressed or not), see [`LoadOptions`].
///
/// Uncompressed files are memory-mapped while they are parsed: the file
/// must not be truncated or rewritten meanwhile.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Graph> {
    let content = FileBytes::open(path)?;
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
    let mut graph = if opts.symmetrize { symmetrize_graph(graph)? } else { graph };
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
    let mut graph = if opts.symmetrize { symmetrize_edges(el)? } else { el.into_graph()? };
    crate::weights::apply(&mut graph, &opts.weights)?;
    Ok(graph)
}

/// Reads a coordinate file for a graph of `n` vertices: DIMACS `.co` when
/// its first significant line starts with `c` or `p`, `.xyz` otherwise.
pub fn load_coords(path: &Path, n: usize) -> Result<Coordinates> {
    let content = FileBytes::open(path)?;
    parse_coords(path, content.bytes(), n)
}

/// Parses the content of a coordinate file for a graph of `n` vertices (see
/// [`load_coords`]); `name` is used in error messages.
pub fn parse_coords(name: &Path, bytes: &[u8], n: usize) -> Result<Coordinates> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if matches!(first, Some(b'c' | b'p' | b'v')) {
        read::coords::read_dimacs_co(name, bytes, n)
    } else {
        read::coords::read_xyz(name, bytes, n)
    }
}

/// The coordinate file that conventionally accompanies a graph file:
/// `X.co` for a DIMACS `X.gr`, `X.xyz` for a METIS `X.graph` (also found
/// gzip-compressed as `X.co.gz` / `X.xyz.gz`), if it exists.
pub fn sibling_coords(path: &Path, format: Format) -> Option<PathBuf> {
    let ext = match format {
        Format::DimacsGr => "co",
        Format::Metis => "xyz",
        _ => return None,
    };
    let base = strip_gz(path).with_extension(ext);
    let gz = PathBuf::from(format!("{}.gz", base.display()));
    [base, gz].into_iter().find(|p| p.is_file())
}

/// `path` without a final `.gz`.
fn strip_gz(path: &Path) -> PathBuf {
    match path.extension() {
        Some(e) if e.eq_ignore_ascii_case("gz") => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

/// Guesses the format of a file from its (decompressed) content and name.
/// See the module docs for the order of the rules.
pub fn detect_format(name: &Path, bytes: &[u8]) -> Format {
    if crate::binary::has_magic(bytes) {
        return Format::Binary;
    }
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    let first_line = first_line_at(bytes, start);
    if first_line.len() >= 14 && first_line[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Format::MatrixMarket;
    }
    let word = first_line.split(|&b| read::scan::is_blank(b)).next().unwrap_or(&[]);
    if word == b"c" || word == b"p" {
        return Format::DimacsGr;
    }
    if let Some(f) = Format::from_path(name) {
        return f;
    }
    if first_line.starts_with(b"#") && snap_signature(bytes, start) {
        return Format::Snap;
    }
    if looks_like_metis(bytes) {
        return Format::Metis;
    }
    Format::EdgeList
}

/// The line starting at byte `start` (without its newline).
fn first_line_at(bytes: &[u8], start: usize) -> &[u8] {
    let rest = &bytes[start..];
    &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())]
}

/// Whether the leading `#` comment block contains SNAP's `Nodes:` count.
fn snap_signature(bytes: &[u8], start: usize) -> bool {
    let mut pos = start;
    while bytes.get(pos) == Some(&b'#') {
        let line = first_line_at(bytes, pos);
        if memchr::memmem::find(line, b"Nodes:").is_some() {
            return true;
        }
        pos += line.len() + 1;
    }
    false
}

/// Whether the file's first non-comment line is a METIS header `n m [fmt
/// [ncon]]` followed by exactly `n` lines that are not `%` comments.
fn looks_like_metis(bytes: &[u8]) -> bool {
    let mut pos = 0;
    // Skip leading `%` comment lines.
    while pos < bytes.len() {
        let line = first_line_at(bytes, pos);
        if !line.starts_with(b"%") {
            break;
        }
        pos += line.len() + 1;
    }
    if pos >= bytes.len() {
        return false;
    }
    let header = first_line_at(bytes, pos);
    let fields: Vec<&[u8]> = header.split(|&b| read::scan::is_blank(b)).filter(|f| !f.is_empty()).collect();
    if !(2..=4).contains(&fields.len()) || !fields.iter().all(|f| f.iter().all(u8::is_ascii_digit)) {
        return false;
    }
    let Ok(n) = std::str::from_utf8(fields[0]).unwrap_or("x").parse::<u64>() else { return false };
    let body = &bytes[(pos + header.len() + 1).min(bytes.len())..];
    let mut lines = memchr::memchr_iter(b'\n', body).count() as u64;
    if !body.is_empty() && !body.ends_with(b"\n") {
        lines += 1;
    }
    let comments = memchr::memmem::find_iter(body, b"\n%").count() as u64 + body.starts_with(b"%") as u64;
    lines.saturating_sub(comments) == n
}

/// Adds the reverse of every non-loop edge, builds the CSR, then sorts each
/// adjacency list and drops parallel edges, keeping the least weight
/// ([`crate::transform::dedup_edges`]). Reversing at the edge-list level
/// builds the CSR once instead of twice.
fn symmetrize_edges(mut el: EdgeList) -> Result<Graph> {
    let m = el.len();
    let loops = el.src.iter().zip(&el.dst).filter(|(u, v)| u == v).count();
    el.src.reserve_exact(m - loops);
    el.dst.reserve_exact(m - loops);
    if let Some(w) = &mut el.weights {
        w.reserve_exact(m - loops);
    }
    for i in 0..m {
        let (u, v) = (el.src[i], el.dst[i]);
        if u != v {
            let w = el.weights.as_ref().map_or(0, |w| w[i]);
            el.push(v, u, w);
        }
    }
    Ok(crate::transform::dedup_edges(&el.into_graph()?))
}

/// Symmetrizes a built graph (see [`LoadOptions::symmetrize`]).
fn symmetrize_graph(graph: Graph) -> Result<Graph> {
    Ok(crate::transform::dedup_edges(&crate::transform::symmetrize(&graph)))
}

/// The bytes of a file: mapped when uncompressed, decompressed into memory
/// when gzip-compressed (detected by the magic bytes `1f 8b`).
enum FileBytes<'a> {
    Mapped(memmap2::Mmap),
    Owned { bytes: Vec<u8>, compressed: bool },
    Borrowed(&'a [u8]),
}

impl FileBytes<'static> {
    fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| GraphError::io(path, e))?;
        let len = file.metadata().map_err(|e| GraphError::io(path, e))?.len();
        if len == 0 {
            return Err(GraphError::file(path, "empty file"));
        }
        // SAFETY: the map is read-only and lives only while the file is
        // parsed. Mapping is sound as long as no other process truncates or
        // rewrites the file meanwhile; like every mmap-based reader we
        // document that requirement (see `LoadOptions`) rather than copy.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| GraphError::io(path, e))?;
        let _ = map.advise(memmap2::Advice::Sequential);
        if map.starts_with(&GZIP_MAGIC) {
            let bytes = gunzip(path, &map)?;
            if bytes.is_empty() {
                return Err(GraphError::file(path, "empty file (after decompression)"));
            }
            return Ok(FileBytes::Owned { bytes, compressed: true });
        }
        Ok(FileBytes::Mapped(map))
    }
}

impl FileBytes<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned { bytes, .. } => bytes,
            FileBytes::Borrowed(b) => b,
        }
    }

    /// Drops the pages of a mapped file below byte `parsed` from memory, so
    /// that the resident size while parsing is the edge list plus a window
    /// of the file rather than the whole file. No effect on other contents.
    fn release_before(&self, parsed: usize) {
        if let FileBytes::Mapped(map) = self {
            let end = parsed.min(map.len()) & !(RELEASE_GRANULE - 1);
            if end > 0 {
                // SAFETY: the map is a read-only shared mapping of a file.
                // MADV_DONTNEED only drops its clean pages; a later access
                // (e.g. counting lines for an error message) faults them
                // back in from the file with the same content. Borrowed
                // slices stay valid: the mapping itself is untouched.
                let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end) };
            }
        }
    }

    fn was_compressed(&self) -> bool {
        matches!(self, FileBytes::Owned { compressed: true, .. })
    }
}

/// Decompresses a (possibly multi-member) gzip stream; a corrupt or
/// truncated stream is an error naming the compressed byte offset reached.
fn gunzip(path: &Path, compressed: &[u8]) -> Result<Vec<u8>> {
    let mut counted = CountingReader { inner: compressed, consumed: 0 };
    let mut out = Vec::with_capacity(compressed.len().saturating_mul(4).min(1 << 32));
    let mut decoder = flate2::read::MultiGzDecoder::new(&mut counted);
    match decoder.read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(e) => {
            drop(decoder);
            Err(GraphError::binary(path, counted.consumed, format!("corrupt or truncated gzip data: {e}")))
        }
    }
}

/// A reader that counts the bytes handed out (to locate gzip errors).
struct CountingReader<'a> {
    inner: &'a [u8],
    consumed: u64,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.consumed += k as u64;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_formats_by_content_then_name() {
        let p = Path::new("x.txt");
        assert_eq!(
            detect_format(p, b"%%MatrixMarket matrix coordinate pattern general\n"),
            Format::MatrixMarket
        );
        assert_eq!(detect_format(p, b"c hello\np sp 1 0\n"), Format::DimacsGr);
        assert_eq!(detect_format(p, b"p sp 1 0\n"), Format::DimacsGr);
        assert_eq!(detect_format(p, b"# Nodes: 3 Edges: 1\n0\t1\n"), Format::Snap);
        assert_eq!(detect_format(p, b"# hello\n1 2\n"), Format::EdgeList);
        assert_eq!(detect_format(p, b"% metis\n3 2\n2\n1 3\n2\n"), Format::Metis);
        assert_eq!(detect_format(p, b"3 2\n2\n1 3\n"), Format::EdgeList);
        assert_eq!(detect_format(Path::new("x.graph.gz"), b"1 2\n"), Format::Metis);
        assert_eq!(detect_format(Path::new("x.mtx"), b"1 2\n"), Format::MatrixMarket);
        let mut bin = crate::binary::MAGIC.to_vec();
        bin.extend_from_slice(&[0; 8]);
        assert_eq!(detect_format(p, &bin), Format::Binary);
    }

    #[test]
    fn parses_weight_specs() {
        assert_eq!("keep".parse(), Ok(WeightSpec::Keep));
        assert_eq!("unit".parse(), Ok(WeightSpec::Unit));
        assert_eq!("euclid".parse(), Ok(WeightSpec::Euclidean));
        assert_eq!("euclid-ceil".parse(), Ok(WeightSpec::EuclideanCeil));
        assert_eq!("uniform:1..100000".parse(), Ok(WeightSpec::Uniform { lo: 1, hi: 100000, seed: 1 }));
        assert_eq!("uniform:1..=9:seed=42".parse(), Ok(WeightSpec::Uniform { lo: 1, hi: 9, seed: 42 }));
        for bad in ["uniform:9..1", "uniform:1-2", "uniform:1..2:s=1", "heavy"] {
            assert!(bad.parse::<WeightSpec>().is_err(), "{bad}");
        }
        for spec in
            [WeightSpec::Keep, WeightSpec::Uniform { lo: 3, hi: 4, seed: 5 }, WeightSpec::EuclideanCeil]
        {
            assert_eq!(spec.to_string().parse(), Ok(spec));
        }
        for f in Format::ALL {
            assert_eq!(f.name().parse(), Ok(f));
        }
    }

    #[test]
    fn symmetrize_adds_reverse_and_drops_parallel_edges() {
        let mut el = EdgeList::new(3, true);
        for (u, v, w) in [(0, 1, 5), (1, 0, 3), (1, 2, 7), (2, 2, 1)] {
            el.push(u, v, w);
        }
        let g = symmetrize_edges(el).unwrap();
        assert_eq!(
            g.edges().collect::<Vec<_>>(),
            vec![(0, 1, 3), (1, 0, 3), (1, 2, 7), (2, 1, 7), (2, 2, 1)]
        );
    }

    #[test]
    fn gzip_errors_name_an_offset() {
        let e = gunzip(Path::new("x.gz"), &[0x1f, 0x8b, 8, 0, 0]).unwrap_err().to_string();
        assert!(e.starts_with("x.gz: byte "), "{e}");
    }
}
