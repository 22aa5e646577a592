//! `ordo run` (being written).

/// Arguments of `ordo run`.
#[derive(clap::Args)]
pub(crate) struct RunArgs {}

pub(crate) fn run(_args: RunArgs, _threads: usize) -> anyhow::Result<()> {
    anyhow::bail!("`ordo run` is not available yet")
}
