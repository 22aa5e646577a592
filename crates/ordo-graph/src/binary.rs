//! The `.ordo` binary graph format: a versioned, checksummed header followed by
//! the little-endian CSR arrays, written in one pass and loaded zero-copy
//! through `mmap`.
//!
//! # Layout (version 2)
//!
//! All integers are little-endian. The header is 64 bytes:
//!
//! | byte | size | field |
//! |-----:|-----:|-------|
//! | 0    | 8    | magic `b"ORDOGRF\0"` |
//! | 8    | 4    | format version, `u32` = 2 (1 is read too) |
//! | 12   | 4    | flags, `u32`: bit 0 weighted, bit 1 coordinates present, bit 2 coordinate system (0 planar, 1 lon/lat micro-degrees), bit 3 real weights (with bit 0; version 2 only); other bits must be 0 |
//! | 16   | 8    | `n`, number of vertices, `u64` (at most `u32::MAX`) |
//! | 24   | 8    | `m`, number of directed edges, `u64` |
//! | 32   | 8    | payload checksum: XXH3-64 of every byte after the header |
//! | 40   | 8    | header checksum: XXH3-64 of bytes 0..40 |
//! | 48   | 16   | reserved, must be 0 |
//!
//! Then the arrays, in this order, each starting at a multiple of 8 bytes and
//! zero-padded to a multiple of 8 bytes: `offsets` (`n + 1` × `u64`), `targets`
//! (`m` × `u32`), `weights` (`m` × `u32` if weighted with integers, `m` ×
//! `f64` with real weights), `x` then `y` (`n` × `f64` each, if coordinates
//! are present). The file ends exactly after the padding of the last array;
//! trailing bytes are an error.
//!
//! Version 1 is version 2 without bit 3: its files load unchanged, and an
//! integer-weighted graph is written as version 2 with the same bytes but
//! for the version field (and the header checksum).
//!
//! # What "validated on load" means
//!
//! [`load`] (and [`from_bytes`]) reject, with an error naming the file and the
//! byte offset of the offending field: an empty or short file, a wrong magic,
//! an unsupported version, unknown flags, non-zero reserved bytes, a header
//! checksum mismatch, a size that disagrees with the header (too short names
//! the array that is cut off; too long names the first trailing byte), a
//! payload checksum mismatch (any flipped bit anywhere in the arrays), and a
//! CSR that violates the [`Graph`] invariants: first offset not 0, offsets
//! decreasing, last offset not `m`, a target `>= n`, a non-finite coordinate.
//! The whole-payload checksum runs at several GB/s (XXH3) and the structural
//! checks on a second thread, so full validation keeps loading well above
//! 1 GB/s (`examples/load_speed.rs`: 5–7 GB/s for a 260 MB file in the page
//! cache on the 2-core development machine, the map populated up front with
//! `MADV_POPULATE_READ`); [`LoadCheck::Structure`] skips the checksum for callers
//! that have verified a file once and load it many times.
//!
//! The loaded arrays stay in the page cache: the [`Graph`] borrows them from the
//! shared map (see [`crate::storage::Buf`]). The file must not be modified
//! while a graph loaded from it is alive.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::csr::{CoordSystem, Coordinates, EdgeWeights, Graph};
use crate::error::{open_input, GraphError, Result};
use crate::memory::{self, GraphShape};
use crate::part::GraphPart;
use crate::storage::{Buf, Plain};

/// The 8 bytes every `.ordo` file starts with.
pub const MAGIC: [u8; 8] = *b"ORDOGRF\0";
/// The format version this code writes (it reads this one and version 1).
pub const VERSION: u32 = 2;
/// The oldest format version this code reads.
pub const OLDEST_VERSION: u32 = 1;
/// Size of the fixed header in bytes.
pub const HEADER_LEN: usize = 64;

const FLAG_WEIGHTED: u32 = 1;
const FLAG_COORDS: u32 = 1 << 1;
const FLAG_LONLAT: u32 = 1 << 2;
const FLAG_REAL: u32 = 1 << 3;
const KNOWN_FLAGS: u32 = FLAG_WEIGHTED | FLAG_COORDS | FLAG_LONLAT | FLAG_REAL;

/// Byte offsets of the header fields (see the module docs).
const AT_VERSION: usize = 8;
const AT_FLAGS: usize = 12;
const AT_N: usize = 16;
const AT_M: usize = 24;
const AT_PAYLOAD_SUM: usize = 32;
const AT_HEADER_SUM: usize = 40;
const AT_RESERVED: usize = 48;

/// Below this many edges the structural checks run on the calling thread only.
const PARALLEL_CHECK_MIN_BYTES: usize = 1 << 22;

/// How much of a file [`load_with`] verifies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadCheck {
    /// Header, sizes, payload checksum and CSR structure (the default).
    #[default]
    Full,
    /// Header, sizes and CSR structure, but not the payload checksum: a
    /// flipped bit in a weight or coordinate goes unnoticed, an invalid CSR
    /// is still rejected.
    Structure,
}

/// The header fields of a `.ordo` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u32,
    /// Whether a weight array is present.
    pub weighted: bool,
    /// Whether the weights are real (`f64`) rather than `u32`.
    pub real_weights: bool,
    /// The coordinate system, when coordinate arrays are present.
    pub coords: Option<CoordSystem>,
    /// Number of vertices.
    pub n: u64,
    /// Number of directed edges.
    pub m: u64,
    /// XXH3-64 of the payload (every byte after the header).
    pub payload_checksum: u64,
}

