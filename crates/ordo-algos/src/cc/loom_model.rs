//! Loom models of Afforest's lock-free link (module docs, "Memory
//! ordering"): two or three threads link overlapping edges on one parent
//! array, each edge list run in order by its thread; after the joins a
//! compress must give every vertex the smallest id of its set in the
//! union-find of all the edges, whatever the interleaving. The link and the
//! compress are the kernel's own (`Parents`). Run with
//! `RUSTFLAGS="--cfg loom" cargo test -p ordo-algos --release --lib cc::loom`.

use loom::sync::Arc;
use loom::thread;

use ordo_graph::{UnionFind, VertexId};

use super::Parents;

/// The labels the union-find of `edges` gives `0..n`: the smallest member
/// of each set.
fn expected(n: usize, edges: &[&[(VertexId, VertexId)]]) -> Vec<VertexId> {
    let mut sets = UnionFind::new(n);
    for &(u, v) in edges.iter().flat_map(|list| list.iter()) {
        sets.union(u, v);
    }
    let mut smallest = vec![VertexId::MAX; n];
    for v in 0..n as VertexId {
        let root = sets.find(v) as usize;
        smallest[root] = smallest[root].min(v);
    }
    (0..n as VertexId).map(|v| smallest[sets.find(v) as usize]).collect()
}

/// Runs one thread per edge list, then compresses and compares.
fn model(n: usize, lists: &'static [&'static [(VertexId, VertexId)]]) {
    let want = expected(n, lists);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(move || {
        let parents = Arc::new(Parents::singletons(n));
        let threads: Vec<_> = lists
            .iter()
            .map(|&list| {
                let parents = Arc::clone(&parents);
                thread::spawn(move || {
                    for &(u, v) in list {
                        parents.link(u, v);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // Every parent is at most its vertex, as the hooks only go down.
        for v in 0..n as VertexId {
            assert!(parents.get(v) <= v, "vertex {v} has parent {}", parents.get(v));
        }
        for v in 0..n as VertexId {
            parents.compress_one(v);
        }
        let got: Vec<VertexId> = (0..n as VertexId).map(|v| parents.get(v)).collect();
        assert_eq!(got, want);
    });
}

#[test]
fn loom_two_threads_link_the_same_pair_of_roots() {
    // Both race to hook root 2: exactly one CAS may win.
    model(3, &[&[(2, 0)], &[(2, 1), (1, 0)]]);
}

#[test]
fn loom_two_threads_link_a_path_from_both_ends() {
    model(4, &[&[(3, 2), (1, 0)], &[(2, 1), (0, 3)]]);
}

#[test]
fn loom_three_threads_link_overlapping_edges() {
    // Each thread's edge shares a root with another's, one edge also joins
    // a tree while it is being hooked.
    model(4, &[&[(1, 3)], &[(3, 2)], &[(2, 0), (1, 0)]]);
}
