//! Attaching edge weights to graphs whose files have none (or replacing the
//! weights they have): unit weights, seeded uniform random weights, and
//! weights from the Euclidean (planar) or great-circle (longitude/latitude)
//! length of the edge.
//!
//! Every rule here is a function of the *unordered* pair `{u, v}` (and the
//! seed), so both directions of an undirected edge always get the same
//! weight, whatever order the file lists them in and whether the graph was
//! symmetrized before or after. Uniform weights: a `Xoshiro256PlusPlus`
//! seeded from `seed` mixed with the pair draws one value in `lo..=hi`
//! (integers) or one `f64` in `[lo, hi)` (`uniform-real`, real weights).

use std::fmt;
use std::str::FromStr;

use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::{SplitMix64, Xoshiro256PlusPlus};

use crate::csr::{CoordSystem, Coordinates, Graph, VertexId, Weight};
use crate::error::{GraphError, Result};
use crate::memory::{try_filled, try_reserve_exact};

/// How to weight the edges of a loaded graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WeightSpec {
    /// Keep the file's weights; an unweighted file gives an unweighted graph.
    #[default]
    Keep,
    /// No weights: a weighted file's weight column is checked to be numbers
    /// and dropped, a generator draws none, a `.ordo` file's weight array is
    /// not mapped. For applications that read no weights (they would cost
    /// four bytes per edge in every copy of the graph).
    Drop,
    /// Every edge weighs 1 (replaces existing weights).
    Unit,
    /// Seeded uniform random weights in `lo..=hi` (replaces existing
    /// weights), the same for both directions of an edge; see
    /// [`crate::weights::uniform_pair_weight`].
    Uniform {
        /// Smallest weight.
        lo: Weight,
        /// Largest weight (inclusive).
        hi: Weight,
        /// Random seed.
        seed: u64,
    },
    /// Seeded uniform random real weights in `[lo, hi)` (replaces existing
    /// weights; the graph gets real weights), the same for both directions of
    /// an edge; see [`crate::weights::uniform_real_pair_weight`]. The bounds
    /// are held as `f64` bit patterns so the spec stays `Eq`; build it with
    /// [`WeightSpec::uniform_real`].
    UniformReal {
        /// Bits of the smallest weight (finite, `>= 0`).
        lo_bits: u64,
        /// Bits of the bound above every weight (finite, `>= lo`; a range
        /// with `lo == hi` gives `lo` everywhere).
        hi_bits: u64,
        /// Random seed.
        seed: u64,
    },
    /// `max(1, round(length))` of the edge from the vertex coordinates
    /// (Euclidean for planar coordinates, great-circle metres for DIMACS
    /// longitude/latitude); replaces existing weights.
    Euclidean,
    /// Like [`WeightSpec::Euclidean`] but `max(1, ceil(length))`, the
    /// convention of the DIMACS-10 road graphs' checked facts.
    EuclideanCeil,
    /// The graph's own weights (the file's or the generator's) times
    /// `num / den`, rounded to the nearest integer; a positive weight stays
    /// at least 1, so no zero-weight edge appears. `scale:1/64` is the PMOD
    /// paper's "edge weights scaled down by 64" (§6.2.4, Fig. 10), which
    /// changes the range of priorities and not the graph.
    Scale {
        /// Numerator.
        num: Weight,
        /// Denominator (positive).
        den: Weight,
    },
}

impl WeightSpec {
    /// Whether the rule reads the weights the input already has (so a
    /// reader must keep them): `keep` and `scale`.
    pub fn reads_existing(&self) -> bool {
        matches!(self, WeightSpec::Keep | WeightSpec::Scale { .. })
    }

    /// Whether the rule reads the input's coordinates: the Euclidean ones.
    pub fn reads_coords(&self) -> bool {
        matches!(self, WeightSpec::Euclidean | WeightSpec::EuclideanCeil)
    }
}

impl WeightSpec {
    /// The `uniform-real` rule on `[lo, hi)`: both finite, `0 <= lo <= hi`.
    pub fn uniform_real(lo: f64, hi: f64, seed: u64) -> std::result::Result<Self, String> {
        if !(lo.is_finite() && hi.is_finite() && lo >= 0.0 && lo <= hi) {
            return Err(format!("uniform-real weights need finite 0 <= LO <= HI, got {lo}..{hi}"));
        }
        Ok(WeightSpec::UniformReal { lo_bits: (lo + 0.0).to_bits(), hi_bits: hi.to_bits(), seed })
    }
}

