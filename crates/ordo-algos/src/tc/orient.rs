//! The degree-ordered DAG that triangle counting intersects: every
//! undirected edge `{u, v}` of the simple graph underlying the input, once,
//! from its endpoint of lower rank to the one of higher rank.
//!
//! The rank is the vertex id, or — when the degree distribution is skewed
//! ([`worth_relabelling`], GAPBS's `WorthRelabelling`) — the position in the
//! order of increasing `(degree, id)`, and the DAG is then stored in those
//! new ids (GAPBS's `RelabelByDegree`). Ranking by degree bounds every
//! out-degree by `O(√m)`, so a hub's long list is never scanned against
//! another long list; on graphs without hubs (road networks, meshes) the
//! relabelling costs a sort and buys nothing.
//!
//! Built straight from the input, without a symmetrized copy:
//! 1. *forward rows*: row `rank(u)` gets `rank(v)` for each `v ∈ N(u)` of
//!    higher rank, sorted and without repeats (one parallel pass per row,
//!    rows sized by a counting pass);
//! 2. *missing reverses*: an edge `u -> v` whose reverse `v -> u` is not in
//!    the input (a directed input) and whose target ranks lower belongs in
//!    row `rank(v)`; each is found by a binary search in that row, and only
//!    when there are any is the DAG rebuilt with them. A symmetric input
//!    has none, so its DAG costs half the input's edges and nothing more.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use ordo_graph::{Graph, VertexId};

use crate::loop_runner::ParallelLoops;

/// How the vertices are ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// By id: the DAG keeps the input's ids.
    ById,
    /// By increasing `(degree, id)`, degree counting in- and out-edges; the
    /// DAG is stored in the new ids.
    ByDegree,
}

impl Order {
    /// GAPBS's choice for `graph`: by degree when [`worth_relabelling`].
    pub fn for_graph(graph: &Graph) -> Order {
        if worth_relabelling(graph) {
            Order::ByDegree
        } else {
            Order::ById
        }
    }
}

/// Whether ranking by degree pays for its sort (GAPBS `tc.cc`): the
/// average degree is at least 10 and the mean of a sample of out-degrees
/// (vertices with out-edges, seeded) exceeds 1.3 times its median — a
/// heavy tail of hubs, where orienting by id would leave hubs with long
/// out-lists.
pub fn worth_relabelling(graph: &Graph) -> bool {
    let n = graph.num_vertices();
    if n == 0 || graph.num_edges() / n < 10 {
        return false;
    }
    let samples = n.min(1000);
    let mut state = 0x7c15_u64;
    let mut degrees = Vec::with_capacity(samples);
    // Bounded draws: a graph whose out-edges sit on few vertices still ends.
    for _ in 0..samples * 64 {
        if degrees.len() == samples {
            break;
        }
        let v = (crate::bc::splitmix64(&mut state) % n as u64) as VertexId;
        if graph.degree(v) > 0 {
            degrees.push(graph.degree(v));
        }
    }
    if degrees.is_empty() {
        return false;
    }
    let mean = degrees.iter().sum::<usize>() as f64 / degrees.len() as f64;
    degrees.sort_unstable();
    let median = degrees[degrees.len() / 2] as f64;
    mean / 1.3 > median
}

/// The oriented simple graph: `out(r)` are the neighbours of rank above
/// `r`, sorted, in rank ids.
#[derive(Clone, Debug)]
pub struct Dag {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    order: Order,
}

/// A raw view of the target array that lets the workers fill disjoint rows.
#[derive(Clone, Copy)]
struct Rows(*mut VertexId);
// SAFETY: the pointer is only dereferenced through `row`, whose callers
// write disjoint ranges (one row each) while the array outlives the loop.
unsafe impl Send for Rows {}
// SAFETY: as for `Send`.
unsafe impl Sync for Rows {}

