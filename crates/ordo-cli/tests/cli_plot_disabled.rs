//! `ordo plot` in a build without the `plot` feature says so in one line
//! (run with `cargo test -p ordo-cli --no-default-features --test
//! cli_plot_disabled`; the default build has the feature and compiles
//! nothing here).
#![cfg(not(feature = "plot"))]

use assert_cmd::Command;

#[test]
fn plot_explains_that_it_was_built_without_plotting() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("ordo").unwrap().arg("plot").arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("this ordo was built without plotting (cargo feature `plot` off)"), "{stderr}");
}
