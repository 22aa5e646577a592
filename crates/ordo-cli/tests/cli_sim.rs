//! `ordo sim` end to end: one JSON record per virtual-thread count in the
//! bench record format, `--out` equal to `ordo run --out`, determinism,
//! errors, and `ordo plot` drawing the records.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

const ROAD: &str = "road:n=3000,seed=5";

/// Runs `ordo sim ARGS --json` successfully; one parsed object per line.
fn sim_json(args: &[&str]) -> Vec<Value> {
    let out = ordo().arg("sim").args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo sim {args:?} failed: {stderr}");
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The fields that depend on the clock, the machine or the build.
const UNSTABLE: [&str; 6] =
    ["sim_time_s", "timestamp", "peak_rss_bytes", "machine", "git_rev", "ordo_version"];

#[test]
fn json_has_one_record_per_count_with_every_measure() {
    let lines = sim_json(&["sssp", "--gen", ROAD, "--sched", "smq", "--vthreads", "1,4,16", "--seed", "3"]);
    assert_eq!(lines.len(), 3);
    for (line, vthreads) in lines.iter().zip([1, 4, 16]) {
        for key in [
            "kind",
            "experiment",
            "app",
            "input",
            "graph",
            "n",
            "m",
            "scheduler",
            "spec",
            "threads",
            "vthreads",
            "policy",
            "seed",
            "tasks",
            "stale_tasks",
            "work_increase",
            "rank_mean",
            "rank_p50",
            "rank_p90",
            "rank_p99",
            "rank_max",
            "rank_histogram",
            "invisible_max",
            "invisible_mean",
            "unpublished_fraction_mean",
            "shared_touches",
            "remote_accesses",
            "traces",
            "verified",
            "reached",
            "sum_dist",
            "git_rev",
            "timestamp",
        ] {
            assert!(line.get(key).is_some(), "missing `{key}` in {line}");
        }
        assert_eq!(line["kind"], "sim");
        assert_eq!(line["vthreads"], vthreads);
        assert_eq!(line["threads"], vthreads);
        assert_eq!(line["verified"], true);
        assert_eq!(line["reached"], 3000);
        let wi = line["work_increase"].as_f64().unwrap();
        let tasks = line["tasks"].as_f64().unwrap();
        assert!((wi - tasks / line["baseline_tasks"].as_f64().unwrap()).abs() < 1e-12);
        let hist: u64 =
            line["rank_histogram"].as_array().unwrap().iter().map(|b| b[2].as_u64().unwrap()).sum();
        assert_eq!(hist, line["tasks"].as_u64().unwrap(), "one rank per pop");
    }
    assert_eq!(lines[0]["rank_max"], 0, "smq on one thread is exact");
    assert!(lines[2]["rank_mean"].as_f64().unwrap() > 0.0, "16 threads relax the order");
}

#[test]
fn out_files_equal_ordo_run_out() {
    let dir = tempfile::tempdir().unwrap();
    for app in ["sssp", "bfs", "astar"] {
        let sim_out = dir.path().join(format!("{app}-sim.txt"));
        let run_out = dir.path().join(format!("{app}-run.txt"));
        let st = ordo()
            .args([
                "sim",
                app,
                "--gen",
                ROAD,
                "--sched",
                "obim:delta=8",
                "--vthreads",
                "2,32",
                "--policy",
                "random",
            ])
            .arg("--out")
            .arg(&sim_out)
            .output()
            .unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
        let st = ordo()
            .args(["run", app, "--gen", ROAD, "--sched", "strict", "--threads", "1", "--verify"])
            .arg("--out")
            .arg(&run_out)
            .output()
            .unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
        let (sim, run) =
            (std::fs::read_to_string(&sim_out).unwrap(), std::fs::read_to_string(&run_out).unwrap());
        if app == "astar" {
            // Paths may differ among shortest paths; source, target and length may not.
            let ends = |t: &str| {
                let l: Vec<&str> = t.lines().collect();
                (l[0].to_string(), l[l.len() - 2].to_string(), l[l.len() - 1].to_string())
            };
            assert_eq!(ends(&sim), ends(&run), "A* path ends and length");
            assert!(sim.lines().last().unwrap().starts_with("length "));
        } else {
            assert_eq!(sim, run, "{app}: `ordo sim --out` equals `ordo run --out`");
        }
    }
}

#[test]
fn a_seed_gives_the_same_records() {
    let strip = |mut lines: Vec<Value>| {
        for l in &mut lines {
            for k in UNSTABLE {
                l.as_object_mut().unwrap().remove(k);
            }
        }
        lines
    };
    for sched in ["pmod", "mq", "spraylist"] {
        let args =
            ["bfs", "--gen", ROAD, "--sched", sched, "--vthreads", "8,64", "--policy", "skewed:gamma=0.3"];
        let a = strip(sim_json(&args));
        let b = strip(sim_json(&args));
        assert_eq!(a, b, "{sched}");
    }
}

#[test]
fn text_report_and_errors() {
    let out =
        ordo().args(["sim", "astar", "--gen", ROAD, "--sched", "reld", "--vthreads", "4"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("every result verified") && text.contains("rank_mean"), "{text}");
    for (args, expect) in [
        (vec!["pr", "--gen", ROAD], "runs sssp, bfs and astar"),
        (vec!["sssp", "--gen", ROAD, "--vthreads", "0"], "--vthreads 0"),
        (vec!["sssp", "--gen", ROAD, "--policy", "fair"], "--policy `fair`"),
        (vec!["sssp", "--gen", ROAD, "--sched", "nope"], "unknown scheduler"),
        (vec!["sssp", "--gen", ROAD, "--source", "3000"], "source 3000: the graph has 3000 vertices"),
        (vec!["bfs", "--gen", ROAD, "--target", "3"], "target does not apply to bfs"),
        (vec!["sssp", "--gen", ROAD, "--costs", "task=1"], "--costs `task=1`: `edge` is missing"),
        (vec!["sssp", "--gen", ROAD, "--costs", "measured,pop=x"], "`pop=x`: not a whole number of cycles"),
        (vec!["sssp", "--gen", ROAD, "--costs", "measuredx"], "--costs `measuredx`"),
        (vec!["sssp", "--gen", ROAD, "--operator", "fast"], "models the papers' operator only"),
        (vec!["astar", "--gen", ROAD, "--operator", "x"], "expected paper or fast"),
        (
            vec!["sssp", "--gen", ROAD, "--costs", "measured", "--policy", "random"],
            "--policy random does not apply",
        ),
    ] {
        let out = ordo().arg("sim").args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} should fail");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expect), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one error line: {stderr}");
    }
}

