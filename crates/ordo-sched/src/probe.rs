//! The shared-access probe: how a single-threaded simulator (the `ordo-sim`
//! crate) observes which shared structures each scheduler operation touches,
//! to count communication between virtual threads.
//!
//! Every scheduler calls [`read`] or [`write()`] with the address of a shared
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
//! A probe is one compare of a global counter of recording threads with
//! zero and a branch that is never taken (`cmp $0, mem; jne`, one fused
//! micro-op): the counter is only written when a recording starts or ends,
//! so its cache line stays shared, and the recording path is out of line
//! (`#[cold]`). Nothing records unless a thread calls [`Recording::start`];
//! then only that thread's probes record (a thread-local flag, checked on
//! the cold path), so parallel runs in other threads of the same process —
//! other tests — are slowed by the cold path but record nothing. Loops that
//! probe every step read [`recording`] once before the loop. Under
//! `cfg(loom)` the probes compile to nothing.
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
#[cfg(not(loom))]
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Threads recording now (the fast-path test of every probe).
#[cfg(not(loom))]
static RECORDERS: AtomicUsize = AtomicUsize::new(0);

#[cfg(not(loom))]
thread_local! {
    /// Whether this thread records its probes.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    /// This thread's recorded accesses, in order.
    static LOG: RefCell<Vec<Access>> = const { RefCell::new(Vec::new()) };
}

/// Whether this thread records its probes now: one load and compare when
/// no thread records. A loop that probes at every step reads it once.
#[cfg(not(loom))]
#[inline(always)]
pub fn recording() -> bool {
    RECORDERS.load(Ordering::Relaxed) != 0 && RECORDING.with(Cell::get)
}

/// Under loom nothing records.
#[cfg(loom)]
#[inline(always)]
pub fn recording() -> bool {
    false
}

/// The inline part of a probe: the global test only, so that a probe adds as
/// little code as possible to the scheduler's hot path.
#[inline(always)]
fn probe(addr: *const (), kind: AccessKind) {
    #[cfg(not(loom))]
    if RECORDERS.load(Ordering::Relaxed) != 0 {
        record(addr as usize, kind);
    }
    #[cfg(loom)]
    let _ = (addr, kind);
}

/// Records a read of the shared structure `s` (when this thread records).
#[inline(always)]
pub fn read<T: ?Sized>(s: &T) {
    probe((s as *const T).cast::<()>(), AccessKind::Read);
}

/// Records a write of the shared structure `s` (when this thread records).
#[inline(always)]
pub fn write<T: ?Sized>(s: &T) {
    probe((s as *const T).cast::<()>(), AccessKind::Write);
}

/// Records that the shared structure `s` is gone for good (when this thread
/// records): a later structure at its address is a different one.
#[inline(always)]
pub fn retire<T: ?Sized>(s: &T) {
    probe((s as *const T).cast::<()>(), AccessKind::Retire);
}

/// The out-of-line part: some thread records; is it this one?
#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn record(addr: usize, kind: AccessKind) {
    if RECORDING.with(Cell::get) {
        LOG.with(|log| log.borrow_mut().push(Access { addr, kind }));
    }
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
            RECORDERS.fetch_add(1, Ordering::Relaxed);
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
            RECORDERS.fetch_sub(1, Ordering::Relaxed);
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
