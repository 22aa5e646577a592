//! `ordo dist sssp`: single-source shortest paths across ranks with
//! Distributed Control (the DC-SSSP paper's variants) or distributed
//! Δ-stepping, either as threads of this process (`--ranks R`) or as MPI
//! processes (`mpirun -np R ordo dist sssp ...`, built with `--features
//! mpi`). Each rank reads or generates only its block of the graph; rank 0
//! gathers the statistics (and the distances for `--out` / `--verify`) and
//! reports.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use ordo_algos::sssp::verify::label_text;
use ordo_algos::{compare_exact, dijkstra, work_increase};
use ordo_dist::sssp::Variant;
use ordo_dist::{DcParams, Fault, GraphSource, RankStats, RunOutcome, SsspConfig};
use ordo_graph::binary::PartCheck;
use ordo_graph::gen::GenSpec;
use ordo_graph::WeightSpec;
use ordo_sched::SchedulerSpec;
use serde_json::{json, Map, Value};

use crate::console;
use crate::input::InputArgs;

/// Environment variable that injects a failure (`RANK:panic|exit|abort`),
/// for tests of failure handling.
const FAULT_ENV: &str = "ORDO_DIST_FAULT";

/// Arguments of `ordo dist`.
#[derive(clap::Args)]
pub(crate) struct DistArgs {
    #[command(subcommand)]
    command: DistCommand,
}

#[derive(clap::Subcommand)]
enum DistCommand {
    /// Distributed SSSP: DC variants (np, dc, ff, af, fc, af+fc) or delta.
    Sssp(Box<SsspArgs>),
}

/// Arguments of `ordo dist sssp`.
#[derive(clap::Args)]
struct SsspArgs {
    #[command(flatten)]
    input: InputArgs,

    /// The algorithm: np, dc, ff, af, fc, af+fc (Distributed Control
    /// variants) or delta (Δ-stepping).
    #[arg(long, default_value = "af+fc", value_parser = |s: &str| s.parse::<Variant>())]
    variant: Variant,

    /// Ranks as threads of this process (default 1, at most 256). Under mpirun the
    /// ranks are mpirun's processes instead. The global --threads sets the
    /// worker threads of each rank (default 1 here).
    #[arg(long)]
    ranks: Option<usize>,

    /// Source vertex (0-based).
    #[arg(long, default_value_t = 0)]
    source: u64,

    /// Local priority queue of each rank (DC variants): any ordo scheduler
    /// spec, e.g. strict, smq, obim:delta=8.
    #[arg(long, default_value = "strict")]
    sched: String,

    /// Bucket width of Δ-stepping (default: the mean edge weight divided by
    /// the mean out-degree).
    #[arg(long)]
    delta: Option<u64>,

    /// Items per round before the producer progresses the network (ff, fc;
    /// the start value of af; np's yield frequency) [default: 128].
    #[arg(long)]
    freq: Option<u32>,

    /// Least adaptive frequency (af, af+fc) [default: 16].
    #[arg(long)]
    freq_min: Option<u32>,

    /// Largest adaptive frequency (af, af+fc) [default: 1024].
    #[arg(long)]
    freq_max: Option<u32>,

    /// Flow control: one send in this many asks for an acknowledgement
    /// (fc, af+fc) [default: the paper's 10000 scaled to the edges each
    /// rank sends, printed in the report].
    #[arg(long)]
    send_threshold: Option<u64>,

    /// Flow control: the producer stops while more acknowledgements than
    /// this are outstanding (fc, af+fc) [default: 2].
    #[arg(long)]
    sync_threshold: Option<u64>,

    /// Aggregation: a thread sends its items for a rank once it holds this
    /// many bytes of them (and at every network progress).
    #[arg(long, default_value_t = 4096)]
    flush_bytes: usize,

    /// Also verify the payload checksum of a .ordo file (every rank then
    /// streams the whole file once; without it each rank reads only its
    /// byte ranges and checks their structure).
    #[arg(long)]
    check_payload: bool,

    /// Write `vertex distance` lines (0-based, `inf` when unreachable),
    /// gathered by rank 0.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Print one JSON object (rank 0) instead of the text report.
    #[arg(long)]
    json: bool,

    /// Compare with sequential Dijkstra: rank 0 loads the whole graph after
    /// the run (so memory figures are taken before) and reports its time.
    #[arg(long)]
    verify: bool,
}

pub(crate) fn run(args: DistArgs, threads: Option<usize>) -> anyhow::Result<()> {
    match args.command {
        DistCommand::Sssp(a) => sssp(*a, threads),
    }
}

/// How this invocation runs its ranks.
enum Mode {
    InProcess(usize),
    #[cfg(feature = "mpi")]
    Mpi,
}

