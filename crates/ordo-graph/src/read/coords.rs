//! Coordinate files that accompany graphs: DIMACS `.co` (`c` comments,
//! `p aux sp co <n>`, then `v <id> <x> <y>` once per vertex, longitude and
//! latitude in millionths of a degree) and METIS / DIMACS-10 `.xyz` (one
//! `x y [z]` line per vertex, planar).

use std::path::Path;

use super::scan::{is_blank, Cursor};
use crate::csr::{CoordSystem, Coordinates};
use crate::error::{GraphError, Result};

/// Reads a DIMACS `.co` file for a graph of `n` vertices.
pub(crate) fn read_dimacs_co(path: &Path, bytes: &[u8], n: usize) -> Result<Coordinates> {
    let mut c = Cursor::new(path, bytes);
    let mut x = vec![0f64; 0];
    let mut y = vec![0f64; 0];
    let mut seen: Vec<bool> = Vec::new();
    let mut count = 0usize;
    let mut header: Option<usize> = None;
    loop {
        c.skip_blanks();
        let Some(kind) = c.peek() else { break };
        match kind {
            b'\n' => c.bump(),
            b'c' => c.skip_line(),
            b'p' => {
                let line_start = c.pos();
                if header.is_some() {
                    return Err(c.error("second problem line"));
                }
                c.bump();
                let words: Vec<&[u8]> =
                    c.take_line().split(|&b| is_blank(b)).filter(|w| !w.is_empty()).collect();
                if words.len() != 4 || words[..3] != [&b"aux"[..], b"sp", b"co"] {
                    return Err(c.error_at(line_start, "expected problem line 'p aux sp co <vertices>'"));
                }
                let mut num = Cursor::new(path, words[3]);
                let count_here = num
                    .uint("vertex count")
                    .map_err(|_| c.error_at(line_start, "expected problem line 'p aux sp co <vertices>'"))?;
                if !num.at_end() || count_here != n as u64 {
                    return Err(c.error_at(
                        line_start,
                        format!(
                            "coordinate file announces {} vertices but the graph has {n}",
                            printable(words[3])
                        ),
                    ));
                }
                x = vec![0f64; n];
                y = vec![0f64; n];
                seen = vec![false; n];
                header = Some(line_start);
            }
            b'v' => {
                let line_start = c.pos();
                if header.is_none() {
                    return Err(c.error("vertex line before the problem line 'p aux sp co <vertices>'"));
                }
                c.bump();
                if !c.peek().is_some_and(is_blank) {
                    return Err(c.error_at(line_start, "expected 'v <id> <x> <y>'"));
                }
                c.skip_blanks();
                let id_pos = c.pos();
                let id = c.uint("vertex id")?;
                if id == 0 || id > n as u64 {
                    return Err(c.error_at(id_pos, format!("vertex id {id} out of range 1..={n}")));
                }
                let i = id as usize - 1;
                if seen[i] {
                    return Err(c.error_at(id_pos, format!("vertex {id} has coordinates twice")));
                }
                seen[i] = true;
                c.skip_blanks();
                x[i] = c.float("x coordinate")?;
                c.skip_blanks();
                y[i] = c.float("y coordinate")?;
                c.end_line("the y coordinate")?;
                count += 1;
            }
            other => {
                return Err(c.error(format!(
                    "unknown line type '{}' (expected c, p or v)",
                    super::scan::printable(&[other])
                )))
            }
        }
    }
    let Some(header_pos) = header else {
        return Err(GraphError::file(path, "missing problem line 'p aux sp co <vertices>'"));
    };
    if count != n {
        let missing = seen.iter().position(|&s| !s).map_or(0, |i| i + 1);
        return Err(c.error_at(
            header_pos,
            format!("{count} of {n} vertices have coordinates (first missing: vertex {missing})"),
        ));
    }
    Ok(Coordinates::new(CoordSystem::LonLatMicroDegrees, x, y))
}

