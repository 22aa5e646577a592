//! PMOD's adaptation of the merging factor (paper §4.3–§4.4, Figures 3–4).
//!
//! # Counters (Figure 3)
//! Each thread counts, since the last change of lmf, its dequeue calls
//! (nDeqs), its synchronising dequeues (nSyncDeqs, slow pops), its enqueues
//! (nEnqs) and the range of priorities it enqueued (MinB, MaxB). The owner
//! keeps them in its handle and mirrors them, with relaxed stores, into its
//! own cache-padded slot, which the checking thread reads with relaxed loads
//! and sums. "Reset after each change" is an epoch: a change bumps the global
//! epoch, a thread that sees a new epoch zeroes its counters before its next
//! count, and the aggregation skips slots still tagged with an old epoch. No
//! thread ever writes another thread's counters, and no thread is stopped
//! (unlike the PMOD artifact, which locks every
//! thread's counters to aggregate them). Counts read mid-update are approximate; any lmf is correct, only
//! the quality of the schedule depends on it.
//!
//! # Who checks, and when
//! The paper checks on synchronising dequeues; the artifact only on thread 0.
//! Here any thread may check at its slow pops, one at a time: the checker
//! takes the `adapting` flag with a compare-exchange (a try-lock; a thread
//! that fails just goes on). As in the artifact (`sinceLastFix > counter`), a
//! check needs more than `min_events` dequeues since the last change,
//! `min_events` starting at `chunk` and doubling at each merge. To keep the
//! cost of aggregation (one read per thread) low, a thread attempts a check
//! only after `min_events / threads` dequeues of its own since its last
//! attempt.
//!
//! # The checks (Figure 4)
//! - mergeCheck: if `nSyncDeqs / nDeqs > Freq_global`, with
//!   `num_queues = (MaxB >> lmf) - (MinB >> lmf) + 1` and
//!   `fillRatio = nEnqs / num_queues`, if `fillRatio < MinDensity` then
//!   `lmf += floor(log2(MinDensity / fillRatio))`.
//! - unmergeCheck (only if mergeCheck did not change lmf): if the checking
//!   thread's dequeues from its last priority group exceed `MaxPops`, `lmf > 0`
//!   and `num_queues < Min_queues`, then
//!   `lmf -= floor(log2(Min_queues / num_queues))`, floored at 0.
//!
//! Two choices the figure leaves open: `num_queues` counts the groups covering
//! `[MinB, MaxB]`, hence the `+ 1` (the figure's difference is 0 for a single
//! group, where the artifact divides by zero); and the logarithms are rounded
//! down, so a step never overshoots the target ("get closer to MinDensity"):
//! merging by `2^floor(log2(MinDensity / fill))` keeps the expected fill at or
//! below MinDensity, unmerging keeps `num_queues` at or below Min_queues. A
//! check whose rounded step is 0 changes nothing.
//!
//! # Probes
//! Shared structures for [`crate::probe`]: `lmf` (read by every push's key),
//! the epoch, each thread's counter slot (written by its owner, read by the
//! checker), the `adapting` flag and `min_events`. A second access to a
//! structure within one operation is not probed when it cannot change what
//! the simulator counts (the thread touched it already in that operation).

use std::sync::Mutex;

use crossbeam_utils::CachePadded;

use super::{PmodConfig, MAX_LMF};
use crate::sync::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use crate::{probe, Prio, SchedReport, Trace};

/// The counters of one adaptation window, summed over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// Dequeue calls (nDeqs).
    pub deqs: u64,
    /// Synchronising dequeues (nSyncDeqs).
    pub sync_deqs: u64,
    /// Enqueues (nEnqs).
    pub enqs: u64,
    /// Smallest priority enqueued (MinB); meaningful if `enqs > 0`.
    pub min_b: u64,
    /// Largest priority enqueued (MaxB); meaningful if `enqs > 0`.
    pub max_b: u64,
}

impl Window {
    /// Number of priority groups at `lmf` covering `[MinB, MaxB]`.
    pub fn num_queues(&self, lmf: u32) -> u64 {
        ((self.max_b >> lmf) - (self.min_b >> lmf).min(self.max_b >> lmf)).saturating_add(1)
    }
}

/// mergeCheck (Figure 4): the new lmf if the window calls for merging.
pub fn merge_check(w: &Window, lmf: u32, cfg: &PmodConfig) -> Option<u32> {
    if w.deqs == 0 || w.enqs == 0 || w.sync_deqs as f64 / w.deqs as f64 <= cfg.freq_global {
        return None;
    }
    let fill = w.enqs as f64 / w.num_queues(lmf) as f64;
    if fill >= cfg.min_density as f64 {
        return None;
    }
    let step = (cfg.min_density as f64 / fill).log2().floor() as u32;
    let new = lmf.saturating_add(step).min(MAX_LMF);
    (new > lmf).then_some(new)
}

