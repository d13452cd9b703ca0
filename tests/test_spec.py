"""The executable SCM spec: exact JSON round trip and one clear error type."""

from __future__ import annotations

import json

import pytest

from causalarena import SCMSpec, SpecError
from causalarena.generator.synthetic import draw_spec


def chain_spec(**extra):
    return dict(
        scm_id="chain",
        variables=[
            {
                "name": "X",
                "role": "root",
                "root": {"family": "gaussian", "params": {"mean": 0.0, "std": 1.0}},
            },
            {
                "name": "Y",
                "role": "structural",
                "parents": ["X"],
                "mechanism": {"family": "linear", "params": {"weights": [2.0], "bias": 0.5}},
            },
            {
                "name": "Z",
                "role": "structural",
                "parents": ["Y"],
                "mechanism": {"family": "linear", "params": {"weights": [-1.0], "bias": 1.0}},
            },
        ],
        **extra,
    )


def test_roundtrip_handmade():
    s = SCMSpec(**chain_spec(intervention={"targets": ["X", "Y"]}))
    text = s.to_json()
    s2 = SCMSpec.from_json(text)
    assert s2 == s
    assert s2.to_json() == text
    assert s.adjacency().tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]


@pytest.mark.parametrize("index", [0, 137, 512, 999])
def test_roundtrip_synthetic(index):
    from causalarena.generator.synthetic.family import audited_scm
    from causalarena.generator.synthetic.suites import get_suite

    s = audited_scm(get_suite("arena-synthetic"), index).spec
    text = s.to_json()
    assert SCMSpec.from_json(text) == s
    assert SCMSpec.from_json(text).to_json() == text
    # survives a generic JSON parser as well (floats printed shortest-round-trip)
    assert SCMSpec.from_dict(json.loads(text)) == s


def _mutate(fn):
    data = chain_spec()
    fn(data)
    return data


@pytest.mark.parametrize(
    "mutate, variable, field, fragment",
    [
        (
            lambda d: d["variables"][0].update(
                role="structural",
                parents=["Z"],
                mechanism={"family": "linear", "params": {"weights": [1.0], "bias": 0.0}},
                root=None,
            ),
            "X",
            "parents",
            "cycle",
        ),
        (lambda d: d["variables"][1].update(parents=["W"]), "Y", "parents", "unknown parent"),
        (lambda d: d["variables"][0]["root"]["params"].update(std=-1.0), "X", "root.params", "std"),
        (
            lambda d: d["variables"][1]["mechanism"].update(family="warp_drive"),
            "Y",
            "mechanism.family",
            "unknown family",
        ),
        (
            lambda d: d["variables"][1]["mechanism"]["params"].update(weights=[1.0, 2.0]),
            "Y",
            "mechanism.params",
            "weights",
        ),
        (lambda d: d["variables"][1].pop("role"), "Y", "role", "required"),
        (lambda d: d["variables"][1].update(colour="red"), "Y", "colour", "not permitted"),
        (
            lambda d: d["variables"][2].update(
                noise={"family": "gaussian", "params": {"scale": -0.2}}
            ),
            "Z",
            "noise.params",
            "scale",
        ),
        (lambda d: d["variables"][1].update(parents=["Y"]), "Y", "parents", "self-loop"),
        (
            lambda d: d.update(intervention={"targets": ["Q"]}),
            "Q",
            "intervention.targets",
            "unknown",
        ),
    ],
)
def test_bad_specs_raise_one_error_type(mutate, variable, field, fragment):
    with pytest.raises(SpecError) as info:
        SCMSpec(**_mutate(mutate))
    err = info.value
    assert err.variable == variable
    assert err.field == field
    assert fragment.lower() in str(err).lower()
    assert repr(variable) in str(err) and field in str(err)


def test_missing_top_level_field_and_bad_json():
    data = chain_spec()
    data.pop("scm_id")
    with pytest.raises(SpecError, match="scm_id"):
        SCMSpec.from_dict(data)
    with pytest.raises(SpecError, match="not valid JSON"):
        SCMSpec.from_json("{not json")


def test_nan_parameter_rejected():
    data = chain_spec()
    data["variables"][1]["mechanism"]["params"]["bias"] = float("nan")
    with pytest.raises(SpecError, match="finite"):
        SCMSpec(**data)


def test_topological_order_respects_parents():
    s = draw_spec(3, 250, 0)
    pos = {j: k for k, j in enumerate(s.topological_order())}
    A = s.adjacency()
    for i, j in zip(*A.nonzero(), strict=True):
        assert pos[i] < pos[j]


@pytest.mark.parametrize(
    "stressor, fragment",
    [
        (
            {"kind": "feature_warping", "params": {"columns": ["Q"], "transforms": ["tanh"]}},
            "unknown variable",
        ),
        (
            {"kind": "feature_warping", "params": {"columns": ["X"], "transforms": ["cube"]}},
            "unknown transform",
        ),
        (
            {"kind": "feature_warping", "params": {"columns": ["X", "Y"], "transforms": ["tanh"]}},
            "equal length",
        ),
        ({"kind": "outliers", "params": {"fraction": 2.0}}, "must be in [0, 0.5]"),
        ({"kind": "missingness", "params": {"fractoin": 0.05}}, "unknown parameter"),
        ({"kind": "soft_intervention", "params": {"softness": "0.4"}}, "must be a number"),
        (
            {
                "kind": "intervention_shift",
                "params": {"targets": ["X"], "scales": [], "shifts": []},
            },
            "equal length",
        ),
    ],
)
def test_bad_stressor_params(stressor, fragment):
    with pytest.raises(SpecError, match="stressors") as info:
        SCMSpec(**chain_spec(stressors=[stressor], intervention={"targets": ["X"]}))
    assert fragment in str(info.value)


def test_duplicate_stressor_and_kind_mismatch():
    with pytest.raises(SpecError, match="listed twice"):
        SCMSpec(**chain_spec(stressors=[{"kind": "outliers", "params": {"fraction": 0.1}}] * 2))
    data = chain_spec()
    data["variables"][0]["kind"] = "binary"
    with pytest.raises(SpecError, match="produces 'continuous'") as info:
        SCMSpec(**data)
    assert info.value.variable == "X" and info.value.field == "kind"


def test_huge_values_and_nested_errors_name_the_variable():
    data = chain_spec()
    data["variables"][1]["mechanism"]["params"]["weights"] = [1e300]
    with pytest.raises(SpecError) as info:
        SCMSpec(**data)
    assert info.value.variable == "Y" and info.value.field == "mechanism.params.weights[0]"
    with pytest.raises(SpecError, match="needs str or bytes"):
        SCMSpec.from_json(None)


def test_import_is_cheap():
    """`import causalarena` must not pull in pyarrow, datasets or networkx (lazy attributes)."""
    import subprocess
    import sys

    code = (
        "import sys, causalarena; heavy = [m for m in ('pyarrow', 'datasets', 'networkx', "
        "'scipy', 'sklearn') if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
