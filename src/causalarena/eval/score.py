"""Score prediction files against the verified ground truth of a release (one row per run).

Reads ``<pred_dir>/<config>/*.parquet`` (the :mod:`causalarena.eval.predictions` schema, from
:func:`causalarena.eval.runner.run` or from any external method), joins each row with its
instance's truth and factor columns, and computes :func:`causalarena.eval.metrics.score_graph`
with the instance's fixed seed for orienting undirected edges (paper B.2).

Rules (issue 10 section 1)
--------------------------
* **Truth only from a verified release.**  The config's shards are checked against
  ``manifest.json`` (listed files present, size and sha256 equal, no unlisted shard) before
  any truth is read; a mismatch is a :class:`ScoreError` naming the file.  The provenance
  columns ``release_version`` (``<suite>@<version>``) and ``manifest_sha256`` come from that
  release, never from the prediction rows; a file whose rows name another release, or lack
  the provenance columns or values, is refused.
* **One method and config per file.**  Every row of a file has the method of its first row and
  the config of the folder it sits in (:func:`score_file`: ``config``, else the column); a
  relabelled row is refused.  One method may be split over several files.
* **One submission per method and config, every instance once.**  A file (or two files of the
  same method and config) repeating an instance id is refused, never averaged like
  replicates.
* **Coverage.**  Every instance of the config gets a row per method: instances a submission
  lacks become ``status = "missing"``.  ``ok`` rows carry their prediction's scores
  (``scored_as = "prediction"``); ``missing``, ``failed``, ``timeout`` and ``invalid`` rows
  carry the documented **fallback score: the empty graph** (``scored_as = "fallback"``;
  AUROC 0.5 and AP equal to the edge density of an all-equal score matrix when the method
  returns edge scores on any of its rows, else NaN), so a method that submits 3 of 20
  instances is ranked on all 20.  ``unsupported`` rows (a split the method cannot consume;
  paper B.1 "marked missing") carry NaN and are left out, as in the paper's Table 2.
* **Validity.**  Rows failing :func:`causalarena.eval.predictions.validate_prediction` (unknown
  instance, wrong shape, non-binary, a cycle in a ``dag``, a ``cpdag`` that is no DAG's CPDAG)
  become ``invalid`` with the reason.

Columns of the returned frame (consumed by :mod:`causalarena.eval.analyses`)
---------------------------------------------------------------------------
``method``, ``method_version``, ``library_version``, ``pretraining_disclosure``, ``config``,
``instance_id``, ``status`` (:data:`SCORE_STATUSES`), ``scored_as`` ("prediction", "fallback"
or None), ``runtime_s``, ``error``, ``graph_type``, ``release_version``, ``manifest_sha256``,
``package_version`` (of the predictions, when recorded), the truth's factor columns
(:data:`TRUTH_COLUMNS` without ``adjacency``; ``n = n_obs + n_int``) and the metrics of
:data:`METRICS` (float, NaN where undefined): ``sid`` is the SID of the seeded orientation,
``sid_lower``/``sid_upper`` its bounds over a CPDAG prediction's equivalence class (equal to
``sid`` for a DAG).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from causalarena.errors import CausalArenaError
from causalarena.eval.metrics import SCORE_METRICS, _cpdag_of, score_graph
from causalarena.eval.predictions import (
    STATUSES,
    PredictionError,
    disclosure_problem,
    method_name_problem,
    validate_prediction,
)
from causalarena.eval.runner import instance_seed
from causalarena.schema import OPTIONAL_FACTORS, SLICE_FACTORS

__all__ = [
    "FALLBACK_STATUSES",
    "METRICS",
    "SCORE_STATUSES",
    "ScoreError",
    "read_predictions",
    "read_truth",
    "release_provenance",
    "score_file",
    "score_predictions",
    "score_rows",
]

METRICS = SCORE_METRICS
#: Statuses of the scores frame: the predictions' statuses plus ``missing`` (no row submitted).
SCORE_STATUSES = (*STATUSES, "missing")
#: Statuses scored with the fallback (the empty graph) in the main ranking.
FALLBACK_STATUSES = ("missing", "failed", "timeout", "invalid")
#: Columns a predictions file must have (the others of the schema are optional): the row's
#: identity and outcome, and the provenance that must match the release it is scored against.
REQUIRED_COLUMNS = (
    "instance_id",
    "config",
    "method",
    "status",
    "adjacency",
    "release_version",
    "manifest_sha256",
)
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
_CARRIED = (
    "method",
    "method_version",
    "library_version",
    "pretraining_disclosure",
    "instance_id",
    "status",
    "runtime_s",
    "error",
    "graph_type",
    "package_version",
)


class ScoreError(CausalArenaError, ValueError):
    """Predictions or truth that cannot be scored (names the file, column and value)."""


# ----------------------------------------------------------------------------------------------
# truth
# ----------------------------------------------------------------------------------------------
def release_provenance(release: str | os.PathLike) -> dict[str, str]:
    """``release_version`` (``<suite>@<version>``) and ``manifest_sha256`` of a release."""
    from causalarena.release.io import sha256_file
    from causalarena.release.manifest import read_manifest

    release = Path(release)
    m = read_manifest(release)
    return {
        "release_version": f"{m['suite']}@{m['version']}",
        "manifest_sha256": sha256_file(release / "manifest.json"),
    }


def _verify_config(release: Path, config: str) -> None:
    """Refuse a config whose shards disagree with the manifest (names the file)."""
    from causalarena.release.io import sha256_file
    from causalarena.release.manifest import read_manifest

    manifest = read_manifest(release)
    folder = release / "data" / config
    if not folder.is_dir():
        have = sorted(p.name for p in (release / "data").iterdir() if p.is_dir())
        raise ScoreError(f"{release}: no config {config} (found: {', '.join(have) or 'none'})")
    prefix = f"data/{config}/"
    listed = {f["path"]: f for f in manifest["files"] if str(f["path"]).startswith(prefix)}
    if not listed:
        raise ScoreError(f"{release / 'manifest.json'}: lists no file of config {config}")
    for rel, f in sorted(listed.items()):
        p = release / rel
        if not p.is_file():
            raise ScoreError(f"{p}: listed in manifest.json but missing; truth refused")
        if p.stat().st_size != f["bytes"] or sha256_file(p) != f["sha256"]:
            raise ScoreError(
                f"{p}: does not match its manifest.json checksum (the truth shard was changed "
                "or damaged); truth refused, run causalarena verify"
            )
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(release).as_posix()
        if p.is_file() and not p.name.startswith(".") and rel not in listed:
            raise ScoreError(f"{p}: not listed in manifest.json; truth refused")


def read_truth(release: str | os.PathLike, config: str) -> dict[str, dict[str, Any]]:
    """Factor columns and true adjacency of every instance of a verified config.

    Parameters
    ----------
    release : path
        Release folder.
    config : str
        Config name.

    Returns
    -------
    dict
        ``{instance_id: {factor columns..., "n": n_obs + n_int, "adjacency": int8 (d, d)}}``.

    Raises
    ------
    ScoreError
        If the config is absent or any of its shards disagrees with ``manifest.json``.
    ReleaseError
        If the manifest is missing or malformed.
    """
    release = Path(release)
    _verify_config(release, config)
    shard = next(iter(sorted((release / "data" / config).glob("*.parquet"))), None)
    names = set(pq.read_schema(shard).names) if shard is not None else set()
    extra = [c for c in OPTIONAL_FACTORS if c in names]  # e.g. the scenario `domain`
    table = pq.read_table(release / "data" / config, columns=TRUTH_COLUMNS + extra).to_pylist()
    out = {}
    for r in table:
        d = r["d"]
        r["adjacency"] = np.asarray(r["adjacency"], dtype=np.int8).reshape(d, d)
        r["n"] = r.pop("n_obs") + r.pop("n_int")
        out[r["instance_id"]] = r
    return out


class _TruthCache:
    """Per-run cache: each instance's true CPDAG and fallback score, computed once."""

    def __init__(self, truth: dict[str, dict[str, Any]], sid: bool) -> None:
        self.truth = truth
        self.sid = sid
        self._cpdag: dict[str, np.ndarray] = {}
        self._fallback: dict[str, dict[str, float]] = {}
        self._sid: dict[str, dict] = {}

    def sid_memo(self, iid: str) -> dict:
        """The instance's memo of SID terms (shared by every method's prediction)."""
        return self._sid.setdefault(iid, {})

    def cpdag(self, iid: str) -> np.ndarray:
        if iid not in self._cpdag:
            self._cpdag[iid] = _cpdag_of(self.truth[iid]["adjacency"].astype(bool))
        return self._cpdag[iid]

    def fallback(self, iid: str) -> dict[str, float]:
        """Scores of the empty graph (AUROC/AP of all-equal edge scores)."""
        if iid not in self._fallback:
            t = self.truth[iid]["adjacency"]
            res = score_graph(
                t,
                np.zeros_like(t),
                seed=instance_seed(iid),
                sid=bool(self.sid),
                true_cpdag=self.cpdag(iid),
            )
            m = {k: _num(res.get(k)) for k in METRICS}
            off = ~np.eye(t.shape[0], dtype=bool)
            y = t[off]
            if 0 < y.sum() < y.size:
                m["auroc"], m["ap"] = 0.5, float(y.mean())
            self._fallback[iid] = m
        return self._fallback[iid]


