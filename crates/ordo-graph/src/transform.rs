//! Graph transforms: transpose, symmetrize, removal of self loops and parallel
//! edges, relabelling, induced subgraphs and the largest weakly connected
//! component.
//!
//! Every transform builds a new owned [`Graph`] in `O(n + m)` (plus a sort of
//! each adjacency list where stated), keeps edge weights with their edges and
//! carries the coordinates along (relabelled where vertices move).

use crate::csr::{Coordinates, EdgeList, Graph, VertexId, Weight, WeightType};
use crate::storage::Plain;
use crate::union_find::UnionFind;

/// Prefix sums of `counts` into `n + 1` offsets.
fn offsets_from_counts(counts: &[u64]) -> Vec<u64> {
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    let mut acc = 0u64;
    offsets.push(0);
    for &c in counts {
        acc += c;
        offsets.push(acc);
    }
    offsets
}

/// Assembles a graph whose arrays this module built (so they are valid).
fn assemble<W: WeightType + Plain>(
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Option<Vec<W>>,
    coords: Option<Coordinates>,
) -> Graph {
    Graph::from_parts_with(offsets.into(), targets.into(), weights.map(|w| W::wrap(w.into())), coords)
        .expect("transform produced an invalid CSR (bug)")
}

/// Runs the weight-generic body `f` for the kind of weights `g` carries
/// (integer weights, and unweighted graphs, take the `u32` instance).
macro_rules! by_kind {
    ($g:expr, $f:ident ( $($arg:expr),* )) => {
        if $g.has_real_weights() { $f::<f64>($($arg),*) } else { $f::<u32>($($arg),*) }
    };
}

/// The transpose: edge `(u, v, w)` becomes `(v, u, w)`. The in-edges of each
/// vertex appear in increasing order of their source (a stable counting
/// sort), so `transpose(transpose(g))` equals `g` when every adjacency list of
/// `g` is sorted.
pub fn transpose(g: &Graph) -> Graph {
    by_kind!(g, transpose_w(g))
}

fn transpose_w<W: WeightType + Plain>(g: &Graph) -> Graph {
    let n = g.num_vertices();
    let mut counts = vec![0u64; n];
    for &t in g.targets() {
        counts[t as usize] += 1;
    }
    let offsets = offsets_from_counts(&counts);
    let mut cursor: Vec<u64> = offsets[..n].to_vec();
    let m = g.num_edges();
    let mut targets = vec![0 as VertexId; m];
    let mut weights = W::of(g).map(|_| vec![W::default(); m]);
    for u in 0..n as VertexId {
        let r = g.edge_range(u);
        for e in r {
            let v = g.targets()[e] as usize;
            let slot = cursor[v] as usize;
            cursor[v] += 1;
            targets[slot] = u;
            if let (Some(out), Some(w)) = (weights.as_mut(), W::of(g)) {
                out[slot] = w[e];
            }
        }
    }
    assemble(offsets, targets, weights, g.coords().cloned())
}

/// Adds the reverse `(v, u, w)` of every edge `(u, v, w)` with `u != v`, so
/// that the result is symmetric (for every edge its reverse exists with the
/// same weight). Self loops are kept once. Existing reverse edges are not
/// detected: an input that already holds both directions ends up with each
/// twice; follow with [`dedup_edges`] (or use [`symmetrize_simple`]) for a
/// simple graph. The out-edges of `u` are its original out-edges followed by
/// its reversed in-edges.
pub fn symmetrize(g: &Graph) -> Graph {
    by_kind!(g, symmetrize_w(g))
}

