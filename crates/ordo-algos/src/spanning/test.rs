//! Every variant's output is a spanning forest of its input (and a BFS
//! forest for the BFS variants), on small hand-drawn graphs and on torus,
//! random, k-graph and road-like inputs, at 1, 2 and 4 threads.

use ordo_graph::gen::GenSpec;
use ordo_graph::{EdgeList, Graph, VertexId};

use super::verify::{check_bfs_levels, check_spanning_forest, SpanError};
use super::{
    reference, simple, span_bfs, span_dfs, with_rayon, BatchPolicy, SpanOptions, SpanRun, Undirected,
};

fn graph(n: usize, edges: &[(VertexId, VertexId)]) -> Graph {
    let mut el = EdgeList::new(n, false);
    for &(u, v) in edges {
        el.push(u, v, 1);
    }
    el.into_graph().unwrap()
}

/// `edges` in both directions: a symmetric graph kept as it is (self loops
/// and parallel edges included).
fn symmetric(n: usize, edges: &[(VertexId, VertexId)]) -> Graph {
    let both: Vec<_> =
        edges.iter().flat_map(|&(u, v)| if u == v { vec![(u, v)] } else { vec![(u, v), (v, u)] }).collect();
    graph(n, &both)
}

fn generated(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate_with_threads(2).unwrap()
}

const POLICIES: [BatchPolicy; 7] = [
    BatchPolicy::Adaptive { max: 128 },
    BatchPolicy::Adaptive { max: 2048 },
    BatchPolicy::Fixed(1),
    BatchPolicy::Fixed(2),
    BatchPolicy::Fixed(7),
    BatchPolicy::Fixed(128),
    BatchPolicy::Fixed(2048),
];

