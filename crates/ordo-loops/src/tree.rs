//! The thread tree of Callisto-RTS §2.2 (Figure 2) and the teams it gives
//! each loop.
//!
//! Every thread has a *level*: the highest configured level `l` such that it
//! is the first thread of its unit at level `l` (its core for `core`, its
//! socket for `socket`); thread 0, the root, is above every level. A thread
//! at level `n` has as *parent* the first thread of its unit at level `n + 1`
//! (the root for the highest level). A thread that reaches a loop at level
//! `k` leads it; the loop's *team* is the leader and, recursively, every
//! descendant reached through threads at levels `>= k` — the followers whose
//! leader that thread is and whose level is at least `k`. Descendants at the
//! levels of an enclosing loop are busy with that loop and are left out.

use std::sync::Arc;

use ordo_sched::topology::Topology;

use crate::levels::LevelMap;
use crate::spec::Granularity;

/// One thread of a team, with its position in the team.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    /// The runtime thread.
    pub(crate) tid: usize,
    /// Dense index in the team; the leader is 0.
    pub(crate) rank: usize,
    /// Dense index of the member's core among the team's cores.
    pub(crate) core: usize,
    /// Dense index of the member's socket among the team's sockets.
    pub(crate) socket: usize,
    /// Index of the member among the team's members on its core.
    pub(crate) core_slot: usize,
    /// Index of the member among the team's members on its socket.
    pub(crate) socket_slot: usize,
    /// The machine-wide socket of the thread (which active count it uses).
    pub(crate) machine_socket: usize,
}

impl Member {
    /// The member's unit at granularity `g` (dense within the team).
    pub(crate) fn unit(&self, g: Granularity) -> usize {
        match g {
            Granularity::Thread => self.rank,
            Granularity::Core => self.core,
            Granularity::Socket => self.socket,
        }
    }

    /// The member's index among the team's members of its unit at `g`.
    pub(crate) fn slot_in_unit(&self, g: Granularity) -> usize {
        match g {
            Granularity::Thread => 0,
            Granularity::Core => self.core_slot,
            Granularity::Socket => self.socket_slot,
        }
    }
}

/// The threads that take part in one kind of loop.
#[derive(Debug)]
pub(crate) struct Team {
    members: Vec<Member>,
    core_sizes: Vec<usize>,
    socket_sizes: Vec<usize>,
    /// `(tid, rank)`, sorted by tid.
    by_tid: Vec<(usize, usize)>,
}

impl Team {
    fn new(tids: Vec<usize>, topology: &Topology) -> Team {
        let mut cores: Vec<usize> = Vec::new();
        let mut sockets: Vec<usize> = Vec::new();
        let mut core_sizes: Vec<usize> = Vec::new();
        let mut socket_sizes: Vec<usize> = Vec::new();
        let dense = |ids: &mut Vec<usize>, sizes: &mut Vec<usize>, id: usize| {
            let i = ids.iter().position(|&x| x == id).unwrap_or_else(|| {
                ids.push(id);
                sizes.push(0);
                ids.len() - 1
            });
            sizes[i] += 1;
            (i, sizes[i] - 1)
        };
        let members: Vec<Member> = tids
            .iter()
            .enumerate()
            .map(|(rank, &tid)| {
                let (core, core_slot) = dense(&mut cores, &mut core_sizes, topology.core_of_thread(tid));
                let machine_socket = topology.socket_of_thread(tid);
                let (socket, socket_slot) = dense(&mut sockets, &mut socket_sizes, machine_socket);
                Member { tid, rank, core, socket, core_slot, socket_slot, machine_socket }
            })
            .collect();
        let mut by_tid: Vec<(usize, usize)> = members.iter().map(|m| (m.tid, m.rank)).collect();
        by_tid.sort_unstable();
        Team { members, core_sizes, socket_sizes, by_tid }
    }

    /// A team of one thread (for models and tests).
    #[cfg(any(test, loom))]
    pub(crate) fn solo_for_test(size: usize, cores: usize) -> Team {
        let topology = Topology::with_cores(size, cores, 1);
        Team::new((0..size).collect(), &topology)
    }

    /// The number of members.
    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// Member `rank`.
    pub(crate) fn member(&self, rank: usize) -> &Member {
        &self.members[rank]
    }

    /// Every member, leader first.
    #[cfg(any(test, loom))]
    pub(crate) fn members(&self) -> &[Member] {
        &self.members
    }

    /// The member that is runtime thread `tid`, if it belongs to the team.
    pub(crate) fn member_of(&self, tid: usize) -> Option<&Member> {
        let i = self.by_tid.binary_search_by_key(&tid, |&(t, _)| t).ok()?;
        Some(&self.members[self.by_tid[i].1])
    }

