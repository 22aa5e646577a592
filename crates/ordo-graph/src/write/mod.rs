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

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use dimacs::{write_dimacs, write_dimacs_coords};
pub use edgelist::write_edge_list;
pub use metis::{write_metis, write_xyz};
pub use mtx::write_matrix_market;

use crate::csr::Graph;
use crate::error::{GraphError, Result};
use crate::load::Format;

/// Writes `graph` to `path` in `format`. DIMACS also writes `X.co` and METIS
/// `X.xyz` next to `X.gr` / `X.graph` when the graph has coordinates
/// (returned in the list of written files); the other text formats cannot
/// hold coordinates and drop them.
///
/// Errors: I/O failures, and graphs the format cannot represent (METIS needs
/// a symmetric graph without self loops).
pub fn save(graph: &Graph, path: &Path, format: Format) -> Result<Vec<PathBuf>> {
    let mut written = vec![path.to_path_buf()];
    let create = |p: &Path| -> Result<BufWriter<File>> {
        Ok(BufWriter::with_capacity(1 << 20, File::create(p).map_err(|e| GraphError::io(p, e))?))
    };
    let finish = |p: &Path, r: io::Result<BufWriter<File>>| -> Result<()> {
        let w = r.map_err(|e| GraphError::io(p, e))?;
        w.into_inner()
            .map_err(|e| GraphError::io(p, e.into_error()))?
            .sync_all()
            .map_err(|e| GraphError::io(p, e))
    };
    match format {
        Format::Binary => crate::binary::write(graph, path)?,
        Format::DimacsGr => {
            let w = create(path)?;
            finish(path, write_dimacs(graph, w))?;
            if let Some(c) = graph.coords() {
                let co = path.with_extension("co");
                finish(&co, write_dimacs_coords(c, create(&co)?))?;
                written.push(co);
            }
        }
        Format::Snap | Format::EdgeList => finish(path, write_edge_list(graph, create(path)?))?,
        Format::MatrixMarket => finish(path, write_matrix_market(graph, create(path)?))?,
        Format::Metis => {
            metis::check_representable(graph).map_err(|msg| GraphError::file(path, msg))?;
            finish(path, write_metis(graph, create(path)?))?;
            if let Some(c) = graph.coords() {
                let xyz = path.with_extension("xyz");
                finish(&xyz, write_xyz(c, create(&xyz)?))?;
                written.push(xyz);
            }
        }
    }
    Ok(written)
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
