//! Summary statistics of a graph (counts, degree distribution, weight range and
//! distinct weights, self loops) and connectivity facts (reachability from a
//! source with its BFS depth, weakly and strongly connected components,
//! symmetry), as printed by `ordo info`.

use crate::csr::{Graph, VertexId};
use crate::memory::WorkingMemory;
use crate::union_find::UnionFind;

/// Degree distribution summary.
#[derive(Clone, Debug, PartialEq)]
pub struct DegreeSummary {
    /// Smallest out-degree.
    pub min: u64,
    /// Largest out-degree.
    pub max: u64,
    /// Mean out-degree `m / n`.
    pub avg: f64,
    /// Median out-degree (nearest rank).
    pub p50: u64,
    /// 90th percentile (nearest rank).
    pub p90: u64,
    /// 99th percentile (nearest rank).
    pub p99: u64,
    /// Vertices with no out-edge.
    pub zero_degree: u64,
}

/// Edge weight summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightSummary {
    /// Smallest weight.
    pub min: u32,
    /// Largest weight.
    pub max: u32,
    /// Number of distinct weight values.
    pub distinct: u64,
    /// Sum of all weights.
    pub sum: u64,
}

/// The statistics `ordo info` prints.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphStats {
    /// Vertices.
    pub n: u64,
    /// Directed edges.
    pub m: u64,
    /// Out-degree distribution (`None` for the empty graph).
    pub degree: Option<DegreeSummary>,
    /// Edges `(u, u)`.
    pub self_loops: u64,
    /// Edges `(u, v)`, `u != v`, beyond the first from `u` to `v`: with
    /// the self loops, what [`crate::transform::simplify`] drops.
    pub parallel_edges: u64,
    /// Weight summary (`None` when unweighted or without edges).
    pub weights: Option<WeightSummary>,
    /// Whether vertex coordinates are present.
    pub has_coords: bool,
}

/// Computes the [`GraphStats`] of `g` in `O(n + m)` (distinct weights: a
/// bitmap when the largest weight is below 2^28, a sort otherwise; parallel
/// edges: a sort of each adjacency list that is not sorted already).
pub fn graph_stats(g: &Graph) -> GraphStats {
    let n = g.num_vertices();
    let degree = (n > 0).then(|| degree_summary(g));
    let self_loops =
        (0..n as VertexId).map(|u| g.neighbors(u).iter().filter(|&&v| v == u).count() as u64).sum();
    let weights = g.weights().filter(|w| !w.is_empty()).map(weight_summary);
    GraphStats {
        n: n as u64,
        m: g.num_edges() as u64,
        degree,
        self_loops,
        parallel_edges: parallel_edges(g),
        weights,
        has_coords: g.coords().is_some(),
    }
}

/// Edges other than loops that repeat an earlier edge's source and target.
fn parallel_edges(g: &Graph) -> u64 {
    let mut list = Vec::new();
    let mut repeats = 0;
    for u in 0..g.num_vertices() as VertexId {
        let mut targets = g.neighbors(u);
        if !targets.is_sorted() {
            list.clear();
            list.extend_from_slice(targets);
            list.sort_unstable();
            targets = &list;
        }
        repeats += targets.windows(2).filter(|pair| pair[0] == pair[1] && pair[0] != u).count() as u64;
    }
    repeats
}

fn nearest_rank(sorted_counts: &[u64], n: u64, pct: u64) -> u64 {
    // The smallest degree d such that at least pct% of vertices have degree <= d.
    let rank = (n * pct).div_ceil(100).max(1);
    let mut acc = 0;
    for (d, &c) in sorted_counts.iter().enumerate() {
        acc += c;
        if acc >= rank {
            return d as u64;
        }
    }
    sorted_counts.len() as u64 - 1
}

fn degree_summary(g: &Graph) -> DegreeSummary {
    let n = g.num_vertices();
    let offs = g.offsets();
    let max = offs.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let min = offs.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
    // Histogram of degrees (max degree <= m, bounded by the graph size).
    let mut hist = vec![0u64; max as usize + 1];
    for w in offs.windows(2) {
        hist[(w[1] - w[0]) as usize] += 1;
    }
    let nn = n as u64;
    DegreeSummary {
        min,
        max,
        avg: g.num_edges() as f64 / n as f64,
        p50: nearest_rank(&hist, nn, 50),
        p90: nearest_rank(&hist, nn, 90),
        p99: nearest_rank(&hist, nn, 99),
        zero_degree: hist[0],
    }
}

