"""TabPFN adapter for the temporal effect track: a tabular regression on the episode's prefix.

TabPFN (Hollmann et al., 2025, Nature 637; package ``tabpfn``) is a pretrained in-context
regressor.  DoTime lists it among the baselines (Thumm et al., 2026, section 6; issue 14
section 5); here it answers each query of one episode from a table built from that episode's
own observed prefix (rows ``< onset``), fitted in context, nothing else.

The table (one per episode)
---------------------------
Channels: the treatment ``A`` (intervention target), the query variable ``Y``, then the other
released variables in release order, the first :data:`CHANNELS` in all.  Missing cells are
forward-filled (leading gaps back-filled, an empty column is 0).  A sample is an *origin* row
``s`` and a horizon ``h >= 1``:

* features: the channels' values at rows ``s, s - 1, .., s - LAGS + 1`` (``LAGS`` =
  :data:`LAGS`), ``h``, the treatment at row ``s + h`` and its mean over rows ``s + 1 .. s + h``;
* target: ``Y`` at row ``s + h``.

Training samples are every prefix window with ``s + h < onset`` for the horizons the queries
need (at most :data:`MAX_TRAIN` of them, a subsample drawn with a generator seeded from
``(seed, episode_id)``).  A query at row ``r`` is the sample with origin ``onset - 1`` and
``h = r - onset + 1`` whose treatment features are the *imposed* path: hard and time-varying
interventions use the clamped values ``v(t)`` while active, soft ones the treatment's context
mean plus the shift; rows where the intervention is inactive use the context mean.  So the
answer is a plug-in regression adjustment (the past as adjustment set, the treatment path set
to its ``do()`` values); it is biased wherever the treatment's future path is confounded with
``Y`` given the lags (latent or instantaneous confounding), and it extrapolates when the imposed
value lies outside the prefix's range.  When the query variable is the target itself the
answer is the imposed value (hard) or the context mean plus the shift (soft) where active.
Irregular schedules are treated as if rows were equally spaced.

Answers: ``{"mean", "lower", "upper", "level"}``, TabPFN's predictive mean and its
``(1 - level) / 2``, ``(1 + level) / 2`` quantiles.

Weights (never downloaded)
--------------------------
``model_path`` is a TabPFN regressor checkpoint file (``.ckpt``) on disk, default
``$CAUSALARENA_TABPFN_MODEL``.  A missing file raises :class:`FileNotFoundError` before TabPFN
is asked (which would otherwise try to download it).  A :class:`TabPFNForecaster` *object* is
trusted code (not sealed); :func:`write_sealed` copies the checkpoint next to a ``model.py`` and
returns the import spec ``"<folder>/model.py:Model"`` for a sealed run.

Extra: ``pip install 'causalarena[tabpfn]'`` (``tabpfn``, ``torch==2.13.0``).
"""

from __future__ import annotations

import os
import shutil
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from causalarena._extras import require

__all__ = [
    "CHANNELS",
    "LAGS",
    "MAX_TRAIN",
    "MODEL_ENV",
    "TabPFNForecaster",
    "features",
    "write_sealed",
]

MODEL_ENV = "CAUSALARENA_TABPFN_MODEL"
CHANNELS = 6
LAGS = 3
MAX_TRAIN = 1000
MODEL_PY = "model.py"
_FEATURE = "the TabPFN baseline"

_WRAPPER = '''"""Harness wrapper of this TabPFN checkpoint (written by causalarena.baselines.tabpfn).

Evaluate it sealed with the import spec "<this folder>/model.py:Model".
"""

from pathlib import Path

from causalarena.baselines.tabpfn import TabPFNForecaster


class Model(TabPFNForecaster):
    def __init__(self):
        super().__init__(Path(__file__).resolve().parent / {name!r})
'''


def _fill(x: np.ndarray) -> np.ndarray:
    from causalarena.baselines.temporal import _ffill

    return _ffill(x)


