"""Install and import weight (issue 15 section 2).

The core install loads, streams and scores a release; every other dependency is an extra and
a missing extra is reported in one line naming it.  The release and the predictions are made
here with the full environment; the checks then run in subprocesses where the extras'
modules are blocked (``tests/import_blocker.py``), or, in a slow test, in a fresh virtual
environment that has only the core dependencies of ``pyproject.toml``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena._extras import EXTRA_MODULES, MissingExtraError, check_extra, require

TESTS = Path(__file__).parent
ROOT = TESTS.parent
CONFIG = "synthetic-obs"
#: Modules ``import causalarena`` and ``causalarena.load`` must not import (issue 15 §2).
HEAVY = ("matplotlib", "torch", "sklearn", "mlcroissant", "sympy", "pint", "zarr", "xarray")
#: Everything the core must do without: the extras' modules and the torch-based extras.
BLOCKED = sorted(
    {m for mods in EXTRA_MODULES.values() for m in mods}
    | {"torch", "dask", "autorank", "tigramite", "castle", "dagma", "causaldag", "cdfm"}
)


@pytest.fixture(scope="module")
def scored(mini_release, tmp_path_factory):
    """Predictions for ``mini_release``: the truth for 3 instances, the empty graph for 1."""
    from causalarena.eval.predictions import prediction_table
    from causalarena.eval.score import read_truth, release_provenance

    truth = read_truth(mini_release, CONFIG)
    prov = release_provenance(mini_release)
    ids = sorted(truth)[:4]
    rows = [
        {
            "instance_id": i,
            "config": CONFIG,
            "method": "m",
            "status": "ok",
            "graph_type": "dag",
            **prov,
            "adjacency": np.asarray(truth[i]["adjacency"], dtype=np.int8)
            if k < 3
            else np.zeros_like(truth[i]["adjacency"], dtype=np.int8),
        }
        for k, i in enumerate(ids)
    ]
    pred = tmp_path_factory.mktemp("pred")
    (pred / CONFIG).mkdir()
    pq.write_table(prediction_table(rows), pred / CONFIG / "m.parquet")
    n_edges = int(np.asarray(truth[ids[3]]["adjacency"]).sum())
    return {"release": str(mini_release), "pred": str(pred), "ids": ids, "n_edges": n_edges}


def _blocked(code: str, blocked=BLOCKED, **fmt) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with ``blocked`` made absent."""
    head = (
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\nimport import_blocker\n"
        f"blocker = import_blocker.install({list(blocked)!r})\n"
    )
    src = head + textwrap.dedent(code).format(**fmt)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(TESTS)])}
    return subprocess.run(
        [sys.executable, "-c", src], capture_output=True, text=True, env=env, timeout=300
    )


