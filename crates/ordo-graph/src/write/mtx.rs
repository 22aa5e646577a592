//! Matrix Market writer: a `general` coordinate matrix, `pattern` when the
//! graph is unweighted, `real` with real weights and `integer` otherwise; entry `(u+1, v+1)` per arc.

use std::io::{self, Write};

use super::Out;
use crate::csr::Graph;

/// Writes `graph` as a Matrix Market coordinate file. Returns the writer.
pub fn write_matrix_market<W: Write>(graph: &Graph, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    let weighted = graph.is_weighted();
    let real = graph.real_weights();
    o.bytes(if real.is_some() {
        b"%%MatrixMarket matrix coordinate real general\n"
    } else if weighted {
        b"%%MatrixMarket matrix coordinate integer general\n"
    } else {
        b"%%MatrixMarket matrix coordinate pattern general\n"
    });
    o.bytes(b"% written by ordo\n");
    let n = graph.num_vertices() as u64;
    o.uint(n);
    o.bytes(b" ");
    o.uint(n);
    o.bytes(b" ");
    o.uint(graph.num_edges() as u64);
    o.newline()?;
    for (e, (u, v, w)) in graph.edges().enumerate() {
        o.uint(u as u64 + 1);
        o.bytes(b" ");
        o.uint(v as u64 + 1);
        if let Some(real) = real {
            o.bytes(b" ");
            o.real(real[e]);
        } else if weighted {
            o.bytes(b" ");
            o.uint(w as u64);
        }
        o.newline()?;
    }
    o.finish()
}
