"""Graph-recovery metrics used to score causal-discovery predictions.

A method receives a dataset and returns an estimate of the adjacency matrix of the true DAG
(CausalArena paper, Sec. 3.1, eq. 2); an instance score ``m(A_hat, A)`` is then aggregated over
instances and slices (eqs. 5-6). This module computes the instance-level ``m`` for every metric
listed in appendix B.2: directed-edge precision, recall and F1, the structural Hamming distance
(SHD) and its normalised form, the structural intervention distance (SID) and, when a method
returns edge scores, AUROC and average precision (AP).

Conventions
-----------
* ``A[i, j] = 1`` means the edge ``i -> j`` (row = parent, column = child). This holds for the
  truth, the prediction and the edge scores alike.
* A predicted *mixed* graph (DAG, CPDAG or PAG) is held in a :class:`MixedGraph`. From a plain
  matrix (:func:`mixed_graph`), ``A[i, j] = 1, A[j, i] = 0`` is ``i -> j`` and
  ``A[i, j] = A[j, i] = 1`` is the undirected edge ``i - j`` (the CPDAG convention of pcalg,
  causal-learn, gies and gcastle); bidirected edges ``i <-> j`` come from a separate boolean
  matrix. PAG endpoint matrices are read with :func:`from_endpoints`.
* Directed-graph metrics are computed after turning the prediction into a directed graph with
  :func:`orient_randomly` (appendix B.2: undirected edges are randomly oriented with a fixed
  per-instance seed).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

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

#: PAG endpoint codes of :func:`from_endpoints` (pcalg ``amat.pag`` convention).
NO_EDGE, CIRCLE, ARROW, TAIL = 0, 1, 2, 3

_GADJID_DIRECTION = "from row to column"  # gadjid's name for our A[i, j] = 1 <=> i -> j


# ----------------------------------------------------------------------------------------------
# validation helpers
# ----------------------------------------------------------------------------------------------
def _first_index(mask: NDArray[np.bool_]) -> tuple[int, ...]:
    return tuple(int(v) for v in np.argwhere(mask)[0])


def _check_square(x: ArrayLike, what: str) -> NDArray[Any]:
    a = np.asarray(x)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{what} must be a square 2-D matrix, got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"{what} is empty (shape {a.shape}); a graph needs at least one node")
    if not (
        np.issubdtype(a.dtype, np.bool_)
        or np.issubdtype(a.dtype, np.integer)
        or np.issubdtype(a.dtype, np.floating)
    ):
        raise ValueError(f"{what} must hold numbers or booleans, got dtype {a.dtype}")
    return a


def _check_binary(x: ArrayLike, what: str) -> NDArray[np.int8]:
    """Validate a 0/1 adjacency matrix with zero diagonal and return it as int8."""
    a = _check_square(x, what)
    if np.issubdtype(a.dtype, np.floating):
        nan = np.isnan(a)
        if nan.any():
            raise ValueError(f"{what} contains NaN at index {_first_index(nan)}")
    bad = (a != 0) & (a != 1)
    if bad.any():
        idx = _first_index(bad)
        raise ValueError(
            f"{what} must be binary (0/1), found value {a[idx].item()!r} at index {idx}; "
            "threshold edge probabilities before scoring and pass them as edge_scores"
        )
    diag = np.flatnonzero(np.diag(a))
    if diag.size:
        i = int(diag[0])
        raise ValueError(f"{what} has a self-loop at node {i} (entry ({i}, {i}) is nonzero)")
    return a.astype(np.int8)


def _check_symmetric(a: NDArray[Any], what: str) -> None:
    asym = a != a.T
    if asym.any():
        i, j = _first_index(asym)
        raise ValueError(
            f"{what} must be symmetric, but entry ({i}, {j}) = {a[i, j].item()!r} differs from "
            f"entry ({j}, {i}) = {a[j, i].item()!r}"
        )


def _check_names(names: Sequence[Hashable], d: int, what: str) -> list[str]:
    keys = [str(n) for n in names]
    if len(keys) != d:
        raise ValueError(f"{what} has {len(keys)} names but the matrix has {d} nodes")
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"{what} contains duplicate names: {dup!r}")
    return keys


def _find_cycle(adj: NDArray[Any]) -> list[int] | None:
    """Return the nodes of one directed cycle of ``adj`` (i -> j convention), or None."""
    d = adj.shape[0]
    color = np.zeros(d, dtype=np.int8)  # 0 new, 1 on stack, 2 done
    parent = -np.ones(d, dtype=np.int64)
    children = [np.flatnonzero(adj[i]).tolist() for i in range(d)]
    for root in range(d):
        if color[root]:
            continue
        stack = [(root, iter(children[root]))]
        color[root] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[v] = 2
                stack.pop()
            elif color[nxt] == 0:
                color[nxt] = 1
                parent[nxt] = v
                stack.append((nxt, iter(children[nxt])))
            elif color[nxt] == 1:
                cycle = [v]
                while cycle[-1] != nxt:
                    cycle.append(int(parent[cycle[-1]]))
                return [int(c) for c in reversed(cycle)]
    return None


def _is_acyclic(adj: NDArray[Any]) -> bool:
    return _find_cycle(adj) is None


# ----------------------------------------------------------------------------------------------
# mixed graphs
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MixedGraph:
    """A predicted graph that may mix directed, undirected and bidirected edges.

    Every unordered pair of distinct nodes carries at most one edge. Build instances with
    :func:`mixed_graph` (DAG/CPDAG matrices) or :func:`from_endpoints` (PAG endpoint matrices)
    rather than by hand; the constructor validates and freezes the arrays.

    Parameters
    ----------
    directed : array_like of {0, 1}, shape (d, d), stored as int8
        ``directed[i, j] = 1`` iff ``i -> j``. Never set in both directions for one pair.
    undirected : array_like of bool, shape (d, d)
        Symmetric; ``undirected[i, j]`` iff ``i - j`` (an unoriented CPDAG edge, or a PAG edge
        ``i o-o j`` / ``i -- j``).
    bidirected : array_like of bool, shape (d, d)
        Symmetric; ``bidirected[i, j]`` iff ``i <-> j``.
    is_pag : bool, default False
        True when the graph was read from a PAG (:func:`from_endpoints`); the pattern-level SHD
        of :func:`score_graph` is then undefined.

    Raises
    ------
    ValueError
        If the matrices differ in shape, are not square, have a nonzero diagonal, if
        ``directed`` has both ``i -> j`` and ``j -> i``, if ``undirected``/``bidirected`` are
        not symmetric, or if a pair carries more than one kind of edge.
    """

    directed: NDArray[np.int8]
    undirected: NDArray[np.bool_]
    bidirected: NDArray[np.bool_]
    is_pag: bool = False

    def __post_init__(self) -> None:
        directed = _check_binary(self.directed, "directed")
        d = directed.shape[0]
        both = (directed == 1) & (directed.T == 1)
        if both.any():
            i, j = _first_index(both)
            raise ValueError(
                f"directed has both {i} -> {j} and {j} -> {i}; an undirected edge belongs in "
                "'undirected' (mixed_graph() converts the CPDAG convention)"
            )
        mats = {"directed": directed}
        for what in ("undirected", "bidirected"):
            m = _check_binary(getattr(self, what), what).astype(bool)
            if m.shape != (d, d):
                raise ValueError(f"{what} has shape {m.shape}, expected {(d, d)}")
            _check_symmetric(m, what)
            mats[what] = m
        d_any = (directed == 1) | (directed.T == 1)
        for a, b in (
            ("directed", "undirected"),
            ("directed", "bidirected"),
            ("undirected", "bidirected"),
        ):
            ma = d_any if a == "directed" else mats[a]
            clash = ma & mats[b]
            if clash.any():
                i, j = _first_index(clash)
                raise ValueError(f"pair ({i}, {j}) is both {a} and {b}; give one edge per pair")
        for what, m in mats.items():
            m.setflags(write=False)
            object.__setattr__(self, what, m)

    @property
    def d(self) -> int:
        """int: Number of nodes."""
        return int(self.directed.shape[0])

    @property
    def n_undirected(self) -> int:
        """int: Number of undirected pairs (each counted once)."""
        return int(np.triu(self.undirected, 1).sum())

    @property
    def n_bidirected(self) -> int:
        """int: Number of bidirected pairs (each counted once)."""
        return int(np.triu(self.bidirected, 1).sum())

    def permuted(self, order: Sequence[int]) -> MixedGraph:
        """Return the graph whose node ``k`` is node ``order[k]`` of this graph.

        Parameters
        ----------
        order : sequence of int, length d
            A permutation of ``range(d)``.

        Returns
        -------
        MixedGraph
        """
        ix = np.ix_(np.asarray(order), np.asarray(order))
        return MixedGraph(
            self.directed[ix], self.undirected[ix], self.bidirected[ix], is_pag=self.is_pag
        )


def mixed_graph(adjacency: ArrayLike, bidirected: ArrayLike | None = None) -> MixedGraph:
    """Read a DAG/CPDAG adjacency matrix (optionally with bidirected edges) as a mixed graph.

    Parameters
    ----------
    adjacency : array_like of {0, 1}, shape (d, d)
        ``A[i, j] = 1, A[j, i] = 0`` is ``i -> j``; ``A[i, j] = A[j, i] = 1`` is the undirected
        edge ``i - j`` (CPDAG convention). Bool, integer or float dtype with values 0/1.
    bidirected : array_like of bool or {0, 1}, shape (d, d), optional
        Symmetric; ``bidirected[i, j]`` marks ``i <-> j``. At such a pair ``adjacency`` must be
        0 in both directions or 1 in both directions (both are accepted because exporters
        write ``<->`` either way); the pair is then read as bidirected, not undirected.

    Returns
    -------
    MixedGraph

    Raises
    ------
    ValueError
        If a matrix is not square, not binary, contains NaN or has a nonzero diagonal, if the
        shapes differ, if ``bidirected`` is not symmetric, or if a bidirected pair is directed
        one way in ``adjacency``.
    """
    a = _check_binary(adjacency, "adjacency").astype(bool)
    d = a.shape[0]
    if bidirected is None:
        bi = np.zeros((d, d), dtype=bool)
    else:
        bi = _check_binary(bidirected, "bidirected").astype(bool)
        if bi.shape != a.shape:
            raise ValueError(f"bidirected has shape {bi.shape}, adjacency has shape {a.shape}")
        _check_symmetric(bi, "bidirected")
        one_way = bi & (a != a.T)
        if one_way.any():
            i, j = _first_index(one_way)
            raise ValueError(
                f"pair ({i}, {j}) is marked bidirected but adjacency has it directed one way "
                f"(A[{i}, {j}] = {int(a[i, j])}, A[{j}, {i}] = {int(a[j, i])})"
            )
    directed = a & ~a.T & ~bi
    undirected = a & a.T & ~bi
    return MixedGraph(directed.astype(np.int8), undirected, bi)


def from_endpoints(endpoints: ArrayLike) -> MixedGraph:
    """Read a PAG endpoint-mark matrix (pcalg ``amat.pag`` convention) as a mixed graph.

    ``E[i, j]`` is the mark *at node j* on the edge between ``i`` and ``j``: 0 no edge
    (:data:`NO_EDGE`), 1 circle (:data:`CIRCLE`), 2 arrowhead (:data:`ARROW`), 3 tail
    (:data:`TAIL`). So ``i -> j`` is ``E[i, j] = 2, E[j, i] = 3`` and ``i o-> j`` is
    ``E[i, j] = 2, E[j, i] = 1``.

    Each edge is mapped by the *liberal orientation rule* used for directed-graph metrics of
    PAG outputs (the paper's appendix B.3 mentions such a rule for CDIS without spelling it
    out; this is ours). Writing the marks as (mark at i, mark at j):

    * ``i -> j`` (tail, arrow) and ``i o-> j`` (circle, arrow): directed ``i -> j``;
    * ``i --o j`` (tail, circle): directed ``i -> j`` (the tail says ``i`` is an ancestor of
      ``j``, so ``j -> i`` is excluded);
    * ``i o-o j`` (circle, circle) and ``i -- j`` (tail, tail): undirected;
    * ``i <-> j`` (arrow, arrow): bidirected;
    * the mirrored cases likewise with ``i`` and ``j`` swapped.

    Undirected and bidirected edges are later oriented by :func:`orient_randomly`.

    Parameters
    ----------
    endpoints : array_like of int in {0, 1, 2, 3}, shape (d, d)
        Endpoint-mark matrix with zero diagonal.

    Returns
    -------
    MixedGraph
        With ``is_pag=True``.

    Raises
    ------
    ValueError
        If the matrix is not square, contains NaN or a code outside {0, 1, 2, 3}, has a
        nonzero diagonal, or has an edge with a mark at one end only (``E[i, j] != 0`` but
        ``E[j, i] == 0``).
    """
    e = _check_square(endpoints, "endpoints")
    if np.issubdtype(e.dtype, np.floating) and np.isnan(e).any():
        raise ValueError(f"endpoints contains NaN at index {_first_index(np.isnan(e))}")
    bad = ~np.isin(e, (NO_EDGE, CIRCLE, ARROW, TAIL))
    if bad.any():
        idx = _first_index(bad)
        raise ValueError(
            f"endpoints must hold codes 0 (none), 1 (circle), 2 (arrowhead), 3 (tail); "
            f"found {e[idx].item()!r} at index {idx}"
        )
    e = e.astype(np.int8)
    diag = np.flatnonzero(np.diag(e))
    if diag.size:
        i = int(diag[0])
        raise ValueError(f"endpoints has a self-loop at node {i} (entry ({i}, {i}) is nonzero)")
    half = (e != NO_EDGE) != (e.T != NO_EDGE)
    if half.any():
        i, j = _first_index(half)
        raise ValueError(
            f"endpoints has a mark at one end only: E[{i}, {j}] = {int(e[i, j])}, "
            f"E[{j}, {i}] = {int(e[j, i])}; both are 0 for no edge"
        )
    at_j, at_i = e, e.T  # at_j[i, j]: mark at j;  at_i[i, j]: mark at i
    directed = ((at_j == ARROW) & np.isin(at_i, (TAIL, CIRCLE))) | (
        (at_j == CIRCLE) & (at_i == TAIL)
    )
    undirected = ((at_j == CIRCLE) & (at_i == CIRCLE)) | ((at_j == TAIL) & (at_i == TAIL))
    bidirected = (at_j == ARROW) & (at_i == ARROW)
    return MixedGraph(directed.astype(np.int8), undirected, bidirected, is_pag=True)


def adjacency_from_edges(
    edges: Iterable[tuple[Hashable, Hashable]], names: Sequence[Hashable]
) -> NDArray[np.int8]:
    """Build an adjacency matrix from a list of ``(parent, child)`` pairs.

    The result does not depend on the order of ``edges``; repeated pairs are harmless. Giving
    both ``(a, b)`` and ``(b, a)`` yields ``A[a, b] = A[b, a] = 1``, which
    :func:`score_graph` reads as the undirected edge ``a - b`` (CPDAG convention).

    Parameters
    ----------
    edges : iterable of (hashable, hashable)
        Directed edges ``parent -> child`` given by node name.
    names : sequence of hashable, length d
        Node names; row/column ``k`` of the result is ``names[k]``. Names are compared as
        ``str(name)`` and must be unique.

    Returns
    -------
    ndarray of int8, shape (d, d)
        ``A[i, j] = 1`` iff ``(names[i], names[j])`` is in ``edges``.

    Raises
    ------
    ValueError
        If names repeat, an edge names an unknown node, or an edge is a self-loop.
    """
    keys = _check_names(names, len(names), "names")
    pos = {k: i for i, k in enumerate(keys)}
    a = np.zeros((len(keys), len(keys)), dtype=np.int8)
    for edge in edges:
        parent, child = edge
        p, c = str(parent), str(child)
        unknown = [n for n in (p, c) if n not in pos]
        if unknown:
            raise ValueError(f"edge {edge!r} names unknown node(s) {unknown!r}")
        if p == c:
            raise ValueError(f"edge {edge!r} is a self-loop")
        a[pos[p], pos[c]] = 1
    return a


# ----------------------------------------------------------------------------------------------
# orientation of undirected / bidirected edges
# ----------------------------------------------------------------------------------------------
def _node_ranks(d: int, seed: Any, names: Sequence[Hashable] | None) -> NDArray[np.int64]:
    """Seeded random priority of each node, a function of the node *names* when given."""
    perm = np.random.default_rng(seed).permutation(d)
    if names is None:
        return perm
    keys = _check_names(names, d, "names")
    by_name = sorted(range(d), key=keys.__getitem__)
    rank = np.empty(d, dtype=np.int64)
    rank[by_name] = perm  # k-th name in sorted order gets priority perm[k]
    return rank


def _linear_extension(directed: NDArray[Any], rank: NDArray[np.int64]) -> NDArray[np.int64]:
    """Position of each node in a total order that extends ``directed`` where it can.

    Kahn's algorithm taking, among the nodes without unplaced parents, the one of smallest
    rank. If a directed cycle blocks it, the unplaced node of smallest rank is placed next.
    """
    d = directed.shape[0]
    indeg = directed.sum(axis=0).astype(np.int64)
    placed = np.zeros(d, dtype=bool)
    heap = [(int(rank[v]), v) for v in range(d) if indeg[v] == 0]
    heapq.heapify(heap)
    pos = np.empty(d, dtype=np.int64)
    n = 0
    while n < d:
        if not heap:  # directed cycle: break it at the unplaced node of smallest rank
            free = np.flatnonzero(~placed)
            v = int(free[np.argmin(rank[free])])
            heap.append((int(rank[v]), v))
        _, v = heapq.heappop(heap)
        if placed[v]:
            continue
        placed[v] = True
        pos[v] = n
        n += 1
        for c in np.flatnonzero(directed[v]):
            if not placed[c]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    heapq.heappush(heap, (int(rank[c]), int(c)))
    return pos


def orient_randomly(
    graph: MixedGraph | ArrayLike,
    *,
    seed: Any = 0,
    names: Sequence[Hashable] | None = None,
) -> NDArray[np.int8]:
    """Turn a mixed graph into a directed graph by seeded random orientation.

    Rule (our implementation of appendix B.2, "remaining undirected CPDAG edges are randomly
    oriented with a fixed per-file seed"):

    1. Draw a random priority for every node with ``numpy.random.default_rng(seed)``. When
       ``names`` are given, priorities are assigned to the names in sorted (``str``) order, so
       they depend on the names and not on the row order: relabelling/reordering the nodes
       consistently leaves the oriented graph unchanged up to the same relabelling.
    2. Build a total order of the nodes that respects the directed edges (Kahn's algorithm,
       ties broken by smallest priority). If the directed part has a cycle, the blocked
       unplaced node of smallest priority is placed next.
    3. Orient every undirected edge ``i - j`` *and* every bidirected edge ``i <-> j`` from the
       earlier to the later node of that order. Each such pair becomes exactly one directed
       edge, so it can never count as two predicted edges.

    Consequently the result is acyclic whenever the directed part is acyclic (no orientation
    could help otherwise: the directed part's own cycles remain). The oriented DAG is not
    guaranteed to lie in the Markov equivalence class of a CPDAG input (it may add
    v-structures); edge-count metrics do not depend on that, SID may.

    Parameters
    ----------
    graph : MixedGraph or array_like of {0, 1}, shape (d, d)
        A :class:`MixedGraph`, or a DAG/CPDAG adjacency read by :func:`mixed_graph`.
    seed : int or None or numpy.random.SeedSequence, default 0
        Seed passed to :func:`numpy.random.default_rng`; fix it per instance.
    names : sequence of hashable, length d, optional
        Node names (unique as ``str``), in row order of ``graph``.

    Returns
    -------
    ndarray of int8, shape (d, d)
        ``P[i, j] = 1`` iff ``i -> j``; never both ``P[i, j]`` and ``P[j, i]``.

    Raises
    ------
    ValueError
        If ``graph`` is invalid (see :func:`mixed_graph`) or ``names`` has the wrong length or
        duplicates.
    """
    g = graph if isinstance(graph, MixedGraph) else mixed_graph(graph)
    rank = _node_ranks(g.d, seed, names)
    pos = _linear_extension(g.directed, rank)
    forward = pos[:, None] < pos[None, :]
    free = g.undirected | g.bidirected
    return ((g.directed == 1) | (free & forward)).astype(np.int8)


# ----------------------------------------------------------------------------------------------
# CPDAG
# ----------------------------------------------------------------------------------------------
def cpdag(dag: ArrayLike) -> NDArray[np.int8]:
    """Essential graph (CPDAG) of a DAG.

    Keeps the edges of every v-structure ``i -> k <- j`` (``i``, ``j`` non-adjacent) directed,
    makes all other edges undirected, then applies Meek's rules R1-R3 until nothing changes
    (Meek 1995; R1-R3 are complete for this task, R4 is only needed with background
    knowledge). Two DAGs are Markov equivalent iff their CPDAGs are equal.

    Parameters
    ----------
    dag : array_like of {0, 1}, shape (d, d)
        Adjacency of a DAG, ``dag[i, j] = 1`` iff ``i -> j``.

    Returns
    -------
    ndarray of int8, shape (d, d)
        CPDAG in the CPDAG convention: a compelled edge ``i -> j`` is ``C[i, j] = 1,
        C[j, i] = 0``, a reversible edge is ``C[i, j] = C[j, i] = 1``.

    Raises
    ------
    ValueError
        If ``dag`` is not a valid adjacency matrix (see :func:`score_graph`) or has a cycle.
    """
    a = _check_binary(dag, "dag").astype(bool)
    cycle = _find_cycle(a)
    if cycle is not None:
        raise ValueError(f"dag has a directed cycle through nodes {cycle}")
    d = a.shape[0]
    adj = a | a.T
    directed = np.zeros((d, d), dtype=bool)
    for k in range(d):
        pa = np.flatnonzero(a[:, k])
        for n, i in enumerate(pa):
            for j in pa[n + 1 :]:
                if not adj[i, j]:
                    directed[i, k] = directed[j, k] = True
    undirected = adj & ~directed & ~directed.T

    changed = True
    while changed:
        changed = False
        for i, j in np.argwhere(undirected):
            if not undirected[i, j]:
                continue
            # R1: k -> i, i - j, k and j non-adjacent  =>  i -> j
            r1 = np.any(directed[:, i] & ~adj[:, j] & (np.arange(d) != j))
            # R2: i -> k -> j, i - j  =>  i -> j
            r2 = np.any(directed[i, :] & directed[:, j])
            # R3: i - k -> j, i - l -> j, k and l non-adjacent, i - j  =>  i -> j
            r3 = False
            if not (r1 or r2):
                cand = np.flatnonzero(undirected[i, :] & directed[:, j])
                if cand.size >= 2:
                    sub = adj[np.ix_(cand, cand)]
                    r3 = bool(np.any(~sub[np.triu_indices(cand.size, 1)]))
            if r1 or r2 or r3:
                if not a[i, j]:  # the rules are sound: this cannot happen
                    raise RuntimeError(f"Meek rules oriented {i} -> {j} against the DAG")
                directed[i, j] = True
                undirected[i, j] = undirected[j, i] = False
                changed = True
    return (directed | undirected).astype(np.int8)


# ----------------------------------------------------------------------------------------------
# scoring
# ----------------------------------------------------------------------------------------------
_NONE, _FWD, _BWD, _UND, _BI = 0, 1, 2, 3, 4


def _pair_codes(g: MixedGraph) -> NDArray[np.int8]:
    """Edge state of each unordered pair i < j (row-major upper triangle)."""
    iu = np.triu_indices(g.d, 1)
    code = np.zeros(iu[0].size, dtype=np.int8)
    code[g.directed[iu] == 1] = _FWD
    code[g.directed.T[iu] == 1] = _BWD
    code[g.undirected[iu]] = _UND
    code[g.bidirected[iu]] = _BI
    return code


def _pair_shd(true: MixedGraph, pred: MixedGraph, reversal_cost: int) -> tuple[int, int, int, int]:
    """(shd, missing, extra, mismatched-present) over unordered pairs.

    A pair present in both graphs with different marks costs 1, except an exact reversal
    (``i -> j`` versus ``j -> i``), which costs ``reversal_cost``.
    """
    t, p = _pair_codes(true), _pair_codes(pred)
    missing = int(np.sum((t != _NONE) & (p == _NONE)))
    extra = int(np.sum((t == _NONE) & (p != _NONE)))
    differ = (t != _NONE) & (p != _NONE) & (t != p)
    reversed_ = differ & np.isin(t, (_FWD, _BWD)) & np.isin(p, (_FWD, _BWD))
    n_diff, n_rev = int(differ.sum()), int(reversed_.sum())
    shd = missing + extra + (n_diff - n_rev) + reversal_cost * n_rev
    return shd, missing, extra, n_diff


def _check_scores(x: ArrayLike, what: str) -> NDArray[np.float64]:
    s = _check_square(x, what).astype(np.float64)
    off = ~np.eye(s.shape[0], dtype=bool)
    bad = off & ~np.isfinite(s)
    if bad.any():
        idx = _first_index(bad)
        raise ValueError(f"{what} has a non-finite value {s[idx].item()!r} at index {idx}")
    return s


def _ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def score_graph(
    true_adjacency: ArrayLike,
    pred_adjacency: MixedGraph | ArrayLike | None = None,
    *,
    edge_scores: ArrayLike | None = None,
    seed: Any = 0,
    names_true: Sequence[Hashable] | None = None,
    names_pred: Sequence[Hashable] | None = None,
    reversal_cost: int = 1,
    bidirected: ArrayLike | None = None,
) -> dict[str, Any]:
    """Score a predicted graph against the true DAG with the CausalArena metrics.

    This is the instance-level metric ``m(A_hat, A)`` of the paper's eqs. (5)-(6), with the
    metrics of appendix B.2. The prediction is first turned into a directed graph ``P`` by
    :func:`orient_randomly` (undirected and bidirected pairs oriented along a seeded random
    node order, each pair becoming exactly one directed edge); all directed metrics use ``P``.

    Parameters
    ----------
    true_adjacency : array_like of {0, 1}, shape (d, d)
        Adjacency of the true DAG, ``A[i, j] = 1`` iff ``i -> j`` (paper eq. 1).
    pred_adjacency : MixedGraph or array_like of {0, 1}, shape (d', d'), optional
        The prediction: a :class:`MixedGraph` (e.g. from :func:`from_endpoints` for PAGs) or a
        DAG/CPDAG matrix (``A[i, j] = A[j, i] = 1`` is an undirected edge). If None, only
        ``auroc`` and ``ap`` are computed from ``edge_scores`` and all hard-graph metrics are
        None.
    edge_scores : array_like of float, shape (d', d'), optional
        Higher means more confident in ``i -> j``; same convention and node order as the
        prediction. The diagonal is ignored.
    seed : int or None or numpy.random.SeedSequence, default 0
        Per-instance seed of the random orientation (B.2).
    names_true : sequence of hashable, length d, optional
        Names of the truth's nodes in row order; they also make the random orientation
        independent of the node numbering.
    names_pred : sequence of hashable, length d', optional
        Names of the prediction's (and edge scores') nodes in row order. When given, the
        prediction is reordered to the truth's order by name; needs ``names_true``. Without
        it, the prediction is assumed to be in the truth's order.
    reversal_cost : {1, 2}, default 1
        Cost of a reversed edge in ``shd`` and ``shd_pattern``.
    bidirected : array_like of bool, shape (d', d'), optional
        Bidirected edges of a matrix prediction (see :func:`mixed_graph`). Not allowed when
        ``pred_adjacency`` is already a :class:`MixedGraph`.

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``nshd``, ``auroc``, ``ap`` (float or None);
        ``shd``, ``sid``, ``shd_pattern`` (int or None); ``tp``, ``fp``, ``fn``,
        ``n_missing``, ``n_extra``, ``n_reversed`` (int or None, the SHD parts; with
        ``reversal_cost=1``, ``shd = n_missing + n_extra + n_reversed``),
        ``n_undirected``, ``n_bidirected`` (int or None, pairs in the prediction before
        orientation) and ``reversal_cost`` (int).

    Raises
    ------
    ValueError
        If both ``pred_adjacency`` and ``edge_scores`` are None; if a matrix is not square,
        not binary (adjacencies), contains NaN/inf, has a nonzero diagonal (adjacencies) or
        has the wrong shape; if the truth has a directed cycle; if ``names_pred`` is given
        without ``names_true``, names repeat or their count differs from the matrix size; if
        the two name sets differ (the message lists the missing and extra variables); if
        ``reversal_cost`` is not 1 or 2; or if ``bidirected`` is combined with a
        :class:`MixedGraph`.

    Notes
    -----
    * **Precision/recall/F1** (B.2, "directed-edge"): over ordered pairs ``(i, j)``, ``i != j``:
      ``tp = #(T=1, P=1)``, ``fp = #(T=0, P=1)``, ``fn = #(T=1, P=0)``. A reversed edge is one
      fp and one fn. ``precision = tp/(tp+fp)`` is None when nothing is predicted;
      ``recall = tp/(tp+fn)`` is None when the truth has no edge;
      ``f1 = 2tp/(2tp+fp+fn)``, which is 0 when precision or recall is 0 (also when nothing
      is predicted against a non-empty truth) and None only when both graphs are empty.
    * **SHD** (B.2): over unordered pairs, missing + extra + ``reversal_cost`` x reversed.
      ``reversal_cost=1`` counts a reversal once, ``reversal_cost=2`` twice (a missing plus
      an extra edge); the value used is returned under ``"reversal_cost"``.
      **nSHD** ``= shd / (d(d-1))`` (B.2); None for ``d = 1``.
    * **SID** (B.2): structural intervention distance (Peters & Buhlmann 2015) of ``P``
      against the truth, i.e. the number of ordered pairs whose interventional distribution is
      wrongly inferred from ``P``; computed with ``gadjid.sid`` (``"from row to column"``,
      which is our convention). None when ``P`` has a directed cycle (the prediction's
      directed part is cyclic); 0 when ``d = 1``.
    * **AUROC/AP** (B.2): ``sklearn.metrics.roc_auc_score`` and
      ``average_precision_score`` of ``edge_scores`` against the truth on the off-diagonal
      ordered pairs; None without ``edge_scores`` or when the truth has no edge or no
      non-edge.
    * **shd_pattern** (equivalence-class view, our addition): SHD between ``cpdag(truth)``
      and the predicted pattern. The predicted pattern is the prediction as given when it has
      undirected or bidirected edges, and ``cpdag(prediction)`` when it is a DAG (so a DAG in
      the true Markov equivalence class scores 0); a cyclic directed prediction is compared as
      given. Per pair, any difference costs 1 except an exact reversal, which costs
      ``reversal_cost``. None when the prediction is a PAG.
    """
    if isinstance(reversal_cost, bool) or reversal_cost not in (1, 2):
        raise ValueError(f"reversal_cost must be 1 or 2, got {reversal_cost!r}")
    if pred_adjacency is None and edge_scores is None:
        raise ValueError("give pred_adjacency, edge_scores or both; both are None")

    truth = _check_binary(true_adjacency, "true_adjacency")
    d = truth.shape[0]
    cycle = _find_cycle(truth)
    if cycle is not None:
        raise ValueError(f"true_adjacency must be a DAG but has a directed cycle through {cycle}")

    graph: MixedGraph | None
    if pred_adjacency is None:
        if bidirected is not None:
            raise ValueError("bidirected was given without pred_adjacency")
        graph = None
    elif isinstance(pred_adjacency, MixedGraph):
        if bidirected is not None:
            raise ValueError(
                "bidirected cannot be combined with a MixedGraph prediction; put the "
                "bidirected edges into the MixedGraph"
            )
        graph = pred_adjacency
    else:
        graph = mixed_graph(
            _check_binary(pred_adjacency, "pred_adjacency"),
            None if bidirected is None else _check_binary(bidirected, "bidirected"),
        )
    scores = None if edge_scores is None else _check_scores(edge_scores, "edge_scores")
    if graph is not None and scores is not None and scores.shape != (graph.d, graph.d):
        raise ValueError(
            f"edge_scores has shape {scores.shape} but pred_adjacency has shape "
            f"{(graph.d, graph.d)}"
        )
    d_pred = graph.d if graph is not None else scores.shape[0]  # type: ignore[union-attr]

    keys_true = None if names_true is None else _check_names(names_true, d, "names_true")
    if names_pred is not None:
        if keys_true is None:
            raise ValueError("names_pred needs names_true to align the prediction by name")
        keys_pred = _check_names(names_pred, d_pred, "names_pred")
        missing = sorted(set(keys_true) - set(keys_pred))
        extra = sorted(set(keys_pred) - set(keys_true))
        if missing or extra:
            raise ValueError(
                "variables differ between truth and prediction: "
                f"missing from prediction {missing!r}, extra in prediction {extra!r}"
            )
        where = {k: i for i, k in enumerate(keys_pred)}
        order = [where[k] for k in keys_true]
        if graph is not None:
            graph = graph.permuted(order)
        if scores is not None:
            scores = scores[np.ix_(order, order)]
    elif d_pred != d:
        what = "pred_adjacency" if graph is not None else "edge_scores"
        raise ValueError(f"{what} has shape {(d_pred, d_pred)}, true_adjacency has {(d, d)}")

    result: dict[str, Any] = dict.fromkeys(
        (
            "precision",
            "recall",
            "f1",
            "shd",
            "nshd",
            "sid",
            "auroc",
            "ap",
            "shd_pattern",
            "n_undirected",
            "n_bidirected",
            "tp",
            "fp",
            "fn",
            "n_missing",
            "n_extra",
            "n_reversed",
        )
    )
    result["reversal_cost"] = reversal_cost

    if graph is not None:
        pred = orient_randomly(graph, seed=seed, names=keys_true)
        t, p = truth.astype(bool), pred.astype(bool)
        tp, fp, fn = int(np.sum(t & p)), int(np.sum(~t & p)), int(np.sum(t & ~p))
        true_g = MixedGraph(truth, np.zeros_like(t), np.zeros_like(t))
        pred_g = MixedGraph(pred, np.zeros_like(t), np.zeros_like(t))
        shd, n_missing, n_extra, n_rev = _pair_shd(true_g, pred_g, reversal_cost)
        result.update(
            tp=tp,
            fp=fp,
            fn=fn,
            precision=_ratio(tp, tp + fp),
            recall=_ratio(tp, tp + fn),
            f1=_ratio(2 * tp, 2 * tp + fp + fn),
            shd=shd,
            nshd=_ratio(shd, d * (d - 1)),
            n_missing=n_missing,
            n_extra=n_extra,
            n_reversed=n_rev,
            n_undirected=graph.n_undirected,
            n_bidirected=graph.n_bidirected,
            sid=_sid(truth, pred),
            shd_pattern=None if graph.is_pag else _pattern_shd(truth, graph, reversal_cost),
        )

    if scores is not None:
        off = ~np.eye(d, dtype=bool)
        y, s = truth[off].astype(np.int64), scores[off]
        if 0 < y.sum() < y.size:
            from sklearn.metrics import average_precision_score, roc_auc_score

            result["auroc"] = float(roc_auc_score(y, s))
            result["ap"] = float(average_precision_score(y, s))
    return result


def _sid(truth: NDArray[np.int8], pred: NDArray[np.int8]) -> int | None:
    if truth.shape[0] < 2:
        return 0  # no ordered pair of distinct nodes (gadjid rejects graphs with < 2 nodes)
    if not _is_acyclic(pred):
        return None  # SID is defined for DAGs only (gadjid would abort on a cycle)
    import gadjid

    _, count = gadjid.sid(
        np.ascontiguousarray(truth, dtype=np.int8),
        np.ascontiguousarray(pred, dtype=np.int8),
        edge_direction=_GADJID_DIRECTION,
    )
    return int(count)


def _pattern_shd(truth: NDArray[np.int8], graph: MixedGraph, reversal_cost: int) -> int:
    true_pattern = mixed_graph(cpdag(truth))
    pattern = graph
    if graph.n_undirected == 0 and graph.n_bidirected == 0 and _is_acyclic(graph.directed):
        pattern = mixed_graph(cpdag(graph.directed))
    return _pair_shd(true_pattern, pattern, reversal_cost)[0]