impl FromStr for WeightSpec {
    type Err = String;

    /// Parses `keep`, `none`, `unit`, `uniform:LO..HI[:seed=S]` (seed 1 by default),
    /// `euclid` (or `euclidean`), `euclid-ceil` and `scale:NUM[/DEN]`.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let bad = || {
            format!(
                "bad weight spec '{s}' (expected keep, none, unit, uniform:LO..HI[:seed=S], \
                 uniform-real:LO..HI[:seed=S], euclid, euclid-ceil, scale:NUM[/DEN])"
            )
        };
        match s {
            "keep" => return Ok(WeightSpec::Keep),
            "none" => return Ok(WeightSpec::Drop),
            "unit" => return Ok(WeightSpec::Unit),
            "euclid" | "euclidean" => return Ok(WeightSpec::Euclidean),
            "euclid-ceil" | "euclidean-ceil" => return Ok(WeightSpec::EuclideanCeil),
            _ => {}
        }
        if let Some(ratio) = s.strip_prefix("scale:") {
            let (num, den) = ratio.split_once('/').unwrap_or((ratio, "1"));
            let num: Weight = num.trim().parse().map_err(|_| bad())?;
            let den: Weight = den.trim().parse().map_err(|_| bad())?;
            if den == 0 {
                return Err(format!("bad weight spec '{s}': the denominator must be positive"));
            }
            return Ok(WeightSpec::Scale { num, den });
        }
        if let Some(rest) = s.strip_prefix("uniform-real:") {
            let mut parts = rest.split(':');
            let (lo, hi) = parts.next().and_then(|r| r.split_once("..")).ok_or_else(bad)?;
            let lo: f64 = lo.parse().map_err(|_| bad())?;
            let hi: f64 = hi.parse().map_err(|_| bad())?;
            let mut seed = 1u64;
            for p in parts {
                seed = p.strip_prefix("seed=").ok_or_else(bad)?.parse().map_err(|_| bad())?;
            }
            return WeightSpec::uniform_real(lo, hi, seed).map_err(|e| format!("bad weight spec '{s}': {e}"));
        }
        let rest = s.strip_prefix("uniform:").ok_or_else(bad)?;
        let mut parts = rest.split(':');
        let range = parts.next().ok_or_else(bad)?;
        let (lo, hi) = range.split_once("..").ok_or_else(bad)?;
        let hi = hi.strip_prefix('=').unwrap_or(hi);
        let lo: Weight = lo.parse().map_err(|_| bad())?;
        let hi: Weight = hi.parse().map_err(|_| bad())?;
        if lo > hi {
            return Err(format!("bad weight spec '{s}': {lo} > {hi}"));
        }
        let mut seed = 1u64;
        for p in parts {
            let v = p.strip_prefix("seed=").ok_or_else(bad)?;
            seed = v.parse().map_err(|_| bad())?;
        }
        Ok(WeightSpec::Uniform { lo, hi, seed })
    }
}

impl fmt::Display for WeightSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightSpec::Keep => f.write_str("keep"),
            WeightSpec::Drop => f.write_str("none"),
            WeightSpec::Unit => f.write_str("unit"),
            WeightSpec::Uniform { lo, hi, seed } => write!(f, "uniform:{lo}..{hi}:seed={seed}"),
            WeightSpec::UniformReal { lo_bits, hi_bits, seed } => {
                write!(
                    f,
                    "uniform-real:{:?}..{:?}:seed={seed}",
                    f64::from_bits(*lo_bits),
                    f64::from_bits(*hi_bits)
                )
            }
            WeightSpec::Euclidean => f.write_str("euclid"),
            WeightSpec::EuclideanCeil => f.write_str("euclid-ceil"),
            WeightSpec::Scale { num, den } => write!(f, "scale:{num}/{den}"),
        }
    }
}

