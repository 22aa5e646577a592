//! SSSP and BFS on every registered scheduler × {1, 2, 4} threads × a set of
//! inputs (road-like, R-MAT, grid, a real road network, and edge cases):
//! distances must equal Dijkstra's and levels the queue BFS's exactly, and
//! the result must pass the fixpoint check.
//!
//! The scheduler list comes from `SchedulerSpec::names()`, so every newly
//! registered scheduler is covered without editing this file.

use std::path::Path;

use ordo_algos::sssp::verify::{self, EdgeCost};
use ordo_algos::{Reference, UNREACHED_DIST};
use ordo_exec::{ExecOptions, Pool, RunMonitor, RunStats};
use ordo_graph::{EdgeList, Graph};
use ordo_sched::SchedulerSpec;

/// SplitMix64: a tiny deterministic generator, enough for test graphs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn undirected(el: &mut EdgeList, u: u32, v: u32, w: u32) {
    el.push(u, v, w);
    el.push(v, u, w);
}

/// A road-like graph: a jittered `side × side` grid of points where each
/// vertex links to a random subset of its right/down/diagonal neighbours
/// (plus a spanning path so most of it is connected), symmetric, weights =
/// rounded Euclidean length in a wide range.
fn road_like(side: u32, seed: u64) -> Graph {
    let mut rng = Rng(seed);
    let n = side * side;
    let pts: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let (x, y) = ((i % side) as f64, (i / side) as f64);
            (x * 1000.0 + rng.below(600) as f64, y * 1000.0 + rng.below(600) as f64)
        })
        .collect();
    let len = |a: u32, b: u32| {
        let (p, q) = (pts[a as usize], pts[b as usize]);
        (((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt().round() as u32).max(1)
    };
    let mut el = EdgeList::new(n as usize, true);
    for i in 0..n {
        let (x, y) = (i % side, i / side);
        if x + 1 < side && (y == 0 || rng.below(100) < 70) {
            undirected(&mut el, i, i + 1, len(i, i + 1));
        }
        if y + 1 < side && (x == 0 || rng.below(100) < 60) {
            undirected(&mut el, i, i + side, len(i, i + side));
        }
        if x + 1 < side && y + 1 < side && rng.below(100) < 10 {
            undirected(&mut el, i, i + side + 1, len(i, i + side + 1));
        }
    }
    el.into_graph().unwrap()
}

/// R-MAT (a = 0.57, b = c = 0.19) with `2^scale` vertices and
/// `edge_factor · 2^scale` directed edges, weights uniform in 1..=255.
fn rmat(scale: u32, edge_factor: u64, seed: u64) -> Graph {
    let mut rng = Rng(seed);
    let n = 1usize << scale;
    let mut el = EdgeList::new(n, true);
    for _ in 0..edge_factor * n as u64 {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let r = rng.below(100);
            let (bu, bv) = if r < 57 {
                (0, 0)
            } else if r < 76 {
                (0, 1)
            } else if r < 95 {
                (1, 0)
            } else {
                (1, 1)
            };
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        el.push(u, v, 1 + rng.below(255) as u32);
    }
    el.into_graph().unwrap()
}

/// A 4-neighbour `w × h` grid, symmetric, weights uniform in 1..=10^4.
fn grid(w: u32, h: u32, seed: u64) -> Graph {
    let mut rng = Rng(seed);
    let mut el = EdgeList::new((w * h) as usize, true);
    for i in 0..w * h {
        if i % w + 1 < w {
            undirected(&mut el, i, i + 1, 1 + rng.below(10_000) as u32);
        }
        if i / w + 1 < h {
            undirected(&mut el, i, i + w, 1 + rng.below(10_000) as u32);
        }
    }
    el.into_graph().unwrap()
}

/// Two hubs (0 and 1) whose many neighbours are dead ends and links of
/// chains, more of them than a task follows after its edge loop, and chains
/// that join both hubs, so that some chains are lowered again from the other
/// end. Symmetric, weights 1..=50.
fn hubs_with_chains() -> Graph {
    let mut rng = Rng(11);
    let mut edges = vec![(0, 1, 30)];
    let mut vertices = 2u32;
    for hub in [0, 1] {
        // Dead ends.
        for _ in 0..40 {
            edges.push((hub, vertices, 1 + rng.below(50) as u32));
            vertices += 1;
        }
        // Chains of 1..=6 links, half of them ending at the other hub.
        for i in 0..40 {
            let mut prev = hub;
            for _ in 0..1 + rng.below(6) {
                edges.push((prev, vertices, 1 + rng.below(50) as u32));
                prev = vertices;
                vertices += 1;
            }
            if i % 2 == 0 {
                edges.push((prev, 1 - hub, 1 + rng.below(50) as u32));
            }
        }
    }
    let mut el = EdgeList::new(vertices as usize, true);
    for (u, v, w) in edges {
        undirected(&mut el, u, v, w);
    }
    el.into_graph().unwrap()
}

fn from_edges(n: usize, edges: &[(u32, u32, u32)]) -> Graph {
    let mut el = EdgeList::new(n, true);
    for &(u, v, w) in edges {
        el.push(u, v, w);
    }
    el.into_graph().unwrap()
}

/// Reads a DIMACS `.gr` file (`p sp n m`, `a u v w`, 1-based) — only what
/// the test needs, independent of the library's readers.
fn read_dimacs(path: &Path) -> Graph {
    let text = std::fs::read_to_string(path).unwrap();
    let mut el = EdgeList::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.first() {
            Some(&"p") => el = EdgeList::new(f[2].parse().unwrap(), true),
            Some(&"a") => el.push(
                f[1].parse::<u32>().unwrap() - 1,
                f[2].parse::<u32>().unwrap() - 1,
                f[3].parse().unwrap(),
            ),
            _ => {}
        }
    }
    el.into_graph().unwrap()
}

