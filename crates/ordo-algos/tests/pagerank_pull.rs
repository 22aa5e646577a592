//! The pull kernel of `pr` (GAPBS's iterations) at 1, 2 and 4 threads on a
//! Kronecker graph, a road-like graph (symmetric: its own in-edges), a
//! directed R-MAT multigraph with dangling vertices and a single vertex:
//! ranks bit-equal to the sequential loop after the same iterations, within
//! the stated bound of the power iteration; and `pr` through the
//! application layer, by default and on `--sched pmod`, verified.

use std::sync::Arc;

use ordo_algos::app::{find, Params, RunEnv};
use ordo_algos::pagerank::pull::reference::sequential_pull;
use ordo_algos::pagerank::pull::verify::{
    pull_rounding_slack, verify_against_sequential, verify_within_pull_bound,
};
use ordo_algos::pagerank::pull::{pull_pagerank, PullInput, PullParams, DEFAULT_MAX_ITERATIONS};
use ordo_algos::pagerank::{power_iteration, PageRankError, DEFAULT_ALPHA};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::transform::transpose;
use ordo_graph::{EdgeList, Graph};

fn generated(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

fn in_edges(graph: &Graph) -> Arc<Graph> {
    if ordo_graph::stats::is_symmetric(graph) {
        Arc::new(graph.clone())
    } else {
        Arc::new(transpose(graph))
    }
}

fn dangling(g: &Graph) -> usize {
    g.offsets().windows(2).filter(|w| w[0] == w[1]).count()
}

fn inputs() -> Vec<(String, Graph)> {
    let mut single = EdgeList::new(1, false);
    single.push(0, 0, 0); // a self loop: the vertex keeps its rank
    let mut lonely = EdgeList::new(3, false);
    lonely.push(0, 1, 0); // 1 and 2 dangle, 2 has no edge at all
    let cases = vec![
        ("kron:scale=10,seed=4".to_string(), generated("kron:scale=10,seed=4")),
        ("road:n=2000,seed=3".to_string(), generated("road:n=2000,seed=3")),
        ("rmat:scale=10,ef=6,seed=5".to_string(), generated("rmat:scale=10,ef=6,seed=5")),
        ("single vertex".to_string(), EdgeList::new(1, false).into_graph().unwrap()),
        ("single vertex with a loop".to_string(), single.into_graph().unwrap()),
        ("dangling path".to_string(), lonely.into_graph().unwrap()),
    ];
    assert!(dangling(&cases[2].1) > 0, "the R-MAT input must have dangling vertices");
    assert!(ordo_graph::stats::is_symmetric(&cases[1].1), "the road input is its own in-edges");
    cases
}

#[test]
fn pull_equals_the_sequential_loop_and_is_within_its_bound() {
    for (name, graph) in inputs() {
        let ins = in_edges(&graph);
        let input = PullInput::new(&graph, Arc::clone(&ins)).unwrap();
        let exact = power_iteration(&graph, &ins, DEFAULT_ALPHA).unwrap();
        let slack = pull_rounding_slack(&ins, DEFAULT_ALPHA);
        for params in [
            PullParams::default(),
            PullParams { tolerance: 1e-9, max_iterations: 200, ..PullParams::default() },
            PullParams { tolerance: 0.0, max_iterations: 3, ..PullParams::default() },
        ] {
            let seq = sequential_pull(&graph, &ins, &params).unwrap().result;
            assert!(seq.iterations() >= 1 && seq.iterations() <= params.max_iterations, "{name}");
            for threads in [1, 2, 4] {
                let what = format!("{name}, {params:?}, {threads} threads");
                let pool = Pool::new(threads).unwrap();
                let got = pull_pagerank(&pool, &input, &params, &|| false).unwrap();
                let rerun = |k: u32| {
                    let fixed = PullParams { max_iterations: k, tolerance: f64::MIN_POSITIVE, ..params };
                    sequential_pull(&graph, &ins, &fixed).map(|s| s.result)
                };
                verify_against_sequential(&params, &got, &seq, rerun)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let l1 = verify_within_pull_bound(&got, &exact, params.alpha, slack)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                // The stopping rule: below the tolerance, or the cap reached.
                assert!(
                    got.last_change() < params.tolerance || got.iterations() == params.max_iterations,
                    "{what}"
                );
                if got.last_change() < params.tolerance {
                    let n = graph.num_vertices() as f64;
                    let a_priori = n * params.alpha / (1.0 - params.alpha) * params.tolerance;
                    assert!(l1 <= a_priori + exact.error_bound + slack, "{what}: L1 {l1} above {a_priori}");
                }
            }
        }
    }
}

#[test]
fn a_changed_rank_or_iteration_count_is_a_named_mismatch() {
    let graph = generated("rmat:scale=8,ef=4,seed=1");
    let ins = in_edges(&graph);
    let params = PullParams::default();
    let seq = sequential_pull(&graph, &ins, &params).unwrap().result;
    let mut bad = seq.clone();
    bad.ranks[7] = f64::from_bits(bad.ranks[7].to_bits() + 1);
    let e = verify_against_sequential(&params, &bad, &seq, |_| unreachable!()).unwrap_err();
    assert!(matches!(e, PageRankError::PullMismatch { .. }) && e.to_string().contains("vertex 7"), "{e}");
    let mut short = seq.clone();
    short.changes.pop();
    short.changes.pop();
    let e = verify_against_sequential(&params, &short, &seq, |_| unreachable!()).unwrap_err();
    assert!(e.to_string().contains("iterations"), "{e}");
    // Far from the fixed point: one iteration from the start on a skewed graph.
    let exact = power_iteration(&graph, &ins, DEFAULT_ALPHA).unwrap();
    let mut wrong = seq.clone();
    wrong.ranks.iter_mut().for_each(|x| *x += 0.5);
    assert!(matches!(
        verify_within_pull_bound(&wrong, &exact, DEFAULT_ALPHA, 0.0),
        Err(PageRankError::BoundExceeded { .. })
    ));
}

#[test]
fn bad_parameters_and_inputs_are_errors_and_empty_graphs_run() {
    let g = generated("rmat:scale=6,ef=4,seed=2");
    assert!(matches!(PullInput::new(&g, Arc::new(g.clone())), Err(PageRankError::TransposeMismatch { .. })));
    let input = PullInput::new(&g, in_edges(&g)).unwrap();
    let pool = Pool::new(2).unwrap();
    for bad in [
        PullParams { alpha: 1.0, ..PullParams::default() },
        PullParams { tolerance: -1.0, ..PullParams::default() },
    ] {
        assert!(matches!(
            pull_pagerank(&pool, &input, &bad, &|| false),
            Err(PageRankError::InvalidParameter { .. })
        ));
    }
    let cancelled = pull_pagerank(&pool, &input, &PullParams::default(), &|| true).unwrap();
    assert_eq!(cancelled.iterations(), 0);
    let empty = EdgeList::new(0, false).into_graph().unwrap();
    let input = PullInput::new(&empty, in_edges(&empty)).unwrap();
    let r = pull_pagerank(&pool, &input, &PullParams::default(), &|| false).unwrap();
    assert!(r.ranks.is_empty() && r.error_bound(DEFAULT_ALPHA) == 0.0);
}

/// `pr` by default and with `--sched pmod`, through the registry, verified
/// against its reference, on a directed graph with dangling vertices.
#[test]
fn pr_app_default_and_scheduled_runs_verify() {
    let graph = Arc::new(generated("rmat:scale=10,ef=6,seed=5"));
    let info = find("pr").unwrap();
    let prepared = info.prepare(Arc::clone(&graph), Params::new()).unwrap();
    let reference = prepared.reference().unwrap();
    let exec = ExecOptions::default();
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        let env = RunEnv { pool: &pool, exec: &exec };
        for (strategy, kernel) in
            [("default", "pull"), ("pull", "pull"), ("pmod", "residual"), ("auto", "residual")]
        {
            let run = prepared.run(&env, strategy).unwrap();
            assert_eq!(run.metrics["kernel"], kernel, "{strategy}");
            prepared
                .verify(&run, &reference)
                .unwrap_or_else(|e| panic!("{strategy}, {threads} threads: {e}"));
            let m = prepared.verified_metrics(&run, &reference);
            let l1 = m["l1_vs_reference"].as_f64().unwrap();
            assert!(l1 <= run.metrics["error_bound"].as_f64().unwrap() + 1e-6, "{strategy}: {l1}");
        }
    }
    assert_eq!(info.default_strategy, "default");
    assert_eq!(info.check_strategy("pmod").unwrap().split(':').next(), Some("pmod"));
    assert!(info.check_strategy("fancy").unwrap_err().to_string().contains("default, pull"));
    // --iterations is the pull kernel's; the residual operator refuses it.
    let capped = info.prepare(graph, Params::new().with("iterations", "3")).unwrap();
    let pool = Pool::new(2).unwrap();
    let env = RunEnv { pool: &pool, exec: &exec };
    assert_eq!(capped.run(&env, "default").unwrap().metrics["iterations"], 3);
    let e = capped.run(&env, "pmod").unwrap_err().to_string();
    assert!(e.contains("--iterations applies to pr's default pull kernel"), "{e}");
    assert_eq!(capped.run(&env, "default").unwrap().metrics["max_iterations"], 3);
    // Tolerance 0: every iteration of the pull kernel; the residual operator refuses it.
    let every =
        info.prepare(Arc::new(generated("road:n=500,seed=1")), Params::new().with("tolerance", "0")).unwrap();
    let run = every.run(&env, "default").unwrap();
    assert_eq!(run.metrics["iterations"], DEFAULT_MAX_ITERATIONS);
    every.verify(&run, &every.reference().unwrap()).unwrap();
    assert!(every.run(&env, "obim").unwrap_err().to_string().contains("tolerance"));
}
