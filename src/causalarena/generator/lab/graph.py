"""Lab graphs: the variables and the DAG of a CausaLab episode (CausaLab section 3.1, A.2).

A ``k``-node episode has the target ``resonanceFreq`` plus ``k - 1`` of the eight crystal
properties.  The DAG is weakly connected: a random labelled spanning tree oriented along a
random topological order, plus extra edges, with the edge count uniform on
``k - 1 .. min(k (k - 1) / 2, 2 k)``.  That range is read off the public CausaLab release (every
main-suite graph has between ``k - 1`` and ``min(k(k-1)/2, 2k)`` edges) and reproduces appendix
Table 1 (mean edges 2.56 / 4.54 / 7.26 / 8.82 / 10.26 for 3-7 nodes) within sampling error.
The target is a sink unless ``target_can_be_parent`` (the FreqParent suites), and it always has
at least one parent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

#: The held-out target of every episode (never controllable).
TARGET = "resonanceFreq"
#: Crystal properties an episode draws its other variables from (CausaLab section 3).
PROPERTIES = (
    "temperatureC",
    "moisture",
    "density",
    "quantumSize",
    "radiation",
    "pressure",
    "ph",
    "conductivity",
)
#: Graph sizes of the main suites (appendix Table 1).
SIZES = (3, 4, 5, 6, 7)
#: Appendix Table 1 of the CausaLab paper: nodes -> (edge mean, edge var, fork mean, collider mean).
PAPER_TABLE1 = {
    3: (2.56, 0.25, 0.68, 0.72),
    4: (4.54, 1.01, 2.18, 2.22),
    5: (7.26, 4.23, 5.54, 5.26),
    6: (8.82, 5.15, 6.72, 6.22),
    7: (10.26, 4.95, 7.84, 7.00),
}

Edge = tuple[str, str]


def edge_range(k: int) -> tuple[int, int]:
    """Inclusive range of the edge count of a ``k``-node lab graph.

    Raises
    ------
    ValueError
        If ``k`` is not in 2..9 (the target plus at most the eight properties).
    """
    if not 2 <= k <= len(PROPERTIES) + 1:
        raise ValueError(f"a lab graph has 2..{len(PROPERTIES) + 1} nodes, got {k}")
    return k - 1, min(k * (k - 1) // 2, 2 * k)


def draw_graph(
    rng: np.random.Generator, k: int, target_can_be_parent: bool = False
) -> tuple[list[str], list[Edge]]:
    """Draw the variables and edges of one ``k``-node lab graph.

    Parameters
    ----------
    rng : numpy.random.Generator
    k : int
        Number of nodes including the target (2..9).
    target_can_be_parent : bool
        FreqParent suites: the target takes a random position (never first) in the
        topological order, so it may have children.

    Returns
    -------
    names : list of str
        ``[TARGET, *properties]`` (properties in draw order).
    edges : list of (parent, child)
        Sorted edge list; the graph is a weakly connected DAG, the target has >= 1 parent.
    """
    lo, hi = edge_range(k)
    props = [PROPERTIES[i] for i in rng.choice(len(PROPERTIES), size=k - 1, replace=False)]
    names = [TARGET, *props]
    while True:
        order = [props[i] for i in rng.permutation(k - 1)]
        pos = int(rng.integers(1, k)) if target_can_be_parent else k - 1
        order.insert(pos, TARGET)
        rank = {v: i for i, v in enumerate(order)}
        m = int(rng.integers(lo, hi + 1))
        perm = [names[i] for i in rng.permutation(k)]
        pairs: set[Edge] = set()
        for i in range(1, k):
            a, b = perm[i], perm[int(rng.integers(i))]
            pairs.add((a, b) if rank[a] < rank[b] else (b, a))
        rest = sorted(
            (a, b) for a in order for b in order if rank[a] < rank[b] and (a, b) not in pairs
        )
        extra = rng.choice(len(rest), size=m - len(pairs), replace=False) if m > len(pairs) else []
        pairs.update(rest[int(i)] for i in extra)
        if any(b == TARGET for _, b in pairs):
            return names, sorted(pairs)


def parents_of(names: Sequence[str], edges: Iterable[Edge]) -> dict[str, list[str]]:
    """Map each name to its parents (in ``names`` order)."""
    es = set(edges)
    return {c: [p for p in names if (p, c) in es] for c in names}


def ancestors(node: str, edges: Iterable[Edge]) -> set[str]:
    """All ancestors of ``node`` (excluding itself)."""
    par: dict[str, set[str]] = {}
    for a, b in edges:
        par.setdefault(b, set()).add(a)
    seen: set[str] = set()
    stack = [node]
    while stack:
        for p in par.get(stack.pop(), ()):
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


def motif_counts(edges: Iterable[Edge]) -> tuple[int, int]:
    """Fork and collider counts as three-node motif instances (appendix Table 1).

    A fork is a pair of children of one node, a collider a pair of parents of one node:
    ``sum_v C(outdeg(v), 2)`` and ``sum_v C(indeg(v), 2)``.
    """
    out: dict[str, int] = {}
    inn: dict[str, int] = {}
    for a, b in edges:
        out[a] = out.get(a, 0) + 1
        inn[b] = inn.get(b, 0) + 1
    return (
        sum(n * (n - 1) // 2 for n in out.values()),
        sum(n * (n - 1) // 2 for n in inn.values()),
    )


def graph_stats(graphs: Sequence[Sequence[Edge]]) -> dict[str, float]:
    """Table 1 statistics over a set of graphs: edge mean, population variance, fork and
    collider means; ``{"graphs", "edge_mean", "edge_var", "fork_mean", "collider_mean"}``."""
    e = np.array([len(g) for g in graphs], dtype=float)
    mc = np.array([motif_counts(g) for g in graphs], dtype=float).reshape(-1, 2)
    return {
        "graphs": len(graphs),
        "edge_mean": float(e.mean()) if len(e) else float("nan"),
        "edge_var": float(e.var()) if len(e) else float("nan"),
        "fork_mean": float(mc[:, 0].mean()) if len(e) else float("nan"),
        "collider_mean": float(mc[:, 1].mean()) if len(e) else float("nan"),
    }
