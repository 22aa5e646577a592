//! The byte layout of messages between ranks.
//!
//! Every message is one byte buffer: a 16-byte header — kind (`u8`), three
//! zero bytes, the sender's rank (`u32`), a kind-specific `tag` (`u64`) —
//! followed by a payload. All integers are little-endian. Work items are
//! aggregated: one `Data` message carries every item a worker thread had for
//! that destination since its last flush.

use crate::DistError;

/// Size of the message header in bytes.
pub const HEADER_BYTES: usize = 16;

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Work items; `tag` = how many of them asked for an acknowledgement.
    Data = 1,
    /// Acknowledges `tag` flow-controlled items handled by the sender.
    Ack = 2,
    /// Termination wave `tag`: report your counters (rank 0 to all).
    TermRequest = 3,
    /// Counters for wave `tag`: `active`, `finished` (`u64` each).
    TermReport = 4,
    /// Termination detected: leave the scheduler loop.
    Stop = 5,
    /// The sender failed; the payload is its error message (UTF-8).
    Abort = 6,
    /// Setup agreement: `0` then a payload, or `1` then an error message.
    Agree = 7,
    /// A gather to rank 0, `tag` says what.
    Gather = 8,
    /// A broadcast from rank 0, `tag` says what.
    Broadcast = 9,
    /// One superstep of distributed Δ-stepping, `tag` = the step.
    DeltaStep = 10,
    /// End of this rank's traffic (used by the MPI transport's shutdown).
    Fin = 11,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Data,
            2 => Kind::Ack,
            3 => Kind::TermRequest,
            4 => Kind::TermReport,
            5 => Kind::Stop,
            6 => Kind::Abort,
            7 => Kind::Agree,
            8 => Kind::Gather,
            9 => Kind::Broadcast,
            10 => Kind::DeltaStep,
            11 => Kind::Fin,
            _ => return None,
        })
    }
}

/// A decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// What the message is.
    pub kind: Kind,
    /// The sending rank.
    pub source: usize,
    /// Kind-specific.
    pub tag: u64,
}

/// A new message buffer with `header`, room reserved for `payload` bytes.
pub fn message(kind: Kind, source: usize, tag: u64, payload_capacity: usize) -> Vec<u8> {
    let mut m = Vec::with_capacity(HEADER_BYTES + payload_capacity);
    m.push(kind as u8);
    m.extend_from_slice(&[0; 3]);
    m.extend_from_slice(&(source as u32).to_le_bytes());
    m.extend_from_slice(&tag.to_le_bytes());
    m
}

/// Overwrites the tag of a message built by [`message`].
pub fn set_tag(msg: &mut [u8], tag: u64) {
    msg[8..16].copy_from_slice(&tag.to_le_bytes());
}

/// Decodes the header of `msg`.
///
/// # Errors
/// [`DistError::Protocol`] for a message shorter than a header or of an
/// unknown kind.
pub fn header(msg: &[u8]) -> Result<Header, DistError> {
    if msg.len() < HEADER_BYTES {
        return Err(DistError::Protocol(format!("message of {} bytes has no header", msg.len())));
    }
    let kind = Kind::from_u8(msg[0])
        .ok_or_else(|| DistError::Protocol(format!("message of unknown kind {}", msg[0])))?;
    Ok(Header { kind, source: read_u32(msg, 4) as usize, tag: read_u64(msg, 8) })
}

/// The payload of `msg` (everything after the header).
pub fn payload(msg: &[u8]) -> &[u8] {
    &msg[HEADER_BYTES.min(msg.len())..]
}

/// Reads a little-endian `u32` at byte `at`.
pub fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Reads a little-endian `u64` at byte `at`.
pub fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// A list of `u64` as bytes.
pub fn u64s(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Bytes as a list of `u64`.
///
/// # Errors
/// [`DistError::Protocol`] when the length is not a multiple of 8.
pub fn to_u64s(b: &[u8]) -> Result<Vec<u64>, DistError> {
    if b.len() % 8 != 0 {
        return Err(DistError::Protocol(format!("payload of {} bytes is not a list of u64", b.len())));
    }
    Ok(b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
}

/// A fixed-size value that travels in messages (a work item).
pub trait Wire: Copy + Send + Sync + 'static {
    /// Encoded size in bytes.
    const BYTES: usize;
    /// Appends the encoding of `self` to `out`.
    fn put(&self, out: &mut Vec<u8>);
    /// Decodes one value from the first [`Wire::BYTES`] bytes of `b`.
    fn get(b: &[u8]) -> Self;
}

/// Decodes a payload of items into `out` (cleared first).
///
/// # Errors
/// [`DistError::Protocol`] when the length is not a multiple of the item size.
pub fn items<T: Wire>(payload: &[u8], out: &mut Vec<T>) -> Result<(), DistError> {
    if payload.len() % T::BYTES != 0 {
        return Err(DistError::Protocol(format!(
            "data payload of {} bytes is not a list of {}-byte items",
            payload.len(),
            T::BYTES
        )));
    }
    out.clear();
    out.extend(payload.chunks_exact(T::BYTES).map(T::get));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_garbage() {
        let mut m = message(Kind::TermReport, 7, 42, 16);
        m.extend_from_slice(&u64s(&[3, 4]));
        set_tag(&mut m, 43);
        let h = header(&m).unwrap();
        assert_eq!(h, Header { kind: Kind::TermReport, source: 7, tag: 43 });
        assert_eq!(to_u64s(payload(&m)).unwrap(), vec![3, 4]);
        assert!(header(&m[..10]).is_err());
        let mut bad = m.clone();
        bad[0] = 200;
        assert!(header(&bad).unwrap_err().to_string().contains("unknown kind 200"));
        assert!(to_u64s(&[1, 2, 3]).is_err());
    }
}
