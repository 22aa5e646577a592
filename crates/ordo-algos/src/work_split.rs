//! Good versus useless work (PMOD paper, pmod-priority-scheduling-sc19 §3.1
//! and Table 1): which executed tasks were needed, and how many operator
//! cycles went to each kind, computed after a run from the executor's
//! [`TaskNote`]s.
//!
//! # The rule
//! An operator that supports the split calls
//! [`Context::note(key, value)`](ordo_exec::Context::note) first thing in every
//! task (stale ones included), with the vertex it works on and the value it
//! was scheduled with (SSSP: the tentative distance; BFS: the level; A*: the
//! distance so far). After the run, with the final value of every key:
//! - a task is **good** when its value equals its key's final value and no
//!   earlier task of that key was already counted good: at most one good task
//!   per key, so in SSSP/BFS the good tasks are exactly the reached vertices;
//! - every other task is **useless**: stale tasks, and tasks that ran with a
//!   value that a later task improved (their pushes were wasted too).
//!
//! # Tie rule
//! Notes carry no global timestamp, only each thread's execution order. When
//! several tasks of one key carry the final value, the good one is the first
//! in thread 0's order, else the first in thread 1's order, and so on (threads
//! by index, then execution order within the thread). The counts do not
//! depend on this choice (one good task per key either way); which thread's
//! cycles count as good does. In SSSP and BFS the tie never arises: a
//! `(vertex, value)` task is pushed only by the `fetch_min` that strictly
//! lowered the vertex to that value, so each value is scheduled at most once.
//!
//! # Cost
//! Classification is one pass over the notes plus a bitset over the keys
//! (one bit per key up to the largest noted one). The notes themselves cost
//! 16 bytes per executed task during the run ([`ordo_exec::ExecOptions::log_tasks`]).

use ordo_exec::TaskNote;

/// How many tasks, and how many operator cycles, were good work and useless
/// work (PMOD paper §3.1, Table 1). Cycles are 0 without cycle timing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkSplit {
    /// Tasks that did needed work: the first execution of a key with its
    /// final value.
    pub good_tasks: u64,
    /// Tasks whose work was wasted: stale, or superseded by a later
    /// improvement of their key, or a repeat of an already good one.
    pub useless_tasks: u64,
    /// Operator cycles of the good tasks.
    pub good_cycles: u64,
    /// Operator cycles of the useless tasks.
    pub useless_cycles: u64,
}

impl WorkSplit {
    /// All classified tasks: good plus useless.
    pub fn tasks(&self) -> u64 {
        self.good_tasks + self.useless_tasks
    }

    /// All classified operator cycles: good plus useless.
    pub fn cycles(&self) -> u64 {
        self.good_cycles + self.useless_cycles
    }

    /// Field-wise sum of `splits` (e.g. the per-thread splits of one run).
    pub fn sum<'a>(splits: impl IntoIterator<Item = &'a WorkSplit>) -> WorkSplit {
        splits.into_iter().fold(WorkSplit::default(), |acc, s| WorkSplit {
            good_tasks: acc.good_tasks + s.good_tasks,
            useless_tasks: acc.useless_tasks + s.useless_tasks,
            good_cycles: acc.good_cycles + s.good_cycles,
            useless_cycles: acc.useless_cycles + s.useless_cycles,
        })
    }
}

/// Classifies every noted task of a run as good or useless and sums tasks
/// and cycles of each kind over all threads.
///
/// `notes` is [`RunStats::task_notes`](ordo_exec::RunStats::task_notes): one
/// list per thread in execution order. `final_value(key)` is the key's value
/// after the run (e.g. `|v| dist[v as usize]`). See the module docs for the
/// rule and the tie rule. `O(notes + largest key / 64)` time and memory.
///
/// # Example
/// ```
/// use ordo_algos::work_split::classify;
/// use ordo_exec::TaskNote;
///
/// let note = |key, value, cycles| TaskNote { key, value, cycles };
/// // Vertex 1 ran at distance 9 (later improved to 4), then at 4.
/// let notes = vec![vec![note(0, 0, 10), note(1, 9, 20), note(1, 4, 30)]];
/// let final_dist = [0u64, 4];
/// let split = classify(&notes, |v| final_dist[v as usize]);
/// assert_eq!((split.good_tasks, split.useless_tasks), (2, 1));
/// assert_eq!((split.good_cycles, split.useless_cycles), (40, 20));
/// ```
pub fn classify(notes: &[Vec<TaskNote>], final_value: impl Fn(u32) -> u64) -> WorkSplit {
    WorkSplit::sum(&classify_per_thread(notes, final_value))
}

