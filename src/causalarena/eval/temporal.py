"""Evaluation harness of the temporal suites: what a model sees, and how it is scored.

What a model receives
---------------------
A :class:`ModelInput` per episode: the *factual trajectory before onset* (rows ``< onset`` of
``x_obs``, NaN where missing, with its ``mask``), the observation ``times`` of every row up to
the last query row (continuous suites; the schedule is part of the design, not an outcome),
the variable names, the resolved intervention spec (target, type, value, window, profile), the
query (variable, column, offsets, row indices), the graph induced on the released variables
(``adjacency_inst``, ``adjacency_lag``; the known-graph setting, used by the adjustment and IV
baselines) and ``max_lag``.  It never receives the intervened arm, the factual arm after
onset (with shared noise it would reveal the noise of the counterfactual), ``y_true``,
``y_factual``, the SCM, the structure label or any diagnostics.

:class:`ModelInput` is built from *copies* of those fields only (read-only numpy arrays and a
read-only mapping), has ``__slots__`` and refuses attribute assignment, so nothing reachable
from it refers to the stored row.

Isolation and its threat model
------------------------------
The threat: a submitted model that tries to reach the held-out answers (``y_true``, the
intervened arm) instead of predicting them.  With ``isolation="process"`` (the default of
:func:`evaluate`) the views are built *before* the model's process starts; the process is
spawned fresh (no inherited memory), receives only the views, and confines itself with
:func:`causalarena.sandbox.restrict` before it loads the model: on Linux with Landlock it can
read only the Python runtime, the packages, the model's own module directory, its own
``/proc/<pid>/maps`` and ``/proc/cpuinfo``, write only a scratch directory, open no TCP
connection and not ``ptrace`` or read ``/proc`` of the parent.
The release path is never passed (and :func:`run_model` refuses a ``release`` inside a path
the model may read).  Answers come back as one ``.npz`` of float64 arrays read with
``allow_pickle=False``: the parent never unpickles anything the model produced, so no code
the model sends back runs in the parent.  A model *object* is different: the caller built it
in this process and :func:`run_model` pickles it here, so its own code (constructor,
``__reduce__``) has already run beside the rows -- an object is trusted code.  Untrusted models
must be given as an import spec (``"module:attr"``, ``"model.py:attr"``): only the sandbox
imports it, and only then does the result say ``isolation["sealed"] = True``.  No attribute a model sets grants
it more (there is no privileged path).  Without Landlock (other kernels and platforms) only
process separation and the plain-array exchange hold; the child can then read any file the
user can -- :func:`causalarena.sandbox.guarantees` says which case applies and every result
records it.  Not prevented anywhere: regenerating a *public* episode from its id with the
package (public suites are reproducible by design; the reserved half is the answer).
``isolation="none"`` runs in-process (trusted baselines, faster).

Predictions
-----------
``model.predict(view)`` returns an array of ``len(view.query_times)`` values or a dict with
``"mean"`` and optionally ``"lower"``/``"upper"`` (a central interval, nominal level
``"level"``, default 0.9) and ``"effect"`` (the predicted effect relative to the factual
arm; default ``mean - y_factual``, computed by the harness).

Metrics (:func:`score`)
-----------------------
Per base offset (steps after ``onset + min_lag``) and pooled, with DoTime's definitions
(``dotime.evaluation``): RMSE, MAE, NMSE (``MSE / var(y_true)`` over the group, None below two
queries or variance 1e-8; ``nmse_context`` divides each squared error by the context variance
of the query variable instead), R² (``1 - SSE/SST``, None for ``SST < 1e-12``); direction accuracy of the *level* (``sign(pred) ==
sign(y_true)``) and of the *effect* (``sign(pred_effect) == sign(y_true - y_factual)``, exact
with counterfactual pairs), each with the near-zero rule: targets with ``|target| < 0.1``
(:data:`NEAR_ZERO`) are excluded and counted (``n_near_zero``), and a binomial standard error
``sqrt(p (1 - p) / n)``; interval coverage and mean width when intervals are given.  Also:
95% percentile-bootstrap CIs (``ci``; DoTime's ``bootstrap_ci`` resampling, 1000 draws, seed 0)
of RMSE (from the squared errors), MAE and both direction accuracies; ``rmse_naive`` and
``lift_over_naive = 1 - RMSE / RMSE_naive`` against the naive last-value baseline (the last
observed context value of the query variable); ``effect_error_corr``, the Pearson correlation
of ``|y_true - y_factual|`` with ``|pred - y_true|``.  :func:`evaluate` adds ``dotime``, the
same run as a ``ctp-submission/1`` document
(:mod:`causalarena.eval.temporal_submission`).  Slices:
suite, structure, identifiable, ``T``, intervention type.  Null-effect structures (no
directed path from the treatment to the outcome; true effect exactly 0) are scored for
spurious effects: mean ``|pred_effect|`` and the fraction with ``|pred_effect| >= 0.1``.
"""