fn symmetrize_w<W: WeightType + Plain>(g: &Graph) -> Graph {
    let n = g.num_vertices();
    let mut counts: Vec<u64> = (0..n as VertexId).map(|u| g.degree(u) as u64).collect();
    for u in 0..n as VertexId {
        for &v in g.neighbors(u) {
            if v != u {
                counts[v as usize] += 1;
            }
        }
    }
    let offsets = offsets_from_counts(&counts);
    let m = offsets[n] as usize;
    let mut targets = vec![0 as VertexId; m];
    let mut weights = W::of(g).map(|_| vec![W::default(); m]);
    let mut cursor: Vec<u64> = offsets[..n].to_vec();
    // Original edges first, so each list starts with the vertex's own edges.
    for u in 0..n as VertexId {
        let r = g.edge_range(u);
        let start = cursor[u as usize] as usize;
        targets[start..start + r.len()].copy_from_slice(&g.targets()[r.clone()]);
        if let (Some(out), Some(w)) = (weights.as_mut(), W::of(g)) {
            out[start..start + r.len()].copy_from_slice(&w[r.clone()]);
        }
        cursor[u as usize] += r.len() as u64;
    }
    for u in 0..n as VertexId {
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            if v == u {
                continue;
            }
            let slot = cursor[v as usize] as usize;
            cursor[v as usize] += 1;
            targets[slot] = u;
            if let (Some(out), Some(w)) = (weights.as_mut(), W::of(g)) {
                out[slot] = w[e];
            }
        }
    }
    assemble(offsets, targets, weights, g.coords().cloned())
}

/// Keeps only the edges for which `keep(source, target, weight)` holds. The
/// closure sees the integer weight (1 on an unweighted graph, and on a
/// real-weighted one, whose real weights are kept with their edges).
pub fn filter_edges(g: &Graph, keep: impl FnMut(VertexId, VertexId, Weight) -> bool) -> Graph {
    match g.real_weights() {
        Some(real) => filter_edges_real(g, real, keep),
        None => filter_edges_int(g, keep),
    }
}

/// [`filter_edges`] of a real-weighted graph.
fn filter_edges_real(
    g: &Graph,
    real: &[f64],
    mut keep: impl FnMut(VertexId, VertexId, Weight) -> bool,
) -> Graph {
    let n = g.num_vertices();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(g.num_edges());
    let mut weights = Vec::with_capacity(g.num_edges());
    for u in 0..n as VertexId {
        for e in g.edge_range(u) {
            let v = g.targets()[e];
            if keep(u, v, 1) {
                targets.push(v);
                weights.push(real[e]);
            }
        }
        offsets.push(targets.len() as u64);
    }
    assemble(offsets, targets, Some(weights), g.coords().cloned())
}

/// [`filter_edges`] of an unweighted or integer-weighted graph.
fn filter_edges_int(g: &Graph, mut keep: impl FnMut(VertexId, VertexId, Weight) -> bool) -> Graph {
    let n = g.num_vertices();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(g.num_edges());
    let mut weights = g.weights().map(|_| Vec::with_capacity(g.num_edges()));
    for u in 0..n as VertexId {
        for (v, w) in g.weighted_neighbors(u) {
            if keep(u, v, w) {
                targets.push(v);
                if let Some(ws) = weights.as_mut() {
                    ws.push(w);
                }
            }
        }
        offsets.push(targets.len() as u64);
    }
    assemble(offsets, targets, weights, g.coords().cloned())
}

/// Removes every self loop `(u, u)`.
pub fn drop_self_loops(g: &Graph) -> Graph {
    filter_edges(g, |u, v, _| u != v)
}

/// Sorts every adjacency list by target (then weight) and removes parallel
/// edges, keeping the one of least weight. On a symmetric graph the result
/// stays symmetric (both directions keep the same minimum). `O(m log d)`.
pub fn dedup_edges(g: &Graph) -> Graph {
    sorted_without_repeats(g, true)
}

/// Each adjacency list sorted by target (then weight) with only the first,
/// least-weight, edge to each target; self loops kept only if `keep_loops`.
/// One pass, so the peak is two graphs (see `memory::LoadPlan::simplify`).
fn sorted_without_repeats(g: &Graph, keep_loops: bool) -> Graph {
    by_kind!(g, sorted_without_repeats_w(g, keep_loops))
}

