//! Distributed Control SSSP (DC-SSSP paper, Algorithm 2) as a [`Program`]
//! for the runtime: each rank owns a block of vertices and their tentative
//! distances, orders its work items in a local priority queue (any ordo
//! scheduler), and sends relaxations of remote vertices as work items. There
//! is no global synchronization: the only ordering is local.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use ordo_graph::{BlockPartition, GraphPart, VertexId};
use ordo_sched::{Handle, Scheduler, SchedulerSpec, SchedulerVisitor};

use super::{ResolvedDcParams, Variant};
use crate::runtime::{self, Cx, PlugIn, Program, RankRun, RuntimeOptions};
use crate::transport::Endpoint;
use crate::wire::{read_u32, read_u64, Wire};
use crate::DistError;

/// An SSSP work item: "vertex `vertex` may be reached at distance `dist`".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relax {
    /// The target vertex (global id).
    pub vertex: VertexId,
    /// The tentative distance.
    pub dist: u64,
}

impl Wire for Relax {
    const BYTES: usize = 12;

    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.vertex.to_le_bytes());
        out.extend_from_slice(&self.dist.to_le_bytes());
    }

    fn get(b: &[u8]) -> Self {
        Relax { vertex: read_u32(b, 0), dist: read_u64(b, 4) }
    }
}

/// An ordinary task of the `np` variant.
pub(crate) enum NpTask {
    /// The message handler of items that arrived from the network.
    Handle(Vec<Relax>),
    /// Drains the priority queue, yielding every `freq` items; it runs on
    /// the thread that spawned it (its mailbox, then its yield queue).
    Drain,
}

/// The result of one rank's DC run.
pub(crate) struct DcOutcome {
    /// Final distances of the owned vertices (`u64::MAX`: unreached).
    pub(crate) dist: Vec<u64>,
    /// What the runtime measured.
    pub(crate) run: RankRun,
}

/// One rank of DC-SSSP.
struct DcSssp<'g, S> {
    part: &'g GraphPart,
    partition: BlockPartition,
    rank: usize,
    source: VertexId,
    variant: Variant,
    params: ResolvedDcParams,
    /// Tentative distances of the owned vertices.
    dist: Vec<AtomicU64>,
    /// The local priority queue of `(distance, local vertex)`.
    sched: S,
    /// Entries in `sched`, approximately (pushes minus pops): the "queue
    /// size" the adaptive frequency watches.
    queued: AtomicI64,
}

/// Runs DC-SSSP on this rank with the local queue `spec`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_dc(
    ep: &dyn Endpoint,
    part: &GraphPart,
    partition: BlockPartition,
    source: VertexId,
    variant: Variant,
    params: ResolvedDcParams,
    spec: &SchedulerSpec,
    opts: RuntimeOptions,
    early: Vec<Vec<u8>>,
) -> Result<DcOutcome, DistError> {
    struct Visit<'a> {
        ep: &'a dyn Endpoint,
        part: &'a GraphPart,
        partition: BlockPartition,
        source: VertexId,
        variant: Variant,
        params: ResolvedDcParams,
        opts: RuntimeOptions,
        early: Vec<Vec<u8>>,
    }
    impl SchedulerVisitor<u32> for Visit<'_> {
        type Output = Result<DcOutcome, DistError>;
        fn visit<S: Scheduler<u32>>(self, sched: S) -> Self::Output {
            let program = DcSssp {
                part: self.part,
                partition: self.partition,
                rank: self.ep.rank(),
                source: self.source,
                variant: self.variant,
                params: self.params,
                dist: (0..self.part.num_owned()).map(|_| AtomicU64::new(u64::MAX)).collect(),
                sched,
                queued: AtomicI64::new(0),
            };
            let run = runtime::run_rank(self.ep, &program, self.opts, self.early)?;
            let dist = program.dist.into_iter().map(AtomicU64::into_inner).collect();
            Ok(DcOutcome { dist, run })
        }
    }
    // A rank drives its local queue through handles: `auto` runs in its
    // asynchronous mode there (its rounds need the executor's barriers).
    spec.handle_driven()
        .build(opts.threads.max(1), Visit { ep, part, partition, source, variant, params, opts, early })
}

