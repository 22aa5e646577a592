//! Criterion micro-benchmarks: raw push/pop throughput of every registered
//! scheduler (`SchedulerSpec::names()`, default parameters), without an
//! executor or an application around it. They are regression guards for the
//! schedulers' own cost, the "Enq"/"Deq" columns of the PMOD paper's Figure 7.
//!
//! Matrix: scheduler × threads {1, 2} × priority stream × workload.
//! - Priority streams: `uniform` (uniform in `0..2^20`) and `road` (Dijkstra-
//!   frontier-like: `i/8 + jitter(0..64)`, rising slowly, many tasks per
//!   priority value, as SSSP on a road network produces).
//! - Workloads: `batch` (every thread pushes its share of 2^16 tasks, flushes,
//!   then all threads pop until all 2^16 came back) and `steady` (2^12 tasks
//!   pre-filled, untimed, then each thread does 2^15 rounds of one push and one
//!   pop).
//!
//! Each iteration builds a fresh scheduler outside the timed region
//! (`iter_custom`), so construction cost is not measured. Throughput is
//! reported in operations (pushes + successful pops) per second.
//!
//! Run all (about 4 minutes) or a filter (benchmark ids are
//! `pushpop/<workload>/<stream>/<scheduler>/t<threads>`):
//! ```text
//! cargo bench -p ordo-sched --bench pushpop
//! cargo bench -p ordo-sched --bench pushpop -- 'batch/road/obim'
//! cargo bench -p ordo-sched --bench pushpop -- '/t2'
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ordo_sched::{Handle, Prio, Scheduler, SchedulerSpec, SchedulerVisitor};
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

/// Tasks pushed (and popped) by one `batch` iteration, over all threads.
const BATCH_TASKS: usize = 1 << 16;
/// Tasks in the scheduler before a `steady` iteration starts.
const STEADY_PREFILL: usize = 1 << 12;
/// Push+pop rounds per thread in one `steady` iteration.
const STEADY_ROUNDS: usize = 1 << 15;
/// Consecutive empty pops after which a benchmark declares a task lost
/// (a scheduler bug) instead of spinning forever.
const MAX_EMPTY_POPS: u64 = 1 << 32;

/// Which priority sequence the pushes use.
#[derive(Clone, Copy, Debug)]
enum Stream {
    /// Uniform in `0..2^20`.
    Uniform,
    /// `i/8 + jitter(0..64)`: slowly increasing, like a Dijkstra frontier.
    Road,
}

impl Stream {
    fn name(self) -> &'static str {
        match self {
            Stream::Uniform => "uniform",
            Stream::Road => "road",
        }
    }

    /// `n` priorities of this stream; `seed` separates the threads' streams.
    fn priorities(self, n: usize, seed: u64) -> Vec<Prio> {
        let mut rng =
            SplitMix64::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D);
        (0..n as u64)
            .map(|i| {
                let r = rng.next_u64();
                match self {
                    Stream::Uniform => r >> 44,
                    Stream::Road => i / 8 + (r >> 58),
                }
            })
            .collect()
    }
}

/// Pops through `handle` until `popped` (shared by all threads) reaches
/// `total`. Empty pops are retried: with two threads a pop may fail while the
/// other thread is mid-operation (the `Handle` contract allows it).
fn pop_until(handle: &mut impl Handle<u64>, popped: &AtomicU64, total: u64) {
    let mut empty_in_a_row = 0u64;
    while popped.load(Ordering::Relaxed) < total {
        match handle.pop() {
            Some(task) => {
                black_box(task);
                popped.fetch_add(1, Ordering::Relaxed);
                empty_in_a_row = 0;
            }
            None => {
                empty_in_a_row += 1;
                assert!(empty_in_a_row < MAX_EMPTY_POPS, "tasks lost: pops keep failing");
                std::hint::spin_loop();
            }
        }
    }
}

/// One `batch` iteration on a fresh scheduler: returns the timed duration.
struct BatchRun<'a> {
    /// One priority stream per thread.
    streams: &'a [Vec<Prio>],
}

