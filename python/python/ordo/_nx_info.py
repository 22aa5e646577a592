"""What the networkx backend ``"ordo"`` implements, for networkx's
``networkx.backend_info`` entry point (networkx reads it while it is being
imported, so this module imports neither networkx nor ``ordo.nx``)."""

from typing import Any, Dict

#: The functions ``ordo.nx`` implements, with what networkx's docs add to
#: each (its "Backends" section).
FUNCTIONS: Dict[str, str] = {
    "single_source_dijkstra_path_length": "ordo's sssp; integer weights in 0..2**32-1.",
    "dijkstra_path_length": "ordo's sssp; integer weights in 0..2**32-1.",
    "single_source_shortest_path_length": "ordo's bfs.",
    "shortest_path_length": "With a source: ordo's bfs (weight=None) or sssp; integer weights in 0..2**32-1.",
    "astar_path_length": "Without a heuristic: ordo's sssp; integer weights in 0..2**32-1.",
    "pagerank": "ordo's pr-pull, normalised (networkx's dangling-node semantics); "
    "no personalization, nstart or dangling; unweighted or equal weights.",
    "betweenness_centrality": "ordo's bc over all sources; unweighted, endpoints=False.",
    "transitivity": "ordo's tc triangle count over the simple degrees.",
    "minimum_spanning_tree": "ordo's mst on the edges' ranks (Kruskal's tree); "
    "prim/boruvka when no two weights tie.",
    "minimum_spanning_edges": "ordo's mst on the edges' ranks, in Kruskal's order (algorithm='kruskal').",
    "connected_components": "ordo's span-bfs forest.",
    "number_connected_components": "ordo's span-bfs forest.",
}


def get_info() -> Dict[str, Any]:
    """The backend's description for networkx."""
    from . import __version__

    return {
        "backend_name": "ordo",
        "project": "ordo",
        "package": "ordo",
        "short_summary": "Parallel priority-scheduled graph algorithms (Rust).",
        "version": __version__,
        "functions": {name: {"additional_docs": docs} for name, docs in FUNCTIONS.items()},
        "default_config": {"threads": None},
    }
