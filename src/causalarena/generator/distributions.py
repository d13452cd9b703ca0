"""Root distributions, structural noise channels and root-dependency samplers.

This module implements the three sampling registries of the CausalArena synthetic SCM pool
(paper, appendix A.1, "Root distributions", "Root dependency" and "Structural noise"):

``ROOTS``
    14 marginal distributions for root variables. Every family exposes a quantile map
    ``ppf(params, u)`` from ``U(0, 1)`` to the family's distribution, so a root is sampled as
    ``ppf(params, u)`` with ``u`` either independent uniforms (:func:`sample_root`) or one column of
    a dependent copula block (``DEPENDENCIES``). The marginal of every root is therefore exactly
    its family's distribution, whatever the dependence of the block.
``NOISES``
    14 structural noise channels plus ``"none"`` (a deterministic local equation), i.e. the
    paper's 15 noise families. ``apply(params, signal, parents, rng)`` turns the standardised
    mechanism output ``signal`` into the value of the variable. Families whose constants depend
    on the data (``target_r2``, ``censored``) fill them in once with ``calibrate`` on a pilot
    sample; afterwards ``apply`` never uses batch statistics.
``DEPENDENCIES``
    The three dependent root-block samplers (common factor, random covariance, uniform ball).
    ``uniforms(params, n, rng)`` returns copula uniforms obtained with each column's
    *theoretical* marginal CDF (no batch statistics).

Conventions
-----------
* Shapes and dtypes: root ``ppf`` maps ``u`` (float64, shape (n,), in (0, 1)) to float64 (n,);
  noise ``apply`` maps ``signal`` (float64, (n,)) and ``parents`` (float64, (n, k)) to float64
  (n,); dependency ``uniforms`` returns float64 (n, r) in ``(1e-12, 1 - 1e-12)``.
* Parameters are plain JSON-serialisable Python values (``float``, ``int``, ``list``, ``None``);
  ``sample_params`` draws them from the paper's ranges. ``validate`` checks mathematical
  validity (not the paper's sampling ranges, so hand-written specifications may use other
  values) and raises :class:`ValueError` naming the parameter and value, including on missing
  and unknown keys.
* Every random draw goes through the ``numpy.random.Generator`` passed in; there is no global
  random state. The same parameters, sizes and generator state give the same output.
* All outputs are ``float64`` arrays.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

__all__ = [
    "DEPENDENCIES",
    "NOISES",
    "NOISE_FAMILIES",
    "ROOTS",
    "ROOT_FAMILIES",
    "U_EPS",
    "DependencyFamily",
    "NoiseFamily",
    "RootFamily",
    "sample_root",
]

U_EPS = 1e-12
"""Uniforms are clipped into ``(U_EPS, 1 - U_EPS)`` before any quantile map."""

_F64 = np.float64


# ---------------------------------------------------------------------------------------------
# Family records
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RootFamily:
    """A root (parentless variable) distribution, paper appendix A.1 "Root distributions".

    Attributes
    ----------
    name : str
        Registry key (snake_case of the paper name).
    kind : {"continuous", "binary", "ordinal", "categorical", "count"}
        Data kind of the generated column.
    sample_params : callable ``(rng) -> dict``
        Draws JSON-serialisable parameters from the paper's ranges.
    validate : callable ``(params) -> None``
        Raises ``ValueError`` on invalid, missing or unknown parameters.
    ppf : callable ``(params, u) -> ndarray``
        Quantile map: ``u`` float64 of shape (n,) in (0, 1) -> values float64 of shape (n,),
        non-decreasing in ``u``.
    """

    name: str
    kind: str
    sample_params: Callable[[np.random.Generator], dict]
    validate: Callable[[dict], None]
    ppf: Callable[[dict, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class NoiseFamily:
    """A structural noise channel, paper appendix A.1 "Structural noise".

    Attributes
    ----------
    name : str
        Registry key.
    sample_params : callable ``(rng) -> dict``
        Draws JSON-serialisable parameters from the paper's ranges.
    validate : callable ``(params) -> None``
        Raises ``ValueError`` on invalid, missing or unknown parameters.
    apply : callable ``(params, signal, parents, rng) -> ndarray``
        ``signal`` float64 (n,), ``parents`` float64 (n, k) -> value float64 (n,).
    calibrate : callable ``(params, pilot_signal, pilot_parents, rng) -> dict``
        Returns the parameters with data-dependent constants filled in (identity for most
        families).
    clip_bounds : callable ``(params) -> tuple[float, float] or None``
        Explicit clipping boundaries introduced by the noise (for the audit's boundary-mass
        gate), else ``None``.
    """

    name: str
    sample_params: Callable[[np.random.Generator], dict]
    validate: Callable[[dict], None]
    apply: Callable[[dict, np.ndarray, np.ndarray, np.random.Generator], np.ndarray]
    calibrate: Callable[[dict, np.ndarray, np.ndarray, np.random.Generator], dict]
    clip_bounds: Callable[[dict], tuple[float, float] | None]


@dataclass(frozen=True)
class DependencyFamily:
    """A dependent root-block sampler, paper appendix A.1 "Root dependency".

    Attributes
    ----------
    name : str
        Registry key.
    sample_params : callable ``(rng, r) -> dict``
        Draws JSON-serialisable parameters for a block of ``r`` roots.
    validate : callable ``(params, r) -> None``
        Raises ``ValueError`` on invalid, missing or unknown parameters or wrong lengths.
    uniforms : callable ``(params, n, rng) -> ndarray``
        Copula uniforms, float64 of shape (n, r) in the open interval (0, 1), dependent across
        columns, each column exactly ``U(0, 1)``.
    """

    name: str
    sample_params: Callable[[np.random.Generator, int], dict]
    validate: Callable[[dict, int], None]
    uniforms: Callable[[dict, int, np.random.Generator], np.ndarray]


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------
def _check_keys(family: str, params: Any, keys: Sequence[str]) -> None:
    """Raise ``ValueError`` unless ``params`` is a dict with exactly the keys ``keys``."""
    if not isinstance(params, dict):
        raise ValueError(f"{family}: params must be a dict, got {type(params).__name__} {params!r}")
    missing = [k for k in keys if k not in params]
    if missing:
        raise ValueError(
            f"{family}: missing parameter(s) {missing}; expected exactly {sorted(keys)}"
        )
    unknown = sorted(repr(k) for k in params if k not in keys)
    if unknown:
        raise ValueError(
            f"{family}: unknown parameter(s) {', '.join(unknown)}; expected exactly {sorted(keys)}"
        )


def _real(
    family: str,
    key: str,
    value: Any,
    *,
    gt: float | None = None,
    ge: float | None = None,
    lt: float | None = None,
    le: float | None = None,
) -> float:
    """Check that ``value`` is a finite real number within the given bounds; return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{family}: parameter {key!r} must be a real number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{family}: parameter {key!r} must be finite, got {value!r}")
    if gt is not None and not v > gt:
        raise ValueError(f"{family}: parameter {key!r} must be > {gt}, got {value!r}")
    if ge is not None and not v >= ge:
        raise ValueError(f"{family}: parameter {key!r} must be >= {ge}, got {value!r}")
    if lt is not None and not v < lt:
        raise ValueError(f"{family}: parameter {key!r} must be < {lt}, got {value!r}")
    if le is not None and not v <= le:
        raise ValueError(f"{family}: parameter {key!r} must be <= {le}, got {value!r}")
    return v


