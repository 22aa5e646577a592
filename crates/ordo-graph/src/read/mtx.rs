//! Matrix Market coordinate files (`.mtx`, NIST Matrix Market exchange
//! format): banner `%%MatrixMarket matrix coordinate <field> <symmetry>`,
//! `%` comments, a size line `rows cols entries`, then one `i j [value]` line
//! per entry with 1-based indices. Entry `(i, j)` is the arc `i -> j`.
//!
//! Supported: fields `pattern` (unweighted), `integer` (integer weights:
//! non-negative whole numbers that fit `u32`) and `real` / `double` (real
//! weights: finite and non-negative; others are rejected with their line),
//! symmetries `general` and
//! `symmetric` (each off-diagonal entry gives both arcs, a diagonal entry one
//! self loop). Rejected as unsupported: `array` format, `complex`, `hermitian`,
//! `skew-symmetric`, non-square matrices.

use std::path::Path;

use super::scan::{is_blank, printable, Cursor};
use super::{check_counts, reserve_for, ReadOptions};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// Reads a Matrix Market coordinate matrix as a graph.
pub(crate) fn read(path: &Path, bytes: &[u8], opts: &ReadOptions<'_>) -> Result<EdgeList> {
    let mut c = Cursor::new(path, bytes).with_progress(opts);
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(GraphError::file(path, "empty file"));
    }
    let banner = c.take_line();
    let words: Vec<Vec<u8>> =
        banner.split(|&b| is_blank(b)).filter(|w| !w.is_empty()).map(|w| w.to_ascii_lowercase()).collect();
    if words.first().map(Vec::as_slice) != Some(b"%%matrixmarket") {
        return Err(GraphError::parse(path, 1, "missing banner '%%MatrixMarket matrix coordinate ...'"));
    }
    if words.len() != 5 {
        return Err(GraphError::parse(
            path,
            1,
            "banner must be '%%MatrixMarket matrix coordinate <field> <symmetry>'",
        ));
    }
    let unsupported = |what: &str, word: &[u8]| {
        GraphError::parse(path, 1, format!("unsupported Matrix Market {what} '{}'", printable(word)))
    };
    if words[1] != b"matrix" {
        return Err(unsupported("object", &words[1]));
    }
    if words[2] != b"coordinate" {
        return Err(unsupported("format (only coordinate matrices are graphs)", &words[2]));
    }
    let field = match words[3].as_slice() {
        b"pattern" => Field::Pattern,
        b"integer" => Field::Integer,
        b"real" | b"double" => Field::Real,
        other => return Err(unsupported("field", other)),
    };
    let symmetric = match words[4].as_slice() {
        b"general" => false,
        b"symmetric" => true,
        other => return Err(unsupported("symmetry", other)),
    };

    // Comments and blank lines up to the size line.
    loop {
        c.skip_blanks();
        match c.peek() {
            None => return Err(GraphError::file(path, "missing size line '<rows> <cols> <entries>'")),
            Some(b'\n') => c.bump(),
            Some(b'%') => c.skip_line(),
            Some(_) => break,
        }
    }
    let size_pos = c.pos();
    let rows = c.uint("row count")?;
    c.skip_blanks();
    let cols = c.uint("column count")?;
    c.skip_blanks();
    let nnz = c.uint("entry count")?;
    c.end_line("the entry count")?;
    if rows != cols {
        return Err(
            c.error_at(size_pos, format!("a graph needs a square matrix, this one is {rows} x {cols}"))
        );
    }
    let keep = opts.keep_weights && field != Field::Pattern;
    let arcs = nnz.saturating_mul(if symmetric { 2 } else { 1 });
    let n = check_counts(path, || c.line_of(size_pos), rows, arcs, keep, opts)?;
    let cap = reserve_for(nnz.saturating_mul(if symmetric { 2 } else { 1 }), bytes.len(), 2);
    let real = keep && field == Field::Real;
    let mut el = EdgeList::new(n, keep && !real);
    if real {
        el.real_weights = Some(Vec::new());
    }
    el.src.reserve_exact(cap);
    el.dst.reserve_exact(cap);
    if let Some(w) = &mut el.weights {
        w.reserve_exact(cap);
    }
    if let Some(w) = &mut el.real_weights {
        w.reserve_exact(cap);
    }

    let mut entries = 0u64;
    loop {
        c.report_progress();
        c.skip_blanks();
        match c.peek() {
            None => break,
            Some(b'\n') => {
                c.bump();
                continue;
            }
            Some(b'%') => {
                c.skip_line();
                continue;
            }
            Some(_) => {}
        }
        let line_start = c.pos();
        let i = index(&mut c, n, "row index")?;
        c.skip_blanks();
        let j = index(&mut c, n, "column index")?;
        c.skip_blanks();
        let w = match field {
            Field::Pattern => 1,
            Field::Integer => c.weight(opts.keep_weights)?,
            Field::Real if !opts.keep_weights => c.weight(false)?,
            Field::Real => {
                let v = c.real_weight()?;
                c.end_line("the value")?;
                entries += 1;
                if entries > nnz {
                    return Err(c.error_at(
                        line_start,
                        format!("more entries than the {nnz} announced by the size line"),
                    ));
                }
                el.push_real(i, j, v);
                if symmetric && i != j {
                    el.push_real(j, i, v);
                }
                continue;
            }
        };
        c.end_line(if field == Field::Pattern { "the column index" } else { "the value" })?;
        entries += 1;
        if entries > nnz {
            return Err(
                c.error_at(line_start, format!("more entries than the {nnz} announced by the size line"))
            );
        }
        el.push(i, j, w);
        if symmetric && i != j {
            el.push(j, i, w);
        }
    }
    c.report_done();
    if entries != nnz {
        return Err(
            c.error_at(size_pos, format!("size line announces {nnz} entries but the file has {entries}"))
        );
    }
    Ok(el)
}