/// unmergeCheck (Figure 4): the new lmf if the window calls for unmerging.
/// `same_group_pops` is the checking thread's dequeues from its last group.
pub fn unmerge_check(w: &Window, lmf: u32, same_group_pops: u64, cfg: &PmodConfig) -> Option<u32> {
    if lmf == 0 || same_group_pops <= cfg.max_pops || w.enqs == 0 {
        return None;
    }
    let queues = w.num_queues(lmf);
    if queues >= cfg.min_queues {
        return None;
    }
    let step = (cfg.min_queues as f64 / queues as f64).log2().floor() as u32;
    let new = lmf.saturating_sub(step);
    (new < lmf).then_some(new)
}

/// One thread's counters as seen by the checker.
struct SharedCounters {
    epoch: AtomicU64,
    deqs: AtomicU64,
    sync_deqs: AtomicU64,
    enqs: AtomicU64,
    min_b: AtomicU64,
    max_b: AtomicU64,
    /// Successful pops since the start (never reset): the trace's x axis.
    total_pops: AtomicU64,
    /// Per merging factor exponent, this thread's pushes minus its pops of
    /// tasks with that key exponent (an `i64` in two's complement; the sum
    /// over threads is the number queued). Read by the unmerge guard.
    net: [AtomicU64; MAX_LMF as usize + 1],
}

