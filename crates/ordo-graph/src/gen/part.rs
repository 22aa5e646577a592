//! Generating one rank's rows of a generator graph ([`GenSpec::generate_part`])
//! without building the whole graph. The rows are exactly those of
//! [`GenSpec::generate`] (the tests compare them), which is what lets a
//! distributed run be checked against a sequential one on the same spec.
//!
//! What each generator costs per part, and why:
//!
//! | kind | time | memory held while generating |
//! |------|------|------------------------------|
//! | `kgraph` | the part's own rows (each block of 4096 vertices has its own random stream) | the part |
//! | `grid`, `torus` | `O(n)`: the edge weights are one random stream of `2n` draws whose draw sizes vary, so a part cannot jump into it; the stream is drawn and only the needed weights kept | the part |
//! | `rmat`, `kron`, `random` | `O(m)`: every edge's source is random, so every part draws all `m` edges (streams of 65536 edges) and keeps those it owns | the part, plus `4n` bytes for the scrambling permutation (`kron`, `permute=true`: one sequential shuffle) |
//! | `road` | `O(n)`: the spanning tree is one sequential Kruskal pass over all candidate edges in a random order, and whether an extra edge exists depends on the union-find state when it is reached, so no vertex range can be generated on its own | the part, plus 16 bytes per vertex of temporary memory (candidate list, union-find) freed before returning |
//!
//! Coordinates are not produced (distributed SSSP does not use them).

use std::ops::Range;

use super::{grid, kgraph, random, rmat, road, torus, GenError, GenSpec, EDGES_PER_STREAM};
use crate::csr::VertexId;
use crate::part::GraphPart;

impl GenSpec {
    /// The number of vertices of the graph this spec generates.
    pub fn num_vertices(&self) -> u64 {
        match self {
            GenSpec::Road(r) => r.n,
            GenSpec::Rmat(r) | GenSpec::Kron(r) => 1 << r.scale,
            GenSpec::Torus(l) | GenSpec::Grid(l) => l.w * l.h,
            GenSpec::Random(r) => r.n,
            GenSpec::KGraph(r) => r.n,
        }
    }

    /// Generates only the out-edges of the vertices `range`, identical to
    /// those rows of [`GenSpec::generate`], on `threads` threads (see the
    /// module docs for what each generator must still draw). The part's
    /// `num_edges_total` is the whole graph's edge count where it is known
    /// without generating everything (`kgraph`, `grid`, `torus`, `random`),
    /// else 0.
    ///
    /// # Errors
    /// Invalid parameters, or a range beyond the vertex count.
    pub fn generate_part(&self, range: Range<VertexId>, threads: usize) -> Result<GraphPart, GenError> {
        self.validate().map_err(|msg| GenError { spec: self.to_string(), msg })?;
        let n = self.num_vertices();
        if u64::from(range.end) > n || range.start > range.end {
            return Err(GenError {
                spec: self.to_string(),
                msg: format!(
                    "vertex range {}..{} is outside the graph's {n} vertices",
                    range.start, range.end
                ),
            });
        }
        let rows = range.start as usize..range.end as usize;
        let threads = threads.max(1);
        let (offsets, targets, weights, total) = match self {
            GenSpec::KGraph(p) => {
                let (o, t, w) = kgraph_rows(p, rows);
                (o, t, w, p.n * p.k)
            }
            GenSpec::Grid(p) | GenSpec::Torus(p) => {
                let torus = matches!(self, GenSpec::Torus(_));
                let (o, t, w) = lattice_rows(p, rows, torus);
                let (w_, h_) = (p.w, p.h);
                let total = if torus { 4 * w_ * h_ } else { 2 * (w_ * (h_ - 1) + h_ * (w_ - 1)) };
                (o, t, w, total)
            }
            GenSpec::Road(p) => {
                let (o, t, w) = road::generate_rows(p, rows);
                (o, t, w, 0)
            }
            GenSpec::Random(p) => {
                let edges =
                    EdgeStream { m: p.m as usize, fill: &|c, s, d, w| random::fill_chunk(p, c, s, d, w) };
                let (o, t, w) = edges.rows(rows, None, false, false, threads);
                (o, t, w, p.m)
            }
            GenSpec::Rmat(p) | GenSpec::Kron(p) => {
                let m = (1usize << p.scale) * p.edge_factor as usize;
                let edges = EdgeStream { m, fill: &|c, s, d, w| rmat::fill_chunk(p, c, s, d, w) };
                let perm = p.permute.then(|| rmat::permutation(p));
                let (o, t, w) = edges.rows(rows, perm.as_deref(), p.symmetric, p.simple, threads);
                (o, t, w, 0)
            }
        };
        Ok(GraphPart {
            num_vertices: n,
            num_edges_total: total,
            first: range.start,
            offsets,
            targets,
            weights: Some(weights),
        })
    }
}

