//! Single-source shortest paths on real (`f64`) edge weights.
//!
//! The same task-based algorithm as the integer path (module docs of
//! [`crate::sssp`]): a task is a vertex with the priority it was scheduled
//! at; it relaxes every out-edge with the vertex's **current** distance and
//! schedules each target it strictly improved. Any execution order gives the
//! exact fixpoint, so the scheduler only decides how much work is redone.
//!
//! # Distances as bits
//! Each distance is an `AtomicU64` holding the bits of a non-negative `f64`
//! (`+inf` for unreached). For non-negative IEEE doubles (sign bit clear,
//! `+0.0` up to `+inf`), the bit patterns read as unsigned integers are in
//! the same order as the values: the exponent field sits above the fraction
//! and a larger exponent means a larger number. The graph guarantees real
//! weights are finite with a clear sign bit ([`ordo_graph::csr::first_bad_real`]),
//! and a sum of two such values is such a value (or `+inf` on overflow),
//! so `fetch_min` on the bits is an atomic minimum on the distances.
//!
//! # Priorities
//! The schedulers take integer priorities. `strict` (exact order) gets the
//! bit pattern of the distance, order-preserving by the invariant above.
//! Every other scheduler (obim, PMOD, `auto`, ...) buckets integer
//! priorities as it does for integer weights; it gets `floor(d / q)` with
//! the quantum `q` = the mean positive weight divided by [`QUANTA_PER_MEAN`],
//! so a real graph looks to the scheduler like an integer graph whose mean
//! weight is that many units, and the scheduler's own bucket width rule
//! (fixed `delta` or `auto`'s adaptive width) applies unchanged. A priority
//! beyond `u64` saturates: ordering is coarser there, distances stay exact
//! (relaxation never uses the priority).
//!
//! Every access is `Relaxed`, as in the integer path: each distance is one
//! atomic with a single modification order, lowered only by `fetch_min`,
//! and the final values are read after the run has joined every worker.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use ordo_exec::{for_each_operator, Context, ExecOptions, Pool, RunStats};
use ordo_graph::{Graph, VertexId};
use ordo_sched::{Prio, SchedulerSpec};

use crate::access::check_source;
use crate::AlgoError;

/// How many priority units the mean weight spans for bucketed schedulers
/// (see the module docs): the resolution of an integer graph with weights
/// in the thousands, for which the schedulers' bucket widths are tuned.
pub const QUANTA_PER_MEAN: f64 = 1024.0;

/// How distances become scheduler priorities (module docs, "Priorities").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RealPriority {
    /// The bit pattern of the distance (exact order).
    Bits,
    /// `floor(d / quantum)`, saturating at `u64::MAX`.
    Quantum(f64),
}

impl RealPriority {
    /// The rule for `spec` on `weights`: bits for `strict`, otherwise the
    /// quantum from the mean positive weight (1 when every weight is 0).
    pub fn for_run(spec: &SchedulerSpec, weights: &[f64]) -> Self {
        if spec.name() == "strict" {
            return RealPriority::Bits;
        }
        let (sum, count) =
            weights.iter().filter(|&&w| w > 0.0).fold((0.0f64, 0u64), |(s, c), &w| (s + w, c + 1));
        let mean = if count == 0 { 1.0 } else { sum / count as f64 };
        let q = mean / QUANTA_PER_MEAN;
        RealPriority::Quantum(if q.is_finite() && q > 0.0 { q } else { f64::MIN_POSITIVE })
    }

    /// The priority of distance `d` (finite, `>= 0`).
    #[inline(always)]
    pub fn of(self, d: f64) -> Prio {
        match self {
            RealPriority::Bits => d.to_bits(),
            // `as` saturates: a quotient beyond u64 gives u64::MAX.
            RealPriority::Quantum(q) => (d / q) as u64,
        }
    }
}

/// Shortest-path distances from `source` on a real-weighted graph, in
/// parallel on `pool` with the scheduler `spec`: `f64::INFINITY` for an
/// unreachable vertex. An unweighted or integer-weighted graph is run with
/// its weights as reals (weight 1 when unweighted).
///
/// # Errors
/// [`AlgoError::SourceOutOfRange`] when `source` is not a vertex.
pub fn sssp_real(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &Graph,
    source: VertexId,
    opts: &ExecOptions,
) -> Result<(Vec<f64>, RunStats), AlgoError> {
    check_source(graph, source)?;
    let start = Instant::now();
    let owned;
    let weights: &[f64] = match (graph.real_weights(), graph.weights()) {
        (Some(w), _) => w,
        (None, Some(w)) => {
            owned = w.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
            &owned
        }
        (None, None) => {
            owned = vec![1.0; graph.num_edges()];
            &owned
        }
    };
    let rule = RealPriority::for_run(spec, weights);
    let inf = f64::INFINITY.to_bits();
    let dist: Vec<AtomicU64> = pool.collect_indexed(graph.num_vertices(), |v| {
        AtomicU64::new(if v == source as usize { 0f64.to_bits() } else { inf })
    });
    let prepare_s = start.elapsed().as_secs_f64();
    let offsets = graph.offsets();
    let targets = graph.targets();
    let operator = |prio: Prio, v: VertexId, ctx: &mut Context<VertexId>| {
        let current = f64::from_bits(dist[v as usize].load(Relaxed));
        // Stale: the vertex improved since this task was scheduled, to a
        // distance with a smaller priority (equal priorities are run: the
        // quantum may map several distances to one priority).
        if rule.of(current) < prio {
            ctx.mark_stale();
            return;
        }
        let (lo, hi) = (offsets[v as usize] as usize, offsets[v as usize + 1] as usize);
        for (&u, &w) in targets[lo..hi].iter().zip(&weights[lo..hi]) {
            let candidate = current + w;
            let bits = candidate.to_bits();
            // Integer order of the bits is the order of the values (module docs).
            let slot = &dist[u as usize];
            if bits < slot.load(Relaxed) && bits < slot.fetch_min(bits, Relaxed) {
                ctx.push(rule.of(candidate), u);
            }
        }
    };
    let mut stats = for_each_operator(pool, spec, [(0, source)], operator, opts);
    stats.time_s += prepare_s;
    Ok((dist.into_iter().map(|d| f64::from_bits(d.into_inner())).collect(), stats))
}

