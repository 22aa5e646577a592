//! Coordinate side files: finding the `.co` / `.xyz` that accompanies a
//! graph file and reading it.

use std::path::{Path, PathBuf};

use super::content::FileBytes;
use super::format::{strip_gz, Format};
use super::inflate::Expect;
use crate::csr::Coordinates;
use crate::error::Result;
use crate::read;

/// Reads a coordinate file for a graph of `n` vertices: DIMACS `.co` when
/// its first significant line starts with `c` or `p`, `.xyz` otherwise.
pub fn load_coords(path: &Path, n: usize) -> Result<Coordinates> {
    let content = FileBytes::open(path, "a coordinate file", Expect::Coords(n))?;
    content.read_sequentially();
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