/// A named input with a source vertex.
struct Case {
    name: String,
    graph: Graph,
    source: u32,
}

fn case(name: &str, graph: Graph, source: u32) -> Case {
    Case { name: name.to_string(), graph, source }
}

/// A graph from the library's generators (`ordo_graph::gen`).
fn generated(spec: &str) -> Case {
    let g: ordo_graph::gen::GenSpec = spec.parse().unwrap();
    case(&format!("gen {spec}"), g.generate().unwrap(), 0)
}

/// Sizes of the large inputs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Size {
    /// 10^4–10^5 vertices.
    Full,
    /// About 10^3 vertices, for schedulers that ignore priorities entirely.
    Reduced,
}

fn inputs(size: Size) -> Vec<Case> {
    let full = size == Size::Full;
    let mut cases = if full {
        vec![
            generated("road:n=60000,seed=5"),
            generated("rmat:scale=14,ef=8,seed=6"),
            generated("kron:scale=13,ef=8,seed=7"),
            generated("grid:w=150,h=150,seed=8"),
            case("road-like 250x250", road_like(250, 1), 0),
            case("road-like 100x100 from the middle", road_like(100, 2), 5050),
            case("rmat scale 15", rmat(15, 8, 3), 0),
            case("grid 200x200", grid(200, 200, 4), 0),
        ]
    } else {
        vec![
            generated("road:n=1500,seed=5"),
            generated("rmat:scale=10,ef=8,seed=6"),
            generated("kron:scale=10,ef=8,seed=7"),
            generated("grid:w=30,h=30,seed=8"),
            case("road-like 35x35", road_like(35, 1), 0),
            case("road-like 31x31 from the middle", road_like(31, 2), 480),
            case("rmat scale 11", rmat(11, 8, 3), 0),
            case("grid 30x30", grid(30, 30, 4), 0),
        ]
    };
    cases.extend([
        case("one vertex", from_edges(1, &[]), 0),
        case("one vertex with a self loop", from_edges(1, &[(0, 0, 5)]), 0),
        case(
            "disconnected parts",
            from_edges(8, &[(0, 1, 3), (1, 2, 4), (2, 0, 1), (4, 5, 1), (5, 6, 2), (7, 7, 1), (3, 4, 9)]),
            0,
        ),
        case(
            "zero-weight edges and cycles",
            from_edges(
                6,
                &[(0, 1, 0), (1, 2, 0), (2, 1, 0), (2, 3, 5), (1, 3, 7), (3, 4, 0), (4, 3, 0), (0, 5, 0)],
            ),
            0,
        ),
        case(
            "self loops",
            from_edges(4, &[(0, 0, 1), (0, 1, 2), (1, 1, 0), (1, 2, 2), (2, 2, 9), (2, 3, 1)]),
            0,
        ),
        case(
            "parallel edges",
            from_edges(
                4,
                &[(0, 1, 9), (0, 1, 2), (0, 1, 5), (1, 2, 4), (1, 2, 1), (0, 2, 3), (2, 3, 1), (2, 3, 1)],
            ),
            0,
        ),
    ]);
    // Weights near u32::MAX along a long path (plus shortcuts): distances far
    // beyond u32 that must neither overflow nor saturate.
    let big = u32::MAX;
    let mut edges: Vec<(u32, u32, u32)> = (0..4999).map(|i| (i, i + 1, big - (i % 7))).collect();
    edges.extend((0..4990).step_by(97).map(|i| (i, i + 9, big)));
    cases.push(case("weights near u32::MAX on a long path", from_edges(5000, &edges), 0));
    cases.push(case("hubs with many dead ends and chains", hubs_with_chains(), 0));

    // Unweighted graph: SSSP uses weight 1.
    let mut el = EdgeList::new(2000, false);
    let mut rng = Rng(7);
    for _ in 0..8000 {
        el.push(rng.below(2000) as u32, rng.below(2000) as u32, 0);
    }
    cases.push(case("unweighted random", el.into_graph().unwrap(), 3));

    // rome99 (3,353 vertices) is a full-size input.
    if full {
        if let Some(rome) = ordo_graph::datasets::find("road/rome99.gr", "the rome99 cases") {
            cases.push(case("rome99 (DIMACS, test reader)", read_dimacs(&rome), 0));
            let loaded = ordo_graph::load::load(&rome, &Default::default()).unwrap();
            cases.push(case("rome99 (DIMACS, ordo_graph::load)", loaded, 1));
        }
    }
    cases
}

