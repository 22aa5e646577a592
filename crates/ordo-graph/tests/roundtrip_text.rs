//! Generate -> write -> read through every text format (plain and gzipped,
//! format given or detected) preserves the graph exactly: offsets, targets,
//! weights, and coordinates where the format has a side file. Random graphs
//! from proptest cover isolated vertices (also vertex 0 and the last one),
//! self loops, parallel edges and extreme weights.

use std::io::Write;
use std::path::Path;

use ordo_graph::gen::GenSpec;
use ordo_graph::load::{load, load_bytes, Format, LoadOptions, WeightSpec};
use ordo_graph::write::{save, write_dimacs, write_edge_list, write_matrix_market, write_metis};
use ordo_graph::{CoordSystem, Coordinates, EdgeList, Graph};
use proptest::prelude::*;

const TEXT_FORMATS: [Format; 5] =
    [Format::DimacsGr, Format::Snap, Format::EdgeList, Format::MatrixMarket, Format::Metis];

/// Whether METIS can hold `g` (symmetric with equal weights, no loops).
fn metis_ok(g: &Graph) -> bool {
    let mut fwd: Vec<_> = g.edges().collect();
    let mut rev: Vec<_> = g.edges().map(|(u, v, w)| (v, u, w)).collect();
    fwd.sort_unstable();
    rev.sort_unstable();
    fwd == rev && g.edges().all(|(u, v, _)| u != v)
}

/// What reading `g` back from `format` must give: DIMACS stores weight 1
/// for unweighted graphs and `.co` coordinates as longitude/latitude; edge
/// lists and Matrix Market have no coordinates; an edge list without edges
/// cannot record that it is weighted.
fn expected_after(g: &Graph, format: Format) -> Graph {
    let mut e = g.clone();
    match format {
        Format::DimacsGr => {
            if !g.is_weighted() {
                e.set_weights(vec![1; g.num_edges()]).unwrap();
            }
            if let Some(c) = g.coords() {
                let c = Coordinates::new(CoordSystem::LonLatMicroDegrees, c.x.to_vec(), c.y.to_vec());
                e.set_coords(Some(c)).unwrap();
            }
        }
        Format::Snap | Format::EdgeList => {
            e.set_coords(None).unwrap();
            // Without a single line an edge list cannot say it is weighted.
            if g.num_edges() == 0 {
                e.clear_weights();
            }
        }
        Format::MatrixMarket => e.set_coords(None).unwrap(),
        Format::Metis => {
            if let Some(c) = g.coords() {
                let c = Coordinates::new(CoordSystem::Planar, c.x.to_vec(), c.y.to_vec());
                e.set_coords(Some(c)).unwrap();
            }
        }
        Format::Binary => {}
    }
    e
}

/// Saves `g` as `format` in `dir`, optionally gzips the main file, loads it
/// (format given or detected) and returns the result.
fn round_trip(g: &Graph, dir: &Path, format: Format, gz: bool, detect: bool) -> Graph {
    let path = dir.join(format!("g.{}", format.name()));
    save(g, &path, format).unwrap();
    let path = if gz {
        let raw = std::fs::read(&path).unwrap();
        let gz_path = dir.join(format!("g.{}.gz", format.name()));
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&raw).unwrap();
        std::fs::write(&gz_path, enc.finish().unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        gz_path
    } else {
        path
    };
    let opts = LoadOptions { format: (!detect).then_some(format), ..Default::default() };
    let back = load(&path, &opts).unwrap_or_else(|e| panic!("{format} (gz {gz}, detect {detect}): {e}"));
    std::fs::remove_file(&path).unwrap();
    back
}

fn check_all_formats(g: &Graph, label: &str) {
    let dir = tempfile::tempdir().unwrap();
    for format in TEXT_FORMATS {
        if format == Format::Metis && !metis_ok(g) {
            continue;
        }
        for (gz, detect) in [(false, false), (false, true), (true, true)] {
            let back = round_trip(g, dir.path(), format, gz, detect);
            assert_eq!(back, expected_after(g, format), "{label} via {format} (gz {gz}, detect {detect})");
        }
    }
}

#[test]
fn generated_graphs_round_trip_through_every_text_format() {
    for spec in ["road:n=3000,seed=3", "rmat:scale=9,ef=8,seed=2", "grid:w=20,h=15,seed=1", "torus:w=7,h=9"] {
        let g: GenSpec = spec.parse().unwrap();
        let g = g.generate().unwrap();
        check_all_formats(&g, spec);
        let mut unweighted = g.clone();
        unweighted.clear_weights();
        check_all_formats(&unweighted, &format!("{spec} unweighted"));
    }
}

