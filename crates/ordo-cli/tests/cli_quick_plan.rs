//! Smoke test of the checked-in `bench/quick.toml`: a fresh clone
//! runs `ordo bench --plan bench/quick.toml --out DIR && ordo plot DIR`, and
//! every file the two commands promise exists and is well formed.
//!
//! The plan takes under a minute in an optimised build on 2 cores; the
//! optional real-graph inputs are skipped when `../shared/data` is absent.

use std::collections::BTreeSet;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn ordo() -> Command {
    Command::cargo_bin("ordo").unwrap()
}

fn plan() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/quick.toml")
}

/// The number of measured runs the plan promises, from `--dry-run`'s last line
/// (`N configurations, R measured runs, ...`).
fn promised_runs(out: &Path) -> usize {
    let dry =
        ordo().args(["bench", "--plan"]).arg(plan()).arg("--out").arg(out).arg("--dry-run").output().unwrap();
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let text = String::from_utf8(dry.stdout).unwrap() + &String::from_utf8(dry.stderr).unwrap();
    let last = text.lines().rev().find(|l| l.contains("measured runs")).expect("dry-run prints a count line");
    let words: Vec<&str> = last.split_whitespace().collect();
    let i = words.iter().position(|w| *w == "measured").unwrap();
    words[i - 1].parse().unwrap()
}

#[test]
fn quick_plan_runs_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("quick");
    let expected_runs = promised_runs(&out);
    assert!(expected_runs > 0);

    let bench = ordo().args(["bench", "--plan"]).arg(plan()).arg("--out").arg(&out).output().unwrap();
    assert!(bench.status.success(), "ordo bench failed: {}", String::from_utf8_lossy(&bench.stderr));
    for f in ["runs.jsonl", "summary.csv", "summary.md", "plan.toml", "machine.json"] {
        let p = out.join(f);
        assert!(p.metadata().map(|m| m.len() > 0).unwrap_or(false), "{} missing or empty", p.display());
    }
    let runs: Vec<Value> = std::fs::read_to_string(out.join("runs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}")))
        .collect();
    assert_eq!(runs.len(), expected_runs, "one line per measured run");
    let mut apps = BTreeSet::new();
    for r in &runs {
        assert_eq!(r["verified"], true, "every run verified: {r}");
        assert!(r["time_s"].as_f64().unwrap() > 0.0);
        assert!(r["tasks"].as_u64().unwrap() > 0);
        apps.insert(r["app"].as_str().unwrap().to_string());
    }
    for app in ["sssp", "bfs", "astar", "pr", "pr-d", "mst"] {
        assert!(apps.contains(app), "quick.toml covers {app}: {apps:?}");
    }
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.lines().count() > 1, "summary.csv has a header and rows");
    let header_cols = csv.lines().next().unwrap().split(',').count();
    assert!(csv.lines().all(|l| !l.is_empty()));
    assert!(header_cols >= 8, "summary.csv header: {}", csv.lines().next().unwrap());

    let plot = ordo().arg("plot").arg(&out).output().unwrap();
    assert!(plot.status.success(), "ordo plot failed: {}", String::from_utf8_lossy(&plot.stderr));
    let plots = out.join("plots");
    let index = std::fs::read_to_string(plots.join("index.md")).unwrap();
    let table5 = std::fs::read_to_string(plots.join("table5.md")).unwrap();
    assert!(table5.contains('|'), "table5.md is a Markdown table");
    let mut pngs = 0;
    for entry in std::fs::read_dir(&plots).unwrap() {
        let p = entry.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        match p.extension().and_then(|e| e.to_str()) {
            Some("png") => {
                pngs += 1;
                assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is a PNG", p.display());
                let name = p.file_name().unwrap().to_str().unwrap();
                assert!(index.contains(name), "index.md lists {name}");
                assert!(p.with_extension("svg").exists(), "{} has an SVG twin", p.display());
            }
            Some("svg") => {
                let text = String::from_utf8(bytes).unwrap();
                assert!(text.contains("<svg") && text.trim_end().ends_with("</svg>"), "{}", p.display());
            }
            _ => {}
        }
    }
    assert!(
        pngs >= 10,
        "expected the speedup, breakdown, work, delta, heatmap, lmf and Table 5 plots; got {pngs}"
    );
}
