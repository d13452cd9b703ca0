"""Tests of the baseline wrappers in ``causalarena.baselines``.

Convention under test: ``A[i, j] = 1`` iff ``i -> j``; a CPDAG undirected edge
is a symmetric pair. Each convention test uses data from a known graph with a
strong signal and also checks that the transposed answer is rejected.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from causalarena.baselines import registry
from causalarena.baselines.base import (
    Method,
    MethodInfo,
    MethodResult,
    drop_constant_columns,
    environments,
    expand,
    make_fit,
)

MUST_HAVE = [
    "random-regress",
    "var-sort-regress",
    "r2-sort-regress",
    "reverse-r2-sort-regress",
    "pc",
    "ges",
    "direct-lingam",
    "gies",
]
ALL_NAMES = MUST_HAVE + [
    "notears",
    "golem",
    "dagma-linear",
    "dagma-mlp",
    "igsp",
    "ut-igsp",
    "sdcd",
]


def _method(name: str) -> Method:
    """The method, or skip the test if its optional dependency is missing."""
    reason = registry.missing_methods().get(name)
    if reason is not None:
        pytest.skip(reason)
    return registry.get_method(name)


# --------------------------------------------------------------------------- data


def _uniform(rng: np.random.Generator, n: int, scale: float = 1.0) -> np.ndarray:
    return rng.uniform(-scale, scale, n)


def collider(n: int = 2000, seed: int = 0) -> np.ndarray:
    """X0 -> X2 <- X1, linear with uniform noise."""
    rng = np.random.default_rng(seed)
    x0, x1 = _uniform(rng, n), _uniform(rng, n)
    x2 = x0 + x1 + 0.5 * _uniform(rng, n)
    return np.c_[x0, x1, x2]


def chain(n: int = 2000, seed: int = 0, coefs=(1.0, 1.0), noise=(1.0, 1.0, 1.0)) -> np.ndarray:
    """X0 -> X1 -> X2, linear with uniform noise of the given half-widths."""
    rng = np.random.default_rng(seed)
    x0 = _uniform(rng, n, noise[0])
    x1 = coefs[0] * x0 + _uniform(rng, n, noise[1])
    x2 = coefs[1] * x1 + _uniform(rng, n, noise[2])
    return np.c_[x0, x1, x2]


def chain_with_constant(n: int = 2000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Columns 0 -> 1 -> 3 with column 2 constant (=3.7); returns (X, true adjacency)."""
    rng = np.random.default_rng(seed)
    x0 = _uniform(rng, n)
    x1 = 1.5 * x0 + 0.5 * _uniform(rng, n)
    x3 = 1.5 * x1 + 0.5 * _uniform(rng, n)
    X = np.c_[x0, x1, np.full(n, 3.7), x3]
    A = np.zeros((4, 4), dtype=np.int8)
    A[0, 1] = A[1, 3] = 1
    return X, A