from __future__ import annotations

import json
import os
import types
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

NEAR_ZERO = 0.1
CONTINUOUS_GAP = 0.1
#: Bootstrap resamples and ``alpha`` of the CIs (DoTime's ``bootstrap_ci`` defaults).
BOOTSTRAP_N = 1000
BOOTSTRAP_ALPHA = 0.05

_PUBLIC = (
    "episode_id",
    "suite",
    "variables",
    "x_context",
    "mask_context",
    "times",
    "onset",
    "window_end",
    "intervention",
    "query_var",
    "query_column",
    "query_offsets",
    "query_times",
    "adjacency_inst",
    "adjacency_lag",
    "max_lag",
    "T",
    "horizon",
)


def _ro(a: Any, dtype=None) -> Any:
    if a is None:
        return None
    arr = np.array(a, dtype=dtype, copy=True)
    arr.flags.writeable = False
    return arr


class ModelInput:
    """Read-only view of one episode for a model (see module docstring for the fields)."""

    __slots__ = _PUBLIC

    def __init__(self, **kw: Any):
        for k in _PUBLIC:
            object.__setattr__(self, k, kw[k])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ModelInput is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("ModelInput is read-only")

    def __reduce__(self):
        d = {k: getattr(self, k) for k in _PUBLIC}
        d["intervention"] = dict(d["intervention"])
        return (_rebuild, (d,))

    def __repr__(self) -> str:
        return f"ModelInput({self.episode_id}, context={self.x_context.shape})"

    # -------------------------------------------------------------- helpers for models
    def intervention_path(self, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Imposed target values at ``rows`` and whether the intervention is active there.

        Hard and time-varying: the clamped value ``v(t)``; soft: the additive shift ``delta``.
        """
        from causalarena.generator.temporal.simulate import intervention_path

        return intervention_path(
            self.intervention, rows, self.onset, self.window_end, self.times, self.horizon
        )


def _rebuild(d: dict[str, Any]) -> ModelInput:
    d = dict(d)
    d["intervention"] = types.MappingProxyType(dict(d["intervention"]))
    for k in (
        "x_context",
        "mask_context",
        "times",
        "query_offsets",
        "query_times",
        "adjacency_inst",
        "adjacency_lag",
    ):
        if d[k] is not None:
            d[k] = _ro(d[k])
    return ModelInput(**d)


def make_input(row: dict[str, Any]) -> ModelInput:
    """The model's view of a decoded row (copies of the public fields only)."""
    from causalarena.generator.temporal.suites import get_temporal_suite

    t0 = int(row["onset"])
    qt = np.asarray(row["query_times"], dtype=np.intp)
    times = None
    horizon = None
    if row["times"] is not None:
        times = _ro(np.asarray(row["times"])[: int(qt.max()) + 1], np.float64)
        horizon = float(get_temporal_suite(row["suite"]).T * CONTINUOUS_GAP)
    mask = row["mask"]
    spec = row["intervention"]
    if isinstance(spec, str):
        spec = json.loads(spec)
    return ModelInput(
        episode_id=str(row["episode_id"]),
        suite=str(row["suite"]),
        variables=tuple(row["variables"]),
        x_context=_ro(np.asarray(row["x_obs"], dtype=np.float64)[:t0]),
        mask_context=None if mask is None else _ro(np.asarray(mask, dtype=bool)[:t0]),
        times=times,
        onset=t0,
        window_end=int(row["window_end"]),
        intervention=types.MappingProxyType(dict(spec)),
        query_var=str(row["query_var"]),
        query_column=int(row["query_column"]),
        query_offsets=_ro(row["query_offsets"], np.intp),
        query_times=_ro(qt),
        adjacency_inst=_ro(row["adjacency_inst"], np.int8),
        adjacency_lag=_ro(row["adjacency_lag"], np.int8),
        max_lag=int(row["max_lag"]),
        T=int(row["T"]),
        horizon=horizon,
    )


# ---------------------------------------------------------------------------------- running
def _normalise(pred: Any, n: int) -> dict[str, np.ndarray | float]:
    if not isinstance(pred, dict):
        pred = {"mean": pred}
    out: dict[str, Any] = {"mean": np.asarray(pred["mean"], dtype=np.float64).reshape(-1)}
    if out["mean"].shape != (n,):
        raise ValueError(f"prediction has shape {out['mean'].shape}, expected ({n},)")
    if not np.isfinite(out["mean"]).all():
        raise ValueError("prediction has a non-finite value (NaN or inf): invalid, not scored")
    for k in ("lower", "upper", "effect"):
        if k in pred and pred[k] is not None:
            out[k] = np.asarray(pred[k], dtype=np.float64).reshape(n)
    out["level"] = float(pred.get("level", 0.9))
    return out


def _predict_all(model: Any, views: list[ModelInput]) -> list[Any]:
    return [model.predict(v) for v in views]


class HarnessError(RuntimeError):
    """A model failed, timed out or answered in the wrong form inside its sandbox."""


_RESULT_CAP = 1 << 30  # bytes a child may send back

#: Environment variables the sealed model's process starts with (exact names, or prefixes
#: ending in ``_``); every other variable -- tokens, keys, credentials -- stays in the parent.
#: Names containing one of :data:`_ENV_SECRET_WORDS` are dropped even when they match.
_ENV_KEEP = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "LC_",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "VIRTUAL_ENV",
    "OMP_",
    "MKL_",
    "OPENBLAS_",
    "NUMEXPR_",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "XDG_CACHE_HOME",
    "CAUSALARENA_",
)
_ENV_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH")


