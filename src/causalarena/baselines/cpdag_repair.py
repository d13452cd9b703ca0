"""Repair a pattern that is not a valid CPDAG (PC with orientation conflicts).

PC orients v-structures one unshielded triple at a time; with finite samples two triples can
orient one edge both ways (causal-learn writes it bidirected, which
:func:`causalarena.baselines.causallearn_methods.causallearn_to_adjacency` turns undirected),
and the result need not be the CPDAG of any DAG; such a ``cpdag`` prediction is scored
``invalid``.  :func:`repair_cpdag` makes it valid deterministically: the CPDAG of a consistent
DAG extension (Dor and Tarsi 1992) when one exists, else the CPDAG of a deterministic order-oriented DAG on the same skeleton.  The
baselines layer cannot import ``eval``, so the two graph routines are re-derived here; the
tests check the result with :func:`causalarena.eval.metrics.cpdag_problem`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["cpdag_of_dag", "consistent_extension", "repair_cpdag"]


def consistent_extension(pattern: np.ndarray) -> np.ndarray | None:
    """A DAG extension of a partially directed graph with no new v-structure, or None.

    Dor and Tarsi (1992): repeatedly remove a node ``x`` with no outgoing directed edge among
    the remaining nodes whose every undirected neighbour is adjacent to all other neighbours of
    ``x``, orienting its undirected edges into ``x``; the lowest such index is taken.

    Parameters
    ----------
    pattern : ndarray of {0, 1}, shape (d, d)
        ``A[i, j] = 1`` iff ``i -> j``; undirected edges are symmetric pairs.

    Returns
    -------
    ndarray of bool, shape (d, d), or None
        Keeps every directed edge; None when no extension exists (including a directed cycle).
    """
    a = np.asarray(pattern) != 0
    d = a.shape[0]
    und, dire, adj = a & a.T, a & ~a.T, a | a.T
    out = dire.copy()
    alive = np.ones(d, dtype=bool)
    for _ in range(d):
        pick = None
        for x in np.flatnonzero(alive):
            if (dire[x] & alive).any():
                continue
            nbrs = np.flatnonzero(adj[x] & alive)
            if all(adj[y, z] for y in np.flatnonzero(und[x] & alive) for z in nbrs if z != y):
                pick = int(x)
                break
        if pick is None:
            return None
        out[np.flatnonzero(und[pick] & alive), pick] = True
        alive[pick] = False
    return out


def cpdag_of_dag(dag: np.ndarray) -> np.ndarray:
    """CPDAG of a DAG: its v-structures, then Meek's rules R1-R3 to the fixpoint (Meek 1995).

    Parameters
    ----------
    dag : ndarray of {0, 1}, shape (d, d)
        Acyclic, ``A[i, j] = 1`` iff ``i -> j``.

    Returns
    -------
    ndarray of bool, shape (d, d)
        Compelled edges directed, the others as symmetric pairs.
    """
    a = np.asarray(dag) != 0
    d = a.shape[0]
    adj = a | a.T
    directed = np.zeros_like(a)
    for j in range(d):
        pa = np.flatnonzero(a[:, j])
        for i in pa:
            for k in pa:
                if i != k and not adj[i, k]:
                    directed[i, j] = True
    undirected = adj & ~directed & ~directed.T
    changed = True
    while changed:
        changed = False
        for i, j in np.argwhere(undirected & a):  # only a DAG's own direction can be compelled
            if not undirected[i, j]:
                continue
            r1 = any(directed[k, i] and not adj[k, j] for k in range(d) if k != j)
            r2 = any(directed[i, k] and directed[k, j] for k in range(d))
            cand = [k for k in range(d) if undirected[i, k] and directed[k, j]]
            r3 = any(not adj[k, m] for k in cand for m in cand if k < m)
            if r1 or r2 or r3:
                directed[i, j] = True
                undirected[i, j] = undirected[j, i] = False
                changed = True
    return directed | undirected


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
