//! The 2D grid: `w × h` vertices, row major, each linked to its up, left,
//! right and down neighbours where they exist. Each undirected edge gets one
//! uniform weight, used in both directions; coordinates are the planar
//! `(column, row)` positions.

use rand::RngExt;

use super::{stream_rng, LatticeParams};
use crate::csr::{CoordSystem, Coordinates, Graph};

/// Builds a lattice from, for each vertex, its four neighbours in increasing
/// id order with the index of the undirected edge (into `edge_weight`) that
/// leads there. Shared by the grid and the torus.
pub(crate) fn lattice(
    n: usize,
    w: usize,
    edge_weight: &[u32],
    neighbours: impl Fn(usize, &mut Vec<(u32, usize)>),
) -> Graph {
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(4 * n);
    let mut weights = Vec::with_capacity(4 * n);
    let mut list = Vec::with_capacity(4);
    for i in 0..n {
        list.clear();
        neighbours(i, &mut list);
        for &(j, e) in &list {
            targets.push(j);
            weights.push(edge_weight[e]);
        }
        offsets.push(targets.len() as u64);
    }
    let xs = (0..n).map(|i| (i % w) as f64).collect();
    let ys = (0..n).map(|i| (i / w) as f64).collect();
    Graph::from_parts(
        offsets.into(),
        targets.into(),
        Some(weights.into()),
        Some(Coordinates::new(CoordSystem::Planar, xs, ys)),
    )
    .expect("lattice generator built an invalid CSR (bug)")
}

/// One uniform weight per undirected edge: `2i` is vertex `i`'s right edge,
/// `2i + 1` its down edge.
pub(crate) fn lattice_weights(p: &LatticeParams, n: usize) -> Vec<u32> {
    let mut rng = stream_rng(p.seed, 0);
    (0..2 * n).map(|_| rng.random_range(p.weights.lo..=p.weights.hi)).collect()
}

/// Generates the grid.
pub(crate) fn generate(p: &LatticeParams) -> Graph {
    let (w, h) = (p.w as usize, p.h as usize);
    let n = w * h;
    let ew = lattice_weights(p, n);
    lattice(n, w, &ew, |i, out| {
        let (c, r) = (i % w, i / w);
        if r > 0 {
            out.push(((i - w) as u32, 2 * (i - w) + 1));
        }
        if c > 0 {
            out.push(((i - 1) as u32, 2 * (i - 1)));
        }
        if c + 1 < w {
            out.push(((i + 1) as u32, 2 * i));
        }
        if r + 1 < h {
            out.push(((i + w) as u32, 2 * i + 1));
        }
    })
}
