//! The readers on the public real graphs of `docs/data.md`:
//! counts, and the README's checked facts recomputed with small independent
//! algorithms written here (Dijkstra, BFS, triangle counting, Kosaraju SCC);
//! and exact round trips of the real graphs through every text writer.
//! Each test skips with one visible line when its file is absent
//! (`ordo_graph::datasets::find`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use ordo_graph::datasets::find;
use ordo_graph::load::{detect_format, load, Format, LoadOptions, WeightSpec};
use ordo_graph::write::save;
use ordo_graph::{CoordSystem, Graph, VertexId};

fn opts() -> LoadOptions {
    LoadOptions::default()
}

/// Dijkstra from `source`: (reachable, sum of distances, max distance).
fn dijkstra(g: &Graph, source: VertexId) -> (usize, u64, u64) {
    let mut dist = vec![u64::MAX; g.num_vertices()];
    let mut heap = BinaryHeap::new();
    dist[source as usize] = 0;
    heap.push(Reverse((0u64, source)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u as usize] {
            continue;
        }
        for (v, w) in g.weighted_neighbors(u) {
            let nd = d + w as u64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    let reached: Vec<u64> = dist.into_iter().filter(|&d| d != u64::MAX).collect();
    (reached.len(), reached.iter().sum(), reached.iter().copied().max().unwrap_or(0))
}

/// BFS from `source`: (reachable, max level).
fn bfs(g: &Graph, source: VertexId) -> (usize, u32) {
    let mut level = vec![u32::MAX; g.num_vertices()];
    level[source as usize] = 0;
    let mut frontier = vec![source];
    let (mut reached, mut depth) = (1, 0);
    while !frontier.is_empty() {
        let mut next = Vec::new();
        for &u in &frontier {
            for &v in g.neighbors(u) {
                if level[v as usize] == u32::MAX {
                    level[v as usize] = level[u as usize] + 1;
                    depth = depth.max(level[v as usize]);
                    reached += 1;
                    next.push(v);
                }
            }
        }
        frontier = next;
    }
    (reached, depth)
}

/// Triangles of the undirected simple graph underlying `g` (directions
/// ignored, loops and parallel edges dropped), by sorted-list intersection.
fn triangles(g: &Graph) -> u64 {
    let n = g.num_vertices();
    let mut adj: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    for (u, v, _) in g.edges() {
        if u != v {
            adj[u as usize].push(v);
            adj[v as usize].push(u);
        }
    }
    for a in &mut adj {
        a.sort_unstable();
        a.dedup();
    }
    // Orient each edge from lower to higher id; count u < v < w.
    let higher: Vec<Vec<VertexId>> = adj
        .iter()
        .enumerate()
        .map(|(u, a)| a.iter().copied().filter(|&v| v as usize > u).collect())
        .collect();
    let mut count = 0u64;
    for u in 0..n {
        for &v in &higher[u] {
            let (a, b) = (&higher[u], &higher[v as usize]);
            let (mut i, mut j) = (0, 0);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        count += 1;
                        i += 1;
                        j += 1;
                    }
                }
            }
        }
    }
    count
}

/// Strongly connected components by iterative Kosaraju: (count, largest).
fn scc(g: &Graph) -> (usize, usize) {
    let n = g.num_vertices();
    // Reverse graph.
    let mut rev: Vec<Vec<VertexId>> = vec![Vec::new(); n];
    for (u, v, _) in g.edges() {
        rev[v as usize].push(u);
    }
    // First pass: finishing order on g.
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for s in 0..n as VertexId {
        if seen[s as usize] {
            continue;
        }
        seen[s as usize] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some(&mut (u, ref mut i)) = stack.last_mut() {
            let nb = g.neighbors(u);
            if *i < nb.len() {
                let v = nb[*i];
                *i += 1;
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    stack.push((v, 0));
                }
            } else {
                order.push(u);
                stack.pop();
            }
        }
    }
    // Second pass on the reverse graph in decreasing finishing order.
    let mut comp = vec![u32::MAX; n];
    let (mut count, mut largest) = (0, 0);
    for &s in order.iter().rev() {
        if comp[s as usize] != u32::MAX {
            continue;
        }
        let mut size = 0;
        comp[s as usize] = count as u32;
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            size += 1;
            for &v in &rev[u as usize] {
                if comp[v as usize] == u32::MAX {
                    comp[v as usize] = count as u32;
                    stack.push(v);
                }
            }
        }
        count += 1;
        largest = largest.max(size);
    }
    (count, largest)
}

