//! Loom model of the operator's protocol (module docs, "Why it converges",
//! points 2 and 3): two tasks run concurrently, on two mutually adjacent
//! vertices or on the same vertex, with every interleaving and the weak
//! memory behaviours loom explores; the pushes they make and the other
//! initial tasks are then drained to quiescence, and the end state must
//! have every residual below the tolerance and bounding the true residual
//! `f_w(x) - x_w`. Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-algos --release --lib loom`.

use super::operator::*;
use super::*;
use loom::sync::{Arc, Mutex};

/// Edges 0->1, 0->2, 1->0, 2->0, 2->1 and their transpose.
struct Data {
    inv_out: Vec<f64>,
    rank: Vec<AtomicU64>,
    residual: Vec<AtomicU64>,
}

const OUT_OFFSETS: [u64; 4] = [0, 2, 3, 5];
const OUT_TARGETS: [VertexId; 5] = [1, 2, 0, 0, 1];
const IN_OFFSETS: [u64; 4] = [0, 2, 4, 5];
const IN_SOURCES: [VertexId; 5] = [1, 2, 0, 2, 0];
const ALPHA: f64 = 0.85;
const TOLERANCE: f64 = 0.05;

impl Data {
    fn new() -> Data {
        let inv_out = vec![0.5, 1.0, 0.5];
        let residual = (0..3)
            .map(|w| {
                let s: f64 =
                    in_neighbours(&IN_OFFSETS, &IN_SOURCES, w).iter().map(|&u| inv_out[u as usize]).sum();
                AtomicU64::new((ALPHA * (1.0 - ALPHA) * s).to_bits())
            })
            .collect();
        let rank = (0..3).map(|_| AtomicU64::new((1.0 - ALPHA).to_bits())).collect();
        Data { inv_out, rank, residual }
    }

    /// Module docs, point 2: `0 <= f_w(x) - x_w <= r_w` for every `w`.
    fn check_tracked_residuals_bound_the_true_ones(&self, when: &str) {
        let x: Vec<f64> = self.rank.iter().map(|a| f64::from_bits(a.load(Relaxed))).collect();
        for w in 0..3 {
            let r = f64::from_bits(self.residual[w].load(Relaxed));
            let pull: f64 = in_neighbours(&IN_OFFSETS, &IN_SOURCES, w)
                .iter()
                .map(|&u| x[u as usize] * self.inv_out[u as usize])
                .sum();
            let true_residual = (1.0 - ALPHA) + ALPHA * pull - x[w];
            assert!(
                (-1e-12..=r + 1e-12).contains(&true_residual),
                "{when}, vertex {w}: true residual {true_residual} outside [0, tracked {r}]"
            );
        }
    }

    fn state(&self) -> State<'_> {
        State {
            alpha: ALPHA,
            tolerance: TOLERANCE,
            amp: PR_D_AMP,
            inv_out: &self.inv_out,
            out_offsets: &OUT_OFFSETS,
            out_targets: &OUT_TARGETS,
            in_offsets: &IN_OFFSETS,
            in_sources: &IN_SOURCES,
            rank: &self.rank,
            residual: &self.residual,
        }
    }
}

fn model(first_tasks: [usize; 2]) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.max_branches = 100_000;
    builder.check(move || {
        let data = Arc::new(Data::new());
        // Every vertex starts above the tolerance: the two concurrent
        // tasks take two of them, the worklist holds the rest.
        let work = Arc::new(Mutex::new(
            (0..3).filter(|v| !first_tasks.contains(v)).map(|v| v as VertexId).collect::<Vec<_>>(),
        ));
        let threads: Vec<_> = first_tasks
            .into_iter()
            .map(|v| {
                let (data, work) = (Arc::clone(&data), Arc::clone(&work));
                loom::thread::spawn(move || {
                    let mut pushed = Vec::new();
                    data.state().run_task(v, |_, w| pushed.push(w));
                    work.lock().unwrap().extend(pushed);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // Point 2 holds whenever no task is in flight, not only at the end.
        data.check_tracked_residuals_bound_the_true_ones("after the concurrent tasks");
        let state = data.state();
        loop {
            let next = work.lock().unwrap().pop();
            let Some(v) = next else { break };
            let mut pushed = Vec::new();
            state.run_task(v as usize, |_, w| pushed.push(w));
            work.lock().unwrap().extend(pushed);
        }
        data.check_tracked_residuals_bound_the_true_ones("at quiescence");
        for w in 0..3 {
            let r = f64::from_bits(data.residual[w].load(Relaxed));
            assert!(r < TOLERANCE, "vertex {w}: residual {r} left at quiescence");
        }
    });
}

#[test]
fn loom_tasks_on_adjacent_vertices() {
    model([0, 1]);
}

#[test]
fn loom_two_tasks_on_the_same_vertex() {
    model([0, 0]);
}
