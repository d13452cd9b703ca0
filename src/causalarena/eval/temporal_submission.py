"""DoTime's ``ctp-submission/1`` results format: DoTime's metric definitions, writer and reader.

A DoTime leaderboard entry is the JSON that ``dotime-eval-submission`` writes
(``dotime.reference.submission`` in ``dotime`` 0.2.0): ``dotime.evaluation.Results.to_dict()``
(``suite``, ``baseline``, ``n_episodes``, ``n_queries``, ``dir_target``, ``dir_target_mode``,
``pairs_share_noise``, ``pooled``, ``per_structure``) plus ``model``, ``package_version``,
``schema = "ctp-submission/1"`` and ``target_qa`` (``dotime.qa.QAReport.to_dict()``).  This
module writes the same keys from this package's harness (:func:`submission`, called by
:func:`causalarena.eval.temporal.score` as ``result["dotime"]``) and reads either producer's
files (:func:`read_submission`), so a DoTime entry and ours are one file apart.

Metric definitions (``dotime.evaluation``, pooled over every query of the group):
``rmse = sqrt(mean((p - y)^2))``, ``mae = mean|p - y|``, ``nmse = mean((p - y)^2) / var(y)``
(population variance; null below two queries or ``var < 1e-8``), ``r2 = 1 - SS_res / SS_tot``
(null for ``SS_tot < 1e-12``); direction accuracy ``dir_acc_level`` on ``sign(p)`` vs
``sign(y)`` and ``dir_acc_effect`` on ``sign(p - y_obs)`` vs ``sign(y - y_obs)`` (``y_obs`` the
factual level at the query), scoring only targets with ``|target| >= 0.1`` (``dir_n_valid_*``)
with binomial SE ``sqrt(acc (1 - acc) / n_valid)``.  ``dir_target`` (``"auto"``: ``"effect"``
when the arms share their noise, i.e. counterfactual pairs, else ``"level"``) fills the
unprefixed ``dir_acc``/``dir_n_valid``/``dir_acc_se``; the effect fields are present when the
effect is scored or the noise is shared, as in DoTime.  DoTime writes NaN for undefined values
(Python's ``json`` emits ``NaN``); this writer writes null, and the reader accepts both.

Where the two producers differ in content (not in form): ``per_structure`` uses DoTime's
structure names (``back_door``, ``bi_variate``, ``regime_3``, ...), generic episodes have no
structure (as in DoTime); ``suite`` is the DoTime name of the suite when it has one; and
``target_qa`` holds this package's arm statistics (DoTime's ``arm_stats`` fields) with
``passed`` from finiteness and positive variance of both level arms, and the producer and suite
version in ``notes``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = "ctp-submission/1"
#: Top-level keys of a ``ctp-submission/1`` file, in DoTime's order.
TOP_KEYS: tuple[str, ...] = (
    "suite",
    "baseline",
    "n_episodes",
    "n_queries",
    "dir_target",
    "dir_target_mode",
    "pairs_share_noise",
    "pooled",
    "per_structure",
    "model",
    "package_version",
    "schema",
    "target_qa",
)
#: Metric keys of every group (``pooled`` and each ``per_structure`` entry), effect excluded.
METRIC_KEYS: tuple[str, ...] = (
    "rmse",
    "mae",
    "nmse",
    "r2",
    "dir_acc_level",
    "dir_n_valid_level",
    "dir_acc_se_level",
    "dir_acc",
    "dir_n_valid",
    "dir_acc_se",
)
EFFECT_KEYS: tuple[str, ...] = ("dir_acc_effect", "dir_n_valid_effect", "dir_acc_se_effect")
DIR_ACC_EPS = 0.1
DIR_TARGET_MODES = ("auto", "level", "effect")
_QA_KEYS = (
    "passed",
    "problems",
    "notes",
    "dir_target",
    "check_effect",
    "thresholds",
    "label",
    "pooled",
    "groups",
)


class SubmissionError(ValueError):
    """A ``ctp-submission/1`` file that cannot be read (the message names file and field)."""


# ---------------------------------------------------------------------------------- metrics
def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def direction(pred: np.ndarray, true: np.ndarray, eps: float = DIR_ACC_EPS) -> dict[str, Any]:
    """DoTime's ``direction_accuracy`` with its binomial SE: ``acc``, ``n_valid``, ``se``
    (``acc``/``se`` None when no target has ``|target| >= eps``).  A prediction of exactly 0
    has no sign and counts as wrong."""
    keep = np.abs(true) >= eps
    n = int(keep.sum())
    if n == 0:
        return {"acc": None, "n_valid": 0, "se": None}
    acc = float(np.mean(np.sign(pred[keep]) == np.sign(true[keep])))
    return {"acc": acc, "n_valid": n, "se": math.sqrt(acc * (1.0 - acc) / n)}


def group_metrics(
    pred: np.ndarray, true: np.ndarray, obs: np.ndarray | None, dir_target: str
) -> dict[str, Any]:
    """One group's metrics under DoTime's names (see the module docstring).

    Parameters
    ----------
    pred, true : ndarray of shape (n,), float64
        Predicted and released interventional levels of ``n`` queries.
    obs : ndarray of shape (n,) or None
        Factual levels at the queries; None scores the level only.
    dir_target : {"level", "effect"}
    """
    from causalarena.eval.temporal import nmse, r2

    pred = np.asarray(pred, dtype=np.float64)
    true = np.asarray(true, dtype=np.float64)
    err = pred - true
    out: dict[str, Any] = {
        "rmse": float(np.sqrt(np.mean(err**2))) if err.size else None,
        "mae": float(np.mean(np.abs(err))) if err.size else None,
        "nmse": nmse(pred, true),
        "r2": r2(pred, true),
    }
    scores = {"level": direction(pred, true)}
    if obs is not None:
        scores["effect"] = direction(pred - obs, true - obs)
    for name, d in scores.items():
        out[f"dir_acc_{name}"] = d["acc"]
        out[f"dir_n_valid_{name}"] = d["n_valid"]
        out[f"dir_acc_se_{name}"] = d["se"]
    out["dir_acc"] = out[f"dir_acc_{dir_target}"]
    out["dir_n_valid"] = out[f"dir_n_valid_{dir_target}"]
    out["dir_acc_se"] = out[f"dir_acc_se_{dir_target}"]
    return out


def _arm_stats(x: np.ndarray) -> dict[str, Any]:
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    f = x[np.isfinite(x)]
    out: dict[str, Any] = {"n": int(x.size), "n_nonfinite": int(x.size - f.size)}
    if f.size == 0:
        return {**out, "nonzero_frac": None, "mean": None, "var": None, "abs_max": None}
    return {
        **out,
        "nonzero_frac": float(np.mean(f != 0.0)),
        "mean": float(np.mean(f)),
        "var": float(np.var(f)),
        "abs_max": float(np.max(np.abs(f))),
    }


def _qa(
    y: np.ndarray, yf: np.ndarray, dir_target: str, label: str, notes: list[str]
) -> dict[str, Any]:
    pooled = {
        "n": int(y.size),
        "asserted": bool(y.size >= 2),
        "y_obs_level": _arm_stats(yf),
        "y_int_level": _arm_stats(y),
        "effect": _arm_stats(y - yf),
        "n_null_effect_exempt": 0,
    }
    problems = []
    for arm in ("y_obs_level", "y_int_level"):
        st = pooled[arm]
        if st["n_nonfinite"] or not st["var"]:
            problems.append(f"pooled {arm}: non-finite or zero-variance target arm")
    return {
        "passed": not problems,
        "problems": problems,
        "notes": notes,
        "dir_target": dir_target,
        "check_effect": dir_target == "effect",
        "thresholds": {},
        "label": label,
        "pooled": pooled,
        "groups": {},
    }


def submission(
    recs: list[dict[str, Any]],
    *,
    model: str,
    baseline: str | None = None,
    dir_target: str = "auto",
) -> dict[str, Any]:
    """The ``ctp-submission/1`` payload of normalised predictions (``score``'s records).

    Parameters
    ----------
    recs : list of dict
        ``{"mean": (q,) float64, ..., "row": decoded row}`` per episode.
    model : str
        Display name (``model``); ``baseline`` defaults to it.
    dir_target : {"auto", "level", "effect"}
        What ``dir_acc`` scores (``"auto"``: the effect for counterfactual pairs).

    Raises
    ------
    ValueError
        Unknown ``dir_target``, or no records.
    """
    from causalarena import __version__
    from causalarena.generator.temporal.suites import (
        DOTIME_STRUCTURE_NAMES,
        TEMPORAL_SUITES,
        resolve_suite_name,
    )

    if dir_target not in DIR_TARGET_MODES:
        raise ValueError(
            f"dir_target must be one of {', '.join(DIR_TARGET_MODES)}, got {dir_target!r}"
        )
    if not recs:
        raise ValueError("no scored episodes: nothing to write")
    y = np.concatenate([np.asarray(r["row"]["y_true"], np.float64) for r in recs])
    yf = np.concatenate([np.asarray(r["row"]["y_factual"], np.float64) for r in recs])
    p = np.concatenate([np.asarray(r["mean"], np.float64) for r in recs])
    shared = all(str(r["row"].get("pair_mode")) == "counterfactual" for r in recs)
    scored = dir_target if dir_target != "auto" else ("effect" if shared else "level")
    effect = scored == "effect" or shared
    obs = yf if effect else None
    struct: list[str | None] = []
    for r in recs:
        n = len(r["row"]["y_true"])
        name = str(r["row"].get("structure"))
        if name.startswith("regime_"):
            lab: str | None = name
        elif "+" in name:  # seasonal / trend labels: base+driver
            base, rest = name.split("+", 1)
            lab = f"{DOTIME_STRUCTURE_NAMES.get(base, base)}+{rest}"
        else:
            lab = DOTIME_STRUCTURE_NAMES.get(name)
        struct += [lab] * n
    lab_arr = np.array(struct, dtype=object)
    per = {}
    for k in sorted({x for x in struct if x is not None}):
        sel = lab_arr == k
        per[k] = group_metrics(p[sel], y[sel], obs[sel] if obs is not None else None, scored)
    suites = sorted({str(r["row"]["suite"]) for r in recs})
    names, notes = [], [f"written by causalarena {__version__}"]
    for sname in suites:
        try:
            sdef = TEMPORAL_SUITES[resolve_suite_name(sname)]
        except (KeyError, ValueError):
            names.append(sname)
            continue
        names.append(sdef.dotime or sdef.name)
        notes.append(f"suite {sdef.name} {sdef.version} (DoTime name: {sdef.dotime or 'none'})")
    suite = "+".join(names)
    return {
        "suite": suite,
        "baseline": baseline or model,
        "n_episodes": len(recs),
        "n_queries": int(y.size),
        "dir_target": scored,
        "dir_target_mode": dir_target,
        "pairs_share_noise": shared,
        "pooled": group_metrics(p, y, obs, scored),
        "per_structure": per,
        "model": model,
        "package_version": __version__,
        "schema": SCHEMA,
        "target_qa": _qa(y, yf, scored, suite, notes),
    }


# ---------------------------------------------------------------------------------- files
def write_submission(payload: dict[str, Any], path: str | os.PathLike) -> Path:
    """Write a payload (validated as :func:`read_submission` would) atomically, pretty-printed
    like DoTime's (``indent=2``), with null for undefined numbers.

    Raises
    ------
    SubmissionError
        The payload is not a valid ``ctp-submission/1`` document.
    """
    path = Path(path)
    validate(payload, str(path))
    text = json.dumps(_nulls(payload), indent=2, allow_nan=False)
    tmp = path.with_name(f".{path.name}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(text + "\n")
    os.replace(tmp, path)
    return path


def _nulls(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _nulls(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_nulls(x) for x in v]
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def read_submission(path: str | os.PathLike) -> dict[str, Any]:
    """Read a ``ctp-submission/1`` file written by DoTime or by this package.

    Returns
    -------
    dict
        The document with DoTime's keys; NaN values (DoTime's) are turned into None.

    Raises
    ------
    SubmissionError
        Unreadable JSON, another schema, or a missing or mistyped field (named with the file).
    """
    from causalarena.safejson import loads

    path = Path(path)
    try:
        data = loads(path.read_text())
    except OSError as exc:
        raise SubmissionError(f"{path}: cannot read ({exc.strerror})") from None
    except (ValueError, UnicodeDecodeError) as exc:  # invalid, too deep, or a huge integer
        raise SubmissionError(f"{path}: not a readable JSON document ({str(exc)[:120]})") from None
    data = _nulls(data)
    validate(data, str(path))
    return data


def _group_ok(g: Any, where: str) -> None:
    if not isinstance(g, dict):
        raise SubmissionError(f"{where}: must be an object, got {type(g).__name__}")
    for k in METRIC_KEYS:
        if k not in g:
            raise SubmissionError(f"{where}: missing field {k!r}")
        v = g[k]
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise SubmissionError(f"{where}.{k}: must be a number or null, got {_show(v)}")
        if isinstance(v, int) and abs(v) > 1e300:
            raise SubmissionError(f"{where}.{k}: {str(v)[:20]}... is not a metric value")


def _show(v: Any) -> str:
    """A short, printable rendering of a bad value for an error message."""
    text = v if isinstance(v, str) else json.dumps(v, default=str)[:60]
    text = "".join(c if c.isprintable() else "?" for c in str(text))
    return text[:40] + ("..." if len(text) > 40 else "")


def validate(data: Any, source: str = "<payload>") -> None:
    """Check the form of a ``ctp-submission/1`` document (see :func:`read_submission`)."""
    if not isinstance(data, dict):
        raise SubmissionError(f"{source}: a submission is a JSON object")
    for k in ("suite", "model", "baseline"):
        v = data.get(k)
        if k not in data or (v is None and k != "suite"):
            continue
        if not (isinstance(v, str) and 0 < len(v) <= 200 and v.isprintable()):
            raise SubmissionError(
                f"{source}: field {k} must be a printable name of at most 200 characters, "
                f"got {_show(v)}"
            )
    if data.get("schema") != SCHEMA:
        raise SubmissionError(
            f"{source}: field 'schema' is {data.get('schema')!r}, expected {SCHEMA!r}"
        )
    for k in TOP_KEYS:
        if k not in data:
            raise SubmissionError(f"{source}: missing field {k!r}")
    for k in ("n_episodes", "n_queries"):
        if isinstance(data[k], bool) or not isinstance(data[k], int) or data[k] < 0:
            raise SubmissionError(f"{source}: field {k} must be a count, got {_show(data[k])}")
    if data["dir_target"] not in ("level", "effect"):
        raise SubmissionError(
            f"{source}: field dir_target is {_show(data['dir_target'])}, expected level or effect"
        )
    _group_ok(data["pooled"], f"{source}: pooled")
    if not isinstance(data["per_structure"], dict):
        raise SubmissionError(f"{source}: field 'per_structure' must be an object")
    for name, g in data["per_structure"].items():
        _group_ok(g, f"{source}: per_structure.{name}")
    qa = data["target_qa"]
    if qa is not None and (not isinstance(qa, dict) or any(k not in qa for k in _QA_KEYS)):
        raise SubmissionError(f"{source}: field 'target_qa' lacks DoTime's QA report fields")