/// Mean Earth radius in metres (IUGG), for great-circle lengths.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Applies `spec` to `graph`: `Keep` leaves it as it is, `Drop` removes the
/// weights; every other rule replaces the weights (or adds them when the
/// graph has none).
///
/// Errors when `lo > hi` for uniform weights, when Euclidean weights are
/// asked for a graph without coordinates, or when a graph without weights is
/// to be scaled.
pub fn apply(graph: &mut Graph, spec: &WeightSpec) -> Result<()> {
    let weights: Vec<Weight> = match *spec {
        WeightSpec::Keep => return Ok(()),
        WeightSpec::Drop => {
            graph.clear_weights();
            return Ok(());
        }
        WeightSpec::Unit => try_filled(1, graph.num_edges(), "unit weights")?,
        WeightSpec::UniformReal { lo_bits, hi_bits, seed } => {
            let (lo, hi) = (f64::from_bits(lo_bits), f64::from_bits(hi_bits));
            if let Err(e) = WeightSpec::uniform_real(lo, hi, seed) {
                return Err(GraphError::Invalid(e));
            }
            let mut out = Vec::new();
            try_reserve_exact(&mut out, graph.num_edges(), "the new edge weights")?;
            for u in 0..graph.num_vertices() as VertexId {
                out.extend(graph.neighbors(u).iter().map(|&v| uniform_real_pair_weight(seed, lo, hi, u, v)));
            }
            return graph.set_real_weights(out);
        }
        WeightSpec::Uniform { lo, hi, seed } => {
            if lo > hi {
                return Err(GraphError::Invalid(format!("uniform weights need lo <= hi, got {lo}..{hi}")));
            }
            per_edge(graph, |u, v| uniform_pair_weight(seed, lo, hi, u, v))?
        }
        WeightSpec::Euclidean | WeightSpec::EuclideanCeil => {
            let Some(coords) = graph.coords() else {
                return Err(GraphError::Invalid(
                    "Euclidean weights need vertex coordinates (a .co or .xyz file)".into(),
                ));
            };
            let rounding =
                if matches!(spec, WeightSpec::EuclideanCeil) { Rounding::Ceil } else { Rounding::Nearest };
            per_edge(graph, |u, v| euclidean_weight(coords, u, v, rounding))?
        }
        WeightSpec::Scale { num, den } => {
            if let Some(old) = graph.real_weights() {
                // Real weights are scaled exactly as reals (no rounding).
                let factor = f64::from(num) / f64::from(den);
                let mut out = Vec::new();
                try_reserve_exact(&mut out, old.len(), "the scaled edge weights")?;
                out.extend(old.iter().map(|&w| w * factor));
                return graph.set_real_weights(out);
            }
            let Some(old) = graph.weights() else {
                return Err(GraphError::Invalid(format!(
                    "weights scale:{num}/{den} scales the input's own weights, and it has none"
                )));
            };
            let mut out = Vec::new();
            try_reserve_exact(&mut out, old.len(), "the scaled edge weights")?;
            out.extend(old.iter().map(|&w| scale_weight(w, num, den)));
            out
        }
    };
    graph.set_weights(weights)
}

/// `w * num / den` rounded to the nearest integer (halves up), at least 1
/// when `w` is positive, clamped to `Weight::MAX`; `den` is positive.
pub fn scale_weight(w: Weight, num: Weight, den: Weight) -> Weight {
    if w == 0 {
        return 0;
    }
    let (w, num, den) = (u128::from(w), u128::from(num), u128::from(den));
    let scaled = (w * num + den / 2) / den;
    Weight::try_from(scaled).unwrap_or(Weight::MAX).max(1)
}

/// One weight per edge in CSR order from `f(source, target)`.
fn per_edge(graph: &Graph, mut f: impl FnMut(VertexId, VertexId) -> Weight) -> Result<Vec<Weight>> {
    let mut out = Vec::new();
    try_reserve_exact(&mut out, graph.num_edges(), "the new edge weights")?;
    for u in 0..graph.num_vertices() as VertexId {
        for &v in graph.neighbors(u) {
            out.push(f(u, v));
        }
    }
    Ok(out)
}

/// The uniform random weight in `lo..=hi` of the edge `{u, v}` for `seed`
/// (symmetric in `u` and `v`).
pub fn uniform_pair_weight(seed: u64, lo: Weight, hi: Weight, u: VertexId, v: VertexId) -> Weight {
    let (a, b) = if u <= v { (u, v) } else { (v, u) };
    let key = splitmix64(splitmix64(seed) ^ (((a as u64) << 32) | b as u64));
    Xoshiro256PlusPlus::seed_from_u64(key).random_range(lo..=hi)
}

