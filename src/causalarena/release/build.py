"""Build a suite into a Hugging Face dataset folder (Parquet shards, card, manifest).

Data flow: suite definition -> per-SCM spec (with audit loop) -> samples -> Arrow rows ->
atomically written Parquet shards -> manifest -> dataset card.  One shard per
``(config, graph family, d)`` block: ``data/<config>/test-<family>-d<ddd>.parquet``.  Each
block is built by one worker and is a pure function of ``(suite, version, seed, block)``, so the
bytes do not depend on the number of workers.  A finished block leaves a small JSON record
under ``.build/``; a re-run skips every block whose shards still match their recorded sha256
(resuming an interrupted build).
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from causalarena.errors import AuditError, ReleaseError, SpecError
from causalarena.generator.audit import audit_graph, audit_table
from causalarena.generator.sample import Table, sample
from causalarena.generator.synthetic import GENERATOR_REV, _Reject, draw_spec, node_tags, suite_key
from causalarena.generator.synthetic.suites import SuiteDef, get_suite
from causalarena.release.io import (
    atomic_write_json,
    atomic_write_parquet,
    remove_stale_temporaries,
    sha256_file,
)
from causalarena.sortability import r2_sortability, varsortability
from causalarena.spec import SCMSpec

SETTINGS = ("obs", "obsint")
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "row_group_size": 64}

#: Arrow schema shared by every shard of every synthetic config.
ROW_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("scm_id", pa.string()),
        ("scm_index", pa.int32()),
        ("setting", pa.string()),
        ("replicate", pa.int32()),
        ("family", pa.string()),
        ("graph_family", pa.string()),
        ("d", pa.int32()),
        ("n_edges", pa.int32()),
        ("mechanism_tags", pa.list_(pa.string())),
        ("noise_tags", pa.list_(pa.string())),
        ("root_tags", pa.list_(pa.string())),
        ("root_dependency", pa.string()),
        ("difficulty", pa.string()),
        ("n_obs", pa.int32()),
        ("n_int", pa.int32()),
        ("variables", pa.list_(pa.string())),
        ("X", pa.list_(pa.list_(pa.float32()))),
        ("mask", pa.list_(pa.list_(pa.bool_()))),
        ("adjacency", pa.list_(pa.list_(pa.int8()))),
        ("intervention_targets", pa.list_(pa.string())),
        ("varsortability", pa.float64()),
        ("r2_sortability", pa.float64()),
        ("audit_attempts", pa.int32()),
        ("audit_reasons", pa.list_(pa.string())),
        ("spec", pa.string()),
    ]
)


@dataclass(frozen=True)
class AuditedSCM:
    """A spec that passed every gate, with the tables sampled while auditing it."""

    spec: SCMSpec
    attempts: int
    rejections: list[str]
    tables: dict[tuple[str, int], Table]


def data_seed(suite: SuiteDef, index: int, setting: str, replicate: int) -> np.random.SeedSequence:
    """Seed of one dataset: keyed by suite, generator revision, SCM index, setting, replicate."""
    return np.random.SeedSequence(
        suite.seed,
        spawn_key=(
            suite_key(suite.name),
            GENERATOR_REV,
            index,
            2,
            SETTINGS.index(setting),
            replicate,
        ),
    )


def sample_dataset(
    suite: SuiteDef, spec: SCMSpec, index: int, setting: str, replicate: int
) -> Table:
    """Sample one dataset of an SCM (the ``obs`` or ``obsint`` split, paper B.1)."""
    n_obs, n_int = (suite.n_obs, 0) if setting == "obs" else suite.n_obsint
    return sample(
        spec,
        n_obs,
        n_int,
        data_seed(suite, index, setting, replicate),
        counterfactual_check=n_int > 0,
    )


def audited_scm(suite: SuiteDef, index: int) -> AuditedSCM:
    """Draw SCM ``index`` and redraw it (attempt + 1) until every gate passes (paper A.2).

    All ``suite.replicates`` replicates of both settings are audited whatever scale is being
    written, so SCM ``index`` is the same at every scale.

    Raises
    ------
    AuditError
        If no candidate passes within ``suite.max_attempts`` (the message lists the reasons).
    """
    rejections: list[str] = []
    for attempt in range(suite.max_attempts):
        try:
            spec = draw_spec(
                suite.seed, index, attempt, suite=suite.name, scms_per_block=suite.scms_per_block
            )
        except (_Reject, SpecError) as exc:
            rejections.append(f"attempt {attempt}: {exc}")
            continue
        reasons = audit_graph(spec)
        tables: dict[tuple[str, int], Table] = {}
        if not reasons:
            for setting in SETTINGS:
                for rep in range(suite.replicates):
                    try:
                        t = sample_dataset(suite, spec, index, setting, rep)
                    except SpecError as exc:
                        reasons = [f"{setting}: {exc} (replicate {rep})"]
                        break
                    reasons = [f"{r} (replicate {rep})" for r in audit_table(spec, t)]
                    if reasons:
                        break
                    tables[(setting, rep)] = t
                if reasons:
                    break
        if not reasons:
            return AuditedSCM(spec, attempt + 1, rejections, tables)
        rejections.append(f"attempt {attempt}: " + "; ".join(reasons[:3]))
    raise AuditError(
        f"{suite.name} SCM {index}: no candidate passed the audit in "
        f"{suite.max_attempts} attempts; last reasons: {rejections[-3:]}"
    )


def _nested(arrays: list[np.ndarray], value_type: pa.DataType) -> pa.Array:
    """list<list<value_type>> array from 2-D numpy arrays (one per row)."""
    flat = np.concatenate([a.ravel() for a in arrays]) if arrays else np.empty(0)
    widths = np.concatenate([np.full(a.shape[0], a.shape[1]) for a in arrays]).astype(np.int32)
    inner_off = np.concatenate([[0], np.cumsum(widths)]).astype(np.int32)
    outer_off = np.concatenate([[0], np.cumsum([a.shape[0] for a in arrays])]).astype(np.int32)
    inner = pa.ListArray.from_arrays(pa.array(inner_off), pa.array(flat, type=value_type))
    return pa.ListArray.from_arrays(pa.array(outer_off), inner)


def rows_for(suite: SuiteDef, scm: AuditedSCM, replicates: int) -> dict[str, dict[str, list]]:
    """Column-wise rows of one SCM for each config (``replicates`` replicates per setting)."""
    spec = scm.spec
    meta = spec.metadata
    A = spec.adjacency()
    tags = node_tags(spec)
    out: dict[str, dict[str, list]] = {}
    for setting, config in zip(SETTINGS, suite.configs, strict=True):
        cols: dict[str, list] = {name: [] for name in ROW_SCHEMA.names}
        for rep in range(replicates):
            t = scm.tables[(setting, rep)]
            obs = t.X[: t.n_obs]
            values = {
                "instance_id": f"{spec.scm_id}/{setting}/r{rep}",
                "scm_id": spec.scm_id,
                "scm_index": meta["index"],
                "setting": setting,
                "replicate": rep,
                "family": spec.family,
                "graph_family": meta["graph_family"],
                "d": spec.d,
                "n_edges": int(A.sum()),
                **tags,
                "root_dependency": meta["root_dependency"],
                "difficulty": meta["difficulty"],
                "n_obs": t.n_obs,
                "n_int": t.n_int,
                "variables": t.names,
                "X": t.X,
                "mask": t.mask,
                "adjacency": A,
                "intervention_targets": list(spec.intervention.targets),
                "varsortability": varsortability(obs, A),
                "r2_sortability": r2_sortability(obs, A),
                "audit_attempts": scm.attempts,
                "audit_reasons": scm.rejections,
                "spec": spec.to_json(),
            }
            for k, v in values.items():
                cols[k].append(v)
        out[config] = cols
    return out


def to_arrow(cols: dict[str, list]) -> pa.Table:
    """Arrow table with :data:`ROW_SCHEMA` from column lists."""
    arrays = []
    for f in ROW_SCHEMA:
        v = cols[f.name]
        if f.name in ("X", "mask", "adjacency"):
            arrays.append(_nested(v, f.type.value_type.value_type))
        else:
            arrays.append(pa.array(v, type=f.type))
    return pa.Table.from_arrays(arrays, schema=ROW_SCHEMA)


def shard_path(config: str, family: str, d: int) -> str:
    """Relative path of a block's shard inside the release folder."""
    return f"data/{config}/test-{family}-d{d:03d}.parquet"