def _num(v: Any) -> float:
    return np.nan if v is None else float(v)


# ----------------------------------------------------------------------------------------------
# predictions files
# ----------------------------------------------------------------------------------------------
def read_predictions(path: str | os.PathLike) -> pd.DataFrame:
    """Read one predictions file and check its columns and categorical values.

    Raises
    ------
    ScoreError
        The file cannot be read as Parquet, lacks a required column
        (:data:`REQUIRED_COLUMNS`), has an empty ``instance_id``, ``config`` or ``method``,
        more than one ``method`` or ``config`` (a file holds one method's predictions for one
        config), an unknown ``status`` or an invalid ``pretraining_disclosure``; the message
        names the file, the column and the value.
    """
    path = Path(path)
    try:
        df = pq.read_table(path).to_pandas()
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise ScoreError(f"{path}: not a readable Parquet predictions file ({exc})") from None
    for col in REQUIRED_COLUMNS:
        if col not in df.columns:
            raise ScoreError(
                f"{path}: required column {col} is missing (columns found: "
                f"{', '.join(map(str, df.columns)) or 'none'})"
            )
    for col in ("instance_id", "config", "method"):
        k = _first_empty(df, col)
        if k is not None:
            raise ScoreError(f"{path}: column {col} is empty in row {k}")
    name = df["method"].iloc[0] if len(df) else "x"
    why = method_name_problem(name)
    if why is not None:
        shown = repr(name) if isinstance(name, str) else str(name)
        raise ScoreError(f"{path}: column method has value {shown} in row 0: {why}")
    for col in ("method", "config"):  # one method and one config per file
        vals = df[col].astype(str)
        other = np.flatnonzero((vals != vals.iloc[0]).to_numpy()) if len(vals) else []
        if len(other):
            k = int(other[0])
            raise ScoreError(
                f"{path}: column {col} has value {vals.iloc[k]} in row {k} but "
                f"{vals.iloc[0]} in row 0; a predictions file holds one {col}"
            )
    bad = ~df["status"].isin(STATUSES)
    if bad.any():
        k = int(np.flatnonzero(bad.to_numpy())[0])
        raise ScoreError(
            f"{path}: column status has unknown value {_show(df['status'].iloc[k])} in row {k} "
            f"(instance {df['instance_id'].iloc[k]}); expected one of {', '.join(STATUSES)}"
        )
    if "pretraining_disclosure" not in df.columns:
        df["pretraining_disclosure"] = "none"
    df["pretraining_disclosure"] = df["pretraining_disclosure"].where(
        df["pretraining_disclosure"].notna(), "none"
    )
    for k, v in enumerate(df["pretraining_disclosure"]):
        why = disclosure_problem(v)
        if why is not None:
            raise ScoreError(
                f"{path}: column pretraining_disclosure has invalid value {_show(v)} in row {k} "
                f"({why})"
            )
    return df


