//! Writing output files so that no reader ever sees a truncated or
//! half-written file, and refusing to overwrite the file being read.
//!
//! # The problem
//!
//! Graphs are read zero-copy through `mmap` ([`crate::binary::load`]), and
//! large text inputs are mapped while they are parsed. Writing an output with
//! `File::create` truncates the file in place: a process that has the old
//! file mapped (another `ordo run`, or the same process converting a file
//! onto itself) then touches pages that no longer exist and dies with
//! `SIGBUS`, and a write that fails half-way (disk full, Ctrl-C) leaves a
//! truncated file behind.
//!
//! # The rule
//!
//! Every output is written to a fresh temporary file in the *same directory*
//! as the target (so that the final rename never crosses a file system),
//! flushed and `fsync`ed, then renamed over the target in one atomic step
//! (POSIX `rename(2)`); the directory is `fsync`ed after the rename so the
//! new name survives a crash. On any error, and when an [`AtomicFile`] is
//! dropped without [`AtomicFile::commit`], the temporary file is removed and
//! the target is left exactly as it was.
//!
//! A reader that has the old file open or mapped keeps the old inode, whose
//! data stays intact until the reader closes it: it is never crashed, and it
//! goes on seeing the old content. New readers see the complete new file.
//!
//! Before writing, commands that read one file and write another call
//! [`ensure_distinct`]: writing a graph over the very file it was read from is
//! almost always a mistake (a typo, or a symlink or hard link the user
//! forgot), so it is refused with an error instead of silently replacing the
//! input.
//!
//! # API
//!
//! * [`write_atomically`]`(path, |w| ...)` for code that writes through
//!   [`std::io::Write`] (the common case);
//! * [`AtomicFile`] when the writing spans more code than a closure;
//! * [`write_via_temp_path`]`(path, |tmp| ...)` for libraries that insist on
//!   writing to a path themselves (image encoders): they write to the
//!   temporary path, which keeps the target's extension so that encoders that
//!   choose the format by extension still do;
//! * [`ensure_distinct`]`(input, output)`.
//!
//! The target's permissions are kept when it already exists. A target that
//! is a symbolic link is resolved first: the file the link points to is
//! replaced and the link stays a link.
//!
//! # Example
//!
//! ```
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("numbers.txt");
//! ordo_graph::output::write_atomically(&path, |w| {
//!     for i in 0..3 {
//!         writeln!(w, "{i}")?;
//!     }
//!     Ok(())
//! })
//! .unwrap();
//! assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n2\n");
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{GraphError, Result};

/// The block size of the writer behind an [`AtomicFile`]: the size of a
/// transparent huge page ([`BlockWriter`]).
const BLOCK_BYTES: usize = crate::huge_pages::HUGE_PAGE_BYTES;

/// Distinguishes temporary files created by one process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// An output file that becomes visible under its name only when
/// [`commit`](AtomicFile::commit)ted (see the module docs).
///
/// Writes go, buffered, to a temporary file next to the target. Dropping an
/// `AtomicFile` without committing it removes the temporary file and leaves
/// the target untouched.
#[derive(Debug)]
pub struct AtomicFile {
    /// The path the caller asked for (used in error messages).
    path: PathBuf,
    /// The file that will be replaced: `path` with symbolic links resolved.
    target: PathBuf,
    /// The temporary file in the target's directory.
    temp: PathBuf,
    /// Buffered writer on `temp`; `None` once committed.
    writer: Option<BlockWriter<File>>,
}

impl AtomicFile {
    /// Creates a temporary file next to `path` (resolving a symbolic link
    /// first), with the permissions of the current `path` if it exists.
    ///
    /// Errors: the directory does not exist or is not writable, or `path` is
    /// a directory.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let target = resolve_target(path);
        if target.is_dir() {
            return Err(GraphError::file(path, "is a directory, expected a file name to write"));
        }
        let (temp, file) = create_temp_next_to(&target).map_err(|e| GraphError::io(path, e))?;
        if let Ok(meta) = fs::metadata(&target) {
            // Best effort: the new file keeps the old one's mode.
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(AtomicFile { path: path.to_path_buf(), target, temp, writer: Some(BlockWriter::new(file)) })
    }

