//! Parsing generator spec strings (`kind:key=value,...`) into [`GenSpec`].

use std::str::FromStr;

use super::spec::{
    GenError, GenSpec, KGraphParams, LatticeParams, RandomParams, RmatParams, RoadParams, WeightRange,
};

/// Key-value pairs of a spec, tracking which keys were used.
struct Params<'a> {
    spec: &'a str,
    pairs: Vec<(&'a str, &'a str, bool)>,
}

impl<'a> Params<'a> {
    fn err(&self, msg: impl Into<String>) -> GenError {
        GenError { spec: self.spec.to_string(), msg: msg.into() }
    }

    fn raw(&mut self, key: &str) -> Option<&'a str> {
        self.pairs.iter_mut().find(|(k, _, _)| *k == key).map(|(_, v, used)| {
            *used = true;
            *v
        })
    }

    fn int(&mut self, key: &str, default: Option<u64>) -> Result<u64, GenError> {
        match self.raw(key) {
            Some(v) => {
                parse_int(v).ok_or_else(|| self.err(format!("{key}={v}: expected a non-negative integer")))
            }
            None => default.ok_or_else(|| self.err(format!("missing required parameter `{key}`"))),
        }
    }

    fn float(&mut self, key: &str, default: f64) -> Result<f64, GenError> {
        match self.raw(key) {
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.err(format!("{key}={v}: expected a number"))),
            },
            None => Ok(default),
        }
    }

    fn flag(&mut self, key: &str, default: bool) -> Result<bool, GenError> {
        match self.raw(key) {
            Some("true" | "1" | "yes") => Ok(true),
            Some("false" | "0" | "no") => Ok(false),
            Some(v) => Err(self.err(format!("{key}={v}: expected true or false"))),
            None => Ok(default),
        }
    }

    fn weights(&mut self, lo: u32, hi: u32) -> Result<WeightRange, GenError> {
        let wmin = self.int("wmin", Some(u64::from(lo)))?;
        let wmax = self.int("wmax", Some(u64::from(hi)))?;
        if wmax > u64::from(u32::MAX) || wmin > wmax {
            return Err(
                self.err(format!("weights wmin={wmin}..wmax={wmax}: need wmin <= wmax <= {}", u32::MAX))
            );
        }
        Ok(WeightRange { lo: wmin as u32, hi: wmax as u32 })
    }

    fn finish(&self, allowed: &[&str]) -> Result<(), GenError> {
        if let Some((k, _, _)) = self.pairs.iter().find(|(_, _, used)| !used) {
            return Err(
                self.err(format!("unknown parameter `{k}` (expected one of: {})", allowed.join(", ")))
            );
        }
        Ok(())
    }
}

/// Parses `123`, `1_000`, `2^20`, `1e6` (integral only).
fn parse_int(s: &str) -> Option<u64> {
    let s: String = s.chars().filter(|&c| c != '_').collect();
    if let Some((b, e)) = s.split_once('^') {
        return b.parse::<u64>().ok()?.checked_pow(e.parse().ok()?);
    }
    if let Ok(v) = s.parse::<u64>() {
        return Some(v);
    }
    let f: f64 = s.parse().ok()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 1.8e19).then_some(f as u64)
}

impl FromStr for GenSpec {
    type Err = GenError;

