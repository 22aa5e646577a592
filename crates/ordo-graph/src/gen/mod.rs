//! Deterministic graph generators and the [`GenSpec`] strings that name them.
//!
//! A spec is `kind` or `kind:key=value,key=value,...`, for example
//! `road:n=1000000,seed=1`, `kron:scale=20`, `grid:w=1000,h=1000,wmax=10000`.
//! Numbers accept `_` separators, powers `2^20` and integral scientific
//! notation `1e6`. Every generator takes `seed=` (default 1) and produces the
//! same graph for the same spec on any machine and with any thread count
//! (random streams are split by fixed-size chunk, not by thread). Generated
//! graphs are always weighted; generators with uniform weights take
//! `wmin=`/`wmax=` (inclusive).
//!
//! | kind | model | parameters (defaults) |
//! |------|-------|------------|
//! | `road` | road-like planar graph with coordinates, see [`road`] | `n` (required), `deg`=2.6, `min_len`=10, `max_len`=100000 |
//! | `rmat` | R-MAT, directed multigraph | `scale` (required), `ef`=16, `a`=0.57, `b`=0.19, `c`=0.19, `wmin`=1, `wmax`=255, `sym`=false, `simple`=false, `permute`=false |
//! | `kron` | Graph500 Kronecker: R-MAT with scrambled ids, symmetric, simple | as `rmat` but `sym`, `simple`, `permute` default true |
//! | `torus` | 2D torus, 4 neighbours with wrap-around | `w`, `h` (required, >= 3), `wmin`=1, `wmax`=10000 |
//! | `grid` | 2D grid, 4 neighbours | `w`, `h` (required), `wmin`=1, `wmax`=10000 |
//! | `random` | `m` uniformly random directed edges without self loops | `n`, `m` (required), `wmin`=1, `wmax`=10000 |
//! | `kgraph` | every vertex has `k` distinct random out-neighbours | `n`, `k` (required), `wmin`=1, `wmax`=10000 |

mod build;
mod parse;
mod spec;

pub mod grid;
pub mod kgraph;
mod part;
pub mod random;
pub mod rmat;
pub mod road;
pub mod torus;

pub use self::spec::{
    GenError, GenSpec, KGraphParams, LatticeParams, RandomParams, RmatParams, RoadParams, WeightRange,
};

pub(crate) use self::build::{build_csr, par_fill, stream_rng, EDGES_PER_STREAM};
