//! Runs that release the GIL and stop on Ctrl-C.
//!
//! CPython runs signal handlers only in the main thread, between bytecodes:
//! a long call into Rust would delay Ctrl-C until it returns. So the work
//! runs on a helper thread while the calling thread waits with the GIL
//! released, waking every [`POLL`] to run the pending signal handlers
//! (`PyErr_CheckSignals`, with the GIL). When a handler raises (Ctrl-C's
//! `KeyboardInterrupt`), the caller cancels the run's
//! [`RunMonitor`](ordo_exec::RunMonitor): the executor's workers see it
//! within a few tasks and stop (`ExecOptions::monitor`); the caller waits
//! for that, then raises the exception. Other Python threads run meanwhile,
//! since nothing holds the GIL.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use std::sync::Arc;

use ordo_exec::RunMonitor;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::{no_panic, panic_error};

/// How often the waiting caller checks for signals: the latency of Ctrl-C.
const POLL: Duration = Duration::from_millis(20);

/// What the work of [`interruptible`] did.
pub(crate) enum Outcome<R> {
    /// It ran to the end.
    Done(R),
    /// It saw its monitor cancelled and stopped early.
    Cancelled,
}

/// The note added to the exception of an interrupted run that stopped early.
pub(crate) const CANCELLED_NOTE: &str = "ordo: the run was cancelled and stopped early";

/// Runs `work` with the GIL released, interruptible by Ctrl-C through
/// `monitor`, which `work` gives its runs (see the module docs). A panic in `work` becomes a
/// `RuntimeError`. When a signal handler raised and the work stopped early
/// on the token, the exception gets the note [`CANCELLED_NOTE`] (Python
/// 3.11+).
pub(crate) fn interruptible<R, F>(py: Python<'_>, monitor: &Arc<RunMonitor>, work: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce() -> PyResult<Outcome<R>> + Send,
{
    let done = AtomicBool::new(false);
    let caller = std::thread::current();
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new()
            .name("ordo-run".into())
            .spawn_scoped(s, || {
                let out = no_panic(work);
                done.store(true, Ordering::Release);
                caller.unpark();
                out
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread for the run: {e}")))?;
        let mut interrupted = None;
        while !done.load(Ordering::Acquire) {
            py.detach(|| std::thread::park_timeout(POLL));
            if interrupted.is_none() {
                if let Err(e) = py.check_signals() {
                    monitor.cancel();
                    interrupted = Some(e);
                }
            }
        }
        let out = helper.join().unwrap_or_else(|payload| Err(panic_error(payload.as_ref())));
        match (interrupted, out) {
            (Some(e), Ok(Outcome::Cancelled)) => {
                let value = e.value(py);
                if value.hasattr("add_note")? {
                    value.call_method1("add_note", (CANCELLED_NOTE,))?;
                }
                Err(e)
            }
            (Some(e), _) => Err(e),
            (None, Ok(Outcome::Done(r))) => Ok(r),
            (None, Ok(Outcome::Cancelled)) => {
                Err(PyRuntimeError::new_err("ordo internal error: a run stopped without being cancelled"))
            }
            (None, Err(e)) => Err(e),
        }
    })
}
