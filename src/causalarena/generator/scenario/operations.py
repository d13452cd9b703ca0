"""The mechanism vocabulary of semantic and formula scenarios (paper A.3 stage 4, A.4, A.5).

Scenario files (:mod:`causalarena.generator.scenario.schema`) write each structural variable's
mechanism as one *structured operation* over exactly its graph parents; the compiler turns it
into an :class:`~causalarena.spec.SCMSpec` component whose family is a key of
:data:`OPERATIONS` (prefix ``sc.``).  Root distributions and noise channels of scenarios live in
:data:`SCENARIO_ROOTS` and :data:`SCENARIO_NOISES`.  These registries are *separate* from the
synthetic registries (``MECHANISMS``, ``ROOTS``, ``NOISES``), so the synthetic generator, which
draws from sorted synthetic registries, is byte-for-byte unchanged; spec validation and the
sampler look names up in both (:data:`ALL_MECHANISMS`, ...).

Compiled parameters refer to parents by position in the variable's ``parents`` list.  A
*linear predictor* ``{"c": float, "w": [float per parent]}`` is ``c + P @ w``.  Every
evaluator is row-wise and vectorised (no batch statistics), and no output is clipped unless
the operation *is* a clamp (``sc.clamp``, ``sc.minmax``, the stock-flow ``floor``); values are
raw, in the variable's unit (``output_kind = "any"`` tells the sampler not to standardise).

========================  =========================  =======================================
operation (key)           vocabulary family (tag)    value
========================  =========================  =======================================
sc.linear                 linear_affine              ``c + P w``
sc.additive_index         additive_index             ``scale * sum_i w_i (x_i - lo_i)/(hi_i - lo_i)``
sc.sigmoid                sigmoid_index              ``lower + (upper - lower) * logistic(lin)``
sc.saturating             saturating_response        ``offset + vmax * u/(half + u)`` or ``vmax (1 - e^{-u/half})``, ``u = max(lin, 0)``
sc.threshold              threshold_piecewise        ``below(P)`` if ``lin < cutoff`` else ``above(P)``
sc.piecewise              threshold_piecewise        ``interp(x; knots) + lin``
sc.ordinal                ordinal_categorical        number of cutpoints ``<= lin``
sc.categorical            ordinal_categorical        ``argmax_k score_k(P)``
sc.regime_switch          regime_switch              ``regime_r(P)`` with ``r`` a code or ``x >= cutoff``
sc.stock_flow             stock_flow                 ``S0 e^{-kT} + (in - out)(1 - e^{-kT})/k`` (``S0 + T(in - out)`` if ``k=0``)
sc.event_rate             event_count                ``exp(lin) * prod(exposures)`` (a count mean)
sc.product                product                    ``offset + coef * prod(factors)``
sc.power_law              power_law                  ``coef * prod_i x_i^{a_i}``
sc.ratio                  ratio_normalisation        ``scale * num(P) / den(P)``
sc.exp_log                exp_log                    ``offset + scale * fn(lin)``, fn in exp, log, log10, log1p
sc.periodic               trig_periodic              ``offset + amplitude sin(2 pi x/period + phase) + lin``
sc.clamp                  clamp_minmax               ``clip(lin, lower, upper)``
sc.minmax                 clamp_minmax               ``min``/``max`` of linear predictors
sc.measurement            measurement_error          ``gain * x + offset + lin(bias parents)``
sc.calibration            calibration_offset         ``(x - offset - lin(offset parents)) / gain``
sc.formula                (declared: physical_law,   an equation of :mod:`.expressions`
                          deterministic_formula,
                          ...)
========================  =========================  =======================================
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy import special, stats

from causalarena.generator.distributions import NoiseFamily, RootFamily
from causalarena.generator.mechanisms import MechanismFamily
from causalarena.generator.scenario import expressions as ex

__all__ = [
    "ALL_MECHANISMS",
    "ALL_NOISES",
    "ALL_ROOTS",
    "OPERATIONS",
    "OP_TAGS",
    "SCENARIO_NOISES",
    "SCENARIO_ROOTS",
    "VOCABULARY",
]

#: The vocabulary families of the paper's Figure 18 (mechanism bars).
VOCABULARY: tuple[str, ...] = (
    "event_count",
    "threshold_piecewise",
    "stock_flow",
    "ordinal_categorical",
    "regime_switch",
    "physical_law",
    "saturating_response",
    "sigmoid_index",
    "deterministic_formula",
    "clamp_minmax",
    "product",
    "measurement_error",
    "exp_log",
    "ratio_normalisation",
    "linear_affine",
    "calibration_offset",
    "power_law",
    "additive_index",
    "trig_periodic",
)


# ------------------------------------------------------------------------------ validation


def _num(p: dict, key: str, lo: float = -math.inf, hi: float = math.inf, *, gt: bool = False):
    x = p.get(key)
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
        raise ValueError(f"parameter {key!r} = {x!r} must be a finite number")
    if x < lo or x > hi or (gt and x == lo):
        raise ValueError(f"parameter {key!r} = {x!r} must be in {'(' if gt else '['}{lo}, {hi}]")
    return float(x)


def _keys(p: dict, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    if not isinstance(p, dict):
        raise ValueError(f"params must be a mapping, got {p!r}")
    for k in required:
        if k not in p:
            raise ValueError(f"missing parameter {k!r}")
    for k in p:
        if k not in required and k not in optional:
            raise ValueError(f"unknown parameter {k!r} (allowed: {', '.join(required + optional)})")


def _vec(p: dict, key: str, n: int) -> np.ndarray:
    v = p.get(key)
    if not isinstance(v, list) or len(v) != n:
        raise ValueError(f"parameter {key!r} must be a list of {n} numbers, got {v!r}")
    for x in v:
        if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
            raise ValueError(f"parameter {key!r} has a non-numeric entry {x!r}")
    return np.asarray(v, dtype=np.float64)


def _lin_ok(p: dict, key: str, k: int) -> None:
    lp = p.get(key)
    if not isinstance(lp, dict):
        raise ValueError(f"parameter {key!r} must be a linear predictor {{c, w}}, got {lp!r}")
    _keys(lp, ("c", "w"))
    _num(lp, "c")
    _vec(lp, "w", k)


def _pos(p: dict, key: str, k: int) -> int:
    x = p.get(key)
    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < k:
        raise ValueError(f"parameter {key!r} = {x!r} must be a parent position in 0..{k - 1}")
    return x


def _lin(lp: dict, P: np.ndarray) -> np.ndarray:
    return float(lp["c"]) + P @ np.asarray(lp["w"], dtype=np.float64)


def _no_sample(rng, k):  # scenario operations are authored, never drawn
    raise NotImplementedError("scenario operations are written in scenario files, not sampled")


def _op(name, tag, validate, evaluate):
    fam = MechanismFamily(
        name=name,
        tag=tag,
        output_kind="any",
        sample_params=_no_sample,
        validate=validate,
        evaluate=lambda p, P: np.asarray(evaluate(p, np.asarray(P, dtype=np.float64)), float),
    )
    return fam


# ------------------------------------------------------------------------------ operations


def _v_linear(p, k):
    _keys(p, ("c", "w"))
    _lin_ok({"x": p}, "x", k)


def _v_index(p, k):
    _keys(p, ("scale", "w", "lo", "hi"))
    _num(p, "scale")
    _vec(p, "w", k)
    lo, hi = _vec(p, "lo", k), _vec(p, "hi", k)
    if np.any(hi <= lo):
        raise ValueError(f"parameter 'hi' = {p['hi']!r} must exceed 'lo' = {p['lo']!r}")


def _e_index(p, P):
    lo, hi = np.asarray(p["lo"]), np.asarray(p["hi"])
    return float(p["scale"]) * (((P - lo) / (hi - lo)) @ np.asarray(p["w"], dtype=np.float64))


def _v_sigmoid(p, k):
    _keys(p, ("c", "w", "lower", "upper"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    if _num(p, "upper") <= _num(p, "lower"):
        raise ValueError(f"'upper' = {p['upper']} must exceed 'lower' = {p['lower']}")


def _e_sigmoid(p, P):
    lo, hi = float(p["lower"]), float(p["upper"])
    return lo + (hi - lo) * special.expit(_lin(p, P))


def _v_saturating(p, k):
    _keys(p, ("c", "w", "vmax", "half", "shape", "offset"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    _num(p, "vmax")
    _num(p, "half", 0.0, gt=True)
    _num(p, "offset")
    if p["shape"] not in ("hyperbolic", "exponential"):
        raise ValueError(f"parameter 'shape' = {p['shape']!r} must be hyperbolic or exponential")


def _e_saturating(p, P):
    u = np.maximum(_lin(p, P), 0.0)
    h, vmax = float(p["half"]), float(p["vmax"])
    core = u / (h + u) if p["shape"] == "hyperbolic" else -np.expm1(-u / h)
    return float(p["offset"]) + vmax * core


def _v_threshold(p, k):
    _keys(p, ("c", "w", "cutoff", "below", "above"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    _num(p, "cutoff")
    _lin_ok(p, "below", k)
    _lin_ok(p, "above", k)


def _e_threshold(p, P):
    return np.where(_lin(p, P) < float(p["cutoff"]), _lin(p["below"], P), _lin(p["above"], P))


def _v_piecewise(p, k):
    _keys(p, ("x", "knots_x", "knots_y", "c", "w"))
    _pos(p, "x", k)
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    kx = _vec(p, "knots_x", len(p.get("knots_x") or []))
    _vec(p, "knots_y", len(kx))
    if len(kx) < 2 or np.any(np.diff(kx) <= 0):
        raise ValueError(f"'knots_x' = {p['knots_x']!r} needs >= 2 strictly increasing values")


def _e_piecewise(p, P):
    x = P[:, p["x"]]
    kx, ky = np.asarray(p["knots_x"]), np.asarray(p["knots_y"])
    # linear extrapolation beyond the end knots (no hidden clipping)
    y = np.interp(x, kx, ky)
    lo_slope = (ky[1] - ky[0]) / (kx[1] - kx[0])
    hi_slope = (ky[-1] - ky[-2]) / (kx[-1] - kx[-2])
    y = np.where(x < kx[0], ky[0] + lo_slope * (x - kx[0]), y)
    y = np.where(x > kx[-1], ky[-1] + hi_slope * (x - kx[-1]), y)
    return y + _lin(p, P)


def _v_ordinal(p, k):
    _keys(p, ("c", "w", "cutpoints", "n_bins"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    cp = _vec(p, "cutpoints", len(p.get("cutpoints") or []))
    if len(cp) < 1 or np.any(np.diff(cp) <= 0):
        raise ValueError(f"'cutpoints' = {p['cutpoints']!r} must be >= 1 increasing numbers")
    if p.get("n_bins") != len(cp) + 1:
        raise ValueError(f"'n_bins' = {p.get('n_bins')!r} must be len(cutpoints) + 1")


def _e_ordinal(p, P):
    lin = _lin(p, P)
    return (lin[:, None] >= np.asarray(p["cutpoints"])[None, :]).sum(axis=1).astype(float)


def _v_categorical(p, k):
    _keys(p, ("scores", "n_bins"))
    sc = p["scores"]
    if not isinstance(sc, list) or len(sc) < 2:
        raise ValueError(f"'scores' must list >= 2 linear predictors, got {sc!r}")
    for i in range(len(sc)):
        _lin_ok({"x": sc[i]}, "x", k)
    if p["n_bins"] != len(sc):
        raise ValueError(f"'n_bins' = {p['n_bins']!r} must equal the number of scores")


def _e_categorical(p, P):
    S = np.stack([_lin(lp, P) for lp in p["scores"]], axis=1)
    return np.argmax(S, axis=1).astype(float)


def _v_regime(p, k):
    _keys(p, ("by", "cutoff", "regimes"))
    _pos(p, "by", k)
    if p["cutoff"] is not None:
        _num(p, "cutoff")
    rg = p["regimes"]
    if not isinstance(rg, list) or len(rg) < 2:
        raise ValueError(f"'regimes' must list >= 2 linear predictors, got {rg!r}")
    if p["cutoff"] is not None and len(rg) != 2:
        raise ValueError("a cutoff regime switch has exactly 2 regimes")
    for lp in rg:
        _lin_ok({"x": lp}, "x", k)


def _e_regime(p, P):
    x = P[:, p["by"]]
    m = len(p["regimes"])
    if p["cutoff"] is not None:
        r = (x >= float(p["cutoff"])).astype(np.intp)
    else:
        r = np.rint(x).astype(np.intp)
    vals = np.stack([_lin(lp, P) for lp in p["regimes"]], axis=1)
    out = np.take_along_axis(vals, np.clip(r, 0, m - 1)[:, None], axis=1)[:, 0]
    return np.where((r >= 0) & (r < m), out, np.nan)  # an unknown regime code is an error


def _v_stock(p, k):
    _keys(p, ("initial", "inflow", "outflow", "duration", "decay", "floor"))
    for key in ("initial", "inflow", "outflow", "duration"):
        _lin_ok(p, key, k)
    _num(p, "decay", 0.0)
    if p["floor"] is not None:
        _num(p, "floor")


def _e_stock(p, P):
    s0, net = _lin(p["initial"], P), _lin(p["inflow"], P) - _lin(p["outflow"], P)
    T = _lin(p["duration"], P)
    kd = float(p["decay"])
    if kd > 0:
        out = s0 * np.exp(-kd * T) - net * np.expm1(-kd * T) / kd
    else:
        out = s0 + T * net
    return out if p["floor"] is None else np.maximum(out, float(p["floor"]))


def _v_event(p, k):
    _keys(p, ("c", "w", "exposure"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    ex_ = p["exposure"]
    if not isinstance(ex_, list):
        raise ValueError(f"'exposure' must be a list of parent positions, got {ex_!r}")
    for i in range(len(ex_)):
        _pos({"e": ex_[i]}, "e", k)


def _e_event(p, P):
    rate = np.exp(np.minimum(_lin(p, P), 700.0))
    for i in p["exposure"]:
        rate = rate * P[:, i]
    return rate


def _v_product(p, k):
    _keys(p, ("coef", "offset", "factors"))
    _num(p, "coef")
    _num(p, "offset")
    f = p["factors"]
    if not isinstance(f, list) or not f:
        raise ValueError(f"'factors' must be a non-empty list of parent positions, got {f!r}")
    for i in range(len(f)):
        _pos({"f": f[i]}, "f", k)


def _e_product(p, P):
    return float(p["offset"]) + float(p["coef"]) * np.prod(P[:, p["factors"]], axis=1)


def _v_power(p, k):
    _keys(p, ("coef", "exponents"))
    _num(p, "coef")
    _vec(p, "exponents", k)


def _e_power(p, P):
    a = np.asarray(p["exponents"], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(p["coef"]) * np.prod(np.where(a == 0, 1.0, P**a), axis=1)


def _v_ratio(p, k):
    _keys(p, ("num", "den", "scale"))
    _lin_ok(p, "num", k)
    _lin_ok(p, "den", k)
    _num(p, "scale")


def _e_ratio(p, P):
    den = _lin(p["den"], P)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = float(p["scale"]) * _lin(p["num"], P) / den
    return np.where(den > 0, out, np.nan)  # a ratio needs a positive denominator


_EXPLOG = {"exp": np.exp, "log": np.log, "log10": np.log10, "log1p": np.log1p}


def _v_explog(p, k):
    _keys(p, ("fn", "c", "w", "scale", "offset"))
    if p["fn"] not in _EXPLOG:
        raise ValueError(f"parameter 'fn' = {p['fn']!r} must be one of {sorted(_EXPLOG)}")
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    _num(p, "scale")
    _num(p, "offset")


def _e_explog(p, P):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(p["offset"]) + float(p["scale"]) * _EXPLOG[p["fn"]](_lin(p, P))


def _v_periodic(p, k):
    _keys(p, ("x", "period", "amplitude", "phase", "offset", "c", "w"))
    _pos(p, "x", k)
    _num(p, "period", 0.0, gt=True)
    for key in ("amplitude", "phase", "offset"):
        _num(p, key)
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)


def _e_periodic(p, P):
    x = P[:, p["x"]]
    wave = float(p["amplitude"]) * np.sin(2 * np.pi * x / float(p["period"]) + float(p["phase"]))
    return float(p["offset"]) + wave + _lin(p, P)


def _v_clamp(p, k):
    _keys(p, ("c", "w", "lower", "upper"))
    _lin_ok({"x": {"c": p["c"], "w": p["w"]}}, "x", k)
    if _num(p, "upper") <= _num(p, "lower"):
        raise ValueError(f"'upper' = {p['upper']} must exceed 'lower' = {p['lower']}")


def _e_clamp(p, P):
    return np.clip(_lin(p, P), float(p["lower"]), float(p["upper"]))


def _v_minmax(p, k):
    _keys(p, ("fn", "branches"))
    if p["fn"] not in ("min", "max"):
        raise ValueError(f"parameter 'fn' = {p['fn']!r} must be min or max")
    br = p["branches"]
    if not isinstance(br, list) or len(br) < 2:
        raise ValueError(f"'branches' must list >= 2 linear predictors, got {br!r}")
    for lp in br:
        _lin_ok({"x": lp}, "x", k)


def _e_minmax(p, P):
    S = np.stack([_lin(lp, P) for lp in p["branches"]], axis=1)
    return S.min(axis=1) if p["fn"] == "min" else S.max(axis=1)


def _v_measure(p, k):
    _keys(p, ("x", "gain", "offset", "w"))
    _pos(p, "x", k)
    _num(p, "gain")
    _num(p, "offset")
    _vec(p, "w", k)


def _e_measure(p, P):
    w = np.asarray(p["w"], dtype=np.float64)
    return float(p["gain"]) * P[:, p["x"]] + float(p["offset"]) + P @ w


def _v_calib(p, k):
    _v_measure(p, k)
    if p["gain"] == 0:
        raise ValueError("parameter 'gain' must be non-zero")


def _e_calib(p, P):
    w = np.asarray(p["w"], dtype=np.float64)
    return (P[:, p["x"]] - float(p["offset"]) - P @ w) / float(p["gain"])


def _v_formula(p, k):
    _keys(p, ("expr", "inputs", "constants"))
    tree = ex.parse(p["expr"])
    inputs, consts = p["inputs"], p["constants"]
    if not isinstance(inputs, list) or len(inputs) != k:
        raise ValueError(f"'inputs' must name the {k} parents in order, got {inputs!r}")
    if not isinstance(consts, dict):
        raise ValueError(f"'constants' must map names to numbers, got {consts!r}")
    for name, val in consts.items():
        _num({name: val}, name)
    missing = ex.symbols(tree) - set(inputs) - set(consts)
    if missing:
        raise ValueError(f"equation uses undeclared names {sorted(missing)}")


def _e_formula(p, P):
    env = {name: P[:, i] for i, name in enumerate(p["inputs"])}
    env.update({k: float(v) for k, v in p["constants"].items()})
    with np.errstate(all="ignore"):
        out = ex.evaluate(ex.parse(p["expr"]), env)
    return np.broadcast_to(np.asarray(out, dtype=np.float64), (P.shape[0],)).copy()


OPERATIONS: dict[str, MechanismFamily] = {
    f.name: f
    for f in (
        _op("sc.linear", "linear_affine", _v_linear, lambda p, P: _lin(p, P)),
        _op("sc.additive_index", "additive_index", _v_index, _e_index),
        _op("sc.sigmoid", "sigmoid_index", _v_sigmoid, _e_sigmoid),
        _op("sc.saturating", "saturating_response", _v_saturating, _e_saturating),
        _op("sc.threshold", "threshold_piecewise", _v_threshold, _e_threshold),
        _op("sc.piecewise", "threshold_piecewise", _v_piecewise, _e_piecewise),
        _op("sc.ordinal", "ordinal_categorical", _v_ordinal, _e_ordinal),
        _op("sc.categorical", "ordinal_categorical", _v_categorical, _e_categorical),
        _op("sc.regime_switch", "regime_switch", _v_regime, _e_regime),
        _op("sc.stock_flow", "stock_flow", _v_stock, _e_stock),
        _op("sc.event_rate", "event_count", _v_event, _e_event),
        _op("sc.product", "product", _v_product, _e_product),
        _op("sc.power_law", "power_law", _v_power, _e_power),
        _op("sc.ratio", "ratio_normalisation", _v_ratio, _e_ratio),
        _op("sc.exp_log", "exp_log", _v_explog, _e_explog),
        _op("sc.periodic", "trig_periodic", _v_periodic, _e_periodic),
        _op("sc.clamp", "clamp_minmax", _v_clamp, _e_clamp),
        _op("sc.minmax", "clamp_minmax", _v_minmax, _e_minmax),
        _op("sc.measurement", "measurement_error", _v_measure, _e_measure),
        _op("sc.calibration", "calibration_offset", _v_calib, _e_calib),
        _op("sc.formula", "deterministic_formula", _v_formula, _e_formula),
    )
}
"""Scenario operations keyed by spec family tag (``sc.<op>``)."""

OP_TAGS: dict[str, str] = {k: f.tag for k, f in OPERATIONS.items()}
#: Operations whose value may sit exactly on a bound by construction (a declared boundary).
BOUNDARY_OPS = frozenset({"sc.clamp", "sc.minmax", "sc.stock_flow", "sc.saturating"})

# ------------------------------------------------------------------------------ noise


def _u(rng: np.random.Generator, n: int) -> np.ndarray:
    """One uniform per row, so a node consumes the same stream whatever its signal."""
    return np.clip(rng.random(n), 1e-12, 1 - 1e-12)


def _noise(name, keys, check, apply):
    def validate(p):
        _keys(p, keys)
        check(p)

    return NoiseFamily(
        name=name,
        sample_params=lambda rng: (_ for _ in ()).throw(NotImplementedError(name)),
        validate=validate,
        apply=lambda p, s, P, rng: np.asarray(apply(p, np.asarray(s, float), rng), float),
        calibrate=lambda p, s, P, rng: p,
        clip_bounds=lambda p: None,
    )


def _prob(s):
    return np.where((s >= 0) & (s <= 1), s, np.nan)  # probabilities outside [0, 1] are errors


def _pos_mean(s):
    return np.where(s >= 0, s, np.nan)


#: Negative-binomial range (noise and roots): dispersion in ``NB_DISPERSION``, mean at most
#: ``NB_MAX_MEAN``.  Inside it scipy's ``nbinom.ppf`` stays fast (under 2 s for 20,000 draws
#: all at the extreme quantiles 1e-12 / 1 - 1e-12, about 0.07 s for uniform ones) and its
#: values stay below 1e10, far inside float64's exact integers; far outside it (mean 1e10 at
#: dispersion 0.01, mean 1e15) the ppf searches for minutes or forever.
NB_DISPERSION = (0.5, 1e7)
NB_MAX_MEAN = 1e8


def _nb_mean(s):
    """Row means of a negative-binomial draw: nan (never handed to scipy) outside
    ``[0, NB_MAX_MEAN]``, so the sampler reports the node as non-finite."""
    return np.where((s >= 0) & (s <= NB_MAX_MEAN), s, np.nan)


def _nb_check(p, mean: bool) -> None:
    lo, hi = NB_DISPERSION
    r = _num(p, "dispersion", 0, gt=True)
    if not lo <= r <= hi:
        raise ValueError(
            f"parameter 'dispersion' = {r:g} must be in [{lo:g}, {hi:g}] (the range where "
            "negative-binomial draws are fast and exact)"
        )
    if mean:
        m = _num(p, "mean", 0, gt=True)
        if m > NB_MAX_MEAN:
            raise ValueError(
                f"parameter 'mean' = {m:g} must be at most {NB_MAX_MEAN:g} (the range where "
                "negative-binomial draws are fast and exact)"
            )


def _a_mixture(p, s, rng):
    n = s.size
    u, z = _u(rng, n), rng.standard_normal(n)
    cw = np.cumsum(np.asarray(p["weights"], dtype=float))
    comp = np.minimum(np.searchsorted(cw / cw[-1], u), len(cw) - 1)
    return s + np.asarray(p["means"])[comp] + np.asarray(p["sds"])[comp] * z


def _c_mixture(p):
    w = p["weights"]
    if not isinstance(w, list) or len(w) < 2:
        raise ValueError("'weights' must list >= 2 component weights")
    _vec(p, "means", len(w))
    sds = _vec(p, "sds", len(w))
    if np.any(_vec(p, "weights", len(w)) <= 0) or np.any(sds <= 0):
        raise ValueError("mixture weights and sds must be > 0")


SCENARIO_NOISES: dict[str, NoiseFamily] = {
    f.name: f
    for f in (
        _noise(
            "sc.normal",
            ("sd",),
            lambda p: _num(p, "sd", 0, gt=True),
            lambda p, s, rng: s + p["sd"] * rng.standard_normal(s.size),
        ),
        _noise(
            "sc.lognormal",
            ("sigma",),
            lambda p: _num(p, "sigma", 0, gt=True),
            lambda p, s, rng: s * np.exp(p["sigma"] * rng.standard_normal(s.size)),
        ),
        _noise(
            "sc.bernoulli",
            (),
            lambda p: None,
            lambda p, s, rng: (
                (_u(rng, s.size) < _prob(s)).astype(float) + 0 * _prob(s)
            ),  # keeps nan
        ),
        _noise(
            "sc.poisson",
            (),
            lambda p: None,
            lambda p, s, rng: stats.poisson.ppf(_u(rng, s.size), _pos_mean(s)),
        ),
        _noise(
            "sc.negative_binomial",
            ("dispersion",),
            lambda p: _nb_check(p, mean=False),
            lambda p, s, rng: stats.nbinom.ppf(
                _u(rng, s.size),
                p["dispersion"],
                p["dispersion"] / (p["dispersion"] + _nb_mean(s)),
            ),
        ),
        _noise(
            "sc.binomial",
            ("trials",),
            lambda p: _num(p, "trials", 1, 1e7),
            lambda p, s, rng: stats.binom.ppf(_u(rng, s.size), int(p["trials"]), _prob(s)),
        ),
        _noise(
            "sc.beta",
            ("precision",),
            lambda p: _num(p, "precision", 0, gt=True),
            lambda p, s, rng: stats.beta.ppf(
                _u(rng, s.size),
                np.where((s > 0) & (s < 1), s, np.nan) * p["precision"],
                (1 - s) * p["precision"],
            ),
        ),
        _noise(
            "sc.gamma",
            ("shape",),
            lambda p: _num(p, "shape", 0, gt=True),
            lambda p, s, rng: stats.gamma.ppf(
                _u(rng, s.size), p["shape"], scale=np.where(s > 0, s, np.nan) / p["shape"]
            ),
        ),
        _noise("sc.mixture_normal", ("weights", "means", "sds"), _c_mixture, _a_mixture),
        _noise(
            "sc.student_t",
            ("df", "scale"),
            lambda p: (_num(p, "df", 0, gt=True), _num(p, "scale", 0, gt=True)),
            lambda p, s, rng: s + p["scale"] * stats.t.ppf(_u(rng, s.size), p["df"]),
        ),
        _noise(
            "sc.laplace",
            ("scale",),
            lambda p: _num(p, "scale", 0, gt=True),
            lambda p, s, rng: s + p["scale"] * stats.laplace.ppf(_u(rng, s.size)),
        ),
    )
}
"""Scenario noise channels, applied to the raw mechanism value in its unit."""

# ------------------------------------------------------------------------------ roots


def _trunc(dist, p, u):
    lo, hi = dist.cdf(p["low"]), dist.cdf(p["high"])
    return dist.ppf(lo + u * (hi - lo))


def _root(name, kind, keys, check, ppf):
    def validate(p):
        _keys(p, keys)
        check(p)
        if "low" in p and "high" in p and not _num(p, "low") < _num(p, "high"):
            raise ValueError(f"'low' = {p['low']} must be below 'high' = {p['high']}")

    return RootFamily(
        name=name,
        kind=kind,
        sample_params=lambda rng: (_ for _ in ()).throw(NotImplementedError(name)),
        validate=validate,
        ppf=lambda p, u: np.asarray(ppf(p, np.asarray(u, float)), float),
    )


def _c_probs(p):
    pr = p["probs"]
    if not isinstance(pr, list) or len(pr) < 2:
        raise ValueError("'probs' must list >= 2 probabilities")
    v = _vec(p, "probs", len(pr))
    if np.any(v <= 0) or abs(v.sum() - 1) > 1e-6:
        raise ValueError(f"'probs' = {pr!r} must be positive and sum to 1")


def _ppf_probs(p, u):
    cw = np.cumsum(np.asarray(p["probs"], dtype=float))
    return np.minimum(np.searchsorted(cw / cw[-1], u, side="right"), len(cw) - 1)


SCENARIO_ROOTS: dict[str, RootFamily] = {
    f.name: f
    for f in (
        _root(
            "sc.normal",
            "continuous",
            ("mean", "sd", "low", "high"),
            lambda p: (_num(p, "mean"), _num(p, "sd", 0, gt=True)),
            lambda p, u: _trunc(stats.norm(p["mean"], p["sd"]), p, u),
        ),
        _root(
            "sc.lognormal",
            "continuous",
            ("median", "sigma", "low", "high"),
            lambda p: (_num(p, "median", 0, gt=True), _num(p, "sigma", 0, gt=True)),
            lambda p, u: _trunc(stats.lognorm(p["sigma"], scale=p["median"]), p, u),
        ),
        _root(
            "sc.uniform",
            "continuous",
            ("low", "high"),
            lambda p: None,
            lambda p, u: p["low"] + u * (p["high"] - p["low"]),
        ),
        _root(
            "sc.beta",
            "continuous",
            ("a", "b", "low", "high"),
            lambda p: (_num(p, "a", 0, gt=True), _num(p, "b", 0, gt=True)),
            lambda p, u: p["low"] + (p["high"] - p["low"]) * stats.beta.ppf(u, p["a"], p["b"]),
        ),
        _root(
            "sc.gamma",
            "continuous",
            ("shape", "scale", "low", "high"),
            lambda p: (_num(p, "shape", 0, gt=True), _num(p, "scale", 0, gt=True)),
            lambda p, u: _trunc(stats.gamma(p["shape"], scale=p["scale"]), p, u),
        ),
        _root(
            "sc.triangular",
            "continuous",
            ("low", "mode", "high"),
            lambda p: _num(p, "mode", p["low"], p["high"]),
            lambda p, u: stats.triang.ppf(
                u,
                (p["mode"] - p["low"]) / (p["high"] - p["low"]),
                loc=p["low"],
                scale=p["high"] - p["low"],
            ),
        ),
        _root(
            "sc.bernoulli",
            "binary",
            ("p",),
            lambda p: _num(p, "p", 0, 1, gt=True),
            lambda p, u: (u > 1 - p["p"]).astype(float),
        ),
        _root("sc.categorical", "any", ("probs",), _c_probs, _ppf_probs),
        _root(
            "sc.poisson",
            "count",
            ("mean",),
            lambda p: _num(p, "mean", 0, gt=True),
            lambda p, u: stats.poisson.ppf(u, p["mean"]),
        ),
        _root(
            "sc.negative_binomial",
            "count",
            ("mean", "dispersion"),
            lambda p: _nb_check(p, mean=True),
            lambda p, u: stats.nbinom.ppf(
                u, p["dispersion"], p["dispersion"] / (p["dispersion"] + p["mean"])
            ),
        ),
        _root(
            "sc.binomial",
            "count",
            ("trials", "p"),
            lambda p: (_num(p, "trials", 1, 1e7), _num(p, "p", 0, 1)),
            lambda p, u: stats.binom.ppf(u, int(p["trials"]), p["p"]),
        ),
        _root(
            "sc.integer_uniform",
            "any",
            ("low", "high"),
            lambda p: None,
            lambda p, u: np.floor(p["low"] + u * (p["high"] - p["low"] + 1)),
        ),
    )
}
"""Scenario root distributions (continuous ones truncated to the variable's range)."""


def _merged(a: dict, b: dict) -> dict:
    clash = set(a) & set(b)
    if clash:  # pragma: no cover - guarded by the sc. prefix
        raise RuntimeError(f"registry names clash: {sorted(clash)}")
    return {**a, **b}


def _all():
    from causalarena.generator.distributions import NOISES, ROOTS
    from causalarena.generator.mechanisms import MECHANISMS

    return (
        _merged(MECHANISMS, OPERATIONS),
        _merged(NOISES, SCENARIO_NOISES),
        _merged(ROOTS, SCENARIO_ROOTS),
    )


ALL_MECHANISMS, ALL_NOISES, ALL_ROOTS = _all()
"""Synthetic plus scenario registries (what spec validation and the sampler look up)."""
