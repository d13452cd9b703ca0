"""Tests of the synthetic mechanism families (paper appendix A.1, "Mechanisms")."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from causalarena.generator.mechanisms import MECHANISM_TAGS, MECHANISMS, MechanismFamily

NAMES = sorted(MECHANISMS)
SEEDS = (0, 1, 2, 3, 4)
KS = (1, 2, 5)
N = 400


def _draw(name: str, seed: int, k: int) -> dict:
    return MECHANISMS[name].sample_params(np.random.default_rng([seed, k, 17]), k)


def _parents(seed: int, k: int, n: int = N) -> np.ndarray:
    return np.random.default_rng([seed, k, 99]).normal(size=(n, k))


def _assert_plain(obj) -> None:
    """Only plain python JSON types, never numpy scalars."""
    if isinstance(obj, dict):
        for key, v in obj.items():
            assert type(key) is str
            _assert_plain(v)
    elif isinstance(obj, list):
        for v in obj:
            _assert_plain(v)
    else:
        assert type(obj) in (float, int, str), (obj, type(obj))


# ---------------------------------------------------------------------------------- registry


def test_seventeen_forms_sixteen_tags():
    assert len(MECHANISMS) == 17
    assert len(set(MECHANISM_TAGS)) == len(MECHANISM_TAGS) == 16
    assert set(MECHANISM_TAGS) == {f.tag for f in MECHANISMS.values()}
    assert MECHANISMS["multiplicative_product"].tag == "multiplicative"
    assert MECHANISMS["random_function_product"].tag == "multiplicative"
    others = [f.tag for n, f in MECHANISMS.items() if not n.endswith("_product")]
    assert len(set(others)) == 15 and "multiplicative" not in others
    assert MECHANISM_TAGS[0] == "linear_additive"
    assert MECHANISM_TAGS[-1] == "aggregation_nonlinear"


def test_registry_entries():
    for name, fam in MECHANISMS.items():
        assert isinstance(fam, MechanismFamily)
        assert fam.name == name
        expected = "ordinal" if name == "discretization" else "continuous"
        assert fam.output_kind == expected


# ------------------------------------------------------------------------- per-family contract


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("name", NAMES)
def test_sample_validate_evaluate(name, k):
    fam = MECHANISMS[name]
    for seed in SEEDS:
        params = _draw(name, seed, k)
        _assert_plain(params)
        assert len(json.dumps(params)) < 4000  # a few hundred numbers at most
        fam.validate(params, k)
        P = _parents(seed, k)
        P_before = P.copy()
        y = fam.evaluate(params, P)
        assert np.array_equal(P, P_before)  # input not mutated
        assert isinstance(y, np.ndarray) and y.dtype == np.float64 and y.shape == (N,)
        assert np.all(np.isfinite(y))
        assert np.std(y) > 1e-9, f"{name} constant for k={k}, seed={seed}"
        assert np.array_equal(y, fam.evaluate(params, P))  # deterministic
        roundtrip = json.loads(json.dumps(params))
        fam.validate(roundtrip, k)
        assert np.array_equal(y, fam.evaluate(roundtrip, P))


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("name", NAMES)
def test_every_parent_influences(name, k):
    fam = MECHANISMS[name]
    for seed in SEEDS:
        params = _draw(name, seed, k)
        P = _parents(seed, k)
        y = fam.evaluate(params, P)
        for j in range(k):
            Q = P.copy()
            Q[:, j] += 0.37
            assert np.any(fam.evaluate(params, Q) != y), f"{name}: parent {j} ignored (k={k})"


@pytest.mark.parametrize("name", NAMES)
def test_rowwise(name):
    """Row i depends on row i only (needed for pilot calibration + interventions)."""
    fam = MECHANISMS[name]
    params = _draw(name, 7, 3)
    P = _parents(7, 3)
    y = fam.evaluate(params, P)
    # equal up to BLAS summation order, which may depend on the batch size
    np.testing.assert_allclose(fam.evaluate(params, P[:10]), y[:10], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fam.evaluate(params, P[::-1]), y[::-1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_huge_and_raw_inputs_stay_finite(name):
    fam = MECHANISMS[name]
    rng = np.random.default_rng(5)
    for k in KS:
        for seed in SEEDS:
            params = _draw(name, seed, k)
            huge = rng.choice([-1e6, 1e6, -3e5, 0.0, 1e-8, 1e300, -1e300], size=(64, k))
            raw = np.column_stack(
                [
                    rng.poisson(4, 64),
                    rng.lognormal(0.5, 0.9, 64),
                    rng.integers(0, 6, 64),
                    rng.normal(size=64),
                    rng.poisson(15, 64),
                ]
            )[:, :k].astype(np.float64)
            for P in (huge, raw):
                y = fam.evaluate(params, P)
                assert y.shape == (64,) and y.dtype == np.float64
                assert np.all(np.isfinite(y)), (name, k, seed)


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_rejects_wrong_width(name):
    fam = MECHANISMS[name]
    params = _draw(name, 0, 2)
    with pytest.raises(ValueError, match="shape"):
        fam.evaluate(params, np.zeros((5, 3)))


def test_sampling_is_seeded_only():
    """Same rng seed gives the same params; no global RNG is used."""
    for name in NAMES:
        np.random.seed(1)  # noqa: NPY002
        a = _draw(name, 3, 4)
        np.random.seed(2)  # noqa: NPY002
        b = _draw(name, 3, 4)
        assert a == b


# -------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("name", NAMES)
def test_validate_missing_and_unknown_keys(name):
    fam = MECHANISMS[name]
    params = _draw(name, 0, 3)
    for key in params:
        broken = {k: v for k, v in params.items() if k != key}
        with pytest.raises(ValueError, match=key):
            fam.validate(broken, 3)
    with pytest.raises(ValueError, match="bogus"):
        fam.validate({**params, "bogus": 1.0}, 3)
    with pytest.raises(ValueError):
        fam.validate([1, 2, 3], 3)


@pytest.mark.parametrize("name", NAMES)
def test_validate_wrong_number_of_parents(name):
    fam = MECHANISMS[name]
    params = _draw(name, 0, 3)
    for wrong in (2, 4):
        with pytest.raises(ValueError):
            fam.validate(params, wrong)


@pytest.mark.parametrize("name", NAMES)
def test_validate_rejects_non_finite_numbers(name):
    """Setting any top-level float (or first float of a list) to NaN is caught."""
    fam = MECHANISMS[name]
    params = _draw(name, 1, 2)
    n_checked = 0
    for key, value in params.items():
        broken = copy.deepcopy(params)
        if type(value) is float:
            broken[key] = math.nan
        elif isinstance(value, list) and value and type(value[0]) is float:
            broken[key][0] = math.inf
        else:
            continue
        n_checked += 1
        with pytest.raises(ValueError, match=key):
            fam.validate(broken, 2)
    # seed-only families (random_neural, clusters discretization) may have no float to break
    assert n_checked >= 1 or name in ("random_neural", "discretization")


def test_validate_messages_name_parameter_and_value():
    lin = MECHANISMS["linear"]
    with pytest.raises(ValueError, match=r"weights must have 3 entries, got \[1\.0, 2\.0\]"):
        lin.validate({"weights": [1.0, 2.0], "bias": 0.0}, 3)
    with pytest.raises(ValueError, match=r"weights\[1\] must be nonzero"):
        lin.validate({"weights": [1.0, 0.0], "bias": 0.0}, 2)
    with pytest.raises(ValueError, match="bias"):
        lin.validate({"weights": [1.0], "bias": "x"}, 1)
    disc = {"mode": "bins", "n_bins": 1, "weights": [1.0, 1.0], "edges": []}
    with pytest.raises(ValueError, match=r"n_bins must be an integer in 2\.\.50, got 1"):
        MECHANISMS["discretization"].validate(disc, 2)


@pytest.mark.parametrize(
    ("name", "key", "bad"),
    [
        ("saturation", "scale", -1.0),
        ("saturation", "scale", 0.0),
        ("saturation", "kind", "cubic"),
        ("rff_gp", "output_scale", -0.5),
        ("rff_gp", "n_features", 0),
        ("rff_gp", "seed", -1),
        ("rff_gp", "length_scales", [1.0, -1.0]),
        ("random_neural", "hidden", 0),
        ("random_neural", "activation", "relu"),
        ("rational", "offset", 0.0),
        ("rational", "offset", 0.01),
        ("mixture_regime", "gate_scale", -2.0),
        ("mixture_regime", "alt_scale", 0.0),
        ("random_function_product", "scale", -1.0),
        ("random_function_product", "functions", ["tanh", "cube"]),
        ("piecewise", "low_slopes", [0.5, -0.2]),
        ("piecewise", "signs", [1.0, 0.5]),
        ("tree", "depth", 0),
        ("tree", "features", [0, 1, 2]),
        ("polynomial", "coefs", [[1.0], [1.0, 0.5]]),
        ("polynomial", "coefs", [[1.0, 0.5, 0.1, 0.1, 0.1], [1.0, 0.5]]),
        ("polynomial", "coefs", [[0.0, 0.0], [1.0, 0.5]]),
        ("interaction", "pairs", [[0, 0]]),
        ("interaction", "pairs", [[0, 2]]),
        ("interaction", "pairs", [[0, 1], [0, 1]]),
        ("exp_log", "kinds", ["exp", "sqrt"]),
    ],
)
def test_validate_rejects_out_of_range(name, key, bad):
    fam = MECHANISMS[name]
    params = _draw(name, 2, 2)
    params[key] = bad
    with pytest.raises(ValueError, match=key):
        fam.validate(params, 2)


def test_validate_rejects_bad_bins_and_temperature():
    fam = MECHANISMS["discretization"]
    ok = {"mode": "bins", "n_bins": 3, "weights": [1.0], "edges": [-0.5, 0.5]}
    fam.validate(ok, 1)
    for key, bad in [("n_bins", 1), ("n_bins", 51), ("edges", [0.5, -0.5]), ("edges", [0.1])]:
        with pytest.raises(ValueError, match=key):
            fam.validate({**ok, key: bad}, 1)
    agg = MECHANISMS["aggregation"]
    lse = {"mode": "logsumexp", "weights": [1.0], "biases": [0.0], "baseline": 0.0}
    with pytest.raises(ValueError, match="temperature"):
        agg.validate(lse, 1)
    for bad in (0.0, -0.5):
        with pytest.raises(ValueError, match="temperature"):
            agg.validate({**lse, "temperature": bad}, 1)
    with pytest.raises(ValueError, match="temperature"):  # max takes no temperature
        agg.validate({**lse, "mode": "max", "temperature": 1.0}, 1)
    act = MECHANISMS["activation"]
    base = {"slopes": [1.0], "shifts": [0.0], "coefs": [1.0], "bias": 0.0}
    with pytest.raises(ValueError, match="period"):
        act.validate({"activation": "modulo", **base}, 1)
    with pytest.raises(ValueError, match="period"):
        act.validate({"activation": "modulo", **base, "period": -1.0}, 1)
    with pytest.raises(ValueError, match="step"):
        act.validate({"activation": "relu", **base, "step": 0.5}, 1)


# --------------------------------------------------------------------- hand-computed values


def _ev(name: str, params: dict, P) -> np.ndarray:
    fam = MECHANISMS[name]
    P = np.asarray(P, dtype=np.float64)
    fam.validate(params, P.shape[1])
    return fam.evaluate(params, P)


def test_linear_values():
    y = _ev("linear", {"weights": [1.0, -2.0], "bias": 0.5}, [[1.0, 1.0], [0.0, 2.0]])
    np.testing.assert_allclose(y, [-0.5, -3.5])


def test_polynomial_values():
    p = {"coefs": [[1.0, 0.5], [0.0, 0.0, 2.0, 0.1]], "bias": -1.0}
    # x1 + 0.5 x1^2 + 2 x2^3 + 0.1 x2^4 - 1
    y = _ev("polynomial", p, [[2.0, 1.0], [-1.0, -2.0], [0.0, 0.0]])
    np.testing.assert_allclose(y, [2 + 2 + 2 + 0.1 - 1, -1 + 0.5 - 16 + 1.6 - 1, -1.0])


def test_piecewise_values():
    p = {
        "cutoffs": [0.0],
        "low_slopes": [0.5],
        "high_slopes": [2.0],
        "offsets": [1.0],
        "signs": [1.0],
    }
    y = _ev("piecewise", p, [[-1.0], [0.0], [1.0], [-0.2]])
    np.testing.assert_allclose(y, [-0.5, 1.0, 3.0, -0.1])
    p2 = {**p, "cutoffs": [0.5, -0.5], "low_slopes": [0.5, 1.0], "high_slopes": [2.0, 1.5]}
    p2 |= {"offsets": [1.0, -1.0], "signs": [1.0, -1.0]}
    # parent 1: x=1 >= 0.5 -> 2*(0.5)+1 = 2; parent 2: x=-1 < -0.5 -> 1*(-0.5) = -0.5, sign -1
    np.testing.assert_allclose(_ev("piecewise", p2, [[1.0, -1.0]]), [2.0 + 0.5])


def test_saturation_values():
    p = {"weights": [1.0], "bias": 0.0, "kind": "hard_clip", "scale": 2.0}
    np.testing.assert_allclose(_ev("saturation", p, [[0.25], [1.0], [-3.0]]), [0.5, 1.0, -1.0])
    p = {"weights": [1.0, 1.0], "bias": 0.5, "kind": "tanh", "scale": 1.5}
    np.testing.assert_allclose(_ev("saturation", p, [[0.5, -0.5]]), [np.tanh(0.75)])
    p = {"weights": [2.0], "bias": 0.0, "kind": "softsign", "scale": 1.0}
    np.testing.assert_allclose(_ev("saturation", p, [[1.0]]), [2.0 / 3.0])


def test_discretization_values():
    p = {"mode": "bins", "n_bins": 3, "weights": [1.0, -1.0], "edges": [-0.5, 0.5]}
    y = _ev("discretization", p, [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.5, 0.0], [0.0, 2.0]])
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0, 2.0, 0.0])
    pc = {
        "mode": "clusters",
        "n_bins": 3,
        "projection": [[1.0, 0.0], [0.0, 1.0]],
        "centers": [[-1.0, 0.0], [0.0, 1.0], [1.0, 0.0]],
    }
    y = _ev("discretization", pc, [[-0.9, 0.1], [0.1, 0.8], [2.0, -1.0]])
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0])


def test_other_hand_values():
    # interaction with one parent: w x + v x^2 + b
    p = {"weights": [1.0], "pairs": [[0, 0]], "pair_weights": [2.0], "bias": 0.0}
    np.testing.assert_allclose(_ev("interaction", p, [[3.0]]), [3.0 + 18.0])
    p = {"weights": [1.0, 1.0, 1.0], "pairs": [[0, 2]], "pair_weights": [0.5], "bias": 1.0}
    np.testing.assert_allclose(_ev("interaction", p, [[2.0, 3.0, 4.0]]), [1 + 9 + 4.0])
    # multiplicative product
    p = {"weights": [1.0, 2.0], "biases": [0.5, -1.0]}
    np.testing.assert_allclose(_ev("multiplicative_product", p, [[1.0, 2.0]]), [1.5 * 3.0])
    p1 = {"weights": [2.0], "biases": [1.0]}
    np.testing.assert_allclose(_ev("multiplicative_product", p1, [[-1.0]]), [-1.0])
    # rational: (x + 1) / (0.5 + (2x)^2)
    p = {"num_weights": [1.0], "num_bias": 1.0, "den_weights": [2.0], "den_bias": 0.0}
    np.testing.assert_allclose(_ev("rational", {**p, "offset": 0.5}, [[1.0]]), [2.0 / 4.5])
    # exp clipped to [-3, 3]; signed log
    p = {"kinds": ["exp", "slog"], "slopes": [1.0, 1.0], "shifts": [0.0, 0.0]}
    p |= {"coefs": [1.0, 1.0], "bias": 0.0}
    y = _ev("exp_log", p, [[10.0, -np.e + 1]])
    np.testing.assert_allclose(y, [np.exp(3.0) - 1.0])
    # aggregation
    p = {"mode": "max", "weights": [1.0, -1.0], "biases": [0.0, 0.0], "baseline": -0.5}
    np.testing.assert_allclose(
        _ev("aggregation", p, [[1.0, 2.0], [-1.0, -0.2], [-1, 1]]), [1, 0.2, -0.5]
    )
    p = {"mode": "logsumexp", "weights": [1.0], "biases": [0.0], "baseline": 0.0}
    y = _ev("aggregation", {**p, "temperature": 0.5}, [[1.0]])
    np.testing.assert_allclose(y, [0.5 * np.log(np.exp(2.0) + 1.0)])
    # tree of depth 1: go right when x > threshold; plus the linear leak
    p = {"depth": 1, "features": [1], "thresholds": [0.0], "leaves": [-1.0, 1.0]}
    y = _ev("tree", {**p, "linear": [0.1, 0.2]}, [[1.0, -1.0], [1.0, 1.0]])
    np.testing.assert_allclose(y, [-1.0 + 0.1 - 0.2, 1.0 + 0.1 + 0.2])
    # periodic
    p = {"freqs": [2.0], "phases": [0.5], "amps": [1.5], "bias": 0.25}
    np.testing.assert_allclose(_ev("periodic", p, [[0.3]]), [1.5 * np.sin(1.1) + 0.25])


@pytest.mark.parametrize(
    ("act", "extra", "u", "expected"),
    [
        ("relu", {}, [-1.0, 2.0], [0.0, 2.0]),
        ("leaky_relu", {}, [-1.0, 2.0], [-0.1, 2.0]),
        ("abs", {}, [-1.5, 2.0], [1.5, 2.0]),
        ("sign", {}, [-1.5, 2.0], [-1.0, 1.0]),
        ("step", {}, [-1.5, 0.0], [0.0, 1.0]),
        ("hard_tanh", {}, [-1.5, 0.3], [-1.0, 0.3]),
        ("relu6", {}, [-1.5, 7.0], [0.0, 6.0]),
        ("elu", {}, [-1.0, 2.0], [np.expm1(-1.0), 2.0]),
        ("silu", {}, [0.0, 2.0], [0.0, 2.0 / (1 + np.exp(-2.0))]),
        ("sigmoid", {}, [0.0, 2.0], [0.5, 1 / (1 + np.exp(-2.0))]),
        ("softplus", {}, [0.0, 2.0], [np.log(2.0), np.log1p(np.exp(2.0))]),
        ("modulo", {"period": 1.5}, [2.0, -0.5], [0.5, 1.0]),
        ("round", {"step": 0.5}, [0.8, -0.3], [1.0, -0.5]),
        ("rank", {}, [-1e3, 0.0], [0.0, 0.5]),
        ("rank", {}, [1e3, 0.01], [1.0, 0.5]),
    ],
)
def test_activation_values(act, extra, u, expected):
    p = {"activation": act, "slopes": [1.0], "shifts": [0.0], "coefs": [1.0], "bias": 0.0}
    y = _ev("activation", {**p, **extra}, np.asarray(u)[:, None])
    np.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)


def test_all_fifteen_activations_are_sampled():
    seen = {_draw("activation", s, 2)["activation"] for s in range(400)}
    assert len(seen) == 15


def test_discretization_codes_are_integers_in_range():
    fam = MECHANISMS["discretization"]
    modes = set()
    for seed in range(30):
        for k in KS:
            params = _draw("discretization", seed, k)
            modes.add(params["mode"])
            assert 3 <= params["n_bins"] <= 7
            y = fam.evaluate(params, _parents(seed, k) * 3)
            assert np.array_equal(y, np.round(y))
            assert y.min() >= 0 and y.max() <= params["n_bins"] - 1
            assert len(np.unique(y)) >= 2
    assert modes == {"bins", "clusters"}


# ------------------------------------------------------------------------ sampling ranges


def test_sampling_ranges_follow_paper():
    for seed in range(20):
        for k in KS:
            lin = _draw("linear", seed, k)
            assert all(0.4 / math.sqrt(k) <= abs(w) <= 1.2 / math.sqrt(k) for w in lin["weights"])
            assert -0.5 <= lin["bias"] <= 0.5
            poly = _draw("polynomial", seed, k)
            for c in poly["coefs"]:
                assert 2 <= len(c) <= 4 and abs(c[1]) <= 0.5
                assert len(c) < 3 or abs(c[2]) <= 0.15
            mp = _draw("multiplicative_product", seed, k)
            assert all(-0.4 <= b <= 0.4 for b in mp["biases"])
            assert 0.4 <= _draw("random_function_product", seed, k)["scale"] <= 1.6
            inter = _draw("interaction", seed, k)
            m = len(inter["pairs"])
            assert 1 <= m <= 3
            bound = 0.75 / math.sqrt(m)
            assert all(0.25 / math.sqrt(m) <= abs(v) <= bound for v in inter["pair_weights"])
            pw = _draw("piecewise", seed, k)
            assert all(-0.6 <= t <= 0.6 for t in pw["cutoffs"])
            assert all(0.2 <= s <= 1.0 for s in pw["low_slopes"])
            assert all(1.0 <= s <= 2.5 for s in pw["high_slopes"])
            assert all(-1.5 <= o <= 1.5 for o in pw["offsets"])
            assert 0.8 <= _draw("saturation", seed, k)["scale"] <= 2.5
            mr = _draw("mixture_regime", seed, k)
            assert 1.0 <= mr["gate_scale"] <= 4.0 and -0.5 <= mr["cutoff"] <= 0.5
            assert 0.5 <= mr["alt_scale"] <= 1.8
            assert 3 <= _draw("random_neural", seed, k)["hidden"] <= 8
            rff = _draw("rff_gp", seed, k)
            assert 64 <= rff["n_features"] <= 256 and 0.4 <= rff["output_scale"] <= 2.5
            assert all(0.25 <= s <= 3.0 for s in rff["length_scales"])
            act = _draw("activation", seed, k)
            assert act["activation"] != "modulo" or 0.75 <= act["period"] <= 3.0
            assert act["activation"] != "round" or 0.2 <= act["step"] <= 1.0
            tree = _draw("tree", seed, k)
            assert 2 <= tree["depth"] <= 4 and all(-0.8 <= t <= 0.8 for t in tree["thresholds"])
            if k <= 2 ** tree["depth"] - 1:
                assert set(tree["features"]) == set(range(k))  # every parent is split on
            agg = _draw("aggregation", seed, k)
            assert agg["mode"] == "max" or 0.3 <= agg["temperature"] <= 1.5


def test_exp_inputs_are_clipped():
    p = {"kinds": ["exp"], "slopes": [1.0], "shifts": [0.0], "coefs": [1.0], "bias": 0.0}
    y = _ev("exp_log", p, [[3.0], [50.0], [1e6], [-1e6]])
    np.testing.assert_allclose(y, [np.exp(3.0)] * 3 + [np.exp(-3.0)])


def test_rational_denominator_bounded():
    p = {"num_weights": [1.0], "num_bias": 0.0, "den_weights": [1.0], "den_bias": 0.0}
    x = np.linspace(-5, 5, 1001)[:, None]
    y = _ev("rational", {**p, "offset": 0.05}, x)
    assert np.all(np.abs(y) <= np.abs(x[:, 0]) / 0.05 + 1e-12)