#[test]
fn costs_count_time_in_cycles() {
    let lines = sim_json(&[
        "sssp",
        "--gen",
        ROAD,
        "--sched",
        "auto",
        "--vthreads",
        "1,2",
        "--costs",
        "measured,remote=300",
    ]);
    assert_eq!(lines.len(), 2);
    for l in &lines {
        let costs = l["costs"].as_str().unwrap();
        assert!(costs.contains(",remote=300,") && costs.contains("empty_pop=50"), "{costs}");
        assert!(l["simulated_cycles"].as_u64().unwrap() > 0, "{l}");
        assert!(l["simulated_us"].as_f64().unwrap() > 0.0, "{l}");
        assert_eq!(l["verified"], true);
    }
    assert_eq!(lines[0]["remote_data_accesses"], 0, "one thread");
    assert!(lines[1]["remote_data_accesses"].as_u64().unwrap() > 0, "two threads share labels");
    // Given costs: the text shows the simulated time under each row (the
    // library's tests check what it adds up to).
    let given = "task=40,edge=10,stale=10,push=30,pop=5,empty_pop=20,remote=200,microsecond=2000";
    let out = ordo()
        .args(["sim", "bfs", "--gen", ROAD, "--sched", "obim", "--vthreads", "4", "--costs", given])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("timed, cycles per operation {given}")) && text.contains(" cycles ("),
        "{text}"
    );
}

#[test]
fn a_run_over_the_work_budget_is_a_failed_record() {
    let out = ordo()
        .args(["sim", "sssp", "--gen", ROAD, "--sched", "lifo", "--vthreads", "4", "--json"])
        .args(["--max-work-increase", "1.5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("over the work budget with 4 virtual threads"), "{stderr}");
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["verified"], false);
    assert!(line["error"].as_str().unwrap().contains("stopped after 4501 tasks"), "{line}");
    assert_eq!(line["kind"], "sim");
}

fn check_image(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(bytes.len() > 1000, "{}: only {} bytes", path.display(), bytes.len());
}

#[test]
fn ordo_plot_draws_simulated_records_next_to_measured_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for sched in ["strict", "smq"] {
        let out = ordo()
            .args([
                "sim",
                "sssp",
                "--gen",
                "road:n=800,seed=1",
                "--sched",
                sched,
                "--vthreads",
                "1,4,16",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        text.push_str(&String::from_utf8(out.stdout).unwrap());
    }
    // Runs timed in cycles get their speedup figure.
    let costs = "task=40,edge=10,stale=10,push=30,pop=5,empty_pop=20,remote=200,microsecond=2000";
    let out = ordo()
        .args(["sim", "sssp", "--gen", "road:n=800,seed=1", "--sched", "auto", "--vthreads", "1,4", "--json"])
        .args(["--costs", costs])
        .output()
        .unwrap();
    assert!(out.status.success());
    text.push_str(&String::from_utf8(out.stdout).unwrap());
    // A measured run in the same file keeps its plots.
    let out = ordo()
        .args(["run", "sssp", "--gen", "road:n=800,seed=1", "--json", "--threads", "1", "--verify"])
        .output()
        .unwrap();
    let mut measured: Value = serde_json::from_slice(&out.stdout).unwrap();
    measured.as_object_mut().unwrap().insert("input".into(), "road800".into());
    text.push_str(&format!("{measured}\n"));
    std::fs::write(dir.path().join("runs.jsonl"), text).unwrap();
    let out = ordo().arg("plot").arg(dir.path()).args(["--format", "png"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("1 runs, 8 simulated"), "{stdout}");
    let plots = dir.path().join("plots");
    let index = std::fs::read_to_string(plots.join("index.md")).unwrap();
    for kind in
        ["sim-work-sssp", "sim-rank-sssp", "sim-invisible-sssp", "sim-speedup-sssp", "work-sssp-road800"]
    {
        let stem = index
            .lines()
            .find_map(|l| {
                l.strip_prefix("- `").and_then(|l| l.split('`').next()).filter(|s| s.starts_with(kind))
            })
            .unwrap_or_else(|| panic!("no {kind} plot in {index}"));
        check_image(&plots.join(format!("{stem}.png")));
    }
}

#[test]
fn records_say_the_papers_operator_is_modelled() {
    for app in ["sssp", "astar"] {
        let lines = sim_json(&[app, "--gen", ROAD, "--sched", "obim", "--vthreads", "2"]);
        assert_eq!(lines[0]["operator"], "paper", "{app}: {}", lines[0]);
    }
    let bfs = sim_json(&["bfs", "--gen", ROAD, "--sched", "obim", "--vthreads", "2"]);
    assert!(bfs[0].get("operator").is_none(), "BFS has no operator choice");
}