impl Header {
    /// Bytes of one weight.
    fn weight_width(&self) -> u64 {
        if self.real_weights {
            8
        } else {
            4
        }
    }
}

/// Where each array lives in the file (byte offsets), derived from a header.
#[derive(Clone, Copy, Debug)]
struct Layout {
    offsets: usize,
    targets: usize,
    weights: Option<usize>,
    x: Option<usize>,
    y: Option<usize>,
    end: usize,
}

fn pad8(bytes: u64) -> Option<u64> {
    bytes.checked_add(7).map(|b| b & !7)
}

impl Layout {
    /// The layout for `header`, or `None` if it does not fit in `usize`.
    fn of(header: &Header) -> Option<Layout> {
        let n = header.n;
        let m = header.m;
        let mut at = HEADER_LEN as u64;
        let mut take = |bytes: Option<u64>| -> Option<usize> {
            let start = at;
            at = at.checked_add(pad8(bytes?)?)?;
            usize::try_from(start).ok()
        };
        let offsets = take(n.checked_add(1)?.checked_mul(8))?;
        let targets = take(m.checked_mul(4))?;
        let weights = if header.weighted { Some(take(m.checked_mul(header.weight_width()))?) } else { None };
        let (x, y) = if header.coords.is_some() {
            (Some(take(n.checked_mul(8))?), Some(take(n.checked_mul(8))?))
        } else {
            (None, None)
        };
        let end = usize::try_from(at).ok()?;
        Some(Layout { offsets, targets, weights, x, y, end })
    }

    /// The arrays as `(name, start, length in bytes)`, in file order.
    fn arrays(&self, h: &Header) -> Vec<(&'static str, usize, u64)> {
        let mut v = vec![("offsets", self.offsets, (h.n + 1) * 8), ("targets", self.targets, h.m * 4)];
        if let Some(w) = self.weights {
            v.push(("weights", w, h.m * h.weight_width()));
        }
        if let (Some(x), Some(y)) = (self.x, self.y) {
            v.push(("x coordinates", x, h.n * 8));
            v.push(("y coordinates", y, h.n * 8));
        }
        v
    }
}

fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4-byte slice"))
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8-byte slice"))
}

/// Parses and checks the header and the file size; `bytes` is the whole file.
fn parse_header(path: &Path, bytes: &[u8]) -> Result<(Header, Layout)> {
    parse_header_of(path, &bytes[..bytes.len().min(HEADER_LEN)], bytes.len() as u64)
}

/// Parses and checks the header `head` (the first `min(file_len, 64)` bytes
/// of the file) against the file's length `file_len`.
fn parse_header_of(path: &Path, bytes: &[u8], file_len: u64) -> Result<(Header, Layout)> {
    if file_len == 0 {
        return Err(GraphError::binary(path, 0, "empty file: expected a 64-byte .ordo header"));
    }
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(GraphError::binary(path, 0, "not an .ordo file: wrong magic (expected \"ORDOGRF\\0\")"));
    }
    if file_len < HEADER_LEN as u64 {
        return Err(GraphError::binary(
            path,
            file_len,
            format!("file truncated inside the header: {file_len} of {HEADER_LEN} bytes"),
        ));
    }
    let version = read_u32(bytes, AT_VERSION);
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(GraphError::binary(
            path,
            AT_VERSION as u64,
            format!("unsupported format version {version} (this build reads versions {OLDEST_VERSION} to {VERSION})"),
        ));
    }
    let stored_header_sum = read_u64(bytes, AT_HEADER_SUM);
    let header_sum = xxh3_64(&bytes[..AT_HEADER_SUM]);
    if stored_header_sum != header_sum {
        return Err(GraphError::binary(
            path,
            AT_HEADER_SUM as u64,
            format!("header checksum mismatch (stored {stored_header_sum:#018x}, computed {header_sum:#018x}): the header is corrupted"),
        ));
    }
    let flags = read_u32(bytes, AT_FLAGS);
    let real_without_weights = flags & FLAG_REAL != 0 && (flags & FLAG_WEIGHTED == 0 || version < 2);
    if flags & !KNOWN_FLAGS != 0
        || (flags & FLAG_LONLAT != 0 && flags & FLAG_COORDS == 0)
        || real_without_weights
    {
        return Err(GraphError::binary(path, AT_FLAGS as u64, format!("unknown flags {flags:#x}")));
    }
    if let Some(i) = bytes[AT_RESERVED..HEADER_LEN].iter().position(|&b| b != 0) {
        return Err(GraphError::binary(path, (AT_RESERVED + i) as u64, "reserved header byte is not zero"));
    }
    let n = read_u64(bytes, AT_N);
    if n > u64::from(u32::MAX) {
        return Err(GraphError::binary(
            path,
            AT_N as u64,
            format!("{n} vertices exceed the u32 vertex id range"),
        ));
    }
    let m = read_u64(bytes, AT_M);
    let header = Header {
        version,
        weighted: flags & FLAG_WEIGHTED != 0,
        real_weights: flags & FLAG_REAL != 0,
        coords: (flags & FLAG_COORDS != 0).then_some(if flags & FLAG_LONLAT != 0 {
            CoordSystem::LonLatMicroDegrees
        } else {
            CoordSystem::Planar
        }),
        n,
        m,
        payload_checksum: read_u64(bytes, AT_PAYLOAD_SUM),
    };
    let layout = Layout::of(&header).ok_or_else(|| {
        GraphError::binary(path, AT_M as u64, format!("array sizes for n = {n}, m = {m} overflow"))
    })?;
    if file_len < layout.end as u64 {
        // Each array is padded to 8 bytes, so the file may end inside the
        // padding of an array whose data is complete: compare padded ends.
        // `Layout::of` summed these padded lengths without overflow.
        let (name, start, padded_len) = layout
            .arrays(&header)
            .into_iter()
            .map(|(name, start, len)| (name, start, len.next_multiple_of(8)))
            .find(|&(_, start, len)| (start as u64 + len) > file_len)
            .unwrap_or(("last", layout.end, 0));
        return Err(GraphError::binary(
            path,
            file_len,
            format!(
                "file truncated: it ends at byte {} but the {name} array (padded to 8 bytes) occupies \
                 bytes {start}..{} (header says n = {n}, m = {m}; expected {} bytes)",
                file_len,
                start as u64 + padded_len,
                layout.end
            ),
        ));
    }
    if file_len > layout.end as u64 {
        return Err(GraphError::binary(
            path,
            layout.end as u64,
            format!(
                "{} unexpected trailing bytes after the last array (header says n = {n}, m = {m}; \
                 expected {} bytes)",
                file_len - layout.end as u64,
                layout.end
            ),
        ));
    }
    Ok((header, layout))
}

