//! The A* distance estimate: an admissible lower bound on the weighted
//! distance to the target, built from vertex coordinates (PMOD paper §5.3,
//! "A*"; the SMQ artifact's astar uses three quarters of an equirectangular distance in
//! metres — here the factor is derived from the
//! graph instead of fixed, so admissibility holds by construction).
//!
//! # Construction
//! 1. Every vertex is mapped to a point of the plane: planar coordinates as
//!    they are; longitude/latitude (DIMACS `.co`, degrees × 10^6) by the
//!    **equirectangular projection with one global reference latitude** φ0,
//!    the mean latitude of the graph's vertices:
//!    `x = R · λ · cos φ0`, `y = R · φ` (radians, R = 6 371 008.8 m), so
//!    distances are in metres near φ0.
//! 2. `d(a, b)` is the Euclidean distance of the two points.
//! 3. The scale `s` is the smallest ratio `w(e) / d(e)` over all edges with
//!    `d(e) > 0` (an edge with `d(e) = 0` constrains nothing; if some edge has
//!    `w(e) = 0` and `d(e) > 0`, `s = 0`), times `1 − 10^-9`.
//! 4. `h(v) = ⌊s · d(v, t)⌋`.
//!
//! # Admissibility (h never overestimates)
//! Let `v = x0, x1, …, xk = t` be any path with edges `e1…ek`. By the choice
//! of `s`, `w(ei) ≥ s · d(ei)` for every edge (trivially when `d(ei) = 0`).
//! `d` is a metric of the plane, so the triangle inequality gives
//! `Σ d(ei) ≥ d(v, t)`. Hence `Σ w(ei) ≥ s · Σ d(ei) ≥ s · d(v, t) ≥ h(v)`:
//! `h(v)` is at most the length of every path from `v` to `t`, in particular
//! the shortest. Distances are integers, so the floor loses nothing.
//!
//! The floating-point evaluation of `d`, of the ratios and of the product
//! each carry a relative error of a few units in the last place (~10^-16);
//! the `1 − 10^-9` margin on `s` dominates all of them together, so the
//! computed `h` stays below the exact `s_exact · d(v, t)`. Points are
//! projected once and both `s` and `h` use the same projected points, so
//! the projection's own rounding does not matter: the argument holds for
//! whatever points were computed.
//!
//! **Why one global reference latitude.** The common "equirectangular
//! approximation" evaluates `cos` at the *mean latitude of the two points*
//! being compared. That is not a metric: the scaling of longitude differs
//! from pair to pair, and `d(a, c) ≤ d(a, b) + d(b, c)` can fail, so a
//! scale derived from the edges would not bound the estimate to a far
//! target. A fixed projection maps every vertex to one point of one plane;
//! Euclidean distance there is a true metric, and the proof above applies.
//! The projection's distortion away from φ0 only makes `s` smaller (a weaker
//! but still admissible heuristic). The projection cuts the sphere at the
//! ±180° meridian; an edge across it looks very long, which again only
//! lowers `s`.
//!
//! Without coordinates (or with a non-finite coordinate) the heuristic is
//! zero and A* is SSSP pruned by the target's distance.

use ordo_graph::{CoordSystem, Graph, VertexId};

/// Mean Earth radius in metres (IUGG), for the lon/lat projection.
const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Relative safety margin on the scale, dominating floating-point rounding
/// (see the module docs).
const SCALE_MARGIN: f64 = 1.0 - 1e-9;

/// Which distance the heuristic measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HeuristicKind {
    /// No usable coordinates: `h = 0` (A* degenerates to SSSP pruned by the
    /// target's distance, as in the PMOD artifact, whose heuristic is 0).
    Zero,
    /// Euclidean distance of planar coordinates (coordinate units).
    Euclidean,
    /// Equirectangular projection of longitude/latitude with one global
    /// reference latitude, distances in metres.
    Equirectangular {
        /// The reference latitude φ0 in degrees (the graph's mean latitude).
        reference_latitude_deg: f64,
    },
}

impl HeuristicKind {
    /// A short name for reports: `zero`, `euclidean` or `equirectangular`.
    pub fn name(&self) -> &'static str {
        match self {
            HeuristicKind::Zero => "zero",
            HeuristicKind::Euclidean => "euclidean",
            HeuristicKind::Equirectangular { .. } => "equirectangular",
        }
    }
}

