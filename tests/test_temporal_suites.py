"""Temporal suites: build, storage (Parquet + Zarr), harness isolation, metrics, baselines."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.baselines.temporal import Zero
from causalarena.eval.temporal import NEAR_ZERO, evaluate, load_rows, make_input
from causalarena.generator.temporal import suites as S
from causalarena.release.engine import build
from causalarena.sandbox import landlock_abi


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    small = {
        n: replace(
            s,
            scales={"mini": 6, "full": s.scales["full"]},
            shard_size={"mini": 3, "full": s.shard_size["full"]},
        )
        for n, s in S.TEMPORAL_SUITES.items()
    }
    mp.setattr(S, "TEMPORAL_SUITES", small)
    out = build("dot-all", scale="mini", out=tmp_path_factory.mktemp("tall"), quiet=True)
    mp.undo()
    return out


def _files(out):
    m = json.loads((out / "manifest.json").read_text())
    return {f["path"]: f["sha256"] for f in m["files"]}


def test_every_suite_builds_with_identical_schema(built):
    m = json.loads((built / "manifest.json").read_text())
    assert set(m["configs"]) == set(S.TEMPORAL_SUITES)
    schemas = set()
    for f in m["files"]:
        if "config" not in f:
            assert f["path"].startswith(f"zarr/{f['store'][5:]}/")  # a Zarr store file
            continue
        schemas.add(pq.read_schema(built / f["path"]).to_string(show_schema_metadata=False))
        assert f["path"] == f"data/{f['config']}/test-00000-of-00001.parquet"  # < 8 rows
    assert len(schemas) == 1
    for name in S.TEMPORAL_SUITES:
        assert m["configs"][name]["rows"] == 6 and m["configs"][name]["shards"] == 1
        # every file of every Zarr store is checksummed in the manifest
        zfiles = {p.relative_to(built).as_posix() for p in (built / f"zarr/{name}.zarr").rglob("*")}
        listed = {f["path"] for f in m["files"] if f.get("store") == f"zarr/{name}.zarr"}
        assert listed and listed == {z for z in zfiles if (built / z).is_file()}
    card = (built / "README.md").read_text()
    assert "config_name: dot-generic" in card and "data/dot-observed/*.parquet" in card


def test_load_with_datasets(built, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    ds = datasets.load_dataset(str(built), "dot-observed", split="test")
    assert ds.num_rows == 6
    with_mask = 0
    for r in ds:
        x = np.asarray(r["x_obs"], dtype=np.float64)
        assert x.shape == (r["T"], r["n_vars"])
        if r["mask"] is None:  # observation cell without missingness
            assert not np.isnan(x).any()
            continue
        with_mask += 1
        assert np.isnan(x).any() and np.array_equal(np.isnan(x), np.asarray(r["mask"]))
    assert with_mask >= 1
    ds2 = datasets.load_dataset(str(built), "dot-continuous-irregular", split="test")
    assert ds2[0]["times"] is not None and len(ds2[0]["times"]) == ds2[0]["T"]


def test_to_numpy_converts_temporal_rows(built, monkeypatch):
    """``causalarena.to_numpy`` on a ``dot-*`` row (no ``X`` column) gives typed arrays."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import causalarena as ca

    stored = pq.read_table(built / "data/dot-observed/test-00000-of-00001.parquet").to_pylist()[0]
    for fmt in (None, "numpy"):
        ds = ca.load("dot-observed", source=str(built), streaming=True)
        row = next(iter(ds.with_format(fmt) if fmt else ds))
        r = ca.to_numpy(row)
        T, N, K = stored["T"], len(stored["variables"]), stored["max_lag"]
        assert r["x_obs"].shape == r["x_int"].shape == (T, N) and r["x_obs"].dtype == np.float32
        np.testing.assert_array_equal(r["x_int"], np.asarray(stored["x_int"], dtype=np.float32))
        assert r["mask"].dtype == bool and r["mask"].shape == (T, N) and r["mask"].any()
        assert r["adjacency_inst"].dtype == np.int8 and r["adjacency_inst"].shape == (N, N)
        assert r["adjacency_lag"].dtype == np.int8 and r["adjacency_lag"].shape == (K, N, N)
        np.testing.assert_array_equal(r["adjacency_lag"], np.asarray(stored["adjacency_lag"]))
    # a suite without missingness stores a null mask: to_numpy gives "nothing missing"
    gen = pq.read_table(built / "data/dot-generic/test-00000-of-00001.parquet").to_pylist()[0]
    assert gen["mask"] is None
    r = ca.to_numpy(gen)
    assert r["mask"].dtype == bool and r["mask"].shape == r["x_obs"].shape and not r["mask"].any()
    with pytest.raises(ValueError, match="no X column"):
        ca.to_numpy({"variables": ["a"], "x": [[1.0]]})


