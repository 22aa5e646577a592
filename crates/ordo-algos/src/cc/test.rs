//! Tests of Afforest against the sequential union-find: small graphs drawn
//! here, every finishing mode, random graphs on many threads with chunks
//! small enough that the threads share them, and the application end to end.

use std::sync::Arc;

use ordo_exec::Pool;
use ordo_graph::transform::transpose;
use ordo_graph::{EdgeList, Graph, VertexId};

use super::reference::component_labels;
use super::verify::same_partition;
use super::{afforest, afforest_with_grain, component_stats, ComponentStats, Finish};
use crate::app::{Params, Prepared};

/// A graph from a list of edges; with `symmetric` every edge both ways.
fn graph(n: usize, edges: &[(VertexId, VertexId)], symmetric: bool) -> Graph {
    let mut list = EdgeList::new(n, false);
    for &(u, v) in edges {
        list.push(u, v, 1);
        if symmetric && u != v {
            list.push(v, u, 1);
        }
    }
    list.into_graph().unwrap()
}

/// A random graph of `n` vertices and `m` edges from a linear congruential
/// sequence, its edges drawn among few vertices (`spread` of `n`) so that
/// components of every size appear.
fn random_graph(seed: u64, n: usize, m: usize, symmetric: bool) -> Graph {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |bound: usize| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((x >> 33) % bound as u64) as VertexId
    };
    let edges: Vec<(VertexId, VertexId)> = (0..m).map(|_| (next(n), next(n))).collect();
    graph(n, &edges, symmetric)
}

/// Every finishing mode that applies to `g`, each checked against the
/// union-find on `pool` with chunks of `grain`: the labels are the
/// reference's exactly (both are the smallest id of the component).
fn check_all_modes(pool: &Pool, g: &Graph, symmetric: bool, grain: usize) {
    let want = component_labels(g);
    let t = transpose(g);
    let mut modes = vec![Finish::All, Finish::SkipWithInEdges(&t)];
    if symmetric {
        modes.push(Finish::Skip);
    }
    for finish in modes {
        let got = afforest_with_grain(pool, g, finish, grain);
        same_partition(&got, &want).unwrap_or_else(|e| panic!("{finish:?}, grain {grain}: {e}"));
        assert_eq!(got, want, "{finish:?}: labels are not the smallest ids");
    }
}

#[test]
fn small_graphs_drawn_here() {
    let pool = Pool::new(2).unwrap();
    // Two paths, one listed backwards, a triangle, a self loop, isolated
    // vertices.
    let edges = [(0, 1), (1, 2), (6, 5), (5, 4), (7, 8), (8, 9), (9, 7), (10, 10)];
    for symmetric in [false, true] {
        let g = graph(12, &edges, symmetric);
        let labels = afforest(&pool, &g, Finish::All);
        assert_eq!(labels, vec![0, 0, 0, 3, 4, 4, 4, 7, 7, 7, 10, 11]);
        assert_eq!(component_stats(&labels), ComponentStats { components: 6, largest: 3 });
        check_all_modes(&pool, &g, symmetric, 1);
    }
    // A star whose hub has the highest id, directed into the hub.
    let star: Vec<(VertexId, VertexId)> = (0..20).map(|v| (v, 20)).collect();
    check_all_modes(&pool, &graph(21, &star, false), false, 2);
    check_all_modes(&pool, &graph(21, &star, true), true, 2);
}

#[test]
fn empty_and_edgeless_graphs() {
    let pool = Pool::new(2).unwrap();
    let empty = graph(0, &[], true);
    assert!(afforest(&pool, &empty, Finish::Skip).is_empty());
    assert_eq!(component_stats(&[]), ComponentStats { components: 0, largest: 0 });
    let edgeless = graph(5, &[], true);
    assert_eq!(afforest(&pool, &edgeless, Finish::Skip), vec![0, 1, 2, 3, 4]);
}

#[test]
fn a_directed_edge_out_of_the_sampled_component_is_linked() {
    // A large cycle (the component sampling finds) with edges out of it
    // into vertices whose only edges come from it: only their in-edges or
    // the unskipped scan reach them.
    let n = 3000;
    let mut edges: Vec<(VertexId, VertexId)> = (0..2000).map(|v| (v, (v + 1) % 2000)).collect();
    edges.extend((2000..n as VertexId).map(|v| (v % 2000, v)));
    let g = graph(n, &edges, false);
    let pool = Pool::new(2).unwrap();
    for grain in [1, 7, 1000] {
        check_all_modes(&pool, &g, false, grain);
    }
    assert_eq!(component_stats(&afforest(&pool, &g, Finish::All)).components, 1);
}

#[test]
fn stress_random_graphs_on_many_threads() {
    // Oversubscribed pools on small chunks: links of overlapping edges race.
    for threads in [2, 3, 8] {
        let pool = Pool::new(threads).unwrap();
        for seed in 0..40u64 {
            let n = 50 + (seed as usize * 37) % 400;
            let m = n / 2 + (seed as usize * 101) % (3 * n);
            let symmetric = seed % 2 == 0;
            let g = random_graph(seed, n, m, symmetric);
            check_all_modes(&pool, &g, symmetric, 1 + (seed as usize % 5));
        }
    }
}

#[test]
fn generated_graphs_through_the_application() {
    let pool = Pool::new(3).unwrap();
    let env = crate::app::RunEnv { pool: &pool, exec: &ordo_exec::ExecOptions::default() };
    for spec in ["kron:scale=12", "road:n=20000", "random:n=5000,m=4000", "grid:w=40,h=30"] {
        let g: ordo_graph::gen::GenSpec = spec.parse().unwrap();
        let g = Arc::new(g.generate().unwrap());
        let app = Prepared::<super::app::Cc>::new(g.clone(), Params::new()).unwrap();
        let reference = app.reference().unwrap();
        for kernel in ["default", "afforest", "afforest-out"] {
            let run = app.run(&env, &Prepared::<super::app::Cc>::strategy(Some(kernel)).unwrap()).unwrap();
            app.verify(&run, &reference).unwrap();
            let stats = component_stats(&reference.output);
            assert_eq!(run.metrics["components"], stats.components, "{spec} {kernel}");
            assert_eq!(run.metrics["largest_component"], stats.largest, "{spec} {kernel}");
        }
    }
}

#[test]
fn labels_are_written_one_vertex_a_line() {
    let g = Arc::new(graph(3, &[(2, 1)], true));
    let app = Prepared::<super::app::Cc>::new(g, Params::new()).unwrap();
    let mut out = Vec::new();
    crate::app::Algorithm::write_out(app.app(), &super::app::ComponentLabels(vec![0, 1, 1]), &mut out)
        .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "0 0\n1 1\n2 1\n");
}
