//! Where the tests and benchmark plans of this workspace find the public
//! real-world graphs they use (road networks, social and web graphs; each
//! listed with its source, checksum and place in `docs/data.md`).
//!
//! The files live outside the repository, in `shared/data` next to the
//! repository's directory (`../shared/data` from the workspace root), so
//! that a clone stays small. A clone without them still passes every test:
//! each test that needs a file calls [`find`], which returns `None` and
//! reports the skip in one line.
//!
//! The skip line is written straight to the process's standard error, not
//! through `eprintln!`: the test harness captures `eprintln!` output of
//! passing tests (it only shows with `--nocapture`), so a skip would go
//! unnoticed. Written directly, it appears in the plain `cargo test` output,
//! one line per skipping test, for example:
//!
//! ```text
//! skipped rome99_matches_the_published_checksums: /src/shared/data/road/rome99.gr not found (public dataset, see docs/data.md)
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

/// The directory the datasets are expected in: `shared/data` beside the
/// workspace root of the source tree this crate was built from.
pub fn dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = workspace.join("../shared/data");
    dir.canonicalize().unwrap_or(dir)
}

/// The dataset file `relative` (e.g. `"road/rome99.gr"`) under [`dir`], if
/// it exists. Otherwise prints `skipped TEST: PATH not found (public
/// dataset, see docs/data.md)` as one line on standard error (see the module
/// docs for why not `eprintln!`) and returns `None`; `test` names the test
/// (or the part of it) that is skipped.
pub fn find(relative: &str, test: &str) -> Option<PathBuf> {
    find_in(&dir(), relative, test, &mut std::io::stderr().lock())
}

/// [`find`] under `dir`, writing the skip line to `out`.
fn find_in(dir: &Path, relative: &str, test: &str, out: &mut dyn Write) -> Option<PathBuf> {
    let path = dir.join(relative);
    if path.is_file() {
        return Some(path);
    }
    let line = format!("skipped {test}: {} not found (public dataset, see docs/data.md)\n", path.display());
    // One write call, so that parallel tests do not interleave within the line.
    let _ = out.write_all(line.as_bytes());
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_files_give_one_skip_line_present_ones_their_path() {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        assert_eq!(find_in(crate_dir, "no/such.gr", "some_test", &mut out), None);
        let line = String::from_utf8(out).unwrap();
        assert_eq!(
            line,
            format!(
                "skipped some_test: {}/no/such.gr not found (public dataset, see docs/data.md)\n",
                crate_dir.display()
            )
        );
        let mut out = Vec::new();
        assert_eq!(find_in(crate_dir, "Cargo.toml", "unused", &mut out), Some(crate_dir.join("Cargo.toml")));
        assert!(out.is_empty());
        assert!(dir().ends_with("shared/data"), "{}", dir().display());
    }
}
