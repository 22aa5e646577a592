//! A graph's arrays in transparent huge pages.
//!
//! SSSP or BFS on a graph read at random places (a Kronecker graph, a social
//! network) touches a different page of the edge arrays at almost every
//! vertex it takes: with 4 KiB pages most of these reads also miss the TLB.
//! Linux backs anonymous memory with 2 MiB pages when a program asks for
//! them (`madvise(MADV_HUGEPAGE)`); whether it does depends on the system
//! setting `/sys/kernel/mm/transparent_hugepage/enabled`: `always` gives
//! them to every large anonymous mapping, `madvise` (a common default) only
//! to mappings that ask, `never` to none. File mappings, like the zero-copy
//! load of the binary format, get 2 MiB page table entries only where the
//! page cache holds the file in 2 MiB folios and the mapping is aligned to
//! them: recent kernels do so on file systems with large folios, older ones
//! never. How much depends on how the file came into the page cache, so
//! ordo helps it there: its files are written in aligned 2 MiB blocks
//! (`crate::output`), and its loaders advise `MADV_HUGEPAGE` before the
//! first read (`crate::binary`). On ext4 under Linux 6.18 a graph's arrays
//! then map almost entirely with huge pages, whether the file was just
//! written or is read anew from disk.
//!
//! [`Graph::into_huge_pages`] copies the offsets, targets and weights into
//! anonymous memory advised `MADV_HUGEPAGE` and aligned to 2 MiB, then makes
//! it read-only; [`Graph::huge_page_bytes`] tells how much of them the
//! kernel really backs with huge pages, in a copy or in a file mapping. The
//! copy pays where a mapping is only partly covered and the graph is read
//! at random places (a Kronecker graph), and is no slower than a mapping
//! fully in huge pages, so it is still made when asked for
//! (`docs/design/2026-11-26-executor-costs.md`). The
//! trade: the copy replaces the zero-copy load (the graph's bytes once
//! more, for a moment twice), and where the kernel compacts memory to make
//! huge pages on demand (`defrag` = `madvise`) the first touch can stall.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use memmap2::MmapOptions;

use crate::csr::{EdgeWeights, Graph};
use crate::storage::{Buf, Plain};

/// The size of a transparent huge page on x86-64 and most arm64 kernels.
pub const HUGE_PAGE_BYTES: usize = 2 << 20;

/// A copy of `data` in anonymous memory advised `MADV_HUGEPAGE`, starting on
/// a 2 MiB boundary and spanning whole huge pages, read-only once filled.
///
/// On systems without transparent huge pages the advice is not given and
/// the copy lives in ordinary pages. An empty slice gives an empty owned
/// buffer.
pub fn copy_to_huge_pages<T: Plain>(data: &[T]) -> io::Result<Buf<T>> {
    let bytes = std::mem::size_of_val(data);
    if bytes == 0 {
        return Ok(Buf::from(Vec::new()));
    }
    // Whole huge pages, plus one to slide the start to a 2 MiB boundary
    // (mmap aligns only to 4 KiB).
    let whole =
        bytes.div_ceil(HUGE_PAGE_BYTES).checked_mul(HUGE_PAGE_BYTES).ok_or(io::ErrorKind::OutOfMemory)?;
    let len = whole.checked_add(HUGE_PAGE_BYTES).ok_or(io::ErrorKind::OutOfMemory)?;
    let mut map = MmapOptions::new().len(len).map_anon()?;
    let start = map.as_ptr() as usize;
    let offset = start.next_multiple_of(HUGE_PAGE_BYTES) - start;
    // Before the first touch, so that the pages are faulted in huge.
    #[cfg(target_os = "linux")]
    map.advise_range(memmap2::Advice::HugePage, offset, whole)?;
    let src = data.as_ptr().cast::<u8>();
    // SAFETY: `src` points to the `bytes` initialised bytes of `data` (every
    // `Plain` type is plain bytes without padding); the destination
    // `offset .. offset + bytes` lies inside the map (`offset <
    // HUGE_PAGE_BYTES` and `bytes <= whole`), which is freshly mapped memory
    // that cannot overlap `data`.
    unsafe { std::ptr::copy_nonoverlapping(src, map.as_mut_ptr().add(offset), bytes) };
    let map = Arc::new(map.make_read_only()?);
    Ok(Buf::mapped(map, offset, data.len()).expect("the copy lies inside the map, aligned to 2 MiB"))
}