/// Min, max, distinct count and sum of a non-empty weight array.
pub fn weight_summary(w: &[u32]) -> WeightSummary {
    let min = w.iter().copied().min().unwrap_or(0);
    let max = w.iter().copied().max().unwrap_or(0);
    let sum = w.iter().map(|&x| u64::from(x)).sum();
    WeightSummary { min, max, distinct: distinct_count(w, max), sum }
}

fn distinct_count(w: &[u32], max: u32) -> u64 {
    if w.is_empty() {
        return 0;
    }
    if max < (1 << 28) {
        let mut bits = vec![0u64; max as usize / 64 + 1];
        for &x in w {
            bits[x as usize / 64] |= 1 << (x % 64);
        }
        bits.iter().map(|b| u64::from(b.count_ones())).sum()
    } else {
        let mut v = w.to_vec();
        v.sort_unstable();
        v.dedup();
        v.len() as u64
    }
}

/// What a breadth-first search from a source reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Vertices reachable from the source (the source included).
    pub reached: u64,
    /// Largest BFS level (hops from the source) among reached vertices.
    pub max_level: u64,
}

/// Vertices reachable from `source` along out-edges and the BFS depth; `None`
/// if `source` is not a vertex.
pub fn reachable_from(g: &Graph, source: VertexId) -> Option<Reach> {
    let n = g.num_vertices();
    if source as usize >= n {
        return None;
    }
    let mut seen = vec![false; n];
    seen[source as usize] = true;
    let mut frontier = vec![source];
    let mut next = Vec::new();
    let mut reached = 1u64;
    let mut level = 0u64;
    loop {
        for &u in &frontier {
            for &v in g.neighbors(u) {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level += 1;
        reached += next.len() as u64;
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
    }
    Some(Reach { reached, max_level: level })
}

/// Connected components: weakly (edges taken as undirected) or strongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Components {
    /// Number of components (isolated vertices count as one each).
    pub count: u64,
    /// Vertices in the largest component.
    pub largest: u64,
}

/// Counts the weakly connected components with union-find, `O(m α(n))`.
pub fn weak_components(g: &Graph) -> Components {
    let n = g.num_vertices();
    let mut sets = UnionFind::new(n);
    let mut count = n as u64;
    for u in 0..n as VertexId {
        for &v in g.neighbors(u) {
            if sets.union(u, v) {
                count -= 1;
            }
        }
    }
    let largest = (0..n as VertexId).map(|v| u64::from(sets.set_size(v))).max().unwrap_or(0);
    Components { count, largest }
}

/// Counts the strongly connected components with an iterative Tarjan
/// search (no recursion, so deep road graphs cannot overflow the stack),
/// `O(n + m)`.
pub fn strong_components(g: &Graph) -> Components {
    let n = g.num_vertices();
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<VertexId> = Vec::new();
    // Depth-first frames: (vertex, next edge index).
    let mut frames: Vec<(VertexId, usize)> = Vec::new();
    let mut counter = 0u32;
    let (mut count, mut largest) = (0u64, 0u64);
    for root in 0..n as VertexId {
        if index[root as usize] != UNSEEN {
            continue;
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        frames.push((root, g.edge_range(root).start));
        while let Some(frame) = frames.last_mut() {
            let v = frame.0;
            if frame.1 < g.edge_range(v).end {
                let w = g.targets()[frame.1];
                frame.1 += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    frames.push((w, g.edge_range(w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut size = 0u64;
                loop {
                    let x = stack.pop().expect("v is on the stack");
                    on_stack[x as usize] = false;
                    size += 1;
                    if x == v {
                        break;
                    }
                }
                count += 1;
                largest = largest.max(size);
            }
        }
    }
    Components { count, largest }
}

/// Whether every edge `(u, v, w)` has a reverse `(v, u, w)` with the same
/// weight, counting multiplicities. `O(m log d)` time.
///
/// When every adjacency list is sorted without repeats (the common case:
/// what the readers, generators and `.ordo` files of simple graphs give),
/// each edge's reverse is found by binary search in the other list, with
/// `8 n` bytes beyond the graph (the in-degree count): equal in- and
/// out-degrees and a reverse for every edge make the edge sets mirror
/// images, since a list without repeats holds each reverse at most once.
/// Otherwise `16 n + 8 m` bytes: the in-edges of every vertex as packed
/// `(source, weight)` keys, compared with its sorted out-edges one vertex at
/// a time.
pub fn is_symmetric(g: &Graph) -> bool {
    let n = g.num_vertices();
    let mut in_offsets = vec![0u64; n + 1];
    for &t in g.targets() {
        in_offsets[t as usize + 1] += 1;
    }
    for v in 0..n {
        in_offsets[v + 1] += in_offsets[v];
    }
    if in_offsets != g.offsets() {
        return false; // some in-degree differs from the out-degree
    }
    drop(in_offsets);
    if is_sorted_without_repeats(g) {
        has_every_reverse(g)
    } else {
        in_and_out_keys_equal(g)
    }
}

/// Whether every adjacency list is sorted without repeats (no parallel
/// edges). `O(m)` time, no memory.
pub fn is_sorted_without_repeats(g: &Graph) -> bool {
    (0..g.num_vertices() as VertexId).all(|v| g.neighbors(v).windows(2).all(|p| p[0] < p[1]))
}

/// Whether every edge `(u, v, w)` has a reverse `(v, u, w)`, for adjacency
/// lists sorted without repeats (found by binary search).
fn has_every_reverse(g: &Graph) -> bool {
    (0..g.num_vertices() as VertexId).all(|u| {
        let targets = g.neighbors(u);
        targets.iter().enumerate().all(|(i, &v)| match g.neighbors(v).binary_search(&u) {
            Ok(j) => match g.edge_weights(u) {
                Some(ws) => ws[i] == g.edge_weights(v).expect("a weighted graph weights every edge")[j],
                None => true,
            },
            Err(_) => false,
        })
    })
}

/// Whether every vertex's in-edges equal its out-edges as multisets of
/// `(other end, weight)`, for a graph whose in-degrees equal its out-degrees.
fn in_and_out_keys_equal(g: &Graph) -> bool {
    let n = g.num_vertices();
    let key = |v: VertexId, w: u32| (u64::from(v) << 32) | u64::from(w);
    let mut in_keys = vec![0u64; g.num_edges()];
    let mut cursor = g.offsets().to_vec();
    for u in 0..n as VertexId {
        for (v, w) in g.weighted_neighbors(u) {
            let slot = &mut cursor[v as usize];
            in_keys[*slot as usize] = key(u, w);
            *slot += 1;
        }
    }
    drop(cursor);
    let mut out_keys = Vec::new();
    (0..n as VertexId).all(|v| {
        out_keys.clear();
        out_keys.extend(g.weighted_neighbors(v).map(|(t, w)| key(t, w)));
        out_keys.sort_unstable();
        let ins = &mut in_keys[g.edge_range(v)];
        ins.sort_unstable();
        *ins == out_keys[..]
    })
}

/// Connectivity facts of a graph: its weak and strong components and
/// whether it is symmetric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connectivity {
    /// Weakly connected components ([`weak_components`]).
    pub weak: Components,
    /// Strongly connected components ([`strong_components`]).
    pub strong: Components,
    /// Whether every edge has its reverse with the same weight ([`is_symmetric`]).
    pub symmetric: bool,
}

/// The [`Connectivity`] of `g`. In a symmetric graph a path read backwards
/// is a path, so every weak component is strongly connected and the strong
/// components are the weak ones: Tarjan's search runs only on graphs that
/// are not symmetric (on a symmetric road graph of 24 M vertices it was a
/// third of `ordo info`'s statistics time).
pub fn connectivity(g: &Graph) -> Connectivity {
    let weak = weak_components(g);
    let symmetric = is_symmetric(g);
    let strong = if symmetric { weak } else { strong_components(g) };
    Connectivity { weak, strong, symmetric }
}

/// The memory `ordo info`'s statistics need beyond the graph: the search of
/// [`reachable_from`] (a flag and two frontiers: 9 bytes per vertex), which
/// may run beside the other steps, plus the largest of those (they run one
/// after the other): Tarjan's strongly connected components (index, low
/// link, on-stack flag, the vertex stack and the depth-first frames: 29
/// bytes per vertex), [`is_symmetric`] (16 bytes per vertex, 8 per edge,
/// plus one adjacency list), the degree histogram and the distinct weights
/// (at most 8 bytes per edge).
pub const WORKING_MEMORY: WorkingMemory = WorkingMemory { per_vertex: 9 + 32, per_edge: 16 };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    #[test]
    fn stats_of_a_small_graph() {
        let mut el = EdgeList::new(4, true);
        for &(u, v, w) in &[(0, 1, 5), (0, 2, 5), (0, 0, 9), (1, 2, 3), (2, 0, 7)] {
            el.push(u, v, w);
        }
        let g = el.into_graph().unwrap();
        let s = graph_stats(&g);
        assert_eq!((s.n, s.m, s.self_loops, s.parallel_edges), (4, 5, 1, 0));
        let d = s.degree.unwrap();
        assert_eq!((d.min, d.max, d.zero_degree, d.p50, d.p99), (0, 3, 1, 1, 3));
        assert_eq!(s.weights.unwrap(), WeightSummary { min: 3, max: 9, distinct: 4, sum: 29 });
        assert_eq!(reachable_from(&g, 1), Some(Reach { reached: 3, max_level: 2 }));
        assert_eq!(reachable_from(&g, 3), Some(Reach { reached: 1, max_level: 0 }));
        assert_eq!(reachable_from(&g, 4), None);
        assert_eq!(weak_components(&g), Components { count: 2, largest: 3 });
        assert!(!is_symmetric(&g));
    }

    #[test]
    fn distinct_count_paths_agree() {
        let w: Vec<u32> = (0..1000u32).map(|i| (i * 7919) % 313).collect();
        let mut sorted = w.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(distinct_count(&w, 312), sorted.len() as u64);
        let big: Vec<u32> = w.iter().map(|&x| x | (1 << 30)).collect();
        assert_eq!(distinct_count(&big, u32::MAX), sorted.len() as u64);
    }

    #[test]
    fn is_symmetric_matches_sorted_transpose_comparison() {
        use crate::transform::{sort_adjacency, transpose};
        // The definition: sorted adjacency equals sorted transpose.
        let reference = |g: &Graph| {
            let a = sort_adjacency(g);
            let b = sort_adjacency(&transpose(g));
            a.offsets() == b.offsets() && a.targets() == b.targets() && a.weights() == b.weights()
        };
        let mut x = 99u64;
        let mut next = |k: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as u32) % k
        };
        for n in [1u32, 2, 5, 20] {
            for weighted in [false, true] {
                for _ in 0..30 {
                    let mut el = EdgeList::new(n as usize, weighted);
                    for _ in 0..next(3 * n + 1) {
                        let (u, v, w) = (next(n), next(n), next(3));
                        el.push(u, v, w);
                        if next(4) != 0 {
                            el.push(v, u, if next(8) == 0 { w + 1 } else { w });
                        }
                    }
                    let g = el.into_graph().unwrap();
                    assert_eq!(is_symmetric(&g), reference(&g), "{:?}", g.edges().collect::<Vec<_>>());
                }
            }
        }
        let sym = crate::transform::symmetrize(&EdgeList::new(3, true).into_graph().unwrap());
        assert!(is_symmetric(&sym));
    }

    #[test]
    fn connectivity_of_symmetric_graphs_equals_tarjans_search() {
        let mut x = 7u64;
        let mut next = |k: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as u32) % k
        };
        let (mut symmetric_seen, mut directed_seen) = (0, 0);
        for n in [1u32, 3, 10, 40] {
            for _ in 0..40 {
                let mut el = EdgeList::new(n as usize, true);
                for _ in 0..next(2 * n + 1) {
                    el.push(next(n), next(n), 1 + next(5));
                }
                let directed = el.into_graph().unwrap();
                let symmetric = crate::transform::symmetrize(&directed);
                for g in [&directed, &symmetric] {
                    let c = connectivity(g);
                    assert_eq!(c.weak, weak_components(g));
                    assert_eq!(c.strong, strong_components(g), "{:?}", g.edges().collect::<Vec<_>>());
                    assert_eq!(c.symmetric, is_symmetric(g));
                    symmetric_seen += usize::from(c.symmetric && c.strong.count < u64::from(n));
                    directed_seen += usize::from(!c.symmetric && c.strong != c.weak);
                }
            }
        }
        // Both paths ran on graphs where they matter: symmetric graphs with
        // components of several vertices, and directed ones whose strong
        // components differ from their weak ones.
        assert!(symmetric_seen > 20 && directed_seen > 20, "{symmetric_seen} / {directed_seen}");
    }
}
