//! Stress: every distributor runs every iteration exactly once, on skewed
//! work, with 1×, 2× and 4× as many threads as cores, in flat and nested
//! loops, over many consecutive loops (so that slots, generations and
//! parked followers are reused). Also checks that per-thread state is
//! forked at most once per thread and joined exactly once per fork.
//!
//! `ORDO_LOOPS_STRESS=N` multiplies the number of loops (default 1; the
//! long run is `ORDO_LOOPS_STRESS=50 cargo test -p ordo-loops --release --test stress`).

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use ordo_loops::{available_cores, DistributorSpec, ForkWorkJoin, Runtime, Topology};

fn scale() -> usize {
    std::env::var("ORDO_LOOPS_STRESS").ok().and_then(|s| s.parse().ok()).unwrap_or(1).max(1)
}

fn specs() -> Vec<DistributorSpec> {
    let mut specs = Vec::new();
    for batch in [1, 4, 64] {
        for text in [
            "shared",
            "striped:level=thread",
            "striped:level=core",
            "striped:level=socket",
            "combining:level=core",
            "combining:level=socket,upstream=shared",
            "async-combining:level=core",
            "async-combining:level=socket",
            "async-combining:level=core,upstream=shared",
        ] {
            let spec: DistributorSpec = text.parse().unwrap();
            specs.push(spec.with_batch(batch));
        }
    }
    specs.push("static".parse().unwrap());
    specs
}

/// Skewed work: the first sixteenth of the iterations does 64 times the
/// work of the others (Callisto-RTS §4.1 skews the first iterations too).
fn work(i: usize, n: usize) {
    let units = if i < n / 16 { 256 } else { 4 };
    let mut x = 0u64;
    for _ in 0..units {
        x = black_box(x + 1);
    }
    black_box(x);
}

/// Thread counts 1×, 2× and 4× the cores, with 2 threads per pretend core
/// and 2 pretend sockets.
fn runtimes(levels: &str) -> Vec<Runtime> {
    let cores = available_cores().max(1);
    [cores, 2 * cores, 4 * cores]
        .into_iter()
        .map(|threads| {
            Runtime::builder()
                .threads(threads)
                .topology(Topology::with_cores(threads, threads.div_ceil(2), 2))
                .levels(levels.parse().unwrap())
                .build()
                .unwrap()
        })
        .collect()
}

#[test]
fn flat_loops_run_every_iteration_once() {
    let rounds = 16 * scale();
    for rt in runtimes("thread") {
        for spec in specs() {
            let n = 3000 + 1700 * (spec.batch() % 5);
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            for round in 0..rounds {
                let forks = AtomicUsize::new(0);
                let joins = AtomicUsize::new(0);
                let offset = round % 3;
                let body = ForkWorkJoin::new(
                    || {
                        forks.fetch_add(1, Ordering::Relaxed);
                        0usize
                    },
                    |count: &mut usize, i| {
                        hits[i].fetch_add(1, Ordering::Relaxed);
                        work(i, n);
                        *count += 1;
                    },
                    |count| {
                        assert!(count > 0, "a state was forked without an iteration");
                        joins.fetch_add(1, Ordering::Relaxed);
                    },
                );
                rt.parallel_for_body(&spec, offset..n, &body);
                let forks = forks.into_inner();
                assert_eq!(forks, joins.into_inner(), "{spec}");
                assert!(forks <= rt.threads(), "{spec}: {forks} forks on {} threads", rt.threads());
                for (i, h) in hits.iter().enumerate().skip(offset) {
                    let expected = (round + 1 - (0..=round).filter(|r| i < r % 3).count()) as u32;
                    assert_eq!(
                        h.load(Ordering::Relaxed),
                        expected,
                        "{spec}, {} threads, iteration {i}",
                        rt.threads()
                    );
                }
            }
        }
    }
}

/// Two levels: an outer loop over one thread per pretend core, each outer
/// iteration running an inner loop on its core's threads.
#[test]
fn nested_loops_run_every_iteration_once() {
    let rounds = 6 * scale();
    let (outer_n, inner_n) = (40, 300);
    for levels in ["thread,core", "thread,socket"] {
        for rt in runtimes(levels) {
            for spec in specs().into_iter().step_by(2) {
                let hits: Vec<AtomicU32> = (0..outer_n * inner_n).map(|_| AtomicU32::new(0)).collect();
                let outer_spec = spec.with_batch(1);
                for round in 0..rounds {
                    let body = ForkWorkJoin::new(
                        || (),
                        |_: &mut (), o| {
                            rt.parallel_for_with(&spec, 0..inner_n, |i| {
                                hits[o * inner_n + i].fetch_add(1, Ordering::Relaxed);
                                work(i, inner_n);
                            });
                        },
                        |_| {},
                    );
                    rt.outer_parallel_for(1, &outer_spec, 0..outer_n, &body);
                    for (k, h) in hits.iter().enumerate() {
                        assert_eq!(
                            h.load(Ordering::Relaxed),
                            round as u32 + 1,
                            "{levels} {spec} {} threads, cell {k}",
                            rt.threads()
                        );
                    }
                }
            }
        }
    }
}

/// Three levels (socket, core, thread): a level-2 loop whose body runs a
/// level-1 loop whose body runs a level-0 loop; plus a level-0 loop at the
/// top between them, which uses every thread.
#[test]
fn three_level_nesting_runs_every_iteration_once() {
    let (a, b, c) = (6, 8, 50);
    for rt in runtimes("thread,core,socket") {
        for spec in ["async-combining:batch=2", "striped:batch=3,level=core", "shared:batch=1"] {
            let spec: DistributorSpec = spec.parse().unwrap();
            let hits: Vec<AtomicU32> = (0..a * b * c).map(|_| AtomicU32::new(0)).collect();
            for round in 0..2 * scale() as u32 {
                let level1 = |x: usize| {
                    let level0 = ForkWorkJoin::new(
                        || (),
                        |_: &mut (), y| {
                            rt.parallel_for_with(&spec, 0..c, |z| {
                                hits[(x * b + y) * c + z].fetch_add(1, Ordering::Relaxed);
                            })
                        },
                        |_| {},
                    );
                    rt.outer_parallel_for(1, &spec.with_batch(1), 0..b, &level0);
                };
                rt.outer_parallel_for(
                    2,
                    &spec.with_batch(1),
                    0..a,
                    &ForkWorkJoin::new(|| (), |_: &mut (), x| level1(x), |_| {}),
                );
                let flat = AtomicUsize::new(0);
                rt.parallel_for_with(&spec, 0..1000, |_| {
                    flat.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(flat.into_inner(), 1000);
                for (k, h) in hits.iter().enumerate() {
                    assert_eq!(
                        h.load(Ordering::Relaxed),
                        round + 1,
                        "{spec} {} threads, cell {k}",
                        rt.threads()
                    );
                }
            }
        }
    }
}