/// Sequential Dijkstra on the real weights (binary heap ordered by
/// `f64::total_cmp`): the reference of [`sssp_real`]. Unweighted graphs use
/// weight 1, integer weights are taken as reals.
pub fn dijkstra_real(graph: &Graph, source: VertexId) -> Vec<f64> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    #[derive(PartialEq)]
    struct D(f64);
    impl Eq for D {}
    impl PartialOrd for D {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for D {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&o.0)
        }
    }
    let n = graph.num_vertices();
    let mut dist = vec![f64::INFINITY; n];
    if source as usize >= n {
        return dist;
    }
    let weight = |e: usize| match (graph.real_weights(), graph.weights()) {
        (Some(w), _) => w[e],
        (None, Some(w)) => f64::from(w[e]),
        (None, None) => 1.0,
    };
    dist[source as usize] = 0.0;
    let mut heap = BinaryHeap::new();
    heap.push(Reverse((D(0.0), source)));
    while let Some(Reverse((D(d), v))) = heap.pop() {
        if d > dist[v as usize] {
            continue;
        }
        for e in graph.edge_range(v) {
            let u = graph.targets()[e];
            let c = d + weight(e);
            if c < dist[u as usize] {
                dist[u as usize] = c;
                heap.push(Reverse((D(c), u)));
            }
        }
    }
    dist
}