@pytest.mark.parametrize("suite", sorted(S.TEMPORAL_SUITES))
def test_determinism_workers_and_repeat(tmp_path, suite):
    """Real mini scale of every dot-* suite: 1 and 2 workers give the same bytes (Parquet and
    Zarr); a corrupted shard is rebuilt on rerun."""
    a = build(suite, scale="mini", out=tmp_path / "a", workers=1, quiet=True)
    b = build(suite, scale="mini", out=tmp_path / "b", workers=2, quiet=True)
    fa, fb = _files(a), _files(b)
    assert fa == fb
    m = json.loads((a / "manifest.json").read_text())
    assert m["version"] == S.TEMPORAL_SUITES[suite].version
    assert m["configs"][suite]["shards"] % 8 == 0
    # resume: a rerun reuses the shards (same bytes), a corrupted shard is rebuilt
    shard = next(a / f["path"] for f in m["files"] if "config" in f)
    shard.write_bytes(b"corrupt")
    build(suite, scale="mini", out=a, workers=1, quiet=True)
    assert _files(a) == fb


def test_query_is_descendant_and_hidden_not_released(built):
    seen_hidden = seen_null = 0
    for name in S.TEMPORAL_SUITES:
        for r in load_rows(built, name):
            from causalarena.spec_temporal import TemporalSCM

            scm = TemporalSCM.from_json(r["scm"])
            assert not set(scm.hidden) & set(r["variables"])
            assert r["x_obs"].shape[1] == r["x_int"].shape[1] == len(r["variables"])
            assert r["adjacency_inst"].shape == (len(r["variables"]),) * 2
            seen_hidden += bool(scm.hidden)
            a = scm.index(r["intervention_target"])
            q = scm.index(r["query_var"])
            if r["null_effect"]:
                seen_null += 1
                assert np.array_equal(r["y_true"], r["y_factual"])  # effect exactly 0
            elif scm.descendants(a):
                assert q in scm.descendants(a)
            # pre-onset arms equal (shared noise; no measurement noise), y_true from the
            # intervened arm
            t0 = r["onset"]
            ok = ~np.isnan(r["x_obs"][:t0])
            noisy = scm.metadata.get("observation", {}).get("noise_sd", 0) > 0
            if r["pair_mode"] == "counterfactual" and not noisy:
                assert np.allclose(r["x_obs"][:t0][ok], r["x_int"][:t0][ok])
            elif r["pair_mode"] == "interventional":
                assert not np.allclose(r["x_obs"][:t0], r["x_int"][:t0])
            assert np.allclose(
                r["x_int"][r["query_times"], r["query_column"]],
                r["y_true"],
                atol=1e-5 * (1 + np.abs(r["y_true"]).max()),
            )
    assert seen_hidden > 0


def test_null_effect_structure_has_zero_effect():
    suite = S.get_temporal_suite("dot-identifiability")
    names = suite.options["structures"]
    idx = [
        i
        for i in suite.public_indices("full")[:40]
        if names[i % len(names)] in ("observed_confounder", "unobserved_confounder")
    ][:2]
    for ep in S.generate_suite_episodes(suite, idx):
        assert ep.null_effect
        assert np.array_equal(ep.y_true, ep.y_factual)


