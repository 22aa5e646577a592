//! `ordo info FILE | --gen SPEC`: describe a graph — counts, out-degree
//! distribution, weights (range, distinct values), coordinates, symmetry,
//! reachability from a source, weakly connected components (Afforest, the `cc`
//! kernel, on the run's threads) and strongly connected ones (Tarjan),
//! load time.

use std::path::PathBuf;
use std::time::Instant;

use ordo_graph::stats::{self, GraphStats};
use ordo_graph::{CoordSystem, Graph};
use serde_json::{json, Value};

use crate::console;
use crate::input::{load_input_with, InputArgs};
use crate::progress::Progress;

/// Arguments of `ordo info`.
#[derive(clap::Args)]
pub(crate) struct InfoArgs {
    /// Graph file (same as --graph).
    #[arg(value_name = "FILE", conflicts_with_all = ["graph", "gen"])]
    file: Option<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Source vertex (0-based id) for the reachability summary.
    #[arg(long, default_value_t = 0)]
    source: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Everything `ordo info` reports, as one JSON object (the text output prints
/// the same fields).
/// With two or more threads the search from the source runs on a thread of
/// its own beside the other statistics (`stats::WORKING_MEMORY` counts both).
fn describe(name: &str, g: &Graph, load_s: f64, source: u32, threads: usize) -> anyhow::Result<Value> {
    let t = Instant::now();
    let n = g.num_vertices();
    let not_a_vertex =
        || anyhow::anyhow!("--source {source} is not a vertex (the graph has {n} vertices, ids 0..{n})");
    if source as usize >= n {
        return Err(not_a_vertex()); // before the statistics, not after them
    }
    let rest = || -> anyhow::Result<_> { Ok((stats::graph_stats(g), connectivity(g, threads)?)) };
    let (reach, rest) = if threads >= 2 {
        std::thread::scope(|s| {
            let reach = s.spawn(|| stats::reachable_from(g, source));
            let rest = rest();
            (reach.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), rest)
        })
    } else {
        (stats::reachable_from(g, source), rest())
    };
    let (summary, connectivity) = rest?;
    let GraphStats { n, m, degree, self_loops, parallel_edges, weights, has_coords } = summary;
    let reach = reach.ok_or_else(not_a_vertex)?;
    let stats::Connectivity { weak: components, strong, symmetric } = connectivity;
    let stats_s = t.elapsed().as_secs_f64();
    let pct = |x: u64| if n == 0 { 0.0 } else { 100.0 * x as f64 / n as f64 };
    Ok(json!({
        "graph": name,
        "n": n,
        "m": m,
        "degree": degree.map(|d| json!({
            "min": d.min, "max": d.max, "avg": d.avg, "p50": d.p50, "p90": d.p90, "p99": d.p99,
            "zero_out_degree": d.zero_degree,
        })),
        "self_loops": self_loops,
        "parallel_edges": parallel_edges,
        "weighted": g.is_weighted(),
        "weights": weights.map(|w| json!({
            "min": w.min, "max": w.max, "distinct": w.distinct,
            "avg": if m == 0 { 0.0 } else { w.sum as f64 / m as f64 },
        })),
        // Real weights: min, max and mean (no distinct count).
        "real_weights": g.real_weights().filter(|w| !w.is_empty()).map(|w| json!({
            "min": w.iter().copied().fold(f64::INFINITY, f64::min),
            "max": w.iter().copied().fold(0.0, f64::max),
            "avg": w.iter().sum::<f64>() / w.len() as f64,
        })),
        "coords": has_coords.then(|| match g.coords().map(|c| c.system) {
            Some(CoordSystem::LonLatMicroDegrees) => "lonlat",
            _ => "planar",
        }),
        "symmetric": symmetric,
        "reach": {
            "source": source, "reached": reach.reached, "reached_pct": pct(reach.reached),
            "bfs_depth": reach.max_level,
        },
        "weak_components": {
            "count": components.count, "largest": components.largest, "largest_pct": pct(components.largest),
        },
        "strong_components": {
            "count": strong.count, "largest": strong.largest, "largest_pct": pct(strong.largest),
        },
        "memory_bytes": g.memory_bytes(),
        // Read after the statistics, which touched every array.
        "huge_page_bytes": g.huge_page_bytes(),
        "load_s": load_s,
        "stats_s": stats_s,
    }))
}

/// Weak components by the parallel `cc` kernel on `threads` threads, strong
/// components by Tarjan's search (only when the graph is not symmetric: in
/// a symmetric graph they are the weak ones).
fn connectivity(g: &Graph, threads: usize) -> anyhow::Result<stats::Connectivity> {
    let symmetric = stats::is_symmetric(g);
    let pool =
        ordo_exec::Pool::new(threads).map_err(|e| anyhow::anyhow!("cannot start the worker threads: {e}"))?;
    let cc = ordo_algos::cc::weak_component_stats(&pool, g, symmetric);
    let weak = stats::Components { count: cc.components, largest: cc.largest };
    let strong = if symmetric { weak } else { stats::strong_components(g) };
    Ok(stats::Connectivity { weak, strong, symmetric })
}

fn print_text(v: &Value) -> anyhow::Result<()> {
    let s = |k: &str| v[k].to_string();
    console::outln!("graph       {}", v["graph"].as_str().unwrap_or(""))?;
    console::outln!("vertices    {}", s("n"))?;
    console::outln!("edges       {} (directed)", s("m"))?;
    if let Some(d) = v["degree"].as_object() {
        console::outln!(
            "out-degree  min {}, avg {:.3}, p50 {}, p90 {}, p99 {}, max {}; {} vertices without out-edges",
            d["min"],
            d["avg"].as_f64().unwrap_or(0.0),
            d["p50"],
            d["p90"],
            d["p99"],
            d["max"],
            d["zero_out_degree"]
        )?;
    }
    console::outln!("self loops  {}", s("self_loops"))?;
    console::outln!(
        "parallel    {} edges repeating an earlier edge's ends (loops aside)",
        s("parallel_edges")
    )?;
    match v["weights"].as_object() {
        Some(w) => console::outln!(
            "weights     min {}, max {}, avg {:.1}, {} distinct values",
            w["min"],
            w["max"],
            w["avg"].as_f64().unwrap_or(0.0),
            w["distinct"]
        )?,
        None if v["real_weights"].is_object() => {
            let w = &v["real_weights"];
            console::outln!("weights     real: min {}, max {}, avg {}", w["min"], w["max"], w["avg"])?
        }
        None if v["weighted"].as_bool() == Some(true) => console::outln!("weights     (no edges)")?,
        None => console::outln!("weights     none (unweighted)")?,
    }
    console::outln!("coords      {}", v["coords"].as_str().unwrap_or("none"))?;
    console::outln!("symmetric   {}", if v["symmetric"].as_bool() == Some(true) { "yes" } else { "no" })?;
    let r = &v["reach"];
    console::outln!(
        "reach       from {}: {} vertices ({:.2}%), BFS depth {}",
        r["source"],
        r["reached"],
        r["reached_pct"].as_f64().unwrap_or(0.0),
        r["bfs_depth"]
    )?;
    let c = &v["weak_components"];
    console::outln!(
        "components  {} weakly connected, largest {} vertices ({:.2}%)",
        c["count"],
        c["largest"],
        c["largest_pct"].as_f64().unwrap_or(0.0)
    )?;
    let c = &v["strong_components"];
    console::outln!(
        "            {} strongly connected, largest {} vertices ({:.2}%)",
        c["count"],
        c["largest"],
        c["largest_pct"].as_f64().unwrap_or(0.0)
    )?;
    let memory_mb = v["memory_bytes"].as_f64().unwrap_or(0.0) / 1e6;
    match v["huge_page_bytes"].as_f64() {
        Some(huge) => {
            console::outln!("memory      {memory_mb:.1} MB (CSR arrays; {:.1} MB in huge pages)", huge / 1e6)?
        }
        None => console::outln!("memory      {memory_mb:.1} MB (CSR arrays)")?,
    }
    console::outln!(
        "time        load {:.3} s, statistics {:.3} s",
        v["load_s"].as_f64().unwrap_or(0.0),
        v["stats_s"].as_f64().unwrap_or(0.0)
    )?;
    Ok(())
}

pub(crate) fn run(args: InfoArgs, threads: usize) -> anyhow::Result<()> {
    let mut input = args.input;
    if let Some(f) = args.file {
        input.graph = Some(f);
    }
    let t = Instant::now();
    let graph = load_input_with(&input, threads, stats::WORKING_MEMORY)?;
    let load_s = t.elapsed().as_secs_f64();
    let progress = Progress::spinner("computing statistics");
    let v = describe(&input.describe(), &graph, load_s, args.source, threads)?;
    progress.finish();
    if args.json {
        console::outln!("{v}")?;
    } else {
        print_text(&v)?;
    }
    Ok(())
}
