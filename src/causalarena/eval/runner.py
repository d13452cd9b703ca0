"""Run causal-discovery methods on the instances of a released config.

Each (method, instance) run happens in a fresh worker process (forked from a forkserver) with
one BLAS/torch thread and a wall-time budget; a run that exceeds it is killed and recorded as
``timeout``; an exception or a crashed worker is ``failed``; an output that fails validation is
``invalid``; a method that cannot use the split is ``unsupported`` (paper B.1: methods that do
not consume intervention indicators are evaluated only on supported splits).  Every outcome is a
row.  Results are appended to a journal (one JSON line per run, flushed and fsynced) and
consolidated into ``<out>/<config>/<method>.parquet`` atomically, so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
import traceback
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from causalarena.errors import ReleaseError
from causalarena.eval.predictions import PredictionError, prediction_table, validate_prediction
from causalarena.release.io import atomic_write_json, atomic_write_parquet, sha256_file

RUN_FILE = "run.json"


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


def iter_instances(
    release: Path,
    config: str,
    *,
    max_d: int | None = None,
    instances: set[str] | None = None,
    replicates: set[int] | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield instances of a config as numpy arrays, one shard in memory at a time.

    Raises
    ------
    ReleaseError
        If the config folder does not exist in the release.
    """
    folder = release / "data" / config
    if not folder.is_dir():
        have = (
            sorted(p.name for p in (release / "data").iterdir())
            if (release / "data").is_dir()
            else []
        )
        raise ReleaseError(f"{release}: no config {config!r} (found: {have})")
    cols = ["instance_id", "setting", "d", "X", "mask", "n_obs", "n_int", "replicate"]
    for shard in sorted(folder.glob("*.parquet")):
        for row in pq.read_table(shard, columns=cols).to_pylist():
            if max_d is not None and row["d"] > max_d:
                continue
            if instances is not None and row["instance_id"] not in instances:
                continue
            if replicates is not None and row["replicate"] not in replicates:
                continue
            d = row["d"]
            yield {
                "instance_id": row["instance_id"],
                "setting": row["setting"],
                "d": d,
                "X": np.asarray(row["X"], dtype=np.float64).reshape(-1, d),
                "mask": np.asarray(row["mask"], dtype=bool).reshape(-1, d),
            }


def _instance_ids(
    release: Path, config: str, max_d: int | None, replicates: set[int] | None = None
) -> list[str]:
    folder = release / "data" / config
    if not folder.is_dir():
        list(iter_instances(release, config))  # raises the ReleaseError naming the configs
    ids = []
    for shard in sorted(folder.glob("*.parquet")):
        t = pq.read_table(shard, columns=["instance_id", "d", "replicate"]).to_pylist()
        ids += [
            r["instance_id"]
            for r in t
            if (max_d is None or r["d"] <= max_d)
            and (replicates is None or r["replicate"] in replicates)
        ]
    return ids


def _worker(
    conn, method: str, X: np.ndarray, mask: np.ndarray | None, seed: int, plugins: list[str]
) -> None:
    """Child process: fit one method on one dataset and send the result back."""
    try:
        from threadpoolctl import threadpool_limits

        from causalarena.baselines.registry import get_method, load_plugins

        load_plugins(plugins)
        m = get_method(method)
        try:  # one torch thread when torch is present (gcastle/dagma)
            import sys

            if "torch" in sys.modules:
                sys.modules["torch"].set_num_threads(1)
        except Exception:  # pragma: no cover
            pass
        with threadpool_limits(1):
            t0 = time.perf_counter()
            res = m.fit(X, mask, seed=seed)
            rt = time.perf_counter() - t0
        conn.send(("ok", res.adjacency, res.edge_scores, res.graph_type, res.notes, rt, None))
    except BaseException:  # report everything, including SystemExit from a library
        conn.send(("failed", None, None, None, {}, None, traceback.format_exc(limit=8)[-4000:]))
    finally:
        conn.close()


#: Imported once by the fork server, so each run's fresh process starts with them loaded.
#: Only libraries that leave global state alone at import: gcastle and dagma change torch's
#: default dtype when imported, so torch-based libraries are imported inside each run instead.
#: A library that is not installed is skipped by the fork server.
PRELOAD = (
    "numpy",
    "scipy",
    "sklearn.linear_model",
    "causalarena.baselines.registry",
    "causalarena.baselines.regress",
    "causallearn.search.ConstraintBased.PC",
    "causallearn.search.ScoreBased.GES",
    "lingam",
)


