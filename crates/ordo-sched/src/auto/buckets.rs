//! One thread's private bucket queue: Δ-stepping's buckets (Meyer and
//! Sanders, "Δ-stepping", J. Algorithms 2003) as a ring of buckets of
//! width `2^shift`, with a bitmap of the occupied ones and an unsorted
//! overflow for priorities beyond the ring (the "far" pile, as in GAPBS's
//! growing bins and Δ*-stepping's far queue).
//!
//! A push is an append to the bucket `prio >> shift` (no lock, no atomic);
//! a pop takes the newest task of the current bucket (a bucket is a stack:
//! the cheapest order, and the order inside a bucket is not by priority
//! anyway); when it is empty the bitmap gives the next occupied bucket in a
//! few word scans. The width can
//! be changed at any time ([`Buckets::set_shift`]): the queued tasks are
//! redistributed, so a change costs one move per task in the ring and should
//! be rare (the controller in `adapt` amortises it).
//!
//! Priorities need not be monotone: a push below the current bucket slides
//! the ring down when that keeps every queued key inside it, and otherwise
//! joins the current bucket (it runs next, a bounded inversion).
//!
//! An entry is the task with its priority. A run whose priorities all lie
//! below 2^32 (SSSP's narrow distances, BFS levels) stores them as `u32`
//! ([`PrioWord`]): with a 4-byte task an entry is 8 bytes instead of 16.

use crate::Prio;

/// How a bucket entry stores its task's priority: whole ([`Prio`], the
/// default), or as a `u32` for a run whose priorities all lie below 2^32
/// (SSSP's narrow distances). With a 4-byte task an entry is then 8 bytes
/// instead of 16 (the `u64` priority aligns the tuple): half the memory
/// every push writes and every pop reads, as GAPBS's bins of 4-byte vertex
/// ids.
pub trait PrioWord: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// The stored form of `prio`. A `u32` word saturates a priority beyond
    /// `u32::MAX` (a caller that promised narrow priorities and broke the
    /// promise gets its task later than asked, never lost).
    fn pack(prio: Prio) -> Self;
    /// The priority stored.
    fn unpack(self) -> Prio;
}

impl PrioWord for Prio {
    #[inline(always)]
    fn pack(prio: Prio) -> Self {
        prio
    }
    #[inline(always)]
    fn unpack(self) -> Prio {
        self
    }
}

impl PrioWord for u32 {
    #[inline(always)]
    fn pack(prio: Prio) -> Self {
        debug_assert!(prio <= Prio::from(u32::MAX), "narrow priority {prio} beyond u32");
        prio.min(Prio::from(u32::MAX)) as u32
    }
    #[inline(always)]
    fn unpack(self) -> Prio {
        Prio::from(self)
    }
}

/// log2 of the number of buckets in the ring.
pub(crate) const RING_BITS: u32 = 10;
/// Number of buckets in the ring.
pub(crate) const RING: u64 = 1 << RING_BITS;
const MASK: u64 = RING - 1;
const WORDS: usize = (RING / 64) as usize;
/// `cur` while the ring is empty: the window then holds only the keys
/// `EMPTY_CUR..=u64::MAX`, so the next push of any smaller key restarts the
/// window at that key (`push_outside`).
const EMPTY_CUR: u64 = u64::MAX - (RING - 1);

/// Events of one push, for the width controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushKind {
    /// Into the current bucket.
    Current,
    /// Into a later bucket of the ring.
    Ahead,
    /// Below the current bucket (non-monotone priorities).
    Below,
    /// Beyond the ring, into the overflow.
    Far,
}

