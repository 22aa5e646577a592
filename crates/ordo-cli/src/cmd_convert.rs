//! `ordo convert` (being written).

/// Arguments of `ordo convert`.
#[derive(clap::Args)]
pub(crate) struct ConvertArgs {}

pub(crate) fn run(_args: ConvertArgs, _threads: usize) -> anyhow::Result<()> {
    anyhow::bail!("`ordo convert` is not available yet")
}
