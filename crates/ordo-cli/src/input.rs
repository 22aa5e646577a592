//! The shared "get me a graph" helper of every `ordo` command: `--graph FILE`
//! or `--gen SPEC`, plus the load options (weights, symmetrization,
//! coordinates, id remapping, format), with progress for slow loads.

use std::path::{Path, PathBuf};

use anyhow::Context;
use ordo_graph::gen::GenSpec;
use ordo_graph::memory::{self, WorkingMemory};
use ordo_graph::{Format, Graph, LoadOptions, WeightSpec};

use crate::console;
use crate::progress::Progress;

/// Options that say how to read and post-process a graph (shared by
/// `--graph`, `--gen` and `ordo convert`).
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct LoadArgs {
    /// Edge weights: keep | none | unit | uniform:LO..HI[:seed=S] |
    /// uniform-real:LO..HI[:seed=S] (f64 in [LO, HI)) | euclid | euclid-ceil |
    /// scale:NUM[/DEN] (none drops them; all but keep replace existing weights; uniform gives
    /// both directions of an edge the same weight; euclid needs coordinates; scale multiplies
    /// the input's own weights, e.g. scale:1/64, rounded, a positive weight at least 1).
    /// Applications that read no weights (bfs, pr, tc, ...) always load the
    /// graph without them.
    #[arg(long, value_name = "RULE", default_value = "keep")]
    pub(crate) weights: WeightSpec,
    /// Add the reverse of every edge and drop parallel edges (least weight kept).
    #[arg(long)]
    pub(crate) symmetrize: bool,
    /// Drop self loops and parallel edges (least weight kept), as GAPBS's
    /// graph builder does.
    #[arg(long)]
    pub(crate) simplify: bool,
    /// Copy the loaded graph into transparent huge pages (2 MiB): fewer TLB
    /// misses where the graph is read at random places (Kronecker, social
    /// networks), for a copy instead of the zero-copy load of .ordo files;
    /// tells on stderr how much the kernel granted.
    #[arg(long)]
    pub(crate) huge_pages: bool,
    /// Coordinate file (.co or .xyz); default: the sibling .co / .xyz if present.
    #[arg(long, value_name = "FILE")]
    pub(crate) coords: Option<PathBuf>,
    /// Edge lists: map arbitrary vertex ids to dense 0..n in first-seen order.
    #[arg(long)]
    pub(crate) remap: bool,
    /// Input format (gr, snap, edges, mtx, metis, ordo); default: detected
    /// from the content, then the extension.
    #[arg(long, value_name = "FORMAT")]
    pub(crate) format: Option<Format>,
    /// Leave the coordinates out (set for applications that read none).
    #[arg(skip)]
    pub(crate) drop_coords: bool,
}

impl LoadArgs {
    /// The library's load options these flags set (no progress callback,
    /// no working memory).
    pub(crate) fn options(&self) -> LoadOptions {
        LoadOptions {
            format: self.format,
            weights: self.weights,
            coords: self.coords.clone(),
            drop_coords: self.drop_coords,
            remap_ids: self.remap,
            one_based: None,
            symmetrize: self.symmetrize,
            simplify: self.simplify,
            huge_pages: self.huge_pages,
            progress: None,
            working_memory: WorkingMemory::NONE,
        }
    }
}

/// Where the graph comes from: a file or a generator, plus load options.
/// Flattened into every command that works on a graph.
#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct InputArgs {
    /// Graph file (DIMACS .gr, SNAP, edge list, Matrix Market, METIS, .ordo;
    /// .gz read transparently).
    #[arg(long, value_name = "FILE", conflicts_with = "gen")]
    pub(crate) graph: Option<PathBuf>,
    /// Generate the graph instead, e.g. road:n=1000000, kron:scale=20,
    /// grid:w=1000,h=1000 (see `ordo gen --help`).
    #[arg(long, value_name = "SPEC")]
    pub(crate) gen: Option<String>,
    #[command(flatten)]
    pub(crate) load: LoadArgs,
}

impl InputArgs {
    /// These arguments for applications `app` that read edge weights only
    /// when `reads_weights` and coordinates only when `reads_coords`: what
    /// they do not read is left out of the load (`--weights none`; no
    /// coordinates mapped, read or generated kept), and a `--weights` rule or
    /// `--coords` file the user gave is said to be ignored. The name reports
    /// give the input ([`InputArgs::describe`]) is that of the arguments as
    /// given.
    pub(crate) fn for_app(&self, app: &str, reads_weights: bool, reads_coords: bool) -> InputArgs {
        let mut args = self.clone();
        if !reads_coords {
            if let Some(file) = &self.load.coords {
                console::note!("{app} reads no coordinates: --coords {} is not read", file.display());
            }
            args.load.drop_coords = true;
        }
        if !reads_weights {
            if !matches!(self.load.weights, WeightSpec::Keep | WeightSpec::Drop) {
                console::note!("{app} reads no edge weights: --weights {} is not applied", self.load.weights);
            }
            args.load.weights = WeightSpec::Drop;
        }
        args
    }