/// The shape and the file length announced by the `.ordo` header at the
/// start of `prefix` (at least [`HEADER_LEN`] bytes with the magic; the
/// checksums are not verified). Used to check memory before mapping or
/// decoding a file, and to bound the inflation of a compressed one.
pub(crate) fn announced(prefix: &[u8]) -> Option<(GraphShape, u64)> {
    if prefix.len() < HEADER_LEN || !has_magic(prefix) {
        return None;
    }
    let flags = read_u32(prefix, AT_FLAGS);
    let header = Header {
        version: read_u32(prefix, AT_VERSION),
        weighted: flags & FLAG_WEIGHTED != 0,
        real_weights: flags & FLAG_REAL != 0,
        coords: (flags & FLAG_COORDS != 0).then_some(CoordSystem::Planar),
        n: read_u64(prefix, AT_N),
        m: read_u64(prefix, AT_M),
        payload_checksum: 0,
    };
    let layout = Layout::of(&header)?;
    let shape =
        GraphShape { n: header.n, m: header.m, weighted: header.weighted, coords: header.coords.is_some() };
    Some((shape, layout.end as u64))
}

/// Reads only the header of a `.ordo` file (cheap: no array is touched) and
/// checks it against the file's size.
pub fn read_header(path: &Path) -> Result<Header> {
    let (file, _) = open_input(path, "an .ordo graph file")?;
    read_header_of(path, &file).map(|(h, _)| h)
}

/// Reads and checks the first 64 bytes of `file` against its length.
fn read_header_of(path: &Path, file: &File) -> Result<(Header, Layout)> {
    let len = file.metadata().map_err(|e| GraphError::io(path, e))?.len();
    let mut head = vec![0u8; len.min(HEADER_LEN as u64) as usize];
    read_at(path, file, 0, &mut head)?;
    parse_header_of(path, &head, len)
}

/// Fills `buf` from byte `at` of `file`.
fn read_at(path: &Path, file: &File, at: u64, buf: &mut [u8]) -> Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, at).map_err(|e| {
        GraphError::binary(path, at, format!("cannot read {} bytes at byte {at}: {e}", buf.len()))
    })
}

/// How much of a file [`read_part`] verifies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PartCheck {
    /// The header, the file size, and the structure of the rows read
    /// (the default: only the part's own byte ranges are read).
    #[default]
    Rows,
    /// In addition, the payload checksum: the whole payload is streamed
    /// through XXH3 in 1 MiB blocks (read, not held), so every rank reads
    /// the whole file once.
    Full,
}

