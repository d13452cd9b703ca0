"""Chronos adapter for the temporal effect track: an *observational* forecaster.

Chronos (Ansari et al., 2024, "Chronos: Learning the Language of Time Series"; package
``chronos-forecasting``) is a pretrained univariate forecaster.  It never sees an intervention,
so for a ``do()`` query it can only forecast the query variable's *factual* path from the
observed prefix; DoTime lists it among the baselines for exactly this contrast (Thumm et al.,
2026, section 6; issue 14 section 5).  Its effect (``mean - y_factual``, computed by the
harness) is therefore its forecast error of the factual path, not an effect estimate, and its
``do()`` scores measure how far forecasting alone gets.

What it reads
-------------
Per view, only ``x_context[:, query_column]`` (the query variable's rows ``< onset``, NaN
where missing, passed as NaN: Chronos masks them).  It forecasts ``h = max(query_times) - onset
+ 1`` steps and reads step ``r - onset`` for a query at row ``r``.  Irregular schedules
(continuous suites) are treated as if rows were equally spaced.  The intervention, the graph
and the other variables are ignored.

Answers: ``{"mean", "lower", "upper", "level"}`` with the pipeline's mean forecast and its
``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (default level 0.9).  Sampling pipelines
(the original T5 Chronos) draw with a torch generator seeded per episode from ``(seed,
episode_id)`` inside :func:`torch.random.fork_rng`, so answers do not depend on batching or
order and leave the global torch RNG untouched.

Checkpoints (never downloaded)
------------------------------
``checkpoint`` is a local folder saved with ``save_pretrained`` (``config.json`` with a
``chronos_config`` or ``chronos_pipeline_class`` entry, plus weights), or a Hugging Face repo id
(``"amazon/chronos-t5-tiny"``) that must already be in the user's HF cache: every load passes
``local_files_only=True``.  A missing checkpoint raises :class:`FileNotFoundError` saying how to
fetch it once (``hf download <id>``).

A loaded :class:`ChronosForecaster` *object* is trusted code (the harness pickles it in the
parent; ``result["isolation"]["sealed"]`` is False).  For a sealed run, :func:`write_sealed`
copies the checkpoint into a folder with a ``model.py`` wrapper and returns the import spec
``"<folder>/model.py:Model"``, which only the sandbox imports (the sandbox may read that
folder, nothing else of the user's).

Extra: ``pip install 'causalarena[chronos]'`` (``chronos-forecasting``, ``torch==2.13.0``).
"""

from __future__ import annotations

import os
import shutil
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from causalarena._extras import require

__all__ = [
    "CHECKPOINT_ENV",
    "ChronosForecaster",
    "load_pipeline",
    "resolve_checkpoint",
    "write_sealed",
]

CHECKPOINT_ENV = "CAUSALARENA_CHRONOS_CHECKPOINT"
_FEATURE = "the Chronos baseline"
MODEL_PY = "model.py"

_WRAPPER = '''"""Harness wrapper of this Chronos checkpoint (written by causalarena.baselines.chronos).

Evaluate it sealed with the import spec "<this folder>/model.py:Model".
"""

from pathlib import Path

from causalarena.baselines.chronos import ChronosForecaster


class Model(ChronosForecaster):
    def __init__(self):
        super().__init__(Path(__file__).resolve().parent)
'''


def resolve_checkpoint(checkpoint: str | os.PathLike) -> Path:
    """Local folder of a Chronos checkpoint: ``checkpoint`` itself, or its HF-cache snapshot.

    Parameters
    ----------
    checkpoint : path or str
        A folder holding ``config.json``, or a Hugging Face repo id already in the local cache.

    Raises
    ------
    FileNotFoundError
        A folder without ``config.json``, or a repo id that is not in the local cache (nothing
        is downloaded; the message says how to fetch it once).
    """
    p = Path(checkpoint).expanduser()
    if p.is_dir():
        if not (p / "config.json").is_file():
            raise FileNotFoundError(f"Chronos checkpoint folder {p} has no config.json")
        return p
    hub = require("huggingface_hub", "chronos", _FEATURE)
    try:
        snap = hub.snapshot_download(str(checkpoint), local_files_only=True)
    except Exception:  # LocalEntryNotFoundError, HFValidationError (not a repo id), ...
        raise FileNotFoundError(
            f"Chronos checkpoint {checkpoint} is neither a folder nor in the local Hugging Face "
            f"cache (never downloaded here); fetch it once with: hf download {checkpoint}"
        ) from None
    return Path(snap)


def load_pipeline(checkpoint: str | os.PathLike) -> Any:
    """A Chronos pipeline (T5, Bolt or Chronos-2; chosen by its config) on the CPU in float32.

    Raises
    ------
    MissingExtraError
        ``chronos-forecasting`` (or torch) is not installed.
    FileNotFoundError
        See :func:`resolve_checkpoint`.
    """
    torch = require("torch", "chronos", _FEATURE)
    chronos = require("chronos", "chronos", _FEATURE)
    path = resolve_checkpoint(checkpoint)
    return chronos.BaseChronosPipeline.from_pretrained(
        str(path), local_files_only=True, dtype=torch.float32
    )


