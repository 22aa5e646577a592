//! PageRank (PR and PR-D) on every registered scheduler × {1, 2, 4} threads
//! on a road-like graph, a directed R-MAT multigraph (dangling vertices, self
//! loops, parallel edges) and a real collaboration network: the L1 distance
//! to the power-iteration reference must stay within the proven bound
//! (residuals left / (1 - α)), and within the a-priori bound n·ε/(1 - α);
//! ranks approach the fixed point from below; no residual is left at or
//! above the tolerance.
//!
//! The scheduler list comes from `SchedulerSpec::names()`, so every newly
//! registered scheduler is covered without editing this file.

use ordo_algos::pagerank::{
    self, l1_distance, pagerank, power_iteration, rounding_slack, sequential_priority, verify_within_bound,
    PageRankError, PageRankParams, PowerIteration,
};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::transform::transpose;
use ordo_graph::{EdgeList, Graph, LoadOptions};
use ordo_sched::SchedulerSpec;

/// One input with its transpose and exact ranks.
struct Case {
    name: String,
    graph: Graph,
    transpose: Graph,
    exact: PowerIteration,
}

fn case(name: &str, graph: Graph) -> Case {
    let t = transpose(&graph);
    let exact = power_iteration(&graph, &t, pagerank::DEFAULT_ALPHA).unwrap();
    assert!(exact.error_bound <= pagerank::REFERENCE_ACCURACY * graph.num_vertices() as f64, "{name}");
    Case { name: name.to_string(), graph, transpose: t, exact }
}

fn generated(spec: &str) -> Case {
    let graph = spec.parse::<GenSpec>().unwrap().generate().unwrap();
    case(spec, graph)
}

fn dangling(g: &Graph) -> usize {
    g.offsets().windows(2).filter(|w| w[0] == w[1]).count()
}

/// Every check on one run's result.
fn check(c: &Case, result: &pagerank::PageRank, params: &PageRankParams, what: &str) {
    let n = c.graph.num_vertices();
    let l1 = verify_within_bound(result, &c.exact, params).unwrap_or_else(|e| panic!("{what}: {e}"));
    let a_priori = n as f64 * params.tolerance / (1.0 - params.alpha);
    assert!(
        l1 <= a_priori + c.exact.error_bound + rounding_slack(n),
        "{what}: L1 {l1} above n·ε/(1-α) = {a_priori}"
    );
    assert!(result.error_bound(params.alpha) <= a_priori, "{what}: residuals left exceed n·ε");
    for (v, (&x, &exact)) in result.ranks.iter().zip(&c.exact.ranks).enumerate() {
        assert!(x >= 1.0 - params.alpha - 1e-12, "{what}: vertex {v} rank {x} below 1 - α");
        assert!(x <= exact + 1e-9, "{what}: vertex {v} rank {x} above the fixed point {exact}");
    }
}

fn real_graph() -> Option<Case> {
    let p = ordo_graph::datasets::find("social/CA-GrQc.txt", "the CA-GrQc case")?;
    let opts = LoadOptions { remap_ids: true, ..LoadOptions::default() };
    let graph = ordo_graph::load(&p, &opts).unwrap();
    assert_eq!(graph.num_vertices(), 5242, "data/README.md: 5,242 vertices");
    Some(case("CA-GrQc", graph))
}

#[test]
fn every_scheduler_and_thread_count_is_within_the_bound() {
    let mut cases = vec![generated("road:n=1500,seed=3"), generated("rmat:scale=10,ef=6,seed=5")];
    assert!(dangling(&cases[1].graph) > 0, "the R-MAT input must have dangling vertices");
    cases.extend(real_graph());
    let opts = ExecOptions::default();
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for name in SchedulerSpec::names() {
            let spec: SchedulerSpec = name.parse().unwrap();
            for c in &cases {
                for (app, params) in [
                    ("pr", PageRankParams { tolerance: 1e-3, ..PageRankParams::pr() }),
                    ("pr-d", PageRankParams { tolerance: 1e-3, ..PageRankParams::pr_d() }),
                ] {
                    let what = format!("{app} on {} with {name}, {threads} threads", c.name);
                    let (result, stats) = pagerank(&pool, &spec, &c.graph, &c.transpose, &params, &opts)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                    check(c, &result, &params, &what);
                    assert_eq!(stats.total.tasks, stats.total.pops, "{what}");
                    assert!(stats.total.stale_tasks <= stats.total.tasks, "{what}");
                }
            }
        }
    }
}