/// The uniform random real weight in `[lo, hi)` of the edge `{u, v}` for
/// `seed` (symmetric in `u` and `v`; `lo` when `lo == hi`): the generator of
/// [`uniform_pair_weight`] draws an `f64` in the half-open range.
pub fn uniform_real_pair_weight(seed: u64, lo: f64, hi: f64, u: VertexId, v: VertexId) -> f64 {
    if lo >= hi {
        return lo;
    }
    let (a, b) = if u <= v { (u, v) } else { (v, u) };
    let key = splitmix64(splitmix64(seed) ^ (((a as u64) << 32) | b as u64));
    Xoshiro256PlusPlus::seed_from_u64(key).random_range(lo..hi)
}

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014) as a bijective mixer of `x`: the first output of
/// the generator seeded with `x` (`rand_xoshiro`'s implementation).
pub(crate) fn splitmix64(x: u64) -> u64 {
    SplitMix64::seed_from_u64(x).next_u64()
}

/// How a length becomes an integer weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Round to the nearest integer (halves away from zero).
    Nearest,
    /// Round up: the DIMACS-10 convention behind the checked facts of the
    /// shared Luxembourg data ("max(1, ceil(Euclidean length))").
    Ceil,
}

/// The length-based weight of the edge `{u, v}`: `max(1, rounded length)`,
/// clamped to `u32::MAX`. Planar coordinates give the Euclidean distance in
/// their own units; longitude/latitude in micro-degrees give the
/// great-circle (haversine) distance in metres.
pub fn euclidean_weight(coords: &Coordinates, u: VertexId, v: VertexId, rounding: Rounding) -> Weight {
    let (u, v) = (u as usize, v as usize);
    let len = match coords.system {
        CoordSystem::Planar => (coords.x[u] - coords.x[v]).hypot(coords.y[u] - coords.y[v]),
        CoordSystem::LonLatMicroDegrees => haversine_m(coords.x[u], coords.y[u], coords.x[v], coords.y[v]),
    };
    let r = match rounding {
        Rounding::Nearest => len.round(),
        Rounding::Ceil => len.ceil(),
    };
    // `as` saturates: NaN -> 0, huge -> u32::MAX.
    (r as Weight).max(1)
}