impl Rows {
    /// # Safety
    /// `range` lies in the array, and no other live slice overlaps it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn row(&self, range: std::ops::Range<usize>) -> &mut [VertexId] {
        // SAFETY: the caller guarantees bounds and exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.0.add(range.start), range.len()) }
    }
}

impl Dag {
    /// Orients `graph` (any graph: self loops, parallel edges and missing
    /// reverses are handled) ranking by `order`, with the loops on `loops`.
    /// `O(n + m log d)` work; memory: the DAG (`8 n + 4 m'` bytes, `m'`
    /// the forward entries), `16 n` bytes of row counts while it is built
    /// and, with `ByDegree`, `4 n` bytes of ranks (`16 n` while sorting).
    pub fn build(graph: &Graph, order: Order, loops: &impl ParallelLoops) -> Dag {
        match order {
            Order::ById => Self::build_ranked(graph, order, |v| v, loops),
            Order::ByDegree => {
                let rank = degree_ranks(graph);
                Self::build_ranked(graph, order, |v| rank[v as usize], loops)
            }
        }
    }

    /// [`Dag::build`] with the ranking as a function (a bijection of
    /// `0..n`), compiled into each loop.
    fn build_ranked(
        graph: &Graph,
        order: Order,
        rank_of: impl Fn(VertexId) -> VertexId + Sync,
        loops: &impl ParallelLoops,
    ) -> Dag {
        let n = graph.num_vertices();
        // 1. Forward rows, sized by counting.
        let mut offsets = vec![0u64; n + 1];
        {
            let counts: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            loops.each(0..n, |u| {
                let ru = rank_of(u as VertexId);
                let c = graph.neighbors(u as VertexId).iter().filter(|&&v| rank_of(v) > ru).count();
                counts[ru as usize].store(c as u64, Relaxed);
            });
            for (r, c) in counts.into_iter().enumerate() {
                offsets[r + 1] = offsets[r] + c.into_inner();
            }
        }
        let mut targets = vec![0 as VertexId; offsets[n] as usize];
        let lens: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let rows = Rows(targets.as_mut_ptr());
        loops.each(0..n, |u| {
            let ru = rank_of(u as VertexId);
            let (lo, hi) = (offsets[ru as usize] as usize, offsets[ru as usize + 1] as usize);
            // SAFETY: `rank_of` is a bijection, so each row is filled by one
            // index of the loop; rows are disjoint ranges of `targets`.
            let row = unsafe { rows.row(lo..hi) };
            let mut k = 0;
            for &v in graph.neighbors(u as VertexId) {
                let rv = rank_of(v);
                if rv > ru {
                    row[k] = rv;
                    k += 1;
                }
            }
            lens[ru as usize].store(sort_dedup(row) as u64, Relaxed);
        });
        let lens: Vec<u64> = lens.into_iter().map(AtomicU64::into_inner).collect();
        let mut dag = Dag { offsets, targets, order };
        dag.compact(&lens);
        // 2. Edges whose reverse is missing and that point down in rank.
        let missing = Mutex::new(Vec::new());
        loops.fold(
            0..n,
            Vec::new,
            |found: &mut Vec<(VertexId, VertexId)>, u| {
                let ru = rank_of(u as VertexId);
                for &v in graph.neighbors(u as VertexId) {
                    let rv = rank_of(v);
                    if rv < ru && dag.out(rv as usize).binary_search(&ru).is_err() {
                        found.push((rv, ru));
                    }
                }
            },
            |found| {
                if !found.is_empty() {
                    missing.lock().unwrap_or_else(|e| e.into_inner()).push(found);
                }
            },
        );
        let missing = missing.into_inner().unwrap_or_else(|e| e.into_inner());
        if missing.iter().any(|m| !m.is_empty()) {
            dag = dag.with_edges(missing.into_iter().flatten(), loops);
        }
        dag
    }