/// Parses a 1-based index in `1..=n`, returned 0-based.
fn index(c: &mut Cursor<'_>, n: usize, what: &str) -> Result<u32> {
    let start = c.pos();
    let id = c.uint(what)?;
    if id == 0 || id > n as u64 {
        return Err(c.error_at(start, format!("{what} {id} out of range 1..={n}")));
    }
    Ok(id as u32 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str, keep: bool) -> Result<EdgeList> {
        let opts = ReadOptions { keep_weights: keep, ..Default::default() };
        read(Path::new("g.mtx"), s.as_bytes(), &opts)
    }

    #[test]
    fn reads_variants() {
        let el =
            read_str("%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 3\n2 1\n3 3\n3 1\n", true)
                .unwrap();
        assert_eq!(el.src, vec![1, 0, 2, 2, 0]);
        assert_eq!(el.dst, vec![0, 1, 2, 0, 2]);
        assert_eq!(el.weights, None);
        let el = read_str("%%MatrixMarket matrix coordinate REAL general\n2 2 2\n1 2 3.0\n2 1 4e1\n", true)
            .unwrap();
        assert_eq!((el.weights, el.real_weights), (None, Some(vec![3.0, 40.0])));
        let el =
            read_str("%%MatrixMarket matrix coordinate double symmetric\n3 3 2\n1 2 0.5\n3 3 -0\n", true)
                .unwrap();
        assert_eq!((el.src, el.dst), (vec![0, 1, 2], vec![1, 0, 2]));
        let real = el.real_weights.unwrap();
        assert_eq!(real, vec![0.5, 0.5, 0.0]);
        assert!(real[2].is_sign_positive(), "-0 is read as +0");
        let el = read_str("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.25\n", false).unwrap();
        assert_eq!((el.src, el.weights), (vec![0], None));
        let el = read_str("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 7\n", true).unwrap();
        assert_eq!(el.weights, Some(vec![7]));
    }

    #[test]
    fn rejects_unsupported_and_malformed() {
        let cases = [
            ("", "g.mtx: empty file"),
            ("3 3 1\n1 1\n", "g.mtx:1: missing banner"),
            ("%%MatrixMarket matrix array real general\n2 2\n", "g.mtx:1: unsupported Matrix Market format"),
            (
                "%%MatrixMarket matrix coordinate complex general\n",
                "g.mtx:1: unsupported Matrix Market field 'complex'",
            ),
            (
                "%%MatrixMarket matrix coordinate real hermitian\n",
                "g.mtx:1: unsupported Matrix Market symmetry 'hermitian'",
            ),
            (
                "%%MatrixMarket matrix coordinate real skew-symmetric\n",
                "g.mtx:1: unsupported Matrix Market symmetry 'skew-symmetric'",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 3 0\n",
                "g.mtx:2: a graph needs a square matrix",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n",
                "g.mtx:2: size line announces 2",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n2 1\n",
                "g.mtx:4: more entries than",
            ),
            (
                "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n0 2\n",
                "g.mtx:3: row index 0 out of range",
            ),
            (
                "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n",
                "g.mtx:3: non-integer weight 1.5",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -1\n",
                "g.mtx:3: weight -1 is negative",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n2 1 NaN\n",
                "g.mtx:4: weight NaN is not a number",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -inf\n",
                "g.mtx:3: weight -inf is infinite",
            ),
            (
                "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e999\n",
                "g.mtx:3: weight 1e999 is infinite",
            ),
            ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.5 7\n", "g.mtx:3: "),
            (
                "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 -1\n",
                "g.mtx:3: negative weight -1",
            ),
            ("%%MatrixMarket matrix coordinate pattern general\n", "g.mtx: missing size line"),
        ];
        for (text, msg) in cases {
            let e = read_str(text, true).unwrap_err().to_string();
            assert!(e.starts_with(msg), "{text:?}: got {e:?}, want {msg:?}");
        }
    }
}