/// Reads the out-edges of the vertices `range` of a `.ordo` file, touching
/// only the header and the byte ranges of those rows (`offsets[lo..=hi]`,
/// then the matching slices of `targets` and `weights`); coordinates are
/// not read.
///
/// # What a partial read checks, and what it cannot
/// Checked (an error names the file and the byte offset): the header (magic,
/// version, flags, reserved bytes, header checksum), the file size against
/// the header, and the rows read: offsets non-decreasing and at most `m`,
/// the first offset 0 when the range starts at vertex 0, the last offset `m`
/// when it ends at `n`, every target `< n`. Not checked: the payload
/// checksum, which covers the whole payload and cannot be split (XXH3 is a
/// sequential hash), unless [`PartCheck::Full`] streams the whole file; so a
/// flipped bit in a weight, or in a target that stays `< n`, goes unnoticed
/// by a partial read. The parts of all ranks together check every offset
/// and target, so the CSR invariants of the whole graph hold when every
/// rank's read succeeds.
///
/// # Errors
/// As [`load`] for the header and size; a range beyond `n`; an I/O error.
pub fn read_part(path: &Path, range: std::ops::Range<u32>, check: PartCheck) -> Result<GraphPart> {
    let (file, _) = open_input(path, "an .ordo graph file")?;
    let (header, layout) = read_header_of(path, &file)?;
    let (n, m) = (header.n, header.m);
    if u64::from(range.end) > n || range.start > range.end {
        return Err(GraphError::file(
            path,
            format!("vertex range {}..{} is outside the graph's {n} vertices", range.start, range.end),
        ));
    }
    if check == PartCheck::Full {
        let mut hasher = Xxh3::new();
        let mut block = vec![0u8; 1 << 20];
        let mut at = HEADER_LEN as u64;
        while at < layout.end as u64 {
            let len = (layout.end as u64 - at).min(block.len() as u64) as usize;
            read_at(path, &file, at, &mut block[..len])?;
            hasher.update(&block[..len]);
            at += len as u64;
        }
        let sum = hasher.digest();
        if sum != header.payload_checksum {
            return Err(GraphError::binary(
                path,
                AT_PAYLOAD_SUM as u64,
                format!(
                    "payload checksum mismatch (stored {:#018x}, computed {sum:#018x}): the arrays \
                     after byte {HEADER_LEN} are corrupted",
                    header.payload_checksum
                ),
            ));
        }
    }
    let (lo, hi) = (range.start as u64, range.end as u64);
    let offsets_at = layout.offsets as u64 + 8 * lo;
    let mut raw = vec![0u8; 8 * (hi - lo + 1) as usize];
    read_at(path, &file, offsets_at, &mut raw)?;
    let offsets: Vec<u64> = decode(&raw, (hi - lo + 1) as usize, u64::from_le_bytes);
    drop(raw);
    let at_offset = |i: usize| offsets_at + 8 * i as u64;
    if lo == 0 && offsets[0] != 0 {
        return Err(GraphError::binary(
            path,
            at_offset(0),
            format!("first edge offset is {} instead of 0", offsets[0]),
        ));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(GraphError::binary(
            path,
            at_offset(i + 1),
            format!("edge offsets decrease at vertex {}: {} > {}", lo + i as u64, offsets[i], offsets[i + 1]),
        ));
    }
    let last = *offsets.last().expect("hi - lo + 1 >= 1 offsets");
    if last > m || (hi == n && last != m) {
        return Err(GraphError::binary(
            path,
            at_offset(offsets.len() - 1),
            format!("edge offset {last} of vertex {hi} is not a valid end (the graph has {m} edges)"),
        ));
    }
    let (elo, ehi) = (offsets[0], last);
    let edges = (ehi - elo) as usize;
    let mut raw = vec![0u8; 4 * edges];
    let targets_at = layout.targets as u64 + 4 * elo;
    read_at(path, &file, targets_at, &mut raw)?;
    let targets: Vec<u32> = decode(&raw, edges, u32::from_le_bytes);
    if let Some(i) = targets.iter().position(|&t| u64::from(t) >= n) {
        return Err(GraphError::binary(
            path,
            targets_at + 4 * i as u64,
            format!("edge {} targets vertex {} but there are only {n} vertices", elo + i as u64, targets[i]),
        ));
    }
    if header.real_weights {
        return Err(GraphError::file(path, "partial reads of a graph with real weights are not supported"));
    }
    let weights = match layout.weights {
        Some(at) => {
            read_at(path, &file, at as u64 + 4 * elo, &mut raw)?;
            Some(decode(&raw, edges, u32::from_le_bytes))
        }
        None => None,
    };
    Ok(GraphPart {
        num_vertices: n,
        num_edges_total: m,
        first: range.start,
        offsets: offsets.iter().map(|o| o - elo).collect(),
        targets,
        weights,
    })
}

/// The structural CSR checks, on slices already sized by the header.
/// `base_*` are the file offsets of the arrays, for error messages.
fn check_structure(
    path: &Path,
    offsets: &[u64],
    targets: &[u32],
    base_offsets: usize,
    base_targets: usize,
) -> Result<()> {
    let n = offsets.len() - 1;
    if offsets[0] != 0 {
        return Err(GraphError::binary(
            path,
            base_offsets as u64,
            format!("first edge offset is {} instead of 0", offsets[0]),
        ));
    }
    // Monotonicity, one flag per block so the loop vectorises; the failing
    // index is searched only when a block fails.
    for (b, block) in offsets.chunks(4096).enumerate() {
        let ok = block.windows(2).fold(true, |ok, w| ok & (w[0] <= w[1]));
        let boundary_ok = b == 0 || offsets[b * 4096 - 1] <= block[0];
        if !ok || !boundary_ok {
            let start = (b * 4096).saturating_sub(1);
            let v = start + offsets[start..].windows(2).position(|w| w[0] > w[1]).expect("a decrease");
            return Err(GraphError::binary(
                path,
                (base_offsets + 8 * (v + 1)) as u64,
                format!("edge offsets decrease at vertex {v}: {} > {}", offsets[v], offsets[v + 1]),
            ));
        }
    }
    if offsets[n] != targets.len() as u64 {
        return Err(GraphError::binary(
            path,
            (base_offsets + 8 * n) as u64,
            format!("last edge offset {} differs from the edge count {}", offsets[n], targets.len()),
        ));
    }
    let limit = n as u32;
    for (b, block) in targets.chunks(8192).enumerate() {
        let max = block.iter().fold(0u32, |a, &t| a.max(t));
        if n == 0 || max >= limit {
            let i = block.iter().position(|&t| n == 0 || t >= limit).expect("an out-of-range target");
            let e = b * 8192 + i;
            return Err(GraphError::binary(
                path,
                (base_targets + 4 * e) as u64,
                format!("edge {e} targets vertex {} but there are only {n} vertices", block[i]),
            ));
        }
    }
    Ok(())
}

