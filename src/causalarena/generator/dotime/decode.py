"""Decoding DoTime's on-disk suite schema (documented by the public ``dotime`` 0.2.0 package).

A DoTime suite folder holds ``manifest.json`` (``name``, ``version``, ``schema_version`` "1" or
"2", ``seed``, ``n_episodes``, ``structures``, ``license``, and ``shards``: ``file``,
``n_episodes``, ``md5``) and Parquet shards, one row per episode: ``scm_id``, ``structure``,
``tier``, ``n_vars``, ``length``, row-major flattened ``x_obs`` and ``x_int`` (``length *
n_vars`` values), ``intervention_json``, ``query_target`` (column indices), ``query_time``
(encoded, see below), ``y_true``, ``metadata_json``; schema 2 adds ``obs_times`` (``length``
times) and ``obs_mask`` (``length * n_vars`` booleans, ``True`` = observed), null when absent.

``query_time`` is encoded per suite (DoTime declares it per registered suite, not in the
files): ``step`` (the row index), ``index/T`` (row / T), ``index/(T-1)`` (row / (T - 1)) or
``time/span`` (the row's observation time as a fraction of the observed span, read against
``obs_times``).  :func:`query_rows` decodes exactly: a value that does not land on a whole row
(tolerance ``max(1e-3, T * 1e-6)`` rows, float32 round-off) or on an observation time
(``1e-6`` of the span) is an error naming the value -- the signature of a wrong declaration
(DoTime's own changelog records an encode/decode off-by-one between ``index/T`` and
``index/(T-1)``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ENCODINGS = ("step", "index/T", "index/(T-1)", "time/span")
#: The query_time encoding DoTime declares for each of its registered suites (dotime 0.2.0).
DECLARED: dict[str, str] = {
    "dot-Identifiability-v1": "index/T",
    "dot-RegimeSwitch-v1": "step",
    "dot-Continuous-v1": "index/(T-1)",
    "dot-Generic-100k": "step",
    "dot-SeasonalTrend-v1": "index/T",
    "dot-Wide-v1": "step",
    "dot-Observed-v1": "index/T",
    "dot-ContinuousIrregular-v1": "time/span",
}
SCHEMAS = ("1", "2")
SPAN_TOL = 1e-6


class DoTimeFormatError(ValueError):
    """A DoTime folder, file, field or value this importer cannot read (the message names it)."""


def md5(path: Path) -> str:
    h = hashlib.md5()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The DoTime ``manifest.json`` of ``folder``, checked for the fields the import needs.

    Raises
    ------
    DoTimeFormatError
        Missing or unreadable manifest, unsupported ``schema_version``, or a missing field.
    """
    from causalarena import safejson

    p = Path(folder) / "manifest.json"
    try:
        m = safejson.loads(p.read_text())
    except (OSError, ValueError) as exc:  # JSONDecodeError, JSONDepthError, UnicodeDecodeError
        raise DoTimeFormatError(f"{p}: not a readable DoTime manifest ({exc})") from None
    if not isinstance(m, dict):
        raise DoTimeFormatError(f"{p}: the manifest must be a JSON object")
    sv = str(m.get("schema_version"))
    if sv not in SCHEMAS:
        raise DoTimeFormatError(
            f"{p}: field 'schema_version' = {m.get('schema_version')!r}; this importer reads "
            f"DoTime schemas {list(SCHEMAS)}"
        )
    for k in ("name", "version", "shards"):
        if k not in m:
            raise DoTimeFormatError(f"{p}: missing field {k!r}")
    n = m.get("n_episodes")
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 0):
        raise DoTimeFormatError(f"{p}: field 'n_episodes' = {n!r} must be a non-negative integer")
    if not isinstance(m["shards"], list) or not all(
        isinstance(s, dict) and isinstance(s.get("file"), str) for s in m["shards"]
    ):
        raise DoTimeFormatError(f"{p}: field 'shards' must be a list of {{'file', 'md5'}} objects")
    for s in m["shards"]:
        k = s.get("n_episodes")
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 0):
            raise DoTimeFormatError(
                f"{p}: shard {s['file']!r} field 'n_episodes' = {k!r} must be a non-negative integer"
            )
        f = Path(s["file"])
        if f.is_absolute() or ".." in f.parts:
            raise DoTimeFormatError(f"{p}: shard file {s['file']!r} is outside the folder")
    return m


def encoding_for(manifest: dict[str, Any], override: str | None = None) -> str:
    """The suite's query_time encoding: ``override``, else DoTime's declaration for its name.

    Raises
    ------
    DoTimeFormatError
        Unknown override, or a suite name DoTime declares no encoding for and no override.
    """
    if override is not None:
        if override not in ENCODINGS:
            raise DoTimeFormatError(
                f"time encoding {override!r} unknown; choose from {list(ENCODINGS)}"
            )
        return override
    name = str(manifest["name"])
    if name not in DECLARED:
        raise DoTimeFormatError(
            f"DoTime declares no query_time encoding for suite {name!r} (known: "
            f"{sorted(DECLARED)}); pass one of {list(ENCODINGS)} explicitly"
        )
    return DECLARED[name]


def query_rows(
    query_time: Sequence[float], T: int, encoding: str, times: Sequence[float] | None = None
) -> list[int]:
    """Row index of each encoded query time (see the module docstring).

    Raises
    ------
    DoTimeFormatError
        ``T < 1``, unknown encoding, ``time/span`` without ``T`` observation times, or a value
        that does not decode to a whole row / an observation time.
    """
    if T < 1:
        raise DoTimeFormatError(f"trajectory length must be positive, got {T}")
    q = np.asarray(query_time, dtype=np.float64).reshape(-1)
    if encoding == "time/span":
        if times is None or len(times) != T:
            raise DoTimeFormatError(
                f"encoding 'time/span' needs {T} observation times (obs_times), got "
                f"{None if times is None else len(times)}"
            )
        g = np.asarray(times, dtype=np.float64)
        span = float(g[-1] - g[0])
        frac = (g - g[0]) / span if span > 0 else np.zeros_like(g)
        dist = np.abs(frac[None, :] - q[:, None])
        rows = dist.argmin(axis=1)
        for i, (v, r) in enumerate(zip(q, rows, strict=True)):
            if dist[i, r] > SPAN_TOL:
                raise DoTimeFormatError(
                    f"query_time {v!r} is no observation time under 'time/span' (T={T})"
                )
        return [int(r) for r in rows]
    scale = {"step": 1.0, "index/T": float(T), "index/(T-1)": float(T - 1)}
    if encoding not in scale:
        raise DoTimeFormatError(f"unknown encoding {encoding!r}; choose from {list(ENCODINGS)}")
    tol = max(1e-3, T * 1e-6)
    out = []
    for v in q:
        pos = v * scale[encoding]
        r = round(pos)
        if abs(pos - r) > tol:
            raise DoTimeFormatError(
                f"query_time {v!r} is not a whole row under {encoding!r} (T={T}); the declared "
                "encoding does not match the data"
            )
        out.append(min(max(int(r), 0), T - 1))
    return out


def encode_rows(rows: Sequence[int], T: int, encoding: str, times=None) -> list[float]:
    """Inverse of :func:`query_rows` (tests and export)."""
    r = np.asarray(rows, dtype=np.float64)
    if encoding == "step":
        return r.tolist()
    if encoding == "index/T":
        return (r / T).tolist()
    if encoding == "index/(T-1)":
        return (r / (T - 1)).tolist()
    g = np.asarray(times, dtype=np.float64)
    span = float(g[-1] - g[0])
    return [float((g[int(i)] - g[0]) / span) for i in rows]
