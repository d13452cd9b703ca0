"""Tests for the root, noise and root-dependency registries (paper appendix A.1)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import special, stats

from causalarena.generator.distributions import (
    DEPENDENCIES,
    NOISE_FAMILIES,
    NOISES,
    ROOT_FAMILIES,
    ROOTS,
    sample_root,
)

SEEDS = (0, 1, 2, 3, 7)
BLOCK_SIZES = (2, 3, 5)

PAPER_ROOTS = (
    "uniform",
    "gaussian",
    "truncated_gaussian",
    "lognormal",
    "gamma",
    "scaled_beta",
    "exponential",
    "gumbel",
    "bernoulli",
    "poisson",
    "ordinal_categorical",
    "mixture_gaussian",
    "multinomial",
    "zipf",
)
PAPER_NOISES = (
    "gaussian",
    "uniform",
    "laplace",
    "student_t",
    "multiplicative_lognormal",
    "heteroskedastic",
    "rff_heteroskedastic",
    "target_r2",
    "mixture_outlier",
    "quantized",
    "censored",
    "beta",
    "exponential",
    "gumbel",
)


def _pilot(n: int = 2000, k: int = 3, seed: int = 123) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    P = rng.standard_normal((n, k))
    s = P @ np.array([0.6, -0.5, 0.4][:k])
    return (s - s.mean()) / s.std(), P


def _ready_noise(name: str, seed: int, n: int = 2000) -> tuple[dict, np.ndarray, np.ndarray]:
    """Sampled and calibrated noise parameters plus a pilot signal/parents."""
    fam = NOISES[name]
    params = fam.sample_params(np.random.default_rng(seed))
    s, P = _pilot(n)
    params = fam.calibrate(params, s, P, np.random.default_rng(seed + 1000))
    return params, s, P


# ---------------------------------------------------------------------------------------------
# registry shape
# ---------------------------------------------------------------------------------------------
def test_registry_counts_and_order():
    assert len(ROOTS) == 14
    assert ROOT_FAMILIES == PAPER_ROOTS
    # The paper counts 15 noise families: 14 noisy channels plus the no-noise option.
    assert len(NOISES) == 15
    assert "none" in NOISES
    assert NOISE_FAMILIES == PAPER_NOISES
    assert len(NOISE_FAMILIES) == 14
    assert set(DEPENDENCIES) == {"common_factor", "random_covariance", "uniform_ball"}
    for reg in (ROOTS, NOISES, DEPENDENCIES):
        for key, fam in reg.items():
            assert fam.name == key


def test_root_kinds():
    kinds = {k: f.kind for k, f in ROOTS.items()}
    assert kinds["bernoulli"] == "binary"
    assert kinds["poisson"] == "count"
    assert kinds["ordinal_categorical"] == "ordinal"
    assert kinds["multinomial"] == "categorical"
    for name in (
        "uniform",
        "gaussian",
        "truncated_gaussian",
        "lognormal",
        "gamma",
        "scaled_beta",
        "exponential",
        "gumbel",
        "mixture_gaussian",
    ):
        assert kinds[name] == "continuous"
    assert set(kinds.values()) <= {"continuous", "binary", "ordinal", "categorical", "count"}


# ---------------------------------------------------------------------------------------------
# generic behaviour of every family over several seeds
# ---------------------------------------------------------------------------------------------
def _is_plain_json(value) -> bool:
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) is list:
        return all(_is_plain_json(v) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _is_plain_json(v) for k, v in value.items())
    return False


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", PAPER_ROOTS)
def test_root_generic(name, seed):
    fam = ROOTS[name]
    params = fam.sample_params(np.random.default_rng(seed))
    assert _is_plain_json(params)
    fam.validate(params)
    assert json.loads(json.dumps(params)) == params
    fam.validate(json.loads(json.dumps(params)))

    x = sample_root(name, params, 500, np.random.default_rng(seed))
    assert x.shape == (500,) and x.dtype == np.float64
    assert np.all(np.isfinite(x))
    np.testing.assert_array_equal(x, sample_root(name, params, 500, np.random.default_rng(seed)))
    assert not np.array_equal(x, sample_root(name, params, 500, np.random.default_rng(seed + 1)))

    # ppf is a non-decreasing map of u, finite up to the clipped extremes
    u = np.concatenate([[1e-12], np.linspace(1e-6, 1 - 1e-6, 2001), [1 - 1e-12]])
    y = fam.ppf(params, u)
    assert y.shape == u.shape and y.dtype == np.float64
    assert np.all(np.isfinite(y))
    assert np.all(np.diff(y) >= -1e-9)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [*PAPER_NOISES, "none"])
def test_noise_generic(name, seed):
    fam = NOISES[name]
    raw = fam.sample_params(np.random.default_rng(seed))
    assert _is_plain_json(raw)
    fam.validate(raw)
    assert json.loads(json.dumps(raw)) == raw

    s, P = _pilot()
    params = fam.calibrate(raw, s, P, np.random.default_rng(seed))
    assert _is_plain_json(params)
    fam.validate(params)
    assert json.loads(json.dumps(params)) == params
    assert raw == fam.sample_params(np.random.default_rng(seed)), "calibrate mutated its input"

    y = fam.apply(params, s, P, np.random.default_rng(seed))
    assert y.shape == s.shape and y.dtype == np.float64
    assert np.all(np.isfinite(y))
    np.testing.assert_array_equal(y, fam.apply(params, s, P, np.random.default_rng(seed)))
    if name == "none":
        np.testing.assert_array_equal(y, s)
    else:
        assert not np.array_equal(y, fam.apply(params, s, P, np.random.default_rng(seed + 1)))
    bounds = fam.clip_bounds(params)
    assert (bounds is not None) == (name == "censored")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("r", BLOCK_SIZES)
@pytest.mark.parametrize("name", sorted(DEPENDENCIES))
def test_dependency_generic(name, r, seed):
    fam = DEPENDENCIES[name]
    params = fam.sample_params(np.random.default_rng(seed), r)
    assert _is_plain_json(params)
    fam.validate(params, r)
    assert json.loads(json.dumps(params)) == params
    with pytest.raises(ValueError):
        fam.validate(params, r + 1)

    u = fam.uniforms(params, 400, np.random.default_rng(seed))
    assert u.shape == (400, r) and u.dtype == np.float64
    assert np.all((u > 0) & (u < 1))
    np.testing.assert_array_equal(u, fam.uniforms(params, 400, np.random.default_rng(seed)))
    assert not np.array_equal(u, fam.uniforms(params, 400, np.random.default_rng(seed + 1)))


def test_no_global_random_state_used():
    before = np.random.get_state()  # noqa: NPY002 - the legacy global state must stay untouched
    rng = np.random.default_rng(0)
    s, P = _pilot()
    for name, fam in ROOTS.items():
        sample_root(name, fam.sample_params(rng), 50, rng)
    for fam in NOISES.values():
        p = fam.calibrate(fam.sample_params(rng), s, P, rng)
        fam.apply(p, s, P, rng)
    for fam in DEPENDENCIES.values():
        fam.uniforms(fam.sample_params(rng, 3), 50, rng)
    after = np.random.get_state()  # noqa: NPY002
    np.testing.assert_array_equal(before[1], after[1])
    assert before[2:] == after[2:]


# ---------------------------------------------------------------------------------------------
# sampling ranges of appendix A.1
# ---------------------------------------------------------------------------------------------
def test_sample_params_ranges():
    rng = np.random.default_rng(42)
    for _ in range(200):
        p = ROOTS["uniform"].sample_params(rng)
        assert -2 <= p["low"] <= 0 and 0.5 <= p["high"] <= 3
        p = ROOTS["gaussian"].sample_params(rng)
        assert 0.5 <= p["std"] <= 2
        p = ROOTS["truncated_gaussian"].sample_params(rng)
        assert 0.4 <= p["std"] <= 1.4 and p["bound"] == 2.5
        p = ROOTS["lognormal"].sample_params(rng)
        assert -0.3 <= p["log_mean"] <= 0.7 and 0.25 <= p["log_std"] <= 0.9
        p = ROOTS["gamma"].sample_params(rng)
        assert 1 <= p["shape"] <= 5 and 0.5 <= p["rate"] <= 2
        p = ROOTS["scaled_beta"].sample_params(rng)
        assert 0.8 <= p["a"] <= 5 and 0.8 <= p["b"] <= 5
        assert -1 <= p["low"] <= 0 and 0.8 <= p["high"] <= 3
        assert 0.4 <= ROOTS["exponential"].sample_params(rng)["rate"] <= 2.5
        p = ROOTS["gumbel"].sample_params(rng)
        assert -1 <= p["loc"] <= 1 and 0.3 <= p["scale"] <= 1.8
        assert 0.15 <= ROOTS["bernoulli"].sample_params(rng)["p"] <= 0.85
        assert 1 <= ROOTS["poisson"].sample_params(rng)["rate"] <= 12
        assert 3 <= len(ROOTS["ordinal_categorical"].sample_params(rng)["probs"]) <= 6
        p = ROOTS["mixture_gaussian"].sample_params(rng)
        assert 0.2 <= p["weight"] <= 0.8 and -2 <= p["mean1"] <= -0.2 and 0.2 <= p["mean2"] <= 2
        assert 0.3 <= p["std1"] <= 1 and 0.3 <= p["std2"] <= 1
        probs = np.array(ROOTS["multinomial"].sample_params(rng)["probs"])
        assert 2 <= probs.size <= 10
        logits = np.log(probs)
        assert np.ptp(logits) <= 3.0 + 1e-9  # logits in [-1.5, 1.5] up to a shift
        p = ROOTS["zipf"].sample_params(rng)
        assert 8 <= p["support"] <= 20 and 2 <= p["alpha"] <= 4 and p["cap"] == 10

        assert 0.05 <= NOISES["gaussian"].sample_params(rng)["scale"] <= 0.45
        assert 0.05 <= NOISES["uniform"].sample_params(rng)["scale"] <= 0.45
        assert 0.03 <= NOISES["laplace"].sample_params(rng)["scale"] <= 0.35
        p = NOISES["student_t"].sample_params(rng)
        assert 2.5 <= p["df"] <= 8 and 0.03 <= p["scale"] <= 0.30
        assert 0.03 <= NOISES["multiplicative_lognormal"].sample_params(rng)["sigma"] <= 0.25
        p = NOISES["heteroskedastic"].sample_params(rng)
        assert 0.02 <= p["base"] <= 0.15 and 0.02 <= p["slope"] <= 0.20
        p = NOISES["rff_heteroskedastic"].sample_params(rng)
        assert 64 <= p["n_features"] <= 256 and 0.25 <= p["length_scale"] <= 3
        assert 0.3 <= p["output_scale"] <= 1.8 and isinstance(p["seed"], int)
        assert 0.1 <= NOISES["target_r2"].sample_params(rng)["r2"] <= 0.9
        p = NOISES["mixture_outlier"].sample_params(rng)
        assert 0.02 <= p["base_scale"] <= 0.15 and 0.01 <= p["outlier_prob"] <= 0.08
        assert 0.8 <= p["outlier_scale"] <= 2.5
        assert 0.05 <= NOISES["quantized"].sample_params(rng)["step"] <= 0.35
        p = NOISES["beta"].sample_params(rng)
        assert 1 <= p["a"] <= 10 and 1 <= p["b"] <= 10 and 0.05 <= p["scale"] <= 0.45
        p = NOISES["exponential"].sample_params(rng)
        assert 0.8 <= p["rate"] <= 4 and 0.03 <= p["scale"] <= 0.35
        assert 0.03 <= NOISES["gumbel"].sample_params(rng)["scale"] <= 0.35

        lam = np.array(DEPENDENCIES["common_factor"].sample_params(rng, 6)["loadings"])
        assert np.all((np.abs(lam) >= 0.25) & (np.abs(lam) <= 0.75))
        p = DEPENDENCIES["random_covariance"].sample_params(rng, 4)
        assert len(p["factor"]) == 4 and 1 <= len(p["factor"][0]) <= 4 and p["jitter"] == 0.15
        p = DEPENDENCIES["uniform_ball"].sample_params(rng, 4)
        assert 0.75 <= p["scale"] <= 2 and all(-0.5 <= c <= 0.5 for c in p["center"])
    signs = np.sign(
        [DEPENDENCIES["common_factor"].sample_params(rng, 8)["loadings"] for _ in range(20)]
    )
    assert (signs > 0).any() and (signs < 0).any()


# ---------------------------------------------------------------------------------------------
# validation errors
# ---------------------------------------------------------------------------------------------
def _all_sampled():
    rng = np.random.default_rng(5)
    for name, fam in ROOTS.items():
        yield f"root:{name}", fam.validate, fam.sample_params(rng), ()
    for name, fam in NOISES.items():
        yield f"noise:{name}", fam.validate, fam.sample_params(rng), ()
    for name, fam in DEPENDENCIES.items():
        yield f"dep:{name}", fam.validate, fam.sample_params(rng, 3), (3,)


_SAMPLED = list(_all_sampled())


@pytest.mark.parametrize(
    ("label", "validate", "params", "args"), _SAMPLED, ids=[s[0] for s in _SAMPLED]
)
def test_validate_rejects_missing_and_unknown_keys(label, validate, params, args):
    with pytest.raises(ValueError, match="bogus"):
        validate({**params, "bogus": 1.0}, *args)
    for key in params:
        broken = {k: v for k, v in params.items() if k != key}
        with pytest.raises(ValueError, match=key):
            validate(broken, *args)
    with pytest.raises(ValueError):
        validate([params], *args)


@pytest.mark.parametrize(
    ("registry", "name", "patch", "match"),
    [
        # negative / zero scales
        ("root", "gaussian", {"std": -1.0}, r"'std'.*-1\.0"),
        ("root", "gaussian", {"std": 0.0}, "'std'"),
        ("root", "truncated_gaussian", {"std": -0.5}, "'std'"),
        ("root", "lognormal", {"log_std": -0.1}, "'log_std'"),
        ("root", "gamma", {"rate": -2.0}, "'rate'"),
        ("root", "exponential", {"rate": 0.0}, "'rate'"),
        ("root", "gumbel", {"scale": -1.0}, "'scale'"),
        ("root", "mixture_gaussian", {"std2": -0.3}, "'std2'"),
        ("root", "poisson", {"rate": -3.0}, "'rate'"),
        ("root", "uniform", {"low": 1.0, "high": 0.5}, "'high'"),
        ("root", "scaled_beta", {"low": 2.0, "high": 1.0}, "'high'"),
        ("root", "zipf", {"support": 1}, "'support'"),
        ("root", "zipf", {"support": 8.5}, "'support'"),
        ("noise", "gaussian", {"scale": -0.1}, r"'scale'.*-0\.1"),
        ("noise", "uniform", {"scale": 0.0}, "'scale'"),
        ("noise", "laplace", {"scale": -0.2}, "'scale'"),
        ("noise", "student_t", {"df": -1.0}, "'df'"),
        ("noise", "multiplicative_lognormal", {"sigma": -0.05}, "'sigma'"),
        ("noise", "heteroskedastic", {"base": -0.05}, "'base'"),
        ("noise", "rff_heteroskedastic", {"length_scale": -1.0}, "'length_scale'"),
        ("noise", "rff_heteroskedastic", {"n_features": 0}, "'n_features'"),
        ("noise", "rff_heteroskedastic", {"seed": 1.5}, "'seed'"),
        ("noise", "target_r2", {"scale": -1.0}, "'scale'"),
        ("noise", "quantized", {"step": -0.1}, "'step'"),
        ("noise", "censored", {"low": 1.0, "high": 0.0}, "'high'"),
        ("noise", "censored", {"low": 0.0}, "'low'"),
        ("noise", "beta", {"scale": -0.1}, "'scale'"),
        ("noise", "exponential", {"rate": 0.0}, "'rate'"),
        ("noise", "gumbel", {"scale": -0.1}, "'scale'"),
        # probabilities outside [0, 1]
        ("root", "bernoulli", {"p": 1.2}, r"'p'.*1\.2"),
        ("root", "bernoulli", {"p": -0.1}, "'p'"),
        ("root", "mixture_gaussian", {"weight": 1.5}, "'weight'"),
        ("root", "ordinal_categorical", {"probs": [1.2, -0.2]}, "probs"),
        ("root", "multinomial", {"probs": [0.5, 0.6]}, "sum"),
        ("root", "multinomial", {"probs": [1.0, 0.0, 0.0]}, "two categories"),
        ("noise", "mixture_outlier", {"outlier_prob": 1.5}, "'outlier_prob'"),
        ("noise", "target_r2", {"r2": 1.5}, "'r2'"),
        ("noise", "target_r2", {"r2": 0.0}, "'r2'"),
        # wrong lengths
        ("root", "ordinal_categorical", {"probs": [1.0]}, "'probs'"),
        ("root", "multinomial", {"probs": []}, "'probs'"),
        # wrong types / non-finite
        ("root", "gaussian", {"mean": "zero"}, "'mean'"),
        ("root", "gaussian", {"mean": float("nan")}, "'mean'"),
        ("root", "gaussian", {"mean": True}, "'mean'"),
        ("root", "bernoulli", {"p": None}, "'p'"),
        ("noise", "gaussian", {"scale": float("inf")}, "'scale'"),
    ],
)
def test_validate_rejects_bad_values(registry, name, patch, match):
    fam = (ROOTS if registry == "root" else NOISES)[name]
    params = {**fam.sample_params(np.random.default_rng(0)), **patch}
    with pytest.raises(ValueError, match=match):
        fam.validate(params)


@pytest.mark.parametrize(
    ("name", "params", "r", "match"),
    [
        ("common_factor", {"loadings": [0.5, 0.5]}, 3, "length 3"),
        ("common_factor", {"loadings": [0.5, 1.2, 0.3]}, 3, r"loadings\[1\]"),
        ("common_factor", {"loadings": [0.5, "x", 0.3]}, 3, r"loadings\[1\]"),
        ("random_covariance", {"factor": [[1.0], [0.5]], "jitter": 0.15}, 3, "r=3"),
        (
            "random_covariance",
            {"factor": [[1.0], [0.5, 1.0], [0.1]], "jitter": 0.15},
            3,
            "same length",
        ),
        ("random_covariance", {"factor": [[], [], []], "jitter": 0.15}, 3, r"factor\[0\]"),
        ("random_covariance", {"factor": [[1.0], [0.5], [0.1]], "jitter": -0.15}, 3, "'jitter'"),
        ("uniform_ball", {"scale": 1.0, "center": [0.0, 0.1]}, 3, "'center'"),
        ("uniform_ball", {"scale": -1.0, "center": [0.0, 0.1, 0.2]}, 3, "'scale'"),
        ("uniform_ball", {"scale": 1.0, "center": [0.0, 0.1, 0.2]}, 0, "r must"),
    ],
)
def test_dependency_validate_rejects(name, params, r, match):
    with pytest.raises(ValueError, match=match):
        DEPENDENCIES[name].validate(params, r)


def test_sample_root_unknown_family_and_invalid_params():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown root family"):
        sample_root("cauchy", {}, 10, rng)
    with pytest.raises(ValueError, match="'std'"):
        sample_root("gaussian", {"mean": 0.0, "std": -1.0}, 10, rng)


def test_sample_root_consumes_exactly_n_uniforms():
    a, b = np.random.default_rng(9), np.random.default_rng(9)
    sample_root("poisson", {"rate": 3.0}, 100, a)
    b.random(100)
    assert a.random() == b.random()


# ---------------------------------------------------------------------------------------------
# root marginals against independent reference distributions
# ---------------------------------------------------------------------------------------------
def _reference_cdf(name: str, p: dict):
    if name == "uniform":
        return stats.uniform(p["low"], p["high"] - p["low"]).cdf
    if name == "gaussian":
        return stats.norm(p["mean"], p["std"]).cdf
    if name == "truncated_gaussian":
        return stats.truncnorm(-p["bound"], p["bound"], loc=p["mean"], scale=p["std"]).cdf
    if name == "lognormal":
        return stats.lognorm(p["log_std"], scale=math.exp(p["log_mean"])).cdf
    if name == "gamma":
        return stats.gamma(p["shape"], scale=1 / p["rate"]).cdf
    if name == "scaled_beta":
        return stats.beta(p["a"], p["b"], loc=p["low"], scale=p["high"] - p["low"]).cdf
    if name == "exponential":
        return stats.expon(scale=1 / p["rate"]).cdf
    if name == "gumbel":
        return stats.gumbel_r(p["loc"], p["scale"]).cdf
    if name == "mixture_gaussian":

        def cdf(x):
            return p["weight"] * stats.norm.cdf(x, p["mean1"], p["std1"]) + (
                1 - p["weight"]
            ) * stats.norm.cdf(x, p["mean2"], p["std2"])

        return cdf
    raise KeyError(name)


CONTINUOUS = (
    "uniform",
    "gaussian",
    "truncated_gaussian",
    "lognormal",
    "gamma",
    "scaled_beta",
    "exponential",
    "gumbel",
    "mixture_gaussian",
)


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("name", CONTINUOUS)
def test_continuous_root_marginal_ks(name, seed):
    fam = ROOTS[name]
    p = fam.sample_params(np.random.default_rng(seed))
    x = sample_root(name, p, 5000, np.random.default_rng(seed + 50))
    assert stats.kstest(x, _reference_cdf(name, p)).pvalue > 1e-3
    # the quantile map inverts the reference CDF
    u = np.linspace(0.001, 0.999, 101)
    np.testing.assert_allclose(_reference_cdf(name, p)(fam.ppf(p, u)), u, atol=1e-8)


def test_root_moments_large_n():
    rng = np.random.default_rng(2024)
    n = 200_000
    x = sample_root("gaussian", {"mean": 1.5, "std": 0.7}, n, rng)
    assert abs(x.mean() - 1.5) < 0.01 and abs(x.std() - 0.7) < 0.01

    x = sample_root("uniform", {"low": -1.3, "high": 2.2}, n, rng)
    assert x.min() >= -1.3 and x.max() <= 2.2
    assert x.min() < -1.29 and x.max() > 2.19
    assert abs(x.mean() - 0.45) < 0.02

    x = sample_root("bernoulli", {"p": 0.3}, n, rng)
    assert set(np.unique(x)) == {0.0, 1.0}
    assert abs(x.mean() - 0.3) < 0.005

    x = sample_root("poisson", {"rate": 6.5}, n, rng)
    assert np.all(x == np.round(x)) and x.min() >= 0
    assert abs(x.mean() - 6.5) < 0.03 and abs(x.var() - 6.5) < 0.1

    x = sample_root("truncated_gaussian", {"mean": 0.3, "std": 0.8, "bound": 2.5}, n, rng)
    assert x.min() >= 0.3 - 2.0 - 1e-12 and x.max() <= 0.3 + 2.0 + 1e-12
    assert np.mean(np.isclose(x, 0.3 - 2.0)) < 0.001  # truncation, no boundary atom

    x = sample_root("gamma", {"shape": 3.0, "rate": 2.0}, n, rng)
    assert abs(x.mean() - 1.5) < 0.01

    x = sample_root("exponential", {"rate": 2.0}, n, rng)
    assert x.min() >= 0 and abs(x.mean() - 0.5) < 0.005

    x = sample_root("gumbel", {"loc": 0.5, "scale": 1.2}, n, rng)
    assert abs(x.mean() - (0.5 + 1.2 * np.euler_gamma)) < 0.02

    x = sample_root(
        "mixture_gaussian",
        {"weight": 0.3, "mean1": -1.0, "std1": 0.5, "mean2": 1.5, "std2": 0.8},
        n,
        rng,
    )
    assert abs(x.mean() - (0.3 * -1.0 + 0.7 * 1.5)) < 0.01
    assert (
        abs(np.mean(x < 0.0) - (0.3 * stats.norm.cdf(2.0) + 0.7 * stats.norm.cdf(-1.5 / 0.8)))
        < 0.005
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_ordinal_levels_and_frequencies(seed):
    p = ROOTS["ordinal_categorical"].sample_params(np.random.default_rng(seed))
    probs = np.array(p["probs"])
    k = probs.size
    x = sample_root("ordinal_categorical", p, 100_000, np.random.default_rng(seed))
    assert set(np.unique(x)) <= set(range(k))
    freq = np.bincount(x.astype(int), minlength=k) / x.size
    np.testing.assert_allclose(freq, probs, atol=0.006)


@pytest.mark.parametrize("seed", SEEDS)
def test_multinomial_standardised_with_theoretical_moments(seed):
    p = ROOTS["multinomial"].sample_params(np.random.default_rng(seed))
    probs = np.array(p["probs"])
    x = sample_root("multinomial", p, 200_000, np.random.default_rng(seed))
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    assert np.unique(x).size == probs.size
    # theoretical, not batch, standardisation: a small batch is not exactly standardised,
    # and the value set is identical for every batch size
    small = sample_root("multinomial", p, 20, np.random.default_rng(seed))
    assert set(np.round(small, 12)) <= set(np.round(np.unique(x), 12))
    idx = np.arange(probs.size)
    mu = probs @ idx
    sd = math.sqrt(probs @ (idx - mu) ** 2)
    np.testing.assert_allclose(np.unique(x), (idx - mu) / sd, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_zipf_capped_and_centred(seed):
    p = ROOTS["zipf"].sample_params(np.random.default_rng(seed))
    v = np.arange(1, p["support"] + 1)
    probs = v ** -p["alpha"] / np.sum(v ** -p["alpha"])
    mean = float(probs @ np.minimum(v, 10))
    x = sample_root("zipf", p, 200_000, np.random.default_rng(seed))
    assert x.max() <= 10 - mean + 1e-12
    assert x.min() == pytest.approx(1 - mean)
    assert abs(x.mean()) < 0.01
    assert np.allclose(x + mean, np.round(x + mean))


def test_zipf_cap_mass_collected():
    p = {"support": 20, "alpha": 2.0, "cap": 10}
    v = np.arange(1, 21)
    probs = v**-2.0 / np.sum(v**-2.0)
    x = sample_root("zipf", p, 400_000, np.random.default_rng(3))
    top = x.max()
    assert abs(np.mean(x == top) - probs[9:].sum()) < 0.002


# ---------------------------------------------------------------------------------------------
# noise families
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", [0.1, 0.35, 0.6, 0.9])
def test_target_r2_reaches_target(target):
    fam = NOISES["target_r2"]
    params = {"r2": target, "scale": None}
    s, P = _pilot(20_000, seed=1)
    s = 0.45 * s + 0.2  # not unit variance
    with pytest.raises(ValueError, match="calibrate"):
        fam.apply(params, s, P, np.random.default_rng(0))
    cal = fam.calibrate(params, s, P, np.random.default_rng(0))
    assert cal["scale"] == pytest.approx(math.sqrt(np.var(s) * (1 - target) / target))
    assert params["scale"] is None
    s2, P2 = _pilot(20_000, seed=2)
    s2 = 0.45 * s2 + 0.2
    y = fam.apply(cal, s2, P2, np.random.default_rng(1))
    r2 = np.var(s2) / np.var(y)
    assert abs(r2 - target) < 0.03
    assert abs(np.corrcoef(s2, y)[0, 1] ** 2 - target) < 0.03


def test_target_r2_rejects_constant_pilot():
    with pytest.raises(ValueError, match="variance"):
        NOISES["target_r2"].calibrate(
            {"r2": 0.5, "scale": None}, np.ones(100), np.ones((100, 1)), np.random.default_rng(0)
        )


def test_censored_clip_mass_and_bounds():
    fam = NOISES["censored"]
    params = {"scale": 0.3, "low": None, "high": None}
    assert fam.clip_bounds(params) is None
    s, P = _pilot(20_000, seed=4)
    with pytest.raises(ValueError, match="calibrate"):
        fam.apply(params, s, P, np.random.default_rng(0))
    cal = fam.calibrate(params, s, P, np.random.default_rng(0))
    low, high = fam.clip_bounds(cal)
    assert (low, high) == (cal["low"], cal["high"])
    assert low < high
    # bounds are the 3rd/97th percentiles of the noisy pilot (sd sqrt(1 + 0.3^2))
    sd = math.sqrt(1 + 0.09)
    assert low == pytest.approx(sd * stats.norm.ppf(0.03), abs=0.06)
    assert high == pytest.approx(sd * stats.norm.ppf(0.97), abs=0.06)
    # the same stream as calibration reproduces exactly 6 % boundary mass on the pilot
    y = fam.apply(cal, s, P, np.random.default_rng(0))
    assert np.mean((y == low) | (y == high)) == pytest.approx(0.06, abs=0.001)
    # fresh data: close to 6 %
    s2, P2 = _pilot(20_000, seed=5)
    y2 = fam.apply(cal, s2, P2, np.random.default_rng(1))
    assert y2.min() >= low and y2.max() <= high
    mass = np.mean((y2 == low) | (y2 == high))
    assert 0.05 < mass < 0.07
    assert np.mean(y2 == low) == pytest.approx(0.03, abs=0.006)


@pytest.mark.parametrize("seed", SEEDS)
def test_quantized_on_grid(seed):
    params, s, P = _ready_noise("quantized", seed)
    y = NOISES["quantized"].apply(params, s, P, np.random.default_rng(seed))
    k = y / params["step"]
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)
    assert np.unique(y).size > 3
    assert np.max(np.abs(y - s)) < params["step"] / 2 + 6 * params["scale"]


def _resid(name: str, params: dict, n: int = 200_000, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = rng.standard_normal(n)
    P = rng.standard_normal((n, 2))
    return s, P, NOISES[name].apply(params, s, P, np.random.default_rng(seed + 1)) - s


def test_additive_noise_scales():
    _, _, e = _resid("gaussian", {"scale": 0.3})
    assert abs(e.mean()) < 0.003 and abs(e.std() - 0.3) < 0.003
    _, _, e = _resid("uniform", {"scale": 0.4})
    assert e.min() >= -0.4 and e.max() <= 0.4 and abs(e.std() - 0.4 / math.sqrt(3)) < 0.003
    _, _, e = _resid("laplace", {"scale": 0.2})
    assert abs(np.mean(np.abs(e)) - 0.2) < 0.003
    _, _, e = _resid("student_t", {"df": 5.0, "scale": 0.2})
    assert abs(e.std() - 0.2 * math.sqrt(5 / 3)) < 0.01
    _, _, e = _resid(
        "mixture_outlier", {"base_scale": 0.1, "outlier_prob": 0.05, "outlier_scale": 2.0}
    )
    assert abs(e.var() - (0.95 * 0.01 + 0.05 * 4.0)) < 0.01
    assert abs(np.mean(np.abs(e) > 0.6) - 0.05 * 2 * stats.norm.sf(0.3)) < 0.003


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("beta", {"a": 2.0, "b": 7.0, "scale": 0.4}),
        ("exponential", {"rate": 1.5, "scale": 0.3}),
        ("gumbel", {"scale": 0.3}),
    ],
)
def test_centred_noises(name, params):
    _, _, e = _resid(name, params)
    assert abs(e.mean()) < 0.002
    assert stats.skew(e) > 0.3  # all three are right-skewed
    if name == "beta":
        m = 2 / 9
        assert e.min() >= -0.4 * m and e.max() <= 0.4 * (1 - m)
        assert abs(e.std() - 0.4 * math.sqrt(2 * 7 / (81 * 10))) < 0.002
    if name == "exponential":
        assert e.min() >= -0.3 / 1.5 and abs(e.std() - 0.3 / 1.5) < 0.002
    if name == "gumbel":
        assert abs(e.std() - 0.3 * math.pi / math.sqrt(6)) < 0.003


def test_multiplicative_lognormal():
    s, _, e = _resid("multiplicative_lognormal", {"sigma": 0.2})
    ratio = (s + e) / s
    assert np.all(ratio > 0)
    assert abs(np.log(ratio).std() - 0.2) < 0.002


def test_heteroskedastic_scale_grows_with_signal():
    params = {"base": 0.05, "slope": 0.2}
    s, _, e = _resid("heteroskedastic", params)
    small, big = np.abs(s) < 0.1, np.abs(s) > 2.5
    assert abs(e[small].std() - (0.05 + 0.2 * special.expit(0.05))) < 0.005
    assert e[big].std() > e[small].std() + 0.02


def test_rff_heteroskedastic_scale_depends_on_parents_and_seed():
    fam = NOISES["rff_heteroskedastic"]
    params = {"n_features": 128, "length_scale": 0.8, "output_scale": 1.5, "seed": 11}
    rng = np.random.default_rng(0)
    n = 4000
    P = rng.standard_normal((n, 2))
    s = np.zeros(n)
    # many noise draws at the same parent rows estimate the per-row scale
    draws = np.stack([fam.apply(params, s, P, np.random.default_rng(i)) for i in range(60)])
    row_sd = draws.std(axis=0)
    assert row_sd.min() > 0
    assert np.percentile(row_sd, 90) > 2 * np.percentile(row_sd, 10)
    # the feature map is fixed by the stored seed (not by the noise stream)
    again = np.stack([fam.apply(params, s, P, np.random.default_rng(i)) for i in range(60)])
    np.testing.assert_array_equal(draws, again)
    other = {**params, "seed": 12}
    d2 = np.stack([fam.apply(other, s, P, np.random.default_rng(i)) for i in range(60)])
    assert np.corrcoef(row_sd, d2.std(axis=0))[0, 1] < 0.9
    # rows with identical parents get identical scale regardless of other rows
    y_full = fam.apply(params, s, P, np.random.default_rng(3))
    z = np.random.default_rng(3).standard_normal(n)
    np.testing.assert_allclose(
        y_full[:10] / z[:10], fam.apply(params, s[:10], P[:10], np.random.default_rng(3)) / z[:10]
    )


def test_noise_calibrate_identity_for_plain_families():
    s, P = _pilot()
    for name in NOISE_FAMILIES:
        if name in ("target_r2", "censored"):
            continue
        fam = NOISES[name]
        p = fam.sample_params(np.random.default_rng(0))
        assert fam.calibrate(p, s, P, np.random.default_rng(0)) == p


def test_none_noise_is_identity():
    s, P = _pilot()
    fam = NOISES["none"]
    assert fam.sample_params(np.random.default_rng(0)) == {}
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(fam.apply({}, s, P, rng), s)
    assert rng.random() == np.random.default_rng(0).random()  # no draws consumed
    with pytest.raises(ValueError):
        fam.validate({"scale": 0.1})


# ---------------------------------------------------------------------------------------------
# root dependency
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("r", BLOCK_SIZES)
@pytest.mark.parametrize("name", sorted(DEPENDENCIES))
def test_dependency_marginals_uniform_and_dependent(name, r, seed):
    fam = DEPENDENCIES[name]
    params = fam.sample_params(np.random.default_rng(seed), r)
    u = fam.uniforms(params, 5000, np.random.default_rng(seed + 10))
    assert np.all((u >= 1e-12) & (u <= 1 - 1e-12))
    # each column is exactly U(0, 1): KS at a family-wise level of 1e-3 (Bonferroni over r)
    pvalues = [stats.kstest(u[:, j], "uniform").pvalue for j in range(r)]
    assert min(pvalues) > 1e-3 / r
    rho = stats.spearmanr(u).statistic
    rho = np.atleast_2d(rho) if r > 2 else np.array([[1.0, rho], [rho, 1.0]])
    off = np.abs(rho[np.triu_indices(r, 1)])
    if name == "uniform_ball":
        # spherical symmetry: coordinates are uncorrelated but dependent (|t_i| vs |t_j|)
        assert off.max() < 0.06
        a = np.abs(u - 0.5)
        rho_abs = stats.spearmanr(a[:, 0], a[:, 1]).statistic
        assert rho_abs < -0.05
    else:
        # Gaussian copula: Spearman correlation is (6 / pi) asin(R / 2) for latent correlation R
        R = _latent_correlation(name, params)
        expected = 6 / np.pi * np.arcsin(R / 2)
        np.testing.assert_allclose(rho, expected, atol=0.06)
        if np.abs(expected[np.triu_indices(r, 1)]).max() > 0.15:
            assert off.max() > 0.08


def _latent_correlation(name: str, params: dict) -> np.ndarray:
    if name == "common_factor":
        lam = np.array(params["loadings"])
        R = np.outer(lam, lam)
    else:
        L = np.array(params["factor"])
        S = L @ L.T + params["jitter"] * np.eye(L.shape[0])
        R = S / np.sqrt(np.outer(np.diag(S), np.diag(S)))
    np.fill_diagonal(R, 1.0)
    return R


@pytest.mark.parametrize("seed", SEEDS)
def test_common_factor_every_pair_rank_dependent(seed):
    fam = DEPENDENCIES["common_factor"]
    params = fam.sample_params(np.random.default_rng(seed), 4)
    u = fam.uniforms(params, 20_000, np.random.default_rng(seed))
    rho = stats.spearmanr(u).statistic
    lam = np.sign(params["loadings"])
    iu = np.triu_indices(4, 1)
    # |rho_latent| >= 0.25^2, so |Spearman| >= 0.06 in theory; signs follow the loadings
    assert np.all(np.abs(rho[iu]) > 0.03)
    np.testing.assert_array_equal(np.sign(rho[iu]), np.outer(lam, lam)[iu])


def test_common_factor_latent_correlation():
    fam = DEPENDENCIES["common_factor"]
    params = {"loadings": [0.5, 0.5, -0.5]}
    fam.validate(params, 3)
    u = fam.uniforms(params, 100_000, np.random.default_rng(0))
    z = special.ndtri(u)
    C = np.corrcoef(z, rowvar=False)
    assert C[0, 1] == pytest.approx(0.25, abs=0.01)
    assert C[0, 2] == pytest.approx(-0.25, abs=0.01)
    assert z.std(axis=0) == pytest.approx(np.ones(3), abs=0.01)


def test_random_covariance_latent_correlation():
    fam = DEPENDENCIES["random_covariance"]
    L = np.array([[1.0, 0.0], [0.8, 0.6], [-0.5, 1.0]])
    params = {"factor": L.tolist(), "jitter": 0.15}
    fam.validate(params, 3)
    u = fam.uniforms(params, 100_000, np.random.default_rng(1))
    S = L @ L.T + 0.15 * np.eye(3)
    expected = S / np.sqrt(np.outer(np.diag(S), np.diag(S)))
    np.testing.assert_allclose(np.corrcoef(special.ndtri(u), rowvar=False), expected, atol=0.01)


def test_uniform_ball_copula_matches_ball():
    fam = DEPENDENCIES["uniform_ball"]
    r = 3
    params = {"scale": 1.7, "center": [0.4, -0.3, 0.1]}
    u = fam.uniforms(params, 50_000, np.random.default_rng(2))
    # map back to unit-ball coordinates with the theoretical marginal: points lie in the ball
    t = 2 * stats.beta.ppf(u, (r + 1) / 2, (r + 1) / 2) - 1
    radius = np.linalg.norm(t, axis=1)
    assert radius.max() <= 1 + 1e-6
    # the radius of a uniform point in the unit r-ball has CDF rho^r
    assert stats.kstest(radius, lambda x: np.clip(x, 0, 1) ** r).pvalue > 1e-3
    # scale and centre cancel in the copula
    u2 = fam.uniforms({"scale": 0.8, "center": [0.0, 0.0, 0.0]}, 50_000, np.random.default_rng(2))
    np.testing.assert_allclose(u, u2, atol=1e-9)


def test_copula_keeps_root_marginals_and_rank_dependence():
    """Dependent uniforms through a root ppf keep the family marginal and the rank structure."""
    u = DEPENDENCIES["common_factor"].uniforms(
        {"loadings": [0.7, 0.7]}, 20_000, np.random.default_rng(0)
    )
    p = {"weight": 0.4, "mean1": -1.0, "std1": 0.4, "mean2": 1.2, "std2": 0.6}
    x = ROOTS["mixture_gaussian"].ppf(p, u[:, 0])
    y = ROOTS["gamma"].ppf({"shape": 2.0, "rate": 1.0}, u[:, 1])
    assert stats.kstest(x, _reference_cdf("mixture_gaussian", p)).pvalue > 1e-3
    assert stats.kstest(y, stats.gamma(2.0).cdf).pvalue > 1e-3
    rank_u = stats.spearmanr(u[:, 0], u[:, 1]).statistic
    assert stats.spearmanr(x, y).statistic == pytest.approx(rank_u, abs=1e-9)
