//! What every spanning-forest variant shares: the per-vertex state word
//! (parent and batch link), the sequential probe that finishes small
//! components without starting a parallel job, and the sweep over all
//! vertices that gives every connected component exactly one root.

use std::sync::atomic::{AtomicU64, Ordering};

use ordo_graph::{Graph, VertexId};

/// "No vertex": the end of a batch list.
pub(crate) const NONE: VertexId = VertexId::MAX;

/// Vertices a component may have for the caller to finish it alone: a
/// component found larger is handed to a parallel job with the probe's
/// frontier as seeds. Small enough to be noise next to a job on a large
/// component, large enough that thousands of tiny components (isolated
/// vertices, small islands) cost no job each.
pub(crate) const PROBE_BUDGET: usize = 1 << 10;

/// One 64-bit word per vertex: `0` while unvisited, else
/// `(parent + 1) << 32 | (link + 1)`, where `link` chains the vertices of one
/// batch into a list (XWS §3.3: "each node enqueued in the work-stealing
/// queue is the head of a singly linked list"), `NONE` ending it.
///
/// Claiming a vertex is one CAS that sets its parent and links it into the
/// claimer's current batch at once, so a frame is a single vertex id (a
/// constant-size task description, as XWS requires) and the link sits in the
/// cache line the claim just touched. The word is written once (the claim)
/// except by the probe's hand-off, which runs while no job does.
pub(crate) struct ForestState {
    words: Vec<AtomicU64>,
}

const _: () = assert!(
    std::mem::size_of::<AtomicU64>() == std::mem::size_of::<u64>()
        && std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>()
);

#[inline]
fn pack(parent: VertexId, link: VertexId) -> u64 {
    ((u64::from(parent) + 1) << 32) | u64::from(link.wrapping_add(1))
}

impl ForestState {
    /// `n` unvisited vertices. The zeroed vector comes from the allocator's
    /// zeroed pages (no initialisation pass).
    pub(crate) fn new(n: usize) -> Self {
        let mut zeroed = std::mem::ManuallyDrop::new(vec![0u64; n]);
        let (ptr, len, cap) = (zeroed.as_mut_ptr(), zeroed.len(), zeroed.capacity());
        // SAFETY: `AtomicU64` has the same size, alignment (checked above)
        // and bit validity as `u64`, so the allocation of a `Vec<u64>` is a
        // valid allocation of a `Vec<AtomicU64>` of the same length and
        // capacity; ownership moves (the original is never dropped).
        let words = unsafe { Vec::from_raw_parts(ptr.cast::<AtomicU64>(), len, cap) };
        ForestState { words }
    }

    /// Vertices.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// Claims unvisited `v` for `parent`, linking it in front of `link`.
    /// Reads first so that visited vertices cost no atomic RMW.
    #[inline]
    pub(crate) fn try_claim(&self, v: VertexId, parent: VertexId, link: VertexId) -> bool {
        let w = &self.words[v as usize];
        w.load(Ordering::Relaxed) == 0
            && w.compare_exchange(0, pack(parent, link), Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }

    /// Whether `v` has a parent.
    #[inline]
    pub(crate) fn is_visited(&self, v: VertexId) -> bool {
        self.words[v as usize].load(Ordering::Relaxed) != 0
    }

    /// The vertex after `v` in its batch list (`NONE` at the end).
    #[inline]
    pub(crate) fn link(&self, v: VertexId) -> VertexId {
        (self.words[v as usize].load(Ordering::Relaxed) as u32).wrapping_sub(1)
    }

    /// The parent of visited `v`.
    #[inline]
    pub(crate) fn parent(&self, v: VertexId) -> VertexId {
        ((self.words[v as usize].load(Ordering::Relaxed) >> 32) as u32).wrapping_sub(1)
    }

    /// Sets `v`'s parent and link: only for vertices no other thread can
    /// touch now (a root before its job, the probe's hand-off).
    #[inline]
    pub(crate) fn set(&self, v: VertexId, parent: VertexId, link: VertexId) {
        self.words[v as usize].store(pack(parent, link), Ordering::Relaxed);
    }

    /// Marks visited `v` expanded, for variants that may see a vertex twice
    /// (the steal-half baseline copies stacks): the link half of the word,
    /// unused there, holds the flag. True for the first caller only.
    #[inline]
    pub(crate) fn mark_expanded(&self, v: VertexId) -> bool {
        let w = &self.words[v as usize];
        w.load(Ordering::Relaxed) & 0xFFFF_FFFF == 0 && w.fetch_or(1, Ordering::Relaxed) & 0xFFFF_FFFF == 0
    }

    /// Links `seeds` (visited, unexpanded vertices) into lists of at most
    /// `chunk` vertices and returns the list heads. Only between jobs.
    pub(crate) fn link_batches(&self, seeds: &[VertexId], chunk: usize) -> Vec<VertexId> {
        let chunk = chunk.max(1);
        seeds
            .chunks(chunk)
            .map(|c| {
                let mut head = NONE;
                for &v in c.iter().rev() {
                    self.set(v, self.parent(v), head);
                    head = v;
                }
                head
            })
            .collect()
    }

    /// The parent of every vertex in `range`, into `out`.
    pub(crate) fn parents_into(&self, first: usize, out: &mut [VertexId]) {
        for (i, p) in out.iter_mut().enumerate() {
            *p = self.parent((first + i) as VertexId);
        }
    }

    /// The unvisited vertices among `first..first + count`, in order, into `out`.
    pub(crate) fn unvisited_into(&self, first: usize, count: usize, out: &mut Vec<VertexId>) {
        for v in first..first + count {
            if self.words[v].load(Ordering::Relaxed) == 0 {
                out.push(v as VertexId);
            }
        }
    }
}

/// In which order a component is explored: it decides the probe's shape and
/// what the seeds of the parallel job are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Pseudo-DFS: seeds are the probe's stack.
    Depth,
    /// BFS: seeds are one complete level, so the parallel job keeps exact
    /// levels.
    Breadth,
}

