//! Atomic output files (`ordo_graph::output`): a reader that has the old
//! file mapped keeps the old content, a failed write changes nothing and
//! leaves no temporary file, the output is never the input (by path, symbolic
//! link or hard link), links and permissions survive an overwrite.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use ordo_graph::gen::GenSpec;
use ordo_graph::output::{ensure_distinct, write_atomically, write_via_temp_path, AtomicFile};
use ordo_graph::{binary, Graph};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

fn graph(spec: &str) -> Graph {
    spec.parse::<GenSpec>().unwrap().generate_with_threads(1).unwrap()
}

#[test]
fn a_reader_with_the_old_file_mapped_keeps_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.bin");
    let old = vec![7u8; 3 * 4096 + 5];
    write_atomically(&path, |w| w.write_all(&old)).unwrap();
    let file = fs::File::open(&path).unwrap();
    // SAFETY: the test owns the file; the point of the test is that the
    // overwrite below goes to a new inode, so this map stays valid.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    write_atomically(&path, |w| w.write_all(b"new and shorter")).unwrap();
    // With an in-place truncate, touching these pages would raise SIGBUS.
    assert_eq!(&map[..], &old[..], "the mapped old inode is intact");
    assert_eq!(fs::read(&path).unwrap(), b"new and shorter");
    assert_eq!(names(dir.path()), ["data.bin"], "no temporary file left");
}

#[test]
fn a_graph_loaded_zero_copy_survives_an_overwrite_of_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.ordo");
    let first = graph("grid:w=40,h=30,seed=1");
    binary::write(&first, &path).unwrap();
    let mapped = binary::load(&path).unwrap();
    assert!(mapped.targets().len() > 1000);
    // Overwrite with a much smaller graph (the old file's pages would be
    // gone with an in-place rewrite).
    let second = graph("grid:w=3,h=2,seed=2");
    binary::write(&second, &path).unwrap();
    assert_eq!(mapped, first, "the loaded graph still reads the old file");
    assert_eq!(binary::load(&path).unwrap(), second);
}

#[test]
fn a_failed_write_leaves_the_target_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    fs::write(&path, "precious").unwrap();
    let err = write_atomically(&path, |w| {
        w.write_all(b"half a file")?;
        Err::<(), _>(io::Error::other("disk full"))
    })
    .unwrap_err()
    .to_string();
    assert_eq!(err, format!("{}: disk full", path.display()));
    assert_eq!(fs::read_to_string(&path).unwrap(), "precious");
    assert_eq!(names(dir.path()), ["out.txt"]);

    // The same through a path-based writer, and for an uncommitted file.
    let r: Result<(), ordo_graph::GraphError> = write_via_temp_path(&path, |temp| {
        fs::write(temp, "partial").unwrap();
        Err(ordo_graph::GraphError::Invalid("encoder failed".into()))
    });
    assert!(r.is_err());
    let mut f = AtomicFile::create(&path).unwrap();
    f.write_all(b"never committed").unwrap();
    drop(f);
    assert_eq!(fs::read_to_string(&path).unwrap(), "precious");
    assert_eq!(names(dir.path()), ["out.txt"]);
}

#[test]
fn path_based_writers_get_a_temporary_path_with_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("figure.png");
    let seen = write_via_temp_path(&path, |temp| -> Result<_, ordo_graph::GraphError> {
        assert_eq!(temp.parent(), Some(dir.path()), "same directory, so the rename is atomic");
        fs::write(temp, "pixels").unwrap();
        Ok(temp.extension().unwrap().to_string_lossy().into_owned())
    })
    .unwrap();
    assert_eq!(seen, "png");
    assert_eq!(fs::read_to_string(&path).unwrap(), "pixels");
    assert_eq!(names(dir.path()), ["figure.png"]);
}

#[test]
fn the_output_may_not_be_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("in.ordo");
    fs::write(&input, "graph").unwrap();
    let other = d.join("other.ordo");
    fs::write(&other, "x").unwrap();
    let err = ensure_distinct(&input, &input).unwrap_err().to_string();
    assert!(err.contains("output is the same file as the input"), "{err}");
    // Another spelling of the same path.
    let sub = d.join("sub");
    fs::create_dir(&sub).unwrap();
    assert!(ensure_distinct(&input, &sub.join("..").join("in.ordo")).is_err());
    assert!(ensure_distinct(&input, &d.join(".").join("in.ordo")).is_err());
    // Distinct files, and an output that does not exist yet.
    ensure_distinct(&input, &other).unwrap();
    ensure_distinct(&input, &d.join("new.ordo")).unwrap();
    ensure_distinct(&d.join("missing.gr"), &input).unwrap();
    #[cfg(unix)]
    {
        let link = d.join("link.ordo");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        assert!(ensure_distinct(&input, &link).is_err(), "symbolic link to the input");
        assert!(ensure_distinct(&link, &input).is_err(), "input read through a link");
        let hard = d.join("hard.ordo");
        fs::hard_link(&input, &hard).unwrap();
        assert!(ensure_distinct(&input, &hard).is_err(), "hard link to the input");
    }
}

#[cfg(unix)]
#[test]
fn overwriting_keeps_links_and_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    fs::write(&real, "old").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    write_atomically(&link, |w| w.write_all(b"new")).unwrap();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert_eq!(fs::read_to_string(&real).unwrap(), "new");
    assert_eq!(fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(names(dir.path()), ["link.txt", "real.txt"]);
}

#[test]
fn a_directory_is_not_an_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let err = write_atomically(dir.path(), |w| w.write_all(b"x")).unwrap_err().to_string();
    assert!(err.ends_with("is a directory, expected a file name to write"), "{err}");
}