    /// The path given to [`AtomicFile::create`].
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file being written.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Flushes and `fsync`s the temporary file, renames it over the target
    /// and `fsync`s the directory. On error the temporary file is removed
    /// and the target is unchanged.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("an uncommitted AtomicFile has a writer");
        let file = writer.into_inner().map_err(|e| GraphError::io(&self.path, e))?;
        file.sync_all().map_err(|e| GraphError::io(&self.path, e))?;
        drop(file);
        fs::rename(&self.temp, &self.target).map_err(|e| GraphError::io(&self.path, e))?;
        // The temporary name is gone: nothing left for `drop` to clean up.
        self.temp = PathBuf::new();
        sync_directory(&self.target);
        Ok(())
    }

    fn writer(&mut self) -> &mut BlockWriter<File> {
        self.writer.as_mut().expect("an uncommitted AtomicFile has a writer")
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            // Not committed: discard what was written.
            drop(self.writer.take());
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// A buffered writer that hands the file whole blocks of [`BLOCK_BYTES`],
/// each ending at a multiple of the block size from the start of the file
/// (the last one, and one cut by a `flush`, shorter). A file written in
/// pieces of any size then reaches the page cache in aligned 2 MiB writes,
/// which kernels with large folios keep as 2 MiB folios: a `.ordo` file
/// just written maps with huge pages ([`crate::huge_pages`]). A standard
/// `BufWriter` passes large writes straight through, at whatever offset
/// the previous write ended, and the folios around every such seam are
/// small.
#[derive(Debug)]
struct BlockWriter<W: Write> {
    file: W,
    /// Bytes handed to `file` so far.
    written: u64,
    /// Bytes not yet handed over; they lie within one block.
    pending: Vec<u8>,
}

impl<W: Write> BlockWriter<W> {
    fn new(file: W) -> Self {
        BlockWriter { file, written: 0, pending: Vec::with_capacity(BLOCK_BYTES) }
    }

    /// Hands the pending bytes to the file.
    fn hand_over(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            self.file.write_all(&self.pending)?;
            self.written += self.pending.len() as u64;
            self.pending.clear();
        }
        Ok(())
    }

    /// The file, everything written handed to it.
    fn into_inner(mut self) -> io::Result<W> {
        self.hand_over()?;
        Ok(self.file)
    }
}

impl<W: Write> Write for BlockWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut in_block = (self.written % BLOCK_BYTES as u64) as usize + self.pending.len();
        if in_block == BLOCK_BYTES {
            self.hand_over()?;
            in_block = 0;
        }
        let n = buf.len().min(BLOCK_BYTES - in_block);
        self.pending.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.hand_over()?;
        self.file.flush()
    }
}

/// Writes the file `path` atomically: `write` fills a buffered writer on a
/// temporary file that replaces `path` only when `write` returns `Ok` and the
/// data is on disk (see the module docs). An error from `write` (or from
/// flushing, syncing, renaming) leaves `path` as it was and no temporary
/// file behind; it is reported as an I/O error on `path`.
pub fn write_atomically<T>(path: &Path, write: impl FnOnce(&mut AtomicFile) -> io::Result<T>) -> Result<T> {
    let mut file = AtomicFile::create(path)?;
    let value = write(&mut file).map_err(|e| GraphError::io(path, e))?;
    file.commit()?;
    Ok(value)
}

/// Like [`write_atomically`] for code that writes a file by path itself:
/// `write` receives the path of an empty temporary file next to `path` (with
/// the same extension) and must write the whole content there; the
/// temporary file then replaces `path` atomically. On error the temporary
/// file is removed and `path` is unchanged.
pub fn write_via_temp_path<T, E>(path: &Path, write: impl FnOnce(&Path) -> Result<T, E>) -> Result<T, E>
where
    E: From<GraphError>,
{
    let file = AtomicFile::create(path)?;
    let value = write(file.temp_path())?;
    // The content was written through another handle: sync it by path.
    let written = File::open(file.temp_path()).map_err(|e| GraphError::io(path, e))?;
    written.sync_all().map_err(|e| GraphError::io(path, e))?;
    file.commit()?;
    Ok(value)
}

/// Refuses to write `output` when it is the same file as `input`: the same
/// device and inode (so hard links and symbolic links to the input are
/// caught), or, when `output` does not exist yet, the same canonical
/// directory and file name. Does nothing when `input` does not exist (the
/// read will report that).
pub fn ensure_distinct(input: &Path, output: &Path) -> Result<()> {
    if same_file(input, output) {
        return Err(GraphError::file(
            output,
            format!(
                "output is the same file as the input {} (by path or through a link); write to another file",
                input.display()
            ),
        ));
    }
    Ok(())
}

