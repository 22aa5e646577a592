//! Ctrl-C for long commands: the first press asks the work to stop cleanly
//! (a run is cancelled through its monitor, `ordo bench` stops after the
//! current run and writes its summary), the second quits at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::console;

/// Ctrl-C presses seen.
static PRESSES: AtomicUsize = AtomicUsize::new(0);

/// What the first press does (set once per process).
static ON_FIRST: OnceLock<Mutex<Box<dyn Fn() + Send>>> = OnceLock::new();

/// Whether Ctrl-C was pressed.
pub(crate) fn interrupted() -> bool {
    PRESSES.load(Ordering::SeqCst) > 0
}

/// Installs the handler: the first press calls `on_first` and says what
/// happens; the second exits with status 130. A process installs it once;
/// if the handler cannot be installed, a warning says so.
pub(crate) fn on_first_interrupt(on_first: impl Fn() + Send + 'static) {
    if ON_FIRST.set(Mutex::new(Box::new(on_first))).is_err() {
        return;
    }
    let result = ctrlc::set_handler(|| {
        if PRESSES.fetch_add(1, Ordering::SeqCst) == 0 {
            console::note!("\nCtrl-C: stopping cleanly (press again to quit at once)");
            if let Some(f) = ON_FIRST.get() {
                (f.lock().unwrap_or_else(|e| e.into_inner()))();
            }
        } else {
            console::note!("\nCtrl-C again: quitting");
            std::process::exit(130);
        }
    });
    if let Err(e) = result {
        console::note!("warning: cannot catch Ctrl-C ({e}); an interrupt stops without cleaning up");
    }
}