fn self_loops(g: &Graph) -> usize {
    g.edges().filter(|&(u, v, _)| u == v).count()
}

/// Writes `g` in every text format that can hold it, reads it back and
/// checks it is unchanged (coordinates included where the format has them).
fn assert_round_trips(g: &Graph, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let symmetric_no_loops = {
        let mut fwd: Vec<_> = g.edges().collect();
        let mut rev: Vec<_> = g.edges().map(|(u, v, w)| (v, u, w)).collect();
        fwd.sort_unstable();
        rev.sort_unstable();
        fwd == rev && self_loops(g) == 0
    };
    for format in [Format::DimacsGr, Format::Snap, Format::EdgeList, Format::MatrixMarket, Format::Metis] {
        if format == Format::Metis && !symmetric_no_loops {
            continue;
        }
        let path = dir.path().join(format!("{name}.{}", format.name()));
        save(g, &path, format).unwrap();
        let back =
            load(&path, &LoadOptions { format: Some(format), one_based: Some(false), ..opts() }).unwrap();
        let mut expected = g.clone();
        if format == Format::DimacsGr && !g.is_weighted() {
            expected.set_weights(vec![1; g.num_edges()]).unwrap();
        }
        let keeps_coords = matches!(format, Format::DimacsGr | Format::Metis);
        if !keeps_coords {
            expected.set_coords(None).unwrap();
        }
        assert_eq!(back.offsets(), expected.offsets(), "{name} via {format}");
        assert_eq!(back.targets(), expected.targets(), "{name} via {format}");
        assert_eq!(back.weights(), expected.weights(), "{name} via {format}");
        if let (Some(a), Some(b)) = (back.coords(), expected.coords()) {
            assert_eq!(&*a.x, &*b.x, "{name} via {format}: x");
            assert_eq!(&*a.y, &*b.y, "{name} via {format}: y");
        } else {
            assert_eq!(back.coords().is_some(), expected.coords().is_some(), "{name} via {format}: coords");
        }
    }
    // The binary format keeps everything, coordinates included, bit for bit.
    let path = dir.path().join(format!("{name}.ordo"));
    save(g, &path, Format::Binary).unwrap();
    let back = load(&path, &opts()).unwrap();
    assert_eq!(&back, g, "{name} via the binary format");
}

#[test]
fn rome99_matches_the_checked_sssp_facts() {
    let Some(p) = find("road/rome99.gr", "rome99_matches_the_checked_sssp_facts") else { return };
    let g = load(&p, &opts()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (3353, 8870));
    assert!(g.is_weighted());
    assert_eq!(dijkstra(&g, 0), (3353, 116_006_476, 69_102));
    assert_round_trips(&g, "rome99");
}

#[test]
fn luxembourg_matches_the_checked_facts_with_ceil_euclidean_weights() {
    let Some(p) =
        find("road/luxembourg.osm.graph", "luxembourg_matches_the_checked_facts_with_ceil_euclidean_weights")
    else {
        return;
    };
    let g = load(&p, &LoadOptions { weights: WeightSpec::EuclideanCeil, ..opts() }).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (114_599, 2 * 119_666));
    assert_eq!(g.coords().map(|c| c.system), Some(CoordSystem::Planar));
    assert_eq!(dijkstra(&g, 0), (114_599, 3_642_436_411, 81_108));
    assert_eq!(bfs(&g, 0), (114_599, 1_034));
    assert_round_trips(&g, "luxembourg");
    // Unweighted as stored, round trips too (METIS without weights).
    let plain = load(&p, &opts()).unwrap();
    assert!(!plain.is_weighted());
    assert_round_trips(&plain, "luxembourg-plain");
}

#[test]
fn andorra_weights_agree_with_great_circle_lengths_of_its_coordinates() {
    let Some(p) =
        find("road/andorra.gr", "andorra_weights_agree_with_great_circle_lengths_of_its_coordinates")
    else {
        return;
    };
    let g = load(&p, &opts()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (16_574, 31_941));
    let c = g.coords().expect("sibling andorra.co is read");
    assert_eq!(c.system, CoordSystem::LonLatMicroDegrees);
    // The README: arc weight = haversine length in metres x 10 (>= 1).
    let mut close = 0;
    for (u, v, w) in g.edges() {
        let h = ordo_graph::weights::haversine_m(
            c.x[u as usize],
            c.y[u as usize],
            c.x[v as usize],
            c.y[v as usize],
        );
        if ((h * 10.0).round().max(1.0) - w as f64).abs() <= 1.0 {
            close += 1;
        }
    }
    assert!(close as f64 >= 0.99 * g.num_edges() as f64, "{close} of {} arcs agree", g.num_edges());
    assert_round_trips(&g, "andorra");
}

