//! Text parsing speed: writes a large random graph (>= 200 MB of text by
//! default) to /tmp as a weighted edge list, an unweighted SNAP list and a
//! DIMACS `.gr`, then loads
//! each in a fresh child process and reports MB/s (file size / wall time of
//! `load`, CSR construction included) and peak memory relative to the CSR.
//!
//! ```text
//! cargo run --release -p ordo-graph --example parse_speed [-- MB [edges|snap|gr|all]]
//! ```
//! The files are kept in /tmp (`ordo_parse_speed.*`) and reused by later
//! runs; delete them to regenerate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ordo_graph::load::{load, Format, LoadOptions};
use ordo_graph::write::save;
use ordo_graph::EdgeList;
use rand::{RngExt, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--child" {
        child(Path::new(&args[2]), &args[3]);
        return;
    }
    let mb: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(220.0);
    let which = args.get(2).map(String::as_str).unwrap_or("all");
    for (format, ext) in [(Format::EdgeList, "el"), (Format::Snap, "snap"), (Format::DimacsGr, "gr")] {
        if which != "all" && which != format.name() && which != ext {
            continue;
        }
        let path = PathBuf::from(format!("/tmp/ordo_parse_speed.{ext}"));
        ensure_file(&path, format, mb);
        let out = Command::new(&args[0])
            .args(["--child", path.to_str().unwrap(), format.name()])
            .output()
            .expect("run child");
        print!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Writes a random weighted graph with about `mb` megabytes of text.
fn ensure_file(path: &Path, format: Format, mb: f64) {
    if path.is_file() && path.metadata().unwrap().len() as f64 >= mb * 0.9e6 {
        return;
    }
    // Bytes per edge line for ids below 2^24 and weights below 10^6.
    let bytes_per_edge = match format {
        Format::DimacsGr => 23.0,
        Format::Snap => 15.0,
        _ => 21.0,
    };
    let m = (mb * 1e6 / bytes_per_edge) as usize;
    let n = (m / 8).max(2);
    eprintln!("writing {} ({m} edges, {n} vertices) ...", path.display());
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(42);
    let weighted = format != Format::Snap;
    let mut el = EdgeList::new(n, weighted);
    for _ in 0..m {
        let (u, v, w) =
            (rng.random_range(0..n as u32), rng.random_range(0..n as u32), rng.random_range(1..1_000_000));
        el.push(u, v, w);
    }
    let g = el.into_graph().unwrap();
    save(&g, path, format).unwrap();
}

/// Loads `path` and prints speed and memory.
fn child(path: &Path, format: &str) {
    let size = path.metadata().unwrap().len() as f64;
    let opts = LoadOptions { format: Some(format.parse().unwrap()), ..Default::default() };
    let start = Instant::now();
    let g = load(path, &opts).unwrap();
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds();
    let csr = g.memory_bytes() as f64;
    let peak = peak_rss_bytes();
    println!(
        "{format}: {:.0} MB in {secs:.2} s = {:.0} MB/s (CPU {cpu:.2} s = {:.0} MB/s per CPU second); n = {}, m = {}; \
         CSR {:.0} MB, peak RSS {:.0} MB = {:.2}x CSR",
        size / 1e6,
        size / 1e6 / secs,
        size / 1e6 / cpu,
        g.num_vertices(),
        g.num_edges(),
        csr / 1e6,
        peak / 1e6,
        peak / csr
    );
}

/// User + system CPU time of this process so far (Linux), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the
    // 12th and 13th of them, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (tick(11) + tick(12)) / 100.0
}

/// Peak resident set size of this process (Linux `VmHWM`), 0 elsewhere.
fn peak_rss_bytes() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb * 1024.0)
}