#[test]
fn metis_writer_refuses_asymmetric_graphs_and_loops() {
    let dir = tempfile::tempdir().unwrap();
    let mut el = EdgeList::new(2, false);
    el.push(0, 1, 0);
    let e = save(&el.into_graph().unwrap(), &dir.path().join("a.graph"), Format::Metis).unwrap_err();
    assert!(e.to_string().contains("METIS needs a symmetric graph"), "{e}");
    let mut el = EdgeList::new(1, false);
    el.push(0, 0, 0);
    let e = save(&el.into_graph().unwrap(), &dir.path().join("b.graph"), Format::Metis).unwrap_err();
    assert!(e.to_string().contains("self loop"), "{e}");
}

#[test]
fn euclidean_weights_follow_the_coordinates_after_a_round_trip() {
    let g = "road:n=2000,seed=5".parse::<GenSpec>().unwrap().generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("road.graph");
    let mut plain = g.clone();
    plain.clear_weights();
    save(&plain, &path, Format::Metis).unwrap();
    let back = load(&path, &LoadOptions { weights: WeightSpec::Euclidean, ..Default::default() }).unwrap();
    let c = g.coords().unwrap();
    for (u, v, w) in back.edges() {
        let (u, v) = (u as usize, v as usize);
        let len = ((c.x[u] - c.x[v]).powi(2) + (c.y[u] - c.y[v]).powi(2)).sqrt();
        assert_eq!(w, (len.round() as u32).max(1));
    }
}

fn arb_graph() -> impl Strategy<Value = Graph> {
    (1usize..40, any::<bool>(), any::<bool>()).prop_flat_map(|(n, weighted, symmetric)| {
        let edge =
            (0..n as u32, 0..n as u32, prop_oneof![Just(0u32), Just(u32::MAX), any::<u32>(), 1u32..100]);
        prop::collection::vec(edge, 0..120).prop_map(move |edges| {
            let mut el = EdgeList::new(n, weighted);
            for (u, v, w) in edges {
                if symmetric {
                    if u != v {
                        el.push(u, v, w);
                        el.push(v, u, w);
                    }
                } else {
                    el.push(u, v, w);
                }
            }
            el.into_graph().unwrap()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_graphs_round_trip_in_memory(g in arb_graph()) {
        for format in TEXT_FORMATS {
            if format == Format::Metis && !metis_ok(&g) {
                continue;
            }
            let bytes = match format {
                Format::DimacsGr => write_dimacs(&g, Vec::new()).unwrap(),
                Format::Snap | Format::EdgeList => write_edge_list(&g, Vec::new()).unwrap(),
                Format::MatrixMarket => write_matrix_market(&g, Vec::new()).unwrap(),
                Format::Metis => write_metis(&g, Vec::new()).unwrap(),
                Format::Binary => unreachable!(),
            };
            let back = load_bytes(Path::new("mem"), &bytes, format, &LoadOptions::default()).unwrap();
            prop_assert_eq!(&back, &expected_after(&g, format), "via {}", format);
        }
    }
}

/// Real weights survive edge lists, Matrix Market and `.ordo` exactly
/// (shortest round-trip decimals), including whole values, which the edge
/// list writes with a point so the column reads back as real; DIMACS and
/// METIS, integer-only formats, refuse them with a clear error.
#[test]
fn real_weights_round_trip_exactly() {
    let mut el = EdgeList::new(4, true);
    for &(u, v) in &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (2, 2)] {
        el.push(u, v, 0);
    }
    let mut g = el.into_graph().unwrap();
    g.set_real_weights(vec![0.1, 3.0, 1e-300, 0.0, 123456789.125, f64::MAX]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for format in [Format::Snap, Format::EdgeList, Format::MatrixMarket, Format::Binary] {
        let path = dir.path().join(format!("g.{}", format.name()));
        save(&g, &path, format).unwrap();
        let back = load(&path, &LoadOptions { format: Some(format), ..Default::default() }).unwrap();
        assert_eq!(back.real_weights(), g.real_weights(), "{format}");
        assert_eq!((back.offsets(), back.targets()), (g.offsets(), g.targets()), "{format}");
    }
    for format in [Format::DimacsGr, Format::Metis] {
        let path = dir.path().join(format!("g.{}", format.name()));
        let e = save(&g, &path, format).unwrap_err().to_string();
        assert!(e.contains("integer weights only"), "{format}: {e}");
    }
    // Replacing the weights of a real graph gives integer weights again.
    let path = dir.path().join("g.mtx");
    let opts = LoadOptions { weights: WeightSpec::Unit, ..Default::default() };
    let back = load(&path, &opts).unwrap();
    assert_eq!(back.weights(), Some(&[1u32; 6][..]));
    assert!(!back.has_real_weights());
}