/// [`classify`] per thread: element `t` counts the tasks thread `t` ran.
/// Their sum is what [`classify`] returns.
pub fn classify_per_thread(notes: &[Vec<TaskNote>], final_value: impl Fn(u32) -> u64) -> Vec<WorkSplit> {
    let Some(max_key) = notes.iter().flatten().map(|n| n.key).max() else {
        return vec![WorkSplit::default(); notes.len()];
    };
    let mut credited = KeySet::new(max_key);
    notes
        .iter()
        .map(|thread| {
            let mut split = WorkSplit::default();
            for note in thread {
                let cycles = u64::from(note.cycles);
                if note.value == final_value(note.key) && credited.insert(note.key) {
                    split.good_tasks += 1;
                    split.good_cycles += cycles;
                } else {
                    split.useless_tasks += 1;
                    split.useless_cycles += cycles;
                }
            }
            split
        })
        .collect()
}

/// A bitset of the keys `0..=max_key` already credited with a good task.
struct KeySet {
    words: Vec<u64>,
}

impl KeySet {
    fn new(max_key: u32) -> Self {
        KeySet { words: vec![0; max_key as usize / 64 + 1] }
    }

    /// Adds `key`; true when it was not there yet.
    fn insert(&mut self, key: u32) -> bool {
        let (word, bit) = (key as usize / 64, 1u64 << (key % 64));
        let fresh = self.words[word] & bit == 0;
        self.words[word] |= bit;
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(key: u32, value: u64, cycles: u32) -> TaskNote {
        TaskNote { key, value, cycles }
    }

    #[test]
    fn empty_runs_classify_nothing() {
        assert_eq!(classify(&[], |_| 0), WorkSplit::default());
        assert_eq!(classify_per_thread(&[vec![], vec![]], |_| 0), vec![WorkSplit::default(); 2]);
    }

    #[test]
    fn superseded_and_stale_tasks_are_useless() {
        // Final values: key 0 -> 0, key 1 -> 4, key 2 -> 7.
        let finals = [0u64, 4, 7];
        let notes = vec![vec![
            note(0, 0, 5),  // good
            note(1, 9, 11), // superseded: 1 later got 4
            note(2, 12, 3), // superseded
            note(1, 4, 13), // good
            note(2, 7, 17), // good
            note(2, 12, 2), // stale (ran after 2 reached 7)
        ]];
        let s = classify(&notes, |k| finals[k as usize]);
        assert_eq!(s, WorkSplit { good_tasks: 3, useless_tasks: 3, good_cycles: 35, useless_cycles: 16 });
        assert_eq!((s.tasks(), s.cycles()), (6, 51));
    }

    #[test]
    fn at_most_one_good_task_per_key_thread_order_breaks_ties() {
        // Key 3 runs with its final value 5 on both threads, twice on thread 1.
        let notes = vec![vec![note(3, 6, 1), note(3, 5, 10)], vec![note(3, 5, 100), note(3, 5, 1000)]];
        let per_thread = classify_per_thread(&notes, |_| 5);
        assert_eq!(
            per_thread,
            vec![
                WorkSplit { good_tasks: 1, useless_tasks: 1, good_cycles: 10, useless_cycles: 1 },
                WorkSplit { good_tasks: 0, useless_tasks: 2, good_cycles: 0, useless_cycles: 1100 },
            ]
        );
        // Within one thread the earlier execution wins.
        let one = classify(&[vec![note(3, 5, 7), note(3, 5, 9)]], |_| 5);
        assert_eq!((one.good_cycles, one.useless_cycles), (7, 9));
        assert_eq!(classify(&notes, |_| 5), WorkSplit::sum(&per_thread));
    }

    #[test]
    fn keys_across_word_boundaries_are_tracked_separately() {
        let keys = [0u32, 63, 64, 65, 127, 128, 1_000_003];
        let notes = vec![keys.iter().map(|&k| note(k, u64::from(k), 1)).collect::<Vec<_>>()];
        let twice: Vec<Vec<TaskNote>> = vec![notes[0].clone(), notes[0].clone()];
        let s = classify(&twice, u64::from);
        assert_eq!((s.good_tasks, s.useless_tasks), (keys.len() as u64, keys.len() as u64));
        // A value other than the final one is never good, even if it is the only task.
        let s = classify(&notes, |k| u64::from(k) + 1);
        assert_eq!((s.good_tasks, s.useless_tasks), (0, keys.len() as u64));
    }

    #[test]
    fn matches_a_naive_first_occurrence_scan() {
        // Deterministic pseudo-random notes over 3 threads and 200 keys.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let notes: Vec<Vec<TaskNote>> = (0..3)
            .map(|_| {
                (0..500).map(|_| note((next() % 200) as u32, next() % 4, (next() % 1000) as u32)).collect()
            })
            .collect();
        let final_value = |k: u32| u64::from(k % 4);
        let mut seen = std::collections::HashSet::new();
        let mut want = WorkSplit::default();
        for n in notes.iter().flatten() {
            if n.value == final_value(n.key) && seen.insert(n.key) {
                want.good_tasks += 1;
                want.good_cycles += u64::from(n.cycles);
            } else {
                want.useless_tasks += 1;
                want.useless_cycles += u64::from(n.cycles);
            }
        }
        assert_eq!(classify(&notes, final_value), want);
        assert_eq!(want.tasks(), 1500);
    }
}
