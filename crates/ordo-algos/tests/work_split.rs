//! The good / useless work split (PMOD paper §3.1 Table 1) on real
//! runs: SSSP and BFS on a road-like and an R-MAT graph, schedulers strict,
//! obim, pmod and smq, 1 and 2 threads, with and without cycle timing.
//!
//! What must hold, and why:
//! - **good tasks == vertices reached**, exactly: a vertex's final value is
//!   pushed exactly once (by the `fetch_min` that lowered it there, or as the
//!   source's initial task), and that task runs and notes it.
//! - **good + useless == tasks**: SSSP and BFS note every task, stale ones too.
//! - **useless >= stale**: a stale task ran with a value above the final one.
//!   On strict with one thread (Dijkstra's order) **useless == stale**: a task
//!   that is not stale holds the smallest value in the queue, which no later
//!   task can beat, so it is final.
//! - with cycle timing, **good + useless cycles == task cycles**, exactly: the
//!   note's cycles and the task class come from the same clock reads (unless a
//!   single task ran over 2^32 cycles, when the note saturates; checked).
//! - the classes **good, useless, Enq, Deq, failed Deq, other add up to each
//!   thread's total** with tolerance 0: Other is computed as the thread's
//!   total minus the measured classes, so the sum is exact by construction;
//!   the test checks it per thread with the per-thread split.

use ordo_algos::work_split::{self, WorkSplit};
use ordo_algos::UNREACHED_DIST;
use ordo_exec::{ExecOptions, Pool, RunStats, TaskNote};
use ordo_graph::gen::GenSpec;
use ordo_graph::Graph;

const SCHEDULERS: [&str; 4] = ["strict", "obim", "pmod", "smq"];