/// The private bucket queue of one thread; `W` is how an entry stores its
/// priority ([`PrioWord`]).
pub struct Buckets<T, W: PrioWord = Prio> {
    /// log2 of the bucket width.
    shift: u32,
    /// Key (`prio >> shift`) of the current bucket; the ring holds the keys
    /// `cur..cur + RING`. [`EMPTY_CUR`] while the ring is empty.
    cur: u64,
    ring: Box<[Vec<(W, T)>; RING as usize]>,
    /// Bit `k & MASK` is set iff the bucket of key `k` is non-empty.
    occupied: [u64; WORDS],
    /// Tasks in the ring.
    ring_len: usize,
    /// Tasks whose key was at or beyond `cur + RING` when pushed.
    far: Vec<(W, T)>,
    /// Smallest priority in `far` (`Prio::MAX` when empty).
    far_min: Prio,
    /// Tasks handed out so far (popped, taken, split off or drained): with
    /// the queued ones, every push ([`Buckets::pushes`]). Counted per
    /// bucket handed out rather than per push: a push is a handful of
    /// instructions, and counters incremented on it were a visible share of
    /// SSSP's time (`docs/design/2026-11-30-auto-rounds.md`).
    handed_out: u64,
    /// Pushes below the current bucket.
    below_pushes: u64,
    /// Pushes into the overflow.
    far_pushes: u64,
}

/// Push statistics of a [`Buckets`], since its creation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PushCounts {
    /// Every push.
    pub(crate) pushes: u64,
    /// Pushes below the current bucket.
    pub(crate) below: u64,
    /// Pushes into the overflow.
    pub(crate) far: u64,
}

/// Tasks a bucket's first allocation holds. A bucket grows by doubling from
/// nothing otherwise (4, 8, 16, ... for 16-byte tasks), and with one bucket
/// per distance (SSSP at width 1, weights up to 255: ~255 filling at once)
/// nearly every bucket of a run is new, and growing each from nothing
/// reallocates and copies it several times. 1024 slots of 32 tasks of 16
/// bytes are 512 KiB at most.
const FIRST_CAPACITY: usize = 32;

/// Gives an unallocated bucket its first [`FIRST_CAPACITY`] slots (out of
/// line: most pushes go to a bucket that has room).
#[cold]
#[inline(never)]
fn first_allocation<E>(bucket: &mut Vec<E>) {
    bucket.reserve_exact(FIRST_CAPACITY);
}

impl<T, W: PrioWord> Buckets<T, W> {
    /// An empty queue with buckets of width `2^shift`.
    pub fn new(shift: u32) -> Self {
        Buckets {
            shift: shift.min(63),
            cur: EMPTY_CUR,
            ring: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: [0; WORDS],
            ring_len: 0,
            far: Vec::new(),
            far_min: Prio::MAX,
            handed_out: 0,
            below_pushes: 0,
            far_pushes: 0,
        }
    }

    /// log2 of the bucket width.
    #[inline]
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// Number of queued tasks.
    #[inline]
    pub fn len(&self) -> usize {
        self.ring_len + self.far.len()
    }

    /// The smallest priority of the current bucket (its lower edge), the
    /// level this thread works at; `Prio::MAX` when nothing is queued in
    /// the ring.
    #[inline]
    pub fn level(&self) -> Prio {
        if self.ring_len == 0 {
            self.far_min
        } else {
            self.cur << self.shift
        }
    }

    #[inline]
    fn set_bit(&mut self, slot: usize) {
        self.occupied[slot >> 6] |= 1 << (slot & 63);
    }

    #[inline]
    fn clear_bit(&mut self, slot: usize) {
        self.occupied[slot >> 6] &= !(1 << (slot & 63));
    }

    /// Appends a task to its bucket.
    #[inline]
    pub fn push(&mut self, prio: Prio, task: T) -> PushKind {
        // The priority as stored (saturated if it does not fit `W`).
        let prio = W::pack(prio).unpack();
        let key = prio >> self.shift;
        let offset = key.wrapping_sub(self.cur);
        if offset < RING {
            self.put(key, prio, task);
            if offset == 0 {
                PushKind::Current
            } else {
                PushKind::Ahead
            }
        } else {
            let kind = self.push_outside(key, prio, task);
            match kind {
                PushKind::Below => self.below_pushes += 1,
                PushKind::Far => self.far_pushes += 1,
                PushKind::Current | PushKind::Ahead => {}
            }
            kind
        }
    }

    /// Appends to the bucket of `key`, which lies in the ring window.
    #[inline]
    fn put(&mut self, key: u64, prio: Prio, task: T) {
        let slot = (key & MASK) as usize;
        let bucket = &mut self.ring[slot];
        if bucket.capacity() == 0 {
            first_allocation(bucket);
        }
        bucket.push((W::pack(prio), task));
        self.set_bit(slot);
        self.ring_len += 1;
    }