fn check_coords(path: &Path, c: &[f64], base: usize, axis: &str) -> Result<()> {
    if let Some(i) = c.iter().position(|v| !v.is_finite()) {
        return Err(GraphError::binary(
            path,
            (base + 8 * i) as u64,
            format!("{axis} coordinate of vertex {i} is not finite ({})", c[i]),
        ));
    }
    Ok(())
}

/// Runs the payload checksum and the structural checks, on two threads when
/// the file is large.
///
/// `unmapped`, when given, is a byte range of the payload (the weights of a
/// load without them) and the file: its bytes are hashed from reads of the
/// file into a small block instead of through the map, so that they never
/// become resident in this process.
fn verify(
    path: &Path,
    bytes: &[u8],
    header: &Header,
    layout: &Layout,
    check: LoadCheck,
    (offsets, targets): (&[u64], &[u32]),
    unmapped: Option<(&File, std::ops::Range<usize>)>,
) -> Result<()> {
    let checksum = || -> Result<()> {
        if check == LoadCheck::Full {
            let sum = match &unmapped {
                None => xxh3_64(&bytes[HEADER_LEN..]),
                Some((file, skip)) => {
                    let mut hasher = Xxh3::new();
                    hasher.update(&bytes[HEADER_LEN..skip.start]);
                    let mut block = vec![0u8; 1 << 20];
                    let mut at = skip.start;
                    while at < skip.end {
                        let len = (skip.end - at).min(block.len());
                        read_at(path, file, at as u64, &mut block[..len])?;
                        hasher.update(&block[..len]);
                        at += len;
                    }
                    hasher.update(&bytes[skip.end..]);
                    hasher.digest()
                }
            };
            if sum != header.payload_checksum {
                return Err(GraphError::binary(
                    path,
                    AT_PAYLOAD_SUM as u64,
                    format!(
                        "payload checksum mismatch (stored {:#018x}, computed {sum:#018x}): the arrays \
                         after byte {HEADER_LEN} are corrupted",
                        header.payload_checksum
                    ),
                ));
            }
        }
        Ok(())
    };
    let structure = || check_structure(path, offsets, targets, layout.offsets, layout.targets);
    if bytes.len() >= PARALLEL_CHECK_MIN_BYTES && check == LoadCheck::Full {
        let (sum, structure) = std::thread::scope(|s| {
            let h = s.spawn(checksum);
            let st = structure();
            (h.join().expect("checksum thread panicked"), st)
        });
        // Report the checksum first: corruption explains a broken structure.
        sum?;
        structure
    } else {
        checksum()?;
        structure()
    }
}

/// Loads a `.ordo` file zero-copy through `mmap`, fully validated (see the
/// module docs for what that includes).
pub fn load(path: &Path) -> Result<Graph> {
    load_with(path, LoadCheck::Full)
}

/// Loads a `.ordo` file zero-copy through `mmap` with the chosen checks.
pub fn load_with(path: &Path, check: LoadCheck) -> Result<Graph> {
    load_mapped(path, check, Parts::ALL)
}

/// [`load`] without the edge weights, for applications that read none: the
/// weight array is neither faulted in nor kept (the payload checksum reads
/// it from the file, not through the map), so it never counts in the
/// process's resident memory. The other arrays and checks are as [`load`]'s.
pub fn load_without_weights(path: &Path) -> Result<Graph> {
    load_mapped(path, LoadCheck::Full, Parts { weights: false, coords: true })
}

/// The optional arrays of a `.ordo` file that a load keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// The edge weights, when the file has them.
    pub weights: bool,
    /// The vertex coordinates, when the file has them.
    pub coords: bool,
}

impl Parts {
    /// Every array the file has.
    pub const ALL: Parts = Parts { weights: true, coords: true };
}

/// [`load`] keeping only the optional arrays in `parts`: those left out are
/// neither faulted in nor kept (the payload checksum reads them from the
/// file, not through the map), so they never count in the process's
/// resident memory. The checks are [`load`]'s, except that coordinates left
/// out are not checked to be finite (the checksum still covers them).
pub fn load_parts(path: &Path, parts: Parts) -> Result<Graph> {
    load_mapped(path, LoadCheck::Full, parts)
}

