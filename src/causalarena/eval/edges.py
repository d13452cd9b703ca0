"""Edge-level mechanism and noise breakdown of predictions (paper Tables 12-13).

Each ordered pair ``(i, j)`` of an instance is assigned the tags of the child ``j`` in the
instance's SCM specification: its mechanism tag (the family's tag, e.g. ``polynomial`` ->
``polynomial_power``) and its noise family.  Root nodes have no mechanism and are tagged
``(root)`` on both axes, so false edges into roots are counted, not dropped.  TP, FP and FN
are counted per instance and tag (:func:`causalarena.eval.analyses.edge_tag_counts`); the
report aggregates them into edge F1 per method, split and tag.

CPDAG predictions are oriented with the instance's fixed seed exactly as the scorer does
(:func:`causalarena.eval.metrics.orient_randomly`, paper B.2).  Only ``ok`` rows count.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from causalarena.eval.analyses import edge_tag_counts
from causalarena.eval.metrics import orient_randomly
from causalarena.eval.runner import instance_seed

__all__ = ["ROOT_TAG", "edge_counts", "node_tags"]

#: Tag of a root node (no mechanism) on both axes.
ROOT_TAG = "(root)"
_COLUMNS = ["instance_id", "setting", "d", "adjacency", "spec"]


def node_tags(spec: dict) -> dict[str, list[str]]:
    """Per-node ``mechanism`` and ``noise`` tags of one SCM specification (JSON dict).

    Parameters
    ----------
    spec : dict
        A parsed ``spec`` column (``variables`` in column order).

    Returns
    -------
    dict
        ``{"mechanism": [tag per node], "noise": [tag per node]}``.

    Raises
    ------
    ValueError
        ``spec`` is not an executable specification (e.g. a real table's description, whose
        ``variables`` are plain names).
    """
    from causalarena.generator.mechanisms import MECHANISMS

    variables = spec.get("variables") if isinstance(spec, dict) else None
    if not isinstance(variables, list) or not all(isinstance(v, dict) for v in variables):
        raise ValueError("not an executable SCM specification (no variable records)")
    mech, noise = [], []
    for v in variables:
        m = v.get("mechanism")
        if not m:
            mech.append(ROOT_TAG)
            noise.append(ROOT_TAG)
            continue
        fam = m["family"]
        mech.append(MECHANISMS[fam].tag if fam in MECHANISMS else str(fam))
        noise.append(str((v.get("noise") or {}).get("family", "none")))
    return {"mechanism": mech, "noise": noise}


def _truth(release: Path, config: str) -> dict[str, dict]:
    folder = release / "data" / config
    out = {}
    for shard in sorted(folder.glob("*.parquet")):
        for r in pq.read_table(shard, columns=_COLUMNS).to_pylist():
            d = r["d"]
            try:
                tags = node_tags(json.loads(r["spec"]))
            except (KeyError, TypeError, ValueError):
                continue  # no executable spec (e.g. a real table): nothing to break down
            if len(tags["mechanism"]) != d:
                continue
            out[r["instance_id"]] = {
                "setting": r["setting"],
                "A": np.asarray(r["adjacency"], dtype=np.int8).reshape(d, d),
                "tags": tags,
            }
    return out


def _adjacencies(col) -> list[np.ndarray | None]:
    """Each row of a ``list<list<int8>>`` adjacency column as an int8 array (None when null).

    Square rows are cut from the column's flat values (no Python list per row, which cost
    most of the edge breakdown of a large report); anything else takes the per-row rule
    ``np.asarray(row, dtype=np.int8)`` (with its errors).
    """
    import pyarrow as pa

    out: list[np.ndarray | None] = []
    for chunk in col.chunks:
        t = chunk.type
        fast = (
            pa.types.is_list(t)
            and pa.types.is_list(t.value_type)
            and t.value_type.value_type == pa.int8()
            and chunk.values.null_count == 0
            and chunk.values.values.null_count == 0
        )
        if not fast:
            out += [None if v is None else np.asarray(v, dtype=np.int8) for v in chunk.to_pylist()]
            continue
        outer = chunk.offsets.to_numpy()
        inner = chunk.values.offsets.to_numpy()
        vals = chunk.values.values.to_numpy(zero_copy_only=False)
        valid = chunk.is_valid().to_numpy(zero_copy_only=False)
        for r in range(len(chunk)):
            if not valid[r]:
                out.append(None)
                continue
            a, b = int(outer[r]), int(outer[r + 1])
            n = b - a
            if n and bool(np.all(np.diff(inner[a : b + 1]) == n)):
                out.append(vals[inner[a] : inner[b]].reshape(n, n).copy())
            else:
                out.append(np.asarray(chunk[r].as_py(), dtype=np.int8))
    return out


def edge_counts(release: str | os.PathLike, pred_dir: str | os.PathLike) -> pd.DataFrame:
    """TP/FP/FN per method, instance, axis and child tag for every ``ok`` prediction.

    Parameters
    ----------
    release : path
        Release folder (truth adjacency and ``spec`` per instance).
    pred_dir : path
        Predictions folder (``<config>/<method>.parquet``).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``config``, ``setting``, ``instance_id``, ``axis``
        (``mechanism`` / ``noise``), ``category``, ``tp``, ``fp``, ``fn``.  Empty when no
        prediction has an instance with a specification.
    """
    release, pred_dir = Path(release), Path(pred_dir)
    rows = []
    for cdir in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
        files = sorted(cdir.glob("*.parquet"))
        if not files or not (release / "data" / cdir.name).is_dir():
            continue
        truth = _truth(release, cdir.name)
        if not truth:
            continue
        for f in files:
            table = pq.read_table(
                f, columns=["instance_id", "method", "status", "graph_type", "adjacency"]
            )
            adjacency = _adjacencies(table.column("adjacency"))
            table = table.drop_columns(["adjacency"])
            for p, A in zip(table.to_pylist(), adjacency, strict=True):
                t = truth.get(p["instance_id"])
                if t is None or p["status"] != "ok" or A is None:
                    continue
                if A.shape != t["A"].shape:
                    continue
                if (p["graph_type"] or "dag") != "dag" or np.any(A & A.T):
                    A = orient_randomly(A, seed=instance_seed(p["instance_id"]))
                for axis, tags in t["tags"].items():
                    for cat, (tp, fp, fn) in edge_tag_counts(t["A"], A, tags).items():
                        rows.append(
                            {
                                "method": p["method"],
                                "config": cdir.name,
                                "setting": t["setting"],
                                "instance_id": p["instance_id"],
                                "axis": axis,
                                "category": cat,
                                "tp": tp,
                                "fp": fp,
                                "fn": fn,
                            }
                        )
    cols = ["method", "config", "setting", "instance_id", "axis", "category", "tp", "fp", "fn"]
    return pd.DataFrame(rows, columns=cols)