def build_key(suite: SuiteDef, scale: str) -> dict[str, Any]:
    """What a finished block must have been built for to be reused on resume."""
    from causalarena.release.manifest import environment

    return {
        "suite": suite.name,
        "version": suite.version,
        "seed": suite.seed,
        "scale": scale,
        "generator_rev": GENERATOR_REV,
        "environment": environment(),
    }


def _record_path(out: Path, block: int) -> Path:
    return out / ".build" / f"block-{block:03d}.json"


def block_is_done(out: Path, block: int, key: dict[str, Any]) -> dict[str, Any] | None:
    """The block's build record if it was built for ``key`` (suite, version, seed, scale, code
    and library versions) and all its shards exist and match their sha256, else None."""
    rec_path = _record_path(out, block)
    if not rec_path.is_file():
        return None
    try:
        rec = json.loads(rec_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(rec, dict) or rec.get("key") != key or not isinstance(rec.get("files"), list):
        return None  # another suite/scale/code/library version: rebuild, never mix
    for f in rec["files"]:
        p = out / f["path"]
        if not p.exists() or p.stat().st_size != f["bytes"] or sha256_file(p) != f["sha256"]:
            return None
    return rec


def build_block(
    suite_name: str, scale: str, block: int, out: str, key: dict[str, Any]
) -> dict[str, Any]:
    """Build and write every shard of one block (runs in a worker process).

    Returns the block record (files with sha256, bytes and rows; per-SCM audit summaries).
    """
    from threadpoolctl import threadpool_limits

    suite = get_suite(suite_name)
    sc = suite.get_scale(scale)
    outp = Path(out)
    family, d = suite.blocks()[block]
    with threadpool_limits(1):  # identical floating-point results in every process
        scms = [audited_scm(suite, i) for i in suite.public_indices(block, scale)]
        per_config: dict[str, dict[str, list]] = {}
        for scm in scms:
            for config, cols in rows_for(suite, scm, sc.replicates).items():
                acc = per_config.setdefault(config, {k: [] for k in cols})
                for k, v in cols.items():
                    acc[k].extend(v)
    files = []
    for config, cols in per_config.items():
        rel = shard_path(config, family, d)
        table = to_arrow(cols)
        atomic_write_parquet(outp / rel, table, **PARQUET_OPTIONS)
        files.append(
            {
                "path": rel,
                "config": config,
                "rows": table.num_rows,
                "bytes": (outp / rel).stat().st_size,
                "sha256": sha256_file(outp / rel),
            }
        )
    record = {
        "key": key,
        "block": block,
        "graph_family": family,
        "d": d,
        "files": files,
        "scms": [
            {"scm_id": s.spec.scm_id, "attempts": s.attempts, "rejections": s.rejections}
            for s in scms
        ],
    }
    atomic_write_json(_record_path(outp, block), record)
    return record


def _check_output_folder(out: Path, suite: SuiteDef, scale: str) -> None:
    """Refuse to write into a folder that is not empty and not a build of this suite/scale."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out}: exists and is not a folder")
    if not out.exists() or not any(out.iterdir()):
        return
    if not (out / "manifest.json").exists() and not (out / ".build").is_dir():
        raise ReleaseError(
            f"{out}: folder is not empty and is not a causalarena release; "
            "choose an empty or new folder"
        )
    if (out / "manifest.json").exists():
        from causalarena.release.manifest import read_manifest

        m = read_manifest(out)
        mine = {"suite": suite.name, "version": suite.version, "scale": scale}
        theirs = {k: m.get(k) for k in mine}
        if theirs != mine:
            raise ReleaseError(f"{out}: holds {theirs}, not {mine}; choose another folder")


def build(
    suite: str = "arena-synthetic",
    *,
    scale: str = "mini",
    out: str | os.PathLike = "release",
    workers: int = 1,
    quiet: bool = False,
) -> Path:
    """Build a suite into a Hugging Face dataset folder.

    Parameters
    ----------
    suite : str, default="arena-synthetic"
    scale : {"mini", "full"}, default="mini"
    out : path, default="release"
        Output folder; created if missing.  Finished blocks found there are kept (resume).
    workers : int, default=1
        Worker processes; the output bytes do not depend on it.
    quiet : bool, default=False
        Hide the progress bar.

    Returns
    -------
    pathlib.Path
        The release folder, containing ``README.md`` (card with ``configs``),
        ``manifest.json`` and ``data/<config>/*.parquet``.

    Raises
    ------
    ValueError
        Unknown suite or scale, or ``workers < 1``.
    AuditError
        An SCM found no valid candidate within the attempt budget.
    ReleaseError
        ``out`` is a file, a non-empty folder that is not a causalarena release, a release of
        another suite/version/scale, or holds files under ``data/`` the build did not write.
    """
    from causalarena.release.manifest import suite_header, write_manifest
    from causalarena.release.metadata import write_metadata_files
    from causalarena.ui import progress

    sdef = get_suite(suite)
    sdef.get_scale(scale)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    outp = Path(out)
    _check_output_folder(outp, sdef, scale)
    outp.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(outp)
    key = build_key(sdef, scale)
    n_blocks = len(sdef.blocks())
    records: dict[int, dict[str, Any]] = {}
    todo = []
    for b in range(n_blocks):
        rec = block_is_done(outp, b, key)
        if rec is not None:
            records[b] = rec
        else:
            todo.append(b)
    from causalarena.release.freeze import registry_path

    if registry_path(outp, None, sdef.version).is_file():
        if todo:
            would = sorted(shard_path(c, *sdef.blocks()[b]) for b in todo for c in sdef.configs)
            raise ReleaseError(
                f"{outp}: version {sdef.version} is frozen here, and building would rewrite "
                f"{len(would)} shard(s), e.g. {would[:3]}; build into a new folder and compare "
                "with `causalarena release freeze NEW --version X.Y.Z --against "
                f"{outp}`"
            )
        return outp  # frozen and complete: leave manifest, freeze record and metadata untouched
    if records and not quiet:
        import sys

        print(
            f"{outp}: reusing {len(records)} finished block(s) whose shards match their "
            f"checksums; building {len(todo)}",
            file=sys.stderr,
        )
    with progress(quiet) as bar:
        task = bar.add_task(f"building {suite} ({scale})", total=n_blocks, completed=len(records))
        workers = max(1, min(workers, len(todo), os.cpu_count() or 1))
        if workers == 1:
            for b in todo:
                records[b] = build_block(suite, scale, b, str(outp), key)
                bar.advance(task)
        else:
            import multiprocessing as mp

            with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as ex:
                futs = {ex.submit(build_block, suite, scale, b, str(outp), key): b for b in todo}
                for fut in as_completed(futs):
                    records[futs[fut]] = fut.result()
                    bar.advance(task)
    ordered = [records[b] for b in range(n_blocks)]
    written = {f["path"] for r in ordered for f in r["files"]}
    foreign = sorted(
        p.relative_to(outp).as_posix()
        for p in (outp / "data").rglob("*")
        if p.is_file() and p.relative_to(outp).as_posix() not in written
    )
    if foreign:
        raise ReleaseError(
            f"{outp}: files the build did not write are under data/: {foreign[:5]}"
            " (they would be published and loaded); move them away and rerun"
        )
    write_manifest(outp, suite_header(sdef, scale), ordered)
    write_metadata_files(outp)  # README.md card, croissant.json, CITATION.cff, .zenodo.json
    return outp