    /// The number of the team's units at granularity `g`.
    pub(crate) fn units(&self, g: Granularity) -> usize {
        match g {
            Granularity::Thread => self.members.len(),
            Granularity::Core => self.core_sizes.len(),
            Granularity::Socket => self.socket_sizes.len(),
        }
    }

    /// How many members each unit at granularity `g` has.
    pub(crate) fn unit_sizes(&self, g: Granularity) -> Vec<usize> {
        match g {
            Granularity::Thread => vec![1; self.members.len()],
            Granularity::Core => self.core_sizes.clone(),
            Granularity::Socket => self.socket_sizes.clone(),
        }
    }
}

/// The thread tree of a runtime and the team of every loop a thread may lead.
#[derive(Debug)]
pub(crate) struct Tree {
    /// The number of configured levels; the root's level.
    top: usize,
    level_of: Vec<usize>,
    parent: Vec<Option<usize>>,
    /// `children[t][c]`: the children of `t` at level `c`, for `c < level(t)`.
    children: Vec<Vec<Vec<usize>>>,
    /// `teams[t][k][j - k - 1]`: the team of a level-`k` loop led by `t`
    /// inside an enclosing loop at level `j` (`j = level(t)` when `t` is the
    /// root outside any loop, or a thread inside a loop at its own level).
    teams: Vec<Vec<Vec<Arc<Team>>>>,
    topology: Topology,
}