fn generate(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

fn graphs() -> Vec<(&'static str, Graph)> {
    vec![
        ("road:n=4000,seed=7", generate("road:n=4000,seed=7")),
        ("rmat:scale=11,ef=8,seed=3", generate("rmat:scale=11,ef=8,seed=3")),
    ]
}

/// One run's values (widened to `u64`, `u64::MAX` unreached) and statistics.
type Run = (Vec<u64>, RunStats);

fn run_sssp(pool: &Pool, sched: &str, g: &Graph, opts: &ExecOptions) -> Run {
    ordo_algos::sssp(pool, &sched.parse().unwrap(), g, 0, opts).unwrap()
}

fn run_bfs(pool: &Pool, sched: &str, g: &Graph, opts: &ExecOptions) -> Run {
    let (levels, stats) = ordo_algos::bfs(pool, &sched.parse().unwrap(), g, 0, opts).unwrap();
    let wide = levels
        .into_iter()
        .map(|l| if l == ordo_algos::UNREACHED_LEVEL { UNREACHED_DIST } else { u64::from(l) })
        .collect();
    (wide, stats)
}

/// Checks every property of the module docs on one run; `reached` comes
/// from the sequential reference.
fn check(what: &str, sched: &str, threads: usize, timed: bool, reached: u64, (values, stats): &Run) {
    let ctx = format!("{what} {sched} threads={threads} timed={timed}");
    assert_eq!(stats.task_notes.len(), threads, "{ctx}: one note list per thread");
    let per_thread = work_split::classify_per_thread(&stats.task_notes, |v| values[v as usize]);
    let split = work_split::classify(&stats.task_notes, |v| values[v as usize]);
    assert_eq!(split, WorkSplit::sum(&per_thread), "{ctx}");
    assert_eq!(split.good_tasks, reached, "{ctx}: good tasks are the reached vertices");
    assert_eq!(split.tasks(), stats.total.tasks, "{ctx}: every task is classified");
    assert!(split.useless_tasks >= stats.total.stale_tasks, "{ctx}: stale tasks are useless");
    if sched == "strict" && threads == 1 {
        assert_eq!(
            split.useless_tasks, stats.total.stale_tasks,
            "{ctx}: Dijkstra order wastes only stale tasks"
        );
    }
    let saturated = stats.task_notes.iter().flatten().any(|n| n.cycles == TaskNote::SATURATED_CYCLES);
    for (tid, (t, s)) in stats.per_thread.iter().zip(&per_thread).enumerate() {
        assert_eq!(s.tasks(), t.tasks, "{ctx} thread {tid}: its notes are its tasks");
        match &t.cycles {
            None => {
                assert!(!timed, "{ctx}");
                assert_eq!(s.cycles(), 0, "{ctx}: no cycles without timing");
            }
            Some(c) => {
                assert!(timed, "{ctx}");
                if saturated {
                    assert!(s.cycles() <= c.task, "{ctx} thread {tid}");
                    continue;
                }
                assert_eq!(s.cycles(), c.task, "{ctx} thread {tid}: good + useless = task cycles");
                let six = s.good_cycles + s.useless_cycles + c.enq + c.deq + c.failed_deq + c.other;
                assert_eq!(six, c.total(), "{ctx} thread {tid}: the six classes are the total");
                assert!(c.total() > 0, "{ctx} thread {tid}: the clock ran");
            }
        }
    }
    if timed && split.good_tasks > 0 && !saturated {
        assert!(split.good_cycles > 0, "{ctx}: good tasks took time");
    }
}

#[test]
fn sssp_and_bfs_split_matches_reached_vertices_and_task_cycles() {
    for threads in [1, 2] {
        let pool = Pool::new(threads).unwrap();
        for (name, g) in graphs() {
            let dijkstra = ordo_algos::dijkstra(&g, 0).unwrap();
            let reached_dist = dijkstra.values.iter().filter(|&&d| d != UNREACHED_DIST).count() as u64;
            let bfs = ordo_algos::bfs_levels(&g, 0).unwrap();
            let reached_level =
                bfs.values.iter().filter(|&&l| l != ordo_algos::UNREACHED_LEVEL).count() as u64;
            assert_eq!(reached_dist, reached_level, "{name}: the same vertices are reachable");
            assert!(reached_dist > 100, "{name}: the source reaches a real part of the graph");
            for sched in SCHEDULERS {
                for timed in [false, true] {
                    let opts = ExecOptions { cycle_timing: timed, log_tasks: true, ..ExecOptions::default() };
                    let sssp = run_sssp(&pool, sched, &g, &opts);
                    assert_eq!(sssp.0, dijkstra.values, "{name} {sched}: exact distances");
                    check(&format!("sssp {name}"), sched, threads, timed, reached_dist, &sssp);
                    let bfs_run = run_bfs(&pool, sched, &g, &opts);
                    check(&format!("bfs {name}"), sched, threads, timed, reached_level, &bfs_run);
                }
            }
        }
    }
}

#[test]
fn without_log_tasks_there_are_no_notes() {
    let pool = Pool::new(2).unwrap();
    let g = generate("road:n=2000,seed=1");
    let (_, stats) =
        run_sssp(&pool, "pmod", &g, &ExecOptions { cycle_timing: true, ..ExecOptions::default() });
    assert!(stats.total.tasks > 0);
    assert!(stats.task_notes.is_empty());
}

#[test]
fn a_relaxed_order_wastes_work_that_the_split_sees() {
    // obim with a coarse delta on a road graph reliably re-executes vertices
    // on one thread: the split must then report useless non-stale work or
    // stale work, consistent with the task count above the reached count.
    let pool = Pool::new(1).unwrap();
    let g = generate("road:n=4000,seed=7");
    let run =
        run_sssp(&pool, "obim:delta=20", &g, &ExecOptions { log_tasks: true, ..ExecOptions::default() });
    let split = work_split::classify(&run.1.task_notes, |v| run.0[v as usize]);
    let reached = run.0.iter().filter(|&&d| d != UNREACHED_DIST).count() as u64;
    assert_eq!(split.useless_tasks, run.1.total.tasks - reached);
    assert!(split.useless_tasks > 0, "a delta of 2^20 on a road graph does redundant work");
}
