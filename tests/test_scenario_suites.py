"""arena-semantic / arena-formula through the release engine (issue 11, configs and builds)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.generator.scenario.family import pool, public_names
from causalarena.release.engine import build


def _shards(folder):
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((folder / "data").rglob("*.parquet"))
    }


@pytest.mark.parametrize("kind", ["semantic", "formula"])
def test_scenario_suite_builds_public_half_with_scenario_columns(request, kind):
    out = request.getfixturevalue(f"{kind}_release")  # session-wide mini build (conftest)
    names = pool(kind)
    public = public_names(f"arena-{kind}")
    assert public == names  # the repository's files are the public half (reserved: private)
    man = json.loads((out / "manifest.json").read_text())
    assert man["definition"]["public"] == public
    obs = pq.read_table(out / f"data/{kind}-obs").to_pylist()
    mix = pq.read_table(out / f"data/{kind}-obsint").to_pylist()
    assert sorted(r["scenario"] for r in obs) == sorted(p.split("/")[1] for p in public)
    for r, m in zip(obs, mix, strict=True):
        X, M = np.array(r["X"]), np.array(m["mask"])
        assert X.shape == (1000, r["d"]) and np.array(m["X"]).shape == (1000, r["d"])
        assert M[:800].sum() == 0 and (M[800:].sum(axis=1) == 1).all()
        assert len(r["variable_meanings"]) == len(r["units"]) == r["d"]
        assert len(r["edge_rationales"]) == r["n_edges"] == int(np.array(r["adjacency"]).sum())
        assert r["domain"] in r["spec"] and r["family"] == kind
        if kind == "formula":
            assert r["equations"] and all(" = " in e for e in r["equations"])
        else:
            assert "equations" not in r


def test_scenario_suite_bytes_do_not_depend_on_workers(tmp_path):
    # one scenario per domain (10 units) keeps the test small as the pool grows
    kw = {"scale": "mini", "quiet": True, "per_domain": 1}
    a = build("arena-formula", out=tmp_path / "w1", workers=1, **kw)
    b = build("arena-formula", out=tmp_path / "w2", workers=2, **kw)
    assert _shards(a) == _shards(b) and _shards(a)
