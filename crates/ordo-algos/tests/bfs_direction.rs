//! Direction-optimizing and top-down BFS against the queue BFS reference on
//! generated graphs (Kronecker, R-MAT directed, road-like, grid, uniform
//! random, k-out), disconnected graphs, a single vertex and an isolated
//! source, at 1, 2 and 4 threads, with every switching rule; the parent
//! trees pass the Graph500 check, and corrupted ones fail it. The `bfs`
//! application runs each kernel and verifies it.

use std::sync::Arc;

use ordo_algos::app::{Params, Prepared, RunEnv};
use ordo_algos::bfs::app::Bfs;
use ordo_algos::bfs::{bfs_direction, check_parent_tree, BfsTree, Switching, NO_PARENT};
use ordo_algos::{bfs_levels, AlgoError, UNREACHED_LEVEL};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::{EdgeList, Graph};

fn generated(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

/// The in-edges as `bfs_direction` wants them: the graph itself when
/// symmetric, else its transpose.
fn in_edges(g: &Graph) -> Graph {
    if ordo_graph::stats::is_symmetric(g) {
        g.clone()
    } else {
        ordo_graph::transform::transpose(g)
    }
}

/// Two directed paths, an undirected triangle apart from them, and
/// isolated vertices: most of it unreachable from 0.
fn disconnected() -> Graph {
    let mut el = EdgeList::new(12, false);
    for (u, v) in [(0, 1), (1, 2), (2, 3), (0, 4), (4, 3), (5, 6), (6, 7), (7, 5), (6, 5), (7, 6), (5, 7)] {
        el.push(u, v, 1);
    }
    el.push(9, 0, 1); // into the source only: never reached
    el.into_graph().unwrap()
}

/// Every switching rule: GAPBS's, top-down only, bottom-up from the first
/// step on and never back, and bottom-up with an early return.
const RULES: [Switching; 4] = [
    Switching::GAPBS,
    Switching::TopDownOnly,
    Switching::Heuristic { alpha: u64::MAX, beta: u64::MAX },
    Switching::Heuristic { alpha: u64::MAX, beta: 1 },
];

fn cases() -> Vec<(String, Graph, Vec<u32>)> {
    let mut out = Vec::new();
    for spec in [
        "kron:scale=11",
        "rmat:scale=11,ef=8",
        "road:n=3000",
        "grid:w=40,h=25",
        "random:n=2000,m=12000",
        "kgraph:n=1500,k=3",
    ] {
        let g = generated(spec);
        // A vertex with out-edges (kron leaves many isolated), and vertex 0.
        let busy = (0..g.num_vertices() as u32).max_by_key(|&v| g.degree(v)).unwrap();
        out.push((spec.to_string(), g, vec![0, busy]));
    }
    out.push(("disconnected".into(), disconnected(), vec![0, 5, 8, 9]));
    out.push(("single vertex".into(), EdgeList::new(1, false).into_graph().unwrap(), vec![0]));
    let mut el = EdgeList::new(4, false);
    el.push(1, 2, 1);
    el.push(2, 3, 1);
    out.push(("isolated source".into(), el.into_graph().unwrap(), vec![0, 1]));
    out
}

#[test]
fn levels_equal_queue_bfs_and_parents_form_a_bfs_tree() {
    let cases = cases();
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for (name, g, sources) in &cases {
            let inn = in_edges(g);
            for &source in sources {
                let want = bfs_levels(g, source).unwrap().values;
                for rule in RULES {
                    for parents in [false, true] {
                        let what = format!(
                            "{name}, source {source}, {threads} threads, {rule:?}, parents {parents}"
                        );
                        let (tree, steps) = bfs_direction(&pool, g, &inn, source, parents, rule).unwrap();
                        assert_eq!(tree.levels, want, "{what}");
                        if rule == Switching::TopDownOnly {
                            assert_eq!(steps.bottom_up, 0, "{what}");
                        }
                        match &tree.parents {
                            Some(p) => check_parent_tree(g, source, &tree.levels, p)
                                .unwrap_or_else(|e| panic!("{what}: {e}")),
                            None => assert!(!parents, "{what}: no parents"),
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn the_heuristic_goes_bottom_up_on_a_power_law_graph() {
    let g = generated("kron:scale=12");
    let busy = (0..g.num_vertices() as u32).max_by_key(|&v| g.degree(v)).unwrap();
    let pool = Pool::new(2).unwrap();
    let (_, steps) = bfs_direction(&pool, &g, &g, busy, false, Switching::GAPBS).unwrap();
    assert!(steps.bottom_up > 0 && steps.top_down > 0, "{steps:?}");
}

#[test]
fn bad_arguments_are_errors() {
    let g = generated("grid:w=4,h=4");
    let pool = Pool::new(1).unwrap();
    assert!(matches!(
        bfs_direction(&pool, &g, &g, 16, false, Switching::GAPBS),
        Err(AlgoError::SourceOutOfRange { .. })
    ));
    let other = generated("grid:w=3,h=3");
    assert!(bfs_direction(&pool, &g, &other, 0, false, Switching::GAPBS).is_err());
}

/// A valid tree of a small graph, then each rule of the check broken once.
#[test]
fn corrupted_parent_trees_are_rejected() {
    let g = generated("kron:scale=9");
    let source = (0..g.num_vertices() as u32).max_by_key(|&v| g.degree(v)).unwrap();
    let pool = Pool::new(2).unwrap();
    let (BfsTree { levels, parents }, _) =
        bfs_direction(&pool, &g, &g, source, true, Switching::GAPBS).unwrap();
    let parents = parents.unwrap();
    check_parent_tree(&g, source, &levels, &parents).unwrap();
    let levels_ref = &levels;
    let at = |l: u32| (0..levels_ref.len()).filter(move |&v| levels_ref[v] == l);
    let unreached =
        (0..levels.len()).find(|&v| levels[v] == UNREACHED_LEVEL).expect("kron has isolated vertices");
    let deep = at(2).next().expect("a vertex at level 2");
    // A level-1 vertex that is not an in-neighbour of `deep`: right level,
    // missing edge.
    let stranger = at(1).find(|&u| !g.neighbors(u as u32).contains(&(deep as u32))).expect("a non-neighbour");
    let corruptions: Vec<(&str, usize, u32)> = vec![
        ("source not its own parent", source as usize, parents[deep]),
        ("unreached with a parent", unreached, source),
        ("reached without a parent", deep, NO_PARENT),
        ("parent not a vertex", deep, g.num_vertices() as u32 + 5),
        ("parent at the same level", deep, at(2).nth(1).unwrap_or(deep) as u32),
        ("parent edge missing", deep, stranger as u32),
    ];
    for (what, v, p) in corruptions {
        let mut bad = parents.clone();
        bad[v] = p;
        let e = check_parent_tree(&g, source, &levels, &bad).expect_err(what);
        assert!(matches!(e, AlgoError::InvalidTree { .. }), "{what}: {e}");
    }
    let e = check_parent_tree(&g, source, &levels, &parents[1..]).unwrap_err();
    assert!(matches!(e, AlgoError::LengthMismatch { .. }), "{e}");
}

/// The application: every kernel verified (levels and tree), with the
/// kernel that ran in the metrics.
#[test]
fn the_application_runs_and_verifies_every_kernel() {
    for spec in ["kron:scale=10", "road:n=2000", "rmat:scale=10"] {
        let g = Arc::new(generated(spec));
        for parents in [false, true] {
            let mut params = Params::new();
            params.set("source", "1");
            if parents {
                params.set_flag("parents");
            }
            let prepared = Prepared::<Bfs>::new(Arc::clone(&g), params).unwrap();
            let reference = prepared.reference().unwrap();
            for threads in [1, 2] {
                let pool = Pool::new(threads).unwrap();
                let exec = ExecOptions::default();
                let env = RunEnv { pool: &pool, exec: &exec };
                for (strategy, kernel) in [
                    ("default", None),
                    ("direction", Some("direction")),
                    ("top-down", Some("top-down")),
                    ("auto", Some("priority")),
                    ("obim:delta=1", Some("priority")),
                ] {
                    let what = format!("{spec}, {strategy}, {threads} threads, parents {parents}");
                    let s = Prepared::<Bfs>::strategy(Some(strategy)).unwrap();
                    let run = prepared.run(&env, &s).unwrap();
                    prepared.verify(&run, &reference).unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(run.output.parents.is_some(), parents, "{what}");
                    let ran = run.metrics["kernel"].as_str().unwrap();
                    assert!(kernel.is_none_or(|k| k == ran), "{what}: ran {ran}");
                }
            }
        }
    }
}

#[test]
fn a_wrong_tree_fails_the_application_verification() {
    let g = Arc::new(generated("grid:w=6,h=5"));
    let prepared = Prepared::<Bfs>::new(Arc::clone(&g), Params::new().with_flag("parents")).unwrap();
    let reference = prepared.reference().unwrap();
    let pool = Pool::new(1).unwrap();
    let exec = ExecOptions::default();
    let env = RunEnv { pool: &pool, exec: &exec };
    let mut run = prepared.run(&env, &Prepared::<Bfs>::strategy(Some("direction")).unwrap()).unwrap();
    prepared.verify(&run, &reference).unwrap();
    // Vertex 7 (level 2 from corner 0) given the far corner as parent.
    run.output.parents.as_mut().unwrap()[7] = 29;
    let e = prepared.verify(&run, &reference).unwrap_err().to_string();
    assert!(e.contains("invalid BFS tree: vertex 7"), "{e}");
}
