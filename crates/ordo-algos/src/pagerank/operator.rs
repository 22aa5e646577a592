//! The task operator of data-driven pull-push PageRank, shared by the
//! parallel run and the exact-priority sequential baseline: the starting
//! residuals, the residual add, and [`State::run_task`] (the module docs of
//! [`super`] give the protocol and the proof).

use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

use ordo_graph::{Graph, VertexId};
use ordo_sched::Prio;

#[cfg(loom)]
use loom::sync::atomic::AtomicU64;
#[cfg(not(loom))]
use std::sync::atomic::AtomicU64;

use super::priority;

/// `1/outdeg(u)` per vertex (0 for dangling vertices).
pub(super) fn inverse_out_degrees(graph: &Graph) -> Vec<f64> {
    graph.offsets().windows(2).map(|w| if w[1] > w[0] { 1.0 / (w[1] - w[0]) as f64 } else { 0.0 }).collect()
}

/// The in-edge sources of `v` in the transpose.
#[inline(always)]
pub(super) fn in_neighbours<'t>(offsets: &[u64], targets: &'t [VertexId], v: usize) -> &'t [VertexId] {
    &targets[offsets[v] as usize..offsets[v + 1] as usize]
}

/// The starting state (Whang et al., Algorithm 4): ranks `1 - α`, residuals
/// `f(x⁰) - x⁰ = α(1 - α)·Σ_{u -> w} 1/outdeg(u)`.
pub(super) fn initial_residuals(transpose: &Graph, inv_out: &[f64], alpha: f64) -> Vec<f64> {
    let (offsets, sources) = (transpose.offsets(), transpose.targets());
    (0..transpose.num_vertices())
        .map(|w| {
            let s: f64 = in_neighbours(offsets, sources, w).iter().map(|&u| inv_out[u as usize]).sum();
            alpha * (1.0 - alpha) * s
        })
        .collect()
}

/// Adds `add >= 0` to the `f64` in `slot`; returns the old and new values.
/// Release so that the rank increase it carries happens-before the next
/// swap of this residual (module docs, point 2).
#[inline(always)]
fn add_residual(slot: &AtomicU64, add: f64) -> (f64, f64) {
    let mut old_bits = slot.load(Relaxed);
    loop {
        let old = f64::from_bits(old_bits);
        let new = old + add;
        match slot.compare_exchange_weak(old_bits, new.to_bits(), AcqRel, Relaxed) {
            Ok(_) => return (old, new),
            Err(current) => old_bits = current,
        }
    }
}

/// The shared state of a parallel run: parameters, both CSR sides, and the
/// per-vertex atomics; [`State::run_task`] is the task operator.
pub(super) struct State<'a> {
    pub(crate) alpha: f64,
    pub(crate) tolerance: f64,
    pub(crate) amp: f64,
    /// `1/outdeg` per vertex (0 when dangling).
    pub(crate) inv_out: &'a [f64],
    pub(crate) out_offsets: &'a [u64],
    pub(crate) out_targets: &'a [VertexId],
    /// The transpose: in-edge sources per vertex.
    pub(crate) in_offsets: &'a [u64],
    pub(crate) in_sources: &'a [VertexId],
    /// Ranks, `f64` bits.
    pub(crate) rank: &'a [AtomicU64],
    /// Residuals, `f64` bits.
    pub(crate) residual: &'a [AtomicU64],
}

impl State<'_> {
    /// Runs the task on `v` (module docs, "The formulation implemented"),
    /// calling `schedule(priority, w)` for every out-neighbour whose residual
    /// crossed the tolerance. Returns `false` when the task was stale (its
    /// residual was already below the tolerance).
    #[inline(always)]
    pub(crate) fn run_task(&self, v: usize, mut schedule: impl FnMut(Prio, VertexId)) -> bool {
        let (alpha, tolerance) = (self.alpha, self.tolerance);
        // 1. Take the residual (acquire: see every push that landed before).
        if f64::from_bits(self.residual[v].load(Relaxed)) < tolerance {
            return false;
        }
        self.residual[v].swap(0.0f64.to_bits(), Acquire);
        // 2. Pull.
        let sum: f64 = in_neighbours(self.in_offsets, self.in_sources, v)
            .iter()
            .map(|&u| f64::from_bits(self.rank[u as usize].load(Relaxed)) * self.inv_out[u as usize])
            .sum();
        let new = (1.0 - alpha) + alpha * sum;
        // 3. Raise the rank; bits of non-negative f64 order like the values.
        let old = f64::from_bits(self.rank[v].fetch_max(new.to_bits(), Relaxed));
        if new <= old {
            return true;
        }
        // 4. Push the applied increase; schedule on crossings.
        let push = alpha * (new - old) * self.inv_out[v];
        let out = &self.out_targets[self.out_offsets[v] as usize..self.out_offsets[v + 1] as usize];
        for &w in out {
            let (before, after) = add_residual(&self.residual[w as usize], push);
            if before < tolerance && after >= tolerance {
                schedule(priority(after, self.amp), w);
            }
        }
        true
    }
}