def _channels(v: Any) -> tuple[list[int], int]:
    """Column indices (treatment, query, others..) and the treatment column (-1 if absent)."""
    tgt = v.intervention["target"]
    a = v.variables.index(tgt) if tgt in v.variables else -1
    q = int(v.query_column)
    rest = [j for j in range(len(v.variables)) if j not in (a, q)]
    cols = ([a] if a >= 0 else []) + [q] + rest
    return cols[:CHANNELS], a


def _imposed(v: Any, rows: np.ndarray, a_mean: float) -> np.ndarray:
    """Treatment values under the intervention at ``rows`` (context mean where inactive)."""
    vals, active = v.intervention_path(rows)
    vals = np.asarray(vals, dtype=np.float64)
    if v.intervention["type"] == "soft":
        vals = a_mean + vals
    return np.where(active, vals, a_mean)


def features(v: Any, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The episode's table (see the module docstring).

    Parameters
    ----------
    v : ModelInput
        Reads ``x_context`` (onset, N) float64 with NaN where missing, ``variables``,
        ``intervention``, ``intervention_path``, ``query_column``, ``query_times``, ``onset``
        and ``episode_id``.

    Returns
    -------
    X_train : ndarray, shape (m, LAGS * C + 3), float64
    y_train : ndarray, shape (m,), float64
    X_query : ndarray, shape (len(query_times), LAGS * C + 3), float64
        ``C`` is the number of channels (at most :data:`CHANNELS`).  ``m`` may be 0 when the
        prefix is shorter than ``LAGS + 1`` rows.
    """
    cols, a = _channels(v)
    x = _fill(np.asarray(v.x_context, dtype=np.float64))[:, cols]
    n = x.shape[0]
    yq = cols.index(int(v.query_column))
    ac = 0 if a >= 0 else None
    hs = np.unique(np.asarray(v.query_times, dtype=np.intp) - int(v.onset) + 1)
    a_series = x[:, ac] if ac is not None else np.zeros(n)
    csum = np.concatenate([[0.0], np.cumsum(a_series)])

    def row(s: int, h: int, a_at: float, a_avg: float, src: np.ndarray) -> np.ndarray:
        lags = src[s - np.arange(LAGS)].reshape(-1)
        return np.concatenate([lags, [float(h), a_at, a_avg]])

    pairs = [(s, int(h)) for h in hs for s in range(LAGS - 1, n - int(h))]
    if len(pairs) > MAX_TRAIN:
        rng = np.random.default_rng(
            np.random.SeedSequence([int(seed), zlib.crc32(str(v.episode_id).encode())])
        )
        keep = np.sort(rng.choice(len(pairs), MAX_TRAIN, replace=False))
        pairs = [pairs[i] for i in keep]
    X = [row(s, h, a_series[s + h], (csum[s + h + 1] - csum[s + 1]) / h, x) for s, h in pairs]
    y = [x[s + h, yq] for s, h in pairs]
    a_mean = float(a_series.mean()) if n else 0.0
    qr = np.asarray(v.query_times, dtype=np.intp)
    Q = []
    if n >= LAGS:
        for r in qr:
            h = int(r) - int(v.onset) + 1
            path = _imposed(v, np.arange(int(v.onset), int(r) + 1), a_mean)
            Q.append(row(n - 1, h, float(path[-1]), float(path.mean()), x))
    width = LAGS * len(cols) + 3
    return (
        np.asarray(X, dtype=np.float64).reshape(-1, width),
        np.asarray(y, dtype=np.float64),
        np.asarray(Q, dtype=np.float64).reshape(-1, width),
    )


def _regressor(model_path: Path, n_estimators: int, seed: int) -> Any:
    require("torch", "tabpfn", _FEATURE)
    tabpfn = require("tabpfn", "tabpfn", _FEATURE)
    return tabpfn.TabPFNRegressor(
        model_path=str(model_path),
        device="cpu",
        n_estimators=int(n_estimators),
        random_state=int(seed),
        ignore_pretraining_limits=True,
    )


class TabPFNForecaster:
    """Temporal effect baseline: TabPFN fitted in context on the episode's prefix table.

    Parameters
    ----------
    model_path : path, optional
        A TabPFN regressor checkpoint file; default ``$CAUSALARENA_TABPFN_MODEL``.
    n_estimators : int
        TabPFN ensemble size (forward passes per prediction).
    level : float
        Nominal level of the ``lower``/``upper`` interval.
    seed : int
        TabPFN's ``random_state`` and the training-subsample seed.

    ``predict(view)`` returns a dict of arrays of shape ``(len(view.query_times),)``, float64,
    in the query variable's units.

    Raises
    ------
    FileNotFoundError
        No ``model_path``, or not a file (nothing is downloaded).
    MissingExtraError
        The ``tabpfn`` extra is not installed.
    """

    name = "tabpfn"

    def __init__(
        self,
        model_path: str | os.PathLike | None = None,
        *,
        n_estimators: int = 4,
        level: float = 0.9,
        seed: int = 0,
    ):
        cand = model_path if model_path is not None else os.environ.get(MODEL_ENV)
        if not cand:
            raise FileNotFoundError(
                f"TabPFNForecaster needs a regressor checkpoint file (model_path= or ${MODEL_ENV});"
                " it never downloads one"
            )
        p = Path(cand).expanduser()
        if not p.is_file():
            raise FileNotFoundError(f"TabPFN checkpoint {p} is not a file (never downloaded here)")
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level}")
        self.model_path = p
        self.n_estimators, self.level, self.seed = int(n_estimators), float(level), int(seed)
        self._make()  # fail now (missing extra), not on the first episode
        self.info: dict[str, int] = {}

    def _make(self) -> Any:
        return _regressor(self.model_path, self.n_estimators, self.seed)

    def _count(self, key: str) -> None:
        self.info[key] = self.info.get(key, 0) + 1

    def predict(self, v: Any) -> dict[str, Any]:
        X, y, Q = features(v, self.seed)
        k = len(v.query_times)
        x_q = _fill(np.asarray(v.x_context, dtype=np.float64))[:, int(v.query_column)]
        if len(y) < 2 * LAGS or Q.shape[0] != k or np.ptp(y) == 0:
            self._count("too_short_prefix_last_value")
            last = np.full(k, float(x_q[-1]) if x_q.size else 0.0)
            return {"mean": last}
        reg = self._make()
        reg.fit(X, y)
        lo, hi = (1.0 - self.level) / 2.0, (1.0 + self.level) / 2.0
        out = reg.predict(Q, output_type="main", quantiles=[lo, hi])
        mean = np.asarray(out["mean"], dtype=np.float64).reshape(k)
        lower = np.asarray(out["quantiles"][0], dtype=np.float64).reshape(k)
        upper = np.asarray(out["quantiles"][1], dtype=np.float64).reshape(k)
        _, a = _channels(v)
        if a == int(v.query_column):  # the query is the treatment: its imposed value
            rows = np.asarray(v.query_times, dtype=np.intp)
            _, active = v.intervention_path(rows)
            imp = _imposed(v, rows, float(np.mean(x_q)) if x_q.size else 0.0)
            mean = np.where(active, imp, mean)
            lower, upper = np.where(active, imp, lower), np.where(active, imp, upper)
        self._count("fitted")
        return {"mean": mean, "lower": lower, "upper": upper, "level": self.level}


def write_sealed(model_path: str | os.PathLike, folder: str | os.PathLike) -> str:
    """Copy the checkpoint into a new ``folder`` with a ``model.py``; return its import spec.

    Raises
    ------
    FileNotFoundError
        ``model_path`` is not a file.
    FileExistsError
        ``folder`` exists and is not empty.
    """
    src = Path(model_path).expanduser()
    if not src.is_file():
        raise FileNotFoundError(f"TabPFN checkpoint {src} is not a file")
    dst = Path(folder)
    if dst.exists() and any(dst.iterdir()):
        raise FileExistsError(f"{dst} is not empty; write_sealed needs a new or empty folder")
    tmp = dst.with_name(dst.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copyfile(src, tmp / src.name)
    (tmp / MODEL_PY).write_text(_WRAPPER.format(name=src.name), encoding="utf-8")
    if dst.exists():
        dst.rmdir()
    os.replace(tmp, dst)
    return f"{dst / MODEL_PY}:Model"