def test_split_half_reserved_and_balanced():
    s = S.get_temporal_suite("dot-identifiability")
    pub = set(s.public_indices("mini"))
    res = set(s.reserved_indices("mini"))
    assert not pub & res and len(pub) == len(res)
    assert all(not s.is_public(i) for i in res)


def test_zarr_matches_parquet(built):
    xr = pytest.importorskip("xarray")
    from causalarena.generator.temporal.storage import open_zarr

    for name in ("dot-generic", "dot-observed", "dot-continuous-irregular"):
        z = open_zarr(built / "zarr" / f"{name}.zarr")
        assert isinstance(z, xr.Dataset)
        assert z.x_obs.dims == ("episode", "time", "variable")
        rows = load_rows(built, name)
        assert list(z.episode.values) == [r["index"] for r in rows]
        for e, r in enumerate(rows):
            T, N = r["x_obs"].shape
            got = z.x_int.isel(episode=e).values
            assert np.array_equal(got[:T, :N], r["x_int"].astype(np.float32), equal_nan=True)
            assert np.isnan(got[T:, :]).all() and np.isnan(got[:, N:]).all()
            if name == "dot-observed":
                assert np.array_equal(z.mask.isel(episode=e).values[:T, :N], r["mask"])
            if r["times"] is not None:
                assert np.array_equal(z.times.isel(episode=e).values[:T], r["times"])


def test_zarr_has_coordinates_truth_interventions_queries_and_documented_padding(built):
    """Same join key as Parquet (episode_id), every padded cell explained by valid /
    query_valid and a padding attribute, ground truth and queries equal the Parquet rows."""
    pytest.importorskip("xarray")
    from causalarena.generator.temporal.storage import ZARR_PADDING, open_zarr

    for name in ("dot-generic", "dot-observed", "dot-continuous-irregular"):
        z = open_zarr(built / "zarr" / f"{name}.zarr")
        assert {"episode_id", "variable_name"} <= set(z.coords)
        assert {"episode", "time", "variable"} <= set(z.dims)
        for v in z.data_vars:
            assert z[v].attrs.get("description"), v
        for v in ZARR_PADDING:
            if v in z:
                assert z[v].attrs["padding"] == ZARR_PADDING[v]
        rows = load_rows(built, name)
        assert [str(x) for x in z.episode_id.values] == [r["episode_id"] for r in rows]
        for e, r in enumerate(rows):
            T, N = r["x_obs"].shape
            ze = z.isel(episode=e)
            valid = ze.valid.values
            assert valid.sum() == T * N and valid[:T, :N].all()
            x = ze.x_obs.values
            missing = ze.mask.values if "mask" in z else np.zeros_like(valid)
            assert np.array_equal(np.isnan(x), ~valid | missing)  # no unexplained NaN
            assert int(ze.n_times) == T and int(ze.n_vars) == N
            assert [str(v) for v in ze.variable_name.values[:N]] == list(r["variables"])
            assert set(map(str, ze.variable_name.values[N:])) <= {""}
            assert np.array_equal(ze.adjacency_inst.values[:N, :N], r["adjacency_inst"])
            assert ze.adjacency_inst.values[N:].sum() == 0
            L = r["adjacency_lag"].shape[0]
            if L:
                assert np.array_equal(ze.adjacency_lag.values[:L, :N, :N], r["adjacency_lag"])
            q = len(r["query_times"])
            assert int(ze.n_queries) == q and ze.query_valid.values.sum() == q
            assert np.array_equal(ze.query_times.values[:q], r["query_times"])
            assert np.array_equal(ze.y_true.values[:q], r["y_true"])
            assert np.isnan(ze.y_true.values[q:]).all() and (ze.query_times.values[q:] == -1).all()
            assert str(ze.intervention_target.values) == r["intervention_target"]
            assert int(ze.onset) == r["onset"] and int(ze.query_column) == r["query_column"]
            assert json.loads(str(ze.intervention.values)) == r["intervention"]


