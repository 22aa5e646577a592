//! Standard output that cannot take the output: a reader that has gone
//! (`ordo ... | head`) ends the command quietly with success; a full device
//! is an error of one line. Neither panics.

use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Output, Stdio};

fn ordo() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin!("ordo"))
}

/// Runs `ordo ARGS` with standard output a socket whose other end is closed
/// before the process starts, so its first write fails with a broken pipe
/// (as a pipe's would; `std::io::pipe` is newer than the supported Rust).
fn with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = UnixStream::pair().unwrap();
    drop(reader);
    ordo().args(args).stdout(Stdio::from(OwnedFd::from(writer))).stderr(Stdio::piped()).output().unwrap()
}

const COMMANDS: &[&[&str]] = &[
    &["run", "sssp", "--gen", "grid:w=20,h=20", "--threads", "2"],
    &["run", "bfs", "--gen", "grid:w=20,h=20", "--json"],
    &["info", "--gen", "road:n=500,seed=1"],
    &["info", "--gen", "road:n=500,seed=1", "--json"],
    &["sim", "sssp", "--gen", "grid:w=20,h=20", "--vthreads", "1,4", "--sched", "auto"],
    &["sim", "sssp", "--gen", "grid:w=20,h=20", "--vthreads", "1,4", "--json"],
];

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    for args in COMMANDS {
        let out = with_closed_stdout(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "ordo {args:?}: {:?}, stderr {stderr}", out.status);
        assert!(stderr.is_empty(), "ordo {args:?} wrote to stderr: {stderr}");
    }
}

#[test]
fn a_full_device_is_one_error_line() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not Linux: no device that is always full
    };
    let out = ordo().args(["info", "--gen", "road:n=500,seed=1"]).stdout(full).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success());
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr:?}");
    assert!(stderr.starts_with("error: cannot write to standard output: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
