//! Triangle counting on every distributor, rayon and 1/2/4 threads: exact
//! against the sequential edge-iterator count, on graphs drawn here, on
//! generated graphs, and on the SNAP graphs with the counts SNAP reports
//! (48,260 for CA-GrQc, 602,592 for soc-Slashdot0902).

mod common_loops;

use common_loops::{data_file, gen, load_snap, runners};
use ordo_algos::tc::{self, triangles, Oriented};
use ordo_graph::{EdgeList, Graph};

fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
    let mut e = EdgeList::new(n, false);
    for &(u, v) in edges {
        e.push(u, v, 1);
    }
    e.into_graph().unwrap()
}

#[test]
fn drawn_graphs_have_their_triangles() {
    let k5: Vec<(u32, u32)> = (0..5).flat_map(|u| (u + 1..5).map(move |v| (u, v))).collect();
    let cases = [
        ("empty", graph(3, &[]), 0),
        (
            "triangle with both directions, loops, duplicates",
            graph(3, &[(0, 1), (1, 0), (1, 2), (2, 0), (0, 0), (2, 0)]),
            1,
        ),
        ("K5", graph(5, &k5), 10),
        ("square with one diagonal", graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]), 2),
        ("square", graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]), 0),
    ];
    let runner = common_loops::runner("async-combining:batch=1", 4, "thread");
    for (name, g, expected) in cases {
        assert_eq!(tc::reference::triangles(&g), expected, "reference, {name}");
        assert_eq!(triangles(&runner, &Oriented::new(&g)).triangles, expected, "{name}");
    }
}

#[test]
fn generated_graphs_match_the_reference_on_every_runner() {
    let runners = runners("thread");
    for spec in
        ["rmat:scale=11,ef=8,seed=3", "kron:scale=10,seed=2", "grid:w=30,h=30", "random:n=2000,m=20000"]
    {
        let g = gen(spec);
        let expected = tc::reference::triangles(&g);
        let oriented = Oriented::new(&g);
        for runner in &runners {
            let got = triangles(runner, &oriented).triangles;
            tc::verify::verify(expected, got).unwrap_or_else(|e| panic!("{spec} {runner:?}: {e}"));
        }
    }
    assert!(tc::verify::verify(5, 6).is_err());
}

#[test]
fn snap_graphs_have_the_counts_snap_reports() {
    let runner = common_loops::runner("async-combining:batch=16", 2, "thread");
    for (file, expected) in [("social/CA-GrQc.txt", 48_260u64), ("social/soc-Slashdot0902.txt.gz", 602_592)] {
        let Some(path) = data_file(file) else { continue };
        let g = load_snap(&path);
        let oriented = Oriented::new(&g);
        assert_eq!(triangles(&runner, &oriented).triangles, expected, "{file}");
        assert_eq!(tc::reference::triangles(&g), expected, "{file}, reference");
    }
}
