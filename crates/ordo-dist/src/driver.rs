//! One distributed SSSP job from a rank's point of view — build the graph
//! part, agree with the other ranks, run the chosen variant, gather the
//! results to rank 0 — and the in-process launcher that plays all ranks as
//! threads.

use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;

use ordo_graph::binary::{self, PartCheck};
use ordo_graph::gen::GenSpec;
use ordo_graph::part::csr_bytes;
use ordo_graph::{BlockPartition, GraphPart, VertexId};
use ordo_sched::SchedulerSpec;

use crate::comm::{tags, Comm};
use crate::runtime::{panic_message, RuntimeOptions, WorkerStats};
use crate::sssp::{run_dc, run_delta, DcParams, Variant};
use crate::stats::{peak_rss_bytes, RankStats};
use crate::transport::{chaos, local, Endpoint};
use crate::wire;
use crate::DistError;

/// Where each rank gets its part of the graph.
#[derive(Clone, Debug)]
pub enum GraphSource {
    /// Read the rank's byte ranges of a `.ordo` file.
    File {
        /// The file.
        path: PathBuf,
        /// What to verify (the payload checksum needs the whole file).
        check: PartCheck,
    },
    /// Generate the rank's rows.
    Gen(GenSpec),
}

/// A distributed SSSP job.
#[derive(Clone, Debug)]
pub struct SsspConfig {
    /// The algorithm.
    pub variant: Variant,
    /// The source vertex.
    pub source: u64,
    /// The local priority queue of the DC variants.
    pub sched: SchedulerSpec,
    /// Worker threads per rank.
    pub threads: usize,
    /// Parameters of the DC variants.
    pub dc: DcParams,
    /// Δ of Δ-stepping; default: the mean edge weight divided by the mean
    /// out-degree (Meyer and Sanders' Θ(max weight / degree)).
    pub delta: Option<u64>,
    /// Runtime options (aggregation, receive batch); `threads` is taken
    /// from [`SsspConfig::threads`].
    pub runtime: RuntimeOptions,
    /// Gather every distance to rank 0 (for `--out` and `--verify`).
    pub gather_distances: bool,
    /// A failure to inject (tests of failure handling), or `None`.
    pub fault: Option<Fault>,
}

/// A failure injected on purpose, to test that every rank of a job ends
/// with an error and none hangs: rank `rank` fails right after the setup
/// agreement, while the other ranks have started the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The rank that fails.
    pub rank: usize,
    /// How it fails.
    pub kind: FaultKind,
}

/// How an injected [`Fault`] fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The rank panics (caught: it reports the failure to the others).
    Panic,
    /// The process exits with code 3 at once, telling no one (a crash).
    Exit,
    /// The process aborts (`SIGABRT`), as if killed.
    Abort,
}

impl std::str::FromStr for Fault {
    type Err = String;

    /// Parses `RANK:panic|exit|abort`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("fault `{s}`: expected RANK:panic, RANK:exit or RANK:abort");
        let (rank, kind) = s.split_once(':').ok_or_else(bad)?;
        let rank = rank.trim().parse().map_err(|_| bad())?;
        let kind = match kind.trim() {
            "panic" => FaultKind::Panic,
            "exit" => FaultKind::Exit,
            "abort" => FaultKind::Abort,
            _ => return Err(bad()),
        };
        Ok(Fault { rank, kind })
    }
}

impl SsspConfig {
    /// A job with the default parameters.
    pub fn new(variant: Variant, source: u64) -> Self {
        SsspConfig {
            variant,
            source,
            sched: "strict".parse().expect("a registered scheduler"),
            threads: 1,
            dc: DcParams::default(),
            delta: None,
            runtime: RuntimeOptions::default(),
            gather_distances: false,
            fault: None,
        }
    }
}

/// A finished job, as rank 0 reports it.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// The algorithm.
    pub variant: Variant,
    /// Number of ranks.
    pub ranks: usize,
    /// Worker threads per rank.
    pub threads: usize,
    /// Vertices of the graph.
    pub num_vertices: u64,
    /// Directed edges of the graph.
    pub num_edges: u64,
    /// Bytes the whole graph's CSR arrays take (what one rank would hold
    /// without partitioning).
    pub whole_graph_bytes: u64,
    /// The source vertex.
    pub source: VertexId,
    /// Wall time of the run on rank 0 (from the common start until
    /// termination was detected), in seconds.
    pub time_s: f64,
    /// Every rank's measurements.
    pub per_rank: Vec<RankStats>,
    /// Their total.
    pub total: RankStats,
    /// The parameters used, resolved (e.g. `sched`, `send_threshold`, `delta`).
    pub params: Vec<(&'static str, String)>,
    /// Every distance (`u64::MAX`: unreachable), with `gather_distances`.
    pub distances: Option<Vec<u64>>,
    /// Vertices reached.
    pub reached: u64,
    /// Largest finite distance.
    pub max_dist: u64,
    /// Sum of the finite distances.
    pub sum_dist: u128,
}