impl Default for SharedCounters {
    fn default() -> Self {
        SharedCounters {
            epoch: AtomicU64::new(0),
            deqs: AtomicU64::new(0),
            sync_deqs: AtomicU64::new(0),
            enqs: AtomicU64::new(0),
            min_b: AtomicU64::new(0),
            max_b: AtomicU64::new(0),
            total_pops: AtomicU64::new(0),
            net: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

/// A thread's PMOD state, kept in its handle.
#[derive(Debug)]
pub struct PmodLocal {
    epoch: u64,
    window: Window,
    total_pops: u64,
    /// Pops since the last slow pop or switch to a more urgent bag.
    same_group_pops: u64,
    /// Dequeues since this thread last tried to check.
    since_attempt: u64,
    /// Pushes minus pops per key exponent (see `SharedCounters::net`).
    net: [i64; MAX_LMF as usize + 1],
}

impl Default for PmodLocal {
    fn default() -> Self {
        PmodLocal {
            epoch: 0,
            window: Window::default(),
            total_pops: 0,
            same_group_pops: 0,
            since_attempt: 0,
            net: [0; MAX_LMF as usize + 1],
        }
    }
}

/// PMOD's shared adaptive state; the [`super::Pmod`] scheduler's policy.
pub struct PmodPolicy {
    cfg: PmodConfig,
    threads: u64,
    lmf: CachePadded<AtomicU32>,
    epoch: CachePadded<AtomicU64>,
    adapting: CachePadded<AtomicBool>,
    /// Dequeues needed since the last change before checking.
    min_events: AtomicU64,
    counters: Box<[CachePadded<SharedCounters>]>,
    merges: AtomicU64,
    unmerges: AtomicU64,
    /// Unmerges the guard refused.
    unmerges_refused: AtomicU64,
    /// (successful pops so far, lmf) at the start and at each change.
    trace: Mutex<Vec<(u64, u64)>>,
}

impl PmodPolicy {
    /// The policy for `threads` threads.
    pub fn with_config(threads: usize, cfg: PmodConfig) -> Self {
        let threads = threads.max(1);
        PmodPolicy {
            threads: threads as u64,
            lmf: CachePadded::new(AtomicU32::new(cfg.start_lmf)),
            epoch: CachePadded::new(AtomicU64::new(0)),
            adapting: CachePadded::new(AtomicBool::new(false)),
            min_events: AtomicU64::new(cfg.chunk as u64),
            counters: (0..threads).map(|_| CachePadded::new(SharedCounters::default())).collect(),
            merges: AtomicU64::new(0),
            unmerges: AtomicU64::new(0),
            unmerges_refused: AtomicU64::new(0),
            trace: Mutex::new(vec![(0, u64::from(cfg.start_lmf))]),
            cfg,
        }
    }

    /// The order between bags of different merging factors.
    #[inline]
    pub fn order(&self) -> super::GroupOrder {
        self.cfg.order
    }

    /// The current merging factor exponent.
    #[inline]
    pub fn lmf(&self) -> u32 {
        probe::read(&*self.lmf);
        self.lmf.load(Ordering::Relaxed)
    }

    /// Sets lmf as an adaptation would (tests start from a merged state).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn force_lmf(&self, lmf: u32) {
        self.lmf.store(lmf, Ordering::Relaxed);
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// The lmf trace so far.
    pub fn trace(&self) -> Vec<(u64, u64)> {
        self.trace.lock().map(|t| t.clone()).unwrap_or_else(|p| p.into_inner().clone())
    }

    fn slot(&self, tid: usize) -> &SharedCounters {
        &self.counters[tid.min(self.counters.len() - 1)]
    }

    /// Starts a new window if the epoch moved (the lazy reset).
    #[inline]
    fn sync_epoch(&self, tid: usize, local: &mut PmodLocal) {
        probe::read(&*self.epoch);
        let epoch = self.epoch.load(Ordering::Relaxed);
        if local.epoch != epoch {
            local.epoch = epoch;
            local.window = Window::default();
            let s = self.slot(tid);
            probe::write(s);
            s.deqs.store(0, Ordering::Relaxed);
            s.sync_deqs.store(0, Ordering::Relaxed);
            s.enqs.store(0, Ordering::Relaxed);
            s.epoch.store(epoch, Ordering::Relaxed);
        }
    }

    #[inline]
    pub(crate) fn count_enq(&self, tid: usize, local: &mut PmodLocal, prio: Prio, lmf: u32, switched: bool) {
        self.count_net(tid, local, lmf, 1);
        self.sync_epoch(tid, local);
        let w = &mut local.window;
        let s = self.slot(tid);
        probe::write(s);
        if w.enqs == 0 || prio < w.min_b {
            w.min_b = prio;
            s.min_b.store(prio, Ordering::Relaxed);
        }
        if w.enqs == 0 || prio > w.max_b {
            w.max_b = prio;
            s.max_b.store(prio, Ordering::Relaxed);
        }
        w.enqs += 1;
        s.enqs.store(w.enqs, Ordering::Relaxed);
        if switched {
            local.same_group_pops = 0;
        }
    }

    #[inline]
    pub(crate) fn count_deq(&self, tid: usize, local: &mut PmodLocal) {
        self.sync_epoch(tid, local);
        local.window.deqs += 1;
        local.since_attempt += 1;
        probe::write(self.slot(tid));
        self.slot(tid).deqs.store(local.window.deqs, Ordering::Relaxed);
    }

    /// Adds `delta` to this thread's net count of tasks at key exponent
    /// `lmf` (only kept when the unmerge guard needs it).
    #[inline]
    fn count_net(&self, tid: usize, local: &mut PmodLocal, lmf: u32, delta: i64) {
        if self.cfg.guard {
            let l = (lmf.min(MAX_LMF)) as usize;
            local.net[l] += delta;
            self.slot(tid).net[l].store(local.net[l] as u64, Ordering::Relaxed);
        }
    }

    /// Whether tasks pushed at a key exponent above `lmf` are still queued
    /// (summed over threads; approximate while threads run).
    pub(crate) fn coarser_queued(&self, lmf: u32) -> bool {
        let mut queued = 0i64;
        for s in self.counters.iter() {
            for l in (lmf as usize + 1)..=(MAX_LMF as usize) {
                queued += s.net[l].load(Ordering::Relaxed) as i64;
            }
        }
        queued > 0
    }

    #[inline]
    pub(crate) fn count_popped(&self, tid: usize, local: &mut PmodLocal, lmf: u32) {
        self.count_net(tid, local, lmf, -1);
        local.total_pops += 1;
        local.same_group_pops += 1;
        // No probe: `count_deq` wrote this slot earlier in the same pop, so
        // this write cannot touch anything another thread wrote since.
        self.slot(tid).total_pops.store(local.total_pops, Ordering::Relaxed);
    }

    /// A synchronising dequeue: count it and maybe check (Figure 3).
    pub(crate) fn sync_deq(&self, tid: usize, local: &mut PmodLocal) {
        self.sync_epoch(tid, local);
        local.window.sync_deqs += 1;
        // No slot probe: `count_deq` wrote it earlier in the same pop.
        self.slot(tid).sync_deqs.store(local.window.sync_deqs, Ordering::Relaxed);
        probe::read(&self.min_events);
        let gate = (self.min_events.load(Ordering::Relaxed) / self.threads).max(1);
        if (self.cfg.merge || self.cfg.unmerge) && local.since_attempt >= gate {
            local.since_attempt = 0;
            probe::write(&*self.adapting);
            if self.adapting.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                self.check(local.same_group_pops);
                self.adapting.store(false, Ordering::Release);
            }
        }
        local.same_group_pops = 0;
    }

    /// Sums the current window over threads.
    fn aggregate(&self, epoch: u64) -> (Window, u64) {
        let mut w = Window::default();
        let mut total_pops = 0;
        for s in self.counters.iter() {
            probe::read(&**s);
            total_pops += s.total_pops.load(Ordering::Relaxed);
            if s.epoch.load(Ordering::Relaxed) != epoch {
                continue;
            }
            w.deqs += s.deqs.load(Ordering::Relaxed);
            w.sync_deqs += s.sync_deqs.load(Ordering::Relaxed);
            let enqs = s.enqs.load(Ordering::Relaxed);
            if enqs > 0 {
                let (lo, hi) = (s.min_b.load(Ordering::Relaxed), s.max_b.load(Ordering::Relaxed));
                if w.enqs == 0 {
                    (w.min_b, w.max_b) = (lo, hi);
                } else {
                    (w.min_b, w.max_b) = (w.min_b.min(lo), w.max_b.max(hi));
                }
                w.enqs += enqs;
            }
        }
        (w, total_pops)
    }

    /// mergeCheck, then unmergeCheck if lmf did not change; applies a change.
    /// Called with the `adapting` flag held.
    fn check(&self, same_group_pops: u64) {
        let epoch = self.epoch.load(Ordering::Relaxed);
        let (w, total_pops) = self.aggregate(epoch);
        if w.deqs <= self.min_events.load(Ordering::Relaxed) {
            return;
        }
        let lmf = self.lmf();
        let merged = if self.cfg.merge { merge_check(&w, lmf, &self.cfg) } else { None };
        let new = merged.or_else(|| {
            if self.cfg.unmerge {
                let new = unmerge_check(&w, lmf, same_group_pops, &self.cfg)?;
                if self.cfg.guard && self.coarser_queued(new) {
                    self.unmerges_refused.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                Some(new)
            } else {
                None
            }
        });
        let Some(new) = new else { return };
        probe::write(&*self.lmf);
        probe::write(&*self.epoch);
        probe::write(&self.min_events);
        self.lmf.store(new, Ordering::Relaxed);
        self.epoch.fetch_add(1, Ordering::Relaxed);
        if new > lmf {
            self.merges.fetch_add(1, Ordering::Relaxed);
            let m = self.min_events.load(Ordering::Relaxed);
            self.min_events.store(m.saturating_mul(2), Ordering::Relaxed);
        } else {
            self.unmerges.fetch_add(1, Ordering::Relaxed);
        }
        let mut trace = self.trace.lock().unwrap_or_else(|p| p.into_inner());
        trace.push((total_pops, u64::from(new)));
    }

    pub(crate) fn write_report(&self, out: &mut SchedReport) {
        out.counters.push(("merges", self.merges.load(Ordering::Relaxed)));
        out.counters.push(("unmerges", self.unmerges.load(Ordering::Relaxed)));
        if self.cfg.guard {
            out.counters.push(("unmerges_refused", self.unmerges_refused.load(Ordering::Relaxed)));
        }
        out.counters.push(("final_lmf", u64::from(self.lmf())));
        out.traces.push(Trace { name: "lmf", x_label: "dequeues", points: self.trace() });
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::Arc;

    /// Two threads reach synchronising dequeues at once: adaptations never
    /// overlap, so the trace, the change counters and the final lmf agree.
    #[test]
    fn loom_one_adapter_at_a_time() {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(2);
        builder.check(|| {
            let cfg = PmodConfig { chunk: 1, freq_global: 0.1, ..PmodConfig::default() };
            let policy = Arc::new(PmodPolicy::with_config(2, cfg));
            let threads: Vec<_> = (0..2usize)
                .map(|tid| {
                    let policy = policy.clone();
                    loom::thread::spawn(move || {
                        let mut local = PmodLocal::default();
                        policy.count_enq(tid, &mut local, 1000 * tid as u64, 0, false);
                        policy.count_deq(tid, &mut local);
                        policy.count_deq(tid, &mut local);
                        policy.sync_deq(tid, &mut local);
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            let mut report = SchedReport::default();
            policy.write_report(&mut report);
            let get = |n: &str| report.counters.iter().find(|(k, _)| *k == n).unwrap().1;
            let trace = policy.trace();
            assert_eq!(trace.len() as u64, 1 + get("merges") + get("unmerges"));
            assert_eq!(trace.last().unwrap().1, get("final_lmf"));
            assert!(get("merges") >= 1, "sparse pushes and frequent slow pops must merge");
        });
    }
}