/// [`load_with`], keeping only the optional arrays in `parts`.
fn load_mapped(path: &Path, check: LoadCheck, parts: Parts) -> Result<Graph> {
    let (file, len) = open_input(path, "an .ordo graph file")?;
    if len == 0 {
        return Err(GraphError::binary(path, 0, "empty file: expected a 64-byte .ordo header"));
    }
    // The map is populated up front: the whole file must fit in memory.
    memory::check(len, || format!("mapping the {} bytes of {}", len, path.display()))
        .map_err(|e| GraphError::binary(path, 0, e.to_string()))?;
    if cfg!(target_endian = "big") {
        let bytes = std::fs::read(path).map_err(|e| GraphError::io(path, e))?;
        let mut graph = from_bytes_checked(path, &bytes, check)?;
        if !parts.weights {
            graph.clear_weights();
        }
        if !parts.coords {
            graph.clear_coords();
        }
        return Ok(graph);
    }
    // The byte range of the arrays left out, read from the header alone,
    // before the map is populated. The optional arrays end the file in the
    // order weights, x, y, so what is left out is one range to the end.
    let skip = if parts == Parts::ALL {
        None
    } else {
        let (_, layout) = read_header_of(path, &file)?;
        let weights = layout.weights.filter(|_| !parts.weights).map(|w| w..layout.x.unwrap_or(layout.end));
        let coords = layout.x.filter(|_| !parts.coords).map(|x| x..layout.end);
        match (weights, coords) {
            (Some(w), Some(c)) => Some(w.start..c.end),
            (w, c) => w.or(c),
        }
    };
    // SAFETY: the map is read-only. Mapping a file is sound as long as the
    // file is not truncated or written to while mapped; the module docs state
    // that requirement, which no safe API can enforce for files.
    let map = unsafe { map_for_reading(&file, skip.clone()) }.map_err(|e| GraphError::io(path, e))?;
    let map = Arc::new(map);
    let (header, layout) = parse_header(path, &map)?;
    let n = header.n as usize;
    let m = header.m as usize;
    let misaligned = || GraphError::binary(path, 0, "array misaligned in memory map");
    let offsets = Buf::<u64>::mapped(Arc::clone(&map), layout.offsets, n + 1).ok_or_else(misaligned)?;
    let targets = Buf::<u32>::mapped(Arc::clone(&map), layout.targets, m).ok_or_else(misaligned)?;
    let unmapped = skip.map(|range| (&file, range));
    verify(path, &map, &header, &layout, check, (&offsets, &targets), unmapped)?;
    let weights = match layout.weights.filter(|_| parts.weights) {
        Some(at) if header.real_weights => {
            Some(EdgeWeights::Real(Buf::<f64>::mapped(Arc::clone(&map), at, m).ok_or_else(misaligned)?))
        }
        Some(at) => {
            Some(EdgeWeights::Int(Buf::<u32>::mapped(Arc::clone(&map), at, m).ok_or_else(misaligned)?))
        }
        None => None,
    };
    let coords = match (header.coords.filter(|_| parts.coords), layout.x, layout.y) {
        (Some(system), Some(xa), Some(ya)) => {
            let x = Buf::<f64>::mapped(Arc::clone(&map), xa, n).ok_or_else(misaligned)?;
            let y = Buf::<f64>::mapped(Arc::clone(&map), ya, n).ok_or_else(misaligned)?;
            check_coords(path, &x, xa, "x")?;
            check_coords(path, &y, ya, "y")?;
            Some(Coordinates { system, x, y })
        }
        _ => None,
    };
    Graph::from_parts_with(offsets, targets, weights, coords)
        .map_err(|e| GraphError::file(path, format!("invalid graph after validation: {e}")))
}

/// Maps `file` read-only and faults the whole map in, but for the byte range
/// `skip` (the arrays a load leaves out; the pages it shares with its
/// neighbours are faulted in with them). On Linux the map is first advised
/// for huge pages ([`crate::huge_pages::advise_before_reading`]: a file read
/// now, on its first load or after the page cache dropped it, comes in 2 MiB
/// folios and maps with huge pages without a copy); pages already cached
/// stay as they are.
///
/// # Safety
/// As for any file map: the file must not be truncated or written to while
/// mapped (see the module docs).
unsafe fn map_for_reading(file: &File, skip: Option<std::ops::Range<usize>>) -> io::Result<memmap2::Mmap> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the caller's contract.
        let map = unsafe { memmap2::MmapOptions::new().map(file) }?;
        crate::huge_pages::advise_before_reading(&map);
        let skip = skip.unwrap_or(map.len()..map.len());
        let (lo, hi) = (skip.start.min(map.len()), skip.end.min(map.len()));
        for (at, len) in [(0, lo), (hi, map.len() - hi)] {
            if len == 0 {
                continue;
            }
            // A kernel before Linux 5.14 refuses this hint; then the
            // validation faults the pages in as it reads them.
            if map.advise_range(memmap2::Advice::PopulateRead, at, len).is_err() {
                let _ = map.advise_range(memmap2::Advice::WillNeed, at, len);
            }
        }
        Ok(map)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = skip;
        // SAFETY: the caller's contract.
        unsafe { memmap2::MmapOptions::new().populate().map(file) }
    }
}

/// Decodes a `.ordo` image held in memory (copying the arrays), fully
/// validated. `name` is used in error messages. This is the entry point of
/// the fuzz target and works on any host endianness.
pub fn from_bytes(name: &Path, bytes: &[u8]) -> Result<Graph> {
    from_bytes_checked(name, bytes, LoadCheck::Full)
}

fn decode<T: Plain, const N: usize>(bytes: &[u8], len: usize, f: fn([u8; N]) -> T) -> Vec<T> {
    bytes[..len * N].chunks_exact(N).map(|c| f(c.try_into().expect("N-byte chunk"))).collect()
}

