//! The synchronisation primitives of the quiescence and phase protocol,
//! switched to `loom`'s model-checked versions under `cfg(loom)` so the
//! protocol can be verified exhaustively (see `quiescence/README.md`).
//!
//! The work-stealing deque is here too: crossbeam's Chase–Lev deque in
//! normal builds, and under loom a mutex-protected `VecDeque` with the same
//! interface. Loom cannot see crossbeam's internal atomics, so the models
//! check the protocol *given* a linearizable deque (which crossbeam's is);
//! the deque itself is crossbeam's responsibility and tested there.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};

/// Locks `m`, ignoring poisoning (no code panics while holding these locks,
/// and a panicking frame ends the whole job anyway).
#[inline]
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Tries to lock `m` without waiting; `None` when another thread holds it.
#[inline]
pub(crate) fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    #[cfg(not(loom))]
    {
        match m.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }
    #[cfg(loom)]
    {
        m.try_lock().ok()
    }
}

/// One worker's deque of frames: the owner pushes and pops at the bottom
/// (LIFO), thieves take from the top (the oldest frame), as in Cilk and XWS.
pub(crate) mod deque {
    /// What a steal attempt got.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) enum Stolen<T> {
        /// The oldest frame of the victim.
        Frame(T),
        /// The victim's deque was empty.
        Empty,
        /// Lost a race (with the owner's pop of the last frame); the deque
        /// may still hold work.
        Retry,
    }

    #[cfg(not(loom))]
    mod imp {
        use super::Stolen;
        use crossbeam_deque::{Steal, Stealer, Worker};

        /// The owner's end.
        pub(crate) struct Owner<T>(Worker<T>);
        /// The thieves' end (shared).
        pub(crate) struct Thief<T>(Stealer<T>);

        /// A new empty deque.
        pub(crate) fn new<T>() -> (Owner<T>, Thief<T>) {
            let w = Worker::new_lifo();
            let s = w.stealer();
            (Owner(w), Thief(s))
        }

        impl<T> Owner<T> {
            #[inline]
            pub(crate) fn push(&self, t: T) {
                self.0.push(t)
            }
            #[inline]
            pub(crate) fn pop(&self) -> Option<T> {
                self.0.pop()
            }
            #[inline]
            pub(crate) fn len(&self) -> usize {
                self.0.len()
            }
        }

        impl<T> Thief<T> {
            #[inline]
            pub(crate) fn steal(&self) -> Stolen<T> {
                match self.0.steal() {
                    Steal::Success(t) => Stolen::Frame(t),
                    Steal::Empty => Stolen::Empty,
                    Steal::Retry => Stolen::Retry,
                }
            }
            #[inline]
            pub(crate) fn is_empty(&self) -> bool {
                self.0.is_empty()
            }
        }
    }

    #[cfg(loom)]
    mod imp {
        use super::Stolen;
        use loom::sync::{Arc, Mutex};
        use std::collections::VecDeque;

        pub(crate) struct Owner<T>(Arc<Mutex<VecDeque<T>>>);
        pub(crate) struct Thief<T>(Arc<Mutex<VecDeque<T>>>);

        pub(crate) fn new<T>() -> (Owner<T>, Thief<T>) {
            let q = Arc::new(Mutex::new(VecDeque::new()));
            (Owner(q.clone()), Thief(q))
        }

        impl<T> Owner<T> {
            pub(crate) fn push(&self, t: T) {
                self.0.lock().unwrap().push_back(t)
            }
            pub(crate) fn pop(&self) -> Option<T> {
                self.0.lock().unwrap().pop_back()
            }
            pub(crate) fn len(&self) -> usize {
                self.0.lock().unwrap().len()
            }
        }

        impl<T> Thief<T> {
            pub(crate) fn steal(&self) -> Stolen<T> {
                match self.0.lock().unwrap().pop_front() {
                    Some(t) => Stolen::Frame(t),
                    None => Stolen::Empty,
                }
            }
            pub(crate) fn is_empty(&self) -> bool {
                self.0.lock().unwrap().is_empty()
            }
        }
    }

    pub(crate) use imp::{new, Owner, Thief};
}
