"""ordo.Graph from every source: counts, edges and weights equal scipy's view;
sharing vs copying; bad inputs raise the documented exceptions."""

import gc
import gzip

import numpy as np
import pytest
import scipy.sparse as sp

import ordo
from conftest import data_file, random_csr


def edge_triples(m):
    """The sorted (row, col, value) triples of a scipy matrix (duplicates kept)."""
    coo = sp.coo_array(m)
    order = np.lexsort((coo.data, coo.col, coo.row))
    return np.stack([coo.row[order], coo.col[order], coo.data[order].astype(np.int64)])


def graph_triples(g):
    src, dst, w = g.edges()
    order = np.lexsort((w, dst, src))
    return np.stack([src[order], dst[order], w[order].astype(np.int64)])


def assert_same_csr(g, m):
    """g's CSR equals the scipy CSR m: counts, offsets, targets, weights."""
    m = sp.csr_array(m)
    assert (g.n, g.m) == (m.shape[0], m.nnz)
    np.testing.assert_array_equal(g.offsets, m.indptr)
    np.testing.assert_array_equal(g.targets, m.indices)
    if g.weighted:
        np.testing.assert_array_equal(g.weights, m.data)


# ---------------------------------------------------------------- generators


def test_generate_and_round_trip_through_scipy():
    g = ordo.generate("road:n=2000")
    assert g.n == 2000 and g.m > 2000 and g.weighted and g.has_coords
    assert g.name.startswith("road:")
    m = g.to_scipy()
    assert m.shape == (2000, 2000) and m.nnz == g.m
    assert_same_csr(g, m)
    np.testing.assert_array_equal(graph_triples(g), edge_triples(m))
    np.testing.assert_array_equal(g.degrees(), np.diff(m.indptr))
    assert g.coords.shape == (2000, 2)


def test_to_scipy_shares_memory_and_from_scipy_shares_it_back():
    g = ordo.generate("rmat:scale=10", weights="uniform:1..50")
    m = g.to_scipy()
    assert np.shares_memory(m.indices, g.targets)
    assert np.shares_memory(m.data, g.weights)
    h = ordo.Graph.from_scipy(m)
    # Frozen arrays (views of g) are shared, not copied: no copy either way.
    assert np.shares_memory(h.targets, g.targets)
    assert np.shares_memory(h.weights, g.weights)
    assert_same_csr(h, m)
    del g, m
    gc.collect()
    assert h.targets.sum() >= 0  # the views keep the first graph's memory alive


def test_graph_arrays_are_read_only_for_good():
    g = ordo.generate("grid:w=10,h=10")
    t = g.targets
    with pytest.raises(ValueError):
        t[0] = 1
    with pytest.raises(ValueError):
        t.setflags(write=True)
    m = g.to_scipy()
    with pytest.raises(ValueError):
        m.indices[0] = 1
    c = g.to_scipy(copy=True)
    c.indices[0] = c.indices[0]  # a copy is writable
    assert not np.shares_memory(c.indices, g.targets)


def test_unweighted_graphs_convert_to_pattern_matrices_and_back():
    g = ordo.generate("grid:w=20,h=30")
    if g.weighted:
        g = ordo.Graph.from_csr(g.offsets, g.targets)
    assert not g.weighted
    m = g.to_scipy()
    assert m.dtype == np.bool_ and m.nnz == g.m
    h = ordo.Graph.from_scipy(m)
    assert not h.weighted
    np.testing.assert_array_equal(h.targets, g.targets)
    src, dst, w = h.edges()
    assert (w == 1).all()


def test_from_edges_rejects_ids_beyond_32_bits():
    with pytest.raises(ValueError, match="1099511627777 vertices; ordo's vertex ids are 32-bit"):
        ordo.Graph.from_edges([0, 2**40], [1, 2], [1, 1])
    with pytest.raises(ValueError, match="32-bit"):
        ordo.Graph.from_edges([0], [1], [1], n=2**32 + 5)


def test_generate_rejects_bad_arguments():
    with pytest.raises(ValueError):
        ordo.generate("nosuchgen:n=5")
    with pytest.raises(ValueError):
        ordo.generate("road:n=100", weights="heavy")
    with pytest.raises(ValueError):
        ordo.generate("road:n=100", threads=0)
    with pytest.raises(ValueError, match="threads=100000: at most 4096"):
        ordo.generate("road:n=100", threads=100000)