/// Reads a METIS / DIMACS-10 `.xyz` file for a graph of `n` vertices: one
/// line of two or three numbers per vertex; `%` and `#` lines are comments.
pub(crate) fn read_xyz(path: &Path, bytes: &[u8], n: usize) -> Result<Coordinates> {
    let mut c = Cursor::new(path, bytes);
    let mut x = Vec::with_capacity(n.min(bytes.len() / 4 + 1));
    let mut y = Vec::with_capacity(n.min(bytes.len() / 4 + 1));
    loop {
        c.skip_blanks();
        match c.peek() {
            None => break,
            Some(b'\n') => {
                c.bump();
                continue;
            }
            Some(b'%' | b'#') => {
                c.skip_line();
                continue;
            }
            Some(_) => {}
        }
        if x.len() == n {
            return Err(c.error(format!("more coordinate lines than the {n} vertices of the graph")));
        }
        x.push(c.float("x coordinate")?);
        c.skip_blanks();
        y.push(c.float("y coordinate")?);
        c.skip_blanks();
        if !c.at_eol() {
            c.float("z coordinate")?;
        }
        c.end_line("the coordinates")?;
    }
    if x.len() != n {
        return Err(GraphError::file(path, format!("{} coordinate lines for {n} vertices", x.len())));
    }
    Ok(Coordinates::new(CoordSystem::Planar, x, y))
}

fn printable(b: &[u8]) -> String {
    super::scan::printable(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_co_in_any_order() {
        let co = "c x\np aux sp co 2\nv 2 -5 6\nv 1 1491589 42484622\n";
        let c = read_dimacs_co(Path::new("g.co"), co.as_bytes(), 2).unwrap();
        assert_eq!(&*c.x, &[1491589.0, -5.0]);
        assert_eq!(&*c.y, &[42484622.0, 6.0]);
        assert_eq!(c.system, CoordSystem::LonLatMicroDegrees);
    }

    #[test]
    fn rejects_bad_co() {
        let cases = [
            ("p aux sp co 3\n", 2, "g.co:1: coordinate file announces 3 vertices"),
            (
                "p aux sp co 2\nv 1 0 0\n",
                2,
                "g.co:1: 1 of 2 vertices have coordinates (first missing: vertex 2)",
            ),
            ("p aux sp co 2\nv 1 0 0\nv 1 0 0\n", 2, "g.co:3: vertex 1 has coordinates twice"),
            ("p aux sp co 2\nv 3 0 0\n", 2, "g.co:2: vertex id 3 out of range"),
            ("p aux sp co 2\nv 1 0 x\n", 2, "g.co:2: y coordinate 'x' is not a number"),
            ("v 1 0 0\n", 2, "g.co:1: vertex line before the problem line"),
        ];
        for (text, n, msg) in cases {
            let e = read_dimacs_co(Path::new("g.co"), text.as_bytes(), n).unwrap_err().to_string();
            assert!(e.starts_with(msg), "{text:?}: {e}");
        }
    }

    #[test]
    fn reads_and_checks_xyz() {
        let c = read_xyz(Path::new("g.xyz"), b"1 2 0\n3.5 -4e1\n", 2).unwrap();
        assert_eq!(&*c.x, &[1.0, 3.5]);
        assert_eq!(&*c.y, &[2.0, -40.0]);
        let e = read_xyz(Path::new("g.xyz"), b"1 2 0\n", 2).unwrap_err().to_string();
        assert_eq!(e, "g.xyz: 1 coordinate lines for 2 vertices");
        let e = read_xyz(Path::new("g.xyz"), b"1 2\n3 4\n5 6\n", 2).unwrap_err().to_string();
        assert_eq!(e, "g.xyz:3: more coordinate lines than the 2 vertices of the graph");
        let e = read_xyz(Path::new("g.xyz"), b"1 2 3 4\n", 1).unwrap_err().to_string();
        assert_eq!(e, "g.xyz:1: unexpected '4' after the coordinates");
    }
}