# ---------------------------------------------------------------------------------- harness
class Snoop:
    """A malicious model: tries every way it knows to reach the answer."""

    def predict(self, view):
        found = None
        for attr in ("x_int", "y_true", "y_factual", "row", "_row", "scm", "__dict__"):
            try:
                found = getattr(view, attr)
                break
            except AttributeError:
                pass
        import gc
        import sys

        needle = None
        # look through everything reachable from the view, then the frames and the heap
        for obj in gc.get_referents(view):
            if isinstance(obj, dict) and "y_true" in obj:
                needle = obj["y_true"]
        f = sys._getframe()
        while f is not None and needle is None:
            for v in list(f.f_locals.values()):
                if isinstance(v, list):
                    for item in v:
                        if isinstance(item, dict) and "y_true" in item:
                            if item.get("episode_id") == view.episode_id:
                                needle = item["y_true"]
            f = f.f_back
        if needle is None:
            for obj in gc.get_objects():
                if (
                    isinstance(obj, dict)
                    and obj.get("episode_id") == view.episode_id
                    and "y_true" in obj
                ):
                    needle = obj["y_true"]
                    break
        if found is not None or needle is not None:
            return np.asarray(
                needle if needle is not None else found[view.query_times, view.query_column]
            )
        return np.full(len(view.query_times), 1234.5)


def test_view_has_no_answer_fields(built):
    row = load_rows(built, "dot-generic", limit=1)[0]
    v = make_input(row)
    for attr in ("x_int", "y_true", "y_factual", "scm", "structure", "__dict__"):
        with pytest.raises(AttributeError):
            getattr(v, attr)
    with pytest.raises(AttributeError):
        v.x_context = None
    with pytest.raises(ValueError):
        v.x_context[0, 0] = 1.0
    with pytest.raises(TypeError):
        v.intervention["value"] = 0.0
    assert v.x_context.shape[0] == row["onset"]


def test_malicious_model_cannot_read_answers(built):
    rows = load_rows(built, "dot-generic", limit=3)
    res = evaluate(Snoop(), rows, isolation="process")
    # it found nothing: it predicted its sentinel everywhere
    assert res["pooled"]["mae"] > 1000
    # the snoop has teeth: in-process, frame inspection does reach the rows
    cheat = evaluate(Snoop(), rows, isolation="none")
    assert cheat["pooled"]["rmse"] < 1e-9


# ---- the five attacks of issue 14 §3; each must fail under isolation="process"
SENTINEL = 1234.5
MARKS: list[int] = []
PARENT_PID = os.getpid()
LANDLOCK = pytest.mark.skipif(
    landlock_abi() == 0, reason="Landlock unavailable on this kernel: file reads not confined"
)


def _mark(pid):
    """Runs wherever it is unpickled; records only when that is the test (parent) process."""
    if os.getpid() == pid:
        MARKS.append(pid)
    return SENTINEL


class Privileged:
    """Claims a privilege the old harness honoured: it handed ``predict_rows`` the stored rows."""

    privileged = True

    def predict_rows(self, rows):
        return [r["y_true"] for r in rows]

    def predict(self, view):
        return np.full(len(view.query_times), SENTINEL)


class _Evil:
    def __reduce__(self):
        return (_mark, (PARENT_PID,))


class EvilAnswer:
    """Answers with an object whose unpickling runs code (ran in the parent before)."""

    def predict(self, view):
        return {"mean": _Evil()}


def _evil_model(pid):
    _mark(pid)
    return Zero()


class EvilModel:
    """A model whose own unpickling runs code: must only ever happen in the sandbox."""

    def __reduce__(self):
        return (_evil_model, (PARENT_PID,))


class FileSnoop:
    """Knows (or guessed from /proc/<ppid>/cmdline) where the release is and reads its shards."""

    def __init__(self, folder):
        self.folder = str(folder)

    def predict(self, view):
        import glob

        import pyarrow.parquet as pq

        try:
            for f in glob.glob(self.folder + "/**/*.parquet", recursive=True):
                t = pq.read_table(f).to_pylist()
                for r in t:
                    if r.get("episode_id") == view.episode_id and "y_true" in r:
                        return np.asarray(r["y_true"], dtype=np.float64)
            with open(f"/proc/{os.getppid()}/cmdline", "rb") as fh:
                fh.read()
        except OSError:
            pass
        return np.full(len(view.query_times), SENTINEL)