fn sorted_without_repeats_w<W: WeightType + Plain>(g: &Graph, keep_loops: bool) -> Graph {
    let n = g.num_vertices();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(g.num_edges());
    let mut weights = W::of(g).map(|_| Vec::with_capacity(g.num_edges()));
    let mut list: Vec<(VertexId, W)> = Vec::new();
    for u in 0..n as VertexId {
        list.clear();
        list.extend(g.weighted_neighbors_as::<W>(u).filter(|&(v, _)| keep_loops || v != u));
        list.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        list.dedup_by_key(|&mut (v, _)| v);
        for &(v, w) in &list {
            targets.push(v);
            if let Some(ws) = weights.as_mut() {
                ws.push(w);
            }
        }
        offsets.push(targets.len() as u64);
    }
    targets.shrink_to_fit();
    if let Some(ws) = weights.as_mut() {
        ws.shrink_to_fit();
    }
    assemble(offsets, targets, weights, g.coords().cloned())
}

/// [`dedup_edges`] of a graph the caller gives up: the lists are sorted and
/// compacted inside the graph's own arrays (copied first only when they are
/// borrowed, e.g. from a mapped file), so the peak is one graph, not two.
pub fn dedup_edges_owned(g: Graph) -> Graph {
    sorted_without_repeats_in_place(g, true)
}

/// [`simplify`] of a graph the caller gives up, in its own arrays as
/// [`dedup_edges_owned`].
pub fn simplify_owned(g: Graph) -> Graph {
    sorted_without_repeats_in_place(g, false)
}

/// [`sorted_without_repeats`] inside the graph's arrays: each list is read
/// into a scratch buffer, sorted and deduplicated, and written back at the
/// end of the lists already done, which never lies past its own start (a
/// list only shrinks), so nothing unread is overwritten. The offset array
/// is rewritten in the same pass, `offsets[v + 1]` read before it is
/// replaced.
fn sorted_without_repeats_in_place(g: Graph, keep_loops: bool) -> Graph {
    by_kind!(g, sorted_without_repeats_in_place_w(g, keep_loops))
}

fn sorted_without_repeats_in_place_w<W: WeightType + Plain>(g: Graph, keep_loops: bool) -> Graph {
    let (offsets, targets, weights, coords) = g.into_parts();
    let (mut offsets, mut targets) = (offsets.into_vec(), targets.into_vec());
    let mut weights: Option<Vec<W>> =
        weights.map(|w| W::unwrap(w).expect("weights of the kind dispatched on").into_vec());
    let n = offsets.len() - 1;
    let mut list: Vec<(VertexId, W)> = Vec::new();
    let mut end = 0usize;
    // The original offsets[u]: the array holds the new one by now.
    let mut start = 0usize;
    for u in 0..n {
        let next = offsets[u + 1] as usize;
        debug_assert!(end <= start, "a compacted list ends before the next one starts");
        list.clear();
        let weight = |e: usize| weights.as_ref().map_or(W::ONE, |w| w[e]);
        list.extend(
            (start..next).map(|e| (targets[e], weight(e))).filter(|&(v, _)| keep_loops || v as usize != u),
        );
        list.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        list.dedup_by_key(|&mut (v, _)| v);
        for &(v, w) in &list {
            targets[end] = v;
            if let Some(ws) = weights.as_mut() {
                ws[end] = w;
            }
            end += 1;
        }
        // The original offsets[u + 1] was read above, before this write.
        offsets[u + 1] = end as u64;
        start = next;
    }
    targets.truncate(end);
    targets.shrink_to_fit();
    if let Some(ws) = weights.as_mut() {
        ws.truncate(end);
        ws.shrink_to_fit();
    }
    assemble(offsets, targets, weights, coords)
}

/// Sorts every adjacency list by target (then weight), keeping all edges.
pub fn sort_adjacency(g: &Graph) -> Graph {
    by_kind!(g, sort_adjacency_w(g))
}

fn sort_adjacency_w<W: WeightType + Plain>(g: &Graph) -> Graph {
    let n = g.num_vertices();
    let mut targets = Vec::with_capacity(g.num_edges());
    let mut weights = W::of(g).map(|_| Vec::with_capacity(g.num_edges()));
    let mut list: Vec<(VertexId, W)> = Vec::new();
    for u in 0..n as VertexId {
        list.clear();
        list.extend(g.weighted_neighbors_as::<W>(u));
        list.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        for &(v, w) in &list {
            targets.push(v);
            if let Some(ws) = weights.as_mut() {
                ws.push(w);
            }
        }
    }
    assemble(g.offsets().to_vec(), targets, weights, g.coords().cloned())
}

