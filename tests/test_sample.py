"""Sampling: hand-computed structural equations and do-interventions (paper 3.1, A.1)."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena import SCMSpec, SpecError, sample

GAUSS = {"family": "gaussian", "params": {"mean": 0.0, "std": 1.0}}


def lin(parents, weights, bias, noise=None):
    v = {
        "role": "structural",
        "parents": parents,
        "mechanism": {"family": "linear", "params": {"weights": weights, "bias": bias}},
    }
    if noise:
        v["noise"] = noise
    return v


def chain(intervention=None, noise=None):
    return SCMSpec(
        scm_id="chain",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {"name": "Y", **lin(["X"], [2.0], 0.5, noise)},
            {"name": "Z", **lin(["Y"], [-1.0], 1.0)},
        ],
        intervention=intervention,
    )


def test_observational_equations_hand_computed():
    t = sample(chain(), 500, seed=3)
    X, Y, Z = t.X.T.astype(np.float64)
    np.testing.assert_allclose(Y, 2 * X + 0.5, atol=1e-5)
    np.testing.assert_allclose(Z, -Y + 1.0, atol=1e-5)
    assert t.X.dtype == np.float32 and t.X.shape == (500, 3)
    assert t.mask.dtype == bool and not t.mask.any()
    assert t.adjacency.dtype == np.int8


def test_output_standardisation_and_strength_are_applied():
    s = SCMSpec(
        scm_id="s",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {
                "name": "Y",
                **lin(["X"], [2.0], 0.5),
                "out_loc": 0.5,
                "out_scale": 4.0,
                "strength": 0.45,
            },
        ],
    )
    X, Y = sample(s, 200, seed=1).X.T.astype(np.float64)
    np.testing.assert_allclose(Y, 0.45 * (2 * X + 0.5 - 0.5) / 4.0, atol=1e-6)


def test_gaussian_noise_residual_scale():
    t = sample(chain(noise={"family": "gaussian", "params": {"scale": 0.3}}), 20000, seed=0)
    X, Y, _ = t.X.T.astype(np.float64)
    assert abs(np.std(Y - (2 * X + 0.5)) - 0.3) < 0.01


def test_chain_do_root_propagates_to_all_descendants():
    iv = {"targets": ["X"], "value_rule": {"kind": "fixed", "values": {"X": 1.0}}}
    t = sample(chain(iv), 300, 100, seed=5)
    rows = slice(300, 400)
    assert t.mask[rows, 0].all() and not t.mask[rows, 1:].any() and not t.mask[:300].any()
    np.testing.assert_allclose(t.X[rows], np.tile([1.0, 2.5, -1.5], (100, 1)), atol=1e-6)


def test_fork_do_leaves_siblings_and_ancestors_alone():
    s = SCMSpec(
        scm_id="fork",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {
                "name": "Y",
                **lin(["X"], [1.0], 0.0, {"family": "gaussian", "params": {"scale": 0.5}}),
            },
            {
                "name": "Z",
                **lin(["X"], [3.0], 0.0, {"family": "gaussian", "params": {"scale": 0.5}}),
            },
        ],
        intervention={"targets": ["Y"], "value_rule": {"kind": "fixed", "values": {"Y": 3.0}}},
    )
    t = sample(s, 100, 50, seed=2, counterfactual_check=True)
    base = sample(s, 150, 0, seed=2)  # same keyed noise streams, no intervention
    np.testing.assert_array_equal(t.X[100:, 1], 3.0)
    np.testing.assert_array_equal(t.X[:, [0, 2]], base.X[:, [0, 2]])
    cf = t.diagnostics["counterfactual"]
    assert cf["rows_with_nondescendant_change"] == 0 and cf["observational_rows_changed"] == 0


def test_two_targets_ancestor_and_descendant_both_hold():
    """do(X=1), do(Y=0) on X -> Y -> Z: Y stays 0 and Z is computed from Y=0."""
    iv = {
        "targets": ["X", "Y"],
        "targets_per_row": 2,
        "value_rule": {"kind": "fixed", "values": {"X": 1.0, "Y": 0.0}},
    }
    t = sample(chain(iv), 50, 40, seed=9)
    rows = slice(50, 90)
    assert t.mask[rows, :2].all()
    np.testing.assert_array_equal(t.X[rows, 0], 1.0)
    np.testing.assert_array_equal(t.X[rows, 1], 0.0)  # not recomputed as 2*1+0.5
    np.testing.assert_allclose(t.X[rows, 2], 1.0, atol=1e-7)  # -0 + 1


def test_balanced_assignment_and_percentile_values():
    s = SCMSpec(
        scm_id="b",
        variables=[
            {"name": "A", "role": "root", "root": GAUSS},
            {"name": "B", "role": "root", "root": GAUSS},
            {
                "name": "C",
                **lin(
                    ["A", "B"], [1.0, 1.0], 0.0, {"family": "gaussian", "params": {"scale": 0.1}}
                ),
            },
        ],
        intervention={"targets": ["A", "B", "C"]},
    )
    t = sample(s, 800, 200, seed=4)
    counts = t.mask[800:].sum(axis=0)
    assert sorted(counts.tolist()) == [66, 67, 67]
    assert (t.mask[800:].sum(axis=1) == 1).all()
    for j in range(3):
        lo, hi = np.percentile(t.X[:800, j], [10, 90])
        vals = t.X[800:][t.mask[800:, j], j]
        assert vals.min() >= lo - 1e-6 and vals.max() <= hi + 1e-6
    # C's intervened values are not its mechanism values A + B
    rowsC = np.flatnonzero(t.mask[:, 2])
    assert np.abs(t.X[rowsC, 2] - t.X[rowsC, 0] - t.X[rowsC, 1]).mean() > 0.3


def test_deterministic_and_seed_sensitive():
    s = chain({"targets": ["X", "Y"]}, noise={"family": "gaussian", "params": {"scale": 0.2}})
    a, b = sample(s, 100, 20, seed=11), sample(s, 100, 20, seed=11)
    assert a.X.tobytes() == b.X.tobytes() and a.mask.tobytes() == b.mask.tobytes()
    assert sample(s, 100, 20, seed=12).X.tobytes() != a.X.tobytes()


def test_interventions_need_a_definition_and_a_baseline():
    with pytest.raises(SpecError, match="intervention"):
        sample(chain(), 10, 5)
    with pytest.raises(SpecError, match="baseline"):
        sample(chain({"targets": ["X"]}), 0, 5)


# ------------------------------------------------------------------ float32 range (issue 9 §4)
def test_out_loc_overflowing_float32_names_the_variable():
    s = SCMSpec(
        scm_id="big",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {"name": "Y", **lin(["X"], [1.0], 0.0), "out_loc": -1e308},
        ],
    )
    with pytest.raises(SpecError) as exc:
        sample(s, 50, seed=0)
    assert exc.value.variable == "Y"
    assert "float32" in str(exc.value)


def test_long_chain_with_huge_strength_never_returns_inf():
    names = [f"V{k}" for k in range(50)]
    variables = [{"name": names[0], "role": "root", "root": GAUSS}]
    for k in range(1, 50):
        variables.append({"name": names[k], **lin([names[k - 1]], [1.0], 0.0), "strength": 1e300})
    s = SCMSpec(scm_id="chain50", variables=variables)
    with pytest.raises(SpecError) as exc:
        sample(s, 30, seed=1)
    # the first structural node already exceeds float32 (float64 is still finite there)
    assert exc.value.variable == "V1"


def test_values_inside_float32_range_still_sample():
    s = SCMSpec(
        scm_id="ok",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {"name": "Y", **lin(["X"], [1.0], 0.0), "strength": 1e30},
        ],
    )
    t = sample(s, 40, seed=0)
    assert np.isfinite(t.X).all() and np.abs(t.X[:, 1]).max() > 1e29
