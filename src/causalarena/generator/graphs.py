"""Synthetic DAG families and the graph-level audit of the CausalArena synthetic pool.

This module implements the ten graph families listed under "Graph structure" in
appendix A.1 ("Synthetic SCM Pool") of the CausalArena paper, together with the
graph-level checks of appendix A.2 ("Synthetic Audit"): a released graph must be
acyclic, have no isolated variables, reach a minimum depth (3 for chain, tree,
small-world and scale-free, 2 otherwise) and carry at least ``ceil(0.8 d)``
directed edges.  Appendix A.1 also specifies an optional in-degree cap sampled
from ``{None, 4, 5}`` for ``d <= 20``, ``{4, 5, 6}`` for ``20 < d <= 50`` and
``{5, 6, 8}`` for larger graphs (``d = 100`` in the release).

Conventions
-----------
Adjacency matrices are ``(d, d)`` ``numpy.int8`` arrays with ``A[i, j] = 1`` iff
there is a directed edge ``i -> j`` (row = parent, column = child).  The
diagonal is always zero.

Density
-------
The density ``rho`` of a family is sampled uniformly from
:data:`DENSITY_RANGES` and is the *target fraction of the* ``d (d - 1) / 2``
*unordered node pairs* that carry an edge (the edge probability of an
Erdos-Renyi skeleton), measured *before* the in-degree cap.  It is converted to
a target edge count::

    m = max(ceil(0.8 d), round(rho * d * (d - 1) / 2))

i.e. the density-implied count is floored at the A.2 audit minimum (at
``d = 10`` the density ranges imply only 1-11 edges, below ``ceil(0.8 d) = 8``).
Edges are then added in a family-specific preference order and an edge is
skipped when it would push its child above the in-degree cap, so at large
``d`` and high density the cap (not the density) limits the edge count (e.g.
``d = 100``, cap 5 allows at most ``5 d - 15`` edges).  Every family also
reaches at least ``ceil(0.8 d)`` edges and attaches every variable to at
least one edge: families with a spanning backbone (chain, tree, scale-free,
layered, bipartite, block, module) already have ``d - 1 >= ceil(0.8 d)`` edges
for ``d >= 5`` (a tree on ``d`` nodes has fewer than ``ceil(0.8 d)`` edges
only for ``d <= 4``); in all families isolated variables are repaired and the
edge count is topped up to the floor with family-allowed edges (see
:func:`sample_graph`).  Family-specific deviations from the target are
documented in each builder.

Construction and emission
-------------------------
Every builder works in *topological index space*: node ``i`` may only point to
node ``j > i``.  Before a graph is emitted, node labels are shuffled by a
random permutation drawn from the same generator, so the emitted node order is
in general not a topological order.  All randomness comes from the
``numpy.random.Generator`` passed by the caller (networkx generators receive an
integer seed drawn from it), so equal seeds give identical graphs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

__all__ = [
    "DENSITY_RANGES",
    "GRAPH_FAMILIES",
    "MAX_ATTEMPTS",
    "MIN_DEPTH",
    "GraphSample",
    "check_graph",
    "count_v_structures",
    "graph_depth",
    "min_edges",
    "sample_graph",
    "sample_in_degree_cap",
    "target_edge_count",
]

GRAPH_FAMILIES: tuple[str, ...] = (
    "erdos_renyi",
    "scale_free",
    "chain",
    "tree",
    "layered",
    "bipartite_layered",
    "small_world",
    "block_sparse_layered",
    "dense_local_module",
    "collider_rich",
)
"""The ten synthetic graph families of appendix A.1, in paper order."""

MIN_DEPTH: dict[str, int] = {
    family: (3 if family in {"chain", "tree", "small_world", "scale_free"} else 2)
    for family in GRAPH_FAMILIES
}
"""Minimum depth (number of *nodes* on the longest directed path) per family (A.2)."""

DENSITY_RANGES: dict[str, tuple[float, float]] = {
    "erdos_renyi": (0.05, 0.25),
    "scale_free": (0.04, 0.22),
    "chain": (0.03, 0.16),
    "tree": (0.03, 0.16),
    "layered": (0.04, 0.20),
    "bipartite_layered": (0.04, 0.20),
    "small_world": (0.04, 0.20),
    "block_sparse_layered": (0.04, 0.20),
    "dense_local_module": (0.06, 0.24),
    "collider_rich": (0.06, 0.24),
}
"""Target density range per family (fraction of ``d (d - 1) / 2`` pairs, before the cap)."""

MAX_ATTEMPTS: int = 200
"""Number of candidate graphs drawn by :func:`sample_graph` before giving up."""


@dataclass(frozen=True)
class GraphSample:
    """A validated synthetic DAG.

    Attributes
    ----------
    adjacency : numpy.ndarray
        ``(d, d)`` ``int8`` matrix, ``A[i, j] = 1`` iff edge ``i -> j`` (row =
        parent, column = child).  Node labels are shuffled, so ``0..d-1`` is in
        general not a topological order.
    family : str
        One of :data:`GRAPH_FAMILIES`.
    density : float
        The sampled target density (fraction of ``d (d - 1) / 2`` pairs before
        the in-degree cap), not the realized density.
    in_degree_cap : int or None
        The sampled in-degree cap (``None`` = no explicit cap).
    attempts : int
        Number of candidates drawn until one passed (1 = the first passed).
    rejections : list of str
        One entry per rejected candidate, ``"attempt k: reason; reason"``.
    """

    adjacency: np.ndarray
    family: str
    density: float
    in_degree_cap: int | None
    attempts: int
    rejections: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Audit helpers
# ---------------------------------------------------------------------------


def min_edges(d: int) -> int:
    """Return the A.2 edge floor ``ceil(0.8 d)`` computed in exact integer arithmetic.

    Parameters
    ----------
    d : int
        Number of variables.

    Returns
    -------
    int
        ``ceil(4 d / 5)``.
    """
    return (4 * int(d) + 4) // 5


def target_edge_count(d: int, density: float) -> int:
    """Convert a target density into a target edge count.

    Parameters
    ----------
    d : int
        Number of variables.
    density : float
        Fraction of the ``d (d - 1) / 2`` unordered pairs (before the in-degree cap).

    Returns
    -------
    int
        ``max(ceil(0.8 d), round(density * d (d - 1) / 2))``.
    """
    return max(min_edges(d), round(density * d * (d - 1) / 2))


def _as_binary_square(adjacency: np.ndarray) -> np.ndarray:
    a = np.asarray(adjacency)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency must be a square (d, d) matrix, got shape {a.shape}")
    return (a != 0).astype(np.int8)


def _digraph(a: np.ndarray) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(a.shape[0]))
    rows, cols = np.nonzero(a)
    g.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
    return g


def graph_depth(adjacency: np.ndarray) -> int:
    """Number of nodes on the longest directed path.

    Parameters
    ----------
    adjacency : numpy.ndarray
        ``(d, d)`` matrix, nonzero ``A[i, j]`` means edge ``i -> j``.

    Returns
    -------
    int
        Nodes on the longest directed path: 0 for an empty graph, 1 for a
        graph without edges, 2 for a single edge or a two-stage bipartite DAG,
        ``d`` for a directed chain through all nodes.

    Raises
    ------
    ValueError
        If the matrix is not square or the graph has a directed cycle
        (including self-loops).
    """
    a = _as_binary_square(adjacency)
    d = a.shape[0]
    if d == 0:
        return 0
    g = _digraph(a)
    if np.any(np.diag(a)) or not nx.is_directed_acyclic_graph(g):
        raise ValueError("graph_depth requires an acyclic graph; the graph has a cycle")
    return int(nx.dag_longest_path_length(g)) + 1


def count_v_structures(adjacency: np.ndarray) -> int:
    """Count unshielded colliders ``a -> c <- b`` with ``a`` and ``b`` non-adjacent.

    Parameters
    ----------
    adjacency : numpy.ndarray
        ``(d, d)`` adjacency of a DAG (row = parent, column = child).

    Returns
    -------
    int
        Number of v-structures (each unordered parent pair counted once).
    """
    a = _as_binary_square(adjacency).astype(np.int64)
    skeleton = ((a + a.T) > 0).astype(np.int64)
    total = 0
    for c in range(a.shape[0]):
        parents = np.flatnonzero(a[:, c])
        k = parents.size
        if k < 2:
            continue
        adjacent_pairs = int(skeleton[np.ix_(parents, parents)].sum()) // 2
        total += k * (k - 1) // 2 - adjacent_pairs
    return total


def check_graph(adjacency: np.ndarray, family: str, in_degree_cap: int | None) -> list[str]:
    """Return the reasons a graph fails the A.2 graph-level audit.

    Parameters
    ----------
    adjacency : numpy.ndarray
        ``(d, d)`` matrix, nonzero ``A[i, j]`` means edge ``i -> j``.
    family : str
        Graph family (selects the minimum depth, see :data:`MIN_DEPTH`).
    in_degree_cap : int or None
        Maximum allowed number of parents per node (``None`` = no cap).

    Returns
    -------
    list of str
        Human-readable failure reasons, empty if the graph passes:
        ``"cycle"``, ``"isolated variables: [3, 7]"``, ``"depth 2 < 3"``,
        ``"edges 7 < 8"``, ``"in-degree 6 > cap 5 at node 4"`` (one entry per
        offending node).  The depth check is skipped for cyclic graphs.

    Raises
    ------
    ValueError
        If ``family`` is unknown or the matrix is not square.
    """
    if family not in MIN_DEPTH:
        raise ValueError(f"unknown graph family {family!r}; known families: {list(GRAPH_FAMILIES)}")
    a = _as_binary_square(adjacency)
    d = a.shape[0]
    reasons: list[str] = []
    g = _digraph(a)
    acyclic = not np.any(np.diag(a)) and nx.is_directed_acyclic_graph(g)
    if not acyclic:
        reasons.append("cycle")
    degree = a.sum(axis=0).astype(np.int64) + a.sum(axis=1)
    isolated = np.flatnonzero(degree == 0)
    if isolated.size:
        reasons.append(f"isolated variables: {isolated.tolist()}")
    if acyclic:
        depth = int(nx.dag_longest_path_length(g)) + 1 if d else 0
        if depth < MIN_DEPTH[family]:
            reasons.append(f"depth {depth} < {MIN_DEPTH[family]}")
    n_edges = int(a.sum())
    floor = min_edges(d)
    if n_edges < floor:
        reasons.append(f"edges {n_edges} < {floor}")
    if in_degree_cap is not None:
        indeg = a.sum(axis=0)
        for node in np.flatnonzero(indeg > in_degree_cap):
            reasons.append(
                f"in-degree {int(indeg[node])} > cap {in_degree_cap} at node {int(node)}"
            )
    return reasons


# ---------------------------------------------------------------------------
# Sampling helpers (all in topological index space: edges only i -> j, i < j)
# ---------------------------------------------------------------------------


def sample_in_degree_cap(d: int, rng: np.random.Generator) -> int | None:
    """Sample the optional in-degree cap of appendix A.1.

    Parameters
    ----------
    d : int
        Number of variables.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    int or None
        Uniform over ``(None, 4, 5)`` for ``d <= 20``, ``(4, 5, 6)`` for
        ``20 < d <= 50`` and ``(5, 6, 8)`` for ``d > 50``.
    """
    if d <= 20:
        options: tuple[int | None, ...] = (None, 4, 5)
    elif d <= 50:
        options = (4, 5, 6)
    else:
        options = (5, 6, 8)
    return options[int(rng.integers(len(options)))]


def _upper(w: np.ndarray) -> np.ndarray:
    """Keep only strictly upper-triangular, finite, positive weights."""
    return np.where(np.triu(np.ones_like(w, dtype=bool), k=1) & (w > 0), w, 0.0)


def _fill(
    a: np.ndarray,
    weights: np.ndarray,
    m: int,
    cap: int | None,
    rng: np.random.Generator,
) -> None:
    """Add edges to ``a`` (in place) until it has ``m`` edges.

    Candidates are the strictly upper-triangular pairs with positive weight,
    visited in weighted random order without replacement (Gumbel-top-k, i.e.
    sequential sampling proportional to ``weights``).  A candidate is skipped
    if the edge exists or its child already has ``cap`` parents.
    """
    n = int(a.sum())
    if n >= m:
        return
    w = _upper(weights)
    rows, cols = np.nonzero(w)
    if rows.size == 0:
        return
    keys = np.log(w[rows, cols]) + rng.gumbel(size=rows.size)
    order = np.argsort(-keys, kind="stable")
    indeg = a.sum(axis=0).astype(np.int64)
    for i, j in zip(rows[order].tolist(), cols[order].tolist(), strict=True):
        if a[i, j] or (cap is not None and indeg[j] >= cap):
            continue
        a[i, j] = 1
        indeg[j] += 1
        n += 1
        if n >= m:
            return


def _prune_to_cap(a: np.ndarray, cap: int | None, rng: np.random.Generator) -> None:
    """Remove random excess parents of nodes above the cap (in place).

    Parents whose removal would leave them without any edge are removed last.
    """
    if cap is None:
        return
    for j in range(a.shape[0]):
        parents = np.flatnonzero(a[:, j])
        excess = parents.size - cap
        if excess <= 0:
            continue
        degree = a.sum(axis=0) + a.sum(axis=1)
        safe = parents[degree[parents] > 1]
        unsafe = parents[degree[parents] <= 1]
        ranked = np.concatenate([rng.permutation(safe), rng.permutation(unsafe)])
        a[ranked[:excess], j] = 0


def _repair_isolated(
    a: np.ndarray, weights: np.ndarray, cap: int | None, rng: np.random.Generator
) -> None:
    """Attach every isolated node by one family-allowed edge (in place).

    For an isolated node ``v`` the partner is drawn proportionally to
    ``weights`` among allowed pairs: an earlier node as parent (``v`` has no
    parents, so the cap cannot bind) or a later node with spare in-degree as
    child.  Nodes without any allowed partner are left isolated (the
    candidate is then rejected by the audit).
    """
    w = _upper(weights)
    d = a.shape[0]
    for v in range(d):
        if a[v, :].any() or a[:, v].any():
            continue
        indeg = a.sum(axis=0)
        cand_parent = w[:v, v]
        cand_child = w[v, v + 1 :].copy()
        if cap is not None:
            cand_child[indeg[v + 1 :] >= cap] = 0.0
        scores = np.concatenate([cand_parent, cand_child])
        total = scores.sum()
        if total <= 0:
            continue
        k = int(rng.choice(scores.size, p=scores / total))
        if k < v:
            a[k, v] = 1
        else:
            a[v, v + 1 + (k - v)] = 1


def _partition(n: int, parts: int, min_size: int, rng: np.random.Generator, alpha: float = 3.0):
    """Random composition of ``n`` into ``parts`` sizes, each at least ``min_size``."""
    parts = max(1, min(parts, n))
    min_size = max(1, min(min_size, n // parts))
    free = n - parts * min_size
    probs = rng.dirichlet(np.full(parts, alpha))
    return min_size + rng.multinomial(free, probs)


def _labels(sizes) -> np.ndarray:
    return np.repeat(np.arange(len(sizes)), sizes)


def _layer_backbone(
    a: np.ndarray, group: np.ndarray, layer: np.ndarray, rng: np.random.Generator
) -> None:
    """Give each node one parent in the previous layer of its own group (if any).

    Parents are drawn with weight ``1 / (1 + out-degree)**2`` so that nodes of
    the previous layer tend to receive a child.
    """
    for j in range(a.shape[0]):
        if layer[j] == 0:
            continue
        prev = np.flatnonzero((group == group[j]) & (layer == layer[j] - 1))
        if prev.size == 0:
            continue
        outdeg = a[prev].sum(axis=1)
        p = 1.0 / (1.0 + outdeg) ** 2
        a[int(rng.choice(prev, p=p / p.sum())), j] = 1


def _effective_edges(d: int, m: int, cap: int | None) -> int:
    """Edge target clipped to what the in-degree cap can hold in a DAG."""
    if cap is None:
        return m
    return min(m, cap * d - cap * (cap + 1) // 2)


# ---------------------------------------------------------------------------
# Family builders: (d, m, cap, rng) -> (adjacency in topological space, weights)
# ``weights`` are the family-allowed pairs used for isolated-node repair and
# topping up to the audit floor.
# ---------------------------------------------------------------------------

_Builder = Callable[[int, int, "int | None", np.random.Generator], tuple[np.ndarray, np.ndarray]]


def _build_erdos_renyi(d, m, cap, rng):
    """Uniform random ordered graph: ``m`` pairs of a random order drawn uniformly (G(n, m))."""
    w = np.ones((d, d))
    a = np.zeros((d, d), dtype=np.int8)
    _fill(a, w, m, cap, rng)
    return a, w


def _build_scale_free(d, m, cap, rng):
    """Barabasi-Albert skeleton oriented by insertion order, hubs are early sources.

    ``k`` (edges per new node) is the largest integer with ``k (d - k) <= m``
    (at least 1, at most the cap).  The growth starts from a seed graph of
    ``n0 = 2 max(r, ceil(k / 2))`` nodes forming a perfect matching,
    ``r ~ U{1, 2, 3}``, so the graph has ``n0 / 2`` roots (one per matched
    pair) rather than a single one; afterwards every new node attaches to
    ``k`` existing nodes with probability proportional to their degree and the
    edges point old -> new, so every non-seed node has exactly ``k`` parents.
    The remaining edges up to ``m`` are added preferentially with weight
    ``(deg_i + 1) (deg_j + 1)``.
    """
    disc = max(d * d - 4 * m, 0)
    k = int(np.floor((d - np.sqrt(disc)) / 2))
    k = max(1, min(k, d - 1))
    if cap is not None:
        k = min(k, cap)
    r = int(rng.integers(1, 4))
    n0 = 2 * max(r, -(-k // 2))
    seed = int(rng.integers(2**31))
    a = np.zeros((d, d), dtype=np.int8)
    if n0 <= d - 1:
        seed_graph = nx.Graph()
        seed_graph.add_nodes_from(range(n0))
        seed_graph.add_edges_from((2 * t, 2 * t + 1) for t in range(n0 // 2))
        g = nx.barabasi_albert_graph(d, k, seed=seed, initial_graph=seed_graph)
    else:  # tiny d: fall back to the default star seed graph
        g = nx.barabasi_albert_graph(d, k, seed=seed)
    for u, v in g.edges():
        a[min(u, v), max(u, v)] = 1
    deg = (a.sum(axis=0) + a.sum(axis=1)).astype(float)
    w = np.outer(deg + 1.0, deg + 1.0)
    _fill(a, w, m, cap, rng)
    return a, w


def _build_chain(d, m, cap, rng):
    """Directed path through all but ``n_in`` nodes, plus exogenous inputs and short skips.

    ``n_in ~ U{0, 1, 2}`` (0 for ``d < 6``) input nodes, placed at random
    interior positions of the order, are roots that feed the next path node;
    all other nodes form the path, so the longest directed path has
    ``d - n_in`` nodes and the graph has ``1 + n_in`` roots.  Skip edges
    ``i -> j`` between path nodes (lag ``j - i >= 2``) are drawn with weight
    ``exp(-(lag - 2) / tau)``, ``tau ~ U(1, 3)``, so the graph stays banded.
    """
    n_in = int(rng.integers(0, 3)) if d >= 6 else 0
    is_input = np.zeros(d, dtype=bool)
    if n_in:
        is_input[rng.choice(np.arange(1, d - 1), size=n_in, replace=False)] = True
    path = np.flatnonzero(~is_input)
    a = np.zeros((d, d), dtype=np.int8)
    a[path[:-1], path[1:]] = 1
    for i in np.flatnonzero(is_input):
        a[i, path[path > i][0]] = 1
    tau = rng.uniform(1.0, 3.0)
    lag = np.subtract.outer(np.arange(d), np.arange(d)) * -1
    w = np.where(lag >= 1, np.exp(-(np.maximum(lag, 2) - 2) / tau), 0.0)
    w[:, is_input] = 0.0  # inputs stay roots
    w[is_input, :] = 0.0  # and keep their single child
    _fill(a, w, m, cap, rng)
    return a, w


def _build_tree(d, m, cap, rng):
    """Branching tree (diverging or converging) plus ancestor-to-descendant shortcuts.

    Each node ``j >= 1`` picks one parent uniformly among earlier nodes whose
    out-degree is below the branching factor ``b ~ U{2, 3, 4}`` (an
    out-tree).  With probability 1/2 all edges are reversed, giving a
    converging in-tree (many leaf roots, one sink, at most ``b`` parents per
    node).  Extra edges (up to ``m``) join an ancestor to a descendant at tree
    distance ``t >= 2`` with weight ``0.5 ** (t - 2)``; they never change
    reachability, so the transitive reduction is exactly the tree.  The tree
    alone gives ``d - 1`` edges, which is ``>= ceil(0.8 d)`` for every
    ``d >= 5``.
    """
    b = int(rng.integers(2, 5))
    a = np.zeros((d, d), dtype=np.int8)
    depth = np.zeros(d, dtype=np.int64)
    outdeg = np.zeros(d, dtype=np.int64)
    anc = np.zeros((d, d), dtype=bool)  # anc[i, j]: i is a proper ancestor of j
    for j in range(1, d):
        eligible = np.flatnonzero(outdeg[:j] < b)
        p = int(rng.choice(eligible))
        depth[j] = depth[p] + 1
        outdeg[p] += 1
        a[p, j] = 1
        anc[:, j] = anc[:, p]
        anc[p, j] = True
    dist = depth[None, :] - depth[:, None]
    w = np.where(anc, 0.5 ** (np.maximum(dist, 2) - 2), 0.0)
    if rng.random() < 0.5:  # converging: reverse edges, relabel k -> d - 1 - k
        a = np.ascontiguousarray(a.T[::-1, ::-1])
        w = np.ascontiguousarray(w.T[::-1, ::-1])
    _fill(a, w, m, cap, rng)
    return a, w


def _build_layered(d, m, cap, rng):
    """Layer-respecting DAG: ``L`` layers, edges only to later layers.

    ``L ~ U{2, ..., max(2, min(d // 2, round(sqrt d) + 1))}`` (``U{2, ..., d}``
    for ``d < 5``, where two layers cannot always hold ``ceil(0.8 d)`` edges) layers with
    random sizes; every node outside the first layer gets one parent in the
    previous layer, further edges jump ``g >= 1`` layers with weight
    ``gamma ** (g - 1)``, ``gamma ~ U(0.05, 0.3)``.
    """
    l_max = d if d < 5 else max(2, min(d // 2, round(np.sqrt(d)) + 1))
    n_layers = int(rng.integers(2, l_max + 1))
    layer = _labels(_partition(d, n_layers, 1, rng))
    a = np.zeros((d, d), dtype=np.int8)
    _layer_backbone(a, np.zeros(d, dtype=np.int64), layer, rng)
    gamma = rng.uniform(0.05, 0.3)
    gap = layer[None, :] - layer[:, None]
    w = np.where(gap >= 1, gamma ** (np.maximum(gap, 1) - 1), 0.0)
    _fill(a, w, m, cap, rng)
    return a, w


def _build_bipartite_layered(d, m, cap, rng):
    """Two-stage (probability 1/2) or 3-4 stage DAG with edges only between consecutive stages.

    Stage sizes are balanced-ish random (at least 2 when possible); every node
    after the first stage gets one parent in the previous stage, the rest of
    the ``m`` edges are uniform among consecutive-stage pairs.  The depth
    therefore equals the number of stages and each edge goes from longest-path
    level ``s`` to level ``s + 1``.  Exception: at ``d = 3`` the audit floor of
    3 edges forces the transitive tournament, so stage skips are allowed there.
    """
    s_max = max(2, min(4, d // 2))
    n_stages = 2 if (s_max == 2 or rng.random() < 0.5) else int(rng.integers(3, s_max + 1))
    stage = _labels(_partition(d, n_stages, 2, rng, alpha=6.0))
    a = np.zeros((d, d), dtype=np.int8)
    _layer_backbone(a, np.zeros(d, dtype=np.int64), stage, rng)
    w = (stage[None, :] - stage[:, None] == 1).astype(float)
    if d == 3:
        # The only 3-node DAG with ceil(0.8 * 3) = 3 edges is the transitive
        # tournament, which has a stage-skipping edge: allow it at d = 3 only.
        w = np.triu(np.ones((d, d)), k=1)
    _fill(a, w, m, cap, rng)
    return a, w


def _build_small_world(d, m, cap, rng):
    """Watts-Strogatz-style ring lattice, rewired, oriented by a random order.

    Nodes sit on a ring at random positions unrelated to the topological order.
    The lattice takes all ring pairs at distance 1, 2, ... until
    ``max(m, d + d // 2)`` edges (at least the ring plus half of the
    distance-2 chords, so triangles exist), capped at ``cap * d``; the last
    distance is subsampled.  Each edge is rewired with probability
    ``beta ~ U(0.05, 0.25)`` to a uniformly random non-neighbour.  Edges point
    from the lower to the higher topological rank, so local clusters become
    short directed paths (triangles give depth >= 3).  Excess parents above
    the cap are pruned at random.
    """
    m_sw = max(m, d + d // 2)
    if cap is not None:
        m_sw = min(m_sw, cap * d)
    m_sw = min(m_sw, d * (d - 1) // 2)
    rank_pos = rng.permutation(d)  # ring position of the node with topological rank i
    node_at = np.argsort(rank_pos)  # topological rank of the node at ring position p
    skel = np.zeros((d, d), dtype=bool)  # indexed by ring position
    n = 0
    radius = 0
    for r in range(1, d // 2 + 1):
        if n >= m_sw:
            break
        starts = np.arange(d if 2 * r != d else d // 2)
        need = m_sw - n
        if starts.size > need:
            starts = np.sort(rng.choice(starts, size=need, replace=False))
        ends = (starts + r) % d
        skel[starts, ends] = skel[ends, starts] = True
        n += starts.size
        radius = r
    beta = rng.uniform(0.05, 0.25)
    rows, cols = np.nonzero(np.triu(skel, k=1))
    for p, q in zip(rows.tolist(), cols.tolist(), strict=True):
        if rng.random() >= beta:
            continue
        free = np.flatnonzero(~skel[p])
        free = free[free != p]
        if free.size == 0:
            continue
        q_new = int(rng.choice(free))
        skel[p, q] = skel[q, p] = False
        skel[p, q_new] = skel[q_new, p] = True
    a = np.zeros((d, d), dtype=np.int8)
    pr, pc = np.nonzero(np.triu(skel, k=1))
    u, v = node_at[pr], node_at[pc]
    a[np.minimum(u, v), np.maximum(u, v)] = 1
    _prune_to_cap(a, cap, rng)
    ring = np.abs(rank_pos[:, None] - rank_pos[None, :])
    ring = np.minimum(ring, d - ring)
    w = (ring <= radius + 1).astype(float)
    return a, w


def _build_block_sparse_layered(d, m, cap, rng):
    """``K`` blocks, each an internal layered DAG, with sparse cross-block edges.

    ``K ~ U{2, ..., max(2, min(5, d // 4))}`` blocks of random size, each with
    its own 2+ layers and a previous-layer parent backbone.  Blocks are ordered,
    and every block after the first receives one edge from an earlier block
    (weak connectivity).  Within-block edges (weight ``gamma ** (g - 1)`` for a
    layer jump ``g``) fill up to ``(1 - f) m`` edges and cross-block edges
    (uniform, earlier block to later block) the remaining ``f m``,
    ``f ~ U(0.05, 0.15)``.
    """
    k_max = max(2, min(5, d // 4))
    n_blocks = int(rng.integers(2, k_max + 1))
    sizes = _partition(d, n_blocks, 2, rng)
    block = _labels(sizes)
    layer = np.zeros(d, dtype=np.int64)
    start = 0
    for size in sizes:
        l_max = max(1, min(size, round(np.sqrt(size)) + 1))
        n_layers = int(rng.integers(min(2, l_max), l_max + 1))
        layer[start : start + size] = _labels(_partition(int(size), n_layers, 1, rng))
        start += size
    a = np.zeros((d, d), dtype=np.int8)
    _layer_backbone(a, block, layer, rng)
    indeg = a.sum(axis=0)
    for bl in range(1, len(sizes)):
        src = np.flatnonzero(block < bl)
        dst = np.flatnonzero(block == bl)
        if cap is not None:
            dst = dst[indeg[dst] < cap]
        if dst.size:
            j = int(rng.choice(dst))
            a[int(rng.choice(src)), j] = 1
            indeg[j] += 1
    same = block[:, None] == block[None, :]
    gap = layer[None, :] - layer[:, None]
    gamma = rng.uniform(0.05, 0.3)
    w_in = np.where(same & (gap >= 1), gamma ** (np.maximum(gap, 1) - 1), 0.0)
    w_cross = (block[:, None] < block[None, :]).astype(float)
    frac = rng.uniform(0.05, 0.15)
    m_eff = _effective_edges(d, m, cap)
    _fill(a, w_in, m_eff - round(frac * m_eff), cap, rng)
    _fill(a, w_cross, m_eff, cap, rng)
    return a, w_in + 0.05 * w_cross


def _build_dense_local_module(d, m, cap, rng):
    """Contiguous modules that are dense inside and sparsely linked.

    Within-module density ``q ~ U(0.5, 0.8)`` sets the module size
    ``s = clip(round(2 m_in / (d q)) + 1, 3, max(3, d // 2))``.  Each node
    after the first of its module gets a parent inside the module, every
    module after the first receives one edge from an earlier module, and the
    remaining edges are uniform within modules up to ``(1 - f) m`` and then
    between modules (weight ``exp(-(module gap - 1))``) up to ``m``,
    ``f ~ U(0.1, 0.25)``.
    """
    m_eff = _effective_edges(d, m, cap)
    frac = rng.uniform(0.1, 0.25)
    m_in = m_eff - round(frac * m_eff)
    q = rng.uniform(0.5, 0.8)
    s = int(np.clip(round(2 * m_in / (d * q)) + 1, 3, max(3, d // 2)))
    n_mod = max(1, round(d / s))
    module = _labels(_partition(d, n_mod, 3, rng, alpha=8.0))
    a = np.zeros((d, d), dtype=np.int8)
    for j in range(d):
        earlier = np.flatnonzero((module == module[j]) & (np.arange(d) < j))
        if earlier.size:
            a[int(rng.choice(earlier)), j] = 1
    indeg = a.sum(axis=0)
    for mod in range(1, n_mod):
        src = np.flatnonzero(module < mod)
        dst = np.flatnonzero(module == mod)
        if cap is not None:
            dst = dst[indeg[dst] < cap]
        if dst.size:
            j = int(rng.choice(dst))
            a[int(rng.choice(src)), j] = 1
            indeg[j] += 1
    mgap = module[None, :] - module[:, None]
    w_in = (mgap == 0).astype(float)
    w_cross = np.where(mgap >= 1, np.exp(-(np.maximum(mgap, 1) - 1.0)), 0.0)
    _fill(a, w_in, m_in, cap, rng)
    _fill(a, w_cross, m_eff, cap, rng)
    return a, w_in + 0.05 * w_cross


def _build_collider_rich(d, m, cap, rng):
    """Roots first, then collider nodes whose parents are pairwise non-adjacent.

    A mean in-degree ``kbar ~ U(2.5, max(2.5, kmax))`` (``kmax`` = cap, or 6
    without cap) fixes ``n_c = round(m / kbar)`` collider nodes (at most
    ``d - max(2, ceil(d / 4))``); each gets ``2 +`` a multinomial share of the
    remaining edges (clipped by the cap).  Parents are drawn one by one among
    earlier nodes not adjacent to an already chosen parent, preferring nodes
    without children (weight ``1 / (1 + out-degree) ** 2``, tripled for unused
    roots), so each collider with ``k`` parents contributes ``k (k - 1) / 2``
    v-structures.  Roots left without a child are attached as an extra parent
    of a collider with spare in-degree (another v-structure).
    """
    kmax = cap if cap is not None else 6
    kbar = rng.uniform(2.5, max(2.5, float(kmax)))
    r_min = max(2, -(-d // 4))
    n_c = int(np.clip(round(m / kbar), 1, max(1, d - r_min)))
    n_roots = d - n_c
    ks = np.full(n_c, 2, dtype=np.int64)
    if m > 2 * n_c:
        ks += rng.multinomial(m - 2 * n_c, np.full(n_c, 1.0 / n_c))
    a = np.zeros((d, d), dtype=np.int8)
    skel = np.zeros((d, d), dtype=bool)
    outdeg = np.zeros(d, dtype=np.int64)
    for t, j in enumerate(range(n_roots, d)):
        k = int(min(ks[t], j, kmax))
        allowed = np.ones(j, dtype=bool)
        for _ in range(k):
            cands = np.flatnonzero(allowed)
            if cands.size == 0:
                break
            wt = 1.0 / (1.0 + outdeg[cands]) ** 2
            wt = wt * np.where((cands < n_roots) & (outdeg[cands] == 0), 3.0, 1.0)
            p = int(rng.choice(cands, p=wt / wt.sum()))
            a[p, j] = 1
            skel[p, j] = skel[j, p] = True
            outdeg[p] += 1
            allowed[p] = False
            allowed &= ~skel[p, :j]
    indeg = a.sum(axis=0)
    for v in range(n_roots):
        if outdeg[v] or indeg[v]:
            continue
        cols = np.arange(n_roots, d)
        spare = cols[(indeg[cols] < kmax) & (indeg[cols] >= 1)]
        if spare.size == 0:
            continue
        j = int(rng.choice(spare))
        a[v, j] = 1
        indeg[j] += 1
        outdeg[v] += 1
    return a, np.ones((d, d))


_BUILDERS: dict[str, _Builder] = {
    "erdos_renyi": _build_erdos_renyi,
    "scale_free": _build_scale_free,
    "chain": _build_chain,
    "tree": _build_tree,
    "layered": _build_layered,
    "bipartite_layered": _build_bipartite_layered,
    "small_world": _build_small_world,
    "block_sparse_layered": _build_block_sparse_layered,
    "dense_local_module": _build_dense_local_module,
    "collider_rich": _build_collider_rich,
}


def _candidate(family: str, d: int, m: int, cap: int | None, rng: np.random.Generator):
    """Build one candidate in topological space: family builder, cap, repair, top-up."""
    a, w = _BUILDERS[family](d, m, cap, rng)
    a = (a != 0).astype(np.int8)
    np.fill_diagonal(a, 0)
    a = np.triu(a, k=1)
    _prune_to_cap(a, cap, rng)
    _repair_isolated(a, w, cap, rng)
    _fill(a, w, min_edges(d), cap, rng)
    return a


def sample_graph(family: str, d: int, rng: np.random.Generator) -> GraphSample:
    """Sample a validated DAG of one synthetic family (appendix A.1, audited per A.2).

    The target density is drawn from :data:`DENSITY_RANGES` and the in-degree
    cap from :func:`sample_in_degree_cap` once per call; candidates are then
    drawn from the family builder until one passes :func:`check_graph`.  Each
    candidate is post-processed identically: excess parents above the cap are
    pruned, every isolated node is attached by one family-allowed edge, and
    family-allowed edges are added until ``ceil(0.8 d)`` edges are present
    (all respecting the cap).  Finally node labels are shuffled by a random
    permutation, ``A_out[perm[i], perm[j]] = A[i, j]``.

    Family construction rules (in topological space, see the ``_build_*``
    docstrings for details):

    * ``erdos_renyi``: ``m`` uniformly random forward pairs (G(n, m)).
    * ``scale_free``: Barabasi-Albert skeleton grown from a 1-3 edge matching
      and oriented old -> new (hubs are sources), topped up preferentially.
    * ``chain``: directed path through all but 0-2 exogenous input roots plus
      short forward skips (depth ``d - n_in >= d - 2``).
    * ``tree``: bounded-branching out-tree or (probability 1/2) in-tree plus
      ancestor -> descendant shortcuts.
    * ``layered``: 2+ layers, previous-layer parent for each node, edges to
      later layers decaying with the layer jump.
    * ``bipartite_layered``: 2-4 stages, edges only between consecutive stages.
    * ``small_world``: rewired ring lattice on random ring positions, oriented
      by an independent random order.
    * ``block_sparse_layered``: layered blocks, few cross-block edges.
    * ``dense_local_module``: small dense modules, sparse inter-module edges.
    * ``collider_rich``: collider nodes with pairwise non-adjacent parents.

    Parameters
    ----------
    family : str
        One of :data:`GRAPH_FAMILIES`.
    d : int
        Number of variables, at least 3.
    rng : numpy.random.Generator
        The only source of randomness.

    Returns
    -------
    GraphSample
        ``adjacency`` is a ``(d, d)`` ``int8`` matrix with shuffled labels.

    Raises
    ------
    ValueError
        If ``family`` is unknown or ``d < 3``.
    RuntimeError
        If no candidate passes within :data:`MAX_ATTEMPTS` attempts.
    """
    if family not in _BUILDERS:
        raise ValueError(f"unknown graph family {family!r}; known families: {list(GRAPH_FAMILIES)}")
    d = int(d)
    if d < 3:
        raise ValueError(f"d must be at least 3, got {d}")
    lo, hi = DENSITY_RANGES[family]
    density = float(rng.uniform(lo, hi))
    cap = sample_in_degree_cap(d, rng)
    m = target_edge_count(d, density)
    rejections: list[str] = []
    for attempt in range(1, MAX_ATTEMPTS + 1):
        a = _candidate(family, d, m, cap, rng)
        reasons = check_graph(a, family, cap)
        if reasons:
            rejections.append(f"attempt {attempt}: " + "; ".join(reasons))
            continue
        perm = rng.permutation(d)
        out = np.zeros((d, d), dtype=np.int8)
        out[np.ix_(perm, perm)] = a
        return GraphSample(
            adjacency=out,
            family=family,
            density=density,
            in_degree_cap=cap,
            attempts=attempt,
            rejections=rejections,
        )
    last = rejections[-1] if rejections else "none"
    raise RuntimeError(
        f"no valid {family!r} graph with d={d} after {MAX_ATTEMPTS} attempts; "
        f"last failure reasons: {last}"
    )
