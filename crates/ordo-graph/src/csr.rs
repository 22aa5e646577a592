//! The compressed-sparse-row graph every algorithm runs on, and the builder
//! that turns an edge list into it.
//!
//! Vertex ids are dense `u32` in `0..n`, edge offsets are `u64` so graphs with
//! more than 2^32 edges fit, weights are optional `u32`. A graph is directed;
//! an undirected input is stored with both directions (see
//! [`crate::transform::symmetrize`]).

use std::ops::Range;

use crate::error::{GraphError, Result};
use crate::memory::try_filled;
use crate::storage::Buf;

/// A vertex id: dense, 0-based.
pub type VertexId = u32;
/// An edge weight.
pub type Weight = u32;

/// How vertex coordinates are to be interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoordSystem {
    /// Planar Cartesian coordinates in arbitrary length units (METIS `.xyz`,
    /// generated graphs).
    Planar,
    /// Longitude (x) and latitude (y) in millionths of a degree, as DIMACS
    /// `.co` files store them.
    LonLatMicroDegrees,
}

/// Per-vertex coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Coordinates {
    /// How to interpret the values.
    pub system: CoordSystem,
    /// x (or longitude) per vertex.
    pub x: Buf<f64>,
    /// y (or latitude) per vertex.
    pub y: Buf<f64>,
}

impl Coordinates {
    /// Coordinates from two owned vectors of equal length.
    pub fn new(system: CoordSystem, x: Vec<f64>, y: Vec<f64>) -> Self {
        assert_eq!(x.len(), y.len(), "coordinate vectors differ in length");
        Coordinates { system, x: x.into(), y: y.into() }
    }

    /// Number of vertices that have coordinates.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no coordinates.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}

/// A directed graph in CSR form.
///
/// The out-edges of vertex `v` are `targets[offsets[v] .. offsets[v + 1]]`
/// with the matching `weights` when the graph is weighted.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    offsets: Buf<u64>,
    targets: Buf<u32>,
    weights: Option<Buf<u32>>,
    coords: Option<Coordinates>,
}

impl Graph {
    /// Assembles a graph from its arrays, validating every invariant:
    /// `offsets` has `n + 1` entries, starts at 0, never decreases and ends at
    /// `targets.len()`; every target is `< n`; `weights`, when present, has one
    /// entry per edge; `coords`, when present, one entry per vertex.
    pub fn from_parts(
        offsets: Buf<u64>,
        targets: Buf<u32>,
        weights: Option<Buf<u32>>,
        coords: Option<Coordinates>,
    ) -> Result<Self> {
        let g = Graph { offsets, targets, weights, coords };
        g.validate()?;
        Ok(g)
    }

    /// Checks the CSR invariants (see [`Graph::from_parts`]).
    pub fn validate(&self) -> Result<()> {
        let offs: &[u64] = &self.offsets;
        if offs.is_empty() {
            return Err(GraphError::Invalid("offset array is empty (needs n + 1 entries)".into()));
        }
        let n = offs.len() - 1;
        if n > u32::MAX as usize {
            return Err(GraphError::Invalid(format!("{n} vertices exceed the u32 id range")));
        }
        if offs[0] != 0 {
            return Err(GraphError::Invalid(format!("first offset is {} instead of 0", offs[0])));
        }
        if let Some(v) = offs.windows(2).position(|w| w[0] > w[1]) {
            return Err(GraphError::Invalid(format!(
                "offsets decrease at vertex {v}: {} > {}",
                offs[v],
                offs[v + 1]
            )));
        }
        if offs[n] != self.targets.len() as u64 {
            return Err(GraphError::Invalid(format!(
                "last offset {} differs from the edge count {}",
                offs[n],
                self.targets.len()
            )));
        }
        if let Some(i) = self.targets.iter().position(|&t| t as usize >= n) {
            return Err(GraphError::Invalid(format!(
                "edge {i} targets vertex {} but there are only {n} vertices",
                self.targets[i]
            )));
        }
        if let Some(w) = &self.weights {
            if w.len() != self.targets.len() {
                return Err(GraphError::Invalid(format!(
                    "{} weights for {} edges",
                    w.len(),
                    self.targets.len()
                )));
            }
        }
        if let Some(c) = &self.coords {
            if c.x.len() != n || c.y.len() != n {
                return Err(GraphError::Invalid(format!(
                    "coordinates for {} / {} vertices, graph has {n}",
                    c.x.len(),
                    c.y.len()
                )));
            }
        }
        Ok(())
    }

