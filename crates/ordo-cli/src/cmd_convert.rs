//! `ordo convert IN OUT`: read a graph in any supported format (with the load
//! options: weights, symmetrization, coordinates, remapping) and write it in
//! the format OUT's extension (or `--to`) names.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use ordo_graph::load::sibling_coords;
use ordo_graph::output::ensure_distinct;
use ordo_graph::Format;
use serde_json::json;

use crate::cmd_gen::output_format;
use crate::console;
use crate::input::{load_file, LoadArgs};
use crate::progress::Progress;

/// Arguments of `ordo convert`.
#[derive(clap::Args)]
pub(crate) struct ConvertArgs {
    /// Input graph file (format detected from the content; .gz transparent).
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// Output file (format from its extension unless --to is given).
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Output format (ordo, gr, snap, edges, mtx, metis).
    #[arg(long, value_name = "FORMAT")]
    to: Option<Format>,
    #[command(flatten)]
    load: LoadArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: ConvertArgs, _threads: usize) -> anyhow::Result<()> {
    let format = output_format(&args.output, args.to)?;
    // Never write over a file being read: refuse before loading, and again
    // for the coordinate side file once the graph says whether it has one.
    ensure_distinct(&args.input, &args.output)?;
    let t = Instant::now();
    let graph = load_file(&args.input, &args.load)?;
    let load_s = t.elapsed().as_secs_f64();
    let mut inputs = vec![args.input.clone()];
    inputs.extend(args.load.coords.clone());
    inputs
        .extend([Format::DimacsGr, Format::Metis].into_iter().filter_map(|f| sibling_coords(&args.input, f)));
    for out in ordo_graph::write::files_written(&graph, &args.output, format) {
        for input in &inputs {
            ensure_distinct(input, &out)?;
        }
    }

    let progress = Progress::spinner(format!("writing {}", args.output.display()));
    let t = Instant::now();
    let files = ordo_graph::write::save(&graph, &args.output, format)
        .with_context(|| format!("converting {} to {format}", args.input.display()))?;
    let write_s = t.elapsed().as_secs_f64();
    progress.finish();

    if args.json {
        let out = json!({
            "input": args.input.display().to_string(),
            "format": format.name(),
            "files": files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
            "n": graph.num_vertices(),
            "m": graph.num_edges(),
            "weighted": graph.is_weighted(),
            "coords": graph.coords().is_some(),
            "load_s": load_s,
            "write_s": write_s,
        });
        console::outln!("{out}")?;
    } else {
        let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        console::outln!(
            "converted {} (n = {}, m = {}, loaded in {load_s:.2} s) to {} ({}) in {write_s:.2} s",
            args.input.display(),
            graph.num_vertices(),
            graph.num_edges(),
            names.join(" + "),
            format.name()
        )?;
    }
    Ok(())
}