impl<'g, S: Scheduler<u32>> Program for DcSssp<'g, S> {
    type Item = Relax;
    type Task = NpTask;
    type Worker<'p>
        = DcWorker<'p, 'g, S>
    where
        Self: 'p;

    fn worker(&self, tid: usize) -> DcWorker<'_, 'g, S> {
        DcWorker {
            handle: self.sched.handle(tid),
            p: self,
            freq: self.params.freq,
            in_round: 0,
            last_size: 0,
            send_count: 0,
            draining: false,
            c: Counters::default(),
        }
    }
}

/// Per-thread counters of DC-SSSP.
#[derive(Default)]
struct Counters {
    /// Items executed with their vertex's current distance (vertex relaxations).
    work_items: u64,
    /// Items popped after their vertex had improved (skipped).
    stale_items: u64,
    /// Edges relaxed by executed items.
    edges_relaxed: u64,
    /// Items for owned vertices created by relaxations (handled locally).
    items_local: u64,
    /// Times the producer stopped for flow control.
    fc_stalls: u64,
    /// Times the producer handed control back at the end of a round.
    round_yields: u64,
}

/// One worker thread of DC-SSSP: its handle on the rank's queue and the
/// plug-in scheduler's state.
struct DcWorker<'p, 'g, S: Scheduler<u32> + 'p> {
    p: &'p DcSssp<'g, S>,
    handle: S::Handle<'p>,
    /// Items to produce before handing control back (`ff`, `af`, `fc`, `np`).
    freq: u32,
    /// Items produced since control last went back to the runtime.
    in_round: u32,
    /// Queue size when control last went back (`af`).
    last_size: i64,
    /// Sends since the last acknowledged one (`fc`, `af+fc`).
    send_count: u64,
    /// Whether this thread has a drain task (`np`).
    draining: bool,
    c: Counters,
}

impl<'p, 'g, S: Scheduler<u32>> DcWorker<'p, 'g, S> {
    /// The message handler / work consumer of one item for an owned vertex:
    /// a better distance goes into the queue, a worse one is finished.
    #[inline]
    fn offer(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>, local: u32, dist: u64) {
        let before = self.p.dist[local as usize].fetch_min(dist, Ordering::Relaxed);
        if dist < before {
            self.handle.push(dist, local);
            self.p.queued.fetch_add(1, Ordering::Relaxed);
            if self.p.variant == Variant::Np && !self.draining {
                // The drain goes to this thread's own mailbox, not to its
                // stealable LIFO queue: a drain covers the pushes of the
                // thread that owns it, so it must not migrate.
                self.draining = true;
                let me = cx.tid();
                cx.mail(me, NpTask::Drain);
            }
        } else {
            cx.count_finished(1);
        }
    }

    /// Pops the most urgent entry of the queue.
    #[inline]
    fn pop(&mut self) -> Option<Relax> {
        let (dist, local) = self.handle.pop()?;
        self.p.queued.fetch_sub(1, Ordering::Relaxed);
        Some(Relax { vertex: self.p.part.first + local, dist })
    }

    /// Ends a round: control goes back to the runtime.
    fn end_round(&mut self) {
        self.in_round = 0;
        self.last_size = self.p.queued.load(Ordering::Relaxed);
    }
}

