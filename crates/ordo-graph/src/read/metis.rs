//! METIS / DIMACS-10 adjacency files (`.graph`, METIS manual §4.1.1):
//! `%` comment lines; header `n m [fmt [ncon]]`; then line `i` lists the
//! 1-based neighbours of vertex `i`. `fmt` is up to three binary digits
//! (vertex sizes, vertex weights, edge weights): with edge weights each
//! neighbour is followed by its weight; vertex sizes and the `ncon` vertex
//! weights lead the line and are skipped. `m` counts undirected edges, each
//! listed from both ends, so the lists must hold exactly `2m` entries. An
//! empty line is a vertex without neighbours (blank lines are NOT comments).

use std::path::Path;

use super::scan::Cursor;
use super::{check_counts, reserve_for, ReadOptions};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};

/// Reads a METIS graph from `bytes` (the content of `path`).
pub(crate) fn read(path: &Path, bytes: &[u8], opts: &ReadOptions<'_>) -> Result<EdgeList> {
    let mut c = Cursor::new(path, bytes).with_progress(opts);
    // Header: skip comments and blank lines before it.
    loop {
        c.skip_blanks();
        match c.peek() {
            None => {
                return Err(if bytes.iter().all(|b| b.is_ascii_whitespace()) {
                    GraphError::file(path, "empty file")
                } else {
                    GraphError::file(path, "missing header '<vertices> <edges> [fmt [ncon]]'")
                })
            }
            Some(b'\n') => c.bump(),
            Some(b'%') => c.skip_line(),
            Some(_) => break,
        }
    }
    let header_pos = c.pos();
    let n = c.uint("vertex count")?;
    c.skip_blanks();
    let m = c.uint("edge count")?;
    c.skip_blanks();
    let (mut has_sizes, mut has_edge_weights) = (false, false);
    let mut ncon = 0u64;
    if !c.at_eol() {
        let fmt_pos = c.pos();
        let fmt = c.token_at(fmt_pos);
        if fmt.is_empty() || fmt.len() > 3 || !fmt.iter().all(|&b| b == b'0' || b == b'1') {
            return Err(c.error_at(
                fmt_pos,
                format!(
                    "unsupported METIS format code '{}' (expected up to three 0/1 digits)",
                    printable(fmt)
                ),
            ));
        }
        let digit = |k: usize| fmt.len() > k && fmt[fmt.len() - 1 - k] == b'1';
        has_edge_weights = digit(0);
        let has_vertex_weights = digit(1);
        has_sizes = digit(2);
        for _ in 0..fmt.len() {
            c.bump();
        }
        c.skip_blanks();
        if !c.at_eol() {
            let ncon_pos = c.pos();
            ncon = c.uint("number of vertex weights")?;
            if !has_vertex_weights {
                return Err(c.error_at(ncon_pos, "ncon given but the format code has no vertex weights"));
            }
            if ncon > 1024 {
                return Err(c.error_at(ncon_pos, format!("{ncon} vertex weights per vertex is implausible")));
            }
        } else if has_vertex_weights {
            ncon = 1;
        }
    }
    c.end_line("the header")?;
    let header_line = c.line_of(header_pos);
    let entries =
        m.checked_mul(2).ok_or_else(|| c.error_at(header_pos, format!("edge count {m} is too large")))?;
    let keep = opts.keep_weights && has_edge_weights;
    let n = check_counts(path, || header_line, n, entries, keep, opts)?;
    let cap = reserve_for(entries, bytes.len(), 2);
    let mut el = EdgeList::new(n, keep);
    el.src.reserve_exact(cap);
    el.dst.reserve_exact(cap);
    if let Some(w) = &mut el.weights {
        w.reserve_exact(cap);
    }

    let mut vertex = 0usize;
    let mut found = 0u64;
    while !c.at_end() {
        c.report_progress();
        let line_start = c.pos();
        if c.peek() == Some(b'%') {
            c.skip_line();
            continue;
        }
        if vertex == n {
            c.skip_blanks();
            match c.peek() {
                None => break,
                Some(b'\n') => {
                    c.bump();
                    continue;
                }
                Some(b'%') => continue,
                Some(_) => {
                    return Err(c.error_at(line_start, format!("more vertex lines than the {n} announced")))
                }
            }
        }
        c.skip_blanks();
        if has_sizes {
            c.uint("vertex size")?;
            c.skip_blanks();
        }
        for _ in 0..ncon {
            c.uint("vertex weight")?;
            c.skip_blanks();
        }
        while !c.at_eol() {
            let id_pos = c.pos();
            let id = c.uint("neighbour id")?;
            if id == 0 {
                return Err(c.error_at(id_pos, "neighbour id 0 in a 1-based file"));
            }
            if id > n as u64 {
                return Err(c.error_at(id_pos, format!("neighbour id {id} out of range 1..={n}")));
            }
            c.skip_blanks();
            let w = if has_edge_weights {
                let w = c.weight(opts.keep_weights)?;
                c.skip_blanks();
                w
            } else {
                0
            };
            found += 1;
            if found > entries {
                return Err(c.error_at(
                    id_pos,
                    format!("more adjacency entries than the 2 x {m} implied by the header"),
                ));
            }
            el.push(vertex as u32, id as u32 - 1, w);
        }
        if !c.at_end() {
            c.bump();
        }
        vertex += 1;
    }
    c.report_done();
    if vertex < n {
        return Err(GraphError::parse(
            path,
            c.line_of(bytes.len()),
            format!("file ends after {vertex} of {n} vertex lines"),
        ));
    }
    if found != entries {
        return Err(GraphError::parse(
            path,
            header_line,
            format!("header announces {m} edges ({entries} adjacency entries) but the lists hold {found}"),
        ));
    }
    Ok(el)
}

