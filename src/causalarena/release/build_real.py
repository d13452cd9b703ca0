"""Build the real-data track (``arena-real``) into a release folder.

Configs ``real-obs`` (native observation-only tables plus the observation-only conversion of
every interventional dataset, obtained by dropping its intervention rows) and ``real-obsint``
(interventional datasets with masks); one row per dataset and one shard per dataset:
``data/<config>/test-<dataset>.parquet``.  Columns: the synthetic :data:`ROW_SCHEMA` plus
:data:`REAL_EXTRA_FIELDS`; ``spec`` holds a JSON *description* (``family = "real"``), not an
executable SCM.  Reference graphs are literature references, not verified truth; the manifest
header, every row and every spec say so.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.errors import ReleaseError
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
from causalarena.release.io import atomic_write_parquet, remove_stale_temporaries, sha256_file
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


def shard_path(config: str, dataset: str) -> str:
    """Relative path of a dataset's shard, e.g. ``data/real-obs/test-sachs.parquet``."""
    return f"data/{config}/test-{dataset}.parquet"


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


def _check_output_folder(out: Path) -> dict[str, Any] | None:
    """Refuse a file, a non-empty non-release folder or another suite; return old manifest."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out}: exists and is not a folder")
    if not out.exists() or not any(out.iterdir()):
        return None
    if not (out / "manifest.json").exists():
        raise ReleaseError(
            f"{out}: folder is not empty and is not a causalarena release; "
            "choose an empty or new folder"
        )
    from causalarena.release.manifest import read_manifest

    m = read_manifest(out)
    if m.get("suite") != SUITE:
        raise ReleaseError(f"{out}: holds suite {m.get('suite')!r}, not {SUITE!r}")
    return m


def build_real(
    out: str | os.PathLike,
    real_data_dir: str | os.PathLike | None = None,
    *,
    quiet: bool = False,
    download: bool = True,
    cache_dir: str | os.PathLike | None = None,
    allow_unpinned: bool = False,
    datasets: list[str] | None = None,
    autompg_missing: str = "drop",
) -> dict[str, Any]:
    """Build every available real dataset into ``out`` (configs ``real-obs``, ``real-obsint``).

    Parameters
    ----------
    out : path
        Release folder (created; may hold a previous ``arena-real`` build, which is replaced).
    real_data_dir : path, optional
        Offline folder of source files (layout of the shared copies).  Without it, files come
        from the cache (``cache_dir``) or are downloaded from their canonical URLs.
    quiet : bool, default=False
        Do not print the per-dataset report to stderr.
    download : bool, default=True
        Allow downloads (only used without ``real_data_dir``).
    cache_dir : path, optional
        Download cache; default ``$CAUSALARENA_REAL_CACHE`` or ``~/.cache/causalarena/real``.
    allow_unpinned : bool, default=False
        Accept source files that have no published checksum.
    datasets : list of str, optional
        Registry names to build (default: all).
    autompg_missing : {"drop", "keep"}, default="drop"
        Handling of Auto MPG's Horsepower = 0 rows (UCI missing values).

    Returns
    -------
    dict
        ``{"out": str, "built": {name: {"rows", "rows_obs", "columns", "edges",
        "interventions", "intervention_targets", "licence", "redistributable", "configs"}},
        "unavailable": {name: reason}}``.

    Raises
    ------
    SourceChecksumError
        A source file exists but does not match its checksum (never built from wrong bytes);
        the message names the file and the expected checksum.
    RealDataError
        A source file is not in its documented format.
    ReleaseError
        ``out`` is a file, a non-empty non-release folder, or a release of another suite.
    KeyError
        Unknown name in ``datasets``.
    """
    from causalarena.release.manifest import write_manifest

    outp = Path(out)
    old = _check_output_folder(outp)
    outp.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(outp)
    names = list(REGISTRY) if datasets is None else list(datasets)
    for n in names:
        if n not in REGISTRY:
            raise KeyError(f"unknown real dataset {n!r}; known: {sorted(REGISTRY)}")
    records: list[dict[str, Any]] = []
    built: dict[str, dict[str, Any]] = {}
    unavailable: dict[str, str] = {}
    for index, name in enumerate(REGISTRY):
        if name not in names:
            continue
        ds = REGISTRY[name]
        try:
            table = load_real(
                name,
                real_data_dir,
                cache_dir=cache_dir,
                download=download,
                allow_unpinned=allow_unpinned,
                autompg_missing=autompg_missing,
            )
        except MissingSourceError as exc:
            unavailable[name] = str(exc)
            if not quiet:
                print(f"[unavailable] {name}: {exc}", file=sys.stderr)
            continue
        files = []
        for setting in ds.settings:
            t = table if setting == "obsint" else table.observational()
            config = CONFIGS[setting]
            rel = shard_path(config, name)
            atomic_write_parquet(
                outp / rel,
                to_arrow_real(row_for(ds, t, setting, index)),
                compression="zstd",
                compression_level=3,
                row_group_size=64,
            )
            files.append(
                {
                    "path": rel,
                    "config": config,
                    "rows": 1,
                    "bytes": (outp / rel).stat().st_size,
                    "sha256": sha256_file(outp / rel),
                    "dataset": name,
                    "redistributable": ds.redistributable,
                    "licence": ds.licence,
                }
            )
        records.append({"dataset": name, "files": files})
        built[name] = {
            "rows": table.X.shape[0],
            "rows_obs": table.n_obs,
            "columns": table.d,
            "edges": table.n_edges,
            "interventions": table.n_int,
            "intervention_targets": len(table.intervention_targets),
            "licence": ds.licence,
            "redistributable": ds.redistributable,
            "configs": [CONFIGS[s] for s in ds.settings],
        }
        if not quiet:
            b = built[name]
            print(
                f"[built] {name}: {b['rows']} rows x {b['columns']} columns, {b['edges']} "
                f"reference edges, {b['interventions']} interventional rows",
                file=sys.stderr,
            )
    written = {f["path"] for r in records for f in r["files"]}
    if old is not None:  # drop shards of a previous arena-real build that were not rebuilt
        for f in old.get("files", []):
            p = outp / f["path"]
            if f["path"] not in written and f["path"].startswith("data/real-") and p.is_file():
                p.unlink()
    if not records:
        raise MissingSourceError(
            "no real dataset could be built: "
            + "; ".join(f"{k}: {v}" for k, v in unavailable.items())
        )
    header = {
        "suite": SUITE,
        "version": VERSION,
        "scale": "full",
        "family": "real",
        "reference_caveat": REFERENCE_CAVEAT,
        "datasets": {
            r["dataset"]: {
                "redistributable": REGISTRY[r["dataset"]].redistributable,
                "licence": REGISTRY[r["dataset"]].licence,
                "reference_graph": REGISTRY[r["dataset"]].reference_graph,
                "alternative_references": list(REGISTRY[r["dataset"]].alternative_references),
                **{k: v for k, v in built[r["dataset"]].items() if k not in ("licence",)},
            }
            for r in records
        },
        "unavailable": unavailable,
        "options": {"autompg_missing": autompg_missing, "allow_unpinned": allow_unpinned},
    }
    manifest = write_manifest(outp, header, records)
    _write_card(outp, manifest)
    return {"out": str(outp), "built": built, "unavailable": unavailable}


def _write_card(out: Path, manifest: dict[str, Any]) -> None:
    """Write the card, ``croissant.json``, ``CITATION.cff`` and ``.zenodo.json``.

    Everything is rendered by :func:`causalarena.release.metadata.write_metadata_files` from
    the real-data metadata (``family = "real"``): reference caveat, per-dataset counts,
    licences, citations, unavailable datasets and repairs, read from the shards and
    ``manifest``.  ``croissant.json`` needs ``mlcroissant`` (skipped without it).
    """
    import importlib.util

    from causalarena.release.metadata import write_metadata_files

    write_metadata_files(out, croissant=importlib.util.find_spec("mlcroissant") is not None)
