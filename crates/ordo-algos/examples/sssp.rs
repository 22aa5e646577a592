//! Parallel SSSP on a generated grid-like road graph, verified against
//! Dijkstra, with both sequential references timed.
//!
//! ```text
//! cargo run --release -p ordo-algos --example sssp -- [SCHED] [THREADS] [SIDE]
//! ```
//! SCHED defaults to `strict` (or any registered scheduler spec), THREADS to
//! 2, SIDE to 500 (a SIDE × SIDE grid).

use ordo_algos::sssp::reference::{dijkstra, dijkstra_binary_heap};
use ordo_algos::sssp::verify;
use ordo_algos::{sssp, work_increase};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::EdgeList;
use ordo_sched::SchedulerSpec;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let spec: SchedulerSpec = args.next().as_deref().unwrap_or("strict").parse()?;
    let threads: usize = args.next().as_deref().unwrap_or("2").parse()?;
    let side: u32 = args.next().as_deref().unwrap_or("500").parse()?;

    // A symmetric 4-neighbour grid with pseudo-random weights in 1..=10^4.
    let mut edges = EdgeList::new((side * side) as usize, true);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut weight = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        1 + (x % 10_000) as u32
    };
    for v in 0..side * side {
        for u in [v + 1, v + side] {
            if (u == v + 1 && v % side + 1 < side) || (u == v + side && u < side * side) {
                let w = weight();
                edges.push(v, u, w);
                edges.push(u, v, w);
            }
        }
    }
    let graph = edges.into_graph()?;
    println!("graph: {} vertices, {} edges", graph.num_vertices(), graph.num_edges());

    let pool = Pool::new(threads)?;
    let (dist, stats) = sssp(&pool, &spec, &graph, 0, &ExecOptions::default())?;
    let quad = dijkstra(&graph, 0)?;
    let plain = dijkstra_binary_heap(&graph, 0)?;
    verify::compare_exact(&quad.values, &dist)?;
    verify::compare_exact(&quad.values, &plain.values)?;
    let s = verify::summarize(&dist);
    println!("scheduler {} on {threads} threads: {:.4} s", stats.scheduler, stats.time_s);
    println!(
        "tasks {} (stale {}), work increase {:.3}, empty pops {}",
        stats.total.tasks,
        stats.total.stale_tasks,
        work_increase(stats.total.tasks, quad.settled),
        stats.total.empty_pops
    );
    println!("dijkstra (4-ary heap) {:.4} s, binary-heap dijkstra {:.4} s", quad.time_s, plain.time_s);
    println!("verified: reached {}, max {}, sum {}", s.reached, s.max, s.sum);
    Ok(())
}