/// What each rank tells the others at setup: `[n, owned edges, edges to
/// other ranks, weight sum, weighted]`.
fn setup_info(part: &GraphPart, partition: &BlockPartition, rank: usize) -> Vec<u64> {
    let remote = part.targets.iter().filter(|&&t| partition.owner(t) != rank).count() as u64;
    let weight_sum =
        part.weights.as_ref().map_or(part.num_edges() as u64, |w| w.iter().map(|&x| u64::from(x)).sum());
    vec![part.num_vertices, part.num_edges() as u64, remote, weight_sum, u64::from(part.weights.is_some())]
}

/// Builds this rank's part: reads or generates its rows of the block
/// partition. Checks the source against the vertex count.
fn build_part(
    graph: &GraphSource,
    rank: usize,
    ranks: usize,
    threads: usize,
    source: u64,
) -> Result<(GraphPart, BlockPartition), DistError> {
    let n = match graph {
        GraphSource::File { path, .. } => binary::read_header(path)?.n,
        GraphSource::Gen(spec) => spec.num_vertices(),
    };
    if source >= n {
        return Err(DistError::Config(format!("source {source}: the graph has {n} vertices (ids 0..{n})")));
    }
    let partition = BlockPartition::new(n, ranks);
    let part = match graph {
        GraphSource::File { path, check } => binary::read_part(path, partition.range(rank), *check)?,
        GraphSource::Gen(spec) => spec.generate_part(partition.range(rank), threads)?,
    };
    Ok((part, partition))
}

