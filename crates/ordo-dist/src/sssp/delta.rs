//! Distributed Δ-stepping (Meyer and Sanders, J. Algorithms 2003), the
//! DC-SSSP paper's baseline: vertices sit in buckets of width Δ by tentative
//! distance; all ranks work on the same bucket, the lowest non-empty one
//! anywhere. A bucket is processed in phases: relax the light edges
//! (`w <= Δ`) of its vertices, which may refill it, until it stays empty;
//! then the heavy edges of every vertex it settled, once.
//!
//! Bulk-synchronous: every phase ends with a global exchange in which each
//! rank sends every other rank one message (possibly empty) with its
//! relaxations for that rank's vertices and two numbers — whether it may
//! have refilled the current bucket, and the lowest bucket it holds or sent
//! to — so that after the exchange every rank knows, without a further
//! reduction, whether to run another phase and which bucket comes next. The
//! exchange is the global synchronization per bucket (and per phase).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ordo_graph::{BlockPartition, GraphPart, VertexId};

use super::Relax;
use crate::comm::Comm;
use crate::wire::{self, Kind, Wire};
use crate::DistError;

/// What one rank's Δ-stepping run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeltaStats {
    /// Vertex executions: a vertex's light edges relaxed in a phase (each
    /// settled vertex's heavy edges are relaxed once more, not counted here).
    pub(crate) work_items: u64,
    /// Edges relaxed, light and heavy.
    pub(crate) edges_relaxed: u64,
    /// Relaxations sent to other ranks.
    pub(crate) items_sent: u64,
    /// Relaxations of owned vertices.
    pub(crate) items_local: u64,
    /// Global exchanges (supersteps).
    pub(crate) supersteps: u64,
    /// Buckets processed.
    pub(crate) buckets: u64,
    /// Time spent in the exchanges (sending, then waiting for the others).
    pub(crate) sync_s: f64,
}

/// The result of one rank's Δ-stepping run.
pub(crate) struct DeltaOutcome {
    pub(crate) dist: Vec<u64>,
    pub(crate) stats: DeltaStats,
}

/// Below this many frontier vertices a phase relaxes on the calling thread.
const PARALLEL_FRONTIER: usize = 4096;

/// One rank's state.
struct Rank<'a> {
    part: &'a GraphPart,
    partition: BlockPartition,
    me: usize,
    delta: u64,
    threads: usize,
    dist: Vec<AtomicU64>,
    /// Bucket index → owned vertices (local ids) put there; entries whose
    /// vertex has since moved to a lower bucket are skipped when taken.
    buckets: BTreeMap<u64, Vec<u32>>,
    /// The distance at which a vertex's light edges were last relaxed.
    relaxed_at: Vec<u64>,
    stats: DeltaStats,
}

/// What relaxing part of a frontier produced.
#[derive(Default)]
struct Relaxed {
    /// Encoded relaxations per destination rank.
    out: Vec<Vec<u8>>,
    /// Owned vertices improved, with their new bucket.
    improved: Vec<(u64, u32)>,
    /// Lowest bucket of a sent relaxation.
    min_sent: u64,
    edges: u64,
    sent: u64,
    local: u64,
}

impl Rank<'_> {
    /// Relaxes the light (`light`) or heavy edges of `frontier`'s vertices.
    fn relax_range(&self, frontier: &[u32], light: bool) -> Relaxed {
        let ranks = self.partition.parts();
        let mut r = Relaxed { out: vec![Vec::new(); ranks], min_sent: u64::MAX, ..Relaxed::default() };
        for &v in frontier {
            let d = self.dist[v as usize].load(Ordering::Relaxed);
            for e in self.part.edge_range(v as usize) {
                let w = self.part.weights.as_ref().map_or(1, |w| u64::from(w[e]));
                if (w <= self.delta) != light {
                    continue;
                }
                r.edges += 1;
                let (target, nd) = (self.part.targets[e], d + w);
                let owner = self.partition.owner(target);
                if owner == self.me {
                    let t = target - self.part.first;
                    if nd < self.dist[t as usize].fetch_min(nd, Ordering::Relaxed) {
                        r.local += 1;
                        r.improved.push((nd / self.delta, t));
                    }
                } else {
                    r.sent += 1;
                    r.min_sent = r.min_sent.min(nd / self.delta);
                    Relax { vertex: target, dist: nd }.put(&mut r.out[owner]);
                }
            }
        }
        r
    }

    /// Relaxes a frontier on up to `threads` threads and files the owned
    /// vertices it improved; returns the messages per rank and the lowest
    /// bucket sent to.
    fn relax(&mut self, frontier: &[u32], light: bool) -> (Vec<Vec<u8>>, u64) {
        let parts: Vec<Relaxed> = if self.threads > 1 && frontier.len() >= PARALLEL_FRONTIER {
            let chunk = frontier.len().div_ceil(self.threads);
            let this = &*self;
            std::thread::scope(|s| {
                let handles: Vec<_> =
                    frontier.chunks(chunk).map(|c| s.spawn(move || this.relax_range(c, light))).collect();
                handles.into_iter().map(|h| h.join().expect("relaxation thread panicked")).collect()
            })
        } else {
            vec![self.relax_range(frontier, light)]
        };
        let ranks = self.partition.parts();
        let mut out = vec![Vec::new(); ranks];
        let mut min_sent = u64::MAX;
        for p in parts {
            for (dest, bytes) in p.out.into_iter().enumerate() {
                out[dest].extend_from_slice(&bytes);
            }
            for (bucket, v) in p.improved {
                self.buckets.entry(bucket).or_default().push(v);
            }
            min_sent = min_sent.min(p.min_sent);
            self.stats.edges_relaxed += p.edges;
            self.stats.items_sent += p.sent;
            self.stats.items_local += p.local;
        }
        (out, min_sent)
    }

    /// The vertices of bucket `k` to process now: current members whose
    /// light edges have not been relaxed at their present distance.
    fn take_frontier(&mut self, k: u64) -> Vec<u32> {
        let Some(entries) = self.buckets.remove(&k) else { return Vec::new() };
        let mut frontier = Vec::with_capacity(entries.len());
        for v in entries {
            let d = self.dist[v as usize].load(Ordering::Relaxed);
            if d / self.delta == k && self.relaxed_at[v as usize] != d {
                self.relaxed_at[v as usize] = d;
                frontier.push(v);
            }
        }
        frontier
    }

    /// The lowest bucket holding a current entry (stale buckets dropped).
    fn lowest_bucket(&mut self) -> u64 {
        while let Some((&k, entries)) = self.buckets.first_key_value() {
            let current =
                entries.iter().any(|&v| self.dist[v as usize].load(Ordering::Relaxed) / self.delta == k);
            if current {
                return k;
            }
            self.buckets.remove(&k);
        }
        u64::MAX
    }

    /// Applies relaxations received in an exchange.
    fn apply(&mut self, payload: &[u8], scratch: &mut Vec<Relax>) -> Result<(), DistError> {
        wire::items(payload, scratch)?;
        for r in scratch.iter() {
            let t = r
                .vertex
                .checked_sub(self.part.first)
                .filter(|&t| (t as usize) < self.dist.len())
                .ok_or_else(|| {
                    DistError::Protocol(format!("relaxation of vertex {} sent to rank {}", r.vertex, self.me))
                })?;
            if r.dist < self.dist[t as usize].fetch_min(r.dist, Ordering::Relaxed) {
                self.buckets.entry(r.dist / self.delta).or_default().push(t);
            }
        }
        Ok(())
    }
}

