//! Transforms and statistics against straightforward reference
//! implementations written here (multisets, maps, a plain BFS), on random
//! graphs from proptest and on generated graphs.

use std::collections::{BTreeMap, HashSet, VecDeque};

use ordo_graph::stats::{self, Reach};
use ordo_graph::transform::{self};
use ordo_graph::{CoordSystem, Coordinates, EdgeList, Graph};
use proptest::prelude::*;

type Edge = (u32, u32, u32);

fn sorted_edges(g: &Graph) -> Vec<Edge> {
    let mut e: Vec<Edge> = g.edges().collect();
    e.sort_unstable();
    e
}

fn build(n: usize, edges: &[Edge], coords: bool) -> Graph {
    let mut el = EdgeList::new(n, true);
    for &(u, v, w) in edges {
        el.push(u, v, w);
    }
    if coords {
        el.coords = Some(Coordinates::new(
            CoordSystem::Planar,
            (0..n).map(|i| i as f64).collect(),
            (0..n).map(|i| -(i as f64)).collect(),
        ));
    }
    el.into_graph().unwrap()
}

fn arb_graph() -> impl Strategy<Value = Graph> {
    (1usize..30).prop_flat_map(|n| {
        (prop::collection::vec((0..n as u32, 0..n as u32, 0u32..6), 0..90), any::<bool>())
            .prop_map(move |(edges, coords)| build(n, &edges, coords))
    })
}

/// Components of the undirected version of `g`, by BFS: label per vertex.
fn reference_components(g: &Graph) -> Vec<usize> {
    let n = g.num_vertices();
    let mut adj = vec![Vec::new(); n];
    for (u, v, _) in g.edges() {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    let mut label = vec![usize::MAX; n];
    for s in 0..n {
        if label[s] != usize::MAX {
            continue;
        }
        label[s] = s;
        let mut q = VecDeque::from([s]);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if label[v] == usize::MAX {
                    label[v] = s;
                    q.push_back(v);
                }
            }
        }
    }
    label
}