def _show(v: Any) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "(empty)"
    return str(v)


def _first_empty(df: pd.DataFrame, col: str) -> int | None:
    """Index of the first row whose ``col`` is missing or blank, else None."""
    empty = df[col].isna() | (df[col].astype(str).str.strip() == "")
    return int(np.flatnonzero(empty.to_numpy())[0]) if empty.any() else None


def _check_provenance(df: pd.DataFrame, path: Path, prov: dict[str, str]) -> None:
    """Every row must name the release it is scored against (columns checked present by
    :func:`read_predictions`); an empty value is refused like another release's."""
    for col in ("release_version", "manifest_sha256"):
        k = _first_empty(df, col)
        if k is not None:
            raise ScoreError(
                f"{path}: column {col} is empty in row {k} (instance {df['instance_id'].iloc[k]}); "
                f"every row names the release it predicts, here {col} = {prov[col]} "
                "(causalarena.eval.score.release_provenance gives both values)"
            )
        vals = {str(v) for v in df[col]}
        other = sorted(vals - {prov[col]})
        if other:
            raise ScoreError(
                f"{path}: column {col} names another release ({other[0]}; this release is "
                f"{prov[col]}); predictions refused, score them against their own release"
            )


def _check_config(df: pd.DataFrame, path: Path, config: str, why: str) -> None:
    """Refuse a file whose ``config`` column (one value, :func:`read_predictions`) is not the
    config it is scored as (``why`` says where that config comes from)."""
    got = str(df["config"].iloc[0]) if len(df) else config
    if got != config:
        raise ScoreError(
            f"{path}: column config has value {got}, but the file is scored as config "
            f"{config} ({why}); predictions refused"
        )