def pair_with_intervention(
    target: int, n_obs: int = 2000, n_int: int = 1000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """X -> Y (Gaussian); interventional rows redraw ``target`` independently."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n_obs)
    y = x + rng.normal(size=n_obs)
    if target == 0:
        xi = 2.0 * rng.normal(size=n_int) + 1.0
        yi = xi + rng.normal(size=n_int)
    else:
        xi = rng.normal(size=n_int)
        yi = 2.0 * rng.normal(size=n_int) + 1.0
    X = np.r_[np.c_[x, y], np.c_[xi, yi]]
    mask = np.zeros(X.shape, dtype=bool)
    mask[n_obs:, target] = True
    return X, mask


COLLIDER = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=np.int8)
CHAIN = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=np.int8)


# --------------------------------------------------------------------------- registry


def _dummy(name: str, requires: tuple[str, ...] = (), extra: str | None = None) -> Method:
    info = MethodInfo(
        name=name,
        display_name=name,
        family="control",
        supports_interventions=False,
        requires_interventions=False,
        outputs_edge_scores=False,
        output_graph="dag",
        library="causalarena-test-nonexistent-dist" if requires else None,
        extra=extra,
        defaults={},
        reference="test",
    )

    def core(X, mask, seed, params):
        return np.zeros((X.shape[1],) * 2, dtype=np.int8), None, {}

    return Method(info=info, fit=make_fit(info, core), requires=requires)


def test_all_methods_registered_with_valid_infos():
    infos = registry.all_method_infos()
    assert set(ALL_NAMES) <= set(infos)
    for name, info in infos.items():
        assert info.name == name
        json.dumps(info.defaults)  # JSON-serialisable
        assert info.output_graph in {"dag", "cpdag", "essential", "pag"}
    assert infos["pc"].output_graph == "cpdag" and infos["ges"].output_graph == "cpdag"
    assert infos["gies"].supports_interventions and not infos["pc"].supports_interventions
    assert infos["pc"].defaults["alpha"] == 0.05 and infos["pc"].defaults["stable"] is True
    assert infos["pc"].defaults["indep_test"] == "fisherz"
    assert infos["notears"].defaults["lambda1"] == 0.1
    assert infos["notears"].defaults["w_threshold"] == 0.3
    assert infos["dagma-linear"].defaults["w_threshold"] == 0.3
    assert infos["dagma-mlp"].defaults["w_threshold"] == 0.3


def test_register_duplicate_name_raises():
    method = _dummy("test-duplicate")
    registry.register(method)
    try:
        with pytest.raises(ValueError, match="test-duplicate"):
            registry.register(_dummy("test-duplicate"))
        with pytest.raises(ValueError):
            registry.register(registry.get_method("pc"))  # a real method, registered again
    finally:
        registry._unregister("test-duplicate")


def test_get_method_unknown_name_lists_known_methods():
    with pytest.raises(KeyError) as err:
        registry.get_method("nope")
    message = str(err.value)
    assert "nope" in message
    for name in ("pc", "random-regress", "gies"):
        assert name in message


def test_missing_dependency_is_reported_not_raised():
    registry.register(
        _dummy("test-missing", requires=("causalarena_no_such_module_xyz",), extra="baselines")
    )
    try:
        missing = registry.missing_methods()  # must not raise
        assert "test-missing" in missing
        assert "causalarena_no_such_module_xyz" in missing["test-missing"]
        assert "test-missing" not in registry.available_methods()
        assert "test-missing" in registry.all_method_infos()
        with pytest.raises(ImportError, match=r"pip install 'causalarena\[baselines\]'"):
            registry.get_method("test-missing")
    finally:
        registry._unregister("test-missing")


def test_registry_loads_without_optional_libraries():
    """Info records import without the libraries; get_method names the pip extra."""
    import subprocess
    import sys

    code = """
import sys
for mod in ("causallearn", "lingam", "gies", "castle", "dagma", "torch", "causaldag",
            "sdcd", "numba"):
    sys.modules[mod] = None  # makes `import mod` raise ImportError
from causalarena.baselines import registry
infos = registry.all_method_infos()
missing = registry.missing_methods()
assert len(infos) >= 14, sorted(infos)
assert sorted(registry.available_methods()) == [
    "r2-sort-regress", "random-regress", "reverse-r2-sort-regress", "var-sort-regress"
], registry.available_methods()
assert "pc" in missing and "sdcd" in missing and "golem" in missing, missing
try:
    registry.get_method("pc")
except ImportError as exc:
    assert "pip install 'causalarena[baselines]'" in str(exc), str(exc)
else:
    raise AssertionError("no ImportError")
try:
    registry.get_method("dagma-mlp")
except ImportError as exc:
    assert "causalarena[baselines-torch]" in str(exc), str(exc)
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")


def test_available_and_missing_partition_registry():
    available, missing = registry.available_methods(), registry.missing_methods()
    assert not set(available) & set(missing)
    assert set(available) | set(missing) == set(registry.all_method_infos())
    assert {"random-regress", "var-sort-regress", "r2-sort-regress"} <= set(available)


def test_library_version_reports_installed_distribution():
    import importlib.metadata

    assert registry.all_method_infos()["random-regress"].library == "scikit-learn"
    assert registry.get_method("random-regress").library_version() == importlib.metadata.version(
        "scikit-learn"
    )
    assert _dummy("x", requires=("m",)).library_version() is None  # not installed
    pc = _method("pc")
    assert pc.library_version() == importlib.metadata.version("causal-learn")


def test_unknown_override_is_rejected():
    with pytest.raises(TypeError, match="alpah"):
        registry.get_method("var-sort-regress").fit(collider(200), alpah=0.1)


# --------------------------------------------------------------------------- helpers


def test_environments_observational_first_and_grouped():
    X = np.arange(14, dtype=float).reshape(7, 2)
    mask = np.array(
        [[0, 1], [0, 0], [1, 0], [0, 1], [0, 0], [1, 1], [1, 0]],
        dtype=bool,
    )
    data, targets = environments(X, mask)
    assert targets == [[], [0], [1], [0, 1]]
    np.testing.assert_array_equal(data[0], X[[1, 4]])
    np.testing.assert_array_equal(data[1], X[[2, 6]])
    np.testing.assert_array_equal(data[2], X[[0, 3]])
    np.testing.assert_array_equal(data[3], X[[5]])
    assert sum(len(e) for e in data) == len(X)

    data, targets = environments(X, None)
    assert targets == [[]] and data[0].shape == X.shape

    # no observational rows: interventional environments only, still deterministic
    data, targets = environments(X[[2, 0]], mask[[2, 0]])
    assert targets == [[0], [1]]
    np.testing.assert_array_equal(data[0], X[[2]])


def test_drop_constant_columns_and_expand_roundtrip():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    X[:, 1] = 1e6  # large constant: caught by the relative tolerance
    mask = np.zeros_like(X, dtype=bool)
    mask[:5, 3] = True
    Xk, mk, kept = drop_constant_columns(X, mask)
    np.testing.assert_array_equal(kept, [0, 2, 3])
    np.testing.assert_array_equal(Xk, X[:, [0, 2, 3]])
    np.testing.assert_array_equal(mk, mask[:, [0, 2, 3]])
    small = np.arange(9, dtype=np.int8).reshape(3, 3)
    big = expand(small, kept, 4)
    assert big.shape == (4, 4) and big.dtype == np.int8
    assert not big[1].any() and not big[:, 1].any()
    assert big[0, 3] == small[0, 2] and big[3, 2] == small[2, 1]


# --------------------------------------------------------------------------- contract on every must-have method


@pytest.mark.parametrize("name", MUST_HAVE)
def test_constant_column_dropped_and_mapped_back(name):
    method = _method(name)
    X, A_true = chain_with_constant()
    mask = None
    if method.info.supports_interventions:
        mask = np.zeros(X.shape, dtype=bool)
    result = method.fit(X, mask, seed=0)
    assert isinstance(result, MethodResult)
    A = result.adjacency
    assert A.shape == (4, 4) and A.dtype == np.int8
    assert set(np.unique(A)) <= {0, 1}
    assert not np.diag(A).any()
    assert not A[2].any() and not A[:, 2].any()
    assert result.notes["dropped_constant_columns"] == [2]
    assert result.graph_type == method.info.output_graph
    json.dumps(result.notes)
    # the 0 - 1 - 3 skeleton survives the index mapping
    skeleton = (A | A.T).astype(bool)
    if name != "random-regress":  # a random order may add spurious edges
        assert skeleton[0, 1] and skeleton[1, 3]
        assert not skeleton[0, 2] and not skeleton[2, 3]
    if method.info.outputs_edge_scores:
        S = result.edge_scores
        assert S.shape == (4, 4) and S.dtype == np.float32
        assert not np.diag(S).any() and not S[2].any() and not S[:, 2].any()
    else:
        assert result.edge_scores is None


@pytest.mark.parametrize("name", MUST_HAVE)
def test_fit_is_deterministic_and_leaves_global_rng_alone(name):
    method = _method(name)
    X = collider(500)
    np.random.seed(123)  # noqa: NPY002 (global RNG on purpose)
    before = np.random.get_state()[1].copy()  # noqa: NPY002 (global RNG on purpose)
    r1 = method.fit(X, seed=7)
    r2 = method.fit(X, seed=7)
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002 (global RNG on purpose)
    np.testing.assert_array_equal(r1.adjacency, r2.adjacency)
    assert r1.notes == r2.notes


def test_observational_method_ignores_mask_and_says_so():
    X, mask = pair_with_intervention(target=0)
    result = _method("pc").fit(X, mask)
    assert result.notes["mask_ignored"] is True
    np.testing.assert_array_equal(result.adjacency, _method("pc").fit(X).adjacency)


def test_all_constant_but_one_gives_empty_graph():
    X = np.c_[np.ones(100), np.random.default_rng(0).normal(size=100), np.zeros(100)]
    result = _method("var-sort-regress").fit(X)
    assert result.adjacency.shape == (3, 3) and not result.adjacency.any()
    assert result.notes["dropped_constant_columns"] == [0, 2]


# --------------------------------------------------------------------------- conventions


@pytest.mark.parametrize("name", ["pc", "ges"])
def test_pc_ges_orient_collider_in_package_convention(name):
    result = _method(name).fit(collider())
    assert result.graph_type == "cpdag"
    np.testing.assert_array_equal(result.adjacency, COLLIDER)
    assert not np.array_equal(result.adjacency, COLLIDER.T)  # the transposed reading fails


def test_pc_ges_leave_chain_undirected():
    # a chain is Markov equivalent to its reversal: CPDAG has symmetric ones
    for name in ("pc", "ges"):
        A = _method(name).fit(chain()).adjacency
        np.testing.assert_array_equal(A, CHAIN | CHAIN.T)


def test_direct_lingam_orients_pair_parent_to_child():
    rng = np.random.default_rng(0)
    x0 = _uniform(rng, 2000)
    x1 = 2.0 * x0 + 0.5 * _uniform(rng, 2000)
    result = _method("direct-lingam").fit(np.c_[x0, x1])
    np.testing.assert_array_equal(result.adjacency, [[0, 1], [0, 0]])
    assert result.edge_scores[0, 1] == pytest.approx(2.0, abs=0.1)
    assert result.edge_scores[1, 0] == 0.0
    assert result.notes["order"] == [0, 1]


def test_var_sort_regress_follows_increasing_variance():
    # variances increase along X0 -> X1 -> X2: recovered
    up = _method("var-sort-regress").fit(chain(coefs=(1.0, 1.0)))
    np.testing.assert_array_equal(up.adjacency, CHAIN)
    assert up.notes["order"] == [0, 1, 2]
    assert up.edge_scores[0, 1] > 0.5 and up.edge_scores[1, 0] == 0
    # variances decrease along the chain: the method sorts by variance and reverses it
    down = _method("var-sort-regress").fit(chain(coefs=(0.4, 0.4), noise=(3.0, 0.3, 0.1)))
    assert down.notes["order"] == [2, 1, 0]
    np.testing.assert_array_equal(down.adjacency, CHAIN.T)


def test_r2_sort_regress_is_scale_invariant_unlike_var_sort():
    X = chain(coefs=(0.8, 0.8), noise=(1.0, 1.0, 1.0))
    scaled = X * np.array([100.0, 1.0, 0.01])  # reverses the variance order
    r2 = _method("r2-sort-regress")
    np.testing.assert_array_equal(r2.fit(X).adjacency, r2.fit(scaled).adjacency)
    assert r2.fit(X).notes["order"] == r2.fit(scaled).notes["order"]
    var = _method("var-sort-regress")
    assert var.fit(X).notes["order"] != var.fit(scaled).notes["order"]


def test_reverse_r2_sort_regress_orders_by_decreasing_r2():
    from causalarena.baselines.regress import r2_scores

    X = chain(coefs=(0.8, 0.8), noise=(1.0, 1.0, 1.0))
    r2 = r2_scores(X)
    assert len(set(np.round(r2, 6))) == 3  # distinct, so the order is unambiguous
    fit = _method("reverse-r2-sort-regress").fit(X)
    assert fit.notes["order"] == np.argsort(-r2).tolist()
    assert fit.notes["order"] == _method("r2-sort-regress").fit(X).notes["order"][::-1]
    # parents come only from earlier variables of the order
    pos = {v: k for k, v in enumerate(fit.notes["order"])}
    assert all(pos[i] < pos[j] for i, j in np.argwhere(fit.adjacency))


def test_random_regress_depends_on_seed_only():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 6)) @ np.triu(rng.uniform(0.5, 1.0, (6, 6)))
    method = _method("random-regress")
    a, b = method.fit(X, seed=3), method.fit(X, seed=3)
    np.testing.assert_array_equal(a.adjacency, b.adjacency)
    assert a.notes["order"] == b.notes["order"]
    assert a.notes["order"] == np.random.default_rng(3).permutation(6).tolist()
    orders = {tuple(method.fit(X, seed=s).notes["order"]) for s in range(5)}
    assert len(orders) > 1
    adjs = {method.fit(X, seed=s).adjacency.tobytes() for s in range(5)}
    assert len(adjs) > 1
    # the output is always a DAG consistent with the drawn order
    order = a.notes["order"]
    pos = {v: k for k, v in enumerate(order)}
    for i, j in zip(*np.nonzero(a.adjacency), strict=True):
        assert pos[int(i)] < pos[int(j)]


