//! `ordo gen`, `ordo convert` and `ordo info` end to end: generated counts
//! reach `info`, conversions round-trip exactly, bad files and bad specs
//! exit non-zero with one line naming the problem.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Runs `ordo ARGS` (which must include `--json`), expecting success and
/// exactly one JSON object on stdout.
fn json(args: &[&str]) -> Value {
    let out = ordo().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo {args:?} failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints exactly one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

/// Runs `ordo ARGS` expecting failure with one stderr line; returns it.
fn fails(args: &[&str]) -> String {
    let out = ordo().args(args).output().unwrap();
    assert!(!out.status.success(), "ordo {args:?} should fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one error line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn gen_then_info_reports_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("road.ordo");
    let g = json(&["gen", "road:n=5000,seed=4", "-o", s(&file), "--json"]);
    assert_eq!(g["n"], 5000);
    assert_eq!(g["format"], "ordo");
    assert_eq!(g["bytes"].as_u64().unwrap(), std::fs::metadata(&file).unwrap().len());
    let m = g["m"].as_u64().unwrap();
    assert!((12_000..=14_000).contains(&m), "average degree about 2.6: m = {m}");

    let info = json(&["info", s(&file), "--json"]);
    assert_eq!(info["n"], 5000);
    assert_eq!(info["m"], m);
    assert_eq!(info["symmetric"], true);
    assert_eq!(info["coords"], "planar");
    assert_eq!(info["self_loops"], 0);
    assert_eq!(info["reach"]["reached"], 5000, "road graphs are connected");
    assert_eq!(info["weak_components"]["count"], 1);
    assert_eq!(info["strong_components"]["count"], 1, "symmetric and connected");
    // Nearly every undirected edge has its own length (m / 2 edges; small graphs
    // have narrower length ranges, so this is a loose floor).
    assert!(info["weights"]["distinct"].as_u64().unwrap() > 500);

    // The same graph generated in memory gives the same statistics.
    let direct = json(&["info", "--gen", "road:n=5000,seed=4", "--json", "--threads", "1"]);
    for key in ["n", "m", "degree", "weights", "reach", "weak_components", "strong_components", "symmetric"] {
        assert_eq!(direct[key], info[key], "{key}");
    }
}

#[test]
fn simplify_drops_loops_and_parallel_edges_keeping_the_least_weight() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("multi.gr");
    // Vertex 1 has a loop; 1 -> 2 appears three times (weights 9, 4, 6).
    std::fs::write(&file, "p sp 3 6\na 1 1 5\na 1 2 9\na 1 2 4\na 2 3 1\na 1 2 6\na 3 1 2\n").unwrap();
    let info = json(&["info", s(&file), "--json"]);
    assert_eq!(
        (info["m"].as_u64(), info["self_loops"].as_u64(), info["parallel_edges"].as_u64()),
        (Some(6), Some(1), Some(2))
    );

    let out = dir.path().join("simple.gr");
    json(&["convert", s(&file), s(&out), "--simplify", "--json"]);
    let written = std::fs::read_to_string(&out).unwrap();
    let arcs: Vec<&str> = written.lines().filter(|l| l.starts_with("a ")).collect();
    assert_eq!(arcs, ["a 1 2 4", "a 2 3 1", "a 3 1 2"]);
    let simple = json(&["info", s(&out), "--json"]);
    assert_eq!((simple["self_loops"].as_u64(), simple["parallel_edges"].as_u64()), (Some(0), Some(0)));

    // Distances do not change: the least weight is kept.
    let run = json(&["run", "sssp", "--graph", s(&file), "--simplify", "--verify", "--json"]);
    assert_eq!(
        (run["m"].as_u64(), run["sum_dist"].as_u64(), run["verified"].as_bool()),
        (Some(3), Some(9), Some(true))
    );
}

#[test]
fn huge_pages_hold_the_same_graph_and_say_what_the_kernel_granted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.ordo");
    json(&["gen", "kron:scale=14,seed=2", "-o", s(&file), "--json"]);
    let weights = ["--weights", "uniform:1..100:seed=1"];
    let plain = json(&[&["run", "sssp", "--graph", s(&file), "--verify", "--json"][..], &weights].concat());
    for input in [["--graph", s(&file)], ["--gen", "kron:scale=14,seed=2"]] {
        let args = [&["run", "sssp", input[0], input[1], "--huge-pages", "--verify", "--json"][..], &weights]
            .concat();
        let out = ordo().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let run: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((run["verified"].as_bool(), &run["sum_dist"]), (Some(true), &plain["sum_dist"]));
        assert!(run["graph"].as_str().unwrap().contains("huge pages"), "{}", run["graph"]);
        assert!(stderr.lines().any(|l| l.starts_with("huge pages: ")), "{stderr}");
    }
    // `info` says how much of the graph the kernel backs with huge pages,
    // copied or mapped from the file (where the kernel reports it).
    for extra in [&[][..], &["--huge-pages"][..]] {
        let info = json(&[&["info", s(&file), "--json"][..], extra].concat());
        let memory = info["memory_bytes"].as_u64().unwrap();
        let huge = &info["huge_page_bytes"];
        assert!(huge.is_null() || huge.as_u64().is_some_and(|h| h <= memory), "{huge} of {memory}");
    }
    let e = fails(&["dist", "sssp", "--graph", s(&file), "--huge-pages"]);
    assert!(e.contains("drop --huge-pages"), "{e}");
}

