//! Loop bodies: the `fork` / `work` / `join` form of Callisto-RTS §2.1 and
//! the plain form of a closure per iteration.

use std::ops::Range;

/// The body of a parallel loop with per-thread state (Callisto-RTS §2.1).
///
/// Each thread that executes part of the loop calls [`LoopBody::fork`] once,
/// before its first iteration, runs its iterations with
/// [`LoopBody::work`] on that state, and calls [`LoopBody::join`] with it
/// after its last one; a thread that gets no iteration creates no state.
/// The loop returns after every `join` (an implicit barrier). The body is
/// shared by all threads, so state they share must be synchronised (atomics,
/// locks), while the per-thread state needs none.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use ordo_loops::{LoopBody, Runtime};
///
/// /// Sums the indices: a private sum per thread, one atomic add per thread.
/// struct Sum { total: AtomicU64 }
/// impl LoopBody for Sum {
///     type State = u64;
///     fn fork(&self) -> u64 { 0 }
///     fn work(&self, sum: &mut u64, i: usize) { *sum += i as u64 }
///     fn join(&self, sum: u64) { self.total.fetch_add(sum, Ordering::Relaxed); }
/// }
///
/// let rt = Runtime::builder().threads(2).build().unwrap();
/// let body = Sum { total: AtomicU64::new(0) };
/// rt.parallel_for_body(rt.distributor(), 0..11, &body);
/// assert_eq!(body.total.into_inner(), 55);
/// ```
pub trait LoopBody: Sync {
    /// Per-thread state.
    type State;

    /// Creates a participating thread's state.
    fn fork(&self) -> Self::State;

    /// Runs iteration `index`.
    fn work(&self, state: &mut Self::State, index: usize);

    /// Runs the iterations of one batch, in increasing order. Override it
    /// when a batch can be processed faster as a whole.
    #[inline]
    fn work_range(&self, state: &mut Self::State, range: Range<usize>) {
        for index in range {
            self.work(state, index);
        }
    }

    /// Consumes a participating thread's state after its last iteration.
    fn join(&self, state: Self::State);
}

/// A [`LoopBody`] made of three closures: `fork() -> S`,
/// `work(&mut S, index)`, `join(S)`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use ordo_loops::{ForkWorkJoin, Runtime};
///
/// let rt = Runtime::builder().threads(2).build().unwrap();
/// let total = AtomicU64::new(0);
/// let body = ForkWorkJoin::new(
///     || 0u64,
///     |sum: &mut u64, i| *sum += i as u64,
///     |sum| {
///         total.fetch_add(sum, Ordering::Relaxed);
///     },
/// );
/// rt.parallel_for_body(rt.distributor(), 0..1000, &body);
/// assert_eq!(total.into_inner(), 499_500);
/// ```
pub struct ForkWorkJoin<F, W, J> {
    fork: F,
    work: W,
    join: J,
}

impl<F, W, J> ForkWorkJoin<F, W, J> {
    /// The body with these three parts.
    pub fn new<S>(fork: F, work: W, join: J) -> Self
    where
        F: Fn() -> S + Sync,
        W: Fn(&mut S, usize) + Sync,
        J: Fn(S) + Sync,
    {
        ForkWorkJoin { fork, work, join }
    }
}

impl<S, F, W, J> LoopBody for ForkWorkJoin<F, W, J>
where
    F: Fn() -> S + Sync,
    W: Fn(&mut S, usize) + Sync,
    J: Fn(S) + Sync,
{
    type State = S;

    #[inline]
    fn fork(&self) -> S {
        (self.fork)()
    }

    #[inline]
    fn work(&self, state: &mut S, index: usize) {
        (self.work)(state, index)
    }

    #[inline]
    fn join(&self, state: S) {
        (self.join)(state)
    }
}

/// A [`LoopBody`] without per-thread state: a closure of the index.
pub struct Each<W>(pub W);

impl<W: Fn(usize) + Sync> LoopBody for Each<W> {
    type State = ();

    #[inline]
    fn fork(&self) {}

    #[inline]
    fn work(&self, _state: &mut (), index: usize) {
        (self.0)(index)
    }

    #[inline]
    fn join(&self, _state: ()) {}
}
