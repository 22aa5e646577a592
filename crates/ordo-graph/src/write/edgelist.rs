//! Edge-list writer: a SNAP-style `# Nodes: n Edges: m` comment (which the
//! reader uses to keep isolated vertices), then one `u<TAB>v[<TAB>w]` line
//! per edge with 0-based ids. Readable as both [`Format::Snap`] and
//! [`Format::EdgeList`] with 0-based ids.
//!
//! [`Format::Snap`]: crate::load::Format::Snap
//! [`Format::EdgeList`]: crate::load::Format::EdgeList

use std::io::{self, Write};

use super::Out;
use crate::csr::Graph;

/// Writes `graph` as a tab-separated 0-based edge list (with a weight
/// column when the graph is weighted; real weights always show a point or
/// an exponent, so they read back as real). Returns the writer.
pub fn write_edge_list<W: Write>(graph: &Graph, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    o.bytes(b"# written by ordo, 0-based ids\n# Nodes: ");
    o.uint(graph.num_vertices() as u64);
    o.bytes(b" Edges: ");
    o.uint(graph.num_edges() as u64);
    o.newline()?;
    let weighted = graph.is_weighted();
    let real = graph.real_weights();
    for (e, (u, v, w)) in graph.edges().enumerate() {
        o.uint(u as u64);
        o.bytes(b"\t");
        o.uint(v as u64);
        if let Some(real) = real {
            o.bytes(b"\t");
            o.real(real[e]);
        } else if weighted {
            o.bytes(b"\t");
            o.uint(w as u64);
        }
        o.newline()?;
    }
    o.finish()
}
