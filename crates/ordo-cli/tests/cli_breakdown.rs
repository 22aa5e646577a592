//! `ordo run --cycles --classify --json`: the Table 1 breakdown (`breakdown`,
//! `breakdown_per_thread`) and the `work_split` object, with the schema the
//! bench driver and the plots read (documented in `src/report.rs`), and what
//! is `null` without `--cycles` or `--classify`.

use assert_cmd::Command;
use serde_json::Value;

/// The keys of every breakdown object (the fixed schema).
const BREAKDOWN_KEYS: [&str; 10] = [
    "cycles_task",
    "cycles_good",
    "cycles_useless",
    "cycles_enq",
    "cycles_deq",
    "cycles_failed_deq",
    "cycles_other",
    "cycles_total",
    "cycles_per_enq",
    "cycles_per_deq",
];

const GRID: &str = "grid:w=60,h=50,seed=5";

/// Runs `ordo run ARGS --json` successfully and parses its one JSON object.
fn run_json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("ordo").unwrap().arg("run").args(args).arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ordo run {args:?} failed: {stderr}");
    serde_json::from_str(String::from_utf8(out.stdout).unwrap().trim()).unwrap()
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} is not an integer in {v}"))
}

/// Checks one breakdown object: every key, the total is the sum of the five
/// measured classes, good + useless = task (classified runs), and the
/// per-operation costs are the ratios of cycles and operations.
fn check_breakdown(b: &Value, classified: bool) {
    for key in BREAKDOWN_KEYS {
        assert!(b.get(key).is_some(), "breakdown lacks {key}: {b}");
    }
    let task = u64_of(b, "cycles_task");
    let five = task
        + u64_of(b, "cycles_enq")
        + u64_of(b, "cycles_deq")
        + u64_of(b, "cycles_failed_deq")
        + u64_of(b, "cycles_other");
    assert_eq!(u64_of(b, "cycles_total"), five, "{b}");
    assert!(five > 0, "the clock ran: {b}");
    if classified {
        assert_eq!(u64_of(b, "cycles_good") + u64_of(b, "cycles_useless"), task, "{b}");
    } else {
        assert!(b["cycles_good"].is_null() && b["cycles_useless"].is_null(), "{b}");
    }
    for (per, cycles, ops) in
        [("cycles_per_enq", "cycles_enq", "enq_ops"), ("cycles_per_deq", "cycles_deq", "deq_ops")]
    {
        let n = u64_of(b, ops);
        if n == 0 {
            assert!(b[per].is_null(), "{per} without operations: {b}");
        } else {
            let want = u64_of(b, cycles) as f64 / n as f64;
            assert!((b[per].as_f64().unwrap() - want).abs() <= 1e-9 * want.max(1.0), "{per}: {b}");
        }
    }
}

#[test]
fn sssp_cycles_classify_json_has_the_full_breakdown() {
    for threads in ["1", "2"] {
        let v = run_json(&[
            "sssp",
            "--gen",
            GRID,
            "--sched",
            "obim",
            "--threads",
            threads,
            "--cycles",
            "--classify",
            "--verify",
        ]);
        let b = &v["breakdown"];
        check_breakdown(b, true);
        let per_thread = v["breakdown_per_thread"].as_array().expect("a per-thread list");
        assert_eq!(per_thread.len().to_string(), threads);
        for t in per_thread {
            check_breakdown(t, true);
        }
        // The total is the per-thread sum, key by key.
        for key in
            ["cycles_task", "cycles_good", "cycles_useless", "cycles_enq", "cycles_other", "cycles_total"]
        {
            let sum: u64 = per_thread.iter().map(|t| u64_of(t, key)).sum();
            assert_eq!(u64_of(b, key), sum, "{key}");
        }
        let w = &v["work_split"];
        let (good, useless) = (u64_of(w, "good_tasks"), u64_of(w, "useless_tasks"));
        assert_eq!(good, u64_of(&v, "reached"), "one good task per reached vertex");
        assert_eq!(good + useless, u64_of(&v, "tasks"));
        assert!(useless >= u64_of(&v, "stale_tasks"));
        assert_eq!(u64_of(w, "good_cycles"), u64_of(b, "cycles_good"));
        assert_eq!(u64_of(w, "useless_cycles"), u64_of(b, "cycles_useless"));
        // The cycle classes left the scheduler counters.
        let counters = v["sched_counters"].as_object().unwrap();
        assert!(counters.keys().all(|k| !k.starts_with("cycles_")), "{counters:?}");
        assert!(v.get("cycles_per_thread").is_none());
    }
}

#[test]
fn bfs_classify_without_cycles_splits_tasks_only() {
    let v = run_json(&["bfs", "--gen", GRID, "--sched", "pmod", "--threads", "2", "--classify"]);
    assert!(v["breakdown"].is_null() && v["breakdown_per_thread"].is_null(), "{v}");
    let w = &v["work_split"];
    assert_eq!(u64_of(w, "good_tasks"), 60 * 50, "a grid is connected: every vertex once");
    assert_eq!(u64_of(w, "good_tasks") + u64_of(w, "useless_tasks"), u64_of(&v, "tasks"));
    assert_eq!((u64_of(w, "good_cycles"), u64_of(w, "useless_cycles")), (0, 0));
}

#[test]
fn cycles_without_classify_leaves_good_and_useless_null() {
    let v = run_json(&["sssp", "--gen", GRID, "--sched", "smq", "--threads", "2", "--cycles"]);
    check_breakdown(&v["breakdown"], false);
    for t in v["breakdown_per_thread"].as_array().unwrap() {
        check_breakdown(t, false);
    }
    assert!(v["work_split"].is_null());
}

#[test]
fn text_report_shows_the_six_classes() {
    let out = Command::cargo_bin("ordo")
        .unwrap()
        .args(["run", "sssp", "--gen", GRID, "--threads", "2", "--cycles", "--classify"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for class in
        ["good work", "useless work", "enq", "deq", "failed deq", "other", "per enq / deq", "thread 1"]
    {
        assert!(text.contains(class), "no `{class}` in:\n{text}");
    }
}

/// `--cycles --classify` take both operators and the report says which ran;
/// the paper's operator on a road graph runs a task for every reached
/// vertex at its final distance (one good task each), and A* takes it too.
#[test]
fn the_breakdown_runs_either_operator_and_says_which() {
    let road = "road:n=3000,seed=2";
    for operator in ["paper", "fast"] {
        let v = run_json(&[
            "sssp",
            "--gen",
            road,
            "--sched",
            "obim-D",
            "--threads",
            "2",
            "--cycles",
            "--classify",
            "--verify",
            "--operator",
            operator,
        ]);
        assert_eq!(v["operator"], operator, "{v}");
        check_breakdown(&v["breakdown"], true);
        assert_eq!(u64_of(&v["work_split"], "good_tasks"), u64_of(&v, "reached"), "{operator}");
        let a = run_json(&["astar", "--gen", road, "--threads", "2", "--classify", "--operator", operator]);
        assert_eq!(a["operator"], operator, "{a}");
    }
    let v = run_json(&["sssp", "--gen", road, "--threads", "2"]);
    assert_eq!(v["operator"], "fast", "the default");
    let out = Command::cargo_bin("ordo")
        .unwrap()
        .args(["run", "sssp", "--gen", road, "--operator", "quick"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected paper or fast"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
