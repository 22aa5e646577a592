//! The algorithms' task semantics, executed sequentially and exactly by the
//! simulator: the operators of `ordo_algos::{sssp, bfs, astar}` in the
//! papers' form (`--operator paper`, PMOD paper Fig. 1b: every improved
//! vertex gets a task), with plain integers in place of atomics (only one
//! virtual thread runs at a time, and each task runs atomically at its
//! pop). ordo's own operator (`fast`: chain following, logged plain
//! stores) is not modelled.
//!
//! A task is a vertex; its priority carries its distance (or level, or
//! A*'s `f = g + h`), as in `ordo-algos`. [`SimApp::execute`] runs one task
//! and appends the tasks it creates, in the order the parallel operator
//! would push them; the driver pushes them one per step afterwards, as the
//! executor pushes a task's children after its operator returns.

use ordo_algos::astar::Heuristic;
use ordo_algos::{UNREACHED_DIST, UNREACHED_LEVEL};
use ordo_graph::{Graph, VertexId};
use ordo_sched::Prio;

/// What running one task did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The task relaxed its vertex's edges.
    Ran,
    /// The task was outdated (its vertex improved since it was pushed) or,
    /// for A*, pruned by the target's distance: it did no relaxation.
    Stale,
}

/// An algorithm as the simulator runs it.
pub trait SimApp {
    /// The tasks present at the start, `(priority, vertex)`.
    fn initial_tasks(&self) -> Vec<(Prio, VertexId)>;
    /// Runs the task `(prio, v)`, appending the tasks it creates to `out`.
    fn execute(&mut self, prio: Prio, v: VertexId, out: &mut Vec<(Prio, VertexId)>) -> Outcome;
    /// The vertices whose labels a task of `v` that relaxes reads: its
    /// out-neighbours (the data accesses of [`crate::costs`]).
    fn neighbors(&self, v: VertexId) -> &[VertexId];
    /// The number of vertices (the size of the labels' array).
    fn num_vertices(&self) -> usize;
    /// Whether the priorities are levels (each task pushes at its own
    /// priority plus one), as the real operator declares
    /// (`ordo_exec::Operator::LEVEL_PRIORITIES`): `auto`'s rounds size
    /// themselves for levels.
    fn level_priorities(&self) -> bool {
        false
    }
}

/// Weight of edge `e`: the graph's, or 1 when unweighted (as `ordo-algos`).
#[inline]
fn weight(graph: &Graph, e: usize) -> u64 {
    graph.weights().map_or(1, |w| u64::from(w[e]))
}

/// Single-source shortest paths (`ordo_algos::sssp`'s operator, `paper` form).
pub struct Sssp<'g> {
    graph: &'g Graph,
    source: VertexId,
    dist: Vec<u64>,
}

impl<'g> Sssp<'g> {
    /// SSSP from `source`, which must be a vertex of `graph`.
    pub fn new(graph: &'g Graph, source: VertexId) -> Self {
        let mut dist = vec![UNREACHED_DIST; graph.num_vertices()];
        dist[source as usize] = 0;
        Sssp { graph, source, dist }
    }

    /// The distances ([`UNREACHED_DIST`] when unreachable).
    pub fn into_distances(self) -> Vec<u64> {
        self.dist
    }
}

impl SimApp for Sssp<'_> {
    fn neighbors(&self, v: VertexId) -> &[VertexId] {
        self.graph.neighbors(v)
    }

    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn initial_tasks(&self) -> Vec<(Prio, VertexId)> {
        vec![(0, self.source)]
    }

    fn execute(&mut self, prio: Prio, v: VertexId, out: &mut Vec<(Prio, VertexId)>) -> Outcome {
        let current = self.dist[v as usize];
        if prio > current {
            return Outcome::Stale;
        }
        let g = self.graph;
        let targets = g.targets();
        for e in g.edge_range(v) {
            let u = targets[e] as usize;
            let candidate = current + weight(g, e);
            if candidate < self.dist[u] {
                self.dist[u] = candidate;
                out.push((candidate, u as VertexId));
            }
        }
        Outcome::Ran
    }
}