def sealed_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` a sealed model's process may see (allow-list
    :data:`_ENV_KEEP` minus names with a secret word; ``TORCH_FORCE_*`` overrides such as
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` are never passed)."""
    out = {}
    for k, v in env.items():
        up = k.upper()
        if any(w in up for w in _ENV_SECRET_WORDS):
            continue
        if any(k == n or (n.endswith("_") and k.startswith(n)) for n in _ENV_KEEP):
            out[k] = v
    return out


def _load_model(spec: Any) -> Any:
    """The model inside the child: parent-pickled bytes, or ``"module:attr"`` /
    ``"path/to/file.py:attr"`` imported only here (``attr`` is called when it is a class)."""
    import importlib
    import importlib.util
    import pickle

    if isinstance(spec, bytes):
        return pickle.loads(spec)
    mod_name, _, attr = str(spec).rpartition(":")
    if not mod_name or not attr:
        raise ValueError(f"model spec {spec!r} must be 'module:attr' or 'file.py:attr'")
    if mod_name.endswith(".py"):
        u = importlib.util.spec_from_file_location("_causalarena_model", mod_name)
        if u is None or u.loader is None:
            raise ValueError(f"cannot import model file {mod_name}")
        mod = importlib.util.module_from_spec(u)
        u.loader.exec_module(mod)
    else:
        mod = importlib.import_module(mod_name)
    obj = getattr(mod, attr)
    return obj() if isinstance(obj, type) else obj


def _pack(preds: list[dict[str, Any]]) -> bytes:
    """Predictions as one ``.npz`` of plain float64 arrays (no pickled objects)."""
    import io

    arrays: dict[str, np.ndarray] = {"level": np.array([p["level"] for p in preds], np.float64)}
    for k in ("mean", "lower", "upper", "effect"):
        have = np.array([k in p for p in preds], dtype=bool)
        arrays[f"has_{k}"] = have
        vals = [p[k] for p in preds if k in p]
        arrays[k] = np.concatenate(vals) if vals else np.zeros(0)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _unpack(data: bytes, sizes: list[int]) -> list[dict[str, Any]]:
    """Inverse of :func:`_pack`, refusing object arrays and wrong sizes."""
    import io

    try:
        z = np.load(io.BytesIO(data), allow_pickle=False)
        arrays = {k: z[k] for k in z.files}
    except Exception as exc:  # malformed archive from the child
        raise HarnessError(
            f"the model's answer is not a valid prediction archive ({exc})"
        ) from None
    n = len(sizes)
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    try:
        level = np.asarray(arrays["level"], dtype=np.float64)
        if level.shape != (n,):
            raise ValueError("level")
        for i in range(n):
            out[i]["level"] = float(level[i])
        for k in ("mean", "lower", "upper", "effect"):
            have = np.asarray(arrays[f"has_{k}"], dtype=bool)
            flat = np.asarray(arrays[k], dtype=np.float64)
            if have.shape != (n,) or (k == "mean" and not have.all()):
                raise ValueError(k)
            want = int(sum(sz for sz, h in zip(sizes, have, strict=True) if h))
            if flat.shape != (want,):
                raise ValueError(k)
            pos = 0
            for i, (sz, h) in enumerate(zip(sizes, have, strict=True)):
                if h:
                    out[i][k] = flat[pos : pos + sz].copy()
                    pos += sz
    except (KeyError, ValueError, TypeError) as exc:
        raise HarnessError(f"the model's answer has a wrong or missing field ({exc})") from None
    return out


def _sandbox_child(conn: Any, read: list[str], sandbox: bool) -> None:
    """Body of the model's process: confine itself, then load the model and answer."""
    import tempfile

    from causalarena.sandbox import no_core_dumps, restrict

    scratch = tempfile.mkdtemp(prefix="causalarena-model-")
    os.chdir(scratch)
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    no_core_dumps()
    try:
        if sandbox:
            # its own memory map (threadpoolctl, imported by scikit-learn, lists the loaded
            # libraries from /proc/self/maps) and the CPU description (torch picks its kernels
            # from /proc/cpuinfo, so sealed answers match in-process ones); the parent's /proc
            # stays unreadable
            own = [f"/proc/{os.getpid()}/maps", "/proc/cpuinfo"]
            restrict(read + own, [scratch, "/dev/null"])
        payload = conn.recv()  # pickled by the parent (trusted direction)
        if payload.get("path"):
            import sys

            sys.path.insert(0, payload["path"])
        model = _load_model(payload["model"])
        views = payload["views"]
        preds = [_normalise(model.predict(v), len(v.query_times)) for v in views]
        conn.send_bytes(b"OK" + _pack(preds))
    except BaseException as exc:  # reported as text; the parent never unpickles from here
        msg = f"{type(exc).__name__}: {exc}"[:2000]
        try:
            conn.send_bytes(b"ER" + msg.encode("utf-8", "replace"))
        except OSError:
            pass