/// The simple version of `g` (directed or not): no self loops, no parallel
/// edges (the least weight kept), adjacency lists sorted by target.
pub fn simplify(g: &Graph) -> Graph {
    sorted_without_repeats(g, false)
}

/// The simple undirected version of `g`: symmetrized, without self loops or
/// parallel edges (least weight kept), adjacency lists sorted by target.
///
/// Memory: a graph that already is that (a Kronecker graph, a symmetrized
/// and simplified file) is copied once, after a check that needs nothing
/// beyond the graph; any other is symmetrized into a new graph, which is
/// then simplified in its own arrays, so the peak is the input plus the
/// symmetrized graph (rather than plus a simplified copy too).
pub fn symmetrize_simple(g: &Graph) -> Graph {
    if is_simple_undirected(g) {
        return g.clone();
    }
    simplify_owned(symmetrize(g))
}

/// Whether `g` is its own [`symmetrize_simple`]: every adjacency list
/// strictly increasing (sorted, no parallel edge), no self loop, and the
/// reverse of every edge present with the same weight. `O(m log d)` time
/// (a binary search per edge) and no memory beyond the graph.
pub fn is_simple_undirected(g: &Graph) -> bool {
    by_kind!(g, is_simple_undirected_w(g))
}

fn is_simple_undirected_w<W: WeightType + Plain>(g: &Graph) -> bool {
    let n = g.num_vertices() as VertexId;
    let sorted_without_loops = (0..n).all(|u| {
        let list = g.neighbors(u);
        list.windows(2).all(|p| p[0] < p[1]) && list.binary_search(&u).is_err()
    });
    sorted_without_loops
        && (0..n).all(|u| {
            g.weighted_neighbors_as::<W>(u).all(|(v, w)| match g.neighbors(v).binary_search(&u) {
                Ok(i) => W::of(g).is_none_or(|ws| ws[g.edge_range(v).start + i] == w),
                Err(_) => false,
            })
        })
}

/// Adds the reverse of every non-loop edge, builds the CSR, then sorts each
/// adjacency list and drops parallel edges, keeping the least weight
/// ([`crate::transform::dedup_edges_owned`], in the CSR's own arrays).
/// Reversing at the edge-list level builds the CSR once instead of twice.
pub(crate) fn symmetrize_edge_list(mut el: EdgeList) -> crate::Result<Graph> {
    let m = el.len();
    let loops = el.src.iter().zip(&el.dst).filter(|(u, v)| u == v).count();
    el.src.reserve_exact(m - loops);
    el.dst.reserve_exact(m - loops);
    if let Some(w) = &mut el.weights {
        w.reserve_exact(m - loops);
    }
    if let Some(w) = &mut el.real_weights {
        w.reserve_exact(m - loops);
    }
    for i in 0..m {
        let (u, v) = (el.src[i], el.dst[i]);
        if u != v {
            if let Some(real) = &el.real_weights {
                let w = real[i];
                el.push_real(v, u, w);
            } else {
                let w = el.weights.as_ref().map_or(0, |w| w[i]);
                el.push(v, u, w);
            }
        }
    }
    Ok(dedup_edges_owned(el.into_graph()?))
}

/// Relabels the vertices: vertex `v` becomes `new_id[v]`, which must be a
/// permutation of `0..n` (checked; an error names the first bad entry). Each
/// adjacency list keeps its order; coordinates move with their vertices.
pub fn permute(g: &Graph, new_id: &[VertexId]) -> crate::Result<Graph> {
    by_kind!(g, permute_w(g, new_id))
}

