//! Inflating a gzip-compressed input with bounds, so that a small
//! compressed file cannot balloon into gigabytes before the first error.
//!
//! The stream is inflated in 1 MiB steps into one buffer (the readers parse
//! whole files). Three checks run as it grows:
//!
//! 1. **What the header justifies.** Once the start of the data holds the
//!    format's header, it bounds the rest: a DIMACS `p sp n m` line allows
//!    `m` arc lines, a Matrix Market size line `nnz` entry lines, a METIS
//!    header `n` vertex lines and `2m` neighbour entries, a coordinate file
//!    one line per vertex, each line at most a generous number of bytes
//!    ([`BYTES_PER_LINE`], …) plus [`SLACK`] for comments; a `.ordo` header
//!    gives the exact length. Inflating beyond the bound is an error naming
//!    the header. Edge lists have no header and get no such bound.
//! 2. **The memory budget** ([`crate::memory::budget`]): the inflated bytes
//!    must fit in it.
//! 3. **Binary garbage in text.** A NUL byte in a line that is not a comment
//!    is an error in every text format, and the readers report it at the
//!    first such line; inflation stops at the step that holds it, so a
//!    stream of zeros fails after one step instead of after gigabytes. (NUL
//!    bytes inside comment lines are legal and do not stop inflation.)

use std::io::Read;
use std::path::Path;

use super::format::{strip_gz, Format};
use crate::error::{GraphError, Result};
use crate::memory::{self, format_bytes};
use crate::read;

/// Bytes inflated per step.
const STEP: usize = 1 << 20;

/// Bytes of the start of the data searched for a header; a header not
/// found by then gives no bound.
const HEADER_WINDOW: usize = 1 << 20;

/// Bytes allowed per announced edge line (DIMACS arcs: `a` and three `u32`
/// fields take at most 35 bytes; Matrix Market entries get twice this for a
/// real or complex value).
const BYTES_PER_LINE: u64 = 64;

/// Bytes allowed per METIS neighbour entry (id and weight with blanks).
const BYTES_PER_ENTRY: u64 = 24;

/// Bytes allowed for comments and blank lines beyond what the header
/// announces.
const SLACK: u64 = 16 << 20;

/// What the compressed file should contain, for the bound of check 1.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Expect {
    /// A graph, in the given format or one to detect.
    Graph(Option<Format>),
    /// A coordinate file (`.co` or `.xyz`) for this many vertices.
    Coords(usize),
}

/// Inflates the (possibly multi-member) gzip stream `compressed` of `path`
/// with the checks of the module docs; a corrupt or truncated stream is an
/// error naming the compressed byte offset reached.
pub(crate) fn inflate(path: &Path, compressed: &[u8], expect: Expect) -> Result<Vec<u8>> {
    let budget = memory::budget()?;
    let mut counted = CountingReader { inner: compressed, consumed: 0 };
    let mut decoder = flate2::read::MultiGzDecoder::new(&mut counted);
    let mut out: Vec<u8> = Vec::new();
    let mut bound: Option<Bound> = None;
    let mut header_settled = false;
    let mut guard = NulGuard::default();
    let within_budget = |size: usize| budget.as_ref().is_none_or(|b| size as u64 <= b.bytes);
    if let Some(size) = announced_size(compressed).filter(|&size| within_budget(size)) {
        // Reserved, not touched: costs no resident memory if the trailer
        // lied, and the checks below still bound what is written.
        let _ = out.try_reserve_exact(size.saturating_add(1));
    }
    loop {
        if out.capacity() == out.len() {
            let grow = STEP.max(out.len() / 2);
            memory::try_reserve_exact(&mut out, grow, "inflating the file")
                .map_err(|e| GraphError::file(path, e.to_string()))?;
        }
        let len = out.len();
        out.resize(len + STEP.min(out.capacity() - len), 0);
        let got = match decoder.read(&mut out[len..]) {
            Ok(k) => k,
            Err(e) => {
                drop(decoder);
                return Err(GraphError::binary(
                    path,
                    counted.consumed,
                    format!("corrupt or truncated gzip data: {e}"),
                ));
            }
        };
        out.truncate(len + got);
        if got == 0 {
            break;
        }
        if !header_settled {
            match header_bound(path, expect, &out) {
                Some(b) => {
                    bound = b;
                    header_settled = true;
                }
                None if out.len() >= HEADER_WINDOW => header_settled = true,
                None => {}
            }
        }
        if let Some(b) = &bound {
            if out.len() as u64 > b.bytes {
                return Err(GraphError::file(
                    path,
                    format!(
                        "inflates to more than {}, more than its header ({}) can justify: corrupt, or a \
                         decompression bomb",
                        format_bytes(b.bytes),
                        b.header
                    ),
                ));
            }
        }
        if let Some(b) = &budget {
            if out.len() as u64 > b.bytes {
                return Err(GraphError::file(
                    path,
                    format!(
                        "inflates to more than the {b} (decompressed so far: {})",
                        format_bytes(out.len() as u64)
                    ),
                ));
            }
        }
        if !is_binary(expect, &out) && guard.finds_nul_in_data(&out) {
            // The reader fails at or before that line: no need for more.
            break;
        }
    }
    out.shrink_to_fit();
    Ok(out)
}

