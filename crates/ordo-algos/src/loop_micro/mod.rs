//! The work-scheduling microbenchmark of Callisto-RTS §4.1: one large loop
//! whose iterations increment a stack variable a set number of times.
//!
//! - **even**: every iteration does `work` increments;
//! - **skewed**: the first `n/1024` iterations (at least one) do 1024× the
//!   work of the others, and the light ones do `work/2`, so that the heavy
//!   and the light part each hold about half of the work and the total is
//!   about that of the even loop (the paper sets the heavy count "so that
//!   the total work across all iterations is the same as the even
//!   distribution").
//!
//! The variable goes through [`std::hint::black_box`] on every increment, so
//! the compiler keeps every increment (as the paper's stack variable) and an
//! increment costs a store-to-load round trip (about 5 cycles on current
//! x86 cores). The batch size then sets the work per batch: with `work = 10`
//! (≈ 50 cycles per even iteration, the paper's Intel figure), a batch of 16
//! to 32 iterations is ≈ 1K cycles.
//!
//! Every run returns a checksum (iterations run, Σ index, Σ increments),
//! which [`verify`] compares with the closed form of [`reference`](mod@reference).

pub mod app;
pub mod reference;
pub mod verify;

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use ordo_loops::ForkWorkJoin;

use crate::loop_runner::LoopRunner;
use crate::AlgoError;

/// The shape of the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The same work in every iteration.
    Even,
    /// The first `n/1024` iterations heavy (see the module docs).
    Skewed,
}

impl Shape {
    /// `even` or `skewed`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Even => "even",
            Shape::Skewed => "skewed",
        }
    }
}

impl std::str::FromStr for Shape {
    type Err = AlgoError;
    fn from_str(s: &str) -> Result<Self, AlgoError> {
        match s {
            "even" => Ok(Shape::Even),
            "skewed" => Ok(Shape::Skewed),
            _ => Err(AlgoError::InvalidParameter(format!("work shape `{s}`: expected even or skewed"))),
        }
    }
}

/// Parameters of one microbenchmark loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MicroParams {
    /// Loop iterations.
    pub iterations: usize,
    /// Increments per even iteration.
    pub work: u32,
    /// Even or skewed.
    pub shape: Shape,
}

impl Default for MicroParams {
    /// 2^22 even iterations of 10 increments.
    fn default() -> Self {
        MicroParams { iterations: 1 << 22, work: 10, shape: Shape::Even }
    }
}

impl MicroParams {
    /// The number of heavy iterations of the skewed shape.
    pub fn heavy(&self) -> usize {
        match self.shape {
            Shape::Even => 0,
            Shape::Skewed => (self.iterations / 1024).max(1).min(self.iterations),
        }
    }

    /// The increments of iteration `i`.
    #[inline]
    pub fn increments(&self, i: usize) -> u32 {
        match self.shape {
            Shape::Even => self.work,
            Shape::Skewed => {
                let light = (self.work / 2).max(1);
                if i < self.heavy() {
                    light * 1024
                } else {
                    light
                }
            }
        }
    }
}

/// What a run computed: equal for every correct run of the same parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checksum {
    /// Iterations run.
    pub iterations: u64,
    /// Σ of the iteration indices.
    pub index_sum: u64,
    /// Σ of the increments done.
    pub increments: u64,
}

/// One iteration's work: `units` increments of a stack variable.
#[inline]
pub fn spin(units: u32) -> u64 {
    let mut x = 0u64;
    for _ in 0..units {
        x = black_box(x) + 1;
    }
    x
}

/// Runs the loop on `runner`; returns the checksum and the seconds taken.
pub fn run(runner: &LoopRunner, params: &MicroParams) -> (Checksum, f64) {
    let heavy = params.heavy();
    let light = (params.work / 2).max(1);
    let (iterations, index_sum, increments) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let start = Instant::now();
    let body = ForkWorkJoin::new(
        || Checksum { iterations: 0, index_sum: 0, increments: 0 },
        |c: &mut Checksum, i: usize| {
            let units = match params.shape {
                Shape::Even => params.work,
                Shape::Skewed if i < heavy => light * 1024,
                Shape::Skewed => light,
            };
            c.iterations += 1;
            c.index_sum += i as u64;
            c.increments += spin(units);
        },
        |c: Checksum| {
            iterations.fetch_add(c.iterations, Relaxed);
            index_sum.fetch_add(c.index_sum, Relaxed);
            increments.fetch_add(c.increments, Relaxed);
        },
    );
    runner.for_each(0..params.iterations, &body);
    let seconds = start.elapsed().as_secs_f64();
    let sum = Checksum {
        iterations: iterations.into_inner(),
        index_sum: index_sum.into_inner(),
        increments: increments.into_inner(),
    };
    (sum, seconds)
}