/// Runs one rank of a distributed SSSP job. Every rank calls it with the
/// same arguments on its own endpoint; rank 0 returns the outcome, the
/// others `None`. After it returns `Ok`, call [`Endpoint::finish`].
///
/// # Errors
/// Every rank of a failed job returns an error: the failing rank its own
/// (bad file, bad parameter, a panic), the others [`DistError::Remote`].
pub fn run_sssp(
    ep: &dyn Endpoint,
    graph: &GraphSource,
    cfg: &SsspConfig,
) -> Result<Option<RunOutcome>, DistError> {
    let (rank, ranks) = (ep.rank(), ep.ranks());
    let mut comm = Comm::new(ep);
    let threads = cfg.threads.max(1);
    let built = panic::catch_unwind(AssertUnwindSafe(|| build_part(graph, rank, ranks, threads, cfg.source)))
        .unwrap_or_else(|p| {
            Err(DistError::Protocol(format!("building the graph part panicked: {}", panic_message(&*p))))
        });
    let info = match &built {
        Ok((part, partition)) => Ok(wire::u64s(&setup_info(part, partition, rank))),
        Err(e) => Err(DistError::Config(e.to_string())),
    };
    let agreed = comm.agree(tags::SETUP, info);
    let ((part, partition), info) = match (built, agreed) {
        (Err(e), _) | (Ok(_), Err(e)) => return Err(e),
        (Ok(b), Ok(i)) => (b, i),
    };
    let infos = info.iter().map(|b| wire::to_u64s(b)).collect::<Result<Vec<_>, _>>()?;
    let n = part.num_vertices;
    if infos.iter().any(|i| i.len() != 5 || i[0] != n) {
        return Err(DistError::Protocol("ranks disagree on the graph's vertex count".into()));
    }
    let m: u64 = infos.iter().map(|i| i[1]).sum();
    let remote_mean = infos.iter().map(|i| i[2]).sum::<u64>() / ranks as u64;
    let weight_sum: u64 = infos.iter().map(|i| i[3]).sum();
    let weighted = infos.iter().any(|i| i[4] != 0);
    let source = cfg.source as VertexId;

    let mut params: Vec<(&'static str, String)> = Vec::new();
    let result = panic::catch_unwind(AssertUnwindSafe(|| -> Result<(Vec<u64>, RankStats), DistError> {
        if let Some(fault) = cfg.fault.filter(|f| f.rank == rank) {
            match fault.kind {
                FaultKind::Panic => panic!("injected fault on rank {rank}"),
                FaultKind::Exit => std::process::exit(3),
                FaultKind::Abort => std::process::abort(),
            }
        }
        let mut stats = RankStats {
            rank,
            vertices: part.num_owned() as u64,
            edges: part.num_edges() as u64,
            graph_bytes: part.heap_bytes(),
            dist_bytes: 8 * part.num_owned() as u64,
            ..RankStats::default()
        };
        if cfg.variant == Variant::Delta {
            let delta = match cfg.delta {
                Some(0) => return Err(DistError::Config("--delta must be at least 1".into())),
                Some(d) => d,
                // Meyer and Sanders: Δ = Θ(max weight / degree) for random
                // weights; here the mean weight over the mean out-degree.
                None => ((u128::from(weight_sum) * u128::from(n)).div_ceil(u128::from(m.max(1)).pow(2))
                    as u64)
                    .max(1),
            };
            params.push(("delta", delta.to_string()));
            let before = comm.traffic;
            let start = std::time::Instant::now();
            let out = run_delta(&mut comm, &part, partition, source, delta, threads)?;
            stats.time_s = start.elapsed().as_secs_f64();
            let t = comm.traffic;
            stats.messages_sent = t.messages_sent - before.messages_sent;
            stats.bytes_sent = t.bytes_sent - before.bytes_sent;
            stats.messages_received = t.messages_received - before.messages_received;
            stats.bytes_received = t.bytes_received - before.bytes_received;
            let d = out.stats;
            (stats.work_items, stats.edges_relaxed, stats.items_sent, stats.items_local) =
                (d.work_items, d.edges_relaxed, d.items_sent, d.items_local);
            (stats.supersteps, stats.buckets, stats.idle_s) = (d.supersteps, d.buckets, d.sync_s);
            return Ok((out.dist, stats));
        }
        let resolved = cfg.dc.resolve(remote_mean).map_err(DistError::Config)?;
        params.push(("sched", cfg.sched.handle_driven().to_string()));
        if cfg.variant.has_frequency() || cfg.variant == Variant::Np {
            params.push(("freq", resolved.freq.to_string()));
        }
        if cfg.variant.adaptive() {
            params.push(("freq_min", resolved.freq_min.to_string()));
            params.push(("freq_max", resolved.freq_max.to_string()));
        }
        if cfg.variant.flow_control() {
            params.push(("send_threshold", resolved.send_threshold.to_string()));
            params.push(("sync_threshold", resolved.sync_threshold.to_string()));
        }
        params.push(("flush_bytes", cfg.runtime.flush_bytes.to_string()));
        let opts = RuntimeOptions { threads, ..cfg.runtime };
        let early = comm.take_early_run_messages();
        let out = run_dc(ep, &part, partition, source, cfg.variant, resolved, &cfg.sched, opts, early)?;
        comm.adopt(out.run.leftovers)?;
        let w = WorkerStats::sum(&out.run.per_thread);
        stats.time_s = out.run.time_s;
        stats.idle_s = w.idle_s;
        stats.waves = out.run.waves;
        (stats.messages_sent, stats.bytes_sent, stats.messages_received, stats.bytes_received) =
            (w.messages_sent, w.bytes_sent, w.messages_received, w.bytes_received);
        (stats.progress_calls, stats.progress_hits, stats.acked_sends) =
            (w.progress_calls, w.progress_hits, w.acked_sends);
        (stats.items_sent, stats.tasks, stats.steals) = (w.items_sent, w.tasks, w.steals);
        stats.work_items = w.app_counter("work_items");
        stats.stale_items = w.app_counter("stale_items");
        stats.edges_relaxed = w.app_counter("edges_relaxed");
        stats.items_local = w.app_counter("items_local");
        stats.fc_stalls = w.app_counter("fc_stalls");
        stats.round_yields = w.app_counter("round_yields");
        Ok((out.dist, stats))
    }))
    .unwrap_or_else(|p| Err(DistError::Protocol(format!("the run panicked: {}", panic_message(&*p)))));
    let (dist, mut stats) = match result {
        Ok(r) => r,
        Err(e) => {
            if e.is_local() {
                comm.abort_all(&e.to_string());
            }
            return Err(e);
        }
    };
    stats.peak_rss_bytes = peak_rss_bytes();

    // Gather the statistics and checksums, then (if asked) the distances.
    let (mut reached, mut max_dist, mut sum_dist) = (0u64, 0u64, 0u128);
    for &d in dist.iter().filter(|&&d| d != u64::MAX) {
        reached += 1;
        max_dist = max_dist.max(d);
        sum_dist += u128::from(d);
    }
    let mut mine = stats.encode();
    mine.extend_from_slice(&wire::u64s(&[reached, max_dist, sum_dist as u64, (sum_dist >> 64) as u64]));
    let gathered = comm.gather(tags::STATS, mine)?;
    let distances =
        if cfg.gather_distances { comm.gather(tags::DISTANCES, wire::u64s(&dist))? } else { None };
    let Some(gathered) = gathered else { return Ok(None) };

    let mut per_rank = Vec::with_capacity(ranks);
    let (mut reached, mut max_dist, mut sum_dist) = (0u64, 0u64, 0u128);
    for (r, payload) in gathered.iter().enumerate() {
        let cut = payload
            .len()
            .checked_sub(32)
            .ok_or_else(|| DistError::Protocol(format!("short statistics from rank {r}")))?;
        per_rank.push(RankStats::decode(&payload[..cut])?);
        let c = wire::to_u64s(&payload[cut..])?;
        reached += c[0];
        max_dist = max_dist.max(c[1]);
        sum_dist += u128::from(c[2]) | (u128::from(c[3]) << 64);
    }
    let distances = match distances {
        Some(parts) => {
            let mut all = Vec::with_capacity(n as usize);
            for (r, p) in parts.iter().enumerate() {
                let d = wire::to_u64s(p)?;
                if d.len() != partition.range(r).len() {
                    return Err(DistError::Protocol(format!("rank {r} sent {} distances", d.len())));
                }
                all.extend(d);
            }
            Some(all)
        }
        None => None,
    };
    let total = RankStats::total(&per_rank);
    Ok(Some(RunOutcome {
        variant: cfg.variant,
        ranks,
        threads,
        num_vertices: n,
        num_edges: m,
        whole_graph_bytes: csr_bytes(n, m, weighted),
        source,
        time_s: per_rank[0].time_s,
        per_rank,
        total,
        params,
        distances,
        reached,
        max_dist,
        sum_dist,
    }))
}

/// The network of an in-process run.
#[derive(Clone, Copy, Debug, Default)]
pub enum Network {
    /// Channels between threads.
    #[default]
    Local,
    /// Channels with random delays and reordering (tests).
    Chaos(chaos::ChaosConfig),
}

/// Runs a job with `ranks` ranks as threads of this process and returns
/// rank 0's outcome.
///
/// # Errors
/// The error of the rank that failed (the lowest one, if several did).
pub fn run_in_process(
    graph: &GraphSource,
    ranks: usize,
    cfg: &SsspConfig,
    network: Network,
) -> Result<RunOutcome, DistError> {
    let ranks = ranks.max(1);
    match network {
        Network::Local => run_threads(local::network(ranks), graph, cfg).map(|(o, _)| o),
        Network::Chaos(c) => {
            let (outcome, eps) = run_threads(chaos::network(ranks, c), graph, cfg)?;
            // Termination was detected: no work item may still be on its way.
            for ep in &eps {
                for msg in ep.drain() {
                    if wire::header(&msg)?.kind == wire::Kind::Data {
                        return Err(DistError::Protocol(format!(
                            "a work-item message to rank {} was still in flight after termination",
                            ep.rank()
                        )));
                    }
                }
            }
            Ok(outcome)
        }
    }
}

fn run_threads<E: Endpoint>(
    eps: Vec<E>,
    graph: &GraphSource,
    cfg: &SsspConfig,
) -> Result<(RunOutcome, Vec<E>), DistError> {
    let results: Vec<(Result<Option<RunOutcome>, DistError>, E)> = std::thread::scope(|s| {
        let handles: Vec<_> = eps
            .into_iter()
            .map(|ep| {
                std::thread::Builder::new()
                    .name(format!("ordo-rank{}", ep.rank()))
                    .spawn_scoped(s, move || {
                        let r = panic::catch_unwind(AssertUnwindSafe(|| run_sssp(&ep, graph, cfg)))
                            .unwrap_or_else(|p| {
                                let e = DistError::Protocol(format!(
                                    "rank {} panicked: {}",
                                    ep.rank(),
                                    panic_message(&*p)
                                ));
                                Comm::new(&ep).abort_all(&e.to_string());
                                Err(e)
                            });
                        if r.is_ok() {
                            ep.finish();
                        }
                        (r, ep)
                    })
                    .expect("cannot spawn a rank thread")
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("rank thread result")).collect()
    });
    let mut outcome = None;
    let mut local_err = None;
    let mut remote_err = None;
    let mut eps = Vec::with_capacity(results.len());
    for (r, ep) in results {
        match r {
            Ok(Some(o)) => outcome = Some(o),
            Ok(None) => {}
            Err(e) if e.is_local() => {
                local_err.get_or_insert(e);
            }
            Err(e) => {
                remote_err.get_or_insert(e);
            }
        }
        eps.push(ep);
    }
    if let Some(e) = local_err.or(remote_err) {
        return Err(e);
    }
    Ok((outcome.ok_or_else(|| DistError::Protocol("rank 0 returned no outcome".into()))?, eps))
}
