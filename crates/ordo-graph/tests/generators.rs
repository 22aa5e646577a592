//! Generators: determinism (per seed, across thread counts), the structural
//! promises of each model checked by independent code in this file, and
//! clear errors for impossible parameters.

use std::collections::{HashMap, HashSet, VecDeque};

use ordo_graph::gen::GenSpec;
use ordo_graph::Graph;

fn gen(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap_or_else(|e| panic!("{e}")).generate().unwrap()
}

fn gen_threads(spec: &str, threads: usize) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate_with_threads(threads).unwrap()
}

/// Multiset of `(u, v, w)` edges.
fn edge_multiset(g: &Graph) -> HashMap<(u32, u32, u32), usize> {
    let mut m = HashMap::new();
    for e in g.edges() {
        *m.entry(e).or_insert(0) += 1;
    }
    m
}

fn is_symmetric(g: &Graph) -> bool {
    let m = edge_multiset(g);
    m.iter().all(|(&(u, v, w), &c)| m.get(&(v, u, w)) == Some(&c))
}

fn self_loops(g: &Graph) -> usize {
    g.edges().filter(|&(u, v, _)| u == v).count()
}

fn has_parallel_edges(g: &Graph) -> bool {
    (0..g.num_vertices() as u32).any(|u| {
        let s: HashSet<u32> = g.neighbors(u).iter().copied().collect();
        s.len() != g.degree(u)
    })
}

/// Vertices reached by an undirected BFS from 0.
fn undirected_reach(g: &Graph) -> usize {
    let n = g.num_vertices();
    let mut adj = vec![Vec::new(); n];
    for (u, v, _) in g.edges() {
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    let mut seen = vec![false; n];
    let mut queue = VecDeque::from([0u32]);
    seen[0] = true;
    let mut count = 1;
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u as usize] {
            if !seen[v as usize] {
                seen[v as usize] = true;
                count += 1;
                queue.push_back(v);
            }
        }
    }
    count
}

#[test]
fn same_seed_same_graph_any_thread_count() {
    for spec in [
        "road:n=3000,seed=9",
        "kron:scale=11,ef=4",
        "rmat:scale=12,ef=40",
        "random:n=5000,m=300000",
        "kgraph:n=20000,k=6",
        "grid:w=40,h=30",
        "torus:w=40,h=30",
    ] {
        let a = gen_threads(spec, 1);
        assert_eq!(a, gen_threads(spec, 2), "{spec}: thread count changed the graph");
        assert_eq!(a, gen_threads(spec, 3), "{spec}: thread count changed the graph");
        let other = gen(&format!("{spec},seed=12345").replace(",seed=9,", ","));
        assert_ne!(a, other, "{spec}: a different seed should give a different graph");
    }
}

#[test]
fn road_is_connected_symmetric_planar_and_sparse() {
    let g = gen("road:n=40000,seed=2");
    let n = g.num_vertices();
    assert_eq!(n, 40000);
    assert_eq!(undirected_reach(&g), n, "road graph must be connected");
    // Deep (BFS depth ~ 2 sqrt(n)) yet strongly connected; Tarjan is iterative.
    assert_eq!(ordo_graph::stats::strong_components(&g).count, 1);
    assert!(is_symmetric(&g), "both directions with the same weight");
    assert_eq!(self_loops(&g), 0);
    assert!(!has_parallel_edges(&g));
    let avg = g.num_edges() as f64 / n as f64;
    assert!((2.5..=2.7).contains(&avg), "average out-degree {avg} (target 2.6)");
    // Every edge joins grid neighbours (w = 200): planar by construction.
    assert!(g.edges().all(|(u, v, _)| u.abs_diff(v) == 1 || u.abs_diff(v) == 200));
    // Weights are the rounded Euclidean lengths of the coordinates.
    let c = g.coords().expect("road graphs have coordinates");
    assert_eq!(c.system, ordo_graph::CoordSystem::Planar);
    for (u, v, w) in g.edges() {
        let (dx, dy) = (c.x[u as usize] - c.x[v as usize], c.y[u as usize] - c.y[v as usize]);
        let len = (dx * dx + dy * dy).sqrt();
        assert_eq!(w, (len.round() as u32).max(1), "edge {u}->{v}");
    }
    // Wide spread and many distinct priorities.
    let ws: Vec<u32> = g.weights().unwrap().to_vec();
    let max = *ws.iter().max().unwrap();
    let min = *ws.iter().min().unwrap();
    let distinct: HashSet<u32> = ws.iter().copied().collect();
    assert!(max >= 50_000 && min <= 100, "weights {min}..{max} should span decades");
    assert!(
        distinct.len() * 10 >= ws.len() / 2,
        "{} distinct weights for {} undirected edges",
        distinct.len(),
        ws.len() / 2
    );
}