def _resolve_spec(model: Any) -> tuple[Any, str | None]:
    """An import spec the sandboxed child can import from its scratch folder, and the folder
    to put on its ``sys.path`` (or None).

    ``"rel/model.py:attr"`` becomes an absolute file spec; ``"module:attr"`` is looked up on
    this process's path and the current directory: a single-file module becomes a file spec,
    a package keeps its name and its parent folder goes on the child's path.  Anything else
    is returned unchanged (the child reports what it cannot import).
    """
    if not isinstance(model, str):
        return model, None
    mod, _, attr = model.rpartition(":")
    if not mod or not attr:
        return model, None
    if mod.endswith(".py"):
        return f"{Path(mod).resolve()}:{attr}", None
    import importlib.util
    import sys

    added = os.getcwd() not in sys.path
    if added:
        sys.path.append(os.getcwd())
    try:
        u = importlib.util.find_spec(mod.split(".")[0])
    except (ImportError, ValueError):
        u = None
    finally:
        if added:
            sys.path.remove(os.getcwd())
    if u is None or not u.origin or not u.origin.endswith(".py"):
        return model, None
    origin = Path(u.origin).resolve()
    if origin.name != "__init__.py" and "." not in mod:
        return f"{origin}:{attr}", None
    root = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    return model, str(root)


def _model_read_paths(model: Any) -> list[str]:
    """Directories the child must read to import the model (its module's directory)."""
    if isinstance(model, str):
        mod, _, _ = model.rpartition(":")
        if mod.endswith(".py"):
            return [str(Path(mod).resolve().parent)]
        import importlib.util

        try:
            u = importlib.util.find_spec(mod)
        except (ImportError, ValueError):
            u = None
        return [str(Path(u.origin).resolve().parent)] if u is not None and u.origin else []
    import sys

    m = sys.modules.get(type(model).__module__)
    f = getattr(m, "__file__", None)
    return [str(Path(f).resolve().parent)] if f else []