fn check(what: &str, g: &Undirected<'_>, run: &SpanRun, bfs: bool) {
    let summary = check_spanning_forest(g, &run.parent).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(run.stats.components, summary.components, "{what}: component count");
    if bfs {
        check_bfs_levels(g, &run.parent).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// Every variant on `g` at 1, 2 and 4 threads.
fn all_variants(name: &str, input: &Graph) {
    let g = Undirected::new(input);
    for threads in [1, 2, 4] {
        let pool = ordo_steal::Pool::new(threads).unwrap();
        let rayon = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for batch in POLICIES {
            let options = SpanOptions { batch, ..SpanOptions::default() };
            check(&format!("{name} span_dfs {batch} t{threads}"), &g, &span_dfs(&pool, &g, &options), false);
            check(&format!("{name} span_bfs {batch} t{threads}"), &g, &span_bfs(&pool, &g, &options), true);
        }
        check(&format!("{name} simple dfs t{threads}"), &g, &simple::span_dfs(threads, &g), false);
        check(&format!("{name} simple bfs t{threads}"), &g, &simple::span_bfs(threads, &g), true);
        for batch in [1, 128] {
            check(
                &format!("{name} rayon dfs {batch} t{threads}"),
                &g,
                &with_rayon::span_dfs(&rayon, &g, batch),
                false,
            );
            check(
                &format!("{name} rayon bfs {batch} t{threads}"),
                &g,
                &with_rayon::span_bfs(&rayon, &g, batch),
                true,
            );
        }
    }
    for (what, parent, bfs) in [
        ("bfs_forest", reference::bfs_forest(&g), true),
        ("dfs_forest", reference::dfs_forest(&g), false),
        ("union_find_forest", reference::union_find_forest(&g), false),
    ] {
        check_spanning_forest(&g, &parent).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
        if bfs {
            check_bfs_levels(&g, &parent).unwrap_or_else(|e| panic!("{name} {what}: {e}"));
        }
    }
}

#[test]
fn hand_drawn_graphs() {
    all_variants("empty", &graph(0, &[]));
    all_variants("one vertex", &graph(1, &[]));
    all_variants("isolated vertices", &graph(6, &[]));
    // Three components: a triangle with a self loop and a doubled edge, a
    // path, an isolated vertex.
    all_variants(
        "components with loops and multi-edges",
        &symmetric(9, &[(0, 1), (1, 2), (2, 0), (1, 1), (0, 1), (3, 4), (4, 5), (5, 6), (6, 7)]),
    );
    // The same given one way only (symmetrized).
    all_variants(
        "directed input",
        &graph(9, &[(0, 1), (2, 1), (2, 0), (1, 1), (7, 6), (6, 5), (4, 5), (3, 4)]),
    );
    let star: Vec<_> = (1..3000).map(|v| (0, v)).collect();
    all_variants("star", &symmetric(3000, &star));
    let path: Vec<_> = (0..4999).map(|v| (v, v + 1)).collect();
    all_variants("path", &symmetric(5000, &path));
    let complete: Vec<_> = (0..40).flat_map(|u| (u + 1..40).map(move |v| (u, v))).collect();
    all_variants("complete", &symmetric(40, &complete));
}

#[test]
fn generated_graphs() {
    all_variants("torus", &generated("torus:w=120,h=90"));
    all_variants("random", &generated("random:n=20000,m=80000"));
    all_variants("random, many components", &generated("random:n=20000,m=8000"));
    all_variants("kgraph", &generated("kgraph:n=20000,k=4"));
    all_variants("road", &generated("road:n=20000"));
    all_variants("grid", &generated("grid:w=1000,h=3"));
}

#[test]
fn larger_inputs_two_threads() {
    for spec in ["torus:w=400,h=400", "kgraph:n=200000,k=4", "random:n=200000,m=800000"] {
        let input = generated(spec);
        let g = Undirected::new(&input);
        let pool = ordo_steal::Pool::new(2).unwrap();
        let run = span_dfs(&pool, &g, &SpanOptions::default());
        check(&format!("{spec} dfs"), &g, &run, false);
        assert!(run.stats.runtime.frames > 0, "{spec}: a parallel job ran");
        let run = span_bfs(&pool, &g, &SpanOptions::default());
        check(&format!("{spec} bfs"), &g, &run, true);
        assert!(run.stats.phases > 1, "{spec}: phased");
    }
}

#[test]
fn florida_roads_when_present() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/road/FLA.edges.gz");
    if !path.exists() {
        eprintln!("skipping FLA: {} not found (../shared/data absent)", path.display());
        return;
    }
    let input = ordo_graph::load(&path, &ordo_graph::LoadOptions::default()).unwrap();
    let g = Undirected::new(&input);
    assert!(g.was_symmetrized(), "FLA lists each road once");
    assert_eq!((g.num_vertices(), g.num_edges()), (1_070_376, 1_343_951));
    let pool = ordo_steal::Pool::new(2).unwrap();
    let run = span_dfs(&pool, &g, &SpanOptions::default());
    let summary = check_spanning_forest(&g, &run.parent).unwrap();
    assert_eq!(summary.components, 1, "FLA is connected");
    let run = span_bfs(&pool, &g, &SpanOptions::default());
    check("FLA bfs", &g, &run, true);
}

#[test]
fn the_checker_rejects_what_is_not_a_spanning_forest() {
    // Components {0, 1, 2} (a path) and {3, 4}.
    let input = symmetric(5, &[(0, 1), (1, 2), (3, 4)]);
    let g = Undirected::new(&input);
    let good = vec![0, 0, 1, 3, 3];
    assert_eq!(check_spanning_forest(&g, &good).unwrap().components, 2);
    let cases: Vec<(Vec<VertexId>, SpanError)> = vec![
        (vec![0, 0, 1, 3], SpanError::Length { expected: 5, got: 4 }),
        (vec![0, 0, 9, 3, 3], SpanError::ParentOutOfRange { vertex: 2, parent: 9 }),
        (vec![0, 0, 0, 3, 3], SpanError::NotANeighbour { vertex: 2, parent: 0 }),
        (vec![1, 0, 1, 3, 3], SpanError::Cycle { vertex: 0 }),
        (vec![0, 0, 2, 3, 3], SpanError::Roots { component: 0, roots: 2 }),
        (vec![0, 0, 1, 4, 3], SpanError::Cycle { vertex: 3 }),
    ];
    for (parent, want) in cases {
        assert_eq!(check_spanning_forest(&g, &parent), Err(want), "{parent:?}");
    }
    // No root at all in a component: 3 -> 4 -> 3 is a cycle; with a third
    // vertex, a component whose tree hangs off another component's root is
    // caught as a non-neighbour.
    let two = symmetric(4, &[(0, 1), (2, 3)]);
    let g2 = Undirected::new(&two);
    assert!(matches!(
        check_spanning_forest(&g2, &[0, 0, 1, 2]),
        Err(SpanError::NotANeighbour { vertex: 2, parent: 1 })
    ));
    // A spanning tree that is not a BFS tree: on the triangle 0-1-2, 2 hangs
    // below 1 although it is adjacent to the root.
    let tri = symmetric(3, &[(0, 1), (1, 2), (2, 0)]);
    let g3 = Undirected::new(&tri);
    let deep = vec![0, 0, 1];
    check_spanning_forest(&g3, &deep).unwrap();
    assert_eq!(
        check_bfs_levels(&g3, &deep),
        Err(SpanError::NotBfs { vertex: 2, depth: 2, distance: 1, root: 0 })
    );
}

#[test]
fn undirected_view_counts_edges_once() {
    let directed = generated("kgraph:n=1000,k=4");
    let g = Undirected::new(&directed);
    assert!(g.was_symmetrized());
    assert!(g.num_edges() <= 4000 && g.num_edges() > 3900, "{}", g.num_edges());
    let torus = generated("torus:w=10,h=10");
    let t = Undirected::new(&torus);
    assert!(!t.was_symmetrized());
    assert_eq!(t.num_edges(), 200);
}

#[test]
fn the_probe_finishes_small_components_without_jobs() {
    // 2000 components of 5 vertices each.
    let edges: Vec<_> = (0..2000u32).flat_map(|c| (0..4).map(move |i| (5 * c + i, 5 * c + i + 1))).collect();
    let input = symmetric(10_000, &edges);
    let g = Undirected::new(&input);
    let pool = ordo_steal::Pool::new(2).unwrap();
    let run = span_dfs(&pool, &g, &SpanOptions::default());
    check("islands", &g, &run, false);
    assert_eq!((run.stats.components, run.stats.parallel_components), (2000, 0));
    assert_eq!(run.stats.runtime.frames, 0);
}