#[test]
fn florida_edge_list_gz_symmetrized_with_uniform_weights() {
    let Some(p) = find("road/FLA.edges.gz", "florida_edge_list_gz_symmetrized_with_uniform_weights") else {
        return;
    };
    let raw = load(&p, &opts()).unwrap();
    assert_eq!((raw.num_vertices(), raw.num_edges()), (1_070_376, 1_343_951));
    let spec = WeightSpec::Uniform { lo: 1, hi: 100_000, seed: 1 };
    let g = load(&p, &LoadOptions { symmetrize: true, weights: spec, ..opts() }).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (1_070_376, 2 * 1_343_951));
    assert_eq!(bfs(&g, 0).0, 1_070_376, "README: connected");
    // Both directions carry the same weight, all within range, many distinct.
    let w = |u: VertexId, v: VertexId| {
        let r = g.edge_range(u);
        let i = g.targets()[r.clone()].binary_search(&v).unwrap();
        g.weights().unwrap()[r.start + i]
    };
    let mut distinct = std::collections::HashSet::new();
    for (u, v, wt) in g.edges() {
        assert!((1..=100_000).contains(&wt));
        assert_eq!(w(v, u), wt);
        distinct.insert(wt);
    }
    assert!(distinct.len() > 90_000, "{}", distinct.len());
    assert_eq!(g, load(&p, &LoadOptions { symmetrize: true, weights: spec, ..opts() }).unwrap());
}

#[test]
fn slashdot_snap_counts_loops_and_triangles() {
    let Some(p) = find("social/soc-Slashdot0902.txt.gz", "slashdot_snap_counts_loops_and_triangles") else {
        return;
    };
    let bytes = std::fs::read(&p).unwrap();
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut text).unwrap();
    assert_eq!(detect_format(Path::new("soc-Slashdot0902.txt"), &text), Format::Snap);
    let g = load(&p, &opts()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (82_168, 948_464));
    assert_eq!(self_loops(&g), 78_303);
    assert_eq!(triangles(&g), 602_592);
    assert_round_trips(&g, "slashdot");
    // No parallel edges: simplified, only the loops go (GAPBS's builder
    // reports the same 870,161 edges).
    let simple = load(&p, &LoadOptions { simplify: true, ..opts() }).unwrap();
    assert_eq!((simple.num_vertices(), simple.num_edges()), (82_168, 948_464 - 78_303));
    assert_eq!(self_loops(&simple), 0);
}

#[test]
fn ca_grqc_remapped_counts_and_triangles() {
    let Some(p) = find("social/CA-GrQc.txt", "ca_grqc_remapped_counts_and_triangles") else { return };
    let g = load(&p, &LoadOptions { remap_ids: true, ..opts() }).unwrap();
    // The file has 28,980 lines (both directions of most edges); the
    // README's 14,496 is SNAP's count of undirected edges, which the
    // symmetrized simple graph reproduces (loops count once).
    assert_eq!((g.num_vertices(), g.num_edges()), (5_242, 28_980));
    let sym = load(&p, &LoadOptions { remap_ids: true, symmetrize: true, ..opts() }).unwrap();
    let loops = self_loops(&sym);
    assert_eq!((sym.num_edges() - loops) / 2 + loops, 14_496);
    assert_eq!(triangles(&g), 48_260);
    assert_round_trips(&g, "grqc");
}

#[test]
fn cnr_2000_counts_loops_and_strong_components() {
    let Some(p) = find("web/cnr-2000.txt.gz", "cnr_2000_counts_loops_and_strong_components") else { return };
    let g = load(&p, &opts()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (325_557, 3_216_152));
    assert_eq!(self_loops(&g), 87_442);
    assert_eq!(scc(&g), (100_977, 112_023));
}

#[test]
fn four_elt_mesh_metis_header() {
    let Some(p) = find("mesh/4elt.graph", "four_elt_mesh_metis_header") else { return };
    let g = load(&p, &opts()).unwrap();
    assert_eq!((g.num_vertices(), g.num_edges()), (7_434, 2 * 43_031));
    assert_eq!(bfs(&g, 0).0, 7_434);
    assert_round_trips(&g, "4elt");
}
