//! What [`for_each`](crate::for_each) runs on each task: an [`Operator`].
//!
//! Any closure `Fn(Prio, T, &mut Context<T>) + Sync` is an operator. An
//! operator may also say what memory a task reads first, so that an
//! executor that knows the next tasks in advance can ask the CPU to load it
//! while earlier tasks run. The rounds of `auto` know them: they run tasks
//! in batches (a pile's chunk, a whole bucket at one thread). In a graph
//! operator the first reads of a task form a chain of cache misses (the
//! vertex's state and its edge offsets, then its edges), one vertex after
//! the other; prefetched a few tasks ahead, the misses of consecutive tasks
//! overlap. The pop loop of the other schedulers pops one task at a time
//! and calls no hint.

use ordo_sched::Prio;

use crate::Context;

/// The body of a parallel loop over prioritised tasks.
pub trait Operator<T>: Sync {
    /// Runs one task; new tasks go through `ctx`.
    fn run(&self, prio: Prio, task: T, ctx: &mut Context<T>);

    /// Called [`PREFETCH_AHEAD`] tasks before `task` runs, when the executor
    /// knows that far ahead: starts loading what `task` reads first and
    /// whose address needs no load (e.g. `state[v]`, `offsets[v]`).
    #[inline(always)]
    fn prefetch(&self, _prio: Prio, _task: &T) {}

    /// Called [`PREFETCH_DEPENDENT_AHEAD`] tasks before `task` runs, after
    /// [`Operator::prefetch`] had time to bring in its loads: starts loading
    /// what is found through them (e.g. the edges at `offsets[v]`).
    #[inline(always)]
    fn prefetch_dependent(&self, _prio: Prio, _task: &T) {}

    /// Whether every priority of the run (initial tasks and pushes) lies
    /// below 2^32. `auto`'s rounds then store a priority in 4 bytes, so an
    /// entry of a 4-byte task takes 8 bytes instead of 16 (see
    /// `ordo_sched::auto::buckets::PrioWord`); a larger priority would be
    /// saturated to `u32::MAX` (run late, never lost).
    const NARROW_PRIORITIES: bool = false;

    /// Whether the priorities are levels: every task pushes at its own
    /// priority plus one (breadth-first search). `auto`'s rounds then
    /// choose their unset round target and keys for levels
    /// (`ordo_sched::auto::rounds::RoundsSpec::config`).
    const LEVEL_PRIORITIES: bool = false;

    /// Whether the operator pushes continuations
    /// ([`Context::push_next`]) that the executor should run at once.
    /// `auto`'s rounds then look for one after every task; an operator
    /// that never pushes one keeps its task loop without that look, a
    /// branch and a load per task. Without it, `push_next` is `push`.
    const CONTINUATIONS: bool = false;

    /// Called by `auto`'s rounds on every thread after every barrier, the
    /// run's last one included, with that thread's context, before the
    /// thread runs another task. An operator that lowers shared values with
    /// logged plain stores ([`Context::logs_plain_stores`]) rechecks them
    /// here; no other executor calls it (nor turns the log on).
    #[inline(always)]
    fn after_barrier(&self, _ctx: &mut Context<T>) {}
}

/// How many tasks ahead [`Operator::prefetch`] is called. Measured on SSSP
/// with one and two threads (grid, road, Kronecker and Slashdot graphs),
/// 16 and 4 did at least as well as 8 and 3 or 32 and 8.
pub const PREFETCH_AHEAD: usize = 16;

/// How many tasks ahead [`Operator::prefetch_dependent`] is called.
pub const PREFETCH_DEPENDENT_AHEAD: usize = 4;

impl<T, F> Operator<T> for F
where
    F: Fn(Prio, T, &mut Context<T>) + Sync,
{
    #[inline(always)]
    fn run(&self, prio: Prio, task: T, ctx: &mut Context<T>) {
        self(prio, task, ctx)
    }
}

/// An operator with prefetch hints, made by [`with_prefetch`];
/// `NARROW` is its [`Operator::NARROW_PRIORITIES`]
/// ([`WithPrefetch::with_narrow_priorities`]) and `LEVELS` its
/// [`Operator::LEVEL_PRIORITIES`] ([`WithPrefetch::with_level_priorities`]).
pub struct WithPrefetch<F, P, D, const NARROW: bool = false, const LEVELS: bool = false> {
    op: F,
    prefetch: P,
    prefetch_dependent: D,
}

/// The operator `op` with its two prefetch hints: `prefetch` is its
/// [`Operator::prefetch`] and `prefetch_dependent` its
/// [`Operator::prefetch_dependent`].
pub fn with_prefetch<T, F, P, D>(op: F, prefetch: P, prefetch_dependent: D) -> WithPrefetch<F, P, D>
where
    F: Fn(Prio, T, &mut Context<T>) + Sync,
    P: Fn(Prio, &T) + Sync,
    D: Fn(Prio, &T) + Sync,
{
    WithPrefetch { op, prefetch, prefetch_dependent }
}

