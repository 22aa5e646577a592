//! Spanning-forest benchmark driver: runs one or more variants on one input
//! and prints one JSON line per configuration with the median, min and max
//! time and million edges per second (MEPS, edges = undirected edges of the
//! input, [`Undirected::num_edges`]), plus the runtime's counters.
//!
//! ```text
//! cargo run --release -p ordo-algos --example spanning -- \
//!     (--gen SPEC | --graph FILE) [--variant V[,V...]] [--batch B[,B...]] \
//!     [--threads T[,T...]] [--reps R] [--verify] [--table1]
//! ```
//!
//! Variants: `dfs`, `bfs` (ordo-steal, `--batch adaptive|adaptive:S|S`),
//! `simple-dfs`, `simple-bfs` (C-style SIMPLE baselines), `rayon-dfs`,
//! `rayon-bfs` (`--batch S`, default 128), `seq-dfs`, `seq-bfs` (sequential
//! references). `--table1` runs `dfs` and `bfs` with S = 1, 2, 4, ..., 2048
//! and adaptive: the analogue of the XWS paper's Table 1. Runs are
//! interleaved per repetition (all configurations, then again), so slow
//! drifts of a shared machine spread over all of them.

use std::error::Error;
use std::time::Instant;

use ordo_algos::spanning::{
    self, reference, simple, verify, with_rayon, BatchPolicy, SpanOptions, SpanRun, Undirected,
};
use ordo_graph::gen::GenSpec;

#[derive(Clone, Debug)]
struct Config {
    variant: String,
    batch: BatchPolicy,
    threads: usize,
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let list = |flag: &str, default: &str| -> Vec<String> {
        value(flag).unwrap_or_else(|| default.to_string()).split(',').map(str::to_string).collect()
    };
    let verify = args.iter().any(|a| a == "--verify");
    let reps: usize = value("--reps").map_or(Ok(5), |r| r.parse())?;

    let t = Instant::now();
    let (name, input) = match (value("--gen"), value("--graph")) {
        (Some(spec), None) => (spec.clone(), spec.parse::<GenSpec>()?.generate()?),
        (None, Some(path)) => (
            path.clone(),
            ordo_graph::load(std::path::Path::new(&path), &ordo_graph::LoadOptions::default())?,
        ),
        _ => return Err("give exactly one of --gen SPEC and --graph FILE".into()),
    };
    let graph = Undirected::new(&input);
    eprintln!(
        "{name}: {} vertices, {} undirected edges{} ({:.1} s to prepare)",
        graph.num_vertices(),
        graph.num_edges(),
        if graph.was_symmetrized() { ", symmetrized" } else { "" },
        t.elapsed().as_secs_f64()
    );

    let threads: Vec<usize> = list("--threads", "1,2").iter().map(|t| t.parse()).collect::<Result<_, _>>()?;
    let mut configs = Vec::new();
    let table1 = args.iter().any(|a| a == "--table1");
    let variants =
        if table1 { vec!["dfs".to_string(), "bfs".to_string()] } else { list("--variant", "dfs,bfs") };
    let batches: Vec<BatchPolicy> = if table1 {
        let mut b: Vec<BatchPolicy> = (0..=11).map(|k| BatchPolicy::Fixed(1 << k)).collect();
        b.push(BatchPolicy::default());
        b
    } else {
        list("--batch", "adaptive").iter().map(|b| b.parse()).collect::<Result<_, _>>()?
    };
    for &t in &threads {
        for v in &variants {
            let batched = matches!(v.as_str(), "dfs" | "bfs" | "rayon-dfs" | "rayon-bfs");
            for &b in if batched { &batches[..] } else { &batches[..1] } {
                configs.push(Config { variant: v.clone(), batch: b, threads: t });
            }
        }
    }

    let pools: Vec<(usize, ordo_steal::Pool, rayon::ThreadPool)> = threads
        .iter()
        .map(|&t| Ok((t, ordo_steal::Pool::new(t)?, rayon::ThreadPoolBuilder::new().num_threads(t).build()?)))
        .collect::<Result<_, Box<dyn Error>>>()?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut last: Vec<Option<SpanRun>> = vec![None; configs.len()];
    for _rep in 0..reps {
        for (i, c) in configs.iter().enumerate() {
            let (_, pool, rayon_pool) =
                pools.iter().find(|p| p.0 == c.threads).expect("a pool per thread count");
            let options = SpanOptions { batch: c.batch, ..SpanOptions::default() };
            let start = Instant::now();
            let run = match c.variant.as_str() {
                "dfs" => spanning::span_dfs(pool, &graph, &options),
                "bfs" => spanning::span_bfs(pool, &graph, &options),
                "simple-dfs" => simple::span_dfs(c.threads, &graph),
                "simple-bfs" => simple::span_bfs(c.threads, &graph),
                "rayon-dfs" => with_rayon::span_dfs(rayon_pool, &graph, rayon_batch(c.batch)),
                "rayon-bfs" => with_rayon::span_bfs(rayon_pool, &graph, rayon_batch(c.batch)),
                "seq-dfs" | "seq-bfs" => {
                    let parent = if c.variant == "seq-dfs" {
                        reference::dfs_forest(&graph)
                    } else {
                        reference::bfs_forest(&graph)
                    };
                    SpanRun { parent, stats: Default::default(), elapsed: start.elapsed() }
                }
                other => return Err(format!("unknown variant `{other}`").into()),
            };
            times[i].push(run.elapsed.as_secs_f64());
            last[i] = Some(run);
        }
    }
    for (i, c) in configs.iter().enumerate() {
        let run = last[i].as_ref().expect("at least one repetition");
        let mut verified = String::from("null");
        if verify {
            let summary = verify::check_spanning_forest(&graph, &run.parent)
                .map_err(|e| format!("{} {} t{}: {e}", c.variant, c.batch, c.threads))?;
            if c.variant.ends_with("bfs") {
                verify::check_bfs_levels(&graph, &run.parent)?;
            }
            verified = format!("true,\"components\":{}", summary.components);
        }
        let mut t = times[i].clone();
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        let meps = |s: f64| graph.num_edges() as f64 / s / 1e6;
        let s = &run.stats;
        println!(
            "{{\"graph\":\"{name}\",\"variant\":\"{}\",\"batch\":\"{}\",\"threads\":{},\"n\":{},\"edges\":{},\
             \"reps\":{},\"time_s\":{median:.6},\"time_min_s\":{:.6},\"time_max_s\":{:.6},\"meps\":{:.2},\
             \"meps_min\":{:.2},\"meps_max\":{:.2},\"frames\":{},\"steals\":{},\"vertices_per_frame\":{:.1},\
             \"phases\":{},\"parks\":{},\"verified\":{verified}}}",
            c.variant,
            c.batch,
            c.threads,
            graph.num_vertices(),
            graph.num_edges(),
            t.len(),
            t[0],
            t[t.len() - 1],
            meps(median),
            meps(t[t.len() - 1]),
            meps(t[0]),
            s.runtime.frames,
            s.runtime.steals,
            s.vertices_per_frame(),
            s.phases,
            s.runtime.parks,
        );
    }
    Ok(())
}

/// rayon has no deque size to adapt to: adaptive means its cap `S`.
fn rayon_batch(b: BatchPolicy) -> u32 {
    b.max()
}