def _check_known(df: pd.DataFrame, path: Path, known: set, config: str) -> None:
    """Refuse a submission naming an instance the config does not hold (it would be counted
    as an extra instance of the config)."""
    unknown = sorted(set(map(str, df["instance_id"])) - known)
    if unknown:
        more = f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        raise ScoreError(
            f"{path}: column instance_id: {unknown[0]}{more} is not an instance of config "
            f"{config} in this release; predictions refused"
        )


def _check_duplicates(df: pd.DataFrame, where: str) -> None:
    counts = df["instance_id"].value_counts()
    dup = counts[counts > 1]
    if len(dup):
        first = sorted(dup.index)[:3]
        raise ScoreError(
            f"{where}: instance id {first[0]} appears {int(dup[first[0]])} times "
            f"({len(dup)} duplicated id(s){': ' + ', '.join(first) if len(dup) > 1 else ''}); "
            "a submission predicts each instance once, replicates are separate instances"
        )


# ----------------------------------------------------------------------------------------------
# scoring
# ----------------------------------------------------------------------------------------------
def score_rows(
    pred: pd.DataFrame,
    truth: dict[str, dict[str, Any]] | _TruthCache,
    config: str,
    *,
    provenance: dict[str, str] | None = None,
    sid: bool = True,
    complete: bool = True,
) -> pd.DataFrame:
    """Score one method's predictions table for one config.

    Parameters
    ----------
    pred : pandas.DataFrame
        Rows of the predictions schema, one method (columns as checked by
        :func:`read_predictions`).
    truth : dict or _TruthCache
        :func:`read_truth` of the config (or the per-run cache around it).
    config : str
    provenance : dict, optional
        :func:`release_provenance` of the release; written to every row.
    sid : bool, default True
        Compute SID and its bounds (the costly part).
    complete : bool, default True
        Add a ``missing`` row for every instance of ``truth`` that ``pred`` lacks.

    Returns
    -------
    pandas.DataFrame
        The columns documented in the module docstring.
    """
    cache = truth if isinstance(truth, _TruthCache) else _TruthCache(truth, sid)
    scored = _score_submitted(pred, cache, config, provenance or {}, sid)
    return _complete(scored, pred, cache, config, provenance or {}, add_missing=complete)


