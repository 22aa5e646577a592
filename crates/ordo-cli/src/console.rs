//! Writing to standard output and standard error without panicking.
//!
//! `println!` panics when standard output is a pipe whose reader has gone,
//! as in `ordo sim ... --json | head -1`, and prints a backtrace. Every
//! line the CLI prints to standard output goes through [`out!`] and
//! [`outln!`] instead, which return the write's error; `main` ends quietly
//! with success when that error is a closed pipe (as ripgrep does: the
//! reader asked for no more). Diagnostics on standard error ([`note!`]) are
//! best effort: a closed standard error drops them rather than stopping a
//! run that can still write its results.

use std::fmt;
use std::io::{self, Write};

/// A failed write to standard output.
#[derive(Debug)]
pub(crate) struct StdoutError(io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

/// Writes `args` to standard output (the [`out!`] and [`outln!`] macros).
pub(crate) fn write_stdout(args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    io::stdout().lock().write_fmt(args).map_err(StdoutError)
}

/// Writes `args` to standard error, ignoring a failure (the [`note!`] macro).
pub(crate) fn write_stderr(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Whether `e` comes from standard output's reader having gone: the output
/// was not wanted any more, so the command ends quietly.
pub(crate) fn stdout_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.downcast_ref::<StdoutError>().is_some_and(|s| s.0.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `print!` that returns [`StdoutError`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::console::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` that returns [`StdoutError`] instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::console::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that drops the line if standard error cannot take it.
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::console::write_stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {note, out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_closed_standard_output_ends_quietly() {
        let closed = anyhow::Error::new(StdoutError(io::Error::from(io::ErrorKind::BrokenPipe)));
        assert!(stdout_closed(&closed));
        assert!(stdout_closed(&closed.context("printing the report")), "found behind context");
        let full = anyhow::Error::new(StdoutError(io::Error::from(io::ErrorKind::StorageFull)));
        assert!(!stdout_closed(&full), "a full disk is an error");
        let other_pipe = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!stdout_closed(&other_pipe), "a broken pipe elsewhere (a child, MPI) is an error");
    }
}
