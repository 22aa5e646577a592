//! Parallel Boruvka on any scheduler: the MST application of the PMOD paper
//! (pmod-priority-scheduling-sc19 §5.3), after the artifact's
//! `boruvka-merge`.
//!
//! # The algorithm
//! Vertices are grouped into components by a union-find whose parent
//! pointers are atomics. Every component is owned by its *root* and has a
//! [`Mutex`]-protected state: a min-heap of its incident edges (ordered by
//! the total order of [`MsfEdge`]), its vertex count and a `finished` flag.
//! A task is a root `r` whose priority is the component's current edge
//! count (heap length, internal edges not yet discarded included — the
//! artifact's `nEdge + nAdd`); initially one task per vertex with at least
//! one edge, priority = its degree. Running the task on `r`:
//!
//! 1. If `r` is no longer a root, the task is **stale** (its component was
//!    absorbed): `ctx.mark_stale()`, return. Otherwise lock `r` and check
//!    again under the lock.
//! 2. Pop internal edges (both endpoints' root is `r`) off the heap top; the
//!    top is then the lightest edge `e = {a, b}` leaving the component, `b`
//!    outside. If the heap runs empty the component has no leaving edge: it
//!    is final. The first task to see this sets `finished`; later ones are
//!    stale.
//! 3. `s = find(b)`. `try_lock(s)`; if it succeeds and `s` is still a root,
//!    merge (step 4). If `s` was absorbed meanwhile, unlock, re-find, retry.
//!    If the lock is busy, release `r`, lock `min(r, s)` then `max(r, s)`
//!    (blocking), and re-validate: `r` no longer a root → stale; `s` no
//!    longer a root → unlock `s` and go back to step 2 with `r` locked.
//! 4. Merge: the component with fewer vertices is absorbed (union by size:
//!    `parent[absorbed] = keeper`), its heap is appended to the keeper's
//!    (`BinaryHeap::append` moves the smaller heap into the larger), `e` is
//!    recorded as an MSF edge, both locks are released and the keeper is
//!    pushed with its new edge count, as a continuation
//!    (`Context::push_next`): `auto`'s rounds run it next on this thread,
//!    while its heap is still in this core's cache; every other scheduler
//!    queues it by its priority.
//!
//! # Correctness
//! *Invariants.* (I1) `parent[x]` changes from `x` (root) to another vertex
//! only in step 4, by a thread holding `x`'s lock; path halving rewrites only
//! non-roots, always to an ancestor. Hence while a thread holds the lock of a
//! root `r`, `r` stays a root and its component `C(r)` cannot change (every
//! merge into or out of `C(r)` needs `r`'s lock). (I2) The heap of a root
//! holds every graph edge with exactly one endpoint in `C(r)` (each vertex
//! starts with all its incident edges; a merge unions the heaps), plus
//! possibly internal edges, which are discarded lazily when they reach the
//! top. (I3) A pointer ever stored in `parent[x]` names an ancestor of `x` at
//! that moment, and ancestry is permanent, so `find` terminates on any mix
//! of old and new pointers, and for a vertex of the locked `C(r)` it returns
//! exactly `r` (the merges that made it a member happened before our lock
//! acquisition, and we read no older pointer than those).
//!
//! *No MSF edge is wrong or duplicated.* By (I1, I2) the heap top after
//! step 2 is the lightest edge leaving `C(r)` at that moment. Under a strict
//! total order the lightest edge of any cut belongs to the unique MSF (cut
//! property), whatever other merges happen concurrently. When step 4 runs,
//! `r` and `s` are both roots under their locks, `a ∈ C(r)` and `b ∈ C(s)`
//! (components only grow while their root stays a root), and `r ≠ s` (`b`
//! was outside the locked `C(r)`), so `e` joins two different components:
//! every recorded edge is an MSF edge and joins two trees, so none is
//! recorded twice and no cycle forms.
//!
//! *No MSF edge is missed.* Every root with a leaving edge has a task in the
//! scheduler or running that has not yet examined its current state: the
//! initial tasks cover every vertex with an edge; a merge pushes its keeper;
//! the absorbed vertex stops being a root. A task that ends without a merge
//! either found no leaving edge (a component with no leaving edge never gets
//! one: nothing can merge into it) or found `r` absorbed. So when the
//! executor terminates (no task left), no component has a leaving edge: the
//! components are the graph's connected components and the recorded edges,
//! all in the MSF, number `n − components`: they are the MSF.
//!
//! *No deadlock.* A thread blocks on a lock only in step 3's fallback, and
//! then it holds either nothing or only a lower-numbered lock while waiting
//! for a higher-numbered one. `try_lock` never waits. So every chain of
//! waiting threads follows strictly increasing lock numbers and ends with a
//! thread that is not waiting.
//!
//! *Termination.* Each task run performs at most one merge, and there are at
//! most `n − 1` merges, each pushing one task; the retry loops of step 3 end
//! because each retry follows an absorption elsewhere (at most `n − 1`). So
//! finitely many tasks are ever pushed, and each runs in finite time.
//!
//! *Counting.* Every task is exactly one of: a merge (`n − components` in
//! total), the first finding that a non-trivial component is finished
//! (exactly one per such component, because its last merge pushed its
//! keeper), or stale (`ctx.mark_stale()`). So `tasks − stale_tasks` equals
//! [`SpanningForest::useful_tasks`] in every run, on every scheduler. Stale
//! tasks are not all avoidable: a vertex absorbed before its initial task
//! ran leaves that task stale even in exact priority order, which is why the
//! `work_increase` baseline is the task count of [`boruvka_exact_order`].
//!
//! No `unsafe`, no data race: heaps are behind mutexes, parent pointers are
//! atomics (acquire loads, release stores), found edges go to per-thread
//! mutex-protected lists that only their own thread locks during the run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use ordo_exec::{for_each_operator, with_continuations, Context, ExecOptions, Pool, RunStats};
use ordo_graph::VertexId;
use ordo_sched::{Prio, SchedulerSpec};

