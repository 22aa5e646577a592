//! Loom models of the protocol: the real worker loop (`worker::run_worker`)
//! and the real quiescence state on 2–3 loom threads, over a mutex-protected
//! deque with crossbeam's interface (`sync::deque` under `cfg(loom)`).
//!
//! Each model runs a small tree of frames: every frame records that it ran
//! and checks it runs in the phase it was pushed for (its parent's phase, or
//! one more for `push_next`). After the job, every frame ran exactly once,
//! and the barrier ran once per phase advance plus once for the end. Each
//! worker also checks, when it leaves the job, that every frame has already
//! run, with a *relaxed* load: the happens-before chain through the check
//! count, the barrier and `done` must make the other workers' frames
//! visible.
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p ordo-steal --release --lib loom`

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;
use std::sync::Arc as StdArc;

use crate::sync::deque;
use crate::worker::{run_worker, Frame, JobState, Seed, Worker, WorkerStats};

/// A frame tree: `children[i]` lists `(child, pushed_with_next)`.
struct Tree {
    children: Vec<Vec<(usize, bool)>>,
    phase: Vec<u64>,
}

impl Tree {
    /// `edges` are `(parent, child, next)` with parents before children.
    fn new(frames: usize, edges: &[(usize, usize, bool)]) -> Self {
        let mut children = vec![Vec::new(); frames];
        let mut phase = vec![0u64; frames];
        for &(p, c, next) in edges {
            children[p].push((c, next));
            phase[c] = phase[p] + u64::from(next);
        }
        Tree { children, phase }
    }

    fn phases(&self) -> u64 {
        self.phase.iter().max().map_or(0, |&p| p + 1)
    }
}

struct Log {
    ran: Vec<AtomicUsize>,
}

struct ModelFrame {
    id: usize,
    tree: StdArc<Tree>,
    log: Arc<Log>,
}

impl Frame for ModelFrame {
    type Local = ();

    fn compute(self, w: &mut Worker<'_, Self>) {
        assert_eq!(w.phase(), self.tree.phase[self.id], "frame {} ran in the wrong phase", self.id);
        self.log.ran[self.id].fetch_add(1, Ordering::Relaxed);
        for &(child, next) in &self.tree.children[self.id] {
            let f = ModelFrame { id: child, tree: self.tree.clone(), log: self.log.clone() };
            if next {
                w.push_next(f);
            } else {
                w.push(f);
            }
        }
    }
}

/// Runs `tree` (root frames `roots`, dealt to workers 0, 1, ...) on `threads`
/// loom threads and checks the outcome.
fn run_model(threads: usize, roots: &[usize], tree: &StdArc<Tree>) {
    let log = Arc::new(Log { ran: (0..tree.phase.len()).map(|_| AtomicUsize::new(0)).collect() });
    let mut owners = Vec::new();
    let mut thieves = Vec::new();
    for _ in 0..threads {
        let (o, t) = deque::new();
        owners.push(o);
        thieves.push(t);
    }
    let mut counted = vec![false; threads];
    for (i, &r) in roots.iter().enumerate() {
        owners[i % threads].push(ModelFrame { id: r, tree: tree.clone(), log: log.clone() });
        counted[i % threads] = true;
    }
    let job = Arc::new(JobState::new(thieves, counted.iter().filter(|&&c| c).count()));
    let check_all_ran = |log: &Log| {
        for (id, r) in log.ran.iter().enumerate() {
            assert_eq!(
                r.load(Ordering::Relaxed),
                1,
                "frame {id} had not run (exactly once) when a worker left"
            );
        }
    };
    let mut handles = Vec::new();
    let mut seeds: Vec<Seed<ModelFrame>> =
        owners.into_iter().zip(counted).map(|(now, counted)| Seed { now, local: (), counted }).collect();
    let seed0 = seeds.remove(0);
    for (i, seed) in seeds.into_iter().enumerate() {
        let job = job.clone();
        let log = log.clone();
        handles.push(thread::spawn(move || {
            let (_, stats) = run_worker(&job, i + 1, seed);
            check_all_ran(&log);
            stats
        }));
    }
    let (_, stats0) = run_worker(&job, 0, seed0);
    check_all_ran(&log);
    let mut total = WorkerStats::default();
    total.merge(&stats0);
    for h in handles {
        total.merge(&h.join().unwrap());
    }
    assert_eq!(total.barriers, tree.phases(), "one barrier per phase advance plus the final one");
    assert_eq!(job.quiescence.phase() + 1, tree.phases());
    assert_eq!(total.frames as usize, tree.phase.len());
}

fn bounded(preemptions: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    // Idle workers loop (steal round, yield) until the barrier moves; each
    // yield is a scheduling choice, so executions are long.
    b.max_branches = 100_000;
    b
}

/// A time-bounded search, for models whose full space is too large.
fn timed(preemptions: usize, seconds: u64) -> loom::model::Builder {
    let mut b = bounded(preemptions);
    b.max_duration = Some(std::time::Duration::from_secs(seconds));
    b
}

/// checkCount: the root stashes one stealable frame and returns, so a thief
/// may take the victim's last frame while the victim checks out. Without the
/// handshake on the steal lock the count hits zero while the thief still
/// holds the frame.
#[test]
fn loom_check_count_last_frame_stolen() {
    let tree = StdArc::new(Tree::new(3, &[(0, 1, false), (1, 2, false)]));
    bounded(3).check(move || run_model(2, &[0], &tree));
}

/// Two workers with initial frames; each stashes work for this phase.
#[test]
fn loom_check_count_two_counted_workers() {
    let tree = StdArc::new(Tree::new(4, &[(0, 2, false), (1, 3, false)]));
    bounded(3).check(move || run_model(2, &[0, 1], &tree));
}

/// Phase advance: frames of phase 0 push frames for phase 1 (one of them
/// stealable work of phase 0 first), and a phase-1 frame pushes phase 2.
#[test]
fn loom_phase_advance() {
    let tree = StdArc::new(Tree::new(4, &[(0, 1, false), (0, 2, true), (1, 3, true)]));
    bounded(3).check(move || run_model(2, &[0], &tree));
}

/// Phase jumping: worker 1 has nothing for phases 1 and 2 and may only see
/// phase 3, where a frame it can steal appears.
#[test]
fn loom_phase_jump() {
    let tree = StdArc::new(Tree::new(5, &[(0, 1, true), (1, 2, true), (2, 3, true), (3, 4, false)]));
    bounded(3).check(move || run_model(2, &[0], &tree));
}

/// Three workers, one root, work for this phase and the next (a 20-second
/// bounded search: the full space is exponential in the idle loops' yields).
#[test]
fn loom_three_workers() {
    let tree = StdArc::new(Tree::new(4, &[(0, 1, false), (0, 2, true), (0, 3, false)]));
    timed(2, 20).check(move || run_model(3, &[0], &tree));
}