proptest! {
    #[test]
    fn transpose_reverses_every_edge(g in arb_graph()) {
        let t = transform::transpose(&g);
        let mut want: Vec<Edge> = g.edges().map(|(u, v, w)| (v, u, w)).collect();
        want.sort_unstable();
        prop_assert_eq!(sorted_edges(&t), want);
        prop_assert_eq!(t.coords(), g.coords());
        // In-edges in increasing source order.
        for v in 0..t.num_vertices() as u32 {
            prop_assert!(t.neighbors(v).windows(2).all(|p| p[0] <= p[1]));
        }
        prop_assert_eq!(sorted_edges(&transform::transpose(&t)), sorted_edges(&g));
    }

    #[test]
    fn symmetrize_adds_reverses_of_non_loops(g in arb_graph()) {
        let s = transform::symmetrize(&g);
        let mut want: Vec<Edge> = g.edges().collect();
        want.extend(g.edges().filter(|&(u, v, _)| u != v).map(|(u, v, w)| (v, u, w)));
        want.sort_unstable();
        prop_assert_eq!(sorted_edges(&s), want);
        prop_assert!(stats::is_symmetric(&s));
        // Each list starts with the vertex's original out-edges.
        for u in 0..g.num_vertices() as u32 {
            prop_assert_eq!(&s.neighbors(u)[..g.degree(u)], g.neighbors(u));
        }
    }

    #[test]
    fn is_symmetric_matches_the_edge_multiset(g in arb_graph(), mirror in any::<bool>()) {
        // Random graphs are rarely symmetric: half the cases use the graph
        // plus its transpose (symmetric), then possibly deduplicated (lists
        // sorted without repeats: the binary-search path) and with one
        // weight changed (no longer symmetric).
        let g = if mirror { transform::symmetrize(&g) } else { g };
        for h in [g.clone(), transform::dedup_edges(&g)] {
            let mut edges = sorted_edges(&h);
            let mut reversed: Vec<Edge> = edges.iter().map(|&(u, v, w)| (v, u, w)).collect();
            reversed.sort_unstable();
            prop_assert_eq!(stats::is_symmetric(&h), edges == reversed);
            if let Some(e) = edges.iter_mut().find(|e| e.0 != e.1) {
                e.2 += 1;
                let changed = build(h.num_vertices(), &edges, false);
                let changed = transform::dedup_edges(&changed);
                let edges = sorted_edges(&changed);
                let mut reversed: Vec<Edge> = edges.iter().map(|&(u, v, w)| (v, u, w)).collect();
                reversed.sort_unstable();
                prop_assert_eq!(stats::is_symmetric(&changed), edges == reversed);
            }
        }
    }

    #[test]
    fn dedup_and_simple_match_a_map(g in arb_graph()) {
        let mut least: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (u, v, w) in g.edges() {
            let e = least.entry((u, v)).or_insert(w);
            *e = (*e).min(w);
        }
        let want: Vec<Edge> = least.iter().map(|(&(u, v), &w)| (u, v, w)).collect();
        // Adjacency lists come out sorted, so CSR order is the sorted order.
        prop_assert_eq!(transform::dedup_edges(&g).edges().collect::<Vec<_>>(), want);

        let mut sym: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (u, v, w) in g.edges().filter(|&(u, v, _)| u != v) {
            for key in [(u, v), (v, u)] {
                let e = sym.entry(key).or_insert(w);
                *e = (*e).min(w);
            }
        }
        let want: Vec<Edge> = sym.iter().map(|(&(u, v), &w)| (u, v, w)).collect();
        let simple = transform::symmetrize_simple(&g);
        prop_assert_eq!(simple.edges().collect::<Vec<_>>(), want);
        prop_assert!(stats::is_symmetric(&simple));
    }

    #[test]
    fn self_loops_and_filters(g in arb_graph()) {
        let d = transform::drop_self_loops(&g);
        let want: Vec<Edge> = g.edges().filter(|&(u, v, _)| u != v).collect();
        prop_assert_eq!(d.edges().collect::<Vec<_>>(), want);
        let s = stats::graph_stats(&g);
        prop_assert_eq!(s.self_loops as usize, g.num_edges() - d.num_edges());
    }

    #[test]
    fn simplify_keeps_the_least_weight_of_each_pair_and_no_loop(g in arb_graph()) {
        // The reference: a map from (source, target) to the least weight,
        // whose order is the sorted adjacency order.
        let mut least: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (u, v, w) in g.edges().filter(|&(u, v, _)| u != v) {
            let e = least.entry((u, v)).or_insert(w);
            *e = (*e).min(w);
        }
        let want: Vec<Edge> = least.iter().map(|(&(u, v), &w)| (u, v, w)).collect();
        let simple = transform::simplify(&g);
        prop_assert_eq!(simple.num_vertices(), g.num_vertices());
        prop_assert_eq!(simple.edges().collect::<Vec<_>>(), want);
        let s = stats::graph_stats(&g);
        prop_assert_eq!(s.self_loops + s.parallel_edges, (g.num_edges() - simple.num_edges()) as u64);
        prop_assert_eq!(stats::graph_stats(&simple).parallel_edges, 0);
    }

    #[test]
    fn permute_relabels(g in arb_graph(), seed in any::<u64>()) {
        let n = g.num_vertices();
        // A permutation from sorting by a hash of the id.
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&v| (u64::from(v) ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut new_id = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        let p = transform::permute(&g, &new_id).unwrap();
        let mut want: Vec<Edge> =
            g.edges().map(|(u, v, w)| (new_id[u as usize], new_id[v as usize], w)).collect();
        want.sort_unstable();
        prop_assert_eq!(sorted_edges(&p), want);
        if let (Some(a), Some(b)) = (g.coords(), p.coords()) {
            for (old, &new) in new_id.iter().enumerate() {
                prop_assert_eq!(a.x[old], b.x[new as usize]);
            }
        }
    }

    #[test]
    fn components_and_largest_component(g in arb_graph()) {
        let labels = reference_components(&g);
        let distinct: HashSet<usize> = labels.iter().copied().collect();
        let mut sizes = BTreeMap::new();
        for &l in &labels {
            *sizes.entry(l).or_insert(0u64) += 1;
        }
        let largest = *sizes.values().max().unwrap();
        let c = stats::weak_components(&g);
        prop_assert_eq!(c.count as usize, distinct.len());
        prop_assert_eq!(c.largest, largest);

        let (sub, old) = transform::largest_weak_component(&g);
        prop_assert_eq!(sub.num_vertices() as u64, largest);
        let comp = labels[old[0] as usize];
        prop_assert!(old.iter().all(|&v| labels[v as usize] == comp));
        prop_assert!(old.windows(2).all(|p| p[0] < p[1]));
        let want: Vec<Edge> = g
            .edges()
            .filter(|&(u, _, _)| labels[u as usize] == comp)
            .map(|(u, v, w)| {
                let pos = |x: u32| old.binary_search(&x).unwrap() as u32;
                (pos(u), pos(v), w)
            })
            .collect();
        prop_assert_eq!(sub.edges().collect::<Vec<_>>(), want);
    }

    #[test]
    fn strong_components_match_mutual_reachability(g in arb_graph()) {
        let n = g.num_vertices();
        // reach[u][v]: v reachable from u, by BFS from every vertex.
        let reach: Vec<Vec<bool>> = (0..n as u32)
            .map(|s| {
                let mut seen = vec![false; n];
                seen[s as usize] = true;
                let mut q = VecDeque::from([s]);
                while let Some(u) = q.pop_front() {
                    for &v in g.neighbors(u) {
                        if !seen[v as usize] {
                            seen[v as usize] = true;
                            q.push_back(v);
                        }
                    }
                }
                seen
            })
            .collect();
        let mut comp = vec![usize::MAX; n];
        let mut sizes = Vec::new();
        for u in 0..n {
            if comp[u] == usize::MAX {
                let members: Vec<usize> = (0..n).filter(|&v| reach[u][v] && reach[v][u]).collect();
                for &v in &members {
                    comp[v] = sizes.len();
                }
                sizes.push(members.len() as u64);
            }
        }
        let c = stats::strong_components(&g);
        prop_assert_eq!(c.count as usize, sizes.len());
        prop_assert_eq!(c.largest, *sizes.iter().max().unwrap());
    }

    #[test]
    fn reachability_matches_bfs(g in arb_graph(), s in 0u32..30) {
        let n = g.num_vertices();
        if (s as usize) >= n {
            prop_assert_eq!(stats::reachable_from(&g, s), None);
        } else {
            let mut dist = vec![u64::MAX; n];
            dist[s as usize] = 0;
            let mut q = VecDeque::from([s]);
            while let Some(u) = q.pop_front() {
                for &v in g.neighbors(u) {
                    if dist[v as usize] == u64::MAX {
                        dist[v as usize] = dist[u as usize] + 1;
                        q.push_back(v);
                    }
                }
            }
            let reached = dist.iter().filter(|&&d| d != u64::MAX).count() as u64;
            let depth = dist.iter().copied().filter(|&d| d != u64::MAX).max().unwrap();
            prop_assert_eq!(stats::reachable_from(&g, s), Some(Reach { reached, max_level: depth }));
        }
    }

    #[test]
    fn stats_match_direct_computation(g in arb_graph()) {
        let s = stats::graph_stats(&g);
        let n = g.num_vertices();
        let mut deg: Vec<u64> = (0..n as u32).map(|v| g.degree(v) as u64).collect();
        deg.sort_unstable();
        let d = s.degree.unwrap();
        let rank = |p: usize| deg[(n * p).div_ceil(100).max(1) - 1];
        prop_assert_eq!((d.min, d.max), (deg[0], deg[n - 1]));
        prop_assert_eq!((d.p50, d.p90, d.p99), (rank(50), rank(90), rank(99)));
        prop_assert_eq!(d.zero_degree as usize, deg.iter().filter(|&&x| x == 0).count());
        if g.num_edges() > 0 {
            let w = g.weights().unwrap();
            let ws = s.weights.unwrap();
            let distinct: HashSet<u32> = w.iter().copied().collect();
            prop_assert_eq!(ws.distinct as usize, distinct.len());
            prop_assert_eq!(ws.min, *w.iter().min().unwrap());
            prop_assert_eq!(ws.max, *w.iter().max().unwrap());
        } else {
            prop_assert!(s.weights.is_none());
        }
        prop_assert_eq!(s.has_coords, g.coords().is_some());
    }
}

#[test]
fn permute_rejects_non_permutations() {
    let g = build(3, &[(0, 1, 1)], false);
    assert!(transform::permute(&g, &[0, 1]).is_err());
    assert!(transform::permute(&g, &[0, 0, 2]).unwrap_err().to_string().contains("entry 1"));
    assert!(transform::permute(&g, &[0, 1, 3]).is_err());
}

#[test]
fn generated_graphs_survive_transforms() {
    let g = "road:n=2000".parse::<ordo_graph::gen::GenSpec>().unwrap().generate().unwrap();
    // Road graphs are already simple and symmetric with sorted lists.
    assert_eq!(transform::symmetrize_simple(&g), g);
    assert_eq!(transform::transpose(&g), g);
    assert!(stats::is_symmetric(&g));
    let r = "rmat:scale=10,ef=8".parse::<ordo_graph::gen::GenSpec>().unwrap().generate().unwrap();
    assert!(!stats::is_symmetric(&r));
    assert!(stats::is_symmetric(&transform::symmetrize(&r)));
}
