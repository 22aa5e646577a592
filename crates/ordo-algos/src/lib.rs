//! ordo-algos: graph algorithms written once against the scheduler interface,
//! with the sequential references they are measured and verified against,
//! and the application layer that offers each of them to every front end.
//!
//! One folder per algorithm, each with the parallel algorithm (`mod.rs`),
//! its sequential reference (`reference.rs`), its verification
//! (`verify.rs`) and its application entry (`app.rs`, see [`app`]):
//!
//! - [`sssp`](mod@sssp): unordered single-source shortest paths (PMOD
//!   paper, Figure 1b): atomic distance lowering, one task per improvement,
//!   priority = distance; Dijkstra with a 4-ary heap as the reference (the
//!   speed bar and the exact-order baseline of `work_increase`); exact
//!   comparison, the Lonestar fixpoint check and the checksums (reached,
//!   max, sum) used across implementations.
//! - [`bfs`](mod@bfs): the same with unit weights and `u32` levels; queue
//!   BFS as the reference.
//! - [`astar`](mod@astar): the shortest path to one target, priority
//!   `g + h` with an admissible coordinate heuristic (PMOD paper §5.3), and its
//!   reference, Dijkstra stopped at the target.
//! - [`pagerank`](mod@pagerank): data-driven pull-push PageRank (PR and PR-D,
//!   PMOD paper §5.3): priority from the residual, with power iteration and
//!   the exact-priority sequential run as references, and the proven L1 bound.
//! - [`mst`](mod@mst): minimum spanning forests, parallel Boruvka (priority =
//!   component degree) on any scheduler with Kruskal as the reference.
//! - [`spanning`](mod@spanning): spanning forests by parallel pseudo-DFS and
//!   phased BFS on the XWS work-stealing runtime (`ordo-steal`) with adaptive
//!   batching, the SIMPLE-style and rayon baselines, and the checker.
//! - [`cc`](mod@cc): connected components (weak, of any graph) by Afforest
//!   on the pool's parallel loops, lock-free linking on a parent array;
//!   a sequential union-find as the reference, compared as partitions.
//! - [`work_split`](mod@work_split): good versus useless work (PMOD paper §3.1,
//!   Table 1) from the task notes of a run with `ExecOptions::log_tasks`.
//! - The loop kernels of Callisto-RTS (ATC'15) on ordo-loops, each with a
//!   sequential reference and its verification, run by a
//!   [`loop_runner::LoopRunner`] (an ordo-loops distributor or rayon):
//!   [`pr_pull`](mod@pr_pull) (PageRank by pull, Figure 1), [`tc`](mod@tc)
//!   (triangle counting), [`bc`](mod@bc) (Brandes betweenness with an outer
//!   loop over sources and nested parallel BFS, §4.3) and
//!   [`loop_micro`](mod@loop_micro) (the even / skewed microbenchmark, §4.1).
//! - [`app`](mod@app): the application layer (prepare / run / reference /
//!   verify / report / write) and the registry of applications.
//!
//! # Example
//! ```
//! use ordo_algos::{compare_exact, dijkstra, sssp};
//! use ordo_exec::{ExecOptions, Pool};
//! use ordo_graph::EdgeList;
//!
//! let mut edges = EdgeList::new(3, true);
//! edges.push(0, 1, 4);
//! edges.push(0, 2, 9);
//! edges.push(1, 2, 3);
//! let graph = edges.into_graph().unwrap();
//! let pool = Pool::new(2).unwrap();
//! let spec = "strict".parse().unwrap();
//! let (dist, stats) = sssp(&pool, &spec, &graph, 0, &ExecOptions::default()).unwrap();
//! assert_eq!(dist, vec![0, 4, 7]);
//! let exact = dijkstra(&graph, 0).unwrap();
//! compare_exact(&exact.values, &dist).unwrap();
//! // Vertex 2 has no out-edge: it is lowered but never scheduled.
//! assert!(stats.total.tasks < exact.settled);
//! ```
//!
//! The same through the application layer, which also verifies and reports:
//! ```
//! use std::sync::Arc;
//! use ordo_algos::app::{Params, Prepared, RunEnv};
//! use ordo_algos::sssp::app::{Distances, Sssp};
//! use ordo_exec::{ExecOptions, Pool};
//!
//! let spec: ordo_graph::gen::GenSpec = "grid:w=30,h=30".parse().unwrap();
//! let graph = Arc::new(spec.generate().unwrap());
//! let app = Prepared::<Sssp>::new(graph, Params::new().with("source", "5")).unwrap();
//! let pool = Pool::new(2).unwrap();
//! let env = RunEnv { pool: &pool, exec: &ExecOptions::default() };
//! let run = app.run(&env, &Prepared::<Sssp>::strategy(Some("obim:delta=2")).unwrap()).unwrap();
//! let reference = app.reference().unwrap();
//! app.verify(&run, &reference).unwrap();
//! // Integer weights give integer distances (real weights: `Distances::Real`).
//! let Distances::Int(dist) = &run.output else { unreachable!() };
//! assert_eq!(dist[5], 0);
//! ```

mod access;
pub mod app;
pub mod astar;
pub mod bc;
pub mod bfs;
pub mod cc;
pub mod error;
pub mod loop_micro;
pub mod loop_runner;
pub mod mst;
pub mod pagerank;
pub mod pr_pull;
pub mod spanning;
pub mod sssp;
pub mod tc;
pub mod work_split;

pub use astar::{astar, AstarResult, Heuristic};
pub use bfs::{bfs, bfs_levels, UNREACHED_LEVEL};
pub use error::AlgoError;
pub use sssp::verify::{check_fixpoint, compare_exact, summarize, Summary};
pub use sssp::{dijkstra, sssp, Reference, UNREACHED_DIST};

/// `tasks` executed divided by the vertices the exact-order baseline settled;
/// 1.0 means no wasted work. `NaN`-free: an empty baseline
/// (no vertex settled) gives 0.
pub fn work_increase(tasks: u64, settled_by_reference: u64) -> f64 {
    if settled_by_reference == 0 {
        0.0
    } else {
        tasks as f64 / settled_by_reference as f64
    }
}
