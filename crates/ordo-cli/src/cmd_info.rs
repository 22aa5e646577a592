//! `ordo info` (being written).

/// Arguments of `ordo info`.
#[derive(clap::Args)]
pub(crate) struct InfoArgs {}

pub(crate) fn run(_args: InfoArgs, _threads: usize) -> anyhow::Result<()> {
    anyhow::bail!("`ordo info` is not available yet")
}