type Rows = (Vec<u64>, Vec<u32>, Vec<u32>);

/// The k-graph rows: only the random streams (blocks of vertices) that
/// overlap `rows` are drawn.
fn kgraph_rows(p: &super::KGraphParams, rows: Range<usize>) -> Rows {
    let k = p.k as usize;
    let offsets: Vec<u64> = (0..=rows.len() as u64).map(|v| v * k as u64).collect();
    let (mut targets, mut weights) = (Vec::with_capacity(rows.len() * k), Vec::with_capacity(rows.len() * k));
    if k > 0 && !rows.is_empty() {
        let per = kgraph::VERTICES_PER_STREAM;
        let n = p.n as usize;
        for chunk in rows.start / per..rows.end.div_ceil(per) {
            let first = chunk * per;
            let len = per.min(n - first);
            let (mut d, mut w) = (vec![0u32; len * k], vec![0u32; len * k]);
            kgraph::fill_chunk(p, chunk, &mut d, &mut w);
            let lo = rows.start.max(first) - first;
            let hi = rows.end.min(first + len) - first;
            targets.extend_from_slice(&d[lo * k..hi * k]);
            weights.extend_from_slice(&w[lo * k..hi * k]);
        }
    }
    (offsets, targets, weights)
}

/// The grid or torus rows: the weight stream is drawn in full and only the
/// weights of the edges these rows use are kept (those of the rows from one
/// row above to one row below, which covers a torus row's wrap-around left
/// edge; for a torus part that starts in the first row, also the last row,
/// whose down edges wrap around to the first).
fn lattice_rows(p: &super::LatticeParams, rows: Range<usize>, torus: bool) -> Rows {
    let (w, h) = (p.w as usize, p.h as usize);
    let n = w * h;
    let near = 2 * rows.start.saturating_sub(w)..2 * (rows.end + w).min(n);
    let wrap = if torus && rows.start < w { 2 * (n - w)..2 * n } else { 0..0 };
    let (mut near_w, mut wrap_w) = (Vec::with_capacity(near.len()), Vec::with_capacity(wrap.len()));
    for (e, x) in grid::lattice_weight_stream(p, n).enumerate() {
        if near.contains(&e) {
            near_w.push(x);
        } else if wrap.contains(&e) {
            wrap_w.push(x);
        }
    }
    let weight = |e: usize| {
        if near.contains(&e) {
            near_w[e - near.start]
        } else {
            wrap_w[e - wrap.start]
        }
    };
    if torus {
        grid::lattice_rows(rows, weight, &torus::torus_neighbours(w, h))
    } else {
        grid::lattice_rows(rows, weight, &grid::grid_neighbours(w, h))
    }
}

/// Fills random stream `chunk`'s edges: sources, targets, weights.
type FillChunk<'a> = dyn Fn(usize, &mut [u32], &mut [u32], &mut [u32]) + Sync + 'a;

/// A chunked random edge generator of `m` edges (R-MAT, uniform random).
struct EdgeStream<'a> {
    m: usize,
    fill: &'a FillChunk<'a>,
}