@pytest.mark.parametrize("target", [0, 1])
def test_gies_uses_intervention_targets(target):
    gies = _method("gies")
    X, mask = pair_with_intervention(target=target)
    with_targets = gies.fit(X, mask)
    np.testing.assert_array_equal(with_targets.adjacency, [[0, 1], [0, 0]])
    assert with_targets.notes["environment_targets"] == [[], [target]]
    # all rows as one observational environment: X -> Y is not identifiable
    without = gies.fit(X, None)
    np.testing.assert_array_equal(without.adjacency, [[0, 1], [1, 0]])
    assert not np.array_equal(with_targets.adjacency, without.adjacency)


def test_gies_maps_targets_after_dropping_constant_column():
    X, mask = pair_with_intervention(target=0)
    X = np.c_[np.zeros(len(X)), X]  # constant column 0 shifts the variables to 1, 2
    mask = np.c_[np.zeros(len(X), dtype=bool), mask]
    result = _method("gies").fit(X, mask)
    np.testing.assert_array_equal(result.adjacency, [[0, 0, 0], [0, 0, 1], [0, 0, 0]])
    assert result.notes["environment_targets"] == [[], [1]]
    assert result.notes["dropped_constant_columns"] == [0]


# --------------------------------------------------------------------------- optional libraries