use super::{MsfEdge, SpanningForest, UndirectedGraph};

/// The mutable state of one component, owned by its root.
struct Component {
    /// Incident edges, lightest on top; may hold internal edges (dropped
    /// when they reach the top).
    edges: BinaryHeap<Reverse<MsfEdge>>,
    /// Vertices in the component (union by size).
    vertices: u32,
    /// A task already found this component without leaving edges.
    finished: bool,
}

/// Locks `m`; a poisoned lock (another operator panicked, the run is being
/// torn down) is taken anyway, since the executor re-raises that panic.
fn lock(m: &Mutex<Component>) -> MutexGuard<'_, Component> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `try_lock` that treats a poisoned lock as acquired (see [`lock`]).
fn try_lock(m: &Mutex<Component>) -> Option<MutexGuard<'_, Component>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

/// The shared state of one run.
struct Boruvka {
    /// Union-find parent pointers; `parent[x] == x` for roots.
    parent: Vec<AtomicU32>,
    /// Per vertex: its component's state, meaningful while it is a root.
    components: Vec<Mutex<Component>>,
    /// Per worker thread: the MSF edges it recorded.
    found: Vec<Mutex<Vec<MsfEdge>>>,
}

impl Boruvka {
    fn new(graph: &UndirectedGraph, threads: usize) -> Self {
        let n = graph.num_vertices();
        Boruvka {
            parent: (0..n as VertexId).map(AtomicU32::new).collect(),
            components: (0..n as VertexId)
                .map(|x| {
                    let edges: BinaryHeap<_> = graph.incident(x).map(Reverse).collect();
                    Mutex::new(Component { edges, vertices: 1, finished: false })
                })
                .collect(),
            found: (0..threads).map(|_| Mutex::new(Vec::new())).collect(),
        }
    }

    #[inline]
    fn is_root(&self, x: VertexId) -> bool {
        self.parent[x as usize].load(Ordering::Acquire) == x
    }

    /// The root of `x`'s component, halving the path on the way (I3).
    #[inline]
    fn find(&self, mut x: VertexId) -> VertexId {
        loop {
            let p = self.parent[x as usize].load(Ordering::Acquire);
            if p == x {
                return x;
            }
            let gp = self.parent[p as usize].load(Ordering::Acquire);
            if gp != p {
                // `gp` is an ancestor of `x`; the CAS fails harmlessly if
                // another thread already moved `x` higher.
                let _ = self.parent[x as usize].compare_exchange(p, gp, Ordering::AcqRel, Ordering::Relaxed);
            }
            x = gp;
        }
    }

