//! What a distributed run reports: each rank's counters and times
//! ([`RankStats`]), gathered to rank 0 as one fixed list of numbers.

use crate::wire;
use crate::DistError;

macro_rules! rank_stats {
    (counters { $($c:ident: $cdoc:literal,)* } seconds { $($s:ident: $sdoc:literal,)* }) => {
        /// One rank's measurements (see each field). In a report, the total
        /// over ranks sums every field except `time_s` and `peak_rss_bytes`
        /// (their maxima).
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct RankStats {
            /// The rank.
            pub rank: usize,
            $( #[doc = $cdoc] pub $c: u64, )*
            $( #[doc = $sdoc] pub $s: f64, )*
        }

        impl RankStats {
            /// The integer measurements by name, in a fixed order.
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($c), self.$c)),*]
            }

            /// The times in seconds by name.
            pub fn seconds(&self) -> Vec<(&'static str, f64)> {
                vec![$((stringify!($s), self.$s)),*]
            }

            /// The field-wise total over `ranks` (`time_s`, `peak_rss_bytes`: the maxima).
            pub fn total(ranks: &[RankStats]) -> RankStats {
                let mut t = RankStats::default();
                for r in ranks {
                    $( t.$c += r.$c; )*
                    $( t.$s += r.$s; )*
                }
                t.time_s = ranks.iter().map(|r| r.time_s).fold(0.0, f64::max);
                t.peak_rss_bytes = ranks.iter().map(|r| r.peak_rss_bytes).max().unwrap_or(0);
                t
            }

            pub(crate) fn encode(&self) -> Vec<u8> {
                wire::u64s(&[self.rank as u64, $(self.$c,)* $(self.$s.to_bits(),)*])
            }

            pub(crate) fn decode(b: &[u8]) -> Result<RankStats, DistError> {
                let v = wire::to_u64s(b)?;
                let mut it = v.into_iter();
                let mut next = || it.next().ok_or_else(|| DistError::Protocol("short statistics message".into()));
                Ok(RankStats {
                    rank: next()? as usize,
                    $( $c: next()?, )*
                    $( $s: f64::from_bits(next()?), )*
                })
            }
        }
    };
}

rank_stats! {
    counters {
        vertices: "Vertices owned.",
        edges: "Out-edges of the owned vertices.",
        work_items: "Work items executed with their vertex's current distance (vertex relaxations; Δ-stepping: vertices processed in light phases).",
        stale_items: "Work items skipped because their vertex had improved since (DC).",
        edges_relaxed: "Edges relaxed.",
        items_sent: "Work items sent to other ranks.",
        items_local: "Work items for owned vertices created by relaxations.",
        messages_sent: "Messages sent during the run (aggregated items, acknowledgements, waves, exchanges).",
        bytes_sent: "Bytes sent during the run, headers included.",
        messages_received: "Messages received during the run.",
        bytes_received: "Bytes received during the run.",
        progress_calls: "Network progress calls of the scheduler loop (DC).",
        progress_hits: "Network progress calls that received something (DC).",
        acked_sends: "Sends that asked for an acknowledgement (flow control).",
        fc_stalls: "Times the producer stopped for flow control.",
        round_yields: "Times the producer (or np's drain task) handed control back after `freq` items.",
        tasks: "Ordinary runtime tasks run (np: handlers and drains).",
        steals: "Tasks stolen between the rank's threads.",
        waves: "Termination waves (rank 0, DC).",
        supersteps: "Global exchanges (Δ-stepping).",
        buckets: "Buckets processed (Δ-stepping).",
        graph_bytes: "Bytes of the rank's graph part (offsets, targets, weights).",
        dist_bytes: "Bytes of the rank's distance array.",
        peak_rss_bytes: "Peak resident memory of the rank's process (in-process ranks share one process).",
    }
    seconds {
        time_s: "Wall time from the common start until the rank learned of termination.",
        idle_s: "Time the rank's threads were idle (DC: summed over threads), or waited in exchanges (Δ-stepping).",
    }
}

/// Peak resident set size of this process in bytes (`VmHWM` of
/// `/proc/self/status`; 0 where unavailable).
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips_and_total_sums() {
        let a = RankStats {
            rank: 1,
            work_items: 5,
            bytes_sent: 7,
            time_s: 1.5,
            idle_s: 0.25,
            ..RankStats::default()
        };
        assert_eq!(RankStats::decode(&a.encode()).unwrap(), a);
        assert!(RankStats::decode(&a.encode()[..16]).is_err());
        let b = RankStats { rank: 2, work_items: 1, time_s: 2.0, idle_s: 0.5, ..RankStats::default() };
        let t = RankStats::total(&[a, b]);
        assert_eq!((t.work_items, t.bytes_sent, t.time_s, t.idle_s), (6, 7, 2.0, 0.75));
        assert!(peak_rss_bytes() > 0);
    }
}