def _integer(
    family: str, key: str, value: Any, *, ge: int | None = None, le: int | None = None
) -> int:
    """Check that ``value`` is an integer (not a bool or float) within bounds; return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{family}: parameter {key!r} must be an integer, got {value!r}")
    v = int(value)
    if ge is not None and v < ge:
        raise ValueError(f"{family}: parameter {key!r} must be >= {ge}, got {value!r}")
    if le is not None and v > le:
        raise ValueError(f"{family}: parameter {key!r} must be <= {le}, got {value!r}")
    return v


def _real_list(
    family: str,
    key: str,
    value: Any,
    *,
    length: int | None = None,
    min_len: int | None = None,
) -> list[float]:
    """Check a list of finite reals, optionally of an exact or minimum length; return it."""
    if not isinstance(value, list | tuple):
        raise ValueError(f"{family}: parameter {key!r} must be a list of numbers, got {value!r}")
    if length is not None and len(value) != length:
        raise ValueError(
            f"{family}: parameter {key!r} must have length {length}, got {len(value)}: {value!r}"
        )
    if min_len is not None and len(value) < min_len:
        raise ValueError(
            f"{family}: parameter {key!r} must have at least {min_len} entries, "
            f"got {len(value)}: {value!r}"
        )
    return [_real(family, f"{key}[{i}]", x) for i, x in enumerate(value)]


def _prob_vector(family: str, key: str, value: Any, *, min_len: int) -> np.ndarray:
    """Check a probability vector (entries in [0, 1], sum 1 within 1e-6); return it."""
    probs = _real_list(family, key, value, min_len=min_len)
    for i, p in enumerate(probs):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{family}: parameter '{key}[{i}]' must be in [0, 1], got {p!r}")
    total = math.fsum(probs)
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"{family}: parameter {key!r} must sum to 1, got sum {total!r}")
    return np.asarray(probs, dtype=_F64)


def _as_u(u: np.ndarray) -> np.ndarray:
    return np.asarray(u, dtype=_F64)


def _as_signal(signal: np.ndarray) -> np.ndarray:
    s = np.asarray(signal, dtype=_F64)
    if s.ndim != 1:
        raise ValueError(f"signal must be one-dimensional (n,), got shape {s.shape}")
    return s


def _categorical_index(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse CDF of a categorical distribution on ``0..k-1``; float64 (n,), non-decreasing."""
    cdf = np.cumsum(probs)
    cdf = cdf / cdf[-1]
    idx = np.searchsorted(cdf, u, side="right")
    return np.minimum(idx, probs.size - 1).astype(_F64)


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max())
    return z / z.sum()


# ---------------------------------------------------------------------------------------------
# Root distributions (paper appendix A.1, "Root distributions")
# ---------------------------------------------------------------------------------------------
# -- uniform ----------------------------------------------------------------------------------
def _uniform_sample(rng: np.random.Generator) -> dict:
    """``low`` ~ U[-2, 0], ``high`` ~ U[0.5, 3.0] (appendix A.1)."""
    return {"low": float(rng.uniform(-2.0, 0.0)), "high": float(rng.uniform(0.5, 3.0))}


def _uniform_validate(p: dict) -> None:
    _check_keys("uniform", p, ("low", "high"))
    low = _real("uniform", "low", p["low"])
    _real("uniform", "high", p["high"], gt=low)


def _uniform_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Uniform root ``U(low, high)``: ``low + u (high - low)``.

    Parameters
    ----------
    p : dict
        ``low`` (float), ``high`` (float > low).
    u : ndarray of shape (n,), float64 in (0, 1)

    Returns
    -------
    ndarray of shape (n,), float64
    """
    return p["low"] + _as_u(u) * (p["high"] - p["low"])


# -- gaussian ---------------------------------------------------------------------------------
def _gaussian_sample(rng: np.random.Generator) -> dict:
    """``mean`` ~ N(0, 1), ``std`` ~ U[0.5, 2.0] (appendix A.1)."""
    return {"mean": float(rng.standard_normal()), "std": float(rng.uniform(0.5, 2.0))}


def _gaussian_validate(p: dict) -> None:
    _check_keys("gaussian", p, ("mean", "std"))
    _real("gaussian", "mean", p["mean"])
    _real("gaussian", "std", p["std"], gt=0.0)


def _gaussian_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Gaussian root ``N(mean, std^2)``: ``mean + std * Phi^{-1}(u)``; float64 (n,)."""
    return p["mean"] + p["std"] * special.ndtri(_as_u(u))


# -- truncated gaussian -----------------------------------------------------------------------
def _tgauss_sample(rng: np.random.Generator) -> dict:
    """``mean`` ~ N(0, 0.8^2), ``std`` ~ U[0.4, 1.4], ``bound`` = 2.5 (appendix A.1)."""
    return {
        "mean": float(0.8 * rng.standard_normal()),
        "std": float(rng.uniform(0.4, 1.4)),
        "bound": 2.5,
    }


def _tgauss_validate(p: dict) -> None:
    _check_keys("truncated_gaussian", p, ("mean", "std", "bound"))
    _real("truncated_gaussian", "mean", p["mean"])
    _real("truncated_gaussian", "std", p["std"], gt=0.0)
    _real("truncated_gaussian", "bound", p["bound"], gt=0.0)


def _tgauss_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Truncated Gaussian root on ``mean +- bound * std``.

    The paper restricts samples to ``mean +- 2.5 std``. We implement this as a proper
    truncation (inverse CDF of the normal restricted to the interval), which keeps the support
    the paper states without creating point masses at the two boundaries.

    Parameters
    ----------
    p : dict
        ``mean`` (float), ``std`` (> 0), ``bound`` (> 0, in units of ``std``; 2.5 in the paper).
    u : ndarray of shape (n,), float64 in (0, 1)

    Returns
    -------
    ndarray of shape (n,), float64 in ``[mean - bound std, mean + bound std]``
    """
    b = float(p["bound"])
    lo, hi = special.ndtr(-b), special.ndtr(b)
    z = special.ndtri(lo + _as_u(u) * (hi - lo))
    return p["mean"] + p["std"] * np.clip(z, -b, b)


# -- lognormal --------------------------------------------------------------------------------
def _lognormal_sample(rng: np.random.Generator) -> dict:
    """``log_mean`` ~ U[-0.3, 0.7], ``log_std`` ~ U[0.25, 0.9] (appendix A.1)."""
    return {"log_mean": float(rng.uniform(-0.3, 0.7)), "log_std": float(rng.uniform(0.25, 0.9))}


def _lognormal_validate(p: dict) -> None:
    _check_keys("lognormal", p, ("log_mean", "log_std"))
    _real("lognormal", "log_mean", p["log_mean"])
    _real("lognormal", "log_std", p["log_std"], gt=0.0)


def _lognormal_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Lognormal root ``exp(log_mean + log_std * Phi^{-1}(u))``; float64 (n,), > 0."""
    return np.exp(p["log_mean"] + p["log_std"] * special.ndtri(_as_u(u)))


