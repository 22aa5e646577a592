//! PageRank by pull (Callisto-RTS Figure 1) on every distributor, rayon and
//! 1/2/4 threads: ranks bit-equal to the sequential loop after the same
//! iterations, the same stopping iteration at a tolerance, and within the
//! contraction bound d/(1-d)·δ of the fixed point.

mod common_loops;

use common_loops::{data_file, gen, load_snap, runners};
use ordo_algos::pr_pull::{self, pr_pull, verify, PrPullParams, Stop};
use ordo_graph::transform::transpose;
use ordo_graph::{EdgeList, Graph};

fn inputs() -> Vec<(String, Graph)> {
    let mut v = vec![
        ("rmat:scale=9,ef=6,seed=2".to_string(), gen("rmat:scale=9,ef=6,seed=2")),
        ("road:n=800,seed=4".to_string(), gen("road:n=800,seed=4")),
    ];
    if let Some(p) = data_file("social/CA-GrQc.txt") {
        v.push(("CA-GrQc".to_string(), load_snap(&p)));
    }
    v
}

fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

#[test]
fn ranks_equal_the_sequential_loop_bit_for_bit() {
    let runners = runners("thread");
    for (name, g) in inputs() {
        let t = transpose(&g);
        let dangling = (0..g.num_vertices() as u32).filter(|&v| g.degree(v) == 0).count();
        for stop in [Stop::Iterations(7), Stop::Tolerance { tolerance: 1e-6, max_iterations: 100 }] {
            let params = PrPullParams { stop, ..PrPullParams::default() };
            let expected = pr_pull::reference::pr_pull(&g, &t, &params).unwrap();
            for runner in &runners {
                let what = format!("{name} {stop:?} {runner:?}");
                let r = pr_pull(runner, &g, &t, &params).unwrap();
                verify::verify(&g, &t, &params, &r).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(r.iterations, expected.iterations, "{what}");
                let sum: f64 = r.ranks.iter().sum();
                if dangling == 0 {
                    assert!((sum - 1.0).abs() < 1e-9, "{what}: ranks sum to {sum}");
                } else {
                    assert!(sum < 1.0, "{what}: mass leaks at {dangling} dangling vertices");
                }
            }
        }
    }
}

#[test]
fn ranks_are_within_the_contraction_bound_of_the_fixed_point() {
    let runner = common_loops::runner("async-combining:batch=4", 4, "thread");
    for (name, g) in inputs() {
        let t = transpose(&g);
        let exact_params = PrPullParams {
            stop: Stop::Tolerance { tolerance: 1e-14, max_iterations: 2000 },
            ..Default::default()
        };
        let exact = pr_pull::reference::pr_pull(&g, &t, &exact_params).unwrap();
        let exact_bound = verify::fixed_point_bound(0.85, exact.last_change());
        for tolerance in [1e-3, 1e-6, 1e-9] {
            let params = PrPullParams {
                stop: Stop::Tolerance { tolerance, max_iterations: 500 },
                ..Default::default()
            };
            let r = pr_pull(&runner, &g, &t, &params).unwrap();
            assert!(r.last_change() <= tolerance, "{name}: stopped before the tolerance");
            let bound = verify::fixed_point_bound(0.85, r.last_change());
            let dist = l1(&r.ranks, &exact.ranks);
            assert!(dist <= bound + exact_bound + 1e-13, "{name} tol {tolerance}: L1 {dist} > bound {bound}");
        }
    }
}

#[test]
fn small_graphs_have_the_known_ranks_and_bad_parameters_are_errors() {
    // A star into vertex 0 from 1..4, and 0 -> 1: 0 and 1 exchange rank.
    let mut e = EdgeList::new(5, false);
    for v in 1..5 {
        e.push(v, 0, 1);
    }
    e.push(0, 1, 1);
    let g = e.into_graph().unwrap();
    let t = transpose(&g);
    let runner = common_loops::runner("striped:batch=1", 2, "thread");
    let r =
        pr_pull(&runner, &g, &t, &PrPullParams { stop: Stop::Iterations(1), ..Default::default() }).unwrap();
    let base = 0.15 / 5.0;
    // After one step from 1/5 everywhere: r0 = base + d·4/5, r1 = base + d/5, others base.
    let expected = [base + 0.85 * 0.8, base + 0.85 * 0.2, base, base, base];
    for (v, (&x, &e)) in r.ranks.iter().zip(&expected).enumerate() {
        assert!((x - e).abs() < 1e-15, "vertex {v}: {x} vs {e}");
    }
    for bad in [
        PrPullParams { damping: 1.0, ..Default::default() },
        PrPullParams { damping: 0.0, ..Default::default() },
        PrPullParams { stop: Stop::Tolerance { tolerance: 0.0, max_iterations: 5 }, ..Default::default() },
        PrPullParams {
            stop: Stop::Tolerance { tolerance: f64::NAN, max_iterations: 5 },
            ..Default::default()
        },
    ] {
        assert!(pr_pull(&runner, &g, &t, &bad).is_err(), "{bad:?}");
    }
    assert!(pr_pull(&runner, &g, &g, &PrPullParams::default()).is_err(), "a wrong transpose is rejected");
    // A wrong result is caught.
    let params = PrPullParams::default();
    let mut r = pr_pull(&runner, &g, &t, &params).unwrap();
    r.ranks[3] = f64::from_bits(r.ranks[3].to_bits() + 1);
    let e = verify::verify(&g, &t, &params, &r).unwrap_err().to_string();
    assert!(e.contains("vertex 3"), "{e}");
}
