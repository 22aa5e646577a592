//! The compressed-sparse-row graph every algorithm runs on, and the builder
//! that turns an edge list into it.
//!
//! Vertex ids are dense `u32` in `0..n`, edge offsets are `u64` so graphs with
//! more than 2^32 edges fit, weights are optional: either `u32` integers or
//! finite non-negative `f64` reals ([`EdgeWeights`]). A graph is directed;
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

/// The edge weights of a graph: integers (the common case, and the exact
/// path every algorithm was built on) or reals.
///
/// Invariant: real weights are finite and `>= 0` (checked by
/// [`Graph::validate`]), so their IEEE bit patterns, read as unsigned
/// integers, order exactly as the values do.
#[derive(Clone, Debug, PartialEq)]
pub enum EdgeWeights {
    /// Integer weights.
    Int(Buf<u32>),
    /// Real weights: finite and non-negative.
    Real(Buf<f64>),
}

impl EdgeWeights {
    /// Number of weights.
    pub fn len(&self) -> usize {
        match self {
            EdgeWeights::Int(w) => w.len(),
            EdgeWeights::Real(w) => w.len(),
        }
    }

    /// Whether there are no weights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one weight.
    pub fn width(&self) -> usize {
        match self {
            EdgeWeights::Int(_) => 4,
            EdgeWeights::Real(_) => 8,
        }
    }
}

/// The first real weight that is negative, NaN or infinite, as its index and
/// a phrase completing "weight X is ...".
pub fn first_bad_real(w: &[f64]) -> Option<(usize, &'static str)> {
    w.iter().position(|x| !(x.is_finite() && x.is_sign_positive())).map(|i| (i, bad_real_phrase(w[i])))
}

/// Why `x` is not a valid real weight ("negative", "not a number",
/// "infinite", "negative zero"); meaningful only for an `x` that fails the
/// check of [`first_bad_real`]. Negative zero is refused because its sign
/// bit would break the order of bit patterns (readers turn it into 0).
pub fn bad_real_phrase(x: f64) -> &'static str {
    if x.is_nan() {
        "not a number"
    } else if x.is_infinite() {
        "infinite"
    } else if x == 0.0 {
        "negative zero"
    } else {
        "negative"
    }
}

/// A weight type the graph can store, so code that only moves weights with
/// their edges (the transforms) is written once for both kinds.
pub trait WeightType: Copy + PartialEq + Default + Send + Sync + std::fmt::Debug + 'static {
    /// The weight an unweighted edge counts as.
    const ONE: Self;
    /// This kind's weights of `g`, if `g` carries weights of this kind.
    fn of(g: &Graph) -> Option<&[Self]>;
    /// Wraps owned weights of this kind.
    fn wrap(w: Buf<Self>) -> EdgeWeights
    where
        Self: crate::storage::Plain;
    /// Unwraps weights of this kind (`None` for the other kind).
    fn unwrap(w: EdgeWeights) -> Option<Buf<Self>>
    where
        Self: crate::storage::Plain;
    /// A total order (for reals `f64::total_cmp`, equal to `<` on valid weights).
    fn total_cmp(&self, other: &Self) -> std::cmp::Ordering;
}

impl WeightType for u32 {
    const ONE: u32 = 1;
    #[inline]
    fn of(g: &Graph) -> Option<&[u32]> {
        g.weights()
    }
    fn wrap(w: Buf<u32>) -> EdgeWeights {
        EdgeWeights::Int(w)
    }
    fn unwrap(w: EdgeWeights) -> Option<Buf<u32>> {
        match w {
            EdgeWeights::Int(w) => Some(w),
            EdgeWeights::Real(_) => None,
        }
    }
    #[inline]
    fn total_cmp(&self, other: &u32) -> std::cmp::Ordering {
        self.cmp(other)
    }
}

impl WeightType for f64 {
    const ONE: f64 = 1.0;
    #[inline]
    fn of(g: &Graph) -> Option<&[f64]> {
        g.real_weights()
    }
    fn wrap(w: Buf<f64>) -> EdgeWeights {
        EdgeWeights::Real(w)
    }
    fn unwrap(w: EdgeWeights) -> Option<Buf<f64>> {
        match w {
            EdgeWeights::Real(w) => Some(w),
            EdgeWeights::Int(_) => None,
        }
    }
    #[inline]
    fn total_cmp(&self, other: &f64) -> std::cmp::Ordering {
        f64::total_cmp(self, other)
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
    weights: Option<EdgeWeights>,
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
        Self::from_parts_with(offsets, targets, weights.map(EdgeWeights::Int), coords)
    }

