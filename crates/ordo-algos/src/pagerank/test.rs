//! Unit tests of PageRank: priorities, the bound against power iteration,
//! the sequential baseline.

use super::*;
use ordo_graph::EdgeList;

#[test]
fn priority_is_monotone_and_pr_d_has_1000_times_the_levels() {
    let residuals: Vec<f64> = (0..20_000).map(|i| i as f64 * 0.000_73).collect();
    for amp in [PR_AMP, PR_D_AMP] {
        for pair in residuals.windows(2) {
            assert!(priority(pair[1], amp) <= priority(pair[0], amp), "amp {amp}: {pair:?}");
        }
    }
    // Levels over residuals in [0, 10): PR 10, PR-D 10,000.
    let levels = |amp: f64| {
        let mut p: Vec<Prio> = (0..1_000_000).map(|i| priority(i as f64 * 1e-5, amp)).collect();
        p.dedup();
        p.len()
    };
    assert_eq!(levels(PR_AMP), 10);
    assert_eq!(levels(PR_D_AMP), 10_000);
    assert_eq!(priority(0.0, PR_AMP), PRIORITY_CEILING);
    assert_eq!(priority(3.9999, PR_AMP), PRIORITY_CEILING - 3);
    assert_eq!(priority(3.9999, PR_D_AMP), PRIORITY_CEILING - 3999);
    assert_eq!(priority(1e300, PR_D_AMP), 0);
    assert_eq!(priority(-1.0, PR_AMP), PRIORITY_CEILING);
    assert_eq!(priority(f64::NAN, PR_AMP), PRIORITY_CEILING);
}

#[test]
fn parameters_are_checked() {
    for p in [
        PageRankParams { alpha: 1.0, ..PageRankParams::pr() },
        PageRankParams { alpha: 0.0, ..PageRankParams::pr() },
        PageRankParams { tolerance: 0.0, ..PageRankParams::pr() },
        PageRankParams { tolerance: f64::NAN, ..PageRankParams::pr() },
        PageRankParams { amp: -1.0, ..PageRankParams::pr() },
    ] {
        assert!(matches!(p.validate(), Err(PageRankError::InvalidParameter { .. })), "{p:?}");
    }
    PageRankParams::pr_d().validate().unwrap();
}

fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
    let mut el = EdgeList::new(n, false);
    for &(u, v) in edges {
        el.push(u, v, 0);
    }
    el.into_graph().unwrap()
}

#[test]
fn wrong_transpose_is_rejected() {
    let g = graph(3, &[(0, 1), (1, 2)]);
    let not_t = graph(3, &[(0, 1), (1, 2)]);
    assert!(matches!(check_transpose(&g, &not_t), Err(PageRankError::TransposeMismatch { .. })));
    check_transpose(&g, &ordo_graph::transform::transpose(&g)).unwrap();
}

#[test]
fn power_iteration_matches_closed_forms() {
    // A directed cycle: every rank is 1 (ranks sum to n, no dangling).
    let cycle = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
    let r = power_iteration(&cycle, &ordo_graph::transform::transpose(&cycle), 0.85).unwrap();
    for x in &r.ranks {
        assert!((x - 1.0).abs() < 1e-9, "{:?}", r.ranks);
    }
    // 0 -> 1 with 1 dangling: x0 = 1 - a, x1 = (1 - a) + a(1 - a).
    let a = 0.85;
    let pair = graph(2, &[(0, 1)]);
    let r = power_iteration(&pair, &ordo_graph::transform::transpose(&pair), a).unwrap();
    assert!((r.ranks[0] - (1.0 - a)).abs() < 1e-12);
    assert!((r.ranks[1] - (1.0 - a) * (1.0 + a)).abs() < 1e-12);
    assert!(r.error_bound <= REFERENCE_ACCURACY * 2.0);
}

#[test]
fn sequential_priority_run_is_within_the_bound() {
    let g = graph(5, &[(0, 1), (1, 2), (2, 0), (0, 3), (3, 3), (3, 4), (4, 0), (2, 4), (2, 4)]);
    let t = ordo_graph::transform::transpose(&g);
    for amp in [PR_AMP, PR_D_AMP] {
        let params = PageRankParams { tolerance: 1e-4, amp, ..PageRankParams::pr() };
        let seq = sequential_priority(&g, &t, &params).unwrap();
        let exact = power_iteration(&g, &t, params.alpha).unwrap();
        let l1 = verify_within_bound(&seq.result, &exact, &params).unwrap();
        assert!(l1 <= 5.0 * 1e-4 / 0.15 + 1e-9);
        assert!(seq.tasks >= 5);
        for (x, y) in seq.result.ranks.iter().zip(&exact.ranks) {
            assert!(*x <= y + 1e-9, "ranks approach the fixed point from below");
        }
    }
}