/// Breadth-first search levels (`ordo_algos::bfs`'s operator).
pub struct Bfs<'g> {
    graph: &'g Graph,
    source: VertexId,
    level: Vec<u32>,
}

impl<'g> Bfs<'g> {
    /// BFS from `source`, which must be a vertex of `graph`.
    pub fn new(graph: &'g Graph, source: VertexId) -> Self {
        let mut level = vec![UNREACHED_LEVEL; graph.num_vertices()];
        level[source as usize] = 0;
        Bfs { graph, source, level }
    }

    /// The levels ([`UNREACHED_LEVEL`] when unreachable).
    pub fn into_levels(self) -> Vec<u32> {
        self.level
    }
}

impl SimApp for Bfs<'_> {
    fn neighbors(&self, v: VertexId) -> &[VertexId] {
        self.graph.neighbors(v)
    }

    fn level_priorities(&self) -> bool {
        true
    }

    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn initial_tasks(&self) -> Vec<(Prio, VertexId)> {
        vec![(0, self.source)]
    }

    fn execute(&mut self, prio: Prio, v: VertexId, out: &mut Vec<(Prio, VertexId)>) -> Outcome {
        let current = self.level[v as usize];
        if prio > Prio::from(current) {
            return Outcome::Stale;
        }
        let next = current + 1;
        for &u in self.graph.neighbors(v) {
            if next < self.level[u as usize] {
                self.level[u as usize] = next;
                out.push((Prio::from(next), u));
            }
        }
        Outcome::Ran
    }
}

/// A* to one target (`ordo_algos::astar`'s operator, `paper` form: stale
/// test, pruning by the target's distance, every improved vertex below it
/// pushed, the target included, whose task is then pruned).
pub struct Astar<'g> {
    graph: &'g Graph,
    source: VertexId,
    target: VertexId,
    /// `h(v)` toward the target, precomputed per vertex.
    h: Vec<u64>,
    dist: Vec<u64>,
}

impl<'g> Astar<'g> {
    /// A* from `source` to `target` (both vertices of `graph`) guided by
    /// `heuristic`, which must have been built for `graph`.
    pub fn new(graph: &'g Graph, source: VertexId, target: VertexId, heuristic: &Heuristic) -> Self {
        let n = graph.num_vertices();
        let h = (0..n as VertexId).map(|v| heuristic.estimate(v, target)).collect();
        let mut dist = vec![UNREACHED_DIST; n];
        dist[source as usize] = 0;
        Astar { graph, source, target, h, dist }
    }

    /// The final tentative distances: exact on a shortest path to the
    /// target, upper bounds elsewhere (as `AstarResult::labels`).
    pub fn into_labels(self) -> Vec<u64> {
        self.dist
    }
}

impl SimApp for Astar<'_> {
    fn neighbors(&self, v: VertexId) -> &[VertexId] {
        self.graph.neighbors(v)
    }

    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn initial_tasks(&self) -> Vec<(Prio, VertexId)> {
        vec![(self.h[self.source as usize], self.source)]
    }

    fn execute(&mut self, f: Prio, v: VertexId, out: &mut Vec<(Prio, VertexId)>) -> Outcome {
        let g = self.dist[v as usize];
        let f_now = g.saturating_add(self.h[v as usize]);
        let goal = self.dist[self.target as usize];
        if f > f_now || f_now >= goal {
            return Outcome::Stale;
        }
        let graph = self.graph;
        let targets = graph.targets();
        for e in graph.edge_range(v) {
            let u = targets[e];
            let candidate = g + weight(graph, e);
            if candidate >= self.dist[u as usize] {
                continue;
            }
            let f_u = candidate.saturating_add(self.h[u as usize]);
            if f_u < self.dist[self.target as usize] {
                self.dist[u as usize] = candidate;
                out.push((f_u, u));
            }
        }
        Outcome::Ran
    }
}