fn permute_w<W: WeightType + Plain>(g: &Graph, new_id: &[VertexId]) -> crate::Result<Graph> {
    let n = g.num_vertices();
    if new_id.len() != n {
        return Err(crate::GraphError::Invalid(format!(
            "permutation has {} entries for {n} vertices",
            new_id.len()
        )));
    }
    let mut old_of_new = vec![VertexId::MAX; n];
    for (old, &new) in new_id.iter().enumerate() {
        if new as usize >= n || old_of_new[new as usize] != VertexId::MAX {
            return Err(crate::GraphError::Invalid(format!(
                "entry {old} of the permutation ({new}) is out of range or repeated"
            )));
        }
        old_of_new[new as usize] = old as VertexId;
    }
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u64);
    let mut targets = Vec::with_capacity(g.num_edges());
    let mut weights = W::of(g).map(|_| Vec::with_capacity(g.num_edges()));
    for &old in &old_of_new {
        targets.extend(g.neighbors(old).iter().map(|&v| new_id[v as usize]));
        if let (Some(ws), Some(w)) = (weights.as_mut(), W::of(g).map(|w| &w[g.edge_range(old)])) {
            ws.extend_from_slice(w);
        }
        offsets.push(targets.len() as u64);
    }
    let coords = g.coords().map(|c| {
        let x = old_of_new.iter().map(|&o| c.x[o as usize]).collect();
        let y = old_of_new.iter().map(|&o| c.y[o as usize]).collect();
        Coordinates::new(c.system, x, y)
    });
    Ok(assemble(offsets, targets, weights, coords))
}

/// The subgraph induced by the vertices with `keep[v]`, renumbered densely in
/// increasing order of their old ids, and the old id of each new vertex.
///
/// # Panics
/// If `keep.len()` differs from the vertex count (a programming error).
pub fn induced_subgraph(g: &Graph, keep: &[bool]) -> (Graph, Vec<VertexId>) {
    by_kind!(g, induced_subgraph_w(g, keep))
}

fn induced_subgraph_w<W: WeightType + Plain>(g: &Graph, keep: &[bool]) -> (Graph, Vec<VertexId>) {
    let n = g.num_vertices();
    assert_eq!(keep.len(), n, "keep mask has {} entries for {n} vertices", keep.len());
    let mut new_id = vec![VertexId::MAX; n];
    let mut old_ids = Vec::new();
    for v in 0..n {
        if keep[v] {
            new_id[v] = old_ids.len() as VertexId;
            old_ids.push(v as VertexId);
        }
    }
    let mut offsets = Vec::with_capacity(old_ids.len() + 1);
    offsets.push(0u64);
    let mut targets = Vec::new();
    let mut weights = W::of(g).map(|_| Vec::new());
    for &old in &old_ids {
        for (v, w) in g.weighted_neighbors_as::<W>(old) {
            if keep[v as usize] {
                targets.push(new_id[v as usize]);
                if let Some(ws) = weights.as_mut() {
                    ws.push(w);
                }
            }
        }
        offsets.push(targets.len() as u64);
    }
    let coords = g.coords().map(|c| {
        let x = old_ids.iter().map(|&o| c.x[o as usize]).collect();
        let y = old_ids.iter().map(|&o| c.y[o as usize]).collect();
        Coordinates::new(c.system, x, y)
    });
    (assemble(offsets, targets, weights, coords), old_ids)
}

/// Weakly connected component label of every vertex: the smallest vertex id
/// in its component.
pub fn weak_component_labels(g: &Graph) -> Vec<VertexId> {
    let n = g.num_vertices();
    let mut sets = UnionFind::new(n);
    for (u, v, _) in g.edges() {
        sets.union(u, v);
    }
    let mut smallest = vec![VertexId::MAX; n];
    let mut label = vec![0; n];
    for v in 0..n as VertexId {
        let r = sets.find(v) as usize;
        if smallest[r] == VertexId::MAX {
            smallest[r] = v;
        }
        label[v as usize] = smallest[r];
    }
    label
}