# -- gamma ------------------------------------------------------------------------------------
def _gamma_sample(rng: np.random.Generator) -> dict:
    """``shape`` (concentration) ~ U[1, 5], ``rate`` ~ U[0.5, 2] (appendix A.1)."""
    return {"shape": float(rng.uniform(1.0, 5.0)), "rate": float(rng.uniform(0.5, 2.0))}


def _gamma_validate(p: dict) -> None:
    _check_keys("gamma", p, ("shape", "rate"))
    _real("gamma", "shape", p["shape"], gt=0.0)
    _real("gamma", "rate", p["rate"], gt=0.0)


def _gamma_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Gamma root with concentration ``shape`` and ``rate`` (mean shape/rate); float64 (n,)."""
    return np.asarray(stats.gamma.ppf(_as_u(u), p["shape"], scale=1.0 / p["rate"]), dtype=_F64)


# -- scaled beta ------------------------------------------------------------------------------
def _sbeta_sample(rng: np.random.Generator) -> dict:
    """``a``, ``b`` ~ U[0.8, 5]; ``low`` ~ U[-1, 0], ``high`` ~ U[0.8, 3.0] (appendix A.1)."""
    return {
        "a": float(rng.uniform(0.8, 5.0)),
        "b": float(rng.uniform(0.8, 5.0)),
        "low": float(rng.uniform(-1.0, 0.0)),
        "high": float(rng.uniform(0.8, 3.0)),
    }


def _sbeta_validate(p: dict) -> None:
    _check_keys("scaled_beta", p, ("a", "b", "low", "high"))
    _real("scaled_beta", "a", p["a"], gt=0.0)
    _real("scaled_beta", "b", p["b"], gt=0.0)
    low = _real("scaled_beta", "low", p["low"])
    _real("scaled_beta", "high", p["high"], gt=low)


def _sbeta_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Scaled beta root ``low + (high - low) * Beta(a, b)``; float64 (n,) in [low, high]."""
    x = stats.beta.ppf(_as_u(u), p["a"], p["b"])
    return np.asarray(p["low"] + (p["high"] - p["low"]) * x, dtype=_F64)


# -- exponential ------------------------------------------------------------------------------
def _exp_sample(rng: np.random.Generator) -> dict:
    """``rate`` ~ U[0.4, 2.5] (appendix A.1)."""
    return {"rate": float(rng.uniform(0.4, 2.5))}


def _exp_validate(p: dict) -> None:
    _check_keys("exponential", p, ("rate",))
    _real("exponential", "rate", p["rate"], gt=0.0)


def _exp_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Exponential root with ``rate``: ``-log(1 - u) / rate``; float64 (n,), >= 0."""
    return -np.log1p(-_as_u(u)) / p["rate"]


# -- gumbel -----------------------------------------------------------------------------------
def _gumbel_sample(rng: np.random.Generator) -> dict:
    """``loc`` ~ U[-1, 1], ``scale`` ~ U[0.3, 1.8] (appendix A.1)."""
    return {"loc": float(rng.uniform(-1.0, 1.0)), "scale": float(rng.uniform(0.3, 1.8))}


def _gumbel_validate(p: dict) -> None:
    _check_keys("gumbel", p, ("loc", "scale"))
    _real("gumbel", "loc", p["loc"])
    _real("gumbel", "scale", p["scale"], gt=0.0)


def _gumbel_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Gumbel (maximum, right-skewed) root: ``loc - scale * log(-log u)``; float64 (n,)."""
    return p["loc"] - p["scale"] * np.log(-np.log(_as_u(u)))


# -- bernoulli --------------------------------------------------------------------------------
def _bern_sample(rng: np.random.Generator) -> dict:
    """``p`` ~ U[0.15, 0.85] (appendix A.1)."""
    return {"p": float(rng.uniform(0.15, 0.85))}


def _bern_validate(p: dict) -> None:
    _check_keys("bernoulli", p, ("p",))
    _real("bernoulli", "p", p["p"], ge=0.0, le=1.0)


def _bern_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Bernoulli root: ``1`` if ``u > 1 - p`` else ``0``; float64 (n,) in {0, 1}."""
    return (_as_u(u) > 1.0 - p["p"]).astype(_F64)


# -- poisson ----------------------------------------------------------------------------------
def _pois_sample(rng: np.random.Generator) -> dict:
    """``rate`` ~ U[1, 12] (appendix A.1)."""
    return {"rate": float(rng.uniform(1.0, 12.0))}


def _pois_validate(p: dict) -> None:
    _check_keys("poisson", p, ("rate",))
    _real("poisson", "rate", p["rate"], gt=0.0)


def _pois_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Poisson root with mean ``rate``; float64 (n,) of non-negative integers.

    Inverse CDF by table look-up: the smallest k with ``F(k) >= u`` (scipy's ppf definition),
    with the table built from ``scipy.stats.poisson.cdf`` up to ``F(k) >= 1 - 1e-13``.
    """
    rate = float(p["rate"])
    k_max = int(stats.poisson.ppf(1.0 - 1e-13, rate)) + 1
    cdf = stats.poisson.cdf(np.arange(k_max + 1), rate)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, _as_u(u), side="left").astype(_F64)


# -- ordinal categorical ----------------------------------------------------------------------
def _ordinal_sample(rng: np.random.Generator) -> dict:
    """``k`` ~ {3, ..., 6}; ``probs`` = softmax of k i.i.d. N(0, 1) logits (appendix A.1)."""
    k = int(rng.integers(3, 7))
    return {"probs": _softmax(rng.standard_normal(k)).tolist()}


def _ordinal_validate(p: dict) -> None:
    _check_keys("ordinal_categorical", p, ("probs",))
    _prob_vector("ordinal_categorical", "probs", p["probs"], min_len=2)


