//! Build script of the `ordo` binary: records the git revision it is built
//! from as `ORDO_GIT_REV` (`git rev-parse --short HEAD`, `-dirty` when
//! tracked files differ from HEAD, `unknown` outside a repository), for the
//! `git_rev` field of `ordo bench` results.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
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
    // Re-run when HEAD moves (a commit or a checkout); the dirty flag is
    // refreshed when this crate's sources change.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "packed-refs"] {
            println!("cargo:rerun-if-changed={dir}/{f}");
        }
        if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{head_ref}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src");
}
