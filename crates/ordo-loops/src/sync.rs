//! The atomics of the loop protocols (loop completion, the distributors and
//! request combining), switched to `loom`'s model-checked versions under
//! `cfg(loom)` so the protocols can be verified exhaustively (see
//! `completion/README.md` and `combining/README.md`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