/// Whether `a` and `b` name the same existing file (see [`ensure_distinct`]).
fn same_file(a: &Path, b: &Path) -> bool {
    let Ok(meta_a) = fs::metadata(a) else { return false };
    match fs::metadata(b) {
        Ok(meta_b) => same_inode(&meta_a, &meta_b).unwrap_or_else(|| canonical_eq(a, b)),
        // `b` does not exist yet (or is a dangling link): compare where it
        // would be created with where `a` is.
        Err(_) => {
            let target = resolve_target(b);
            let parent = match target.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            match (fs::canonicalize(parent), target.file_name(), fs::canonicalize(a)) {
                (Ok(dir), Some(name), Ok(ca)) => dir.join(name) == ca,
                _ => false,
            }
        }
    }
}

#[cfg(unix)]
fn same_inode(a: &fs::Metadata, b: &fs::Metadata) -> Option<bool> {
    use std::os::unix::fs::MetadataExt;
    Some(a.dev() == b.dev() && a.ino() == b.ino())
}

#[cfg(not(unix))]
fn same_inode(_: &fs::Metadata, _: &fs::Metadata) -> Option<bool> {
    None
}

fn canonical_eq(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

/// `path`, or the file a symbolic link at `path` points to (followed
/// through every link level; a dangling link resolves to its last target).
fn resolve_target(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    // A bound on link levels, like the kernel's ELOOP limit.
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => match fs::read_link(&current) {
                Ok(next) => {
                    current = match current.parent() {
                        Some(dir) if next.is_relative() => dir.join(next),
                        _ => next,
                    };
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    current
}

/// Creates a new, empty temporary file in `target`'s directory, named
/// `.NAME.tmp-PID-K[.EXT]` after the target (keeping its extension).
fn create_temp_next_to(target: &Path) -> io::Result<(PathBuf, File)> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = target.file_stem().map_or_else(|| "output".into(), |s| s.to_string_lossy().into_owned());
    let ext = target.extension().map(|e| e.to_string_lossy().into_owned());
    loop {
        let k = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = format!(".{stem}.tmp-{}-{k}", std::process::id());
        if let Some(ext) = &ext {
            name.push('.');
            name.push_str(ext);
        }
        let temp = dir.join(name);
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// `fsync`s the directory holding `path` so that a rename into it is
/// durable (best effort: not every platform can open a directory).
fn sync_directory(path: &Path) {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records where each write to it starts and how long it is.
    #[derive(Default)]
    struct Recorder {
        bytes: Vec<u8>,
        writes: Vec<(usize, usize)>,
        flushes: Vec<usize>,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes.push((self.bytes.len(), buf.len()));
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.flushes.push(self.bytes.len());
            Ok(())
        }
    }

    #[test]
    fn the_block_writer_hands_over_every_byte_in_order_in_aligned_blocks() {
        let b = BLOCK_BYTES;
        let pieces = [64, 3 * b + 5, 7, 0, b, b - 12, 1, 2 * b];
        let mut expected = Vec::new();
        let mut w = BlockWriter::new(Recorder::default());
        for (i, &len) in pieces.iter().enumerate() {
            let piece: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            w.write_all(&piece).unwrap();
            expected.extend_from_slice(&piece);
            if i == 4 {
                w.flush().unwrap(); // a flush in the middle cuts one block short
            }
        }
        let flushed_at = expected.len() - pieces[5..].iter().sum::<usize>();
        let out = w.into_inner().unwrap();
        assert_eq!(out.bytes, expected, "every byte, in order");
        assert_eq!(out.flushes, [flushed_at]);
        // Every write but the one cut by the flush, and the last, ends on a
        // block boundary, and none crosses one.
        let last = out.writes.len() - 1;
        for (k, &(start, len)) in out.writes.iter().enumerate() {
            let end = start + len;
            assert!(len > 0 && len <= b, "write {k}: {len} bytes");
            assert_eq!(start / b, (end - 1) / b, "write {k} crosses a block boundary");
            if k != last && end != flushed_at {
                assert_eq!(end % b, 0, "write {k} ends at {end}");
            }
        }
    }

    #[test]
    fn temp_names_keep_the_extension_and_stay_in_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let (temp, _file) = create_temp_next_to(&dir.path().join("fig.png")).unwrap();
        assert_eq!(temp.parent(), Some(dir.path()));
        assert_eq!(temp.extension().unwrap(), "png");
        assert!(temp.file_name().unwrap().to_string_lossy().starts_with(".fig.tmp-"));
        let (again, _file) = create_temp_next_to(&dir.path().join("fig.png")).unwrap();
        assert_ne!(temp, again);
    }

    #[test]
    fn dropping_without_commit_removes_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.txt");
        let mut f = AtomicFile::create(&path).unwrap();
        f.write_all(b"partial").unwrap();
        let temp = f.temp_path().to_path_buf();
        assert!(temp.exists());
        drop(f);
        assert!(!temp.exists());
        assert!(!path.exists());
    }
}
