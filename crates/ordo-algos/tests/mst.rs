//! Boruvka MSF on every registered scheduler × {1, 2, 4} threads, and
//! filter-Kruskal at {1, 2, 4} threads (also on Kronecker and uniform random
//! graphs, where the pivot splits the edges), against
//! Kruskal, exactly: same weight, same edge count, same components, same
//! edge set (the total order `(weight, u, v)` makes the MSF unique), plus
//! the structural check and the task-count identity
//! `tasks − stale_tasks = useful_tasks` (one per merge and one per finished
//! non-trivial component). Inputs: a road-like graph, a directed R-MAT
//! multigraph (duplicate edges, self loops, isolated vertices, several
//! components), a grid with weights in 1..=2 (ties everywhere), and the
//! Luxembourg road network (`docs/data.md`) with its checked MST
//! weight. Then a stress test of concurrent merging on a small dense graph.

use ordo_algos::mst::{self, SpanningForest, UndirectedGraph};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::load::{load, LoadOptions, WeightSpec};
use ordo_graph::{EdgeList, Graph};
use ordo_sched::SchedulerSpec;

const THREADS: [usize; 3] = [1, 2, 4];

fn generate(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

/// Runs filter-Kruskal at every thread count and checks each run against
/// `reference` (already checked against the graph).
fn filter_kruskal_matches(name: &str, graph: &UndirectedGraph, reference: &SpanningForest) {
    for threads in THREADS {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let run = mst::filter_kruskal(&pool, graph);
        let what = format!("{name} by filter-Kruskal with {threads} threads");
        mst::compare_forests(reference, &run.forest).unwrap_or_else(|e| panic!("{what}: {e}"));
        mst::check_spanning_forest(graph, &run.forest).unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

/// Runs Boruvka on every scheduler and thread count, and filter-Kruskal at
/// every thread count, and checks each run against `reference` (already
/// checked against the graph).
fn every_scheduler_matches(name: &str, graph: &UndirectedGraph, reference: &SpanningForest) {
    filter_kruskal_matches(name, graph, reference);
    let n = graph.num_vertices();
    let opts = ExecOptions::default();
    for threads in THREADS {
        let pool = Pool::new(threads).unwrap();
        for sched in SchedulerSpec::names() {
            let spec: SchedulerSpec = sched.parse().unwrap();
            let (forest, stats) = mst::boruvka(&pool, &spec, graph, &opts);
            let what = format!("{name} on {sched} with {threads} threads");
            mst::compare_forests(reference, &forest).unwrap_or_else(|e| panic!("{what}: {e}"));
            mst::check_spanning_forest(graph, &forest).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                stats.total.tasks - stats.total.stale_tasks,
                reference.useful_tasks(n),
                "{what}: every non-stale task is a merge or the first finish of a component"
            );
        }
    }
}

/// Kruskal's forest, after checking it is a spanning forest of `graph`.
fn checked_reference(graph: &UndirectedGraph) -> SpanningForest {
    let reference = mst::kruskal(graph).forest;
    mst::check_spanning_forest(graph, &reference).unwrap();
    // The exact-order sequential Boruvka (the work baseline) agrees too.
    let exact = mst::boruvka_exact_order(graph);
    mst::compare_forests(&reference, &exact.forest).unwrap();
    assert_eq!(exact.tasks - exact.stale_tasks, reference.useful_tasks(graph.num_vertices()));
    reference
}

#[test]
fn road_like_graph_on_every_scheduler() {
    let g = UndirectedGraph::new(&generate("road:n=20000,seed=7"));
    let reference = checked_reference(&g);
    assert!(reference.edges.len() > 15_000, "a mostly connected road graph");
    every_scheduler_matches("road", &g, &reference);
}

#[test]
fn rmat_multigraph_with_self_loops_and_several_components() {
    let raw = generate("rmat:scale=12,ef=4,seed=3,wmax=50");
    let loops = raw.edges().filter(|(u, v, _)| u == v).count();
    let g = UndirectedGraph::new(&raw);
    assert!(loops > 0, "the input has self loops");
    let mut pairs: Vec<_> = raw.edges().map(|(u, v, _)| (u, v)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert!(pairs.len() < raw.num_edges(), "the input has repeated edges");
    let reference = checked_reference(&g);
    assert!(reference.components > 100, "R-MAT leaves many vertices isolated: {}", reference.components);
    assert!(reference.nontrivial_components(g.num_vertices()) >= 1);
    every_scheduler_matches("rmat", &g, &reference);
}

#[test]
fn disconnected_parts_of_a_hand_made_graph() {
    // Two triangles, a path, isolated vertices and a loop-only vertex.
    let mut el = EdgeList::new(12, true);
    for (u, v, w) in [(0, 1, 3), (1, 2, 3), (2, 0, 3), (4, 5, 9), (5, 6, 1), (6, 4, 2), (8, 9, 5), (9, 10, 5)]
    {
        el.push(u, v, w);
    }
    el.push(11, 11, 1);
    let g = UndirectedGraph::new(&el.into_graph().unwrap());
    let reference = checked_reference(&g);
    let edges: Vec<_> = reference.edges.iter().map(|e| (e.u, e.v, e.weight)).collect();
    assert_eq!(edges, vec![(0, 1, 3), (0, 2, 3), (4, 6, 2), (5, 6, 1), (8, 9, 5), (9, 10, 5)]);
    assert_eq!((reference.total_weight, reference.components), (19, 6));
    every_scheduler_matches("hand-made", &g, &reference);
}

#[test]
fn ties_everywhere_on_a_grid() {
    let g = UndirectedGraph::new(&generate("grid:w=120,h=100,wmin=1,wmax=2,seed=5"));
    let reference = checked_reference(&g);
    assert_eq!(reference.components, 1);
    every_scheduler_matches("grid with ties", &g, &reference);
}

#[test]
fn unweighted_graph_weighs_its_edge_count() {
    let mut el = EdgeList::new(5, false);
    for (u, v) in [(0, 1), (1, 2), (2, 0), (3, 4)] {
        el.push(u, v, 0);
    }
    let g = UndirectedGraph::new(&el.into_graph().unwrap());
    let reference = checked_reference(&g);
    assert_eq!((reference.total_weight, reference.edges.len(), reference.components), (3, 3, 2));
    every_scheduler_matches("unweighted", &g, &reference);
}

#[test]
fn luxembourg_road_network_has_its_checked_mst_weight() {
    let test = "luxembourg_road_network_has_its_checked_mst_weight";
    let Some(p) = ordo_graph::datasets::find("road/luxembourg.osm.graph", test) else { return };
    let raw =
        load(&p, &LoadOptions { weights: WeightSpec::EuclideanCeil, ..LoadOptions::default() }).unwrap();
    let g = UndirectedGraph::new(&raw);
    let reference = checked_reference(&g);
    // The data README's independently checked facts.
    assert_eq!((reference.total_weight, reference.edges.len()), (5_826_573, 114_598));
    every_scheduler_matches("luxembourg", &g, &reference);
}

/// Many runs on a small dense graph with few distinct weights, 4 threads:
/// most tasks contend for the same few roots, exercising the try-lock and
/// ordered-lock paths, stale tasks and concurrent path halving.
#[test]
fn stress_concurrent_merging_on_a_dense_graph() {
    let n = 48u32;
    let mut el = EdgeList::new(n as usize, true);
    let mut x: u64 = 2024;
    for u in 0..n {
        for v in u + 1..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            el.push(u, v, 1 + ((x >> 40) % 3) as u32);
        }
    }
    let g = UndirectedGraph::new(&el.into_graph().unwrap());
    let reference = checked_reference(&g);
    assert_eq!(reference.edges.len(), n as usize - 1);
    let pool = Pool::new(4).unwrap();
    for sched in SchedulerSpec::names() {
        let spec: SchedulerSpec = sched.parse().unwrap();
        for run in 0..40 {
            let (forest, stats) = mst::boruvka(&pool, &spec, &g, &ExecOptions::default());
            mst::compare_forests(&reference, &forest).unwrap_or_else(|e| panic!("{sched} run {run}: {e}"));
            assert_eq!(stats.total.tasks - stats.total.stale_tasks, reference.useful_tasks(n as usize));
        }
    }
}

/// Kronecker and uniform random graphs have many more edges than vertices:
/// filter-Kruskal splits at a pivot and filters most heavy edges.
#[test]
fn filter_kruskal_on_dense_kronecker_and_uniform_random_graphs() {
    for spec in
        ["kron:scale=13,seed=2", "random:n=5000,m=100000,wmax=100,seed=4", "kron:scale=12,wmax=2,seed=9"]
    {
        let g = UndirectedGraph::new(&generate(spec));
        assert!(g.num_edges() > 2 * g.num_vertices(), "{spec} is dense enough to split");
        let reference = checked_reference(&g);
        filter_kruskal_matches(spec, &g, &reference);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let run = mst::filter_kruskal(&pool, &g);
        let (splits, scanned) = (run.splits, run.scanned_edges);
        assert!(
            splits >= 1 && scanned < g.num_edges() as u64 / 2,
            "{spec}: {splits} splits, {scanned} scanned"
        );
    }
}
