"""Audit gates (paper A.2): failures are detected, named, and recorded with the instance."""

from __future__ import annotations

import pyarrow.parquet as pq

from causalarena import SCMSpec, sample
from causalarena.generator.audit import audit_table

GAUSS = {"family": "gaussian", "params": {"mean": 0.0, "std": 1.0}}


def _spec(noise_scale: float | None, **extra) -> SCMSpec:
    y = {
        "name": "Y",
        "role": "structural",
        "parents": ["X"],
        "mechanism": {"family": "linear", "params": {"weights": [1.0], "bias": 0.0}},
    }
    if noise_scale is not None:
        y["noise"] = {"family": "gaussian", "params": {"scale": noise_scale}}
    return SCMSpec(scm_id="a", variables=[{"name": "X", "role": "root", "root": GAUSS}, y], **extra)


def test_near_duplicate_pair_is_named():
    reasons = audit_table(_spec(None), sample(_spec(None), 500, seed=0))
    assert len(reasons) == 1 and "near-duplicate" in reasons[0] and "'X', 'Y'" in reasons[0]
    assert audit_table(_spec(1.0), sample(_spec(1.0), 500, seed=0)) == []


def test_constant_and_dominated_columns():
    spec = SCMSpec(
        scm_id="b",
        variables=[
            {
                "name": "B",
                "role": "root",
                "kind": "binary",
                "root": {"family": "bernoulli", "params": {"p": 0.001}},
            },
            {"name": "X", "role": "root", "root": GAUSS},
        ],
    )
    reasons = audit_table(spec, sample(spec, 2000, seed=1))
    assert any("discrete B has one value in" in r for r in reasons)


def test_interventional_gates_pass_on_a_good_table_and_catch_missing_counterfactual():
    spec = _spec(1.0, intervention={"targets": ["X"]})
    good = sample(spec, 800, 200, seed=2, counterfactual_check=True)
    assert audit_table(spec, good) == []
    unchecked = sample(spec, 800, 200, seed=2)
    assert "obs+int: counterfactual check was not run" in audit_table(spec, unchecked)


def test_redraws_are_recorded_in_the_release(mini_release):
    rows = pq.read_table(
        mini_release / "data/synthetic-obs", columns=["scm_id", "audit_attempts", "audit_reasons"]
    ).to_pylist()
    redrawn = [r for r in rows if r["audit_attempts"] > 1]
    assert redrawn, "the mini build redraws some SCMs (about 40%)"
    for r in rows:
        assert len(r["audit_reasons"]) == r["audit_attempts"] - 1
        for k, reason in enumerate(r["audit_reasons"]):
            assert reason.startswith(f"attempt {k}: ")