/// Most ranks one process runs as threads. Every rank keeps an outgoing
/// buffer for every other and the collectives exchange a message between
/// every pair, so memory and time grow with the square of the ranks
/// (past this bound even a tiny graph takes minutes and gigabytes:
/// `docs/design/2026-11-26-executor-costs.md`); more ranks are mpirun's job.
const MAX_IN_PROCESS_RANKS: usize = 256;

fn sssp(args: SsspArgs, threads: Option<usize>) -> anyhow::Result<()> {
    if let Some(ranks) = args.ranks {
        anyhow::ensure!(ranks >= 1, "--ranks must be at least 1");
        anyhow::ensure!(
            ranks <= MAX_IN_PROCESS_RANKS,
            "--ranks {ranks}: at most {MAX_IN_PROCESS_RANKS} in one process (their exchanges grow with the square of the ranks); run more under mpirun"
        );
        let per_rank = threads.unwrap_or(1);
        let total = ranks.saturating_mul(per_rank);
        anyhow::ensure!(
            total <= ordo_exec::MAX_THREADS,
            "--ranks {ranks} with --threads {per_rank}: {total} threads, at most {}",
            ordo_exec::MAX_THREADS
        );
    }
    let source = graph_source(&args)?;
    let cfg = config(&args, threads)?;
    let under_mpi = ordo_dist::transport::launched_by_mpi();
    let mode = match (under_mpi, args.ranks) {
        (false, r) => Mode::InProcess(r.unwrap_or(1)),
        (true, Some(_)) => anyhow::bail!("--ranks is for runs in one process; under mpirun the ranks are its processes"),
        #[cfg(feature = "mpi")]
        (true, None) => Mode::Mpi,
        #[cfg(not(feature = "mpi"))]
        (true, None) => anyhow::bail!(
            "started by mpirun, but this ordo was built without MPI support: build with `cargo build --release --features mpi`"
        ),
    };
    match mode {
        Mode::InProcess(ranks) => {
            let outcome = ordo_dist::run_in_process(&source, ranks, &cfg, ordo_dist::Network::Local)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            finish(&args, &outcome, "in-process", threads)
        }
        #[cfg(feature = "mpi")]
        Mode::Mpi => run_mpi(&args, &source, &cfg, threads),
    }
}

