"""ordo: priority-scheduled parallel graph algorithms for numpy / scipy.sparse users.

Graphs::

    import ordo
    g = ordo.Graph.from_file("road.gr")              # every format the ordo command reads
    g = ordo.Graph.from_scipy(matrix)                # scipy.sparse CSR / COO / ...
    g = ordo.Graph.from_edges(src, dst, weight)      # numpy edge arrays
    g = ordo.generate("road:n=1e6")                  # generators of ``ordo gen``
    g = ordo.Graph.from_networkx(G)                  # keeps G's nodes: g.nodes, g.to_networkx()
    g.n, g.m, g.weighted, g.to_scipy()

Algorithms, one function per application of ``ordo run`` (made from the
library's registry)::

    dist = ordo.sssp(g, 0, scheduler="obim:delta=14", threads=2)
    levels = ordo.bfs(g, 0)
    path, length = ordo.astar(g, 0, 42)
    ranks = ordo.pagerank(g, alpha=0.85, tolerance=0.01)
    forest = ordo.mst(g)                             # (k, 3) array: u, v, weight
    dist, stats = ordo.sssp(g, 0, stats=True)        # stats: the ``ordo run --json`` dict

Every one takes ``scheduler=``, ``threads=``, ``stats=``, ``verify=`` and
``cycles=`` (see ``ordo._apps``). Runs release the GIL; Ctrl-C stops a run
and raises ``KeyboardInterrupt``.

networkx: installing the package registers the networkx backend ``"ordo"``
(:mod:`ordo.nx`): ``nx.pagerank(G, backend="ordo")``.

Errors: :class:`GraphFormatError` (a ``ValueError``) for a malformed file,
with the message the ``ordo`` command prints; ``ValueError`` for bad
arguments; ``FileNotFoundError`` / ``OSError`` for files that cannot be read.
"""

from . import _apps
from ._ordo import Graph, GraphFormatError, __version__, generate

_functions = _apps.make_all()
globals().update(_functions)

#: The Python names of the applications, e.g. ``["sssp", "bfs", ...]``.
APPS = list(_functions)

__all__ = ["Graph", "GraphFormatError", "generate", "APPS", "__version__", *APPS]
