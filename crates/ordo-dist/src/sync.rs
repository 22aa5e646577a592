//! The atomics of the work counters, switched to `loom`'s model-checked
//! versions under `cfg(loom)` (see `termination/README.md`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, Ordering};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, Ordering};