@pytest.mark.parametrize("name", ["notears", "dagma-linear"])
def test_linear_continuous_methods_orient_chain(name):
    X = chain(coefs=(1.5, -1.2), noise=(1.0, 0.5, 0.5))
    result = _method(name).fit(X)
    np.testing.assert_array_equal(result.adjacency, CHAIN)
    assert result.edge_scores[0, 1] > result.edge_scores[1, 0]


def test_optional_imports_do_not_leak_global_state():
    # castle / dagma / sdcd call torch.set_default_dtype(torch.double) when imported
    torch = pytest.importorskip("torch")
    registry._IMPORT_STATUS.clear()  # force the availability imports to run again
    import logging

    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    registry.missing_methods()
    assert torch.get_default_dtype() == torch.float32
    assert (root.level, root.handlers) == (level, handlers)  # gcastle's basicConfig undone
    if "notears" in registry.available_methods():
        registry.get_method("notears").fit(chain(n=300))
        assert torch.get_default_dtype() == torch.float32


@pytest.mark.parametrize("name", ["igsp", "ut-igsp"])
@pytest.mark.parametrize("target", [0, 1])
def test_igsp_orients_pair_with_interventions(name, target):
    X, mask = pair_with_intervention(target=target)
    result = _method(name).fit(X, mask, seed=0)
    np.testing.assert_array_equal(result.adjacency, [[0, 1], [0, 0]])