fn from_bytes_checked(path: &Path, bytes: &[u8], check: LoadCheck) -> Result<Graph> {
    let (header, layout) = parse_header(path, bytes)?;
    let n = header.n as usize;
    let m = header.m as usize;
    let offsets = decode(&bytes[layout.offsets..], n + 1, u64::from_le_bytes);
    let targets = decode(&bytes[layout.targets..], m, u32::from_le_bytes);
    verify(path, bytes, &header, &layout, check, (&offsets, &targets), None)?;
    let weights = layout.weights.map(|at| {
        if header.real_weights {
            EdgeWeights::Real(decode(&bytes[at..], m, f64::from_le_bytes).into())
        } else {
            EdgeWeights::Int(decode(&bytes[at..], m, u32::from_le_bytes).into())
        }
    });
    let coords = match (header.coords, layout.x, layout.y) {
        (Some(system), Some(xa), Some(ya)) => {
            let x = decode(&bytes[xa..], n, f64::from_le_bytes);
            let y = decode(&bytes[ya..], n, f64::from_le_bytes);
            check_coords(path, &x, xa, "x")?;
            check_coords(path, &y, ya, "y")?;
            Some(Coordinates::new(system, x, y))
        }
        _ => None,
    };
    Graph::from_parts_with(offsets.into(), targets.into(), weights, coords)
        .map_err(|e| GraphError::file(path, format!("invalid graph after validation: {e}")))
}

/// Little-endian bytes of an array: a view on little-endian hosts, a copy on
/// big-endian ones.
fn le_bytes<T: Plain, const N: usize>(a: &[T], to_le: fn(T) -> [u8; N]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        // SAFETY: `T: Plain` has no padding, so its `size_of_val(a)` bytes
        // are initialised; `u8` has alignment 1; the view borrows `a`.
        std::borrow::Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), std::mem::size_of_val(a))
        })
    } else {
        std::borrow::Cow::Owned(a.iter().flat_map(|&v| to_le(v)).collect())
    }
}

/// The payload arrays of `g` as little-endian byte slices, in file order.
fn payload(g: &Graph) -> Vec<std::borrow::Cow<'_, [u8]>> {
    let mut parts = vec![le_bytes(g.offsets(), u64::to_le_bytes), le_bytes(g.targets(), u32::to_le_bytes)];
    if let Some(w) = g.weights() {
        parts.push(le_bytes(w, u32::to_le_bytes));
    }
    if let Some(w) = g.real_weights() {
        parts.push(le_bytes(w, f64::to_le_bytes));
    }
    if let Some(c) = g.coords() {
        parts.push(le_bytes(&c.x, f64::to_le_bytes));
        parts.push(le_bytes(&c.y, f64::to_le_bytes));
    }
    parts
}

const ZEROS: [u8; 8] = [0; 8];

fn padding(len: usize) -> &'static [u8] {
    &ZEROS[..(8 - len % 8) % 8]
}

/// The header bytes for `g` with the given payload checksum.
fn header_bytes(g: &Graph, payload_checksum: u64) -> [u8; HEADER_LEN] {
    let mut flags = 0;
    if g.is_weighted() {
        flags |= FLAG_WEIGHTED;
    }
    if g.has_real_weights() {
        flags |= FLAG_REAL;
    }
    if let Some(c) = g.coords() {
        flags |= FLAG_COORDS;
        if c.system == CoordSystem::LonLatMicroDegrees {
            flags |= FLAG_LONLAT;
        }
    }
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[AT_VERSION..AT_VERSION + 4].copy_from_slice(&VERSION.to_le_bytes());
    h[AT_FLAGS..AT_FLAGS + 4].copy_from_slice(&flags.to_le_bytes());
    h[AT_N..AT_N + 8].copy_from_slice(&(g.num_vertices() as u64).to_le_bytes());
    h[AT_M..AT_M + 8].copy_from_slice(&(g.num_edges() as u64).to_le_bytes());
    h[AT_PAYLOAD_SUM..AT_PAYLOAD_SUM + 8].copy_from_slice(&payload_checksum.to_le_bytes());
    let header_sum = xxh3_64(&h[..AT_HEADER_SUM]);
    h[AT_HEADER_SUM..AT_HEADER_SUM + 8].copy_from_slice(&header_sum.to_le_bytes());
    h
}

/// Writes `g` in the `.ordo` format to any writer (two passes over the
/// arrays in memory: one to checksum, one to write).
pub fn write_to<W: Write>(g: &Graph, mut out: W) -> io::Result<()> {
    let parts = payload(g);
    let mut hasher = Xxh3::new();
    for p in &parts {
        hasher.update(p);
        hasher.update(padding(p.len()));
    }
    out.write_all(&header_bytes(g, hasher.digest()))?;
    for p in &parts {
        out.write_all(p)?;
        out.write_all(padding(p.len()))?;
    }
    out.flush()
}

/// Writes `g` to `path` in the `.ordo` format, atomically: readers of the
/// old file (which may have it mapped) keep the old content, and a failed
/// write leaves the old file in place (see [`crate::output`]).
pub fn write(g: &Graph, path: &Path) -> Result<()> {
    crate::output::write_atomically(path, |out| write_to(g, out))
}

/// The `.ordo` image of `g` as bytes.
pub fn to_bytes(g: &Graph) -> Vec<u8> {
    let mut v = Vec::new();
    write_to(g, &mut v).expect("writing to a Vec cannot fail");
    v
}

/// Recomputes both checksums of an `.ordo` image in place, so that tests and
/// the fuzz target can craft files whose other fields are wrong on purpose.
/// Does nothing to an image shorter than the header.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN {
        return;
    }
    let payload = xxh3_64(&bytes[HEADER_LEN..]);
    bytes[AT_PAYLOAD_SUM..AT_PAYLOAD_SUM + 8].copy_from_slice(&payload.to_le_bytes());
    let header = xxh3_64(&bytes[..AT_HEADER_SUM]);
    bytes[AT_HEADER_SUM..AT_HEADER_SUM + 8].copy_from_slice(&header.to_le_bytes());
}

