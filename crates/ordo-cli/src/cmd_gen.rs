//! `ordo gen` (being written).

/// Arguments of `ordo gen`.
#[derive(clap::Args)]
pub(crate) struct GenArgs {}

pub(crate) fn run(_args: GenArgs, _threads: usize) -> anyhow::Result<()> {
    anyhow::bail!("`ordo gen` is not available yet")
}
