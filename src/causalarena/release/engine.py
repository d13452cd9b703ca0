"""The release engine: the one pipeline that writes every family's release folder.

A family (:class:`causalarena.family.Family`) declares configs, schemas, work units and a pure
``run_unit``; this module alone owns everything that touches the folder:

1. folder checks: ``out`` must be missing, empty, or a build of the same suite, version and
   scale; a frozen version is never rewritten;
2. the lock (:func:`build_lock`): a second build into the same folder is refused with a
   message naming the running one (pid, host, start time); an ``fcntl`` lock, so a killed
   build never leaves a stale lock behind;
3. resume: each finished unit leaves its parts (``.build/parts/<config>/<unit>.parquet``) and
   a record (``.build/units/<unit>.json``) with the resume key (suite, version, seed, scale,
   unit, parameters, package/library versions and code checksum); a rerun reuses every unit
   whose record matches and whose parts match their sha256 (or were deleted after
   consolidation, marked ``"consolidated"`` in the record), and deletes stray temporaries;
4. atomic writes (temporary file + fsync + rename, :mod:`causalarena.release.io`);
5. shard naming and consolidation: the rows of each config, in unit order, are split into
   :func:`causalarena.family.shard_count` contiguous, nearly equal shards
   ``data/<config>/test-KKKKK-of-NNNNN.parquet`` (a multiple of 8 for configs with >= 8 rows),
   byte-identical for any worker count.  Shards are recorded one by one
   (``.build/shards-<config>.json``) and a part is deleted as soon as every shard holding its
   rows is finished, so the data are never on disk twice; a shard that must be rewritten later
   (damaged) reruns the units whose parts it needs (:class:`PartsMissing`).  The reserved
   build (:func:`causalarena.release.reserved.build_reserved`) runs through the same
   :func:`run_and_consolidate` with a key-drawing runner and shard prefix ``reserved``;
6. Zarr stores (``zarr/<config>.zarr``) from the family's ``arrays`` hook, written to a
   temporary folder and renamed into place;
7. the manifest (every Parquet and Zarr file with bytes and sha256), then the card, Croissant,
   ``CITATION.cff`` and ``.zenodo.json`` (:func:`causalarena.release.render.write_metadata_files`).

Workers are ``spawn`` processes that exit when the parent dies (``PR_SET_PDEATHSIG`` where
available, and a watchdog thread polling the parent pid).  With ``scheduler=`` a
``dask.distributed`` address, units run on the cluster's workers instead; they return their
parts as bytes and this process writes them (:mod:`causalarena.release.cluster`), so the lock,
resume records and atomic writes above hold unchanged.  Test hooks: with
``CAUSALARENA_TEST_KILL_AT_FIRST_TEMP=1`` the process writing the first temporary file
SIGKILLs itself right after creating it (kill-and-resume tests);
``CAUSALARENA_TEST_KILL_DASK_WORKER_ONCE=PATH`` makes the first unit started on a dask worker
kill that worker (lost-worker tests).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import socket
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from causalarena._extras import check_extra
from causalarena.errors import ReleaseError
from causalarena.family import Family, Unit, family_of, register, shard_count
from causalarena.release.io import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_parquet,
    parquet_bytes,
    remove_stale_temporaries,
    sha256_file,
)
from causalarena.release.manifest import (
    MANIFEST,
    environment,
    read_manifest,
    registry_path,
    write_manifest,
)

BUILD_DIR = ".build"
LOCK_FILE = "lock"


# ----------------------------------------------------------------------------- lock
@contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold the build lock of ``out`` (``out/.build/lock``) for the duration of the block.

    Raises
    ------
    ReleaseError
        If another process holds it; the message names its pid, host and start time.
    """
    import fcntl

    (out / BUILD_DIR).mkdir(parents=True, exist_ok=True)
    path = out / BUILD_DIR / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
            except (json.JSONDecodeError, UnicodeDecodeError):
                holder = {}
            raise ReleaseError(
                f"{out}: another build is running in this folder (pid {holder.get('pid', '?')} "
                f"on host {holder.get('host', '?')}, started {holder.get('started', '?')}); "
                "wait for it to finish or stop it, then rerun"
            ) from None
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the flock


