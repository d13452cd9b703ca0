"""The ``dotime-import`` family: a DoTime suite folder converted into a release of this package.

``causalarena temporal import-dotime DIR --out OUT`` (or ``build("dotime-import", scale="full",
dotime_dir=DIR)``) reads a folder written by the public ``dotime`` package (schemas "1" and "2",
:mod:`causalarena.generator.dotime.decode`), checks every shard's md5 against the DoTime
manifest *before anything is written* (``prepare``), and writes one config, ``dotime-episodes``,
one row per episode in DoTime's order, through the release engine (so the release gets its
manifest with sha256 per shard, card, Croissant, CFF and Zenodo files, ``verify`` and
``freeze`` like every other).  Nothing is resampled: the trajectories are DoTime's float32
values (stored float32, exact), the query rows are decoded exactly from the suite's declared
``query_time`` encoding (the raw encoded values are kept beside them in ``query_time``), and
``mask`` is ``True`` where DoTime's ``obs_mask`` says a cell is *not* observed (this package's
convention).  One work unit per DoTime shard.  The DoTime suite's own identity (name, version,
schema, package version, seed, licence) is recorded in the manifest header; the local folder
path never is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.dotime.decode import (
    DoTimeFormatError,
    encoding_for,
    md5,
    query_rows,
    read_manifest,
)

SUITE = "dotime-import"
CONFIG = "dotime-episodes"
_F32_2D = pa.list_(pa.list_(pa.float32()))
SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("dotime_suite", pa.string()),
        ("dotime_version", pa.string()),
        ("index", pa.int64()),
        ("scm_id", pa.int64()),
        ("structure", pa.string()),
        ("tier", pa.int64()),
        ("T", pa.int32()),
        ("n_vars", pa.int32()),
        ("x_obs", _F32_2D),
        ("x_int", _F32_2D),
        ("times", pa.list_(pa.float64())),
        ("mask", pa.list_(pa.list_(pa.bool_()))),
        ("intervention", pa.string()),
        ("query_target", pa.list_(pa.int64())),
        ("query_time", pa.list_(pa.float64())),
        ("query_time_encoding", pa.string()),
        ("query_times", pa.list_(pa.int32())),
        ("y_true", pa.list_(pa.float64())),
        ("metadata", pa.string()),
    ]
)


def _dir(options: Mapping[str, Any]) -> Path:
    d = options.get("dotime_dir")
    if not d:
        raise DoTimeFormatError("dotime-import needs the DoTime suite folder (option dotime_dir)")
    p = Path(d)
    if not (p / "manifest.json").is_file():
        raise DoTimeFormatError(f"{p}: no manifest.json (not a DoTime suite folder)")
    return p


def prepare(suite: str, scale: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Check the DoTime manifest and every shard's md5 before anything is written.

    Raises
    ------
    DoTimeFormatError
        Naming the manifest field or the shard (missing file, md5 mismatch).
    """
    folder = _dir(options)
    m = read_manifest(folder)
    enc = encoding_for(m, options.get("time_encoding"))
    for s in m["shards"]:
        f = folder / s["file"]
        if not f.is_file():
            raise DoTimeFormatError(f"{f}: shard listed in the DoTime manifest is missing")
        if "md5" in s and md5(f) != s["md5"]:
            raise DoTimeFormatError(
                f"{f}: md5 {md5(f)} differs from the DoTime manifest's {s['md5']}"
            )
    rows = sum(pq.ParquetFile(folder / s["file"]).metadata.num_rows for s in m["shards"])
    if m.get("n_episodes") is not None and m["n_episodes"] != rows:
        raise DoTimeFormatError(
            f"{folder / 'manifest.json'}: field 'n_episodes' = {m['n_episodes']} but the shards "
            f"hold {rows} episodes"
        )
    return {
        "source": {
            "format": "dotime",
            "name": str(m["name"]),
            "version": str(m["version"]),
            "schema_version": str(m["schema_version"]),
            "package_version": m.get("package_version"),
            "seed": m.get("seed"),
            "n_episodes": m.get("n_episodes"),
            "structures": list(m.get("structures") or []),
            "license": m.get("license"),
            "query_time_encoding": enc,
        }
    }


