//! The atomics and locks of every lock-free protocol in this crate, switched
//! to `loom`'s model-checked versions under `cfg(loom)` so the protocols can
//! be verified exhaustively. Crate-private: it is a testing seam, not API.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
// `Arc` is needed only by the loom models.
#[cfg(loom)]
pub(crate) use loom::sync::Arc;
#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};