/// Advises a file map `MADV_HUGEPAGE` before its first touch: where the
/// kernel reads the file into the page cache now (not cached yet), it reads
/// 2 MiB folios, which this map and every later one of the file get as huge
/// pages (module docs). A hint: kernels without transparent huge pages
/// refuse it, and other systems have no such advice.
pub(crate) fn advise_before_reading(map: &memmap2::Mmap) {
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    #[cfg(not(target_os = "linux"))]
    let _ = map;
}

/// The system's transparent huge page setting (`always`, `madvise` or
/// `never`), or `None` where the kernel does not say (not Linux, or built
/// without transparent huge pages).
pub fn transparent_huge_pages_mode() -> Option<String> {
    let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    selected_word(&setting).map(str::to_string)
}

/// The bracketed word of a kernel setting file (`always [madvise] never`).
fn selected_word(setting: &str) -> Option<&str> {
    let open = setting.find('[')?;
    let close = open + setting[open..].find(']')?;
    Some(&setting[open + 1..close])
}

impl Graph {
    /// The graph with its offsets, targets and weights copied into
    /// transparent huge pages (see the module docs); coordinates, read only
    /// to compute weights and heuristics, stay where they are.
    pub fn into_huge_pages(self) -> io::Result<Graph> {
        let (offsets, targets, weights, coords) = self.into_parts();
        let offsets = copy_to_huge_pages(&offsets)?;
        let targets = copy_to_huge_pages(&targets)?;
        let weights = match weights {
            None => None,
            Some(EdgeWeights::Int(w)) => Some(EdgeWeights::Int(copy_to_huge_pages(&w)?)),
            Some(EdgeWeights::Real(w)) => Some(EdgeWeights::Real(copy_to_huge_pages(&w)?)),
        };
        Ok(Graph::from_valid_parts(offsets, targets, weights, coords))
    }

    /// Bytes of the offsets, targets and weights that the kernel backs with
    /// huge pages now, copied ([`Graph::into_huge_pages`]) or mapped from a
    /// file (Linux's `AnonHugePages`, `FilePmdMapped` and `ShmemPmdMapped` of
    /// the mappings that hold them, at most the arrays' size), or `None`
    /// where the kernel does not report it.
    pub fn huge_page_bytes(&self) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut ranges = vec![byte_range(self.offsets()), byte_range(self.targets())];
        ranges.extend(self.weights().map(byte_range));
        ranges.extend(self.real_weights().map(byte_range));
        Some(huge_bytes(&smaps, &ranges).min(self.huge_page_candidate_bytes()))
    }

    /// Bytes of the arrays [`Graph::into_huge_pages`] copies: the offsets,
    /// targets and weights.
    pub fn huge_page_candidate_bytes(&self) -> u64 {
        let bytes = std::mem::size_of_val(self.offsets())
            + std::mem::size_of_val(self.targets())
            + self.weights().map_or(0, std::mem::size_of_val)
            + self.real_weights().map_or(0, std::mem::size_of_val);
        bytes as u64
    }
}

/// The addresses a slice occupies.
fn byte_range<T>(s: &[T]) -> Range<usize> {
    let start = s.as_ptr() as usize;
    start..start + std::mem::size_of_val(s)
}

/// The fields of `/proc/self/smaps` that count memory a mapping holds in
/// huge pages: anonymous memory, file pages and shared memory mapped by
/// 2 MiB entries.
const HUGE_FIELDS: [&str; 3] = ["AnonHugePages:", "FilePmdMapped:", "ShmemPmdMapped:"];

/// The sum of the [`HUGE_FIELDS`] over the mappings of `smaps` (the text of
/// `/proc/self/smaps`) that overlap any of `ranges`, each mapping counted
/// once even when several ranges share it (the kernel merges neighbouring
/// mappings of the same kind into one).
fn huge_bytes(smaps: &str, ranges: &[Range<usize>]) -> u64 {
    let mut total = 0;
    let mut counting = false;
    for line in smaps.lines() {
        if let Some(mapping) = mapping_range(line) {
            counting = ranges.iter().any(|r| !r.is_empty() && r.start < mapping.end && mapping.start < r.end);
        } else if let Some(rest) = HUGE_FIELDS.iter().find_map(|field| line.strip_prefix(field)) {
            if counting {
                let kib = rest.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap_or(0);
                total += kib * 1024;
            }
        }
    }
    total
}

