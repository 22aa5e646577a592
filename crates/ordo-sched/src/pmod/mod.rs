//! `pmod` (Priority Merging On Demand), faithful to the PMOD paper §4: obim
//! whose bags hold *priority groups* `p >> lmf` for an adaptive merging factor
//! `2^lmf`, raised when threads keep missing work in too many sparse bags
//! (mergeCheck) and lowered when a few long bags risk priority inversion
//! (unmergeCheck).
//!
//! # Keys and their order (§4.2)
//! A task pushed while the merging factor is `lmf` goes to the bag
//! `(p >> lmf, lmf)`. Bags are never merged physically; old fine-grained bags
//! drain first because of the paper's order between keys: with
//! `s = max(d1, d2)`, compare `p1 >> s` with `p2 >> s`, and on a tie the
//! smaller `d` first; two keys are equal iff both parts are. [`PmodKey`]
//! implements this order as a plain lexicographic order: the key `(p, d)`
//! stands for the aligned block of priorities `[p >> d << d, last]` with
//! `last = p | (2^d - 1)`. Two aligned blocks are nested or disjoint; in both
//! cases the paper's rule puts the block with the smaller `last` first (a
//! strictly nested block ends no later; a disjoint block on the left ends
//! before the other starts), and on equal `last` the finer block (smaller
//! `d`) first. So the order is `(last, d)` lexicographically, a total order,
//! with equality iff the same block. `pmod::test` checks this against the
//! paper's definition.
//!
//! # Adaptation (§4.3–§4.4, Figures 3–4)
//! See [`adapt`]: per-thread counters nDeqs, nSyncDeqs, nEnqs, MinB, MaxB,
//! aggregated by the thread that checks, reset after each change of lmf; a
//! synchronising dequeue is a slow pop (the current bag is empty and the
//! thread goes to the map).

pub mod adapt;

#[cfg(all(test, not(loom)))]
mod test;

use crate::obim::{Ordered, Policy};
use crate::spec::{Params, SchedConfig, SpecError};
use crate::{Prio, SchedReport};

pub use adapt::{PmodLocal, PmodPolicy};

/// The largest merging factor exponent (a shift of a 64-bit priority).
pub const MAX_LMF: u32 = 63;

/// A PMOD bag key: the block of priorities `p >> lmf` at merging factor
/// `lmf`, stored as `(edge of the block, lmf)` so that the derived
/// lexicographic order is the wanted order: with the block's last priority
/// as the edge it is the paper's order ([`GroupOrder::End`], see the module
/// docs), with its first priority the [`GroupOrder::Start`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PmodKey {
    /// `p | (2^lmf - 1)` (the block's largest priority) or `p >> lmf << lmf`
    /// (its smallest), depending on the order.
    edge: u64,
    /// The merging factor exponent when the task was pushed.
    lmf: u32,
}

/// How bags of different merging factors are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOrder {
    /// The paper's order (§4.2): a block is due when its *last* priority is,
    /// the finer block first on a tie. After an unmerge, every finer group
    /// inside a coarse block runs before the coarse bag, whose most urgent
    /// tasks then wait (`order=end`).
    End,
    /// A block is due when its *first* priority is, the finer block first on
    /// a tie: a coarse bag runs as soon as its most urgent possible task is
    /// due, before the finer groups inside it; after a merge the new coarse
    /// bag runs after the finer bags at or before its start, as in the
    /// paper's example, and before those inside it (`order=start`).
    Start,
}

impl PmodKey {
    /// The key of priority `prio` pushed at merging factor exponent `lmf`
    /// (clamped to [`MAX_LMF`]).
    #[inline]
    pub fn new(prio: Prio, lmf: u32) -> Self {
        let lmf = lmf.min(MAX_LMF);
        PmodKey { edge: prio | ((1u64 << lmf) - 1), lmf }
    }

    /// The key of priority `prio` pushed at merging factor exponent `lmf`
    /// under the [`GroupOrder::Start`] order.
    #[inline]
    pub fn by_start(prio: Prio, lmf: u32) -> Self {
        let lmf = lmf.min(MAX_LMF);
        PmodKey { edge: prio >> lmf << lmf, lmf }
    }

    /// The key of `prio` at `lmf` under `order`.
    #[inline]
    pub fn with_order(prio: Prio, lmf: u32, order: GroupOrder) -> Self {
        match order {
            GroupOrder::End => PmodKey::new(prio, lmf),
            GroupOrder::Start => PmodKey::by_start(prio, lmf),
        }
    }

    /// The group index `p >> lmf`.
    pub fn group(&self) -> u64 {
        self.edge >> self.lmf
    }

    /// The merging factor exponent of the key.
    pub fn lmf(&self) -> u32 {
        self.lmf
    }
}

