//! The parallel-loop applications end to end (`ordo run pr-pull|tc|bc|loop-micro`
//! with `--loop`, `--verify`, `--json`, `--out`), checked against references
//! computed here; their one-line errors; and `ordo bench` with an input-less
//! (`none = true`) input and the checked-in `bench/loops.toml` (dry run).

use std::path::Path;

use assert_cmd::Command;
use ordo_algos::bc::{self, BcGraph, Sources};
use ordo_algos::pr_pull::{self, PrPullParams, Stop};
use ordo_graph::gen::GenSpec;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

fn run_json(args: &[&str]) -> Value {
    let out = ordo().arg("run").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "ordo run {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.trim().lines().count(), 1, "--json prints one line: {stdout}");
    serde_json::from_str(stdout.trim()).unwrap()
}

fn run_err(args: &[&str]) -> String {
    let out = ordo().arg("run").args(args).output().unwrap();
    assert!(!out.status.success(), "ordo run {args:?} must fail");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim().lines().count(), 1, "one error line: {stderr}");
    stderr.trim().to_string()
}

/// `vertex value` lines as a vector (checking the vertex numbers).
fn read_values(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let (v, x) = line.split_once(' ').unwrap_or_else(|| panic!("line {line:?}"));
            assert_eq!(v.parse::<usize>().unwrap(), i);
            x.parse().unwrap()
        })
        .collect()
}

const RMAT: &str = "rmat:scale=9,ef=8,seed=2";