def _context():
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


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
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn by an interruption: that run is redone
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


def _row(
    task: Task,
    method_info: dict[str, Any],
    prov: dict[str, Any],
    config: str,
    *,
    status: str,
    runtime: float | None = None,
    adjacency=None,
    edge_scores=None,
    graph_type: str | None = None,
    error: str | None = None,
    notes: dict | None = None,
) -> dict:
    return {
        "instance_id": task.instance_id,
        "config": config,
        "method": task.method,
        "method_version": method_info["version"],
        "library_version": method_info["library_version"],
        "graph_type": graph_type or method_info["output_graph"],
        "adjacency": None if adjacency is None else np.asarray(adjacency).tolist(),
        "edge_scores": None if edge_scores is None else np.asarray(edge_scores).tolist(),
        "status": status,
        "runtime_s": runtime,
        "error": error,
        "notes": json.dumps(notes or {}, sort_keys=True, default=str),
        "seed": task.seed,
        **prov,
    }


def provenance(release: Path) -> dict[str, str]:
    """Release version, manifest sha256 and package version recorded on every result row."""
    from causalarena import __version__
    from causalarena.release.manifest import read_manifest

    m = read_manifest(release)
    return {
        "release_version": f"{m['suite']}@{m['version']}",
        "manifest_sha256": sha256_file(release / "manifest.json"),
        "package_version": __version__,
    }


