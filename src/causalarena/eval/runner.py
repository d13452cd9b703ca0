"""Run causal-discovery methods on the instances of a released config.

:func:`run_methods` (alias :func:`run`; the ``causalarena run`` command) runs every
(method, instance) pair of a config and writes ``<out>/<config>/<method>.parquet`` (one row per
run, :data:`~causalarena.eval.predictions.PREDICTION_SCHEMA`) and ``<out>/run.json``;
:func:`run_one` runs one method on one array.

Isolation (``isolation="process"``, the default) uses :class:`~causalarena.eval.workers.WorkerPool`:
warm workers, one per (method, worker slot), so imports and a method's ``setup`` (pretrained
weights) are paid once per worker; a run that exceeds the wall-time budget, or whose worker
process group exceeds the memory limit, is killed with its subprocesses; a crashed worker is
replaced.  ``isolation="none"`` runs in this process (for debugging and callables that cannot
leave it; see :class:`~causalarena.eval.workers.InProcessPool` for what it cannot enforce).

Every outcome is a row (paper B.1): ``ok``; ``failed`` (the method raised, its worker died or was
killed at the memory limit; the exit code or signal is in ``error``); ``timeout``; ``invalid``
(the output fails :func:`~causalarena.eval.predictions.validate_prediction`); ``unsupported`` (an
observational method on an obs+int split, or the reverse).  A method's stdout and stderr are
kept, size-capped, in the row's ``stdout``/``stderr`` columns, and its ``notes`` are capped at
:data:`NOTES_CHARS` characters.

Results are appended to a journal (``<out>/<config>/.<method>.jsonl``, one JSON line per run,
flushed and fsynced), so an interrupted run resumes where it stopped.  A journaled row is reused
only when everything that determines it is unchanged -- the fields in :data:`DETERMINING`
(release manifest sha256, method and library version, seed, time budget, memory limit);
otherwise the run is redone.  The Parquet file holds exactly the rows of the last run's
selection and ``run.json`` records, per config and method, the settings those rows were made
with, so the two never disagree.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from causalarena.errors import CausalArenaError, ReleaseError
from causalarena.eval.predictions import PredictionError, prediction_table, validate_prediction
from causalarena.release.io import atomic_write_json, atomic_write_parquet, sha256_file

__all__ = [
    "DETERMINING",
    "ISOLATIONS",
    "NOTES_CHARS",
    "RUN_FILE",
    "RunOptionError",
    "instance_seed",
    "iter_instances",
    "provenance",
    "run",
    "run_methods",
    "run_one",
]

RUN_FILE = "run.json"
#: ``"process"``: warm isolated workers; ``"none"``: in this process.
ISOLATIONS = ("process", "none")
#: Row fields that determine a run's result: a journaled row is reused only if all are equal.
DETERMINING = (
    "manifest_sha256",
    "method_version",
    "library_version",
    "seed",
    "timeout_s",
    "memory_limit_bytes",
)
#: Characters of a row's JSON ``notes`` kept (longer notes are replaced by their head).
NOTES_CHARS = 20000


class RunOptionError(CausalArenaError, ValueError):
    """A run option has a bad value: names the option (``option``), the value and the reason.

    The command line shows it as ``--<option> <value>: <reason>`` (exit code 2).
    """

    def __init__(self, option: str, value: Any, reason: str) -> None:
        self.option, self.value, self.reason = option, value, reason
        super().__init__(f"{option}={value}: {reason}")

    def cli_message(self) -> str:
        """The message with the command-line spelling of the option."""
        return f"--{self.option.replace('_', '-')} {self.value}: {self.reason}"

    __str__ = Exception.__str__


class UnknownMethodError(RunOptionError, KeyError):
    """A method name that is not registered (also a ``KeyError``)."""

    __str__ = Exception.__str__


@dataclass(frozen=True)
class Task:
    """One (method, instance) run."""

    method: str
    instance_id: str
    setting: str
    d: int
    seed: int
    X: np.ndarray
    mask: np.ndarray | None


def instance_seed(instance_id: str, base_seed: int = 0) -> int:
    """Fixed per-instance seed (CRC-32 of the id plus the base seed), shared by all methods."""
    return (zlib.crc32(instance_id.encode()) + base_seed) % (2**31)


def _flat(column, dtype, d: int) -> np.ndarray:
    """A list-of-lists (or flat) Arrow column of one row as an ``(n, d)`` array of ``dtype``."""
    import pyarrow as pa

    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    while True:  # the child values of the slice (ListArray.flatten imports pyarrow.compute)
        if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
            lo, hi = arr.offsets[0].as_py(), arr.offsets[len(arr)].as_py()
            arr = arr.values.slice(lo, hi - lo)
        elif pa.types.is_fixed_size_list(arr.type):
            size = arr.type.list_size
            arr = arr.values.slice(arr.offset * size, len(arr) * size)
        else:
            break
    n, off = len(arr), arr.offset
    kinds = {pa.float32(): np.float32, pa.float64(): np.float64, pa.int8(): np.int8}
    if arr.null_count == 0 and pa.types.is_boolean(arr.type):  # bit-packed
        bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
        values = np.unpackbits(bits, bitorder="little")[off : off + n].astype(bool)
    elif arr.null_count == 0 and arr.type in kinds:
        # a view of the buffer (Array.to_numpy would import pandas, about 0.5 s)
        values = np.frombuffer(arr.buffers()[1], dtype=kinds[arr.type])[off : off + n]
    else:
        values = arr.to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=dtype).reshape(-1, d)


def iter_instances(
    release: Path,
    config: str,
    *,
    max_d: int | None = None,
    instances: set[str] | None = None,
    replicates: set[int] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield instances of a config as numpy arrays, one shard in memory at a time.

    Yields dicts with ``instance_id``, ``setting``, ``d``, ``X`` (``(n, d)`` float64) and
    ``mask`` (``(n, d)`` bool).  Shards with no selected instance are never decoded.

    Raises
    ------
    ReleaseError
        If the config folder does not exist in the release.
    """
    for shard, meta in _shard_index(Path(release), config):
        keep = [
            k
            for k, r in enumerate(meta)
            if (max_d is None or r["d"] <= max_d)
            and (instances is None or r["instance_id"] in instances)
            and (replicates is None or r["replicate"] in replicates)
        ]
        if not keep:
            continue
        table = pq.ParquetFile(shard).read(columns=["X", "mask"])
        for k in keep:
            d = meta[k]["d"]
            yield {
                "instance_id": meta[k]["instance_id"],
                "setting": meta[k]["setting"],
                "d": d,
                "X": _flat(table.column("X").slice(k, 1), np.float64, d),
                "mask": _flat(table.column("mask").slice(k, 1), bool, d),
            }


