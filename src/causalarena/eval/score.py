"""Score prediction files against the ground truth of a release (one row per run).

Reads ``<pred_dir>/<config>/*.parquet`` (the :mod:`causalarena.eval.predictions` schema, from
:func:`causalarena.eval.runner.run` or from any external method), joins each row with its
instance's truth and factor columns, and computes :func:`causalarena.eval.metrics.score_graph`
with the instance's fixed seed for orienting undirected edges (paper B.2).  Rows whose status is
not ``ok`` keep NaN metrics; rows that fail validation here (unknown instance id, wrong shape,
non-binary, self-loop, NaN) become ``invalid`` with the reason, never a crash.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from causalarena.eval.metrics import score_graph
from causalarena.eval.predictions import PredictionError, validate_prediction
from causalarena.eval.runner import instance_seed
from causalarena.schema import SLICE_FACTORS

METRICS = ("precision", "recall", "f1", "shd", "nshd", "sid", "auroc", "ap", "shd_pattern")
TRUTH_COLUMNS = [
    "instance_id",
    "scm_id",
    "replicate",
    "setting",
    "family",
    *SLICE_FACTORS,
    "n_obs",
    "n_int",
    "adjacency",
]


def read_truth(release: Path, config: str) -> dict[str, dict[str, Any]]:
    """Factor columns and true adjacency (int8 (d, d)) of every instance of a config."""
    folder = Path(release) / "data" / config
    table = pq.read_table(folder, columns=TRUTH_COLUMNS).to_pylist()
    out = {}
    for r in table:
        d = r["d"]
        r["adjacency"] = np.asarray(r["adjacency"], dtype=np.int8).reshape(d, d)
        r["n"] = r.pop("n_obs") + r.pop("n_int")
        out[r["instance_id"]] = r
    return out


def score_rows(pred: pd.DataFrame, truth: dict[str, dict[str, Any]], config: str) -> pd.DataFrame:
    """Score one predictions table; returns one row per prediction with metrics and factors."""
    rows = []
    for p in pred.to_dict("records"):
        iid = p["instance_id"]
        base = {
            k: p.get(k)
            for k in (
                "method",
                "method_version",
                "library_version",
                "instance_id",
                "status",
                "runtime_s",
                "error",
                "graph_type",
                "release_version",
                "manifest_sha256",
                "package_version",
            )
        }
        base["config"] = config
        t = truth.get(iid)
        metrics: dict[str, Any] = dict.fromkeys(METRICS, np.nan)
        if t is None:
            base["status"] = "invalid"
            base["error"] = f"unknown instance id {iid!r} for config {config!r}"
        else:
            base.update({k: v for k, v in t.items() if k != "adjacency"})
            if base["status"] == "ok":
                try:
                    A, S = validate_prediction(
                        iid,
                        t["d"],
                        _arr(p.get("adjacency")),
                        _arr(p.get("edge_scores")),
                        p.get("graph_type") or "dag",
                    )
                    res = score_graph(t["adjacency"], A, edge_scores=S, seed=instance_seed(iid))
                    metrics.update(
                        {k: (np.nan if res.get(k) is None else float(res[k])) for k in METRICS}
                    )
                except (PredictionError, ValueError) as exc:
                    base["status"] = "invalid"
                    base["error"] = str(exc)
        rows.append({**base, **metrics})
    return pd.DataFrame(rows)


def _arr(v: Any) -> np.ndarray | None:
    if v is None:
        return None
    return np.asarray([np.asarray(r) for r in v]) if len(v) else np.zeros((0, 0))


def score_predictions(release: str | os.PathLike, pred_dir: str | os.PathLike) -> pd.DataFrame:
    """Score every predictions file under ``pred_dir`` against ``release``.

    Returns
    -------
    pandas.DataFrame
        One row per (method, instance): provenance, status, runtime, factor columns and the
        metrics of :data:`METRICS` (NaN where undefined or not ``ok``).
    """
    release, pred_dir = Path(release), Path(pred_dir)
    frames = []
    for config_dir in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
        files = sorted(config_dir.glob("*.parquet"))
        if not files:
            continue
        truth = read_truth(release, config_dir.name)
        for f in files:
            frames.append(score_rows(pq.read_table(f).to_pandas(), truth, config_dir.name))
    if not frames:
        raise FileNotFoundError(f"{pred_dir}: no predictions (<config>/<method>.parquet) found")
    return pd.concat(frames, ignore_index=True)


def release_of(pred_dir: str | os.PathLike) -> Path:
    """The release folder recorded by :func:`causalarena.eval.runner.run` in ``run.json``."""
    path = Path(pred_dir) / "run.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing; pass the release folder explicitly (--release)")
    return Path(json.loads(path.read_text())["release"])