/// Checks real distances `got` against the reference `want`: the same
/// vertices reached, and every finite distance within
/// `n * f64::EPSILON * want` (each of at most `n - 1` additions along a path
/// rounds by at most half an ulp, so two evaluations of shortest paths
/// differ by at most that much); then the fixpoint: `got[source] == 0` and
/// `got[u] <= got[v] + w` (in `f64`) for every edge `(v, u, w)` with `v`
/// reached, which the parallel run meets exactly (every vertex's edges are
/// relaxed with its final distance). The error names the first vertex or
/// edge that fails.
pub fn verify_real(graph: &Graph, source: VertexId, got: &[f64], want: &[f64]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} distances for {} vertices", got.len(), want.len()));
    }
    let bound = graph.num_vertices() as f64 * f64::EPSILON;
    for (v, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_infinite() { g.is_infinite() } else { (g - w).abs() <= bound * w };
        if !ok {
            return Err(format!("vertex {v}: distance {g:?}, the reference has {w:?}"));
        }
    }
    if got.get(source as usize) != Some(&0.0) {
        return Err(format!("the source {source} has distance {:?}", got.get(source as usize)));
    }
    let weight = |e: usize| match (graph.real_weights(), graph.weights()) {
        (Some(w), _) => w[e],
        (None, Some(w)) => f64::from(w[e]),
        (None, None) => 1.0,
    };
    for v in 0..graph.num_vertices() as VertexId {
        let d = got[v as usize];
        if d.is_infinite() {
            continue;
        }
        for e in graph.edge_range(v) {
            let u = graph.targets()[e];
            if got[u as usize] > d + weight(e) {
                return Err(format!(
                    "edge {v} -> {u} (weight {:?}) is not relaxed: {:?} > {:?}",
                    weight(e),
                    got[u as usize],
                    d + weight(e)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ordo_graph::gen::GenSpec;

    /// The bit patterns of non-negative finite doubles (and `+inf`) order
    /// as the values do: the invariant `strict` priorities and the atomic
    /// minimum rely on.
    #[test]
    fn bits_of_non_negative_doubles_are_order_preserving() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut values =
            vec![0.0, f64::MIN_POSITIVE, 5e-324, 1e-300, 0.5, 1.0, 1.5, 1e300, f64::MAX, f64::INFINITY];
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x >> 1); // sign bit clear
            if v.is_finite() {
                values.push(v);
            }
        }
        for a in &values {
            for b in values.iter().step_by(37) {
                assert_eq!(a.to_bits().cmp(&b.to_bits()), a.total_cmp(b), "{a} vs {b}");
                assert_eq!(a.partial_cmp(b), Some(a.to_bits().cmp(&b.to_bits())), "{a} vs {b}");
            }
        }
    }

    /// A road-like graph with the given real weights per edge.
    fn reweighted(spec: &str, weight: impl Fn(u64) -> f64) -> Graph {
        let mut g = spec.parse::<GenSpec>().unwrap().generate().unwrap();
        let w: Vec<f64> =
            (0..g.num_edges() as u64).map(|e| weight(e.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40)).collect();
        g.set_real_weights(w).unwrap();
        g
    }

    /// Hops of a shortest path tree's deepest branch bound the rounding:
    /// each relaxation adds one rounding of at most `f64::EPSILON / 2`
    /// relative, so any two evaluation orders differ by at most
    /// `hops * EPSILON * distance`.
    fn check(spec: &str, graph: &Graph, exact: bool) {
        let reference = dijkstra_real(graph, 0);
        let hops = graph.num_vertices() as f64;
        for threads in [1, 2] {
            let pool = Pool::new(threads).unwrap();
            let (dist, _) = sssp_real(&pool, &spec.parse().unwrap(), graph, 0, &Default::default()).unwrap();
            for (v, (&d, &r)) in dist.iter().zip(&reference).enumerate() {
                if exact || r.is_infinite() {
                    assert_eq!(d.to_bits(), r.to_bits(), "{spec} t={threads} vertex {v}: {d} vs {r}");
                } else {
                    let bound = hops * f64::EPSILON * r;
                    assert!((d - r).abs() <= bound, "{spec} t={threads} vertex {v}: {d} vs {r}");
                }
            }
        }
    }

    /// Dyadic weights (multiples of 1/1024 below 2^20): every path sum is
    /// exact in f64, so every scheduler gives the reference bit for bit.
    #[test]
    fn dyadic_weights_give_the_reference_exactly() {
        let g = reweighted("road:n=3000,seed=5", |x| (x % (1 << 20)) as f64 / 1024.0 + 1.0 / 1024.0);
        for spec in ["strict", "obim", "pmod", "auto", "fifo"] {
            check(spec, &g, true);
        }
        let k = reweighted("kron:scale=10", |x| (x % 4096) as f64 / 1024.0);
        for spec in ["strict", "auto", "obim:delta=2"] {
            check(spec, &k, true);
        }
    }

    /// Arbitrary reals: within the stated relative bound.
    #[test]
    fn arbitrary_reals_are_within_the_rounding_bound() {
        let g = reweighted("road:n=2000,seed=9", |x| (x as f64 + 0.1).sqrt() * std::f64::consts::PI);
        for spec in ["strict", "obim", "auto"] {
            check(spec, &g, false);
        }
    }

    #[test]
    fn verification_catches_wrong_distances() {
        let g = reweighted("road:n=500,seed=2", |x| (x % 1000) as f64 / 7.0);
        let want = dijkstra_real(&g, 0);
        assert_eq!(verify_real(&g, 0, &want, &want), Ok(()));
        let mut bad = want.clone();
        let v = bad.iter().rposition(|d| d.is_finite() && *d > 0.0).unwrap();
        bad[v] *= 1.0 + 1e-6;
        assert!(verify_real(&g, 0, &bad, &want).unwrap_err().starts_with(&format!("vertex {v}:")));
        // Lowered below the reference, it also fails the fixpoint elsewhere or the bound.
        bad[v] = want[v] / 2.0;
        assert!(verify_real(&g, 0, &bad, &want).is_err());
    }

    #[test]
    fn unreachable_is_infinite_and_bad_source_is_an_error() {
        let mut el = ordo_graph::EdgeList::new(3, false);
        el.real_weights = Some(Vec::new());
        el.push_real(0, 1, 0.25);
        let g = el.into_graph().unwrap();
        let pool = Pool::new(2).unwrap();
        let (d, _) = sssp_real(&pool, &"auto".parse().unwrap(), &g, 0, &Default::default()).unwrap();
        assert_eq!(d, vec![0.0, 0.25, f64::INFINITY]);
        assert!(sssp_real(&pool, &"auto".parse().unwrap(), &g, 3, &Default::default()).is_err());
    }

    #[test]
    fn priorities_follow_the_rule() {
        let strict: SchedulerSpec = "strict".parse().unwrap();
        assert_eq!(RealPriority::for_run(&strict, &[1.0]), RealPriority::Bits);
        let auto: SchedulerSpec = "auto".parse().unwrap();
        let rule = RealPriority::for_run(&auto, &[0.0, 2.0, 6.0]);
        assert_eq!(rule, RealPriority::Quantum(4.0 / QUANTA_PER_MEAN));
        assert_eq!(rule.of(4.0), 1024);
        assert_eq!(rule.of(1e308), u64::MAX);
        assert_eq!(RealPriority::for_run(&auto, &[0.0]), RealPriority::Quantum(1.0 / QUANTA_PER_MEAN));
    }
}
