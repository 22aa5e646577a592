//! Writing result files: whole or not at all, through
//! [`ordo_graph::output`] (a temporary file in the target's directory,
//! `fsync`, rename over the target; removed on error, the target untouched).
//! A process that has the old file open (or mapped) keeps reading the old
//! content.

use std::io::{self, Write};
use std::path::Path;

/// Writes `path` through `write`, atomically (module docs).
pub(crate) fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<()> {
    ordo_graph::output::write_atomically(path, |w| write(w))?;
    Ok(())
}

/// Writes `contents` to `path`, atomically (module docs): summaries and plan
/// copies are never seen half-written, even by a reader running alongside.
pub(crate) fn write_text(path: &Path, contents: impl AsRef<[u8]>) -> anyhow::Result<()> {
    write_file(path, |w| w.write_all(contents.as_ref()))
}
