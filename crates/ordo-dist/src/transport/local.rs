//! The in-process transport: ranks are threads of one process, each with an
//! unbounded multi-producer channel as its inbox. Any thread of a rank may
//! send or receive.

use crossbeam_channel::{unbounded, Receiver, Sender};

use super::Endpoint;

/// One rank's end of the in-process network.
pub struct LocalEndpoint {
    rank: usize,
    inboxes: Vec<Sender<Vec<u8>>>,
    inbox: Receiver<Vec<u8>>,
}

/// The endpoints of `ranks` ranks linked in one process; hand endpoint `r`
/// to the thread that plays rank `r`.
pub fn network(ranks: usize) -> Vec<LocalEndpoint> {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..ranks).map(|_| unbounded()).unzip();
    receivers
        .into_iter()
        .enumerate()
        .map(|(rank, inbox)| LocalEndpoint { rank, inboxes: senders.clone(), inbox })
        .collect()
}

impl Endpoint for LocalEndpoint {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.inboxes.len()
    }

    fn send(&self, dest: usize, msg: Vec<u8>) {
        // An error means the destination has dropped its endpoint (it left
        // after a failure): the message has no one to go to.
        let _ = self.inboxes[dest].send(msg);
    }

    fn try_recv(&self) -> Option<Vec<u8>> {
        self.inbox.try_recv().ok()
    }
}