#[test]
fn sequential_baseline_is_within_the_bound_and_tighter_tolerance_is_closer() {
    let c = generated("rmat:scale=11,ef=8,seed=9");
    let mut last_l1 = f64::INFINITY;
    for tolerance in [1e-1, 1e-3, 1e-5] {
        for params in [PageRankParams::pr(), PageRankParams::pr_d()] {
            let params = PageRankParams { tolerance, ..params };
            let seq = sequential_priority(&c.graph, &c.transpose, &params).unwrap();
            check(
                &c,
                &seq.result,
                &params,
                &format!("sequential, tolerance {tolerance}, amp {}", params.amp),
            );
            assert!(seq.tasks > 0);
        }
        let params = PageRankParams { tolerance, ..PageRankParams::pr_d() };
        let l1 = l1_distance(
            &sequential_priority(&c.graph, &c.transpose, &params).unwrap().result.ranks,
            &c.exact.ranks,
        );
        assert!(l1 < last_l1, "tolerance {tolerance}: L1 {l1} not below {last_l1}");
        last_l1 = l1;
    }
    assert!(last_l1 <= c.graph.num_vertices() as f64 * 1e-5 / 0.15);
}

#[test]
fn parallel_run_does_the_baseline_work_on_one_thread_with_strict() {
    // One thread and an exact-order scheduler execute the same operator in
    // the same priority order as the sequential baseline (up to ties), so
    // the task counts are close; the ranks agree within both bounds.
    let c = generated("road:n=3000,seed=7");
    let params = PageRankParams { tolerance: 1e-3, ..PageRankParams::pr_d() };
    let seq = sequential_priority(&c.graph, &c.transpose, &params).unwrap();
    let pool = Pool::new(1).unwrap();
    let (par, stats) =
        pagerank(&pool, &"strict".parse().unwrap(), &c.graph, &c.transpose, &params, &ExecOptions::default())
            .unwrap();
    let ratio = stats.total.tasks as f64 / seq.tasks as f64;
    assert!(
        (0.8..1.25).contains(&ratio),
        "strict/1 thread {} vs baseline {} tasks",
        stats.total.tasks,
        seq.tasks
    );
    let d = l1_distance(&par.ranks, &seq.result.ranks);
    assert!(d <= par.error_bound(params.alpha) + seq.result.error_bound(params.alpha) + 1e-9);
}

#[test]
fn web_graph_on_pmod() {
    let Some(p) = ordo_graph::datasets::find("web/cnr-2000.txt.gz", "web_graph_on_pmod") else { return };
    let c = case("cnr-2000", ordo_graph::load(&p, &LoadOptions::default()).unwrap());
    assert!(dangling(&c.graph) > 0);
    let pool = Pool::new(2).unwrap();
    let params = PageRankParams::pr_d();
    let (result, _) =
        pagerank(&pool, &"pmod".parse().unwrap(), &c.graph, &c.transpose, &params, &ExecOptions::default())
            .unwrap();
    check(&c, &result, &params, "pr-d on cnr-2000 with pmod, 2 threads");
}

#[test]
fn bad_inputs_are_errors_and_the_empty_graph_works() {
    let mut el = EdgeList::new(3, false);
    el.push(0, 1, 0);
    el.push(1, 2, 0);
    let g = el.into_graph().unwrap();
    let pool = Pool::new(2).unwrap();
    let spec: SchedulerSpec = "obim".parse().unwrap();
    let opts = ExecOptions::default();
    let err = pagerank(&pool, &spec, &g, &g, &PageRankParams::pr(), &opts).unwrap_err();
    assert!(matches!(err, PageRankError::TransposeMismatch { .. }), "{err}");
    let bad = PageRankParams { alpha: 1.5, ..PageRankParams::pr() };
    let err = pagerank(&pool, &spec, &g, &transpose(&g), &bad, &opts).unwrap_err();
    assert!(err.to_string().contains("alpha"), "{err}");

    let empty = EdgeList::new(0, false).into_graph().unwrap();
    let (r, stats) =
        pagerank(&pool, &spec, &empty, &transpose(&empty), &PageRankParams::pr(), &opts).unwrap();
    assert!(r.ranks.is_empty());
    assert_eq!(stats.total.tasks, 0);

    // A result farther than the bound is rejected, naming the numbers.
    let c = case("path", g);
    let (mut r, _) = pagerank(&pool, &spec, &c.graph, &c.transpose, &PageRankParams::pr(), &opts).unwrap();
    r.ranks[2] += 1.0;
    let err = verify_within_bound(&r, &c.exact, &PageRankParams::pr()).unwrap_err();
    assert!(matches!(err, PageRankError::BoundExceeded { .. }), "{err}");
}

