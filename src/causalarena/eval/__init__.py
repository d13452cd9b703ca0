"""Scoring of causal-discovery predictions against ground-truth graphs.

See :mod:`causalarena.eval.metrics` for the conventions (``A[i, j] = 1`` iff ``i -> j``) and
the rules for undirected, bidirected and PAG edges.
"""

from causalarena.eval.metrics import (
    ARROW,
    CIRCLE,
    NO_EDGE,
    TAIL,
    MixedGraph,
    adjacency_from_edges,
    cpdag,
    from_endpoints,
    mixed_graph,
    orient_randomly,
    score_graph,
)

__all__ = [
    "ARROW",
    "CIRCLE",
    "NO_EDGE",
    "TAIL",
    "MixedGraph",
    "adjacency_from_edges",
    "cpdag",
    "from_endpoints",
    "mixed_graph",
    "orient_randomly",
    "score_graph",
]
