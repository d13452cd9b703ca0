"""The real-data track (``arena-real``) as a release family (see :mod:`causalarena.family`).

Configs ``real-obs`` (native observation-only tables plus the observation-only conversion of
every interventional dataset, obtained by dropping its intervention rows) and ``real-obsint``
(interventional datasets with masks); one row per dataset.  Columns: the synthetic
:data:`~causalarena.generator.rows.ROW_SCHEMA` plus :data:`REAL_EXTRA_FIELDS`; ``spec`` holds a
JSON *description* (``family = "real"``), not an executable SCM.  Reference graphs are
literature references, not verified truth; the manifest header, every row and every spec say so.

Before anything is written, :func:`prepare` loads every selected dataset from its source
files, which verifies each file's sha256 (a damaged file refuses the whole build, naming the
file and the expected checksum); missing files make a dataset *unavailable* (recorded with
the reason).  One work unit per dataset.  Build options: ``real_data_dir``, ``cache_dir``,
``download``, ``allow_unpinned``, ``datasets``, ``autompg_missing``; only the last two
non-path options are recorded in the manifest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.family import CardText, Config, Family, SuiteInfo, Unit, UnitResult
from causalarena.generator.real import (
    REFERENCE_CAVEAT,
    REGISTRY,
    MissingSourceError,
    RealTable,
    adjacency_to_edges,
    is_acyclic,
    load_real,
)
from causalarena.generator.real.registry import RealDataset
from causalarena.generator.rows import ROW_SCHEMA, _nested
from causalarena.sortability import r2_sortability, varsortability

SUITE = "arena-real"
VERSION = "1.0.0"
CONFIGS = {"obs": "real-obs", "obsint": "real-obsint"}

#: Columns added to :data:`ROW_SCHEMA` for real rows.
REAL_EXTRA_FIELDS = [
    ("source", pa.string()),
    ("licence", pa.string()),
    ("citation", pa.string()),
    ("reference_graph_name", pa.string()),
    ("alternative_references", pa.string()),
    ("constant_columns", pa.list_(pa.string())),
    ("redistributable", pa.bool_()),
]
#: Arrow schema of every shard of ``real-obs`` and ``real-obsint``.
REAL_ROW_SCHEMA = pa.schema(list(ROW_SCHEMA) + [pa.field(n, t) for n, t in REAL_EXTRA_FIELDS])


def _sortability(X: np.ndarray, A: np.ndarray) -> tuple[float, float]:
    try:
        return float(varsortability(X, A)), float(r2_sortability(X, A))
    except Exception:  # degenerate real columns (constant, collinear): undefined
        return float("nan"), float("nan")


def _graph_json(A: np.ndarray, variables: list[str], description: str) -> dict[str, Any]:
    return {
        "edges": [list(e) for e in adjacency_to_edges(A, variables)],
        "n_edges": int(np.count_nonzero(A)),
        "acyclic": is_acyclic(A),
        "description": description,
    }


def row_for(ds: RealDataset, t: RealTable, setting: str, index: int) -> dict[str, Any]:
    """Column values of one real row (``t`` is already the table of ``setting``)."""
    descr = {r.name: r.description for r in ds.graphs}
    alternatives = {k: _graph_json(A, t.variables, descr[k]) for k, A in t.alternatives.items()}
    const = t.constant_columns()
    obs = t.X[: t.n_obs].astype(np.float64)
    vs, r2 = _sortability(obs, t.adjacency)
    spec = {
        "family": "real",
        "executable": False,
        "schema": "causalarena.real/1.0",
        "dataset": ds.name,
        "title": ds.title,
        "setting": setting,
        "variables": t.variables,
        "reference_graph": {
            "name": t.reference_graph,
            **_graph_json(t.adjacency, t.variables, descr[t.reference_graph]),
        },
        "alternative_references": sorted(alternatives),
        "reference_caveat": REFERENCE_CAVEAT,
        "intervention_encoding": ds.intervention_encoding,
        "preprocessing": ds.preprocessing,
        "observational_conversion": (
            "intervention rows dropped" if setting == "obs" and "obsint" in ds.settings else None
        ),
        "constant_columns": const,
        "licence": ds.licence,
        "licence_note": ds.licence_note,
        "redistributable": ds.redistributable,
        "homepage": ds.homepage,
        "files": t.files,
        "details": t.info,
    }
    return {
        "instance_id": f"real-{ds.name}/{setting}/r0",
        "scm_id": f"real-{ds.name}",
        "scm_index": index,
        "setting": setting,
        "replicate": 0,
        "family": "real",
        "graph_family": "real",
        "d": t.d,
        "n_edges": t.n_edges,
        "mechanism_tags": [],
        "noise_tags": [],
        "root_tags": [],
        "root_dependency": "unknown",
        "difficulty": "real",
        "n_obs": t.n_obs,
        "n_int": t.n_int,
        "variables": t.variables,
        "X": t.X,
        "mask": t.mask,
        "adjacency": t.adjacency.astype(np.int8),
        "intervention_targets": t.intervention_targets,
        "varsortability": vs,
        "r2_sortability": r2,
        "audit_attempts": 0,
        "audit_reasons": [],
        "spec": json.dumps(spec, sort_keys=True, default=str),
        "source": "; ".join(sorted({f.get("origin") or f["url"] for f in t.files})),
        "licence": ds.licence,
        "citation": ds.citation,
        "reference_graph_name": t.reference_graph,
        "alternative_references": json.dumps(alternatives, sort_keys=True),
        "constant_columns": const,
        "redistributable": ds.redistributable,
    }


def to_arrow_real(row: dict[str, Any]) -> pa.Table:
    """One-row Arrow table with :data:`REAL_ROW_SCHEMA`."""
    arrays = []
    for f in REAL_ROW_SCHEMA:
        v = row[f.name]
        if f.name in ("X", "mask", "adjacency"):
            arrays.append(_nested([np.asarray(v)], f.type.value_type.value_type))
        else:
            arrays.append(pa.array([v], type=f.type))
    return pa.Table.from_arrays(arrays, schema=REAL_ROW_SCHEMA)


def _load(name: str, options: Mapping[str, Any]) -> RealTable:
    return load_real(
        name,
        options.get("real_data_dir"),
        cache_dir=options.get("cache_dir"),
        download=bool(options.get("download", True)),
        allow_unpinned=bool(options.get("allow_unpinned", False)),
        autompg_missing=str(options.get("autompg_missing", "drop")),
    )


def _public(reason: str, options: Mapping[str, Any]) -> str:
    """``reason`` without local folders (the manifest never holds a local filesystem path)."""
    from pathlib import Path

    for key in ("real_data_dir", "cache_dir"):
        v = options.get(key)
        if v is not None:
            for form in sorted({str(Path(v).resolve()), str(Path(v)), str(v)}, key=len)[::-1]:
                if reason.startswith(form) and ": " in reason:
                    reason = reason.split(": ", 1)[1]  # "<local file>: missing (...)"
                reason = reason.replace(form.rstrip("/") + "/", "").replace(form, f"<{key}>")
    return reason


def _names(options: Mapping[str, Any]) -> list[str]:
    names = list(REGISTRY) if options.get("datasets") is None else list(options["datasets"])
    for n in names:
        if n not in REGISTRY:
            raise KeyError(f"unknown real dataset {n!r}; known: {sorted(REGISTRY)}")
    return [n for n in REGISTRY if n in names]  # registry order


def prepare(suite: str, scale: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Verify and load every selected dataset before anything is written.

    Returns the manifest facts ``reference_caveat``, ``datasets`` (per-dataset counts and
    licences), ``unavailable`` (name -> reason) and ``options``.

    Raises
    ------
    SourceChecksumError
        A source file does not match its checksum (names the file and the checksum).
    RealDataError
        A source file is not in its documented format.
    MissingSourceError
        No selected dataset could be built.
    KeyError
        Unknown name in ``options["datasets"]``.
    """
    built: dict[str, dict[str, Any]] = {}
    unavailable: dict[str, str] = {}
    for name in _names(options):
        ds = REGISTRY[name]
        try:
            table = _load(name, options)
        except MissingSourceError as exc:
            unavailable[name] = _public(str(exc), options)
            continue
        built[name] = {
            "redistributable": ds.redistributable,
            "reference_graph": ds.reference_graph,
            "alternative_references": list(ds.alternative_references),
            "rows": table.X.shape[0],
            "rows_obs": table.n_obs,
            "columns": table.d,
            "edges": table.n_edges,
            "interventions": table.n_int,
            "intervention_targets": len(table.intervention_targets),
            "licence": ds.licence,
            "configs": [CONFIGS[s] for s in ds.settings],
        }
    if not built:
        raise MissingSourceError(
            "no real dataset could be built: "
            + "; ".join(f"{k}: {v}" for k, v in unavailable.items())
        )
    return {
        "reference_caveat": REFERENCE_CAVEAT,
        "datasets": {
            k: {kk: vv for kk, vv in v.items() if kk != "licence"} | {"licence": v["licence"]}
            for k, v in built.items()
        },
        "unavailable": unavailable,
        "options": {
            "autompg_missing": str(options.get("autompg_missing", "drop")),
            "allow_unpinned": bool(options.get("allow_unpinned", False)),
        },
    }