/// The inflated size the gzip trailer announces (ISIZE, the last four bytes:
/// the size of the last member modulo 2^32), when plausible: at most what
/// deflate can expand the compressed bytes to (1032 to 1). Exact for the
/// usual single-member file under 4 GiB, so the buffer is allocated once
/// instead of grown (a grown buffer is copied, and the copy and the old
/// buffer are both resident for a moment); only a hint otherwise.
fn announced_size(compressed: &[u8]) -> Option<usize> {
    let tail: [u8; 4] = compressed.get(compressed.len().checked_sub(4)?..)?.try_into().ok()?;
    let size = u32::from_le_bytes(tail) as usize;
    (size <= compressed.len().saturating_mul(1032)).then_some(size)
}

/// A bound on the inflated size, and the header it comes from.
#[derive(Clone, Debug)]
struct Bound {
    bytes: u64,
    header: String,
}

/// Whether the data is a `.ordo` image (where NUL bytes are normal).
fn is_binary(expect: Expect, data: &[u8]) -> bool {
    matches!(expect, Expect::Graph(Some(Format::Binary))) || crate::binary::has_magic(data)
}

/// The bound that the header at the start of `data` justifies: `None` while
/// more data is needed to tell, `Some(None)` when there is no bound.
fn header_bound(path: &Path, expect: Expect, data: &[u8]) -> Option<Option<Bound>> {
    let format = match expect {
        Expect::Coords(n) => {
            let bytes = (n as u64).saturating_mul(2 * BYTES_PER_LINE).saturating_add(SLACK);
            return Some(Some(Bound { bytes, header: format!("coordinates of {n} vertices") }));
        }
        Expect::Graph(Some(f)) => f,
        Expect::Graph(None) => {
            if data.len() < crate::binary::MAGIC.len() && crate::binary::MAGIC.starts_with(data) {
                return None;
            }
            if crate::binary::has_magic(data) {
                Format::Binary
            } else {
                let first = first_significant_line(data, b"")?;
                if first.starts_with(b"%%MatrixMarket") {
                    Format::MatrixMarket
                } else if matches!(first_word(first), b"c" | b"p") {
                    Format::DimacsGr
                } else {
                    match Format::from_path(&strip_gz(path)) {
                        Some(f) => f,
                        None => return Some(None),
                    }
                }
            }
        }
    };
    let plus = |at: usize, lines: u64, per_line: u64, header: String| {
        let bytes = (at as u64).saturating_add(lines.saturating_mul(per_line)).saturating_add(SLACK);
        Some(Some(Bound { bytes, header }))
    };
    match format {
        Format::Binary => {
            if data.len() < crate::binary::HEADER_LEN {
                return None;
            }
            Some(crate::binary::announced(data).map(|(shape, len)| Bound {
                bytes: len,
                header: format!(".ordo header: n = {}, m = {}", shape.n, shape.m),
            }))
        }
        Format::DimacsGr => {
            let line = first_significant_line(data, b"c")?;
            let end = line_end(data, line);
            let words = words(line);
            match words.as_slice() {
                [b"p", b"sp", n, m] => match (number(n), number(m)) {
                    (Some(n), Some(m)) => plus(end, m, BYTES_PER_LINE, format!("p sp {n} {m}")),
                    _ => Some(None),
                },
                _ => Some(None),
            }
        }
        Format::MatrixMarket => {
            let line = first_significant_line(data, b"%")?;
            let end = line_end(data, line);
            match words(line).as_slice() {
                [rows, cols, nnz] => match (number(rows), number(cols), number(nnz)) {
                    (Some(r), Some(c), Some(nnz)) => {
                        plus(end, nnz, 2 * BYTES_PER_LINE, format!("{r} {c} {nnz}"))
                    }
                    _ => Some(None),
                },
                _ => Some(None),
            }
        }
        Format::Metis => {
            let line = first_significant_line(data, b"%")?;
            let end = line_end(data, line);
            let w = words(line);
            if !(2..=4).contains(&w.len()) {
                return Some(None);
            }
            let ncon = if w.len() == 4 { number(w[3]) } else { Some(1) };
            let (Some(n), Some(m), Some(ncon)) = (number(w[0]), number(w[1]), ncon) else {
                return Some(None);
            };
            let per_vertex = BYTES_PER_LINE.saturating_add(ncon.saturating_mul(BYTES_PER_ENTRY));
            let entries = m.saturating_mul(2).saturating_mul(BYTES_PER_ENTRY);
            let bytes = (end as u64)
                .saturating_add(n.saturating_mul(per_vertex))
                .saturating_add(entries)
                .saturating_add(SLACK);
            Some(Some(Bound { bytes, header: format!("METIS header n = {n}, m = {m}") }))
        }
        Format::Snap | Format::EdgeList => Some(None),
    }
}