def _score_submitted(
    pred: pd.DataFrame, cache: _TruthCache, config: str, prov: dict, sid: bool
) -> pd.DataFrame:
    """Scores of the submitted rows (no fallback yet)."""
    tr = cache.truth
    rows = []
    for p in pred.to_dict("records"):
        iid = p["instance_id"]
        base = {k: p.get(k) for k in _CARRIED}
        base["config"] = config
        base.update(prov)
        t = tr.get(iid)
        metrics: dict[str, Any] = dict.fromkeys(METRICS, np.nan)
        if t is None:
            base["status"] = "invalid"
            base["error"] = f"unknown instance id {iid} for config {config}"
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
                    if A is None:  # edge scores only: no hard graph to score
                        raise PredictionError(
                            f"prediction for instance {iid}: no adjacency (edge scores alone "
                            "are not a graph)"
                        )
                    res = score_graph(
                        t["adjacency"],
                        A,
                        edge_scores=S,
                        seed=instance_seed(iid),
                        sid=bool(sid),
                        sid_bounds=sid != "no-bounds",
                        true_cpdag=cache.cpdag(iid),
                        sid_cache=cache.sid_memo(iid),
                    )
                    metrics.update({k: _num(res.get(k)) for k in METRICS})
                except (PredictionError, ValueError) as exc:
                    base["status"] = "invalid"
                    base["error"] = str(exc)
        rows.append({**base, **metrics})
    return pd.DataFrame(rows, columns=[*_CARRIED, "config", *METRICS] if not rows else None)


def _complete(
    scored: pd.DataFrame,
    frame: pd.DataFrame,
    cache: _TruthCache,
    config: str,
    prov: dict,
    *,
    add_missing: bool = True,
) -> pd.DataFrame:
    """Add ``missing`` rows and the fallback scores to the scored rows of one submission."""
    has_scores = "edge_scores" in frame.columns and frame["edge_scores"].notna().any()
    first = frame.iloc[0].to_dict() if len(frame) else {}
    rows = scored.to_dict("records")
    if add_missing and len(frame):
        for iid in sorted(set(cache.truth) - set(frame["instance_id"])):
            base = {k: first.get(k) for k in _CARRIED}
            base.update(
                instance_id=iid,
                status="missing",
                runtime_s=np.nan,
                error="no prediction for this instance in the submission",
                graph_type=None,
                config=config,
                **prov,
            )
            base.update({k: v for k, v in cache.truth[iid].items() if k != "adjacency"})
            rows.append({**base, **dict.fromkeys(METRICS, np.nan)})
    for r in rows:
        if r["status"] == "ok":
            r["scored_as"] = "prediction"
        elif r["status"] in FALLBACK_STATUSES and r["instance_id"] in cache.truth:
            fb = dict(cache.fallback(r["instance_id"]))
            if not has_scores:
                fb["auroc"] = fb["ap"] = np.nan
            r.update(fb)
            r["scored_as"] = "fallback"
        else:
            r["scored_as"] = None
    return pd.DataFrame(rows)


def _arr(v: Any) -> np.ndarray | None:
    if v is None or (isinstance(v, float) and np.isnan(v)):  # NaN: column absent in a file
        return None
    return np.asarray([np.asarray(r) for r in v]) if len(v) else np.zeros((0, 0))


def _submissions(pred_dir: Path) -> list[tuple[str, list[Path]]]:
    out = []
    for config_dir in sorted(p for p in pred_dir.iterdir() if p.is_dir()):
        files = sorted(config_dir.glob("*.parquet"))
        if files:
            out.append((config_dir.name, files))
    return out


def _score_task(task: tuple) -> pd.DataFrame:
    """Score one chunk of rows (runs in a worker process with one BLAS thread)."""
    from threadpoolctl import threadpool_limits

    # one thread each for BLAS and for gadjid's rayon pool: the workers already fill the cores
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    config, part, truth, cpdags, prov, sid = task
    cache = _TruthCache(truth, sid)
    cache._cpdag.update(cpdags)
    with threadpool_limits(1):
        return _score_submitted(part, cache, config, prov, sid)


