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

import functools
import heapq
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from causalarena.cpdag import consistent_extension as _extension
from causalarena.cpdag import cpdag_of_dag as _cpdag_of

__all__ = [
    "ARROW",
    "CIRCLE",
    "NO_EDGE",
    "TAIL",
    "MixedGraph",
    "adjacency_from_edges",
    "cpdag",
    "cpdag_problem",
    "dag_extension",
    "from_endpoints",
    "mixed_graph",
    "orient_randomly",
    "score_graph",
    "sid_bounds",
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
    if a.dtype == np.bool_:
        pass  # always binary
    elif a.dtype == np.int8 or a.dtype == np.uint8:
        if (a.view(np.uint8) > 1).any():
            _raise_not_binary(a, what)
    else:
        if np.issubdtype(a.dtype, np.floating):
            nan = np.isnan(a)
            if nan.any():
                raise ValueError(f"{what} contains NaN at index {_first_index(nan)}")
        if ((a != 0) & (a != 1)).any():
            _raise_not_binary(a, what)
    diag = np.flatnonzero(np.diagonal(a))
    if diag.size:
        i = int(diag[0])
        raise ValueError(f"{what} has a self-loop at node {i} (entry ({i}, {i}) is nonzero)")
    return a if a.dtype == np.int8 else a.astype(np.int8)


def _raise_not_binary(a: NDArray[Any], what: str) -> None:
    idx = _first_index((a != 0) & (a != 1))
    raise ValueError(
        f"{what} must be binary (0/1), found value {a[idx].item()!r} at index {idx}; "
        "threshold edge probabilities before scoring and pass them as edge_scores"
    )


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
        raise ValueError(f"{what} contains duplicate names: {', '.join(dup)}")
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
    """True iff ``adj`` (i -> j convention) has no directed cycle.

    Kahn's algorithm over the edge list (extracted at once with ``numpy.nonzero``): a graph
    is acyclic iff repeatedly removing nodes without remaining parents removes them all.
    Costs O(d + e).
    """
    a = np.asarray(adj)
    rows, cols = np.nonzero(a)
    if rows.size == 0:
        return True
    d = a.shape[0]
    indeg = np.bincount(cols, minlength=d).tolist()
    start = np.searchsorted(rows, np.arange(d + 1)).tolist()
    child = cols.tolist()
    ready = [v for v in range(d) if indeg[v] == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for k in range(start[v], start[v + 1]):
            w = child[k]
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    return seen == d


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
        directed = _check_binary(self.directed, "directed").copy()
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

    @classmethod
    def _trusted(
        cls,
        directed: NDArray[np.int8],
        undirected: NDArray[np.bool_],
        bidirected: NDArray[np.bool_],
        is_pag: bool = False,
    ) -> MixedGraph:
        """Wrap arrays that are valid by construction (no checks; callers own the arrays)."""
        g = object.__new__(cls)
        for what, m in (
            ("directed", directed),
            ("undirected", undirected),
            ("bidirected", bidirected),
        ):
            m.setflags(write=False)
            object.__setattr__(g, what, m)
        object.__setattr__(g, "is_pag", is_pag)
        return g

    @property
    def d(self) -> int:
        """int: Number of nodes."""
        return int(self.directed.shape[0])

    @property
    def n_undirected(self) -> int:
        """int: Number of undirected pairs (each counted once)."""
        return int(np.count_nonzero(self.undirected)) // 2

    @property
    def n_bidirected(self) -> int:
        """int: Number of bidirected pairs (each counted once)."""
        return int(np.count_nonzero(self.bidirected)) // 2

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
    sym = a & a.T
    if bidirected is None:
        # valid by construction: one-way pairs directed, symmetric pairs undirected
        return MixedGraph._trusted((a & ~sym).view(np.int8), sym, bi)
    directed = a & ~a.T & ~bi
    undirected = sym & ~bi
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
            raise ValueError(f"edge {p} -> {c} names unknown node(s) {', '.join(unknown)}")
        if p == c:
            raise ValueError(f"edge {p} -> {c} is a self-loop")
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
    free = g.undirected | g.bidirected
    if not free.any():
        if names is not None:
            _check_names(names, g.d, "names")
        return g.directed.astype(np.int8, copy=True)
    rank = _node_ranks(g.d, seed, names)
    pos = _linear_extension(g.directed, rank)
    forward = pos[:, None] < pos[None, :]
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
    if not _is_acyclic(a):
        raise ValueError(f"dag has a directed cycle through nodes {_find_cycle(a)}")
    return _cpdag_of(a).astype(np.int8)


def dag_extension(pattern: ArrayLike) -> NDArray[np.int8] | None:
    """A consistent DAG extension of a partially directed graph, or None if it has none.

    Dor and Tarsi (1992): repeatedly pick a node ``x`` that has no outgoing directed edge
    among the remaining nodes and whose every undirected neighbour is adjacent to all other
    neighbours of ``x``; orient all undirected edges at ``x`` into ``x`` and remove ``x``.
    The result keeps every directed edge, orients every undirected one, is acyclic and has no
    v-structure the pattern does not have.  When no such node exists the pattern has no
    consistent extension.

    Parameters
    ----------
    pattern : array_like of {0, 1}, shape (d, d)
        CPDAG convention (``A[i, j] = A[j, i] = 1`` is ``i - j``).

    Returns
    -------
    ndarray of int8, shape (d, d) or None

    Raises
    ------
    ValueError
        If ``pattern`` is not a binary square matrix with zero diagonal.
    """
    a = _check_binary(pattern, "pattern").astype(bool)
    ext = _extension(a)
    return None if ext is None else ext.astype(np.int8)


def cpdag_problem(pattern: ArrayLike) -> str | None:
    """Why a matrix is not a valid CPDAG, or None when it is one.

    A valid CPDAG is the CPDAG of some DAG: it has a consistent DAG extension
    (:func:`dag_extension`) and the CPDAG of that extension (:func:`cpdag`) is the matrix
    itself (Andersson et al. 1997; any consistent extension lies in the same Markov
    equivalence class, so one extension decides).

    Parameters
    ----------
    pattern : array_like of {0, 1}, shape (d, d)
        CPDAG convention.

    Returns
    -------
    str or None
        A sentence naming the offending edge (or the directed cycle), without Python reprs.

    Raises
    ------
    ValueError
        If ``pattern`` is not a binary square matrix with zero diagonal.
    """
    a = _check_binary(pattern, "pattern").astype(bool)
    dire = a & ~a.T
    if not _is_acyclic(dire):
        cyc = _find_cycle(dire)
        return "its directed edges form a cycle " + " -> ".join(map(str, [*cyc, cyc[0]]))
    ext = _extension(a)
    if ext is None:
        return (
            "it has no consistent DAG extension (every orientation of its undirected edges "
            "adds a v-structure or a cycle)"
        )
    c = _cpdag_of(ext)
    diff = c != a
    if not diff.any():
        return None
    i, j = _first_index(diff)
    if a[i, j] and a[j, i]:
        k, m = (i, j) if c[i, j] else (j, i)
        i, j = min(i, j), max(i, j)
        return f"edge {i} - {j} is undirected, but every DAG with its v-structures has {k} -> {m}"
    k, m = (i, j) if a[i, j] else (j, i)
    return (
        f"edge {k} -> {m} is directed, but the DAGs with its v-structures also allow "
        f"{m} -> {k} (a CPDAG leaves it undirected)"
    )


# ----------------------------------------------------------------------------------------------
# scoring
# ----------------------------------------------------------------------------------------------
_NONE, _FWD, _BWD, _UND, _BI = 0, 1, 2, 3, 4


@functools.lru_cache(maxsize=64)
def _triu(d: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    return np.triu_indices(d, 1)


def _codes(directed: NDArray[np.bool_], undirected: NDArray[np.bool_]) -> NDArray[np.int8]:
    """Edge state of each unordered pair i < j (row-major upper triangle)."""
    iu = _triu(directed.shape[0])
    code = np.zeros(iu[0].size, dtype=np.int8)
    code[directed[iu]] = _FWD
    code[directed.T[iu]] = _BWD
    code[undirected[iu]] = _UND
    return code


def _pair_codes(g: MixedGraph) -> NDArray[np.int8]:
    """Edge state of each unordered pair i < j of a mixed graph."""
    code = _codes(g.directed == 1, g.undirected)
    code[g.bidirected[_triu(g.d)]] = _BI
    return code


def _shd_codes(
    t: NDArray[np.int8], p: NDArray[np.int8], reversal_cost: int
) -> tuple[int, int, int, int]:
    """(shd, missing, extra, mismatched-present) from two pair-code vectors."""
    t_on, p_on = t != _NONE, p != _NONE
    missing = int(np.count_nonzero(t_on & ~p_on))
    extra = int(np.count_nonzero(~t_on & p_on))
    differ = t_on & p_on & (t != p)
    reversed_ = differ & (t <= _BWD) & (p <= _BWD)
    n_diff, n_rev = int(np.count_nonzero(differ)), int(np.count_nonzero(reversed_))
    shd = missing + extra + (n_diff - n_rev) + reversal_cost * n_rev
    return shd, missing, extra, n_diff


def _pair_shd(true: MixedGraph, pred: MixedGraph, reversal_cost: int) -> tuple[int, int, int, int]:
    """(shd, missing, extra, mismatched-present) over unordered pairs.

    A pair present in both graphs with different marks costs 1, except an exact reversal
    (``i -> j`` versus ``j -> i``), which costs ``reversal_cost``.
    """
    return _shd_codes(_pair_codes(true), _pair_codes(pred), reversal_cost)


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


#: The headline metrics of :func:`score_graph`, in report order (the scores frame's metric
#: columns, :data:`causalarena.eval.score.METRICS`).
SCORE_METRICS = (
    "precision",
    "recall",
    "f1",
    "shd",
    "nshd",
    "sid",
    "sid_lower",
    "sid_upper",
    "auroc",
    "ap",
    "shd_pattern",
)


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
    sid: bool = True,
    pattern: bool = True,
    true_cpdag: ArrayLike | None = None,
    sid_bounds: bool = True,
    sid_cache: dict | None = None,
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
    sid : bool, default True
        Compute ``sid``, ``sid_lower`` and ``sid_upper`` (the costly part: ``gadjid``);
        False leaves them None.
    pattern : bool, default True
        Compute ``shd_pattern``; False leaves it None.
    true_cpdag : array_like of {0, 1}, shape (d, d), optional
        ``cpdag(true_adjacency)`` when the caller already has it (the scorer computes it once
        per instance); it is trusted, not recomputed or checked.
    sid_bounds : bool, default True
        With ``sid``, also compute ``sid_lower``/``sid_upper`` of a CPDAG prediction (one
        ``gadjid`` call per candidate parent set, the dominant cost for CPDAGs at d = 100).
    sid_cache : dict, optional
        Memo of SID terms for the bounds (see :func:`sid_bounds`); reuse one dict per true
        DAG across predictions (the scorer keeps one per instance).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``nshd``, ``auroc``, ``ap`` (float or None);
        ``shd``, ``sid``, ``sid_lower``, ``sid_upper``, ``shd_pattern`` (int or None); ``tp``, ``fp``, ``fn``,
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
    * **SID bounds** (our addition, after Peters & Buhlmann 2015): for a CPDAG prediction,
      ``sid_lower``/``sid_upper`` bound the SID over its Markov equivalence class
      (:func:`sid_bounds`), beside ``sid`` of the seeded orientation, which need not lie in
      the class; None when the prediction is not a valid CPDAG or has bidirected edges, and
      for PAGs. For a DAG prediction both equal ``sid``.
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
    if not _is_acyclic(truth):
        raise ValueError(
            f"true_adjacency must be a DAG but has a directed cycle through {_find_cycle(truth)}"
        )

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
                f"missing from prediction {', '.join(missing) or 'none'}, extra in prediction "
                f"{', '.join(extra) or 'none'}"
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
            *SCORE_METRICS,
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
        t, p = truth.view(np.bool_), pred.view(np.bool_)
        # both are directed graphs without 2-cycles: a pair present in both with different
        # marks is a reversal, counted by t & p.T (each unordered pair once)
        tp = int(np.count_nonzero(t & p))
        n_rev = int(np.count_nonzero(t & p.T))
        n_t, n_p = int(np.count_nonzero(t)), int(np.count_nonzero(p))
        fp, fn = n_p - tp, n_t - tp
        n_missing, n_extra = n_t - tp - n_rev, n_p - tp - n_rev
        shd = n_missing + n_extra + reversal_cost * n_rev
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
        )
        if sid:
            result["sid"] = _sid(truth, pred)
            if graph.is_pag or graph.n_bidirected:
                pass
            elif graph.n_undirected == 0:
                result["sid_lower"] = result["sid_upper"] = result["sid"]
            elif sid_bounds:
                pat = graph.directed.astype(bool) | graph.undirected
                bounds = _sid_bounds_fn(truth, pat, cache=sid_cache)
                if bounds is not None:
                    result["sid_lower"], result["sid_upper"] = bounds
        if pattern and not graph.is_pag:
            result["shd_pattern"] = _pattern_shd(truth, graph, reversal_cost, true_cpdag)

    if scores is not None:
        off = ~np.eye(d, dtype=bool)
        y, s = truth[off].astype(np.int64), scores[off]
        if 0 < y.sum() < y.size:
            result["auroc"], result["ap"] = _auroc_ap(y.astype(bool), s)
    return result


def _auroc_ap(y: NDArray[np.bool_], s: NDArray[np.float64]) -> tuple[float, float]:
    """AUROC and average precision of scores ``s`` for labels ``y`` from one sort.

    The values of ``sklearn.metrics.roc_auc_score`` (trapezoidal area under the ROC curve,
    ties as one threshold) and ``average_precision_score`` (``sum_k (R_k - R_{k-1}) P_k``
    over the distinct thresholds), without their input validation; equal up to floating
    point rounding (tests compare them).
    """
    order = np.argsort(-s, kind="mergesort")
    ss, ys = s[order], y[order]
    last = np.r_[np.flatnonzero(np.diff(ss)), ss.size - 1]  # end of each tie group
    tps = np.cumsum(ys)[last].astype(np.float64)
    fps = (last + 1) - tps
    tpr, fpr = tps / tps[-1], fps / fps[-1]
    x, h = np.r_[0.0, fpr], np.r_[0.0, tpr]
    auroc = float(np.sum(np.diff(x) * (h[1:] + h[:-1])) / 2.0)  # trapezoidal rule
    ap = float(np.sum(np.diff(np.r_[0.0, tpr]) * (tps / (tps + fps))))
    return auroc, ap


def _gadjid_sid(truth: NDArray[np.int8], guess: NDArray[Any]) -> int:
    import gadjid

    _, count = gadjid.sid(
        np.ascontiguousarray(truth, dtype=np.int8),
        np.ascontiguousarray(guess, dtype=np.int8),
        edge_direction=_GADJID_DIRECTION,
    )
    return int(count)


def _sid(truth: NDArray[np.int8], pred: NDArray[np.int8]) -> int | None:
    if truth.shape[0] < 2:
        return 0  # no ordered pair of distinct nodes (gadjid rejects graphs with < 2 nodes)
    if not _is_acyclic(pred):
        return None  # SID is defined for DAGs only (gadjid would abort on a cycle)
    return _gadjid_sid(truth, pred)


#: Most candidate parent sets :func:`sid_bounds` evaluates before giving up (None bounds).
SID_BOUNDS_MAX_SETS = 4096


def _cliques(nodes: NDArray[np.int64], adj: NDArray[np.bool_], limit: int) -> list[list[int]]:
    """Every clique (including the empty set) of ``adj`` within ``nodes``; [] past ``limit``."""
    out: list[list[int]] = []

    def grow(clique: list[int], cand: list[int]) -> bool:
        out.append(clique)
        if len(out) > limit:
            return False
        for n, v in enumerate(cand):
            if not grow([*clique, v], [w for w in cand[n + 1 :] if adj[v, w]]):
                return False
        return True

    return out if grow([], [int(v) for v in nodes]) else []


def sid_bounds(
    true_adjacency: ArrayLike,
    pattern: ArrayLike,
    *,
    max_sets: int = SID_BOUNDS_MAX_SETS,
    cache: dict | None = None,
    _valid: bool = False,
) -> tuple[int, int] | None:
    """Lower and upper bound of the SID over the Markov equivalence class of a CPDAG.

    SID is a sum over nodes ``i`` of a term that depends on the guessed graph only through
    the parent set of ``i`` (Peters & Buhlmann 2015, Def. 2 and Prop. 8).  In a valid CPDAG
    the parent sets ``i`` can have in some member of its class are exactly its directed
    parents plus a clique of its undirected neighbours (Maathuis, Kalisch & Buhlmann 2009,
    Lemma 3.1).  The bounds are the sums over nodes of the smallest and largest term over
    those sets, as in the SID package of Peters & Buhlmann; each node's minimum and maximum
    is attained by some member of the class, the sums need not be (so ``lower`` is at most
    and ``upper`` at least the SID of every DAG in the class).  The terms of all candidate
    sets are computed in one batch with gadjid's parent-AID rule (:func:`_sid_terms`).

    Parameters
    ----------
    true_adjacency : array_like of {0, 1}, shape (d, d)
        The true DAG, ``A[i, j] = 1`` iff ``i -> j``.
    pattern : array_like of {0, 1}, shape (d, d)
        A valid CPDAG (CPDAG convention); a DAG gives ``(sid, sid)``.
    max_sets : int, default :data:`SID_BOUNDS_MAX_SETS`
        Give up (return None) when the candidate parent sets number more than this.
    cache : dict, optional
        Memo of the per-node SID terms, keyed by node and parent set. Pass the same dict for
        every pattern scored against the *same* true DAG (never across truths): predictions
        of one instance by several methods share most candidate parent sets.

    Returns
    -------
    tuple of (int, int) or None
        ``(lower, upper)``; None when ``pattern`` is not a valid CPDAG
        (:func:`cpdag_problem`) or has too many candidate parent sets.

    Raises
    ------
    ValueError
        If either matrix is not binary square with zero diagonal, the shapes differ or the
        truth has a cycle.
    """
    truth = _check_binary(true_adjacency, "true_adjacency")
    a = _check_binary(pattern, "pattern").astype(bool)
    if a.shape != truth.shape:
        raise ValueError(f"pattern has shape {a.shape}, true_adjacency has {truth.shape}")
    if not _is_acyclic(truth):
        raise ValueError(f"true_adjacency has a directed cycle through {_find_cycle(truth)}")
    if not _valid and cpdag_problem(a) is not None:
        return None
    d = a.shape[0]
    if d < 2:
        return 0, 0
    und = a & a.T
    dire = a & ~a.T
    free = np.flatnonzero(und.any(axis=0))
    if free.size == 0:
        v = _gadjid_sid(truth, dire)
        return v, v
    sets = {}
    total = 0
    for i in free:
        cl = _cliques(np.flatnonzero(und[:, i]), und, max_sets)
        total += len(cl)
        if not cl or total > max_sets:
            return None
        sets[int(i)] = cl
    memo: dict = {} if cache is None else cache
    # lower/upper = sum over nodes of the smallest/largest term over the node's candidate
    # parent sets; a node without undirected neighbours has one candidate, its parents.
    rows: list[tuple[int, NDArray[np.bool_]]] = []
    for i in range(d):
        for c in sets.get(i, [[]]):
            col = dire[:, i].copy()
            col[c] = True
            rows.append((i, col))
    terms = _sid_terms(truth, rows, memo)
    lower = upper = 0
    n = 0
    for i in range(d):
        m = len(sets.get(i, [[]]))
        lower += min(terms[n : n + m])
        upper += max(terms[n : n + m])
        n += m
    return int(lower), int(upper)


def _sid_terms(
    truth: NDArray[np.int8], rows: list[tuple[int, NDArray[np.bool_]]], memo: dict
) -> list[int]:
    """SID term of each ``(node, guessed parent set)`` in ``rows`` (:func:`_parent_aid_terms`).

    Memoised in ``memo`` under ``(node, packed parents)``; ``memo`` belongs to one truth.  A
    node's true parent set has term 0 (no mistake); the rest are computed in one batch.
    """
    keys = [(i, np.packbits(col).tobytes()) for i, col in rows]
    todo: dict[tuple[int, bytes], tuple[int, NDArray[np.bool_]]] = {}
    for key, (i, col) in zip(keys, rows, strict=True):
        if key in memo or key in todo:
            continue
        if np.array_equal(col, truth[:, i] != 0):
            memo[key] = 0
        else:
            todo[key] = (i, col)
    if todo:
        got = _parent_aid_terms(
            truth,
            np.array([i for i, _ in todo.values()], dtype=np.intp),
            np.array([c for _, c in todo.values()]),
        )
        for key, v in zip(todo, got, strict=True):
            memo[key] = int(v)
    return [memo[key] for key in keys]


def _parent_aid_terms(
    truth: NDArray[Any], nodes: NDArray[np.intp], parents: NDArray[np.bool_]
) -> NDArray[np.int64]:
    """SID terms of many (treatment, guessed parent set) pairs against one true DAG at once.

    Row ``r`` is treatment ``t = nodes[r]`` with guessed parents ``Z = parents[r]``; its term
    counts the targets ``y != t`` the guess gets wrong (Peters & Buhlmann 2015, Def. 2): a
    ``y`` in ``Z`` that is a descendant of ``t`` in the truth (the guess claims no effect), and
    a ``y`` outside ``Z`` for which ``Z`` is not a valid adjustment set relative to ``(t, y)``
    in the truth.  Validity follows gadjid's parent-AID walk (Henckel, Wuertzen & Weichwald
    2024, Algorithm 3, ``get_pd_nam_nva`` of gadjid 0.1.0) restricted to a DAG truth: starting
    at ``t`` and never re-entering it, a walk is in one of four states -- directed from ``t``
    and open (``o``: no node of ``Z`` passed), directed and blocked (``b``: passed a node of
    ``Z``), non-causal and arrived from a child (``up``) or from a parent (``dn``).  Steps:
    ``t`` to its children (``o``) and parents (``up``); ``o`` at ``v`` to children (``o`` when
    ``v`` is not in ``Z``, else ``b``) and, when ``v`` is in ``Z``, to parents (``up``); ``b``
    to children; ``up`` and ``dn`` at ``v`` not in ``Z`` to children (``dn``); ``up`` at ``v``
    not in ``Z`` and ``dn`` at ``v`` in ``Z`` to parents (``up``).  ``Z`` is not valid for the
    ``y`` reached in ``b``, ``up`` or ``dn``.  The reachable sets are the least fixed point of
    these steps, computed for all rows together with one matrix product per step and
    direction, so a term costs a few microseconds instead of one ``gadjid.sid`` call.

    Parameters
    ----------
    truth : ndarray of {0, 1}, shape (d, d)
        The true DAG, ``A[i, j] = 1`` iff ``i -> j`` (acyclic; not checked).
    nodes : ndarray of int, shape (k,)
        Treatment of each row.
    parents : ndarray of bool, shape (k, d)
        Guessed parent set of each row's treatment (may contain descendants of it).

    Returns
    -------
    ndarray of int64, shape (k,)
        The terms; summed over every node with the guess's parent sets they give gadjid's
        SID of a DAG guess.
    """
    k, d = parents.shape
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    a = np.asarray(truth, dtype=np.float32)
    at = np.ascontiguousarray(a.T)
    z = np.asarray(parents, dtype=bool)
    nz = ~z
    not_t = np.ones((k, d), dtype=bool)
    not_t[np.arange(k), nodes] = False
    o = a[nodes] > 0  # children of t (t is no child of itself)
    up = at[nodes] > 0  # parents of t
    b = np.zeros((k, d), dtype=bool)
    dn = np.zeros((k, d), dtype=bool)
    while True:
        down_from = np.concatenate([o & nz, (o & z) | b, (up | dn) & nz]).astype(np.float32)
        step = (down_from @ a > 0).reshape(3, k, d) & not_t
        up_from = ((o & z) | (up & nz) | (dn & z)).astype(np.float32)
        up_new = up | ((up_from @ at > 0) & not_t)
        o_new, b_new, dn_new = o | step[0], b | step[1], dn | step[2]
        if (
            np.array_equal(o_new, o)
            and np.array_equal(b_new, b)
            and np.array_equal(dn_new, dn)
            and np.array_equal(up_new, up)
        ):
            break
        o, b, dn, up = o_new, b_new, dn_new, up_new
    wrong_in_z = z & (o | b)  # claimed no effect, but a descendant of t
    wrong_out = (b | up | dn) & nz & not_t
    return np.count_nonzero(wrong_in_z | wrong_out, axis=1).astype(np.int64)


_sid_bounds_fn = sid_bounds  # score_graph's keyword ``sid_bounds`` shadows the function


def _pattern_shd(
    truth: NDArray[np.int8],
    graph: MixedGraph,
    reversal_cost: int,
    true_pattern: ArrayLike | None = None,
) -> int:
    t = _cpdag_of(truth.view(np.bool_)) if true_pattern is None else np.asarray(true_pattern) != 0
    if graph.n_bidirected:
        return _shd_codes(_codes(t & ~t.T, t & t.T), _pair_codes(graph), reversal_cost)[0]
    directed = graph.directed.view(np.bool_)
    if graph.n_undirected == 0 and _is_acyclic(directed):
        p = _cpdag_of(directed)
    else:
        p = directed | graph.undirected
    return _matrix_shd(t, p, reversal_cost)


# Kept instead of gadjid.shd, which gives the same values on DAGs and CPDAGs
# (tests/test_shd_gadjid.py): gadjid has no reversal_cost=2 and no bidirected edges, and this is
# faster -- timeit, 1 thread, gadjid 0.1.0: d=100 33 us vs 75 us, d=10 8 us vs 44 us.
def _matrix_shd(t: NDArray[np.bool_], p: NDArray[np.bool_], reversal_cost: int) -> int:
    """SHD of two partially directed graphs in the CPDAG convention (no bidirected edges).

    Same value as ``_shd_codes`` over pair codes: a pair differs when its two ordered entries
    differ in either direction (cost 1), an exact reversal of a directed edge costs
    ``reversal_cost``.
    """
    x = t != p
    n_diff = int(np.count_nonzero(x | x.T)) // 2
    if reversal_cost == 1:
        return n_diff
    td, pd_ = t & ~t.T, p & ~p.T
    return n_diff + (reversal_cost - 1) * int(np.count_nonzero(td & pd_.T))
