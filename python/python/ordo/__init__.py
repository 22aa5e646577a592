"""ordo: priority-scheduled parallel graph algorithms for numpy / scipy.sparse users.

Graphs::

    import ordo
    g = ordo.Graph.from_file("road.gr")              # every format the ordo command reads
    g = ordo.Graph.from_scipy(matrix)                # scipy.sparse CSR / COO / ...
    g = ordo.Graph.from_edges(src, dst, weight)      # numpy edge arrays
    g = ordo.generate("road:n=1e6")                  # generators of ``ordo gen``
    g.n, g.m, g.weighted, g.to_scipy()

Errors: :class:`GraphFormatError` (a ``ValueError``) for a malformed file,
with the message the ``ordo`` command prints; ``ValueError`` for bad
arguments; ``FileNotFoundError`` / ``OSError`` for files that cannot be read.
"""

from ._ordo import Graph, GraphFormatError, __version__, bfs, generate, sssp

__all__ = ["Graph", "GraphFormatError", "generate", "sssp", "bfs", "__version__"]