/// `settled`: the vertices every run must have run a task for, `None` for
/// SSSP, which does not schedule dead ends and links of chains.
fn check_stats(stats: &RunStats, settled: Option<u64>, what: &str) {
    let t = &stats.total;
    if let Some(settled) = settled {
        assert!(t.tasks >= settled, "{what}: {} tasks < {settled} settled vertices", t.tasks);
    }
    assert!(t.stale_tasks <= t.tasks, "{what}: more stale tasks than tasks");
    assert_eq!(t.tasks, t.pops, "{what}: every pop runs one task");
    assert_eq!(t.pushes, t.tasks, "{what}: every pushed task (incl. the initial one) runs exactly once");
}

#[test]
fn sssp_and_bfs_equal_the_references_on_every_scheduler() {
    let with_references = |cases: Vec<Case>| -> Vec<(Case, Reference<u64>, Reference<u32>)> {
        cases
            .into_iter()
            .map(|c| {
                let d = ordo_algos::dijkstra(&c.graph, c.source).unwrap();
                let b = ordo_algos::bfs_levels(&c.graph, c.source).unwrap();
                // The references themselves pass the fixpoint check.
                verify::check_fixpoint(&c.graph, c.source, &d.values, EdgeCost::Weights).unwrap();
                verify::check_fixpoint(&c.graph, c.source, &b.values, EdgeCost::Unit).unwrap();
                (c, d, b)
            })
            .collect()
    };
    let full = with_references(inputs(Size::Full));
    let reduced = with_references(inputs(Size::Reduced));
    let opts = ExecOptions::default();
    for threads in [1, 2, 4] {
        let pool = Pool::new(threads).unwrap();
        for name in SchedulerSpec::names() {
            let spec: SchedulerSpec = name.parse().unwrap();
            // A pure LIFO ignores priorities, and label-correcting SSSP in
            // LIFO order does work exponential in the worst case and
            // superlinear on high-diameter graphs (thousands of times the
            // settled vertices already on a small grid, growing with its
            // side), so it gets the reduced inputs. Every other scheduler
            // gets all sizes.
            let sizes: &[&Vec<_>] = if *name == "lifo" { &[&reduced] } else { &[&full, &reduced] };
            for (c, d, b) in sizes.iter().flat_map(|s| s.iter()) {
                let what = format!("{} on {spec} with {threads} threads", c.name);
                let started = std::time::Instant::now();
                let (dist, stats) = ordo_algos::sssp(&pool, &spec, &c.graph, c.source, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&d.values, &dist) {
                    panic!("sssp, {what}: {e}");
                }
                verify::check_fixpoint(&c.graph, c.source, &dist, EdgeCost::Weights).unwrap();
                check_stats(&stats, None, &format!("sssp, {what}"));

                let (levels, stats) = ordo_algos::bfs(&pool, &spec, &c.graph, c.source, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&b.values, &levels) {
                    panic!("bfs, {what}: {e}");
                }
                check_stats(&stats, Some(b.settled), &format!("bfs, {what}"));
                // Shown with --nocapture: locates a slow or hanging cell.
                eprintln!("ok {what}: {:.3} s", started.elapsed().as_secs_f64());
            }
        }
    }
}

