//! Betweenness centrality: sequential Brandes on graphs drawn here against
//! hand-computed values; the nested parallel kernel on every distributor,
//! rayon and 1/2/4 threads, flat and nested (levels `thread,core` and
//! `thread,socket` with pretend cores and sockets), against Brandes within
//! the stated relative tolerance; sampled sources; and networkx's
//! `betweenness_centrality(G, normalized=False)` of the `DiGraph` within
//! 1e-9 relative when Python and networkx are available.

mod common_loops;

use std::io::Write;
use std::process::Command;

use common_loops::{gen, runner, SPECS};
use ordo_algos::bc::{self, betweenness, BcGraph, BcParams, Sources};
use ordo_graph::{EdgeList, Graph};

fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
    let mut e = EdgeList::new(n, false);
    for &(u, v) in edges {
        e.push(u, v, 1);
    }
    e.into_graph().unwrap()
}

fn undirected(n: usize, edges: &[(u32, u32)]) -> Graph {
    let both: Vec<(u32, u32)> = edges.iter().flat_map(|&(u, v)| [(u, v), (v, u)]).collect();
    graph(n, &both)
}

#[test]
fn brandes_gives_the_known_values() {
    // Directed path 0 -> 1 -> 2 -> 3: 1 is on (0,2),(0,3); 2 on (0,3),(1,3).
    let path = graph(4, &[(0, 1), (1, 2), (2, 3)]);
    assert_eq!(
        bc::reference::betweenness(&BcGraph::from_graph(path), Sources::All),
        vec![0.0, 2.0, 2.0, 0.0]
    );
    // Undirected star with centre 0 and 4 leaves: 4·3 ordered pairs through 0.
    let star = undirected(5, &[(0, 1), (0, 2), (0, 3), (0, 4)]);
    assert_eq!(
        bc::reference::betweenness(&BcGraph::from_graph(star), Sources::All),
        vec![12.0, 0.0, 0.0, 0.0, 0.0]
    );
    // Diamond 0 -> {1, 2} -> 3: two shortest paths, half through each;
    // parallel edges and a self loop change nothing.
    let diamond = graph(4, &[(0, 1), (0, 2), (1, 3), (2, 3), (1, 3), (2, 2)]);
    assert_eq!(
        bc::reference::betweenness(&BcGraph::from_graph(diamond), Sources::All),
        vec![0.0, 0.5, 0.5, 0.0]
    );
}

fn check_all(g: &Graph, name: &str) {
    let bg = BcGraph::from_graph(g.clone());
    let expected = bc::reference::betweenness(&bg, Sources::All);
    assert!(expected.iter().any(|&x| x > 0.0), "{name}: a test graph with some betweenness");
    let mut configs: Vec<(String, ordo_algos::loop_runner::LoopRunner, usize)> = Vec::new();
    for threads in [1, 2, 4] {
        for spec in SPECS {
            // Flat: the outer loop on every thread, searches inline.
            configs.push((format!("{spec} flat"), runner(spec, threads, "thread"), 0));
            // Nested: outer per pretend core / socket, searches inside.
            configs.push((format!("{spec} core"), runner(spec, threads, "thread,core"), 1));
        }
        configs.push(("striped socket".into(), runner("striped:batch=2", threads, "thread,socket"), 1));
        configs.push(("inner only".into(), runner("shared:batch=2", threads, "thread"), 1));
    }
    for (what, r, outer_level) in &configs {
        let params = BcParams { sources: Sources::All, outer_level: *outer_level };
        let got = betweenness(r, &bg, &params).unwrap();
        bc::verify::verify(&expected, &got.values)
            .unwrap_or_else(|e| panic!("{name}, {what}, {} threads: {e}", r.threads()));
    }
}

#[test]
fn nested_and_flat_kernels_equal_brandes() {
    check_all(&gen("rmat:scale=8,ef=5,seed=7"), "rmat 8");
    check_all(&gen("grid:w=12,h=9"), "grid");
    check_all(&gen("random:n=300,m=900,seed=3"), "random");
    check_all(&undirected(6, &[(0, 1), (1, 2), (3, 4), (4, 5), (5, 3)]), "two components");
}

