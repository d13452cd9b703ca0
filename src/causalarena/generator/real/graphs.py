"""Parsers of the reference-graph formats used by the real-data sources, and graph helpers.

All functions return edges as ``(parent, child)`` name pairs or adjacency matrices with the
package convention ``A[i, j] = 1`` iff ``i -> j`` (row = parent, column = child).
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np

from causalarena.generator.real.sources import RealDataError

Edge = tuple[str, str]


def edges_to_adjacency(edges: list[Edge], variables: list[str]) -> np.ndarray:
    """Adjacency matrix of ``edges`` over ``variables``.

    Returns
    -------
    numpy.ndarray
        Shape (d, d), dtype int8, ``A[i, j] = 1`` iff ``variables[i] -> variables[j]``.

    Raises
    ------
    RealDataError
        If an edge names a variable not in ``variables``, or is a self-loop.
    """
    idx = {v: k for k, v in enumerate(variables)}
    A = np.zeros((len(variables), len(variables)), dtype=np.int8)
    for a, b in edges:
        if a not in idx or b not in idx:
            bad = a if a not in idx else b
            raise RealDataError(f"edge {a} -> {b}: unknown variable {bad!r} (known: {variables})")
        if a == b:
            raise RealDataError(f"edge {a} -> {b}: self-loop")
        A[idx[a], idx[b]] = 1
    return A


def adjacency_to_edges(A: np.ndarray, variables: list[str]) -> list[Edge]:
    """``(parent, child)`` pairs of the non-zero entries of ``A``, row-major order."""
    rows, cols = np.nonzero(np.asarray(A))
    return [(variables[i], variables[j]) for i, j in zip(rows, cols, strict=True)]


def is_acyclic(A: np.ndarray) -> bool:
    """True iff the directed graph ``A`` (d, d) has no directed cycle (Kahn's algorithm)."""
    A = (np.asarray(A) != 0).astype(np.int64)
    indeg = A.sum(axis=0)
    stack = [int(k) for k in np.flatnonzero(indeg == 0)]
    seen = 0
    while stack:
        k = stack.pop()
        seen += 1
        for j in np.flatnonzero(A[k]):
            indeg[j] -= 1
            if indeg[j] == 0:
                stack.append(int(j))
    return seen == A.shape[0]


def induced_subgraph(
    A: np.ndarray, variables: list[str], keep: list[str]
) -> tuple[np.ndarray, list[str]]:
    """Subgraph of ``A`` induced by the variables ``keep`` (in the order of ``keep``).

    Edges through dropped variables are *not* contracted (as in the Causal Chambers case
    studies, where the truth is the induced subgraph of the full graph).

    Raises
    ------
    RealDataError
        If ``keep`` names an unknown variable.
    """
    idx = {v: k for k, v in enumerate(variables)}
    missing = [v for v in keep if v not in idx]
    if missing:
        raise RealDataError(f"induced subgraph: unknown variable(s) {missing}")
    sel = [idx[v] for v in keep]
    return np.asarray(A, dtype=np.int8)[np.ix_(sel, sel)].copy(), list(keep)


def read_named_adjacency_csv(path: str | os.PathLike) -> tuple[np.ndarray, list[str]]:
    """Square adjacency CSV with a header row and a first column of the same names.

    Used by Causal Chambers (``adjacency_*.csv``, integer entries) and PetShop (``graph.csv``,
    ``0.0``/``1.0``).  Any non-zero entry at (row i, column j) is an edge ``i -> j``.

    Returns
    -------
    (numpy.ndarray, list of str)
        Adjacency (d, d) int8 and the variable names in file order.

    Raises
    ------
    RealDataError
        If the header and the row names differ, the matrix is not square, or an entry is not
        a number.
    """
    path = Path(path)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh) if r]
    if not rows:
        raise RealDataError(f"{path}: empty adjacency file")
    header = rows[0][1:]
    names = [r[0] for r in rows[1:]]
    if names != header:
        raise RealDataError(f"{path}: row names {names[:5]}... differ from header {header[:5]}...")
    try:
        vals = np.array([[float(x) for x in r[1:]] for r in rows[1:]], dtype=np.float64)
    except ValueError as exc:
        raise RealDataError(f"{path}: non-numeric adjacency entry ({exc})") from None
    if vals.shape != (len(names), len(names)):
        raise RealDataError(f"{path}: adjacency has shape {vals.shape}, expected square")
    return (vals != 0).astype(np.int8), names


def read_matrix_txt(path: str | os.PathLike) -> np.ndarray:
    """Whitespace-separated 0/1 matrix without names (CD-CSG ``*_gt.txt``), ``A[i, j]``: i -> j.

    Raises
    ------
    RealDataError
        If the matrix is not square or has entries other than 0/1.
    """
    path = Path(path)
    rows = [ln.split() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    try:
        A = np.array([[int(float(x)) for x in r] for r in rows])
    except ValueError as exc:
        raise RealDataError(f"{path}: not a numeric matrix ({exc})") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1] or not np.isin(A, (0, 1)).all():
        raise RealDataError(f"{path}: expected a square 0/1 matrix, got shape {A.shape}")
    return A.astype(np.int8)


def read_bif_edges(path: str | os.PathLike) -> list[Edge]:
    """Arcs of a BIF network: one ``parent -> child`` per parent in ``probability ( C | P, ... )``.

    Raises
    ------
    RealDataError
        If no ``probability`` block is found.
    """
    text = Path(path).read_text(encoding="utf-8")
    blocks = re.findall(r"probability\s*\(\s*([^)|]+?)\s*(?:\|\s*([^)]*))?\)", text)
    if not blocks:
        raise RealDataError(f"{path}: no 'probability ( ... )' blocks; not a BIF file?")
    edges = []
    for child, parents in blocks:
        for p in (parents or "").split(","):
            if p.strip():
                edges.append((p.strip(), child.strip()))
    return edges


def read_tetrad_edges(path: str | os.PathLike) -> list[Edge]:
    """Directed edges of a Tetrad text graph (``Graph Edges:`` then ``k. a --> b`` lines).

    Raises
    ------
    RealDataError
        On an edge other than ``-->``.
    """
    edges = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = re.match(r"\s*\d+\.\s+(\S+)\s+(\S+)\s+(\S+)\s*$", line)
        if m:
            a, kind, b = m.groups()
            if kind != "-->":
                raise RealDataError(f"{path}: edge {a} {kind} {b} is not directed ('-->')")
            edges.append((a, b))
    return edges


def read_dot_edges(path: str | os.PathLike) -> tuple[list[Edge], dict[str, str]]:
    """Edges of a Graphviz ``digraph`` with labelled numeric nodes (JCI ``sachs-gt.dot``).

    Returns
    -------
    (list of (str, str), dict)
        Edges by label, and ``{node id: label}``.
    """
    text = Path(path).read_text(encoding="utf-8")
    labels = dict(re.findall(r"^\s*(\w+)\s*\[\s*label\s*=\s*\"([^\"]*)\"", text, flags=re.M))
    edges = [
        (labels.get(a, a), labels.get(b, b))
        for a, b in re.findall(r"^\s*(\w+)\s*->\s*(\w+)\s*;", text, flags=re.M)
    ]
    return edges, labels


def read_cause_effect_csv(path: str | os.PathLike) -> list[Edge]:
    """Edges of a two-column ``Cause,Effect`` CSV with a header (cdt ``cyto_full_target.csv``)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh) if r]
    return [(a, b) for a, b in rows[1:]]
