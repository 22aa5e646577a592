//! `ordo gen SPEC -o FILE`: generate a graph and write it (`.ordo` binary by
//! default, any text format by extension or `--format`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use ordo_graph::gen::GenSpec;
use ordo_graph::Format;
use serde_json::json;

use crate::console;
use crate::progress::Progress;

/// Arguments of `ordo gen`.
#[derive(clap::Args)]
#[command(after_help = GEN_HELP)]
pub(crate) struct GenArgs {
    /// Generator spec: KIND[:key=value,...], e.g. road:n=1000000,seed=1 or
    /// kron:scale=20 (kinds and parameters below).
    #[arg(value_name = "SPEC")]
    spec: String,
    /// Output file.
    #[arg(short, long, value_name = "FILE")]
    out: PathBuf,
    /// Output format (ordo, gr, snap, edges, mtx, metis); default: from the
    /// extension of FILE.
    #[arg(long, value_name = "FORMAT")]
    format: Option<Format>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

const GEN_HELP: &str = "\
Generators (every one takes seed=S, default 1; numbers may be written 1e6, 2^20, 1_000):
  road:n=N[,deg=2.6,min_len=10,max_len=100000]
      road-like planar graph: jittered stretched grid, random spanning tree plus extra
      edges up to average out-degree deg, symmetric, coordinates, weights = rounded
      Euclidean lengths (spread over ~4 decades)
  rmat:scale=S[,ef=16,a=0.57,b=0.19,c=0.19,wmin=1,wmax=255,sym=false,simple=false,permute=false]
  kron:scale=S[...]     Graph500 Kronecker: rmat with sym, simple and permute true
  torus:w=W,h=H[,wmin=1,wmax=10000]   4-neighbour torus (W, H >= 3)
  grid:w=W,h=H[,wmin=1,wmax=10000]    4-neighbour grid
  random:n=N,m=M[,wmin=1,wmax=10000]  M uniform random directed edges, no self loops
  kgraph:n=N,k=K[,wmin=1,wmax=10000]  every vertex has K distinct random out-neighbours";

/// The output format of `path`: `--format`, else its extension.
pub(crate) fn output_format(path: &Path, format: Option<Format>) -> anyhow::Result<Format> {
    match format.or_else(|| Format::from_path(path)) {
        Some(f) => Ok(f),
        None => anyhow::bail!(
            "{}: cannot tell the output format from the extension; use .ordo, .gr, .mtx, .graph, .el \
             or pass --format",
            path.display()
        ),
    }
}

pub(crate) fn run(args: GenArgs, threads: usize) -> anyhow::Result<()> {
    let spec: GenSpec = args.spec.parse()?;
    let format = output_format(&args.out, args.format)?;
    let progress = Progress::spinner(format!("generating {spec}"));
    let t = Instant::now();
    let graph = spec.generate_with_threads(threads)?;
    let gen_s = t.elapsed().as_secs_f64();
    progress.finish();

    let progress = Progress::spinner(format!("writing {}", args.out.display()));
    let t = Instant::now();
    let files = ordo_graph::write::save(&graph, &args.out, format)
        .with_context(|| format!("writing {spec} as {format}"))?;
    let write_s = t.elapsed().as_secs_f64();
    progress.finish();
    let bytes: u64 = files.iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum();

    if args.json {
        let out = json!({
            "spec": spec.to_string(),
            "format": format.name(),
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "n": graph.num_vertices(),
            "m": graph.num_edges(),
            "weighted": graph.is_weighted(),
            "coords": graph.coords().is_some(),
            "bytes": bytes,
            "gen_s": gen_s,
            "write_s": write_s,
            "threads": threads,
        });
        console::outln!("{out}")?;
    } else {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        console::outln!(
            "generated {spec}: n = {}, m = {} in {gen_s:.2} s; wrote {} ({}, {:.1} MB) in {write_s:.2} s",
            graph.num_vertices(),
            graph.num_edges(),
            names.join(" + "),
            format.name(),
            bytes as f64 / 1e6
        )?;
    }
    Ok(())
}