def units(suite: str, scale: str, options: Mapping[str, Any]) -> list[Unit]:
    """One unit per DoTime shard (in manifest order); its params carry the episode offset."""
    folder = _dir(options)
    m = read_manifest(folder)
    enc = encoding_for(m, options.get("time_encoding"))
    out, offset = [], 0
    for i, s in enumerate(m["shards"]):
        n = s.get("n_episodes")
        if n is None:
            n = pq.ParquetFile(folder / s["file"]).metadata.num_rows
        out.append(
            Unit(
                SUITE,
                SUITES[SUITE].version,
                None,
                scale,
                f"shard-{i:04d}",
                {
                    "dir": str(folder.resolve()),
                    "file": s["file"],
                    "md5": s.get("md5"),
                    "offset": offset,
                    "n": s.get("n_episodes"),
                    "encoding": enc,
                    "name": str(m["name"]),
                    "version": str(m["version"]),
                },
            )
        )
        offset += int(n)
    return out


def _row(r: dict[str, Any], i: int, p: Mapping[str, Any], where: str) -> dict[str, Any]:
    try:
        T, N = int(r["length"]), int(r["n_vars"])
        x_obs = np.asarray(r["x_obs"], dtype=np.float32).reshape(T, N)
        x_int = np.asarray(r["x_int"], dtype=np.float32).reshape(T, N)
    except (KeyError, TypeError, ValueError) as exc:
        raise DoTimeFormatError(
            f"{where}: episode {i}: x_obs/x_int/length/n_vars ({exc})"
        ) from None
    times = r.get("obs_times")
    mask = r.get("obs_mask")
    if mask is not None:
        if len(mask) != T * N:
            raise DoTimeFormatError(
                f"{where}: episode {i}: field 'obs_mask' has {len(mask)} entries for {T} x {N}"
            )
        mask = ~np.asarray(mask, dtype=bool).reshape(T, N)
    elif not (np.isfinite(x_obs).all()):
        mask = ~np.isfinite(x_obs)
    observed = np.ones((T, N), dtype=bool) if mask is None else ~mask
    if not np.isfinite(x_obs[observed]).all():
        raise DoTimeFormatError(
            f"{where}: episode {i}: field 'x_obs' has a non-finite value in an observed cell"
        )
    if not np.isfinite(x_int).all():
        raise DoTimeFormatError(f"{where}: episode {i}: field 'x_int' has a non-finite value")
    y = np.asarray(r.get("y_true") or [], dtype=np.float64)
    if not np.isfinite(y).all():
        raise DoTimeFormatError(f"{where}: episode {i}: field 'y_true' has a non-finite value")
    qt = [int(v) for v in r.get("query_target") or []]
    bad = [v for v in qt if not 0 <= v < N]
    if bad:
        raise DoTimeFormatError(
            f"{where}: episode {i}: field 'query_target' = {bad[0]} is outside 0..{N - 1}"
        )
    if len(qt) != len(r.get("query_time") or []) or len(y) != len(qt):
        raise DoTimeFormatError(
            f"{where}: episode {i}: query_target, query_time and y_true differ in length"
        )
    try:
        rows = query_rows(r["query_time"], T, p["encoding"], times)
    except DoTimeFormatError as exc:
        raise DoTimeFormatError(f"{where}: episode {i}: field 'query_time': {exc}") from None
    iv = r.get("intervention_json") or "{}"
    try:
        spec = json.loads(iv)
    except ValueError:
        raise DoTimeFormatError(
            f"{where}: episode {i}: field 'intervention_json' is not valid JSON"
        ) from None
    tgt = spec.get("target", spec.get("targets")) if isinstance(spec, dict) else None
    tgts = tgt if isinstance(tgt, list) else [tgt] if tgt is not None else []
    for t in tgts:
        if isinstance(t, int) and not isinstance(t, bool) and not 0 <= t < N:
            raise DoTimeFormatError(
                f"{where}: episode {i}: field 'intervention_json' target {t} is outside 0..{N - 1}"
            )
    return {
        "episode_id": f"{p['name']}/{p['version']}/{i:07d}",
        "dotime_suite": p["name"],
        "dotime_version": p["version"],
        "index": i,
        "scm_id": int(r.get("scm_id", -1)),
        "structure": r.get("structure") or None,
        "tier": int(r.get("tier", 0)),
        "T": T,
        "n_vars": N,
        "x_obs": x_obs,
        "x_int": x_int,
        "times": None if times is None else [float(t) for t in times],
        "mask": mask,
        "intervention": iv,
        "query_target": [int(v) for v in r["query_target"]],
        "query_time": [float(v) for v in r["query_time"]],
        "query_time_encoding": p["encoding"],
        "query_times": rows,
        "y_true": [float(v) for v in r["y_true"]],
        "metadata": r.get("metadata_json") or "{}",
    }