class ProcSnoop:
    """Reads the answers straight out of the parent's memory through /proc/<ppid>/mem."""

    def __init__(self, addr, offsets):
        self.addr, self.offsets = addr, offsets

    def predict(self, view):
        i, n = self.offsets[view.episode_id]
        try:
            with open(f"/proc/{os.getppid()}/mem", "rb") as fh:
                fh.seek(self.addr + 8 * i)
                return np.frombuffer(fh.read(8 * n), dtype=np.float64).copy()
        except OSError:
            return np.full(n, SENTINEL)


def test_privileged_flag_grants_nothing(built):
    rows = load_rows(built, "dot-generic", limit=3)
    for iso in ("process", "none"):
        res = evaluate(Privileged(), rows, isolation=iso)
        assert res["pooled"]["mae"] > 1000  # predict() was used, not predict_rows()


def test_nothing_the_model_sends_is_unpickled_in_the_parent(built):
    from causalarena.eval.temporal import HarnessError

    rows = load_rows(built, "dot-generic", limit=2)
    MARKS.clear()
    with pytest.raises(HarnessError, match="the model failed"):
        evaluate(EvilAnswer(), rows, isolation="process")
    assert MARKS == []
    res = evaluate(EvilModel(), rows, isolation="process")  # unpickled in the child only
    assert MARKS == [] and np.isfinite(res["pooled"]["rmse"])
    # the marker has teeth: unpickled here it does run in this process
    import pickle

    pickle.loads(pickle.dumps(EvilModel()))
    assert MARKS == [PARENT_PID]
    MARKS.clear()


@LANDLOCK
def test_model_cannot_read_release_files(built):
    from causalarena.eval.temporal import run_model

    rows = load_rows(built, "dot-generic", limit=3)
    res = evaluate(FileSnoop(built), rows, isolation="process")
    assert res["pooled"]["mae"] > 1000
    assert res["isolation"]["filesystem"] is True
    # teeth: the same model in a process without the sandbox finds every answer
    views = [make_input(r) for r in rows]
    got = run_model(FileSnoop(built), views, "process", _sandbox=False)
    for g, r in zip(got, rows, strict=True):
        np.testing.assert_allclose(g["mean"], r["y_true"])


@LANDLOCK
def test_model_cannot_read_parent_memory(built):
    from causalarena.eval.temporal import run_model

    rows = load_rows(built, "dot-generic", limit=3)
    truth = np.concatenate([np.asarray(r["y_true"], dtype=np.float64) for r in rows])
    offsets, pos = {}, 0
    for r in rows:
        offsets[r["episode_id"]] = (pos, len(r["y_true"]))
        pos += len(r["y_true"])
    snoop = ProcSnoop(truth.ctypes.data, offsets)
    res = evaluate(snoop, rows, isolation="process")
    assert res["pooled"]["mae"] > 1000
    if os.geteuid() == 0:  # teeth (root may read a non-dumpable process without the sandbox)
        views = [make_input(r) for r in rows]
        got = run_model(snoop, views, "process", _sandbox=False)
        np.testing.assert_array_equal(np.concatenate([g["mean"] for g in got]), truth)


def test_model_spec_is_imported_only_in_the_sandbox(built, tmp_path):
    rows = load_rows(built, "dot-generic", limit=2)
    f = tmp_path / "model.py"
    f.write_text(
        "import numpy as np\n"
        "class M:\n"
        "    def predict(self, view):\n"
        "        return np.zeros(len(view.query_times))\n"
    )
    res = evaluate(f"{f}:M", rows, isolation="process", release=built)
    z = evaluate(Zero(), rows, isolation="none")
    assert res["pooled"]["rmse"] == z["pooled"]["rmse"]
    inside = built / "model.py"
    inside.write_text(f.read_text())
    with pytest.raises(ValueError, match="may read"):
        evaluate(f"{inside}:M", rows, isolation="process", release=built)
    inside.unlink()


