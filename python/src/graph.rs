//! `ordo.Graph`: an immutable CSR graph made from a file, a generator, a
//! `scipy.sparse` matrix or numpy edge arrays, with numpy views of its
//! arrays and a conversion back to `scipy.sparse`.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::PyArray1;
use ordo_graph::gen::GenSpec;
use ordo_graph::{CoordSystem, Coordinates, EdgeList, Format, Graph, LoadOptions, WeightSpec};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::arrays;
use crate::errors::{file_error, in_memory_error, no_panic, value_error};
use crate::pools::thread_count;

/// A directed graph in compressed sparse row (CSR) form, immutable.
///
/// Vertices are ``0 .. n-1``; the out-edges of ``v`` are
/// ``targets[offsets[v]:offsets[v+1]]`` with the matching ``weights``
/// (unsigned 32-bit integers) when the graph is weighted. An undirected graph
/// is stored with both directions of every edge (``symmetrize=True``).
///
/// Make one with :meth:`Graph.from_file`, :meth:`Graph.from_scipy`,
/// :meth:`Graph.from_edges`, :meth:`Graph.from_csr` or :func:`ordo.generate`.
#[pyclass(name = "Graph", module = "ordo", frozen)]
pub(crate) struct PyGraph {
    /// Shared with the applications prepared on it.
    pub(crate) graph: Arc<Graph>,
    /// What the graph is, for reports: the file or generator spec and the
    /// options that changed it (as `ordo run` names its input).
    pub(crate) name: String,
    /// For a graph made from a networkx graph, where it came from: an
    /// `ordo.nx._convert.Origin` (the user's node objects in vertex order,
    /// the graph's class, the weight attribute), kept so that results and
    /// `to_networkx` speak of the user's nodes; `None` for other graphs.
    /// Graphs derived from this one (symmetrized, deduplicated, reweighted)
    /// have the same vertices and keep it.
    pub(crate) origin: Option<Py<PyAny>>,
}

impl PyGraph {
    /// A graph of its own, without networkx origin.
    fn new(graph: Graph, name: String) -> PyGraph {
        PyGraph { graph: Arc::new(graph), name, origin: None }
    }

    /// A graph derived from this one: the same vertices, so the same origin.
    fn derived(&self, py: Python<'_>, graph: Graph, name: String) -> PyGraph {
        PyGraph { graph: Arc::new(graph), name, origin: self.origin.as_ref().map(|o| o.clone_ref(py)) }
    }
}

/// Parses a weight rule (`None` = keep the input's weights).
fn weight_spec(weights: Option<&str>) -> PyResult<WeightSpec> {
    weights.map_or(Ok(WeightSpec::Keep), |w| w.parse::<WeightSpec>().map_err(value_error))
}

/// The load options that change a graph built in memory: its weights and
/// whether it is symmetrized. Their [`LoadOptions::describe`] names the
/// graph in reports as `ordo run` names its input.
fn changes(weights: WeightSpec, symmetrize: bool) -> LoadOptions {
    LoadOptions { weights, symmetrize, ..LoadOptions::default() }
}

/// Applies `opts` to a graph built in memory.
fn finish(graph: Graph, opts: &LoadOptions) -> PyResult<Graph> {
    opts.apply(graph).map_err(in_memory_error)
}

