"""From a method to a leaderboard in one call: :func:`evaluate` and :class:`Leaderboard`.

``causalarena.evaluate(method, release=..., config=...)`` runs a method on every instance of a
released config, scores the predictions with the same scorer as ``causalarena report``
(:func:`causalarena.eval.score.score_predictions`) and returns a :class:`Leaderboard`.  The
predictions file it writes follows the predictions schema, so the result is exactly what the
CLI computes from the same predictions (paper 4.5: one schema, one scorer).

``method`` may be

* a registered name (``"pc"``, ``"var-sort-regress"``, ...; see ``causalarena methods``): run
  by :func:`causalarena.eval.runner.run`, with its isolation, time budget and journal;
* a callable ``f(X, mask, seed)`` returning an adjacency matrix ``(d, d)`` or a pair
  ``(adjacency, edge_scores)``; ``X`` is ``(n, d) float64``, ``mask`` an ``(n, d) bool``
  intervention mask on ``obsint`` splits and ``None`` on ``obs`` splits, ``seed`` the
  instance's fixed seed (:func:`causalarena.eval.runner.instance_seed`);
* an object with ``fit(X, mask, seed=seed)`` returning the same, or a
  :class:`causalarena.baselines.base.MethodResult` (e.g. a :class:`Method`).

Adjacency convention: ``A[i, j] = 1`` iff ``i -> j``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Leaderboard", "evaluate"]

ISOLATIONS = ("process", "none")


# ----------------------------------------------------------------------------------------------
# the leaderboard object
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Leaderboard:
    """Scored runs of one or more methods on one release, with its provenance.

    Attributes
    ----------
    scores : pandas.DataFrame
        One row per (method, instance) run, as returned by
        :func:`causalarena.eval.score.score_predictions`.
    provenance : dict
        ``release_version``, ``manifest_sha256``, ``package_version`` of the release the
        predictions were scored against, plus ``release`` (folder) and ``config``.
    predictions : Path or None
        Folder holding the predictions file(s) (``<config>/<method>.parquet``).
    """

    scores: pd.DataFrame
    provenance: dict = field(default_factory=dict)
    predictions: Path | None = None

    def to_frame(self, *, seed: int = 0) -> pd.DataFrame:
        """One row per method (:func:`causalarena.eval.analyses.leaderboard`), with CIs."""
        from causalarena.eval.analyses import leaderboard

        return leaderboard(self.scores, seed=seed)

    def table2(self, metrics: Sequence[str] = ("f1", "shd"), *, seed: int = 0) -> pd.DataFrame:
        """Family x split cells in the paper's Table 2 layout (wide ``mean (sd)`` strings)."""
        from causalarena.eval.analyses import benchmark_table, format_benchmark_table

        return format_benchmark_table(benchmark_table(self.scores, metrics, seed=seed))

    def to_markdown(self, *, title: str | None = None, seed: int = 0) -> str:
        """The Markdown leaderboard of ``causalarena report`` (Jinja2 template), as a string."""
        from causalarena.eval import report

        title = title or f"causalarena leaderboard ({self.provenance.get('config', '')})"
        prov = report._provenance(self.scores, title)
        return report.render_markdown(self.to_frame(seed=seed), title, prov)

    def plot(self, path: str | Path | None = None, *, metric: str = "f1"):
        """Bar chart of each method's pooled ``metric`` with its 95% bootstrap CI.

        Parameters
        ----------
        path : str or Path, optional
            Also write the figure as a PNG there.
        metric : str, default "f1"

        Returns
        -------
        matplotlib.figure.Figure
        """
        from causalarena.eval.plots import leaderboard_figure

        return leaderboard_figure(self.to_frame(), metric=metric, path=path)

    def write_report(self, out_dir: str | Path, **kwargs: Any) -> dict[str, Path]:
        """Write the full report folder (:func:`causalarena.eval.report.write_report`)."""
        from causalarena.eval.report import write_report

        return write_report(self.scores, out_dir, **kwargs)

    def _repr_markdown_(self) -> str:  # notebooks
        return self.to_markdown()


# ----------------------------------------------------------------------------------------------
# running a callable or a fit object
# ----------------------------------------------------------------------------------------------
def _as_result(out: Any) -> tuple[Any, Any, str, dict]:
    """(adjacency, edge_scores, graph_type, notes) from what a user method returned."""
    if hasattr(out, "adjacency") and hasattr(out, "graph_type"):
        return out.adjacency, getattr(out, "edge_scores", None), out.graph_type, out.notes or {}
    if isinstance(out, tuple):
        if len(out) != 2:
            raise TypeError(
                f"a method must return an adjacency or (adjacency, edge_scores), got a tuple of "
                f"{len(out)} items"
            )
        return out[0], out[1], "dag", {}
    return out, None, "dag", {}


