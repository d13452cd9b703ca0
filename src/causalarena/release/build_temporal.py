"""Build temporal suites into a Hugging Face dataset folder (Parquet + Zarr + manifest + card).

Layout of ``out``::

    README.md                       card with YAML ``configs`` (one config per suite)
    manifest.json                   every Parquet shard and every Zarr file with sha256
    data/<suite>/test-00000.parquet one row per public episode (schema
                                    :data:`causalarena.generator.temporal.storage.EPISODE_SCHEMA`)
    zarr/<suite>.zarr               the same trajectories as (episode, time, variable) arrays
    .build/<suite>-00000.json       build record of each shard (resume)

Shard ``k`` of a suite holds the public indices :meth:`TemporalSuite.shards` ``[k]``; it is a
pure function of ``(suite, version, seed, indices)``, built by one worker process, so the bytes
do not depend on the worker count.  A re-run skips every shard whose record matches the build
key (suite, version, seed, scale, generator source and library versions) and whose file still
has the recorded size and sha256.  The Zarr store is rebuilt from the Parquet shards unless all
its files match the checksums recorded for it.

``datasets`` cannot read Zarr: Parquet is the streaming path (``load_dataset(out, suite)``),
Zarr the array path (``xarray.open_zarr(out / "zarr" / f"{suite}.zarr")``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from causalarena.errors import ReleaseError
from causalarena.generator.temporal.suites import TEMPORAL_SUITES, TemporalSuite, get_temporal_suite
from causalarena.release.io import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_parquet,
    remove_stale_temporaries,
    sha256_file,
)

GENERATION_FILES = (
    "spec_temporal.py",
    "generator/temporal/draw.py",
    "generator/temporal/simulate.py",
    "generator/temporal/generate.py",
    "generator/temporal/observe.py",
    "generator/temporal/structures.py",
    "generator/temporal/suites.py",
    "generator/temporal/storage.py",
    "release/build_temporal.py",
)


def temporal_source_sha256() -> str:
    """sha256 over the temporal generation code (path + bytes, sorted)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in sorted(GENERATION_FILES):
        h.update(name.encode())
        h.update((root / name).read_bytes())
    return h.hexdigest()


def _suites(suite: str | list[str] | tuple[str, ...]) -> list[TemporalSuite]:
    if isinstance(suite, str):
        names = list(TEMPORAL_SUITES) if suite == "all" else [suite]
    else:
        names = list(suite)
    return [get_temporal_suite(n) for n in names]


def build_key(suite: TemporalSuite, scale: str) -> dict[str, Any]:
    """What a finished shard must have been built for to be reused on resume."""
    from causalarena.release.manifest import environment

    return {
        "suite": suite.name,
        "version": suite.version,
        "seed": suite.seed,
        "scale": scale,
        "temporal_source_sha256": temporal_source_sha256(),
        "environment": environment(),
    }


def shard_path(config: str, k: int) -> str:
    return f"data/{config}/test-{k:05d}.parquet"


def _record_path(out: Path, config: str, k: int) -> Path:
    return out / ".build" / f"{config}-{k:05d}.json"


def shard_is_done(out: Path, config: str, k: int, key: dict[str, Any]) -> dict[str, Any] | None:
    """The shard's build record if it matches ``key`` and its file matches its sha256."""
    rp = _record_path(out, config, k)
    if not rp.is_file():
        return None
    try:
        rec = json.loads(rp.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(rec, dict) or rec.get("key") != key:
        return None
    for f in rec.get("files", []):
        p = out / f["path"]
        if not p.is_file() or p.stat().st_size != f["bytes"] or sha256_file(p) != f["sha256"]:
            return None
    return rec


def build_shard(name: str, scale: str, k: int, out: str, key: dict[str, Any]) -> dict[str, Any]:
    """Generate and write one shard (runs in a worker process); return its record."""
    from threadpoolctl import threadpool_limits

    from causalarena.generator.temporal.storage import PARQUET_OPTIONS, episodes_to_arrow
    from causalarena.generator.temporal.suites import generate_suite_episodes

    suite = get_temporal_suite(name)
    idx = suite.shards(scale)[k]
    outp = Path(out)
    with threadpool_limits(1):
        eps = generate_suite_episodes(suite, idx)
        table = episodes_to_arrow(eps)
    rel = shard_path(suite.config, k)
    atomic_write_parquet(outp / rel, table, **PARQUET_OPTIONS)
    rec = {
        "key": key,
        "shard": k,
        "files": [
            {
                "path": rel,
                "config": suite.config,
                "rows": table.num_rows,
                "bytes": (outp / rel).stat().st_size,
                "sha256": sha256_file(outp / rel),
            }
        ],
        "scms": [{"index": e.index, "attempts": e.attempt + 1} for e in eps],
    }
    atomic_write_json(_record_path(outp, suite.config, k), rec)
    return rec


def _check_out(out: Path, header: dict[str, Any]) -> None:
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out}: exists and is not a folder")
    if not out.exists() or not any(out.iterdir()):
        return
    if not (out / "manifest.json").exists() and not (out / ".build").is_dir():
        raise ReleaseError(
            f"{out}: folder is not empty and is not a causalarena release; choose another"
        )
    if (out / "manifest.json").exists():
        from causalarena.release.manifest import read_manifest

        m = read_manifest(out)
        mine = {k: header[k] for k in ("suite", "version", "scale")}
        theirs = {k: m.get(k) for k in mine}
        if theirs != mine:
            raise ReleaseError(f"{out}: holds {theirs}, not {mine}; choose another folder")


