//! Errors of a simulation.

/// A simulation could not run, or the scheduler broke its contract.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// A bad interleaving policy string.
    #[error("--policy {0}")]
    Policy(String),
    /// Bad costs per operation ([`crate::Costs`]).
    #[error("costs {0}")]
    Costs(String),
    /// A bad configuration (no thread, nested simulation).
    #[error("simulation: {0}")]
    Config(String),
    /// The algorithm's parameters do not fit the graph.
    #[error(transparent)]
    Algo(#[from] ordo_algos::AlgoError),
    /// No task was pushed or popped for many steps although tasks were
    /// pending: the scheduler lost or hid tasks.
    #[error(
        "{scheduler}: no progress in {turns} turns with {pending} tasks pending ({private} private): \
         a pop failed although no other operation was in progress"
    )]
    Stalled {
        /// The scheduler spec.
        scheduler: String,
        /// Turns without progress.
        turns: u64,
        /// Tasks pending in the scheduler.
        pending: u64,
        /// Of which the handles report as private.
        private: u64,
    },
    /// The run executed more tasks than [`crate::SimConfig::max_tasks`].
    #[error("{scheduler}: stopped after {tasks} tasks, over the work budget")]
    Budget {
        /// The scheduler spec.
        scheduler: String,
        /// Tasks executed when it stopped.
        tasks: u64,
    },
    /// A scheduler reported something impossible.
    #[error("{0}")]
    Contract(String),
}