#[test]
fn road_degree_parameter_and_tiny_sizes() {
    let g = gen("road:n=10000,deg=2.0");
    // deg=2 asks for n undirected edges: the n - 1 of the spanning tree plus
    // one expected extra edge.
    assert!((2 * 9999..=2 * 10010).contains(&g.num_edges()), "deg=2: {} edges", g.num_edges());
    assert_eq!(undirected_reach(&g), 10000);
    let g = gen("road:n=10000,deg=4");
    assert_eq!(g.num_edges(), 4 * 100 * 99, "deg=4 keeps every grid edge of the 100x100 grid");
    let g = gen("road:n=1");
    assert_eq!((g.num_vertices(), g.num_edges()), (1, 0));
    let g = gen("road:n=2");
    assert_eq!(g.edges().map(|(u, v, _)| (u, v)).collect::<Vec<_>>(), vec![(0, 1), (1, 0)]);
    let g = gen("road:n=7");
    assert_eq!(undirected_reach(&g), 7);
    let g = gen("road:n=1000,min_len=5,max_len=5");
    assert!(g.weights().unwrap().iter().all(|&w| (2..=10).contains(&w)));
}

#[test]
fn kron_is_symmetric_simple_and_skewed() {
    let g = gen("kron:scale=12,ef=16");
    let n = g.num_vertices();
    assert_eq!(n, 4096);
    assert!(is_symmetric(&g));
    assert_eq!(self_loops(&g), 0);
    assert!(!has_parallel_edges(&g));
    assert!(g.num_edges() <= 2 * 16 * 4096);
    assert!(g.weights().unwrap().iter().all(|&w| (1..=255).contains(&w)));
    let max_deg = (0..n as u32).map(|v| g.degree(v)).max().unwrap();
    let avg = g.num_edges() as f64 / n as f64;
    assert!(max_deg as f64 > 20.0 * avg, "power-law: max degree {max_deg} vs average {avg}");
}

#[test]
fn rmat_quadrant_probabilities() {
    // Without permutation, a source in the upper half of the id range has
    // probability a + b at the first level: 0.76 with Graph500 parameters.
    let g = gen("rmat:scale=16,ef=16,seed=4");
    let n = g.num_vertices() as u32;
    assert_eq!(g.num_edges(), 16 << 16, "rmat keeps every generated edge by default");
    let upper_src = g.edges().filter(|&(u, _, _)| u < n / 2).count() as f64 / g.num_edges() as f64;
    let upper_dst = g.edges().filter(|&(_, v, _)| v < n / 2).count() as f64 / g.num_edges() as f64;
    assert!((upper_src - 0.76).abs() < 0.005, "P(source in upper half) = {upper_src}");
    assert!((upper_dst - 0.76).abs() < 0.005, "P(target in left half) = {upper_dst}");
    let g = gen("rmat:scale=10,a=0.25,b=0.25,c=0.25,wmin=7,wmax=7");
    let top = g.edges().filter(|&(u, _, _)| u < 512).count() as f64 / g.num_edges() as f64;
    assert!((top - 0.5).abs() < 0.02, "uniform quadrants: {top}");
    assert!(g.weights().unwrap().iter().all(|&w| w == 7));
}

