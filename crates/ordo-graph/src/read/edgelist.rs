//! Edge-list readers: SNAP files (`#` comments, two 0-based ids per line) and
//! plain edge lists (`u v [w]` separated by blanks or commas, `#` or `%`
//! comments), with optional remapping of arbitrary ids to dense ones. Both
//! flavours accept the same syntax (an optional third weight column, the
//! same number of fields on every line); they differ in the default base.
//!
//! Weights: a column of whole numbers gives integer weights (`u32`); one
//! value with a fraction or an exponent (`0.5`, `1e-3`) makes the whole
//! file's weights real (`f64`, finite and non-negative).
//!
//! Base detection (`one_based: None`): a SNAP file is 0-based; so is a plain
//! edge list with a SNAP `# Nodes: N` comment; otherwise a plain edge list is
//! 1-based exactly when its smallest id is 1 (so no id 0 appears). Without remapping, the vertex count is the largest id
//! plus one (0-based) or the largest id (1-based), raised to the `Nodes: N`
//! of a SNAP-style `# Nodes: N Edges: M` comment when that is larger (the
//! edge-list writer records it, so isolated vertices survive a round trip).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

use super::scan::Cursor;
use super::{check_counts, ReadOptions};
use crate::csr::EdgeList;
use crate::error::{GraphError, Result};
use crate::memory::{self, GraphShape};

/// Which flavour of edge list is being read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flavor {
    /// SNAP: two ids per line, tab separated, 0-based by default.
    Snap,
    /// Plain: two ids and an optional weight, blank or comma separated,
    /// base detected.
    Plain,
}

