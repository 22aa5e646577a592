//! The work-scheduling microbenchmark of Callisto-RTS §4.1 (Figure 4) with
//! the comparisons: every ordo-loops distributor, the static partition,
//! rayon with and without `with_min_len`, across thread counts and batch
//! sizes; even and skewed work. One CSV line per configuration (median of
//! `--reps` runs after a warm-up run, each run's checksum verified), with
//! the throughput relative to the unsynchronised sequential loop and to the
//! static partition at the same thread count.
//!
//! ```text
//! cargo run --release -p ordo-algos --example loop_micro -- \
//!     [--threads 1,2] [--batches 1,2,4,...,1024] [--shapes even,skewed] \
//!     [--loops shared,striped,striped:level=core,combining,async-combining,rayon] \
//!     [--iterations 4194304] [--work 10] [--reps 5]
//! ```
//!
//! A loop name without `batch` is swept over `--batches`; `static` and
//! `rayon` (rayon's own splitting) run once per thread count; `rayon` with
//! a batch is `par_iter().with_min_len(batch)`.

use std::process::ExitCode;

use ordo_algos::loop_micro::{self, reference, MicroParams, Shape};
use ordo_algos::loop_runner::{LoopKind, LoopRunner, LoopSpec};

struct Options {
    threads: Vec<usize>,
    batches: Vec<usize>,
    shapes: Vec<Shape>,
    loops: Vec<String>,
    iterations: usize,
    work: u32,
    reps: usize,
}

fn parse_list<T: std::str::FromStr>(flag: &str, text: &str) -> Result<Vec<T>, String> {
    text.split(',').map(|s| s.trim().parse().map_err(|_| format!("{flag}: cannot parse `{s}`"))).collect()
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        threads: vec![1, ordo_loops::available_cores()],
        batches: (0..=10).map(|k| 1 << k).collect(),
        shapes: vec![Shape::Even, Shape::Skewed],
        loops: ["shared", "striped", "striped:level=core", "combining", "async-combining", "rayon"]
            .map(String::from)
            .to_vec(),
        iterations: 1 << 22,
        work: 10,
        reps: 5,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let value = args.get(i + 1).ok_or_else(|| format!("{flag} needs a value"))?;
        match flag {
            "--threads" => o.threads = parse_list(flag, value)?,
            "--batches" => o.batches = parse_list(flag, value)?,
            "--shapes" => o.shapes = parse_list(flag, value)?,
            "--loops" => o.loops = value.split(',').map(|s| s.trim().to_string()).collect(),
            "--iterations" => o.iterations = value.parse().map_err(|_| format!("{flag}: `{value}`"))?,
            "--work" => o.work = value.parse().map_err(|_| format!("{flag}: `{value}`"))?,
            "--reps" => o.reps = value.parse::<usize>().map_err(|_| format!("{flag}: `{value}`"))?.max(1),
            _ => return Err(format!("unknown option `{flag}`")),
        }
        i += 2;
    }
    Ok(o)
}

/// Median, min and max of `samples`.
fn stats(mut samples: Vec<f64>) -> (f64, f64, f64) {
    samples.sort_by(f64::total_cmp);
    (samples[samples.len() / 2], samples[0], samples[samples.len() - 1])
}

/// Runs one configuration `reps` times after a warm-up; returns the times.
fn measure(runner: &LoopRunner, params: &MicroParams, reps: usize) -> Result<Vec<f64>, String> {
    let expected = reference::expected(params);
    let mut times = Vec::new();
    for rep in 0..=reps {
        let (sum, seconds) = loop_micro::run(runner, params);
        loop_micro::verify::verify(&expected, &sum).map_err(|e| format!("{runner:?}: {e}"))?;
        if rep > 0 {
            times.push(seconds);
        }
    }
    Ok(times)
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("shape,threads,loop,batch,median_s,min_s,max_s,ns_per_iteration,vs_seq,vs_static");
    for &shape in &o.shapes {
        let params = MicroParams { iterations: o.iterations, work: o.work, shape };
        let seq: Vec<f64> = (0..o.reps).map(|_| reference::run(&params).1).collect();
        let (seq_median, seq_min, seq_max) = stats(seq);
        let per_iteration = seq_median * 1e9 / o.iterations as f64;
        println!(
            "{},1,sequential,,{seq_median:.6},{seq_min:.6},{seq_max:.6},{per_iteration:.2},1.000,",
            shape.name()
        );
        for &threads in &o.threads {
            let mut configs: Vec<String> = vec!["static".to_string()];
            for name in &o.loops {
                let batched = name.contains("batch=") || name == "static" || name == "rayon";
                if batched {
                    configs.push(name.clone());
                } else {
                    for b in &o.batches {
                        let sep = if name.contains(':') { ',' } else { ':' };
                        configs.push(format!("{name}{sep}batch={b}"));
                    }
                }
                if name == "rayon" {
                    configs.extend(o.batches.iter().map(|b| format!("rayon:batch={b}")));
                }
            }
            let mut static_median = f64::NAN;
            for config in configs {
                let spec: LoopSpec = match config.parse() {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("error: --loops: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                let runner = match LoopRunner::new(&spec, threads, None) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                let times = match measure(&runner, &params, o.reps) {
                    Ok(t) => t,
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::FAILURE;
                    }
                };
                let (median, min, max) = stats(times);
                if config == "static" {
                    static_median = median;
                }
                let batch = spec.batch().map(|b| b.to_string()).unwrap_or_default();
                let name = config.split(':').next().unwrap_or(&config);
                let label = match &spec.kind {
                    LoopKind::Loops(d) => {
                        d.to_string().replace(&format!("batch={batch}"), "").replace(":,", ":")
                    }
                    LoopKind::Rayon { .. } => name.to_string(),
                };
                let label = label.trim_end_matches([',', ':']).to_string();
                println!(
                    "{},{threads},\"{label}\",{batch},{median:.6},{min:.6},{max:.6},{:.2},{:.3},{:.3}",
                    shape.name(),
                    median * 1e9 / o.iterations as f64,
                    seq_median / median,
                    static_median / median
                );
            }
        }
    }
    ExitCode::SUCCESS
}