#[test]
fn info_of_generated_kron_and_grid() {
    let k = json(&["info", "--gen", "kron:scale=10,ef=8", "--json"]);
    assert_eq!(k["n"], 1024);
    assert_eq!(k["symmetric"], true);
    assert_eq!(k["self_loops"], 0);
    assert!(k["weights"]["max"].as_u64().unwrap() <= 255);

    let g = json(&["info", "--gen", "grid:w=20,h=10", "--source", "199", "--json"]);
    assert_eq!(g["m"], 2 * (2 * 200 - 20 - 10));
    assert_eq!(g["reach"]["source"], 199);
    assert_eq!(g["reach"]["bfs_depth"], 19 + 9, "corner to corner of a 20x10 grid");
    assert_eq!(g["degree"]["min"], 2);
    assert_eq!(g["degree"]["max"], 4);

    let u = json(&["info", "--gen", "grid:w=5,h=5", "--weights", "unit", "--json"]);
    assert_eq!(u["weights"]["distinct"], 1);
    assert_eq!(u["graph"], "grid:w=5,h=5,wmin=1,wmax=10000,seed=1 [weights=unit]");
    assert_eq!(u["weights"]["max"], 1);
}

#[test]
fn convert_round_trips_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.ordo");
    let gr = dir.path().join("a.gr");
    let b = dir.path().join("b.ordo");
    let mtx = dir.path().join("a.mtx");
    let c = dir.path().join("c.ordo");
    json(&["gen", "rmat:scale=9,ef=8,seed=3", "-o", s(&a), "--json"]);
    let conv = json(&["convert", s(&a), s(&gr), "--json"]);
    assert_eq!(conv["format"], "gr");
    json(&["convert", s(&gr), s(&b), "--json"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), ".ordo -> .gr -> .ordo is exact");
    json(&["convert", s(&b), s(&mtx), "--json"]);
    json(&["convert", s(&mtx), s(&c), "--json"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap(), ".ordo -> .mtx -> .ordo is exact");

    // A text-only name with an explicit --to.
    let d = dir.path().join("d.bin");
    json(&["convert", s(&gr), s(&d), "--to", "ordo", "--json"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&d).unwrap());

    // Load options apply during conversion.
    let sym = dir.path().join("sym.ordo");
    json(&["convert", s(&a), s(&sym), "--symmetrize", "--json"]);
    assert_eq!(json(&["info", s(&sym), "--json"])["symmetric"], true);
    assert_eq!(json(&["info", s(&a), "--json"])["symmetric"], false);
}

