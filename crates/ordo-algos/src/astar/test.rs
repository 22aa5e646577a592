//! Unit tests of A*: the heuristic's admissibility (exhaustive over vertices,
//! against exact distances to the target from Dijkstra on the transpose),
//! the path rebuilding and checking, and small searches against the
//! stopped Dijkstra.

use ordo_exec::Pool;
use ordo_graph::{transform::transpose, CoordSystem, Coordinates, EdgeList, Graph};

use super::*;
use crate::sssp::dijkstra;

/// SplitMix64, enough for test inputs.
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
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Exact distance from every vertex to `target` (Dijkstra on the transpose).
fn distances_to(graph: &Graph, target: VertexId) -> Vec<u64> {
    dijkstra(&transpose(graph), target).unwrap().values
}

/// A random graph on `points` whose edge weights are the "true" length
/// `length(a, b)` times a factor in [k, 2k] (exactly k for about a fifth of
/// the edges), rounded down or up at random (at least 1), mostly between
/// near points and some between random ones.
fn random_geometric(rng: &mut Rng, system: CoordSystem, xs: Vec<f64>, ys: Vec<f64>, k: f64) -> Graph {
    let n = xs.len();
    let length = |a: usize, b: usize| -> f64 {
        match system {
            CoordSystem::Planar => ((xs[a] - xs[b]).powi(2) + (ys[a] - ys[b]).powi(2)).sqrt(),
            // Haversine metres: the "real" length a road graph's weights come from.
            CoordSystem::LonLatMicroDegrees => {
                let r = 6_371_008.8;
                let (la, lb) = ((ys[a] / 1e6).to_radians(), (ys[b] / 1e6).to_radians());
                let dlat = lb - la;
                let dlon = ((xs[b] - xs[a]) / 1e6).to_radians();
                let s = (dlat / 2.0).sin().powi(2) + la.cos() * lb.cos() * (dlon / 2.0).sin().powi(2);
                2.0 * r * s.sqrt().asin()
            }
        }
    };
    let mut el = EdgeList::new(n, true);
    let m = 3 * n + rng.below(3 * n as u64) as usize;
    for i in 0..m {
        let a = rng.below(n as u64) as usize;
        // Mostly near neighbours in id order (ids follow position below), some anywhere.
        let b = if i % 7 == 0 { rng.below(n as u64) as usize } else { (a + 1 + rng.below(4) as usize) % n };
        let factor = if rng.below(5) == 0 { k } else { k * (1.0 + rng.unit()) };
        let exact = length(a, b) * factor;
        let w = if rng.below(2) == 0 { exact.floor() } else { exact.ceil() };
        el.push(a as u32, b as u32, (w as u32).max(1));
    }
    el.coords = Some(Coordinates::new(system, xs, ys));
    el.into_graph().unwrap()
}

fn check_admissible(graph: &Graph, rng: &mut Rng, what: &str) {
    let h = Heuristic::for_graph(graph);
    assert_ne!(h.kind(), HeuristicKind::Zero, "{what}");
    assert!(h.scale() > 0.0, "{what}: scale {}", h.scale());
    let n = graph.num_vertices() as u64;
    let mut tight = 0;
    for _ in 0..4 {
        let t = rng.below(n) as VertexId;
        let exact = distances_to(graph, t);
        for v in 0..n as VertexId {
            let est = h.estimate(v, t);
            let d = exact[v as usize];
            assert!(est <= d, "{what}: h({v}) = {est} > dist({v}, {t}) = {d} (scale {})", h.scale());
            if d != UNREACHED_DIST && d > 0 && est as f64 >= 0.5 * d as f64 {
                tight += 1;
            }
        }
    }
    // Not trivially admissible: many estimates are within a factor 2.
    assert!(tight > 0, "{what}: the heuristic never comes close to the distance");
}

#[test]
fn heuristic_is_admissible_on_random_planar_graphs() {
    let mut rng = Rng(1);
    for trial in 0..20 {
        let n = 20 + rng.below(200) as usize;
        // Points ordered roughly along a line so id-neighbours are near; some coincide.
        let xs: Vec<f64> = (0..n).map(|i| i as f64 * 7.0 + rng.below(20) as f64).collect();
        let mut ys: Vec<f64> = (0..n).map(|_| rng.unit() * 300.0 - 150.0).collect();
        ys[n / 2] = ys[n / 2 - 1];
        let k = [0.3, 1.0, 17.0][trial % 3];
        let g = random_geometric(&mut rng, CoordSystem::Planar, xs, ys, k);
        check_admissible(&g, &mut rng, &format!("planar trial {trial}"));
    }
}

