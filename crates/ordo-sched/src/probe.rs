//! The shared-access probe: how a single-threaded simulator (the `ordo-sim`
//! crate) observes which shared structures each scheduler operation touches,
//! to count communication between virtual threads.
//!
//! Every scheduler calls [`read`] or [`write`] with the address of a shared
//! structure (a locked queue, a bag's socket queue, a stealing buffer, a
//! back-scan bound, a skip-list node's tower, ...) where it accesses it. A
//! lock acquisition, a compare-and-swap and a store are writes; a load is a
//! read. The structure is named by its address only; what counts as one
//! structure is the scheduler's choice at its probe points (usually one
//! cache-padded object). A structure that is unlinked for good while the
//! scheduler lives (a removed skip-list node) is [`retire`]d, so that a later
//! structure at the same address counts as a new one and what is recorded
//! does not depend on where the allocator places things.
//!
//! # Cost when nothing records
//! A probe is a load of a thread-local flag and a branch that is never
//! taken: the flag is a `const`-initialised `Cell<bool>` without a
//! destructor, so the access is one `%fs`-relative load, and the recording
//! path is out of line (`#[cold]`). Nothing records unless a thread calls
//! [`Recording::start`]; only that thread's probes record, so real parallel
//! runs in other threads (or in other tests of the same process) are
//! unaffected. Under `cfg(loom)` the probes compile to nothing.
//!
//! # Recording
//! ```
//! use ordo_sched::probe::{Access, AccessKind, Recording};
//!
//! let recording = Recording::start().expect("not already recording");
//! let queue = 7u64;
//! ordo_sched::probe::write(&queue);
//! let mut seen = Vec::new();
//! recording.drain_into(&mut seen);
//! let addr = &queue as *const u64 as usize;
//! assert_eq!(seen, vec![Access { addr, kind: AccessKind::Write }]);
//! ```

#[cfg(not(loom))]
use std::cell::{Cell, RefCell};

/// One probed access: the structure's address and what was done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The address naming the shared structure.
    pub addr: usize,
    /// What the operation did to it.
    pub kind: AccessKind,
}

/// What an operation did to a shared structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A load.
    Read,
    /// A store, a read-modify-write or a lock acquisition.
    Write,
    /// The structure is gone for good (its address may be reused).
    Retire,
}

#[cfg(not(loom))]
thread_local! {
    /// Whether this thread records its probes.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// This thread's recorded accesses, in order.
    static LOG: RefCell<Vec<Access>> = const { RefCell::new(Vec::new()) };
}

/// Records a read of the shared structure `s` (when this thread records).
#[inline(always)]
pub fn read<T: ?Sized>(s: &T) {
    #[cfg(not(loom))]
    if RECORDING.with(Cell::get) {
        record((s as *const T).cast::<()>() as usize, AccessKind::Read);
    }
    #[cfg(loom)]
    let _ = s;
}

/// Records a write of the shared structure `s` (when this thread records).
#[inline(always)]
pub fn write<T: ?Sized>(s: &T) {
    #[cfg(not(loom))]
    if RECORDING.with(Cell::get) {
        record((s as *const T).cast::<()>() as usize, AccessKind::Write);
    }
    #[cfg(loom)]
    let _ = s;
}

/// Records that the shared structure `s` is gone for good (when this thread
/// records): a later structure at its address is a different one.
#[inline(always)]
pub fn retire<T: ?Sized>(s: &T) {
    #[cfg(not(loom))]
    if RECORDING.with(Cell::get) {
        record((s as *const T).cast::<()>() as usize, AccessKind::Retire);
    }
    #[cfg(loom)]
    let _ = s;
}

#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn record(addr: usize, kind: AccessKind) {
    LOG.with(|log| log.borrow_mut().push(Access { addr, kind }));
}

/// Probe recording on the current thread, from [`Recording::start`] until
/// the value is dropped.
#[derive(Debug)]
pub struct Recording {
    /// Recording is per thread: the value must stay on the thread that started it.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Recording {
    /// Starts recording this thread's probes; `None` if this thread already
    /// records (recordings do not nest). Under `cfg(loom)` nothing is ever
    /// recorded.
    pub fn start() -> Option<Recording> {
        #[cfg(not(loom))]
        {
            if RECORDING.with(|r| r.replace(true)) {
                return None;
            }
            LOG.with(|log| log.borrow_mut().clear());
        }
        Some(Recording { _not_send: std::marker::PhantomData })
    }

    /// Appends the accesses recorded since the last call (in order) to `out`
    /// and forgets them.
    pub fn drain_into(&self, out: &mut Vec<Access>) {
        #[cfg(not(loom))]
        LOG.with(|log| out.append(&mut log.borrow_mut()));
        #[cfg(loom)]
        let _ = out;
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        #[cfg(not(loom))]
        {
            RECORDING.with(|r| r.set(false));
            LOG.with(|log| log.borrow_mut().clear());
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn records_only_while_started_and_only_on_this_thread() {
        let (a, b) = (1u8, [2u32; 4]);
        read(&a); // not recording: dropped
        let rec = Recording::start().unwrap();
        assert!(Recording::start().is_none(), "recordings do not nest");
        read(&a);
        write(&b[..]);
        retire(&b);
        std::thread::scope(|s| {
            s.spawn(|| write(&a)); // another thread: never recorded
        });
        let mut out = Vec::new();
        rec.drain_into(&mut out);
        let (a_addr, b_addr) = (&a as *const u8 as usize, b.as_ptr() as usize);
        assert_eq!(
            out,
            vec![
                Access { addr: a_addr, kind: AccessKind::Read },
                Access { addr: b_addr, kind: AccessKind::Write },
                Access { addr: b_addr, kind: AccessKind::Retire },
            ]
        );
        rec.drain_into(&mut out);
        assert_eq!(out.len(), 3, "drained accesses are forgotten");
        drop(rec);
        write(&a);
        let rec = Recording::start().unwrap();
        rec.drain_into(&mut out);
        assert_eq!(out.len(), 3, "a new recording starts empty");
    }
}
