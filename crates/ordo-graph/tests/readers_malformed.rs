//! Every file of the malformed corpus (`tests/malformed/`) goes through
//! `load` with default options and must be rejected with an error that names
//! the file, the line or byte offset, and the problem, as `expected.txt`
//! records — never a panic, never a graph.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ordo_graph::load::{load, LoadOptions};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

/// One line of `expected.txt`: file, location, message substring.
struct Expectation {
    file: String,
    location: String,
    message: String,
}

fn expectations() -> Vec<Expectation> {
    let text = std::fs::read_to_string(corpus_dir().join("expected.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (file, location, message) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            Expectation { file: file.into(), location: location.into(), message: message.into() }
        })
        .collect()
}

/// The prefix an error must start with: `<path>:<line>: `, `<path>: byte `
/// or `<path>: `; `co ...`/`xyz ...` locate the error in the sidecar file.
fn expected_prefix(graph_path: &Path, location: &str) -> String {
    let (path, location) = match location.split_once(' ') {
        Some((side @ ("co" | "xyz"), rest)) => (graph_path.with_extension(side), rest),
        _ => (graph_path.to_path_buf(), location),
    };
    let shown = path.display();
    if let Some(line) = location.strip_prefix("line ") {
        format!("{shown}:{line}: ")
    } else if location == "byte" {
        format!("{shown}: byte ")
    } else {
        assert_eq!(location, "file", "bad location in expected.txt");
        format!("{shown}: ")
    }
}

#[test]
fn every_malformed_file_is_rejected_with_file_location_and_problem() {
    let expectations = expectations();
    assert!(expectations.len() >= 60, "corpus shrank to {}", expectations.len());
    let mut failures = Vec::new();
    for e in &expectations {
        let path = corpus_dir().join(&e.file);
        assert!(path.is_file(), "{} listed in expected.txt but missing", e.file);
        match load(&path, &LoadOptions::default()) {
            Ok(g) => failures.push(format!(
                "{}: accepted ({} vertices, {} edges)",
                e.file,
                g.num_vertices(),
                g.num_edges()
            )),
            Err(err) => {
                let msg = err.to_string();
                let prefix = expected_prefix(&path, &e.location);
                if !msg.starts_with(&prefix) || !msg.contains(&e.message) || msg.contains('\n') {
                    failures.push(format!("{}:\n   got  {msg}\n   want {prefix}... {}", e.file, e.message));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} corpus files misbehave:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn corpus_and_expectations_stay_in_sync() {
    let listed: BTreeSet<String> = expectations().into_iter().map(|e| e.file).collect();
    for entry in std::fs::read_dir(corpus_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let sidecar = name.ends_with(".co") || name.ends_with(".xyz");
        if name != "expected.txt" && !sidecar {
            assert!(listed.contains(&name), "{name} has no line in expected.txt");
        }
    }
}

/// Writes the binary-format members of the corpus (run with `--ignored`
/// after a change of the `.ordo` format, then update expected.txt).
#[test]
#[ignore = "tool, not a check: rewrites the binary corpus files after a format change"]
fn regenerate_binary_corpus() {
    let mut el = ordo_graph::EdgeList::new(4, true);
    for (u, v, w) in [(0, 1, 5), (1, 2, 6), (2, 3, 7), (3, 0, 8)] {
        el.push(u, v, w);
    }
    let bytes = ordo_graph::binary::to_bytes(&el.into_graph().unwrap());
    let dir = corpus_dir();
    std::fs::write(dir.join("binary_truncated_header.ordo"), &bytes[..20]).unwrap();
    std::fs::write(dir.join("binary_truncated_arrays.ordo"), &bytes[..bytes.len() - 12]).unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x40;
    std::fs::write(dir.join("binary_corrupted_payload.ordo"), &flipped).unwrap();
    let mut magic = bytes.clone();
    magic[0] = b'X';
    std::fs::write(dir.join("binary_wrong_magic.ordo"), &magic).unwrap();
    std::fs::write(dir.join("binary_empty.ordo"), b"").unwrap();
}