/// The largest weakly connected component (ties: the one holding the
/// smallest vertex id) as its own graph, with the old id of each vertex.
pub fn largest_weak_component(g: &Graph) -> (Graph, Vec<VertexId>) {
    let n = g.num_vertices();
    let labels = weak_component_labels(g);
    let mut sizes = vec![0u32; n];
    for &l in &labels {
        sizes[l as usize] += 1;
    }
    let best = (0..n).max_by_key(|&v| (sizes[v], std::cmp::Reverse(v))).map_or(0, |v| v as VertexId);
    let keep: Vec<bool> = labels.iter().map(|&l| l == best).collect();
    induced_subgraph(g, &keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    fn graph(n: usize, edges: &[(u32, u32, u32)]) -> Graph {
        let mut el = EdgeList::new(n, true);
        for &(u, v, w) in edges {
            el.push(u, v, w);
        }
        el.into_graph().unwrap()
    }

    #[test]
    fn symmetrize_adds_reverse_edges_once() {
        let g = graph(3, &[(0, 1, 4), (1, 1, 9), (2, 0, 5)]);
        let s = symmetrize(&g);
        assert_eq!(
            s.edges().collect::<Vec<_>>(),
            vec![(0, 1, 4), (0, 2, 5), (1, 1, 9), (1, 0, 4), (2, 0, 5)]
        );
    }

    #[test]
    fn dedup_keeps_least_weight() {
        let g = graph(2, &[(0, 1, 7), (0, 1, 3), (0, 0, 1), (0, 1, 5)]);
        assert_eq!(dedup_edges(&g).edges().collect::<Vec<_>>(), vec![(0, 0, 1), (0, 1, 3)]);
    }

    #[test]
    fn simple_undirected_graphs_are_recognised_and_kept() {
        let undirected = graph(3, &[(0, 1, 4), (0, 2, 5), (1, 0, 4), (2, 0, 5)]);
        assert!(is_simple_undirected(&undirected));
        assert_eq!(symmetrize_simple(&undirected), undirected);
        let cases = [
            graph(3, &[(0, 2, 5), (0, 1, 4), (1, 0, 4), (2, 0, 5)]), // unsorted
            graph(3, &[(0, 1, 4), (0, 2, 5), (1, 0, 3), (2, 0, 5)]), // weights differ
            graph(3, &[(0, 1, 4), (0, 2, 5), (2, 0, 5)]),            // a reverse missing
            graph(3, &[(0, 1, 4), (1, 0, 4), (2, 2, 1)]),            // a self loop
            graph(3, &[(0, 1, 4), (0, 1, 4), (1, 0, 4), (1, 0, 4)]), // parallel edges
        ];
        for g in cases {
            assert!(!is_simple_undirected(&g), "{g:?}");
            let reference = simplify(&symmetrize(&g));
            assert_eq!(symmetrize_simple(&g), reference, "{g:?}");
            assert!(is_simple_undirected(&reference), "{g:?}");
        }
    }

    #[test]
    fn in_place_dedup_and_simplify_match_the_copying_ones() {
        // A pseudo-random multigraph with loops, repeats and empty lists.
        for (n, m) in [(1u32, 3usize), (9, 0), (13, 200), (40, 900)] {
            let mut edges = Vec::new();
            let mut x = 99u64 + n as u64;
            for _ in 0..m {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                edges.push(((x >> 40) as u32 % n, (x >> 20) as u32 % (n / 2 + 1), (x >> 8) as u32 % 5));
            }
            let g = graph(n as usize, &edges);
            let mut unweighted = g.clone();
            unweighted.clear_weights();
            for h in [&g, &unweighted] {
                assert_eq!(dedup_edges_owned(h.clone()), dedup_edges(h), "n {n}, m {m}");
                assert_eq!(simplify_owned(h.clone()), simplify(h), "n {n}, m {m}");
            }
            assert_eq!(dedup_edges_owned(unweighted.clone()).targets(), dedup_edges(&g).targets());
        }
    }

    #[test]
    fn symmetrize_edge_list_adds_reverse_and_drops_parallel_edges() {
        let mut el = EdgeList::new(3, true);
        for (u, v, w) in [(0, 1, 5), (1, 0, 3), (1, 2, 7), (2, 2, 1)] {
            el.push(u, v, w);
        }
        let g = symmetrize_edge_list(el).unwrap();
        assert_eq!(
            g.edges().collect::<Vec<_>>(),
            vec![(0, 1, 3), (1, 0, 3), (1, 2, 7), (2, 1, 7), (2, 2, 1)]
        );
    }
}
