//! A sequential union-find (disjoint-set forest) over the vertex ids
//! `0..n`: the building block of Kruskal's minimum spanning forest, weakly
//! connected components and the road generator's random spanning tree.

use crate::csr::VertexId;

/// Disjoint sets over `0..n` with union by size and path halving (Tarjan and
/// van Leeuwen, "Worst-case analysis of set union algorithms", JACM 1984):
/// any sequence of `m` operations takes `O(m α(n))` time. `8 n` bytes.
///
/// Sequential: concurrent algorithms (Boruvka's merging) use their own
/// lock-free structure.
///
/// # Example
/// ```
/// use ordo_graph::UnionFind;
///
/// let mut sets = UnionFind::new(4);
/// assert!(sets.union(0, 1));
/// assert!(sets.union(2, 1));
/// assert!(!sets.union(0, 2), "already one set");
/// assert_eq!(sets.find(2), sets.find(0));
/// assert_eq!(sets.set_size(1), 3);
/// assert_ne!(sets.find(3), sets.find(0));
/// ```
#[derive(Clone, Debug)]
pub struct UnionFind {
    /// A vertex's parent in its set's tree; roots are their own parent.
    parent: Vec<VertexId>,
    /// The set's size, valid at roots.
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singleton sets `{0}, {1}, …, {n - 1}` (`n` at most `2^32`).
    pub fn new(n: usize) -> Self {
        debug_assert!(n as u64 <= 1 << 32, "vertex ids are u32");
        UnionFind { parent: (0..n as u64).map(|v| v as VertexId).collect(), size: vec![1; n] }
    }

    /// Number of elements `n`.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `v`'s set, halving the path on the way: every
    /// visited vertex is linked to its grandparent.
    #[inline]
    pub fn find(&mut self, mut v: VertexId) -> VertexId {
        loop {
            let p = self.parent[v as usize];
            if p == v {
                return v;
            }
            let grand = self.parent[p as usize];
            self.parent[v as usize] = grand;
            v = grand;
        }
    }

    /// Merges the sets of `a` and `b`, the smaller under the larger's root;
    /// `false` when they were already one set.
    #[inline]
    pub fn union(&mut self, a: VertexId, b: VertexId) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a as usize] < self.size[b as usize] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b as usize] = a;
        self.size[a as usize] += self.size[b as usize];
        true
    }

    /// Whether `a` and `b` are in the same set.
    pub fn same_set(&mut self, a: VertexId, b: VertexId) -> bool {
        self.find(a) == self.find(b)
    }

    /// Number of elements in `v`'s set.
    pub fn set_size(&mut self, v: VertexId) -> u32 {
        let r = self.find(v);
        self.size[r as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_sizes() {
        let mut d = UnionFind::new(5);
        assert_eq!((d.len(), d.is_empty()), (5, false));
        assert!(d.union(0, 1));
        assert!(d.union(3, 4));
        assert!(!d.union(1, 0));
        assert!(d.union(1, 4));
        assert_eq!(d.set_size(3), 4);
        assert_eq!(d.set_size(2), 1);
        assert!(d.same_set(0, 3));
        assert!(!d.same_set(2, 3));
        assert!(UnionFind::new(0).is_empty());
    }

    #[test]
    fn agrees_with_naive_labels() {
        // Random unions against relabelling every member of the absorbed set.
        let n = 200u32;
        let mut sets = UnionFind::new(n as usize);
        let mut label: Vec<u32> = (0..n).collect();
        let mut x = 17u64;
        for _ in 0..500 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (a, b) = ((x >> 33) as u32 % n, (x >> 13) as u32 % n);
            let merged = sets.union(a, b);
            assert_eq!(merged, label[a as usize] != label[b as usize]);
            let (from, to) = (label[b as usize], label[a as usize]);
            label.iter_mut().filter(|l| **l == from).for_each(|l| *l = to);
            for v in (0..n).step_by(37) {
                let size = label.iter().filter(|&&l| l == label[v as usize]).count() as u32;
                assert_eq!(sets.set_size(v), size);
            }
        }
    }
}