/// The address range of an smaps mapping header (`7f00-7f80 r--p ...`), or
/// `None` for a field line (`Rss:  4 kB`).
fn mapping_range(line: &str) -> Option<Range<usize>> {
    let span = line.split_whitespace().next()?;
    let (start, end) = span.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::GenSpec;

    #[test]
    fn copies_are_equal_aligned_and_read_only_views() {
        let data: Vec<u32> = (0..1_000_003).map(|i| i * 7).collect();
        let copy = copy_to_huge_pages(&data).unwrap();
        assert_eq!(&*copy, &data[..]);
        assert_eq!(copy.as_ptr() as usize % HUGE_PAGE_BYTES, 0, "starts on a huge page");
        assert!(copy.is_mapped());
        let empty = copy_to_huge_pages::<u64>(&[]).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn graphs_keep_every_array() {
        let g: Graph = "kron:scale=10,seed=3".parse::<GenSpec>().unwrap().generate().unwrap();
        let mut weighted = g.clone();
        weighted.set_weights((0..g.num_edges() as u32).collect()).unwrap();
        for g in [g, weighted] {
            let huge = g.clone().into_huge_pages().unwrap();
            assert_eq!(huge.offsets(), g.offsets());
            assert_eq!(huge.targets(), g.targets());
            assert_eq!(huge.weights(), g.weights());
            huge.validate().unwrap();
        }
    }

    #[test]
    fn smaps_sums_each_overlapping_mapping_once() {
        let smaps = "\
1000-3000 r--p 00000000 00:00 0
Rss:                   8 kB
AnonHugePages:      2048 kB
3000-5000 r--p 00000000 00:00 0
AnonHugePages:      4096 kB
5000-7000 r--s 00000000 fe:00 5325837                    /data/g.ordo
AnonHugePages:         0 kB
FilePmdMapped:     10240 kB
ShmemPmdMapped:        0 kB
9000-a000 rw-p 00000000 00:00 0 [heap]
AnonHugePages:    100000 kB
";
        // Two ranges in the first mapping count it once; the heap is apart.
        assert_eq!(huge_bytes(smaps, &[0x1000..0x1800, 0x2000..0x2800]), 2048 * 1024);
        let straddling = 0x2fff..0x3001;
        assert_eq!(huge_bytes(smaps, std::slice::from_ref(&straddling)), 6144 * 1024);
        assert_eq!(huge_bytes(smaps, &[0x7000..0x9000, 0x4000..0x4000]), 0);
        // A file mapping's huge pages are its `FilePmdMapped`.
        let inside_the_file = 0x5800..0x6000;
        assert_eq!(huge_bytes(smaps, std::slice::from_ref(&inside_the_file)), 10240 * 1024);
        let across_two = 0x4000..0x5001;
        assert_eq!(huge_bytes(smaps, std::slice::from_ref(&across_two)), (4096 + 10240) * 1024);
        assert_eq!(mapping_range("Rss:  8 kB"), None);
    }

    #[test]
    fn the_kernel_setting_is_the_bracketed_word() {
        assert_eq!(selected_word("always [madvise] never\n"), Some("madvise"));
        assert_eq!(selected_word("[always] madvise never"), Some("always"));
        assert_eq!(selected_word("always madvise never"), None);
    }

    /// Where the system grants huge pages on request and compacts memory to
    /// make them at the fault, a copied graph of a few megabytes gets some.
    /// (Elsewhere the kernel owes none, so only the bound is checked.)
    #[test]
    fn the_kernel_backs_copies_with_huge_pages_when_it_grants_them() {
        let g: Graph = "grid:w=500,h=500".parse::<GenSpec>().unwrap().generate().unwrap();
        let huge = g.into_huge_pages().unwrap();
        let Some(reported) = huge.huge_page_bytes() else { return };
        assert!(reported <= huge.memory_bytes() as u64);
        let defrag =
            std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/defrag").unwrap_or_default();
        let grants = matches!(transparent_huge_pages_mode().as_deref(), Some("always" | "madvise"));
        let compacts = matches!(selected_word(&defrag), Some("always" | "madvise" | "defer+madvise"));
        if grants && compacts {
            assert!(reported > 0, "no huge page for {} bytes", huge.memory_bytes());
        }
    }
}