    /// Step 2: the lightest edge leaving the locked component of root `r`
    /// and its endpoint outside, discarding internal edges from the top.
    fn lightest_leaving(&self, r: VertexId, comp: &mut Component) -> Option<(MsfEdge, VertexId)> {
        while let Some(&Reverse(e)) = comp.edges.peek() {
            let (ru, rv) = (self.find(e.u), self.find(e.v));
            debug_assert!(ru == r || rv == r, "edge {e:?} in the heap of {r} touches its component");
            if ru == rv {
                comp.edges.pop();
                continue;
            }
            return Some((e, if ru == r { e.v } else { e.u }));
        }
        None
    }

    /// Locks `r` and `s` in increasing id order; returns `(r's, s's)` guards.
    fn lock_pair(&self, r: VertexId, s: VertexId) -> (MutexGuard<'_, Component>, MutexGuard<'_, Component>) {
        if r < s {
            let gr = lock(&self.components[r as usize]);
            (gr, lock(&self.components[s as usize]))
        } else {
            let gs = lock(&self.components[s as usize]);
            (lock(&self.components[r as usize]), gs)
        }
    }

    /// The operator: one task on (what was) root `r`.
    fn run_task(&self, r: VertexId, ctx: &mut Context<VertexId>) {
        if !self.is_root(r) {
            ctx.mark_stale();
            return;
        }
        let mut guard_r = lock(&self.components[r as usize]);
        if !self.is_root(r) {
            ctx.mark_stale();
            return;
        }
        loop {
            let Some((edge, outside)) = self.lightest_leaving(r, &mut guard_r) else {
                if guard_r.finished {
                    ctx.mark_stale();
                } else {
                    guard_r.finished = true;
                }
                return;
            };
            // Step 3: the other root, without waiting while holding `r`.
            let mut s = self.find(outside);
            let attempt = loop {
                match try_lock(&self.components[s as usize]) {
                    Some(g) if self.is_root(s) => break Some(g),
                    Some(g) => {
                        drop(g);
                        s = self.find(outside);
                    }
                    None => break None,
                }
            };
            if let Some(guard_s) = attempt {
                self.merge(r, guard_r, s, guard_s, edge, ctx);
                return;
            }
            drop(guard_r);
            let (gr, gs) = self.lock_pair(r, s);
            if !self.is_root(r) {
                ctx.mark_stale();
                return;
            }
            if self.is_root(s) {
                self.merge(r, gr, s, gs, edge, ctx);
                return;
            }
            drop(gs);
            guard_r = gr;
        }
    }

    /// Step 4: joins the locked roots `r` and `s` through the MSF edge `edge`.
    fn merge(
        &self,
        r: VertexId,
        guard_r: MutexGuard<'_, Component>,
        s: VertexId,
        guard_s: MutexGuard<'_, Component>,
        edge: MsfEdge,
        ctx: &mut Context<VertexId>,
    ) {
        let (keeper, mut kept, absorbed, mut gone) = if guard_s.vertices > guard_r.vertices {
            (s, guard_s, r, guard_r)
        } else {
            (r, guard_r, s, guard_s)
        };
        self.parent[absorbed as usize].store(keeper, Ordering::Release);
        let mut moved = std::mem::take(&mut gone.edges);
        kept.vertices += gone.vertices;
        drop(gone);
        kept.edges.append(&mut moved);
        let degree = kept.edges.len() as Prio;
        drop(kept);
        self.found[ctx.tid()].lock().unwrap_or_else(PoisonError::into_inner).push(edge);
        // The keeper's heap and lock are hot here: where the executor can
        // (`auto`'s rounds), it runs the keeper next on this thread.
        ctx.push_next(degree, keeper);
    }
}