    /// A push whose key lies outside the ring window. An empty ring restarts
    /// its window (at the key, or at the overflow's smallest key after
    /// refilling from it); a key below the window slides the window down
    /// when every queued key stays inside, and otherwise joins the current
    /// bucket; a key beyond it goes to the overflow.
    #[cold]
    fn push_outside(&mut self, key: u64, prio: Prio, task: T) -> PushKind {
        if self.ring_len == 0 {
            if self.far.is_empty() {
                self.cur = key;
                self.put(key, prio, task);
                return PushKind::Current;
            }
            self.refill();
            let offset = key.wrapping_sub(self.cur);
            if offset < RING {
                self.put(key, prio, task);
                return if offset == 0 { PushKind::Current } else { PushKind::Ahead };
            }
        }
        if key < self.cur {
            if self.max_occupied_key() - key < RING {
                self.cur = key;
            }
            self.put(key.max(self.cur), prio, task);
            PushKind::Below
        } else {
            self.far.push((W::pack(prio), task));
            self.far_min = self.far_min.min(prio);
            PushKind::Far
        }
    }

    /// Re-inserts a task without moving the window (used when the width
    /// changes): below the window it joins the current bucket.
    fn insert_fixed(&mut self, prio: Prio, task: T) {
        let key = (prio >> self.shift).max(self.cur);
        if key - self.cur < RING {
            self.put(key, prio, task);
        } else {
            self.far.push((W::pack(prio), task));
            self.far_min = self.far_min.min(prio);
        }
    }

    /// Removes the newest task of the current bucket, if any.
    #[inline]
    pub fn pop_current(&mut self) -> Option<(Prio, T)> {
        let slot = (self.cur & MASK) as usize;
        let (word, task) = self.ring[slot].pop()?;
        self.ring_len -= 1;
        self.handed_out += 1;
        if self.ring[slot].is_empty() {
            self.bucket_emptied(slot);
        }
        Some((word.unpack(), task))
    }

    /// Swaps the current bucket, if it holds tasks, with `spare` (which must
    /// be empty): the caller gets the whole bucket, the ring keeps the
    /// spare's allocation.
    pub fn take_current(&mut self, spare: &mut Vec<(W, T)>) -> bool {
        debug_assert!(spare.is_empty());
        let slot = (self.cur & MASK) as usize;
        if self.ring_len == 0 || self.ring[slot].is_empty() {
            return false;
        }
        std::mem::swap(&mut self.ring[slot], spare);
        self.ring_len -= spare.len();
        self.handed_out += spare.len() as u64;
        self.bucket_emptied(slot);
        true
    }

    /// Every push so far (the tasks moved by [`Buckets::set_shift`] are not
    /// pushes): each pushed task was either handed out or is still queued.
    #[inline]
    pub fn pushes(&self) -> u64 {
        self.handed_out + self.len() as u64
    }

    /// What the pushes did so far (read by the width controller).
    pub(crate) fn counts(&self) -> PushCounts {
        PushCounts { pushes: self.pushes(), below: self.below_pushes, far: self.far_pushes }
    }

    /// Whether no task is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes the most urgent occupied bucket current (moving past an emptied
    /// current bucket) and returns its lower edge, the smallest priority
    /// a pop could return next up to the bucket width; `Prio::MAX` when
    /// nothing is queued.
    pub fn next_level(&mut self) -> Prio {
        if self.ring_len == 0 {
            self.refill();
        } else if self.ring[(self.cur & MASK) as usize].is_empty() {
            self.advance();
        }
        self.level()
    }

    /// Swaps the most urgent bucket with `spare` (which must be empty) if
    /// its key (`prio >> shift`) is at most `key`: the bulk-synchronous
    /// rounds take every thread's bucket of the round's key this way.
    /// Returns whether a bucket was taken.
    pub fn take_due(&mut self, key: u64, spare: &mut Vec<(W, T)>) -> bool {
        let level = self.next_level();
        level != Prio::MAX && (level >> self.shift) <= key && self.take_current(spare)
    }