/// Reads an edge list from `bytes` (the content of `path`).
pub(crate) fn read(path: &Path, bytes: &[u8], flavor: Flavor, opts: &ReadOptions<'_>) -> Result<EdgeList> {
    let mut c = Cursor::new(path, bytes).with_progress(opts);
    let allow_comma = true;
    let capacity = c.count_lines();
    // At most one edge per line: check that many before reserving them.
    let lines = capacity as u64;
    let shape = GraphShape { n: 0, m: lines, weighted: opts.keep_weights, coords: false };
    memory::check(memory::load_need(&shape, &opts.plan.load), || {
        format!("reading up to {lines} edges (one per line)")
    })
    .map_err(|e| GraphError::file(path, e.to_string()))?;
    let mut src: Vec<u32> = Vec::with_capacity(capacity);
    let mut dst: Vec<u32> = Vec::with_capacity(capacity);
    let mut weights: Option<Vec<u32>> = None;
    // Set (and `weights` emptied) once a weight is not a whole number.
    let mut real: Option<Vec<f64>> = None;
    // Number of fields per data line, fixed by the first data line.
    let mut columns: Option<usize> = None;
    let mut nodes_hint: Option<u64> = None;
    let mut remap: Option<IdMap> = opts.remap_ids.then(IdMap::default);
    let mut min_id = u64::MAX;
    let mut max_id = 0u64;
    // An id of u32::MAX only fits as a 1-based id (vertex u32::MAX - 1).
    let id_limit = if opts.one_based == Some(true) { u32::MAX as u64 } else { u32::MAX as u64 - 1 };

    loop {
        c.report_progress();
        c.skip_blanks();
        match c.peek() {
            None => break,
            Some(b'\n') => {
                c.bump();
                continue;
            }
            Some(b'#' | b'%') => {
                let line = c.take_line();
                if let Some(n) = nodes_comment(line) {
                    nodes_hint = Some(n);
                }
                continue;
            }
            Some(_) => {}
        }
        let line_start = c.pos();
        let ids = [c.uint("source id")?, {
            c.skip_separator(allow_comma);
            c.uint("target id")?
        }];
        c.skip_separator(allow_comma);
        let this_columns = if c.at_eol() { 2 } else { 3 };
        match columns {
            None => {
                if this_columns == 3 && opts.keep_weights {
                    weights = Some(Vec::with_capacity(capacity));
                }
                columns = Some(this_columns);
            }
            Some(k) if k != this_columns => {
                return Err(c.error_at(
                    line_start,
                    format!("line has {this_columns} fields but earlier lines have {k}"),
                ));
            }
            Some(_) => {}
        }
        if this_columns == 3 {
            let whole = c.token_at(c.pos()).iter().all(u8::is_ascii_digit);
            if !opts.keep_weights {
                c.weight(false)?;
            } else if whole && real.is_none() {
                let w = c.weight(true)?;
                if let Some(ws) = &mut weights {
                    ws.push(w);
                }
            } else {
                let w = c.real_weight()?;
                let rs = real.get_or_insert_with(|| {
                    let ints = weights.take().unwrap_or_default();
                    let mut rs = Vec::with_capacity(capacity);
                    rs.extend(ints.iter().map(|&x| x as f64));
                    rs
                });
                rs.push(w);
            }
        }
        c.end_line(if this_columns == 3 { "the weight" } else { "the target id" })?;

        let mut dense = [0u32; 2];
        for (k, &id) in ids.iter().enumerate() {
            if let Some(map) = &mut remap {
                dense[k] = map
                    .get_or_insert(id)
                    .ok_or_else(|| c.error_at(line_start, "more than 2^32 - 1 distinct ids"))?;
            } else {
                if id > id_limit {
                    return Err(c.error_at(line_start, format!("vertex id {id} exceeds the u32 id range")));
                }
                if id == 0 && opts.one_based == Some(true) {
                    return Err(c.error_at(line_start, "vertex id 0 in a 1-based file"));
                }
                min_id = min_id.min(id);
                max_id = max_id.max(id);
                dense[k] = id as u32;
            }
        }
        src.push(dense[0]);
        dst.push(dense[1]);
    }
    c.report_done();

    let n = if let Some(map) = &remap {
        map.len() as u64
    } else {
        let one_based = match (opts.one_based, flavor) {
            (Some(b), _) => b,
            (None, Flavor::Snap) => false,
            (None, Flavor::Plain) => nodes_hint.is_none() && min_id == 1,
        };
        let mut n = if src.is_empty() {
            0
        } else if one_based {
            for x in src.iter_mut().chain(dst.iter_mut()) {
                *x -= 1;
            }
            max_id
        } else {
            max_id + 1
        };
        if let Some(hint) = nodes_hint {
            if hint > n && hint <= super::MAX_VERTICES {
                n = hint;
            }
        }
        n
    };
    let weighted = weights.is_some() || real.is_some();
    let num_vertices = check_counts(path, || c.line_of(bytes.len()), n, src.len() as u64, weighted, opts)?;
    let counts = [weights.as_ref().map(Vec::len), real.as_ref().map(Vec::len)];
    if counts.iter().flatten().any(|&k| k != src.len()) {
        return Err(GraphError::file(path, "internal error: weight count differs from edge count"));
    }
    Ok(EdgeList { num_vertices, src, dst, weights, real_weights: real, coords: None })
}

