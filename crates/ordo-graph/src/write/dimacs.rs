//! DIMACS shortest-path writer: `.gr` (`p sp n m`, one `a u v w` per arc,
//! 1-based; weight 1 for unweighted graphs) and `.co` coordinates.

use std::io::{self, Write};

use super::Out;
use crate::csr::{Coordinates, Graph};

/// Writes `graph` as a DIMACS `.gr` file. Returns the writer.
pub fn write_dimacs<W: Write>(graph: &Graph, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    o.bytes(b"c written by ordo\np sp ");
    o.uint(graph.num_vertices() as u64);
    o.bytes(b" ");
    o.uint(graph.num_edges() as u64);
    o.newline()?;
    for (u, v, w) in graph.edges() {
        o.bytes(b"a ");
        o.uint(u as u64 + 1);
        o.bytes(b" ");
        o.uint(v as u64 + 1);
        o.bytes(b" ");
        o.uint(w as u64);
        o.newline()?;
    }
    o.finish()
}

/// Writes coordinates as a DIMACS `.co` file (`p aux sp co n`, then
/// `v id x y`). Values are written exactly (integers without a fraction).
pub fn write_dimacs_coords<W: Write>(coords: &Coordinates, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    o.bytes(b"c written by ordo\np aux sp co ");
    o.uint(coords.len() as u64);
    o.newline()?;
    for i in 0..coords.len() {
        o.bytes(b"v ");
        o.uint(i as u64 + 1);
        o.bytes(b" ");
        o.float(coords.x[i]);
        o.bytes(b" ");
        o.float(coords.y[i]);
        o.newline()?;
    }
    o.finish()
}