#[test]
fn heuristic_is_admissible_on_random_lon_lat_graphs() {
    let mut rng = Rng(2);
    for trial in 0..20 {
        let n = 20 + rng.below(200) as usize;
        // Around a random place, spanning a few degrees (latitude up to ±70°).
        let lon0 = rng.unit() * 300e6 - 150e6;
        let lat0 = rng.unit() * 140e6 - 70e6;
        let span = 1e5 + rng.unit() * 5e6;
        let xs: Vec<f64> = (0..n).map(|i| (lon0 + span * i as f64 / n as f64).round()).collect();
        let ys: Vec<f64> = (0..n).map(|_| (lat0 + span * (rng.unit() - 0.5)).round()).collect();
        let k = [1.0, 10.0, 0.01][trial % 3]; // metres, decimetres, hectometres
        let g = random_geometric(&mut rng, CoordSystem::LonLatMicroDegrees, xs, ys, k);
        let h = Heuristic::for_graph(&g);
        let HeuristicKind::Equirectangular { reference_latitude_deg } = h.kind() else {
            panic!("lon/lat coordinates give {:?}", h.kind())
        };
        let mean = g.coords().unwrap().y.iter().sum::<f64>() / n as f64 / 1e6;
        assert!((reference_latitude_deg - mean).abs() < 1e-9);
        check_admissible(&g, &mut rng, &format!("lon/lat trial {trial}"));
    }
}

#[test]
fn heuristic_is_nearly_exact_on_a_straight_road() {
    // Collinear points, weights = length: h(v) is the distance minus rounding.
    let n = 50u32;
    let mut el = EdgeList::new(n as usize, true);
    let xs: Vec<f64> = (0..n).map(|i| (i * i) as f64).collect();
    for i in 0..n - 1 {
        let w = (xs[i as usize + 1] - xs[i as usize]) as u32;
        el.push(i, i + 1, w);
        el.push(i + 1, i, w);
    }
    el.coords = Some(Coordinates::new(CoordSystem::Planar, xs, vec![5.0; n as usize]));
    let g = el.into_graph().unwrap();
    let h = Heuristic::for_graph(&g);
    assert!((h.scale() - 1.0).abs() < 1e-8 && h.scale() < 1.0, "scale {}", h.scale());
    let exact = distances_to(&g, 7);
    for v in 0..n {
        let est = h.estimate(v, 7);
        let d = exact[v as usize];
        assert!(est <= d && est + 1 >= d, "h({v}) = {est}, dist {d}");
    }
}

#[test]
fn degenerate_heuristics() {
    // No coordinates: zero.
    let mut el = EdgeList::new(3, true);
    el.push(0, 1, 5);
    el.push(1, 2, 5);
    let g = el.clone().into_graph().unwrap();
    let h = Heuristic::for_graph(&g);
    assert_eq!(h.kind(), HeuristicKind::Zero);
    assert_eq!((0..3).map(|v| h.estimate(v, 2)).collect::<Vec<_>>(), vec![0, 0, 0]);
    // A zero-weight edge of positive length forces scale 0.
    el.push(2, 0, 0);
    el.coords = Some(Coordinates::new(CoordSystem::Planar, vec![0., 1., 2.], vec![0., 0., 0.]));
    let h = Heuristic::for_graph(&el.clone().into_graph().unwrap());
    assert_eq!(h.kind(), HeuristicKind::Euclidean);
    assert_eq!(h.scale(), 0.0);
    assert_eq!(h.estimate(0, 2), 0);
    // Zero-length edges (coinciding points) do not constrain the scale.
    let mut el = EdgeList::new(3, true);
    el.push(0, 1, 0);
    el.push(1, 2, 4);
    el.coords = Some(Coordinates::new(CoordSystem::Planar, vec![0., 0., 2.], vec![0., 0., 0.]));
    let h = Heuristic::for_graph(&el.into_graph().unwrap());
    assert!((h.scale() - 2.0).abs() < 1e-8);
    assert_eq!(h.estimate(0, 2), 3); // floor(2 * (1 - 1e-9) * 2)
                                     // A non-finite coordinate: zero.
    let mut el = EdgeList::new(2, true);
    el.push(0, 1, 1);
    el.coords = Some(Coordinates::new(CoordSystem::Planar, vec![0., f64::NAN], vec![0., 0.]));
    assert_eq!(Heuristic::for_graph(&el.into_graph().unwrap()).kind(), HeuristicKind::Zero);
}

