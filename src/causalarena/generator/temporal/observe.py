"""Observation layer: sampling schedules for continuous-time paths and missingness masks.

Schedules (all start at ``t = 0`` and stop before ``horizon``):

``regular``
    ``t_i = i * mean_gap``.
``jittered``
    gaps ``Δ_i = mean_gap * (1 + ξ_i)``, ``ξ_i ~ U[-jitter, jitter]`` (``0 <= jitter < 1``), so
    every gap lies in ``mean_gap * [1 - jitter, 1 + jitter]``.
``poisson``
    gaps ``Δ_i ~ Exp(mean mean_gap)`` (a Poisson process of rate ``1 / mean_gap``; gap CV 1).

The schedule only decides *where the path is read*: the path itself (and every intervention
window, defined in time units) is simulated on the fine grid independently of it.

Missingness is MCAR: every observed cell is missing independently with probability ``rate``;
masked copies carry NaN while the true values stay in the batch for evaluation.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from causalarena.errors import SpecError

Schedule = Literal["regular", "jittered", "poisson"]


def observation_times(
    rng: np.random.Generator,
    horizon: float,
    mean_gap: float,
    kind: Schedule = "regular",
    jitter: float = 0.3,
) -> np.ndarray:
    """Observation times of one episode.

    Returns
    -------
    ndarray of shape (M,), float64
        Strictly increasing times in ``[0, horizon)`` starting at 0.
    """
    if not (mean_gap > 0 and horizon > 0):
        raise SpecError(None, "mean_gap", mean_gap, "mean_gap and horizon must be > 0")
    if kind == "regular":
        return np.arange(0.0, horizon, mean_gap)
    n = int(np.ceil(horizon / mean_gap * 2.0)) + 16
    if kind == "jittered":
        if not 0.0 <= jitter < 1.0:
            raise SpecError(None, "jitter", jitter, "jitter must be in [0, 1)")
        gaps = mean_gap * (1.0 + rng.uniform(-jitter, jitter, n))
    elif kind == "poisson":
        gaps = rng.exponential(mean_gap, n)
    else:
        raise SpecError(None, "schedule", kind, "must be 'regular', 'jittered' or 'poisson'")
    t = np.concatenate([[0.0], np.cumsum(gaps)])
    while t[-1] < horizon:  # rare for Poisson: extend
        t = np.concatenate([t, t[-1] + np.cumsum(rng.exponential(mean_gap, n))])
    return t[t < horizon]


def observe(path: np.ndarray, dt: float, times: np.ndarray) -> np.ndarray:
    """Read a fine-grid path at observation times (last grid point at or before each time).

    Parameters
    ----------
    path : ndarray of shape (n_grid, N), float64
        Retained fine-grid path (grid ``k * dt``).
    times : ndarray of shape (M,)

    Returns
    -------
    ndarray of shape (M, N), float64
    """
    return path[grid_index(times, dt, path.shape[0])]


def grid_index(times: np.ndarray, dt: float, n_grid: int) -> np.ndarray:
    """Fine-grid index each observation time reads (the last grid point at or before it).

    Returns
    -------
    ndarray of shape (M,), intp
        ``clip(floor(t / dt), 0, n_grid - 1)`` (with a 1e-9 guard against float round-off).
    """
    return np.clip(np.floor(np.asarray(times) / dt + 1e-9).astype(np.intp), 0, n_grid - 1)


def observed_window(times: np.ndarray, dt: float, affected: np.ndarray) -> tuple[int, int] | None:
    """Rows ``[j0, j1)`` of an observation schedule whose values are intervened.

    ``affected`` (n_grid,) bool marks the fine-grid points whose values the intervention set or
    changed.  An observation reads the last grid point at or before its time (:func:`observe`),
    so on an irregular schedule the first observation after the window start can still read a
    pre-intervention point; the onset is the first row that reads an affected point.

    Returns
    -------
    (j0, j1) or None
        ``j0`` the first row reading an affected point, ``j1`` one past the last; ``None``
        when no observation reads one.
    """
    rows = np.flatnonzero(np.asarray(affected, dtype=bool)[grid_index(times, dt, len(affected))])
    if rows.size == 0:
        return None
    return int(rows[0]), int(rows[-1]) + 1


def mcar_mask(rng: np.random.Generator, shape: tuple[int, ...], rate: float) -> np.ndarray:
    """MCAR missingness mask (True = missing), each cell independently with prob. ``rate``."""
    if not 0.0 <= rate < 1.0:
        raise SpecError(None, "missing_rate", rate, "rate must be in [0, 1)")
    return rng.random(shape) < rate


def apply_missingness(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Copy of ``x`` with NaN where ``mask`` (the input is left untouched)."""
    out = np.array(x, dtype=np.float64, copy=True)
    out[mask] = np.nan
    return out


def _ranks(v: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``v`` along axis 0 scaled to [0, 1] (column-wise)."""
    r = np.argsort(np.argsort(v, axis=0, kind="stable"), axis=0, kind="stable").astype(float)
    return r / max(v.shape[0] - 1, 1)


def mar_mask(rng: np.random.Generator, x: np.ndarray, rate: float, driver: int) -> np.ndarray:
    """MAR missingness mask (True = missing) of ``x`` (M, d).

    Row ``t`` of column ``j != driver`` is missing with probability ``2 * rate * pi_t``, where
    ``pi_t`` in [0, 1] is the rank of the always-observed column ``driver`` at row ``t``
    (missingness depends only on observed values; the mean rate is ``rate``).  Column
    ``driver`` is never missing.  Raises :class:`SpecError` unless ``0 <= rate <= 0.5``.
    """
    if not 0.0 <= rate <= 0.5:
        raise SpecError(None, "missing_rate", rate, "MAR rate must be in [0, 0.5]")
    p = 2.0 * rate * _ranks(x[:, [driver]])
    m = rng.random(x.shape) < p
    m[:, driver] = False
    return m


def mnar_mask(rng: np.random.Generator, x: np.ndarray, rate: float) -> np.ndarray:
    """MNAR missingness mask (True = missing) of ``x`` (M, d).

    Each cell is missing with probability ``2 * rate * pi``, ``pi`` in [0, 1] the rank of the
    cell's own (latent) value within its column: high values go missing more often (the mean
    rate is ``rate``).  Raises :class:`SpecError` unless ``0 <= rate <= 0.5``.
    """
    if not 0.0 <= rate <= 0.5:
        raise SpecError(None, "missing_rate", rate, "MNAR rate must be in [0, 0.5]")
    return rng.random(x.shape) < 2.0 * rate * _ranks(x)
