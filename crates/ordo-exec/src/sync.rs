//! The atomics of the termination protocol, switched to `loom`'s
//! model-checked versions under `cfg(loom)` so the protocol can be verified
//! exhaustively (see `termination/README.md`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