impl<'p, 'g, S: Scheduler<u32>> PlugIn<DcSssp<'g, S>> for DcWorker<'p, 'g, S> {
    fn start(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>) {
        let p = self.p;
        if cx.tid() == 0 && p.partition.owner(p.source) == p.rank {
            cx.count_created(1);
            self.offer(cx, p.source - p.part.first, 0);
        }
    }

    fn consume(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>, items: &[Relax]) {
        if self.p.variant == Variant::Np {
            // No plug-in: the handler is an ordinary task.
            cx.spawn(NpTask::Handle(items.to_vec()));
            return;
        }
        let first = self.p.part.first;
        for r in items {
            self.offer(cx, r.vertex - first, r.dist);
        }
    }

    fn produce(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>) -> Option<Relax> {
        let (variant, params) = (self.p.variant, self.p.params);
        if variant == Variant::Np {
            return None;
        }
        if variant.flow_control() && cx.acks_outstanding() > params.sync_threshold {
            self.c.fc_stalls += 1;
            return None;
        }
        if variant.has_frequency() && self.in_round >= self.freq {
            self.c.round_yields += 1;
            self.end_round();
            return None;
        }
        let size = self.p.queued.load(Ordering::Relaxed);
        let Some(item) = self.pop() else {
            self.end_round();
            return None;
        };
        if variant.adaptive() && self.in_round == 0 {
            // First item since the network progressed: did it bring work?
            self.freq = if size > self.last_size {
                (self.freq - 1).max(params.freq_min)
            } else {
                (self.freq + 1).min(params.freq_max)
            };
        }
        self.in_round += 1;
        Some(item)
    }

    fn execute(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>, item: Relax) {
        let p = self.p;
        let local = (item.vertex - p.part.first) as usize;
        if p.dist[local].load(Ordering::Relaxed) < item.dist {
            self.c.stale_items += 1;
            cx.count_finished(1);
            return;
        }
        self.c.work_items += 1;
        let edges = p.part.edge_range(local);
        self.c.edges_relaxed += edges.len() as u64;
        let flow_control = p.variant.flow_control();
        for e in edges {
            let target = p.part.targets[e];
            let dist = item.dist + p.part.weights.as_ref().map_or(1, |w| u64::from(w[e]));
            let owner = p.partition.owner(target);
            if owner == p.rank {
                let t = target - p.part.first;
                // A relaxation that cannot improve is not worth an item.
                if dist < p.dist[t as usize].load(Ordering::Relaxed) {
                    self.c.items_local += 1;
                    cx.count_created(1);
                    self.offer(cx, t, dist);
                }
            } else if flow_control {
                self.send_count += 1;
                if self.send_count >= p.params.send_threshold {
                    self.send_count = 0;
                    cx.send_acked(owner, Relax { vertex: target, dist });
                } else {
                    cx.send(owner, Relax { vertex: target, dist });
                }
            } else {
                cx.send(owner, Relax { vertex: target, dist });
            }
        }
        cx.count_finished(1);
    }

    fn steal(&mut self, _cx: &mut Cx<'_, DcSssp<'g, S>>) -> Option<Relax> {
        // The rank's queue is shared by its threads: publishing this
        // thread's private buffers and popping again reaches the others' work.
        if self.p.variant == Variant::Np || self.p.queued.load(Ordering::Relaxed) <= 0 {
            return None;
        }
        self.handle.flush();
        self.pop()
    }

    fn run_task(&mut self, cx: &mut Cx<'_, DcSssp<'g, S>>, task: NpTask) {
        match task {
            NpTask::Handle(items) => {
                let first = self.p.part.first;
                for r in items {
                    self.offer(cx, r.vertex - first, r.dist);
                }
            }
            NpTask::Drain => {
                for _ in 0..self.freq {
                    match self.pop() {
                        Some(item) => self.execute(cx, item),
                        None if self.p.queued.load(Ordering::Relaxed) > 0 => break,
                        None => {
                            // Empty: the task ends; the next push spawns another.
                            self.draining = false;
                            return;
                        }
                    }
                }
                self.c.round_yields += 1;
                cx.yield_task(NpTask::Drain);
            }
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("work_items", self.c.work_items),
            ("stale_items", self.c.stale_items),
            ("edges_relaxed", self.c.edges_relaxed),
            ("items_local", self.c.items_local),
            ("fc_stalls", self.c.fc_stalls),
            ("round_yields", self.c.round_yields),
        ]
    }
}
