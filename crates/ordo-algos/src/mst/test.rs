//! Unit tests of the MSF module: Kruskal on graphs drawn here and against
//! an independent Prim on random graphs, the checks, Boruvka and
//! filter-Kruskal on small inputs (the scheduler × thread matrix and the
//! generated inputs are in `tests/mst.rs`).

use ordo_exec::{ExecOptions, Pool};
use ordo_graph::{EdgeList, Graph};

use super::*;

fn graph(n: usize, edges: &[(u32, u32, u32)]) -> Graph {
    let mut el = EdgeList::new(n, true);
    for &(u, v, w) in edges {
        el.push(u, v, w);
    }
    el.into_graph().unwrap()
}

fn pairs(f: &SpanningForest) -> Vec<(u32, u32, u32)> {
    f.edges.iter().map(|e| (e.u, e.v, e.weight)).collect()
}

/// Prim's algorithm, O(n²) per tree, with the same total order: an
/// independent way to the unique MSF.
fn prim(g: &UndirectedGraph) -> Vec<MsfEdge> {
    let n = g.num_vertices();
    let mut in_tree = vec![false; n];
    let mut best: Vec<Option<MsfEdge>> = vec![None; n];
    let mut out = Vec::new();
    for start in 0..n {
        if in_tree[start] {
            continue;
        }
        let mut next = Some(start);
        while let Some(x) = next {
            in_tree[x] = true;
            for e in g.incident(x as u32) {
                let y = if e.u as usize == x { e.v } else { e.u } as usize;
                if !in_tree[y] && best[y].is_none_or(|b| e < b) {
                    best[y] = Some(e);
                }
            }
            next = (0..n).filter(|&y| !in_tree[y] && best[y].is_some()).min_by_key(|&y| best[y].unwrap());
            if let Some(y) = next {
                out.push(best[y].unwrap());
            }
        }
    }
    out
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn msf_edge_order_is_weight_then_endpoints() {
    let e = MsfEdge::new(7, 3, 10);
    assert_eq!((e.u, e.v), (3, 7));
    assert!(MsfEdge::new(0, 9, 1) < MsfEdge::new(0, 1, 2));
    assert!(MsfEdge::new(0, 2, 5) < MsfEdge::new(1, 2, 5));
    assert!(MsfEdge::new(0, 1, 5) < MsfEdge::new(2, 0, 5));
}

#[test]
fn undirected_graph_symmetrizes_and_keeps_least_weight() {
    // 0->1 (9), 1->0 (4), 0->0 loop, 2->1 (6) only one way.
    let g = UndirectedGraph::new(&graph(3, &[(0, 1, 9), (1, 0, 4), (0, 0, 1), (2, 1, 6)]));
    assert_eq!(g.num_edges(), 2);
    let edges: Vec<_> = g.edges().map(|e| (e.u, e.v, e.weight)).collect();
    assert_eq!(edges, vec![(0, 1, 4), (1, 2, 6)]);
    // Unweighted input: weight 1.
    let mut el = EdgeList::new(3, false);
    el.push(0, 2, 0);
    let g = UndirectedGraph::new(&el.into_graph().unwrap());
    assert_eq!(g.edges().map(|e| e.weight).collect::<Vec<_>>(), vec![1]);
}

#[test]
fn kruskal_on_hand_made_graphs() {
    // Square with a diagonal, worked by hand: take 1-2 (1), 0-3 (2), 0-2 (3).
    let g = UndirectedGraph::new(&graph(4, &[(0, 1, 4), (1, 2, 1), (2, 3, 5), (3, 0, 2), (0, 2, 3)]));
    let r = kruskal(&g);
    assert_eq!(pairs(&r.forest), vec![(0, 2, 3), (0, 3, 2), (1, 2, 1)]);
    assert_eq!((r.forest.total_weight, r.forest.components), (6, 1));

    // Two components plus an isolated vertex 5: {0,1,2} and {3,4}.
    let g = UndirectedGraph::new(&graph(6, &[(0, 1, 7), (1, 2, 7), (2, 0, 7), (3, 4, 100), (4, 3, 1)]));
    let r = kruskal(&g);
    // All three triangle edges tie at 7: (7,0,1) < (7,0,2) < (7,1,2). 3-4 keeps weight 1.
    assert_eq!(pairs(&r.forest), vec![(0, 1, 7), (0, 2, 7), (3, 4, 1)]);
    assert_eq!((r.forest.total_weight, r.forest.components), (15, 3));
    assert_eq!(r.forest.nontrivial_components(6), 2);
    assert_eq!(r.forest.useful_tasks(6), 5);

    // No edges at all, and the empty graph.
    let r = kruskal(&UndirectedGraph::new(&graph(3, &[])));
    assert_eq!((r.forest.edges.len(), r.forest.components, r.forest.total_weight), (0, 3, 0));
    let r = kruskal(&UndirectedGraph::new(&graph(0, &[])));
    assert_eq!((r.forest.edges.len(), r.forest.components), (0, 0));
}

#[test]
fn kruskal_equals_prim_on_random_graphs() {
    let mut rng = Rng(5);
    for trial in 0..200 {
        let n = 1 + rng.below(40) as usize;
        let m = rng.below(120);
        // Few distinct weights in half the trials: many ties.
        let wmax = if trial % 2 == 0 { 3 } else { 1000 };
        let edges: Vec<_> = (0..m)
            .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, 1 + rng.below(wmax) as u32))
            .collect();
        let g = UndirectedGraph::new(&graph(n, &edges));
        let r = kruskal(&g);
        let expected = SpanningForest::from_edges(n, prim(&g));
        compare_forests(&expected, &r.forest).unwrap();
        check_spanning_forest(&g, &r.forest).unwrap();
    }
}

