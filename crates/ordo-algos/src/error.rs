//! Errors of the algorithms and of their verification.

/// An algorithm could not run, or its result failed verification.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlgoError {
    /// The graph has real (`f64`) weights and this algorithm reads only
    /// integer weights (it would otherwise see the graph as unweighted).
    #[error("{algorithm} does not take real edge weights (replace them, e.g. --weights uniform:1..100)")]
    RealWeights {
        /// The algorithm's name.
        algorithm: &'static str,
    },
    /// The source vertex is not a vertex of the graph.
    #[error("source vertex {source_vertex} is out of range: the graph has {num_vertices} vertices (ids 0..{num_vertices})")]
    SourceOutOfRange {
        /// The requested source (0-based).
        source_vertex: u64,
        /// Vertices in the graph.
        num_vertices: usize,
    },
    /// The target vertex (of A*) is not a vertex of the graph.
    #[error("target vertex {target_vertex} is out of range: the graph has {num_vertices} vertices (ids 0..{num_vertices})")]
    TargetOutOfRange {
        /// The requested target (0-based).
        target_vertex: u64,
        /// Vertices in the graph.
        num_vertices: usize,
    },
    /// An A* heuristic built for a graph with another vertex count.
    #[error("the heuristic covers {heuristic_vertices} vertices but the graph has {num_vertices}")]
    HeuristicSize {
        /// Vertices the heuristic has coordinates for.
        heuristic_vertices: usize,
        /// Vertices in the graph.
        num_vertices: usize,
    },
    /// A reported path is not a path of the graph from the source to the
    /// target, or its length is not the reported distance.
    #[error("invalid path: {problem}")]
    InvalidPath {
        /// What is wrong, naming the position and vertices.
        problem: String,
    },
    /// A result and its reference differ in length.
    #[error("result has {got} values but the reference has {expected}")]
    LengthMismatch {
        /// Values in the reference.
        expected: usize,
        /// Values in the result.
        got: usize,
    },
    /// The first vertex whose value differs from the reference.
    #[error("vertex {vertex}: expected {expected}, got {got}")]
    Mismatch {
        /// The vertex (0-based).
        vertex: usize,
        /// The reference's value (`inf` when unreachable).
        expected: String,
        /// The result's value (`inf` when unreachable).
        got: String,
    },
    /// The source's own distance is not 0.
    #[error("source vertex {source_vertex} has distance {got} instead of 0")]
    SourceNotZero {
        /// The source vertex.
        source_vertex: u32,
        /// Its distance (`inf` when unreachable).
        got: String,
    },
    /// An edge that could still lower a distance: the result is not a
    /// fixpoint of relaxation (Lonestar's verification).
    #[error("edge {from} -> {to} (weight {weight}) violates d({to}) <= d({from}) + w: {dist_to} > {dist_from} + {weight}")]
    NotFixpoint {
        /// Tail of the edge.
        from: u32,
        /// Head of the edge.
        to: u32,
        /// Its weight.
        weight: u64,
        /// Distance of the tail.
        dist_from: u64,
        /// Distance of the head (`inf` when unreachable).
        dist_to: String,
    },
    /// A quantity of the whole result (a count, an iteration number)
    /// differs from the reference's.
    #[error("{what}: expected {expected}, got {got}")]
    ValueMismatch {
        /// What differs.
        what: String,
        /// The reference's value.
        expected: String,
        /// The result's value.
        got: String,
    },
    /// A reported BFS parent array is not a BFS tree of the graph from the
    /// source (Graph500's rules).
    #[error("invalid BFS tree: {problem}")]
    InvalidTree {
        /// What is wrong, naming the vertex.
        problem: String,
    },
    /// A parameter outside its domain (e.g. a damping factor not in (0, 1)).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
}
