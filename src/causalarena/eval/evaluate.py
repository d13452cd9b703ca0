"""From a method to a leaderboard in one call: :func:`evaluate` and :class:`Leaderboard`.

``causalarena.evaluate(method, release=..., config=...)`` runs a method on every instance of a
released config, scores the predictions with the same scorer as ``causalarena report``
(:func:`causalarena.eval.score.score_predictions`) and returns a :class:`Leaderboard`.  The
predictions file it writes follows the predictions schema, so the result is exactly what the
CLI computes from the same predictions (paper 4.5: one schema, one scorer).

``method`` may be

* a registered name (``"pc"``, ``"var-sort-regress"``, ...; see ``causalarena methods``);
* a callable ``f(X, mask, seed)`` returning an adjacency matrix ``(d, d)`` or a pair
  ``(adjacency, edge_scores)``; ``X`` is ``(n, d) float64``, ``mask`` an ``(n, d) bool``
  intervention mask on ``obsint`` splits and ``None`` on ``obs`` splits, ``seed`` the
  instance's fixed seed (:func:`causalarena.eval.runner.instance_seed`);
* an object with ``fit(X, mask, seed=seed)`` returning the same, or a
  :class:`causalarena.baselines.base.MethodResult` (e.g. a :class:`Method`).

Every kind is run by :func:`causalarena.eval.runner.run_methods` (warm isolated workers, time
budget, memory limit, journal), so failures, time-outs and invalid outputs are rows exactly as
in ``causalarena run``.  Adjacency convention: ``A[i, j] = 1`` iff ``i -> j``.
"""

from __future__ import annotations

import ast
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from causalarena.errors import CausalArenaError

__all__ = ["Leaderboard", "MainGuardError", "evaluate"]

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
# a callable or a fit object as a Method for the runner
# ----------------------------------------------------------------------------------------------
def _as_result(out: Any):
    """A :class:`MethodResult` from what a user method returned."""
    from causalarena.baselines.base import MethodResult

    if hasattr(out, "adjacency") and hasattr(out, "graph_type"):
        return MethodResult(
            None if out.adjacency is None else np.asarray(out.adjacency),
            None if getattr(out, "edge_scores", None) is None else np.asarray(out.edge_scores),
            out.graph_type,
            dict(getattr(out, "notes", None) or {}),
        )
    if isinstance(out, tuple):
        if len(out) != 2:
            raise TypeError(
                f"a method must return an adjacency or (adjacency, edge_scores), got a tuple of "
                f"{len(out)} items"
            )
        A, S = out
    else:
        A, S = out, None
    return MethodResult(
        None if A is None else np.asarray(A),
        None if S is None else np.asarray(S),
        "dag",
        {},
    )


class _UserFit:
    """``fit(X, mask, seed=...)`` around a user callable (picklable with cloudpickle)."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, X, mask=None, *, seed: int = 0, **_: Any):
        return _as_result(self.fn(X, mask, seed))


def _as_method(method: Any, name: str | None):
    """A :class:`~causalarena.baselines.base.Method` for a callable or an object with ``fit``."""
    from causalarena.baselines.base import Method, MethodInfo

    if isinstance(method, Method):
        return (
            method
            if name is None
            else Method(
                info=replace(method.info, name=name), fit=method.fit, requires=method.requires
            )
        )
    info = getattr(method, "info", None)
    if hasattr(method, "fit") and callable(method.fit):
        default = getattr(info, "name", None) or type(method).__name__
        fit = method.fit

        def fn(X, mask, seed):
            return fit(X, mask, seed=seed)

        version = getattr(info, "version", None)
    elif callable(method):
        default = getattr(method, "__name__", None) or type(method).__name__
        default = "custom" if default == "<lambda>" else default
        fn, version = method, None
    else:
        raise TypeError(
            f"method must be a registered name, a callable f(X, mask, seed) or an object with "
            f"fit(X, mask, seed=...), got {type(method).__name__}"
        )
    from causalarena.eval.predictions import method_name_problem

    label = str(name or default)
    why = method_name_problem(label)
    if why is not None:
        raise ValueError(f"method name {label!r}: {why}; pass name=...")
    info = MethodInfo(
        name=label,
        display_name=label,
        family="control",  # user code: no family claimed; the field is not reported
        supports_interventions=True,  # the mask is passed on obsint splits
        requires_interventions=False,
        outputs_edge_scores=True,
        output_graph="dag",
        library=None,
        extra=None,
        defaults={},
        reference="user-supplied method (causalarena.evaluate)",
        version=str(version or "user"),
    )
    return Method(info=info, fit=_UserFit(fn))


def _set_disclosure(path: Path, value: str) -> None:
    """Write ``pretraining_disclosure`` into every row of one predictions file (atomically)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from causalarena.eval.predictions import disclosure_problem
    from causalarena.release.io import atomic_write_parquet

    why = disclosure_problem(value)
    if why:
        raise ValueError(f"pretraining_disclosure: {why}")
    t = pq.read_table(path)
    col = pa.array([value] * t.num_rows, type=pa.string())
    i = t.schema.get_field_index("pretraining_disclosure")
    t = (
        t.set_column(i, "pretraining_disclosure", col)
        if i >= 0
        else t.append_column("pretraining_disclosure", col)
    )
    atomic_write_parquet(path, t)


