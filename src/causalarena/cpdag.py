"""CPDAG algebra shared by the scorer (``eval``) and the method wrappers (``baselines``).

Pure functions over boolean adjacency matrices in the package convention (``A[i, j]`` true
iff ``i -> j``; an undirected edge ``i - j`` is the symmetric pair).  They sit in the bottom
layer so that ``baselines`` (which may not import ``eval``) and ``eval`` use one
implementation.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["bool_matmul", "consistent_extension", "cpdag_of_dag"]


def bool_matmul(x: NDArray[np.bool_], y: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Boolean matrix product ``(x @ y) > 0`` through float32 BLAS.

    Parameters
    ----------
    x, y : ndarray of bool, shapes (d, k) and (k, m)

    Returns
    -------
    ndarray of bool, shape (d, m)
    """
    return (x.astype(np.float32) @ y.astype(np.float32)) > 0.5


def cpdag_of_dag(a: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """CPDAG of an acyclic boolean adjacency: v-structures, then Meek's R1-R3 (Meek 1995).

    Vectorised: the v-structure edges are ``a & (N @ a)`` with ``N`` the non-adjacency
    matrix, and each round applies R1 and R2 to every undirected pair at once through boolean
    matrix products; R3 is checked only on pairs with at least two candidate ``k``.  Applying
    sound rules simultaneously reaches the same fixpoint as one at a time (every step keeps
    the partially directed graph sound, and the fixpoint is complete; Meek 1995).

    Parameters
    ----------
    a : ndarray of bool, shape (d, d)
        Acyclic (not checked here; callers validate).

    Returns
    -------
    ndarray of bool, shape (d, d)
        Compelled edges directed, reversible edges as symmetric pairs.

    Raises
    ------
    RuntimeError
        If a rule orients an edge against ``a`` (impossible for an acyclic input).
    """
    adj = a | a.T
    non = ~adj
    np.fill_diagonal(non, False)
    non_f = non.astype(np.float32)
    directed = a & ((non_f @ a.astype(np.float32)) > 0.5)  # i -> k <- j, i, j non-adjacent
    undirected = adj & ~directed & ~directed.T
    while undirected.any():
        d_f = directed.astype(np.float32)
        # R1: k -> i, i - j, k and j non-adjacent  =>  i -> j
        # R2: i -> k -> j, i - j  =>  i -> j
        new = undirected & (((d_f.T @ non_f) > 0.5) | ((d_f @ d_f) > 0.5))
        # R3: i - k -> j, i - l -> j, k and l non-adjacent, i - j  =>  i -> j
        cand3 = undirected & ~new
        if cand3.any():
            count = undirected.astype(np.float32) @ d_f
            for i, j in np.argwhere(cand3 & (count > 1.5)):
                cand = np.flatnonzero(undirected[i] & directed[:, j])
                if non[np.ix_(cand, cand)].any():
                    new[i, j] = True
        if not new.any():
            break
        if (new & ~a).any():  # the rules are sound: this cannot happen
            i, j = (int(v) for v in np.argwhere(new & ~a)[0])
            raise RuntimeError(f"Meek rules oriented {i} -> {j} against the DAG")
        directed |= new
        undirected &= ~(new | new.T)
    return directed | undirected


def consistent_extension(pattern: ArrayLike) -> NDArray[np.bool_] | None:
    """A DAG extension of a partially directed graph with no new v-structure, or None.

    Dor and Tarsi (1992): repeatedly pick the lowest-index node ``x`` that has no outgoing
    directed edge among the remaining nodes and whose every undirected neighbour is adjacent
    to all other neighbours of ``x``; orient its undirected edges into ``x`` and remove it.

    Parameters
    ----------
    pattern : array_like of {0, 1} or bool, shape (d, d)

    Returns
    -------
    ndarray of bool, shape (d, d), or None
        Keeps every directed edge; None when no extension exists (including a directed cycle).
    """
    a = np.asarray(pattern) != 0
    d = a.shape[0]
    und = a & a.T
    dire = a & ~a.T
    adj = a | a.T
    out = dire.copy()
    alive = np.ones(d, dtype=bool)
    n_out = dire.sum(axis=1)  # outgoing directed edges to alive nodes
    for _ in range(d):
        x = -1
        for v in np.flatnonzero(alive & (n_out == 0)).tolist():  # sinks, lowest index first
            nb = np.flatnonzero(adj[v] & alive)
            und_nb = nb[und[v, nb]]
            if und_nb.size == 0:
                x = v
                break
            # every undirected neighbour y must be adjacent to every other neighbour of v
            sub = adj[np.ix_(und_nb, nb)]
            sub[np.arange(und_nb.size), np.searchsorted(nb, und_nb)] = True
            if sub.all():
                x = v
                break
        if x < 0:
            return None
        nb = np.flatnonzero(und[x] & alive)
        out[nb, x] = True
        alive[x] = False
        n_out -= dire[:, x]
    return out