    /// A short name of the input for reports: the file path or the
    /// canonical generator spec, followed by the options that change the
    /// graph or how it is held, e.g. `FLA.edges.gz [weights=uniform:1..100000:seed=1, symmetrized]`.
    pub(crate) fn describe(&self) -> String {
        let name = match (&self.graph, &self.gen) {
            (Some(p), _) => p.display().to_string(),
            (None, Some(s)) => s.parse::<GenSpec>().map_or_else(|_| s.clone(), |g| g.to_string()),
            (None, None) => NO_INPUT.into(),
        };
        self.load.options().describe(&name)
    }
}

/// How reports name the input of an application that runs without a graph.
pub(crate) const NO_INPUT: &str = "none";

/// The graph of applications that need none: no vertices, no edges.
pub(crate) fn empty_graph() -> Graph {
    ordo_graph::EdgeList::new(0, false).into_graph().expect("the empty graph is valid")
}

/// Loads the graph named by `args` (`--graph FILE` or `--gen SPEC`), applies
/// the load options and returns it. Generation uses `threads` threads (the
/// graph does not depend on the count). Slow loads show progress on stderr.
pub(crate) fn load_input(args: &InputArgs, threads: usize) -> anyhow::Result<Graph> {
    load_input_with(args, threads, WorkingMemory::NONE)
}

/// [`load_input`] for a command that needs `working` memory per vertex and
/// edge once the graph is built: a graph that would load but not fit with
/// it is refused before loading (see `ordo_graph::memory`).
pub(crate) fn load_input_with(
    args: &InputArgs,
    threads: usize,
    working: WorkingMemory,
) -> anyhow::Result<Graph> {
    match (&args.graph, &args.gen) {
        (Some(path), None) => load_file_with(path, &args.load, working),
        (None, Some(spec)) => generate(spec, &args.load, threads, working),
        (Some(_), Some(_)) => anyhow::bail!("give either --graph FILE or --gen SPEC, not both"),
        (None, None) => anyhow::bail!("no input graph: give --graph FILE or --gen SPEC"),
    }
}

/// Loads a graph file with the load options.
pub(crate) fn load_file(path: &Path, load: &LoadArgs) -> anyhow::Result<Graph> {
    load_file_with(path, load, WorkingMemory::NONE)
}

/// [`load_file`] with the working memory of [`load_input_with`].
fn load_file_with(path: &Path, load: &LoadArgs, working: WorkingMemory) -> anyhow::Result<Graph> {
    let total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let progress = Progress::bytes(format!("loading {}", path.display()), total);
    let opts = LoadOptions { progress: Some(progress.callback()), working_memory: working, ..load.options() };
    let graph = ordo_graph::load(path, &opts)?;
    progress.finish();
    if load.huge_pages {
        note_huge_pages(&graph);
    }
    Ok(graph)
}

/// Generates a graph from `spec`, then applies the weight, symmetrize and
/// simplify options (file-only options are rejected).
pub(crate) fn generate(
    spec: &str,
    load: &LoadArgs,
    threads: usize,
    working: WorkingMemory,
) -> anyhow::Result<Graph> {
    anyhow::ensure!(load.coords.is_none(), "--coords applies to --graph files, not to --gen");
    anyhow::ensure!(!load.remap, "--remap applies to --graph edge lists, not to --gen");
    anyhow::ensure!(load.format.is_none(), "--format applies to --graph files, not to --gen");
    let spec: GenSpec = spec.parse()?;
    // Generating, then symmetrizing, reweighting and the caller's work.
    let opts = LoadOptions { working_memory: working, ..load.options() };
    let need = spec.memory_needed().max(memory::load_need(&spec.shape(), &opts.memory_plan()));
    memory::check(need, || format!("generating {spec} and using it"))?;
    let progress = Progress::spinner(format!("generating {spec}"));
    let graph = spec.generate_with(threads, load.weights != WeightSpec::Drop)?;
    let graph = opts.apply(graph).with_context(|| format!("generating {spec}"))?;
    progress.finish();
    if load.huge_pages {
        note_huge_pages(&graph);
    }
    Ok(graph)
}

/// Tells on stderr how much of a graph copied into huge pages the kernel
/// backs with them: it owes none where the system setting is `never`, and
/// may give fewer than asked when memory is fragmented.
fn note_huge_pages(graph: &Graph) {
    let mode = ordo_graph::huge_pages::transparent_huge_pages_mode();
    let mode_text = mode.as_deref().unwrap_or("not reported");
    let arrays = graph.huge_page_candidate_bytes();
    match graph.huge_page_bytes() {
        Some(huge) => console::note!(
            "huge pages: {:.1} of the graph's {:.1} MB (transparent huge pages: {mode_text})",
            huge as f64 / 1e6,
            arrays as f64 / 1e6
        ),
        None => console::note!(
            "huge pages: the kernel does not report them (transparent huge pages: {mode_text})"
        ),
    }
}
