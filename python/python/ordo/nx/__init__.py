"""ordo as a networkx backend.

Installing the ``ordo`` package registers the backend ``"ordo"`` with
networkx (the entry points ``networkx.backends`` and
``networkx.backend_info``). networkx then runs the functions ordo implements
on ordo when asked::

    import networkx as nx
    nx.single_source_dijkstra_path_length(G, 0, backend="ordo")
    nx.config.backend_priority = ["ordo"]     # or NETWORKX_BACKEND_PRIORITY=ordo
    nx.pagerank(G)                            # now ordo's, falling back to networkx

A networkx graph is converted for each call (networkx keeps the conversion
in ``G.__networkx_cache__`` until the graph changes);
``BackendInterface.convert_from_nx(G)`` converts once for several calls.
Where ordo cannot honour a call exactly (a weight function, weights that are
not unsigned 32-bit integers, an argument ordo does not have), ``can_run``
says why and networkx runs its own implementation: ``python/README.md`` lists
what is claimed and what declines. ``nx.config.backends.ordo.threads`` sets
the worker count (default: ``ORDO_THREADS`` or all cores).
"""

from typing import Any, Optional

from . import _algorithms, _graph
from ._algorithms import IMPLEMENTATIONS
from ._graph import UNWEIGHTED, BackendGraph

__all__ = ["BackendInterface", "BackendGraph", "IMPLEMENTATIONS"]


class BackendInterface:
    """The object networkx loads for the backend ``"ordo"``: the
    implemented functions as attributes, the conversions, ``can_run`` and
    ``should_run``."""

    @staticmethod
    def convert_from_nx(
        G: Any,
        edge_attrs: Optional[dict] = None,
        node_attrs: Optional[dict] = None,
        preserve_edge_attrs: bool = False,
        preserve_node_attrs: bool = False,
        preserve_graph_attrs: bool = False,
        name: Optional[str] = None,
        graph_name: Optional[str] = None,
    ) -> BackendGraph:
        """A networkx graph as a :class:`BackendGraph`, with the weights of
        every attribute of ``edge_attrs`` (``{attribute: default}``). When
        networkx asks to preserve attributes (functions that return graphs
        or edge data) the networkx graph is kept too, so that the result
        carries them."""
        if isinstance(G, BackendGraph):
            return G
        keys = [UNWEIGHTED] if not edge_attrs else [(attr, 1 if d is None else d) for attr, d in edge_attrs.items()]
        conversions = {}
        recalled = _graph.recall(G)
        if recalled is not None:
            conversions[recalled[0]] = recalled[1]
        # networkx asks to preserve the graph attributes whenever it caches
        # the conversion; they are copied. Edge and node attributes need the
        # networkx graph itself.
        keep = bool(preserve_edge_attrs or preserve_node_attrs or node_attrs)
        # A kept graph converts further attributes when a function needs them.
        if not (keep and conversions):
            for key in keys:
                if key not in conversions:
                    conversions[key] = _graph.convert(G, key)
        return BackendGraph(G, conversions, keep=keep, graph_attrs=G.graph if preserve_graph_attrs else None)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
        """A result as networkx has it: a backend graph becomes a networkx
        graph (the one it was made of, when it was kept); anything else is
        already networkx's type."""
        if isinstance(obj, BackendGraph):
            if obj.nx is not None:
                return obj.nx
            return obj.structure().graph.to_networkx()
        return obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> Any:
        """``True`` when ordo can honour the call exactly, else the reason."""
        _graph.forget()
        impl = IMPLEMENTATIONS.get(name)
        if impl is None:
            return f"ordo does not implement {name}"
        return _algorithms.verdict_of(impl.signature, impl.check, args, kwargs)

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> Any:
        """Whether running on ordo is worth the conversion: always, when
        ``can_run`` says it can (a graph small enough for networkx to be as
        fast is also cheap to convert)."""
        return True


for _name, _impl in IMPLEMENTATIONS.items():
    setattr(BackendInterface, _name, staticmethod(_impl.function))
del _name, _impl
