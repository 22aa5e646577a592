//! Build script of the `ordo` binary: records the git revision it is built
//! from as `ORDO_GIT_REV` (`git rev-parse --short HEAD`, `-dirty` when
//! tracked files differ from HEAD, `unknown` outside a repository), for the
//! `git_rev` field of `ordo bench` results.
//!
//! It reruns exactly when what it records may have changed: when HEAD moves
//! (the HEAD file, the current branch's ref, packed refs) or any source of
//! the workspace changes (every crate, the workspace manifest and lock
//! file), so a library edit marks the binary dirty. It names only files that
//! exist (cargo reruns a script on every build when a watched path is
//! missing), so an unchanged tree rebuilds nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    let rev = git(&["rev-parse", "--short", "HEAD"]).filter(|r| !r.is_empty());
    let dirty = rev.is_some()
        && git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    let rev = match rev {
        Some(r) if dirty => format!("{r}-dirty"),
        Some(r) => r,
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=ORDO_GIT_REV={rev}");

    let mut git_files = vec!["HEAD".to_string(), "packed-refs".to_string(), "index".to_string()];
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
        git_files.push(head_ref);
    }
    for f in &git_files {
        if let Some(p) = git(&["rev-parse", "--path-format=absolute", "--git-path", f]) {
            watch(&PathBuf::from(p));
        }
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for p in ["crates", "Cargo.toml", "Cargo.lock"] {
        watch(&workspace.join(p));
    }
    println!("cargo:rerun-if-changed=build.rs");
}