def run_model(
    model: Any,
    views: list[ModelInput],
    isolation: str = "process",
    *,
    timeout: float | None = None,
    release: str | Path | None = None,
    _sandbox: bool = True,
) -> list[dict[str, Any]]:
    """Normalised predictions of ``model`` on ``views`` (see the module docstring).

    Parameters
    ----------
    model : object with ``predict(view)``, or str
        An object (pickled here, unpickled only in the model's process), or an import spec
        ``"module:attr"`` / ``"path/to/model.py:attr"`` that only the model's process imports
        (``attr`` is instantiated when it is a class) -- use a spec for untrusted code.
    isolation : {"process", "none"}
        ``"process"``: a spawned process that receives only the views, confines itself with
        :func:`causalarena.sandbox.restrict` (Landlock, where the kernel has it) before it loads
        the model, and sends back plain float64 arrays; the parent is non-dumpable meanwhile.
        ``"none"``: in this process (trusted baselines).
    timeout : float, optional
        Seconds for the whole batch; the process is killed when it passes.
    release : path, optional
        The release folder the rows came from; refused when the sandbox could read it.

    Raises
    ------
    HarnessError
        The model raised, died, timed out, or answered in the wrong form (the message says which).
    ValueError
        Unknown ``isolation``, or ``release`` inside a path the model may read.
    """
    sizes = [len(v.query_times) for v in views]
    if isolation == "none":
        if isinstance(model, str):
            model = _load_model(model)
        return [_normalise(p, n) for p, n in zip(_predict_all(model, views), sizes, strict=True)]
    if isolation != "process":
        raise ValueError(f"isolation must be 'process' or 'none', got {isolation!r}")
    import multiprocessing as mp
    import pickle
    from multiprocessing.connection import wait

    from causalarena.sandbox import runtime_paths, set_dumpable

    model, root = _resolve_spec(model)
    read = runtime_paths() + (_model_read_paths(model) if root is None else [root])
    if release is not None:
        rel = Path(release).resolve()
        for p in read:
            if rel == Path(p) or Path(p) in rel.parents:
                raise ValueError(
                    f"release folder {rel} is inside {p}, which the model's process may read; "
                    "move the release or the model"
                )
    spec = model if isinstance(model, str) else pickle.dumps(model)
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    proc = ctx.Process(target=_sandbox_child, args=(there, read, _sandbox), daemon=True)
    prev = set_dumpable(False)
    try:
        saved = dict(os.environ)  # the child is spawned with the sealed environment only
        os.environ.clear()
        os.environ.update(sealed_environment(saved))
        try:
            proc.start()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        there.close()
        here.send({"model": spec, "views": views, "path": root})
        ready = wait([here, proc.sentinel], timeout)
        if here not in ready:
            if not ready:
                raise HarnessError(f"the model did not answer within {timeout:g} s (killed)")
            raise HarnessError(f"the model's process died (exit code {proc.exitcode})")
        try:
            msg = here.recv_bytes(_RESULT_CAP)
        except (EOFError, OSError) as exc:
            raise HarnessError(f"the model's process died before answering ({exc})") from None
    finally:
        if prev is not None:
            set_dumpable(prev)
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        here.close()
    if msg[:2] == b"ER":
        raise HarnessError(f"the model failed: {msg[2:].decode('utf-8', 'replace')}")
    if msg[:2] != b"OK":
        raise HarnessError("the model's process sent an unreadable answer")
    return _unpack(msg[2:], sizes)


def load_rows(
    folder: str | Path, config: str, limit: int | None = None, *, verify: bool = True
) -> list[dict[str, Any]]:
    """Decoded rows of a config of a release folder (Parquet streaming path).

    ``verify`` (default): the config's shards are checked against ``manifest.json`` first
    (:func:`causalarena.loaders.load.check_folder`), so a missing, extra or altered shard is
    refused (ReleaseError naming the files) instead of scored.
    """
    from causalarena.generator.temporal.storage import config_shards, read_rows

    if verify:
        from causalarena.loaders.load import check_folder

        shards = check_folder(Path(folder), config)
    else:
        shards = config_shards(folder, config)
    rows = []
    for r in read_rows(shards):
        rows.append(r)
        if limit is not None and len(rows) >= limit:
            break
    return rows


