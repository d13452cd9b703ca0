"""Spec and sampler additions of the protocol suites (paper appendix A.2): percentile
setpoints, parameter-shift interventions, random target counts per row, mixed modes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from causalarena import SCMSpec, SpecError, sample
from causalarena.generator.sample import MODE_CODES

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


def chain4(intervention):
    """X -> Y -> Z -> W, all deterministic linear (no noise), so values are hand-computable."""
    return SCMSpec(
        scm_id="chain4",
        variables=[
            {"name": "X", "role": "root", "root": GAUSS},
            {"name": "Y", **lin(["X"], [2.0], 0.5)},
            {"name": "Z", **lin(["Y"], [-1.0], 1.0)},
            {"name": "W", **lin(["Z"], [0.5], 0.0)},
        ],
        intervention=intervention,
    )


def test_new_fields_are_omitted_from_the_json_when_default():
    s = chain4({"targets": ["Y"]})
    iv = json.loads(s.to_json())["intervention"]
    assert set(iv) == {"targets", "protocol", "assignment", "targets_per_row", "value_rule"}
    s2 = chain4(
        {
            "targets": ["Y", "Z"],
            "modes": ["setpoint", "parameter_shift"],
            "targets_per_row_max": 2,
            "parameter_shifts": {
                "Y": {"kind": "bias_shift", "shift_iqr": 0.5},
                "Z": {"kind": "parent_scale", "factor": 1.3},
            },
        }
    )
    back = SCMSpec.from_json(s2.to_json())
    assert back == s2
    assert json.loads(s2.to_json())["intervention"]["parameter_shifts"]["Y"] == {
        "kind": "bias_shift",
        "shift_iqr": 0.5,
    }


@pytest.mark.parametrize(
    ("iv", "field", "value"),
    [
        ({"targets": ["Y", "Z"], "targets_per_row_max": 3}, "intervention.targets_per_row_max", 3),
        (
            {"targets": ["Y", "Z"], "targets_per_row": 2, "targets_per_row_max": 1},
            "intervention.targets_per_row_max",
            1,
        ),
        ({"targets": ["Y"], "modes": ["setpoint", "setpoint"]}, "intervention.modes", None),
        (
            {"targets": ["Y"], "modes": ["setpoint"], "setpoint": {"percentiles": [20, 120]}},
            "intervention.setpoint.percentiles[1]",
            120.0,
        ),
        ({"targets": ["Y"], "modes": ["parameter_shift"]}, "intervention.parameter_shifts", None),
        (
            {
                "targets": ["X"],
                "modes": ["parameter_shift"],
                "parameter_shifts": {"X": {"kind": "strength_scale", "factor": 1.2}},
            },
            "intervention.targets",
            "X",
        ),
        (
            {
                "targets": ["Y"],
                "modes": ["parameter_shift"],
                "parameter_shifts": {"Y": {"kind": "strength_scale", "factor": -1.0}},
            },
            "intervention.parameter_shifts.Y.factor",
            -1.0,
        ),
        (
            {
                "targets": ["Y"],
                "modes": ["parameter_shift"],
                "parameter_shifts": {"Y": {"kind": "bias_shift", "factor": 1.0}},
            },
            "intervention.parameter_shifts.Y.factor",
            1.0,
        ),
        (
            {"targets": ["Y"], "parameter_shifts": {"Y": {"kind": "bias_shift", "shift_iqr": 1}}},
            "intervention.parameter_shifts",
            "Y",
        ),
        ({"targets": ["Y"], "modes": ["teleport"]}, "intervention.modes.0", "teleport"),
    ],
)
def test_invalid_protocol_fields_name_field_and_value(iv, field, value):
    with pytest.raises(SpecError) as e:
        chain4(iv)
    assert e.value.field == field
    if value is not None:
        assert e.value.value == value
    assert "Traceback" not in str(e.value)


def test_fixed_setpoints_sit_at_the_stated_percentiles_with_small_jitter():
    s = chain4({"targets": ["Y", "Z"], "modes": ["setpoint"]})
    t = sample(s, 800, 200, seed=5)
    X = t.X.astype(np.float64)
    nat = sample(chain4({"targets": ["Y", "Z"]}), 800, 0, seed=5).X.astype(np.float64)
    for j in (1, 2):
        base = X[:800, j]
        np.testing.assert_array_equal(base, nat[:800, j])  # observational rows untouched
        q = np.percentile(base, [20, 50, 80])
        iqr = np.subtract(*np.percentile(base, [75, 25]))
        vals = X[800:, j][t.mask[800:, j]]
        dist = np.abs(vals[:, None] - q[None, :])
        nearest = dist.argmin(axis=1)
        assert dist.min(axis=1).max() <= 0.01 * iqr * (1 + 1e-5)  # jitter <= 1% IQR
        assert dist.min(axis=1).max() > 0  # jitter is applied
        assert set(nearest.tolist()) == {0, 1, 2}  # every setpoint is used
    # descendants recomputed from the set value: W = 0.5 * Z in every row
    np.testing.assert_allclose(X[:, 3], 0.5 * X[:, 2], atol=1e-5)


def test_parameter_shift_changes_the_mechanism_not_the_value():
    shifts = {
        "Y": {"kind": "parent_scale", "factor": 1.5},
        "Z": {"kind": "bias_shift", "shift_iqr": 0.6},
    }
    s = chain4({"targets": ["Y", "Z"], "modes": ["parameter_shift"], "parameter_shifts": shifts})
    t = sample(s, 800, 200, seed=9, counterfactual_check=True)
    X = t.X.astype(np.float64)
    rows_y = np.flatnonzero(t.mask[:, 1])
    rows_z = np.flatnonzero(t.mask[:, 2])
    assert rows_y.size + rows_z.size == 200 and rows_y.min() >= 800
    # Y is still a function of its parent in the shifted rows: 2 * (1.5 X) + 0.5
    np.testing.assert_allclose(X[rows_y, 1], 2.0 * 1.5 * X[rows_y, 0] + 0.5, atol=1e-4)
    assert np.corrcoef(X[rows_y, 0], X[rows_y, 1])[0, 1] > 0.999
    # Z = -Y + 1 + 0.6 * IQR(Z_obs): a shifted intercept, still following Y
    iqr = np.subtract(*np.percentile(X[:800, 2], [75, 25]))
    np.testing.assert_allclose(X[rows_z, 2], -X[rows_z, 1] + 1.0 + 0.6 * iqr, atol=1e-4)
    # unshifted rows keep the natural mechanism; descendants recomputed
    other = np.setdiff1d(np.arange(1000), rows_y)
    np.testing.assert_allclose(X[other, 1], 2.0 * X[other, 0] + 0.5, atol=1e-4)
    np.testing.assert_allclose(X[:, 3], 0.5 * X[:, 2], atol=1e-5)
    cf = t.diagnostics["counterfactual"]
    assert cf["rows_with_nondescendant_change"] == 0 and cf["observational_rows_changed"] == 0
    assert (t.diagnostics["modes"][t.mask] == MODE_CODES["parameter_shift"]).all()
    # a hard do on the same target breaks the parent dependence (what a shift must not do)
    hard = sample(chain4({"targets": ["Y", "Z"]}), 800, 200, seed=9)
    ry = np.flatnonzero(hard.mask[:, 1])
    assert abs(np.corrcoef(hard.X[ry, 0], hard.X[ry, 1])[0, 1]) < 0.3


def test_strength_scale_multiplies_the_standardised_output():
    s = chain4(
        {
            "targets": ["Z"],
            "modes": ["parameter_shift"],
            "parameter_shifts": {"Z": {"kind": "strength_scale", "factor": 0.7}},
        }
    )
    t = sample(s, 100, 100, seed=2)
    X = t.X.astype(np.float64)
    rows = np.flatnonzero(t.mask[:, 2])
    np.testing.assert_allclose(X[rows, 2], 0.7 * (-X[rows, 1] + 1.0), atol=1e-4)


def test_random_target_counts_per_row():
    s = chain4({"targets": ["X", "Y", "Z", "W"], "targets_per_row": 2, "targets_per_row_max": 4})
    t = sample(s, 800, 200, seed=4, counterfactual_check=True)
    counts = t.mask[800:].sum(axis=1)
    assert counts.min() == 2 and counts.max() == 4
    assert set(np.unique(counts).tolist()) == {2, 3, 4}
    assert abs(counts.mean() - 3.0) < 0.2
    assert not t.mask[:800].any()
    assert t.diagnostics["counterfactual"]["rows_with_nondescendant_change"] == 0


def test_mixed_modes_are_balanced_over_targeted_cells():
    shifts = {t: {"kind": "strength_scale", "factor": 1.3} for t in ("Y", "Z", "W")}
    s = chain4(
        {
            "targets": ["Y", "Z", "W"],
            "targets_per_row": 2,
            "targets_per_row_max": 3,
            "modes": ["resample", "setpoint", "parameter_shift"],
            "parameter_shifts": shifts,
        }
    )
    t = sample(s, 200, 800, seed=11, counterfactual_check=True)
    modes = t.diagnostics["modes"]
    cells = modes[t.mask]
    counts = np.bincount(cells, minlength=3)
    assert counts.max() - counts.min() <= 1 and counts.sum() == t.mask.sum()
    assert not modes[~t.mask].any()
    assert t.diagnostics["counterfactual"]["rows_with_nondescendant_change"] == 0


def test_resample_only_specs_sample_the_same_bytes_as_before():
    """No new field given: the old code path (same streams) is used."""
    a = sample(chain4({"targets": ["Y", "Z"]}), 300, 100, seed=1)
    b = sample(chain4({"targets": ["Y", "Z"], "modes": ["resample"]}), 300, 100, seed=1)
    assert a.X.tobytes() == b.X.tobytes() and "modes" not in a.diagnostics