def test_relative_model_specs_resolve_before_the_sandbox_moves(built, tmp_path, monkeypatch):
    """The child runs in a scratch folder: ``model.py:M``, ``model:M`` and ``pkg.mod:M``
    given relative to the caller's directory must still import (tester finding)."""
    rows = load_rows(built, "dot-generic", limit=2)
    body = (
        "import numpy as np\n"
        "class M:\n"
        "    def predict(self, view):\n"
        "        return np.full(len(view.query_times), 7.0)\n"
    )
    (tmp_path / "mymodel.py").write_text(body)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(body)
    monkeypatch.chdir(tmp_path)
    want = evaluate(f"{tmp_path / 'mymodel.py'}:M", rows, isolation="none")["pooled"]["rmse"]
    for spec in ("mymodel.py:M", "mymodel:M", "pkg.mod:M"):
        res = evaluate(spec, rows, isolation="process")
        assert res["pooled"]["rmse"] == want, spec


class EnvSnoop:
    """Answers 1 where it can see a secret of the caller's environment, else 0."""

    def predict(self, view):
        import os

        seen = any(k in os.environ for k in ("ZENODO_TOKEN", "HF_TOKEN", "MY_API_KEY", "X_S"))
        try:
            with open("/proc/self/environ", "rb") as f:
                seen = seen or b"tok-123" in f.read()
        except OSError:
            pass
        return np.full(len(view.query_times), 1.0 if seen else 0.0)


def test_sealed_model_does_not_inherit_secrets_from_the_environment(built, monkeypatch):
    """Breaker finding: the model's process had the caller's whole environment (tokens)."""
    from causalarena.eval.temporal import run_model, sealed_environment

    for k in ("ZENODO_TOKEN", "HF_TOKEN", "MY_API_KEY"):
        monkeypatch.setenv(k, "tok-123")
    monkeypatch.setenv("X_S", "tok-123")  # not on the allow-list either
    rows = load_rows(built, "dot-generic", limit=2)
    views = [make_input(r) for r in rows]
    got = run_model(EnvSnoop(), views, "process")
    assert all((g["mean"] == 0.0).all() for g in got)
    # teeth: without isolation the same model sees them
    got = run_model(EnvSnoop(), views, "none")
    assert all((g["mean"] == 1.0).all() for g in got)
    env = sealed_environment(
        {
            "PATH": "/bin",
            "HF_HOME": "/h",
            "HF_TOKEN": "t",
            "OMP_X": "1",
            "CAUSALARENA_KEY_FILE": "k",
            "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1",
        }
    )
    assert env == {"PATH": "/bin", "HF_HOME": "/h", "OMP_X": "1"}


def test_a_release_that_disagrees_with_its_manifest_is_not_scored(built, tmp_path):
    import shutil

    from causalarena.errors import ReleaseError

    copy = tmp_path / "rel"
    shutil.copytree(built, copy)
    shard = sorted((copy / "data" / "dot-generic").glob("*.parquet"))[0]
    shard.unlink()
    with pytest.raises(ReleaseError, match="disagree with manifest"):
        load_rows(copy, "dot-generic")


def test_harness_timeout_kills_the_model(built):
    from causalarena.eval.temporal import HarnessError

    rows = load_rows(built, "dot-generic", limit=1)
    with pytest.raises(HarnessError, match="did not answer within"):
        evaluate(Sleeper(), rows, isolation="process", timeout=3)


class Sleeper:
    def predict(self, view):
        import time

        time.sleep(60)


def test_oracle_zero_and_near_zero_rule(built):
    from causalarena.baselines.temporal import Oracle

    rows = load_rows(built, "dot-generic") + load_rows(built, "dot-identifiability")
    o = evaluate(Oracle(), rows)
    assert o["pooled"]["rmse"] < 1e-9
    z = evaluate(Zero(), rows, isolation="none")
    y = np.concatenate([r["y_true"] for r in rows])
    assert z["pooled"]["rmse"] == pytest.approx(np.sqrt(np.mean(y**2)), rel=1e-12)
    near = int(np.sum(np.abs(y) < NEAR_ZERO))
    d = z["pooled"]["direction_level"]
    assert d["n_near_zero"] == near and d["n"] == y.size - near
    eff = np.concatenate([r["y_true"] - r["y_factual"] for r in rows])
    assert o["pooled"]["direction_effect"]["n_near_zero"] == int(np.sum(np.abs(eff) < NEAR_ZERO))
    assert o["null_effect"]["true_effect_max_abs"] == 0.0
    assert o["null_effect"]["spurious_rate"] == 0.0
    p = o["pooled"]["direction_level"]
    assert p["acc"] == 1.0 and p["se"] == 0.0
    assert set(o["slices"]) == {"suite", "structure", "identifiable", "T", "intervention_type"}


