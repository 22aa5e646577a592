//! The 2D grid: `w × h` vertices, row major, each linked to its up, left,
//! right and down neighbours where they exist. Each undirected edge gets one
//! uniform weight, used in both directions; coordinates are the planar
//! `(column, row)` positions.

use std::ops::Range;

use rand::RngExt;

use super::{stream_rng, LatticeParams};
use crate::csr::{CoordSystem, Coordinates, Graph};

/// For each vertex, its neighbours in increasing id order with the index of
/// the undirected edge (into the edge weights) that leads there.
pub(crate) type Neighbours = dyn Fn(usize, &mut Vec<(u32, usize)>) + Sync;

/// The CSR rows `rows` of a lattice: offsets (from 0), targets and weights,
/// `weight(e)` giving the weight of undirected edge `e`. Shared by the grid
/// and the torus, whole or in parts.
pub(crate) fn lattice_rows(
    rows: Range<usize>,
    weight: impl Fn(usize) -> u32,
    neighbours: &Neighbours,
) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(4 * rows.len());
    let mut weights = Vec::with_capacity(4 * rows.len());
    let mut list = Vec::with_capacity(4);
    for i in rows {
        list.clear();
        neighbours(i, &mut list);
        for &(j, e) in &list {
            targets.push(j);
            weights.push(weight(e));
        }
        offsets.push(targets.len() as u64);
    }
    (offsets, targets, weights)
}

/// Builds a whole lattice of `n` vertices, `w` per row, with coordinates.
pub(crate) fn lattice(n: usize, w: usize, edge_weight: &[u32], neighbours: &Neighbours) -> Graph {
    let (offsets, targets, weights) = lattice_rows(0..n, |e| edge_weight[e], neighbours);
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

/// The stream of uniform weights, one per undirected edge: `2i` is vertex
/// `i`'s right edge, `2i + 1` its down edge (`2n` draws from one stream).
pub(crate) fn lattice_weight_stream(p: &LatticeParams, n: usize) -> impl Iterator<Item = u32> + '_ {
    let mut rng = stream_rng(p.seed, 0);
    (0..2 * n).map(move |_| rng.random_range(p.weights.lo..=p.weights.hi))
}

/// One uniform weight per undirected edge (see [`lattice_weight_stream`]).
pub(crate) fn lattice_weights(p: &LatticeParams, n: usize) -> Vec<u32> {
    lattice_weight_stream(p, n).collect()
}

/// The grid's neighbour lists: up, left, right, down where they exist.
pub(crate) fn grid_neighbours(w: usize, h: usize) -> impl Fn(usize, &mut Vec<(u32, usize)>) + Sync {
    move |i, out| {
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
    }
}

/// Generates the grid.
pub(crate) fn generate(p: &LatticeParams) -> Graph {
    let (w, h) = (p.w as usize, p.h as usize);
    let n = w * h;
    let ew = lattice_weights(p, n);
    lattice(n, w, &ew, &grid_neighbours(w, h))
}