impl<F, P, D, const NARROW: bool, const LEVELS: bool> WithPrefetch<F, P, D, NARROW, LEVELS> {
    /// The same operator, declaring that every priority of its run lies
    /// below 2^32 ([`Operator::NARROW_PRIORITIES`]).
    pub fn with_narrow_priorities(self) -> WithPrefetch<F, P, D, true, LEVELS> {
        WithPrefetch { op: self.op, prefetch: self.prefetch, prefetch_dependent: self.prefetch_dependent }
    }

    /// The same operator, declaring that its priorities are levels
    /// ([`Operator::LEVEL_PRIORITIES`]).
    pub fn with_level_priorities(self) -> WithPrefetch<F, P, D, NARROW, true> {
        WithPrefetch { op: self.op, prefetch: self.prefetch, prefetch_dependent: self.prefetch_dependent }
    }
}

impl<T, F, P, D, const NARROW: bool, const LEVELS: bool> Operator<T> for WithPrefetch<F, P, D, NARROW, LEVELS>
where
    F: Fn(Prio, T, &mut Context<T>) + Sync,
    P: Fn(Prio, &T) + Sync,
    D: Fn(Prio, &T) + Sync,
{
    const NARROW_PRIORITIES: bool = NARROW;
    const LEVEL_PRIORITIES: bool = LEVELS;

    #[inline(always)]
    fn run(&self, prio: Prio, task: T, ctx: &mut Context<T>) {
        (self.op)(prio, task, ctx)
    }

    #[inline(always)]
    fn prefetch(&self, prio: Prio, task: &T) {
        (self.prefetch)(prio, task)
    }

    #[inline(always)]
    fn prefetch_dependent(&self, prio: Prio, task: &T) {
        (self.prefetch_dependent)(prio, task)
    }
}

/// An operator whose [`Context::push_next`] calls `auto`'s rounds honour
/// ([`Operator::CONTINUATIONS`]), made by [`with_continuations`].
pub struct WithContinuations<F> {
    op: F,
}

/// The operator `op`, declaring that it pushes continuations
/// ([`Operator::CONTINUATIONS`]).
pub fn with_continuations<T, F>(op: F) -> WithContinuations<F>
where
    F: Fn(Prio, T, &mut Context<T>) + Sync,
{
    WithContinuations { op }
}

impl<T, F> Operator<T> for WithContinuations<F>
where
    F: Fn(Prio, T, &mut Context<T>) + Sync,
{
    const CONTINUATIONS: bool = true;

    #[inline(always)]
    fn run(&self, prio: Prio, task: T, ctx: &mut Context<T>) {
        (self.op)(prio, task, ctx)
    }
}

/// Asks the CPU to bring `value`'s cache line closer (x86-64; nothing
/// elsewhere). For the prefetch hints of operators.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it reads no memory a program can
    // observe and cannot fault; `value` is a valid reference anyway, and SSE
    // (which provides the instruction) is part of the x86-64 baseline.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// An operator with its [`Operator::after_barrier`], made by
/// [`with_barrier_hook`].
pub struct WithBarrierHook<O, H> {
    op: O,
    hook: H,
}

/// The operator `op` (its hints and declarations unchanged) with `hook` as
/// its [`Operator::after_barrier`].
pub fn with_barrier_hook<T, O, H>(op: O, hook: H) -> WithBarrierHook<O, H>
where
    O: Operator<T>,
    H: Fn(&mut Context<T>) + Sync,
{
    WithBarrierHook { op, hook }
}

impl<T, O, H> Operator<T> for WithBarrierHook<O, H>
where
    O: Operator<T>,
    H: Fn(&mut Context<T>) + Sync,
{
    const NARROW_PRIORITIES: bool = O::NARROW_PRIORITIES;
    const LEVEL_PRIORITIES: bool = O::LEVEL_PRIORITIES;
    const CONTINUATIONS: bool = O::CONTINUATIONS;

    #[inline(always)]
    fn run(&self, prio: Prio, task: T, ctx: &mut Context<T>) {
        self.op.run(prio, task, ctx)
    }

    #[inline(always)]
    fn prefetch(&self, prio: Prio, task: &T) {
        self.op.prefetch(prio, task)
    }

    #[inline(always)]
    fn prefetch_dependent(&self, prio: Prio, task: &T) {
        self.op.prefetch_dependent(prio, task)
    }

    #[inline(always)]
    fn after_barrier(&self, ctx: &mut Context<T>) {
        (self.hook)(ctx)
    }
}
