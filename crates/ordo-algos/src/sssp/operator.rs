//! Which form of the shortest-path operator a run uses: the papers' own
//! (PMOD paper Fig. 1b), which every scheduler comparison of the papers'
//! figures runs, or ordo's, which adds optimisations of its own.

use std::fmt;
use std::str::FromStr;

/// The form of the SSSP (and A*) operator.
///
/// Both give the exact distances; they differ in the tasks they create,
/// so `tasks`, `work_increase` and the good / useless split of one are not
/// the other's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OperatorVariant {
    /// PMOD paper Fig. 1b exactly: a task whose vertex improved since it was
    /// scheduled returns (line 17); otherwise every out-edge is relaxed
    /// atomically and every improved neighbour gets a task (lines 18–23).
    /// For A*: the same, with `f = g + h` and the target's distance as the
    /// bound, so every improved vertex below the bound is scheduled, the
    /// target included.
    Paper,
    /// ordo's: SSSP follows dead ends and chains at the lowering instead of
    /// scheduling them on graphs where that pays, and on several threads
    /// in `auto`'s rounds lowers with logged plain stores instead of
    /// `fetch_min` (`sssp` module docs); A* does not schedule the target,
    /// whose task could only be pruned.
    #[default]
    Fast,
}

impl OperatorVariant {
    /// The names `FromStr` accepts.
    pub const NAMES: [&'static str; 2] = ["paper", "fast"];

    /// The name, as parsed.
    pub fn name(self) -> &'static str {
        match self {
            OperatorVariant::Paper => "paper",
            OperatorVariant::Fast => "fast",
        }
    }
}

impl fmt::Display for OperatorVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OperatorVariant {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "paper" => Ok(OperatorVariant::Paper),
            "fast" => Ok(OperatorVariant::Fast),
            other => Err(format!("unknown operator `{other}` (expected paper or fast)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_errors() {
        for name in OperatorVariant::NAMES {
            assert_eq!(name.parse::<OperatorVariant>().unwrap().to_string(), name);
        }
        assert_eq!(OperatorVariant::default(), OperatorVariant::Fast);
        assert!("Paper!".parse::<OperatorVariant>().unwrap_err().contains("paper or fast"));
    }
}