def evaluate(
    model: Any,
    rows: Iterable[dict[str, Any]],
    *,
    isolation: str = "process",
    timeout: float | None = None,
    release: str | Path | None = None,
    name: str | None = None,
    dir_target: str = "auto",
) -> dict[str, Any]:
    """Run a model on decoded rows and score it (see :func:`score` and :func:`run_model`).

    ``result["dotime"]`` is the run as a ``ctp-submission/1`` document
    (:func:`causalarena.eval.temporal_submission.submission`) named ``name`` (default: the
    model's ``name`` attribute, class name or import spec), its ``dir_acc`` scoring
    ``dir_target`` (``"auto"``: the effect for counterfactual pairs, else the level).

    No attribute of the model grants it more than its views (there is no privileged path):
    the :class:`~causalarena.baselines.temporal.Oracle` control reaches the answers the way any
    model could, by regenerating a *public* episode from its id with the package's generator.
    The result records the isolation that was enforced (``result["isolation"]``).
    """
    from causalarena.sandbox import guarantees

    rows = list(rows)
    views = [make_input(r) for r in rows]
    preds = run_model(model, views, isolation, timeout=timeout, release=release)
    recs = [{**p, "row": r} for p, r in zip(preds, rows, strict=True)]
    out = score(recs)
    if recs:  # the same results in DoTime's ctp-submission/1 form (write_submission)
        from causalarena.eval.temporal_submission import submission

        if name is None:
            name = model if isinstance(model, str) else getattr(model, "name", type(model).__name__)
        out["dotime"] = submission(recs, model=str(name), dir_target=dir_target)
    iso: dict[str, Any] = {"mode": isolation}
    if isolation == "process":
        iso.update(guarantees())
        # an object was built by the caller and is pickled here, so its code (constructor,
        # __reduce__) already ran in this process, beside the rows: only a model given as an
        # import spec is loaded in the sandbox alone (module docstring)
        iso["model_loaded_in"] = "sandbox" if isinstance(model, str) else "parent and sandbox"
        iso["sealed"] = isinstance(model, str) and bool(iso["filesystem"])
    out["isolation"] = iso
    info = None if isinstance(model, str) else getattr(model, "info", None)
    if info:
        out["model_info"] = dict(info)
    return out


# ---------------------------------------------------------------------------------- metrics
def _dir(pred: np.ndarray, true: np.ndarray) -> dict[str, Any]:
    keep = np.abs(true) >= NEAR_ZERO
    n = int(keep.sum())
    if n == 0:
        return {"acc": None, "se": None, "n": 0, "n_near_zero": int((~keep).sum())}
    p = float(np.mean(np.sign(pred[keep]) == np.sign(true[keep])))
    return {
        "acc": p,
        "se": float(np.sqrt(p * (1 - p) / n)),
        "n": n,
        "n_near_zero": int((~keep).sum()),
    }


def nmse(pred: np.ndarray, true: np.ndarray) -> float | None:
    """DoTime's normalised MSE ``mean((pred - true)^2) / var(true)`` (population variance;
    ``dotime.evaluation.compute_nmse``): 1 for predicting the mean; None for fewer than two
    targets or ``var(true) < 1e-8``."""
    if true.size < 2:
        return None
    v = float(np.var(true))
    return float(np.mean((pred - true) ** 2) / v) if v >= 1e-8 else None


def r2(pred: np.ndarray, true: np.ndarray) -> float | None:
    """``1 - SS_res / SS_tot`` (``dotime.evaluation.compute_r2``); None when
    ``SS_tot < 1e-12``."""
    sst = float(np.sum((true - true.mean()) ** 2)) if true.size else 0.0
    if sst < 1e-12:
        return None
    return 1.0 - float(np.sum((true - pred) ** 2)) / sst


def bootstrap_ci(
    values: np.ndarray, n: int = BOOTSTRAP_N, alpha: float = 0.05, seed: int = 0
) -> tuple[float, float, float, float]:
    """``(mean, std, low, high)``: percentile bootstrap of the mean at level ``1 - alpha``,
    the same resampling as ``dotime.evaluation.bootstrap_ci`` (``default_rng(seed)``, an
    ``(n, m)`` index draw), so equal inputs give equal numbers.  NaN for no values, ``(v, 0,
    v, v)`` for one."""
    arr = np.asarray(values, dtype=np.float64)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        return (float("nan"),) * 4
    if arr.size == 1:
        v = float(arr[0])
        return v, 0.0, v, v
    idx = np.random.default_rng(seed).integers(0, arr.size, size=(n, arr.size))
    means = arr[idx].mean(axis=1)
    return (
        float(arr.mean()),
        float(arr.std()),
        float(np.quantile(means, alpha / 2)),
        float(np.quantile(means, 1 - alpha / 2)),
    )