/// Planar coordinates from the `coords` argument, if given.
fn coords_arg(coords: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Option<Coordinates>> {
    coords
        .filter(|c| !c.is_none())
        .map(|c| arrays::coordinates(c, n).map(|(x, y)| Coordinates::new(CoordSystem::Planar, x, y)))
        .transpose()
}

#[pymethods]
impl PyGraph {
    /// Reads a graph file, in any format the ``ordo`` command reads.
    ///
    /// Formats (recognised by content, then extension; ``.gz`` read
    /// transparently): DIMACS ``.gr`` (with its sibling ``.co``
    /// coordinates), SNAP and plain edge lists, Matrix Market, METIS /
    /// DIMACS-10 (with its sibling ``.xyz``), and ordo's binary ``.ordo``
    /// (mapped, not copied).
    ///
    /// Args:
    ///     path: the file.
    ///     weights: ``None`` keeps the file's weights (an unweighted file
    ///         gives an unweighted graph); ``"unit"``,
    ///         ``"uniform:LO..HI[:seed=S]"``, ``"euclid"`` or
    ///         ``"euclid-ceil"`` replace them, as ``ordo --weights``.
    ///     symmetrize: add the reverse of every edge, then merge parallel
    ///         edges keeping the least weight.
    ///     format: force the format (``gr``, ``snap``, ``edges``, ``mtx``,
    ///         ``metis``, ``ordo``).
    ///     coords: a coordinate file (``.co`` or ``.xyz``) other than the
    ///         sibling.
    ///     remap: edge lists: map arbitrary vertex ids to ``0..n-1`` in
    ///         first-seen order.
    ///     simplify: drop self loops and parallel edges (keeping the least
    ///         weight), after the weights, as GAPBS's graph builder does.
    ///     huge_pages: copy the graph's arrays into transparent huge pages
    ///         (2 MiB): fewer TLB misses where the graph is read at random
    ///         places, for a copy instead of the zero-copy load of ``.ordo``
    ///         files; ``huge_page_bytes()`` tells how much the kernel granted.
    ///
    /// Raises:
    ///     GraphFormatError: the file is malformed (the message names the
    ///         file, the line or byte offset, and the problem).
    ///     FileNotFoundError, OSError: the file cannot be read.
    ///     ValueError: a bad ``weights`` or ``format``.
    #[staticmethod]
    #[pyo3(signature = (path, weights=None, symmetrize=false, *, format=None, coords=None, remap=false, simplify=false, huge_pages=false))]
    #[allow(clippy::too_many_arguments)]
    fn from_file(
        py: Python<'_>,
        path: PathBuf,
        weights: Option<&str>,
        symmetrize: bool,
        format: Option<&str>,
        coords: Option<PathBuf>,
        remap: bool,
        simplify: bool,
        huge_pages: bool,
    ) -> PyResult<PyGraph> {
        let weights = weight_spec(weights)?;
        let format = format.map(|f| f.parse::<Format>().map_err(value_error)).transpose()?;
        let opts = LoadOptions {
            format,
            weights,
            coords,
            remap_ids: remap,
            one_based: None,
            symmetrize,
            simplify,
            huge_pages,
            progress: None,
            ..LoadOptions::default()
        };
        let graph = py.detach(|| no_panic(|| ordo_graph::load(&path, &opts).map_err(file_error)))?;
        let name = opts.describe(&path.display().to_string());
        Ok(PyGraph::new(graph, name))
    }

    /// Makes a graph of a ``scipy.sparse`` matrix or array: entry ``(i, j)``
    /// with value ``w`` is an edge ``i -> j`` of weight ``w``.
    ///
    /// CSR input is not copied where its layout allows: ``indptr`` of dtype
    /// ``int64``/``uint64``, ``indices`` of ``int32``/``uint32`` and ``data``
    /// of ``uint32`` are shared when their memory is frozen (read-only for
    /// good, as the arrays of :meth:`to_scipy` and of
    /// ``np.load(..., mmap_mode="r")`` are); writable arrays are copied,
    /// because a run reads the graph while other Python threads go on, and
    /// other dtypes are converted (scipy's default ``int32`` ``indptr`` is
    /// widened, ``float64`` data turned into integers). COO input is sorted
    /// into CSR (a copy); other formats are converted with ``m.tocsr()``.
    ///
    /// Args:
    ///     m: a square ``scipy.sparse`` matrix or array.
    ///     weights: ``None`` takes the weights from the values, which must
    ///         be whole numbers in ``0 .. 2**32-1`` (a boolean matrix gives
    ///         an unweighted graph); a rule as in :meth:`from_file` (e.g.
    ///         ``"unit"``) ignores the values.
    ///     symmetrize: as in :meth:`from_file`.
    ///     coords: ``(n, 2)`` vertex coordinates (planar), for A*.
    ///
    /// Duplicate entries become parallel edges (the algorithms use the least
    /// weight; scipy's ``csgraph`` would add them up).
    ///
    /// Raises:
    ///     ValueError: not a square sparse matrix, or a value that is not a
    ///         weight.
    #[staticmethod]
    #[pyo3(signature = (m, weights=None, symmetrize=false, coords=None))]
    fn from_scipy(
        py: Python<'_>,
        m: &Bound<'_, PyAny>,
        weights: Option<&str>,
        symmetrize: bool,
        coords: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyGraph> {
        no_panic(|| {
            let format: String = m
                .getattr("format")
                .and_then(|f| f.extract())
                .map_err(|_| value_error("from_scipy: expected a scipy.sparse matrix or array"))?;
            let shape: (usize, usize) = m.getattr("shape")?.extract()?;
            if shape.0 != shape.1 {
                return Err(value_error(format!(
                    "from_scipy: the matrix is {}x{}; an adjacency matrix is square",
                    shape.0, shape.1
                )));
            }
            let n = shape.0;
            let spec = weight_spec(weights)?;
            // The values are the weights only when no rule replaces them.
            fn values<'py>(m: &Bound<'py, PyAny>, spec: &WeightSpec) -> PyResult<Option<Bound<'py, PyAny>>> {
                spec.reads_existing().then(|| m.getattr("data")).transpose()
            }
            let graph = if format == "coo" {
                let data = values(m, &spec)?;
                let (src, dst) = (m.getattr("row")?, m.getattr("col")?);
                edge_list_graph(py, &src, &dst, data.as_ref(), n, coords)?
            } else {
                let csr = if format == "csr" { m.clone() } else { m.call_method0("tocsr")? };
                let data = values(&csr, &spec)?;
                csr_graph(&csr.getattr("indptr")?, &csr.getattr("indices")?, data.as_ref(), Some(n), coords)?
            };
            let opts = changes(spec, symmetrize);
            let graph = py.detach(|| no_panic(|| finish(graph, &opts)))?;
            let name = opts.describe(&format!("scipy {format} {n}x{n}"));
            Ok(PyGraph::new(graph, name))
        })
    }

    /// Makes a graph of an edge list: edge ``i`` goes from ``src[i]`` to
    /// ``dst[i]`` with weight ``weight[i]``. The arrays are copied (the edges
    /// are sorted by source into CSR).
    ///
    /// Args:
    ///     src, dst: vertex ids, integer arrays of equal length.
    ///     weight: ``None`` (unweighted) or the weights, whole numbers in
    ///         ``0 .. 2**32-1``.
    ///     n: the number of vertices; default ``max(src, dst) + 1``.
    ///     symmetrize: as in :meth:`from_file`.
    ///     coords: ``(n, 2)`` vertex coordinates (planar), for A*.
    ///
    /// Raises:
    ///     ValueError: arrays of different lengths, a negative id or one not
    ///         below ``n``, a weight that is not a whole number in range.
    #[staticmethod]
    #[pyo3(signature = (src, dst, weight=None, n=None, symmetrize=false, coords=None))]
    fn from_edges(
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        weight: Option<&Bound<'_, PyAny>>,
        n: Option<usize>,
        symmetrize: bool,
        coords: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyGraph> {
        no_panic(|| {
            let np = py.import("numpy")?;
            let n = match n {
                Some(n) => n,
                None => {
                    // The largest id plus one, over both arrays (0 for none).
                    let mut n = 0usize;
                    for a in [src, dst] {
                        let a = np.call_method1("asarray", (a,))?;
                        if a.getattr("size")?.extract::<usize>()? > 0 {
                            let max = a.call_method0("max")?;
                            let max = max.extract::<i64>().map_err(|_| {
                                value_error(format!("from_edges: vertex ids must be integers, got {max}"))
                            })?;
                            n = n.max(usize::try_from(max).map_or(0, |m| m + 1));
                        }
                    }
                    n
                }
            };
            if u32::try_from(n).is_err() {
                return Err(value_error(format!(
                    "from_edges: {n} vertices; ordo's vertex ids are 32-bit (at most {} vertices)",
                    u32::MAX
                )));
            }
            let weight = weight.filter(|w| !w.is_none());
            let graph = edge_list_graph(py, src, dst, weight, n, coords)?;
            let opts = changes(WeightSpec::Keep, symmetrize);
            let graph = py.detach(|| no_panic(|| finish(graph, &opts)))?;
            let name = opts.describe(&format!("edges n={n}"));
            Ok(PyGraph::new(graph, name))
        })
    }

    /// Makes a graph of CSR arrays: the out-edges of ``v`` are
    /// ``indices[indptr[v]:indptr[v+1]]`` with the matching ``weights``.
    /// Arrays are shared or copied as in :meth:`from_scipy`.
    ///
    /// Raises:
    ///     ValueError: arrays that do not form a CSR graph (the message says
    ///         which invariant fails).
    #[staticmethod]
    #[pyo3(signature = (indptr, indices, weights=None, coords=None))]
    fn from_csr(
        indptr: &Bound<'_, PyAny>,
        indices: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        coords: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyGraph> {
        no_panic(|| {
            let weights = weights.filter(|w| !w.is_none());
            let graph = csr_graph(indptr, indices, weights, None, coords)?;
            let name = format!("csr n={}", graph.num_vertices());
            Ok(PyGraph::new(graph, name))
        })
    }

    /// Makes a graph of a networkx graph, keeping its node objects.
    ///
    /// Vertex ``i`` is the ``i``-th node of ``G`` (``list(G)``), and
    /// :attr:`nodes` holds them, so that results can be keyed by the user's
    /// nodes (``g.nodes[i]``, :meth:`node_index`). The out-edges of a vertex
    /// are its neighbours in ``G``'s adjacency order. An undirected graph
    /// gives both directions of every edge (a self loop once); a multigraph
    /// one edge per parallel edge (the algorithms take the least weight, as
    /// networkx's shortest paths do).
    ///
    /// Args:
    ///     G: a ``networkx`` graph (``Graph``, ``DiGraph``, ``MultiGraph``,
    ///         ``MultiDiGraph`` or a view of one).
    ///     weight: the edge attribute holding the weights (an edge without
    ///         it weighs 1, as in networkx); ``None`` gives an unweighted
    ///         graph. A graph none of whose edges has the attribute is
    ///         unweighted too.
    ///
    /// Raises:
    ///     ValueError: a weight that is not a whole number in
    ///         ``0 .. 2**32-1`` (ordo's weights are unsigned 32-bit integers;
    ///         the networkx backend ``ordo.nx`` leaves such graphs to
    ///         networkx), or more than ``2**32 - 1`` nodes.
    #[staticmethod]
    #[pyo3(signature = (G, weight="weight"))]
    #[allow(non_snake_case)] // networkx's name for the graph argument
    fn from_networkx<'py>(
        py: Python<'py>,
        G: &Bound<'py, PyAny>,
        weight: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        py.import("ordo.nx._convert")?.call_method1("graph_of_networkx", (G, weight))
    }

    /// The graph as a networkx graph: the class of the graph it was made of
    /// (:meth:`from_networkx`; otherwise a ``DiGraph``), its nodes (or
    /// ``0 .. n-1``), every edge with its weight under the attribute it was
    /// read from (``"weight"`` for other graphs; none for an unweighted
    /// graph). An undirected graph's edge ``{u, v}`` is read from ``u -> v``
    /// (both directions are stored); a parallel edge of a ``Graph`` or
    /// ``DiGraph`` keeps its least weight.
    ///
    /// Raises:
    ///     ImportError: networkx is not installed.
    fn to_networkx<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        py.import("ordo.nx._convert")?.call_method1("networkx_of_graph", (slf,))
    }

    /// The user's node objects in vertex order (vertex ``i`` is
    /// ``nodes[i]``) for a graph made by :meth:`from_networkx` (and the
    /// graphs derived from it), else ``None`` (vertex ``i`` is ``i``).
    #[getter]
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.origin.as_ref().map(|o| o.bind(py).getattr("nodes")).transpose()
    }

    /// The vertex of a node: its position in :attr:`nodes`, or the node
    /// itself when the graph has no node objects.
    ///
    /// Raises:
    ///     KeyError: the node is not in the graph.
    fn node_index(&self, py: Python<'_>, node: &Bound<'_, PyAny>) -> PyResult<usize> {
        match &self.origin {
            Some(o) => o.bind(py).call_method1("index_of", (node,))?.extract(),
            None => node
                .extract::<usize>()
                .ok()
                .filter(|&v| v < self.graph.num_vertices())
                .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(node.clone().unbind())),
        }
    }

    /// Where a graph made from networkx came from (``ordo.nx._convert.Origin``),
    /// or ``None``.
    #[getter]
    fn _origin<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyAny>> {
        self.origin.as_ref().map(|o| o.bind(py).clone())
    }

    /// The same graph (shared, not copied) with the networkx origin
    /// ``origin`` and the report name ``name``; used by ``ordo.nx``.
    fn _with_origin(&self, origin: Bound<'_, PyAny>, name: String) -> PyResult<PyGraph> {
        let nodes = origin.getattr("nodes")?.len()?;
        if nodes != self.graph.num_vertices() {
            return Err(value_error(format!(
                "origin: {nodes} nodes for a graph of {} vertices",
                self.graph.num_vertices()
            )));
        }
        Ok(PyGraph { graph: self.graph.clone(), name, origin: Some(origin.unbind()) })
    }

    /// The number of vertices.
    #[getter]
    fn n(&self) -> usize {
        self.graph.num_vertices()
    }

    /// The number of (directed) edges.
    #[getter]
    fn m(&self) -> usize {
        self.graph.num_edges()
    }

    /// Whether the edges carry weights (unweighted edges weigh 1).
    #[getter]
    fn weighted(&self) -> bool {
        self.graph.is_weighted()
    }

    /// Whether the vertices have coordinates (needed by A*).
    #[getter]
    fn has_coords(&self) -> bool {
        self.graph.coords().is_some()
    }

    /// What the graph is, as ``ordo run`` names its input: the file or
    /// generator spec and the options that changed it.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of the graph's arrays.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.graph.memory_bytes()
    }

    /// Bytes of the offsets, targets and weights that the kernel backs with
    /// huge pages now: a copy made by ``from_file(..., huge_pages=True)``, or
    /// a ``.ordo`` file mapped where the page cache holds it in 2 MiB folios
    /// (recent kernels, on file systems with large folios); ``None`` where
    /// the kernel does not report them.
    fn huge_page_bytes(&self) -> Option<u64> {
        self.graph.huge_page_bytes()
    }

    /// The CSR offsets, ``n + 1`` entries (read-only ``uint64`` view, no
    /// copy).
    #[getter]
    fn offsets<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let data = slf.get().graph.offsets();
        arrays::view(data, slf.clone().into_any())
    }

    /// The edge targets in CSR order, ``m`` entries (read-only ``uint32``
    /// view, no copy).
    #[getter]
    fn targets<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let data = slf.get().graph.targets();
        arrays::view(data, slf.clone().into_any())
    }

    /// The edge weights in CSR order (read-only ``uint32`` view, no copy),
    /// or ``None`` for an unweighted graph.
    #[getter]
    fn weights<'py>(slf: Bound<'py, Self>) -> PyResult<Option<Bound<'py, PyArray1<u32>>>> {
        match slf.get().graph.weights() {
            Some(w) => arrays::view(w, slf.clone().into_any()).map(Some),
            None => Ok(None),
        }
    }

    /// The vertex coordinates as an ``(n, 2)`` float64 array (a copy), or
    /// ``None``. DIMACS ``.co`` coordinates are longitude and latitude in
    /// millionths of a degree.
    #[getter]
    fn coords<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(c) = self.graph.coords() else { return Ok(None) };
        let x = PyArray1::from_slice(py, &c.x);
        let y = PyArray1::from_slice(py, &c.y);
        py.import("numpy")?.call_method1("column_stack", ((x, y),)).map(Some)
    }

    /// The out-degree of every vertex (``int64`` array).
    fn degrees<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let offs = self.graph.offsets();
        let deg: Vec<i64> = offs.windows(2).map(|w| (w[1] - w[0]) as i64).collect();
        PyArray1::from_vec(py, deg)
    }

    /// The edges as three arrays ``(src, dst, weight)`` in CSR order
    /// (``int64``, ``int64``, ``uint32``; weight 1 for an unweighted graph).
    fn edges<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        let g = &self.graph;
        let mut src = Vec::with_capacity(g.num_edges());
        for v in 0..g.num_vertices() {
            src.extend(std::iter::repeat_n(v as i64, g.degree(v as u32)));
        }
        let dst: Vec<i64> = g.targets().iter().map(|&t| i64::from(t)).collect();
        let w = g.weights().map_or_else(|| vec![1u32; g.num_edges()], <[u32]>::to_vec);
        PyTuple::new(
            py,
            [
                PyArray1::from_vec(py, src).into_any(),
                PyArray1::from_vec(py, dst).into_any(),
                PyArray1::from_vec(py, w).into_any(),
            ],
        )
        .expect("a tuple of three arrays")
    }

    /// The graph as a ``scipy.sparse.csr_array`` of shape ``(n, n)``: entry
    /// ``(u, v)`` is the weight of edge ``u -> v`` (``uint32``), or ``True``
    /// for an unweighted graph. Parallel edges are kept as duplicate entries,
    /// which ``scipy.sparse.csgraph`` adds up where ordo's algorithms take
    /// the least: call :meth:`deduplicated` first to compare the two.
    ///
    /// Args:
    ///     copy: ``False`` (default) shares the graph's memory: the index and
    ///         data arrays are read-only views (scipy operations that write
    ///         in place, such as ``sort_indices``, then fail); ``True`` gives
    ///         writable copies.
    #[pyo3(signature = (copy=false))]
    fn to_scipy<'py>(slf: Bound<'py, Self>, copy: bool) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let np = py.import("numpy")?;
        let sparse = py.import("scipy.sparse")?;
        let g = &slf.get().graph;
        let n = g.num_vertices();
        let owner = slf.clone().into_any();
        // scipy gives both index arrays one dtype: int32 when every index
        // and offset fits, so that the m targets are shared and only the
        // n + 1 offsets are narrowed (a copy); int64 otherwise (both copied).
        let offsets = arrays::view(g.offsets(), owner.clone())?;
        let targets = arrays::view(g.targets(), owner.clone())?;
        let (indptr, indices) = if n <= i32::MAX as usize && g.num_edges() <= i32::MAX as usize {
            (offsets.call_method1("astype", ("int32",))?, targets.call_method1("view", ("int32",))?)
        } else {
            (offsets.call_method1("view", ("int64",))?, targets.call_method1("astype", ("int64",))?)
        };
        let data = match g.weights() {
            Some(w) => arrays::view(w, owner)?.into_any(),
            None => np.call_method1("ones", (g.num_edges(), "bool"))?,
        };
        let kwargs = PyDict::new(py);
        kwargs.set_item("shape", (n, n))?;
        kwargs.set_item("copy", copy)?;
        sparse.getattr("csr_array")?.call(((data, indices, indptr),), Some(&kwargs))
    }

    /// A new graph with the reverse of every edge added and parallel edges
    /// merged (least weight kept).
    fn symmetrized(&self, py: Python<'_>) -> PyResult<PyGraph> {
        let graph = py.detach(|| {
            no_panic(|| {
                Ok(ordo_graph::transform::dedup_edges(&ordo_graph::transform::symmetrize(&self.graph)))
            })
        })?;
        Ok(self.derived(py, graph, changes(WeightSpec::Keep, true).describe(&self.name)))
    }

    /// A new graph without parallel edges: of the edges ``u -> v``, the one
    /// of least weight is kept, and every adjacency list is sorted by target.
    /// The algorithms give the same results on both graphs; use it before
    /// :meth:`to_scipy` when handing the graph to ``scipy.sparse.csgraph``,
    /// which adds up the weights of duplicate entries.
    fn deduplicated(&self, py: Python<'_>) -> PyResult<PyGraph> {
        let graph = py.detach(|| no_panic(|| Ok(ordo_graph::transform::dedup_edges(&self.graph))))?;
        Ok(self.derived(py, graph, format!("{} [deduplicated]", self.name)))
    }

    /// A new graph with the weights given by ``rule`` (``"unit"``,
    /// ``"uniform:LO..HI[:seed=S]"``, ``"euclid"``, ``"euclid-ceil"``), as
    /// ``ordo --weights``.
    fn with_weights(&self, py: Python<'_>, rule: &str) -> PyResult<PyGraph> {
        let spec = weight_spec(Some(rule))?;
        let opts = changes(spec, false);
        let graph = py.detach(|| no_panic(|| finish(Graph::clone(&self.graph), &opts)))?;
        Ok(self.derived(py, graph, opts.describe(&self.name)))
    }

    /// Writes the graph to ``path`` in ``format`` (default: from the
    /// extension: ``.ordo``, ``.gr``, ``.mtx``, ``.graph``, ``.el``), as
    /// ``ordo convert`` does; coordinates go to the sibling ``.co`` /
    /// ``.xyz``. Returns the files written.
    ///
    /// Raises:
    ///     ValueError: no format given or implied, or a graph the format
    ///         cannot hold (METIS needs a symmetric graph without loops).
    ///     OSError: the file cannot be written.
    #[pyo3(signature = (path, format=None))]
    fn save(&self, py: Python<'_>, path: PathBuf, format: Option<&str>) -> PyResult<Vec<PathBuf>> {
        let format = match format {
            Some(f) => f.parse::<Format>().map_err(value_error)?,
            None => Format::from_path(&path).ok_or_else(|| {
                value_error(format!(
                    "{}: cannot tell the format from the extension; use .ordo, .gr, .mtx, .graph, .el or \
                     pass format=",
                    path.display()
                ))
            })?,
        };
        py.detach(|| {
            no_panic(|| {
                ordo_graph::write::save(&self.graph, &path, format).map_err(|e| match e {
                    ordo_graph::GraphError::Io { .. } => file_error(e),
                    other => value_error(other),
                })
            })
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "ordo.Graph(n={}, m={}, weighted={}, coords={}, name={:?})",
            self.graph.num_vertices(),
            self.graph.num_edges(),
            if self.graph.is_weighted() { "True" } else { "False" },
            if self.graph.coords().is_some() { "True" } else { "False" },
            self.name
        )
    }
}

