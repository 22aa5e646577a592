//! The public API on small loops: every distributor and batch size covers
//! each index once, per-thread state is created only in threads that take
//! part, loops nest, panics propagate, and configuration errors are clear.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use ordo_loops::{DistributorSpec, ForkWorkJoin, LevelMap, Runtime, Topology};

fn specs() -> Vec<DistributorSpec> {
    [
        "shared:batch=1",
        "shared:batch=7",
        "striped:batch=1",
        "striped:batch=5,level=core",
        "striped:batch=3,level=socket",
        "combining:batch=1",
        "combining:batch=4,level=socket,upstream=shared",
        "async-combining:batch=1",
        "async-combining:batch=2,level=socket",
        "async-combining:batch=3,upstream=shared",
        "static",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

fn runtime(threads: usize, topology: Topology, levels: &str) -> Runtime {
    Runtime::builder()
        .threads(threads)
        .topology(topology)
        .levels(levels.parse().unwrap())
        .pin(false)
        .build()
        .unwrap()
}

#[test]
fn every_distributor_covers_the_range_once() {
    let rt = runtime(4, Topology::with_cores(4, 2, 2), "thread");
    for spec in specs() {
        for range in [0..0, 3..4, 5..17, 0..1000, 1_000_000..1_000_333] {
            let hits: Vec<AtomicUsize> = (0..range.end).map(|_| AtomicUsize::new(0)).collect();
            rt.parallel_for_with(&spec, range.clone(), |i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            for (i, h) in hits.iter().enumerate() {
                let expected = usize::from(range.contains(&i));
                assert_eq!(h.load(Ordering::Relaxed), expected, "{spec}, {range:?}, index {i}");
            }
        }
    }
}

#[test]
fn state_is_forked_only_by_participants_and_joined_once() {
    let rt = runtime(3, Topology::single(3), "thread");
    for spec in specs() {
        let forks = AtomicUsize::new(0);
        let joins = Mutex::new(Vec::new());
        let body = ForkWorkJoin::new(
            || {
                forks.fetch_add(1, Ordering::Relaxed);
                (0u64, 0usize)
            },
            |s: &mut (u64, usize), i| {
                s.0 += i as u64;
                s.1 += 1;
            },
            |s| joins.lock().unwrap().push(s),
        );
        rt.parallel_for_body(&spec, 0..10_000, &body);
        let joins = joins.into_inner().unwrap();
        assert_eq!(joins.len(), forks.load(Ordering::Relaxed), "{spec}");
        assert!((1..=3).contains(&joins.len()), "{spec}: {} states for 3 threads", joins.len());
        assert!(joins.iter().all(|s| s.1 > 0), "{spec}: a state without iterations");
        assert_eq!(joins.iter().map(|s| s.0).sum::<u64>(), 49_995_000, "{spec}");
        assert_eq!(joins.iter().map(|s| s.1).sum::<usize>(), 10_000, "{spec}");
    }
    // A loop of one batch runs on the caller alone: one state.
    let forks = AtomicUsize::new(0);
    let body = ForkWorkJoin::new(|| forks.fetch_add(1, Ordering::Relaxed), |_: &mut usize, _| {}, |_| {});
    rt.parallel_for_body(&"shared:batch=64".parse().unwrap(), 0..64, &body);
    assert_eq!(forks.load(Ordering::Relaxed), 1);
}

#[test]
fn nested_loops_use_the_threads_of_their_level() {
    // 8 threads, 4 cores of 2 threads, 2 sockets; level 1 = one thread per core.
    let rt = runtime(8, Topology::with_cores(8, 4, 2), "thread,core");
    let spec: DistributorSpec = "striped:batch=1".parse().unwrap();
    let outer_threads = Mutex::new(HashSet::new());
    let inner_pairs = Mutex::new(HashSet::new());
    let cells: Vec<AtomicU64> = (0..64 * 50).map(|_| AtomicU64::new(0)).collect();
    let body = ForkWorkJoin::new(
        || {
            outer_threads.lock().unwrap().insert(std::thread::current().id());
        },
        |_: &mut (), i| {
            let outer = std::thread::current().id();
            rt.parallel_for_with(&spec, 0..50, |j| {
                cells[i * 50 + j].fetch_add(1, Ordering::Relaxed);
                inner_pairs.lock().unwrap().insert((outer, std::thread::current().id()));
            });
        },
        |_| {},
    );
    for _ in 0..5 {
        rt.outer_parallel_for(1, &spec, 0..64, &body);
    }
    assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 5), "every inner iteration ran once per round");
    let outer = outer_threads.into_inner().unwrap();
    assert!(outer.len() <= 4, "a level-1 loop runs on at most one thread per core, saw {}", outer.len());
    let pairs = inner_pairs.into_inner().unwrap();
    for &(o, _) in &pairs {
        assert!(outer.contains(&o));
    }
    // Each outer thread's inner loops run on at most its core's 2 threads.
    for &o in &outer {
        let helpers: HashSet<_> = pairs.iter().filter(|p| p.0 == o).map(|p| p.1).collect();
        assert!(helpers.len() <= 2, "inner loop of one core ran on {} threads", helpers.len());
    }
    // Free functions inside a body use the body's runtime.
    let count = AtomicUsize::new(0);
    rt.parallel_for(0..4, |_| {
        ordo_loops::parallel_for(0..10, |_| {
            count.fetch_add(1, Ordering::Relaxed);
        })
    });
    assert_eq!(count.into_inner(), 40);
}

#[test]
fn a_panic_in_a_body_reaches_the_caller_and_the_runtime_survives() {
    let rt = runtime(4, Topology::single(4), "thread");
    for spec in specs() {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.parallel_for_with(&spec, 0..10_000, |i| {
                if i == 7777 {
                    panic!("boom at {i}");
                }
            })
        }));
        let payload = r.expect_err("the panic must propagate");
        assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("boom at 7777"), "{spec}");
        let sum = AtomicU64::new(0);
        rt.parallel_for_with(&spec, 0..100, |i| {
            sum.fetch_add(i as u64, Ordering::Relaxed);
        });
        assert_eq!(sum.into_inner(), 4950, "{spec}: the runtime works after a panic");
    }
}

#[test]
fn configuration_errors_are_reported() {
    assert!(Runtime::builder().threads(0).build().unwrap_err().to_string().contains("1 to"));
    let e = Runtime::builder().threads(2).topology(Topology::single(3)).build().unwrap_err();
    assert!(e.to_string().contains("made for 3 threads"), "{e}");
    assert!("thread,core,core".parse::<LevelMap>().is_err());
    let rt = Runtime::builder().threads(1).build().unwrap();
    let sum = AtomicU64::new(0);
    rt.parallel_for(0..10, |i| {
        sum.fetch_add(i as u64, Ordering::Relaxed);
    });
    assert_eq!(sum.into_inner(), 45, "one thread runs everything itself");
}
