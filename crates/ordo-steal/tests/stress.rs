//! Stress tests of the runtime: every frame runs exactly once, in the phase
//! it was pushed for, and the barrier advances each phase exactly once, on
//! 1 to 8 threads (1–4× oversubscribed on a two-core machine).
//!
//! `ORDO_STEAL_STRESS_FRAMES` overrides the large frame count.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use ordo_steal::{Frame, Job, Pool, Worker};

/// A frame tree on ids `0..n`: frame `i` has children `2i+1`, `2i+2` (when
/// below `n`); a child is pushed for the next phase when `next_every` divides
/// a hash of its id (never when `next_every == 0`), else for this phase.
struct Tree {
    n: u64,
    next_every: u64,
    ran: Vec<AtomicU8>,
    wrong_phase: AtomicU64,
}

fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Tree {
    fn new(n: u64, next_every: u64) -> Self {
        Tree {
            n,
            next_every,
            ran: (0..n).map(|_| AtomicU8::new(0)).collect(),
            wrong_phase: AtomicU64::new(0),
        }
    }

    fn is_next(&self, id: u64) -> bool {
        self.next_every != 0 && mix(id) % self.next_every == 0
    }

    /// The phase each frame must run in, computed sequentially; returns
    /// the number of phases.
    fn phases(&self) -> u64 {
        let mut phase = vec![0u64; self.n as usize];
        let mut max = 0;
        for id in 1..self.n {
            let parent = (id - 1) / 2;
            phase[id as usize] = phase[parent as usize] + u64::from(self.is_next(id));
            max = max.max(phase[id as usize]);
        }
        if self.n == 0 {
            0
        } else {
            max + 1
        }
    }

    fn check(&self, what: &str, report_phases: u64, barriers: u64) {
        for (id, r) in self.ran.iter().enumerate() {
            let r = r.load(Ordering::Relaxed);
            assert_eq!(r, 1, "{what}: frame {id} ran {r} times");
        }
        assert_eq!(self.wrong_phase.load(Ordering::Relaxed), 0, "{what}: frames ran in the wrong phase");
        let phases = self.phases();
        assert_eq!(report_phases, phases, "{what}: phases");
        assert_eq!(barriers, phases, "{what}: one barrier per phase advance plus the final one");
    }
}

struct TreeFrame<'t> {
    id: u64,
    phase: u64,
    tree: &'t Tree,
}

impl Frame for TreeFrame<'_> {
    type Local = u64;

    fn compute(self, w: &mut Worker<'_, Self>) {
        if w.phase() != self.phase {
            self.tree.wrong_phase.fetch_add(1, Ordering::Relaxed);
        }
        self.tree.ran[self.id as usize].fetch_add(1, Ordering::Relaxed);
        *w.local() += 1;
        for child in [2 * self.id + 1, 2 * self.id + 2] {
            if child < self.tree.n {
                if self.tree.is_next(child) {
                    w.push_next(TreeFrame { id: child, phase: self.phase + 1, tree: self.tree });
                } else {
                    w.push(TreeFrame { id: child, phase: self.phase, tree: self.tree });
                }
            }
        }
    }
}

fn run_tree(pool: &Pool, n: u64, next_every: u64) {
    let tree = Tree::new(n, next_every);
    let root = (n > 0).then_some(TreeFrame { id: 0, phase: 0, tree: &tree });
    let report = pool.submit(Job::new(root));
    let what = format!("{} threads, {n} frames, next 1/{next_every}", pool.threads());
    let total = report.total();
    tree.check(&what, report.phases, total.barriers);
    assert_eq!(total.frames, n, "{what}: frames counted");
    assert_eq!(report.locals.iter().sum::<u64>(), n, "{what}: locals");
    assert_eq!(total.pushes + total.pushes_next + u64::from(n > 0), n, "{what}: pushes");
}

fn large() -> u64 {
    std::env::var("ORDO_STEAL_STRESS_FRAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

#[test]
fn every_frame_once_in_its_phase_at_1_to_4x_oversubscription() {
    let cores = ordo_steal::available_cores();
    for threads in [1, 2, 3, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        for next_every in [0, 2, 7, 1000] {
            run_tree(&pool, 200_000, next_every);
        }
        eprintln!("{threads} threads on {cores} cores: ok");
    }
}

#[test]
fn large_trees_on_two_threads() {
    let pool = Pool::new(2).unwrap();
    run_tree(&pool, large(), 0);
    run_tree(&pool, large(), 5);
}

/// Many small jobs on one pool: each starts and ends cleanly (start-up and
/// end-of-job races), including jobs of a single frame and empty jobs.
#[test]
fn many_small_jobs() {
    for threads in [2, 4] {
        let pool = Pool::new(threads).unwrap();
        for round in 0..2000u64 {
            run_tree(&pool, round % 40, 1 + round % 3);
        }
    }
}

/// A long chain of phases with almost no work in each: the barrier trips
/// thousands of times and idle workers jump phases.
#[test]
fn long_chains_of_phases() {
    struct Chain<'a> {
        left: u64,
        ran: &'a AtomicU64,
    }
    impl Frame for Chain<'_> {
        type Local = ();
        fn compute(self, w: &mut Worker<'_, Self>) {
            self.ran.fetch_add(1, Ordering::Relaxed);
            if self.left > 0 {
                if self.left % 10 == 0 {
                    // Some work for this phase too, to be stolen.
                    w.push(Chain { left: 0, ran: self.ran });
                }
                w.push_next(Chain { left: self.left - 1, ran: self.ran });
            }
        }
    }
    for threads in [2, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        let ran = AtomicU64::new(0);
        let report = pool.submit(Job::new([Chain { left: 3000, ran: &ran }]));
        assert_eq!(report.phases, 3001);
        assert_eq!(report.total().barriers, 3001);
        assert_eq!(ran.load(Ordering::Relaxed), 3001 + 300);
    }
}

