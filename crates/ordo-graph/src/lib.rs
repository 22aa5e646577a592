//! ordo-graph: the graph substrate of ordo.
//!
//! A CSR [`Graph`] with `u32` vertex ids, `u64` edge offsets, optional `u32`
//! weights and optional coordinates; readers for the formats graph people
//! use (DIMACS, SNAP, Matrix Market, METIS, plain edge lists, gzip-compressed
//! or not); a versioned binary format loaded zero-copy through `mmap`;
//! deterministic generators; transforms and statistics.

pub mod binary;
pub mod csr;
pub mod datasets;
pub mod error;
pub mod gen;
pub mod huge_pages;
pub mod load;
pub mod memory;
pub mod output;
pub mod part;
mod read;
pub mod stats;
pub mod storage;
pub mod transform;
mod union_find;
pub mod weights;
pub mod write;

pub use csr::{CoordSystem, Coordinates, EdgeList, Graph, VertexId, Weight};
pub use error::{GraphError, Result};
pub use load::{load, load_bytes, Format, LoadOptions, WeightSpec};
pub use part::{BlockPartition, GraphPart};
pub use storage::Buf;
pub use union_find::UnionFind;