def configs(suite: str) -> list[Config]:
    """``real-obs`` and ``real-obsint``, both with :data:`REAL_ROW_SCHEMA`."""
    return [
        Config(CONFIGS["obs"], REAL_ROW_SCHEMA, "observation-only tables, one row per dataset"),
        Config(CONFIGS["obsint"], REAL_ROW_SCHEMA, "interventional tables with masks"),
    ]


def units(suite: str, scale: str, options: Mapping[str, Any]) -> list[Unit]:
    """One unit per selected dataset (registry order); the load options are its parameters."""
    load = {k: options.get(k) for k in ("real_data_dir", "cache_dir", "download", "allow_unpinned")}
    load = {k: (str(v) if k.endswith("_dir") and v is not None else v) for k, v in load.items()}
    return [
        Unit(
            suite,
            VERSION,
            None,
            scale,
            name,
            {
                "dataset": name,
                "index": list(REGISTRY).index(name),
                "autompg_missing": str(options.get("autompg_missing", "drop")),
                **load,
            },
        )
        for name in _names(options)
    ]


def run_unit(unit: Unit) -> UnitResult:
    """Rows of one dataset for each of its settings (none if its files are unavailable)."""
    name = str(unit.params["dataset"])
    ds = REGISTRY[name]
    try:
        table = _load(name, unit.params)
    except MissingSourceError:
        return UnitResult(tables={})
    out = {}
    for setting in ds.settings:
        t = table if setting == "obsint" else table.observational()
        out[CONFIGS[setting]] = to_arrow_real(row_for(ds, t, setting, int(unit.params["index"])))
    return UnitResult(tables=out)


def header(suite: str, scale: str, options: Any = None) -> dict[str, Any]:
    """Nothing beyond the facts :func:`prepare` returns."""
    return {}


def text(suite: str) -> CardText:
    """The card prose (:mod:`.card`); per-dataset counts, licences and citations are read from
    the shards by :mod:`causalarena.release.metadata`.  The data keep each source's licence
    (the card's licence is ``other``), so ``license`` here is not used."""
    from causalarena.generator.real import card

    return CardText(
        pretty_name=f"CausalArena {suite}",
        summary=card.SUMMARY,
        tags=card.TAGS,
        intended_uses=card.INTENDED_USES,
        out_of_scope_uses=card.OUT_OF_SCOPE,
        overlap_guidance=card.OVERLAP_GUIDANCE,
        limitations=card.LIMITATIONS,
        changelog=card.CHANGELOG,
    )


FAMILY = Family(
    name="real",
    suites={SUITE: SuiteInfo(SUITE, VERSION, None, ("full",))},
    configs=configs,
    units=units,
    run_unit=run_unit,
    header=header,
    text=text,
    prepare=prepare,
    parquet_options={"compression": "zstd", "compression_level": 3, "row_group_size": 64},
)