    /// [`Graph::from_parts`] with weights of either kind; real weights must
    /// be finite and `>= 0`.
    pub fn from_parts_with(
        offsets: Buf<u64>,
        targets: Buf<u32>,
        weights: Option<EdgeWeights>,
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
        if let Some(EdgeWeights::Real(w)) = &self.weights {
            if let Some((i, why)) = first_bad_real(w) {
                return Err(GraphError::Invalid(format!("edge {i}: weight {} is {why}", w[i])));
            }
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

    /// Integer weights of `v`'s out-edges, aligned with [`Graph::neighbors`]
    /// (`None` when unweighted or real-weighted).
    #[inline]
    pub fn edge_weights(&self, v: VertexId) -> Option<&[Weight]> {
        let r = self.edge_range(v);
        self.weights().map(|w| &w[r])
    }

    /// Real weights of `v`'s out-edges (`None` unless real-weighted).
    #[inline]
    pub fn edge_real_weights(&self, v: VertexId) -> Option<&[f64]> {
        let r = self.edge_range(v);
        self.real_weights().map(|w| &w[r])
    }

    /// Out-edges of `v` as `(target, weight)` with the integer weights;
    /// weight 1 when unweighted. Real weights are not seen here (they read
    /// as 1 too): code that must honour them checks [`Graph::real_weights`].
    #[inline]
    pub fn weighted_neighbors(&self, v: VertexId) -> impl Iterator<Item = (VertexId, Weight)> + '_ {
        self.weighted_neighbors_as::<Weight>(v)
    }

    /// Out-edges of `v` as `(target, weight)` with the weights of kind `W`;
    /// `W::ONE` when the graph carries no weights of that kind.
    #[inline]
    pub fn weighted_neighbors_as<W: WeightType>(
        &self,
        v: VertexId,
    ) -> impl Iterator<Item = (VertexId, W)> + '_ {
        let r = self.edge_range(v);
        let t = &self.targets[r.clone()];
        let w = W::of(self).map(|w| &w[r]);
        t.iter().enumerate().map(move |(i, &t)| (t, w.map_or(W::ONE, |w| w[i])))
    }

    /// All edges `(source, target, weight)` in CSR order with the integer
    /// weights; weight 1 when unweighted (or real-weighted, see
    /// [`Graph::weighted_neighbors`]).
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

    /// The integer weight array (`m` entries), if the graph has integer
    /// weights.
    #[inline]
    pub fn weights(&self) -> Option<&[Weight]> {
        match &self.weights {
            Some(EdgeWeights::Int(w)) => Some(w),
            _ => None,
        }
    }

    /// The real weight array (`m` entries, finite and `>= 0`), if the graph
    /// has real weights.
    #[inline]
    pub fn real_weights(&self) -> Option<&[f64]> {
        match &self.weights {
            Some(EdgeWeights::Real(w)) => Some(w),
            _ => None,
        }
    }

    /// The weights of either kind.
    pub fn edge_weights_any(&self) -> Option<&EdgeWeights> {
        self.weights.as_ref()
    }

    /// Whether edges carry weights (of either kind).
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// Whether edges carry real weights.
    pub fn has_real_weights(&self) -> bool {
        matches!(self.weights, Some(EdgeWeights::Real(_)))
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
        self.weights = Some(EdgeWeights::Int(weights.into()));
        Ok(())
    }

    /// Replaces the edge weights by real ones (one per edge, in CSR order,
    /// finite and `>= 0`).
    pub fn set_real_weights(&mut self, weights: Vec<f64>) -> Result<()> {
        if weights.len() != self.num_edges() {
            return Err(GraphError::Invalid(format!(
                "{} weights for {} edges",
                weights.len(),
                self.num_edges()
            )));
        }
        let mut weights = weights;
        for w in &mut weights {
            *w += 0.0; // -0.0 + 0.0 == +0.0: no negative zero is stored
        }
        if let Some((i, why)) = first_bad_real(&weights) {
            return Err(GraphError::Invalid(format!("edge {i}: weight {} is {why}", weights[i])));
        }
        self.weights = Some(EdgeWeights::Real(weights.into()));
        Ok(())
    }

    /// Drops the edge weights.
    pub fn clear_weights(&mut self) {
        self.weights = None;
    }

    /// Drops the coordinates.
    pub fn clear_coords(&mut self) {
        self.coords = None;
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
        weights: Option<EdgeWeights>,
        coords: Option<Coordinates>,
    ) -> Self {
        let g = Graph { offsets, targets, weights, coords };
        debug_assert!(g.validate().is_ok());
        g
    }

    /// Decomposes the graph into its arrays.
    pub fn into_parts(self) -> (Buf<u64>, Buf<u32>, Option<EdgeWeights>, Option<Coordinates>) {
        (self.offsets, self.targets, self.weights, self.coords)
    }

    /// Bytes of the CSR arrays (offsets, targets, weights, coordinates).
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8
            + self.targets.len() * 4
            + self.weights.as_ref().map_or(0, |w| w.len() * w.width())
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
    /// Integer weight of each edge, if weighted with integers.
    pub weights: Option<Vec<Weight>>,
    /// Real weight of each edge, if weighted with reals (then `weights` is
    /// `None`); finite and `>= 0`, checked when the graph is built.
    pub real_weights: Option<Vec<f64>>,
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