#[test]
fn bad_files_fail_with_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.ordo");
    json(&["gen", "grid:w=30,h=30", "-o", s(&good), "--json"]);
    let bytes = std::fs::read(&good).unwrap();

    let cut = dir.path().join("cut.ordo");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let e = fails(&["info", s(&cut)]);
    assert!(e.contains(&format!("{}: byte {}", cut.display(), bytes.len() - 100)), "{e}");
    assert!(e.contains("truncated"), "{e}");

    let flipped = dir.path().join("flipped.ordo");
    let mut b = bytes.clone();
    let mid = b.len() / 2;
    b[mid] ^= 0x10;
    std::fs::write(&flipped, &b).unwrap();
    let e = fails(&["info", s(&flipped)]);
    assert!(e.contains(s(&flipped)) && e.contains("checksum mismatch"), "{e}");

    let empty = dir.path().join("empty.ordo");
    std::fs::write(&empty, b"").unwrap();
    let e = fails(&["info", s(&empty)]);
    assert!(e.contains(s(&empty)), "{e}");

    let missing = dir.path().join("missing.ordo");
    let e = fails(&["convert", s(&missing), s(&good)]);
    assert!(e.contains(s(&missing)), "{e}");
}

#[test]
fn bad_specs_and_options_fail_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.ordo");
    let e = fails(&["gen", "road:n=0", "-o", s(&out)]);
    assert!(e.contains("n=0"), "{e}");
    let e = fails(&["gen", "road:n=10,bogus=1", "-o", s(&out)]);
    assert!(e.contains("unknown parameter `bogus`"), "{e}");
    let e = fails(&["gen", "road:n=10", "-o", s(&dir.path().join("x.unknown"))]);
    assert!(e.contains("cannot tell the output format"), "{e}");
    let e = fails(&["info", "--gen", "road:n=10", "--source", "10"]);
    assert!(e.contains("--source 10 is not a vertex"), "{e}");
    let e = fails(&["info", "--gen", "grid:w=3,h=3", "--coords", "x.co"]);
    assert!(e.contains("--coords applies to --graph"), "{e}");
    let e = fails(&["info"]);
    assert!(e.contains("no input graph"), "{e}");
    assert!(!out.exists(), "failed generation must not leave a file");
}

/// `ordo convert X X` used to truncate X while it was mapped: SIGBUS and an
/// empty X. Now the output may not be the input (by path or link), and
/// every output is written to a temporary file renamed over the target.
#[test]
fn convert_refuses_to_overwrite_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.ordo");
    json(&["gen", "grid:w=20,h=20", "-o", s(&file), "--json"]);
    let before = std::fs::read(&file).unwrap();
    let e = fails(&["convert", s(&file), s(&file)]);
    assert!(e.contains("output is the same file as the input"), "{e}");
    let dotted = dir.path().join(".").join("g.ordo");
    fails(&["convert", s(&file), s(&dotted)]);
    #[cfg(unix)]
    {
        let link = dir.path().join("link.ordo");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        fails(&["convert", s(&file), s(&link)]);
        let hard = dir.path().join("hard.gr");
        std::fs::hard_link(&file, &hard).unwrap();
        fails(&["convert", s(&file), s(&hard), "--to", "gr"]);
    }
    assert_eq!(std::fs::read(&file).unwrap(), before, "the input is untouched");
    // A coordinate side file that would overwrite the input's coordinates.
    let gr = dir.path().join("r.gr");
    json(&["gen", "road:n=300", "-o", s(&gr), "--json"]);
    let co = dir.path().join("out.co");
    std::fs::copy(dir.path().join("r.co"), &co).unwrap();
    let e = fails(&["convert", s(&gr), s(&dir.path().join("out.gr")), "--coords", s(&co)]);
    assert!(e.contains("out.co: output is the same file as the input"), "{e}");
    assert!(!dir.path().join("out.gr").exists(), "nothing written");
    // Overwriting another existing file works, and leaves no temporary file.
    let out = dir.path().join("copy.ordo");
    std::fs::write(&out, "old").unwrap();
    json(&["convert", s(&file), s(&out), "--json"]);
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `ordo info` on real weights reports their range (JSON `real_weights`).
#[test]
fn info_reports_real_weights() {
    let dir = tempfile::tempdir().unwrap();
    let el = dir.path().join("r.el");
    std::fs::write(&el, "0 1 0.5\n1 2 1.25\n0 2 2\n").unwrap();
    let out =
        Command::cargo_bin("ordo").unwrap().args(["info", el.to_str().unwrap(), "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["weighted"], true);
    assert!(v["weights"].is_null());
    assert_eq!(v["real_weights"]["min"], 0.5);
    assert_eq!(v["real_weights"]["max"], 2.0);
    assert_eq!(v["real_weights"]["avg"], 1.25);
}
