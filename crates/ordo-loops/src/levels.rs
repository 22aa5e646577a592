//! The nesting configuration: which unit of the machine each loop level is
//! distributed over (Callisto-RTS §2.2).
//!
//! Levels count "inside out": a loop at level 0 has no parallel loop inside
//! it, a loop at level 1 encloses one level of parallelism, and so on. Level
//! 0 is always spread over every thread; the configuration says over what a
//! level-1, level-2, … loop is spread: `thread,core` runs level-1 loops on one
//! thread per core (and the level-0 loops inside them on that core's
//! threads), `thread,socket` runs them per socket, `thread,core,socket` has
//! three levels. A loop at a level beyond the configured ones runs on its
//! caller alone.

use std::fmt;
use std::str::FromStr;

use crate::error::LoopError;
use crate::spec::Granularity;

/// The environment variable holding the nesting configuration of a runtime
/// built with [`RuntimeBuilder::from_env`](crate::RuntimeBuilder::from_env).
pub const LEVELS_ENV: &str = "ORDO_LOOP_LEVELS";

/// Which [`Granularity`] each nesting level is distributed over: level `i`
/// over the `i`-th entry. Always starts with `thread`, and every further
/// level is strictly coarser than the one below it.
///
/// ```
/// use ordo_loops::{Granularity, LevelMap};
/// let levels: LevelMap = "thread,core".parse().unwrap();
/// assert_eq!(levels.len(), 2);
/// assert_eq!(levels.granularity(1), Some(Granularity::Core));
/// assert!("core".parse::<LevelMap>().is_err()); // level 0 is every thread
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelMap {
    levels: Vec<Granularity>,
}

impl Default for LevelMap {
    /// One level: every loop spread over every thread; a nested loop runs on
    /// the thread that reaches it.
    fn default() -> Self {
        LevelMap { levels: vec![Granularity::Thread] }
    }
}

impl LevelMap {
    /// The map with the given levels; checked as [`FromStr`] does.
    pub fn new(levels: Vec<Granularity>) -> Result<Self, LoopError> {
        if levels.first() != Some(&Granularity::Thread) {
            return Err(LoopError::Levels(format!(
                "{LEVELS_ENV}: level 0 must be `thread` (every thread runs level-0 loops), e.g. thread,core"
            )));
        }
        if let Some(w) = levels.windows(2).find(|w| w[0] >= w[1]) {
            return Err(LoopError::Levels(format!(
                "{LEVELS_ENV}: `{}` after `{}`: each level must be coarser than the one below it (thread < core < socket)",
                w[1], w[0]
            )));
        }
        Ok(LevelMap { levels })
    }

    /// The number of configured levels (at least 1).
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// Never true: level 0 always exists.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The granularity of level `level`, if configured.
    pub fn granularity(&self, level: usize) -> Option<Granularity> {
        self.levels.get(level).copied()
    }
}

impl fmt::Display for LevelMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.levels.iter().map(|g| g.name()).collect();
        f.write_str(&names.join(","))
    }
}

impl FromStr for LevelMap {
    type Err = LoopError;

    /// Parses a comma-separated list such as `thread,core,socket`.
    fn from_str(text: &str) -> Result<Self, LoopError> {
        let levels = text
            .split(',')
            .map(str::trim)
            .map(|part| {
                Granularity::parse(part).ok_or_else(|| {
                    LoopError::Levels(format!(
                        "{LEVELS_ENV}=`{text}`: `{part}` is not a level (expected thread, core or socket)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        LevelMap::new(levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_maps_parse_and_check_order() {
        assert_eq!("thread".parse::<LevelMap>().unwrap(), LevelMap::default());
        let l: LevelMap = " thread , core , socket ".parse().unwrap();
        assert_eq!(l.to_string(), "thread,core,socket");
        assert_eq!(l.granularity(3), None);
        for (bad, needle) in [
            ("", "not a level"),
            ("core", "level 0 must be `thread`"),
            ("thread,socket,core", "coarser"),
            ("thread,thread", "coarser"),
            ("thread,numa", "not a level"),
        ] {
            let e = bad.parse::<LevelMap>().unwrap_err().to_string();
            assert!(e.contains(needle), "`{bad}`: {e}");
        }
    }
}