impl SchedulerVisitor<u64> for BatchRun<'_> {
    type Output = Duration;

    fn visit<S: Scheduler<u64>>(self, sched: S) -> Duration {
        let total: u64 = self.streams.iter().map(|s| s.len() as u64).sum();
        let popped = AtomicU64::new(0);
        let start = Instant::now();
        std::thread::scope(|scope| {
            for (tid, prios) in self.streams.iter().enumerate() {
                let (sched, popped) = (&sched, &popped);
                scope.spawn(move || {
                    let mut handle = sched.handle(tid);
                    for (i, &p) in prios.iter().enumerate() {
                        handle.push(p, i as u64);
                    }
                    handle.flush();
                    pop_until(&mut handle, popped, total);
                });
            }
        });
        let elapsed = start.elapsed();
        assert_eq!(popped.load(Ordering::Relaxed), total);
        elapsed
    }
}

/// One `steady` iteration on a fresh scheduler: pre-fill (untimed), then
/// push/pop rounds (timed). Returns the timed duration.
struct SteadyRun<'a> {
    /// One priority stream per thread: the pre-fill share, then one priority
    /// per round.
    streams: &'a [Vec<Prio>],
    /// Tasks each thread pre-fills.
    prefill_per_thread: usize,
}

impl SchedulerVisitor<u64> for SteadyRun<'_> {
    type Output = Duration;

    fn visit<S: Scheduler<u64>>(self, sched: S) -> Duration {
        let threads = self.streams.len();
        let prefill = self.prefill_per_thread;
        // Each thread fills, then waits for the others, then times its rounds;
        // the duration is from the common start to the last thread's end.
        let filled = std::sync::Barrier::new(threads + 1);
        let go = std::sync::Barrier::new(threads + 1);
        std::thread::scope(|scope| {
            for (tid, prios) in self.streams.iter().enumerate() {
                let (sched, filled, go) = (&sched, &filled, &go);
                scope.spawn(move || {
                    let mut handle = sched.handle(tid);
                    for (i, &p) in prios[..prefill].iter().enumerate() {
                        handle.push(p, i as u64);
                    }
                    handle.flush();
                    filled.wait();
                    go.wait();
                    for (i, &p) in prios[prefill..].iter().enumerate() {
                        handle.push(p, i as u64);
                        black_box(handle.pop());
                    }
                });
            }
            filled.wait();
            let start = Instant::now();
            go.wait();
            // Joining the scope (at its end) waits for the rounds to finish.
            start
        })
        .elapsed()
    }
}

fn pushpop(c: &mut Criterion) {
    let mut group = c.benchmark_group("pushpop");
    group.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
    for workload in ["batch", "steady"] {
        for stream in [Stream::Uniform, Stream::Road] {
            for &name in SchedulerSpec::names() {
                let spec: SchedulerSpec = name.parse().expect("every registered name parses with defaults");
                for threads in [1usize, 2] {
                    let id = BenchmarkId::new(
                        format!("{workload}/{}/{name}", stream.name()),
                        format!("t{threads}"),
                    );
                    match workload {
                        "batch" => {
                            let per_thread = BATCH_TASKS / threads;
                            let streams: Vec<Vec<Prio>> =
                                (0..threads).map(|t| stream.priorities(per_thread, t as u64)).collect();
                            group.throughput(Throughput::Elements(2 * BATCH_TASKS as u64));
                            group.bench_function(id, |b| {
                                b.iter_custom(|iters| {
                                    (0..iters)
                                        .map(|_| spec.build(threads, BatchRun { streams: &streams }))
                                        .sum()
                                })
                            });
                        }
                        _ => {
                            let prefill_per_thread = STEADY_PREFILL / threads;
                            let streams: Vec<Vec<Prio>> = (0..threads)
                                .map(|t| stream.priorities(prefill_per_thread + STEADY_ROUNDS, t as u64))
                                .collect();
                            group.throughput(Throughput::Elements((2 * STEADY_ROUNDS * threads) as u64));
                            group.bench_function(id, |b| {
                                b.iter_custom(|iters| {
                                    (0..iters)
                                        .map(|_| {
                                            spec.build(
                                                threads,
                                                SteadyRun { streams: &streams, prefill_per_thread },
                                            )
                                        })
                                        .sum()
                                })
                            });
                        }
                    }
                }
            }
        }
    }
    group.finish();
}

criterion_group!(benches, pushpop);
criterion_main!(benches);