def _call(fn: Callable, X: np.ndarray, mask: np.ndarray | None, seed: int) -> tuple:
    t0 = time.perf_counter()
    out = fn(X, mask, seed)
    rt = time.perf_counter() - t0
    A, S, gtype, notes = _as_result(out)
    A = None if A is None else np.asarray(A)
    S = None if S is None else np.asarray(S, dtype=np.float64)
    return A, S, gtype, notes, rt


def _child(conn, fn, X, mask, seed) -> None:  # pragma: no cover - runs in the forked child
    try:
        conn.send(("ok", *_call(fn, X, mask, seed), None))
    except BaseException:
        conn.send(("failed", None, None, None, {}, None, traceback.format_exc(limit=8)[-4000:]))
    finally:
        conn.close()


def _run_isolated(fn, X, mask, seed, timeout: float) -> tuple:
    """Run ``fn`` in a forked child (no pickling of ``fn``) under a wall-time budget."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, fn, X, mask, seed), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    child.close()
    try:
        if parent.poll(timeout):
            try:
                msg = parent.recv()
            except EOFError:
                proc.join(5)
                return (
                    "failed",
                    None,
                    None,
                    None,
                    {},
                    time.perf_counter() - t0,
                    f"worker exited with code {proc.exitcode} without a result",
                )
            proc.join(5)
            return msg
        proc.kill()
        proc.join(5)
        return (
            "timeout",
            None,
            None,
            None,
            {},
            time.perf_counter() - t0,
            f"exceeded the {timeout:g} s wall-time budget",
        )
    finally:
        parent.close()
        if proc.is_alive():  # pragma: no cover
            proc.kill()


def _as_callable(method: Any) -> tuple[Callable, str, str | None]:
    """(f(X, mask, seed), name, version) of a callable or an object with ``fit``."""
    info = getattr(method, "info", None)
    if hasattr(method, "fit") and callable(method.fit):
        name = getattr(info, "name", None) or type(method).__name__
        version = getattr(info, "version", None)
        return (lambda X, mask, seed: method.fit(X, mask, seed=seed)), str(name), version
    if callable(method):
        name = getattr(method, "__name__", None) or type(method).__name__
        return method, ("custom" if name == "<lambda>" else str(name)), None
    raise TypeError(
        f"method must be a registered name, a callable f(X, mask, seed) or an object with "
        f"fit(X, mask, seed=...), got {type(method).__name__}"
    )


def _run_callable(
    fn: Callable,
    name: str,
    version: str | None,
    release: Path,
    config: str,
    out: Path,
    *,
    isolation: str,
    timeout: float,
    seed: int,
    max_d: int | None,
    replicates: Sequence[int] | None,
    pretraining_disclosure: str | None,
    quiet: bool,
) -> None:
    from causalarena.eval.predictions import PredictionError, prediction_table, validate_prediction
    from causalarena.eval.runner import instance_seed, iter_instances, provenance
    from causalarena.release.io import atomic_write_parquet
    from causalarena.ui import progress

    prov = provenance(release)
    reps = None if replicates is None else set(replicates)
    rows = []
    instances = list(iter_instances(release, config, max_d=max_d, replicates=reps))
    with progress(quiet) as bar:
        task = bar.add_task(f"evaluating {name} on {config}", total=len(instances))
        for inst in instances:
            iid = inst["instance_id"]
            s = instance_seed(iid, seed)
            mask = inst["mask"] if inst["setting"] == "obsint" else None
            if isolation == "process":
                status, A, S, gtype, notes, rt, err = _run_isolated(fn, inst["X"], mask, s, timeout)
            else:
                try:
                    A, S, gtype, notes, rt = _call(fn, inst["X"], mask, s)
                    status, err = "ok", None
                except Exception:
                    status, A, S, gtype, notes, rt = "failed", None, None, None, {}, None
                    err = traceback.format_exc(limit=8)[-4000:]
            if status == "ok":
                try:
                    A, S = validate_prediction(iid, inst["d"], A, S, gtype or "dag")
                except PredictionError as exc:
                    status, err, A, S = "invalid", str(exc), None, None
            row = {
                "instance_id": iid,
                "config": config,
                "method": name,
                "method_version": version,
                "library_version": None,
                "graph_type": gtype or "dag",
                "adjacency": None if A is None else A.tolist(),
                "edge_scores": None if S is None else S.tolist(),
                "status": status,
                "runtime_s": rt,
                "error": err,
                "notes": json.dumps(notes or {}, sort_keys=True, default=str),
                "seed": s,
                "timeout_s": timeout if isolation == "process" else None,
                **prov,
            }
            if pretraining_disclosure is not None:
                row["pretraining_disclosure"] = pretraining_disclosure
            rows.append(row)
            bar.advance(task)
    path = out / config / f"{name}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_parquet(path, prediction_table(rows))


# ----------------------------------------------------------------------------------------------
# evaluate
# ----------------------------------------------------------------------------------------------
def evaluate(
    method: str | Callable | Any,
    release: str | Path,
    config: str,
    *,
    isolation: str = "process",
    out: str | Path | None = None,
    name: str | None = None,
    timeout: float = 3600.0,
    seed: int = 0,
    max_d: int | None = None,
    replicates: Sequence[int] | None = None,
    pretraining_disclosure: str | None = None,
    quiet: bool = True,
) -> Leaderboard:
    """Run ``method`` on every instance of ``config``, score it and return a :class:`Leaderboard`.

    Parameters
    ----------
    method : str, callable or object with ``fit``
        See the module docstring.
    release : str or Path
        A built release folder; truth and provenance come from it.
    config : str
        One of the release's configs, e.g. ``"synthetic-obs"``.
    isolation : {"process", "none"}, default "process"
        ``"process"``: each run in its own process with the ``timeout`` budget (a registered
        name goes through the runner's isolation; a callable runs in a forked child, so it
        needs no pickling).  ``"none"``: in this process, without a time budget (fast, and
        a debugger can step into the method).
    out : str or Path, optional
        Predictions folder (``<out>/<config>/<name>.parquet``); default a temporary folder.
    name : str, optional
        Method name in the tables for a callable/object (default: its ``info.name``,
        ``__name__`` or ``"custom"`` for a lambda).
    timeout : float, default 3600
        Seconds per (method, instance) run (paper B.3).
    seed : int, default 0
        Base seed of the per-instance seeds.
    max_d : int, optional
        Skip instances with more variables.
    replicates : sequence of int, optional
        Run only these replicate indices.
    pretraining_disclosure : str, optional
        For a callable/object: ``"none"``, ``"declared prior"`` or ``"corpus overlap
        report"``, written into every prediction row when the schema has the column.
    quiet : bool, default True
        No progress bar on stderr.

    Returns
    -------
    Leaderboard

    Raises
    ------
    ValueError
        Unknown ``isolation`` or non-positive ``timeout``.
    KeyError
        ``method`` is a string that names no registered method.
    TypeError
        ``method`` is neither a name, a callable nor an object with ``fit``.
    causalarena.errors.ReleaseError
        Missing release, manifest or config.
    """
    from causalarena.eval.runner import provenance, run
    from causalarena.eval.score import score_predictions

    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {ISOLATIONS}, got {isolation!r}")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    release = Path(release)
    prov = provenance(release)  # raises on a missing release/manifest
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="causalarena-eval-"))
    if isinstance(method, str):
        if isolation == "none":
            from causalarena.baselines.registry import get_method

            m = get_method(method)
            _run_callable(
                lambda X, mask, s: m.fit(X, mask, seed=s),
                m.info.name,
                m.info.version,
                release,
                config,
                folder,
                isolation="none",
                timeout=timeout,
                seed=seed,
                max_d=max_d,
                replicates=replicates,
                pretraining_disclosure=pretraining_disclosure,
                quiet=quiet,
            )
        else:
            res = run(
                release,
                config,
                [method],
                folder,
                timeout=timeout,
                seed=seed,
                max_d=max_d,
                replicates=None if replicates is None else list(replicates),
                quiet=quiet,
            )
            if method in res["missing"]:
                raise ImportError(f"method {method!r} cannot run here: {res['missing'][method]}")
    else:
        fn, default_name, version = _as_callable(method)
        _run_callable(
            fn,
            name or default_name,
            version,
            release,
            config,
            folder,
            isolation=isolation,
            timeout=timeout,
            seed=seed,
            max_d=max_d,
            replicates=replicates,
            pretraining_disclosure=pretraining_disclosure,
            quiet=quiet,
        )
    scores = score_predictions(release, folder)
    scores = scores[scores["config"] == config].reset_index(drop=True)
    return Leaderboard(
        scores, {**prov, "release": str(release), "config": config}, predictions=folder
    )