    /// The lower edge of the bucket a pop would come from next: the current
    /// one if it holds tasks, else the next occupied one (or the overflow's
    /// smallest priority); `Prio::MAX` when nothing is queued.
    pub(crate) fn peek_level(&self) -> Prio {
        if self.ring_len == 0 {
            return self.far_min;
        }
        let slot = (self.cur & MASK) as usize;
        let key =
            if self.ring[slot].is_empty() { self.cur + self.next_occupied_distance() } else { self.cur };
        (key << self.shift).min(self.far_min)
    }

    /// The current bucket (in `slot`) just became empty.
    #[inline]
    fn bucket_emptied(&mut self, slot: usize) {
        self.clear_bit(slot);
        if self.ring_len == 0 {
            self.cur = EMPTY_CUR;
        }
    }

    /// The largest occupied key of a non-empty ring.
    fn max_occupied_key(&self) -> u64 {
        // Scan downward from the slot of the largest key in the window,
        // `cur + RING - 1`, i.e. slot `cur - 1`.
        let top = self.cur.wrapping_sub(1) & MASK;
        let mut word = (top >> 6) as usize;
        let mut bits = self.occupied[word] & (!0u64 >> (63 - (top & 63)));
        loop {
            if bits != 0 {
                let slot = (word as u64) * 64 + u64::from(63 - bits.leading_zeros());
                return self.cur + ((slot.wrapping_sub(self.cur)) & MASK);
            }
            word = (word + WORDS - 1) % WORDS;
            bits = self.occupied[word];
        }
    }

    /// Makes the next occupied bucket current, refilling the ring from the
    /// overflow when it ran dry or when the overflow holds a task at or
    /// before that bucket. Returns the number of empty buckets skipped, or
    /// `None` when no task is queued at all.
    pub fn advance(&mut self) -> Option<u64> {
        if self.ring_len == 0 {
            return self.refill().then_some(0);
        }
        let old = self.cur;
        let next = old + self.next_occupied_distance();
        let far_key = self.far_min >> self.shift;
        if far_key <= next {
            // Overflow tasks pushed when the window was further back are now
            // due: start the window at the first of them (every ring key lies
            // in `next..old + RING`, inside the new window).
            self.cur = if far_key > old { far_key } else { next };
            self.pull_far();
        } else {
            self.cur = next;
        }
        Some(self.cur - old - 1)
    }

    /// Distance from `cur` to the next occupied key (1..RING). The ring must
    /// hold a task outside the current bucket.
    fn next_occupied_distance(&self) -> u64 {
        let start = (self.cur + 1) & MASK;
        let mut word = (start >> 6) as usize;
        let mut bits = self.occupied[word] & (!0u64 << (start & 63));
        let mut scanned = 0u64;
        loop {
            if bits != 0 {
                let slot = (word as u64) * 64 + u64::from(bits.trailing_zeros());
                return ((slot.wrapping_sub(self.cur)) & MASK).max(1);
            }
            word = (word + 1) % WORDS;
            bits = self.occupied[word];
            scanned += 64;
            debug_assert!(scanned <= RING + 64, "ring_len > 0 but no occupied bucket");
        }
    }

    /// Starts the window at the overflow's smallest key and moves the
    /// overflow's tasks that fit into the ring. Returns false if it was
    /// empty.
    fn refill(&mut self) -> bool {
        if self.far.is_empty() {
            return false;
        }
        self.cur = self.far_min >> self.shift;
        self.pull_far();
        true
    }

    /// Moves the overflow's tasks whose keys fall in the window into the
    /// ring (keys below it join the current bucket); the rest stay.
    fn pull_far(&mut self) {
        self.far_min = Prio::MAX;
        let far = std::mem::take(&mut self.far);
        let mut keep = Vec::new();
        for (word, task) in far {
            let prio = word.unpack();
            let key = (prio >> self.shift).max(self.cur);
            if key - self.cur < RING {
                self.put(key, prio, task);
            } else {
                self.far_min = self.far_min.min(prio);
                keep.push((word, task));
            }
        }
        self.far = keep;
    }

