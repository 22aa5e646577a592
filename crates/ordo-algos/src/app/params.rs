//! The named parameters of an application besides the graph (e.g. `source`,
//! `alpha`): what each application declares it accepts ([`ParamDef`]), and
//! the values given for one preparation ([`Params`]), taken with typed
//! accessors.
//!
//! Front ends pass values as text, as a user typed them: the CLI as
//! `--name VALUE` (or `--name` for a flag), Python as keyword arguments,
//! bench plans as input fields. A parameter that the chosen application
//! does not declare is an error that names the applications taking it, so
//! that a flag is never silently ignored.

use std::collections::BTreeMap;

use ordo_graph::{Graph, VertexId};

use super::AppError;

/// A parameter an application accepts.
#[derive(Debug, PartialEq, Eq)]
pub struct ParamDef {
    /// The name: `--NAME` on the command line, the keyword in Python, the
    /// key in the JSON report.
    pub name: &'static str,
    /// `Some(VALUE_NAME)` for a parameter with a value (shown in help as
    /// `--name VALUE_NAME`), `None` for a flag (present = true).
    pub value_name: Option<&'static str>,
    /// One or two sentences for `--help`: what it does and its default.
    pub help: &'static str,
}

/// The source vertex of a single-source search.
pub const SOURCE: ParamDef =
    ParamDef { name: "source", value_name: Some("VERTEX"), help: "Source vertex (0-based; default 0)." };

/// The target vertex of A*.
pub const TARGET: ParamDef = ParamDef {
    name: "target",
    value_name: Some("VERTEX"),
    help: "Target vertex of A* (0-based); default: the reachable vertex with the most BFS levels from \
           the source, smallest id among ties.",
};

/// Classify every executed task as good or useless work.
pub const CLASSIFY: ParamDef = ParamDef {
    name: "classify",
    value_name: None,
    help: "Classify every executed task as good (the first execution that saw its vertex's final \
           value) or useless, and with --cycles split task time into good and useless work. Memory: \
           one 16-byte note per executed task (27 MB for SSSP on the default 1M-vertex road graph), \
           held until the run is classified.",
};

/// The form of the SSSP / A* operator.
pub const OPERATOR: ParamDef = ParamDef {
    name: "operator",
    value_name: Some("paper|fast"),
    help: "The operator: `paper` is the PMOD paper's Fig. 1b exactly (every improved vertex gets a \
           task, lowered with an atomic min), what the papers' figures are reproduced with; `fast` \
           (default) adds ordo's own optimisations (SSSP follows dead ends and chains on road-like \
           graphs and uses logged plain stores in auto's rounds; A* does not schedule the target). \
           With --classify, `fast` SSSP schedules every lowered vertex too, so that each gets a note.",
};

/// Also compute the BFS tree.
pub const PARENTS: ParamDef = ParamDef {
    name: "parents",
    value_name: None,
    help: "bfs: also compute the BFS tree, Graph500 style (the source is its own parent, every other \
           reached vertex the vertex one level closer it was found from), check it with --verify (the \
           source, levels one apart, every parent edge in the graph), and write `vertex level parent` \
           lines with --out (`inf -1` when unreached). The priority BFS of --sched SPEC computes \
           levels only; its parents are then derived from them, timed with the run.",
};

/// The PageRank damping factor.
pub const ALPHA: ParamDef = ParamDef {
    name: "alpha",
    value_name: Some("ALPHA"),
    help: "PageRank damping factor, in (0, 1) (default 0.85).",
};

/// The PageRank tolerance: what it means depends on the kernel that runs
/// (the L1 change of the normalised ranks for the pull iterations of `pr`
/// and `pr-pull`, the residual threshold of the residual operator).
pub const TOLERANCE: ParamDef = ParamDef {
    name: "tolerance",
    value_name: Some("EPS"),
    help: "PageRank tolerance. pr (default kernel): stop after the first iteration whose L1 change of the \
           normalised ranks (they sum to at most 1) is below this (default 1e-4, GAPBS's); the L1 error of \
           the normalised ranks is then at most alpha/(1 - alpha) x tolerance. pr --sched, pr-d: a vertex \
           runs while its residual is at least this (default 0.01; ranks sum to about n, so the L1 error of \
           the normalised ranks is at most tolerance/(1 - alpha)). pr-pull: stop once an iteration changes \
           the ranks by at most this in L1 (ranks sum to at most 1), at most --iterations times (default \
           100 then).",
};

/// The iterations of the pull kernels.
pub const ITERATIONS: ParamDef = ParamDef {
    name: "iterations",
    value_name: Some("K"),
    help: "pr (default kernel): at most K iterations (default 20, GAPBS's). pr-pull: run exactly K \
           iterations (default 20), or with --tolerance at most K (default 100).",
};

/// The sampled sources of betweenness centrality.
pub const SOURCES: ParamDef = ParamDef {
    name: "sources",
    value_name: Some("K"),
    help: "bc: sum over K source vertices drawn with --seed (default: every vertex), scaled as \
           networkx scales a sample: (n-1)/K for non-sources, (n-1)/(K-1) for sources.",
};

/// The seed of random choices (bc's sampled sources).
pub const SEED: ParamDef = ParamDef {
    name: "seed",
    value_name: Some("S"),
    help: "Seed of the random choices (bc: which --sources are drawn; default 1).",
};