/// Assembles a graph of CSR arrays, checking every invariant; `n`, when
/// given, must match `indptr`.
fn csr_graph(
    indptr: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    data: Option<&Bound<'_, PyAny>>,
    n: Option<usize>,
    coords: Option<&Bound<'_, PyAny>>,
) -> PyResult<Graph> {
    let offsets = arrays::offsets(indptr, "indptr")?;
    if offsets.is_empty() {
        return Err(value_error("indptr: empty (a graph of n vertices has n + 1 offsets)"));
    }
    let n = n.unwrap_or(offsets.len() - 1);
    if offsets.len() != n + 1 {
        return Err(value_error(format!(
            "indptr: {} entries for {n} vertices (expected n + 1)",
            offsets.len()
        )));
    }
    let targets = arrays::vertex_ids(indices, "indices", n as u64)?;
    let weights = data.map(|d| arrays::weights(d, "data")).transpose()?.flatten();
    let coords = coords_arg(coords, n)?;
    Graph::from_parts(offsets, targets, weights, coords).map_err(value_error)
}

/// Builds a graph of edge arrays (sorted into CSR by source).
fn edge_list_graph(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    data: Option<&Bound<'_, PyAny>>,
    n: usize,
    coords: Option<&Bound<'_, PyAny>>,
) -> PyResult<Graph> {
    let src = arrays::vertex_ids(src, "src", n as u64)?.into_vec();
    let dst = arrays::vertex_ids(dst, "dst", n as u64)?.into_vec();
    if src.len() != dst.len() {
        return Err(value_error(format!("src has {} entries, dst {}", src.len(), dst.len())));
    }
    let weights = data.map(|d| arrays::weights(d, "weight")).transpose()?.flatten().map(|w| w.into_vec());
    if let Some(w) = &weights {
        if w.len() != src.len() {
            return Err(value_error(format!("weight has {} entries for {} edges", w.len(), src.len())));
        }
    }
    let coords = coords_arg(coords, n)?;
    let el = EdgeList { num_vertices: n, src, dst, weights, real_weights: None, coords };
    py.detach(|| no_panic(|| el.into_graph().map_err(value_error)))
}

