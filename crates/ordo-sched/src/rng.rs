//! A tiny, fast per-handle pseudo-random generator for the random queue
//! choices of the Multi-Queue family (`mq`, `smq`, `reld`).
//!
//! Queue choices happen on every push and pop, so the generator must cost a
//! few cycles and live in the handle (no shared state, no thread-local
//! lookups). xorshift64* (Vigna, "An experimental exploration of Marsaglia's
//! xorshift generators", 2016) is enough for load balancing; statistical
//! perfection is not needed. Seeds are derived per thread with splitmix64 so
//! that runs are reproducible from one configured seed.

use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

/// splitmix64 (Steele, Lea, Flood, OOPSLA 2014): scrambles `x` into a
/// well-mixed 64-bit value, for seeding; the first output of
/// `rand_xoshiro`'s SplitMix64 seeded with `x`.
pub(crate) fn splitmix64(x: u64) -> u64 {
    SplitMix64::seed_from_u64(x).next_u64()
}

/// xorshift64*: one 64-bit word of state, never zero.
#[derive(Clone, Debug)]
pub(crate) struct FastRng {
    state: u64,
}

impl FastRng {
    /// The generator of thread `tid` for a run seeded with `seed`; different
    /// threads get unrelated streams.
    pub(crate) fn for_thread(seed: u64, tid: usize) -> Self {
        let s = splitmix64(seed ^ splitmix64(tid as u64 ^ 0x5EED_F0D0));
        FastRng { state: if s == 0 { 0x2545_F491_4F6C_DD1D } else { s } }
    }

    /// The next 64 random bits.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform value in `0..n` (`n > 0`), by Lemire's multiply-shift (the
    /// bias is below 2^-32 for the queue counts used here).
    #[inline]
    pub(crate) fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `chance / 2^64`; see [`probability_threshold`].
    #[inline]
    pub(crate) fn hit(&mut self, chance: Chance) -> bool {
        match chance {
            Chance::Never => false,
            Chance::Always => true,
            Chance::Below(t) => self.next_u64() < t,
        }
    }
}

/// A probability prepared for [`FastRng::hit`]: one comparison per draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chance {
    /// Probability 0.
    Never,
    /// Probability 1.
    Always,
    /// Probability `t / 2^64`.
    Below(u64),
}

/// Converts a probability in [0, 1] into a [`Chance`].
pub(crate) fn probability_threshold(p: f64) -> Chance {
    if p.is_nan() || p <= 0.0 {
        Chance::Never
    } else if p >= 1.0 {
        Chance::Always
    } else {
        // p * 2^64 < 2^64, so the cast cannot saturate.
        Chance::Below((p * 18_446_744_073_709_551_616.0) as u64)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = FastRng::for_thread(7, 3);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[r.below(10)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn threads_get_different_streams_and_seeds_repeat() {
        let a: Vec<u64> = {
            let mut r = FastRng::for_thread(1, 0);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = FastRng::for_thread(1, 1);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let a2: Vec<u64> = {
            let mut r = FastRng::for_thread(1, 0);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_ne!(a, b);
        assert_eq!(a, a2);
    }

    #[test]
    fn hit_frequency_matches_the_probability() {
        let mut r = FastRng::for_thread(3, 0);
        let c = probability_threshold(0.125);
        let hits = (0..80_000).filter(|_| r.hit(c)).count();
        assert!((9_000..11_000).contains(&hits), "{hits}");
        assert!(!r.hit(probability_threshold(0.0)));
        assert!(r.hit(probability_threshold(1.0)));
    }

    #[test]
    fn thread_seeds_are_unchanged() {
        // Values from before splitmix64 came from rand_xoshiro.
        let firsts: Vec<u64> = [(1u64, 0usize), (1, 1), (12345, 7)]
            .iter()
            .map(|&(s, t)| FastRng::for_thread(s, t).next_u64())
            .collect();
        assert_eq!(
            firsts,
            [1_205_372_376_388_129_940, 10_539_617_844_988_798_078, 1_571_280_756_155_191_337]
        );
    }
}
