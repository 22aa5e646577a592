//! Blocking collective steps built on an [`Endpoint`], for the phases
//! outside the scheduler loop: the setup agreement (which doubles as the
//! start barrier), gathers to rank 0, and the supersteps of distributed
//! Δ-stepping.
//!
//! Messages may arrive in any order: a message that is not the one being
//! waited for is kept (the stash) until asked for. An `Abort` from another
//! rank ends the wait with [`DistError::Remote`]; a stray flow-control
//! acknowledgement (its sender's run ended before it was delivered) is
//! dropped; a work-item message arriving after termination was detected is
//! a protocol error, the symptom of a detection that came too early.

use std::time::Duration;

use crate::transport::Endpoint;
use crate::wire::{self, Header, Kind};
use crate::DistError;

/// Tags of the setup agreement and of the gathers.
pub(crate) mod tags {
    /// The agreement after each rank built its graph part.
    pub(crate) const SETUP: u64 = 1;
    /// Per-rank statistics gathered to rank 0.
    pub(crate) const STATS: u64 = 2;
    /// Distances gathered to rank 0.
    pub(crate) const DISTANCES: u64 = 3;
}

/// Message traffic of the phases run through a [`Comm`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Traffic {
    pub(crate) messages_sent: u64,
    pub(crate) bytes_sent: u64,
    pub(crate) messages_received: u64,
    pub(crate) bytes_received: u64,
}

/// A rank's blocking view of the network (see the module docs).
pub(crate) struct Comm<'e> {
    ep: &'e dyn Endpoint,
    stash: Vec<(Header, Vec<u8>)>,
    /// Whether the scheduler loop has ended: from then on a work-item
    /// message is an error instead of an early arrival to keep.
    run_over: bool,
    pub(crate) traffic: Traffic,
}

impl<'e> Comm<'e> {
    pub(crate) fn new(ep: &'e dyn Endpoint) -> Self {
        Comm { ep, stash: Vec::new(), run_over: false, traffic: Traffic::default() }
    }

    pub(crate) fn rank(&self) -> usize {
        self.ep.rank()
    }

    pub(crate) fn ranks(&self) -> usize {
        self.ep.ranks()
    }

    /// Sends a `kind`/`tag` message with `payload` to `dest`.
    pub(crate) fn send(&mut self, dest: usize, kind: Kind, tag: u64, payload: &[u8]) {
        let mut msg = wire::message(kind, self.rank(), tag, payload.len());
        msg.extend_from_slice(payload);
        self.traffic.messages_sent += 1;
        self.traffic.bytes_sent += msg.len() as u64;
        self.ep.send(dest, msg);
    }

