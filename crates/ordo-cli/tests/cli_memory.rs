//! Inputs that ask for more memory than there is are refused before the
//! allocation, with one line naming the need and the budget (forced small
//! with `ORDO_MEMORY_LIMIT`, so the tests do not depend on the machine):
//! huge generator specs, tiny files announcing huge graphs, statistics that
//! would not fit next to the graph, and gzip bombs.

use std::io::Write;
use std::path::Path;

use assert_cmd::Command;

/// `ordo ARGS` with `ORDO_MEMORY_LIMIT=limit`, expecting one error line.
fn refused(limit: &str, args: &[&str]) -> String {
    let out =
        Command::cargo_bin("ordo").unwrap().env("ORDO_MEMORY_LIMIT", limit).args(args).output().unwrap();
    assert!(!out.status.success(), "ordo {args:?} should fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr:?}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr.trim_end().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn huge_generator_specs_are_refused_before_generating() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.ordo");
    let e = refused("64G", &["gen", "kron:scale=31", "-o", s(&out)]);
    assert!(e.contains("generating it needs about 1563.4 GB of memory, more than the 64.0 GB available (ORDO_MEMORY_LIMIT=64G)"), "{e}");
    let e = refused("64G", &["gen", "road:n=4294967295", "-o", s(&out)]);
    assert!(e.contains("generating it needs about 201.9 GB of memory"), "{e}");
    // As an input of run: the same check.
    let e = refused("64G", &["run", "bfs", "--gen", "kron:scale=31"]);
    assert!(e.contains("needs about 1563.4 GB"), "{e}");
    assert!(!out.exists());
}

#[test]
fn a_tiny_file_announcing_a_huge_graph_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.gr");
    // 26 bytes announcing 10^9 vertices: 8 GB of offsets.
    std::fs::write(&big, "p sp 1000000000 1\na 1 2 3\n").unwrap();
    let e = refused("1G", &["convert", s(&big), s(&dir.path().join("big.ordo"))]);
    assert_eq!(
        e,
        format!(
            "error: {}:1: loading a graph of 1000000000 vertices and 1 edges needs about 8.0 GB of memory, \
             more than the 1.0 GB available (ORDO_MEMORY_LIMIT=1G)",
            big.display()
        )
    );
    // A run counts its own per-vertex state (SSSP: 16 bytes), and with
    // --verify the reference's too (24 more), before loading anything.
    let e = refused("20G", &["run", "sssp", "--graph", s(&big)]);
    assert!(e.ends_with(":1: loading and processing a graph of 1000000000 vertices and 1 edges needs about 24.0 GB of memory, more than the 20.0 GB available (ORDO_MEMORY_LIMIT=20G)"), "{e}");
    let e = refused("30G", &["run", "sssp", "--graph", s(&big), "--verify"]);
    assert!(e.contains("needs about 48.0 GB of memory"), "{e}");
    // The same through gzip, and for the other header formats.
    let big_gz = dir.path().join("big.gr.gz");
    std::fs::write(&big_gz, gz(b"p sp 1000000000 1\na 1 2 3\n")).unwrap();
    assert!(refused("1G", &["info", s(&big_gz)]).contains(":1: loading and processing a graph of 1000000000"));
    let mtx = dir.path().join("big.mtx");
    std::fs::write(&mtx, "%%MatrixMarket matrix coordinate pattern general\n1000000000 1000000000 1\n1 2\n")
        .unwrap();
    assert!(
        refused("1G", &["convert", s(&mtx), s(&dir.path().join("o.ordo"))]).contains(":2: loading a graph")
    );
    let metis = dir.path().join("big.graph");
    std::fs::write(&metis, "1000000000 0\n").unwrap();
    assert!(refused("1G", &["info", s(&metis)]).contains(":1: loading and processing"));
}

#[test]
fn statistics_that_do_not_fit_next_to_the_graph_are_refused_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    // 10^7 isolated vertices: 80 MB of offsets, 410 MB more for the
    // statistics of `ordo info` (the search from the source beside the rest).
    let file = dir.path().join("wide.gr");
    std::fs::write(&file, "p sp 10000000 1\na 1 2 3\n").unwrap();
    let e = refused("200M", &["info", s(&file)]);
    assert!(
        e.contains("loading and processing a graph of 10000000 vertices and 1 edges needs about 490.0 MB"),
        "{e}"
    );
    assert!(e.contains("more than the 200.0 MB available (ORDO_MEMORY_LIMIT=200M)"), "{e}");
    // Converting needs only the graph: it fits.
    let out = dir.path().join("wide.ordo");
    Command::cargo_bin("ordo")
        .unwrap()
        .env("ORDO_MEMORY_LIMIT", "200M")
        .args(["convert", s(&file), s(&out)])
        .assert()
        .success();
    // The binary file's header is checked before it is mapped.
    let e = refused("100M", &["info", s(&out)]);
    assert!(e.contains(": byte 16: loading and processing a graph of 10000000 vertices"), "{e}");
}

#[test]
fn gzip_bombs_stop_early() {
    let dir = tempfile::tempdir().unwrap();
    // 256 MiB of zeros after a header: the reader fails on line 2, and
    // inflation stops at the first step that holds a NUL on a data line.
    let mut data = b"p sp 3 2\n".to_vec();
    data.resize(256 << 20, 0);
    let bomb = dir.path().join("bomb.gr.gz");
    std::fs::write(&bomb, gz(&data)).unwrap();
    let e = refused("off", &["info", s(&bomb)]);
    assert!(e.contains(&format!("{}:2: ", bomb.display())), "{e}");
    // Valid comment lines far beyond what `p sp 3 2` justifies.
    let mut data = b"p sp 3 2\na 1 2 1\na 2 3 1\n".to_vec();
    data.extend(b"c padding\n".repeat(3 << 20));
    let bomb = dir.path().join("comments.gr.gz");
    std::fs::write(&bomb, gz(&data)).unwrap();
    let e = refused("off", &["info", s(&bomb)]);
    assert!(e.contains("more than its header (p sp 3 2) can justify"), "{e}");
    // Without a header, the memory budget bounds the inflated size.
    let data = b"1 2\n".repeat(20 << 20);
    let el = dir.path().join("many.el.gz");
    std::fs::write(&el, gz(&data)).unwrap();
    let e = refused("70M", &["info", s(&el)]);
    assert!(e.contains("inflates to more than the 70.0 MB available (ORDO_MEMORY_LIMIT=70M)"), "{e}");
}

#[test]
fn a_bad_limit_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.gr");
    std::fs::write(&file, "p sp 10000000 0\n").unwrap();
    let e = refused("lots", &["info", s(&file)]);
    assert!(e.ends_with("ORDO_MEMORY_LIMIT=lots is not a size like 512M or 4G, nor off"), "{e}");
}