#[test]
fn grid_and_torus_have_exact_structure() {
    let (w, h) = (37u32, 23u32);
    let g = gen(&format!("grid:w={w},h={h},wmin=5,wmax=9"));
    assert_eq!(g.num_vertices(), (w * h) as usize);
    assert_eq!(g.num_edges(), 2 * (2 * w * h - w - h) as usize);
    assert!(is_symmetric(&g));
    assert!(g.weights().unwrap().iter().all(|&x| (5..=9).contains(&x)));
    for (u, v, _) in g.edges() {
        let (ux, uy, vx, vy) = (u % w, u / w, v % w, v / w);
        assert_eq!(ux.abs_diff(vx) + uy.abs_diff(vy), 1, "{u}->{v} not 4-neighbours");
    }
    assert_eq!(g.degree(0), 2);
    assert_eq!(g.degree(w + 1), 4);
    let c = g.coords().unwrap();
    assert_eq!((c.x[(w + 3) as usize], c.y[(w + 3) as usize]), (3.0, 1.0));

    let t = gen(&format!("torus:w={w},h={h}"));
    assert_eq!(t.num_edges(), 4 * (w * h) as usize);
    assert!((0..w * h).all(|v| t.degree(v) == 4));
    assert!(is_symmetric(&t));
    assert!(!has_parallel_edges(&t));
    for (u, v, _) in t.edges() {
        let dx = (u % w).abs_diff(v % w);
        let dy = (u / w).abs_diff(v / w);
        let ok = (dx == 0 && (dy == 1 || dy == h - 1)) || (dy == 0 && (dx == 1 || dx == w - 1));
        assert!(ok, "{u}->{v} not torus neighbours");
    }
    let mean = t.weights().unwrap().iter().map(|&x| x as f64).sum::<f64>() / t.num_edges() as f64;
    assert!((mean - 5000.5).abs() < 200.0, "uniform 1..10^4 mean {mean}");
}

#[test]
fn random_and_kgraph() {
    let g = gen("random:n=1000,m=50000,wmin=3,wmax=4");
    assert_eq!((g.num_vertices(), g.num_edges()), (1000, 50000));
    assert_eq!(self_loops(&g), 0);
    assert!(g.weights().unwrap().iter().all(|&x| x == 3 || x == 4));
    let low = g.edges().filter(|&(u, _, _)| u < 500).count() as f64 / 50000.0;
    assert!((low - 0.5).abs() < 0.02, "sources uniform: {low}");
    let e = gen("random:n=0,m=0");
    assert_eq!((e.num_vertices(), e.num_edges()), (0, 0));

    for (n, k) in [(5000u32, 5usize), (100, 60), (8, 7), (1, 0)] {
        let g = gen(&format!("kgraph:n={n},k={k}"));
        assert_eq!(g.num_vertices(), n as usize);
        assert!((0..n).all(|v| g.degree(v) == k), "n={n} k={k}");
        assert_eq!(self_loops(&g), 0);
        assert!(!has_parallel_edges(&g));
        assert!((0..n).all(|v| g.neighbors(v).windows(2).all(|p| p[0] < p[1])), "sorted lists");
    }
    // Floyd's sampler is uniform: in-degrees average k with a binomial spread.
    let g = gen("kgraph:n=20000,k=4");
    let mut indeg = vec![0u32; 20000];
    for &t in g.targets() {
        indeg[t as usize] += 1;
    }
    let max_in = *indeg.iter().max().unwrap();
    assert!(max_in < 20, "in-degree {max_in} too concentrated for uniform choices");
}

#[test]
fn impossible_parameters_are_errors_not_panics() {
    for spec in
        ["road:n=0", "kgraph:n=3,k=3", "torus:w=1,h=9", "grid:w=0,h=3", "random:n=1,m=1", "kron:scale=0"]
    {
        let err = spec.parse::<GenSpec>().unwrap_err().to_string();
        assert!(err.starts_with(&format!("generator spec `{spec}`: ")), "{err}");
    }
}

#[test]
fn unweighted_generation_gives_the_weighted_graphs_structure() {
    for spec in [
        "road:n=3000,seed=9",
        "kron:scale=11,ef=4",
        "rmat:scale=12,ef=40",
        "rmat:scale=10,ef=8,sym=true",
        "rmat:scale=10,ef=8,simple=true",
        "random:n=5000,m=300000",
        "kgraph:n=20000,k=6",
        "grid:w=40,h=30",
        "torus:w=40,h=30",
    ] {
        let parsed: GenSpec = spec.parse().unwrap();
        let weighted = parsed.generate_with(2, true).unwrap();
        assert!(weighted.is_weighted(), "{spec}");
        for threads in [1, 3] {
            let unweighted = parsed.generate_with(threads, false).unwrap();
            assert!(!unweighted.is_weighted(), "{spec}: weights were generated");
            assert_eq!(unweighted.offsets(), weighted.offsets(), "{spec}: other degrees");
            assert_eq!(unweighted.targets(), weighted.targets(), "{spec}: other edges");
            assert_eq!(unweighted.coords(), weighted.coords(), "{spec}: other coordinates");
        }
    }
}