    /// Drops the unused tail of every row (`lens[r]` entries are kept).
    fn compact(&mut self, lens: &[u64]) {
        let n = lens.len();
        if (0..n).all(|r| self.offsets[r] + lens[r] == self.offsets[r + 1]) {
            return;
        }
        let mut write = 0usize;
        for (r, &len) in lens.iter().enumerate() {
            let start = self.offsets[r] as usize;
            self.targets.copy_within(start..start + len as usize, write);
            self.offsets[r] = write as u64;
            write += len as usize;
        }
        self.offsets[n] = write as u64;
        self.targets.truncate(write);
        self.targets.shrink_to_fit();
    }

    /// The DAG with the entries `(row, target)` added (repeats dropped).
    fn with_edges(
        self,
        extra: impl Iterator<Item = (VertexId, VertexId)>,
        loops: &impl ParallelLoops,
    ) -> Dag {
        let n = self.num_vertices();
        let extra: Vec<(VertexId, VertexId)> = extra.collect();
        let mut offsets = vec![0u64; n + 1];
        for r in 0..n {
            offsets[r + 1] = self.offsets[r + 1] - self.offsets[r];
        }
        for &(r, _) in &extra {
            offsets[r as usize + 1] += 1;
        }
        for r in 0..n {
            offsets[r + 1] += offsets[r];
        }
        let mut targets = vec![0 as VertexId; offsets[n] as usize];
        let mut cursor: Vec<u64> = offsets[..n].to_vec();
        for (r, at) in cursor.iter_mut().enumerate() {
            let old = self.out(r);
            targets[*at as usize..*at as usize + old.len()].copy_from_slice(old);
            *at += old.len() as u64;
        }
        for &(r, t) in &extra {
            targets[cursor[r as usize] as usize] = t;
            cursor[r as usize] += 1;
        }
        drop(cursor);
        drop(extra);
        let order = self.order;
        drop(self);
        let lens: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let rows = Rows(targets.as_mut_ptr());
        loops.each(0..n, |r| {
            // SAFETY: each index `r` owns row `r`, a range of `targets`
            // disjoint from every other row.
            let row = unsafe { rows.row(offsets[r] as usize..offsets[r + 1] as usize) };
            lens[r].store(sort_dedup(row) as u64, Relaxed);
        });
        let lens: Vec<u64> = lens.into_iter().map(AtomicU64::into_inner).collect();
        let mut dag = Dag { offsets, targets, order };
        dag.compact(&lens);
        dag
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of undirected edges of the simple graph.
    pub fn num_edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// How the vertices were ranked.
    pub fn order(&self) -> Order {
        self.order
    }

    /// The higher-ranked neighbours of rank `r`, sorted.
    #[inline]
    pub fn out(&self, r: usize) -> &[VertexId] {
        &self.targets[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8 + self.targets.len() * 4
    }
}

/// Sorts `row`, moves its distinct values to the front and returns how
/// many there are.
fn sort_dedup(row: &mut [VertexId]) -> usize {
    row.sort_unstable();
    let mut k = 0;
    for i in 0..row.len() {
        if k == 0 || row[i] != row[k - 1] {
            row[k] = row[i];
            k += 1;
        }
    }
    k
}

/// The rank of every vertex in the order of increasing `(in-degree +
/// out-degree, id)`, self loops included (any total order is correct; this
/// one only has to put hubs last).
fn degree_ranks(graph: &Graph) -> Vec<VertexId> {
    let n = graph.num_vertices();
    let mut degree: Vec<u64> = (0..n as VertexId).map(|v| graph.degree(v) as u64).collect();
    for &t in graph.targets() {
        degree[t as usize] += 1;
    }
    let mut by_degree: Vec<u64> = (0..n).map(|v| (degree[v] << 32) | v as u64).collect();
    drop(degree);
    by_degree.sort_unstable();
    let mut rank = vec![0 as VertexId; n];
    for (r, key) in by_degree.into_iter().enumerate() {
        rank[(key & 0xffff_ffff) as usize] = r as VertexId;
    }
    rank
}