#[test]
fn dense_graph_stress_many_concurrent_tasks_per_vertex() {
    // A dense digraph with self loops and parallel edges: every vertex is an
    // in-neighbour of many others, so tasks on the same vertex overlap and
    // residual adds contend. A tiny tolerance keeps it busy.
    let n = 40u32;
    let mut el = EdgeList::new(n as usize, false);
    for u in 0..n {
        for k in 1..=(u % 7 + 5) {
            el.push(u, (u * 13 + k * k) % n, 0);
        }
        el.push(u, (u + 1) % n, 0);
    }
    let c = case("dense", el.into_graph().unwrap());
    let params = PageRankParams { tolerance: 1e-9, ..PageRankParams::pr_d() };
    let pool = Pool::new(4).unwrap();
    for name in ["obim", "pmod", "smq", "mq", "spraylist", "fifo", "auto"] {
        let spec: SchedulerSpec = name.parse().unwrap();
        for round in 0..5 {
            let (result, stats) =
                pagerank(&pool, &spec, &c.graph, &c.transpose, &params, &ExecOptions::default()).unwrap();
            check(&c, &result, &params, &format!("dense stress on {name}, round {round}"));
            assert!(stats.total.tasks > n as u64);
        }
    }
}

#[test]
fn without_dangling_vertices_the_bound_is_an_equality_on_one_thread() {
    // No dangling vertex: every column of A sums to 1, so
    // Σ(x* - x) = Σ(f(x) - x)/(1 - α) exactly, and x <= x*; on one thread
    // the tracked residuals are the true ones. So the L1 distance equals the
    // bound up to rounding: a sharp check of ranks and residuals together.
    let c = generated("road:n=4000,seed=11");
    assert_eq!(dangling(&c.graph), 0);
    let n = c.graph.num_vertices() as f64;
    let pool = Pool::new(1).unwrap();
    for params in [PageRankParams::pr(), PageRankParams::pr_d()] {
        let seq = sequential_priority(&c.graph, &c.transpose, &params).unwrap();
        let (par, _) = pagerank(
            &pool,
            &"obim".parse().unwrap(),
            &c.graph,
            &c.transpose,
            &params,
            &ExecOptions::default(),
        )
        .unwrap();
        for (what, r) in [("sequential", &seq.result), ("obim, 1 thread", &par)] {
            let l1 = l1_distance(&r.ranks, &c.exact.ranks);
            let bound = r.error_bound(params.alpha);
            assert!(
                (l1 - bound).abs() <= c.exact.error_bound + 1e-9 * n,
                "{what}, amp {}: L1 {l1} vs bound {bound}",
                params.amp
            );
            assert!(bound > 1.0, "{what}: the test needs a non-trivial residual left");
        }
    }
}

/// A graph with more vertices than `PARALLEL_COLLECT_MIN_LEN` gets its ranks
/// and residuals written by every worker before the run
/// (`Pool::collect_indexed`); a residual put on the wrong vertex would break
/// the bound.
#[test]
fn per_vertex_arrays_written_by_every_worker_stay_within_the_bound() {
    let c = generated("rmat:scale=17,ef=2,seed=9");
    assert!(c.graph.num_vertices() > ordo_exec::PARALLEL_COLLECT_MIN_LEN);
    assert!(dangling(&c.graph) > 0, "dangling vertices give the residuals unequal starts");
    for threads in [2, 3] {
        let pool = Pool::new(threads).unwrap();
        let params = PageRankParams { tolerance: 1e-4, ..PageRankParams::pr_d() };
        let spec: SchedulerSpec = "auto".parse().unwrap();
        let what = format!("pr-d, {threads} threads");
        let (result, _) = pagerank(&pool, &spec, &c.graph, &c.transpose, &params, &ExecOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        check(&c, &result, &params, &what);
    }
}