    fn from_str(spec: &str) -> Result<Self, GenError> {
        let spec = spec.trim();
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let mut p = Params { spec, pairs: Vec::new() };
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) =
                item.split_once('=').ok_or_else(|| p.err(format!("`{item}`: expected key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            if p.pairs.iter().any(|(pk, _, _)| *pk == k) {
                return Err(p.err(format!("parameter `{k}` given twice")));
            }
            p.pairs.push((k, v, false));
        }
        let seed = p.int("seed", Some(1))?;
        let parsed = match kind {
            "road" => {
                let r = RoadParams {
                    n: p.int("n", None)?,
                    avg_degree: p.float("deg", 2.6)?,
                    min_len: p.float("min_len", 10.0)?,
                    max_len: p.float("max_len", 100_000.0)?,
                    seed,
                };
                p.finish(&["n", "deg", "min_len", "max_len", "seed"])?;
                GenSpec::Road(r)
            }
            "rmat" | "kron" => {
                let kron = kind == "kron";
                let r = RmatParams {
                    scale: p.int("scale", None)?.min(u64::from(u32::MAX)) as u32,
                    edge_factor: p.int("ef", Some(16))?,
                    a: p.float("a", 0.57)?,
                    b: p.float("b", 0.19)?,
                    c: p.float("c", 0.19)?,
                    weights: p.weights(1, 255)?,
                    symmetric: p.flag("sym", kron)?,
                    simple: p.flag("simple", kron)?,
                    permute: p.flag("permute", kron)?,
                    seed,
                };
                p.finish(&[
                    "scale", "ef", "a", "b", "c", "wmin", "wmax", "sym", "simple", "permute", "seed",
                ])?;
                if kron {
                    GenSpec::Kron(r)
                } else {
                    GenSpec::Rmat(r)
                }
            }
            "torus" | "grid" => {
                let l = LatticeParams {
                    w: p.int("w", None)?,
                    h: p.int("h", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["w", "h", "wmin", "wmax", "seed"])?;
                if kind == "torus" {
                    GenSpec::Torus(l)
                } else {
                    GenSpec::Grid(l)
                }
            }
            "random" => {
                let r = RandomParams {
                    n: p.int("n", None)?,
                    m: p.int("m", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["n", "m", "wmin", "wmax", "seed"])?;
                GenSpec::Random(r)
            }
            "kgraph" => {
                let r = KGraphParams {
                    n: p.int("n", None)?,
                    k: p.int("k", None)?,
                    weights: p.weights(1, 10_000)?,
                    seed,
                };
                p.finish(&["n", "k", "wmin", "wmax", "seed"])?;
                GenSpec::KGraph(r)
            }
            other => {
                return Err(p.err(format!(
                    "unknown generator `{other}` (expected road, rmat, kron, torus, grid, random or kgraph)"
                )))
            }
        };
        parsed.validate().map_err(|msg| p.err(msg))?;
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_canonically() {
        for s in [
            "road:n=1000",
            "kron:scale=10",
            "rmat:scale=8,ef=4,sym=true",
            "grid:w=3,h=4,wmax=9",
            "torus:w=3,h=3",
        ] {
            let g: GenSpec = s.parse().unwrap();
            let again: GenSpec = g.to_string().parse().unwrap();
            assert_eq!(g, again, "{s}");
        }
        let g: GenSpec = "random:n=2^10,m=1e4,seed=7".parse().unwrap();
        assert_eq!(
            g,
            GenSpec::Random(RandomParams {
                n: 1024,
                m: 10_000,
                weights: WeightRange { lo: 1, hi: 10_000 },
                seed: 7
            })
        );
    }

    #[test]
    fn rejects_bad_specs_with_reasons() {
        let cases = [
            ("road", "missing required parameter `n`"),
            ("road:n=0", "n=0 must be between 1"),
            ("road:n=10,x=1", "unknown parameter `x`"),
            ("road:n=ten", "n=ten: expected a non-negative integer"),
            ("torus:w=2,h=5", "at least 3"),
            ("kgraph:n=5,k=5", "need n > k"),
            ("random:n=1,m=3", "need n >= 2"),
            ("grid:w=2,h=2,wmin=5,wmax=4", "need wmin <= wmax"),
            ("foo:n=1", "unknown generator `foo`"),
            ("rmat:scale=40", "scale=40"),
            ("road:n=5,n=6", "given twice"),
        ];
        for (spec, want) in cases {
            let e = spec.parse::<GenSpec>().unwrap_err().to_string();
            assert!(e.contains(want) && e.contains(spec), "{spec}: {e}");
        }
    }
}
