//! METIS writer: header `n m` (or `n m 1` with edge weights) where `m` is
//! the number of undirected edges, then one line of 1-based neighbours (and
//! weights) per vertex, in CSR order; and the `.xyz` coordinate writer.

use std::io::{self, Write};

use super::Out;
use crate::csr::{Coordinates, Graph, VertexId};

/// Checks that METIS can represent `graph`: no self loops, and every arc
/// `(u, v, w)` matched by as many arcs `(v, u, w)` (a symmetric graph).
pub(crate) fn check_representable(graph: &Graph) -> Result<(), String> {
    let mut arcs: Vec<(VertexId, VertexId, u32)> = Vec::with_capacity(graph.num_edges());
    for (u, v, w) in graph.edges() {
        if u == v {
            return Err(format!("METIS cannot store the self loop at vertex {u}"));
        }
        arcs.push((u, v, w));
    }
    let mut reversed: Vec<_> = arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
    arcs.sort_unstable();
    reversed.sort_unstable();
    if let Some(i) = (0..arcs.len()).find(|&i| arcs[i] != reversed[i]) {
        let (u, v, w) = arcs[i].min(reversed[i]);
        return Err(format!(
            "METIS needs a symmetric graph, but arc {u} -> {v} (weight {w}) has no matching reverse arc"
        ));
    }
    Ok(())
}

/// Writes a symmetric graph as a METIS file (the caller checks symmetry;
/// [`crate::write::save`] does). Returns the writer.
pub fn write_metis<W: Write>(graph: &Graph, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    let weighted = graph.is_weighted();
    o.bytes(b"% written by ordo\n");
    o.uint(graph.num_vertices() as u64);
    o.bytes(b" ");
    o.uint(graph.num_edges() as u64 / 2);
    if weighted {
        o.bytes(b" 1");
    }
    o.newline()?;
    for u in 0..graph.num_vertices() as VertexId {
        for (k, (v, w)) in graph.weighted_neighbors(u).enumerate() {
            if k > 0 {
                o.bytes(b" ");
            }
            o.uint(v as u64 + 1);
            if weighted {
                o.bytes(b" ");
                o.uint(w as u64);
            }
        }
        o.newline()?;
    }
    o.finish()
}

/// Writes coordinates as an `.xyz` file: `x y 0` per vertex.
pub fn write_xyz<W: Write>(coords: &Coordinates, out: W) -> io::Result<W> {
    let mut o = Out::new(out);
    for i in 0..coords.len() {
        o.float(coords.x[i]);
        o.bytes(b" ");
        o.float(coords.y[i]);
        o.bytes(b" 0");
        o.newline()?;
    }
    o.finish()
}
