//! Worker pools for runs, kept between calls so that a run does not pay for
//! starting threads, and the thread count of a call.
//!
//! A call takes an idle pool of the thread count it needs (or starts one)
//! and gives it back when done, so calls from several Python threads at once
//! each get their own pool and run in parallel (one pool runs one
//! `for_each` at a time). At most [`KEEP_IDLE`] idle pools are kept.
//! After `os.fork()` the child has none of the parent's worker threads: the
//! inherited idle pools are forgotten (leaked, never joined).

use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use ordo_exec::Pool;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::value_error;

/// Idle pools kept at most.
const KEEP_IDLE: usize = 4;

/// The idle pools of the process `pid`.
struct Idle {
    pid: u32,
    pools: Vec<Pool>,
}

static IDLE: Mutex<Idle> = Mutex::new(Idle { pid: 0, pools: Vec::new() });

/// A pool lent to one call; back to the idle list when dropped.
pub(crate) struct LentPool(Option<Pool>);

impl Deref for LentPool {
    type Target = Pool;

    fn deref(&self) -> &Pool {
        self.0.as_ref().expect("a lent pool is present until dropped")
    }
}

impl Drop for LentPool {
    fn drop(&mut self) {
        let Some(pool) = self.0.take() else { return };
        let mut idle = idle_here();
        if idle.pools.len() < KEEP_IDLE {
            idle.pools.push(pool);
        }
        // Otherwise `pool` is dropped here: its workers stop and are joined.
    }
}

/// The idle list, emptied first if it was inherited through a fork.
fn idle_here() -> std::sync::MutexGuard<'static, Idle> {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = std::process::id();
    if idle.pid != pid {
        // Pools of the parent process: their threads do not exist here, and
        // joining them would wait forever.
        std::mem::forget(std::mem::take(&mut idle.pools));
        idle.pid = pid;
    }
    idle
}

/// A pool of `threads` workers for one call.
pub(crate) fn lend(threads: usize) -> PyResult<LentPool> {
    let taken = {
        let mut idle = idle_here();
        idle.pools.iter().position(|p| p.threads() == threads).map(|i| idle.pools.swap_remove(i))
    };
    match taken {
        Some(pool) => Ok(LentPool(Some(pool))),
        None => Pool::new(threads)
            .map(|p| LentPool(Some(p)))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the worker threads: {e}"))),
    }
}

/// The thread count of a call: `threads`, else the `ORDO_THREADS`
/// environment variable, else all cores (as the `ordo` command).
pub(crate) fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    if let Some(t) = threads {
        if t == 0 {
            return Err(value_error("threads must be at least 1"));
        }
        return at_most_max(t, "threads");
    }
    if let Ok(v) = std::env::var("ORDO_THREADS") {
        return match v.trim().parse::<usize>() {
            Ok(t) if t > 0 => at_most_max(t, "ORDO_THREADS"),
            _ => Err(value_error(format!("ORDO_THREADS={v}: expected a positive integer"))),
        };
    }
    Ok(ordo_exec::available_cores())
}

/// `t` if at most [`ordo_exec::MAX_THREADS`] (beyond it, starting threads
/// can abort the process), else a `ValueError` naming `what`.
fn at_most_max(t: usize, what: &str) -> PyResult<usize> {
    if t > ordo_exec::MAX_THREADS {
        return Err(value_error(format!("{what}={t}: at most {}", ordo_exec::MAX_THREADS)));
    }
    Ok(t)
}