def _ordinal_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Ordinal root with level probabilities ``probs``; float64 (n,) in ``{0, ..., k-1}``."""
    return _categorical_index(np.asarray(p["probs"], dtype=_F64), _as_u(u))


# -- mixture gaussian -------------------------------------------------------------------------
def _mix_sample(rng: np.random.Generator) -> dict:
    """``weight`` ~ U[0.2, 0.8]; ``mean1`` ~ U[-2, -0.2], ``mean2`` ~ U[0.2, 2];
    ``std1``, ``std2`` ~ U[0.3, 1.0] (appendix A.1)."""
    return {
        "weight": float(rng.uniform(0.2, 0.8)),
        "mean1": float(rng.uniform(-2.0, -0.2)),
        "std1": float(rng.uniform(0.3, 1.0)),
        "mean2": float(rng.uniform(0.2, 2.0)),
        "std2": float(rng.uniform(0.3, 1.0)),
    }


def _mix_validate(p: dict) -> None:
    f = "mixture_gaussian"
    _check_keys(f, p, ("weight", "mean1", "std1", "mean2", "std2"))
    _real(f, "weight", p["weight"], ge=0.0, le=1.0)
    _real(f, "mean1", p["mean1"])
    _real(f, "std1", p["std1"], gt=0.0)
    _real(f, "mean2", p["mean2"])
    _real(f, "std2", p["std2"], gt=0.0)


def _mix_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Two-component Gaussian mixture root, by exact inversion of the mixture CDF.

    ``F(x) = weight * Phi((x - mean1) / std1) + (1 - weight) * Phi((x - mean2) / std2)`` is
    inverted by vectorised bisection started from the bracket
    ``[min(q1(u), q2(u)), max(q1(u), q2(u))]`` (``q_i`` the component quantiles, between which
    the mixture quantile always lies). Unlike splitting ``u`` at the weight, this map is
    monotone, so the rank dependence of a copula block is preserved. Deterministic; accuracy
    ~1e-12 in ``x``.

    Parameters
    ----------
    p : dict
        ``weight`` in [0, 1] (probability of component 1), ``mean1``, ``std1`` (> 0),
        ``mean2``, ``std2`` (> 0).
    u : ndarray of shape (n,), float64 in (0, 1)

    Returns
    -------
    ndarray of shape (n,), float64
    """
    u = _as_u(u)
    w, m1, s1, m2, s2 = (float(p[k]) for k in ("weight", "mean1", "std1", "mean2", "std2"))
    z = special.ndtri(u)
    q1, q2 = m1 + s1 * z, m2 + s2 * z
    lo, hi = np.minimum(q1, q2), np.maximum(q1, q2)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        cdf = w * special.ndtr((mid - m1) / s1) + (1.0 - w) * special.ndtr((mid - m2) / s2)
        below = cdf < u
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(hi - lo <= 1e-12 * (1.0 + np.abs(mid))):
            break
    return 0.5 * (lo + hi)


# -- multinomial ------------------------------------------------------------------------------
def _multi_sample(rng: np.random.Generator) -> dict:
    """``k`` ~ {2, ..., 10}; ``probs`` = softmax of logits ~ U[-1.5, 1.5] (appendix A.1)."""
    k = int(rng.integers(2, 11))
    return {"probs": _softmax(rng.uniform(-1.5, 1.5, k)).tolist()}


def _multi_moments(probs: np.ndarray) -> tuple[float, float]:
    idx = np.arange(probs.size, dtype=_F64)
    mean = float(probs @ idx / probs.sum())
    std = float(np.sqrt(probs @ (idx - mean) ** 2 / probs.sum()))
    return mean, std


def _multi_validate(p: dict) -> None:
    _check_keys("multinomial", p, ("probs",))
    probs = _prob_vector("multinomial", "probs", p["probs"], min_len=2)
    if np.count_nonzero(probs > 0) < 2:
        raise ValueError(
            f"multinomial: parameter 'probs' needs at least two categories with positive "
            f"probability (the standardised index is otherwise undefined), got {p['probs']!r}"
        )


def _multi_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Multinomial (unordered categorical) root: standardised category index.

    The category index ``c`` in ``{0, ..., k-1}`` is standardised with the *theoretical*
    moments of the parameters, ``(c - E[c]) / sd[c]``, never with batch statistics, so the
    column has mean 0 and standard deviation 1 in distribution.

    Parameters
    ----------
    p : dict
        ``probs``: list of k >= 2 probabilities summing to 1.
    u : ndarray of shape (n,), float64 in (0, 1)

    Returns
    -------
    ndarray of shape (n,), float64 (k distinct values)
    """
    probs = np.asarray(p["probs"], dtype=_F64)
    mean, std = _multi_moments(probs)
    return (_categorical_index(probs, _as_u(u)) - mean) / std


# -- zipf -------------------------------------------------------------------------------------
def _zipf_sample(rng: np.random.Generator) -> dict:
    """``support`` ~ {8, ..., 20}, ``alpha`` ~ U[2, 4], ``cap`` = 10 (appendix A.1)."""
    return {
        "support": int(rng.integers(8, 21)),
        "alpha": float(rng.uniform(2.0, 4.0)),
        "cap": 10,
    }


def _zipf_validate(p: dict) -> None:
    _check_keys("zipf", p, ("support", "alpha", "cap"))
    _integer("zipf", "support", p["support"], ge=2)
    _real("zipf", "alpha", p["alpha"], gt=0.0)
    _integer("zipf", "cap", p["cap"], ge=2)


def _zipf_table(p: dict) -> tuple[np.ndarray, np.ndarray]:
    """Return (probabilities of v = 1..support, centred capped values)."""
    v = np.arange(1, int(p["support"]) + 1, dtype=_F64)
    probs = v ** (-float(p["alpha"]))
    probs /= probs.sum()
    capped = np.minimum(v, float(p["cap"]))
    return probs, capped - float(probs @ capped)


def _zipf_ppf(p: dict, u: np.ndarray) -> np.ndarray:
    """Zipf / power-law root: ``min(V, cap) - E[min(V, cap)]`` with ``P(V = v) ~ v^-alpha``.

    Parameters
    ----------
    p : dict
        ``support`` (int >= 2, values ``v = 1..support``), ``alpha`` (> 0), ``cap``
        (int >= 2; 10 in the paper). Centring uses the theoretical mean.
    u : ndarray of shape (n,), float64 in (0, 1)

    Returns
    -------
    ndarray of shape (n,), float64, at most ``cap - E[min(V, cap)]``

    Notes
    -----
    The registry kind is ``"count"``: the values are an integer count shifted by a constant,
    so downstream code treats the column as discrete (interventions pick observed levels).
    """
    probs, values = _zipf_table(p)
    idx = _categorical_index(probs, _as_u(u)).astype(np.intp)
    return values[idx]


# ---------------------------------------------------------------------------------------------
# Structural noise (paper appendix A.1, "Structural noise")
# ---------------------------------------------------------------------------------------------
def _identity_calibrate(
    p: dict, pilot_signal: np.ndarray, pilot_parents: np.ndarray, rng: np.random.Generator
) -> dict:
    """Calibration for families without data-dependent constants: returns ``p`` unchanged."""
    return p


def _no_clip(p: dict) -> None:
    """No explicit clipping boundaries."""
    return None


def _scale_only_validate(family: str) -> Callable[[dict], None]:
    def validate(p: dict) -> None:
        _check_keys(family, p, ("scale",))
        _real(family, "scale", p["scale"], gt=0.0)

    validate.__doc__ = f"Validate the ``{family}`` noise parameters (``scale`` > 0)."
    return validate


def _parents_2d(parents: np.ndarray, n: int) -> np.ndarray:
    P = np.asarray(parents, dtype=_F64)
    if P.ndim == 1:
        P = P[:, None]
    if P.ndim != 2 or P.shape[0] != n:
        raise ValueError(f"parents must have shape (n={n}, k), got {P.shape}")
    return P


# -- none -------------------------------------------------------------------------------------
def _none_validate(p: dict) -> None:
    _check_keys("none", p, ())


def _none_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """No noise (deterministic local equation): returns a float64 copy of ``signal`` (n,)."""
    return np.array(_as_signal(signal), dtype=_F64, copy=True)


# -- gaussian ---------------------------------------------------------------------------------
def _ng_sample(rng: np.random.Generator) -> dict:
    """``scale`` ~ U[0.05, 0.45] (appendix A.1)."""
    return {"scale": float(rng.uniform(0.05, 0.45))}


def _ng_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Additive Gaussian noise: ``signal + scale * N(0, 1)``; float64 (n,)."""
    s = _as_signal(signal)
    return s + p["scale"] * rng.standard_normal(s.shape[0])


