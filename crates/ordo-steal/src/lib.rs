//! ordo-steal: the adaptive work-stealing runtime of XWS, the X10 Work
//! Stealing framework (Cong, Kodali, Krishnamoorthy, Lea, Saraswat, Wen:
//! "Solving large, irregular graph problems using adaptive work-stealing",
//! ICPP 2008).
//!
//! ```text
//! Pool::new(threads)          persistent workers (XWS `new Pool(N)`)
//! pool.submit(Job::new(..))   runs a job to completion (XWS `pool.submit(job)`)
//! Frame::compute(self, w)     one activity; pushes more through its Worker
//! w.push(f) / w.push_next(f)  this phase (`pushFrame`) / next phase (`pushFrameNext`)
//! w.now_len(), w.phase()      what adaptive batching senses (BatchPolicy, PhaseEstimate)
//! ```
//!
//! - **Work stealing.** Each worker has a now-deque (crossbeam's Chase–Lev
//!   deque: the owner pushes and pops LIFO without locks, thieves take the
//!   oldest frame) and a private next-deque. Idle workers steal from random
//!   victims, taking the victim's steal lock as XWS's thieves do; idle
//!   workers spin, yield, then park, so oversubscribed pools stay fast.
//! - **Global quiescence** (§2.2): no join structure and no frame counting;
//!   a count of workers that may hold frames (`checkCount`) and a barrier.
//!   Frames may spawn frames arbitrarily ("improperly nested").
//! - **Phases** (§2.3): frames pushed with [`Worker::push_next`] run after
//!   the current phase quiesces; a worker with nothing for the next phase may
//!   jump phases; the job ends when no worker has next-phase work.
//! - **Adaptive batching** (§3.3): [`BatchPolicy`] (`min(2^Q, S)`) and
//!   [`PhaseEstimate`] (the predictive rule for phased searches).
//!
//! The protocol and its correctness argument: `src/quiescence/README.md`.
//!
//! # Example
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use ordo_steal::{Frame, Job, Pool, Worker};
//!
//! /// Counts the nodes of a binary tree of the given depth, one level per phase.
//! struct Node<'a> { depth: u32, count: &'a AtomicU64 }
//!
//! impl Frame for Node<'_> {
//!     type Local = ();
//!     fn compute(self, w: &mut Worker<'_, Self>) {
//!         self.count.fetch_add(1, Ordering::Relaxed);
//!         if self.depth > 0 {
//!             for _ in 0..2 {
//!                 w.push_next(Node { depth: self.depth - 1, count: self.count });
//!             }
//!         }
//!     }
//! }
//!
//! let pool = Pool::new(2).unwrap();
//! let count = AtomicU64::new(0);
//! let report = pool.submit(Job::new([Node { depth: 10, count: &count }]));
//! assert_eq!(count.load(Ordering::Relaxed), (1 << 11) - 1);
//! assert_eq!(report.phases, 11);
//! ```

mod batch;
mod job;
mod pool;
mod quiescence;
mod sleep;
mod sync;
mod worker;

pub use batch::{BatchPolicy, BatchPolicyError, PhaseEstimate, DEFAULT_MAX_BATCH, DEFAULT_PHASE_FRACTION};
pub use job::{Job, JobReport};
pub use pool::{available_cores, Pool, PoolBuilder, PoolError};
pub use worker::{Frame, Worker, WorkerStats};