def _zarr_files(out: Path, name: str) -> list[dict[str, Any]]:
    root = out / "zarr" / f"{name}.zarr"
    return [
        {"path": p.relative_to(out).as_posix(), "bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(q for q in root.rglob("*") if q.is_file())
    ]


def _zarr_is_done(out: Path, rec_path: Path, parquet_sha: list[str]) -> dict | None:
    if not rec_path.is_file():
        return None
    try:
        rec = json.loads(rec_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if rec.get("parquet_sha256") != parquet_sha:
        return None
    for f in rec["files"]:
        p = out / f["path"]
        if not p.is_file() or p.stat().st_size != f["bytes"] or sha256_file(p) != f["sha256"]:
            return None
    return rec


def header_for(suites: list[TemporalSuite], scale: str, name: str) -> dict[str, Any]:
    versions = sorted({s.version for s in suites})
    return {
        "suite": name,
        "version": versions[0] if len(versions) == 1 else "+".join(versions),
        "scale": scale,
        "seed": suites[0].seed if len(suites) == 1 else None,
        "family": "temporal",
        "temporal_source_sha256": temporal_source_sha256(),
        "definition": {
            s.name: {
                "version": s.version,
                "seed": s.seed,
                "episodes": s.get_scale(scale),
                "pool": s.pool_size,
                "T": s.T,
                "generator": s.family,
                "options": {
                    k: list(v) if isinstance(v, tuple) else v for k, v in s.options.items()
                },
                "shard_size": s.shard_size[scale],
            }
            for s in suites
        },
    }


def build_temporal(
    suite: str | list[str] = "dot-generic",
    scale: str = "mini",
    out: str | os.PathLike = "release-temporal",
    workers: int = 1,
    quiet: bool = False,
    *,
    zarr: bool = True,
) -> Path:
    """Build one temporal suite (or ``"all"``, or a list) into a dataset folder.

    Parameters
    ----------
    suite : str or list of str
        A ``dot-*`` name, a list of names, or ``"all"`` (header suite ``dot-all``).
    scale : {"mini", "full"}
    out : path
        Output folder (created; finished shards found there are reused).
    workers : int
        Worker processes; the bytes do not depend on it.
    quiet : bool
        Hide the progress bar.
    zarr : bool
        Also write ``zarr/<suite>.zarr`` (needs ``zarr>=3``).

    Returns
    -------
    pathlib.Path
        The folder (``README.md``, ``manifest.json``, ``data/``, ``zarr/``).
    """
    from causalarena.release.manifest import MANIFEST, write_manifest
    from causalarena.ui import progress

    suites = _suites(suite)
    for s in suites:
        s.get_scale(scale)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    label = suite if isinstance(suite, str) else "dot-" + "+".join(s.name[4:] for s in suites)
    if label == "all":
        label = "dot-all"
    header = header_for(suites, scale, label)
    outp = Path(out)
    _check_out(outp, header)
    outp.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(outp)
    records: dict[tuple[str, int], dict] = {}
    todo: list[tuple[str, int, dict]] = []
    for s in suites:
        key = build_key(s, scale)
        for k in range(len(s.shards(scale))):
            rec = shard_is_done(outp, s.config, k, key)
            if rec is not None:
                records[(s.name, k)] = rec
            else:
                todo.append((s.name, k, key))
    if records and not quiet:
        print(
            f"{outp}: reusing {len(records)} finished shard(s); building {len(todo)}",
            file=sys.stderr,
        )
    total = len(records) + len(todo)
    with progress(quiet) as bar:
        task = bar.add_task(f"building {label} ({scale})", total=total, completed=len(records))
        nw = max(1, min(workers, len(todo), os.cpu_count() or 1))
        if nw == 1:
            for name, k, key in todo:
                records[(name, k)] = build_shard(name, scale, k, str(outp), key)
                bar.advance(task)
        else:
            import multiprocessing as mp

            with ProcessPoolExecutor(max_workers=nw, mp_context=mp.get_context("spawn")) as ex:
                futs = {
                    ex.submit(build_shard, n, scale, k, str(outp), key): (n, k)
                    for n, k, key in todo
                }
                for fut in as_completed(futs):
                    records[futs[fut]] = fut.result()
                    bar.advance(task)
    ordered = [records[(s.name, k)] for s in suites for k in range(len(s.shards(scale)))]
    written = {f["path"] for r in ordered for f in r["files"]}
    foreign = sorted(
        p.relative_to(outp).as_posix()
        for p in (outp / "data").rglob("*")
        if p.is_file() and p.relative_to(outp).as_posix() not in written
    )
    if foreign:
        raise ReleaseError(f"{outp}: files the build did not write are under data/: {foreign[:5]}")
    zinfo: dict[str, Any] = {}
    if zarr:
        from causalarena.generator.temporal.storage import write_zarr, zarr_supports_sharding

        for s in suites:
            recs = [records[(s.name, k)] for k in range(len(s.shards(scale)))]
            shas = [f["sha256"] for r in recs for f in r["files"]]
            rp = outp / ".build" / f"{s.config}-zarr.json"
            zrec = _zarr_is_done(outp, rp, shas)
            if zrec is None:
                write_zarr(
                    outp / "zarr" / f"{s.name}.zarr",
                    [outp / f["path"] for r in recs for f in r["files"]],
                )
                zrec = {"parquet_sha256": shas, "files": _zarr_files(outp, s.name)}
                atomic_write_json(rp, zrec)
            zinfo[s.name] = {
                "path": f"zarr/{s.name}.zarr",
                "format": 3,
                "sharded": zarr_supports_sharding(),
                "files": zrec["files"],
            }
    manifest = write_manifest(outp, header, ordered)
    if zinfo:
        manifest["zarr"] = zinfo
        atomic_write_json(outp / MANIFEST, manifest)
    write_temporal_card(outp, manifest, suites)
    return outp


def render_card(manifest: dict[str, Any], suites: list[TemporalSuite]) -> str:
    """Dataset card text: YAML ``configs`` (one per suite) and a short description."""
    lines = [
        "---",
        "license: cc-by-4.0",
        "pretty_name: causalarena temporal suites",
        "tags:",
        "- causal-inference",
        "- time-series",
        "- counterfactual",
        "configs:",
    ]
    for s in suites:
        lines += [
            f"- config_name: {s.config}",
            "  data_files:",
            "  - split: test",
            f"    path: data/{s.config}/*.parquet",
        ]
    lines += [
        "---",
        "",
        f"# {manifest['suite']} ({manifest['scale']})",
        "",
        "Paired factual / intervened multivariate trajectories from random temporal "
        "structural causal models, with the intervention, the query (a graph descendant "
        "of the intervened variable at fixed offsets after onset) and the exact target "
        "`y_true`.  Both arms share their exogenous noise (counterfactual pairs).",
        "",
        "| config | episodes | description |",
        "| --- | --- | --- |",
    ]
    for s in suites:
        rows = manifest["configs"].get(s.config, {}).get("rows", 0)
        lines.append(f"| `{s.config}` | {rows} | {s.description} |")
    lines += [
        "",
        "Load with `datasets.load_dataset(folder, config, split='test')`; the same "
        "trajectories are in `zarr/<config>.zarr` for `xarray.open_zarr`.  Half of each "
        "suite's index pool is reserved and not released.  Checksums of every file are "
        "in `manifest.json`.",
        "",
    ]
    return "\n".join(lines)


def write_temporal_card(out: Path, manifest: dict[str, Any], suites: list[TemporalSuite]) -> None:
    atomic_write_bytes(out / "README.md", render_card(manifest, suites).encode())
