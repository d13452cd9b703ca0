"""Turn a thresholded weight matrix into a DAG (continuous-optimisation methods).

NOTEARS, GOLEM, DAGMA and SDCD only approximately satisfy their acyclicity constraint, so
the thresholded matrix can keep a directed cycle; a ``dag`` prediction with a cycle is scored
``invalid`` (issue 10 section 1).  :func:`make_acyclic` repairs it by removing the weakest edge
(smallest ``|W|``) of each remaining cycle, one cycle at a time, and says so in the notes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["make_acyclic"]


def make_acyclic(
    adjacency: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Remove the weakest edge of each directed cycle until the graph is acyclic.

    Parameters
    ----------
    adjacency : ndarray of {0, 1}, shape (d, d)
        Thresholded graph, ``A[i, j] = 1`` iff ``i -> j``.
    weights : ndarray of float, shape (d, d), or None
        Edge strengths (``|W|``); ``None`` treats every edge as equally strong (the first edge
        of the cycle found is removed).

    Returns
    -------
    adjacency : ndarray of int8, shape (d, d)
        Acyclic; equal to the input when it already was.
    notes : dict
        ``{"dag_repair": "none"}`` or ``{"dag_repair": "removed the weakest edge of each
        cycle", "removed_edges": [[i, j], ...], "removed_weights": [|w|, ...],
        "_index_keys": ["removed_edges"]}`` (JSON-serialisable; ``_index_keys`` tells
        :func:`causalarena.baselines.base.make_fit` to map the column indices back when
        constant columns were dropped).
    """
    import networkx as nx

    a = (np.asarray(adjacency) != 0).astype(np.int8)
    w = np.ones(a.shape) if weights is None else np.abs(np.asarray(weights, dtype=np.float64))
    g = nx.DiGraph()
    g.add_nodes_from(range(a.shape[0]))
    g.add_edges_from((int(i), int(j)) for i, j in np.argwhere(a))
    removed = []
    while True:
        try:
            cycle = nx.find_cycle(g)
        except nx.NetworkXNoCycle:
            break
        i, j = min(cycle, key=lambda e: (w[e[0], e[1]], e))[:2]
        g.remove_edge(i, j)
        a[i, j] = 0
        removed.append((int(i), int(j), float(w[i, j])))
    if not removed:
        return a, {"dag_repair": "none"}
    return a, {
        "dag_repair": "removed the weakest edge of each cycle",
        "removed_edges": [[i, j] for i, j, _ in removed],
        "removed_weights": [v for _, _, v in removed],
        "_index_keys": ["removed_edges"],
    }
