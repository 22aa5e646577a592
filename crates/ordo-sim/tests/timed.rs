//! Simulated time in cycles: exact results under the clocks for every
//! scheduler, a lone thread's time is the sum of its operations' costs,
//! remote accesses cost only between threads, and a run can finish neither
//! before its longest task nor before its work divided among the threads.

use ordo_algos::{bfs_levels, compare_exact, dijkstra};
use ordo_graph::gen::GenSpec;
use ordo_graph::{EdgeList, Graph};
use ordo_sched::SchedulerSpec;
use ordo_sim::{Costs, Idle, SimConfig};

fn graph(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

/// Distinct costs, so that a sum that counts one kind as another is caught.
fn costs() -> Costs {
    "task=41,edge=7,stale=13,push=29,pop=3,empty_pop=5,remote=101,microsecond=1000".parse().unwrap()
}

fn timed(vthreads: usize, costs: Costs) -> SimConfig {
    SimConfig { costs: Some(costs), ..SimConfig::new(vthreads) }
}

#[test]
fn timed_runs_are_exact_for_every_scheduler_and_count() {
    let g = graph("road:n=1500,seed=4");
    let dist = dijkstra(&g, 0).unwrap();
    let levels = bfs_levels(&g, 0).unwrap();
    for name in SchedulerSpec::names().iter().copied().chain(["auto:mode=async"]) {
        let spec: SchedulerSpec = name.parse().unwrap();
        for vthreads in [1, 2, 16] {
            let what = format!("{spec}, {vthreads} vthreads");
            let run = ordo_sim::sssp(&g, 0, &spec, &timed(vthreads, costs()))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            compare_exact(&dist.values, &run.result).unwrap_or_else(|e| panic!("{what}: SSSP {e}"));
            let time = run.measures.time.unwrap_or_else(|| panic!("{what}: no time"));
            assert!(time.cycles > 0 && time.idle_cycles < time.cycles * vthreads as u64, "{what}: {time:?}");
            let run = ordo_sim::bfs(&g, 0, &spec, &timed(vthreads, costs())).unwrap();
            compare_exact(&levels.values, &run.result).unwrap_or_else(|e| panic!("{what}: BFS {e}"));
        }
    }
}

#[test]
fn a_lone_threads_time_is_the_sum_of_its_operations() {
    let g = graph("rmat:scale=10,seed=3");
    let reference = dijkstra(&g, 0).unwrap();
    // The tasks that relaxed are the settled vertices, once each (exact
    // order); their edges are the reached vertices' degrees.
    let relaxed_edges: u64 = (0..g.num_vertices() as u32)
        .filter(|&v| reference.values[v as usize] != ordo_algos::UNREACHED_DIST)
        .map(|v| g.degree(v) as u64)
        .sum();
    let c = costs();
    for name in ["strict", "auto"] {
        let spec: SchedulerSpec = name.parse().unwrap();
        let cfg = SimConfig { idle: Idle::Spin, ..timed(1, c) };
        let run = ordo_sim::sssp(&g, 0, &spec, &cfg).unwrap();
        let m = &run.measures;
        let time = m.time.unwrap();
        assert_eq!(m.tasks - m.stale_tasks, reference.settled, "{name}: exact order");
        let expected = m.pushes * u64::from(c.push)
            + m.tasks * u64::from(c.pop)
            + reference.settled * u64::from(c.task)
            + relaxed_edges * u64::from(c.edge)
            + m.stale_tasks * u64::from(c.stale)
            + m.empty_pops * u64::from(c.empty_pop);
        // The initial task was pushed before the run: not an operation.
        assert_eq!(time.cycles + u64::from(c.push), expected, "{name}: {m:?}");
        assert_eq!(time.remote_data_accesses, 0, "{name}: one thread has nothing remote");
        assert_eq!(time.idle_cycles, m.empty_pops * u64::from(c.empty_pop), "{name}");
    }
}

#[test]
fn remote_accesses_cost_only_between_threads() {
    let g = graph("road:n=3000,seed=2");
    for name in ["auto", "auto:mode=async", "smq"] {
        let spec: SchedulerSpec = name.parse().unwrap();
        let free = costs().with_overrides("remote=0").unwrap();
        let one = ordo_sim::sssp(&g, 0, &spec, &timed(1, free)).unwrap().measures.time.unwrap();
        let one_paid = ordo_sim::sssp(&g, 0, &spec, &timed(1, costs())).unwrap().measures.time.unwrap();
        assert_eq!(one.cycles, one_paid.cycles, "{name}: no remote access on one thread");
        let two = ordo_sim::sssp(&g, 0, &spec, &timed(2, free)).unwrap().measures.time.unwrap();
        let two_paid = ordo_sim::sssp(&g, 0, &spec, &timed(2, costs())).unwrap().measures;
        let paid = two_paid.time.unwrap();
        assert!(paid.remote_data_accesses > 0, "{name}: two threads share labels");
        assert!(paid.cycles > two.cycles, "{name}: {} against {} cycles", paid.cycles, two.cycles);
    }
}

#[test]
fn a_run_lasts_at_least_its_longest_task_and_its_share_of_the_work() {
    // A star: the source's task relaxes 4,000 edges; its leaves cost one
    // task each and can only start once it pushed them.
    let leaves = 4000;
    let mut edges = EdgeList::new(leaves + 1, true);
    for v in 1..=leaves as u32 {
        edges.push(0, v, v);
    }
    let g = edges.into_graph().unwrap();
    let c = costs();
    for name in ["auto", "auto:mode=async", "mq"] {
        let spec: SchedulerSpec = name.parse().unwrap();
        for vthreads in [2, 8, 64] {
            let run = ordo_sim::sssp(&g, 0, &spec, &timed(vthreads, c)).unwrap();
            let m = &run.measures;
            let time = m.time.unwrap();
            let hub = u64::from(c.pop + c.task) + u64::from(c.edge) * leaves as u64;
            let work = m.tasks * u64::from(c.pop + c.task)
                + leaves as u64 * u64::from(c.edge)
                + (m.pushes - 1) * u64::from(c.push);
            let what = format!("{name} at {vthreads}: {time:?}");
            assert!(time.cycles >= hub + u64::from(c.push), "{what}: the hub, then a push");
            assert!(time.cycles * vthreads as u64 >= work, "{what}: work {work}");
        }
    }
}