def _to_arrow(rows: list[dict[str, Any]]) -> pa.Table:
    from causalarena.schema import matrix_array

    cols: dict[str, Any] = {}
    for f in SCHEMA:
        vals = [r[f.name] for r in rows]
        if f.name in ("x_obs", "x_int"):
            cols[f.name] = matrix_array(vals, pa.float32())
        elif f.name == "mask":
            cols[f.name] = pa.array([None if v is None else v.tolist() for v in vals], type=f.type)
        else:
            cols[f.name] = pa.array(vals, type=f.type)
    return pa.table(cols, schema=SCHEMA)


def run_unit(unit: Unit) -> UnitResult:
    """Convert one DoTime shard (md5 re-checked) into rows of ``dotime-episodes``."""
    p = unit.params
    f = Path(p["dir"]) / p["file"]
    if p.get("md5") and md5(f) != p["md5"]:
        raise DoTimeFormatError(f"{f}: md5 differs from the DoTime manifest's {p['md5']}")
    t = pq.read_table(f)
    cols = {c: t.column(c).to_pylist() for c in t.column_names}
    where = str(p["file"])
    if p.get("n") is not None and int(p["n"]) != t.num_rows:
        raise DoTimeFormatError(
            f"{f}: the DoTime manifest says {p['n']} episodes, the shard holds {t.num_rows}"
        )
    rows = [
        _row({c: cols[c][k] for c in cols}, int(p["offset"]) + k, p, where)
        for k in range(t.num_rows)
    ]
    return UnitResult(tables={CONFIG: _to_arrow(rows)}, audit=[{"attempts": 1} for _ in rows])


def configs(suite: str) -> list[Config]:
    return [Config(CONFIG, SCHEMA, "DoTime episodes: factual/interventional pairs and queries")]


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    return {"family": "dotime", "converter": "causalarena.generator.dotime 1"}


def text(suite: str) -> CardText:
    return CardText(
        pretty_name="DoTime suite (imported)",
        summary=(
            "A DoTime temporal intervention suite converted without resampling: the same "
            "episodes, trajectories and queries, with the query rows decoded from the suite's "
            "declared query_time encoding. The source suite's identity and licence are in the "
            "manifest's source block."
        ),
        tags=("time-series", "causal-inference", "interventions", "dotime"),
        license="cc-by-4.0",
        license_notice="Rows converted from a DoTime suite; its licence (manifest source.license) applies.",
        column_docs=(
            ("query_time", "DoTime's encoded query times, as stored by DoTime"),
            ("query_times", "decoded row index of each query (exact, see query_time_encoding)"),
            ("mask", "True where DoTime's obs_mask marks a cell as not observed"),
        ),
    )


SUITES = {SUITE: SuiteInfo(SUITE, "1.0.0", None, ("full",))}

FAMILY = Family(
    name="dotime",
    suites=SUITES,
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    text=text,
    prepare=prepare,
    code=("generator/dotime",),
)