# ----------------------------------------------------------------------------- workers
def _watch_parent(parent: int) -> None:
    import threading
    import time

    try:  # Linux: the kernel kills us when the parent dies
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def loop() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=loop, daemon=True).start()
    if os.getppid() != parent:  # died before the watch started
        os._exit(1)


def _compute_unit(
    family_name: str,
    unit: Unit,
    runner: Callable[[Family, Unit], Any] | None = None,
    modules: tuple[str, ...] = (),
    expect: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one unit and return its parts as Parquet bytes, without touching any folder.

    Runs in the engine, in a local worker, or on a dask worker (``modules``: the modules of
    the family's ``units`` and ``run_unit``, imported there so that families defined outside
    the registry are known; ``expect``: the ``environment`` and ``code_sha256`` of the
    unit's build key, checked against this process's before running).  Returns
    ``{"parts": [{"config", "rows", "data"}], "audit": [...]}``.

    Raises
    ------
    ReleaseError
        The unit returned an unknown config or a table whose schema differs from the declared
        one; this process runs other package/library versions or code than ``expect``."""
    from threadpoolctl import threadpool_limits

    from causalarena.family import families

    if modules:
        from causalarena.release.cluster import test_kill_hook

        for module in modules:
            _register_module(module)
        test_kill_hook()
    fam = families()[family_name]
    if expect is not None:
        _check_same_code(fam, expect)
    with threadpool_limits(1):  # identical floating-point results in every process
        res = fam.run_unit(unit) if runner is None else runner(fam, unit)
    schemas = {c.name: c.schema for c in fam.configs(unit.suite)}
    parts = []
    for config in sorted(res.tables):
        table = res.tables[config]
        if config not in schemas:
            raise ReleaseError(f"{unit.suite} unit {unit.key}: unknown config {config!r}")
        if not table.schema.equals(schemas[config]):
            raise ReleaseError(
                f"{unit.suite} unit {unit.key}: config {config!r} table schema differs from "
                "the declared one"
            )
        data = parquet_bytes(table, **_parquet_options(fam))
        parts.append({"config": config, "rows": table.num_rows, "data": data})
    return {"parts": parts, "audit": res.audit}


_MY_CODE: dict[str, dict[str, Any]] = {}


def _check_same_code(fam: Family, expect: Mapping[str, Any]) -> None:
    """Refuse to run on a worker whose versions or generator code differ from the engine's
    (its bytes could differ); names the first differing field and both values."""
    mine = _MY_CODE.get(fam.name)
    if mine is None:  # once per worker process and family (hashing the code takes ~0.2 s)
        mine = _MY_CODE[fam.name] = {
            "environment": environment(),
            "code_sha256": code_sha256(fam.code),
        }
    diff = _first_difference(dict(expect), mine)
    if diff is not None:
        field, ours, theirs = diff
        raise ReleaseError(
            f"worker on host {socket.gethostname()}: {field} is {theirs!r} there but "
            f"{ours!r} in the building process; install the same causalarena and library "
            "versions on every worker (the bytes are identical only then)"
        )


def _first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            d = _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else k)
            if d is not None:
                return d
        return None
    return None if a == b else (path, a, b)


def _write_unit(
    out: Path, unit: Unit, key: dict[str, Any], computed: dict[str, Any]
) -> dict[str, Any]:
    """Write a computed unit's parts and then its record (each atomically); return the record.

    Writing the same unit twice (a re-executed task) replaces identical bytes."""
    files = []
    for part in computed["parts"]:
        rel = f"{BUILD_DIR}/parts/{part['config']}/{unit.key}.parquet"
        atomic_write_bytes(out / rel, part["data"])
        files.append(
            {
                "path": rel,
                "config": part["config"],
                "rows": part["rows"],
                "bytes": len(part["data"]),
                "sha256": hashlib.sha256(part["data"]).hexdigest(),
            }
        )
    rec = {"key": key, "unit": unit.key, "files": files, "audit": computed["audit"]}
    atomic_write_json(_unit_record(out, unit.key), rec)
    return rec


def _run_unit(
    family_name: str,
    unit: Unit,
    out: str,
    key: dict[str, Any],
    runner: Callable[[Family, Unit], Any] | None = None,
) -> dict[str, Any]:
    """Run one unit and write its parts and record (in a local worker or in the parent).

    ``runner(family, unit)`` replaces ``family.run_unit(unit)`` when given (a picklable
    module-level callable; the reserved build passes one that draws from the secret key)."""
    return _write_unit(Path(out), unit, key, _compute_unit(family_name, unit, runner))


def _parquet_options(fam: Family) -> dict[str, Any]:
    opts = {"compression": "zstd", "compression_level": 3, "row_group_size": 64}
    opts.update(fam.parquet_options)
    return opts


def _unit_record(out: Path, key: str) -> Path:
    return out / BUILD_DIR / "units" / f"{key}.json"


def _files_match(out: Path, files: list[dict[str, Any]]) -> bool:
    for f in files:
        p = out / f["path"]
        if not p.is_file() or p.stat().st_size != f["bytes"] or sha256_file(p) != f["sha256"]:
            return False
    return True


def _read_record(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        rec = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return rec if isinstance(rec, dict) else None


def unit_is_done(out: Path, unit: Unit, key: dict[str, Any]) -> dict[str, Any] | None:
    """The unit's record if it was built for ``key`` and every part matches its sha256 or was
    deleted after its rows went into finished shards (``"consolidated": true``)."""
    rec = _read_record(_unit_record(out, unit.key))
    if rec is None or rec.get("key") != key or not isinstance(rec.get("files"), list):
        return None
    for f in rec["files"]:
        if not isinstance(f, dict) or "path" not in f:
            return None
        if f.get("consolidated") and not (out / f["path"]).exists():
            continue
        if not _files_match(out, [f]):
            return None
    return rec


# ----------------------------------------------------------------------------- keys
def code_sha256(paths: tuple[str, ...]) -> str | None:
    """sha256 over the package-relative ``paths`` (files or folders of ``.py``)."""
    if not paths:
        return None
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for part in paths:
        p = root / part
        for f in sorted([p] if p.is_file() else p.rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def build_key(fam: Family, unit: Unit) -> dict[str, Any]:
    """What a finished unit must have been built for to be reused on resume."""
    return {
        "family": fam.name,
        "suite": unit.suite,
        "version": unit.version,
        "seed": unit.seed,
        "scale": unit.scale,
        "unit": unit.key,
        "params": json.loads(json.dumps(dict(unit.params), sort_keys=True)),
        "code_sha256": code_sha256(fam.code),
        "environment": environment(),
    }


# ----------------------------------------------------------------------------- folder checks
def check_output_folder(out: Path, suite: str, version: str, scale: str) -> dict | None:
    """Refuse a file, a non-empty folder that is not a causalarena release, or a release of
    another suite/version/scale; return the folder's manifest when it has one."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out}: exists and is not a folder")
    if not out.exists() or not any(out.iterdir()):
        return None
    if not (out / MANIFEST).exists() and not (out / BUILD_DIR).is_dir():
        raise ReleaseError(
            f"{out}: folder is not empty and is not a causalarena release; "
            "choose an empty or new folder"
        )
    if not (out / MANIFEST).exists():
        return None
    m = read_manifest(out)
    mine = {"suite": suite, "version": version, "scale": scale}
    theirs = {k: m.get(k) for k in mine}
    if theirs != mine:

        def show(d: dict) -> str:
            return f"{d['suite']} {d['version']} ({d['scale']})"

        raise ReleaseError(
            f"{out}: holds the release {show(theirs)}, not {show(mine)}; choose another folder"
        )
    return m


def shard_name(config: str, k: int, n: int) -> str:
    """Relative path of shard ``k`` of ``n`` of ``config``."""
    return _shard_rel("test", config, k, n)


# ----------------------------------------------------------------------------- consolidation
def _grouped_parts(
    parts: list[dict[str, Any]], keys: list[Any] | None
) -> tuple[list[dict[str, Any]], list[int], list[Any]]:
    """Parts reordered ``d`` by ``d`` (in order of first appearance), the row count of each
    shard and each shard's ``d``: :func:`shard_count` shards per ``d`` when every ``d`` has
    >= 8 rows, else one split of the whole config with ``d`` None (see ``Family.shard_d``)."""
    import numpy as np

    groups: dict[Any, list[dict[str, Any]]] = {}
    for f, k in zip(parts, keys if keys is not None else [None] * len(parts), strict=True):
        groups.setdefault(k, []).append(f)
    if None not in groups and all(sum(f["rows"] for f in g) >= 8 for g in groups.values()):
        ordered = [f for g in groups.values() for f in g]
        sizes: list[int] = []
        dees: list[Any] = []
        for k, g in groups.items():
            rows = sum(f["rows"] for f in g)
            n = shard_count(rows, len(g))
            sizes += [len(a) for a in np.array_split(np.arange(rows), n)]
            dees += [k] * n
        return ordered, sizes, dees
    rows = sum(f["rows"] for f in parts)
    n = shard_count(rows, len(parts))
    return parts, [len(a) for a in np.array_split(np.arange(rows), n)], [None] * n


class PartsMissing(Exception):
    """Shards must be (re)written from parts that were deleted after an earlier
    consolidation; ``units`` are the unit keys to run again."""

    def __init__(self, units: set[str]) -> None:
        super().__init__(sorted(units))
        self.units = units


def _mark_consolidated(out: Path, rec: dict[str, Any], part: dict[str, Any]) -> None:
    """Record that ``part`` of unit record ``rec`` is about to be deleted, then delete it."""
    if not part.get("consolidated"):
        part["consolidated"] = True
        atomic_write_json(_unit_record(out, rec["unit"]), rec)
    (out / part["path"]).unlink(missing_ok=True)


def _consolidate(
    out: Path,
    fam: Family,
    suite: str,
    records: list[dict[str, Any]],
    keys: list[Any] | None = None,
    prefix: str = "test",
) -> list[dict[str, Any]]:
    """Write the final shards of every config from the unit parts (reusing matching shards).

    ``keys`` (one ``d`` per record, from ``Family.shard_d``) keep rows of different ``d`` in
    different shards; each such shard's entry records its ``"d"``.  Shards are written one by
    one, each recorded in ``.build/shards-<config>.json`` as soon as it is finished, and a part
    is deleted as soon as every shard holding its rows is finished, so the build never holds
    its data twice (parts + shards) on disk.

    Raises
    ------
    PartsMissing
        A shard must be rewritten (damaged, deleted, or a kill before its record was written)
        but a part it needs was deleted after an earlier consolidation; the caller runs those
        units again and calls this again.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    opts = _parquet_options(fam)
    files: list[dict[str, Any]] = []
    owner = {id(f): r for r in records for f in r["files"]}
    plans = []
    missing: set[str] = set()
    for cfg in fam.configs(suite):
        tagged = [
            (f, keys[i] if keys is not None else None)
            for i, r in enumerate(records)
            for f in r["files"]
            if f["config"] == cfg.name and f["rows"] > 0
        ]
        parts = [f for f, _ in tagged]
        rows = sum(f["rows"] for f in parts)
        if rows == 0:
            continue
        parts, bounds, dees = _grouped_parts(parts, [k for _, k in tagged])
        n = len(bounds)
        starts = np.concatenate([[0], np.cumsum(bounds)]).astype(int)
        rec_path = out / BUILD_DIR / f"shards-{cfg.name}.json"
        want = {"parts": [f["sha256"] for f in parts], "n": n, "bounds": bounds, "d": dees}
        if prefix != "test":
            want["prefix"] = prefix
        old = _read_record(rec_path)
        done = old.get("files", []) if old and old.get("want") == want else []
        offsets = np.concatenate([[0], np.cumsum([f["rows"] for f in parts])]).astype(int)
        keep = [
            k < len(done)
            and done[k].get("path") == _shard_rel(prefix, cfg.name, k, n)
            and _files_match(out, [done[k]])
            for k in range(n)
        ]
        needed = {
            j
            for k in range(n)
            if not keep[k]
            for j in range(len(parts))
            if max(starts[k], offsets[j]) < min(starts[k + 1], offsets[j + 1])
        }
        missing |= {
            owner[id(parts[j])]["unit"] for j in needed if not (out / parts[j]["path"]).is_file()
        }
        plans.append((cfg, parts, dees, n, starts, rec_path, want, done, offsets, keep))
    if missing:  # every config's needs at once, so one rerun suffices
        raise PartsMissing(missing)
    for cfg, parts, dees, n, starts, rec_path, want, done, offsets, keep in plans:
        cfg_files = []
        for k in range(n):
            lo, hi = int(starts[k]), int(starts[k + 1])
            if keep[k]:
                cfg_files.append(done[k])  # this shard is intact: keep it untouched
            else:
                pieces = []
                for j, f in enumerate(parts):
                    a, b = max(lo, offsets[j]), min(hi, offsets[j + 1])
                    if a < b:
                        t = pq.read_table(out / f["path"])
                        pieces.append(t.slice(a - offsets[j], b - a))
                table = pa.concat_tables(pieces).combine_chunks() if pieces else None
                rel = _shard_rel(prefix, cfg.name, k, n)
                atomic_write_parquet(out / rel, table, **opts)
                entry = {
                    "path": rel,
                    "config": cfg.name,
                    "rows": table.num_rows,
                    "bytes": (out / rel).stat().st_size,
                    "sha256": sha256_file(out / rel),
                }
                if dees[k] is not None:
                    entry["d"] = int(dees[k])
                cfg_files.append(entry)
                # the record of finished shards grows shard by shard (resume after a kill)
                atomic_write_json(rec_path, {"want": want, "files": cfg_files + done[k + 1 :]})
            # parts whose rows all lie in finished shards are no longer needed
            for j, f in enumerate(parts):
                if offsets[j + 1] <= hi and (out / f["path"]).exists():
                    _mark_consolidated(out, owner[id(f)], f)
        atomic_write_json(rec_path, {"want": want, "files": cfg_files})
        files.extend(cfg_files)
    return files


def _shard_rel(prefix: str, config: str, k: int, n: int) -> str:
    return f"data/{config}/{prefix}-{k:05d}-of-{n:05d}.parquet"


def _zarr_stores(out: Path, fam: Family, suite: str, shards: list[dict]) -> list[dict]:
    """Write (or reuse) ``zarr/<config>.zarr`` of every config via the family's arrays hook."""
    import shutil

    if fam.arrays is None:
        return []
    entries: list[dict[str, Any]] = []
    for cfg in fam.configs(suite):
        paths = [f for f in shards if f["config"] == cfg.name]
        if not paths:
            continue
        store = f"zarr/{cfg.name}.zarr"
        rec_path = out / BUILD_DIR / f"zarr-{cfg.name}.json"
        want = [f["sha256"] for f in paths]
        old = _read_record(rec_path)
        if old and old.get("want") == want and _files_match(out, old.get("files", [])):
            entries.extend(old["files"])
            continue
        final = out / store
        tmp = final.parent / f".{final.name}.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.parent.mkdir(parents=True, exist_ok=True)
        fam.arrays(suite, cfg.name, [out / f["path"] for f in paths], tmp)
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        zfiles = [
            {
                "path": p.relative_to(out).as_posix(),
                "store": store,
                "bytes": p.stat().st_size,
                "sha256": sha256_file(p),
            }
            for p in sorted(q for q in final.rglob("*") if q.is_file())
        ]
        atomic_write_json(rec_path, {"want": want, "files": zfiles})
        entries.extend(zfiles)
    return entries


def _remove_stale_zarr_temporaries(out: Path) -> None:
    import shutil

    zdir = out / "zarr"
    if zdir.is_dir():
        for p in zdir.glob(".*.tmp"):
            shutil.rmtree(p, ignore_errors=True)


# ----------------------------------------------------------------------------- build
def build(
    suite: str = "arena-synthetic",
    *,
    scale: str = "mini",
    out: str | os.PathLike = "release",
    workers: int = 1,
    quiet: bool = False,
    family: Family | None = None,
    scheduler: str = "local",
    **options: Any,
) -> Path:
    """Build a suite of any family into a Hugging Face dataset folder.

    Parameters
    ----------
    suite : str, default="arena-synthetic"
        Suite name (``arena-synthetic``, ``arena-real``, ``dot-generic``, ...).
    scale : str, default="mini"
        One of the suite's scales.
    out : path, default="release"
        Output folder; created if missing.  Finished units found there are kept (resume).
    workers : int, default=1
        Worker processes; the output bytes do not depend on it.
    quiet : bool, default=False
        Hide the progress bar and the resume note.
    family : Family, optional
        The family (default: the registered family that builds ``suite``).
    scheduler : str, default="local"
        ``"local"``: ``workers`` processes on this machine; else the address of a
        ``dask.distributed`` scheduler (``tcp://host:8786``) whose workers run the units and
        return their parts to this process, which writes them (``workers`` is then unused;
        see :mod:`causalarena.release.cluster`).  The output bytes do not depend on it.
    **options
        Family options (e.g. ``real_data_dir`` for ``arena-real``); recorded in the resume key
        through the units' parameters, never as local paths in the manifest.

    Returns
    -------
    pathlib.Path
        The release folder: ``data/<config>/*.parquet``, ``zarr/`` (families with arrays),
        ``manifest.json``, ``README.md``, ``croissant.json``, ``CITATION.cff``,
        ``.zenodo.json``.

    Raises
    ------
    ValueError
        Unknown suite or scale, or ``workers < 1``.
    ImportError
        A dask ``scheduler`` without the ``distributed`` extra installed.
    ReleaseError
        ``out`` is a file, a non-empty folder that is not a causalarena release, a release of
        another suite/version/scale, a frozen version the build would change, holds files
        under ``data/`` the build did not write, or another build holds the lock.
    MissingExtraError
        The ``build`` extra is not installed (an :class:`ImportError`; names the extra).
    """
    if family is not None:
        register(family)  # workers and the metadata renderers look families up by name
    fam = family if family is not None else family_of(suite)
    info = fam.suite(suite)
    check_extra("build", "building a suite")  # before any work, not at croissant.json
    if scale not in info.scales:
        raise ValueError(f"unknown scale {scale!r} for suite {suite!r}; choose from {info.scales}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    outp = Path(out)
    old = check_output_folder(outp, suite, info.version, scale)
    created = not outp.exists()
    outp.mkdir(parents=True, exist_ok=True)
    try:
        return _build_locked(outp, fam, suite, info, scale, old, options, workers, quiet, scheduler)
    except BaseException:
        if created:
            _remove_if_nothing_built(outp)
        raise


def _remove_if_nothing_built(outp: Path) -> None:
    """Delete a folder this build created when it holds nothing but the build lock (a build
    that failed before its first unit, e.g. an unreachable ``--scheduler``)."""
    left = [p for p in outp.rglob("*") if p.is_file() and p.name != LOCK_FILE]
    if not left:
        shutil.rmtree(outp, ignore_errors=True)


def _build_locked(outp, fam, suite, info, scale, old, options, workers, quiet, scheduler):
    """The body of :func:`build` under the build lock (same returns and errors)."""
    from causalarena.release.render import write_metadata_files
    from causalarena.ui import progress

    with build_lock(outp):
        remove_stale_temporaries(outp)
        _remove_stale_zarr_temporaries(outp)
        facts = fam.prepare(suite, scale, options) if fam.prepare is not None else {}
        units = list(fam.units(suite, scale, options))
        keys = {u.key: build_key(fam, u) for u in units}
        if len(keys) != len(units):
            raise ReleaseError(f"{suite}: unit keys are not unique")
        records: dict[str, dict[str, Any]] = {}
        todo: list[Unit] = []
        for u in units:
            rec = unit_is_done(outp, u, keys[u.key])
            if rec is not None:
                records[u.key] = rec
            else:
                todo.append(u)
        frozen = registry_path(outp, None, info.version).is_file()
        if frozen:
            bad = [f["path"] for f in (old or {}).get("files", []) if not _files_match(outp, [f])]
            if todo or old is None or bad:
                raise ReleaseError(
                    f"{outp}: version {info.version} is frozen here, and building would "
                    f"rewrite {len(bad)} file(s), e.g. {bad[:3]} ({len(todo)} unit(s) to "
                    "build); build into a new folder and "
                    "compare with `causalarena release freeze NEW --version X.Y.Z --against "
                    f"{outp}`"
                )
            return outp  # frozen and complete: leave manifest, freeze record, metadata untouched
        if records and not quiet:
            print(
                f"{outp}: reusing {len(records)} finished unit(s) whose parts match their "
                f"checksums; building {len(todo)}",
                file=sys.stderr,
            )
        with progress(quiet) as bar:
            task = bar.add_task(
                f"building {suite} ({scale})", total=len(units), completed=len(records)
            )
            shards = run_and_consolidate(
                outp,
                fam,
                suite,
                units,
                keys,
                records,
                todo,
                workers,
                lambda: bar.advance(task),
                scheduler=scheduler,
            )
        _remove_unwritten(
            outp, old, {f["path"] for f in shards}, {c.name for c in fam.configs(suite)}
        )
        zfiles = _zarr_stores(outp, fam, suite, shards)
        header = {
            "suite": suite,
            "version": info.version,
            "scale": scale,
            "seed": info.seed,
            "family": fam.name,
            **fam.header(suite, scale, options),
            **facts,
        }
        audits = [{"files": [], "scms": records[u.key].get("audit", [])} for u in units]
        write_manifest(outp, header, [{"files": shards}, *audits], extra_files=zfiles)
        write_metadata_files(outp)
    return outp


def run_units(
    out: Path,
    fam: Family,
    todo: list[Unit],
    keys: Mapping[str, dict[str, Any]],
    records: dict[str, dict[str, Any]],
    workers: int,
    advance: Callable[[], Any] | None = None,
    runner: Callable[[Family, Unit], Any] | None = None,
    scheduler: str | None = None,
) -> None:
    """Run ``todo`` (in ``workers`` spawn processes when > 1, or on the dask scheduler at
    ``scheduler``), writing each unit's parts and record under ``out/.build`` and adding the
    records to ``records``.

    Raises
    ------
    ReleaseError
        A worker process died (the finished units are kept; rerunning resumes); with a dask
        scheduler: it cannot be reached, or a unit killed every worker it was retried on.
    """
    from causalarena.release.cluster import is_local

    if not todo:
        return
    if not is_local(scheduler):
        if runner is not None:
            raise ReleaseError(
                "reserved builds run on this machine only (--scheduler local): the secret key "
                "never leaves it"
            )
        _run_units_dask(out, fam, todo, keys, records, str(scheduler), advance)
        return
    nw = max(1, min(workers, len(todo), os.cpu_count() or 1))
    if nw == 1:
        for u in todo:
            records[u.key] = _run_unit(fam.name, u, str(out), keys[u.key], runner)
            if advance is not None:
                advance()
        return
    import multiprocessing as mp

    with ProcessPoolExecutor(
        max_workers=nw,
        mp_context=mp.get_context("spawn"),
        initializer=_worker_init,
        initargs=(os.getpid(), fam.run_unit.__module__),
    ) as ex:
        futs = {
            ex.submit(_run_unit, fam.name, u, str(out), keys[u.key], runner): u.key for u in todo
        }
        try:
            for fut in as_completed(futs):
                records[futs[fut]] = fut.result()
                if advance is not None:
                    advance()
        except BrokenProcessPool:
            raise ReleaseError(
                f"{out}: a worker process died (killed or out of memory); "
                "finished units are kept, rerun the same command to resume"
            ) from None


def _run_units_dask(
    out: Path,
    fam: Family,
    todo: list[Unit],
    keys: Mapping[str, dict[str, Any]],
    records: dict[str, dict[str, Any]],
    scheduler: str,
    advance: Callable[[], Any] | None,
) -> None:
    """Submit ``todo`` to the dask scheduler at ``scheduler``; write each returned unit here.

    Workers return Parquet bytes (:func:`_compute_unit`) and never write into ``out``; a task
    whose worker was lost is re-executed by dask (up to ``distributed.scheduler.
    allowed-failures`` times) and its result is written once, by this process."""
    import uuid

    from causalarena.release.cluster import connect, distributed_module, killed_worker_error

    distributed = distributed_module()
    killed = killed_worker_error()
    modules = tuple(dict.fromkeys((fam.units.__module__, fam.run_unit.__module__)))
    token = uuid.uuid4().hex[:8]  # a new build never picks up another build's results
    with connect(scheduler) as client:
        futs = {
            client.submit(
                _compute_unit,
                fam.name,
                u,
                None,
                modules,
                {k: keys[u.key][k] for k in ("environment", "code_sha256")},
                key=f"causalarena-unit-{u.suite}-{u.key}-{token}",
                pure=False,
            ): u
            for u in todo
        }
        try:
            for fut in distributed.as_completed(futs, loop=client.loop):
                u = futs[fut]
                try:
                    computed = fut.result()
                except killed as exc:
                    raise ReleaseError(
                        f"{out}: unit {u.key} was lost with every dask worker it ran on "
                        f"({exc}; out of memory?); finished units are kept, rerun the same "
                        "command to resume"
                    ) from None
                records[u.key] = _write_unit(out, u, keys[u.key], computed)
                fut.release()
                if advance is not None:
                    advance()
        except BaseException:
            client.cancel(list(futs))
            raise


def run_and_consolidate(
    out: Path,
    fam: Family,
    suite: str,
    units: list[Unit],
    keys: Mapping[str, dict[str, Any]],
    records: dict[str, dict[str, Any]],
    todo: list[Unit],
    workers: int,
    advance: Callable[[], Any] | None = None,
    runner: Callable[[Family, Unit], Any] | None = None,
    prefix: str = "test",
    scheduler: str | None = None,
) -> list[dict[str, Any]]:
    """Run the pending units, then write the shards (:func:`_consolidate`); units whose
    deleted parts are needed again (a damaged shard) are run again first."""
    run_units(out, fam, todo, keys, records, workers, advance, runner, scheduler)
    by_key = {u.key: u for u in units}
    for _ in range(2):
        ordered = [records[u.key] for u in units]
        dees = [int(fam.shard_d(u)) for u in units] if fam.shard_d else None
        try:
            return _consolidate(out, fam, suite, ordered, dees, prefix)
        except PartsMissing as exc:
            again = [by_key[k] for k in sorted(exc.units, key=list(by_key).index)]
            run_units(out, fam, again, keys, records, workers, None, runner, scheduler)
    raise ReleaseError(f"{out}: parts of {suite} are still missing after rebuilding them")


def _worker_init(parent: int, module: str) -> None:
    """Watch the parent; register every :class:`Family` defined in ``module``."""
    _watch_parent(parent)
    _register_module(module)


def _register_module(module: str) -> None:
    """Register every :class:`Family` defined in ``module`` (the module of the family's
    ``run_unit``), so families defined outside the registry work in workers."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise ReleaseError(
            f"worker on host {socket.gethostname()}: cannot import {module}, the module of "
            f"the family's run_unit ({exc}); install causalarena and that module on every "
            "worker"
        ) from None
    for value in vars(mod).values():
        if isinstance(value, Family):
            register(value)


def _remove_unwritten(out: Path, old: dict | None, written: set[str], configs: set[str]) -> None:
    """Delete shards of an earlier build of this suite that this build did not write; refuse
    any other file under ``data/`` (it would be published and loaded)."""
    import re

    ours = {f["path"] for f in (old or {}).get("files", [])}
    pattern = re.compile(r"^data/([a-z0-9-]+)/test-\d{5}-of-\d{5}\.parquet$")
    foreign = []
    for p in sorted((out / "data").rglob("*")) if (out / "data").is_dir() else []:
        rel = p.relative_to(out).as_posix()
        if not p.is_file() or rel in written:
            continue
        m = pattern.match(rel)
        if rel in ours or (m and m.group(1) in configs):
            p.unlink()
        else:
            foreign.append(rel)
    if foreign:
        raise ReleaseError(
            f"{out}: files the build did not write are under data/: {foreign[:5]}"
            " (they would be published and loaded); move them away and rerun"
        )


def rebuild_options(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Build options recorded in a manifest (for ``verify --rebuild``)."""
    return dict(manifest.get("options") or {})