/// Generates a graph, as ``ordo gen`` / ``ordo run --gen`` do.
///
/// Specs (``ordo gen --help`` lists every parameter): ``road:n=1e6``
/// (road-like planar graph with coordinates), ``rmat:scale=20``,
/// ``kron:scale=18``, ``grid:w=1000,h=1000``, ``torus:w=...,h=...``,
/// ``random:n=...,m=...``, ``kgraph:n=...,k=...``; every one takes
/// ``seed=`` (default 1). The same spec always gives the same graph,
/// whatever the thread count.
///
/// Args:
///     spec: the generator spec.
///     weights, symmetrize, huge_pages: as in :meth:`Graph.from_file`.
///     threads: threads used to generate (default: ``ORDO_THREADS`` or
///         all cores).
///
/// Raises:
///     ValueError: a bad spec or weight rule.
#[pyfunction]
#[pyo3(signature = (spec, weights=None, symmetrize=false, threads=None, *, huge_pages=false))]
pub(crate) fn generate(
    py: Python<'_>,
    spec: &str,
    weights: Option<&str>,
    symmetrize: bool,
    threads: Option<usize>,
    huge_pages: bool,
) -> PyResult<PyGraph> {
    let gen: GenSpec = spec.parse().map_err(value_error)?;
    let weights = weight_spec(weights)?;
    let threads = thread_count(threads)?;
    let opts = LoadOptions { huge_pages, ..changes(weights, symmetrize) };
    let graph = py.detach(|| {
        no_panic(|| {
            let graph = gen.generate_with_threads(threads).map_err(value_error)?;
            finish(graph, &opts)
        })
    })?;
    let name = opts.describe(&gen.to_string());
    Ok(PyGraph::new(graph, name))
}