    /// The messages of the scheduler loop's kinds that arrived while this
    /// rank was still in a collective step before the loop (another rank
    /// may start sending work, or rank 0 its termination waves, as soon as
    /// it has left the setup agreement): the loop handles them first.
    pub(crate) fn take_early_run_messages(&mut self) -> Vec<Vec<u8>> {
        let (run, rest): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.stash).into_iter().partition(|(h, _)| {
                matches!(h.kind, Kind::Data | Kind::Ack | Kind::TermRequest | Kind::TermReport | Kind::Stop)
            });
        self.stash = rest;
        run.into_iter().map(|(_, m)| m).collect()
    }

    /// Takes over messages the scheduler loop received but did not handle;
    /// from now on work items are not expected.
    pub(crate) fn adopt(&mut self, leftovers: Vec<Vec<u8>>) -> Result<(), DistError> {
        self.run_over = true;
        for msg in leftovers {
            let h = wire::header(&msg)?;
            self.stash.push((h, msg));
        }
        Ok(())
    }

    /// Waits for a message of `kind` with `tag` (from `source`, if given).
    pub(crate) fn recv(
        &mut self,
        kind: Kind,
        tag: u64,
        source: Option<usize>,
    ) -> Result<(Header, Vec<u8>), DistError> {
        let wanted = |h: &Header| h.kind == kind && h.tag == tag && source.is_none_or(|s| s == h.source);
        if let Some(i) = self.stash.iter().position(|(h, _)| wanted(h)) {
            return Ok(self.stash.swap_remove(i));
        }
        let mut idle = 0u32;
        loop {
            let Some(msg) = self.ep.try_recv() else {
                backoff(&mut idle);
                continue;
            };
            idle = 0;
            let h = wire::header(&msg)?;
            self.traffic.messages_received += 1;
            self.traffic.bytes_received += msg.len() as u64;
            match h.kind {
                Kind::Abort => {
                    return Err(DistError::Remote {
                        rank: h.source,
                        message: String::from_utf8_lossy(wire::payload(&msg)).into_owned(),
                    })
                }
                Kind::Ack => {}
                Kind::Data if self.run_over => {
                    return Err(DistError::Protocol(format!(
                        "work items from rank {} arrived after termination was detected",
                        h.source
                    )))
                }
                _ if wanted(&h) => return Ok((h, msg)),
                _ => self.stash.push((h, msg)),
            }
        }
    }

    /// Sends `out[r]` to every other rank `r` (one `kind`/`tag` message
    /// each, possibly empty) and returns the payload received from each
    /// rank, indexed by sender (this rank's own entry is `out[rank]`).
    pub(crate) fn exchange(
        &mut self,
        kind: Kind,
        tag: u64,
        mut out: Vec<Vec<u8>>,
    ) -> Result<Vec<Vec<u8>>, DistError> {
        let (me, ranks) = (self.rank(), self.ranks());
        for (dest, payload) in out.iter().enumerate() {
            if dest != me {
                self.send(dest, kind, tag, payload);
            }
        }
        let mut got: Vec<Option<Vec<u8>>> = (0..ranks).map(|_| None).collect();
        got[me] = Some(std::mem::take(&mut out[me]));
        for _ in 1..ranks {
            let (h, msg) = self.recv(kind, tag, None)?;
            if h.source >= ranks || got[h.source].is_some() {
                return Err(DistError::Protocol(format!("unexpected {kind:?} {tag} from rank {}", h.source)));
            }
            got[h.source] = Some(wire::payload(&msg).to_vec());
        }
        Ok(got.into_iter().map(|p| p.expect("one payload per rank")).collect())
    }

    /// Every rank contributes `local`; returns every rank's payload when all
    /// succeeded, else an error on every rank: this rank's own, or the
    /// error of the lowest failed rank. All ranks must call it with the
    /// same `tag`; it returns only once every rank has contributed, so it
    /// is also a barrier.
    pub(crate) fn agree(
        &mut self,
        tag: u64,
        local: Result<Vec<u8>, DistError>,
    ) -> Result<Vec<Vec<u8>>, DistError> {
        let mine = match &local {
            Ok(p) => [&[0u8][..], p].concat(),
            Err(e) => [&[1u8][..], e.to_string().as_bytes()].concat(),
        };
        let all = self.exchange(Kind::Agree, tag, vec![mine; self.ranks()])?;
        local?;
        let mut payloads = Vec::with_capacity(all.len());
        for (rank, p) in all.into_iter().enumerate() {
            match p.split_first() {
                Some((0, rest)) => payloads.push(rest.to_vec()),
                Some((1, msg)) => {
                    return Err(DistError::Remote {
                        rank,
                        message: String::from_utf8_lossy(msg).into_owned(),
                    })
                }
                _ => {
                    return Err(DistError::Protocol(format!("malformed agreement message from rank {rank}")))
                }
            }
        }
        Ok(payloads)
    }

    /// Sends `payload` to rank 0; rank 0 gets every rank's payload.
    pub(crate) fn gather(&mut self, tag: u64, payload: Vec<u8>) -> Result<Option<Vec<Vec<u8>>>, DistError> {
        if self.rank() != 0 {
            self.send(0, Kind::Gather, tag, &payload);
            return Ok(None);
        }
        let mut got: Vec<Option<Vec<u8>>> = (0..self.ranks()).map(|_| None).collect();
        got[0] = Some(payload);
        for _ in 1..self.ranks() {
            let (h, msg) = self.recv(Kind::Gather, tag, None)?;
            if h.source >= got.len() || got[h.source].is_some() {
                return Err(DistError::Protocol(format!("unexpected gather {tag} from rank {}", h.source)));
            }
            got[h.source] = Some(wire::payload(&msg).to_vec());
        }
        Ok(Some(got.into_iter().map(|p| p.expect("one payload per rank")).collect()))
    }

    /// Tells every other rank that this one failed with `message`.
    pub(crate) fn abort_all(&mut self, message: &str) {
        let me = self.rank();
        for dest in (0..self.ranks()).filter(|&r| r != me) {
            self.send(dest, Kind::Abort, 0, message.as_bytes());
        }
    }
}

/// Waiting for a message: spin, then yield, then sleep briefly.
pub(crate) fn backoff(round: &mut u32) {
    if *round < 64 {
        std::hint::spin_loop();
    } else if *round < 256 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
    *round = round.saturating_add(1);
}