# -- uniform ----------------------------------------------------------------------------------
def _nu_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Additive bounded noise: ``signal + U(-scale, scale)`` (``scale`` is the half-width)."""
    s = _as_signal(signal)
    return s + rng.uniform(-p["scale"], p["scale"], s.shape[0])


# -- laplace ----------------------------------------------------------------------------------
def _nl_sample(rng: np.random.Generator) -> dict:
    """``scale`` ~ U[0.03, 0.35] (appendix A.1)."""
    return {"scale": float(rng.uniform(0.03, 0.35))}


def _nl_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Additive Laplace noise with scale ``scale`` (sd ``sqrt(2) scale``); float64 (n,)."""
    s = _as_signal(signal)
    return s + rng.laplace(0.0, p["scale"], s.shape[0])


# -- student t --------------------------------------------------------------------------------
def _nt_sample(rng: np.random.Generator) -> dict:
    """``df`` ~ U[2.5, 8], ``scale`` ~ U[0.03, 0.30] (appendix A.1)."""
    return {"df": float(rng.uniform(2.5, 8.0)), "scale": float(rng.uniform(0.03, 0.30))}


def _nt_validate(p: dict) -> None:
    _check_keys("student_t", p, ("df", "scale"))
    _real("student_t", "df", p["df"], gt=0.0)
    _real("student_t", "scale", p["scale"], gt=0.0)


def _nt_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Additive Student-t noise: ``signal + scale * t_df``; float64 (n,)."""
    s = _as_signal(signal)
    return s + p["scale"] * rng.standard_t(p["df"], s.shape[0])


# -- multiplicative lognormal -----------------------------------------------------------------
def _nml_sample(rng: np.random.Generator) -> dict:
    """``sigma`` ~ U[0.03, 0.25] (appendix A.1)."""
    return {"sigma": float(rng.uniform(0.03, 0.25))}


def _nml_validate(p: dict) -> None:
    _check_keys("multiplicative_lognormal", p, ("sigma",))
    _real("multiplicative_lognormal", "sigma", p["sigma"], gt=0.0)


def _nml_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Multiplicative lognormal noise: ``signal * exp(sigma * N(0, 1))``; float64 (n,)."""
    s = _as_signal(signal)
    return s * np.exp(p["sigma"] * rng.standard_normal(s.shape[0]))


# -- heteroskedastic --------------------------------------------------------------------------
def _nh_sample(rng: np.random.Generator) -> dict:
    """``base`` ~ U[0.02, 0.15], ``slope`` ~ U[0.02, 0.20] (appendix A.1)."""
    return {"base": float(rng.uniform(0.02, 0.15)), "slope": float(rng.uniform(0.02, 0.20))}


def _nh_validate(p: dict) -> None:
    _check_keys("heteroskedastic", p, ("base", "slope"))
    _real("heteroskedastic", "base", p["base"], gt=0.0)
    _real("heteroskedastic", "slope", p["slope"], ge=0.0)


def _nh_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Heteroskedastic Gaussian noise, scale ``base + slope * sigmoid(|signal|)`` per row."""
    s = _as_signal(signal)
    scale = p["base"] + p["slope"] * special.expit(np.abs(s))
    return s + scale * rng.standard_normal(s.shape[0])


# -- rff heteroskedastic ----------------------------------------------------------------------
def _nrff_sample(rng: np.random.Generator) -> dict:
    """``n_features`` ~ {64, ..., 256}, ``length_scale`` ~ U[0.25, 3.0],
    ``output_scale`` ~ U[0.3, 1.8], ``seed`` ~ {0, ..., 2^31 - 2} (appendix A.1)."""
    return {
        "n_features": int(rng.integers(64, 257)),
        "length_scale": float(rng.uniform(0.25, 3.0)),
        "output_scale": float(rng.uniform(0.3, 1.8)),
        "seed": int(rng.integers(0, 2**31 - 1)),
    }


def _nrff_validate(p: dict) -> None:
    f = "rff_heteroskedastic"
    _check_keys(f, p, ("n_features", "length_scale", "output_scale", "seed"))
    _integer(f, "n_features", p["n_features"], ge=1)
    _real(f, "length_scale", p["length_scale"], gt=0.0)
    _real(f, "output_scale", p["output_scale"], gt=0.0)
    _integer(f, "seed", p["seed"], ge=0, le=2**63 - 1)


def _nrff_noise_scale(p: dict, P: np.ndarray) -> np.ndarray:
    """Per-row noise scale ``softplus(g(parents))`` with ``g`` a random-Fourier-feature function.

    ``g(x) = output_scale * sqrt(2 / D) * sum_j a_j cos(w_j . x + b_j)`` with
    ``w_j ~ N(0, I / length_scale^2)``, ``b_j ~ U[0, 2 pi)``, ``a_j ~ N(0, 1)``, ``D =
    n_features``, drawn from ``numpy.random.default_rng(seed)`` for the parents' dimension k
    (so the function is fixed by the parameters). Parents enter on their raw scale.
    """
    n, k = P.shape
    D = int(p["n_features"])
    frng = np.random.default_rng(int(p["seed"]))
    W = frng.standard_normal((k, D)) / float(p["length_scale"])
    b = frng.uniform(0.0, 2.0 * np.pi, D)
    a = frng.standard_normal(D)
    coef = float(p["output_scale"]) * np.sqrt(2.0 / D)
    g = np.empty(n, dtype=_F64)
    chunk = 16384
    for start in range(0, n, chunk):
        rows = slice(start, start + chunk)
        g[rows] = coef * (np.cos(P[rows] @ W + b) @ a)
    return np.logaddexp(0.0, g)


def _nrff_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """RFF-heteroskedastic Gaussian noise: ``signal + softplus(g(parents)) * N(0, 1)``.

    Parameters
    ----------
    p : dict
        ``n_features`` (int >= 1), ``length_scale`` (> 0), ``output_scale`` (> 0), ``seed``
        (int >= 0) of the random Fourier features.
    signal : ndarray of shape (n,), float64
    parents : ndarray of shape (n, k), float64
    rng : numpy.random.Generator
        Draws the n standard normals only (the feature map comes from ``seed``).

    Returns
    -------
    ndarray of shape (n,), float64
    """
    s = _as_signal(signal)
    scale = _nrff_noise_scale(p, _parents_2d(parents, s.shape[0]))
    return s + scale * rng.standard_normal(s.shape[0])


# -- target R^2 -------------------------------------------------------------------------------
def _nr2_sample(rng: np.random.Generator) -> dict:
    """``r2`` ~ U[0.1, 0.9]; ``scale`` = None until :func:`_nr2_calibrate` (appendix A.1)."""
    return {"r2": float(rng.uniform(0.1, 0.9)), "scale": None}


def _nr2_validate(p: dict) -> None:
    _check_keys("target_r2", p, ("r2", "scale"))
    _real("target_r2", "r2", p["r2"], gt=0.0, lt=1.0)
    if p["scale"] is not None:
        _real("target_r2", "scale", p["scale"], gt=0.0)


def _nr2_calibrate(
    p: dict, pilot_signal: np.ndarray, pilot_parents: np.ndarray, rng: np.random.Generator
) -> dict:
    """Fix the Gaussian noise scale so that ``var(s) / (var(s) + scale^2) = r2`` on the pilot.

    ``scale = sqrt(var(pilot_signal) * (1 - r2) / r2)``. Returns a new dict; raises
    ``ValueError`` if the pilot signal has zero or non-finite variance.
    """
    var = float(np.var(_as_signal(pilot_signal)))
    if not math.isfinite(var) or var <= 0.0:
        raise ValueError(f"target_r2: pilot signal variance must be finite and > 0, got {var!r}")
    r2 = float(p["r2"])
    return {**p, "scale": float(math.sqrt(var * (1.0 - r2) / r2))}


def _nr2_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Target-R^2 Gaussian noise ``signal + scale * N(0, 1)`` with the calibrated ``scale``.

    Raises ``ValueError`` if ``scale`` is still ``None`` (not calibrated).
    """
    if p.get("scale") is None:
        raise ValueError("target_r2: parameter 'scale' is None; call calibrate on a pilot first")
    s = _as_signal(signal)
    return s + float(p["scale"]) * rng.standard_normal(s.shape[0])