def test_all_baselines_run_on_every_suite(built):
    from causalarena.eval.temporal import run_baselines

    for name in S.TEMPORAL_SUITES:
        rows = load_rows(built, name)
        res = run_baselines(
            rows, ["pre_onset_mean", "last_value", "var", "backdoor_ols", "naive_ols", "iv_2sls"]
        )
        for r in res.values():
            assert np.isfinite(r["pooled"]["rmse"])
        assert 0.0 <= res["var"]["pooled"]["coverage"] <= 1.0


def test_graph_track_var():
    from causalarena.eval.temporal import graph_track

    ep = S.generate_suite_episodes(S.get_temporal_suite("dot-identifiability"), [0])[0]
    from causalarena.generator.temporal.storage import decode_row, episodes_to_arrow

    row = decode_row(episodes_to_arrow([ep]).to_pylist()[0])
    out = graph_track([row], "var_ttest", tau_max=1)
    assert out["lagged"]["recall"] is not None


@pytest.mark.slow
def test_graph_track_pcmciplus():
    pytest.importorskip("tigramite")
    from causalarena.eval.temporal import graph_track
    from causalarena.generator.temporal.storage import decode_row, episodes_to_arrow

    eps = S.generate_suite_episodes(S.get_temporal_suite("dot-identifiability"), [0, 1])
    rows = [decode_row(r) for r in episodes_to_arrow(eps).to_pylist()]
    out = graph_track(rows, "pcmciplus", tau_max=1)
    assert out["instantaneous"]["shd"] is not None and out["lagged"]["f1"] is not None


def test_info_summarises_a_temporal_release(built, capsys):
    from causalarena.cli import main

    assert main(["info", str(built)]) == 0
    text = capsys.readouterr().out
    m = json.loads((built / "manifest.json").read_text())
    for config, c in m["configs"].items():
        assert config[:12] in text and str(c["rows"]) in text


def test_dot_generic_release_validates_freezes_verifies_and_publishes(tmp_path, capsys):
    """The acceptance chain of issue 9 for a mini dot-generic release, through the CLI."""
    from causalarena.cli import main

    V = S.get_temporal_suite("dot-generic").version
    out = tmp_path / "dot"
    assert main(["build", "dot-generic", "--scale", "mini", "--out", str(out), "--quiet"]) == 0
    for name in ("README.md", "croissant.json", "CITATION.cff", ".zenodo.json"):
        assert (out / name).is_file(), name
        assert str(tmp_path) not in (out / name).read_text()  # no local filesystem path
    assert str(tmp_path) not in (out / "manifest.json").read_text()
    assert main(["release", "validate", str(out)]) == 0
    key = tmp_path / "throwaway.key"
    assert main(["release", "keygen", str(key)]) == 0
    capsys.readouterr()
    assert main(["release", "freeze", str(out), "--version", V, "--reserved-key", str(key)]) == 0
    # the temporal family declares key-drawn reserved units: freeze commits, reveal checks
    assert "reserved half committed: 2 units, 100 instances" in capsys.readouterr().out
    assert main(["verify", str(out), "--reveal", str(key)]) == 0
    assert main(["verify", str(out), "--rebuild"]) == 0
    assert main(["verify", str(out), "--metadata"]) == 0
    capsys.readouterr()
    rc = main(
        ["publish", str(out), "--version", V, "--repo-id", "org/dot", "--zenodo", "--dry-run"]
    )
    assert rc == 0
    plan = capsys.readouterr().out
    assert (
        "zarr/dot-generic.zarr/zarr.json" in plan
        and "data/dot-generic/test-00000-of-00008.parquet" in plan
    )
    # a changed Zarr chunk is caught by plain verify (the store is in the manifest)
    chunk = next(
        p
        for p in sorted((out / "zarr/dot-generic.zarr/x_obs").rglob("*"))
        if p.is_file() and p.name != "zarr.json"
    )
    chunk.write_bytes(chunk.read_bytes()[:-1] + bytes([chunk.read_bytes()[-1] ^ 1]))
    assert main(["verify", str(out)]) == 1


