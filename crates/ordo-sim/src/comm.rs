//! The communication proxy: which operations touch a shared structure that
//! another virtual thread wrote and this one has not seen since.
//!
//! The schedulers name the shared structures each operation reads or
//! writes through `ordo_sched::probe`. Each structure keeps its last writer
//! and the set of threads that touched it since that write — an invalidation
//! protocol with unbounded private caches, where a structure is one line:
//! - a touch (read or write) by thread `t` is **remote** when the structure
//!   was last written by another thread and `t` has not touched it since
//!   that write (it must fetch the line from the writer);
//! - a write makes `t` the last writer and the only thread that has seen it;
//!   a read adds `t` to the threads that have seen it;
//! - a touch of a structure nobody wrote yet is never remote;
//! - a retired structure is forgotten (its address may be reused).
//!
//! So a thread re-reading a flag that only changes rarely (PMOD's merging
//! factor) counts one remote touch per change, not one per read, while a
//! lock that several threads take in turn (`strict`'s heap) counts one per
//! change of hands. An *operation* (one push, pop or flush) is a **shared
//! touch** when at least one of its accesses is remote: the brief's "touches
//! a shared structure last written by another virtual thread".

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use ordo_sched::probe::{Access, AccessKind};

/// No thread wrote the structure yet.
const NOBODY: u32 = u32::MAX;

/// A multiplicative hash for addresses (Fibonacci hashing): addresses are
/// already spread, so one multiply mixes the bits that differ.
#[derive(Default)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 29;
    }
}

type AddrMap<V> = HashMap<usize, V, BuildHasherDefault<AddrHasher>>;

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommStats {
    /// Probed accesses (reads and writes).
    pub accesses: u64,
    /// Remote accesses (module docs).
    pub remote_accesses: u64,
    /// Operations with at least one remote access.
    pub shared_touches: u64,
    /// Distinct structures seen (retired ones included).
    pub structures: u64,
}

/// The coherence state of every structure seen so far.
pub(crate) struct Coherence {
    /// Words of a thread set.
    words: usize,
    /// Structure address -> slot.
    slots: AddrMap<u32>,
    /// Per slot: last writer ([`NOBODY`] if none).
    writer: Vec<u32>,
    /// Per slot: `words` words of the set of threads that saw the last write.
    seen: Vec<u64>,
    /// Slots of retired structures, for reuse.
    free: Vec<u32>,
    stats: CommStats,
}

impl Coherence {
    /// The state for `threads` virtual threads, no structure seen.
    pub(crate) fn new(threads: usize) -> Self {
        Coherence {
            words: threads.div_ceil(64).max(1),
            slots: AddrMap::default(),
            writer: Vec::new(),
            seen: Vec::new(),
            free: Vec::new(),
            stats: CommStats::default(),
        }
    }

    fn slot(&mut self, addr: usize) -> usize {
        if let Some(&s) = self.slots.get(&addr) {
            return s as usize;
        }
        self.stats.structures += 1;
        let s = match self.free.pop() {
            Some(s) => s as usize,
            None => {
                self.writer.push(NOBODY);
                self.seen.resize(self.seen.len() + self.words, 0);
                self.writer.len() - 1
            }
        };
        self.writer[s] = NOBODY;
        self.seen[s * self.words..(s + 1) * self.words].fill(0);
        self.slots.insert(addr, s as u32);
        s
    }

    /// Accounts one operation of thread `t` that made `accesses`, in order;
    /// returns its remote accesses (a shared touch when any).
    pub(crate) fn operation(&mut self, t: usize, accesses: &[Access]) -> u64 {
        let (word, bit) = (t / 64, 1u64 << (t % 64));
        let mut remote = 0u64;
        for a in accesses {
            if a.kind == AccessKind::Retire {
                if let Some(s) = self.slots.remove(&a.addr) {
                    self.free.push(s);
                }
                continue;
            }
            self.stats.accesses += 1;
            let s = self.slot(a.addr);
            let set = &mut self.seen[s * self.words..(s + 1) * self.words];
            let writer = self.writer[s];
            if writer != NOBODY && writer != t as u32 && set[word] & bit == 0 {
                self.stats.remote_accesses += 1;
                remote += 1;
            }
            if a.kind == AccessKind::Write {
                self.writer[s] = t as u32;
                set.fill(0);
            }
            set[word] |= bit;
        }
        self.stats.shared_touches += u64::from(remote > 0);
        remote
    }

    /// The totals so far.
    pub(crate) fn stats(&self) -> CommStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(addr: usize, kind: AccessKind) -> Access {
        Access { addr, kind }
    }
    use AccessKind::{Read, Retire, Write};

    #[test]
    fn remote_only_after_another_threads_write_not_yet_seen() {
        let mut c = Coherence::new(130);
        assert_eq!(c.operation(0, &[acc(8, Read)]), 0, "nobody wrote it");
        assert_eq!(c.operation(0, &[acc(8, Write)]), 0);
        assert_eq!(c.operation(0, &[acc(8, Read)]), 0, "own write");
        assert_eq!(
            c.operation(129, &[acc(8, Read), acc(8, Read)]),
            1,
            "thread 0 wrote it; the second read is not remote"
        );
        assert_eq!(c.operation(129, &[acc(8, Read)]), 0, "already seen since the write");
        assert_eq!(c.operation(129, &[acc(8, Write)]), 0, "seen, so the write needs no fetch");
        assert_eq!(c.operation(0, &[acc(8, Write)]), 1, "thread 129 wrote it last");
        let s = c.stats();
        assert_eq!((s.accesses, s.remote_accesses, s.shared_touches, s.structures), (8, 2, 2, 1));
    }

    #[test]
    fn retired_structures_start_fresh() {
        let mut c = Coherence::new(2);
        c.operation(0, &[acc(16, Write)]);
        assert_eq!(c.operation(1, &[acc(16, Retire), acc(16, Read)]), 0, "a new structure at the address");
        assert_eq!(c.operation(1, &[acc(24, Write)]), 0);
        assert_eq!(c.operation(0, &[acc(24, Read)]), 1);
        assert_eq!(c.stats().structures, 3);
    }
}