/// The minimum spanning forest of `graph`, computed in parallel on `pool`
/// with the scheduler `spec` by priority-scheduled Boruvka (module docs).
///
/// Returns the forest (edges sorted by `(u, v)`) and the run's statistics.
/// `tasks − stale_tasks` always equals
/// [`SpanningForest::useful_tasks`]; the stale tasks are the scheduler's
/// wasted work. Setting up the per-vertex heaps (`O(n + m)`) happens before
/// the timed parallel phase (`stats.time_s`), like the distance array of
/// SSSP; collecting and sorting the result happens after it.
///
/// Work: every edge copy is pushed into a heap once at setup, popped at most
/// once (when found internal), and moved by the merges it takes part in;
/// each merge moves the smaller heap into the larger (`BinaryHeap::append`).
/// Each task also pays one `find` per heap top it inspects. Stale tasks cost
/// one atomic load (or a lock) each.
///
/// # Example
/// ```
/// use ordo_algos::mst::{boruvka, UndirectedGraph};
/// use ordo_graph::EdgeList;
///
/// let mut el = EdgeList::new(3, true);
/// el.push(0, 1, 5);
/// el.push(1, 2, 5); // a tie: broken by the endpoints, {0,1} < {0,2} < {1,2}
/// el.push(0, 2, 5);
/// let g = UndirectedGraph::new(&el.into_graph().unwrap());
/// let pool = ordo_exec::Pool::new(2).unwrap();
/// let (forest, stats) = boruvka(&pool, &"obim".parse().unwrap(), &g, &Default::default());
/// let pairs: Vec<_> = forest.edges.iter().map(|e| (e.u, e.v)).collect();
/// assert_eq!(pairs, vec![(0, 1), (0, 2)]);
/// assert_eq!(stats.total.tasks - stats.total.stale_tasks, forest.useful_tasks(3));
/// ```
pub fn boruvka(
    pool: &Pool,
    spec: &SchedulerSpec,
    graph: &UndirectedGraph,
    opts: &ExecOptions,
) -> (SpanningForest, RunStats) {
    let n = graph.num_vertices();
    let state = Boruvka::new(graph, pool.threads());
    let g = graph.graph();
    let initial =
        (0..n as VertexId).filter(|&x| g.degree(x) > 0).map(|x| (g.degree(x) as Prio, x)).collect::<Vec<_>>();
    let stats = for_each_operator(
        pool,
        spec,
        initial,
        with_continuations(|_prio, r, ctx: &mut Context<VertexId>| state.run_task(r, ctx)),
        opts,
    );
    let edges: Vec<MsfEdge> = state
        .found
        .into_iter()
        .flat_map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner))
        .collect();
    (SpanningForest::from_edges(n, edges), stats)
}

/// A sequential run of the same operator in exact priority order.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactOrderRun {
    /// The forest it found (equal to Kruskal's).
    pub forest: SpanningForest,
    /// Tasks executed: the `work_increase` baseline of MST.
    pub tasks: u64,
    /// Of which stale (absorbed roots, repeated finishes).
    pub stale_tasks: u64,
}

/// Runs the [`boruvka`] operator on one thread with an exact priority queue
/// (a binary min-heap of `(priority, vertex)`, ties to the smaller vertex):
/// the sequential exact-order execution whose task count is the
/// denominator of MST's `work_increase`, as Dijkstra's settled vertices are
/// for SSSP. Deterministic; the same work as [`boruvka`] on one thread.
pub fn boruvka_exact_order(graph: &UndirectedGraph) -> ExactOrderRun {
    let n = graph.num_vertices();
    let state = Boruvka::new(graph, 1);
    let g = graph.graph();
    let mut queue: BinaryHeap<Reverse<(Prio, VertexId)>> =
        (0..n as VertexId).filter(|&x| g.degree(x) > 0).map(|x| Reverse((g.degree(x) as Prio, x))).collect();
    let mut ctx = Context::new(0);
    let mut tasks = 0u64;
    while let Some(Reverse((_, r))) = queue.pop() {
        tasks += 1;
        state.run_task(r, &mut ctx);
        queue.extend(ctx.drain_pushes().map(Reverse));
    }
    let edges = state.found.into_iter().flat_map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner));
    ExactOrderRun {
        forest: SpanningForest::from_edges(n, edges.collect()),
        tasks,
        stale_tasks: ctx.stale_count(),
    }
}