# -- mixture outlier --------------------------------------------------------------------------
def _nmo_sample(rng: np.random.Generator) -> dict:
    """``base_scale`` ~ U[0.02, 0.15], ``outlier_prob`` ~ U[0.01, 0.08],
    ``outlier_scale`` ~ U[0.8, 2.5] (appendix A.1)."""
    return {
        "base_scale": float(rng.uniform(0.02, 0.15)),
        "outlier_prob": float(rng.uniform(0.01, 0.08)),
        "outlier_scale": float(rng.uniform(0.8, 2.5)),
    }


def _nmo_validate(p: dict) -> None:
    f = "mixture_outlier"
    _check_keys(f, p, ("base_scale", "outlier_prob", "outlier_scale"))
    _real(f, "base_scale", p["base_scale"], gt=0.0)
    _real(f, "outlier_prob", p["outlier_prob"], ge=0.0, le=1.0)
    _real(f, "outlier_scale", p["outlier_scale"], gt=0.0)


def _nmo_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Gaussian scale mixture: sd ``outlier_scale`` w.p. ``outlier_prob``, else ``base_scale``."""
    s = _as_signal(signal)
    n = s.shape[0]
    is_outlier = rng.random(n) < p["outlier_prob"]
    z = rng.standard_normal(n)
    return s + np.where(is_outlier, p["outlier_scale"], p["base_scale"]) * z


# -- quantized --------------------------------------------------------------------------------
def _nq_sample(rng: np.random.Generator) -> dict:
    """``scale`` ~ U[0.05, 0.45] (Gaussian range), ``step`` ~ U[0.05, 0.35] (appendix A.1)."""
    return {"scale": float(rng.uniform(0.05, 0.45)), "step": float(rng.uniform(0.05, 0.35))}


def _nq_validate(p: dict) -> None:
    _check_keys("quantized", p, ("scale", "step"))
    _real("quantized", "scale", p["scale"], gt=0.0)
    _real("quantized", "step", p["step"], gt=0.0)


def _nq_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Quantized noise: ``step * round((signal + scale * N(0, 1)) / step)`` (grid through 0)."""
    s = _as_signal(signal)
    step = float(p["step"])
    return step * np.round((s + p["scale"] * rng.standard_normal(s.shape[0])) / step)


# -- censored ---------------------------------------------------------------------------------
_CENSOR_PERCENTILES = (3.0, 97.0)


def _nc_sample(rng: np.random.Generator) -> dict:
    """``scale`` ~ U[0.05, 0.45] (Gaussian range); ``low``/``high`` = None until calibrated."""
    return {"scale": float(rng.uniform(0.05, 0.45)), "low": None, "high": None}


def _nc_validate(p: dict) -> None:
    _check_keys("censored", p, ("scale", "low", "high"))
    _real("censored", "scale", p["scale"], gt=0.0)
    if (p["low"] is None) != (p["high"] is None):
        raise ValueError(
            f"censored: parameters 'low' and 'high' must both be set or both be None, "
            f"got low={p['low']!r}, high={p['high']!r}"
        )
    if p["low"] is not None:
        low = _real("censored", "low", p["low"])
        _real("censored", "high", p["high"], gt=low)


def _nc_calibrate(
    p: dict, pilot_signal: np.ndarray, pilot_parents: np.ndarray, rng: np.random.Generator
) -> dict:
    """Store the 3rd and 97th percentiles of the Gaussian-noisy pilot as ``low``/``high``.

    Draws the pilot noise from ``rng`` exactly as :func:`_nc_apply` would (n standard normals).
    Returns a new dict.
    """
    s = _as_signal(pilot_signal)
    y = s + p["scale"] * rng.standard_normal(s.shape[0])
    low, high = np.percentile(y, _CENSOR_PERCENTILES)
    if not high > low:
        raise ValueError(
            f"censored: pilot percentiles do not span an interval (low={low!r}, high={high!r})"
        )
    return {**p, "low": float(low), "high": float(high)}


def _nc_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Censored noise: ``clip(signal + scale * N(0, 1), low, high)`` with calibrated bounds.

    Raises ``ValueError`` if ``low``/``high`` are ``None`` (not calibrated).
    """
    if p.get("low") is None or p.get("high") is None:
        raise ValueError("censored: parameters 'low'/'high' are None; call calibrate first")
    s = _as_signal(signal)
    y = s + p["scale"] * rng.standard_normal(s.shape[0])
    return np.clip(y, float(p["low"]), float(p["high"]))


def _nc_clip_bounds(p: dict) -> tuple[float, float] | None:
    """``(low, high)`` once calibrated, else ``None`` (nothing can have been clipped yet)."""
    if p.get("low") is None or p.get("high") is None:
        return None
    return float(p["low"]), float(p["high"])


# -- beta -------------------------------------------------------------------------------------
def _nb_sample(rng: np.random.Generator) -> dict:
    """``a``, ``b`` ~ U[1, 10], ``scale`` ~ U[0.05, 0.45] (appendix A.1)."""
    return {
        "a": float(rng.uniform(1.0, 10.0)),
        "b": float(rng.uniform(1.0, 10.0)),
        "scale": float(rng.uniform(0.05, 0.45)),
    }


def _nb_validate(p: dict) -> None:
    _check_keys("beta", p, ("a", "b", "scale"))
    _real("beta", "a", p["a"], gt=0.0)
    _real("beta", "b", p["b"], gt=0.0)
    _real("beta", "scale", p["scale"], gt=0.0)


def _nb_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Centred beta noise ``signal + scale * (Beta(a, b) - a / (a + b))`` (support width scale)."""
    s = _as_signal(signal)
    a, b = float(p["a"]), float(p["b"])
    return s + p["scale"] * (rng.beta(a, b, s.shape[0]) - a / (a + b))


# -- exponential ------------------------------------------------------------------------------
def _ne_sample(rng: np.random.Generator) -> dict:
    """``rate`` ~ U[0.8, 4.0], ``scale`` ~ U[0.03, 0.35] (appendix A.1)."""
    return {"rate": float(rng.uniform(0.8, 4.0)), "scale": float(rng.uniform(0.03, 0.35))}