/// How betweenness centrality nests its loops.
pub const NEST: ParamDef = ParamDef {
    name: "nest",
    value_name: Some("HOW"),
    help: "bc: how the loop over sources and each source's BFS share the threads (Callisto-RTS \
           4.3): core (default; one source per core, its BFS on the core's threads), socket (one \
           source per socket), flat (one source per thread, sequential BFS), inner (one source at a \
           time, BFS on every thread). Cores and sockets as ORDO_TOPOLOGY says.",
};

/// The iterations of the loop microbenchmark.
pub const SIZE: ParamDef = ParamDef {
    name: "size",
    value_name: Some("N"),
    help: "loop-micro: iterations of the loop (default 4194304).",
};

/// The work per iteration of the loop microbenchmark.
pub const WORK: ParamDef = ParamDef {
    name: "work",
    value_name: Some("W"),
    help: "loop-micro: increments of a stack variable per iteration of even work, about 5 cycles \
           each (default 10).",
};

/// The work distribution of the loop microbenchmark.
pub const SHAPE: ParamDef = ParamDef {
    name: "shape",
    value_name: Some("SHAPE"),
    help: "loop-micro: even (every iteration W increments) or skewed (the first N/1024 iterations \
           1024x the work of the others, half the total each; default even).",
};

/// The values given for one preparation of one application, by parameter
/// name; flags have the value `true`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Params {
    values: BTreeMap<String, String>,
}

impl Params {
    /// No parameters.
    pub fn new() -> Self {
        Params::default()
    }

    /// Sets `name` to `value` (text, as the user gave it).
    pub fn set(&mut self, name: &str, value: impl Into<String>) -> &mut Self {
        self.values.insert(name.to_string(), value.into());
        self
    }

    /// Sets the flag `name`.
    pub fn set_flag(&mut self, name: &str) -> &mut Self {
        self.set(name, "true")
    }

    /// Builder form of [`Params::set`].
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.set(name, value);
        self
    }

    /// Builder form of [`Params::set_flag`].
    pub fn with_flag(mut self, name: &str) -> Self {
        self.set_flag(name);
        self
    }

    /// Whether `name` was given.
    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// The names given, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// The raw text of `def`, if given; the value is consumed.
    pub fn take_text(&mut self, def: &ParamDef) -> Option<String> {
        self.values.remove(def.name)
    }

    /// A flag: true when given (with no value, or `true`/`false`).
    pub fn take_flag(&mut self, def: &ParamDef) -> Result<bool, AppError> {
        match self.take_text(def).as_deref() {
            None | Some("false") => Ok(false),
            Some("true" | "") => Ok(true),
            Some(other) => Err(bad(def, other, "true or false")),
        }
    }

    /// A non-negative integer, if given.
    pub fn take_u64(&mut self, def: &ParamDef) -> Result<Option<u64>, AppError> {
        self.take_text(def)
            .map(|v| v.trim().parse().map_err(|_| bad(def, &v, "a non-negative integer")))
            .transpose()
    }

    /// A finite number, if given.
    pub fn take_f64(&mut self, def: &ParamDef) -> Result<Option<f64>, AppError> {
        self.take_text(def)
            .map(|v| match v.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(bad(def, &v, "a finite number")),
            })
            .transpose()
    }

    /// A vertex of `graph`, if given.
    pub fn take_vertex(&mut self, def: &ParamDef, graph: &Graph) -> Result<Option<VertexId>, AppError> {
        let n = graph.num_vertices();
        match self.take_u64(def)? {
            None => Ok(None),
            Some(v) => u32::try_from(v).ok().filter(|&s| (s as usize) < n).map(Some).ok_or_else(|| {
                AppError::Param(format!("{} {v}: the graph has {n} vertices (ids 0..{n})", def.name))
            }),
        }
    }
}

fn bad(def: &ParamDef, value: &str, expected: &str) -> AppError {
    AppError::Param(format!("{} = `{value}`: expected {expected}", def.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_takes_consume_and_check() {
        let mut p = Params::new().with("source", "7").with("alpha", "0.9").with("classify", "true");
        assert!(p.contains("alpha"));
        assert_eq!(p.take_u64(&SOURCE).unwrap(), Some(7));
        assert_eq!(p.take_u64(&SOURCE).unwrap(), None, "taken once");
        assert_eq!(p.take_f64(&ALPHA).unwrap(), Some(0.9));
        assert!(p.take_flag(&CLASSIFY).unwrap());
        assert!(!p.take_flag(&CLASSIFY).unwrap());
        assert_eq!(p.names().count(), 0);
        let e = Params::new().with("alpha", "x").take_f64(&ALPHA).unwrap_err().to_string();
        assert_eq!(e, "alpha = `x`: expected a finite number");
        assert!(Params::new().with("alpha", "inf").take_f64(&ALPHA).is_err());
        assert!(Params::new().with("source", "-1").take_u64(&SOURCE).is_err());
        assert!(Params::new().with("classify", "maybe").take_flag(&CLASSIFY).is_err());
    }

    #[test]
    fn vertices_are_checked_against_the_graph() {
        let g = ordo_graph::EdgeList::new(3, false).into_graph().unwrap();
        assert_eq!(Params::new().with("source", "2").take_vertex(&SOURCE, &g).unwrap(), Some(2));
        let e = Params::new().with("source", "3").take_vertex(&SOURCE, &g).unwrap_err().to_string();
        assert_eq!(e, "source 3: the graph has 3 vertices (ids 0..3)");
        let huge = Params::new().with("source", "99999999999").take_vertex(&SOURCE, &g);
        assert!(huge.is_err());
    }
}
