"""Local structural mechanisms of the synthetic SCM family (CausalArena paper, appendix A.1).

The paper's appendix A.1 ("Mechanisms") lists 17 mechanism forms.  Two of them, the
multiplicative parent product and the random-function product, are scored under one tag, so
the analyses use 16 mechanism tags.  Each form is a :class:`MechanismFamily`: a sampler of
small, JSON-serialisable parameters, a validator and a pure, vectorised evaluator
``evaluate(params, P)`` that maps the ``(n, k)`` parent matrix of a node to its ``(n,)``
deterministic signal (the caller standardises continuous outputs and adds noise).

Forms, their scoring tags (the row labels of the paper's mechanism figure) and output kinds:

========================  ===========================  ==========
form (key of MECHANISMS)  tag                          output
========================  ===========================  ==========
linear                    linear_additive              continuous
polynomial                polynomial_power             continuous
multiplicative_product    multiplicative               continuous
random_function_product   multiplicative               continuous
interaction               linear_additive_interaction  continuous
rational                  rational_ratio               continuous
exp_log                   exp_log                      continuous
periodic                  trig_periodic                continuous
piecewise                 piecewise_threshold          continuous
saturation                saturation_clip              continuous
mixture_regime            mixture_regime               continuous
random_neural             neural_random                continuous
rff_gp                    rff_gp                       continuous
activation                activation_additive          continuous
tree                      tree_based                   continuous
discretization            discretization_assignment    ordinal
aggregation               aggregation_nonlinear        continuous
========================  ===========================  ==========

Conventions shared by all families (choices where the paper is silent):

* Sampling ranges are those of A.1.  Where A.1 only says "weights scaled by c/sqrt(k)", a base
  weight is ``sign * U[0.5, 1.5]`` (bounded away from zero, so every parent matters) times
  ``c / sqrt(k)``.
* Every parent influences the output: validators reject zero per-parent weights, and the
  forms that could ignore a parent (tree, discretization) are built so they cannot.
* Inputs are raw parent values.  Each evaluator clips them to ``[-1e6, 1e6]`` (no effect on
  realistic data) so that every output is finite for every finite input; exponentials take
  inputs clipped to ``[-3, 3]`` and ratio denominators are bounded below by a positive offset.
* Evaluators are pure functions of ``(params, P)`` and row-wise (row ``i`` of the output
  depends on row ``i`` of ``P`` only), so a pilot-calibrated standardisation stays valid on
  interventional data.  There is no loop over rows.
* Large random weight tables (random neural nets, random Fourier features) are stored as an
  integer ``seed`` and regenerated with ``np.random.default_rng(seed)``; only its uniform
  stream ``Generator.random`` is used (normals via Box-Muller), the most stable part of
  NumPy's generator API.  Everything else is stored explicitly as lists.
* Validators accept hand-written parameters outside the sampling ranges but inside wider
  sanity bounds (e.g. ``n_bins`` in 2..50); they raise :class:`ValueError` naming the
  parameter and its value, also for missing or unknown keys.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = ["MECHANISMS", "MECHANISM_TAGS", "MechanismFamily"]

#: Parent values are clipped to this magnitude inside every evaluator.
INPUT_CLIP = 1e6
#: Exponential inputs are clipped to ``[-EXP_CLIP, EXP_CLIP]`` (paper A.1).
EXP_CLIP = 3.0
_SEED_MAX = 2**32 - 1
_LEAKY_SLOPE = 0.1
_SELU_ALPHA = 1.6732632423543772
_SELU_LAMBDA = 1.0507009873554805
#: Reference sample of the rank transform: the 64 mid-quantiles of N(0, 1).
_RANK_REFERENCE = np.array([NormalDist().inv_cdf((i + 0.5) / 64) for i in range(64)])


@dataclass(frozen=True)
class MechanismFamily:
    """One mechanism form of paper appendix A.1.

    Attributes
    ----------
    name : str
        Form name, the key in :data:`MECHANISMS`.
    tag : str
        Scoring tag (16 distinct tags over the 17 forms).
    output_kind : str
        ``"continuous"`` or ``"ordinal"`` (integer codes ``0..n_bins-1``).
    sample_params : callable
        ``(rng, n_parents) -> dict`` of plain JSON-serialisable python values.
    validate : callable
        ``(params, n_parents) -> None``; raises ``ValueError`` naming the bad parameter.
    evaluate : callable
        ``(params, P) -> ndarray of shape (n,)`` for ``P`` of shape ``(n, n_parents)``.
    """

    name: str
    tag: str
    output_kind: str
    sample_params: Callable[[np.random.Generator, int], dict]
    validate: Callable[[dict, int], None]
    evaluate: Callable[[dict, np.ndarray], np.ndarray]


# --------------------------------------------------------------------------------------------
# helpers: inputs, elementwise functions, seeded weights
# --------------------------------------------------------------------------------------------


def _parents(P: np.ndarray, k: int) -> np.ndarray:
    """Return ``P`` as float64 ``(n, k)``, clipped to ``[-INPUT_CLIP, INPUT_CLIP]``."""
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] != k:
        raise ValueError(f"P must have shape (n, {k}) for these params, got shape {P.shape}")
    return np.clip(P, -INPUT_CLIP, INPUT_CLIP)


def _sigmoid(u: np.ndarray) -> np.ndarray:
    """Overflow-free logistic function."""
    return 0.5 * (1.0 + np.tanh(0.5 * u))


def _slog(u: np.ndarray) -> np.ndarray:
    """Signed log, ``sign(u) * log(1 + |u|)``."""
    return np.sign(u) * np.log1p(np.abs(u))


def _signed_product(F: np.ndarray) -> np.ndarray:
    """Row products of ``F`` computed in the log domain (magnitude capped at ``exp(700)``)."""
    absF = np.abs(F)
    logmag = np.log(np.maximum(absF, 1e-300)).sum(axis=1)
    sign = np.where(np.count_nonzero(F < 0, axis=1) % 2 == 1, -1.0, 1.0)
    out = sign * np.exp(np.minimum(logmag, 700.0))
    return np.where((absF == 0).any(axis=1), 0.0, out)


@functools.lru_cache(maxsize=256)
def _seeded_draws(seed: int, n_normal: int, n_uniform: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Standard normals (Box-Muller) and U[0, 1) draws regenerated from an integer seed.

    Cached (a pure function of its arguments; the arrays are read-only), so a mechanism
    evaluated again -- calibration pilot, then each sample of the same spec -- does not redraw
    its weights.
    """
    z, u = _seeded_draws_uncached(seed, n_normal, n_uniform)
    z.flags.writeable = False
    u.flags.writeable = False
    return z, u


def _seeded_draws_uncached(
    seed: int, n_normal: int, n_uniform: int
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    m = (n_normal + 1) // 2
    u1 = 1.0 - rng.random(m)  # in (0, 1]
    u2 = rng.random(m)
    r = np.sqrt(-2.0 * np.log(u1))
    z = np.concatenate([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)])[:n_normal]
    return z, rng.random(n_uniform)


# --------------------------------------------------------------------------------------------
# helpers: sampling (always return plain python values)
# --------------------------------------------------------------------------------------------


def _signed(rng: np.random.Generator, lo: float, hi: float, size: int) -> np.ndarray:
    return rng.uniform(lo, hi, size) * rng.choice(np.array([-1.0, 1.0]), size)