/// Whether `bytes` (the start of a file) begins with the `.ordo` magic.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Graph {
        let offsets = vec![0u64, 2, 3, 3];
        let targets = vec![1u32, 2, 0];
        let coords = Coordinates::new(CoordSystem::Planar, vec![0.0, 1.5, -2.0], vec![3.0, 4.0, 5.0]);
        Graph::from_parts(offsets.into(), targets.into(), Some(vec![5u32, 6, 7].into()), Some(coords))
            .unwrap()
    }

    #[test]
    fn layout_is_aligned_and_sized() {
        let bytes = to_bytes(&sample());
        // header 64 + offsets 32 + targets 12->16 + weights 16 + x 24 + y 24
        assert_eq!(bytes.len(), 64 + 32 + 16 + 16 + 24 + 24);
        assert_eq!(&bytes[..8], b"ORDOGRF\0");
        assert_eq!(read_u64(&bytes, AT_N), 3);
        assert_eq!(read_u64(&bytes, AT_M), 3);
        assert_eq!(read_u32(&bytes, AT_FLAGS), FLAG_WEIGHTED | FLAG_COORDS);
        assert_eq!(read_u64(&bytes, 64 + 8), 2); // offsets[1]
        assert_eq!(read_u32(&bytes, 64 + 32 + 8), 0); // targets[2]
    }

    #[test]
    fn bytes_round_trip() {
        let g = sample();
        assert_eq!(from_bytes(Path::new("mem"), &to_bytes(&g)).unwrap(), g);
    }

    #[test]
    fn structure_errors_name_the_byte() {
        let g = Graph::from_parts(vec![0u64, 1, 2].into(), vec![1u32, 0].into(), None, None).unwrap();
        let mut b = to_bytes(&g);
        // targets start at 64 + 24 = 88; make edge 1 point to vertex 9.
        b[92..96].copy_from_slice(&9u32.to_le_bytes());
        let e = from_bytes_checked(Path::new("g.ordo"), &b, LoadCheck::Structure).unwrap_err().to_string();
        assert!(e.contains("g.ordo: byte 92:") && e.contains("targets vertex 9"), "{e}");
        let e = from_bytes(Path::new("g.ordo"), &b).unwrap_err().to_string();
        assert!(e.contains("payload checksum mismatch"), "{e}");
    }

    #[test]
    fn reseal_recomputes_what_the_writer_wrote() {
        let good = to_bytes(&sample());
        let mut b = good.clone();
        b[32..48].fill(0xAB);
        reseal(&mut b);
        assert_eq!(b, good);
        let mut short = vec![1u8; 10];
        reseal(&mut short);
        assert_eq!(short, vec![1u8; 10]);
    }

    #[test]
    fn read_part_reads_the_rows_and_checks_them() {
        use crate::part::{BlockPartition, GraphPart};
        let g: Graph = "road:n=500,seed=2".parse::<crate::gen::GenSpec>().unwrap().generate().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.ordo");
        write(&g, &path).unwrap();
        for parts in [1, 2, 3, 7] {
            let p = BlockPartition::new(500, parts);
            for r in 0..parts {
                for check in [PartCheck::Rows, PartCheck::Full] {
                    let got = read_part(&path, p.range(r), check).unwrap();
                    assert_eq!(got, GraphPart::from_graph(&g, p.range(r)));
                }
            }
        }
        let e = read_part(&path, 400..501, PartCheck::Rows).unwrap_err().to_string();
        assert!(e.contains("outside the graph's 500 vertices"), "{e}");

        // A target out of range in the second half: only the part that
        // reads it fails, naming the byte; a flipped weight passes a
        // partial read and fails the full check.
        let mut bytes = to_bytes(&g);
        let targets_at = HEADER_LEN + 8 * 501;
        let e_last = g.num_edges() - 1;
        bytes[targets_at + 4 * e_last..targets_at + 4 * e_last + 4].copy_from_slice(&9999u32.to_le_bytes());
        reseal(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_part(&path, 0..250, PartCheck::Rows).is_ok());
        let e = read_part(&path, 250..500, PartCheck::Rows).unwrap_err().to_string();
        assert!(
            e.contains(&format!("byte {}", targets_at + 4 * e_last)) && e.contains("targets vertex 9999"),
            "{e}"
        );

        let mut bytes = to_bytes(&g);
        let weights_at = targets_at + (4 * g.num_edges()).next_multiple_of(8);
        bytes[weights_at] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_part(&path, 0..500, PartCheck::Rows).is_ok());
        let e = read_part(&path, 0..10, PartCheck::Full).unwrap_err().to_string();
        assert!(e.contains("payload checksum mismatch"), "{e}");

        // Header and size problems are found by every part.
        let bytes = to_bytes(&g);
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        let e = read_part(&path, 0..1, PartCheck::Rows).unwrap_err().to_string();
        assert!(e.contains("file truncated"), "{e}");
        std::fs::write(&path, b"hello").unwrap();
        let e = read_part(&path, 0..1, PartCheck::Rows).unwrap_err().to_string();
        assert!(e.contains("wrong magic"), "{e}");
    }
}
