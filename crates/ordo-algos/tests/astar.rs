//! A* on every registered scheduler × {1, 2, 4} threads × a road-like
//! generated graph (planar coordinates: Euclidean heuristic), a Kronecker
//! graph (no coordinates: zero heuristic, i.e. pruned SSSP) and the Andorra
//! road network with its DIMACS `.co` file (lon/lat: equirectangular
//! heuristic; skipped when absent, see `docs/data.md`). The distance must
//! equal Dijkstra's (stopped at the target) exactly, and the path must be a
//! path of the graph whose weights sum to it.

use ordo_algos::astar::{astar, check_path, dijkstra_to_target, far_target, Heuristic};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::{Graph, LoadOptions, VertexId};
use ordo_sched::SchedulerSpec;

/// One input with its searches `(source, target)` and expected heuristic.
struct Case {
    name: &'static str,
    graph: Graph,
    searches: Vec<(VertexId, VertexId)>,
    kind: &'static str,
}

fn generated(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

/// The far default target, plus two targets picked by a fixed stride.
fn searches(graph: &Graph, source: VertexId) -> Vec<(VertexId, VertexId)> {
    let n = graph.num_vertices() as u64;
    vec![
        (source, far_target(graph, source).unwrap()),
        (source, ((n * 2) / 3) as VertexId),
        ((n / 5) as VertexId, ((n * 7) / 9) as VertexId),
    ]
}

fn cases() -> Vec<Case> {
    let road = generated("road:n=6000,seed=11");
    let kron = generated("kron:scale=11,seed=5");
    // Kron's low ids may be isolated: start from the vertex of largest degree.
    let hub =
        (0..kron.num_vertices() as VertexId).max_by_key(|&v| (kron.degree(v), std::cmp::Reverse(v))).unwrap();
    let mut cases = vec![
        Case { name: "road", searches: searches(&road, 0), graph: road, kind: "euclidean" },
        Case { name: "kron", searches: searches(&kron, hub), graph: kron, kind: "zero" },
    ];
    if let Some(andorra) = ordo_graph::datasets::find("road/andorra.gr", "the Andorra road network case") {
        let graph = ordo_graph::load(&andorra, &LoadOptions::default()).unwrap();
        assert!(graph.coords().is_some(), "andorra.co is loaded beside andorra.gr");
        cases.push(Case { name: "andorra", searches: searches(&graph, 0), graph, kind: "equirectangular" });
    }
    cases
}

#[test]
fn astar_equals_dijkstra_on_every_scheduler() {
    let cases = cases();
    let mut prepared = Vec::new();
    for case in &cases {
        let h = Heuristic::for_graph(&case.graph);
        assert_eq!(h.kind().name(), case.kind, "{}", case.name);
        let wants: Vec<_> = case
            .searches
            .iter()
            .map(|&(s, t)| dijkstra_to_target(&case.graph, s, t).unwrap().distance)
            .collect();
        assert!(wants[0].is_some(), "{}: the far target is reachable", case.name);
        prepared.push((case, h, wants));
    }
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for name in SchedulerSpec::names() {
            let spec: SchedulerSpec = name.parse().unwrap();
            for (case, h, wants) in &prepared {
                for (&(s, t), want) in case.searches.iter().zip(wants) {
                    let what = format!("{} {s}->{t} on {name} x{threads}", case.name);
                    let (r, stats) = astar(&pool, &spec, &case.graph, s, t, h, &ExecOptions::default())
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(r.distance, *want, "{what}");
                    match r.distance {
                        Some(d) => check_path(&case.graph, s, t, &r.path, d)
                            .unwrap_or_else(|e| panic!("{what}: {e}")),
                        None => assert!(r.path.is_empty(), "{what}"),
                    }
                    assert!(stats.total.tasks >= 1, "{what}");
                }
            }
        }
    }
}