#[test]
fn pr_pull_writes_the_ranks_of_the_sequential_loop() {
    let g = RMAT.parse::<GenSpec>().unwrap().generate().unwrap();
    let t = ordo_graph::transform::transpose(&g);
    let dir = tempfile::tempdir().unwrap();
    for (spec, extra) in [
        ("striped:batch=8", &["--iterations", "15"][..]),
        ("async-combining:batch=2", &["--iterations", "15"][..]),
        ("rayon:batch=16", &["--tolerance", "1e-9"][..]),
        ("static", &["--tolerance", "1e-9", "--iterations", "30"][..]),
    ] {
        let out = dir.path().join("ranks.txt");
        let mut args = vec!["pr-pull", "--gen", RMAT, "--loop", spec, "--threads", "2", "--verify", "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        let v = run_json(&args);
        assert_eq!(v["verified"], true, "{spec}");
        assert!(v["scheduler"].as_str().unwrap().starts_with(spec.split(':').next().unwrap()), "{v}");
        let iterations = v["iterations"].as_u64().unwrap() as u32;
        let stop = if extra[0] == "--iterations" {
            assert_eq!(iterations, 15);
            Stop::Iterations(15)
        } else {
            let cap = if extra.len() > 2 { 30 } else { 100 };
            assert!(v["last_change"].as_f64().unwrap() <= 1e-9 || iterations == cap, "{v}");
            Stop::Tolerance { tolerance: 1e-9, max_iterations: cap }
        };
        let expected = pr_pull::reference::pr_pull(&g, &t, &PrPullParams { damping: 0.85, stop }).unwrap();
        assert_eq!(expected.iterations, iterations, "{spec}");
        let ranks = read_values(&out);
        assert_eq!(ranks, expected.ranks, "{spec}: the file holds the sequential loop's ranks exactly");
        let bound = v["fixed_point_bound"].as_f64().unwrap();
        assert!((bound - 0.85 / 0.15 * v["last_change"].as_f64().unwrap()).abs() <= 1e-12, "{v}");
    }
}

#[test]
fn tc_reports_triangles_and_writes_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tc.txt");
    let v = run_json(&[
        "tc",
        "--gen",
        "kron:scale=10,seed=3",
        "--loop",
        "combining:batch=4",
        "--verify",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["verified"], true);
    let g = "kron:scale=10,seed=3".parse::<GenSpec>().unwrap().generate().unwrap();
    let expected = ordo_algos::tc::reference::triangles(&g);
    assert!(expected > 0);
    assert_eq!(v["triangles"].as_u64(), Some(expected));
    assert_eq!(std::fs::read_to_string(&out).unwrap().trim(), expected.to_string());
    let grqc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/social/CA-GrQc.txt");
    if grqc.exists() {
        let v = run_json(&[
            "tc",
            "--graph",
            grqc.to_str().unwrap(),
            "--remap",
            "--loop",
            "async-combining:batch=16",
            "--verify",
        ]);
        assert_eq!(v["triangles"].as_u64(), Some(48_260), "SNAP's count for CA-GrQc");
    } else {
        eprintln!("skipping CA-GrQc: {} not found (../shared/data absent)", grqc.display());
    }
}

#[test]
fn bc_with_sampled_sources_writes_brandes_values() {
    let spec = "rmat:scale=8,ef=6,seed=4";
    let g = BcGraph::from_graph(spec.parse::<GenSpec>().unwrap().generate().unwrap());
    let dir = tempfile::tempdir().unwrap();
    for (nest, sources) in
        [("core", Some("40")), ("flat", None), ("inner", Some("7")), ("socket", Some("40"))]
    {
        let out = dir.path().join("bc.txt");
        let mut args =
            vec!["bc", "--gen", spec, "--nest", nest, "--seed", "9", "--verify", "--threads", "2", "--out"];
        args.push(out.to_str().unwrap());
        if let Some(k) = sources {
            args.extend_from_slice(&["--sources", k]);
        }
        let v = run_json(&args);
        assert_eq!(v["verified"], true, "{nest}");
        assert_eq!(v["nest"], nest);
        let sources = match sources {
            Some(k) => Sources::Sample { k: k.parse().unwrap(), seed: 9 },
            None => Sources::All,
        };
        assert_eq!(v["sources"].as_u64().unwrap() as usize, sources.list(&g).len());
        let expected = bc::reference::betweenness(&g, sources);
        let got = read_values(&out);
        bc::verify::verify(&expected, &got).unwrap_or_else(|e| panic!("{nest}: {e}"));
    }
}

#[test]
fn loop_micro_runs_without_a_graph_on_every_loop() {
    for spec in ["static", "shared:batch=1", "striped:batch=64,threads=3", "async-combining:batch=4", "rayon"]
    {
        let v = run_json(&[
            "loop-micro",
            "--size",
            "30000",
            "--shape",
            "skewed",
            "--work",
            "4",
            "--loop",
            spec,
            "--verify",
        ]);
        assert_eq!(v["verified"], true, "{spec}");
        assert_eq!((v["n"].as_u64(), v["m"].as_u64()), (Some(0), Some(0)));
        assert_eq!(v["graph"], "none");
        assert_eq!(v["shape"], "skewed");
        assert_eq!(v["size"].as_u64(), Some(30000));
        if spec.contains("threads=3") {
            assert_eq!(v["loop_threads"].as_u64(), Some(3));
        }
    }
}

/// Combining loops report their combiners' counts; one-member combiners
/// (one thread per pretended core) answer exactly one request per serve;
/// the other distributors report none.
#[test]
fn combining_loops_count_requests_per_serve() {
    let run = |topology: &str, spec: &str| {
        let args = ["run", "loop-micro", "--size", "20000", "--work", "2", "--threads", "2", "--loop", spec];
        let out =
            ordo().env("ORDO_TOPOLOGY", topology).args(args).args(["--verify", "--json"]).output().unwrap();
        assert!(out.status.success(), "{spec}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["verified"], true, "{spec}");
        v
    };
    for spec in ["combining:batch=1", "async-combining:batch=1"] {
        // Two threads on one pretended core share a combiner.
        let v = run("cores=1", spec);
        let (serves, requests) =
            (v["combiner_serves"].as_u64().unwrap(), v["combined_requests"].as_u64().unwrap());
        // At least one request per iteration (batch 1), at most one more per thread.
        assert!((20_000..=20_002).contains(&requests), "{spec}: {requests}");
        assert!(serves >= 1 && serves <= requests, "{spec}: {serves} serves, {requests} requests");
        let v = run("cores=2", spec);
        assert_eq!(v["combiner_serves"], v["combined_requests"], "{spec}: one thread per combiner");
    }
    let v = run("cores=1", "striped:batch=1");
    assert!(v.get("combiner_serves").is_none(), "no combiners, no counts: {v}");
}

#[test]
fn bad_loop_flags_are_one_line_errors() {
    for (args, want) in [
        (&["tc", "--gen", "grid:w=3,h=3", "--loop", "fancy"][..], "unknown loop distributor `fancy` (known: default, shared, striped, combining, async-combining, static, rayon)"),
        (&["tc", "--gen", "grid:w=3,h=3", "--loop", "shared:batch=0"][..], "`batch=0`: expected a positive integer"),
        (&["tc", "--gen", "grid:w=3,h=3", "--loop", "combining:level=thread"][..], "level=core or level=socket"),
        (&["sssp", "--gen", "grid:w=3,h=3", "--loop", "shared"][..], "--loop does not apply to sssp (it applies to pr-pull, tc, bc, loop-micro)"),
        (&["pr-d", "--gen", "grid:w=3,h=3", "--iterations", "3"][..], "--iterations does not apply to pr-d (it applies to pr, pr-pull)"),
        (&["bc", "--gen", "grid:w=3,h=3", "--nest", "deep"][..], "nest = `deep`: expected core, socket, flat or inner"),
        (&["bc", "--gen", "grid:w=3,h=3", "--sources", "0"][..], "sources 0"),
        (&["pr-pull", "--gen", "grid:w=3,h=3", "--alpha", "1.5"][..], "damping 1.5 is not in (0, 1)"),
        (&["loop-micro", "--gen", "grid:w=3,h=3"][..], "loop-micro runs without an input graph"),
        (&["loop-micro", "--shape", "lumpy"][..], "expected even or skewed"),
    ] {
        let e = run_err(args);
        assert!(e.starts_with("error: ") && e.contains(want), "{args:?}: {e}");
    }
}

#[test]
fn bench_runs_input_less_entries_and_checks_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        r#"
[settings]
repetitions = 2
warmup = 0
threads = [2]
reference_repetitions = 1

[[input]]
name = "none"
none = true

[[input]]
name = "grid"
gen = "grid:w=20,h=20"

[[experiment]]
name = "micro"
apps = ["loop-micro"]
params = { size = 5000, work = 2 }
schedulers = ["shared:batch={batch},threads={threads}", "static"]
sweep = { batch = [1, 64], threads = [1, 2] }

[[experiment]]
name = "kernels"
apps = ["pr-pull", "tc"]
schedulers = ["async-combining:batch=4"]
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let bench = ordo().args(["bench", "--plan"]).arg(&plan).arg("--out").arg(&out).output().unwrap();
    assert!(bench.status.success(), "{}", String::from_utf8_lossy(&bench.stderr));
    let runs: Vec<Value> = std::fs::read_to_string(out.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // micro: (4 + 1) configurations on `none` only; kernels: 2 apps on `grid` only.
    assert_eq!(runs.len(), (5 + 2) * 2);
    for r in &runs {
        assert_eq!(r["verified"], true, "{r}");
        let micro = r["app"] == "loop-micro";
        assert_eq!(r["input"], if micro { "none" } else { "grid" }, "{r}");
    }
    let heat = ordo().arg("plot").arg(&out).output().unwrap();
    assert!(heat.status.success(), "{}", String::from_utf8_lossy(&heat.stderr));
    assert!(
        out.join("plots/heatmap-micro-loop-micro-none-shared-t2.png").exists(),
        "batch x threads heatmap"
    );

    // Inputs that do not fit the applications are plan errors.
    for (experiment, want) in [
        (
            "apps = [\"tc\"]\ninputs = [\"none\"]",
            "input `none` has no graph (`none = true`) but tc needs one",
        ),
        (
            "apps = [\"loop-micro\"]\ninputs = [\"grid\"]",
            "loop-micro runs without a graph: give it an input with `none = true`",
        ),
        ("apps = [\"loop-micro\", \"tc\"]", "tc runs on a graph but loop-micro runs without one"),
    ] {
        let text = format!(
            "[[input]]\nname = \"none\"\nnone = true\n[[input]]\nname = \"grid\"\ngen = \"grid:w=3,h=3\"\n\
             [[experiment]]\nname = \"x\"\n{experiment}\nschedulers = [\"shared\"]\n"
        );
        std::fs::write(&plan, text).unwrap();
        let o = ordo()
            .args(["bench", "--dry-run", "--plan"])
            .arg(&plan)
            .arg("--out")
            .arg(dir.path().join("x"))
            .output()
            .unwrap();
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(want), "{e}");
    }
    std::fs::write(&plan, "[[input]]\nname = \"none\"\nnone = true\ngen = \"grid:w=3,h=3\"\n").unwrap();
    let o = ordo()
        .args(["bench", "--dry-run", "--plan"])
        .arg(&plan)
        .arg("--out")
        .arg(dir.path().join("y"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("`none = true` takes no `gen`"));
}

#[test]
fn the_loops_plan_is_valid() {
    let plan = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/loops.toml");
    let dir = tempfile::tempdir().unwrap();
    let o = ordo()
        .args(["bench", "--dry-run", "--plan"])
        .arg(&plan)
        .arg("--out")
        .arg(dir.path().join("l"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap() + &String::from_utf8(o.stderr).unwrap();
    for want in [
        "micro-even",
        "micro-skewed",
        "pr-pull",
        "tc",
        "bc",
        "rayon:batch=1024,threads=2",
        "static:threads=1",
    ] {
        assert!(text.contains(want), "the dry run lists {want}");
    }
}
