//! How ranks exchange messages: a small [`Endpoint`] trait and its
//! implementations.
//!
//! | transport | ranks are | use |
//! |-----------|-----------|-----|
//! | [`local`] | threads of one process, linked by channels | `ordo dist --ranks R`, tests |
//! | [`chaos`] | the same, but every message is delayed at random and delivered in random order | tests of termination detection under any message order |
//! | `mpi` (feature `mpi`) | MPI processes; one communication thread per rank makes every MPI call | `mpirun -np R ordo dist ...` |
//!
//! Messages are whole byte buffers (see [`crate::wire`]); the runtime
//! aggregates work items per destination before it sends, so the transport
//! sees few, large messages. Sends never wait for the receiver; receives
//! never block. The runtime makes no assumption about delivery order between
//! any two messages, not even between the same pair of ranks.

pub mod chaos;
pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;

/// Whether this process was started by an MPI launcher (`mpirun`,
/// `mpiexec`, `srun`), judged from the environment variables that OpenMPI,
/// MPICH and PMIx set. Works without the `mpi` feature, so that a build
/// without MPI can refuse to run as one of many independent copies.
pub fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// One rank's access to the network.
pub trait Endpoint: Send + Sync {
    /// This rank, `0..ranks()`.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn ranks(&self) -> usize;
    /// Queues `msg` for rank `dest` (which may be this rank) and returns at
    /// once. Messages to a rank that has already left are dropped.
    fn send(&self, dest: usize, msg: Vec<u8>);
    /// A message that has arrived for this rank, if any; never blocks.
    fn try_recv(&self) -> Option<Vec<u8>>;
    /// Called by each rank once it will send nothing more and every message
    /// meant for it has been received: releases the transport's resources
    /// (the MPI transport drains its in-flight messages and stops its
    /// communication thread here).
    fn finish(&self) {}
}
