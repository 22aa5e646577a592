//! The road-like generator: a planar, connected, symmetric graph with
//! coordinates and Euclidean weights spread over four to five decades, shaped
//! like the DIMACS road networks (average out-degree about 2.4–3, long chains,
//! dense "towns" and sparse countryside). It is ordo's default input.
//!
//! # Model
//!
//! 1. **Points.** The `n` vertices sit on a `w × h` grid (`w = ⌈√n⌉`, row
//!    major, the last row possibly partial). Column widths and row heights are
//!    drawn from a reflected random walk in log space between `min_len` and
//!    `max_len` (starting at their geometric mean), so that narrow columns
//!    cluster into towns and wide ones into countryside, and lengths span
//!    `max_len / min_len` (10^4 by default).
//!    Each point is placed uniformly in the middle 70% of its cell (jitter), so
//!    no two edges have exactly the same length.
//! 2. **Spanning tree.** The candidate edges are the 4-neighbour grid edges
//!    (at most `2n`). Kruskal's algorithm over them in a random order keeps a
//!    random spanning tree, so the graph is connected.
//! 3. **Extra edges.** Every candidate that Kruskal rejects (it would close
//!    a cycle) is kept with the probability that brings the average out-degree
//!    to `deg` (default 2.6, the average of the USA road graphs is about 2.4).
//!    The graph stays planar: grid edges never cross.
//! 4. **Weights.** Both directions of an edge get `max(1, round(length))`,
//!    the Euclidean length between its end points in coordinate units.
//!
//! With the defaults the weights range from about 10 to 1.7·10^5 and nearly
//! every edge has its own weight, so shortest-path searches see many distinct
//! priorities, as on real roads. Adjacency lists are sorted by target (up,
//! left, right, down) and vertex ids are row-major, which gives the locality
//! of the DIMACS files (sorted by geography).

use rand::RngExt;

use super::{stream_rng, RoadParams};
use crate::csr::{CoordSystem, Coordinates, Graph};
use crate::union_find::UnionFind;

/// A reflected multiplicative random walk between `lo` and `hi`, one step
/// per cell: the cell sides. Each step multiplies or divides by a uniform
/// factor in `[1, 1.8]` (a symmetric walk in log space) and reflects at the
/// bounds. Only IEEE basic operations are used (no `exp`/`ln`, whose last bit
/// depends on the platform's libm), so the result is identical everywhere.
fn cell_sides(rng: &mut impl RngExt, count: usize, lo: f64, hi: f64) -> Vec<f64> {
    let mut side = (lo * hi).sqrt();
    let max_step = (hi / lo).min(1.8);
    (0..count)
        .map(|_| {
            if hi > lo {
                let step = rng.random_range(1.0..=max_step);
                if rng.random_bool(0.5) {
                    side *= step;
                } else {
                    side /= step;
                }
                if side < lo {
                    side = lo * lo / side;
                }
                if side > hi {
                    side = hi * hi / side;
                }
                side = side.clamp(lo, hi);
            }
            side
        })
        .collect()
}

/// Generates the road-like graph (see the module docs).
pub(crate) fn generate(p: &RoadParams) -> Graph {
    let n = p.n as usize;
    let w = ((p.n as f64).sqrt().ceil() as usize).max(1);
    let h = n.div_ceil(w);

    // 1. Points.
    let mut rng = stream_rng(p.seed, 0);
    let col_w = cell_sides(&mut rng, w, p.min_len, p.max_len);
    let row_h = cell_sides(&mut rng, h, p.min_len, p.max_len);
    let prefix = |sides: &[f64]| -> Vec<f64> {
        let mut acc = 0.0;
        sides
            .iter()
            .map(|s| {
                let start = acc;
                acc += s;
                start
            })
            .collect()
    };
    let (col_x, row_y) = (prefix(&col_w), prefix(&row_h));
    let mut rng = stream_rng(p.seed, 1);
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for i in 0..n {
        let (c, r) = (i % w, i / w);
        xs.push(col_x[c] + col_w[c] * rng.random_range(0.15..0.85));
        ys.push(row_y[r] + row_h[r] * rng.random_range(0.15..0.85));
    }

    // 2. + 3. Candidate edge 2i is (i, i + 1) ("right"), 2i + 1 is (i, i + w)
    // ("down"); keep[2i + d] says whether it is in the graph.
    let mut candidates: Vec<u32> = Vec::with_capacity(2 * n);
    for i in 0..n {
        if i % w + 1 < w && i + 1 < n {
            candidates.push(2 * i as u32);
        }
        if i + w < n {
            candidates.push(2 * i as u32 + 1);
        }
    }
    let mut rng = stream_rng(p.seed, 2);
    for i in (1..candidates.len()).rev() {
        let j = rng.random_range(0..=i);
        candidates.swap(i, j);
    }
    let tree_edges = n.saturating_sub(1) as f64;
    let wanted_undirected = p.avg_degree * n as f64 / 2.0;
    let spare = candidates.len() as f64 - tree_edges;
    let extra_prob =
        if spare > 0.0 { ((wanted_undirected - tree_edges) / spare).clamp(0.0, 1.0) } else { 0.0 };
    let mut keep = vec![false; 2 * n];
    let mut sets = UnionFind::new(n);
    for &e in &candidates {
        let u = e / 2;
        let v = if e % 2 == 0 { u + 1 } else { u + w as u32 };
        keep[e as usize] = sets.union(u, v) || rng.random_bool(extra_prob);
    }
    drop(candidates);
    drop(sets);

    // 4. CSR, neighbours in increasing id order: up, left, right, down.
    let length = |a: usize, b: usize| -> u32 {
        let (dx, dy) = (xs[a] - xs[b], ys[a] - ys[b]);
        ((dx * dx + dy * dy).sqrt().round() as u32).max(1)
    };
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity((p.avg_degree * n as f64 * 1.01) as usize + 4);
    let mut weights = Vec::with_capacity(targets.capacity());
    for i in 0..n {
        let mut add = |j: usize| {
            targets.push(j as u32);
            weights.push(length(i, j));
        };
        if i >= w && keep[2 * (i - w) + 1] {
            add(i - w);
        }
        if i % w > 0 && keep[2 * (i - 1)] {
            add(i - 1);
        }
        if keep[2 * i] {
            add(i + 1);
        }
        if keep[2 * i + 1] {
            add(i + w);
        }
        offsets.push(targets.len() as u64);
    }
    let coords = Coordinates::new(CoordSystem::Planar, xs, ys);
    Graph::from_parts(offsets.into(), targets.into(), Some(weights.into()), Some(coords))
        .expect("road generator built an invalid CSR (bug)")
}
