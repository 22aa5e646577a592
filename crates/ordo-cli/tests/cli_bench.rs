//! `ordo bench` end to end on a tiny plan: output files, one JSON line per
//! run with the contract's keys, summary rows recomputed independently,
//! `--resume`, `--dry-run`, and one-line errors for bad plans.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

/// Two inputs, one application, strict + fifo + obim over a 2-value delta
/// sweep, threads 1 and 2, two repetitions: 2 × 4 × 2 = 16 configurations,
/// 32 runs.
const TINY: &str = r#"
[settings]
repetitions = 2
warmup = 1
threads = [1, 2]
verify = true

[[input]]
name = "grid"
gen = "grid:w=30,h=20,seed=2"

[[input]]
name = "kron8"
gen = "kron:scale=8,seed=1"
source = 1

[[experiment]]
name = "tiny"
apps = ["sssp"]
schedulers = ["strict", "fifo", "obim:delta={d}"]
sweep = { d = "0..=4:4" }
"#;

const SPECS: [&str; 4] = ["strict", "fifo", "obim:delta=0", "obim:delta=4"];

fn write_plan(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn bench(args: &[&str]) -> std::process::Output {
    ordo().arg("bench").args(args).output().unwrap()
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

type Key = (String, String, String, String, u64, u64);

fn key_of(v: &Value) -> Key {
    (
        v["experiment"].as_str().unwrap().to_string(),
        v["input"].as_str().unwrap().to_string(),
        v["app"].as_str().unwrap().to_string(),
        v["spec"].as_str().unwrap().to_string(),
        v["threads"].as_u64().unwrap(),
        v["rep"].as_u64().unwrap(),
    )
}

fn expected_keys() -> BTreeSet<Key> {
    let mut set = BTreeSet::new();
    for input in ["grid", "kron8"] {
        for spec in SPECS {
            for threads in [1, 2] {
                for rep in 0..2 {
                    set.insert(("tiny".into(), input.into(), "sssp".into(), spec.into(), threads, rep));
                }
            }
        }
    }
    set
}

/// The lower median (the definition every ordo summary uses).
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() - 1) / 2]
}