def test_symmetrized_and_with_weights():
    g = ordo.Graph.from_edges([0, 1, 1], [1, 2, 2], [5, 3, 7])
    s = g.symmetrized()
    assert s.n == 3 and s.m == 4  # the parallel 1->2 edges merge, keeping weight 3
    m = s.to_scipy()
    assert m[1, 2] == 3 and m[2, 1] == 3 and m[0, 1] == 5 and m[1, 0] == 5
    u = g.with_weights("unit")
    assert (u.weights == 1).all() and u.m == 3
    assert "symmetrized" in s.name and "weights=unit" in u.name
    with pytest.raises(ValueError):
        g.with_weights("euclid")  # no coordinates
    d = g.deduplicated()
    assert d.m == 2 and d.to_scipy()[1, 2] == 3 and "deduplicated" in d.name


# ---------------------------------------------------------------- scipy


@pytest.mark.parametrize("n,density", [(1, 1.0), (50, 0.1), (400, 0.02)])
def test_from_scipy_csr_equals_scipy(rng, n, density):
    m = random_csr(rng, n, density)
    g = ordo.Graph.from_scipy(m)
    assert_same_csr(g, m)
    assert g.weighted
    # A writable matrix is copied, and left writable.
    assert not np.shares_memory(g.targets, m.indices)
    assert m.indices.flags.writeable and m.data.flags.writeable


def test_from_scipy_coo_with_duplicates_and_unsorted_entries(rng):
    row = rng.integers(0, 30, size=200)
    col = rng.integers(0, 30, size=200)
    val = rng.integers(0, 1000, size=200)
    m = sp.coo_array((val, (row, col)), shape=(30, 30))
    g = ordo.Graph.from_scipy(m)
    assert (g.n, g.m) == (30, 200)  # duplicates stay parallel edges
    np.testing.assert_array_equal(graph_triples(g), edge_triples(m))


@pytest.mark.parametrize("fmt", ["csc", "lil", "dok", "bsr", "dia"])
def test_from_scipy_other_formats_convert(rng, fmt):
    m = random_csr(rng, 60, 0.05)
    g = ordo.Graph.from_scipy(m.asformat(fmt))
    np.testing.assert_array_equal(graph_triples(g), edge_triples(m))


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32]
)
def test_from_scipy_every_numeric_dtype(rng, dtype):
    m = random_csr(rng, 40, 0.1)
    m = sp.csr_array((m.data.astype(dtype), m.indices.astype(np.int64), m.indptr.astype(np.int64)), shape=m.shape)
    g = ordo.Graph.from_scipy(m)
    assert_same_csr(g, m)


def test_from_scipy_shares_frozen_memory_mapped_arrays(tmp_path, rng):
    m = random_csr(rng, 100, 0.05)
    for name, a in [("indptr", m.indptr.astype(np.int64)), ("indices", m.indices), ("data", m.data.astype(np.uint32))]:
        np.save(tmp_path / f"{name}.npy", a)
    indptr, indices, data = (np.load(tmp_path / f"{x}.npy", mmap_mode="r") for x in ["indptr", "indices", "data"])
    g = ordo.Graph.from_csr(indptr, indices, data)
    assert np.shares_memory(g.targets, indices) and np.shares_memory(g.weights, data)
    assert np.shares_memory(g.offsets, indptr)
    assert_same_csr(g, m)
    # The same arrays, writable: copied.
    h = ordo.Graph.from_csr(np.array(indptr), np.array(indices), np.array(data))
    assert not np.shares_memory(h.targets, indices)
    assert_same_csr(h, m)


def test_from_scipy_weight_rules_and_pattern_matrices(rng):
    m = random_csr(rng, 50, 0.1)
    m.data = m.data + 0.5  # not weights, but ignored by a rule
    g = ordo.Graph.from_scipy(m, weights="unit")
    assert g.weighted and (g.weights == 1).all() and g.m == m.nnz
    b = ordo.Graph.from_scipy(m.astype(bool))
    assert not b.weighted and b.m == m.nnz
    s = ordo.Graph.from_scipy(m, weights="unit", symmetrize=True)
    sym = ((m + m.T) != 0).astype(bool)
    assert s.m == sym.nnz


