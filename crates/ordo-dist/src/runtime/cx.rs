//! [`Cx`]: what the runtime offers a plug-in on one worker thread — sending
//! work items (aggregated per destination), flow-controlled sends, the
//! work counters of termination detection, and the thread's task queues.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use crossbeam_deque::{Steal, Worker as Deque};

use super::{Program, RankShared, WorkerStats};
use crate::wire::{self, Kind, Wire};

/// Items bound for one rank, not yet sent.
struct Outgoing {
    /// A `Data` message: header, then the encoded items.
    msg: Vec<u8>,
    /// Items in `msg` that asked for an acknowledgement.
    acks: u64,
}

/// One worker thread's view of the runtime, handed to every [`super::PlugIn`] call.
pub struct Cx<'r, P: Program + ?Sized> {
    pub(super) shared: &'r RankShared<'r, P>,
    tid: usize,
    pub(super) lifo: Deque<P::Task>,
    /// Yielded tasks with the network-progress round they yielded in.
    yielded: VecDeque<(u64, P::Task)>,
    /// Network progress calls of this thread so far.
    pub(super) round: u64,
    out: Vec<Outgoing>,
    created: u64,
    finished: u64,
    pub(super) stats: WorkerStats,
    /// Reused buffer for decoding arrived items.
    pub(super) scratch: Vec<P::Item>,
    /// Next victim of task stealing.
    victim: usize,
}

impl<'r, P: Program + ?Sized> Cx<'r, P> {
    pub(super) fn new(shared: &'r RankShared<'r, P>, tid: usize, lifo: Deque<P::Task>) -> Self {
        let out = (0..shared.ranks)
            .map(|_| Outgoing {
                msg: wire::message(Kind::Data, shared.rank, 0, shared.opts.flush_bytes),
                acks: 0,
            })
            .collect();
        Cx {
            shared,
            tid,
            lifo,
            yielded: VecDeque::new(),
            round: 0,
            out,
            created: 0,
            finished: 0,
            stats: WorkerStats::default(),
            scratch: Vec::new(),
            victim: tid,
        }
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.shared.rank
    }

    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.shared.ranks
    }

    /// This worker thread, `0..threads()`.
    pub fn tid(&self) -> usize {
        self.tid
    }

    /// Worker threads of this rank.
    pub fn threads(&self) -> usize {
        self.shared.opts.threads
    }

    /// Counts `n` new work items that stay on this rank (sends count their
    /// own). Call it before the items become visible to another thread.
    #[inline]
    pub fn count_created(&mut self, n: u64) {
        self.created += n;
        self.shared.counters[self.tid].publish_created(self.created);
    }

    /// Counts `n` work items as finished: they will never be seen again,
    /// and every item they created has been counted.
    #[inline]
    pub fn count_finished(&mut self, n: u64) {
        self.finished += n;
        self.shared.counters[self.tid].publish_finished(self.finished);
    }

    /// Sends work item `item` to rank `dest` (counted as created). Items are
    /// aggregated per destination and leave at the next network progress,
    /// or earlier when the buffer is full.
    #[inline]
    pub fn send(&mut self, dest: usize, item: P::Item) {
        self.count_created(1);
        self.stats.items_sent += 1;
        let out = &mut self.out[dest];
        item.put(&mut out.msg);
        if out.msg.len() - wire::HEADER_BYTES >= self.shared.opts.flush_bytes {
            self.flush(dest);
        }
    }

    /// Sends `item` like [`Cx::send`], asking `dest` to acknowledge it once
    /// handled (the paper's call with continuation); until then it counts in
    /// [`Cx::acks_outstanding`].
    pub fn send_acked(&mut self, dest: usize, item: P::Item) {
        self.shared.acks_outstanding.fetch_add(1, Ordering::AcqRel);
        self.stats.acked_sends += 1;
        self.out[dest].acks += 1;
        self.send(dest, item);
    }

    /// Acknowledged sends of this rank not acknowledged yet (all threads).
    pub fn acks_outstanding(&self) -> u64 {
        self.shared.acks_outstanding.load(Ordering::Acquire)
    }

    /// Pushes an ordinary task onto this thread's LIFO queue.
    pub fn spawn(&mut self, task: P::Task) {
        self.lifo.push(task);
    }

    /// Puts a task into the mailbox of thread `tid` of this rank.
    pub fn mail(&mut self, tid: usize, task: P::Task) {
        self.shared.mailboxes[tid].push(task);
    }

    /// Yields `task`: it runs again after this thread's next network progress.
    pub fn yield_task(&mut self, task: P::Task) {
        self.yielded.push_back((self.round, task));
    }

    /// The oldest yielded task that has waited for a network progress.
    pub(super) fn take_yielded(&mut self) -> Option<P::Task> {
        match self.yielded.front() {
            Some(&(round, _)) if round < self.round => self.yielded.pop_front().map(|(_, t)| t),
            _ => None,
        }
    }

    /// The oldest task of another thread's LIFO queue, if any.
    pub(super) fn steal_task(&mut self) -> Option<P::Task> {
        let n = self.shared.stealers.len();
        for _ in 1..n {
            self.victim = (self.victim + 1) % n;
            if self.victim == self.tid {
                self.victim = (self.victim + 1) % n;
            }
            loop {
                match self.shared.stealers[self.victim].steal() {
                    Steal::Success(t) => return Some(t),
                    Steal::Empty => break,
                    Steal::Retry => {}
                }
            }
        }
        None
    }

    /// Sends the buffered items for `dest`, if any.
    fn flush(&mut self, dest: usize) {
        let out = &mut self.out[dest];
        if out.msg.len() == wire::HEADER_BYTES {
            return;
        }
        let fresh = wire::message(Kind::Data, self.shared.rank, 0, self.shared.opts.flush_bytes);
        let mut msg = std::mem::replace(&mut out.msg, fresh);
        wire::set_tag(&mut msg, std::mem::take(&mut out.acks));
        self.stats.messages_sent += 1;
        self.stats.bytes_sent += msg.len() as u64;
        self.shared.ep.send(dest, msg);
    }

    /// Sends every buffered item.
    pub(super) fn flush_all(&mut self) {
        for dest in 0..self.out.len() {
            self.flush(dest);
        }
    }

    /// Sends a runtime control message (acknowledgement, wave) at once.
    pub(super) fn send_control(&mut self, dest: usize, msg: Vec<u8>) {
        self.stats.messages_sent += 1;
        self.stats.bytes_sent += msg.len() as u64;
        self.shared.ep.send(dest, msg);
    }
}
