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

use std::ops::Range;

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

/// The grid geometry of a road graph: `w` columns, `h` rows, and the
/// start and size of every column and row (tiny: `O(√n)`).
struct Cells {
    w: usize,
    col_x: Vec<f64>,
    col_w: Vec<f64>,
    row_y: Vec<f64>,
    row_h: Vec<f64>,
}

impl Cells {
    fn of(p: &RoadParams) -> Cells {
        let n = p.n as usize;
        let w = ((p.n as f64).sqrt().ceil() as usize).max(1);
        let h = n.div_ceil(w);
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
        Cells { w, col_x: prefix(&col_w), col_w, row_y: prefix(&row_h), row_h }
    }

    /// The coordinates of the vertices `keep` (the stream of all `n`
    /// points is drawn in order; only those in `keep` are stored).
    fn points(&self, p: &RoadParams, keep: Range<usize>) -> (Vec<f64>, Vec<f64>) {
        let mut rng = stream_rng(p.seed, 1);
        let mut xs = Vec::with_capacity(keep.len());
        let mut ys = Vec::with_capacity(keep.len());
        for i in 0..keep.end {
            let (c, r) = (i % self.w, i / self.w);
            let x = self.col_x[c] + self.col_w[c] * rng.random_range(0.15..0.85);
            let y = self.row_y[r] + self.row_h[r] * rng.random_range(0.15..0.85);
            if i >= keep.start {
                xs.push(x);
                ys.push(y);
            }
        }
        (xs, ys)
    }
}

/// Steps 2 and 3 of the model: which candidate edges the graph has.
/// Candidate `2i` is `(i, i + 1)` ("right"), `2i + 1` is `(i, i + w)`
/// ("down"); returns `keep[e - window.start]` for the candidates `e` in
/// `window`. The spanning tree is one sequential Kruskal pass over all
/// candidates in a random order, so this runs over the whole graph whatever
/// the window (`O(n)` time; 16 bytes per vertex of temporary memory: the
/// candidate list and the union-find arrays).
fn kept_candidates(p: &RoadParams, w: usize, window: Range<usize>) -> Vec<bool> {
    let n = p.n as usize;
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
    let mut keep = vec![false; window.len()];
    let mut sets = UnionFind::new(n);
    for &e in &candidates {
        let u = e / 2;
        let v = if e % 2 == 0 { u + 1 } else { u + w as u32 };
        let kept = sets.union(u, v) || rng.random_bool(extra_prob);
        if window.contains(&(e as usize)) {
            keep[e as usize - window.start] = kept;
        }
    }
    keep
}

/// The CSR rows `rows` (offsets from 0, targets, weights) given the kept
/// candidates of the window starting at `keep_base` and the coordinates of
/// the vertices starting at `point_base`.
fn rows_of(
    rows: Range<usize>,
    w: usize,
    keep: impl Fn(usize) -> bool,
    (xs, ys, point_base): (&[f64], &[f64], usize),
    avg_degree: f64,
) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
    // 4. Neighbours in increasing id order: up, left, right, down.
    let length = |a: usize, b: usize| -> u32 {
        let (a, b) = (a - point_base, b - point_base);
        let (dx, dy) = (xs[a] - xs[b], ys[a] - ys[b]);
        ((dx * dx + dy * dy).sqrt().round() as u32).max(1)
    };
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity((avg_degree * rows.len() as f64 * 1.01) as usize + 4);
    let mut weights = Vec::with_capacity(targets.capacity());
    for i in rows {
        let mut add = |j: usize| {
            targets.push(j as u32);
            weights.push(length(i, j));
        };
        if i >= w && keep(2 * (i - w) + 1) {
            add(i - w);
        }
        if i % w > 0 && keep(2 * (i - 1)) {
            add(i - 1);
        }
        if keep(2 * i) {
            add(i + 1);
        }
        if keep(2 * i + 1) {
            add(i + w);
        }
        offsets.push(targets.len() as u64);
    }
    (offsets, targets, weights)
}

/// Generates the road-like graph (see the module docs).
pub(crate) fn generate(p: &RoadParams) -> Graph {
    let n = p.n as usize;
    let cells = Cells::of(p);
    let (xs, ys) = cells.points(p, 0..n);
    let keep = kept_candidates(p, cells.w, 0..2 * n);
    let (offsets, targets, weights) = rows_of(0..n, cells.w, |e| keep[e], (&xs, &ys, 0), p.avg_degree);
    let coords = Coordinates::new(CoordSystem::Planar, xs, ys);
    Graph::from_parts(offsets.into(), targets.into(), Some(weights.into()), Some(coords))
        .expect("road generator built an invalid CSR (bug)")
}

/// The rows `rows` of the road graph of `p`, without coordinates, holding
/// only `O(rows + √n)` of the graph (the spanning-tree pass still visits
/// every candidate edge: see [`kept_candidates`]).
pub(crate) fn generate_rows(p: &RoadParams, rows: Range<usize>) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
    let n = p.n as usize;
    let cells = Cells::of(p);
    let w = cells.w;
    let points = rows.start.saturating_sub(w)..(rows.end + w).min(n);
    let (xs, ys) = cells.points(p, points.clone());
    let window = 2 * rows.start.saturating_sub(w)..2 * rows.end;
    let keep = kept_candidates(p, w, window.clone());
    rows_of(
        rows,
        w,
        |e| window.contains(&e) && keep[e - window.start],
        (&xs, &ys, points.start),
        p.avg_degree,
    )
}