def score_predictions(
    release: str | os.PathLike,
    pred_dir: str | os.PathLike,
    *,
    workers: int = 1,
    sid: bool = True,
    max_d: int | None = None,
    replicates: Iterable[int] | None = None,
    configs: Iterable[str] | None = None,
) -> pd.DataFrame:
    """Score every predictions file under ``pred_dir`` against ``release``.

    Parameters
    ----------
    release : path
        Release folder; each config's shards are verified against its manifest first.
    pred_dir : path
        ``<pred_dir>/<config>/<file>.parquet``, one or more files per config.
    workers : int, default 1
        Processes scoring rows at once (forked; each scores with one BLAS thread).
    sid : bool or "no-bounds", default True
        Compute SID and the SID bounds of CPDAG predictions (the expensive metrics;
        ``gadjid``, one call per candidate parent set for the bounds); ``"no-bounds"``
        computes SID of the seeded orientation only; False skips both.
    max_d : int, optional
        Evaluate only the instances with at most this many variables (a documented subset,
        e.g. the demo's d <= 30); coverage and fallback are over that subset and rows for
        larger instances are dropped.
    replicates : iterable of int, optional
        Evaluate only these replicate indices (a documented subset, like ``max_d``).
    configs : iterable of str, optional
        Score only these configs.

    Returns
    -------
    pandas.DataFrame
        One row per (method, instance of the config); columns in the module docstring.

    Raises
    ------
    FileNotFoundError
        No predictions file under ``pred_dir``.
    ScoreError
        A file is unreadable, lacks a column, has an unknown status, repeats an instance id,
        names another release, or the release's truth fails its manifest check.
    """
    release, pred_dir = Path(release), Path(pred_dir)
    if not pred_dir.is_dir():
        raise FileNotFoundError(f"{pred_dir}: no such predictions folder")
    subs = _submissions(pred_dir)
    if configs is not None:
        wanted = set(configs)
        subs = [s for s in subs if s[0] in wanted]
    if not subs:
        raise FileNotFoundError(f"{pred_dir}: no predictions (<config>/<method>.parquet) found")
    return _score_submissions(
        release,
        [(c, fs, pred_dir / c) for c, fs in subs],
        workers=workers,
        sid=sid,
        max_d=max_d,
        replicates=replicates,
    )


def _score_submissions(
    release: Path,
    subs: list[tuple[str, list[Path], Path]],
    *,
    workers: int,
    sid: bool | str,
    max_d: int | None = None,
    replicates: Iterable[int] | None = None,
    config_from: str = "its folder",
) -> pd.DataFrame:
    """Score ``(config, files, where)`` submissions (``where`` names them in errors;
    ``config_from`` says where the config came from)."""
    prov = release_provenance(release)
    jobs: dict[str, pd.DataFrame] = {}
    caches: dict[str, _TruthCache] = {}
    for config, files, where in subs:
        truth = read_truth(release, config)
        reps = None if replicates is None else {int(r) for r in replicates}
        larger = {
            k
            for k, v in truth.items()
            if (max_d is not None and v["d"] > max_d)
            or (reps is not None and v["replicate"] not in reps)
        }
        known = set(truth)  # every instance of the config, before the subset
        truth = {k: v for k, v in truth.items() if k not in larger}
        caches[config] = _TruthCache(truth, sid)
        by_method: dict[str, list[pd.DataFrame]] = {}
        for f in files:
            df = read_predictions(f)
            if df.empty:
                raise ScoreError(f"{f}: holds no prediction rows; nothing to score")
            _check_provenance(df, f, prov)
            _check_config(df, f, config, config_from)
            _check_duplicates(df, str(f))
            _check_known(df, f, known, config)
            if larger:
                df = df[~df["instance_id"].isin(larger)]
            for m, sub in df.groupby("method", sort=True):
                by_method.setdefault(str(m), []).append(sub)
        for m, parts in by_method.items():
            frame = pd.concat(parts, ignore_index=True)
            _check_duplicates(frame, f"{where}: method {m}")
            jobs[f"{config}\0{m}"] = frame
    from threadpoolctl import threadpool_limits

    # 100 x 100 boolean products are fastest on one BLAS thread (threads only contend)
    with threadpool_limits(1):
        scored = _run_jobs(jobs, caches, prov, workers, sid)
        out = []
        for key, frame in jobs.items():
            config = key.split("\0")[0]
            done = scored.get(key)
            if done is None:  # every row was outside max_d
                done = _score_submitted(frame, caches[config], config, prov, sid)
            out.append(_complete(done, frame, caches[config], config, prov))
    return pd.concat(out, ignore_index=True)