/// In exact order the heuristic must pay off: each vertex is expanded at
/// most about once and only if `g + h < D`, so A* expands no more vertices
/// than Dijkstra settles, and strictly fewer tasks than with `h = 0`.
#[test]
fn the_heuristic_saves_work_in_exact_order() {
    let pool = Pool::new(1).unwrap();
    let spec: SchedulerSpec = "strict".parse().unwrap();
    for case in cases().iter().filter(|c| c.kind != "zero") {
        let h = Heuristic::for_graph(&case.graph);
        assert!(h.scale() > 0.0, "{}", case.name);
        let (s, t) = case.searches[0];
        let opts = ExecOptions::default();
        let (guided, guided_stats) = astar(&pool, &spec, &case.graph, s, t, &h, &opts).unwrap();
        let zero = Heuristic::zero(case.graph.num_vertices());
        let (blind, blind_stats) = astar(&pool, &spec, &case.graph, s, t, &zero, &opts).unwrap();
        assert_eq!(guided.distance, blind.distance, "{}", case.name);
        let settled = dijkstra_to_target(&case.graph, s, t).unwrap().settled;
        let expanded = guided_stats.total.tasks - guided_stats.total.stale_tasks;
        assert!(expanded <= settled, "{}: A* expanded {expanded}, Dijkstra settled {settled}", case.name);
        assert!(
            guided_stats.total.tasks < blind_stats.total.tasks,
            "{}: guided {} tasks, unguided {}",
            case.name,
            guided_stats.total.tasks,
            blind_stats.total.tasks
        );
        eprintln!(
            "{}: {s}->{t} distance {:?}, tasks guided {} / h=0 {} / Dijkstra settled {settled} ({:?}, scale {})",
            case.name,
            guided.distance,
            guided_stats.total.tasks,
            blind_stats.total.tasks,
            h.kind(),
            h.scale()
        );
    }
}

/// Many small inputs on 4 threads per scheduler: road-like graphs of
/// varying seeds (Euclidean heuristic) and grids with zero and tiny weights
/// (many equal distances and zero-weight cycles for the path rebuilding).
#[test]
fn many_small_searches_on_four_threads() {
    let pool = Pool::new(4).unwrap();
    let inputs: Vec<Graph> = (0..6)
        .map(|seed| generated(&format!("road:n={},seed={seed}", 200 + 150 * seed)))
        .chain((0..4).map(|seed| generated(&format!("grid:w=15,h=12,wmin=0,wmax={},seed={seed}", 1 + seed))))
        .collect();
    let prepared: Vec<_> = inputs
        .iter()
        .map(|g| {
            let n = g.num_vertices() as VertexId;
            let pairs = [(0, far_target(g, 0).unwrap()), (n / 3, n - 1), (n / 2, n / 7)];
            let wants: Vec<_> =
                pairs.iter().map(|&(s, t)| dijkstra_to_target(g, s, t).unwrap().distance).collect();
            (g, Heuristic::for_graph(g), pairs, wants)
        })
        .collect();
    for name in SchedulerSpec::names() {
        let spec: SchedulerSpec = name.parse().unwrap();
        for (i, (g, h, pairs, wants)) in prepared.iter().enumerate() {
            for (&(s, t), want) in pairs.iter().zip(wants) {
                let (r, _) = astar(&pool, &spec, g, s, t, h, &ExecOptions::default()).unwrap();
                let what = format!("input {i} {s}->{t} on {name}");
                assert_eq!(r.distance, *want, "{what}");
                if let Some(d) = r.distance {
                    check_path(g, s, t, &r.path, d).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
            }
        }
    }
}

/// A graph with more vertices than `PARALLEL_COLLECT_MIN_LEN` gets its
/// distance labels written by every worker before the run
/// (`Pool::collect_indexed`): A* from a source in the last worker's block.
#[test]
fn per_vertex_labels_written_by_every_worker_give_exact_distances() {
    let graph = generated("road:n=70000,seed=13");
    let n = graph.num_vertices();
    assert!(n > ordo_exec::PARALLEL_COLLECT_MIN_LEN, "{n} vertices");
    let h = Heuristic::for_graph(&graph);
    for (s, t) in [((n - 5) as VertexId, 3), (7, (n - 1) as VertexId)] {
        let want = dijkstra_to_target(&graph, s, t).unwrap().distance;
        assert!(want.is_some(), "{s}->{t} is reachable");
        for threads in [2, 3] {
            let pool = Pool::new(threads).unwrap();
            let spec: SchedulerSpec = "auto".parse().unwrap();
            let (r, _) = astar(&pool, &spec, &graph, s, t, &h, &ExecOptions::default()).unwrap();
            assert_eq!(r.distance, want, "{s}->{t}, {threads} threads");
            check_path(&graph, s, t, &r.path, want.unwrap()).unwrap();
        }
    }
}