impl EdgeStream<'_> {
    /// The rows `rows` of the graph `build_csr(n, edges, symmetric, simple)`
    /// would build from these edges relabelled by `perm`: every stream is
    /// drawn (on `threads` threads), the edges whose source (or, when
    /// symmetric, target) lies in `rows` are kept in generation order, and
    /// the rows are built as `build_csr` builds them.
    fn rows(
        &self,
        rows: Range<usize>,
        perm: Option<&[u32]>,
        symmetric: bool,
        simple: bool,
        threads: usize,
    ) -> Rows {
        let chunks = self.m.div_ceil(EDGES_PER_STREAM);
        let per_thread = chunks.div_ceil(threads).max(1);
        let owned = |x: u32| rows.contains(&(x as usize));
        let groups: Vec<Vec<(u32, u32, u32)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..chunks)
                .step_by(per_thread)
                .map(|start| {
                    let owned = &owned;
                    s.spawn(move || {
                        let mut kept = Vec::new();
                        let (mut a, mut b, mut c) = (
                            vec![0u32; EDGES_PER_STREAM],
                            vec![0u32; EDGES_PER_STREAM],
                            vec![0u32; EDGES_PER_STREAM],
                        );
                        for chunk in start..(start + per_thread).min(chunks) {
                            let len = EDGES_PER_STREAM.min(self.m - chunk * EDGES_PER_STREAM);
                            (self.fill)(chunk, &mut a[..len], &mut b[..len], &mut c[..len]);
                            for i in 0..len {
                                let (mut u, mut v) = (a[i], b[i]);
                                if let Some(perm) = perm {
                                    (u, v) = (perm[u as usize], perm[v as usize]);
                                }
                                if simple && u == v {
                                    continue;
                                }
                                if owned(u) {
                                    kept.push((u, v, c[i]));
                                }
                                if symmetric && u != v && owned(v) {
                                    kept.push((v, u, c[i]));
                                }
                            }
                        }
                        kept
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("edge generator thread panicked")).collect()
        });
        // Stable counting sort by source: each row keeps generation order.
        let base = rows.start;
        let mut offsets = vec![0u64; rows.len() + 1];
        for &(u, _, _) in groups.iter().flatten() {
            offsets[u as usize - base + 1] += 1;
        }
        for i in 0..rows.len() {
            offsets[i + 1] += offsets[i];
        }
        let total = offsets[rows.len()] as usize;
        let mut cursor = offsets[..rows.len()].to_vec();
        let (mut targets, mut weights) = (vec![0u32; total], vec![0u32; total]);
        for &(u, v, w) in groups.iter().flatten() {
            let slot = &mut cursor[u as usize - base];
            targets[*slot as usize] = v;
            weights[*slot as usize] = w;
            *slot += 1;
        }
        drop(groups);
        if !simple {
            return (offsets, targets, weights);
        }
        // Sort each row by (target, weight) and keep the least weight per target.
        let mut new_offsets = Vec::with_capacity(rows.len() + 1);
        new_offsets.push(0u64);
        let (mut t2, mut w2) = (Vec::with_capacity(total), Vec::with_capacity(total));
        let mut keys = Vec::new();
        for r in 0..rows.len() {
            let (lo, hi) = (offsets[r] as usize, offsets[r + 1] as usize);
            keys.clear();
            keys.extend((lo..hi).map(|e| (u64::from(targets[e]) << 32) | u64::from(weights[e])));
            keys.sort_unstable();
            let mut last = None;
            for &key in &keys {
                let t = (key >> 32) as u32;
                if last != Some(t) {
                    t2.push(t);
                    w2.push(key as u32);
                    last = Some(t);
                }
            }
            new_offsets.push(t2.len() as u64);
        }
        (new_offsets, t2, w2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::part::BlockPartition;

    /// Every part of every generator equals those rows of the whole graph.
    #[test]
    fn parts_equal_the_rows_of_the_whole_graph() {
        let specs = [
            "road:n=1000,seed=3",
            "road:n=997,deg=3.2",
            "kron:scale=9,ef=8",
            "rmat:scale=8,ef=4",
            "rmat:scale=8,ef=4,sym=true",
            "rmat:scale=8,ef=4,simple=true",
            "grid:w=13,h=7",
            "torus:w=5,h=9",
            "random:n=300,m=70000",
            "kgraph:n=9000,k=3",
        ];
        for spec in specs {
            let spec: GenSpec = spec.parse().unwrap();
            let whole = spec.generate_with_threads(2).unwrap();
            let n = whole.num_vertices() as u64;
            assert_eq!(spec.num_vertices(), n, "{spec}");
            for parts in [1, 2, 3, 5] {
                let p = BlockPartition::new(n, parts);
                for r in 0..parts {
                    let mut got = spec.generate_part(p.range(r), 1 + r % 3).unwrap();
                    let want = GraphPart::from_graph(&whole, p.range(r));
                    if got.num_edges_total != 0 {
                        assert_eq!(got.num_edges_total, want.num_edges_total, "{spec}");
                    }
                    got.num_edges_total = want.num_edges_total;
                    assert_eq!(got, want, "{spec} part {r} of {parts}");
                }
            }
        }
    }

    #[test]
    fn rejects_ranges_outside_the_graph() {
        let spec: GenSpec = "grid:w=3,h=3".parse().unwrap();
        let e = spec.generate_part(5..10, 1).unwrap_err().to_string();
        assert!(e.contains("outside the graph's 9 vertices"), "{e}");
    }
}