#[test]
fn sampled_sources_are_seeded_and_scaled() {
    let g = BcGraph::from_graph(gen("rmat:scale=8,ef=5,seed=9"));
    let n = g.num_vertices();
    let c = (0..n as u32).filter(|&v| g.is_candidate(v)).count();
    assert!(c < n, "the test graph has vertices without out-edges");
    let s1 = Sources::Sample { k: 20, seed: 5 }.list(&g);
    assert_eq!(s1, Sources::Sample { k: 20, seed: 5 }.list(&g), "same seed, same sources");
    assert_ne!(s1, Sources::Sample { k: 20, seed: 6 }.list(&g), "another seed, other sources");
    assert!(s1.iter().all(|&s| g.is_candidate(s)), "sources have out-edges");
    assert_eq!(s1.len(), 20);
    assert!(s1.windows(2).all(|w| w[0] < w[1]), "distinct and sorted");
    let r = runner("async-combining:batch=2", 4, "thread,core");
    let params = BcParams { sources: Sources::Sample { k: 20, seed: 5 }, outer_level: 1 };
    let got = betweenness(&r, &g, &params).unwrap();
    assert_eq!(got.sources, s1);
    let expected = bc::reference::betweenness(&g, params.sources);
    bc::verify::verify(&expected, &got.values).unwrap();
    // Unscaled sums over the sample are bounded by the full values.
    let full = bc::reference::betweenness(&g, Sources::All);
    let mut raw = expected.clone();
    for (v, x) in raw.iter_mut().enumerate() {
        let scale = if s1.binary_search(&(v as u32)).is_ok() {
            (c - 1) as f64 / 19.0
        } else if g.is_candidate(v as u32) {
            (c - 1) as f64 / 20.0
        } else {
            c as f64 / 20.0
        };
        *x /= scale;
        assert!(*x <= full[v] * (1.0 + 1e-12), "vertex {v}: sample sum {x} above the full value");
    }
    // k >= c is every source.
    let all =
        betweenness(&r, &g, &BcParams { sources: Sources::Sample { k: n + 5, seed: 1 }, outer_level: 1 })
            .unwrap();
    bc::verify::verify(&full, &all.values).unwrap();
    assert!(betweenness(&r, &g, &BcParams { sources: Sources::Sample { k: 0, seed: 1 }, outer_level: 1 })
        .is_err());
    // A wrong value is caught.
    let mut wrong = full.clone();
    let v = wrong.iter().position(|&x| x > 0.0).unwrap();
    wrong[v] *= 1.0 + 1e-8;
    assert!(bc::verify::verify(&full, &wrong).unwrap_err().to_string().contains(&format!("vertex {v}")));
}