/// One MPI rank: run, then rank 0 reports. Every failed rank prints its
/// error and exits non-zero after a clean shutdown; a rank that dies is
/// handled by mpirun, which ends the others.
#[cfg(feature = "mpi")]
fn run_mpi(
    args: &SsspArgs,
    source: &GraphSource,
    cfg: &SsspConfig,
    threads: Option<usize>,
) -> anyhow::Result<()> {
    use ordo_dist::transport::mpi::MpiSession;
    use ordo_dist::transport::Endpoint;
    let session = MpiSession::init().map_err(|e| anyhow::anyhow!("{e}"))?;
    let ep = session.endpoint();
    let rank = ep.rank();
    let result = ordo_dist::run_sssp(ep, source, cfg);
    if let Err(e) = &result {
        // Print before the shutdown handshake: mpirun ends the whole job as
        // soon as one process exits non-zero, and no rank can leave the
        // handshake before every rank has entered it, so every rank's
        // message is out before any rank exits. The line goes out in one
        // write: `eprintln!` writes its pieces separately, and mpirun merges
        // the ranks' streams, so pieces of two ranks' lines could interleave.
        use std::io::Write;
        let line = format!("error: rank {rank}: {e}\n");
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
    ep.finish();
    match result {
        Ok(Some(outcome)) => {
            let reported = finish(args, &outcome, "mpi", threads);
            drop(session);
            reported
        }
        Ok(None) => Ok(()),
        Err(_) => {
            drop(session);
            std::process::exit(1)
        }
    }
}

/// Where each rank's part comes from. Only `.ordo` files can be read in
/// parts; load options that need the whole graph are refused.
fn graph_source(args: &SsspArgs) -> anyhow::Result<GraphSource> {
    let load = &args.input.load;
    anyhow::ensure!(
        load.weights == WeightSpec::Keep && !load.symmetrize && !load.simplify && !load.remap && load.coords.is_none(),
        "ordo dist reads graphs as they are: --weights, --symmetrize, --simplify, --remap and --coords need the whole graph \
         (apply them once with `ordo convert`)"
    );
    anyhow::ensure!(!load.huge_pages, "ordo dist keeps each rank's part as it reads it: drop --huge-pages");
    match (&args.input.graph, &args.input.gen) {
        (Some(path), None) => {
            let mut head = [0u8; 8];
            let n = File::open(path)
                .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
                .with_context(|| format!("cannot read {}", path.display()))?;
            anyhow::ensure!(
                ordo_graph::binary::has_magic(&head[..n]),
                "{}: ordo dist reads .ordo files only (each rank reads its own byte ranges); convert it first: \
                 ordo convert {} graph.ordo",
                path.display(),
                path.display()
            );
            let check = if args.check_payload { PartCheck::Full } else { PartCheck::Rows };
            Ok(GraphSource::File { path: path.clone(), check })
        }
        (None, Some(spec)) => Ok(GraphSource::Gen(spec.parse::<GenSpec>()?)),
        (Some(_), Some(_)) => anyhow::bail!("give either --graph FILE or --gen SPEC, not both"),
        (None, None) => anyhow::bail!("no input graph: give --graph FILE.ordo or --gen SPEC"),
    }
}

fn config(args: &SsspArgs, threads: Option<usize>) -> anyhow::Result<SsspConfig> {
    let mut cfg = SsspConfig::new(args.variant, args.source);
    cfg.sched = args.sched.parse::<SchedulerSpec>().map_err(|e| anyhow::anyhow!("--sched: {e}"))?;
    cfg.threads = threads.unwrap_or(1);
    anyhow::ensure!(cfg.threads >= 1, "--threads must be at least 1");
    cfg.dc = DcParams {
        freq: args.freq,
        freq_min: args.freq_min,
        freq_max: args.freq_max,
        send_threshold: args.send_threshold,
        sync_threshold: args.sync_threshold,
    };
    cfg.delta = args.delta;
    anyhow::ensure!(args.flush_bytes >= 1, "--flush-bytes must be at least 1");
    cfg.runtime.flush_bytes = args.flush_bytes;
    cfg.gather_distances = args.out.is_some() || args.verify;
    if let Ok(f) = std::env::var(FAULT_ENV) {
        cfg.fault = Some(f.parse::<Fault>().map_err(|e| anyhow::anyhow!("{FAULT_ENV}: {e}"))?);
    }
    Ok(cfg)
}

/// Rank 0: verify, write `--out`, report.
fn finish(args: &SsspArgs, o: &RunOutcome, mode: &str, threads: Option<usize>) -> anyhow::Result<()> {
    let mut seq_time_s = None;
    let mut settled = None;
    if args.verify {
        let whole = crate::input::load_input(&args.input, threads.unwrap_or(1))?;
        let reference = dijkstra(&whole, o.source)?;
        let got = o.distances.as_ref().expect("distances gathered for --verify");
        compare_exact(&reference.values, got).context("distributed SSSP result")?;
        seq_time_s = Some(reference.time_s);
        settled = Some(reference.settled);
    }
    if let Some(path) = &args.out {
        write_distances(path, o.distances.as_ref().expect("distances gathered for --out"))?;
    }
    let name = args.input.describe();
    if args.json {
        console::outln!("{}", to_json(o, &name, mode, seq_time_s, settled))?;
    } else {
        console::out!("{}", to_text(o, &name, mode, seq_time_s, settled))?;
    }
    Ok(())
}

/// Writes `vertex distance` lines, as `ordo run sssp --out` does (and, as
/// it does, whole or not at all).
fn write_distances(path: &Path, dist: &[u64]) -> anyhow::Result<()> {
    crate::output::write_file(path, |w| {
        for (v, &d) in dist.iter().enumerate() {
            writeln!(w, "{v} {}", label_text(d))?;
        }
        Ok(())
    })
}

fn rank_json(r: &RankStats) -> Value {
    let mut m = Map::new();
    m.insert("rank".into(), json!(r.rank));
    for (k, v) in r.counters() {
        m.insert(k.into(), json!(v));
    }
    for (k, v) in r.seconds() {
        m.insert(k.into(), json!(v));
    }
    Value::Object(m)
}

/// The report as one JSON object. The totals are flattened at the top
/// level (`time_s` is rank 0's), every rank's figures are in `per_rank`.
fn to_json(o: &RunOutcome, graph: &str, mode: &str, seq_time_s: Option<f64>, settled: Option<u64>) -> Value {
    let mut m = Map::new();
    m.insert("app".into(), json!("sssp"));
    m.insert("mode".into(), json!(mode));
    m.insert("graph".into(), json!(graph));
    m.insert("n".into(), json!(o.num_vertices));
    m.insert("m".into(), json!(o.num_edges));
    m.insert("variant".into(), json!(o.variant.name()));
    m.insert("ranks".into(), json!(o.ranks));
    m.insert("threads".into(), json!(o.threads));
    m.insert("source".into(), json!(o.source));
    m.insert("params".into(), Value::Object(o.params.iter().map(|(k, v)| ((*k).into(), json!(v))).collect()));
    m.insert("time_s".into(), json!(o.time_s));
    for (k, v) in o.total.counters() {
        m.insert(k.into(), json!(v));
    }
    m.insert("idle_s".into(), json!(o.total.idle_s));
    m.insert("whole_graph_bytes".into(), json!(o.whole_graph_bytes));
    let max_part = o.per_rank.iter().map(|r| r.graph_bytes).max().unwrap_or(0);
    m.insert("max_graph_bytes_per_rank".into(), json!(max_part));
    m.insert("max_part_fraction".into(), json!(max_part as f64 / o.whole_graph_bytes.max(1) as f64));
    m.insert("per_rank".into(), Value::Array(o.per_rank.iter().map(rank_json).collect()));
    m.insert("reached".into(), json!(o.reached));
    m.insert("max_dist".into(), json!(o.max_dist));
    m.insert(
        "sum_dist".into(),
        u64::try_from(o.sum_dist).map_or_else(|_| json!(o.sum_dist.to_string()), |v| json!(v)),
    );
    m.insert("work_increase".into(), json!(settled.map(|s| work_increase(o.total.work_items, s))));
    m.insert("seq_time_s".into(), json!(seq_time_s));
    m.insert("vs_seq".into(), json!(seq_time_s.map(|s| s / o.time_s)));
    m.insert("verified".into(), json!(seq_time_s.is_some()));
    Value::Object(m)
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / (1 << 20) as f64)
}