def _ne_validate(p: dict) -> None:
    _check_keys("exponential", p, ("rate", "scale"))
    _real("exponential", "rate", p["rate"], gt=0.0)
    _real("exponential", "scale", p["scale"], gt=0.0)


def _ne_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Centred one-sided noise ``signal + scale * (Exp(rate) - 1 / rate)`` (right-skewed)."""
    s = _as_signal(signal)
    rate = float(p["rate"])
    return s + p["scale"] * (rng.exponential(1.0 / rate, s.shape[0]) - 1.0 / rate)


# -- gumbel -----------------------------------------------------------------------------------
def _ngu_sample(rng: np.random.Generator) -> dict:
    """``scale`` ~ U[0.03, 0.35] (appendix A.1)."""
    return {"scale": float(rng.uniform(0.03, 0.35))}


def _ngu_apply(p: dict, signal: np.ndarray, parents: np.ndarray, rng: np.random.Generator):
    """Centred Gumbel (maximum) noise ``signal + scale * (G - euler_gamma)``, G standard Gumbel."""
    s = _as_signal(signal)
    return s + p["scale"] * (rng.gumbel(0.0, 1.0, s.shape[0]) - np.euler_gamma)


# ---------------------------------------------------------------------------------------------
# Root dependency (paper appendix A.1, "Root dependency")
# ---------------------------------------------------------------------------------------------
def _clip_u(u: np.ndarray) -> np.ndarray:
    return np.clip(np.asarray(u, dtype=_F64), U_EPS, 1.0 - U_EPS)


def _check_r(family: str, r: Any) -> int:
    if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 1:
        raise ValueError(f"{family}: number of roots r must be a positive integer, got {r!r}")
    return int(r)


# -- common factor ----------------------------------------------------------------------------
def _cf_sample(rng: np.random.Generator, r: int) -> dict:
    """One ``rho`` ~ U[0.25, 0.75] per block; ``loadings_j = sign_j * rho``, random signs."""
    r = _check_r("common_factor", r)
    rho = float(rng.uniform(0.25, 0.75))
    signs = rng.choice(np.array([-1.0, 1.0]), size=r)
    return {"loadings": [float(s * rho) for s in signs]}


def _cf_validate(p: dict, r: int) -> None:
    r = _check_r("common_factor", r)
    _check_keys("common_factor", p, ("loadings",))
    for i, lam in enumerate(_real_list("common_factor", "loadings", p["loadings"], length=r)):
        if not -1.0 < lam < 1.0:
            raise ValueError(
                f"common_factor: parameter 'loadings[{i}]' must be in (-1, 1), got {lam!r}"
            )


def _cf_uniforms(p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """Common-factor Gaussian copula.

    ``z_j = lambda_j F + sqrt(1 - lambda_j^2) e_j`` with ``F, e_j ~ N(0, 1)`` i.i.d., so
    ``z_j ~ N(0, 1)`` and ``corr(z_j, z_k) = lambda_j lambda_k``; ``u_j = Phi(z_j)``.

    Parameters
    ----------
    p : dict
        ``loadings``: list of r floats in (-1, 1).
    n : int
        Number of rows.
    rng : numpy.random.Generator
        Draws n factor values then an (n, r) block of idiosyncratic normals.

    Returns
    -------
    ndarray of shape (n, r), float64 in (1e-12, 1 - 1e-12)
    """
    lam = np.asarray(p["loadings"], dtype=_F64)
    f = rng.standard_normal((n, 1))
    e = rng.standard_normal((n, lam.size))
    z = f * lam + e * np.sqrt(1.0 - lam**2)
    return _clip_u(special.ndtr(z))


# -- random covariance ------------------------------------------------------------------------
def _rc_sample(rng: np.random.Generator, r: int) -> dict:
    """Latent dim ``m`` ~ {1, ..., r}; ``factor`` L (r x m) with N(0, 1) entries; ``jitter`` 0.15."""
    r = _check_r("random_covariance", r)
    m = int(rng.integers(1, r + 1))
    return {"factor": rng.standard_normal((r, m)).tolist(), "jitter": 0.15}


def _rc_validate(p: dict, r: int) -> None:
    f = "random_covariance"
    r = _check_r(f, r)
    _check_keys(f, p, ("factor", "jitter"))
    L = p["factor"]
    if not isinstance(L, list | tuple) or len(L) != r:
        raise ValueError(f"{f}: parameter 'factor' must be a list of r={r} rows, got {L!r}")
    m = None
    for i, row in enumerate(L):
        vals = _real_list(f, f"factor[{i}]", row, min_len=1)
        if m is None:
            m = len(vals)
        elif len(vals) != m:
            raise ValueError(
                f"{f}: parameter 'factor' rows must all have the same length, "
                f"row 0 has {m} and row {i} has {len(vals)}"
            )
    _real(f, "jitter", p["jitter"], gt=0.0)


def _rc_uniforms(p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random-covariance Gaussian copula with covariance ``Sigma = L L^T + jitter I``.

    ``z = L f + sqrt(jitter) e`` with ``f ~ N(0, I_m)``, ``e ~ N(0, I_r)``; each column is mapped
    with its theoretical marginal, ``u_j = Phi(z_j / sqrt(Sigma_jj))``.

    Parameters
    ----------
    p : dict
        ``factor``: r lists of m floats (L); ``jitter``: float > 0 (0.15 in the paper).
    n : int
    rng : numpy.random.Generator
        Draws an (n, m) then an (n, r) block of standard normals.

    Returns
    -------
    ndarray of shape (n, r), float64 in (1e-12, 1 - 1e-12)
    """
    L = np.asarray(p["factor"], dtype=_F64)
    jitter = float(p["jitter"])
    r, m = L.shape
    f = rng.standard_normal((n, m))
    e = rng.standard_normal((n, r))
    z = f @ L.T + np.sqrt(jitter) * e
    sd = np.sqrt(np.sum(L**2, axis=1) + jitter)
    return _clip_u(special.ndtr(z / sd))


# -- uniform ball -----------------------------------------------------------------------------
def _ub_sample(rng: np.random.Generator, r: int) -> dict:
    """``scale`` ~ U[0.75, 2.0]; ``center`` coordinates ~ U[-0.5, 0.5] (appendix A.1)."""
    r = _check_r("uniform_ball", r)
    return {
        "scale": float(rng.uniform(0.75, 2.0)),
        "center": rng.uniform(-0.5, 0.5, r).tolist(),
    }


def _ub_validate(p: dict, r: int) -> None:
    r = _check_r("uniform_ball", r)
    _check_keys("uniform_ball", p, ("scale", "center"))
    _real("uniform_ball", "scale", p["scale"], gt=0.0)
    _real_list("uniform_ball", "center", p["center"], length=r)