    /// Appends an edge with a real weight to a real-weighted list (see
    /// [`EdgeList::real_weights`]); the weight is ignored for a list without
    /// real weights.
    #[inline]
    pub fn push_real(&mut self, u: VertexId, v: VertexId, weight: f64) {
        self.src.push(u);
        self.dst.push(v);
        if let Some(w) = &mut self.real_weights {
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
        let EdgeList { num_vertices: n, mut src, mut dst, mut weights, mut real_weights, coords } = self;
        if n > u32::MAX as usize {
            return Err(GraphError::Invalid(format!("{n} vertices exceed the u32 id range")));
        }
        if let Some(w) = &weights {
            if w.len() != src.len() {
                return Err(GraphError::Invalid(format!("{} weights for {} edges", w.len(), src.len())));
            }
        }
        if let Some(w) = &real_weights {
            if w.len() != src.len() || weights.is_some() {
                return Err(GraphError::Invalid(format!("{} real weights for {} edges", w.len(), src.len())));
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
            let weights = match real_weights {
                Some(w) => Some(Err(w)),
                None => weights.map(Ok),
            };
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
                    if let Some(w) = &mut real_weights {
                        w.swap(i, j);
                    }
                    slot.swap(i, j);
                }
            }
        }
        drop(src);
        let weights = match real_weights {
            Some(w) => Some(EdgeWeights::Real(w.into())),
            None => weights.map(|w| EdgeWeights::Int(w.into())),
        };
        Graph::from_parts_with(offsets.into(), dst.into(), weights, coords)
    }

    /// The stable scatter of [`EdgeList::into_graph`] into fresh arrays, for
    /// edge lists too long for `u32` slot numbers.
    fn scatter_out_of_place(
        offsets: Vec<u64>,
        src: Vec<VertexId>,
        dst: Vec<VertexId>,
        weights: Option<std::result::Result<Vec<Weight>, Vec<f64>>>,
        coords: Option<Coordinates>,
    ) -> Result<Graph> {
        let n = offsets.len() - 1;
        let m = src.len();
        let mut cursor = try_filled(0u64, n, "the scatter cursors")?;
        let scatter = |cursor: &mut [u64], values: &[u32], out: &mut [u32]| {
            cursor.copy_from_slice(&offsets[..n]);
            for (&u, &x) in src.iter().zip(values) {
                let slot = &mut cursor[u as usize];
                out[*slot as usize] = x;
                *slot += 1;
            }
        };
        let mut targets = try_filled(0u32, m, "the edge targets")?;
        scatter(&mut cursor, &dst, &mut targets);
        drop(dst);
        let weights = match weights {
            None => None,
            Some(Ok(w)) => {
                let mut out = try_filled(0u32, m, "the edge weights")?;
                scatter(&mut cursor, &w, &mut out);
                Some(EdgeWeights::Int(out.into()))
            }
            Some(Err(w)) => {
                let mut out = try_filled(0f64, m, "the edge weights")?;
                cursor.copy_from_slice(&offsets[..n]);
                for (&u, &x) in src.iter().zip(&w) {
                    let slot = &mut cursor[u as usize];
                    out[*slot as usize] = x;
                    *slot += 1;
                }
                Some(EdgeWeights::Real(out.into()))
            }
        };
        drop(src);
        drop(cursor);
        Graph::from_parts_with(offsets.into(), targets.into(), weights, coords)
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
        let real = EdgeList {
            real_weights: el.weights.as_ref().map(|w| w.iter().map(|&x| x as f64 / 8.0).collect()),
            weights: None,
            ..el.clone()
        }
        .into_graph()
        .unwrap();
        let g = el.into_graph().unwrap();
        assert_eq!(g.edges().collect::<Vec<_>>(), reference);
        let real_ref: Vec<f64> = reference.iter().map(|e| e.2 as f64 / 8.0).collect();
        assert_eq!(real.real_weights().unwrap(), &real_ref[..]);
        assert_eq!(real.weights(), None);
        assert_eq!(real.targets(), g.targets());
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
    fn real_weights_must_be_finite_and_non_negative() {
        let mut g = Graph::from_parts(vec![0u64, 1, 2].into(), vec![1u32, 0].into(), None, None).unwrap();
        g.set_real_weights(vec![0.5, 0.0]).unwrap();
        assert_eq!(g.real_weights(), Some(&[0.5, 0.0][..]));
        assert!(g.is_weighted() && g.has_real_weights() && g.weights().is_none());
        for (bad, why) in [(-0.5, "negative"), (f64::NAN, "not a number"), (f64::INFINITY, "infinite")] {
            let e = g.set_real_weights(vec![1.0, bad]).unwrap_err().to_string();
            assert!(e.contains(&format!("edge 1: weight {bad} is {why}")), "{e}");
        }
        assert_eq!(g.real_weights(), Some(&[0.5, 0.0][..]));
    }

    #[test]
    fn validate_catches_bad_offsets() {
        let g = Graph::from_parts(vec![0u64, 2, 1].into(), vec![0u32, 1].into(), None, None);
        assert!(g.is_err());
        let g = Graph::from_parts(vec![0u64, 1, 2].into(), vec![0u32, 5].into(), None, None);
        assert!(g.is_err());
    }
}
