//! One rank's part of a graph in a 1D block partition: the out-edges of a
//! contiguous range of vertices, with global target ids. Distributed runs
//! build a part without ever holding the whole graph: from the byte ranges of
//! a `.ordo` file ([`crate::binary::read_part`]) or from a generator
//! ([`crate::gen::GenSpec::generate_part`]).

use std::ops::Range;

use crate::csr::{Graph, VertexId, Weight};

/// The 1D block partition of `n` vertices over `parts` ranks: rank `r` owns
/// the vertices `⌊r·n/parts⌋ .. ⌊(r+1)·n/parts⌋` (sizes differ by at most one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockPartition {
    n: u64,
    parts: u64,
}

impl BlockPartition {
    /// The partition of `n` vertices (at most `u32::MAX`) into `parts >= 1` blocks.
    pub fn new(n: u64, parts: usize) -> Self {
        assert!(parts >= 1, "a partition needs at least one part");
        BlockPartition { n, parts: parts as u64 }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u64 {
        self.n
    }

    /// Number of parts.
    pub fn parts(&self) -> usize {
        self.parts as usize
    }

    /// The first vertex of part `r` (`r == parts` gives `n`).
    pub fn first(&self, r: usize) -> u64 {
        // n <= 2^32 and parts < 2^31: the product fits in u64.
        r as u64 * self.n / self.parts
    }

    /// The vertices of part `r`.
    pub fn range(&self, r: usize) -> Range<u32> {
        self.first(r) as u32..self.first(r + 1) as u32
    }

    /// The part that owns vertex `v` (`v < n`): the largest `r` with
    /// `first(r) <= v`, i.e. `⌊((v+1)·parts − 1) / n⌋`.
    #[inline]
    pub fn owner(&self, v: VertexId) -> usize {
        ((u64::from(v) + 1) * self.parts - 1).checked_div(self.n).unwrap_or(0) as usize
    }
}

/// The out-edges of the vertices `first .. first + num_owned()`, targets as
/// global vertex ids, weights as in the whole graph (`None`: unweighted,
/// every edge counts 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphPart {
    /// Vertices of the whole graph.
    pub num_vertices: u64,
    /// Directed edges of the whole graph.
    pub num_edges_total: u64,
    /// The first owned vertex.
    pub first: VertexId,
    /// `num_owned() + 1` offsets into `targets`, starting at 0.
    pub offsets: Vec<u64>,
    /// Global target ids of the owned vertices' out-edges.
    pub targets: Vec<VertexId>,
    /// Weights parallel to `targets`.
    pub weights: Option<Vec<Weight>>,
}

impl GraphPart {
    /// The owned vertex range.
    pub fn range(&self) -> Range<VertexId> {
        self.first..self.first + self.num_owned() as VertexId
    }

    /// Number of owned vertices.
    pub fn num_owned(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of out-edges of the owned vertices.
    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }

    /// The edge index range of owned vertex `local` (`0..num_owned()`).
    #[inline]
    pub fn edge_range(&self, local: usize) -> Range<usize> {
        self.offsets[local] as usize..self.offsets[local + 1] as usize
    }

    /// Bytes held by the arrays (offsets, targets, weights).
    pub fn heap_bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * 4 + self.weights.as_ref().map_or(0, |w| w.len() * 4))
            as u64
    }

    /// The rows `range` of a whole graph (for tests and for comparing a
    /// part built on its own with the same rows of the full graph).
    pub fn from_graph(g: &Graph, range: Range<VertexId>) -> Self {
        let (lo, hi) = (range.start as usize, range.end as usize);
        let base = g.offsets()[lo];
        let (elo, ehi) = (base as usize, g.offsets()[hi] as usize);
        GraphPart {
            num_vertices: g.num_vertices() as u64,
            num_edges_total: g.num_edges() as u64,
            first: range.start,
            offsets: g.offsets()[lo..=hi].iter().map(|o| o - base).collect(),
            targets: g.targets()[elo..ehi].to_vec(),
            weights: g.weights().map(|w| w[elo..ehi].to_vec()),
        }
    }
}

/// Bytes of the whole graph's CSR arrays as a distributed run would hold
/// them (offsets, targets, weights; no coordinates): the denominator of the
/// memory-per-rank comparison.
pub fn csr_bytes(n: u64, m: u64, weighted: bool) -> u64 {
    8 * (n + 1) + 4 * m + if weighted { 4 * m } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_is_the_inverse_of_range() {
        for n in [0u64, 1, 2, 3, 7, 10, 64, 1000, 1001] {
            for parts in 1..=9usize {
                let p = BlockPartition::new(n, parts);
                assert_eq!(p.first(0), 0);
                assert_eq!(p.first(parts), n);
                for r in 0..parts {
                    let range = p.range(r);
                    assert!(range.len() as u64 <= n / parts as u64 + 1);
                    for v in range {
                        assert_eq!(p.owner(v), r, "n={n} parts={parts} v={v}");
                    }
                }
            }
        }
    }
}
