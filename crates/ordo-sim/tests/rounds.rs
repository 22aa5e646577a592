//! The simulated rounds of `auto` against the executor's: on one virtual
//! thread the model replays the executor's lone worker task for task (the
//! same buckets and width controller, so the same counts and the same width
//! trace); on several, every pushed task runs exactly once, the results are
//! exact, and the sharing paths of the protocol are taken.

use ordo_algos::{compare_exact, dijkstra};
use ordo_exec::{ExecOptions, Pool};
use ordo_graph::gen::GenSpec;
use ordo_graph::Graph;
use ordo_sched::SchedulerSpec;
use ordo_sim::{Policy, SimConfig, SimMeasures};

fn graph(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate().unwrap()
}

fn counter(m: &SimMeasures, name: &str) -> u64 {
    m.sched_counters
        .iter()
        .chain(&m.sched_report.counters)
        .find(|(n, _)| *n == name)
        .map_or_else(|| panic!("no counter {name}"), |&(_, v)| v)
}

#[test]
fn one_virtual_thread_replays_the_executors_lone_worker() {
    let pool = Pool::new(1).unwrap();
    // With task notes on, the real operator schedules every lowered vertex
    // in edge order (no chain following), as the simulator's operator does.
    let opts = ExecOptions { log_tasks: true, ..ExecOptions::default() };
    for input in ["road:n=3000,seed=2", "rmat:scale=11,seed=3", "grid:w=40,h=30,seed=4"] {
        let g = graph(input);
        for sched in ["auto", "auto:round=32", "auto:shift=3"] {
            let spec: SchedulerSpec = sched.parse().unwrap();
            let (dist, real) = ordo_algos::sssp(&pool, &spec, &g, 0, &opts).unwrap();
            let sim = ordo_sim::sssp(&g, 0, &spec, &SimConfig::new(1)).unwrap();
            assert_eq!(sim.result, dist, "{sched} on {input}: distances");
            let m = &sim.measures;
            assert_eq!(m.tasks, real.total.tasks, "{sched} on {input}: tasks");
            assert_eq!(m.stale_tasks, real.total.stale_tasks, "{sched} on {input}: stale tasks");
            assert_eq!(m.pushes, real.total.pushes, "{sched} on {input}: pushes");
            let real_counter =
                |name: &str| real.sched_counters.iter().find(|(n, _)| *n == name).map(|&(_, v)| v).unwrap();
            for name in ["rounds", "width_changes"] {
                assert_eq!(counter(m, name), real_counter(name), "{sched} on {input}: {name}");
            }
            // The width trace; the executor's round traces are over wall-clock time.
            let width = real.traces.iter().filter(|t| t.name == "shift").cloned().collect::<Vec<_>>();
            assert_eq!(m.sched_report.traces, width, "{sched} on {input}: width trace");
        }
    }
}

#[test]
fn several_virtual_threads_run_every_task_once_and_share_work() {
    let spec: SchedulerSpec = "auto".parse().unwrap();
    for input in ["road:n=20000,seed=5", "rmat:scale=12,seed=6"] {
        let g = graph(input);
        let reference = dijkstra(&g, 0).unwrap();
        for (vthreads, policy) in [(2, Policy::RoundRobin), (8, Policy::Random), (64, Policy::RoundRobin)] {
            let cfg = SimConfig { policy, ..SimConfig::new(vthreads) };
            let what = format!("{input}, {vthreads} vthreads, {policy}");
            let run = ordo_sim::sssp(&g, 0, &spec, &cfg).unwrap_or_else(|e| panic!("{what}: {e}"));
            compare_exact(&reference.values, &run.result).unwrap_or_else(|e| panic!("{what}: {e}"));
            let m = &run.measures;
            assert_eq!(m.pushes, m.tasks, "{what}: every pushed task ran exactly once");
            assert_eq!(m.tasks_per_thread.iter().sum::<u64>(), m.tasks, "{what}");
            assert!(m.tasks - m.stale_tasks >= reference.settled, "{what}");
            assert!(counter(m, "rounds") > 1, "{what}: more than one round");
            assert!(m.comm.shared_touches > 0, "{what}: the barrier and the piles are shared");
            if vthreads == 64 {
                // Threads without tasks of their own help through the piles.
                assert!(counter(m, "steals") > 0 && counter(m, "barrier_helps") > 0, "{what}");
                assert!(counter(m, "shared_tasks") > 0, "{what}: busy threads file work");
                assert!(m.tasks_per_thread.iter().filter(|&&t| t > 0).count() > 32, "{what}: work spreads");
            }
        }
    }
}

#[test]
fn the_rounds_and_the_asynchronous_mode_are_different_runs() {
    // `auto` simulates its rounds; `auto:mode=async` its handles.
    let g = graph("road:n=5000,seed=7");
    let cfg = SimConfig::new(16);
    let rounds = ordo_sim::sssp(&g, 0, &"auto".parse().unwrap(), &cfg).unwrap();
    let handles = ordo_sim::sssp(&g, 0, &"auto:mode=async".parse().unwrap(), &cfg).unwrap();
    assert_eq!(rounds.result, handles.result);
    assert!(rounds.measures.sched_report.counters.iter().any(|(n, _)| *n == "rounds"));
    assert!(!handles.measures.sched_report.counters.iter().any(|(n, _)| *n == "rounds"));
}