/// A vertex without out-edges (isolated, or with only a self loop or
/// in-edges) is never a source, sampled or not; the sums are unchanged.
#[test]
fn vertices_without_out_edges_are_never_sources() {
    // 0 -> 1 -> 2 -> 3, 4 isolated, 5 with a self loop only, 6 -> 2.
    let g = BcGraph::from_graph(graph(7, &[(0, 1), (1, 2), (2, 3), (5, 5), (6, 2)]));
    let candidates: Vec<u32> = vec![0, 1, 2, 6];
    assert_eq!(Sources::All.list(&g), candidates);
    for seed in 0..50 {
        let s = Sources::Sample { k: 2, seed }.list(&g);
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|v| candidates.contains(v)), "seed {seed}: {s:?}");
    }
    assert_eq!(Sources::Sample { k: 9, seed: 1 }.list(&g), candidates);
    let pool = ordo_exec::Pool::new(2).unwrap();
    let r = bc::betweenness_on_pool(&pool, &g, Sources::All, bc::DefaultPlan::Flat).unwrap();
    assert_eq!(r.sources, candidates);
    // 1 on (0,2),(0,3); 2 on (0,3),(1,3),(6,3).
    assert_eq!(r.values, vec![0.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(bc::reference::betweenness(&g, Sources::All), r.values);
}

/// The default kernel on the pool, both plans, 1 to 3 threads, all and
/// sampled sources, against sequential Brandes within 1e-9 relative.
#[test]
fn default_kernel_equals_brandes() {
    for spec in ["rmat:scale=9,ef=6,seed=7", "road:n=3000,seed=4", "kron:scale=9,seed=2", "grid:w=20,h=15"] {
        let g = BcGraph::from_graph(gen(spec));
        for sources in [Sources::All, Sources::Sample { k: 13, seed: 3 }] {
            let expected = bc::reference::betweenness(&g, sources);
            for threads in [1, 2, 3] {
                let pool = ordo_exec::Pool::new(threads).unwrap();
                for plan in [bc::DefaultPlan::Inner, bc::DefaultPlan::Flat] {
                    let got = bc::betweenness_on_pool(&pool, &g, sources, plan).unwrap();
                    assert_eq!(got.sources, sources.list(&g));
                    bc::verify::verify(&expected, &got.values)
                        .unwrap_or_else(|e| panic!("{spec} {sources:?} {plan:?} {threads} threads: {e}"));
                }
            }
        }
    }
}

/// An input already simple is used as it is (no copy); one with repeats is
/// simplified.
#[test]
fn simple_inputs_are_not_copied() {
    let simple = std::sync::Arc::new(gen("kron:scale=8,seed=1"));
    let simple = std::sync::Arc::new(ordo_graph::transform::simplify(&simple));
    assert!(std::sync::Arc::ptr_eq(&BcGraph::new(&simple).graph, &simple));
    let repeats = std::sync::Arc::new(graph(3, &[(0, 1), (0, 1), (1, 2)]));
    let g = BcGraph::new(&repeats);
    assert!(!std::sync::Arc::ptr_eq(&g.graph, &repeats));
    assert_eq!(g.graph.num_edges(), 2);
}

const NETWORKX_CHECK: &str = r#"
import sys
import networkx as nx
path = sys.argv[1]
with open(path) as f:
    n = int(f.readline())
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for line in f:
        u, v = line.split()
        g.add_edge(int(u), int(v))
bc = nx.betweenness_centrality(g, normalized=False)
for v in range(n):
    print(repr(float(bc[v])))
"#;

#[test]
fn values_equal_networkx_on_the_directed_graph() {
    let has_networkx = Command::new("python3")
        .args(["-c", "import networkx"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !has_networkx {
        eprintln!("skipping the networkx comparison: `python3 -c 'import networkx'` failed");
        return;
    }
    let r = runner("async-combining:batch=4", 4, "thread,core");
    let dir = tempfile_dir();
    for spec in ["rmat:scale=8,ef=4,seed=11", "random:n=400,m=1600,seed=5", "grid:w=15,h=10"] {
        let g = gen(spec);
        let file = dir.join("edges.txt");
        let mut out = std::fs::File::create(&file).unwrap();
        writeln!(out, "{}", g.num_vertices()).unwrap();
        for (u, v, _) in g.edges() {
            writeln!(out, "{u} {v}").unwrap();
        }
        drop(out);
        let py = Command::new("python3").args(["-c", NETWORKX_CHECK]).arg(&file).output().unwrap();
        assert!(py.status.success(), "python failed: {}", String::from_utf8_lossy(&py.stderr));
        let expected: Vec<f64> =
            String::from_utf8(py.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect();
        let got = betweenness(&r, &BcGraph::from_graph(g), &BcParams::default()).unwrap();
        assert_eq!(expected.len(), got.values.len());
        for (v, (&e, &x)) in expected.iter().zip(&got.values).enumerate() {
            assert!((e - x).abs() <= 1e-9 * e.abs(), "{spec} vertex {v}: networkx {e}, ordo {x}");
        }
        eprintln!("{spec}: equal to networkx within 1e-9 relative ({} vertices)", expected.len());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ordo-bc-nx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
