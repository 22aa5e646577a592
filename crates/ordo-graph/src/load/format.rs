//! Graph file formats and how a file's format is recognised.
//!
//! Detection ([`detect_format`]) looks at the content first (gzip and
//! `.ordo` magic bytes, the Matrix Market banner, DIMACS `c`/`p sp` lines, a
//! SNAP `# Nodes:` comment), then at the extension (after stripping `.gz`),
//! and finally tells METIS from a plain edge list by checking whether the
//! first line `n m ...` is followed by exactly `n` vertex lines.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::read;

/// A graph file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// DIMACS shortest-path `.gr` (`p sp n m`, `a u v w`), 1-based, with an
    /// optional `.co` coordinate file.
    DimacsGr,
    /// SNAP edge list: `#` comments, two ids per line, 0-based by default.
    Snap,
    /// Plain edge list `u v [w]`, blank or comma separated, `#`/`%`
    /// comments, base detected (see [`LoadOptions::one_based`](super::LoadOptions::one_based)).
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

/// `path` without a final `.gz`.
pub(super) fn strip_gz(path: &Path) -> PathBuf {
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
    fn format_names_parse_back() {
        for f in Format::ALL {
            assert_eq!(f.name().parse(), Ok(f));
        }
    }
}