    /// Number of vertices `n`.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of directed edges `m`.
    #[inline]
    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }

    /// Range of edge indices of `v`'s out-edges.
    #[inline]
    pub fn edge_range(&self, v: VertexId) -> Range<usize> {
        let v = v as usize;
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// Out-degree of `v`.
    #[inline]
    pub fn degree(&self, v: VertexId) -> usize {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]) as usize
    }

    /// Out-neighbours of `v`.
    #[inline]
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        &self.targets[self.edge_range(v)]
    }

    /// Weights of `v`'s out-edges, aligned with [`Graph::neighbors`].
    #[inline]
    pub fn edge_weights(&self, v: VertexId) -> Option<&[Weight]> {
        let r = self.edge_range(v);
        self.weights.as_deref().map(|w| &w[r])
    }

    /// Out-edges of `v` as `(target, weight)`; weight 1 when unweighted.
    #[inline]
    pub fn weighted_neighbors(&self, v: VertexId) -> impl Iterator<Item = (VertexId, Weight)> + '_ {
        let r = self.edge_range(v);
        let t = &self.targets[r.clone()];
        let w = self.weights.as_deref().map(|w| &w[r]);
        t.iter().enumerate().map(move |(i, &t)| (t, w.map_or(1, |w| w[i])))
    }

    /// All edges `(source, target, weight)` in CSR order; weight 1 when
    /// unweighted.
    pub fn edges(&self) -> impl Iterator<Item = (VertexId, VertexId, Weight)> + '_ {
        (0..self.num_vertices() as u32)
            .flat_map(move |u| self.weighted_neighbors(u).map(move |(v, w)| (u, v, w)))
    }

    /// The offset array (`n + 1` entries).
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The target array (`m` entries).
    pub fn targets(&self) -> &[VertexId] {
        &self.targets
    }

    /// The weight array (`m` entries), if the graph is weighted.
    pub fn weights(&self) -> Option<&[Weight]> {
        self.weights.as_deref()
    }

    /// Whether edges carry weights.
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Vertex coordinates, if known.
    pub fn coords(&self) -> Option<&Coordinates> {
        self.coords.as_ref()
    }

    /// Replaces the edge weights (one per edge, in CSR order).
    pub fn set_weights(&mut self, weights: Vec<Weight>) -> Result<()> {
        if weights.len() != self.num_edges() {
            return Err(GraphError::Invalid(format!(
                "{} weights for {} edges",
                weights.len(),
                self.num_edges()
            )));
        }
        self.weights = Some(weights.into());
        Ok(())
    }

    /// Drops the edge weights.
    pub fn clear_weights(&mut self) {
        self.weights = None;
    }

    /// Replaces the coordinates (one per vertex).
    pub fn set_coords(&mut self, coords: Option<Coordinates>) -> Result<()> {
        if let Some(c) = &coords {
            if c.len() != self.num_vertices() {
                return Err(GraphError::Invalid(format!(
                    "coordinates for {} vertices, graph has {}",
                    c.len(),
                    self.num_vertices()
                )));
            }
        }
        self.coords = coords;
        Ok(())
    }

    /// Reassembles arrays taken from a valid graph by [`Graph::into_parts`]
    /// (copied or moved, unchanged), without checking them again.
    pub(crate) fn from_valid_parts(
        offsets: Buf<u64>,
        targets: Buf<u32>,
        weights: Option<Buf<u32>>,
        coords: Option<Coordinates>,
    ) -> Self {
        let g = Graph { offsets, targets, weights, coords };
        debug_assert!(g.validate().is_ok());
        g
    }

    /// Decomposes the graph into its arrays.
    pub fn into_parts(self) -> (Buf<u64>, Buf<u32>, Option<Buf<u32>>, Option<Coordinates>) {
        (self.offsets, self.targets, self.weights, self.coords)
    }

    /// Bytes of the CSR arrays (offsets, targets, weights, coordinates).
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8
            + self.targets.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * 4)
            + self.coords.as_ref().map_or(0, |c| c.len() * 16)
    }
}