/// The first line of `data` that is neither blank nor starts with
/// `comment` (an empty `comment` skips only blank lines), without its
/// newline; `None` while no such line is complete.
fn first_significant_line<'a>(data: &'a [u8], comment: &[u8]) -> Option<&'a [u8]> {
    let mut pos = 0;
    loop {
        let nl = memchr::memchr(b'\n', &data[pos..])? + pos;
        let line = &data[pos..nl];
        let trimmed = trim_start(line);
        if !trimmed.is_empty() && (comment.is_empty() || !trimmed.starts_with(comment)) {
            return Some(trimmed);
        }
        pos = nl + 1;
    }
}

/// The offset just after the newline that ends `line` (a subslice of `data`).
fn line_end(data: &[u8], line: &[u8]) -> usize {
    let start = line.as_ptr() as usize - data.as_ptr() as usize;
    start + line.len() + 1
}

fn trim_start(line: &[u8]) -> &[u8] {
    let k = line.iter().position(|&b| !read::scan::is_blank(b)).unwrap_or(line.len());
    &line[k..]
}

fn words(line: &[u8]) -> Vec<&[u8]> {
    line.split(|&b| read::scan::is_blank(b)).filter(|w| !w.is_empty()).collect()
}

fn first_word(line: &[u8]) -> &[u8] {
    words(line).first().copied().unwrap_or(&[])
}

/// A decimal count, or `None` if it is not one (then there is no bound:
/// the reader reports the problem).
fn number(word: &[u8]) -> Option<u64> {
    std::str::from_utf8(word).ok()?.parse().ok()
}

