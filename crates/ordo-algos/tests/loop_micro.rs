//! The §4.1 microbenchmark: every runner computes the closed-form checksum
//! on even and skewed work.

mod common_loops;

use ordo_algos::loop_micro::{self, reference, MicroParams, Shape};

#[test]
fn every_runner_gets_the_checksum() {
    for shape in [Shape::Even, Shape::Skewed] {
        for iterations in [1, 1000, 100_003] {
            let params = MicroParams { iterations, work: 6, shape };
            let expected = reference::expected(&params);
            assert_eq!(reference::run(&params).0, expected, "{params:?}");
            for runner in common_loops::runners("thread") {
                let (got, _) = loop_micro::run(&runner, &params);
                loop_micro::verify::verify(&expected, &got)
                    .unwrap_or_else(|e| panic!("{params:?} {runner:?}: {e}"));
            }
        }
    }
    let p = MicroParams { iterations: 10_240, work: 10, shape: Shape::Skewed };
    assert_eq!(p.heavy(), 10);
    let even = reference::expected(&MicroParams { shape: Shape::Even, ..p }).increments;
    let skewed = reference::expected(&p).increments;
    assert!((skewed as f64 / even as f64 - 1.0).abs() < 0.002, "skewed total {skewed} vs even {even}");
}
