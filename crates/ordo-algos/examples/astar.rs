//! A* with and without its heuristic, side by side, against Dijkstra
//! stopped at the target: how much work the coordinate heuristic saves.
//!
//! ```text
//! cargo run --release -p ordo-algos --example astar [GEN_SPEC | GRAPH_FILE] [SCHEDULER] [THREADS]
//! ```
//! Defaults: `road:n=200000,seed=1`, `pmod`, 2 threads. The target is the
//! default of `ordo run astar`: the farthest BFS level from vertex 0.

use std::path::Path;
use std::time::Instant;

use ordo_algos::astar::{astar, check_path, dijkstra_to_target, far_target, Heuristic};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::LoadOptions;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let input = args.first().map_or("road:n=200000,seed=1", String::as_str);
    let spec = args.get(1).map_or("pmod", String::as_str).parse()?;
    let threads = args.get(2).map_or(Ok(2), |t| t.parse())?;
    let graph = if Path::new(input).exists() {
        ordo_graph::load(Path::new(input), &LoadOptions::default())?
    } else {
        input.parse::<GenSpec>()?.generate()?
    };
    let (source, target) = (0, far_target(&graph, 0)?);
    let exact = dijkstra_to_target(&graph, source, target)?;
    println!(
        "{input}: n {}, {source} -> {target}, Dijkstra: distance {:?}, settled {}, {:.4} s",
        graph.num_vertices(),
        exact.distance,
        exact.settled,
        exact.time_s
    );
    let pool = Pool::new(threads)?;
    for (label, h) in
        [("heuristic", Heuristic::for_graph(&graph)), ("h = 0", Heuristic::zero(graph.num_vertices()))]
    {
        let start = Instant::now();
        let (r, stats) = astar(&pool, &spec, &graph, source, target, &h, &ExecOptions::default())?;
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(r.distance, exact.distance, "A* must match Dijkstra");
        if let Some(d) = r.distance {
            check_path(&graph, source, target, &r.path, d)?;
        }
        println!(
            "A* {label:<9} ({}, scale {:.4}): tasks {} (stale/pruned {}), work increase {:.3}, path {} edges, {secs:.4} s",
            h.kind().name(),
            h.scale(),
            stats.total.tasks,
            stats.total.stale_tasks,
            ordo_algos::work_increase(stats.total.tasks, exact.settled),
            r.path.len().saturating_sub(1),
        );
    }
    Ok(())
}