/// A list of directed edges over vertices `0..num_vertices`, the common output
/// of every text reader and generator, turned into a [`Graph`] by
/// [`EdgeList::into_graph`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeList {
    /// Number of vertices; every endpoint must be below it.
    pub num_vertices: usize,
    /// Source of each edge.
    pub src: Vec<VertexId>,
    /// Target of each edge.
    pub dst: Vec<VertexId>,
    /// Weight of each edge, if weighted.
    pub weights: Option<Vec<Weight>>,
    /// Coordinates of the vertices, if known.
    pub coords: Option<Coordinates>,
}

impl EdgeList {
    /// An empty edge list over `num_vertices` vertices.
    pub fn new(num_vertices: usize, weighted: bool) -> Self {
        EdgeList { num_vertices, weights: weighted.then(Vec::new), ..Default::default() }
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no edges.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Appends an edge; `weight` is ignored for an unweighted list.
    #[inline]
    pub fn push(&mut self, u: VertexId, v: VertexId, weight: Weight) {
        self.src.push(u);
        self.dst.push(v);
        if let Some(w) = &mut self.weights {
            w.push(weight);
        }
    }

    /// Builds the CSR graph by a counting sort on the source. The sort is
    /// stable: the out-edges of each vertex keep their order in the list, so
    /// writing a graph out in CSR order and reading it back gives the same
    /// graph.
    ///
    /// Memory: the sort works in place. The source array is overwritten with
    /// each edge's CSR slot, the targets (and weights) are permuted into
    /// place by following the cycles of that permutation, and the offset
    /// array doubles as the scatter cursor. Peak memory is the edge list
    /// plus the offsets: at most twice the final CSR for unweighted graphs,
    /// 1.5 times for weighted ones. An input already sorted by source moves
    /// nothing. (More than 2^32 edges fall back to an out-of-place scatter.)
    pub fn into_graph(self) -> Result<Graph> {
        let EdgeList { num_vertices: n, mut src, mut dst, mut weights, coords } = self;
        if n > u32::MAX as usize {
            return Err(GraphError::Invalid(format!("{n} vertices exceed the u32 id range")));
        }
        if let Some(w) = &weights {
            if w.len() != src.len() {
                return Err(GraphError::Invalid(format!("{} weights for {} edges", w.len(), src.len())));
            }
        }
        if src.len() != dst.len() {
            return Err(GraphError::Invalid(format!("{} sources for {} targets", src.len(), dst.len())));
        }
        let m = src.len();
        // offsets[u + 1] = out-degree of u, then the exclusive prefix sum in
        // offsets[0..n] (offsets[u] = first slot of u).
        let mut offsets = try_filled(0u64, n + 1, "the edge offsets")?;
        for &u in &src {
            if u as usize >= n {
                return Err(GraphError::Invalid(format!("edge source {u} out of range 0..{n}")));
            }
            offsets[u as usize + 1] += 1;
        }
        if let Some(&v) = dst.iter().find(|&&v| v as usize >= n) {
            return Err(GraphError::Invalid(format!("edge target {v} out of range 0..{n}")));
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        if m > u32::MAX as usize {
            return Self::scatter_out_of_place(offsets, src, dst, weights, coords);
        }
        // src[i] := CSR slot of edge i, using offsets[u] as u's cursor; the
        // cursors end at the next vertex's start, so shift them back after.
        let mut sorted = true;
        for (i, u) in src.iter_mut().enumerate() {
            let cursor = &mut offsets[*u as usize];
            *u = *cursor as u32;
            sorted &= *cursor as usize == i;
            *cursor += 1;
        }
        offsets.copy_within(0..n, 1);
        offsets[0] = 0;
        if !sorted {
            // Apply the permutation "edge i goes to slot src[i]" in place:
            // each swap puts one edge into its final slot.
            let slot = &mut src;
            for i in 0..m {
                while slot[i] as usize != i {
                    let j = slot[i] as usize;
                    dst.swap(i, j);
                    if let Some(w) = &mut weights {
                        w.swap(i, j);
                    }
                    slot.swap(i, j);
                }
            }
        }
        drop(src);
        Graph::from_parts(offsets.into(), dst.into(), weights.map(Into::into), coords)
    }

    /// The stable scatter of [`EdgeList::into_graph`] into fresh arrays, for
    /// edge lists too long for `u32` slot numbers.
    fn scatter_out_of_place(
        offsets: Vec<u64>,
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        weights: Option<Vec<Weight>>,
        coords: Option<Coordinates>,
    ) -> Result<Graph> {
        let n = offsets.len() - 1;
        let m = src.len();
        let mut cursor = try_filled(0u64, n, "the scatter cursors")?;
        cursor.copy_from_slice(&offsets[..n]);
        let mut targets = try_filled(0u32, m, "the edge targets")?;
        for (&u, &v) in src.iter().zip(&dst) {
            let slot = &mut cursor[u as usize];
            targets[*slot as usize] = v;
            *slot += 1;
        }
        drop(dst);
        let mut weight_slots = match &weights {
            Some(_) => Some(try_filled(0u32, m, "the edge weights")?),
            None => None,
        };
        let weights = weights.map(|w| {
            cursor.copy_from_slice(&offsets[..n]);
            let mut out = weight_slots.take().expect("allocated above");
            for (&u, &wt) in src.iter().zip(&w) {
                let slot = &mut cursor[u as usize];
                out[*slot as usize] = wt;
                *slot += 1;
            }
            out
        });
        drop(src);
        drop(cursor);
        Graph::from_parts(offsets.into(), targets.into(), weights.map(Into::into), coords)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_csr_stably() {
        let mut el = EdgeList::new(3, true);
        el.push(2, 0, 7);
        el.push(0, 1, 5);
        el.push(0, 2, 6);
        el.push(2, 1, 8);
        let g = el.into_graph().unwrap();
        assert_eq!(g.offsets(), &[0, 2, 2, 4]);
        assert_eq!(g.neighbors(0), &[1, 2]);
        assert_eq!(g.edge_weights(2), Some(&[7u32, 8][..]));
        assert_eq!(g.edges().collect::<Vec<_>>(), vec![(0, 1, 5), (0, 2, 6), (2, 0, 7), (2, 1, 8)]);
    }

    #[test]
    fn in_place_sort_matches_a_stable_reference() {
        // A deterministic pseudo-random multigraph with loops and repeats.
        let n = 37u32;
        let mut el = EdgeList::new(n as usize, true);
        let mut x = 12345u64;
        for i in 0..2000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            el.push((x >> 33) as u32 % n, (x >> 17) as u32 % n, i);
        }
        let mut reference: Vec<(u32, u32, u32)> = el
            .src
            .iter()
            .zip(&el.dst)
            .zip(el.weights.as_ref().unwrap())
            .map(|((&u, &v), &w)| (u, v, w))
            .collect();
        reference.sort_by_key(|e| e.0); // stable
        let unweighted = EdgeList { weights: None, ..el.clone() }.into_graph().unwrap();
        let g = el.into_graph().unwrap();
        assert_eq!(g.edges().collect::<Vec<_>>(), reference);
        assert_eq!(unweighted.targets(), g.targets());
        assert_eq!(unweighted.offsets(), g.offsets());
        for u in 0..n {
            assert_eq!(g.degree(u), reference.iter().filter(|e| e.0 == u).count());
        }
    }

    #[test]
    fn rejects_out_of_range_endpoints() {
        let mut el = EdgeList::new(2, false);
        el.push(0, 2, 1);
        assert!(el.into_graph().is_err());
    }

    #[test]
    fn validate_catches_bad_offsets() {
        let g = Graph::from_parts(vec![0u64, 2, 1].into(), vec![0u32, 1].into(), None, None);
        assert!(g.is_err());
        let g = Graph::from_parts(vec![0u64, 1, 2].into(), vec![0u32, 5].into(), None, None);
        assert!(g.is_err());
    }
}