def test_igsp_needs_observational_rows():
    X, mask = pair_with_intervention(target=0)
    with pytest.raises(ValueError, match="observational"):
        _method("igsp").fit(X[2000:], mask[2000:])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("golem", {"num_iter": 3000}),
        ("dagma-mlp", {"warm_iter": 500, "max_iter": 1000}),
        ("sdcd", {"stage1_epochs": 100, "stage2_epochs": 200}),
    ],
)
def test_slow_torch_methods_run_and_restore_global_rng(name, overrides):
    method = _method(name)
    X, A_true = chain_with_constant(n=500)
    np.random.seed(5)  # noqa: NPY002 (global RNG on purpose)
    before = np.random.get_state()[1].copy()  # noqa: NPY002 (global RNG on purpose)
    r1 = method.fit(X, seed=1, **overrides)
    np.testing.assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002 (global RNG on purpose)
    import torch

    assert torch.get_default_dtype() == torch.float32  # torch-global state restored
    r2 = method.fit(X, seed=1, **overrides)
    np.testing.assert_array_equal(r1.adjacency, r2.adjacency)
    assert r1.adjacency.shape == (4, 4) and r1.adjacency.dtype == np.int8
    assert not r1.adjacency[2].any() and not r1.adjacency[:, 2].any()
    assert r1.notes["dropped_constant_columns"] == [2]