def _shard_index(release: Path, config: str) -> list[tuple[Path, list[dict[str, Any]]]]:
    """Each shard of a config with ``instance_id``, ``setting``, ``d``, ``replicate`` of its rows.

    Raises
    ------
    ReleaseError
        If the config folder does not exist in the release (names the configs found).
    """
    folder = release / "data" / config
    if not folder.is_dir():
        data = release / "data"
        have = sorted(p.name for p in data.iterdir()) if data.is_dir() else []
        raise ReleaseError(f"{release}: no config {config} (found: {', '.join(have)})")
    cols = ["instance_id", "setting", "d", "replicate"]
    return [
        (shard, pq.ParquetFile(shard).read(columns=cols).to_pylist())
        for shard in sorted(folder.glob("*.parquet"))
    ]


def _index(release: Path, config: str) -> list[dict[str, Any]]:
    """``instance_id``, ``setting``, ``d`` and ``replicate`` of every instance, in shard order."""
    return [row for _, rows in _shard_index(release, config) for row in rows]


class _Journal:
    """Append-only JSON-lines log of finished runs (tolerates a torn last line)."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = []
        for line in self.path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line torn by an interruption: that run is redone
            if isinstance(row, dict) and "instance_id" in row:
                rows.append(row)
        return rows

    def append(self, row: dict[str, Any]) -> None:
        torn = False
        if self.path.exists() and self.path.stat().st_size:
            with open(self.path, "rb") as fh:
                fh.seek(-1, os.SEEK_END)
                torn = fh.read(1) != b"\n"  # an interrupted write left a partial line
        with open(self.path, "a") as fh:
            fh.write(("\n" if torn else "") + json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def _notes_json(notes: dict | None) -> str:
    text = json.dumps(notes or {}, sort_keys=True, default=str)
    if len(text) <= NOTES_CHARS:
        return text
    return json.dumps({"notes_truncated": text[:NOTES_CHARS], "notes_chars": len(text)})


def _row(
    task: Task,
    info: dict[str, Any],
    prov: dict[str, Any],
    config: str,
    settings: dict[str, Any],
    *,
    status: str,
    runtime: float | None = None,
    adjacency=None,
    edge_scores=None,
    graph_type: str | None = None,
    error: str | None = None,
    notes: dict | None = None,
    stdout: str | None = None,
    stderr: str | None = None,
) -> dict:
    return {
        "instance_id": task.instance_id,
        "config": config,
        "method": task.method,
        "method_version": info["version"],
        "library_version": info["library_version"],
        "graph_type": graph_type or info["output_graph"],
        "adjacency": None if adjacency is None else np.asarray(adjacency).tolist(),
        "edge_scores": None if edge_scores is None else np.asarray(edge_scores).tolist(),
        "status": status,
        "runtime_s": runtime,
        "error": error,
        "notes": _notes_json(notes),
        "seed": task.seed,
        **prov,
        **settings,
        "stdout": stdout,
        "stderr": stderr,
        "pretraining_disclosure": info.get("pretraining_disclosure", "none"),
    }


def provenance(release: Path) -> dict[str, str]:
    """Release version, manifest sha256 and package version recorded on every result row."""
    from causalarena import __version__
    from causalarena.release.manifest import read_manifest

    m = read_manifest(release)
    return {
        "release_version": f"{m['suite']}@{m['version']}",
        "manifest_sha256": sha256_file(Path(release) / "manifest.json"),
        "package_version": __version__,
    }


# --------------------------------------------------------------------------- option checks


def _check_number(option: str, value: Any, *, integer: bool, minimum: float) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if ok and integer:
        ok = isinstance(value, int) or float(value).is_integer()
    if not ok or not math.isfinite(value) or value < minimum:
        kind = "an integer" if integer else "a finite number"
        raise RunOptionError(option, value, f"must be {kind} >= {minimum:g}")


def _check_options(
    release: Path,
    config: str,
    methods: Sequence[Any],
    out: Path,
    *,
    timeout: float,
    workers: int,
    max_d: int | None,
    isolation: str,
) -> dict[str, Any]:
    from causalarena.release.manifest import read_manifest

    manifest = read_manifest(release)
    configs = sorted(manifest.get("configs", {}))
    if config not in configs:
        raise RunOptionError(
            "config",
            config,
            f"not a config of the release {release} (its configs: {', '.join(configs)})",
        )
    if not (release / "data" / config).is_dir():
        raise ReleaseError(
            f"{release}: config {config} is in manifest.json but data/{config} is missing"
        )
    rel, dst = release.resolve(), out.resolve()
    if dst == rel or rel in dst.parents:
        raise RunOptionError(
            "out", out, f"is inside the release folder {release}; a release is never written to"
        )
    if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0):
        raise RunOptionError("timeout", timeout, "must be a finite number of seconds > 0")
    _check_number("workers", workers, integer=True, minimum=1)
    if max_d is not None:
        _check_number("max_d", max_d, integer=True, minimum=1)
    if isolation not in ISOLATIONS:
        raise RunOptionError("isolation", isolation, f"must be one of {', '.join(ISOLATIONS)}")
    if isinstance(methods, str) or not len(methods):
        raise RunOptionError("methods", ",".join(methods), "name at least one method")
    return manifest


def _method_meta(methods: Sequence[Any]) -> tuple[list[Any], dict[str, dict], dict[str, str]]:
    """Method objects/names by name, their row metadata, and the uninstalled ones with why."""
    from causalarena.baselines.base import Method
    from causalarena.baselines.registry import all_method_infos, installed_reason, registered

    infos = all_method_infos()
    refs: dict[str, Any] = {}
    for m in methods:
        if isinstance(m, Method):
            refs.setdefault(m.info.name, m)
        elif isinstance(m, str) and m in infos:
            refs.setdefault(m, m)
        else:
            raise UnknownMethodError(
                "methods", m, f"unknown method; known methods: {', '.join(sorted(infos))}"
            )
    meta, missing = {}, {}
    for name, ref in refs.items():
        method = registered(ref) if isinstance(ref, str) else ref
        reason = installed_reason(method)
        if reason is not None:
            missing[name] = reason
            continue
        meta[name] = {
            "version": method.info.version,
            "library_version": method.library_version(),
            "output_graph": method.info.output_graph,
            "supports_interventions": method.info.supports_interventions,
            "requires_interventions": method.info.requires_interventions,
            "pretraining_disclosure": method.info.pretraining_disclosure,
        }
    return [refs[n] for n in meta], meta, missing


def _pool(isolation: str, *, workers: int, timeout: float, memory_limit: int | None, methods):
    from causalarena.eval.workers import InProcessPool, WorkerPool, preload_modules

    if isolation == "none":
        return InProcessPool(timeout=timeout)
    return WorkerPool(
        slots=workers, timeout=timeout, memory_limit=memory_limit, preload=preload_modules(methods)
    )


def _dask_pool(scheduler: str, memory_limit: Any, timeout: float, methods):
    """A :class:`~causalarena.eval.dask_pool.DaskPool` whose memory limit is resolved against
    the cluster (``"auto"``: from the dask workers' own limits)."""
    from causalarena.eval.dask_pool import DaskPool, auto_memory_limit
    from causalarena.eval.workers import preload_modules

    auto = isinstance(memory_limit, str) and memory_limit.strip().lower() == "auto"
    mem = None if auto else _memory_bytes(memory_limit, 1, "process")
    pool = DaskPool(
        str(scheduler), timeout=timeout, memory_limit=mem, preload=preload_modules(methods)
    )
    if auto:
        pool.memory_limit = auto_memory_limit(pool.workers)
    return pool


def _memory_bytes(memory_limit: Any, workers: int, isolation: str) -> int | None:
    from causalarena.eval.workers import parse_memory_limit

    if isolation == "none":
        return None  # not enforceable in this process; recorded as such
    try:
        return parse_memory_limit(memory_limit, workers)
    except ValueError as exc:
        raise RunOptionError("memory_limit", memory_limit, str(exc)) from None


# --------------------------------------------------------------------------- running


def run_methods(
    release: str | os.PathLike,
    config: str,
    methods: Sequence[str | Any],
    out: str | os.PathLike,
    *,
    timeout: float = 3600.0,
    memory_limit: str | int | None = "auto",
    workers: int = 1,
    seed: int = 0,
    max_d: int | None = None,
    replicates: Sequence[int] | None = None,
    instances: Sequence[str] | None = None,
    isolation: str = "process",
    quiet: bool = False,
    scheduler: str = "local",
) -> dict[str, Any]:
    """Run ``methods`` on every (selected) instance of ``config`` and write predictions.

    Parameters
    ----------
    release : path
        A built release folder (see :func:`causalarena.build`).
    config : str
        One of the release's configs, e.g. ``"synthetic-obs"``.
    methods : sequence of str or Method
        Registry names (``causalarena methods``; plugins from ``$CAUSALARENA_METHODS``) or
        :class:`~causalarena.baselines.base.Method` objects (sent to workers with cloudpickle).
    out : path
        Predictions folder, outside the release: ``<out>/<config>/<method>.parquet`` plus
        ``run.json``.
    timeout : float, default=3600
        Wall-time budget in seconds per (method, instance) run (paper B.3: one hour per row).
    memory_limit : str, int or None, default="auto"
        Resident memory allowed per worker and its subprocesses: bytes, or text such as
        ``"4G"``, ``"512M"``, ``"40%"`` (see :func:`~causalarena.eval.workers.parse_memory_limit`);
        ``"auto"`` is 80 % of the machine's memory divided by ``workers``; ``None``: no limit.
        Not enforced with ``isolation="none"`` (recorded as no limit).
    workers : int, default=1
        Runs executed at once (worker slots).
    seed : int, default=0
        Base seed; each instance's seed is :func:`instance_seed`.
    max_d : int, optional
        Skip instances with more variables (for quick runs).
    replicates : sequence of int, optional
        Run only these replicate indices (e.g. ``[0]``); each must exist in the config.
    instances : sequence of str, optional
        Run only these instance ids; each must exist in the config.
    isolation : {"process", "none"}, default="process"
    quiet : bool, default=False
        No progress bar on stderr.
    scheduler : str, default="local"
        ``"local"``: ``workers`` slots on this machine; else the address of a
        ``dask.distributed`` scheduler: each run is a dask task executed in an isolated warm
        worker on the node (:mod:`causalarena.eval.dask_pool`; same budget and memory-limit
        enforcement; ``workers`` unused; ``"auto"`` memory is 80 % of the smallest dask
        worker's limit per thread).  ``run.json`` records ``executor`` and ``scheduler``.

    Returns
    -------
    dict
        ``{"counts": {method: {status: n}}, "missing": {method: reason}, "files": [...],
        "reused": {method: n}}``.

    Raises
    ------
    RunOptionError
        A bad option (names it and the value); :class:`UnknownMethodError` (also a
        ``KeyError``) for an unknown method name.
    ReleaseError
        Missing release folder, manifest or config data.
    """
    from causalarena.baselines.registry import load_plugins

    release, out = Path(release), Path(out)
    _check_options(
        release,
        config,
        list(methods) if not isinstance(methods, str) else methods,
        out,
        timeout=timeout,
        workers=workers,
        max_d=max_d,
        isolation=isolation,
    )
    load_plugins()
    refs, meta, missing = _method_meta(list(methods))
    from causalarena.release.cluster import is_local

    if is_local(scheduler):
        mem = _memory_bytes(memory_limit, workers, isolation)
        # the pool (and its fork server's imports) starts before the release is read
        pool = _pool(isolation, workers=workers, timeout=timeout, memory_limit=mem, methods=refs)
    else:
        if isolation != "process":
            raise RunOptionError(
                "scheduler", scheduler, "needs isolation='process' (runs happen on the cluster)"
            )
        pool = _dask_pool(scheduler, memory_limit, timeout, refs)
        mem = pool.memory_limit
    try:
        return _run(
            pool,
            release,
            config,
            refs,
            meta,
            missing,
            out,
            mem,
            timeout=timeout,
            seed=seed,
            max_d=max_d,
            replicates=replicates,
            instances=instances,
            isolation=isolation,
            quiet=quiet,
        )
    finally:
        pool.close()


def _run(
    pool,
    release,
    config,
    refs,
    meta,
    missing,
    out,
    mem,
    *,
    timeout,
    seed,
    max_d,
    replicates,
    instances,
    isolation,
    quiet,
) -> dict[str, Any]:
    from causalarena.ui import progress

    index = _index(release, config)
    reps = None
    if replicates is not None:
        reps = {int(r) for r in replicates}
        have = sorted({r["replicate"] for r in index})
        absent = sorted(reps - set(have))
        if absent:
            raise RunOptionError(
                "replicates",
                ",".join(map(str, absent)),
                f"not in config {config} (its replicates: {', '.join(map(str, have))})",
            )
    wanted = None
    if instances is not None:
        wanted = set(instances)
        unknown = sorted(wanted - {r["instance_id"] for r in index})
        if unknown:
            shown = ", ".join(unknown[:3]) + (
                f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
            )
            raise RunOptionError("instances", shown, f"not instance ids of config {config}")
    ids = [
        r["instance_id"]
        for r in index
        if (max_d is None or r["d"] <= max_d)
        and (reps is None or r["replicate"] in reps)
        and (wanted is None or r["instance_id"] in wanted)
    ]
    prov = provenance(release)
    settings = {"timeout_s": float(timeout), "memory_limit_bytes": mem}
    names = list(meta)
    journals = {m: _Journal(out / config / f".{m}.jsonl") for m in names}

    def expected(m: str, iid: str) -> tuple:
        return (
            prov["manifest_sha256"],
            meta[m]["version"],
            meta[m]["library_version"],
            instance_seed(iid, seed),
            settings["timeout_s"],
            settings["memory_limit_bytes"],
        )

    selected = set(ids)
    done: dict[str, dict[str, dict]] = {m: {} for m in names}
    for m in names:
        for r in journals[m].read():
            iid = r["instance_id"]
            if iid in selected and tuple(r.get(k) for k in DETERMINING) == expected(m, iid):
                done[m][iid] = r  # the last matching line wins
    reused = {m: len(done[m]) for m in names}

    def record(task: Task, row: dict) -> None:
        journals[task.method].append(row)
        done[task.method][task.instance_id] = row

    with progress(quiet) as bar:
        bar_id = bar.add_task(
            f"running {len(names)} method(s) on {config}",
            total=len(ids) * len(names),
            completed=sum(reused.values()),
        )

        def jobs():  # lazily: one shard of data in memory at a time
            from causalarena.eval.workers import Job

            todo = {iid for m in names for iid in selected - set(done[m])}
            for inst in iter_instances(release, config, instances=todo or {""}):
                for m, ref in zip(names, refs, strict=True):
                    if inst["instance_id"] in done[m]:
                        continue
                    task = Task(
                        m,
                        inst["instance_id"],
                        inst["setting"],
                        inst["d"],
                        instance_seed(inst["instance_id"], seed),
                        inst["X"],
                        inst["mask"] if inst["setting"] == "obsint" else None,
                    )
                    info = meta[m]
                    if task.setting == "obsint" and not info["supports_interventions"]:
                        why = "method does not use intervention masks"
                    elif task.setting == "obs" and info["requires_interventions"]:
                        why = "method needs interventional data"
                    else:
                        yield Job(task, ref, task.X, task.mask, task.seed)
                        continue
                    record(
                        task,
                        _row(task, info, prov, config, settings, status="unsupported", error=why),
                    )
                    bar.advance(bar_id)

        if names and len(selected) * len(names) > sum(reused.values()):
            for job, outcome in pool.map(jobs()):
                task = job.key
                info = meta[task.method]
                record(task, _outcome_row(task, outcome, info, prov, config, settings))
                bar.advance(bar_id)
    files = []
    counts: dict[str, dict[str, int]] = {}
    for m in names:
        # the disclosure describes the method, not a run: rows reused from the journal take
        # the method's current one
        disclosure = meta[m].get("pretraining_disclosure", "none")
        rows = [
            {**done[m][iid], "pretraining_disclosure": disclosure} for iid in ids if iid in done[m]
        ]
        path = out / config / f"{m}.parquet"
        atomic_write_parquet(path, prediction_table(rows))
        files.append(str(path))
        counts[m] = {}
        for r in rows:
            counts[m][r["status"]] = counts[m].get(r["status"], 0) + 1
    _update_run_file(
        out,
        release,
        config,
        prov,
        {
            m: {
                "method_version": meta[m]["version"],
                "library_version": meta[m]["library_version"],
                **settings,
                "seed": seed,
                "max_d": max_d,
                "replicates": None if reps is None else sorted(reps),
                "instances": None if wanted is None else len(wanted),
                "isolation": isolation,
                "executor": getattr(pool, "executor", "local"),
                **({"scheduler": pool.scheduler} if hasattr(pool, "scheduler") else {}),
                "rows": len(ids),
                "counts": counts[m],
            }
            for m in names
        },
        missing,
    )
    return {"counts": counts, "missing": missing, "files": files, "reused": reused}


#: Backwards-compatible name of :func:`run_methods`.
run = run_methods


def _outcome_row(task: Task, outcome, info, prov, config, settings) -> dict:
    """The predictions row of one finished run (validating an ``ok`` output)."""
    common = dict(
        runtime=outcome.runtime_s, notes=outcome.notes, stdout=outcome.stdout, stderr=outcome.stderr
    )
    if outcome.status != "ok":
        return _row(
            task, info, prov, config, settings, status=outcome.status, error=outcome.error, **common
        )
    try:
        A, S = validate_prediction(
            task.instance_id,
            task.d,
            outcome.adjacency,
            outcome.edge_scores,
            outcome.graph_type or info["output_graph"],
        )
    except PredictionError as exc:
        return _row(task, info, prov, config, settings, status="invalid", error=str(exc), **common)
    return _row(
        task,
        info,
        prov,
        config,
        settings,
        status="ok",
        adjacency=A,
        edge_scores=S,
        graph_type=outcome.graph_type,
        **common,
    )


def run_one(
    method: str | Any,
    X: np.ndarray,
    mask: np.ndarray | None = None,
    *,
    seed: int = 0,
    timeout: float = 3600.0,
    memory_limit: str | int | None = "auto",
    isolation: str = "process",
):
    """Run one method on one dataset, isolated like :func:`run_methods`, and validate its output.

    Parameters
    ----------
    method : str or Method
        Registry name or :class:`~causalarena.baselines.base.Method`.
    X : numpy.ndarray
        ``(n, d)`` float64 data.
    mask : numpy.ndarray or None
        ``(n, d)`` boolean intervention mask.
    seed, timeout, memory_limit, isolation
        As in :func:`run_methods`.

    Returns
    -------
    causalarena.eval.workers.Outcome
        ``status`` one of ``ok``, ``failed``, ``timeout``, ``invalid``; an ``ok`` outcome's
        ``adjacency`` is ``(d, d)`` int8 and ``edge_scores`` ``(d, d)`` float32 or ``None``.
        Each call starts (and stops) its own worker; use :func:`run_methods` for many runs.
    """
    from causalarena.eval.workers import Job

    if not (isinstance(timeout, int | float) and math.isfinite(timeout) and timeout > 0):
        raise RunOptionError("timeout", timeout, "must be a finite number of seconds > 0")
    if isolation not in ISOLATIONS:
        raise RunOptionError("isolation", isolation, f"must be one of {', '.join(ISOLATIONS)}")
    X = np.asarray(X, dtype=np.float64)
    mem = _memory_bytes(memory_limit, 1, isolation)
    with _pool(isolation, workers=1, timeout=timeout, memory_limit=mem, methods=[method]) as pool:
        outcome = pool.run(Job(None, method, X, mask, int(seed)))
    if outcome.status == "ok":
        try:
            outcome.adjacency, outcome.edge_scores = validate_prediction(
                "run_one",
                X.shape[1],
                outcome.adjacency,
                outcome.edge_scores,
                outcome.graph_type or "dag",
            )
        except PredictionError as exc:
            outcome.status, outcome.error = "invalid", str(exc)
            outcome.adjacency = outcome.edge_scores = None
    return outcome


def _update_run_file(
    out: Path,
    release: Path,
    config: str,
    prov: dict[str, str],
    methods: dict[str, dict[str, Any]],
    missing: dict[str, str],
) -> None:
    path = out / RUN_FILE
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError:
            data = {}
    runs = data.get("runs") if isinstance(data.get("runs"), dict) else {}
    entry = runs.get(config) if isinstance(runs.get(config), dict) else {}
    old = entry.get("methods") if isinstance(entry.get("methods"), dict) else {}
    made_with = {
        "release": str(release.resolve()),
        "release_version": prov["release_version"],
        "manifest_sha256": prov["manifest_sha256"],
    }
    old_missing = entry.get("missing") if isinstance(entry.get("missing"), dict) else {}
    runs[config] = {
        **made_with,  # of the last run; each method records the release of its own rows
        "methods": {**old, **{m: {**made_with, **v} for m, v in methods.items()}},
        "missing": {**{k: v for k, v in old_missing.items() if k not in methods}, **missing},
    }
    data["release"] = str(release.resolve())
    data["runs"] = runs
    atomic_write_json(path, data)