/// Finds the first NUL byte on a non-comment line, scanning each byte of
/// the growing buffer once.
#[derive(Default)]
struct NulGuard {
    /// Next byte to look at.
    pos: usize,
    /// What the current line is, once its first non-blank byte is known.
    line: LineKind,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum LineKind {
    /// Only blanks so far.
    #[default]
    Undecided,
    /// Starts with `c`, `%` or `#`: anything goes until the newline.
    Comment,
    /// Data: a NUL byte is an error in every text format.
    Data,
}

impl NulGuard {
    fn finds_nul_in_data(&mut self, data: &[u8]) -> bool {
        while self.pos < data.len() {
            let rest = &data[self.pos..];
            match self.line {
                LineKind::Undecided => {
                    let b = rest[0];
                    self.pos += 1;
                    if b == b'\n' || read::scan::is_blank(b) {
                        continue;
                    }
                    if b == 0 {
                        return true;
                    }
                    self.line =
                        if matches!(b, b'c' | b'%' | b'#') { LineKind::Comment } else { LineKind::Data };
                }
                LineKind::Comment => match memchr::memchr(b'\n', rest) {
                    Some(k) => {
                        self.pos += k + 1;
                        self.line = LineKind::Undecided;
                    }
                    None => self.pos = data.len(),
                },
                LineKind::Data => match memchr::memchr2(b'\n', 0, rest) {
                    Some(k) if rest[k] == 0 => return true,
                    Some(k) => {
                        self.pos += k + 1;
                        self.line = LineKind::Undecided;
                    }
                    None => self.pos = data.len(),
                },
            }
        }
        false
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
    use std::io::Write;

    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn graph(path: &str, data: &[u8]) -> Result<Vec<u8>> {
        inflate(Path::new(path), &gz(data), Expect::Graph(None))
    }

    #[test]
    fn gzip_errors_name_an_offset() {
        let e =
            inflate(Path::new("x.gz"), &[0x1f, 0x8b, 8, 0, 0], Expect::Graph(None)).unwrap_err().to_string();
        assert!(e.starts_with("x.gz: byte "), "{e}");
    }

    #[test]
    fn a_stream_of_zeros_stops_after_one_step() {
        // 64 MiB of zeros compress to about 64 kB.
        let bomb = vec![0u8; 64 << 20];
        let out = graph("bomb.gz", &bomb).unwrap();
        assert!(out.len() <= 2 * STEP, "inflated {} bytes", out.len());
        // The same after a valid header and a few lines.
        let mut data = b"p sp 3 2\na 1 2 3\n".to_vec();
        data.extend_from_slice(&bomb);
        let out = graph("bomb.gr.gz", &data).unwrap();
        assert!(out.len() <= 2 * STEP, "inflated {} bytes", out.len());
    }

    #[test]
    fn nul_bytes_in_comments_do_not_stop_inflation() {
        let mut data = b"c \0\0 a comment with NUL bytes\np sp 2 1\n".to_vec();
        data.extend(std::iter::repeat_n(b"c padding comment line\n".as_slice(), 200_000).flatten());
        data.extend_from_slice(b"a 1 2 3\n");
        assert_eq!(graph("ok.gr.gz", &data).unwrap(), data);
    }

    #[test]
    fn headers_bound_the_inflated_size() {
        // A valid header for two arcs, then far more than slack allows.
        let mut data = b"c bomb\np sp 3 2\na 1 2 3\na 2 3 4\n".to_vec();
        data.extend(std::iter::repeat_n(b"c x\n".as_slice(), (SLACK as usize / 4) + STEP).flatten());
        let e = graph("big.gr.gz", &data).unwrap_err().to_string();
        assert!(e.contains("more than its header (p sp 3 2) can justify"), "{e}");
        // The same data passes as an edge list (no header, no such bound).
        let mut e_list = b"1 2\n".to_vec();
        e_list.extend(std::iter::repeat_n(b"# x\n".as_slice(), (SLACK as usize / 4) + STEP).flatten());
        assert_eq!(graph("big.el.gz", &e_list).unwrap().len(), e_list.len());
        // A binary header bounds to the exact length.
        let g = crate::csr::EdgeList {
            num_vertices: 2,
            src: vec![0],
            dst: vec![1],
            weights: None,
            real_weights: None,
            coords: None,
        }
        .into_graph()
        .unwrap();
        let mut image = crate::binary::to_bytes(&g);
        let exact = image.len();
        assert_eq!(graph("g.ordo.gz", &image).unwrap().len(), exact);
        image.extend(std::iter::repeat_n(7u8, 2 * STEP));
        let e = graph("g.ordo.gz", &image).unwrap_err().to_string();
        assert!(e.contains(".ordo header: n = 2, m = 1"), "{e}");
    }

    #[test]
    fn header_bounds_per_format() {
        let b = |path: &str, data: &[u8]| header_bound(Path::new(path), Expect::Graph(None), data);
        assert!(b("x.gr.gz", b"c hi\np sp 5").is_none(), "header line incomplete");
        let gr = b("x.gr.gz", b"c hi\np sp 5 7\n").unwrap().unwrap();
        assert_eq!(gr.bytes, 14 + 7 * BYTES_PER_LINE + SLACK);
        let mtx = b("x.gz", b"%%MatrixMarket matrix coordinate real general\n% c\n3 3 4\n").unwrap().unwrap();
        assert_eq!(mtx.header, "3 3 4");
        let metis = b("x.graph.gz", b"% c\n4 5 011 2\n").unwrap().unwrap();
        assert_eq!(metis.header, "METIS header n = 4, m = 5");
        assert!(b("x.el.gz", b"1 2\n").unwrap().is_none(), "edge lists have no header");
        assert!(b("x.gr.gz", b"p sp many 7\n").unwrap().is_none(), "unparsable: the reader reports it");
    }
}
