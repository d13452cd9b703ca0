"""The protocol-sensitivity suites on the release engine (paper 5.3, appendix A.2):
``arena-samplesize`` nesting, each protocol's row counts, targets and value rules, and bytes
independent of the worker count."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.family import family_of
from causalarena.generator.protocols import N_GRID, PROTOCOLS, get_suite
from causalarena.generator.protocols.family import pool_spec
from causalarena.generator.sample import MODE_CODES, sample
from causalarena.release.engine import build
from causalarena.spec import SCMSpec

OPTS = {"scms": 2}


def _rows(folder, config):
    return {r["scm_id"]: r for r in pq.read_table(folder / "data" / config).to_pylist()}


def _arr(row, col, dtype):
    return np.asarray(row[col], dtype=dtype).reshape(-1, row["d"])


@pytest.fixture(scope="module")
def samplesize(tmp_path_factory):
    out = tmp_path_factory.mktemp("ss") / "rel"
    return build("arena-samplesize", scale="mini", out=out, quiet=True, **OPTS)


@pytest.fixture(scope="module")
def protocols(tmp_path_factory):
    out = tmp_path_factory.mktemp("pr") / "rel"
    return build("arena-protocols", scale="mini", out=out, quiet=True, **OPTS)


def test_suites_are_registered_with_one_config_per_n_and_protocol():
    fam = family_of("arena-samplesize")
    assert fam is family_of("arena-protocols")
    assert [c.name for c in fam.configs("arena-samplesize")] == [
        f"samplesize-n{n}" for n in (100, 200, 500, 1000, 2000, 5000, 10000)
    ]
    assert [c.name for c in fam.configs("arena-protocols")] == [
        "protocols-" + p
        for p in (
            "default",
            "fixed-setpoint",
            "parameter-shift",
            "high-fraction",
            "multi-target",
            "dense-mixed",
        )
    ]
    schemas = {c.schema for c in fam.configs("arena-samplesize") + fam.configs("arena-protocols")}
    assert len(schemas) == 1
    (schema,) = schemas
    assert {"n", "protocol", "X", "mask", "adjacency", "spec"} <= set(schema.names)


def test_pool_is_the_d30_public_synthetic_scms_ten_per_graph_family():
    s = get_suite("arena-samplesize")
    full = s.pool("full")
    assert len(full) == 100 and len(set(full)) == 100
    assert s.pool("mini") == full[::10]
    assert get_suite("arena-protocols").pool("full") == full
    with pytest.raises(ValueError, match="option scms = 0"):
        s.pool("mini", {"scms": 0})


def test_samplesize_is_nested_and_the_same_scm_at_every_n(samplesize):
    by_n = {n: _rows(samplesize, f"samplesize-n{n}") for n in N_GRID}
    ids = set(by_n[100])
    assert len(ids) == 2
    for scm in ids:
        big = _arr(by_n[10000][scm], "X", np.float32)
        assert big.shape == (10000, 30)
        for n in N_GRID:
            row = by_n[n][scm]
            assert row["n"] == row["n_obs"] == n and row["n_int"] == 0
            assert row["protocol"] == "observational" and row["setting"] == "obs"
            X = _arr(row, "X", np.float32)
            # exact nesting: the n rows are the first n rows of the largest sample
            assert X.tobytes() == big[:n].tobytes()
            assert not _arr(row, "mask", bool).any()
            assert row["spec"] == by_n[10000][scm]["spec"]
            assert row["instance_id"] == f"{scm}/n{n}/r0"
        # the same SCM as the synthetic pool publishes
        spec = SCMSpec.from_json(by_n[100][scm]["spec"])
        assert spec == pool_spec(spec.metadata["index"])
    man = json.loads((samplesize / "manifest.json").read_text())
    assert man["definition"]["n"] == list(N_GRID) and man["options"] == OPTS


def test_each_protocol_row_counts_targets_and_modes(protocols):
    rows = {p.name: _rows(protocols, f"protocols-{p.name}") for p in PROTOCOLS}
    scms = set(rows["default"])
    assert len(scms) == 2
    for p in PROTOCOLS:
        assert set(rows[p.name]) == scms  # the same SCMs under every protocol
    for scm in scms:
        default_spec = SCMSpec.from_json(rows["default"][scm]["spec"])
        for p in PROTOCOLS:
            row = rows[p.name][scm]
            spec = SCMSpec.from_json(row["spec"])
            roles = {v.name: v.role for v in spec.variables}
            assert (row["n_obs"], row["n_int"]) == (p.n_obs, p.n_int)
            assert row["n"] == 1000 and row["protocol"] == p.name
            assert spec.variables == default_spec.variables  # same graph and mechanisms
            mask = _arr(row, "mask", bool)
            assert not mask[: p.n_obs].any()
            counts = mask[p.n_obs :].sum(axis=1)
            targeted = {row["variables"][j] for j in np.flatnonzero(mask.any(axis=0))}
            assert targeted <= set(spec.intervention.targets)
            if p.targets_per_row == (1, 1):
                assert (counts == 1).all()
            else:
                assert counts.min() == 2 and counts.max() == 4
            if p.structural:
                assert all(roles[t] == "structural" for t in spec.intervention.targets)
                assert len(spec.intervention.targets) == len(default_spec.intervention.targets)
            assert list(spec.intervention.modes) == list(p.modes)
            assert not {s.kind for s in spec.stressors} & {
                "soft_intervention",
                "intervention_shift",
            }
        # mode balance in the dense mixed protocol: recompute the sample from its spec
        dm = SCMSpec.from_json(rows["dense-mixed"][scm]["spec"])
        for name, shift in dm.intervention.parameter_shifts.items():
            if shift.kind == "bias_shift":
                assert 0.3 <= abs(shift.shift_iqr) <= 0.8, name
            else:
                assert 0.6 <= shift.factor <= 0.85 or 1.15 <= shift.factor <= 1.6, name


def _natural(spec: SCMSpec, row) -> np.ndarray:
    """The same sample without interventions (same noise streams)."""
    from causalarena.generator.protocols.family import data_seed

    seed = data_seed("arena-protocols", spec.metadata["index"], row["audit_attempts"] - 1)
    t = sample(spec, row["n_obs"], row["n_int"], seed)
    return t


def test_value_rules_fixed_setpoints_and_parameter_shifts(protocols):
    rows = {p: _rows(protocols, f"protocols-{p}") for p in ("fixed-setpoint", "dense-mixed")}
    checked = 0
    for scm, row in rows["fixed-setpoint"].items():
        spec = SCMSpec.from_json(row["spec"])
        t = _natural(spec, row)
        assert t.X.tobytes() == _arr(row, "X", np.float32).tobytes()  # rebuilds exactly
        if spec.stressors and {s.kind for s in spec.stressors} - {"weak_signal", "high_noise"}:
            continue  # observation stressors alter X after sampling
        X = t.X.astype(np.float64)
        for j, v in enumerate(spec.variables):
            cells = t.mask[:, j]
            if not cells.any() or v.kind != "continuous":
                continue
            base = X[: row["n_obs"], j]
            q = np.percentile(base, [20, 50, 80])
            iqr = np.subtract(*np.percentile(base, [75, 25]))
            dist = np.abs(X[cells, j][:, None] - q[None, :]).min(axis=1)
            assert dist.max() <= 0.01 * iqr + 1e-4 * (1 + np.abs(q).max()), (scm, v.name)
            assert dist.max() > 0  # jittered, not exactly the percentile
            checked += 1
    assert checked >= 2
    for row in rows["dense-mixed"].values():
        spec = SCMSpec.from_json(row["spec"])
        t = _natural(spec, row)
        modes = t.diagnostics["modes"][t.mask]
        counts = np.bincount(modes, minlength=3)
        assert counts.max() - counts.min() <= 1, counts
        # parameter-shift cells: the value is the shifted mechanism's, not a set value, so
        # re-running without the shift on the same parents reproduces the natural value only
        ps = (t.diagnostics["modes"] == MODE_CODES["parameter_shift"]) & t.mask
        assert ps.any()
        assert t.diagnostics["targets"]  # per-target changed counts recorded
        changed = sum(st["changed"] for st in t.diagnostics["targets"].values())
        assert changed > 0.5 * t.mask.sum()


def test_parameter_shift_suite_rows_are_functions_of_their_parents(protocols):
    """In a parameter-shift row the target still follows its parents (a linear or other
    deterministic part plus the row's noise): re-evaluating the shifted mechanism on the
    row's parents with the natural noise gives the published value exactly."""
    from causalarena.generator.protocols.family import data_seed

    for row in _rows(protocols, "protocols-parameter-shift").values():
        spec = SCMSpec.from_json(row["spec"])
        seed = data_seed("arena-protocols", spec.metadata["index"], row["audit_attempts"] - 1)
        t = sample(spec, row["n_obs"], row["n_int"], seed, counterfactual_check=True)
        assert t.X.tobytes() == _arr(row, "X", np.float32).tobytes()
        cf = t.diagnostics["counterfactual"]
        assert cf["rows_with_nondescendant_change"] == 0
        for name, st in t.diagnostics["targets"].items():
            assert st["rows"] > 0 and st["changed"] > 0, name


@pytest.mark.parametrize("suite", ["arena-samplesize", "arena-protocols"])
def test_bytes_do_not_depend_on_worker_count(suite, samplesize, protocols, tmp_path):
    one = samplesize if suite == "arena-samplesize" else protocols
    two = build(suite, scale="mini", out=tmp_path / "w2", workers=2, quiet=True, **OPTS)
    a = {f["path"]: f["sha256"] for f in json.loads((one / "manifest.json").read_text())["files"]}
    b = {f["path"]: f["sha256"] for f in json.loads((two / "manifest.json").read_text())["files"]}
    assert a == b and any(p.startswith("data/") for p in a)