fn printable(b: &[u8]) -> String {
    super::scan::printable(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> Result<EdgeList> {
        read(Path::new("g.graph"), s.as_bytes(), &ReadOptions::default())
    }

    #[test]
    fn reads_plain_and_weighted() {
        // A path 1 - 2 - 3 plus an isolated vertex 4 (empty line).
        let el = read_str("% c\n4 2\n2\n1 3\n2\n\n").unwrap();
        assert_eq!(el.num_vertices, 4);
        assert_eq!(el.src, vec![0, 1, 1, 2]);
        assert_eq!(el.dst, vec![1, 0, 2, 1]);
        assert_eq!(el.weights, None);
        // fmt 11, ncon 2: two vertex weights lead each line, then (id, weight) pairs.
        let el = read_str("2 1 11 2\n5 6 2 9\n7 8 1 9\n").unwrap();
        assert_eq!(el.src, vec![0, 1]);
        assert_eq!(el.dst, vec![1, 0]);
        assert_eq!(el.weights, Some(vec![9, 9]));
        // fmt 100: vertex sizes only.
        let el = read_str("2 1 100\n3 2\n4 1").unwrap();
        assert_eq!(el.dst, vec![1, 0]);
    }

    #[test]
    fn rejects_malformed_input() {
        let cases = [
            ("", "g.graph: empty file"),
            ("% only\n", "g.graph: missing header"),
            ("3 1\n2\n1\n", "g.graph:4: file ends after 2 of 3 vertex lines"),
            ("2 2\n2\n1\n", "g.graph:1: header announces 2 edges (4 adjacency entries) but the lists hold 2"),
            ("2 1\n2\n1 3\n", "g.graph:3: neighbour id 3 out of range 1..=2"),
            ("2 1\n0\n1\n", "g.graph:2: neighbour id 0 in a 1-based file"),
            ("2 1\n2\n1\n1\n", "g.graph:4: more vertex lines than the 2 announced"),
            ("2 1 2\n", "g.graph:1: unsupported METIS format code '2'"),
            ("2 1 1\n2 -1\n1 1\n", "g.graph:2: negative weight -1"),
            ("2 1 1\n2\n1 1\n", "g.graph:2: missing weight"),
            ("2 1\n2 x\n1\n", "g.graph:2: neighbour id 'x' is not an unsigned integer"),
        ];
        for (text, msg) in cases {
            let e = read_str(text).unwrap_err().to_string();
            assert!(e.starts_with(msg), "{text:?}: got {e:?}, want {msg:?}");
        }
    }
}
