//! DIMACS shortest-path graphs (`.gr`, 9th DIMACS Implementation Challenge):
//! `c` comment lines, one problem line `p sp <n> <m>` before any arc, then
//! exactly `m` arc lines `a <u> <v> <w>` with 1-based ids in `1..=n` and
//! non-negative integer weights that fit `u32`.

use std::path::Path;

use super::scan::{is_blank, Cursor};
use super::{check_counts, reserve_for, ReadOptions};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

/// Reads a DIMACS `.gr` file from `bytes` (the content of `path`).
pub(crate) fn read(path: &Path, bytes: &[u8], opts: &ReadOptions<'_>) -> Result<EdgeList> {
    let mut c = Cursor::new(path, bytes).with_progress(opts);
    // (n, m, byte offset of the problem line)
    let mut header: Option<(u32, u64, usize)> = None;
    let mut el = EdgeList::new(0, opts.keep_weights);
    let mut arcs = 0u64;
    loop {
        c.report_progress();
        c.skip_blanks();
        let Some(kind) = c.peek() else { break };
        match kind {
            b'\n' => c.bump(),
            b'c' => c.skip_line(),
            b'a' => {
                let line_start = c.pos();
                c.bump();
                let Some((n, m, _)) = header else {
                    return Err(c.error("arc line before the problem line 'p sp <vertices> <arcs>'"));
                };
                if !c.peek().is_some_and(is_blank) {
                    return Err(c.error_at(line_start, "expected 'a <source> <target> <weight>'"));
                }
                c.skip_blanks();
                let u = vertex(&mut c, n, "source id")?;
                c.skip_blanks();
                let v = vertex(&mut c, n, "target id")?;
                c.skip_blanks();
                let w = c.weight(opts.keep_weights)?;
                c.end_line("the weight")?;
                arcs += 1;
                if arcs > m {
                    return Err(
                        c.error_at(line_start, format!("more arcs than the {m} announced by the header"))
                    );
                }
                el.push(u, v, w);
            }
            b'p' => {
                let line_start = c.pos();
                if header.is_some() {
                    return Err(c.error("second problem line"));
                }
                c.bump();
                c.skip_blanks();
                if c.starts_with(b"aux") {
                    return Err(c.error("this is a DIMACS coordinate file (p aux sp co), not a graph"));
                }
                if !(c.starts_with(b"sp") && c.bytes().get(c.pos() + 2).is_some_and(|&b| is_blank(b))) {
                    return Err(c.error("expected problem line 'p sp <vertices> <arcs>'"));
                }
                c.bump();
                c.bump();
                c.skip_blanks();
                let n = c.uint("vertex count")?;
                c.skip_blanks();
                let m = c.uint("arc count")?;
                c.end_line("the arc count")?;
                let n = check_counts(path, || c.line_of(line_start), n, m, opts.keep_weights, opts)?;
                el.num_vertices = n;
                el.src.reserve_exact(reserve_for(m, bytes.len(), 8));
                el.dst.reserve_exact(reserve_for(m, bytes.len(), 8));
                if let Some(w) = &mut el.weights {
                    w.reserve_exact(reserve_for(m, bytes.len(), 8));
                }
                header = Some((n as u32, m, line_start));
            }
            other => {
                return Err(c.error(format!(
                    "unknown line type '{}' (expected c, p or a)",
                    super::scan::printable(&[other])
                )))
            }
        }
    }
    c.report_done();
    let Some((_, m, header_pos)) = header else {
        return Err(if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            GraphError::file(path, "empty file")
        } else {
            GraphError::file(path, "missing problem line 'p sp <vertices> <arcs>'")
        });
    };
    if arcs != m {
        return Err(c.error_at(header_pos, format!("header announces {m} arcs but the file has {arcs}")));
    }
    Ok(el)
}

/// Parses a 1-based vertex id in `1..=n` and returns it 0-based.
#[inline]
fn vertex(c: &mut Cursor<'_>, n: u32, what: &str) -> Result<u32> {
    let start = c.pos();
    let id = c.uint(what)?;
    if id == 0 {
        return Err(c.error_at(start, format!("{what} 0 in a 1-based file")));
    }
    if id > n as u64 {
        return Err(c.error_at(start, format!("{what} {id} out of range 1..={n}")));
    }
    Ok(id as u32 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> Result<EdgeList> {
        read(Path::new("g.gr"), s.as_bytes(), &ReadOptions::default())
    }

    #[test]
    fn reads_arcs() {
        let el = read_str("c hi\np sp 3 2\na 1 2 7\nc mid\na 3 1 0\n").unwrap();
        assert_eq!(el.num_vertices, 3);
        assert_eq!(el.src, vec![0, 2]);
        assert_eq!(el.dst, vec![1, 0]);
        assert_eq!(el.weights, Some(vec![7, 0]));
    }

    #[test]
    fn rejects_malformed_input() {
        let cases = [
            ("", "g.gr: empty file"),
            ("c only\n", "g.gr: missing problem line"),
            ("a 1 2 3\n", "g.gr:1: arc line before the problem line"),
            ("p sp 2 1\na 1 3 1\n", "g.gr:2: target id 3 out of range 1..=2"),
            ("p sp 2 1\na 0 1 1\n", "g.gr:2: source id 0 in a 1-based file"),
            ("p sp 2 2\na 1 2 1\n", "g.gr:1: header announces 2 arcs but the file has 1"),
            ("p sp 2 1\na 1 2 1\na 2 1 1\n", "g.gr:3: more arcs than the 1 announced"),
            ("p sp 2 1\na 1 2 -1\n", "g.gr:2: negative weight -1"),
            ("p sp 2 1\na 1 2 1.5\n", "g.gr:2: non-integer weight 1.5"),
            ("p sp 2 1\na 1 2 4294967296\n", "g.gr:2: weight 4294967296 exceeds the u32 range"),
            ("p sp 2 1\na 1 2\n", "g.gr:2: missing weight"),
            ("p sp 2 1\na 1 2 3 4\n", "g.gr:2: unexpected '4' after the weight"),
            ("p max 2 1\n", "g.gr:1: expected problem line"),
            ("p sp 2 1\nx\n", "g.gr:2: unknown line type 'x'"),
            ("p sp 2 1\np sp 2 1\n", "g.gr:2: second problem line"),
        ];
        for (text, msg) in cases {
            let e = read_str(text).unwrap_err().to_string();
            assert!(e.starts_with(msg), "{text:?}: got {e:?}, want {msg:?}");
        }
    }
}
