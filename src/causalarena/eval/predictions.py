"""The predictions schema: one Parquet row per (instance, method) run.

Every run is a row, whatever its outcome (``status`` in :data:`STATUSES`), so failures,
time-outs, invalid outputs and unsupported cells are never silently removed (CausalArena paper,
appendix B.1).  Adjacency matrices follow the package convention ``A[i, j] = 1`` iff ``i -> j``;
CPDAG outputs mark an undirected edge with ``A[i, j] = A[j, i] = 1`` and set ``graph_type``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.baselines.base import PRETRAINING_DISCLOSURES as PRETRAINING_DISCLOSURES
from causalarena.baselines.base import disclosure_problem as disclosure_problem
from causalarena.errors import CausalArenaError

#: ``ok``: a valid graph; ``failed``: the method raised; ``timeout``: wall-time budget exceeded;
#: ``invalid``: the output failed validation; ``unsupported``: the method cannot run on this
#: split (e.g. an observation-only method on an obs+int split; paper B.1 "marked missing").
STATUSES = ("ok", "failed", "timeout", "invalid", "unsupported")
GRAPH_TYPES = ("dag", "cpdag", "essential", "pag")
#: Kinds of the ``pretraining_disclosure`` column: see
#: :data:`causalarena.baselines.base.PRETRAINING_DISCLOSURES` (one definition, re-exported).


PREDICTION_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("config", pa.string()),
        ("method", pa.string()),
        ("method_version", pa.string()),
        ("library_version", pa.string()),
        ("graph_type", pa.string()),
        ("adjacency", pa.list_(pa.list_(pa.int8()))),
        ("edge_scores", pa.list_(pa.list_(pa.float32()))),
        ("status", pa.string()),
        ("runtime_s", pa.float64()),
        ("error", pa.string()),
        ("notes", pa.string()),
        ("seed", pa.int64()),
        ("release_version", pa.string()),
        ("manifest_sha256", pa.string()),
        ("package_version", pa.string()),
        # run settings that determine the row (a rerun with other values redoes it) and the
        # method's captured output (size-capped); filled by causalarena.eval.runner
        ("timeout_s", pa.float64()),
        ("memory_limit_bytes", pa.int64()),
        ("stdout", pa.string()),
        ("stderr", pa.string()),
        # one of PRETRAINING_DISCLOSURES (optionally "<kind>: <reference>"); "none" default
        ("pretraining_disclosure", pa.string()),
    ]
)


class PredictionError(CausalArenaError, ValueError):
    """A predicted graph violates the schema (names the instance, field and problem)."""


def validate_prediction(
    instance_id: str,
    d: int,
    adjacency: Any = None,
    edge_scores: Any = None,
    graph_type: str = "dag",
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Check one prediction against its instance and return it as arrays.

    Parameters
    ----------
    instance_id : str
    d : int
        Number of variables of the instance.
    adjacency : array-like of shape (d, d), optional
        Binary; ``A[i, j] = 1`` iff ``i -> j``; symmetric ones are undirected edges, allowed
        only when ``graph_type`` is ``"cpdag"`` or ``"pag"``.
    edge_scores : array-like of shape (d, d), optional
        Finite scores, larger = more likely ``i -> j``.
    graph_type : {"dag", "cpdag", "essential", "pag"}

    Returns
    -------
    tuple of (ndarray of shape (d, d) int8 or None, ndarray of shape (d, d) float32 or None)

    Raises
    ------
    PredictionError
        Neither output given, wrong shape, NaN/inf, non-binary adjacency, self-loop,
        unknown ``graph_type``, or a graph that is not of its ``graph_type``
        (:func:`graph_problem`: a directed cycle or undirected edge in a ``"dag"``, a
        ``"cpdag"`` that is no DAG's CPDAG, a ``"pag"`` with a directed cycle); the message
        names the instance and the cycle or edge.
    """
    where = f"prediction for instance {instance_id}"
    if graph_type not in GRAPH_TYPES:
        raise PredictionError(
            f"{where}: graph_type {graph_type} is not one of {', '.join(GRAPH_TYPES)}"
        )
    if adjacency is None and edge_scores is None:
        raise PredictionError(f"{where}: neither adjacency nor edge_scores was returned")
    A = S = None
    if adjacency is not None:
        a = _as_float(adjacency, where, "method returned", _ADJ_EXPECTED)
        if a.shape != (d, d):
            raise PredictionError(
                f"{where}: adjacency has shape {' x '.join(map(str, a.shape))}, "
                f"the instance has d = {d}"
            )
        if not np.all(np.isfinite(a)):
            raise PredictionError(f"{where}: adjacency contains NaN or inf")
        bad = ~np.isin(a, (0.0, 1.0))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise PredictionError(f"{where}: adjacency is not binary: A[{i}, {j}] = {a[i, j]:g}")
        if np.any(np.diag(a)):
            i = int(np.flatnonzero(np.diag(a))[0])
            raise PredictionError(f"{where}: self-loop A[{i}, {i}] = 1")
        A = a.astype(np.int8)
        problem = graph_problem(A, graph_type)
        if problem is not None:
            raise PredictionError(f"{where}: {problem}")
    if edge_scores is not None:
        s = _as_float(edge_scores, where, "edge_scores is", "a (d, d) array of finite scores")
        if s.shape != (d, d):
            raise PredictionError(f"{where}: edge_scores has shape {s.shape}, instance has d={d}")
        off = ~np.eye(d, dtype=bool)
        if not np.all(np.isfinite(s[off])):
            raise PredictionError(f"{where}: edge_scores contains NaN or inf off the diagonal")
        S = np.where(off, s, 0.0).astype(np.float32)
    return A, S