def _ub_uniforms(p: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform-ball copula.

    A point ``x = center + scale * R * d`` with ``d`` uniform on the unit sphere of R^r and
    ``R = U^{1/r}`` is uniform in the ball of radius ``scale`` around ``center``. Columns are
    standardised with the theoretical moments (mean ``center_j``, sd ``scale / sqrt(r + 2)``),
    and mapped to uniforms with the theoretical marginal: a coordinate ``t`` of a uniform
    point of the unit r-ball satisfies ``(t + 1) / 2 ~ Beta((r + 1) / 2, (r + 1) / 2)``.

    Notes
    -----
    Scale, centre and standardisation are per-column increasing affine maps, so they cancel in
    the copula; the uniforms depend on them only through rounding. The ball's coordinates are
    uncorrelated (also in rank), but dependent: e.g. ``|t_1|`` and ``|t_2|`` are negatively
    correlated.

    Parameters
    ----------
    p : dict
        ``scale`` (> 0), ``center`` (list of r floats).
    n : int
    rng : numpy.random.Generator
        Draws an (n, r) block of standard normals then n uniforms.

    Returns
    -------
    ndarray of shape (n, r), float64 in (1e-12, 1 - 1e-12)
    """
    center = np.asarray(p["center"], dtype=_F64)
    scale = float(p["scale"])
    r = center.size
    g = rng.standard_normal((n, r))
    norm = np.maximum(np.linalg.norm(g, axis=1, keepdims=True), np.finfo(_F64).tiny)
    radius = rng.random((n, 1)) ** (1.0 / r)
    x = center + scale * radius * (g / norm)
    z = (x - center) / (scale / np.sqrt(r + 2.0))  # theoretical column standardisation
    t = np.clip(z / np.sqrt(r + 2.0), -1.0, 1.0)  # back to a unit-ball coordinate
    half = 0.5 * (r + 1.0)
    return _clip_u(special.betainc(half, half, 0.5 * (t + 1.0)))


# ---------------------------------------------------------------------------------------------
# Registries
# ---------------------------------------------------------------------------------------------
ROOTS: dict[str, RootFamily] = {
    f.name: f
    for f in (
        RootFamily("uniform", "continuous", _uniform_sample, _uniform_validate, _uniform_ppf),
        RootFamily("gaussian", "continuous", _gaussian_sample, _gaussian_validate, _gaussian_ppf),
        RootFamily(
            "truncated_gaussian", "continuous", _tgauss_sample, _tgauss_validate, _tgauss_ppf
        ),
        RootFamily(
            "lognormal", "continuous", _lognormal_sample, _lognormal_validate, _lognormal_ppf
        ),
        RootFamily("gamma", "continuous", _gamma_sample, _gamma_validate, _gamma_ppf),
        RootFamily("scaled_beta", "continuous", _sbeta_sample, _sbeta_validate, _sbeta_ppf),
        RootFamily("exponential", "continuous", _exp_sample, _exp_validate, _exp_ppf),
        RootFamily("gumbel", "continuous", _gumbel_sample, _gumbel_validate, _gumbel_ppf),
        RootFamily("bernoulli", "binary", _bern_sample, _bern_validate, _bern_ppf),
        RootFamily("poisson", "count", _pois_sample, _pois_validate, _pois_ppf),
        RootFamily(
            "ordinal_categorical", "ordinal", _ordinal_sample, _ordinal_validate, _ordinal_ppf
        ),
        RootFamily("mixture_gaussian", "continuous", _mix_sample, _mix_validate, _mix_ppf),
        RootFamily("multinomial", "categorical", _multi_sample, _multi_validate, _multi_ppf),
        RootFamily("zipf", "count", _zipf_sample, _zipf_validate, _zipf_ppf),
    )
}
"""The 14 root distributions of appendix A.1, keyed by name."""

ROOT_FAMILIES: tuple[str, ...] = tuple(ROOTS)
"""Root family names in the paper's order."""


def _noise(name, sample, validate, apply, calibrate=_identity_calibrate, clip=_no_clip):
    return NoiseFamily(name, sample, validate, apply, calibrate, clip)


NOISES: dict[str, NoiseFamily] = {
    f.name: f
    for f in (
        _noise("gaussian", _ng_sample, _scale_only_validate("gaussian"), _ng_apply),
        _noise("uniform", _ng_sample, _scale_only_validate("uniform"), _nu_apply),
        _noise("laplace", _nl_sample, _scale_only_validate("laplace"), _nl_apply),
        _noise("student_t", _nt_sample, _nt_validate, _nt_apply),
        _noise("multiplicative_lognormal", _nml_sample, _nml_validate, _nml_apply),
        _noise("heteroskedastic", _nh_sample, _nh_validate, _nh_apply),
        _noise("rff_heteroskedastic", _nrff_sample, _nrff_validate, _nrff_apply),
        _noise("target_r2", _nr2_sample, _nr2_validate, _nr2_apply, calibrate=_nr2_calibrate),
        _noise("mixture_outlier", _nmo_sample, _nmo_validate, _nmo_apply),
        _noise("quantized", _nq_sample, _nq_validate, _nq_apply),
        _noise(
            "censored",
            _nc_sample,
            _nc_validate,
            _nc_apply,
            calibrate=_nc_calibrate,
            clip=_nc_clip_bounds,
        ),
        _noise("beta", _nb_sample, _nb_validate, _nb_apply),
        _noise("exponential", _ne_sample, _ne_validate, _ne_apply),
        _noise("gumbel", _ngu_sample, _scale_only_validate("gumbel"), _ngu_apply),
        _noise("none", lambda rng: {}, _none_validate, _none_apply),
    )
}
"""The structural noise channels of appendix A.1 (14 noisy families plus ``"none"``)."""

NOISE_FAMILIES: tuple[str, ...] = tuple(k for k in NOISES if k != "none")
"""Noisy family names in the paper's order (``"none"`` excluded)."""

DEPENDENCIES: dict[str, DependencyFamily] = {
    f.name: f
    for f in (
        DependencyFamily("common_factor", _cf_sample, _cf_validate, _cf_uniforms),
        DependencyFamily("random_covariance", _rc_sample, _rc_validate, _rc_uniforms),
        DependencyFamily("uniform_ball", _ub_sample, _ub_validate, _ub_uniforms),
    )
}
"""The three dependent root-block samplers of appendix A.1."""


def sample_root(params_family: str, params: dict, n: int, rng: np.random.Generator) -> np.ndarray:
    """Sample ``n`` independent draws of a root family.

    Parameters
    ----------
    params_family : str
        Key of ``ROOTS``.
    params : dict
        Family parameters (validated first).
    n : int
        Number of draws.
    rng : numpy.random.Generator
        Consumes exactly ``n`` uniforms.

    Returns
    -------
    ndarray of shape (n,), float64
        ``ppf(params, u)`` with ``u = rng.random(n)`` clipped into ``(1e-12, 1 - 1e-12)``.

    Examples
    --------
    >>> import numpy as np
    >>> x = sample_root("gaussian", {"mean": 0.0, "std": 1.0}, 5, np.random.default_rng(0))
    >>> x.shape, x.dtype
    ((5,), dtype('float64'))
    """
    family = ROOTS.get(params_family)
    if family is None:
        raise ValueError(f"unknown root family {params_family!r}; known: {sorted(ROOTS)}")
    family.validate(params)
    u = np.clip(rng.random(n), U_EPS, 1.0 - U_EPS)
    return np.asarray(family.ppf(params, u), dtype=_F64)