#[test]
fn tight_path_survives_zero_weight_cycles() {
    // 0 -5-> 1, 1 <-0-> 2 (zero-weight cycle), 2 -3-> 3, plus a dead-end
    // zero cycle 4 <-> 5 at the same distance as 1 and 2.
    let mut el = EdgeList::new(6, true);
    for (u, v, w) in [(0, 1, 5), (1, 2, 0), (2, 1, 0), (2, 3, 3), (0, 4, 5), (4, 5, 0), (5, 4, 0)] {
        el.push(u, v, w);
    }
    let g = el.into_graph().unwrap();
    let labels = dijkstra(&g, 0).unwrap().values;
    let path = tight_path(&g, &labels, 0, 3);
    assert_eq!(path, vec![0, 1, 2, 3]);
    check_path(&g, 0, 3, &path, 8).unwrap();
}

#[test]
fn check_path_rejects_wrong_paths() {
    let mut el = EdgeList::new(4, true);
    for (u, v, w) in [(0, 1, 2), (1, 2, 3), (0, 2, 9), (0, 2, 7)] {
        el.push(u, v, w);
    }
    let g = el.into_graph().unwrap();
    check_path(&g, 0, 2, &[0, 1, 2], 5).unwrap();
    check_path(&g, 0, 2, &[0, 2], 7).unwrap(); // the lighter parallel edge
    check_path(&g, 0, 0, &[0], 0).unwrap();
    for (path, dist) in [
        (&[][..], 5),
        (&[0, 1][..], 2),    // wrong end
        (&[1, 2][..], 3),    // wrong start
        (&[0, 1, 2][..], 6), // wrong length
        (&[0, 3, 2][..], 0), // no such edge
        (&[0, 9, 2][..], 0), // not a vertex
        (&[0, 2][..], 9),    // the heavier parallel edge does not count
    ] {
        assert!(
            matches!(check_path(&g, 0, 2, path, dist), Err(AlgoError::InvalidPath { .. })),
            "{path:?} {dist}"
        );
    }
}

#[test]
fn small_searches_match_the_stopped_dijkstra() {
    let pool = Pool::new(2).unwrap();
    let mut rng = Rng(3);
    for trial in 0..40 {
        let n = 2 + rng.below(80) as usize;
        let xs: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0).collect();
        let ys: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0).collect();
        let g = random_geometric(&mut rng, CoordSystem::Planar, xs, ys, 1.0 + trial as f64);
        let (s, t) = (rng.below(n as u64) as VertexId, rng.below(n as u64) as VertexId);
        for spec in ["strict", "obim", "smq"] {
            for h in [Heuristic::for_graph(&g), Heuristic::zero(n)] {
                let spec = spec.parse().unwrap();
                let (r, stats) = astar(&pool, &spec, &g, s, t, &h, &Default::default()).unwrap();
                let want = dijkstra_to_target(&g, s, t).unwrap();
                assert_eq!(r.distance, want.distance, "trial {trial}: {s} -> {t}");
                match r.distance {
                    Some(d) => check_path(&g, s, t, &r.path, d).unwrap(),
                    None => assert!(r.path.is_empty()),
                }
                assert!(stats.total.tasks >= 1);
            }
        }
    }
}