@pytest.mark.parametrize(
    "bad,match",
    [
        (lambda: sp.csr_array(np.array([[0, 0.5], [0, 0]])), "whole|integer"),
        (lambda: sp.csr_array(np.array([[0, -1], [0, 0]])), "integer in 0"),
        (lambda: sp.csr_array(np.array([[0, np.nan], [0, 0]])), "integer"),
        (lambda: sp.csr_array(np.array([[0, 2.0**33], [0, 0]])), "integer in 0"),
        (lambda: sp.csr_array(np.ones((2, 3))), "square"),
        (lambda: np.ones((2, 2)), "scipy.sparse"),
        (lambda: [[1]], "scipy.sparse"),
        (lambda: sp.csr_array(np.array([[1j]])), "dtype"),
    ],
)
def test_from_scipy_bad_inputs_raise_value_error(bad, match):
    with pytest.raises(ValueError, match=match):
        ordo.Graph.from_scipy(bad())


# ---------------------------------------------------------------- edges / csr


def test_from_edges_equals_scipy_coo(rng):
    src = rng.integers(0, 500, size=3000)
    dst = rng.integers(0, 500, size=3000)
    w = rng.integers(1, 10**6, size=3000)
    g = ordo.Graph.from_edges(src, dst, w)
    m = sp.coo_array((w, (src, dst)), shape=(g.n, g.n))
    assert g.n == max(src.max(), dst.max()) + 1
    np.testing.assert_array_equal(graph_triples(g), edge_triples(m))
    # Within a vertex, edges keep their input order (a stable sort).
    first = np.flatnonzero(src == src[0])
    np.testing.assert_array_equal(g.targets[g.offsets[src[0]] : g.offsets[src[0] + 1]], dst[first])


def test_from_edges_lists_floats_n_and_coords():
    g = ordo.Graph.from_edges([0, 2], [1, 0], [1.0, 7.0], n=5, coords=[[0, 0], [1, 0], [0, 1], [2, 2], [3, 3]])
    assert (g.n, g.m, g.weighted, g.has_coords) == (5, 2, True, True)
    assert g.to_scipy()[2, 0] == 7
    np.testing.assert_array_equal(g.coords[1], [1.0, 0.0])
    empty = ordo.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert (empty.n, empty.m) == (0, 0)
    assert ordo.Graph.from_edges([], [], n=3).n == 3
    assert not ordo.Graph.from_edges([0], [1]).weighted


