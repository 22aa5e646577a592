//! Work distributors (Callisto-RTS §3): how the threads of a loop claim
//! batches of its iterations.
//!
//! A distributor is built by the loop's leader for one loop, shared by the
//! participants, and asked by each participant for its next batch through a
//! private cursor until it answers `None`. Every iteration of the loop's
//! range is handed out exactly once (the stress tests check this for every
//! distributor).
//!
//! - [`shared`]: one counter, fetch-and-add (the OpenMP `dynamic` schedule).
//! - [`striped`]: distributed counters, one stripe per thread, core or
//!   socket, home stripe first; with whole-stripe claims it is the static
//!   partition.
//! - [`crate::combining`]: request combiners in front of either.

pub(crate) mod shared;
pub(crate) mod striped;

use std::ops::Range;

use crate::tree::Member;

/// Hands out the iterations of one loop in batches.
pub(crate) trait Distribute: Sync {
    /// A participant's private position (home stripe, pending request, …).
    type Cursor;

    /// The cursor of participant `member`.
    fn cursor(&self, member: &Member) -> Self::Cursor;

    /// The next batch for the cursor's participant, `None` once the loop's
    /// iterations are all claimed. Never returns an empty range.
    fn next(&self, cursor: &mut Self::Cursor) -> Option<Range<u64>>;
}