    /// Changes the bucket width to `2^shift`, redistributing the ring.
    /// Returns the number of tasks moved.
    pub fn set_shift(&mut self, shift: u32) -> usize {
        let shift = shift.min(63);
        if shift == self.shift {
            return 0;
        }
        let moved = self.ring_len;
        if moved == 0 {
            self.shift = shift;
            return 0;
        }
        let level = self.cur << self.shift;
        let mut all = Vec::with_capacity(moved);
        self.drain_ring_into(&mut all);
        self.shift = shift;
        self.cur = level >> shift;
        for (word, task) in all {
            self.insert_fixed(word.unpack(), task);
        }
        moved
    }

    /// Moves every task of the ring, current bucket first, into `out`.
    fn drain_ring_into(&mut self, out: &mut Vec<(W, T)>) {
        for w in 0..WORDS {
            let mut bits = self.occupied[w];
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out.append(&mut self.ring[slot]);
            }
            self.occupied[w] = 0;
        }
        self.ring_len = 0;
    }

    /// Takes up to half of the tasks of the current bucket if it holds at
    /// least two, or else a later bucket (whole if that leaves a task here):
    /// work another thread can run without leaving this one idle. Returns
    /// `None` when the ring holds fewer than two tasks.
    pub(crate) fn split_off_share(&mut self, max: usize) -> Option<Vec<(W, T)>> {
        if self.ring_len < 2 {
            return None;
        }
        let first = (self.cur & MASK) as usize;
        let n = self.ring[first].len();
        if n >= 2 {
            let take = (n / 2).min(max).max(1);
            let part = self.ring[first].split_off(n - take);
            self.ring_len -= part.len();
            self.handed_out += part.len() as u64;
            return Some(part);
        }
        // The current bucket has at most one task: give a later bucket, whole
        // if that leaves a task here, else half of it.
        let distance = self.next_occupied_distance();
        let slot = ((self.cur + distance) & MASK) as usize;
        let len = self.ring[slot].len();
        let take = if len < self.ring_len { len.min(max) } else { (len / 2).min(max) };
        let part = self.ring[slot].split_off(len - take.max(1));
        if self.ring[slot].is_empty() {
            self.clear_bit(slot);
        }
        self.ring_len -= part.len();
        self.handed_out += part.len() as u64;
        Some(part)
    }

    /// Empties the whole queue (ring and overflow) into `out`, most urgent
    /// bucket first.
    pub(crate) fn drain_all(&mut self, out: &mut Vec<(W, T)>) {
        self.handed_out += self.len() as u64;
        if self.ring_len > 0 {
            // Start at the current bucket so `out` is roughly ordered.
            let mut key = self.cur;
            while self.ring_len > 0 {
                let slot = (key & MASK) as usize;
                let n = self.ring[slot].len();
                if n > 0 {
                    out.append(&mut self.ring[slot]);
                    self.clear_bit(slot);
                    self.ring_len -= n;
                }
                key += 1;
            }
        }
        out.append(&mut self.far);
        self.far_min = Prio::MAX;
        self.cur = EMPTY_CUR;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(b: &mut Buckets<u64>) -> Vec<(Prio, u64)> {
        let mut out = Vec::new();
        loop {
            while let Some(x) = b.pop_current() {
                out.push(x);
            }
            if b.advance().is_none() {
                return out;
            }
        }
    }

    #[test]
    fn width_one_pops_in_exact_order_newest_first_within_a_priority() {
        let mut b = Buckets::new(0);
        for (i, p) in [5u64, 3, 9, 3, 2000, 7, 3].into_iter().enumerate() {
            b.push(p, i as u64);
        }
        assert_eq!(b.len(), 7);
        let got = drain(&mut b);
        assert_eq!(got, vec![(3, 6), (3, 3), (3, 1), (5, 0), (7, 5), (9, 2), (2000, 4)]);
        assert_eq!(b.len(), 0);
    }

    #[test]
    fn wide_buckets_keep_bucket_order_and_lifo_inside() {
        let mut b = Buckets::new(4);
        for (i, p) in [17u64, 3, 40, 16, 1, 33].into_iter().enumerate() {
            b.push(p, i as u64);
        }
        let got: Vec<Prio> = drain(&mut b).into_iter().map(|x| x.0).collect();
        assert_eq!(got, vec![1, 3, 16, 17, 33, 40]);
    }

    #[test]
    fn overflow_and_pushes_below_are_not_lost() {
        let mut b = Buckets::new(0);
        let base = 2 * RING;
        assert_eq!(b.push(base + 10, 0), PushKind::Current, "an empty ring starts at the first key");
        assert_eq!(b.push(base + 5 * RING, 1), PushKind::Far);
        assert_eq!(b.push(base + RING, 2), PushKind::Ahead);
        // The window slides down: (base + RING) - (base + 4) < RING.
        assert_eq!(b.push(base + 4, 3), PushKind::Below);
        assert_eq!(b.level(), base + 4);
        // It cannot slide to `base` (base + RING would fall out): joins bucket base + 4.
        assert_eq!(b.push(base, 4), PushKind::Below);
        let got: Vec<u64> = drain(&mut b).into_iter().map(|x| x.1).collect();
        assert_eq!(got, vec![4, 3, 0, 2, 1]);
    }

    #[test]
    fn overflow_tasks_come_out_in_order_once_the_window_reaches_them() {
        let mut b = Buckets::new(0);
        b.push(0, 0);
        assert_eq!(b.push(1500, 1), PushKind::Far);
        b.push(1000, 2);
        b.push(1000, 4);
        assert_eq!(b.pop_current(), Some((0, 0)));
        assert_eq!(b.advance(), Some(999));
        assert_eq!(b.pop_current(), Some((1000, 4)));
        // The ring does not run dry: 1600 is queued when 1500 (in the
        // overflow) becomes due, and 1500 must still come first.
        b.push(1600, 3);
        assert_eq!(b.pop_current(), Some((1000, 2)));
        assert_eq!(b.advance(), Some(499));
        assert_eq!(b.pop_current(), Some((1500, 1)));
        assert_eq!(drain(&mut b), vec![(1600, 3)]);
    }

    #[test]
    fn set_shift_keeps_every_task_and_the_order_of_buckets() {
        let mut ps: Vec<u64> = crate::test_support::prios(5000).into_iter().map(|p| p * 977).collect();
        for sorted in [false, true] {
            if sorted {
                // A monotone stream (as SSSP's): buckets then come out in order.
                ps.sort_unstable();
            }
            for shifts in [[0u32, 3, 1], [6, 0, 2], [2, 2, 9]] {
                let mut b = Buckets::new(shifts[0]);
                for (i, &p) in ps.iter().enumerate() {
                    b.push(p, i as u64);
                }
                let mut got = Vec::new();
                for _ in 0..100 {
                    got.push(b.pop_current().or_else(|| b.advance().and_then(|_| b.pop_current())).unwrap());
                }
                b.set_shift(shifts[1]);
                for _ in 0..100 {
                    got.push(b.pop_current().or_else(|| b.advance().and_then(|_| b.pop_current())).unwrap());
                }
                b.set_shift(shifts[2]);
                got.extend(drain(&mut b));
                let mut ids: Vec<u64> = got.iter().map(|x| x.1).collect();
                ids.sort_unstable();
                assert_eq!(ids, (0..5000).collect::<Vec<_>>());
                assert!(got.iter().all(|&(p, i)| p == ps[i as usize]));
                if sorted {
                    let bad = got.windows(2).position(|w| (w[0].0 >> 9) > (w[1].0 >> 9));
                    assert!(bad.is_none(), "{shifts:?}: {:?}", bad.map(|i| &got[i..i + 2]));
                }
            }
        }
    }

    #[test]
    fn narrow_entries_hold_the_same_priorities_as_wide_ones() {
        assert_eq!(std::mem::size_of::<(u32, u32)>(), 8, "a narrow entry of a 4-byte task");
        assert_eq!(std::mem::size_of::<(Prio, u32)>(), 16);
        // Priorities up to u32::MAX, in an order with pushes below the
        // window and into the overflow, and width changes on the way.
        let mut ps: Vec<u64> = crate::test_support::prios(5000).into_iter().map(|p| p * 977).collect();
        ps.extend([0, u64::from(u32::MAX), u64::from(u32::MAX) - 1, 1 << 31]);
        let mut wide = Buckets::<u64>::new(2);
        let mut narrow = Buckets::<u64, u32>::new(2);
        for (i, &p) in ps.iter().enumerate() {
            assert_eq!(wide.push(p, i as u64), narrow.push(p, i as u64), "push of {p}");
        }
        fn pop<W: PrioWord>(b: &mut Buckets<u64, W>) -> Option<(Prio, u64)> {
            b.pop_current().or_else(|| b.advance().and_then(|_| b.pop_current()))
        }
        let mut got = Vec::new();
        for shift in [2, 7, 0, 31] {
            wide.set_shift(shift);
            narrow.set_shift(shift);
            for _ in 0..1000 {
                let (w, n) = (pop(&mut wide), pop(&mut narrow));
                assert_eq!(w, n);
                got.extend(w);
            }
        }
        loop {
            let (w, n) = (pop(&mut wide), pop(&mut narrow));
            assert_eq!(w, n);
            match w {
                Some(x) => got.push(x),
                None => break,
            }
        }
        assert!(got.iter().all(|&(p, i)| p == ps[i as usize]), "every priority comes back exactly");
        assert_eq!(got.len(), ps.len());
    }

    #[test]
    #[cfg(not(debug_assertions))]
    fn a_narrow_word_saturates_a_priority_beyond_u32() {
        // A broken promise of narrow priorities delays a task, never loses it.
        assert_eq!(<u32 as PrioWord>::pack(1 << 40), u32::MAX);
        let mut b = Buckets::<u64, u32>::new(0);
        b.push(3, 8);
        b.push(1 << 40, 7);
        assert_eq!(b.pop_current(), Some((3, 8)));
        assert_eq!(b.next_level(), u64::from(u32::MAX));
        assert_eq!(b.pop_current(), Some((u64::from(u32::MAX), 7)));
        assert!(b.is_empty());
    }

    #[test]
    fn split_off_share_gives_half_of_the_current_bucket_or_a_later_one() {
        let mut b: Buckets<i32> = Buckets::new(0);
        for i in 0..10 {
            b.push(5, i);
        }
        b.push(9, 100);
        let part = b.split_off_share(usize::MAX).unwrap();
        assert_eq!(part.iter().map(|x| x.1).collect::<Vec<_>>(), vec![5, 6, 7, 8, 9]);
        assert_eq!(b.len(), 6);
        for _ in 0..4 {
            b.pop_current();
        }
        let part = b.split_off_share(usize::MAX).unwrap();
        assert_eq!(part.iter().map(|x| x.1).collect::<Vec<_>>(), vec![100]);
        assert_eq!(b.split_off_share(usize::MAX), None);
        let mut all = Vec::new();
        b.drain_all(&mut all);
        assert_eq!(all, vec![(5, 0)]);
        assert_eq!(b.len(), 0);
    }

    #[test]
    fn pushes_count_every_push_whichever_way_its_task_leaves() {
        let mut b: Buckets<u64> = Buckets::new(2);
        let mut pushed = 0;
        let mut push = |b: &mut Buckets<u64>, p: Prio| {
            b.push(p, p);
            pushed += 1;
            pushed
        };
        // Current, ahead, far (beyond the ring) and below the window.
        for p in [8, 9, 40, 8, 4 << RING_BITS << 2, 12] {
            push(&mut b, p);
        }
        assert_eq!(b.pushes(), 6);
        assert!(b.pop_current().is_some());
        assert_eq!(b.pushes(), 6, "a pop is not a push");
        let mut spare = Vec::new();
        assert!(b.take_due(2, &mut spare));
        assert_eq!(b.pushes(), 6, "a bucket taken whole");
        assert_eq!(b.set_shift(0), b.len() - 1, "the ring's tasks move, the far one stays");
        assert_eq!(b.pushes(), 6, "moved tasks are not pushes");
        push(&mut b, 1);
        let n = push(&mut b, 1);
        assert!(b.split_off_share(usize::MAX).is_some());
        assert_eq!(b.pushes(), n, "a share split off");
        let mut all = Vec::new();
        b.drain_all(&mut all);
        assert_eq!(b.pushes(), n, "everything drained");
        assert_eq!(b.len(), 0);
        assert_eq!(b.counts().far, 1);
        // The first push of priority 1 lay below the window (which slid down
        // to it), the second one in the current bucket.
        assert_eq!(b.counts().below, 1);
    }
}
