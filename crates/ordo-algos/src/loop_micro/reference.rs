//! The sequential microbenchmark loop ("unsynchronized sequential code",
//! the base of the paper's speedups) and the closed form of its checksum.

use std::time::Instant;

use super::{spin, Checksum, MicroParams};

/// Runs the loop on the calling thread; returns the checksum and the
/// seconds taken.
pub fn run(params: &MicroParams) -> (Checksum, f64) {
    let start = Instant::now();
    let mut c = Checksum { iterations: 0, index_sum: 0, increments: 0 };
    for i in 0..params.iterations {
        c.iterations += 1;
        c.index_sum += i as u64;
        c.increments += spin(params.increments(i));
    }
    (c, start.elapsed().as_secs_f64())
}

/// The checksum every correct run must produce, computed without running.
pub fn expected(params: &MicroParams) -> Checksum {
    let n = params.iterations as u64;
    let heavy = params.heavy() as u64;
    let increments = match params.shape {
        super::Shape::Even => n * u64::from(params.work),
        super::Shape::Skewed => {
            let light = u64::from((params.work / 2).max(1));
            heavy * light * 1024 + (n - heavy) * light
        }
    };
    Checksum { iterations: n, index_sum: n * n.saturating_sub(1) / 2, increments }
}