/// `auto`'s rounds with one key per round (the bucket is the span) and with
/// a few keys, besides the default in the matrix above: exact distances and
/// levels, every task run once, on 2 and 4 threads.
#[test]
fn auto_with_other_keys_per_round_equals_the_references() {
    let opts = ExecOptions::default();
    for threads in [2, 4] {
        let pool = Pool::new(threads).unwrap();
        // `round=256,keys=16`: BFS under `auto` before its rounds were sized for levels.
        for spec in ["auto:keys=1", "auto:keys=4", "auto:keys=64", "auto:round=256,keys=16"] {
            let spec: SchedulerSpec = spec.parse().unwrap();
            for c in inputs(Size::Reduced) {
                let what = format!("{} on {spec} with {threads} threads", c.name);
                let d = ordo_algos::dijkstra(&c.graph, c.source).unwrap();
                let (dist, stats) = ordo_algos::sssp(&pool, &spec, &c.graph, c.source, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&d.values, &dist) {
                    panic!("sssp, {what}: {e}");
                }
                check_stats(&stats, None, &format!("sssp, {what}"));
                let b = ordo_algos::bfs_levels(&c.graph, c.source).unwrap();
                let (levels, stats) = ordo_algos::bfs(&pool, &spec, &c.graph, c.source, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&b.values, &levels) {
                    panic!("bfs, {what}: {e}");
                }
                check_stats(&stats, Some(b.settled), &format!("bfs, {what}"));
            }
        }
    }
}

/// A dense digraph: every vertex has `degree` out-edges to random vertices,
/// weights uniform in `1..=max_weight`; most relaxations lower their target
/// several times, so two threads often lower the same vertex at once.
fn dense(n: u32, degree: u32, max_weight: u64, seed: u64) -> Graph {
    let mut rng = Rng(seed);
    let mut el = EdgeList::new(n as usize, true);
    for u in 0..n {
        for _ in 0..degree {
            let v = rng.below(u64::from(n)) as u32;
            el.push(u, v, 1 + rng.below(max_weight) as u32);
        }
    }
    el.into_graph().unwrap()
}

/// The per-thread counter `name` of a run, summed over its threads.
fn thread_counter(stats: &RunStats, name: &str) -> u64 {
    let counters = &stats.total.sched_counters;
    counters
        .iter()
        .find(|(n, _)| *n == name)
        .map_or_else(|| panic!("no counter {name} in {counters:?}"), |c| c.1)
}

