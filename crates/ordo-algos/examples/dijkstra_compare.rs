//! Times ordo's Dijkstra (4-ary heap) against a plain `std::collections::BinaryHeap`
//! Dijkstra on one graph, side by side in one process, and checks that both
//! give the same distances.
//!
//! `cargo run --release -p ordo-algos --example dijkstra_compare -- GRAPH [SOURCE] [REPS]`
//! (GRAPH in any format `ordo` reads; default source 0, 5 repetitions).

use std::path::PathBuf;

use ordo_algos::sssp::reference;
use ordo_graph::load::{load, LoadOptions};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() - 1) / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: dijkstra_compare GRAPH [SOURCE] [REPS]")?);
    let source: u32 = args.next().as_deref().unwrap_or("0").parse()?;
    let reps: usize = args.next().as_deref().unwrap_or("5").parse()?;
    let graph = load(&path, &LoadOptions::default())?;
    let (mut quad, mut binary) = (Vec::new(), Vec::new());
    for _ in 0..reps.max(1) {
        // Alternate the two so that drifting machine load affects both alike.
        let a = reference::dijkstra(&graph, source)?;
        let b = reference::dijkstra_binary_heap(&graph, source)?;
        if a.values != b.values {
            return Err("the two Dijkstra implementations disagree".into());
        }
        quad.push(a.time_s);
        binary.push(b.time_s);
    }
    let (q, b) = (median(quad), median(binary));
    println!(
        "{}: n {}, m {}, source {source}: 4-ary heap {:.1} ms, BinaryHeap {:.1} ms (median of {reps}), ratio {:.2}",
        path.display(),
        graph.num_vertices(),
        graph.num_edges(),
        q * 1e3,
        b * 1e3,
        b / q
    );
    Ok(())
}