def test_import_and_load_stay_light_in_the_full_environment(scored):
    code = f"""
    import json, sys
    import causalarena
    after_import = sorted(m for m in {HEAVY!r} if m in sys.modules)
    ds = causalarena.load({CONFIG!r}, source={scored["release"]!r})
    row = causalarena.to_numpy(ds[0])
    after_load = sorted(m for m in {HEAVY!r} if m in sys.modules)
    print(json.dumps([after_import, after_load, list(row["X"].shape), int(row["d"])]))
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr[-2000:]
    after_import, after_load, shape, d = json.loads(r.stdout.strip().splitlines()[-1])
    assert after_import == [] and after_load == []
    assert shape[1] == d and shape[0] > 0


def test_core_loads_streams_and_scores_with_every_extra_blocked(scored):
    r = _blocked(
        """
        import json
        import causalarena
        import_attempts = list(blocker.attempts)
        ds = causalarena.load({config!r}, source={release!r})
        row = causalarena.to_numpy(ds[0])
        load_attempts = list(blocker.attempts)
        first = next(iter(causalarena.stream("synthetic", seed=3, d=10)))
        from causalarena.eval.score import score_predictions
        s = score_predictions({release!r}, {pred!r}, workers=1).set_index("instance_id")
        print(json.dumps({{
            "import": import_attempts, "load": load_attempts,
            "X": list(row["X"].shape), "d": int(row["d"]),
            "stream_d": len(first["adjacency"]),
            "shd": {{i: s.loc[i, "shd"] for i in {ids!r}}},
            "sid": {{i: s.loc[i, "sid"] for i in {ids!r}}},
            "missing": int((s.status == "missing").sum()), "n": len(s),
        }}))
        """,
        config=CONFIG,
        release=scored["release"],
        pred=scored["pred"],
        ids=scored["ids"],
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    # nothing even tried to import an extra's module on import or load
    assert out["import"] == [] and out["load"] == []
    assert out["X"][1] == out["d"]
    assert out["stream_d"] == 10
    ids = scored["ids"]
    assert [out["shd"][i] for i in ids[:3]] == [0, 0, 0]
    assert [out["sid"][i] for i in ids[:3]] == [0, 0, 0]
    # the empty graph misses every true edge; SID (gadjid, core) is computed, and positive
    assert out["shd"][ids[3]] == scored["n_edges"] > 0
    assert out["sid"][ids[3]] > 0
    assert out["missing"] == out["n"] - 4 > 0


def test_cli_without_extras_scores_and_names_the_missing_extra(scored, tmp_path):
    r = _blocked(
        """
        import contextlib, io, json
        from causalarena.cli import main
        res = {{}}
        for name, argv in {cases!r}.items():
            err, out = io.StringIO(), io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                try:
                    rc = main(argv)
                except SystemExit as exc:
                    rc = exc.code
            res[name] = [rc, out.getvalue(), err.getvalue()]
        print(json.dumps(res))
        """,
        cases={
            "version": ["--version"],
            "score": ["score", scored["pred"], "--release", scored["release"], "--workers", "1"],
            "build": ["build", "arena-synthetic", "--out", str(tmp_path / "rel"), "-q"],
        },
    )
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    rc, out, _ = res["version"]
    assert rc == 0 and out.strip().endswith(__import__("causalarena").__version__)
    rc, out, err = res["score"]
    assert rc == 0, err
    rc, out, err = res["build"]
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "'build' extra" in lines[0] and "pip install 'causalarena[build]'" in lines[0]
    assert "Traceback" not in err
    assert not (tmp_path / "rel").exists()  # refused before any work


def test_missing_extras_raise_one_importerror_naming_the_extra():
    r = _blocked(
        """
        import json
        res = {{}}
        for mod in ("causalarena.eval.plots", "causalarena.eval.report"):
            try:
                __import__(mod)
                res[mod] = None
            except ImportError as exc:
                res[mod] = [type(exc).__name__, str(exc)]
        from causalarena.generator.scenario.units import registry
        try:
            registry()
        except ImportError as exc:
            res["pint"] = [type(exc).__name__, str(exc)]
        from causalarena.baselines.registry import get_method
        try:
            get_method("var-sort-regress")
        except ImportError as exc:
            res["regress"] = [type(exc).__name__, str(exc)]
        print(json.dumps(res))
        """
    )
    assert r.returncode == 0, r.stderr[-3000:]
    res = json.loads(r.stdout.strip().splitlines()[-1])
    kind, msg = res["causalarena.eval.plots"]
    assert kind == "MissingExtraError"
    assert "'plots' extra" in msg and "pip install 'causalarena[plots]'" in msg
    assert "\n" not in msg
    # the report's tables and Markdown page import without matplotlib (it is imported by the
    # functions that draw)
    assert res["causalarena.eval.report"] is None
    kind, msg = res["pint"]
    assert kind == "MissingExtraError" and "pip install 'causalarena[build]'" in msg
    assert "pint is not installed" in msg
    assert "pip install 'causalarena[baselines]'" in res["regress"][1]


def test_require_and_check_extra_in_process():
    assert require("json", "build", "x").dumps([1]) == "[1]"
    with pytest.raises(MissingExtraError) as err:
        require("causalarena_no_such_module.sub", "plots", "the figures")
    assert isinstance(err.value, ImportError)
    assert str(err.value) == (
        "the figures needs the 'plots' extra (causalarena_no_such_module is not installed): "
        "pip install 'causalarena[plots]'"
    )
    check_extra("build", "causalarena build")  # the test environment has every extra


def test_extras_cover_the_modules_they_are_said_to_install():
    """Each extra's modules in :data:`EXTRA_MODULES` come from that extra in pyproject.toml,
    and none of them is a core dependency."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(meta["dependencies"]).lower()
    extras = meta["optional-dependencies"]
    dist = {"sklearn": "scikit-learn", "causallearn": "causal-learn"}
    for extra, mods in EXTRA_MODULES.items():
        reqs = " ".join(extras[extra]).lower()
        for m in mods:
            name = dist.get(m, m)
            assert name in reqs, (extra, m)
            assert name not in core, m
    assert set(EXTRA_MODULES) <= {e.strip() for e in extras["all"][0].split("[")[1][:-1].split(",")}


@pytest.mark.slow
def test_fresh_core_only_venv_installs_runs_loads_and_scores(scored, tmp_path):
    """A virtual environment with only the core dependencies (the real list, resolved by pip,
    local pip cache allowed) runs ``causalarena --version``, loads and scores."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(ROOT)], check=True, timeout=1800)
    installed = subprocess.run(
        [str(py), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True
    )
    names = {p["name"].lower() for p in json.loads(installed.stdout)}
    assert not names & {"matplotlib", "sympy", "pint", "mlcroissant", "zarr", "xarray", "torch"}
    assert not names & {"scikit-learn", "jsonschema", "distributed"}
    version = subprocess.run(
        [str(venv / "bin" / "causalarena"), "--version"], capture_output=True, text=True
    )
    want = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version.returncode == 0 and version.stdout.strip().endswith(want)
    code = f"""
import json, sys
import causalarena
ds = causalarena.load({CONFIG!r}, source={scored["release"]!r})
row = causalarena.to_numpy(ds[0])
from causalarena.eval.score import score_predictions
s = score_predictions({scored["release"]!r}, {scored["pred"]!r}, workers=1)
ok = s[s.status == "ok"]
print(json.dumps([int(row["d"]), list(row["X"].shape), sorted(ok.shd.tolist())]))
"""
    r = subprocess.run([str(py), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    d, shape, shd = json.loads(r.stdout.strip().splitlines()[-1])
    assert shape[1] == d
    assert shd == [0, 0, 0, scored["n_edges"]]
    build = subprocess.run(
        [str(venv / "bin" / "causalarena"), "build", "arena-synthetic", "--out", "rel"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert build.returncode == 2
    assert "pip install 'causalarena[build]'" in build.stderr.strip().splitlines()[-1]