/// Configuration of [`Pmod`], with the paper's defaults (§5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct PmodConfig {
    /// Tasks per chunk (`chunk`, default 64).
    pub chunk: usize,
    /// `Freq_global` (`freq_global`): merge only if more than this fraction
    /// of dequeues are synchronising. Default `1/chunk`.
    pub freq_global: f64,
    /// `MaxPops` (`max_pops`): unmerge only after more than this many pops
    /// from one priority group. Default `4 * chunk`.
    pub max_pops: u64,
    /// `MinDensity` (`min_density`): the wanted tasks per group. Default 64.
    pub min_density: u64,
    /// `Min_queues` (`min_queues`): the wanted number of groups. Default 16.
    pub min_queues: u64,
    /// Run mergeCheck (`merge`, default true).
    pub merge: bool,
    /// Run unmergeCheck (`unmerge`, default true, as the paper's Fig. 4).
    ///
    /// Unmerging alone makes PR-D many times slower (tasks pushed at a
    /// coarser level keep their coarse keys and run behind the new fine
    /// groups, so large residuals wait and re-trigger their neighbours),
    /// which is why the PMOD artifact compiles it out; with
    /// [`guard`](Self::guard), on by default, that loss is gone and SSSP is
    /// unchanged (`docs/design/2026-11-27-pmod-unmerge-guard.md`).
    pub unmerge: bool,
    /// The order between bags of different merging factors (`order`,
    /// `end` = the paper's §4.2 order, or `start`).
    pub order: GroupOrder,
    /// Refuse an unmerge while tasks pushed at a coarser merging factor than
    /// the new one are still queued (`guard`, default true): the repair that
    /// lets unmerging stay on. `guard=false` with `unmerge=true` is the
    /// paper's check alone; `unmerge=false` the PMOD artifact's build.
    pub guard: bool,
    /// The merging factor exponent a run starts with (`lmf`, default 0 as
    /// in the paper; at most [`MAX_LMF`]): PMOD's Δ, from which merging and
    /// unmerging adapt (the SMQ paper's PMOD runs, Figs. 4 and 6, set it).
    pub start_lmf: u32,
}

impl Default for PmodConfig {
    fn default() -> Self {
        let chunk = crate::chunk::DEFAULT_CHUNK;
        PmodConfig {
            chunk,
            freq_global: 1.0 / chunk as f64,
            max_pops: 4 * chunk as u64,
            min_density: 64,
            min_queues: 16,
            merge: true,
            unmerge: true,
            order: GroupOrder::End,
            guard: true,
            start_lmf: 0,
        }
    }
}

impl SchedConfig for PmodConfig {
    fn from_params(p: &mut Params) -> Result<Self, SpecError> {
        let chunk = p.take_chunk()?;
        let freq_global = p.take_prob("freq_global", 1.0 / chunk as f64)?;
        let max_pops = p.take_u64("max_pops", 4 * chunk as u64)?;
        let min_density = p.take_u64("min_density", 64)?;
        let min_queues = p.take_u64("min_queues", 16)?;
        let merge = p.take_bool("merge", true)?;
        let unmerge = p.take_bool("unmerge", true)?;
        let order = match p.take_str_or("order", "end")?.as_str() {
            "end" => GroupOrder::End,
            "start" => GroupOrder::Start,
            other => return Err(SpecError(format!("pmod: `order={other}`: expected end or start"))),
        };
        let guard = p.take_bool("guard", true)?;
        let start_lmf = p.take_u64("lmf", 0)?;
        if start_lmf > u64::from(MAX_LMF) {
            return Err(SpecError(format!("pmod: `lmf={start_lmf}`: expected at most {MAX_LMF}")));
        }
        let start_lmf = start_lmf as u32;
        for (name, v) in [("min_density", min_density), ("min_queues", min_queues)] {
            if v == 0 {
                return Err(SpecError(format!("pmod: `{name}=0`: expected at least 1")));
            }
        }
        Ok(PmodConfig {
            chunk,
            freq_global,
            max_pops,
            min_density,
            min_queues,
            merge,
            unmerge,
            order,
            guard,
            start_lmf,
        })
    }

    fn to_params(&self) -> String {
        format!(
            "chunk={},freq_global={},max_pops={},min_density={},min_queues={},merge={},unmerge={},order={},guard={},lmf={}",
            self.chunk,
            self.freq_global,
            self.max_pops,
            self.min_density,
            self.min_queues,
            self.merge,
            self.unmerge,
            match self.order {
                GroupOrder::End => "end",
                GroupOrder::Start => "start",
            },
            self.guard,
            self.start_lmf
        )
    }
}

impl Policy for PmodPolicy {
    type Key = PmodKey;
    type Local = PmodLocal;
    type Config = PmodConfig;

    fn new(threads: usize, cfg: &PmodConfig) -> Self {
        PmodPolicy::with_config(threads, cfg.clone())
    }

    fn chunk(cfg: &PmodConfig) -> usize {
        cfg.chunk
    }

    #[inline]
    fn key(&self, prio: Prio) -> PmodKey {
        PmodKey::with_order(prio, self.lmf(), self.order())
    }

    #[inline]
    fn on_push(&self, tid: usize, local: &mut PmodLocal, prio: Prio, key: PmodKey, switched: bool) {
        self.count_enq(tid, local, prio, key.lmf(), switched);
    }

    #[inline]
    fn on_pop_start(&self, tid: usize, local: &mut PmodLocal) {
        self.count_deq(tid, local);
    }

    fn on_sync_pop(&self, tid: usize, local: &mut PmodLocal) {
        self.sync_deq(tid, local);
    }

    #[inline]
    fn on_popped(&self, tid: usize, local: &mut PmodLocal, key: PmodKey, _same_bag: bool) {
        self.count_popped(tid, local, key.lmf());
    }

    fn report(&self, out: &mut SchedReport) {
        self.write_report(out);
    }
}

/// The `pmod` scheduler.
pub type Pmod<T> = Ordered<T, PmodPolicy>;