#[test]
fn checks_reject_wrong_forests() {
    let g = UndirectedGraph::new(&graph(4, &[(0, 1, 4), (1, 2, 1), (2, 3, 5), (3, 0, 2), (0, 2, 3)]));
    let good = kruskal(&g).forest;
    let edit = |f: &dyn Fn(&mut Vec<MsfEdge>)| {
        let mut edges = good.edges.clone();
        f(&mut edges);
        SpanningForest::from_edges(4, edges)
    };
    // A heavier spanning tree: 0-1 instead of 0-2.
    let heavier = edit(&|e| e[0] = MsfEdge::new(0, 1, 4));
    check_spanning_forest(&g, &heavier).unwrap();
    assert_eq!(compare_forests(&good, &heavier), Err(MstError::Weight { expected: 6, got: 7 }));
    // Same weight, different edges: swap weights so the sum is kept but the set differs.
    let mut same_weight = good.clone();
    same_weight.edges[0] = MsfEdge::new(0, 1, 3);
    assert!(matches!(compare_forests(&good, &same_weight), Err(MstError::Edge { index: 0, .. })));
    assert!(matches!(
        check_spanning_forest(&g, &same_weight),
        Err(MstError::NotAGraphEdge { u: 0, v: 1, .. })
    ));
    // Missing an edge.
    let short = edit(&|e| {
        e.pop();
    });
    assert!(matches!(compare_forests(&good, &short), Err(MstError::Weight { .. })));
    assert_eq!(check_spanning_forest(&g, &short), Err(MstError::Components { expected: 1, got: 2 }));
    // A cycle: 0-2, 0-3, 2-3.
    let cyclic = edit(&|e| e[2] = MsfEdge::new(2, 3, 5));
    assert_eq!(check_spanning_forest(&g, &cyclic), Err(MstError::Cycle { u: 2, v: 3 }));
    // Recorded totals that disagree with the edges.
    let mut lying = good.clone();
    lying.total_weight += 1;
    assert!(matches!(
        check_spanning_forest(&g, &lying),
        Err(MstError::Inconsistent { field: "total_weight", .. })
    ));
}

#[test]
fn boruvka_equals_kruskal_on_small_random_graphs() {
    let pool = Pool::new(2).unwrap();
    let mut rng = Rng(77);
    for (i, sched) in ["strict", "obim", "fifo", "lifo"].iter().enumerate() {
        let spec = sched.parse().unwrap();
        for trial in 0..60 {
            let n = 1 + rng.below(50) as usize;
            let m = rng.below(150);
            let wmax = if (trial + i) % 2 == 0 { 2 } else { 500 };
            let edges: Vec<_> = (0..m)
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, 1 + rng.below(wmax) as u32))
                .collect();
            let g = UndirectedGraph::new(&graph(n, &edges));
            let (forest, stats) = boruvka(&pool, &spec, &g, &ExecOptions::default());
            let reference = kruskal(&g).forest;
            compare_forests(&reference, &forest).unwrap();
            check_spanning_forest(&g, &forest).unwrap();
            assert_eq!(stats.total.tasks - stats.total.stale_tasks, reference.useful_tasks(n), "{sched}");
        }
    }
}