def _ci(values: np.ndarray, transform=None) -> list[float] | None:
    _, _, lo, hi = bootstrap_ci(values)
    if lo != lo:
        return None
    return [transform(lo), transform(hi)] if transform else [lo, hi]


def _corr(a: np.ndarray, b: np.ndarray) -> float | None:
    if a.size < 3 or np.std(a) == 0 or np.std(b) == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def _group(q: dict[str, np.ndarray]) -> dict[str, Any]:
    y, p, yf, pe = q["y"], q["p"], q["yf"], q["pe"]
    n = int(y.size)
    if n == 0:
        return {"n": 0}
    err = p - y
    naive = q["naive"]
    rmse_naive = float(np.sqrt(np.mean((naive - y) ** 2)))
    rmse = float(np.sqrt(np.mean(err**2)))
    out: dict[str, Any] = {
        "n": n,
        "rmse": rmse,
        "mae": float(np.mean(np.abs(err))),
        "nmse": nmse(p, y),
        "nmse_context": float(np.mean(err**2 / q["var"])),
        "r2": r2(p, y),
        "direction_level": _dir(p, y),
        "direction_effect": _dir(pe, y - yf),
        "rmse_naive": rmse_naive,
        "lift_over_naive": (1.0 - rmse / rmse_naive) if rmse_naive > 0 else None,
        "effect_error_corr": _corr(np.abs(y - yf), np.abs(err)),
    }
    lev_ok = np.abs(y) >= NEAR_ZERO
    eff_ok = np.abs(y - yf) >= NEAR_ZERO
    out["ci"] = {
        "rmse": _ci(err**2, np.sqrt),
        "mae": _ci(np.abs(err)),
        "direction_level": _ci((np.sign(p) == np.sign(y))[lev_ok].astype(float)),
        "direction_effect": _ci((np.sign(pe) == np.sign(y - yf))[eff_ok].astype(float)),
        "level": 1.0 - BOOTSTRAP_ALPHA,
    }
    lo, hi = q.get("lo"), q.get("hi")
    if lo is not None and np.isfinite(lo).any():
        ok = np.isfinite(lo) & np.isfinite(hi)
        out["coverage"] = float(np.mean((lo[ok] <= y[ok]) & (y[ok] <= hi[ok])))
        out["interval_width"] = float(np.mean(hi[ok] - lo[ok]))
        out["nominal"] = float(np.median(q["lev"][ok]))
    return out