_ADJ_EXPECTED = "a (d, d) adjacency array or (adjacency, edge_scores)"


def _type_name(value: Any) -> str:
    """A short name of what a method returned: ``str``, ``dict``, ``2-d array of complex128``."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return type(value.item()).__name__
        label = {"U": "str", "S": "bytes", "O": "object"}.get(value.dtype.kind, str(value.dtype))
        return f"{value.ndim}-d array of {label}"
    return type(value).__name__


def _as_float(value: Any, where: str, what: str, expected: str) -> np.ndarray:
    """``value`` as a float64 array, or PredictionError naming its type (never a bare cast).

    Strings, bytes, complex numbers and objects numpy cannot convert are rejected, so a
    method returning ``"hello"``, a dict or a complex array gives an ``invalid`` run.
    """
    problem = PredictionError(f"{where}: {what} {_type_name(value)}; expected {expected}")
    if isinstance(value, str | bytes | dict):
        raise problem
    arr = np.asarray(value)
    if arr.dtype.kind in "USVcMm":  # strings, bytes, void, complex, dates and times
        raise problem
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        raise problem from None


def graph_problem(adjacency: np.ndarray, graph_type: str) -> str | None:
    """Why a binary adjacency is not a valid graph of ``graph_type``, or None.

    Rules (issue 10 section 1; our reading of what each claim means):

    * ``dag``: no pair in both directions (``A[i, j] = A[j, i] = 1``) and no directed cycle;
    * ``cpdag``: the CPDAG of some DAG: its directed part is acyclic, it has a consistent DAG
      extension and the CPDAG of that extension is the matrix itself
      (:func:`causalarena.eval.metrics.cpdag_problem`);
    * ``essential``: an interventional essential graph (I-CPDAG; Hauser & Buehlmann 2012,
      the output of GIES): it represents the smaller class of DAGs that the intervention
      targets leave indistinguishable, so it may orient more edges than the observational
      CPDAG and is not checked against it.  Checked: its directed part is acyclic and it has a
      consistent DAG extension (:func:`causalarena.eval.metrics.dag_extension`); the
      strong-protection conditions of their Theorem 18 are not checked;
    * ``pag``: what the 0/1 column can express is checked: the directed part
      (``A[i, j] = 1, A[j, i] = 0``) has no directed cycle (an ancestral graph has none).
      Circle and arrowhead marks are not representable in the column, so the other PAG
      conditions (no almost-directed cycle, maximality, completeness of the orientation
      rules) are not checked.

    Parameters
    ----------
    adjacency : ndarray of {0, 1}, shape (d, d)
        Binary, zero diagonal (checked by the caller).
    graph_type : {"dag", "cpdag", "essential", "pag"}

    Returns
    -------
    str or None
        A sentence naming the cycle or the offending edge.
    """
    from causalarena.eval.metrics import _find_cycle, _is_acyclic, cpdag_problem

    a = np.asarray(adjacency) != 0
    if graph_type == "cpdag":
        p = cpdag_problem(a.astype(np.int8))
        return None if p is None else f"graph_type cpdag but not a valid CPDAG: {p}"
    if graph_type == "essential":
        from causalarena.cpdag import consistent_extension

        directed_part = a & ~a.T
        if not _is_acyclic(directed_part):
            cyc = _find_cycle(directed_part)
            path = " -> ".join(map(str, [*cyc, cyc[0]]))
            return f"graph_type essential but its directed edges form the cycle {path}"
        if consistent_extension(a) is not None:
            return None
        return (
            "graph_type essential but it has no consistent DAG extension (every orientation "
            "of its undirected edges adds a v-structure or a cycle)"
        )
    if graph_type == "dag":
        both = a & a.T
        if both.any():
            i, j = np.argwhere(both)[0]
            return (
                f"graph_type dag but A[{i}, {j}] = A[{j}, {i}] = 1 (an undirected edge; "
                "use graph_type cpdag)"
            )
    directed = a & ~a.T
    if _is_acyclic(directed):
        return None
    cyc = _find_cycle(directed)
    path = " -> ".join(map(str, [*cyc, cyc[0]]))
    return f"graph_type {graph_type} but it has the directed cycle {path}"


def prediction_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Arrow table with :data:`PREDICTION_SCHEMA` from row dicts (arrays as nested lists).

    A missing or None ``pretraining_disclosure`` is written as ``"none"`` (the wrapped
    classical methods are not pretrained); a value that is not a valid disclosure
    (:func:`disclosure_problem`) raises :class:`PredictionError`.
    """
    cols: dict[str, list] = {f.name: [] for f in PREDICTION_SCHEMA}
    for r in rows:
        for f in PREDICTION_SCHEMA:
            v = r.get(f.name)
            if f.name == "pretraining_disclosure":
                v = "none" if v is None else v
                why = disclosure_problem(v)
                if why is not None:
                    raise PredictionError(
                        f"pretraining_disclosure of instance {r.get('instance_id')}: "
                        f"value {v} is not valid ({why})"
                    )
            if isinstance(v, np.ndarray):
                v = v.tolist()
            cols[f.name].append(v)
    return pa.Table.from_pydict(cols, schema=PREDICTION_SCHEMA)


def method_name_problem(name: Any) -> str | None:
    """Why ``name`` cannot be a leaderboard method name, or None when it can.

    A method name is text of printable ASCII characters (``' '`` to ``'~'``) without leading
    or trailing blanks: a newline would print a forged row in a terminal or markdown table, an
    ANSI escape would reach the reader's terminal, and a zero-width or look-alike (e.g.
    Cyrillic) character would put two rows that read the same on one leaderboard.
    """
    if not isinstance(name, str):
        return f"a method name is text, got {type(name).__name__}"
    if not name or name != name.strip():
        return "a method name is non-empty text without leading or trailing blanks"
    bad = next((c for c in name if not " " <= c <= "~"), None)
    if bad is not None:
        return (
            f"character U+{ord(bad):04X} is not printable ASCII; method names use the characters "
            "' ' to '~' only (no control, zero-width or look-alike characters)"
        )
    return None