def run(
    release: str | os.PathLike,
    config: str,
    methods: list[str],
    out: str | os.PathLike,
    *,
    timeout: float = 3600.0,
    workers: int = 1,
    seed: int = 0,
    max_d: int | None = None,
    replicates: list[int] | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    """Run ``methods`` on every instance of ``config`` and write predictions.

    Parameters
    ----------
    release : path
        A built release folder (see :func:`causalarena.build`).
    config : str
        e.g. ``"synthetic-obs"``.
    methods : list of str
        Registry names (``causalarena.baselines.registry``).
    out : path
        Predictions folder: ``<out>/<config>/<method>.parquet`` plus ``run.json``.
    timeout : float, default=3600
        Wall-time budget in seconds per (method, instance) run (paper B.3: one hour per row).
    workers : int, default=1
        Runs executed at once, each in its own process.
    seed : int, default=0
        Base seed; each instance's seed is :func:`instance_seed`.
    max_d : int, optional
        Skip instances with more variables (for quick runs).
    replicates : list of int, optional
        Run only these replicate indices (e.g. ``[0]``).
    quiet : bool, default=False

    Returns
    -------
    dict
        ``{"counts": {method: {status: n}}, "missing": {method: reason}, "files": [...]}``.

    Raises
    ------
    KeyError
        Unknown method name (lists the known ones).
    ReleaseError
        Missing release folder, manifest or config.
    """
    from causalarena.baselines.registry import (
        all_method_infos,
        get_method,
        load_plugins,
        missing_methods,
        plugin_modules,
    )
    from causalarena.ui import progress

    release = Path(release)
    out = Path(out)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    plugins = plugin_modules()
    load_plugins(plugins)
    infos = all_method_infos()
    unknown = [m for m in methods if m not in infos]
    if unknown:
        raise KeyError(f"unknown method(s) {unknown}; known: {sorted(infos)}")
    prov = provenance(release)
    missing = {m: r for m, r in missing_methods().items() if m in methods}
    runnable = [m for m in methods if m not in missing]
    meta: dict[str, dict[str, Any]] = {}
    for m in runnable:
        method = get_method(m)
        meta[m] = {
            "version": method.info.version,
            "library_version": method.library_version(),
            "output_graph": method.info.output_graph,
            "supports_interventions": method.info.supports_interventions,
            "requires_interventions": method.info.requires_interventions,
        }
    journals = {m: _Journal(out / config / f".{m}.jsonl") for m in runnable}
    done = {m: {r["instance_id"] for r in journals[m].read()} for m in runnable}
    reps = None if replicates is None else set(replicates)
    ids = _instance_ids(release, config, max_d, reps)

    def tasks() -> Iterator[Task]:  # lazily: one shard of data in memory at a time
        for inst in iter_instances(release, config, max_d=max_d, replicates=reps):
            for m in runnable:
                if inst["instance_id"] not in done[m]:
                    yield Task(
                        m,
                        inst["instance_id"],
                        inst["setting"],
                        inst["d"],
                        instance_seed(inst["instance_id"], seed),
                        inst["X"],
                        inst["mask"] if inst["setting"] == "obsint" else None,
                    )

    pending = tasks()
    ctx = _context()
    running: list[tuple[Any, Any, Task, float]] = []
    exhausted = False
    with progress(quiet) as bar:
        bar_id = bar.add_task(
            f"running {len(runnable)} method(s) on {config}",
            total=len(ids) * len(runnable),
            completed=sum(len(v & set(ids)) for v in done.values()),
        )
        while not exhausted or running:
            while not exhausted and len(running) < workers:
                task = next(pending, None)
                if task is None:
                    exhausted = True
                    break
                info = meta[task.method]
                unsupported = (task.setting == "obsint" and not info["supports_interventions"]) or (
                    task.setting == "obs" and info["requires_interventions"]
                )
                if unsupported:
                    why = (
                        "method does not use intervention masks"
                        if task.setting == "obsint"
                        else "method needs interventional data"
                    )
                    journals[task.method].append(
                        _row(task, info, prov, config, status="unsupported", error=why)
                    )
                    bar.advance(bar_id)
                    continue
                parent, child = ctx.Pipe(duplex=False)
                proc = ctx.Process(
                    target=_worker,
                    args=(child, task.method, task.X, task.mask, task.seed, plugins),
                    daemon=True,
                )
                proc.start()
                child.close()
                running.append((proc, parent, task, time.perf_counter()))
            still = []
            for proc, conn, task, t0 in running:
                info = meta[task.method]
                elapsed = time.perf_counter() - t0
                row = None
                if conn.poll(0.05):
                    try:
                        status, A, S, gtype, notes, rt, err = conn.recv()
                    except EOFError:
                        status, A, S, gtype, notes, rt, err = (
                            "failed",
                            None,
                            None,
                            None,
                            {},
                            None,
                            "worker closed the pipe",
                        )
                    proc.join(5)
                    if status == "ok":
                        try:
                            A, S = validate_prediction(
                                task.instance_id, task.d, A, S, gtype or "dag"
                            )
                            row = _row(
                                task,
                                info,
                                prov,
                                config,
                                status="ok",
                                runtime=rt,
                                adjacency=A,
                                edge_scores=S,
                                graph_type=gtype,
                                notes=notes,
                            )
                        except PredictionError as exc:
                            row = _row(
                                task,
                                info,
                                prov,
                                config,
                                status="invalid",
                                runtime=rt,
                                error=str(exc),
                                notes=notes,
                            )
                    else:
                        row = _row(
                            task, info, prov, config, status="failed", runtime=elapsed, error=err
                        )
                elif elapsed > timeout:
                    proc.kill()
                    proc.join(5)
                    row = _row(
                        task,
                        info,
                        prov,
                        config,
                        status="timeout",
                        runtime=elapsed,
                        error=f"exceeded the {timeout:g} s wall-time budget",
                    )
                elif not proc.is_alive() and not conn.poll(0):
                    row = _row(
                        task,
                        info,
                        prov,
                        config,
                        status="failed",
                        runtime=elapsed,
                        error=f"worker exited with code {proc.exitcode} without a result",
                    )
                if row is None:
                    still.append((proc, conn, task, t0))
                else:
                    conn.close()
                    journals[task.method].append(row)
                    bar.advance(bar_id)
            running = still
    files = []
    counts: dict[str, dict[str, int]] = {}
    order = {iid: k for k, iid in enumerate(ids)}
    for m in runnable:
        rows = {r["instance_id"]: r for r in journals[m].read()}
        rows_sorted = sorted(rows.values(), key=lambda r: order.get(r["instance_id"], len(order)))
        path = out / config / f"{m}.parquet"
        atomic_write_parquet(path, prediction_table(rows_sorted))
        files.append(str(path))
        counts[m] = {}
        for r in rows_sorted:
            counts[m][r["status"]] = counts[m].get(r["status"], 0) + 1
    _update_run_file(out, release, config, methods, missing, timeout, seed, max_d)
    return {"counts": counts, "missing": missing, "files": files}


def _update_run_file(
    out: Path,
    release: Path,
    config: str,
    methods: list[str],
    missing: dict[str, str],
    timeout: float,
    seed: int,
    max_d: int | None,
) -> None:
    path = out / RUN_FILE
    data = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    data["release"] = str(release.resolve())
    data["runs"][config] = {
        "methods": sorted(set(data["runs"].get(config, {}).get("methods", [])) | set(methods)),
        "missing": missing,
        "timeout_s": timeout,
        "seed": seed,
        "max_d": max_d,
    }
    atomic_write_json(path, data)