/// SSSP under `auto`'s rounds on several threads lowers distances with
/// plain stores, logged and rechecked after each barrier, where a
/// concurrent store may overwrite a smaller value with a larger one. Exact
/// distances under contention: dense graphs whose vertices many tasks lower
/// at once, and up to eight threads on however few cores, so that a thread
/// is often preempted between its load and its store. Every run rechecks
/// its lowerings (the logged path is the one taken). Repetitions:
/// `ORDO_SSSP_STRESS_REPS` (default 30; the printed sum of repaired stores
/// shows how many losses the run met).
#[test]
fn sssp_logged_plain_lowerings_stay_exact_under_contention() {
    let reps: usize = std::env::var("ORDO_SSSP_STRESS_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    let graphs = [
        ("dense 400x64", dense(400, 64, 1000, 7)),
        ("dense 2000x16", dense(2000, 16, 100, 8)),
        ("rmat 2^12", rmat(12, 16, 9)),
    ];
    let opts = ExecOptions::default();
    let spec: SchedulerSpec = "auto".parse().unwrap();
    let mut repaired = 0;
    for threads in [2, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        for (name, g) in &graphs {
            let d = ordo_algos::dijkstra(g, 0).unwrap();
            for rep in 0..reps {
                let what = format!("{name} with {threads} threads, repetition {rep}");
                let (dist, stats) = ordo_algos::sssp(&pool, &spec, g, 0, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&d.values, &dist) {
                    panic!("sssp, {what}: {e}");
                }
                check_stats(&stats, None, &format!("sssp, {what}"));
                assert!(thread_counter(&stats, "rechecked_stores") > 0, "{what}: no lowering was logged");
                repaired += thread_counter(&stats, "repaired_stores");
            }
        }
    }
    eprintln!("repaired stores over every run: {repaired}");
}

/// SSSP under `auto`'s rounds with a worker that stalls now and then (it
/// sleeps at some of its check-ins, as a descheduled thread stands still):
/// the others excuse it from rounds and go on, it runs its tasks across
/// their barriers when it resumes, and the logged plain lowerings are held
/// meanwhile. Exact distances, and the excuse must have happened.
#[test]
fn sssp_stays_exact_when_a_worker_stalls_in_the_rounds() {
    let graphs = [
        ("dense 2000x16", dense(2000, 16, 100, 8)),
        ("rmat 2^14", rmat(14, 16, 9)),
        ("road 300x300", road_like(300, 5)),
    ];
    let spec: SchedulerSpec = "auto".parse().unwrap();
    let mut excused = 0;
    for (threads, stalled) in [(2, 1), (2, 0), (3, 2)] {
        let pool = Pool::new(threads).unwrap();
        for (name, g) in &graphs {
            let d = ordo_algos::dijkstra(g, 0).unwrap();
            for rep in 0..5 {
                let monitor =
                    RunMonitor::with_stall(threads, stalled, 7, std::time::Duration::from_millis(1));
                let opts = ExecOptions { monitor: Some(std::sync::Arc::new(monitor)), ..Default::default() };
                let what =
                    format!("{name} with {threads} threads, thread {stalled} stalling, repetition {rep}");
                let (dist, stats) = ordo_algos::sssp(&pool, &spec, g, 0, &opts).unwrap();
                if let Err(e) = verify::compare_exact(&d.values, &dist) {
                    panic!("sssp, {what}: {e}");
                }
                check_stats(&stats, None, &format!("sssp, {what}"));
                excused += thread_counter(&stats, "excused");
            }
        }
    }
    assert!(excused > 0, "no worker was ever excused: the test proves nothing");
    eprintln!("excuses over every run: {excused}");
}

/// The round target `auto`'s rounds reported for a run.
fn round_target(stats: &RunStats) -> u64 {
    stats.sched_counters.iter().find(|(name, _)| *name == "round_target").expect("auto's rounds report it").1
}