def _episode_seed(seed: int, episode_id: str) -> int:
    return (int(seed) * 0x9E3779B1 + zlib.crc32(episode_id.encode("utf-8"))) % (2**63)


class ChronosForecaster:
    """Temporal effect baseline: Chronos forecast of the query variable from its prefix.

    Parameters
    ----------
    checkpoint : path or str, optional
        Folder or cached HF repo id (see the module docstring); default
        ``$CAUSALARENA_CHRONOS_CHECKPOINT``.
    level : float
        Nominal level of the central interval returned as ``lower``/``upper``.
    num_samples : int
        Sample paths of sampling pipelines (T5 Chronos); ignored by quantile pipelines.
    seed : int
        Base seed of the per-episode torch generators.

    ``predict(view)`` returns a dict of arrays of shape ``(len(view.query_times),)``, float64,
    in the units of the query variable.  It is an observational forecast: the intervention is
    ignored (module docstring).

    Raises
    ------
    FileNotFoundError
        No checkpoint given, or it cannot be found locally.
    MissingExtraError
        The ``chronos`` extra is not installed.
    """

    name = "chronos"

    def __init__(
        self,
        checkpoint: str | os.PathLike | None = None,
        *,
        level: float = 0.9,
        num_samples: int = 20,
        seed: int = 0,
    ):
        cand = checkpoint if checkpoint is not None else os.environ.get(CHECKPOINT_ENV)
        if not cand:
            raise FileNotFoundError(
                f"ChronosForecaster needs a checkpoint (folder or cached HF repo id, argument or "
                f"${CHECKPOINT_ENV}), e.g. after: hf download amazon/chronos-t5-tiny"
            )
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must be in (0, 1), got {level}")
        self.level, self.num_samples, self.seed = float(level), int(num_samples), int(seed)
        self.pipeline = load_pipeline(cand)
        self._sampling = type(self.pipeline).__name__ == "ChronosPipeline"
        self.info = {"observational_forecaster": 1, "pipeline": type(self.pipeline).__name__}

    def forecast(
        self, context: np.ndarray, steps: int, episode_id: str = ""
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mean, lower and upper forecasts, each shape ``(steps,)`` float64, of one series.

        ``context`` : shape ``(n,)``, float, NaN where missing (all-NaN or empty: zeros).
        """
        torch = require("torch", "chronos", _FEATURE)
        ctx = np.asarray(context, dtype=np.float64).reshape(-1)
        if not np.isfinite(ctx).any():
            z = np.zeros(steps)
            return z, z.copy(), z.copy()
        qs = [(1.0 - self.level) / 2.0, 0.5, (1.0 + self.level) / 2.0]
        kw: dict[str, Any] = {}
        if self._sampling:
            kw["num_samples"] = self.num_samples
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(_episode_seed(self.seed, episode_id))
            with torch.no_grad():
                q, mean = self.pipeline.predict_quantiles(
                    [torch.tensor(ctx, dtype=torch.float32)],
                    prediction_length=int(steps),
                    quantile_levels=qs,
                    **kw,
                )
        qa = np.asarray(q[0].float().numpy(), dtype=np.float64).reshape(-1, len(qs))[-steps:]
        ma = np.asarray(mean[0].float().numpy(), dtype=np.float64).reshape(-1)[-steps:]
        return ma, qa[:, 0], qa[:, 2]

    def predict(self, view: Any) -> dict[str, Any]:
        rows = np.asarray(view.query_times, dtype=np.intp)
        step = rows - int(view.onset)
        mean, lo, hi = self.forecast(
            view.x_context[:, int(view.query_column)], int(step.max()) + 1, view.episode_id
        )
        return {"mean": mean[step], "lower": lo[step], "upper": hi[step], "level": self.level}

    def predict_many(self, views: Sequence[Any]) -> list[dict[str, Any]]:
        """``[predict(v) for v in views]`` (per-episode seeds: batching changes nothing)."""
        return [self.predict(v) for v in views]


def write_sealed(checkpoint: str | os.PathLike, folder: str | os.PathLike) -> str:
    """Copy a checkpoint into ``folder`` with a ``model.py`` wrapper; return its import spec.

    ``folder`` must not exist or be empty.  Files are copied (symlinks of the HF cache
    followed), so the sandbox, which may read only the model's folder, finds the weights.

    Returns
    -------
    str
        ``"<folder>/model.py:Model"`` for :func:`causalarena.eval.temporal.evaluate`.

    Raises
    ------
    FileExistsError
        ``folder`` exists and is not empty.
    FileNotFoundError
        See :func:`resolve_checkpoint`.
    """
    src = resolve_checkpoint(checkpoint)
    dst = Path(folder)
    if dst.exists() and any(dst.iterdir()):
        raise FileExistsError(f"{dst} is not empty; write_sealed needs a new or empty folder")
    tmp = dst.with_name(dst.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp, symlinks=False, ignore=shutil.ignore_patterns(".git*", MODEL_PY))
    (tmp / MODEL_PY).write_text(_WRAPPER, encoding="utf-8")
    if dst.exists():
        dst.rmdir()
    os.replace(tmp, dst)
    return f"{dst / MODEL_PY}:Model"
