//! The MPI transport (feature `mpi`): ranks are MPI processes.
//!
//! MPI is initialised with `MPI_THREAD_SERIALIZED` and, while the run lasts,
//! only one thread of the process calls MPI: the rank's **communication
//! thread**. Worker threads hand it outgoing messages and take arrived ones
//! through two channels, so "network progress" in the scheduler loop is a
//! cheap channel operation and the MPI communicator is never shared between
//! threads. The communication thread loops: start a non-blocking send
//! (`MPI_Isend`) for every queued message, test the pending sends and free
//! the buffers of completed ones, and receive every message that has
//! arrived (`MPI_Improbe` + `MPI_Mrecv`), backing off when nothing happens.
//!
//! Shutdown ([`Endpoint::finish`]): the thread sends the remaining queued
//! messages, then a `Fin` message to every other rank, and receives until it
//! has a `Fin` from every other rank; as MPI does not let two messages from
//! the same sender with the same tag overtake each other, nothing of this run
//! is then still in flight to this rank. It waits for its own sends to
//! complete and exits; the main thread then finalises MPI.

use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, Sender};
use mpi::environment::Universe;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

use super::Endpoint;
use crate::wire::{self, Kind};
use crate::DistError;

/// The one MPI tag of ordo's messages.
const TAG: i32 = 7;

/// What the worker threads ask of the communication thread.
enum Command {
    Send(usize, Vec<u8>),
    Finish,
    Abort(i32),
}

/// An initialised MPI environment and this process's endpoint. Dropping it
/// finalises MPI (after [`Endpoint::finish`]).
pub struct MpiSession {
    endpoint: MpiEndpoint,
    // Declared last: dropped (MPI_Finalize) after the endpoint's thread ended.
    _universe: Universe,
}

/// This process's end of the MPI network.
pub struct MpiEndpoint {
    rank: usize,
    ranks: usize,
    commands: Sender<Command>,
    arrived: Receiver<Vec<u8>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl MpiSession {
    /// Initialises MPI and starts the communication thread.
    ///
    /// # Errors
    /// MPI was already initialised, or does not offer
    /// `MPI_THREAD_SERIALIZED`.
    pub fn init() -> Result<MpiSession, DistError> {
        let (universe, level) = mpi::initialize_with_threading(Threading::Serialized)
            .ok_or_else(|| DistError::Transport("MPI was already initialised".into()))?;
        if level < Threading::Serialized {
            return Err(DistError::Transport(format!(
                "the MPI library offers thread level {level:?}; the communication thread needs Serialized"
            )));
        }
        let world = universe.world();
        let (rank, ranks) = (world.rank() as usize, world.size() as usize);
        let (commands, command_rx) = unbounded();
        let (arrived_tx, arrived) = unbounded();
        let thread = std::thread::Builder::new()
            .name(format!("ordo-mpi-{rank}"))
            .spawn(move || communication_thread(ranks, command_rx, arrived_tx))
            .map_err(|e| DistError::Transport(format!("cannot start the communication thread: {e}")))?;
        Ok(MpiSession {
            endpoint: MpiEndpoint { rank, ranks, commands, arrived, thread: Mutex::new(Some(thread)) },
            _universe: universe,
        })
    }

    /// The endpoint of this process.
    pub fn endpoint(&self) -> &MpiEndpoint {
        &self.endpoint
    }

    /// Ends every process of the job with exit code `code` (`MPI_Abort`,
    /// called by the communication thread). Never returns.
    pub fn abort(&self, code: i32) -> ! {
        let _ = self.endpoint.commands.send(Command::Abort(code));
        if let Some(t) = self.endpoint.thread.lock().expect("thread lock").take() {
            let _ = t.join();
        }
        std::process::exit(code)
    }
}

impl Endpoint for MpiEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn send(&self, dest: usize, msg: Vec<u8>) {
        let _ = self.commands.send(Command::Send(dest, msg));
    }

    fn try_recv(&self) -> Option<Vec<u8>> {
        self.arrived.try_recv().ok()
    }

    fn finish(&self) {
        if let Some(t) = self.thread.lock().expect("thread lock").take() {
            let _ = self.commands.send(Command::Finish);
            t.join().expect("the MPI communication thread panicked");
        }
    }
}

/// A send in progress and the buffer it reads.
struct Pending {
    request: Request<'static, [u8], StaticScope>,
    buffer: *mut [u8],
}

/// The loop of the communication thread (see the module docs).
fn communication_thread(ranks: usize, commands: Receiver<Command>, arrived: Sender<Vec<u8>>) {
    let world = SimpleCommunicator::world();
    let me = world.rank() as usize;
    let mut pending: Vec<Pending> = Vec::new();
    let mut finishing = false;
    let mut fins = 0usize;
    let mut idle = 0u32;
    let start_send = |pending: &mut Vec<Pending>, dest: usize, msg: Vec<u8>| {
        let buffer: *mut [u8] = Box::into_raw(msg.into_boxed_slice());
        // SAFETY: `buffer` comes from `Box::into_raw`, so it is valid and
        // unaliased; the shared borrow lives until the request completes,
        // and the box is rebuilt (and freed) only after that, in the loop
        // below, when nothing reads it any more.
        let data: &'static [u8] = unsafe { &*buffer };
        let request = world.process_at_rank(dest as i32).immediate_send_with_tag(StaticScope, data, TAG);
        pending.push(Pending { request, buffer });
    };
    loop {
        let mut busy = false;
        while let Ok(cmd) = commands.try_recv() {
            busy = true;
            match cmd {
                Command::Send(dest, msg) => start_send(&mut pending, dest, msg),
                Command::Finish => {
                    finishing = true;
                    for dest in (0..ranks).filter(|&r| r != me) {
                        start_send(&mut pending, dest, wire::message(Kind::Fin, me, 0, 0));
                    }
                }
                Command::Abort(code) => world.abort(code),
            }
        }
        let mut still = Vec::with_capacity(pending.len());
        for p in pending.drain(..) {
            match p.request.test() {
                Ok(_) => {
                    busy = true;
                    // SAFETY: the send completed, so MPI no longer reads the
                    // buffer and the `'static` borrow handed to it is dead;
                    // the pointer came from `Box::into_raw` and is freed once.
                    drop(unsafe { Box::from_raw(p.buffer) });
                }
                Err(request) => still.push(Pending { request, buffer: p.buffer }),
            }
        }
        pending = still;
        while let Some(probed) = world.any_process().immediate_matched_probe_with_tag(TAG) {
            busy = true;
            let (msg, _status) = probed.matched_receive_vec::<u8>();
            if msg.first() == Some(&(Kind::Fin as u8)) {
                fins += 1;
            } else if !finishing {
                let _ = arrived.send(msg);
            }
        }
        if finishing && fins == ranks - 1 && pending.is_empty() {
            return;
        }
        if busy {
            idle = 0;
        } else if idle < 64 {
            idle += 1;
            std::hint::spin_loop();
        } else if idle < 256 {
            idle += 1;
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(20));
        }
    }
}