@pytest.mark.parametrize("name", ["dot-continuous", "dot-continuous-irregular"])
def test_continuous_onset_row_is_first_intervened_row(name):
    """Counterfactual pairs share the noise, so every row before the declared onset is equal in
    both arms, and a hard/time-varying intervention already shows at the onset row in the
    target's column (issue 14 §4: on irregular grids the onset row used to read the grid point
    before the window)."""
    suite = S.get_temporal_suite(name)
    eps = S.generate_suite_episodes(suite, range(40))
    checked = 0
    for ep in eps:
        j0 = ep.onset
        np.testing.assert_array_equal(ep.x_int[:j0], ep.x_fact[:j0])
        if ep.intervention.type != "soft" and ep.intervention.target in ep.variables:
            c = ep.variables.index(ep.intervention.target)
            assert ep.x_int[j0, c] != ep.x_fact[j0, c], (ep.index, j0)
            checked += 1
        assert j0 < ep.window_end <= len(ep.times)
    assert checked >= 10


def test_card_design_sections_and_dotime_alias_load(built, monkeypatch):
    """The card states each suite's design beside DoTime's (and the realised mechanism shares
    against the prior); a DoTime name loads its namesake config."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import causalarena as ca

    card = (built / "README.md").read_text()
    for name, s in S.TEMPORAL_SUITES.items():
        assert f"Design of {name}" in card
        if s.dotime:
            assert f"Reproduces **{s.dotime}**" in card
            assert s.deviations[0] in card
    assert "Reproduces **dot-RegimeSwitch-v1**" in card and "| regime_5 | interventional |" in card
    assert "| mechanism | prior | drawn | realised |" in card and "| square | 0.111 |" in card
    ds = ca.load("dot-Observed-v1", source=str(built))
    assert ds.num_rows == 6 and set(ds["suite"]) == {"dot-observed"}
    ds = ca.load("dot-RegimeSwitch-v1", source=str(built))
    assert set(ds["suite"]) == {"dot-regimes"} and set(ds["n_regimes"]) <= {2, 3, 5}


def test_result_says_an_object_model_is_not_sealed(built, tmp_path):
    """Breaker finding: an object's __reduce__ runs in the parent when it is pickled for the
    sandbox, beside the rows; the result must not claim the run was sealed."""
    rows = load_rows(built, "dot-generic", limit=1)
    obj = evaluate(Zero(), rows, isolation="process")["isolation"]
    assert obj["sealed"] is False and obj["model_loaded_in"] == "parent and sandbox"
    f = tmp_path / "m.py"
    f.write_text(
        "import numpy as np\nclass M:\n    def predict(self, v):\n"
        "        return np.zeros(len(v.query_times))\n"
    )
    spec = evaluate(f"{f}:M", rows, isolation="process")["isolation"]
    assert spec["model_loaded_in"] == "sandbox"
    assert spec["sealed"] is (landlock_abi() > 0)


class NaNModel:
    def predict(self, view):
        return np.full(len(view.query_times), np.nan)


def test_non_finite_predictions_are_invalid_not_nan_scores(built):
    """Breaker finding: an all-NaN model got rmse NaN and no error."""
    from causalarena.eval.temporal import HarnessError

    rows = load_rows(built, "dot-generic", limit=2)
    with pytest.raises(HarnessError, match="non-finite"):
        evaluate(NaNModel(), rows, isolation="process")
    with pytest.raises(ValueError, match="non-finite"):
        evaluate(NaNModel(), rows, isolation="none")