#[test]
fn bfs_sizes_auto_rounds_for_levels_and_a_set_target_stays() {
    use ordo_sched::auto::{DEFAULT_ROUND_TASKS, LEVEL_ROUND_TASKS};
    let pool = Pool::new(2).unwrap();
    let g = grid(40, 40, 3);
    let opts = ExecOptions::default();
    let auto: SchedulerSpec = "auto".parse().unwrap();
    let (_, bfs) = ordo_algos::bfs(&pool, &auto, &g, 0, &opts).unwrap();
    assert_eq!(round_target(&bfs), 2 * LEVEL_ROUND_TASKS, "BFS declares level priorities");
    let (_, sssp) = ordo_algos::sssp(&pool, &auto, &g, 0, &opts).unwrap();
    assert_eq!(round_target(&sssp), 2 * DEFAULT_ROUND_TASKS, "SSSP's distances are not levels");
    let set: SchedulerSpec = "auto:round=100".parse().unwrap();
    let (levels, set_run) = ordo_algos::bfs(&pool, &set, &g, 0, &opts).unwrap();
    assert_eq!(round_target(&set_run), 200, "a target the spec sets is kept");
    let b = ordo_algos::bfs_levels(&g, 0).unwrap();
    verify::compare_exact(&b.values, &levels).unwrap();
}

#[test]
fn rome99_matches_the_published_checksums() {
    let Some(rome) = ordo_graph::datasets::find("road/rome99.gr", "rome99_matches_the_published_checksums")
    else {
        return;
    };
    let g = read_dimacs(&rome);
    // data/README.md: from vertex 1 (1-based) all 3,353 reachable, sum
    // 116,006,476, max 69,102 (scipy and networkx agree).
    let pool = Pool::new(2).unwrap();
    let spec: SchedulerSpec = SchedulerSpec::names()[0].parse().unwrap();
    let (dist, _) = ordo_algos::sssp(&pool, &spec, &g, 0, &ExecOptions::default()).unwrap();
    let s = verify::summarize(&dist);
    assert_eq!((s.reached, s.sum, s.max), (3353, 116_006_476, 69_102));
    let d = ordo_algos::dijkstra(&g, 0).unwrap();
    assert_eq!(verify::summarize(&d.values), s);
}

#[test]
fn exact_order_scheduler_does_no_redundant_work() {
    // With `strict` (exact priority order, one thread) the parallel SSSP is
    // Dijkstra: at most one non-stale task per reached vertex (fewer: dead
    // ends and links of chains get no task).
    let g = road_like(60, 9);
    let pool = Pool::new(1).unwrap();
    let (dist, stats) =
        ordo_algos::sssp(&pool, &"strict".parse().unwrap(), &g, 0, &ExecOptions::default()).unwrap();
    let d = ordo_algos::dijkstra(&g, 0).unwrap();
    assert_eq!(dist, d.values);
    let ran = stats.total.tasks - stats.total.stale_tasks;
    assert!(ran <= d.settled && ran > 0, "{ran} non-stale tasks for {} settled vertices", d.settled);
}

#[test]
fn bad_source_is_an_error_not_a_panic() {
    let g = from_edges(3, &[(0, 1, 1)]);
    let pool = Pool::new(1).unwrap();
    let spec: SchedulerSpec = "strict".parse().unwrap();
    assert!(ordo_algos::sssp(&pool, &spec, &g, 3, &ExecOptions::default()).is_err());
    assert!(ordo_algos::bfs(&pool, &spec, &g, 99, &ExecOptions::default()).is_err());
    let (dist, _) = ordo_algos::sssp(&pool, &spec, &g, 2, &ExecOptions::default()).unwrap();
    assert_eq!(dist, vec![UNREACHED_DIST, UNREACHED_DIST, 0]);
}

