//! The atomics and locks of the executor's protocols (termination detection,
//! scan permits, the rounds' barrier and piles), switched to `loom`'s
//! model-checked versions under `cfg(loom)` so the protocols can be verified
//! exhaustively (see `termination/README.md` and `sleep/README.md`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub(crate) use loom::{hint::spin_loop, thread::yield_now};

#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;
