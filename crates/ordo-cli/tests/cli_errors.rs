//! I/O errors reach the user as one line with the right cause, said once:
//! a missing file, a directory, an unreadable file, a file cut short in the
//! middle of a line (text, binary and gzip), and an output directory that
//! does not exist.

use std::path::Path;

use assert_cmd::Command;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo ARGS` expecting failure; returns stderr, checked to be one
/// `error: ` line.
fn error_line(args: &[&str]) -> String {
    let out = ordo().args(args).output().unwrap();
    assert!(!out.status.success(), "ordo {args:?} should fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr:?}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr.trim_end().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_missing_file_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.gr");
    let want = format!("error: {}: No such file or directory (os error 2)", missing.display());
    assert_eq!(error_line(&["info", s(&missing)]), want);
    assert_eq!(error_line(&["run", "sssp", "--graph", s(&missing)]), want);
    assert_eq!(error_line(&["convert", s(&missing), s(&dir.path().join("out.ordo"))]), want);
    let e = error_line(&["info", s(&dir.path().join("g.gr")), "--coords", s(&missing)]);
    assert_eq!(e.matches("No such file").count(), 1, "{e}");
}

#[test]
fn a_directory_is_not_a_graph_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = s(dir.path());
    let want = format!("error: {d}: is a directory, expected a graph file");
    assert_eq!(error_line(&["info", d]), want);
    assert_eq!(error_line(&["run", "bfs", "--graph", d]), want);
    assert_eq!(error_line(&["convert", d, s(&dir.path().join("out.gr"))]), want);
    assert_eq!(error_line(&["info", d, "--format", "ordo"]), want, "the binary loader says the same");
    // A directory as the output of gen.
    let e = error_line(&["gen", "grid:w=2,h=2", "-o", d, "--format", "ordo"]);
    assert!(e.ends_with(&format!("{d}: is a directory, expected a file name to write")), "{e}");
}

#[test]
fn an_unreadable_file_says_permission_denied_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let file = dir.path().join("secret.gr");
    std::fs::write(&file, "p sp 2 1\na 1 2 3\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    let want = format!("error: {}: Permission denied (os error 13)", file.display());
    if std::fs::File::open(&file).is_err() {
        assert_eq!(error_line(&["info", s(&file)]), want);
        return;
    }
    // Root (CAP_DAC_OVERRIDE) ignores file modes: run ordo as `nobody`
    // instead, if `setpriv` can drop the privileges.
    let ordo = assert_cmd::cargo::cargo_bin("ordo");
    let drop_privileges = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let out = std::process::Command::new("setpriv")
        .args(drop_privileges)
        .arg(&ordo)
        .args(["info", s(&file)])
        .output();
    match out {
        Ok(out) if String::from_utf8_lossy(&out.stderr).starts_with("error: ") => {
            assert!(!out.status.success());
            assert_eq!(String::from_utf8(out.stderr).unwrap().trim_end(), want);
        }
        _ => eprintln!(
            "skipped an_unreadable_file_says_permission_denied_once: running as root, which reads \
             mode-000 files, and setpriv cannot run ordo as nobody"
        ),
    }
}

#[test]
fn a_file_cut_short_names_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let gr = dir.path().join("cut.gr");
    std::fs::write(&gr, "p sp 3 2\na 1 2 5\na 2 3").unwrap();
    assert_eq!(error_line(&["info", s(&gr)]), format!("error: {}:3: missing weight", gr.display()));
    let el = dir.path().join("cut.el");
    std::fs::write(&el, "1 2\n2 3\n3").unwrap();
    let e = error_line(&["info", s(&el)]);
    assert!(e.starts_with(&format!("error: {}:3: ", el.display())), "{e}");

    // A binary file cut in the middle of an array.
    let full = dir.path().join("g.ordo");
    ordo().args(["gen", "grid:w=10,h=10", "-o", s(&full)]).assert().success();
    let bytes = std::fs::read(&full).unwrap();
    let cut = dir.path().join("cut.ordo");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = error_line(&["info", s(&cut)]);
    assert!(e.contains(&format!("{}: byte {}: file truncated", cut.display(), bytes.len() / 2)), "{e}");

    // A gzip stream cut short.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, b"p sp 3 2\na 1 2 5\na 2 3 1\n").unwrap();
    let gz = gz.finish().unwrap();
    let cut = dir.path().join("cut.gr.gz");
    std::fs::write(&cut, &gz[..gz.len() - 6]).unwrap();
    let e = error_line(&["info", s(&cut)]);
    assert!(e.contains("corrupt or truncated gzip data"), "{e}");
}

#[test]
fn a_missing_output_directory_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no").join("such").join("g.ordo");
    let e = error_line(&["gen", "grid:w=2,h=2", "-o", s(&out)]);
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
    assert!(e.contains(s(&out)), "{e}");
}

#[test]
fn thread_and_rank_counts_out_of_range_are_one_line_before_any_work() {
    let g = ["--gen", "road:n=1000,seed=1"];
    let run = |threads: &str| {
        let mut a = vec!["--threads", threads, "run", "sssp"];
        a.extend(g);
        error_line(&a)
    };
    assert_eq!(run("0"), "error: --threads must be at least 1");
    assert_eq!(run("4097"), "error: --threads 4097: at most 4096 (`ordo sim --vthreads` models more)");
    let out = ordo()
        .env("ORDO_THREADS", "100000")
        .args(["run", "sssp", "--gen", "road:n=1000,seed=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: ORDO_THREADS=100000: at most 4096 (`ordo sim --vthreads` models more)\n"
    );
    let dist = |extra: &[&str]| {
        let mut a = vec!["dist", "sssp", "--gen", "road:n=1000,seed=1"];
        a.extend(extra);
        error_line(&a)
    };
    assert_eq!(
        dist(&["--ranks", "257"]),
        "error: --ranks 257: at most 256 in one process (their exchanges grow with the square of the ranks); run more under mpirun"
    );
    assert_eq!(dist(&["--ranks", "0"]), "error: --ranks must be at least 1");
    assert_eq!(
        dist(&["--ranks", "100", "--threads", "41"]),
        "error: --ranks 100 with --threads 41: 4100 threads, at most 4096"
    );
}