def _flatten(recs: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    cols: dict[str, list] = {
        k: []
        for k in (
            "y",
            "p",
            "yf",
            "pe",
            "var",
            "lo",
            "hi",
            "lev",
            "base",
            "suite",
            "structure",
            "identifiable",
            "T",
            "itype",
            "null",
            "naive",
            "pairs",
        )
    }
    for r in recs:
        row = r["row"]
        y, yf = np.asarray(row["y_true"]), np.asarray(row["y_factual"])
        m = len(y)
        x = np.asarray(row["x_obs"], dtype=np.float64)[: int(row["onset"])]
        ctx = x[:, int(row["query_column"])] if x.size else np.array([np.nan])
        v = float(np.nanvar(ctx)) if np.isfinite(ctx).sum() > 1 else 1.0
        seen = ctx[np.isfinite(ctx)]
        cols["naive"].append(np.full(m, float(seen[-1]) if seen.size else 0.0))
        off = np.asarray(row["query_offsets"])
        cols["y"].append(y)
        cols["p"].append(r["mean"])
        cols["yf"].append(yf)
        cols["pe"].append(r.get("effect", r["mean"] - yf))
        cols["var"].append(np.full(m, max(v, 1e-8)))
        cols["lo"].append(r.get("lower", np.full(m, np.nan)))
        cols["hi"].append(r.get("upper", np.full(m, np.nan)))
        cols["lev"].append(np.full(m, r["level"]))
        cols["base"].append(off - off[0])
        for k, val in (
            ("suite", row["suite"]),
            ("structure", row["structure"]),
            ("identifiable", str(row["identifiable"])),
            ("T", int(row["T"])),
            ("itype", row["intervention_type"]),
            ("null", bool(row["null_effect"])),
            ("pairs", str(row.get("pair_mode", ""))),
        ):
            cols[k].append(np.full(m, val, dtype=object))
    return {k: np.concatenate(v) if v else np.array([]) for k, v in cols.items()}


def _sub(f: dict[str, np.ndarray], sel: np.ndarray) -> dict[str, np.ndarray]:
    return {k: v[sel] for k, v in f.items()}


def score(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled, per-offset, per-slice and null-effect metrics of normalised predictions."""
    f = _flatten(recs)
    out: dict[str, Any] = {"episodes": len(recs), "pooled": _group(f), "per_offset": {}}
    for b in sorted(set(f["base"].tolist())):
        out["per_offset"][int(b)] = _group(_sub(f, f["base"] == b))
    slices: dict[str, dict[str, Any]] = {}
    for name, key in (
        ("suite", "suite"),
        ("structure", "structure"),
        ("identifiable", "identifiable"),
        ("T", "T"),
        ("intervention_type", "itype"),
    ):
        vals = sorted({str(v) for v in f[key].tolist()})
        slices[name] = {v: _group(_sub(f, f[key].astype(str) == v)) for v in vals}
    out["slices"] = slices
    null = f["null"].astype(bool)
    if null.any():
        pe = f["pe"][null].astype(float)
        te = (f["y"] - f["yf"])[null].astype(float)
        out["null_effect"] = {
            "n": int(null.sum()),
            "true_effect_max_abs": float(np.max(np.abs(te))),
            "mean_abs_pred_effect": float(np.mean(np.abs(pe))),
            "spurious_rate": float(np.mean(np.abs(pe) >= NEAR_ZERO)),
        }
    return out


# ------------------------------------------------------------------ baselines and graph track
def run_baselines(rows: list[dict[str, Any]], names: list[str] | None = None) -> dict[str, Any]:
    """Score every baseline (in-process: they are trusted) on decoded rows."""
    from causalarena.baselines.temporal import EFFECT_BASELINES

    out = {}
    for name in names or list(EFFECT_BASELINES):
        out[name] = evaluate(EFFECT_BASELINES[name](), rows, isolation="none")
    return out


def _lag_scores(true: np.ndarray, pred: np.ndarray) -> dict[str, Any]:
    """Directed lagged-edge P/R/F1/SHD of ``pred`` (K_p, N, N) against ``true`` (K, N, N).

    Both stacks are zero-padded to ``max(K, K_p)`` lags, so a predicted edge at a lag beyond the
    true maximum lag is a false positive (and a true edge beyond the predicted ``tau_max`` a
    false negative).
    """
    true = np.asarray(true)
    pred = np.asarray(pred)
    K = max(true.shape[0], pred.shape[0])
    T = np.zeros((K, *true.shape[1:]), dtype=np.int8)
    T[: true.shape[0]] = true != 0
    P = np.zeros_like(T)
    P[: pred.shape[0]] = pred != 0
    true = T
    tp = int(np.sum((true == 1) & (P == 1)))
    fp = int(np.sum((true == 0) & (P == 1)))
    fn = int(np.sum((true == 1) & (P == 0)))
    prec = tp / (tp + fp) if tp + fp else None
    rec = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else None
    return {"precision": prec, "recall": rec, "f1": f1, "shd": fp + fn}


def graph_track(rows: list[dict[str, Any]], method: str = "var_ttest", tau_max: int = 3) -> dict:
    """Score graph recovery from the factual arm of each row (mean over episodes)."""
    from causalarena.baselines.temporal import _pcmciplus, _var_ttest
    from causalarena.eval.metrics import score_graph

    fn = {"var_ttest": _var_ttest, "pcmciplus": _pcmciplus}[method]
    inst, lag = [], []
    for r in rows:
        A0p, ALp = fn(np.asarray(r["x_obs"], dtype=np.float64), tau_max)
        A0 = np.asarray(r["adjacency_inst"], dtype=np.int8)
        s = score_graph(A0, A0p)
        inst.append(s)
        lag.append(_lag_scores(np.asarray(r["adjacency_lag"], dtype=np.int8), ALp))

    def mean(xs, k):
        v = [x[k] for x in xs if x.get(k) is not None]
        return float(np.mean(v)) if v else None

    return {
        "method": method,
        "episodes": len(rows),
        "instantaneous": {k: mean(inst, k) for k in ("precision", "recall", "f1", "shd", "nshd")},
        "lagged": {k: mean(lag, k) for k in ("precision", "recall", "f1", "shd")},
    }
