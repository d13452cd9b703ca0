"""Repair a pattern that is not a valid CPDAG (PC with orientation conflicts).

PC orients v-structures one unshielded triple at a time; with finite samples two triples can
orient one edge both ways (causal-learn writes it bidirected, which
:func:`causalarena.baselines.causallearn_methods.causallearn_to_adjacency` turns undirected),
and the result need not be the CPDAG of any DAG; such a ``cpdag`` prediction is scored
``invalid``.  :func:`repair_cpdag` makes it valid deterministically: the CPDAG of a consistent
DAG extension (Dor and Tarsi 1992) when one exists, else the CPDAG of a deterministic
order-oriented DAG on the same skeleton.  The graph routines come from :mod:`causalarena.cpdag`,
the same ones the scorer's :func:`causalarena.eval.metrics.cpdag_problem` uses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from causalarena.cpdag import consistent_extension, cpdag_of_dag

__all__ = ["cpdag_of_dag", "consistent_extension", "repair_cpdag"]


def order_oriented_dag(pattern: np.ndarray) -> np.ndarray:
    """A DAG on the skeleton of ``pattern``, deterministic: directed edges are kept in index
    order unless one would close a directed cycle; the nodes are then ranked by Kahn's
    topological sort of the kept edges (lowest index first) and every other edge points from
    the earlier to the later node.  Used when no consistent extension exists (e.g. an
    undirected chordless cycle), where the bare skeleton would not be a valid CPDAG.

    Parameters
    ----------
    pattern : ndarray of {0, 1}, shape (d, d)

    Returns
    -------
    ndarray of bool, shape (d, d)
        Acyclic, same skeleton as ``pattern``.
    """
    a = np.asarray(pattern) != 0
    d = a.shape[0]
    kept = np.zeros_like(a)
    for i, j in np.argwhere(a & ~a.T):
        reach = np.zeros(d, dtype=bool)  # nodes reachable from j through kept edges
        stack = [int(j)]
        while stack:
            u = stack.pop()
            if reach[u]:
                continue
            reach[u] = True
            stack.extend(int(v) for v in np.flatnonzero(kept[u]) if not reach[v])
        if not reach[i]:
            kept[i, j] = True
    indeg = kept.sum(axis=0)
    rank = np.empty(d, dtype=int)
    done = np.zeros(d, dtype=bool)
    for r in range(d):
        x = int(np.flatnonzero(~done & (indeg == 0))[0])
        rank[x], done[x] = r, True
        indeg = indeg - kept[x]
    skel = a | a.T
    return skel & (rank[:, None] < rank[None, :])


def repair_cpdag(pattern: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """Return ``pattern`` if it is a valid CPDAG, else a deterministic valid repair.

    Parameters
    ----------
    pattern : ndarray of {0, 1}, shape (d, d)
        CPDAG convention (``A[i, j] = 1`` iff ``i -> j``; undirected = symmetric pair).

    Returns
    -------
    adjacency : ndarray of int8, shape (d, d)
    notes : dict
        ``{"cpdag_repair": "none"}``, ``{"cpdag_repair": "cpdag of a consistent extension",
        "cpdag_repair_changed": n}`` or ``{"cpdag_repair": "cpdag of an order-oriented
        DAG (no consistent extension)", "cpdag_repair_changed": n}`` (:func:`order_oriented_dag`), ``n`` the number of changed entries.
    """
    a = np.asarray(pattern) != 0
    ext = consistent_extension(a)
    if ext is not None:
        fixed = cpdag_of_dag(ext)
        kind = "cpdag of a consistent extension"
    else:
        fixed = cpdag_of_dag(order_oriented_dag(a))
        kind = "cpdag of an order-oriented DAG (no consistent extension)"
    changed = int((fixed != a).sum())
    if changed == 0:
        return a.astype(np.int8), {"cpdag_repair": "none"}
    return fixed.astype(np.int8), {"cpdag_repair": kind, "cpdag_repair_changed": changed}