def _run_jobs(
    jobs: dict[str, pd.DataFrame],
    caches: dict[str, _TruthCache],
    prov: dict,
    workers: int,
    sid: bool,
) -> dict[str, pd.DataFrame]:
    """Score the rows of every submission, in ``workers`` spawned processes when > 1.

    Workers are spawned, not forked (forking after pyarrow has started its threads can
    deadlock); each task carries its rows, their truth and the cached true CPDAGs.
    """
    if workers <= 1:
        return {
            key: _score_submitted(frame, caches[key.split("\0")[0]], key.split("\0")[0], prov, sid)
            for key, frame in jobs.items()
        }
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    # Tasks hold whole instances (every method's rows of an instance together), so the SID
    # term memo of an instance serves all its predictions; about 4 tasks per worker.
    n_rows = sum(len(f) for f in jobs.values())
    target = max(50, -(-n_rows // (4 * workers)))
    by_config: dict[str, list[tuple[str, int, pd.DataFrame]]] = {}
    for key, frame in jobs.items():
        by_config.setdefault(key.split("\0")[0], []).append((key, len(frame), frame))
    tasks, owners = [], []
    for config, items in by_config.items():
        cache = caches[config]
        tagged = pd.concat(
            [f.assign(_job=key, _pos=np.arange(n)) for key, n, f in items], ignore_index=True
        )
        groups = list(tagged.groupby("instance_id", sort=True).indices.values())
        start = 0
        while start < len(groups):
            take, size = [], 0
            while start < len(groups) and (size < target or not take):
                take.append(groups[start])
                size += len(groups[start])
                start += 1
            part = tagged.iloc[np.concatenate(take)]
            ids = sorted({i for i in part["instance_id"] if i in cache.truth})
            truth = {i: cache.truth[i] for i in ids}
            owners.append(part[["_job", "_pos"]].reset_index(drop=True))
            tasks.append(
                (
                    config,
                    part.drop(columns=["_job", "_pos"]),
                    truth,
                    {i: cache.cpdag(i) for i in ids},
                    prov,
                    sid,
                )
            )
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        parts = list(pool.map(_score_task, tasks))
    done = pd.concat(
        [
            pd.concat([o, p.reset_index(drop=True)], axis=1)
            for o, p in zip(owners, parts, strict=True)
        ],
        ignore_index=True,
    )
    out = {}
    for key, sub in done.groupby("_job", sort=False):
        out[str(key)] = (
            sub.sort_values("_pos").drop(columns=["_job", "_pos"]).reset_index(drop=True)
        )
    return out


def score_file(
    path: str | os.PathLike,
    release: str | os.PathLike,
    *,
    config: str | None = None,
    workers: int = 1,
    sid: bool = True,
    max_d: int | None = None,
) -> pd.DataFrame:
    """Score one external predictions file (``causalarena score PRED --release DIR``).

    The config is ``config``, else the file's ``config`` column (one value; a file holds one
    config); with ``config`` given, the column must name it.  Same rules and columns as
    :func:`score_predictions`.

    Raises
    ------
    ScoreError
        As :func:`score_predictions`; also when the config cannot be told or is not in the
        release.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such predictions file")
    df = read_predictions(path)
    why = "--config" if config is not None else "its config column"
    if config is None:
        config = str(df["config"].iloc[0]) if len(df) else path.parent.name
    if not (Path(release) / "data" / config).is_dir():
        raise ScoreError(f"{path}: config {config} is not a config of the release {release}")
    return _score_submissions(
        Path(release),
        [(config, [path], path)],
        workers=workers,
        sid=sid,
        max_d=max_d,
        config_from=why,
    )


def release_of(pred_dir: str | os.PathLike) -> Path:
    """The release folder recorded by :func:`causalarena.eval.runner.run` in ``run.json``."""
    from causalarena.safejson import loads

    path = Path(pred_dir) / "run.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: missing; pass the release folder explicitly (--release)")
    try:
        doc = loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ScoreError(
            f"{path}: not a run record ({exc}); pass the release folder explicitly (--release)"
        ) from None
    rel = doc.get("release") if isinstance(doc, dict) else None
    if not isinstance(rel, str) or not rel:
        raise ScoreError(
            f"{path}: field release is missing or not a path; pass the release folder "
            "explicitly (--release)"
        )
    return Path(rel)