impl Tree {
    /// Builds the tree of `topology.threads()` threads for `levels`.
    pub(crate) fn new(topology: &Topology, levels: &LevelMap) -> Tree {
        let threads = topology.threads();
        let top = levels.len();
        let unit = |t: usize, level: usize| -> usize {
            match levels.granularity(level).expect("level below top") {
                Granularity::Thread => t,
                Granularity::Core => topology.core_of_thread(t),
                Granularity::Socket => topology.socket_of_thread(t),
            }
        };
        // The first thread of every unit at every level.
        let first_of = |t: usize, level: usize| -> usize {
            let u = unit(t, level);
            (0..threads).find(|&x| unit(x, level) == u).unwrap_or(t)
        };
        let level_of: Vec<usize> = (0..threads)
            .map(|t| if t == 0 { top } else { (0..top).rev().find(|&l| first_of(t, l) == t).unwrap_or(0) })
            .collect();
        let parent: Vec<Option<usize>> = (0..threads)
            .map(|t| {
                if t == 0 {
                    None
                } else if level_of[t] + 1 < top {
                    Some(first_of(t, level_of[t] + 1))
                } else {
                    Some(0)
                }
            })
            .collect();
        let mut children: Vec<Vec<Vec<usize>>> = level_of.iter().map(|&l| vec![Vec::new(); l]).collect();
        for t in 1..threads {
            let p = parent[t].expect("non-root threads have a parent");
            children[p][level_of[t]].push(t);
        }
        let mut tree =
            Tree { top, level_of, parent, children, teams: Vec::new(), topology: topology.clone() };
        tree.teams = (0..threads)
            .map(|t| {
                (0..tree.level_of[t])
                    .map(|k| {
                        ((k + 1)..=tree.level_of[t])
                            .map(|j| Arc::new(Team::new(tree.team_tids(t, k, j), topology)))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        tree
    }

    fn team_tids(&self, t: usize, k: usize, j: usize) -> Vec<usize> {
        let mut out = vec![t];
        self.add_subtree(t, k, j, &mut out);
        out
    }

    fn add_subtree(&self, u: usize, k: usize, below: usize, out: &mut Vec<usize>) {
        for c in k..below.min(self.level_of[u]) {
            for &child in &self.children[u][c] {
                out.push(child);
                self.add_subtree(child, k, self.level_of[child], out);
            }
        }
    }

    /// The number of threads.
    pub(crate) fn threads(&self) -> usize {
        self.level_of.len()
    }

    /// The number of configured levels (the root's level).
    pub(crate) fn top(&self) -> usize {
        self.top
    }

    /// The level of thread `t`.
    pub(crate) fn level(&self, t: usize) -> usize {
        self.level_of[t]
    }

    /// The parent of thread `t` (`None` for the root).
    pub(crate) fn parent(&self, t: usize) -> Option<usize> {
        self.parent[t]
    }

    /// The children of `t` at level `c`.
    pub(crate) fn children(&self, t: usize, c: usize) -> &[usize] {
        self.children[t].get(c).map_or(&[], Vec::as_slice)
    }

    /// The team of a level-`k` loop that `t` reaches inside an enclosing
    /// loop at level `j` (`j = top` for the root outside any loop); `None`
    /// when no other thread can help (`k >= j`, or `t` has no free
    /// descendant), in which case the loop runs on `t` alone.
    pub(crate) fn team(&self, t: usize, k: usize, j: usize) -> Option<&Arc<Team>> {
        let j = j.min(self.level_of[t]);
        if k >= j {
            return None;
        }
        let team = &self.teams[t][k][j - k - 1];
        (team.len() > 1).then_some(team)
    }

    /// The machine-wide socket of thread `t`.
    pub(crate) fn socket_of(&self, t: usize) -> usize {
        self.topology.socket_of_thread(t)
    }

    /// The number of sockets of the machine.
    pub(crate) fn sockets(&self) -> usize {
        self.topology.num_sockets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tids(team: Option<&Arc<Team>>) -> Vec<usize> {
        team.map_or_else(Vec::new, |t| t.members().iter().map(|m| m.tid).collect())
    }

    /// Figure 2: 8 threads on 2 sockets, levels `thread,socket`.
    #[test]
    fn figure_2_two_sockets() {
        let topo = Topology::even(8, 2);
        let tree = Tree::new(&topo, &"thread,socket".parse().unwrap());
        assert_eq!((0..8).map(|t| tree.level(t)).collect::<Vec<_>>(), vec![2, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(tree.parent(4), Some(0));
        assert_eq!(tree.parent(6), Some(4));
        assert_eq!(tree.parent(2), Some(0));
        assert_eq!(tree.children(0, 0), &[1, 2, 3]);
        assert_eq!(tree.children(0, 1), &[4]);
        // (b) a level-0 loop at the top: every thread.
        assert_eq!(tids(tree.team(0, 0, 2)), vec![0, 1, 2, 3, 4, 5, 6, 7]);
        // (c) a level-1 loop: t1 and t5 (ids 0 and 4).
        assert_eq!(tids(tree.team(0, 1, 2)), vec![0, 4]);
        // (d) t5 reaches a level-0 loop inside the level-1 loop: t5..t8.
        assert_eq!(tids(tree.team(4, 0, 1)), vec![4, 5, 6, 7]);
        assert_eq!(tids(tree.team(0, 0, 1)), vec![0, 1, 2, 3]);
        // Level-0 threads lead nothing; a loop at or above the enclosing level
        // runs alone.
        assert!(tree.team(5, 0, 0).is_none());
        assert!(tree.team(4, 1, 1).is_none());
        assert!(tree.team(0, 2, 2).is_none());
    }

    #[test]
    fn three_levels_and_team_positions() {
        // 8 threads, 4 cores (2 threads each), 2 sockets.
        let topo = Topology::with_cores(8, 4, 2);
        let tree = Tree::new(&topo, &"thread,core,socket".parse().unwrap());
        assert_eq!((0..8).map(|t| tree.level(t)).collect::<Vec<_>>(), vec![3, 0, 1, 0, 2, 0, 1, 0]);
        assert_eq!(tids(tree.team(0, 1, 3)), vec![0, 2, 4, 6]);
        assert_eq!(tids(tree.team(0, 2, 3)), vec![0, 4]);
        assert_eq!(tids(tree.team(4, 1, 2)), vec![4, 6]);
        assert_eq!(tids(tree.team(6, 0, 1)), vec![6, 7]);
        let all = tree.team(0, 0, 3).unwrap();
        assert_eq!(all.len(), 8);
        assert_eq!((all.units(Granularity::Core), all.units(Granularity::Socket)), (4, 2));
        for m in all.members() {
            assert_eq!(all.member_of(m.tid), Some(m));
            assert_eq!(m.machine_socket, topo.socket_of_thread(m.tid));
        }
        let sizes = all.unit_sizes(Granularity::Core);
        assert_eq!(sizes, vec![2, 2, 2, 2]);
        assert!(all.member_of(8).is_none());
    }

    #[test]
    fn default_levels_give_one_flat_team() {
        let topo = Topology::single(3);
        let tree = Tree::new(&topo, &LevelMap::default());
        assert_eq!(tree.top(), 1);
        assert_eq!(tids(tree.team(0, 0, 1)), vec![0, 1, 2]);
        assert!(tree.team(0, 1, 1).is_none(), "a level-1 loop runs on the root alone");
        let one = Tree::new(&Topology::single(1), &LevelMap::default());
        assert!(one.team(0, 0, 1).is_none());
    }
}