/// A parallel implementation of one spanning-forest variant, driven by
/// [`sweep`].
pub(crate) trait Engine {
    /// Explores the rest of a component from `seeds`: visited vertices not
    /// yet expanded (for [`Order::Breadth`], exactly one level). On return
    /// every vertex of the component is visited. Returns the number of
    /// vertices it claimed, when it knows it (then a connected graph needs
    /// no [`Engine::unvisited`] pass).
    fn explore(&mut self, graph: &Graph, state: &ForestState, seeds: Vec<VertexId>) -> Option<u64>;

    /// The unvisited vertices, in increasing order.
    fn unvisited(&mut self, state: &ForestState) -> Vec<VertexId> {
        let mut out = Vec::new();
        state.unvisited_into(0, state.len(), &mut out);
        out
    }

    /// Every vertex's parent.
    fn parents(&mut self, state: &ForestState) -> Vec<VertexId> {
        let mut out = vec![0; state.len()];
        state.parents_into(0, &mut out);
        out
    }
}

/// What [`sweep`] did, besides the parents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SweepCounts {
    /// Connected components (= roots).
    pub(crate) components: u64,
    /// Components handed to [`Engine::explore`].
    pub(crate) parallel_components: u64,
}

/// The spanning forest of `graph` (symmetric): vertex 0's component first,
/// then, in increasing order, every vertex still unvisited becomes the root
/// of its component. Each component is finished by the probe or by the
/// engine before the next root is chosen, so each gets exactly one root.
pub(crate) fn sweep(graph: &Graph, order: Order, engine: &mut impl Engine) -> (Vec<VertexId>, SweepCounts) {
    let n = graph.num_vertices();
    let state = ForestState::new(n);
    let mut counts = SweepCounts::default();
    // Explores `root`'s component; the number of vertices it has, if known.
    let mut component = |root: VertexId, engine: &mut dyn Engine| -> Option<u64> {
        state.set(root, root, NONE);
        counts.components += 1;
        let probe = match order {
            Order::Depth => probe_depth(graph, &state, root),
            Order::Breadth => probe_breadth(graph, &state, root),
        };
        match probe {
            Probe::Done { visited } => Some(visited as u64),
            Probe::Frontier { visited, seeds } => {
                counts.parallel_components += 1;
                let claimed = engine.explore(graph, &state, seeds)?;
                Some(visited as u64 + claimed)
            }
        }
    };
    if n > 0 {
        let first = component(0, engine);
        if first != Some(n as u64) {
            for root in engine.unvisited(&state) {
                if !state.is_visited(root) {
                    component(root, engine);
                }
            }
        }
    }
    let parents = engine.parents(&state);
    (parents, counts)
}

/// How a sequential probe ended.
enum Probe {
    /// The component is done: it has `visited` vertices.
    Done { visited: usize },
    /// The budget ran out after `visited` vertices; `seeds` are visited but
    /// not expanded (a DFS stack, or one complete BFS level).
    Frontier { visited: usize, seeds: Vec<VertexId> },
}

/// Sequential DFS from visited `root` until the component is done or
/// [`PROBE_BUDGET`] vertices are visited: then the stack, claimed but not
/// expanded, is the frontier.
fn probe_depth(graph: &Graph, state: &ForestState, root: VertexId) -> Probe {
    let mut stack = vec![root];
    let mut visited = 1;
    while let Some(v) = stack.pop() {
        if visited >= PROBE_BUDGET {
            stack.push(v);
            return Probe::Frontier { visited, seeds: stack };
        }
        for &u in graph.neighbors(v) {
            if state.try_claim(u, v, NONE) {
                stack.push(u);
                visited += 1;
            }
        }
    }
    Probe::Done { visited }
}

/// Sequential BFS from visited `root`, level by level, until the component
/// is done or [`PROBE_BUDGET`] vertices are visited: then the next level,
/// claimed but not expanded, is the frontier.
fn probe_breadth(graph: &Graph, state: &ForestState, root: VertexId) -> Probe {
    let mut level = vec![root];
    let mut visited = 1;
    while !level.is_empty() {
        if visited >= PROBE_BUDGET {
            return Probe::Frontier { visited, seeds: level };
        }
        let mut next = Vec::new();
        for &v in &level {
            for &u in graph.neighbors(v) {
                if state.try_claim(u, v, NONE) {
                    next.push(u);
                    visited += 1;
                }
            }
        }
        level = next;
    }
    Probe::Done { visited }
}
