//! The bytes of an input file: memory-mapped when uncompressed, inflated
//! into memory when gzip-compressed, with the pages already parsed released
//! as parsing goes.

use std::path::Path;

use super::inflate::{inflate, Expect};
use crate::error::{open_input, GraphError, Result};

/// Pages of a mapped file are released in multiples of this (a multiple of
/// every page size in use).
const RELEASE_GRANULE: usize = 1 << 21;

/// The first two bytes of every gzip stream.
pub(super) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The bytes of a file: mapped when uncompressed, decompressed into memory
/// when gzip-compressed (detected by the magic bytes `1f 8b`).
pub(super) enum FileBytes<'a> {
    Mapped(memmap2::Mmap),
    Owned { bytes: Vec<u8>, compressed: bool },
    Borrowed(&'a [u8]),
}

impl FileBytes<'static> {
    /// Opens `path` (`what` it should be, for the error on a directory);
    /// a gzip file is inflated within the bounds of [`inflate`].
    pub(super) fn open(path: &Path, what: &str, expect: Expect) -> Result<Self> {
        let (file, len) = open_input(path, what)?;
        if len == 0 {
            return Err(GraphError::file(path, "empty file"));
        }
        // SAFETY: the map is read-only and lives only while the file is
        // parsed. Mapping is sound as long as no other process truncates or
        // rewrites the file meanwhile; like every mmap-based reader we
        // document that requirement (see `LoadOptions`) rather than copy.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| GraphError::io(path, e))?;
        // Before the first touch, which reads the format's signature: no
        // readahead, and where the kernel reads the file now (not cached),
        // 2 MiB folios. A `.ordo` file is mapped again by its own loader,
        // which gets huge pages where the page cache holds 2 MiB folios
        // (`crate::binary`); a first read of the header alone with
        // sequential readahead would have brought the file into the cache
        // in small folios, and most of it would then map with small pages.
        // Parsers of text ask for sequential
        // readahead afterwards ([`FileBytes::read_sequentially`]).
        crate::huge_pages::advise_before_reading(&map);
        let _ = map.advise(memmap2::Advice::Random);
        if map.starts_with(&GZIP_MAGIC) {
            let _ = map.advise(memmap2::Advice::Sequential);
            let bytes = inflate(path, &map, expect)?;
            if bytes.is_empty() {
                return Err(GraphError::file(path, "empty file (after decompression)"));
            }
            return Ok(FileBytes::Owned { bytes, compressed: true });
        }
        Ok(FileBytes::Mapped(map))
    }
}

impl FileBytes<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned { bytes, .. } => bytes,
            FileBytes::Borrowed(b) => b,
        }
    }

    /// Drops the pages of a mapped file below byte `parsed` from memory, so
    /// that the resident size while parsing is the edge list plus a window
    /// of the file rather than the whole file. No effect on other contents.
    pub(super) fn release_before(&self, parsed: usize) {
        if let FileBytes::Mapped(map) = self {
            let end = parsed.min(map.len()) & !(RELEASE_GRANULE - 1);
            if end > 0 {
                // SAFETY: the map is a read-only shared mapping of a file.
                // MADV_DONTNEED only drops its clean pages; a later access
                // (e.g. counting lines for an error message) faults them
                // back in from the file with the same content. Borrowed
                // slices stay valid: the mapping itself is untouched.
                let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end) };
            }
        }
    }

    /// Asks for sequential readahead of a mapped file, before parsing it
    /// from the start. No effect on other contents.
    pub(super) fn read_sequentially(&self) {
        if let FileBytes::Mapped(map) = self {
            let _ = map.advise(memmap2::Advice::Sequential);
        }
    }

    /// Whether the bytes are a map of the file (not held on the heap).
    pub(super) fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }

    pub(super) fn was_compressed(&self) -> bool {
        matches!(self, FileBytes::Owned { compressed: true, .. })
    }
}
