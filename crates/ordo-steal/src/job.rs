//! A job (the initial frames and each worker's local state) and what a
//! finished job reports.

use std::time::Duration;

use crate::worker::{Frame, WorkerStats};

/// A computation to submit to a [`Pool`](crate::Pool): its initial frames,
/// run in phase 0, and how to make each worker's [`Frame::Local`].
///
/// The initial frames are dealt round-robin to the workers' now-deques, so a
/// job that starts from many places (the frontier of a search, say) starts
/// on every worker at once.
pub struct Job<'a, F: Frame> {
    pub(crate) frames: Vec<F>,
    pub(crate) make_local: Box<dyn FnMut(usize) -> F::Local + 'a>,
}

impl<'a, F: Frame> Job<'a, F> {
    /// A job of `frames`, each worker's local state the default.
    pub fn new(frames: impl IntoIterator<Item = F>) -> Self
    where
        F::Local: Default,
    {
        Job { frames: frames.into_iter().collect(), make_local: Box::new(|_| F::Local::default()) }
    }

    /// A job of `frames`, worker `i`'s local state `make_local(i)`.
    pub fn with_locals(
        frames: impl IntoIterator<Item = F>,
        make_local: impl FnMut(usize) -> F::Local + 'a,
    ) -> Self {
        Job { frames: frames.into_iter().collect(), make_local: Box::new(make_local) }
    }
}

/// What [`Pool::submit`](crate::Pool::submit) returns once every frame has
/// run.
#[derive(Debug)]
pub struct JobReport<L> {
    /// Each worker's local state at the end, by worker index.
    pub locals: Vec<L>,
    /// Each worker's counters, by worker index.
    pub workers: Vec<WorkerStats>,
    /// Phases the job ran: 0 for a job without frames, 1 for a job that
    /// never used [`Worker::push_next`](crate::Worker::push_next), one more
    /// for every barrier that advanced the phase.
    pub phases: u64,
    /// Wall time from the submission to the last worker leaving the job.
    pub elapsed: Duration,
}

impl<L> JobReport<L> {
    /// All workers' counters added up.
    pub fn total(&self) -> WorkerStats {
        let mut total = WorkerStats::default();
        for w in &self.workers {
            total.merge(w);
        }
        total
    }
}