@pytest.mark.parametrize(
    "args,kwargs,match",
    [
        (([0, 1], [1]), {}, "entries"),
        (([0, -1], [1, 0]), {"n": 3}, "src\\[1\\] = -1"),
        (([0, 1], [1, 5]), {"n": 3}, "dst\\[1\\] = 5"),
        (([0, 1], [1, 0], [1, 2, 3]), {}, "weight has 3"),
        (([0, 1], [1, 0], [1, -2]), {}, "weight\\[1\\]"),
        (([0.5, 1], [1, 0]), {"n": 2}, "src\\[0\\] = 0.5"),
        (([[0, 1]], [[1, 0]]), {"n": 2}, "1-D"),
        (([0, 1], [1, 0]), {"n": 2, "coords": [[0, 0]]}, "coords"),
    ],
)
def test_from_edges_bad_inputs_raise_value_error(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ordo.Graph.from_edges(*args, **kwargs)


def test_from_csr_checks_the_invariants():
    with pytest.raises(ValueError, match="decrease"):
        ordo.Graph.from_csr([0, 2, 1], [0, 1])
    with pytest.raises(ValueError, match="last offset"):
        ordo.Graph.from_csr([0, 1, 3], [0, 1])
    with pytest.raises(ValueError, match="indices"):
        ordo.Graph.from_csr([0, 1, 2], [0, 2])
    with pytest.raises(ValueError, match="weights"):
        ordo.Graph.from_csr([0, 1, 2], [0, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="empty"):
        ordo.Graph.from_csr([], [])
    g = ordo.Graph.from_csr(np.array([0, 1, 2], dtype=np.int32), np.array([1, 0], dtype=np.int64), [4, 5])
    assert (g.n, g.m) == (2, 2) and list(g.weights) == [4, 5]


# ---------------------------------------------------------------- files

# The same 4-vertex weighted graph (0-based: 0->1 w7, 0->2 w3, 2->3 w1, 3->0 w2) in
# every text format ordo reads.
EDGES = np.array([[0, 1, 7], [0, 2, 3], [2, 3, 1], [3, 0, 2]])
FILES = {
    "g.gr": "c DIMACS\np sp 4 4\na 1 2 7\na 1 3 3\na 3 4 1\na 4 1 2\n",
    "g.mtx": "%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 7\n1 3 3\n3 4 1\n4 1 2\n",
    "g.snap": "# Directed graph\n# Nodes: 4 Edges: 4\n0\t1\t7\n0\t2\t3\n2\t3\t1\n3\t0\t2\n",
    "g.el": "0 1 7\n0 2 3\n2 3 1\n3 0 2\n",
}


def expected_graph(weighted=True):
    return sp.coo_array((EDGES[:, 2] if weighted else np.ones(4), (EDGES[:, 0], EDGES[:, 1])), shape=(4, 4))


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("compress", [False, True])
def test_from_file_every_text_format(tmp_path, name, compress):
    path = tmp_path / (name + (".gz" if compress else ""))
    data = FILES[name].encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    g = ordo.Graph.from_file(path)
    assert g.weighted
    np.testing.assert_array_equal(graph_triples(g), edge_triples(expected_graph()))
    assert g.name == str(path)


def test_from_file_metis_with_coordinates(tmp_path):
    # A path 1 - 2 - 3 (METIS is undirected and 1-based) with .xyz coordinates.
    (tmp_path / "p.graph").write_text("% path\n3 2\n2\n1 3\n2\n")
    (tmp_path / "p.xyz").write_text("0 0 0\n3 4 0\n3 8 0\n")
    g = ordo.Graph.from_file(tmp_path / "p.graph", weights="euclid")
    assert (g.n, g.m, g.has_coords) == (3, 4, True)
    m = g.to_scipy()
    assert m[0, 1] == 5 and m[1, 0] == 5 and m[1, 2] == 4
    assert "weights=euclid" in g.name


def test_from_file_binary_round_trip(tmp_path):
    g = ordo.generate("road:n=500")
    files = g.save(tmp_path / "r.ordo")
    assert [str(f) for f in files][0].endswith("r.ordo")
    h = ordo.Graph.from_file(tmp_path / "r.ordo")
    assert_same_csr(h, g.to_scipy())
    np.testing.assert_array_equal(h.coords, g.coords)
    for fmt, ext in [("gr", "gr"), ("mtx", "mtx"), ("edges", "el")]:
        g.save(tmp_path / f"r.{ext}")
        k = ordo.Graph.from_file(tmp_path / f"r.{ext}")
        np.testing.assert_array_equal(graph_triples(k), graph_triples(g))


def test_from_file_options(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("100 200\n200 300\n")
    g = ordo.Graph.from_file(path, remap=True, weights="unit", symmetrize=True)
    assert (g.n, g.m) == (3, 4) and (g.weights == 1).all()
    assert g.name == f"{path} [weights=unit, symmetrized, remapped]"
    f = ordo.Graph.from_file(tmp_path / "ids.txt", format="edges", remap=True)
    assert f.n == 3 and not f.weighted


def test_from_file_simplify_drops_loops_and_keeps_the_least_weight(tmp_path):
    path = tmp_path / "multi.gr"
    path.write_text("p sp 3 5\na 1 1 5\na 1 2 9\na 1 2 4\na 2 3 1\na 3 1 2\n")
    g = ordo.Graph.from_file(path)
    s = ordo.Graph.from_file(path, simplify=True)
    assert (g.m, s.m) == (5, 3)
    assert s.name == f"{path} [simplified]"
    np.testing.assert_array_equal(graph_triples(s), [[0, 1, 2], [1, 2, 0], [4, 1, 2]])


def test_from_file_huge_pages_copies_the_graph_unchanged(tmp_path):
    path = tmp_path / "k.ordo"
    ordo.generate("kron:scale=12,seed=5").save(path)
    g = ordo.Graph.from_file(path)
    h = ordo.Graph.from_file(path, huge_pages=True)
    assert h.name == f"{path} [huge pages]"
    np.testing.assert_array_equal(h.offsets, g.offsets)
    np.testing.assert_array_equal(h.targets, g.targets)
    huge = h.huge_page_bytes()
    assert huge is None or 0 <= huge <= h.memory_bytes
    k = ordo.generate("kron:scale=12,seed=5", huge_pages=True)
    assert k.name.endswith(" [huge pages]")
    np.testing.assert_array_equal(k.targets, g.targets)


@pytest.mark.parametrize(
    "name,text,match",
    [
        ("bad.gr", "p sp 3 1\na 1 x 4\n", r"bad\.gr:2: "),
        ("bad.gr", "p sp 2 2\na 1 2 4\n", r"bad\.gr"),
        ("bad.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1.0\n", r"bad\.mtx:3: "),
        ("bad.el", "0 1\n1 two\n", r"bad\.el:2: "),
        ("bad.ordo", "ORDOGRAPH but not really", r"bad\.ordo"),
    ],
)
def test_malformed_files_raise_graph_format_error_with_the_cli_message(tmp_path, name, text, match):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ordo.GraphFormatError, match=match) as info:
        ordo.Graph.from_file(path)
    assert isinstance(info.value, ValueError)
    assert "\n" not in str(info.value), "one line, as the CLI prints it"


def test_file_and_argument_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.gr"):
        ordo.Graph.from_file(tmp_path / "nope.gr")
    (tmp_path / "e.gr").write_bytes(b"")
    with pytest.raises(ordo.GraphFormatError, match="empty"):
        ordo.Graph.from_file(tmp_path / "e.gr")
    (tmp_path / "ok.el").write_text("0 1\n")
    with pytest.raises(ValueError, match="weight spec"):
        ordo.Graph.from_file(tmp_path / "ok.el", weights="heavy")
    with pytest.raises(ValueError, match="format"):
        ordo.Graph.from_file(tmp_path / "ok.el", format="xml")
    with pytest.raises(ValueError, match="format"):
        ordo.generate("grid:w=2,h=2").save(tmp_path / "x.unknown")
    with pytest.raises(TypeError):
        ordo.Graph.from_file(42)


# ---------------------------------------------------------------- real data


def parse_dimacs(path):
    rows = [line.split()[1:] for line in open(path) if line.startswith("a ")]
    a = np.array(rows, dtype=np.int64)
    return a[:, 0] - 1, a[:, 1] - 1, a[:, 2]


def test_real_dimacs_rome99_equals_its_text():
    path = data_file("road/rome99.gr")
    g = ordo.Graph.from_file(path)
    assert (g.n, g.m, g.weighted) == (3353, 8870, True)
    src, dst, w = parse_dimacs(path)
    np.testing.assert_array_equal(graph_triples(g), edge_triples(sp.coo_array((w, (src, dst)), shape=(3353, 3353))))
    # And through scipy and back.
    assert_same_csr(ordo.Graph.from_scipy(g.to_scipy(copy=True)), g.to_scipy())


def test_real_andorra_with_coordinates():
    g = ordo.Graph.from_file(data_file("road/andorra.gr"))
    assert (g.n, g.m, g.has_coords) == (16574, 31941, True)


def test_real_metis_luxembourg():
    g = ordo.Graph.from_file(data_file("road/luxembourg.osm.graph"), weights="euclid-ceil")
    assert (g.n, g.m, g.has_coords, g.weighted) == (114599, 2 * 119666, True, True)
    m = g.to_scipy()
    assert (m != m.T).nnz == 0  # undirected: both directions, equal weights


def test_real_snap_and_edge_lists():
    slashdot = ordo.Graph.from_file(data_file("social/soc-Slashdot0902.txt.gz"))
    assert (slashdot.n, slashdot.m, slashdot.weighted) == (82168, 948464, False)
    grqc_path = data_file("social/CA-GrQc.txt")
    grqc = ordo.Graph.from_file(grqc_path, remap=True)
    assert (grqc.n, grqc.m) == (5242, 28980)  # one line per direction
    mesh = ordo.Graph.from_file(data_file("mesh/4elt.graph"))
    assert (mesh.n, mesh.m) == (7434, 2 * 43031)
