//! A test transport that delays every message by a random time and delivers
//! the messages that are due in random order, so that any two messages — data,
//! acknowledgements, termination waves — may overtake each other, also
//! between the same pair of ranks. Termination detection and every other
//! protocol of the crate must stay correct under it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Endpoint;

/// How messages are perturbed.
#[derive(Clone, Copy, Debug)]
pub struct ChaosConfig {
    /// Seed of the random delays and delivery choices.
    pub seed: u64,
    /// Each message is delayed by a uniform time in `0..=max_delay`.
    pub max_delay: Duration,
    /// With this probability a message is held `long_delay` more.
    pub long_probability: f64,
    /// The extra delay of a held message.
    pub long_delay: Duration,
    /// With this probability a receive returns nothing although a message
    /// is due (the network is slow to progress).
    pub miss_probability: f64,
}

impl Default for ChaosConfig {
    fn default() -> Self {
        ChaosConfig {
            seed: 1,
            max_delay: Duration::from_micros(300),
            long_probability: 0.02,
            long_delay: Duration::from_millis(5),
            miss_probability: 0.2,
        }
    }
}

/// The messages in flight to one rank, with the random stream that decides
/// their delays and delivery order.
struct Pool {
    due: Vec<(Instant, Vec<u8>)>,
    rng: Xoshiro256PlusPlus,
}

/// One rank's end of the perturbed in-process network.
pub struct ChaosEndpoint {
    rank: usize,
    pools: Arc<Vec<Mutex<Pool>>>,
    cfg: ChaosConfig,
}

/// The endpoints of `ranks` ranks linked by a perturbed in-process network.
pub fn network(ranks: usize, cfg: ChaosConfig) -> Vec<ChaosEndpoint> {
    let pools: Arc<Vec<Mutex<Pool>>> = Arc::new(
        (0..ranks)
            .map(|r| {
                let seed = cfg.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(r as u64);
                Mutex::new(Pool { due: Vec::new(), rng: Xoshiro256PlusPlus::seed_from_u64(seed) })
            })
            .collect(),
    );
    (0..ranks).map(|rank| ChaosEndpoint { rank, pools: Arc::clone(&pools), cfg }).collect()
}

impl ChaosEndpoint {
    /// Messages sent to this rank and not yet received.
    pub fn in_flight(&self) -> usize {
        self.pools[self.rank].lock().expect("pool lock").due.len()
    }

    /// Removes and returns every message still in flight to this rank.
    pub fn drain(&self) -> Vec<Vec<u8>> {
        self.pools[self.rank].lock().expect("pool lock").due.drain(..).map(|(_, m)| m).collect()
    }
}

impl Endpoint for ChaosEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.pools.len()
    }

    fn send(&self, dest: usize, msg: Vec<u8>) {
        let mut pool = self.pools[dest].lock().expect("pool lock");
        let max = self.cfg.max_delay.as_nanos() as u64;
        let mut delay = Duration::from_nanos(if max == 0 { 0 } else { pool.rng.random_range(0..=max) });
        if pool.rng.random_bool(self.cfg.long_probability) {
            delay += self.cfg.long_delay;
        }
        pool.due.push((Instant::now() + delay, msg));
    }

    fn try_recv(&self) -> Option<Vec<u8>> {
        let mut pool = self.pools[self.rank].lock().expect("pool lock");
        if pool.due.is_empty() || pool.rng.random_bool(self.cfg.miss_probability) {
            return None;
        }
        let now = Instant::now();
        let ready = pool.due.iter().filter(|(t, _)| *t <= now).count();
        if ready == 0 {
            return None;
        }
        let pick = pool.rng.random_range(0..ready);
        let index = pool.due.iter().enumerate().filter(|(_, (t, _))| *t <= now).nth(pick).map(|(i, _)| i)?;
        Some(pool.due.swap_remove(index).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delivers_every_message_once_in_some_order() {
        let eps = network(2, ChaosConfig { miss_probability: 0.5, ..ChaosConfig::default() });
        for i in 0..200u8 {
            eps[0].send(1, vec![i]);
        }
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        while got.len() < 200 && Instant::now() < deadline {
            if let Some(m) = eps[1].try_recv() {
                got.push(m[0]);
            }
        }
        assert_eq!(eps[1].in_flight(), 0);
        let in_order = got.windows(2).all(|w| w[0] < w[1]);
        got.sort_unstable();
        assert_eq!(got, (0..200).collect::<Vec<u8>>());
        assert!(!in_order, "200 messages should not all arrive in order");
    }
}