/// The papers' operator finds the stopped Dijkstra's distance too, and it
/// schedules the target whenever it improves it (a task that is then
/// pruned), where ordo's operator never runs a task of the target.
#[test]
fn the_papers_operator_also_schedules_the_target() {
    let mut rng = Rng(11);
    let opts = ExecOptions { log_tasks: true, ..Default::default() };
    for threads in [1, 2] {
        let pool = Pool::new(threads).unwrap();
        for trial in 0..20 {
            let n = 2 + rng.below(80) as usize;
            let xs: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0).collect();
            let ys: Vec<f64> = (0..n).map(|_| rng.unit() * 100.0).collect();
            let g = random_geometric(&mut rng, CoordSystem::Planar, xs, ys, 2.0);
            let (s, t) = (0, (n - 1) as VertexId);
            let h = Heuristic::for_graph(&g);
            let want = dijkstra_to_target(&g, s, t).unwrap();
            for spec in ["strict", "obim"] {
                let spec = spec.parse().unwrap();
                let run = |variant| astar_with_operator(&pool, &spec, &g, s, t, &h, &opts, variant).unwrap();
                let target_tasks =
                    |stats: &RunStats| stats.task_notes.iter().flatten().filter(|note| note.key == t).count();
                let (paper, paper_stats) = run(OperatorVariant::Paper);
                let (fast, fast_stats) = run(OperatorVariant::Fast);
                let what = format!("trial {trial}, {threads} threads, {spec}");
                assert_eq!(paper.distance, want.distance, "{what}");
                assert_eq!(fast.distance, want.distance, "{what}");
                if let Some(d) = paper.distance {
                    check_path(&g, s, t, &paper.path, d).unwrap();
                }
                assert_eq!(
                    target_tasks(&fast_stats),
                    0,
                    "{what}: ordo's operator never schedules the target"
                );
                if want.distance.is_some() && s != t {
                    assert!(target_tasks(&paper_stats) >= 1, "{what}: the paper's operator schedules it");
                    assert!(paper_stats.total.stale_tasks >= 1, "{what}: and its task is pruned");
                }
            }
        }
    }
}

#[test]
fn errors_and_trivial_searches() {
    let mut el = EdgeList::new(3, true);
    el.push(0, 1, 4);
    let g = el.into_graph().unwrap();
    let pool = Pool::new(1).unwrap();
    let spec = "strict".parse().unwrap();
    let h = Heuristic::zero(3);
    let opts = Default::default();
    assert!(matches!(astar(&pool, &spec, &g, 3, 0, &h, &opts), Err(AlgoError::SourceOutOfRange { .. })));
    assert!(matches!(astar(&pool, &spec, &g, 0, 3, &h, &opts), Err(AlgoError::TargetOutOfRange { .. })));
    let wrong = Heuristic::zero(4);
    assert!(matches!(astar(&pool, &spec, &g, 0, 1, &wrong, &opts), Err(AlgoError::HeuristicSize { .. })));
    let (r, _) = astar(&pool, &spec, &g, 1, 1, &h, &opts).unwrap();
    assert_eq!((r.distance, r.path), (Some(0), vec![1]));
    let (r, _) = astar(&pool, &spec, &g, 0, 2, &h, &opts).unwrap();
    assert_eq!((r.distance, r.path.len()), (None, 0));
    let unreachable = dijkstra_to_target(&g, 0, 2).unwrap();
    assert_eq!((unreachable.distance, unreachable.settled), (None, 2));
    assert_eq!(far_target(&g, 0).unwrap(), 1);
    assert_eq!(far_target(&g, 2).unwrap(), 2);
}

#[test]
fn every_task_leaves_one_note_never_below_the_final_label() {
    let mut rng = Rng(4);
    let n = 300;
    let xs: Vec<f64> = (0..n).map(|i| i as f64 * 5.0 + rng.unit()).collect();
    let ys: Vec<f64> = (0..n).map(|_| rng.unit() * 50.0).collect();
    let g = random_geometric(&mut rng, CoordSystem::Planar, xs, ys, 2.0);
    let pool = Pool::new(2).unwrap();
    let opts = ordo_exec::ExecOptions { log_tasks: true, ..Default::default() };
    for spec in ["strict", "fifo", "pmod"] {
        let (r, stats) =
            astar(&pool, &spec.parse().unwrap(), &g, 0, n as u32 - 1, &Heuristic::for_graph(&g), &opts)
                .unwrap();
        let notes: Vec<_> = stats.task_notes.iter().flatten().collect();
        assert_eq!(notes.len() as u64, stats.total.tasks, "{spec}");
        // A task's scheduled distance is never below the vertex's final label.
        assert!(notes.iter().all(|t| t.value >= r.labels[t.key as usize]), "{spec}");
        // Exactly the vertices of the path (but the target, never run) ran with their final label.
        for &v in &r.path[..r.path.len() - 1] {
            assert!(notes.iter().any(|t| t.key == v && t.value == r.labels[v as usize]), "{spec}: {v}");
        }
    }
}