#[test]
fn filter_kruskal_equals_kruskal_on_small_random_graphs_at_every_split_depth() {
    let mut rng = Rng(91);
    let mut splits = 0;
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for trial in 0..80 {
            let n = 1 + rng.below(60) as usize;
            let m = rng.below(600);
            // Ties in half the trials; weights near 2^31 in some, so that the
            // keys need 128 bits.
            let wmax = match trial % 4 {
                0 | 1 => 2,
                2 => 500,
                _ => u32::MAX as u64 / 2,
            };
            let edges: Vec<_> = (0..m)
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, 1 + rng.below(wmax) as u32))
                .collect();
            let g = UndirectedGraph::new(&graph(n, &edges));
            let reference = kruskal(&g).forest;
            // Sorting runs of at most 1, 8 or the default number of edges:
            // deep recursion, some, none.
            for sort_min in [1, 8, 1 << 14] {
                let run = filter_kruskal::filter_kruskal_with(&pool, &g, sort_min);
                let what = format!("trial {trial}, {threads} threads, sort_min {sort_min}");
                compare_forests(&reference, &run.forest).unwrap_or_else(|e| panic!("{what}: {e}"));
                check_spanning_forest(&g, &run.forest).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(run.scanned_edges <= g.num_edges() as u64, "{what}");
                assert_eq!(run.key_bits, 64, "{what}");
                splits += run.splits;
            }
        }
    }
    assert!(splits > 100, "the small limits split the edges: {splits} splits");
}

#[test]
fn filter_kruskal_on_hand_made_graphs() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // Two components plus an isolated vertex 5, ties at 7, a 3-4 pair kept at weight 1.
    let g = UndirectedGraph::new(&graph(6, &[(0, 1, 7), (1, 2, 7), (2, 0, 7), (3, 4, 100), (4, 3, 1)]));
    let run = filter_kruskal(&pool, &g);
    assert_eq!(pairs(&run.forest), vec![(0, 1, 7), (0, 2, 7), (3, 4, 1)]);
    assert_eq!((run.forest.total_weight, run.forest.components), (15, 3));
    // No edges, and the empty graph.
    let run = filter_kruskal(&pool, &UndirectedGraph::new(&graph(3, &[])));
    assert_eq!((run.forest.edges.len(), run.forest.components, run.forest.total_weight), (0, 3, 0));
    let run = filter_kruskal(&pool, &UndirectedGraph::new(&graph(0, &[])));
    assert_eq!((run.forest.edges.len(), run.forest.components), (0, 0));
    // Weights of 0 only, and the largest weight.
    let g = UndirectedGraph::new(&graph(3, &[(0, 1, 0), (1, 2, 0), (0, 2, 0)]));
    assert_eq!(pairs(&filter_kruskal(&pool, &g).forest), vec![(0, 1, 0), (0, 2, 0)]);
    let g = UndirectedGraph::new(&graph(3, &[(0, 1, u32::MAX), (1, 2, u32::MAX), (0, 2, 1)]));
    assert_eq!(pairs(&filter_kruskal(&pool, &g).forest), vec![(0, 1, u32::MAX), (0, 2, 1)]);
}

#[test]
fn filter_kruskal_with_128_bit_keys_on_a_wide_id_space() {
    // 2^17 vertices and weights of 32 bits: 17 + 17 + 32 bits do not fit 64.
    let n = 1usize << 17;
    let mut rng = Rng(3);
    let mut edges: Vec<_> = (0..4000)
        .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32, u32::MAX - rng.below(4) as u32))
        .collect();
    // A dense corner with ties, so that cycles are rejected too.
    edges.extend(
        (0..3000).map(|_| (rng.below(40) as u32, rng.below(40) as u32, u32::MAX - rng.below(3) as u32)),
    );
    let g = UndirectedGraph::new(&graph(n, &edges));
    let reference = kruskal(&g).forest;
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for sort_min in [1, 1 << 14] {
            let run = filter_kruskal::filter_kruskal_with(&pool, &g, sort_min);
            assert_eq!(run.key_bits, 128);
            compare_forests(&reference, &run.forest).unwrap();
            check_spanning_forest(&g, &run.forest).unwrap();
        }
    }
}