/// Great-circle distance in metres between two points given as longitude and
/// latitude in millionths of a degree.
pub fn haversine_m(lon1: f64, lat1: f64, lon2: f64, lat2: f64) -> f64 {
    let to_rad = |micro: f64| (micro * 1e-6).to_radians();
    let (phi1, phi2) = (to_rad(lat1), to_rad(lat2));
    let dphi = phi2 - phi1;
    let dlambda = to_rad(lon2) - to_rad(lon1);
    let h = (dphi / 2.0).sin().powi(2) + phi1.cos() * phi2.cos() * (dlambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::EdgeList;

    fn triangle() -> Graph {
        let mut el = EdgeList::new(3, false);
        for (u, v) in [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2)] {
            el.push(u, v, 0);
        }
        el.coords = Some(Coordinates::new(CoordSystem::Planar, vec![0.0, 3.0, 3.0], vec![0.0, 4.0, 4.5]));
        el.into_graph().unwrap()
    }

    #[test]
    fn uniform_is_symmetric_seeded_and_in_range() {
        let mut g = triangle();
        apply(&mut g, &WeightSpec::Uniform { lo: 10, hi: 20, seed: 7 }).unwrap();
        let w: Vec<_> = g.edges().collect();
        assert!(w.iter().all(|&(_, _, w)| (10..=20).contains(&w)));
        let get = |u, v| w.iter().find(|e| e.0 == u && e.1 == v).unwrap().2;
        assert_eq!(get(0, 1), get(1, 0));
        assert_eq!(get(1, 2), get(2, 1));
        let mut again = triangle();
        apply(&mut again, &WeightSpec::Uniform { lo: 10, hi: 20, seed: 7 }).unwrap();
        assert_eq!(g, again);
        // Over many pairs, every value of a small range appears and another seed differs.
        let values: std::collections::HashSet<_> =
            (0..1000).map(|i| uniform_pair_weight(1, 1, 4, i, i + 1)).collect();
        assert_eq!(values.len(), 4);
        assert!(
            (0..100).any(|i| uniform_pair_weight(1, 0, 1000, i, 0) != uniform_pair_weight(2, 0, 1000, i, 0))
        );
        assert!(apply(&mut g, &WeightSpec::Uniform { lo: 5, hi: 4, seed: 0 }).is_err());
    }

    #[test]
    fn scale_multiplies_real_weights_exactly() {
        let mut el = EdgeList::new(3, true);
        for (u, v) in [(0, 1), (1, 2)] {
            el.push(u, v, 0);
        }
        let mut g = el.into_graph().unwrap();
        g.set_real_weights(vec![0.5, 96.0]).unwrap();
        apply(&mut g, &"scale:1/64".parse().unwrap()).unwrap();
        // Powers of two: the products are exact.
        assert_eq!(g.real_weights(), Some(&[0.5 / 64.0, 1.5][..]));
        assert!(g.weights().is_none());
    }

    #[test]
    fn scale_divides_the_existing_weights() {
        let mut el = EdgeList::new(3, true);
        for (u, v, w) in [(0, 1, 640), (1, 2, 95), (2, 0, 20), (0, 2, 0)] {
            el.push(u, v, w);
        }
        let mut g = el.into_graph().unwrap();
        let spec: WeightSpec = "scale:1/64".parse().unwrap();
        assert_eq!(spec, WeightSpec::Scale { num: 1, den: 64 });
        assert_eq!(spec.to_string(), "scale:1/64");
        assert!(spec.reads_existing());
        apply(&mut g, &spec).unwrap();
        // 640/64 = 10, 95/64 = 1.48 -> 1, 20/64 = 0.31 -> kept at 1, 0 stays 0.
        let w: Vec<_> = g.edges().collect();
        assert_eq!(w, vec![(0, 1, 10), (0, 2, 0), (1, 2, 1), (2, 0, 1)]);
        assert_eq!("scale:3".parse(), Ok(WeightSpec::Scale { num: 3, den: 1 }));
        assert_eq!(scale_weight(96, 1, 64), 2, "halves round up");
        assert_eq!(scale_weight(Weight::MAX, 2, 1), Weight::MAX, "clamped");
        assert!("scale:1/0".parse::<WeightSpec>().unwrap_err().contains("denominator"));
        assert!("scale:x".parse::<WeightSpec>().is_err());
        let mut bare = EdgeList::new(2, false);
        bare.push(0, 1, 0);
        let mut bare = bare.into_graph().unwrap();
        assert!(bare.weights().is_none());
        let e = apply(&mut bare, &spec).unwrap_err().to_string();
        assert!(e.contains("has none"), "{e}");
    }

    #[test]
    fn euclidean_rounds_and_has_minimum_one() {
        let mut g = triangle();
        apply(&mut g, &WeightSpec::Euclidean).unwrap();
        // |01| = 5, |12| = 0.5 -> round 1 (halves away from zero), |02| = sqrt(9 + 20.25) = 5.408
        assert_eq!(
            g.edges().collect::<Vec<_>>(),
            vec![(0, 1, 5), (0, 2, 5), (1, 0, 5), (1, 2, 1), (2, 1, 1)]
        );
        apply(&mut g, &WeightSpec::EuclideanCeil).unwrap();
        assert_eq!(g.weights().unwrap(), &[5, 6, 5, 1, 1]);
        let mut bare = EdgeList::new(2, false);
        bare.push(0, 1, 0);
        let mut bare = bare.into_graph().unwrap();
        assert!(apply(&mut bare, &WeightSpec::Euclidean).is_err());
        apply(&mut bare, &WeightSpec::Unit).unwrap();
        assert_eq!(bare.weights().unwrap(), &[1]);
    }

    #[test]
    fn haversine_matches_known_distance() {
        // One degree of latitude along a meridian: R * pi / 180.
        let d = haversine_m(0.0, 0.0, 0.0, 1e6);
        assert!((d - EARTH_RADIUS_M * std::f64::consts::PI / 180.0).abs() < 1e-6);
        // Paris (2.3522E, 48.8566N) to London (0.1276W, 51.5072N): about 343.5 km.
        let d = haversine_m(2.3522e6, 48.8566e6, -0.1276e6, 51.5072e6);
        assert!((d - 343_500.0).abs() < 1_500.0, "{d}");
    }

    #[test]
    fn uniform_real_is_symmetric_seeded_and_in_range() {
        let mut g = triangle();
        let spec: WeightSpec = "uniform-real:0.5..2.5:seed=7".parse().unwrap();
        assert_eq!(spec, WeightSpec::uniform_real(0.5, 2.5, 7).unwrap());
        assert_eq!(spec.to_string(), "uniform-real:0.5..2.5:seed=7");
        assert_eq!(spec.to_string().parse(), Ok(spec));
        apply(&mut g, &spec).unwrap();
        let w = g.real_weights().unwrap().to_vec();
        assert!(w.iter().all(|x| (0.5..2.5).contains(x)), "{w:?}");
        assert!(w.iter().any(|x| x.fract() != 0.0));
        let get =
            |u: u32, v: u32| w[g.edge_range(u).start + g.neighbors(u).iter().position(|&t| t == v).unwrap()];
        assert_eq!(get(0, 1).to_bits(), get(1, 0).to_bits());
        let mut again = triangle();
        apply(&mut again, &spec).unwrap();
        assert_eq!(g, again);
        let other: WeightSpec = "uniform-real:0.5..2.5:seed=8".parse().unwrap();
        apply(&mut again, &other).unwrap();
        assert_ne!(g, again);
        assert_eq!(uniform_real_pair_weight(1, 3.0, 3.0, 0, 1), 3.0);
        for bad in ["uniform-real:2..1", "uniform-real:-1..1", "uniform-real:0..inf", "uniform-real:0..1:s=2"]
        {
            assert!(bad.parse::<WeightSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_weight_specs() {
        assert_eq!("keep".parse(), Ok(WeightSpec::Keep));
        assert_eq!("unit".parse(), Ok(WeightSpec::Unit));
        assert_eq!("none".parse(), Ok(WeightSpec::Drop));
        assert_eq!("euclid".parse(), Ok(WeightSpec::Euclidean));
        assert_eq!("euclid-ceil".parse(), Ok(WeightSpec::EuclideanCeil));
        assert_eq!("uniform:1..100000".parse(), Ok(WeightSpec::Uniform { lo: 1, hi: 100000, seed: 1 }));
        assert_eq!("uniform:1..=9:seed=42".parse(), Ok(WeightSpec::Uniform { lo: 1, hi: 9, seed: 42 }));
        for bad in ["uniform:9..1", "uniform:1-2", "uniform:1..2:s=1", "heavy"] {
            assert!(bad.parse::<WeightSpec>().is_err(), "{bad}");
        }
        for spec in [
            WeightSpec::Keep,
            WeightSpec::Drop,
            WeightSpec::Uniform { lo: 3, hi: 4, seed: 5 },
            WeightSpec::EuclideanCeil,
        ] {
            assert_eq!(spec.to_string().parse(), Ok(spec));
        }
    }

    /// SplitMix64's output function as published (Steele, Lea, Flood 2014,
    /// and Vigna's `splitmix64.c`), written out to check the library's.
    fn splitmix64_reference(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn weights_are_bit_identical_to_the_published_mixer() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            assert_eq!(splitmix64(x), splitmix64_reference(x));
        }
        for z in [0, 1, u64::MAX] {
            assert_eq!(splitmix64(z), splitmix64_reference(z));
        }
        // Weights computed before the mixer came from rand_xoshiro: files
        // and results made with `--weights uniform:...` stay reproducible.
        let cases = [
            (1u64, 1u32, 100_000u32, 0u32, 1u32),
            (7, 10, 20, 5, 3),
            (42, 0, u32::MAX, 123_456, 654_321),
            (0, 1, 255, 0, 0),
        ];
        let weights: Vec<u32> =
            cases.iter().map(|&(s, lo, hi, u, v)| uniform_pair_weight(s, lo, hi, u, v)).collect();
        assert_eq!(weights, [77_557, 12, 2_273_701_511, 63]);
    }
}
