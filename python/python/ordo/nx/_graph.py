"""The graph object of the ordo backend: what networkx hands the backend's
functions after converting a networkx graph (``convert_from_nx``).

A :class:`BackendGraph` holds, per edge attribute it was asked for, a
:class:`Conversion`: the ordo graph (CSR, vertex ``i`` the ``i``-th node) and
what ordo can make of the attribute's weights (``_weights.classify``). When
networkx asks the backend to preserve attributes (functions that return
graphs or edge data, e.g. ``minimum_spanning_tree``), it also holds the
networkx graph, and converts further attributes from it when a function
needs them.
"""

import dataclasses
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Dict, Hashable, Iterator, List, Optional, Tuple

import numpy as np

from .. import _ordo
from . import _convert, _weights

#: A conversion's key: the edge attribute and its default (``(None, None)``:
#: no attribute, an unweighted graph).
Key = Tuple[Optional[str], Any]
UNWEIGHTED: Key = (None, None)


@dataclass(frozen=True, eq=False)
class Conversion:
    """One networkx graph as an ordo graph, for one edge attribute."""

    #: The ordo graph, weighted with ``weights.ordo`` when ordo takes them.
    graph: Any
    #: The CSR arrays the graph was made of (targets in networkx's adjacency
    #: order).
    indptr: np.ndarray
    indices: np.ndarray
    #: What ordo makes of the attribute's values (``None``: no attribute).
    weights: Optional[_weights.Weights]

    @property
    def origin(self) -> "_convert.Origin":
        return self.graph._origin


def convert(G: Any, key: Key) -> Conversion:
    """Converts the networkx graph ``G`` for the attribute of ``key``."""
    attr, default = key
    s = _convert.scan(G, attr, 1 if default is None else default)
    w = None if s.values is None else _weights.classify(s.values, len(s.nodes))
    return Conversion(_convert.ordo_graph(G, s, w, attr), s.indptr, s.indices, w)


class BackendGraph:
    """A networkx graph converted for the ordo backend.

    It answers what networkx's dispatch and decorators ask of a graph
    (``is_directed``, ``is_multigraph``, ``len``, ``in``, iteration over the
    nodes, ``graph`` attributes); ``convert_to_nx`` gives back a networkx
    graph. Make one with ``ordo.nx.BackendInterface.convert_from_nx(G)`` to
    convert once and call several functions with ``backend="ordo"``.
    """

    __networkx_backend__ = "ordo"

    def __init__(self, G: Any, conversions: Dict[Key, Conversion], keep: bool, graph_attrs: Optional[dict]):
        first = next(iter(conversions.values()), None)
        if first is None:
            first = convert(G, UNWEIGHTED)
            conversions = {UNWEIGHTED: first}
        self._conversions = conversions
        self._origin = first.origin
        #: The networkx graph, when networkx asked to preserve attributes.
        self.nx = G if keep else None
        #: The graph attributes (``G.graph``) when preserved, else empty.
        self.graph = dict(graph_attrs) if graph_attrs else {}
        self.__networkx_cache__: Dict[str, Any] = {}

    # What networkx's dispatch and decorators ask of a graph.
    def is_directed(self) -> bool:
        return self._origin.directed

    def is_multigraph(self) -> bool:
        return self._origin.multigraph

    def __len__(self) -> int:
        return len(self._origin.nodes)

    def number_of_nodes(self) -> int:
        return len(self._origin.nodes)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._origin.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self._origin.index
        except TypeError:
            return False

    @property
    def nodes(self) -> List[Hashable]:
        """The nodes, vertex ``i`` being ``nodes[i]``."""
        return self._origin.nodes

    @property
    def origin(self) -> "_convert.Origin":
        return self._origin

    def __repr__(self) -> str:
        kind = ("Multi" if self.is_multigraph() else "") + ("DiGraph" if self.is_directed() else "Graph")
        return f"<ordo.nx.BackendGraph of a {kind} with {len(self)} nodes>"

    def conversion(self, key: Key) -> Optional[Conversion]:
        """The conversion for ``key``, made from the networkx graph when it is
        kept; ``None`` when it was not converted and cannot be."""
        c = self._conversions.get(key)
        if c is None and key == UNWEIGHTED:
            # The structure of any conversion, without its weights.
            s = self.structure()
            g = _ordo.Graph.from_csr(s.indptr, s.indices)._with_origin(dataclasses.replace(s.origin, weight=None), s.graph.name)
            c = self._conversions[key] = Conversion(g, s.indptr, s.indices, None)
        elif c is None and self.nx is not None:
            c = self._conversions[key] = convert(self.nx, key)
        return c

    def structure(self) -> Conversion:
        """Any conversion (for what does not depend on weights)."""
        return next(iter(self._conversions.values()))


# A networkx dispatch asks `can_run` first, which must look at the weights,
# then converts the graph (`convert_from_nx`) unless networkx's cache holds
# it. The conversion that `can_run` made is kept here for that call, per
# thread, so that a graph is read once; `convert_from_nx` takes it when it is
# for the same graph object. The slot holds the graph by a weak reference and
# only until the next `can_run` of the thread.
_recent = threading.local()


def remember(G: Any, key: Key, c: Conversion) -> None:
    try:
        ref = weakref.ref(G)
    except TypeError:
        return
    _recent.slot = (ref, key, c)


def forget() -> None:
    _recent.slot = None


def recall(G: Any) -> Optional[Tuple[Key, Conversion]]:
    """The conversion of ``G`` the last ``can_run`` of this thread made (and
    its key), taken out of the slot."""
    slot = getattr(_recent, "slot", None)
    if slot is None:
        return None
    ref, key, c = slot
    if ref() is G:
        _recent.slot = None
        return key, c
    return None


def cached(G: Any, key: Key) -> Optional[Conversion]:
    """A conversion of ``G`` for ``key`` that networkx's cache of converted
    graphs holds (``G.__networkx_cache__``, cleared by networkx whenever the
    graph is changed through its methods)."""
    cache = getattr(G, "__networkx_cache__", None)
    if not cache:
        return None
    for g in cache.get("backends", {}).get("ordo", {}).values():
        if isinstance(g, BackendGraph):
            c = g.conversion(key)
            if c is not None:
                return c
    return None


def conversion_of(G: Any, key: Key) -> Conversion:
    """``G``'s conversion for ``key``: ``G``'s own when it is a backend graph
    (``NotImplementedError`` when it has none), else networkx's cached one,
    else a new one, remembered for the ``convert_from_nx`` that follows."""
    if isinstance(G, BackendGraph):
        c = G.conversion(key)
        if c is None:
            raise NotImplementedError(
                f"the ordo graph was converted without the edge attribute {key[0]!r} "
                "(convert it again with that attribute)"
            )
        return c
    c = cached(G, key)
    if c is None:
        c = convert(G, key)
        remember(G, key, c)
    return c