# ----------------------------------------------------------------------------------------------
# the main-module guard
# ----------------------------------------------------------------------------------------------
class MainGuardError(CausalArenaError, RuntimeError):
    """``evaluate`` with isolated workers was called at the top level of a script without an
    ``if __name__ == "__main__":`` guard (the message names the script and line)."""


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either order) as an ``if`` test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [x for x in sides if isinstance(x, ast.Name) and x.id == "__name__"]
    mains = [x for x in sides if isinstance(x, ast.Constant) and x.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def unguarded_main_call() -> tuple[str, int] | None:
    """``(script, line)`` when the caller runs at the top level of the ``__main__`` script
    outside an ``if __name__ == "__main__":`` block, else None.

    The isolated workers start from a fork server, which re-imports the ``__main__`` script
    in every worker (the ``spawn``/``forkserver`` start methods, Python's "safe importing of
    main module" rule); an unguarded call would run again there and the workers die during
    their setup.  The top-level statement holding the call is found in the script's syntax
    tree; scripts that cannot be read (interactive sessions, ``python -c``) are not checked.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path:
        return None
    frame, line = sys._getframe(1), None
    while frame is not None:  # the outermost frame of the script's own top-level code
        if frame.f_globals is main.__dict__ and frame.f_code.co_name == "<module>":
            line = frame.f_lineno
        frame = frame.f_back
    if line is None:
        return None
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for stmt in tree.body:
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            guarded = isinstance(stmt, ast.If) and _is_main_test(stmt.test)
            return None if guarded else (str(path), line)
    return None


def _check_main_guard() -> None:
    where = unguarded_main_call()
    if where is not None:
        path, line = where
        raise MainGuardError(
            f"{path}, line {line}: causalarena.evaluate() is called at the top level of the "
            'script without an `if __name__ == "__main__":` guard. Isolated workers start by '
            "re-importing the script, which would call evaluate() again in every worker. Put "
            'the call under `if __name__ == "__main__":`, or pass isolation="none" (runs in '
            "this process, without the time and memory limits)."
        )


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
    memory_limit: str | int | None = "auto",
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
        Passed to the runner (:func:`causalarena.eval.runner.run_methods`): ``"process"``
        runs in warm isolated workers with the ``timeout`` budget and memory limit (a callable
        reaches them with cloudpickle, so lambdas and closures work); ``"none"`` runs in this
        process (a debugger can step into the method; no kill, no memory limit).
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
    memory_limit : str, int or None, default "auto"
        Per-worker memory cap (:func:`causalarena.eval.runner.run_methods`).
    pretraining_disclosure : str, optional
        ``"none"``, ``"declared prior"`` or ``"corpus overlap report"`` (optionally followed by
        ``": <document>"``), written into every row of the predictions file.
    quiet : bool, default True
        No progress bar on stderr.

    Returns
    -------
    Leaderboard

    Raises
    ------
    ValueError
        Unknown ``isolation`` or non-positive ``timeout``.
    MainGuardError
        ``isolation="process"`` and the call sits at the top level of a script outside an
        ``if __name__ == "__main__":`` block (:func:`unguarded_main_call`); nothing runs.
    KeyError
        ``method`` is a string that names no registered method.
    TypeError
        ``method`` is neither a name, a callable nor an object with ``fit``.
    causalarena.errors.ReleaseError
        Missing release, manifest or config.
    """
    from causalarena.eval.runner import provenance, run_methods
    from causalarena.eval.score import score_predictions

    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}, got {isolation!r}")
    if not timeout > 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
    if isolation == "process":
        _check_main_guard()
    release = Path(release)
    prov = provenance(release)  # raises on a missing release/manifest
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="causalarena-eval-"))
    m = method if isinstance(method, str) else _as_method(method, name)
    label = m if isinstance(m, str) else m.info.name
    res = run_methods(
        release,
        config,
        [m],
        folder,
        timeout=timeout,
        memory_limit=memory_limit,
        seed=seed,
        max_d=max_d,
        replicates=None if replicates is None else list(replicates),
        isolation=isolation,
        quiet=quiet,
    )
    if label in res["missing"]:
        raise ImportError(f"method {label!r} cannot run here: {res['missing'][label]}")
    if pretraining_disclosure is not None:
        _set_disclosure(folder / config / f"{label}.parquet", pretraining_disclosure)
    # the evaluated set is the selection run (max_d, replicates): coverage is over it
    scores = score_predictions(
        release,
        folder,
        max_d=max_d,
        replicates=None if replicates is None else list(replicates),
        configs=[config],
    ).reset_index(drop=True)
    mine = scores[scores["method"] == label] if "method" in scores else scores
    if len(mine) and "status" in mine and not (mine["status"] == "ok").any():
        import warnings

        errs = mine["error"].dropna().astype(str) if "error" in mine else []
        first = next((e for e in errs if e), "no error recorded")
        first = (
            first.strip().splitlines()[-1] if first.strip() else first
        )  # a traceback's last line
        hint = (
            ' (in a script, call evaluate() under `if __name__ == "__main__":` -- isolated '
            "workers are spawned processes that re-import the script)"
            if "bootstrapping" in first or "freeze_support" in first or "spawn" in first
            else ""
        )
        warnings.warn(
            f"{label}: every one of its {len(mine)} runs ended "
            f"{'/'.join(sorted(set(mine['status'])))}; "
            f"the board scores them with the empty-graph fallback. First error: {first[:300]}"
            + hint,
            RuntimeWarning,
            stacklevel=2,
        )
    return Leaderboard(
        scores, {**prov, "release": str(release), "config": config}, predictions=folder
    )
