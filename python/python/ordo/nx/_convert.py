"""networkx graphs into ordo's CSR graphs and back, keeping the user's nodes.

Vertex ``i`` of the ordo graph is the ``i``-th node of the networkx graph
(``list(G)``), and the out-edges of a vertex are its neighbours in the
networkx graph's adjacency order, so that the CSR order of the edges is the
order in which networkx itself visits them. An undirected graph holds every
edge ``{u, v}`` at both ends (a self loop once), as networkx's adjacency
does; a multigraph one CSR edge per parallel edge. :class:`Origin` remembers
what the vertices stand for; ``ordo.Graph.from_networkx`` and
``ordo.Graph.to_networkx`` are made of :func:`graph_of_networkx` and
:func:`networkx_of_graph`.
"""

import operator
from dataclasses import dataclass, field
from typing import Any, Dict, Hashable, List, Optional

import numpy as np

from .. import _ordo
from . import _weights

#: ordo's vertex ids are 32-bit.
MAX_VERTICES = 2**32 - 1


@dataclass(frozen=True, eq=False)
class Origin:
    """What the vertices of an ordo graph made from networkx stand for."""

    #: The node objects, vertex ``i`` being ``nodes[i]``.
    nodes: List[Hashable]
    #: Whether the networkx graph was directed.
    directed: bool
    #: Whether it was a multigraph.
    multigraph: bool
    #: The edge attribute the weights were read from (``None``: unweighted).
    weight: Optional[str]
    #: The networkx class to give back (``to_networkx``).
    graph_class: type
    _index: Dict[Hashable, int] = field(default_factory=dict, repr=False)

    @property
    def index(self) -> Dict[Hashable, int]:
        """Node to vertex (made on first use)."""
        if len(self._index) != len(self.nodes):
            self._index.update((u, i) for i, u in enumerate(self.nodes))
        return self._index

    def index_of(self, node: Hashable) -> int:
        """The vertex of ``node``; ``KeyError`` when it is not a node."""
        return self.index[node]


@dataclass(frozen=True, eq=False)
class Scan:
    """A networkx graph's nodes and edges as CSR arrays, one attribute's
    values alongside."""

    nodes: List[Hashable]
    index: Dict[Hashable, int]
    indptr: np.ndarray  # int64, n + 1
    indices: np.ndarray  # uint32, m
    #: The attribute's value of every edge (the default where it is
    #: missing), in CSR order; ``None`` when no attribute was read.
    values: Optional[List[Any]]


def scan(G: Any, attr: Optional[str], default: Any = 1) -> Scan:
    """Reads ``G``'s edges in adjacency order (``attr``'s values too, unless
    it is ``None``)."""
    nodes = list(G)
    if len(nodes) > MAX_VERTICES:
        raise ValueError(f"from_networkx: {len(nodes)} nodes; ordo's vertex ids are 32-bit (at most {MAX_VERTICES})")
    index = {u: i for i, u in enumerate(nodes)}
    adj = getattr(G, "_adj", None)
    if adj is None:
        adj = G.adj
    position = index.__getitem__
    indptr = np.empty(len(nodes) + 1, dtype=np.int64)
    indptr[0] = 0
    targets: List[int] = []
    values: Optional[List[Any]] = None if attr is None else []
    value_of = operator.methodcaller("get", attr, default)
    if G.is_multigraph():
        for i, u in enumerate(nodes):
            for v, keys in adj[u].items():
                j = position(v)
                targets.extend([j] * len(keys))
                if values is not None:
                    values.extend(map(value_of, keys.values()))
            indptr[i + 1] = len(targets)
    else:
        for i, u in enumerate(nodes):
            nbrs = adj[u]
            targets.extend(map(position, nbrs))
            if values is not None:
                values.extend(map(value_of, nbrs.values()))
            indptr[i + 1] = len(targets)
    indices = np.array(targets, dtype=np.uint32)
    return Scan(nodes, index, indptr, indices, values)


def origin_of(G: Any, s: Scan, weight: Optional[str]) -> Origin:
    """The origin of a graph scanned from ``G``."""
    return Origin(s.nodes, G.is_directed(), G.is_multigraph(), weight, _plain_class(G), s.index)


def ordo_graph(G: Any, s: Scan, w: Optional[_weights.Weights], weight: Optional[str]) -> Any:
    """The ordo graph of a scan, with the weights ``w`` when ordo takes them
    (unweighted otherwise)."""
    ordo_weights = None if w is None else w.ordo
    g = _ordo.Graph.from_csr(s.indptr, s.indices, ordo_weights)
    kind = type(G).__name__
    attr = "" if ordo_weights is None else f" weight={weight}"
    return g._with_origin(origin_of(G, s, None if ordo_weights is None else weight), f"networkx {kind} n={len(s.nodes)}{attr}")


def graph_of_networkx(G: Any, weight: Optional[str] = "weight") -> Any:
    """``ordo.Graph.from_networkx``: the ordo graph of ``G`` with the weights
    of the attribute ``weight`` (a ``ValueError`` when ordo cannot take
    them)."""
    if not hasattr(G, "is_multigraph") or not hasattr(G, "is_directed"):
        raise ValueError(f"from_networkx: expected a networkx graph, got {type(G).__name__}")
    s = scan(G, weight)
    w = None if s.values is None else _weights.classify(s.values, len(s.nodes))
    if w is not None and not w.supported:
        raise ValueError(f"from_networkx: attribute {weight!r}: {w.reason}; pass weight=None for an unweighted graph")
    return ordo_graph(G, s, w, weight)


def _plain_class(G: Any) -> type:
    """The networkx class of ``G`` (of the graph a view shows)."""
    import networkx as nx

    if G.is_multigraph():
        return nx.MultiDiGraph if G.is_directed() else nx.MultiGraph
    return nx.DiGraph if G.is_directed() else nx.Graph


def networkx_of_graph(g: Any) -> Any:
    """``ordo.Graph.to_networkx``: a networkx graph of the ordo graph ``g``."""
    import networkx as nx

    origin: Optional[Origin] = g._origin
    cls = nx.DiGraph if origin is None else origin.graph_class
    attr = "weight" if origin is None or origin.weight is None else origin.weight
    H = cls()
    nodes = list(range(g.n)) if origin is None else origin.nodes
    H.add_nodes_from(nodes)
    src, dst, w = g.edges()
    if not H.is_directed():
        # Both directions are stored; each edge is read from its lower end.
        keep = src <= dst
        src, dst, w = src[keep], dst[keep], w[keep]
    weighted = g.weighted
    if weighted and not H.is_multigraph():
        # Parallel edges become one: the least weight is written last.
        order = np.argsort(-w.astype(np.int64), kind="stable")
        src, dst, w = src[order], dst[order], w[order]
    if origin is not None:
        node = nodes.__getitem__
        us, vs = list(map(node, src.tolist())), list(map(node, dst.tolist()))
    else:
        us, vs = src.tolist(), dst.tolist()
    if weighted:
        H.add_weighted_edges_from(zip(us, vs, w.tolist()), weight=attr)
    else:
        H.add_edges_from(zip(us, vs))
    return H
