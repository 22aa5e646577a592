//! Text writers, the inverse of the readers behind [`crate::load()`]:
//! DIMACS `.gr` (+ `.co`), SNAP / plain edge lists, Matrix Market and METIS
//! (+ `.xyz`). Each writer emits the graph's edges in CSR order, so reading
//! the file back gives the same graph (see the round-trip tests).
//!
//! [`save`] picks the writer from a [`Format`], writes the coordinate side
//! file where the format has one, and delegates `.ordo` to
//! [`crate::binary::write`].

mod dimacs;
mod edgelist;
mod metis;
mod mtx;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub use dimacs::{write_dimacs, write_dimacs_coords};
pub use edgelist::write_edge_list;
pub use metis::{write_metis, write_xyz};
pub use mtx::write_matrix_market;

use crate::csr::Graph;
use crate::error::{GraphError, Result};
use crate::load::Format;
use crate::output::write_atomically;

/// Writes `graph` to `path` in `format`. DIMACS also writes `X.co` and METIS
/// `X.xyz` next to `X.gr` / `X.graph` when the graph has coordinates
/// (returned in the list of written files); the other text formats cannot
/// hold coordinates and drop them.
///
/// Errors: I/O failures, and graphs the format cannot represent (METIS needs
/// a symmetric graph without self loops).
pub fn save(graph: &Graph, path: &Path, format: Format) -> Result<Vec<PathBuf>> {
    if graph.has_real_weights() && matches!(format, Format::DimacsGr | Format::Metis) {
        return Err(GraphError::file(
            path,
            format!(
                "{format} files hold integer weights only and this graph has real weights \
                 (write .ordo, .mtx or an edge list, or replace the weights)"
            ),
        ));
    }
    let mut written = vec![path.to_path_buf()];
    // Each file is written atomically (see `crate::output`): a reader that
    // has the old file mapped keeps it, a failed write leaves it in place.
    match format {
        Format::Binary => crate::binary::write(graph, path)?,
        Format::DimacsGr => {
            write_atomically(path, |w| write_dimacs(graph, w).map(drop))?;
            if let Some(c) = graph.coords() {
                let co = path.with_extension("co");
                write_atomically(&co, |w| write_dimacs_coords(c, w).map(drop))?;
                written.push(co);
            }
        }
        Format::Snap | Format::EdgeList => write_atomically(path, |w| write_edge_list(graph, w).map(drop))?,
        Format::MatrixMarket => write_atomically(path, |w| write_matrix_market(graph, w).map(drop))?,
        Format::Metis => {
            metis::check_representable(graph).map_err(|msg| GraphError::file(path, msg))?;
            write_atomically(path, |w| write_metis(graph, w).map(drop))?;
            if let Some(c) = graph.coords() {
                let xyz = path.with_extension("xyz");
                write_atomically(&xyz, |w| write_xyz(c, w).map(drop))?;
                written.push(xyz);
            }
        }
    }
    Ok(written)
}

/// The files [`save`] writes for `graph` at `path` in `format`: `path`, and
/// the coordinate side file when the format has one and the graph has
/// coordinates. Lets a caller check every output against its inputs
/// ([`crate::output::ensure_distinct`]) before writing anything.
pub fn files_written(graph: &Graph, path: &Path, format: Format) -> Vec<PathBuf> {
    let mut files = vec![path.to_path_buf()];
    if graph.coords().is_some() {
        match format {
            Format::DimacsGr => files.push(path.with_extension("co")),
            Format::Metis => files.push(path.with_extension("xyz")),
            _ => {}
        }
    }
    files
}

/// A buffered text sink with fast integer formatting.
pub(crate) struct Out<W: Write> {
    inner: W,
    buf: Vec<u8>,
}

/// Flush threshold of [`Out`].
const OUT_CHUNK: usize = 1 << 16;

impl<W: Write> Out<W> {
    pub(crate) fn new(inner: W) -> Self {
        Out { inner, buf: Vec::with_capacity(OUT_CHUNK + 256) }
    }

    /// Appends the decimal digits of `v`.
    #[inline]
    pub(crate) fn uint(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[i..]);
    }

    /// Appends `v` in Rust's shortest round-trip decimal notation.
    pub(crate) fn float(&mut self, v: f64) {
        // `Display` for f64 never uses an exponent and round-trips exactly.
        let _ = write!(self.buf, "{v}");
    }

    /// Appends a real weight in Rust's shortest round-trip notation that
    /// always shows a point or an exponent (`3.0`, `1e-300`), so a reader of
    /// edge lists sees a real column even when every value is whole.
    pub(crate) fn real(&mut self, v: f64) {
        let _ = write!(self.buf, "{v:?}");
    }

    /// Appends raw bytes.
    #[inline]
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Ends a line, flushing the buffer when it is full.
    #[inline]
    pub(crate) fn newline(&mut self) -> io::Result<()> {
        self.buf.push(b'\n');
        if self.buf.len() >= OUT_CHUNK {
            self.inner.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes what is buffered and returns the inner writer.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.inner.write_all(&self.buf)?;
        self.inner.flush()?;
        Ok(self.inner)
    }
}
