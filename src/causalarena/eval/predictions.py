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

from causalarena.errors import CausalArenaError

#: ``ok``: a valid graph; ``failed``: the method raised; ``timeout``: wall-time budget exceeded;
#: ``invalid``: the output failed validation; ``unsupported``: the method cannot run on this
#: split (e.g. an observation-only method on an obs+int split; paper B.1 "marked missing").
STATUSES = ("ok", "failed", "timeout", "invalid", "unsupported")
GRAPH_TYPES = ("dag", "cpdag", "pag")

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
    graph_type : {"dag", "cpdag", "pag"}

    Returns
    -------
    tuple of (ndarray of shape (d, d) int8 or None, ndarray of shape (d, d) float32 or None)

    Raises
    ------
    PredictionError
        Neither output given, wrong shape, NaN/inf, non-binary adjacency, self-loop,
        undirected edges in a ``"dag"``, or unknown ``graph_type``.
    """
    where = f"prediction for {instance_id!r}"
    if graph_type not in GRAPH_TYPES:
        raise PredictionError(f"{where}: graph_type {graph_type!r} not in {GRAPH_TYPES}")
    if adjacency is None and edge_scores is None:
        raise PredictionError(f"{where}: neither adjacency nor edge_scores was returned")
    A = S = None
    if adjacency is not None:
        a = np.asarray(adjacency, dtype=np.float64)
        if a.shape != (d, d):
            raise PredictionError(f"{where}: adjacency has shape {a.shape}, instance has d={d}")
        if not np.all(np.isfinite(a)):
            raise PredictionError(f"{where}: adjacency contains NaN or inf")
        bad = ~np.isin(a, (0.0, 1.0))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise PredictionError(
                f"{where}: adjacency is not binary: A[{i}, {j}] = {float(a[i, j])!r}"
            )
        if np.any(np.diag(a)):
            i = int(np.flatnonzero(np.diag(a))[0])
            raise PredictionError(f"{where}: self-loop A[{i}, {i}] = 1")
        if graph_type == "dag" and np.any((a == 1) & (a.T == 1)):
            i, j = np.argwhere((a == 1) & (a.T == 1))[0]
            raise PredictionError(f"{where}: graph_type 'dag' but A[{i}, {j}] = A[{j}, {i}] = 1")
        A = a.astype(np.int8)
    if edge_scores is not None:
        s = np.asarray(edge_scores, dtype=np.float64)
        if s.shape != (d, d):
            raise PredictionError(f"{where}: edge_scores has shape {s.shape}, instance has d={d}")
        off = ~np.eye(d, dtype=bool)
        if not np.all(np.isfinite(s[off])):
            raise PredictionError(f"{where}: edge_scores contains NaN or inf off the diagonal")
        S = np.where(off, s, 0.0).astype(np.float32)
    return A, S


def prediction_table(rows: list[dict[str, Any]]) -> pa.Table:
    """Arrow table with :data:`PREDICTION_SCHEMA` from row dicts (arrays as nested lists)."""
    cols: dict[str, list] = {f.name: [] for f in PREDICTION_SCHEMA}
    for r in rows:
        for f in PREDICTION_SCHEMA:
            v = r.get(f.name)
            if isinstance(v, np.ndarray):
                v = v.tolist()
            cols[f.name].append(v)
    return pa.Table.from_pydict(cols, schema=PREDICTION_SCHEMA)