/// The human-readable report.
fn to_text(o: &RunOutcome, graph: &str, mode: &str, seq_time_s: Option<f64>, settled: Option<u64>) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut line = |k: &str, v: String| {
        let _ = writeln!(s, "{k:<17} {v}");
    };
    let t = &o.total;
    line("app", "sssp (distributed)".into());
    line("graph", format!("{graph} (n {}, m {})", o.num_vertices, o.num_edges));
    line("variant", o.variant.name().into());
    line("ranks", format!("{} ({mode}, {} thread(s) per rank)", o.ranks, o.threads));
    line("parameters", o.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "));
    line("source", o.source.to_string());
    line("time", format!("{:.6} s", o.time_s));
    let wi = settled
        .map_or(String::new(), |s| format!(", work increase {:.4}", t.work_items as f64 / s.max(1) as f64));
    line("work items", format!("{} (stale {}{wi})", t.work_items, t.stale_items));
    line("edges relaxed", t.edges_relaxed.to_string());
    line("items", format!("{} sent to other ranks, {} local", t.items_sent, t.items_local));
    line("messages", format!("{} sent, {} bytes", t.messages_sent, t.bytes_sent));
    if o.variant == Variant::Delta {
        line("supersteps", format!("{} ({} buckets), waiting {:.6} s", t.supersteps, t.buckets, t.idle_s));
    } else {
        line(
            "network progress",
            format!("{} calls ({} received), idle {:.6} s", t.progress_calls, t.progress_hits, t.idle_s),
        );
        line("flow control", format!("{} acknowledged sends, {} stalls", t.acked_sends, t.fc_stalls));
        line("termination", format!("{} waves", t.waves));
    }
    let max_part = o.per_rank.iter().map(|r| r.graph_bytes).max().unwrap_or(0);
    line(
        "memory",
        format!(
            "graph part per rank at most {} = {:.1}% of the whole graph ({})",
            mib(max_part),
            100.0 * max_part as f64 / o.whole_graph_bytes.max(1) as f64,
            mib(o.whole_graph_bytes)
        ),
    );
    line("reached", format!("{} (max dist {}, sum {})", o.reached, o.max_dist, o.sum_dist));
    if let Some(seq) = seq_time_s {
        line("verified", format!("equal to Dijkstra (seq {seq:.6} s, vs seq {:.3})", seq / o.time_s));
    }
    let _ = writeln!(
        s,
        "{:>4} {:>9} {:>10} {:>10} {:>9} {:>10} {:>12} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "rank",
        "vertices",
        "edges",
        "work",
        "stale",
        "msgs",
        "bytes",
        "progress",
        "idle_s",
        "time_s",
        "part_MiB",
        "rss_MiB"
    );
    for r in &o.per_rank {
        let _ = writeln!(
            s,
            "{:>4} {:>9} {:>10} {:>10} {:>9} {:>10} {:>12} {:>9} {:>9.4} {:>9.4} {:>10.2} {:>10.1}",
            r.rank,
            r.vertices,
            r.edges,
            r.work_items,
            r.stale_items,
            r.messages_sent,
            r.bytes_sent,
            r.progress_calls,
            r.idle_s,
            r.time_s,
            r.graph_bytes as f64 / (1 << 20) as f64,
            r.peak_rss_bytes as f64 / (1 << 20) as f64
        );
    }
    s
}