/// The `N` of a SNAP `# Nodes: N ...` comment line.
fn nodes_comment(line: &[u8]) -> Option<u64> {
    let at = memchr::memmem::find(line, b"Nodes:")?;
    let rest = &line[at + 6..];
    let start = rest.iter().position(|&b| b != b' ' && b != b'\t')?;
    let digits = rest[start..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    rest[start..start + digits]
        .iter()
        .try_fold(0u64, |v, &b| v.checked_mul(10)?.checked_add((b - b'0') as u64))
}

/// A fast hasher for integer keys (the multiplicative hash of FxHash); ids
/// are not adversarial input for a denial-of-service here.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Dense ids in first-seen order for arbitrary `u64` ids.
#[derive(Default)]
struct IdMap {
    map: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
}

impl IdMap {
    /// The dense id of `id`, assigning the next one on first sight; `None`
    /// when the `u32` range is exhausted.
    fn get_or_insert(&mut self, id: u64) -> Option<u32> {
        let next = self.map.len();
        match self.map.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                let dense = u32::try_from(next).ok().filter(|&d| (d as u64) < super::MAX_VERTICES)?;
                Some(*e.insert(dense))
            }
        }
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str, flavor: Flavor, opts: ReadOptions<'_>) -> Result<EdgeList> {
        read(Path::new("g.el"), s.as_bytes(), flavor, &opts)
    }

    #[test]
    fn plain_lists_detect_base_and_weights() {
        let el = read_str("% c\n1 2 5\n2,3,7\n\n3 1 9", Flavor::Plain, ReadOptions::default()).unwrap();
        assert_eq!(el.num_vertices, 3);
        assert_eq!(el.src, vec![0, 1, 2]);
        assert_eq!(el.dst, vec![1, 2, 0]);
        assert_eq!(el.weights, Some(vec![5, 7, 9]));
        let el = read_str("0 2\n2 1\n", Flavor::Plain, ReadOptions::default()).unwrap();
        assert_eq!((el.num_vertices, el.src, el.dst), (3, vec![0, 2], vec![2, 1]));
    }

    #[test]
    fn a_fractional_weight_makes_the_whole_column_real() {
        let el = read_str("0 1 2\n1 2 0.5\n2 0 3e-1\n", Flavor::Plain, ReadOptions::default()).unwrap();
        assert_eq!((el.weights, el.real_weights), (None, Some(vec![2.0, 0.5, 0.3])));
        let el = read_str("0 1 2\n1 2 5\n", Flavor::Plain, ReadOptions::default()).unwrap();
        assert_eq!((el.weights, el.real_weights), (Some(vec![2, 5]), None));
        let opts = ReadOptions { keep_weights: false, ..Default::default() };
        let el = read_str("0 1 2\n1 2 0.5\n", Flavor::Plain, opts).unwrap();
        assert_eq!((el.weights, el.real_weights), (None, None));
    }

    #[test]
    fn snap_is_zero_based_and_honours_nodes_comment() {
        let el =
            read_str("# Nodes: 10 Edges: 2\n1\t2\n3\t1\n", Flavor::Snap, ReadOptions::default()).unwrap();
        assert_eq!(el.num_vertices, 10);
        assert_eq!(el.src, vec![1, 3]);
    }

    #[test]
    fn remaps_in_first_seen_order() {
        let opts = ReadOptions { remap_ids: true, ..Default::default() };
        let el = read_str("100 7\n7 5000000000\n", Flavor::Plain, opts).unwrap();
        assert_eq!(el.num_vertices, 3);
        assert_eq!(el.src, vec![0, 1]);
        assert_eq!(el.dst, vec![1, 2]);
    }

    #[test]
    fn rejects_bad_lines_with_their_line_number() {
        let cases = [
            ("1 2\n3\n", "g.el:2: missing target id"),
            ("1 2\n3 4 5\n", "g.el:2: line has 3 fields but earlier lines have 2"),
            ("1 2 3\n3 4 -5\n", "g.el:2: weight -5 is negative"),
            ("1 2 0.5\n3 4 nan\n", "g.el:2: weight nan is not a number"),
            ("1 2 3\n3 4 inf\n", "g.el:2: weight inf is infinite"),
            ("1 2 3\n3 4 -0.5\n", "g.el:2: weight -0.5 is negative"),
            ("1 2 3\n3 4 0.5x\n", "g.el:2: weight '0.5x' is not a number"),
            ("1 2\n3 4x\n", "g.el:2: target id '4x' is not an unsigned integer"),
            ("0 1\n4294967295 1\n", "g.el:2: vertex id 4294967295 exceeds the u32 id range"),
        ];
        for (text, msg) in cases {
            let e = read_str(text, Flavor::Plain, ReadOptions::default()).unwrap_err().to_string();
            assert_eq!(e, msg, "{text:?}");
        }
        let opts = ReadOptions { one_based: Some(true), ..Default::default() };
        let e = read_str("1 2\n2 0\n", Flavor::Plain, opts).unwrap_err().to_string();
        assert_eq!(e, "g.el:2: vertex id 0 in a 1-based file");
        let e = read_str("0 1\n1 2 3\n", Flavor::Snap, ReadOptions::default()).unwrap_err().to_string();
        assert_eq!(e, "g.el:2: line has 3 fields but earlier lines have 2");
    }
}
