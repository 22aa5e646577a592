//! The 2D torus: a `w × h` grid whose rows and columns wrap around, so every
//! vertex has exactly four neighbours (`w, h >= 3` keeps them distinct). Each
//! undirected edge gets one uniform weight, used in both directions;
//! coordinates are the planar `(column, row)` positions.
//!
//! Vertex `r·w + c` sits at row `r`, column `c` (row-major), so row-wise
//! neighbours are adjacent in memory and column-wise ones `w` apart: the
//! "2D Torus" of the XWS work-stealing paper (Cong et al., ICPP 2008, §1.4)
//! and of its code, where a torus of side `k` has `k²` vertices.

use super::grid::{lattice, lattice_weights};
use super::LatticeParams;
use crate::csr::Graph;

/// The torus's neighbour lists: up, left, right, down with wrap-around,
/// sorted by id.
pub(crate) fn torus_neighbours(w: usize, h: usize) -> impl Fn(usize, &mut Vec<(u32, usize)>) + Sync {
    move |i, out| {
        let (c, r) = (i % w, i / w);
        let up = ((r + h - 1) % h) * w + c;
        let down = ((r + 1) % h) * w + c;
        let left = r * w + (c + w - 1) % w;
        let right = r * w + (c + 1) % w;
        out.push((up as u32, 2 * up + 1));
        out.push((left as u32, 2 * left));
        out.push((right as u32, 2 * i));
        out.push((down as u32, 2 * i + 1));
        out.sort_unstable();
    }
}

/// Generates the torus.
pub(crate) fn generate(p: &LatticeParams) -> Graph {
    let (w, h) = (p.w as usize, p.h as usize);
    let n = w * h;
    let ew = lattice_weights(p, n);
    lattice(n, w, &ew, &torus_neighbours(w, h))
}
