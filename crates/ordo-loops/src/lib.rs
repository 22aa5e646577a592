//! ordo-loops: fine-grained parallel loops after Callisto-RTS (Harris and
//! Kaestle, "Callisto-RTS: Fine-Grain Parallel Loops", USENIX ATC 2015).
//!
//! - **Loops** (§2.1): [`parallel_for`] runs a closure per index;
//!   [`LoopBody`] is the fork / work / join form with per-thread state,
//!   created only in threads that execute part of the loop. Every loop ends
//!   with an implicit barrier. A [`Runtime`] is a fixed set of worker
//!   threads: the caller leads each loop and takes part in it; followers
//!   watch one location for new loops and for shutdown; per-socket active
//!   counts tell the leader when the loop is done (`completion/README.md`).
//! - **Distributors** (§3), chosen per loop or by configuration with a
//!   [`DistributorSpec`] (`ORDO_LOOP`, e.g. `async-combining:batch=4`): one
//!   shared counter; distributed counters striped per thread, core or socket;
//!   request combining per core or socket; asynchronous combining
//!   (`combining/README.md`); and a static partition as a baseline.
//! - **Nesting** (§2.2): [`outer_parallel_for`] with "inside out" levels, a
//!   thread tree built from the topology (`ORDO_TOPOLOGY` may fake sockets
//!   and cores), and a [`LevelMap`] (`ORDO_LOOP_LEVELS`, e.g. `thread,core`)
//!   saying over which threads each level runs.
//!
//! The free functions run on the runtime of the loop the calling thread is
//! part of, or else on a process-wide runtime built from the environment
//! ([`RuntimeBuilder::from_env`]) on first use.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//!
//! let total = AtomicU64::new(0);
//! ordo_loops::parallel_for(0..1000, |i| {
//!     total.fetch_add(i as u64, Ordering::Relaxed);
//! });
//! assert_eq!(total.into_inner(), 499_500);
//! ```

mod body;
mod combining;
mod completion;
mod distribute;
mod error;
mod levels;
mod runtime;
mod spec;
mod sync;
mod tree;
mod wait;

use std::ops::Range;
use std::sync::OnceLock;

pub use body::{Each, ForkWorkJoin, LoopBody};
pub use combining::CombiningCounts;
pub use error::LoopError;
pub use levels::{LevelMap, LEVELS_ENV};
pub use ordo_sched::topology::{Topology, TOPOLOGY_ENV};
pub use runtime::{available_cores, Runtime, RuntimeBuilder, MAX_THREADS, THREADS_ENV};
pub use spec::{DistributorKind, DistributorSpec, Granularity, Upstream, DEFAULT_BATCH, LOOP_ENV};

use runtime::Shared;

static GLOBAL: OnceLock<Runtime> = OnceLock::new();

/// The process-wide runtime of the free functions, built on first use from
/// the environment ([`RuntimeBuilder::from_env`]). A malformed variable is
/// reported on stderr and the defaults are used instead.
///
/// # Panics
/// If the operating system refuses to create the worker threads.
pub fn global() -> &'static Runtime {
    GLOBAL.get_or_init(|| {
        let built = RuntimeBuilder::from_env().and_then(RuntimeBuilder::build);
        built.unwrap_or_else(|e| {
            eprintln!("warning: ordo-loops: {e}; using the default configuration");
            RuntimeBuilder::new().build().unwrap_or_else(|e| panic!("ordo-loops: {e}"))
        })
    })
}

/// The runtime of the loop the calling thread is part of, else the global one.
fn with_runtime<R>(f: impl FnOnce(&Shared) -> R) -> R {
    Shared::with_current(|current| match current {
        Some(shared) => f(shared),
        None => f(global().shared()),
    })
}

/// Runs `body(i)` for every `i` in `range` in parallel (a level-0 loop with
/// the runtime's default distributor) and returns when all have run.
pub fn parallel_for(range: Range<usize>, body: impl Fn(usize) + Sync) {
    with_runtime(|rt| rt.enter(0, &rt.distributor().clone(), range, &Each(body)));
}

/// [`parallel_for`] with the distributor `spec`.
pub fn parallel_for_with(spec: &DistributorSpec, range: Range<usize>, body: impl Fn(usize) + Sync) {
    with_runtime(|rt| rt.enter(0, spec, range, &Each(body)));
}

/// A level-0 loop with per-thread state (see [`LoopBody`]).
pub fn parallel_for_body<B: LoopBody>(spec: &DistributorSpec, range: Range<usize>, body: &B) {
    with_runtime(|rt| rt.enter(0, spec, range, body));
}

/// A loop at nesting level `level` (see [`Runtime::outer_parallel_for`]).
pub fn outer_parallel_for<B: LoopBody>(level: usize, spec: &DistributorSpec, range: Range<usize>, body: &B) {
    with_runtime(|rt| rt.enter(level, spec, range, body));
}