/// Splits one CSV line (fields with commas are quoted, no embedded quotes here).
fn csv_split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[test]
fn tiny_plan_writes_every_run_and_a_consistent_summary_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), "tiny.toml", TINY);
    let out = dir.path().join("out");
    let (plan_s, out_s) = (plan.to_str().unwrap(), out.to_str().unwrap());

    let dry = bench(&["--plan", plan_s, "--dry-run"]);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let dry = String::from_utf8(dry.stdout).unwrap();
    assert_eq!(dry.lines().count(), 17, "16 configuration lines and the count: {dry}");
    assert!(
        dry.lines().last().unwrap().starts_with("16 configurations, 32 measured runs, 16 warmup runs"),
        "{dry}"
    );
    assert!(!out.exists(), "--dry-run writes nothing");

    let r = bench(&["--plan", plan_s, "--out", out_s]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for f in ["runs.jsonl", "plan.toml", "machine.json", "summary.csv", "summary.md"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(std::fs::read_to_string(out.join("plan.toml")).unwrap(), TINY);
    let machine: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("machine.json")).unwrap()).unwrap();
    assert!(machine["logical_cores"].as_u64().unwrap() >= 1);

    let lines = read_lines(&out.join("runs.jsonl"));
    assert_eq!(lines.len(), 32);
    let keys: BTreeSet<Key> = lines.iter().map(key_of).collect();
    assert_eq!(keys, expected_keys(), "one line per (config, rep), none twice");
    for v in &lines {
        for k in [
            "experiment",
            "input",
            "app",
            "spec",
            "scheduler",
            "sweep",
            "threads",
            "rep",
            "time_s",
            "times_s",
            "tasks",
            "work_increase",
            "vs_seq",
            "seq_time_s",
            "empty_pops",
            "verified",
            "traces",
            "peak_rss_bytes",
            "machine",
            "git_rev",
            "ordo_version",
            "timestamp",
            "graph",
            "n",
            "m",
            "source",
        ] {
            assert!(v.get(k).is_some(), "key {k} missing in {v}");
        }
        assert_eq!(v["verified"], Value::Bool(true), "{v}");
        assert!(v.get("error").is_none());
        assert_eq!(v["times_s"].as_array().unwrap().len(), 1);
        assert_eq!(v["times_s"][0], v["time_s"]);
        assert!(v["peak_rss_bytes"].as_u64().unwrap() > 0);
        assert!(v["work_increase"].as_f64().unwrap() >= 1.0 - 1e-9);
        let vs_seq = v["seq_time_s"].as_f64().unwrap() / v["time_s"].as_f64().unwrap();
        assert!((v["vs_seq"].as_f64().unwrap() - vs_seq).abs() <= 1e-9 * vs_seq.max(1.0));
        let spec = v["spec"].as_str().unwrap();
        assert!(v["scheduler"].as_str().unwrap().starts_with(spec.split(':').next().unwrap()));
        match spec {
            "obim:delta=0" => assert_eq!(v["sweep"], serde_json::json!({"d": 0})),
            "obim:delta=4" => assert_eq!(v["sweep"], serde_json::json!({"d": 4})),
            _ => assert_eq!(v["sweep"], serde_json::json!({})),
        }
        assert_eq!(v["threads"].as_u64().unwrap() as usize, v["tasks_per_thread"].as_array().unwrap().len());
    }
    // Interleaved repetitions: per input, every configuration's repetition 0
    // runs before any repetition 1; `round` is the repetition and the
    // positions number the runs of the session in the order they ran.
    let mut positions: Vec<u64> = lines.iter().map(|v| v["position"].as_u64().unwrap()).collect();
    positions.sort_unstable();
    assert_eq!(positions, (0..32).collect::<Vec<u64>>());
    for input in ["grid", "kron8"] {
        let of = |rep: u64| -> Vec<u64> {
            lines
                .iter()
                .filter(|v| v["input"] == input && v["rep"] == rep)
                .map(|v| v["position"].as_u64().unwrap())
                .collect()
        };
        assert!(of(0).iter().max() < of(1).iter().min(), "{input}: rounds are not interleaved");
    }
    assert!(lines.iter().all(|v| v["round"] == v["rep"]));
    // Every run of one input reaches the same vertices with the same sum.
    let mut sums: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for v in &lines {
        sums.entry(v["input"].as_str().unwrap()).or_default().insert(v["sum_dist"].to_string());
    }
    assert!(sums.values().all(|s| s.len() == 1), "{sums:?}");

    // summary.csv: one row per configuration, medians recomputed here.
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let mut rows = csv.lines();
    let header = csv_split(rows.next().unwrap());
    let col =
        |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    let rows: Vec<Vec<String>> = rows.map(csv_split).collect();
    assert_eq!(rows.len(), 16);
    let times = |input: &str, spec: &str, threads: u64| -> Vec<f64> {
        lines
            .iter()
            .filter(|v| v["input"] == input && v["spec"] == spec && v["threads"] == threads)
            .map(|v| v["time_s"].as_f64().unwrap())
            .collect()
    };
    for row in &rows {
        let (input, spec) = (&row[col("input")], &row[col("spec")]);
        let threads: u64 = row[col("threads")].parse().unwrap();
        let t = times(input, spec, threads);
        assert_eq!(row[col("runs")], "2");
        let med: f64 = row[col("median_time_s")].parse().unwrap();
        assert!((med - median(t.clone())).abs() < 2e-6, "{row:?}");
        let min: f64 = row[col("min_time_s")].parse().unwrap();
        assert!((min - t.iter().copied().fold(f64::INFINITY, f64::min)).abs() < 2e-6);
        let speedup: f64 = row[col("speedup")].parse().unwrap();
        let want = median(times(input, spec, 1)) / median(t);
        assert!((speedup - want).abs() <= 1e-5 * want.max(1.0), "{row:?}: speedup {speedup} vs {want}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("## tiny") && md.contains("`obim:delta=4`"));

    // A complete directory: --resume adds nothing.
    let r = bench(&["--plan", plan_s, "--out", out_s, "--resume"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(read_lines(&out.join("runs.jsonl")).len(), 32);
    // Without --resume an existing runs.jsonl is refused.
    let r = bench(&["--plan", plan_s, "--out", out_s]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("--resume"));

    // Drop the last 5 runs and cut the line before them short (as a kill
    // would): --resume runs exactly the missing ones.
    let text = std::fs::read_to_string(out.join("runs.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(27).collect();
    let cut = &kept[26][..kept[26].len() / 2];
    std::fs::write(out.join("runs.jsonl"), format!("{}\n{cut}", kept[..26].join("\n"))).unwrap();
    let dry = bench(&["--plan", plan_s, "--out", out_s, "--resume", "--dry-run"]);
    let dry = String::from_utf8(dry.stdout).unwrap();
    assert!(dry.lines().last().unwrap().contains(", 6 measured runs"), "{dry}");
    let r = bench(&["--plan", plan_s, "--out", out_s, "--resume"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = std::fs::read_to_string(out.join("runs.jsonl")).unwrap();
    let good: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    assert_eq!(good.len(), 32);
    assert_eq!(good.iter().map(key_of).collect::<BTreeSet<_>>(), expected_keys());
}

#[test]
fn only_filters_configurations() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), "tiny.toml", TINY);
    let r =
        bench(&["--plan", plan.to_str().unwrap(), "--dry-run", "--only", "input=grid,spec=obim,threads=2"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let out = String::from_utf8(r.stdout).unwrap();
    assert!(out.lines().last().unwrap().starts_with("2 configurations, 4 measured runs"), "{out}");
}

/// Bad plans fail with one line that names the plan file and the problem.
#[test]
fn bad_plans_give_one_line_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("unknown-key.toml", TINY.replace("verify = true", "verify = true\ncolour = \"red\""), "colour"),
        (
            "bad-operator.toml",
            TINY.replace("apps = [\"sssp\"]", "apps = [\"sssp\"]\noperator = \"quick\""),
            "expected paper or fast",
        ),
        (
            "operator-untaken.toml",
            TINY.replace("apps = [\"sssp\"]", "apps = [\"bfs\"]\noperator = \"paper\""),
            "no application of the experiment takes --operator",
        ),
        (
            "unknown-app.toml",
            TINY.replace("apps = [\"sssp\"]", "apps = [\"sssp\", \"nope\"]"),
            "unknown application `nope`",
        ),
        ("bad-sweep.toml", TINY.replace("0..=4:4", "4..=0"), "empty"),
        ("bad-sweep-var.toml", TINY.replace("delta={d}", "delta={e}"), "{e}"),
        ("bad-spec.toml", TINY.replace("\"fifo\"", "\"fifo:chunks=3\""), "fifo:chunks=3"),
        (
            "unknown-input.toml",
            TINY.replace("apps = [\"sssp\"]", "apps = [\"sssp\"]\ninputs = [\"grid\", \"road\"]"),
            "unknown input `road`",
        ),
        (
            "missing-file.toml",
            TINY.replace("gen = \"grid:w=30,h=20,seed=2\"", "graph = \"no/such.gr\""),
            "not found",
        ),
    ];
    for (name, text, needle) in cases {
        let plan = write_plan(dir.path(), name, &text);
        let r = bench(&["--plan", plan.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap()]);
        assert!(!r.status.success(), "{name} accepted");
        let err = String::from_utf8(r.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line: {err}");
        assert!(err.contains(name) && err.contains(needle), "{name}: {err}");
    }
    assert!(!dir.path().join("o").exists(), "a bad plan writes nothing");
}

/// The checked-in plans parse and expand (they are not run here: too slow).
#[test]
fn checked_in_plans_expand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for plan in ["bench/quick.toml", "bench/papers.toml"] {
        let r = bench(&["--plan", root.join(plan).to_str().unwrap(), "--dry-run"]);
        assert!(r.status.success(), "{plan}: {}", String::from_utf8_lossy(&r.stderr));
        let out = String::from_utf8(r.stdout).unwrap();
        let last = out.lines().last().unwrap();
        let count: usize = last.split(' ').next().unwrap().parse().unwrap();
        assert!(count > 0, "{plan}: {last}");
        let listed = out.lines().count() - 1;
        assert!(listed >= count, "{plan}: {listed} lines for {count} configurations");
    }
}

/// The configuration count `ordo bench --dry-run` prints last for `plan`.
fn dry_run_count(plan: &Path) -> usize {
    let r = bench(&["--plan", plan.to_str().unwrap(), "--dry-run"]);
    assert!(r.status.success(), "{}: {}", plan.display(), String::from_utf8_lossy(&r.stderr));
    let out = String::from_utf8(r.stdout).unwrap();
    let last = out.lines().last().unwrap();
    last.split(' ').next().unwrap().parse().unwrap_or_else(|_| panic!("{}: {last}", plan.display()))
}

/// `plan` with its generated inputs shrunk to a few thousand vertices of the
/// same generator (weights and the rest kept), its file inputs dropped (and
/// from every experiment's list), one repetition and no warm-up.
fn shrink_plan(text: &str) -> String {
    let mut doc: toml::Table = text.parse().expect("a TOML plan");
    let settings = doc.entry("settings").or_insert_with(|| toml::Table::new().into());
    let settings = settings.as_table_mut().unwrap();
    for (key, value) in [("repetitions", 1), ("warmup", 0), ("reference_repetitions", 1)] {
        settings.insert(key.into(), toml::Value::Integer(value));
    }
    let mut dropped = Vec::new();
    let inputs = doc.get_mut("input").and_then(toml::Value::as_array_mut).expect("inputs");
    inputs.retain_mut(|input| {
        let input = input.as_table_mut().unwrap();
        let Some(gen) = input.get("gen").and_then(toml::Value::as_str) else {
            dropped.push(input["name"].as_str().unwrap().to_string());
            return false;
        };
        let tiny = match gen.split(':').next().unwrap() {
            "road" => "road:n=3000,seed=1",
            "rmat" => "rmat:scale=9,seed=1",
            family => panic!("no tiny stand-in for generator `{family}`: add one here"),
        };
        input.insert("gen".into(), tiny.into());
        true
    });
    for exp in doc.get_mut("experiment").and_then(toml::Value::as_array_mut).expect("experiments") {
        if let Some(list) = exp.get_mut("inputs").and_then(toml::Value::as_array_mut) {
            list.retain(|name| !dropped.iter().any(|d| Some(d.as_str()) == name.as_str()));
            assert!(!list.is_empty(), "an experiment on file inputs only: {exp:?}");
        }
    }
    toml::to_string(&doc).unwrap()
}

/// Every plan of `bench/papers/` expands, and runs to the end on tiny
/// stand-ins of its inputs with every run verified against the sequential
/// reference (the full sizes are too slow for a test).
#[test]
fn paper_plans_run_on_tiny_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut plans: Vec<PathBuf> = std::fs::read_dir(root.join("bench/papers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    plans.sort();
    assert!(plans.len() >= 2, "{plans:?}");
    let dir = tempfile::tempdir().unwrap();
    for plan in plans {
        let name = plan.file_name().unwrap().to_str().unwrap().to_string();
        assert!(dry_run_count(&plan) > 0, "{name}: no configurations");
        let tiny = write_plan(dir.path(), &name, &shrink_plan(&std::fs::read_to_string(&plan).unwrap()));
        let configurations = dry_run_count(&tiny);
        let out = dir.path().join(name.replace(".toml", ""));
        let r = bench(&["--plan", tiny.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(r.status.success(), "{name}: {}", String::from_utf8_lossy(&r.stderr));
        let lines = read_lines(&out.join("runs.jsonl"));
        assert_eq!(lines.len(), configurations, "{name}: one run per configuration");
        for line in &lines {
            assert_eq!(line["verified"], Value::Bool(true), "{name}: {line}");
        }
    }
}

/// Ctrl-C (SIGINT) finishes the current run, writes the summaries of what is
/// on disk and exits non-zero.
#[test]
fn interrupt_keeps_finished_runs_and_writes_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        "long.toml",
        "[settings]\nrepetitions = 1000\nwarmup = 0\nthreads = [1]\n\
         [[input]]\nname = \"road\"\ngen = \"road:n=20000,seed=1\"\n\
         [[experiment]]\nname = \"long\"\napps = [\"sssp\"]\nschedulers = [\"pmod\"]\n",
    );
    let out = dir.path().join("out");
    let bin = assert_cmd::cargo::cargo_bin("ordo");
    let child = std::process::Command::new(bin)
        .args(["bench", "--plan", plan.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let runs = out.join("runs.jsonl");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&runs).map_or(0, |t| t.lines().count()) < 3 {
        assert!(start.elapsed().as_secs() < 60, "no runs written");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success(), "an interrupted bench exits non-zero");
    assert!(stderr.contains("interrupted") && stderr.contains("--resume"), "{stderr}");
    let lines = read_lines(&runs);
    assert!(lines.len() >= 3 && lines.len() < 1000, "{} lines", lines.len());
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let row = csv_split(csv.lines().nth(1).unwrap());
    assert_eq!(row[5], lines.len().to_string(), "the summary counts every finished run");
}