def test_cpdag_repair_of_conflicting_pc_patterns():
    from causalarena.baselines.cpdag_repair import repair_cpdag
    from causalarena.eval.metrics import cpdag_problem

    # v-structures 0 -> 1 <- 2 and 1 -> 2 <- 3 conflict on 1 - 2 (written undirected):
    # either orientation adds a v-structure, so no consistent extension. Order-oriented DAG:
    # keep 0 -> 1 and 3 -> 2, Kahn ranks 0, 1, 3, 2, so 1 -> 2; its CPDAG is 0 - 1, 1 -> 2 <- 3
    conflict = np.zeros((4, 4), dtype=np.int8)
    conflict[0, 1] = conflict[3, 2] = conflict[1, 2] = conflict[2, 1] = 1
    assert cpdag_problem(conflict) is not None
    fixed, notes = repair_cpdag(conflict)
    expected = np.zeros((4, 4), dtype=np.int8)
    expected[0, 1] = expected[1, 0] = expected[1, 2] = expected[3, 2] = 1
    assert np.array_equal(fixed, expected) and cpdag_problem(fixed) is None
    assert notes["cpdag_repair"] == "cpdag of an order-oriented DAG (no consistent extension)"
    assert notes["cpdag_repair_changed"] == 2
    # an undirected chordless 4-cycle (PC output seen on arena-synthetic/0219) has no
    # extension and its skeleton is no CPDAG; ranks 0, 1, 2, 3 give 0->1->2->3 and 0->3,
    # whose CPDAG has the v-structure 0 -> 3 <- 2 and leaves 0 - 1 - 2 undirected
    square = np.zeros((4, 4), dtype=np.int8)
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 0)]:
        square[i, j] = square[j, i] = 1
    assert cpdag_problem(square) is not None
    fixed, notes = repair_cpdag(square)
    assert cpdag_problem(fixed) is None
    assert fixed[0, 3] == 1 and fixed[3, 0] == 0 and fixed[2, 3] == 1 and fixed[3, 2] == 0
    assert fixed[0, 1] == fixed[1, 0] == fixed[1, 2] == fixed[2, 1] == 1
    # a lone directed edge 0 -> 1 with 1 - 2 has an extension; its CPDAG is all undirected
    over = np.zeros((3, 3), dtype=np.int8)
    over[0, 1] = over[1, 2] = over[2, 1] = 1
    fixed, notes = repair_cpdag(over)
    assert notes["cpdag_repair"] == "cpdag of a consistent extension"
    assert np.array_equal(fixed, ((over + over.T) > 0).astype(np.int8))
    # a valid CPDAG (collider 0 -> 2 <- 1, then compelled 2 -> 3) is returned unchanged
    ok = np.zeros((4, 4), dtype=np.int8)
    ok[0, 2] = ok[1, 2] = ok[2, 3] = 1
    fixed, notes = repair_cpdag(ok)
    assert np.array_equal(fixed, ok) and notes == {"cpdag_repair": "none"}
    assert cpdag_problem(ok) is None


def test_cpdag_repair_agrees_with_the_scorer_on_random_patterns():
    from causalarena.baselines.cpdag_repair import consistent_extension, repair_cpdag
    from causalarena.eval.metrics import cpdag, cpdag_problem

    rng = np.random.default_rng(0)
    for _ in range(60):
        d = int(rng.integers(3, 8))
        dag = np.triu(rng.random((d, d)) < 0.4, 1).astype(np.int8)
        perm = rng.permutation(d)
        dag = dag[np.ix_(perm, perm)]
        c = cpdag(dag).astype(np.int8)
        fixed, notes = repair_cpdag(c)  # a valid CPDAG is kept as is
        assert np.array_equal(fixed, c) and notes == {"cpdag_repair": "none"}
        und = np.argwhere(np.triu(c & c.T, 1))
        if len(und):  # orient one undirected edge: usually no longer a CPDAG
            i, j = und[rng.integers(len(und))]
            bad = c.copy()
            bad[j, i] = 0
            fixed, notes = repair_cpdag(bad)
            assert consistent_extension(bad) is not None
            assert cpdag_problem(fixed) is None
            assert (cpdag_problem(bad) is None) == (notes["cpdag_repair"] == "none")