/// One global exchange: sends `out` (with this rank's `more` flag and
/// `next` bucket in front), applies what arrives, and returns whether any
/// rank set `more` and the lowest `next` of all ranks.
fn exchange(
    comm: &mut Comm<'_>,
    rank: &mut Rank<'_>,
    out: Vec<Vec<u8>>,
    more: bool,
    next: u64,
    scratch: &mut Vec<Relax>,
) -> Result<(bool, u64), DistError> {
    let start = Instant::now();
    let step = rank.stats.supersteps;
    rank.stats.supersteps += 1;
    let framed: Vec<Vec<u8>> =
        out.into_iter().map(|items| [wire::u64s(&[u64::from(more), next]), items].concat()).collect();
    let received = comm.exchange(Kind::DeltaStep, step, framed)?;
    rank.stats.sync_s += start.elapsed().as_secs_f64();
    let (mut any_more, mut lowest) = (false, u64::MAX);
    for (source, payload) in received.into_iter().enumerate() {
        if payload.len() < 16 {
            return Err(DistError::Protocol(format!(
                "Δ-stepping step {step} from rank {source} is too short"
            )));
        }
        any_more |= wire::read_u64(&payload, 0) != 0;
        lowest = lowest.min(wire::read_u64(&payload, 8));
        if source != rank.me {
            rank.apply(&payload[16..], scratch)?;
        }
    }
    Ok((any_more, lowest))
}

/// Runs distributed Δ-stepping from `source` with bucket width `delta` on
/// this rank, relaxing with up to `threads` threads.
pub(crate) fn run_delta(
    comm: &mut Comm<'_>,
    part: &GraphPart,
    partition: BlockPartition,
    source: VertexId,
    delta: u64,
    threads: usize,
) -> Result<DeltaOutcome, DistError> {
    let me = comm.rank();
    let mut rank = Rank {
        part,
        partition,
        me,
        delta: delta.max(1),
        threads: threads.max(1),
        dist: (0..part.num_owned()).map(|_| AtomicU64::new(u64::MAX)).collect(),
        buckets: BTreeMap::new(),
        relaxed_at: vec![u64::MAX; part.num_owned()],
        stats: DeltaStats::default(),
    };
    if partition.owner(source) == me {
        let s = source - part.first;
        rank.dist[s as usize].store(0, Ordering::Relaxed);
        rank.buckets.insert(0, vec![s]);
    }
    let mut scratch = Vec::new();
    let mut k = 0u64;
    while k != u64::MAX {
        rank.stats.buckets += 1;
        let mut settled = Vec::new();
        // Light phases until bucket k stays empty everywhere.
        loop {
            let frontier = rank.take_frontier(k);
            rank.stats.work_items += frontier.len() as u64;
            let (out, min_sent) = rank.relax(&frontier, true);
            settled.extend_from_slice(&frontier);
            let more = rank.buckets.get(&k).is_some_and(|b| !b.is_empty()) || min_sent == k;
            let (any_more, _) = exchange(comm, &mut rank, out, more, u64::MAX, &mut scratch)?;
            if !any_more {
                break;
            }
        }
        // Heavy edges of every vertex the bucket settled, once each.
        settled.sort_unstable();
        settled.dedup();
        let (out, min_sent) = rank.relax(&settled, false);
        let next = rank.lowest_bucket().min(min_sent);
        let (_, lowest) = exchange(comm, &mut rank, out, false, next, &mut scratch)?;
        // Received relaxations landed in buckets >= the senders' `next`.
        k = lowest;
    }
    let dist = rank.dist.into_iter().map(AtomicU64::into_inner).collect();
    Ok(DeltaOutcome { dist, stats: rank.stats })
}
