//! The atomics and locks of the executor's protocols (termination detection,
//! scan permits), switched to `loom`'s model-checked versions under
//! `cfg(loom)` so the protocols can be verified exhaustively (see
//! `termination/README.md` and `sleep/README.md`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex};