/// An admissible A* estimate for a graph: projected points and the
/// weight-per-length scale `s` (see the module docs for the construction
/// and the proof). Independent of the target, so one heuristic serves every
/// search on the graph.
#[derive(Clone, Debug)]
pub struct Heuristic {
    kind: HeuristicKind,
    scale: f64,
    /// One projected point per vertex (empty for [`HeuristicKind::Zero`]).
    points: Vec<[f64; 2]>,
    num_vertices: usize,
}

impl Heuristic {
    /// The zero heuristic for a graph of `num_vertices` vertices.
    pub fn zero(num_vertices: usize) -> Self {
        Heuristic { kind: HeuristicKind::Zero, scale: 0.0, points: Vec::new(), num_vertices }
    }

    /// Builds the heuristic from `graph`'s coordinates (zero when it has
    /// none, or when one is not finite). Unweighted graphs use weight 1.
    /// `O(n + m)`: one projection per vertex, one ratio per edge.
    pub fn for_graph(graph: &Graph) -> Self {
        let n = graph.num_vertices();
        let Some(coords) = graph.coords() else { return Self::zero(n) };
        if coords.len() != n || coords.x.iter().chain(coords.y.iter()).any(|c| !c.is_finite()) {
            return Self::zero(n);
        }
        let (kind, points): (HeuristicKind, Vec<[f64; 2]>) = match coords.system {
            CoordSystem::Planar => (
                HeuristicKind::Euclidean,
                coords.x.iter().zip(coords.y.iter()).map(|(&x, &y)| [x, y]).collect(),
            ),
            CoordSystem::LonLatMicroDegrees => {
                let mean_lat_deg = if n == 0 { 0.0 } else { coords.y.iter().sum::<f64>() / n as f64 / 1e6 };
                let to_rad = std::f64::consts::PI / 180.0 / 1e6;
                let x_factor = EARTH_RADIUS_M * to_rad * mean_lat_deg.to_radians().cos();
                let y_factor = EARTH_RADIUS_M * to_rad;
                let pts = coords.x.iter().zip(coords.y.iter()).map(|(&x, &y)| [x * x_factor, y * y_factor]);
                (HeuristicKind::Equirectangular { reference_latitude_deg: mean_lat_deg }, pts.collect())
            }
        };
        let scale = min_weight_per_length(graph, &points) * SCALE_MARGIN;
        Heuristic { kind, scale, points, num_vertices: n }
    }

    /// What the heuristic measures.
    pub fn kind(&self) -> HeuristicKind {
        self.kind
    }

    /// The scale `s` (weight units per coordinate unit, or per metre); 0 for
    /// the zero heuristic.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Vertices the heuristic was built for.
    pub fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    /// `h(v)` towards `target`: a lower bound on the distance from `v` to
    /// `target`. Both must be vertices of the graph the heuristic was built
    /// for (panics otherwise, like slice indexing).
    pub fn estimate(&self, v: VertexId, target: VertexId) -> u64 {
        match self.kind {
            HeuristicKind::Zero => 0,
            _ => self.toward(target).estimate(v),
        }
    }

    /// The estimate specialised to one target (internal fast path).
    pub(crate) fn toward(&self, target: VertexId) -> TargetEstimate<'_> {
        let goal = self.points.get(target as usize).copied().unwrap_or([0.0, 0.0]);
        TargetEstimate { points: &self.points, goal, scale: self.scale }
    }
}

/// `h` towards one fixed target.
pub(crate) struct TargetEstimate<'h> {
    points: &'h [[f64; 2]],
    goal: [f64; 2],
    scale: f64,
}

impl TargetEstimate<'_> {
    /// `⌊s · d(v, t)⌋` (a NaN product, impossible with finite points, would
    /// give 0, which is still admissible).
    #[inline(always)]
    pub(crate) fn estimate(&self, v: VertexId) -> u64 {
        let [x, y] = self.points[v as usize];
        let (dx, dy) = (x - self.goal[0], y - self.goal[1]);
        // `as` saturates and maps NaN to 0.
        (self.scale * (dx * dx + dy * dy).sqrt()) as u64
    }
}

/// The smallest `w(e) / d(e)` over edges with `d(e) > 0`; 0 when there is
/// none (no edge constrains the scale, and 0 is always admissible).
fn min_weight_per_length(graph: &Graph, points: &[[f64; 2]]) -> f64 {
    let mut best = f64::INFINITY;
    for (u, v, w) in graph.edges() {
        let (a, b) = (points[u as usize], points[v as usize]);
        let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
        let d = (dx * dx + dy * dy).sqrt();
        if d > 0.0 {
            // `edges()` reports weight 1 on unweighted graphs, as the search uses.
            best = best.min(w as f64 / d);
        }
    }
    if best.is_finite() {
        best
    } else {
        0.0
    }
}