#[test]
fn many_small_random_graphs_with_more_threads_than_cores() {
    // Races show up as occasional wrong distances: many short runs on
    // different graphs, 4 threads on this 2-core machine, every scheduler.
    let pool = Pool::new(4).unwrap();
    let opts = ExecOptions::default();
    let mut rng = Rng(2024);
    let graphs: Vec<(Graph, u32)> = (0..40)
        .map(|_| {
            let n = 1 + rng.below(300) as u32;
            let m = rng.below(4 * n as u64 + 1);
            let max_w = [1, 10, 1000, u32::MAX as u64][rng.below(4) as usize];
            let edges: Vec<_> = (0..m)
                .map(|_| {
                    (rng.below(n as u64) as u32, rng.below(n as u64) as u32, rng.below(max_w + 1) as u32)
                })
                .collect();
            (from_edges(n as usize, &edges), rng.below(n as u64) as u32)
        })
        .collect();
    for name in SchedulerSpec::names() {
        let spec: SchedulerSpec = name.parse().unwrap();
        for (i, (g, s)) in graphs.iter().enumerate() {
            let d = ordo_algos::dijkstra(g, *s).unwrap();
            let (dist, _) = ordo_algos::sssp(&pool, &spec, g, *s, &opts).unwrap();
            if let Err(e) = verify::compare_exact(&d.values, &dist) {
                panic!("sssp on random graph {i} with {spec}: {e}");
            }
            let b = ordo_algos::bfs_levels(g, *s).unwrap();
            let (levels, _) = ordo_algos::bfs(&pool, &spec, g, *s, &opts).unwrap();
            if let Err(e) = verify::compare_exact(&b.values, &levels) {
                panic!("bfs on random graph {i} with {spec}: {e}");
            }
        }
    }
}

/// Far more threads than cores: SSSP with 256 and 1024 workers on a
/// 3-vertex graph and on a 10^5-vertex road-like graph terminates with exact
/// distances. (Without the executor's bound on idle scanners, such runs
/// starve and may not finish at 10^4 threads.) Each run has a
/// hang watchdog: a liveness check, not a performance one.
#[test]
fn sssp_with_hundreds_of_threads_per_core_is_exact() {
    use std::sync::mpsc;
    let tiny = from_edges(3, &[(0, 1, 4), (1, 2, 3), (0, 2, 9)]);
    let road = road_like(317, 7); // 100,489 vertices
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for threads in [256, 1024] {
            let pool = Pool::new(threads).unwrap();
            for (name, g) in [("3 vertices", &tiny), ("road 317x317", &road)] {
                let want = ordo_algos::dijkstra(g, 0).unwrap();
                for spec in ["pmod", "obim:delta=8", "smq"] {
                    let spec: SchedulerSpec = spec.parse().unwrap();
                    let (dist, stats) =
                        ordo_algos::sssp(&pool, &spec, g, 0, &ExecOptions::default()).unwrap();
                    if let Err(e) = verify::compare_exact(&want.values, &dist) {
                        panic!("{name}, {spec}, {threads} threads: {e}");
                    }
                    assert_eq!(stats.threads, threads);
                }
            }
        }
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(300)) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("a run failed (its panic is printed above)"),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("no termination within 300 s (livelock?)"),
    }
}

/// A graph with more vertices than `PARALLEL_COLLECT_MIN_LEN` gets its
/// distances and levels written by every worker before the run
/// (`Pool::collect_indexed`); the source's slot, in the last worker's block
/// here, must start at 0 and every other at "unreached".
#[test]
fn per_vertex_arrays_written_by_every_worker_give_exact_results() {
    let c = generated("road:n=70000,seed=12");
    let n = c.graph.num_vertices();
    assert!(n > ordo_exec::PARALLEL_COLLECT_MIN_LEN, "{n} vertices");
    let source = (n - 10) as u32;
    let d = ordo_algos::dijkstra(&c.graph, source).unwrap();
    let b = ordo_algos::bfs_levels(&c.graph, source).unwrap();
    assert!(d.settled > n as u64 / 2, "the source reaches most of the graph");
    for threads in [2, 3] {
        let pool = Pool::new(threads).unwrap();
        for spec in ["auto", "obim", "pmod"] {
            let spec: SchedulerSpec = spec.parse().unwrap();
            let what = format!("{threads} threads, {spec}");
            let (dist, _) =
                ordo_algos::sssp(&pool, &spec, &c.graph, source, &ExecOptions::default()).unwrap();
            verify::compare_exact(&d.values, &dist).unwrap_or_else(|e| panic!("sssp, {what}: {e}"));
            let (levels, _) =
                ordo_algos::bfs(&pool, &spec, &c.graph, source, &ExecOptions::default()).unwrap();
            verify::compare_exact(&b.values, &levels).unwrap_or_else(|e| panic!("bfs, {what}: {e}"));
        }
    }
}