def _scaled_weights(rng: np.random.Generator, k: int, c: float = 0.8) -> list[float]:
    """``sign * U[0.5, 1.5] * c / sqrt(k)``, the A.1 weight scaling."""
    return _floats(_signed(rng, 0.5, 1.5, k) * c / math.sqrt(k))


def _floats(a) -> list[float]:
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def _u(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(rng.uniform(lo, hi))


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, _SEED_MAX, endpoint=True))


# --------------------------------------------------------------------------------------------
# helpers: validation (messages name the parameter and its value)
# --------------------------------------------------------------------------------------------


def _keys(p: dict, required: tuple[str, ...]) -> None:
    if not isinstance(p, dict):
        raise ValueError(f"params must be a dict, got {p!r}")
    for key in required:
        if key not in p:
            raise ValueError(f"missing parameter {key!r} (required: {', '.join(required)})")
    for key in p:
        if key not in required:
            raise ValueError(
                f"unknown parameter {key!r} = {p[key]!r} (allowed: {', '.join(required)})"
            )


def _is_num(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _num(p: dict, key: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    x = p[key]
    if not _is_num(x):
        raise ValueError(f"{key} must be a finite number, got {x!r}")
    if not lo <= x <= hi:
        raise ValueError(f"{key} must be in [{lo}, {hi}], got {x!r}")
    return float(x)


def _pos(p: dict, key: str) -> float:
    x = p[key]
    if not _is_num(x) or x <= 0:
        raise ValueError(f"{key} must be a finite number > 0, got {x!r}")
    return float(x)


def _int(p: dict, key: str, lo: int, hi: int) -> int:
    x = p[key]
    if not isinstance(x, numbers.Integral) or isinstance(x, bool) or not lo <= x <= hi:
        raise ValueError(f"{key} must be an integer in {lo}..{hi}, got {x!r}")
    return int(x)


def _choice(p: dict, key: str, options) -> str:
    x = p[key]
    if x not in options:
        raise ValueError(f"{key} must be one of {sorted(options)}, got {x!r}")
    return x


def _vec(
    p: dict,
    key: str,
    n: int,
    *,
    nonzero: bool = False,
    positive: bool = False,
    lo: float = -math.inf,
    hi: float = math.inf,
) -> list[float]:
    x = p[key]
    if not isinstance(x, list | tuple) or len(x) != n:
        raise ValueError(f"{key} must have {n} entries, got {x!r}")
    for i, v in enumerate(x):
        if not _is_num(v):
            raise ValueError(f"{key}[{i}] must be a finite number, got {v!r}")
        if nonzero and v == 0:
            raise ValueError(
                f"{key}[{i}] must be nonzero (every parent must influence the output), got {v!r}"
            )
        if positive and v <= 0:
            raise ValueError(f"{key}[{i}] must be > 0, got {v!r}")
        if not lo <= v <= hi:
            raise ValueError(f"{key}[{i}] must be in [{lo}, {hi}], got {v!r}")
    return [float(v) for v in x]


def _n_parents(p: dict, k: int) -> None:
    if p["n_parents"] != k or isinstance(p["n_parents"], bool):
        raise ValueError(f"n_parents must equal the number of parents {k}, got {p['n_parents']!r}")


# --------------------------------------------------------------------------------------------
# 1. linear additive
# --------------------------------------------------------------------------------------------


def _linear_sample(rng: np.random.Generator, k: int) -> dict:
    """Weights ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``, bias ``U[-0.5, 0.5]``."""
    return {"weights": _scaled_weights(rng, k), "bias": _u(rng, -0.5, 0.5)}


def _linear_validate(p: dict, k: int) -> None:
    _keys(p, ("weights", "bias"))
    _vec(p, "weights", k, nonzero=True)
    _num(p, "bias")


def _linear_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Linear additive mechanism.

    ``s = sum_j w_j x_j + b``.

    Parameters
    ----------
    p : dict
        ``weights`` : list of k nonzero floats, sampled ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``;
        ``bias`` : float, sampled in ``[-0.5, 0.5]``.
    P : ndarray of shape (n, k), float64
        Parent values, column order = parent order.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    return X @ w + float(p["bias"])


# --------------------------------------------------------------------------------------------
# 2. polynomial additive
# --------------------------------------------------------------------------------------------


def _polynomial_sample(rng: np.random.Generator, k: int) -> dict:
    """Per parent a degree in 2..4 and coefficients of ``x, x^2, ..., x^p`` (see evaluate)."""
    lin = _scaled_weights(rng, k)
    coefs = []
    for j in range(k):
        degree = int(rng.integers(2, 5))
        c = [lin[j], float(_signed(rng, 0.1, 0.5, 1)[0])]
        if degree >= 3:
            c.append(float(_signed(rng, 0.03, 0.15, 1)[0]))
        if degree == 4:
            c.append(float(_signed(rng, 0.01, 0.05, 1)[0]))
        coefs.append(c)
    return {"coefs": coefs, "bias": _u(rng, -0.5, 0.5)}


def _polynomial_validate(p: dict, k: int) -> None:
    _keys(p, ("coefs", "bias"))
    coefs = p["coefs"]
    if not isinstance(coefs, list | tuple) or len(coefs) != k:
        raise ValueError(f"coefs must have {k} entries (one list per parent), got {coefs!r}")
    for j, c in enumerate(coefs):
        if not isinstance(c, list | tuple) or not 2 <= len(c) <= 4:
            raise ValueError(
                f"coefs[{j}] must be a list of 2..4 coefficients (of x^1..x^p), got {c!r}"
            )
        _vec({f"coefs[{j}]": c}, f"coefs[{j}]", len(c))
        if all(v == 0 for v in c):
            raise ValueError(f"coefs[{j}] must have a nonzero entry (parent {j} unused), got {c!r}")
    _num(p, "bias")


def _polynomial_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Polynomial additive mechanism.

    ``s = b + sum_j sum_{d=1}^{p_j} c_{j,d} x_j^d`` with a per-parent degree ``p_j`` in 2..4.

    Parameters
    ----------
    p : dict
        ``coefs`` : list of k lists; ``coefs[j]`` holds ``c_{j,1}, ..., c_{j,p_j}`` (its length is
        the power ``p_j``, sampled in 2..4).  Sampling: linear coefficient
        ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``; quadratic in ``[-0.5, 0.5]`` and cubic in
        ``[-0.15, 0.15]`` (A.1; magnitudes drawn from ``[0.1, 0.5]`` and ``[0.03, 0.15]`` so the
        nonlinearity is never negligible); quartic in ``±[0.01, 0.05]`` (A.1 is silent).
        ``bias`` : float in ``[-0.5, 0.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    coefs = p["coefs"]
    X = _parents(P, len(coefs))
    s = np.full(X.shape[0], float(p["bias"]))
    for j, c in enumerate(coefs):
        x = X[:, j]
        acc = np.zeros_like(x)
        for coef in reversed(c):  # Horner: (((c_p) x + c_{p-1}) x + ...) x
            acc = (acc + float(coef)) * x
        s += acc
    return s


# --------------------------------------------------------------------------------------------
# 3a. multiplicative parent product
# --------------------------------------------------------------------------------------------


def _multiplicative_product_sample(rng: np.random.Generator, k: int) -> dict:
    """Weights ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``, biases ``U[-0.4, 0.4]``."""
    return {"weights": _scaled_weights(rng, k), "biases": _floats(rng.uniform(-0.4, 0.4, k))}


def _multiplicative_product_validate(p: dict, k: int) -> None:
    _keys(p, ("weights", "biases"))
    _vec(p, "weights", k, nonzero=True)
    _vec(p, "biases", k)


def _multiplicative_product_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Multiplicative parent product.

    ``f_j = w_j x_j + b_j`` and ``s = prod_j f_j`` for ``k >= 2``.  For a single parent the
    product of one factor would be affine, so ``s = f_1 |f_1|`` (the parent effect multiplied
    by its own magnitude; a choice, A.1 is silent).  The product is computed in the log domain
    and capped at ``exp(700)`` in magnitude.

    Parameters
    ----------
    p : dict
        ``weights`` : list of k nonzero floats, ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``;
        ``biases`` : list of k floats in ``[-0.4, 0.4]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    F = X * w + np.asarray(p["biases"], dtype=np.float64)
    if w.size == 1:
        return F[:, 0] * np.abs(F[:, 0])
    return _signed_product(F)


# --------------------------------------------------------------------------------------------
# 3b. random-function product
# --------------------------------------------------------------------------------------------

_UNIT_FUNCTIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "sin": np.sin,
    "sigmoid": _sigmoid,
    "gauss": lambda u: np.exp(-np.minimum(u * u, 700.0)),
    "softsign": lambda u: u / (1.0 + np.abs(u)),
    "arctan": lambda u: (2.0 / np.pi) * np.arctan(u),
}


def _random_function_product_sample(rng: np.random.Generator, k: int) -> dict:
    """Random bounded function per parent, slopes ``±U[0.5, 2]``, shifts ``U[-1, 1]``."""
    names = sorted(_UNIT_FUNCTIONS)
    return {
        "functions": [names[int(i)] for i in rng.integers(0, len(names), k)],
        "slopes": _floats(_signed(rng, 0.5, 2.0, k)),
        "shifts": _floats(rng.uniform(-1.0, 1.0, k)),
        "scale": _u(rng, 0.4, 1.6),
    }


def _random_function_product_validate(p: dict, k: int) -> None:
    _keys(p, ("functions", "slopes", "shifts", "scale"))
    funcs = p["functions"]
    if not isinstance(funcs, list | tuple) or len(funcs) != k:
        raise ValueError(f"functions must have {k} entries, got {funcs!r}")
    for j, f in enumerate(funcs):
        if f not in _UNIT_FUNCTIONS:
            raise ValueError(f"functions[{j}] must be one of {sorted(_UNIT_FUNCTIONS)}, got {f!r}")
    _vec(p, "slopes", k, nonzero=True)
    _vec(p, "shifts", k)
    _pos(p, "scale")


def _random_function_product_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Random-function product.

    ``s = scale * prod_j g_j(a_j x_j + c_j)`` where each ``g_j`` is a bounded random function
    from ``{tanh, sin, sigmoid, gauss = exp(-u^2), softsign = u / (1 + |u|),
    arctan = 2 arctan(u) / pi}`` (the function set is a choice; A.1 is silent).

    Parameters
    ----------
    p : dict
        ``functions`` : list of k names; ``slopes`` : list of k nonzero floats, ``±U[0.5, 2]``;
        ``shifts`` : list of k floats, ``U[-1, 1]``; ``scale`` : float > 0, output scale
        ``U[0.4, 1.6]`` (A.1).
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    funcs = p["functions"]
    X = _parents(P, len(funcs))
    U = X * np.asarray(p["slopes"], dtype=np.float64) + np.asarray(p["shifts"], dtype=np.float64)
    s = np.full(X.shape[0], float(p["scale"]))
    for j, f in enumerate(funcs):
        s = s * _UNIT_FUNCTIONS[f](U[:, j])
    return s


# --------------------------------------------------------------------------------------------
# 4. additive interaction
# --------------------------------------------------------------------------------------------


def _interaction_sample(rng: np.random.Generator, k: int) -> dict:
    """Main effects as linear; 1..3 distinct parent pairs, weights ``±U[0.5,1.5] * 0.5/sqrt(m)``."""
    if k == 1:
        pairs = [[0, 0]]
    else:
        all_pairs = [[a, b] for a in range(k) for b in range(a + 1, k)]
        m = int(rng.integers(1, min(3, len(all_pairs)) + 1))
        pairs = [all_pairs[int(i)] for i in rng.choice(len(all_pairs), m, replace=False)]
    m = len(pairs)
    return {
        "weights": _scaled_weights(rng, k),
        "pairs": pairs,
        "pair_weights": _scaled_weights(rng, m, c=0.5),
        "bias": _u(rng, -0.5, 0.5),
    }


def _interaction_validate(p: dict, k: int) -> None:
    _keys(p, ("weights", "pairs", "pair_weights", "bias"))
    _vec(p, "weights", k, nonzero=True)
    pairs = p["pairs"]
    n_max = 1 if k == 1 else k * (k - 1) // 2
    if not isinstance(pairs, list | tuple) or not 1 <= len(pairs) <= n_max:
        raise ValueError(f"pairs must be a list of 1..{n_max} parent pairs, got {pairs!r}")
    seen = set()
    for i, pair in enumerate(pairs):
        ok = (
            isinstance(pair, list | tuple)
            and len(pair) == 2
            and all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in pair)
            and all(0 <= a < k for a in pair)
            and (pair[0] < pair[1] or k == 1)
        )
        if not ok:
            need = "[0, 0]" if k == 1 else f"[a, b] with 0 <= a < b < {k}"
            raise ValueError(f"pairs[{i}] must be {need}, got {pair!r}")
        if tuple(pair) in seen:
            raise ValueError(f"pairs[{i}] is a duplicate pair, got {pair!r}")
        seen.add(tuple(pair))
    _vec(p, "pair_weights", len(pairs), nonzero=True)
    _num(p, "bias")


def _interaction_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Additive interaction mechanism.

    ``s = sum_j w_j x_j + sum_{(a, b) in pairs} v_ab x_a x_b + bias``.

    With one parent there is no pair of distinct parents; the single "pair" is ``(0, 0)``,
    i.e. a quadratic self-interaction ``w x + v x^2 + bias`` (a choice; A.1 is silent).  The
    main effects keep every parent in the equation even when it is in no pair.

    Parameters
    ----------
    p : dict
        ``weights`` : list of k nonzero floats, ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``;
        ``pairs`` : list of m ``[a, b]`` parent index pairs, ``a < b``, m in ``1..min(3, k(k-1)/2)``
        (A.1: up to three pairs); ``pair_weights`` : list of m nonzero floats,
        ``sign * U[0.5, 1.5] * 0.5 / sqrt(m)`` (A.1); ``bias`` : float in ``[-0.5, 0.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    s = X @ w + float(p["bias"])
    for (a, b), v in zip(p["pairs"], p["pair_weights"], strict=True):
        s = s + float(v) * X[:, int(a)] * X[:, int(b)]
    return s


# --------------------------------------------------------------------------------------------
# 5. rational / ratio
# --------------------------------------------------------------------------------------------

_MIN_OFFSET = 0.05


def _rational_sample(rng: np.random.Generator, k: int) -> dict:
    """Numerator/denominator weights as linear, offset ``U[0.5, 1.5]``."""
    return {
        "num_weights": _scaled_weights(rng, k),
        "num_bias": _u(rng, -0.5, 0.5),
        "den_weights": _scaled_weights(rng, k),
        "den_bias": _u(rng, -0.5, 0.5),
        "offset": _u(rng, 0.5, 1.5),
    }


def _rational_validate(p: dict, k: int) -> None:
    _keys(p, ("num_weights", "num_bias", "den_weights", "den_bias", "offset"))
    _vec(p, "num_weights", k, nonzero=True)
    _num(p, "num_bias")
    _vec(p, "den_weights", k, nonzero=True)
    _num(p, "den_bias")
    off = p["offset"]
    if not _is_num(off) or off < _MIN_OFFSET:
        raise ValueError(
            f"offset must be a number >= {_MIN_OFFSET} (denominator bounded away from 0), "
            f"got {off!r}"
        )


def _rational_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Denominator-safe rational mechanism.

    ``s = (a . x + b) / (offset + (d . x + e)^2)``; the denominator is at least ``offset``
    (>= 0.05, sampled in ``[0.5, 1.5]``), never near zero.  The exact ratio form is a choice
    (A.1 only requires bounded offsets); it behaves like ``x / (1 + x^2)``: rising, then
    decaying for large denominators.

    Parameters
    ----------
    p : dict
        ``num_weights``, ``den_weights`` : lists of k nonzero floats,
        ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``; ``num_bias``, ``den_bias`` : floats in
        ``[-0.5, 0.5]``; ``offset`` : float >= 0.05, sampled in ``[0.5, 1.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    a = np.asarray(p["num_weights"], dtype=np.float64)
    X = _parents(P, a.size)
    num = X @ a + float(p["num_bias"])
    u = X @ np.asarray(p["den_weights"], dtype=np.float64) + float(p["den_bias"])
    return num / (float(p["offset"]) + u * u)


# --------------------------------------------------------------------------------------------
# 6. exponential / log
# --------------------------------------------------------------------------------------------


def _exp_log_sample(rng: np.random.Generator, k: int) -> dict:
    """Per parent ``exp`` or ``slog``; slopes ``±U[0.5,1.5]``, shifts ``U[-0.5,0.5]``."""
    return {
        "kinds": ["exp" if b else "slog" for b in rng.random(k) < 0.5],
        "slopes": _floats(_signed(rng, 0.5, 1.5, k)),
        "shifts": _floats(rng.uniform(-0.5, 0.5, k)),
        "coefs": _scaled_weights(rng, k, c=1.0),
        "bias": _u(rng, -0.5, 0.5),
    }


def _exp_log_validate(p: dict, k: int) -> None:
    _keys(p, ("kinds", "slopes", "shifts", "coefs", "bias"))
    kinds = p["kinds"]
    if not isinstance(kinds, list | tuple) or len(kinds) != k:
        raise ValueError(f"kinds must have {k} entries, got {kinds!r}")
    for j, kind in enumerate(kinds):
        if kind not in ("exp", "slog"):
            raise ValueError(f"kinds[{j}] must be 'exp' or 'slog', got {kind!r}")
    _vec(p, "slopes", k, nonzero=True)
    _vec(p, "shifts", k)
    _vec(p, "coefs", k, nonzero=True)
    _num(p, "bias")


def _exp_log_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Exponential / log mechanism.

    ``u_j = a_j x_j + c_j``; ``t_j = exp(clip(u_j, -3, 3))`` (kind ``"exp"``, the A.1 clip) or
    ``t_j = sign(u_j) log(1 + |u_j|)`` (kind ``"slog"``, signed log); ``s = sum_j g_j t_j + b``.
    Each parent gets ``"exp"`` or ``"slog"`` with probability 1/2 (a choice).

    Parameters
    ----------
    p : dict
        ``kinds`` : list of k of ``"exp"``/``"slog"``; ``slopes`` : k nonzero floats,
        ``±U[0.5, 1.5]``; ``shifts`` : k floats, ``U[-0.5, 0.5]``; ``coefs`` : k nonzero floats,
        ``±U[0.5, 1.5] / sqrt(k)``; ``bias`` : float in ``[-0.5, 0.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    is_exp = np.array([kind == "exp" for kind in p["kinds"]], dtype=bool)
    X = _parents(P, is_exp.size)
    U = X * np.asarray(p["slopes"], dtype=np.float64) + np.asarray(p["shifts"], dtype=np.float64)
    T = np.where(is_exp, np.exp(np.clip(U, -EXP_CLIP, EXP_CLIP)), _slog(U))
    return T @ np.asarray(p["coefs"], dtype=np.float64) + float(p["bias"])


# --------------------------------------------------------------------------------------------
# 7. trigonometric / periodic
# --------------------------------------------------------------------------------------------


def _periodic_sample(rng: np.random.Generator, k: int) -> dict:
    """Frequencies ``±U[0.5, 2.5]``, phases ``U[0, 2 pi)``, amplitudes ``±U[0.5,1.5]/sqrt(k)``."""
    return {
        "freqs": _floats(_signed(rng, 0.5, 2.5, k)),
        "phases": _floats(rng.uniform(0.0, 2 * np.pi, k)),
        "amps": _scaled_weights(rng, k, c=1.0),
        "bias": _u(rng, -0.5, 0.5),
    }


def _periodic_validate(p: dict, k: int) -> None:
    _keys(p, ("freqs", "phases", "amps", "bias"))
    _vec(p, "freqs", k, nonzero=True)
    _vec(p, "phases", k)
    _vec(p, "amps", k, nonzero=True)
    _num(p, "bias")


def _periodic_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Trigonometric / periodic mechanism.

    ``s = sum_j A_j sin(f_j x_j + phi_j) + b`` (a cosine is a sine with shifted phase).

    Parameters
    ----------
    p : dict
        ``freqs`` : k nonzero floats, ``±U[0.5, 2.5]``; ``phases`` : k floats, ``U[0, 2 pi)``;
        ``amps`` : k nonzero floats, ``±U[0.5, 1.5] / sqrt(k)``; ``bias`` : float in
        ``[-0.5, 0.5]``.  (Frequency and amplitude ranges are choices; A.1 only says
        "randomized frequency and phase".)
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    f = np.asarray(p["freqs"], dtype=np.float64)
    X = _parents(P, f.size)
    S = np.sin(X * f + np.asarray(p["phases"], dtype=np.float64))
    return S @ np.asarray(p["amps"], dtype=np.float64) + float(p["bias"])


# --------------------------------------------------------------------------------------------
# 8. piecewise / threshold
# --------------------------------------------------------------------------------------------


def _piecewise_sample(rng: np.random.Generator, k: int) -> dict:
    """Cutoffs ``[-0.6,0.6]``, low slopes ``[0.2,1]``, high ``[1,2.5]``, offsets ``[-1.5,1.5]``."""
    return {
        "cutoffs": _floats(rng.uniform(-0.6, 0.6, k)),
        "low_slopes": _floats(rng.uniform(0.2, 1.0, k)),
        "high_slopes": _floats(rng.uniform(1.0, 2.5, k)),
        "offsets": _floats(rng.uniform(-1.5, 1.5, k)),
        "signs": _floats(rng.choice(np.array([-1.0, 1.0]), k)),
    }


def _piecewise_validate(p: dict, k: int) -> None:
    _keys(p, ("cutoffs", "low_slopes", "high_slopes", "offsets", "signs"))
    _vec(p, "cutoffs", k)
    _vec(p, "low_slopes", k, positive=True)
    _vec(p, "high_slopes", k, positive=True)
    _vec(p, "offsets", k)
    signs = _vec(p, "signs", k)
    for j, v in enumerate(signs):
        if v not in (-1.0, 1.0):
            raise ValueError(f"signs[{j}] must be -1 or 1, got {v!r}")


def _piecewise_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Piecewise-linear threshold mechanism.

    Per parent, with ``d_j = x_j - t_j``::

        h_j = low_j * d_j              if x_j <  t_j
        h_j = high_j * d_j + o_j       if x_j >= t_j

    and ``s = sum_j sigma_j h_j``.  The offset ``o_j`` is a jump at the cutoff (the
    "threshold" part) and ``sigma_j`` a random sign (both interpretations are choices).

    Parameters
    ----------
    p : dict
        ``cutoffs`` : k floats in ``[-0.6, 0.6]``; ``low_slopes`` : k floats > 0, sampled in
        ``[0.2, 1.0]``; ``high_slopes`` : k floats > 0, sampled in ``[1.0, 2.5]``; ``offsets`` :
        k floats in ``[-1.5, 1.5]``; ``signs`` : k values in ``{-1, 1}``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    t = np.asarray(p["cutoffs"], dtype=np.float64)
    X = _parents(P, t.size)
    D = X - t
    above = D >= 0
    H = np.where(
        above,
        D * np.asarray(p["high_slopes"], dtype=np.float64)
        + np.asarray(p["offsets"], dtype=np.float64),
        D * np.asarray(p["low_slopes"], dtype=np.float64),
    )
    return H @ np.asarray(p["signs"], dtype=np.float64)


# --------------------------------------------------------------------------------------------
# 9. saturation / clipping
# --------------------------------------------------------------------------------------------

_SATURATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "hard_clip": lambda z: np.clip(z, -1.0, 1.0),
    "softsign": lambda z: z / (1.0 + np.abs(z)),
}


def _saturation_sample(rng: np.random.Generator, k: int) -> dict:
    """Linear index as linear, kind uniform, response scale ``U[0.8, 2.5]``."""
    return {
        "weights": _scaled_weights(rng, k),
        "bias": _u(rng, -0.5, 0.5),
        "kind": str(rng.choice(sorted(_SATURATIONS))),
        "scale": _u(rng, 0.8, 2.5),
    }


def _saturation_validate(p: dict, k: int) -> None:
    _keys(p, ("weights", "bias", "kind", "scale"))
    _vec(p, "weights", k, nonzero=True)
    _num(p, "bias")
    _choice(p, "kind", _SATURATIONS)
    _pos(p, "scale")


def _saturation_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Saturation / clipping mechanism.

    ``u = w . x + b`` and ``s = g(scale * u)`` with ``g`` one of ``tanh``,
    ``hard_clip(z) = clip(z, -1, 1)`` or ``softsign(z) = z / (1 + |z|)``.  The A.1 "response
    scale" is read as the gain in front of the saturating function (a larger scale saturates
    earlier); an output scale would be removed by the caller's standardisation.

    Parameters
    ----------
    p : dict
        ``weights`` : k nonzero floats, ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``; ``bias`` : float
        in ``[-0.5, 0.5]``; ``kind`` : ``"tanh"``, ``"hard_clip"`` or ``"softsign"``;
        ``scale`` : float > 0, sampled in ``[0.8, 2.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    return _SATURATIONS[p["kind"]](float(p["scale"]) * (X @ w + float(p["bias"])))


# --------------------------------------------------------------------------------------------
# 10. mixture / regime switching
# --------------------------------------------------------------------------------------------


def _mixture_regime_sample(rng: np.random.Generator, k: int) -> dict:
    """Gate scale ``[1, 4]``, cutoff ``[-0.5, 0.5]``, alternate scale ``[0.5, 1.8]``."""
    return {
        "weights": _scaled_weights(rng, k),
        "bias": _u(rng, -0.5, 0.5),
        "alt_weights": _scaled_weights(rng, k),
        "alt_bias": _u(rng, -0.5, 0.5),
        "alt_scale": _u(rng, 0.5, 1.8),
        "gate_weights": _scaled_weights(rng, k, c=1.0),
        "gate_scale": _u(rng, 1.0, 4.0),
        "cutoff": _u(rng, -0.5, 0.5),
    }


def _mixture_regime_validate(p: dict, k: int) -> None:
    _keys(
        p,
        (
            "weights",
            "bias",
            "alt_weights",
            "alt_bias",
            "alt_scale",
            "gate_weights",
            "gate_scale",
            "cutoff",
        ),
    )
    _vec(p, "weights", k, nonzero=True)
    _num(p, "bias")
    _vec(p, "alt_weights", k, nonzero=True)
    _num(p, "alt_bias")
    _pos(p, "alt_scale")
    _vec(p, "gate_weights", k, nonzero=True)
    _pos(p, "gate_scale")
    _num(p, "cutoff")


def _mixture_regime_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Mixture / regime-switching mechanism.

    A soft gate ``g = sigmoid(gate_scale * (v . x - cutoff))`` switches between two linear
    regimes::

        s = (1 - g) * (w . x + b) + g * alt_scale * (w' . x + b')

    (two linear regimes and a projection gate on all parents are choices; A.1 gives ranges).

    Parameters
    ----------
    p : dict
        ``weights``, ``alt_weights`` : k nonzero floats, ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``;
        ``bias``, ``alt_bias`` : floats in ``[-0.5, 0.5]``; ``alt_scale`` : float > 0, sampled in
        ``[0.5, 1.8]``; ``gate_weights`` : k nonzero floats, ``±U[0.5, 1.5] / sqrt(k)``;
        ``gate_scale`` : float > 0, sampled in ``[1, 4]``; ``cutoff`` : float in ``[-0.5, 0.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    gate_in = X @ np.asarray(p["gate_weights"], dtype=np.float64) - float(p["cutoff"])
    g = _sigmoid(float(p["gate_scale"]) * gate_in)
    base = X @ w + float(p["bias"])
    alt = float(p["alt_scale"]) * (
        X @ np.asarray(p["alt_weights"], dtype=np.float64) + float(p["alt_bias"])
    )
    return (1.0 - g) * base + g * alt


# --------------------------------------------------------------------------------------------
# 11. random neural
# --------------------------------------------------------------------------------------------

_NN_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    "softplus": lambda z: np.logaddexp(0.0, z),
}
_NN_GAIN = 1.5


def _random_neural_sample(rng: np.random.Generator, k: int) -> dict:
    """Seed, 3..8 hidden units, activation uniform over tanh/sigmoid/softplus."""
    return {
        "seed": _seed(rng),
        "n_parents": int(k),
        "hidden": int(rng.integers(3, 9)),
        "activation": str(rng.choice(sorted(_NN_ACTIVATIONS))),
    }


def _random_neural_validate(p: dict, k: int) -> None:
    _keys(p, ("seed", "n_parents", "hidden", "activation"))
    _int(p, "seed", 0, _SEED_MAX)
    _int(p, "n_parents", 1, 10**6)
    _n_parents(p, k)
    _int(p, "hidden", 1, 64)
    _choice(p, "activation", _NN_ACTIVATIONS)


def _random_neural_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """One-hidden-layer random neural mechanism.

    ``s = sum_h v_h act(sum_j W_jh x_j + c_h)`` with ``W_jh ~ N(0, 1.5^2 / k)``,
    ``c_h ~ N(0, 0.5^2)``, ``v_h ~ N(0, 1 / H)``, regenerated from ``seed``.  The activation is
    strictly monotone (tanh, sigmoid or softplus; a choice), so a parent with nonzero
    input weights (almost surely all) always influences the output.

    Parameters
    ----------
    p : dict
        ``seed`` : int in ``0..2**32-1``; ``n_parents`` : int, must equal k; ``hidden`` : int,
        number of hidden units H, sampled in ``3..8`` (A.1); ``activation`` : ``"tanh"``,
        ``"sigmoid"`` or ``"softplus"``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    k, H = int(p["n_parents"]), int(p["hidden"])
    X = _parents(P, k)
    z, _ = _seeded_draws(int(p["seed"]), (k + 2) * H)
    Z = z.reshape(k + 2, H)
    W, c, v = Z[:k] * (_NN_GAIN / math.sqrt(k)), 0.5 * Z[k], Z[k + 1] / math.sqrt(H)
    return _NN_ACTIVATIONS[p["activation"]](X @ W + c) @ v


# --------------------------------------------------------------------------------------------
# 12. RFF / GP-style
# --------------------------------------------------------------------------------------------

_RFF_BLOCK = 32


def _rff_gp_sample(rng: np.random.Generator, k: int) -> dict:
    """Seed, 64..256 features, per-parent length scales ``[0.25, 3]``, output scale ``[0.4,2.5]``."""
    return {
        "seed": _seed(rng),
        "n_features": int(rng.integers(64, 257)),
        "length_scales": _floats(rng.uniform(0.25, 3.0, k)),
        "output_scale": _u(rng, 0.4, 2.5),
    }


def _rff_gp_validate(p: dict, k: int) -> None:
    _keys(p, ("seed", "n_features", "length_scales", "output_scale"))
    _int(p, "seed", 0, _SEED_MAX)
    _int(p, "n_features", 1, 4096)
    _vec(p, "length_scales", k, positive=True)
    _pos(p, "output_scale")


def _rff_gp_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Random-Fourier-feature (GP-style) mechanism.

    A draw from an approximate GP with an ARD squared-exponential kernel::

        s = sigma * sqrt(2 / D) * sum_d a_d cos(sum_j omega_dj x_j / l_j + phi_d)

    with ``omega_dj ~ N(0, 1)``, ``phi_d ~ U[0, 2 pi)``, ``a_d ~ N(0, 1)`` regenerated from
    ``seed``.  A.1 gives one length-scale range; one length scale per parent (ARD) is a choice.
    Features are processed in blocks of 32 to bound memory at ``32 n`` floats.

    Parameters
    ----------
    p : dict
        ``seed`` : int in ``0..2**32-1``; ``n_features`` : int D, sampled in ``64..256``;
        ``length_scales`` : k floats > 0, sampled in ``[0.25, 3.0]``; ``output_scale`` : float
        > 0, sampled in ``[0.4, 2.5]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    ls = np.asarray(p["length_scales"], dtype=np.float64)
    k, D = ls.size, int(p["n_features"])
    X = _parents(P, k) / ls
    z, u = _seeded_draws(int(p["seed"]), k * D + D, D)
    omega, a, phi = z[: k * D].reshape(k, D), z[k * D :], 2 * np.pi * u
    s = np.zeros(X.shape[0])
    for start in range(0, D, _RFF_BLOCK):
        blk = slice(start, start + _RFF_BLOCK)
        s += np.cos(X @ omega[:, blk] + phi[blk]) @ a[blk]
    return float(p["output_scale"]) * math.sqrt(2.0 / D) * s


# --------------------------------------------------------------------------------------------
# 13. activation additive
# --------------------------------------------------------------------------------------------


def _rank(u: np.ndarray) -> np.ndarray:
    return np.searchsorted(_RANK_REFERENCE, u, side="right") / _RANK_REFERENCE.size


_ACTIVATIONS: dict[str, Callable[..., np.ndarray]] = {
    "relu": lambda u: np.maximum(u, 0.0),
    "leaky_relu": lambda u: np.where(u > 0, u, _LEAKY_SLOPE * u),
    "softplus": lambda u: np.logaddexp(0.0, u),
    "sigmoid": _sigmoid,
    "abs": np.abs,
    "sign": np.sign,
    "step": lambda u: (u >= 0).astype(np.float64),
    "hard_tanh": lambda u: np.clip(u, -1.0, 1.0),
    "relu6": lambda u: np.clip(u, 0.0, 6.0),
    "elu": lambda u: np.where(u > 0, u, np.expm1(np.minimum(u, 0.0))),
    "selu": lambda u: _SELU_LAMBDA * np.where(u > 0, u, _SELU_ALPHA * np.expm1(np.minimum(u, 0.0))),
    "silu": lambda u: u * _sigmoid(u),
    "modulo": lambda u, period: np.mod(u, period),
    "round": lambda u, step: step * np.round(u / step),
    "rank": _rank,
}
#: Extra parameter of the activations that have one (A.1 ranges).
_ACTIVATION_EXTRA = {"modulo": ("period", 0.75, 3.0), "round": ("step", 0.2, 1.0)}


def _activation_sample(rng: np.random.Generator, k: int) -> dict:
    """Activation uniform over the 15 of A.1; affine pre-activation per parent."""
    names = list(_ACTIVATIONS)
    act = names[int(rng.integers(0, len(names)))]
    p = {
        "activation": act,
        "slopes": _floats(_signed(rng, 0.5, 1.5, k)),
        "shifts": _floats(rng.uniform(-0.5, 0.5, k)),
        "coefs": _scaled_weights(rng, k, c=1.0),
        "bias": _u(rng, -0.5, 0.5),
    }
    if act in _ACTIVATION_EXTRA:
        key, lo, hi = _ACTIVATION_EXTRA[act]
        p[key] = _u(rng, lo, hi)
    return p


def _activation_validate(p: dict, k: int) -> None:
    if not isinstance(p, dict):
        raise ValueError(f"params must be a dict, got {p!r}")
    if "activation" not in p:
        raise ValueError("missing parameter 'activation'")
    act = _choice(p, "activation", _ACTIVATIONS)
    extra = (_ACTIVATION_EXTRA[act][0],) if act in _ACTIVATION_EXTRA else ()
    _keys(p, ("activation", "slopes", "shifts", "coefs", "bias", *extra))
    _vec(p, "slopes", k, nonzero=True)
    _vec(p, "shifts", k)
    _vec(p, "coefs", k, nonzero=True)
    _num(p, "bias")
    for key in extra:
        _pos(p, key)


def _activation_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Activation-additive mechanism.

    ``s = sum_j g_j phi(a_j x_j + c_j) + b`` with one activation ``phi`` per node, one of the
    15 of A.1: ``relu``, ``leaky_relu`` (negative slope 0.1), ``softplus``, ``sigmoid``,
    ``abs``, ``sign``, ``step`` (``1[u >= 0]``), ``hard_tanh`` (``clip(u, -1, 1)``), ``relu6``,
    ``elu`` (alpha 1), ``selu``, ``silu`` (``u sigmoid(u)``), ``modulo`` (``u mod period``),
    ``round`` (``step * round(u / step)``) and ``rank``.

    The rank transform is made row-wise (a batch rank would tie a row's output to the other
    rows and break calibration under interventions): ``rank(u)`` is the fraction of a fixed
    reference sample, the 64 mid-quantiles of N(0, 1), that is ``<= u``.  One activation per
    node (not per parent) and the leaky slope 0.1 are choices.

    Parameters
    ----------
    p : dict
        ``activation`` : str, one of the 15 names; ``slopes`` : k nonzero floats,
        ``±U[0.5, 1.5]``; ``shifts`` : k floats, ``U[-0.5, 0.5]``; ``coefs`` : k nonzero floats,
        ``±U[0.5, 1.5] / sqrt(k)``; ``bias`` : float in ``[-0.5, 0.5]``; ``period`` (modulo only)
        : float > 0, sampled in ``[0.75, 3.0]``; ``step`` (round only) : float > 0, sampled in
        ``[0.2, 1.0]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    a = np.asarray(p["slopes"], dtype=np.float64)
    X = _parents(P, a.size)
    U = X * a + np.asarray(p["shifts"], dtype=np.float64)
    act = p["activation"]
    if act in _ACTIVATION_EXTRA:
        A = _ACTIVATIONS[act](U, float(p[_ACTIVATION_EXTRA[act][0]]))
    else:
        A = _ACTIVATIONS[act](U)
    return A @ np.asarray(p["coefs"], dtype=np.float64) + float(p["bias"])


# --------------------------------------------------------------------------------------------
# 14. tree-based
# --------------------------------------------------------------------------------------------


def _tree_sample(rng: np.random.Generator, k: int) -> dict:
    """Depth 2..4, thresholds ``[-0.8, 0.8]``, leaves ``U[-1.5, 1.5]``, small linear leak."""
    depth = int(rng.integers(2, 5))
    n_int = 2**depth - 1
    feats = rng.permutation(k)[:n_int].tolist()  # every parent split on when k <= n_int
    feats += rng.integers(0, k, n_int - len(feats)).tolist()
    feats = [int(f) for f in rng.permutation(feats)]
    return {
        "depth": depth,
        "features": feats,
        "thresholds": _floats(rng.uniform(-0.8, 0.8, n_int)),
        "leaves": _floats(rng.uniform(-1.5, 1.5, 2**depth)),
        "linear": _floats(_signed(rng, 0.05, 0.15, k) / math.sqrt(k)),
    }


def _tree_validate(p: dict, k: int) -> None:
    _keys(p, ("depth", "features", "thresholds", "leaves", "linear"))
    depth = _int(p, "depth", 1, 6)
    n_int = 2**depth - 1
    feats = p["features"]
    if not isinstance(feats, list | tuple) or len(feats) != n_int:
        raise ValueError(f"features must have {n_int} entries (2**depth - 1), got {feats!r}")
    for i, f in enumerate(feats):
        if not isinstance(f, numbers.Integral) or isinstance(f, bool) or not 0 <= f < k:
            raise ValueError(f"features[{i}] must be a parent index in 0..{k - 1}, got {f!r}")
    _vec(p, "thresholds", n_int)
    _vec(p, "leaves", 2**depth)
    _vec(p, "linear", k, nonzero=True)


def _tree_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Shallow regression-tree mechanism with a small linear leak.

    A complete binary tree of depth ``D``; internal node ``i`` (heap order, root 0, children
    ``2i + 1`` / ``2i + 2``) sends a row right when ``x[features[i]] > thresholds[i]``.  The
    output is ``leaves[leaf] + sum_j l_j x_j``.

    Every parent influences the output: the sampler makes every parent split somewhere when
    ``k <= 2**D - 1``, and the small linear term ``l_j`` (magnitude ``U[0.05, 0.15] / sqrt(k)``,
    required nonzero) keeps each parent in the equation even when ``k`` exceeds the number of
    splits or a threshold lies outside a parent's support (e.g. count-valued roots).  Leaf
    values ``U[-1.5, 1.5]`` are a choice.

    Parameters
    ----------
    p : dict
        ``depth`` : int D, sampled in ``2..4`` (A.1); ``features`` : ``2**D - 1`` parent
        indices; ``thresholds`` : ``2**D - 1`` floats in ``[-0.8, 0.8]`` (A.1); ``leaves`` :
        ``2**D`` floats; ``linear`` : k nonzero floats.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    lin = np.asarray(p["linear"], dtype=np.float64)
    X = _parents(P, lin.size)
    depth = int(p["depth"])
    feats = np.asarray(p["features"], dtype=np.int64)
    thr = np.asarray(p["thresholds"], dtype=np.float64)
    rows = np.arange(X.shape[0])
    node = np.zeros(X.shape[0], dtype=np.int64)
    for _ in range(depth):
        right = X[rows, feats[node]] > thr[node]
        node = 2 * node + 1 + right
    leaf = node - (2**depth - 1)
    return np.asarray(p["leaves"], dtype=np.float64)[leaf] + X @ lin


# --------------------------------------------------------------------------------------------
# 15. discretization / assignment
# --------------------------------------------------------------------------------------------


def _discretization_sample(rng: np.random.Generator, k: int) -> dict:
    """``bins`` or ``clusters`` with probability 1/2 each, 3..7 codes."""
    n_bins = int(rng.integers(3, 8))
    if rng.random() < 0.5:
        w = _scaled_weights(rng, k)
        # about equal-mass bins for unit-scale parents: N(0, 0.8^2) quantiles, jittered
        q = [NormalDist(0.0, 0.8).inv_cdf(i / n_bins) for i in range(1, n_bins)]
        edges = np.sort(np.asarray(q) + rng.uniform(-0.1, 0.1, n_bins - 1))
        return {"mode": "bins", "n_bins": n_bins, "weights": w, "edges": _floats(edges)}
    proj = (_signed(rng, 0.5, 1.5, (k, 2)) / math.sqrt(k)).tolist()
    centers = rng.uniform(-1.2, 1.2, (n_bins, 2))
    centers = centers[np.argsort(centers[:, 0])]
    return {
        "mode": "clusters",
        "n_bins": n_bins,
        "projection": [[float(v) for v in row] for row in proj],
        "centers": [[float(v) for v in row] for row in centers],
    }


def _discretization_validate(p: dict, k: int) -> None:
    if not isinstance(p, dict):
        raise ValueError(f"params must be a dict, got {p!r}")
    if "mode" not in p:
        raise ValueError("missing parameter 'mode'")
    mode = _choice(p, "mode", ("bins", "clusters"))
    if mode == "bins":
        _keys(p, ("mode", "n_bins", "weights", "edges"))
    else:
        _keys(p, ("mode", "n_bins", "projection", "centers"))
    n_bins = _int(p, "n_bins", 2, 50)
    if mode == "bins":
        _vec(p, "weights", k, nonzero=True)
        edges = _vec(p, "edges", n_bins - 1)
        if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
            raise ValueError(f"edges must be strictly increasing, got {p['edges']!r}")
        return
    proj = p["projection"]
    if not isinstance(proj, list | tuple) or len(proj) != k:
        raise ValueError(f"projection must have {k} rows (one per parent), got {proj!r}")
    for j, row in enumerate(proj):
        r = _vec({f"projection[{j}]": row}, f"projection[{j}]", 2)
        if r == [0.0, 0.0]:
            raise ValueError(f"projection[{j}] must be nonzero (parent {j} unused), got {row!r}")
    centers = p["centers"]
    if not isinstance(centers, list | tuple) or len(centers) != n_bins:
        raise ValueError(f"centers must have n_bins={n_bins} rows, got {centers!r}")
    for i, row in enumerate(centers):
        _vec({f"centers[{i}]": row}, f"centers[{i}]", 2)
    if len({tuple(c) for c in centers}) != n_bins:
        raise ValueError(f"centers must be distinct, got {centers!r}")


def _discretization_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Discretization / assignment mechanism (ordinal output ``0..n_bins-1``).

    Mode ``"bins"``: ``u = w . x`` and the code is the number of edges ``<= u``, i.e. bin
    ``i`` holds ``edges[i-1] <= u < edges[i]``.  Edges are jittered N(0, 0.8^2) quantiles, so
    bins hold about equal mass for unit-scale parents (a choice).

    Mode ``"clusters"``: parents are projected to 2-D, ``z = x @ projection``, and the code is
    the index of the nearest center (ties go to the lower index).  Centers are stored sorted
    by their first coordinate so neighbouring codes are neighbouring clusters.  The 2-D
    projection (a choice) keeps the parameters small for any k.

    Both modes are non-constant for roughly unit-scale parents, but fixed edges / centers can
    put all rows of a far-shifted parent distribution (e.g. only non-negative count roots) in
    one code; the caller's pilot should reject a constant ordinal output.

    Parameters
    ----------
    p : dict
        ``mode`` : ``"bins"`` or ``"clusters"``; ``n_bins`` : int, sampled in ``3..7`` (A.1),
        valid in ``2..50``.  Bins: ``weights`` : k nonzero floats,
        ``sign * U[0.5, 1.5] * 0.8 / sqrt(k)``; ``edges`` : ``n_bins - 1`` strictly increasing
        floats.  Clusters: ``projection`` : k rows ``[p1, p2]`` (nonzero), entries
        ``±U[0.5, 1.5] / sqrt(k)``; ``centers`` : ``n_bins`` distinct rows ``[c1, c2]``, sampled
        in ``U[-1.2, 1.2]``.
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
        Integer codes in ``0..n_bins-1`` stored as float64.
    """
    if p["mode"] == "bins":
        w = np.asarray(p["weights"], dtype=np.float64)
        X = _parents(P, w.size)
        codes = np.searchsorted(np.asarray(p["edges"], dtype=np.float64), X @ w, side="right")
    else:
        W = np.asarray(p["projection"], dtype=np.float64).reshape(-1, 2)
        X = _parents(P, W.shape[0])
        Z = X @ W
        C = np.asarray(p["centers"], dtype=np.float64).reshape(-1, 2)
        d2 = ((Z[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        codes = np.argmin(d2, axis=1)
    return codes.astype(np.float64)


# --------------------------------------------------------------------------------------------
# 16. aggregation nonlinearities
# --------------------------------------------------------------------------------------------


def _aggregation_sample(rng: np.random.Generator, k: int) -> dict:
    """``max`` or ``logsumexp`` (1/2 each), temperature ``U[0.3, 1.5]`` for logsumexp."""
    p = {
        "mode": "max" if rng.random() < 0.5 else "logsumexp",
        "weights": _floats(_signed(rng, 0.5, 1.5, k)),
        "biases": _floats(rng.uniform(-0.5, 0.5, k)),
        "baseline": _u(rng, -1.0, 0.0),
    }
    if p["mode"] == "logsumexp":
        p["temperature"] = _u(rng, 0.3, 1.5)
    return p


def _aggregation_validate(p: dict, k: int) -> None:
    if not isinstance(p, dict):
        raise ValueError(f"params must be a dict, got {p!r}")
    if "mode" not in p:
        raise ValueError("missing parameter 'mode'")
    mode = _choice(p, "mode", ("max", "logsumexp"))
    extra = ("temperature",) if mode == "logsumexp" else ()
    _keys(p, ("mode", "weights", "biases", "baseline", *extra))
    _vec(p, "weights", k, nonzero=True)
    _vec(p, "biases", k)
    _num(p, "baseline")
    if extra:
        _pos(p, "temperature")


def _aggregation_evaluate(p: dict, P: np.ndarray) -> np.ndarray:
    """Aggregation nonlinearity (max or log-sum-exp).

    Per-parent responses ``h_j = w_j x_j + b_j`` plus a constant ``h_0 = baseline`` are
    aggregated as ``s = max_j h_j`` or ``s = tau log sum_j exp(h_j / tau)`` (computed stably).
    The baseline element (a choice) makes a single-parent node a hinge / softplus instead of an
    affine map.  Weights are not scaled by ``1/sqrt(k)`` because the branches compete rather
    than add.

    Parameters
    ----------
    p : dict
        ``mode`` : ``"max"`` or ``"logsumexp"``; ``weights`` : k nonzero floats,
        ``±U[0.5, 1.5]``; ``biases`` : k floats, ``U[-0.5, 0.5]``; ``baseline`` : float, sampled
        in ``[-1, 0]``; ``temperature`` (logsumexp only) : float > 0, sampled in ``[0.3, 1.5]``
        (A.1).
    P : ndarray of shape (n, k), float64
        Parent values.

    Returns
    -------
    ndarray of shape (n,), float64
    """
    w = np.asarray(p["weights"], dtype=np.float64)
    X = _parents(P, w.size)
    H = X * w + np.asarray(p["biases"], dtype=np.float64)
    H = np.column_stack([H, np.full(X.shape[0], float(p["baseline"]))])
    m = H.max(axis=1)
    if p["mode"] == "max":
        return m
    tau = float(p["temperature"])
    return m + tau * np.log(np.exp((H - m[:, None]) / tau).sum(axis=1))


# --------------------------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------------------------


def _family(name: str, tag: str, output_kind: str = "continuous") -> MechanismFamily:
    g = globals()
    return MechanismFamily(
        name=name,
        tag=tag,
        output_kind=output_kind,
        sample_params=g[f"_{name}_sample"],
        validate=g[f"_{name}_validate"],
        evaluate=g[f"_{name}_evaluate"],
    )


#: The 17 mechanism forms of paper A.1, in paper order.
MECHANISMS: dict[str, MechanismFamily] = {
    f.name: f
    for f in (
        _family("linear", "linear_additive"),
        _family("polynomial", "polynomial_power"),
        _family("multiplicative_product", "multiplicative"),
        _family("random_function_product", "multiplicative"),
        _family("interaction", "linear_additive_interaction"),
        _family("rational", "rational_ratio"),
        _family("exp_log", "exp_log"),
        _family("periodic", "trig_periodic"),
        _family("piecewise", "piecewise_threshold"),
        _family("saturation", "saturation_clip"),
        _family("mixture_regime", "mixture_regime"),
        _family("random_neural", "neural_random"),
        _family("rff_gp", "rff_gp"),
        _family("activation", "activation_additive"),
        _family("tree", "tree_based"),
        _family("discretization", "discretization_assignment", "ordinal"),
        _family("aggregation", "aggregation_nonlinear"),
    )
}

#: The 16 scoring tags, in paper order.
MECHANISM_TAGS: tuple[str, ...] = tuple(dict.fromkeys(f.tag for f in MECHANISMS.values()))