/// Initial frames are dealt to every worker; each runs once.
#[test]
fn many_initial_frames() {
    struct Leaf<'a>(&'a [AtomicU8], usize);
    impl Frame for Leaf<'_> {
        type Local = ();
        fn compute(self, _: &mut Worker<'_, Self>) {
            self.0[self.1].fetch_add(1, Ordering::Relaxed);
        }
    }
    let pool = Pool::new(3).unwrap();
    let ran: Vec<AtomicU8> = (0..10_000).map(|_| AtomicU8::new(0)).collect();
    let report = pool.submit(Job::new((0..ran.len()).map(|i| Leaf(&ran, i))));
    assert!(ran.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    assert_eq!(report.phases, 1);
    let empty = pool.submit(Job::new(std::iter::empty::<Leaf<'_>>()));
    assert_eq!((empty.phases, empty.total().frames), (0, 0));
}

#[test]
fn locals_come_back_per_worker() {
    let pool = Pool::new(3).unwrap();
    let tree = Tree::new(10_000, 3);
    let report =
        pool.submit(Job::with_locals([TreeFrame { id: 0, phase: 0, tree: &tree }], |i| 1000 * i as u64));
    let frames: u64 = report.locals.iter().enumerate().map(|(i, l)| l - 1000 * i as u64).sum();
    assert_eq!(frames, 10_000);
}

#[test]
fn a_panicking_frame_ends_the_job_and_the_pool_survives() {
    struct Boom(u32);
    impl Frame for Boom {
        type Local = ();
        fn compute(self, w: &mut Worker<'_, Self>) {
            if self.0 == 0 {
                panic!("frame failed on purpose");
            }
            w.push(Boom(self.0 - 1));
            w.push_next(Boom(self.0 - 1));
        }
    }
    let pool = Pool::new(2).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.submit(Job::new([Boom(5)]))));
    let msg = result.unwrap_err();
    assert_eq!(msg.downcast_ref::<&str>(), Some(&"frame failed on purpose"));
    run_tree(&pool, 1000, 2);
}

#[test]
fn zero_threads_is_an_error() {
    let e = Pool::new(0).unwrap_err();
    assert_eq!(e.to_string(), "a thread pool needs at least one thread (got 0)");
    let pool = Pool::builder().threads(2).pin(false).build().unwrap();
    assert_eq!(pool.threads(), 2);
    assert!(!pool.pinned());
}

#[test]
fn submitting_from_a_frame_of_the_same_pool_panics() {
    struct Nested<'p>(&'p Pool);
    impl Frame for Nested<'_> {
        type Local = ();
        fn compute(self, _: &mut Worker<'_, Self>) {
            self.0.submit(Job::new(std::iter::empty::<Nested<'_>>()));
        }
    }
    let pool = Pool::new(2).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.submit(Job::new([Nested(&pool)]))));
    let payload = r.unwrap_err();
    let msg = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(msg.contains("called from a frame of the same pool"), "{msg}");
}

/// `Frame::on_empty` runs before every check-out: frames park items in the
/// worker's local buffer, `on_empty` pushes them as frames for this phase or
/// the next, and every item still runs exactly once.
#[test]
fn on_empty_flushes_local_buffers() {
    struct Item<'a> {
        id: u64,
        n: u64,
        ran: &'a [AtomicU8],
    }
    impl<'a> Frame for Item<'a> {
        type Local = (Vec<u64>, Option<(u64, &'a [AtomicU8])>);
        fn compute(self, w: &mut Worker<'_, Self>) {
            self.ran[self.id as usize].fetch_add(1, Ordering::Relaxed);
            let local = w.local();
            local.1 = Some((self.n, self.ran));
            for child in [2 * self.id + 1, 2 * self.id + 2] {
                if child < self.n {
                    local.0.push(child);
                }
            }
        }
        fn on_empty(w: &mut Worker<'_, Self>) {
            let (buffer, shared) = std::mem::take(w.local());
            if let Some((n, ran)) = shared {
                for id in buffer {
                    let item = Item { id, n, ran };
                    if id % 3 == 0 {
                        w.push_next(item);
                    } else {
                        w.push(item);
                    }
                }
            }
        }
    }
    for threads in [1, 2, 4, 8] {
        let pool = Pool::new(threads).unwrap();
        let n = 100_000;
        let ran: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
        let report = pool.submit(Job::new([Item { id: 0, n, ran: &ran }]));
        for (id, r) in ran.iter().enumerate() {
            assert_eq!(r.load(Ordering::Relaxed), 1, "{threads} threads: item {id}");
        }
        assert_eq!(report.total().frames, n);
    }
}
