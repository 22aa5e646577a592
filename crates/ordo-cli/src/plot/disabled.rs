//! `ordo plot` in a build without the `plot` cargo feature: the same
//! arguments, and an error saying how to get the plots. (The feature, on by
//! default, pulls in `plotters` and its font and image stack; leaving it out
//! makes a from-scratch build faster.)

use std::path::PathBuf;

use clap::Args;

/// Arguments of `ordo plot` (accepted, then refused: see the module docs).
#[derive(Args)]
pub(crate) struct PlotArgs {
    /// Results directory of `ordo bench` (reads DIR/runs.jsonl).
    dir: PathBuf,
    /// Where to write the plots (default: DIR/plots).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Image formats, comma-separated (png, svg).
    #[arg(long, value_delimiter = ',', default_value = "png,svg")]
    format: Vec<String>,
}

/// Refuses: this binary cannot draw.
pub(crate) fn run(args: PlotArgs, _threads: usize) -> anyhow::Result<()> {
    let _ = (&args.out, &args.format);
    anyhow::bail!(
        "{}: this ordo was built without plotting (cargo feature `plot` off); rebuild with the default \
         features, e.g. `cargo build --release`",
        args.dir.display()
    )
}
