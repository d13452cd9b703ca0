"""TabPFN adapter (issue 14 section 5): the prefix table, the plug-in do() answer, weights from
a path (never downloaded) and a sealed run on a mini release with a random tiny checkpoint."""

from __future__ import annotations

import types
from dataclasses import asdict

import numpy as np
import pytest

from causalarena.baselines import tabpfn as T
from causalarena.eval.temporal import make_input
from causalarena.generator.temporal import suites as S
from causalarena.generator.temporal.storage import episode_columns
from conftest import build_small_temporal

SUITE = "dot-identifiability"


def _views(n: int = 3):
    s = S.get_temporal_suite(SUITE)
    eps = S.generate_suite_episodes(s, s.public_indices("full")[:n])
    return [make_input(episode_columns(e)) for e in eps]


def _with(v, **kw):
    d = {k: getattr(v, k) for k in v.__slots__}
    d.update(kw)
    d["intervention"] = types.MappingProxyType(dict(d["intervention"]))
    return type(v)(**d)


def _two_var_view(x, *, kind="hard", value=2.0, queries=(0, 3)):
    """A view of a real episode with variables (A, Y), context ``x`` and queries at
    ``onset + queries``."""
    v = _views(1)[0]
    assert v.variables == ("A", "Y")
    iv = dict(v.intervention)
    n = x.shape[0]
    iv.update(type=kind, value=value, profile=None)
    qt = np.asarray([n + q for q in queries], dtype=np.intp)
    return _with(
        v,
        x_context=x,
        onset=n,
        window_end=n + 100,
        intervention=iv,
        query_times=qt,
        query_offsets=np.asarray(queries, dtype=np.intp),
        T=n + 100,
    )


def test_prefix_table_rows_and_the_imposed_treatment_path():
    n = 20
    x = np.column_stack([np.arange(n, dtype=float), 10.0 * np.arange(n)])
    v = _two_var_view(x, value=7.0, queries=(0, 3))
    X, y, Q = T.features(v)
    # horizons 1 and 4; origins s = LAGS - 1 .. n - 1 - h
    assert X.shape == (len(range(2, n - 1)) + len(range(2, n - 4)), T.LAGS * 2 + 3)
    np.testing.assert_array_equal(X[0], [2, 20, 1, 10, 0, 0, 1, 3, 3])
    assert y[0] == 30.0
    last = n - 1 - 4  # last origin of horizon 4: target row n - 1, treatment mean of 4 rows
    np.testing.assert_array_equal(X[-1][-3:], [4, n - 1, np.mean(np.arange(last + 1, n))])
    assert y[-1] == 10.0 * (n - 1)
    # queries: origin n - 1 (the last context row), the imposed value on the whole path
    np.testing.assert_array_equal(Q[:, : 2 * T.LAGS], [[19, 190, 18, 180, 17, 170]] * 2)
    np.testing.assert_array_equal(Q[:, -3:], [[1, 7, 7], [4, 7, 7]])
    # soft: the context mean plus the shift
    _, _, Qs = T.features(_two_var_view(x, kind="soft", value=1.5))
    np.testing.assert_allclose(Qs[:, -2:], np.mean(np.arange(n)) + 1.5)
    # missing cells are forward-filled, never NaN
    xm = x.copy()
    xm[5, 1] = np.nan
    assert np.isfinite(T.features(_two_var_view(xm))[0]).all()


class _OLS:
    """A linear least-squares stand-in with TabPFN's predict(output_type='main') answer."""

    def fit(self, X, y):
        A = np.column_stack([np.ones(len(y)), X])
        self.b = np.linalg.lstsq(A, y, rcond=None)[0]
        return self

    def predict(self, X, output_type="mean", quantiles=None):
        m = np.column_stack([np.ones(len(X)), X]) @ self.b
        return {"mean": m, "quantiles": [m - 1.0, m + 1.0]}


def test_do_answer_plugs_the_imposed_value_into_the_prefix_regression(monkeypatch, tmp_path):
    """Y_t = 3 A_t + noise with A exogenous: the plug-in answer to do(A = 2) is close to 6,
    while Y's own prefix mean is about 0 (a forecaster would answer that)."""
    ck = tmp_path / "w.ckpt"
    ck.write_bytes(b"x")
    monkeypatch.setattr(T, "_regressor", lambda *a: _OLS())
    f = T.TabPFNForecaster(ck)
    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    x = np.column_stack([a, 3.0 * a + 0.1 * rng.normal(size=200)])
    out = f.predict(_two_var_view(x, value=2.0, queries=(0, 2, 5)))
    np.testing.assert_allclose(out["mean"], 6.0, atol=0.2)
    np.testing.assert_allclose(out["upper"] - out["lower"], 2.0)
    assert f.info == {"fitted": 1}
    # a prefix too short for a table: last value, counted
    short = f.predict(_two_var_view(x[:4], value=2.0))
    np.testing.assert_array_equal(short["mean"], x[3, 1])
    assert f.info["too_short_prefix_last_value"] == 1


def test_weights_come_from_a_path_and_are_never_downloaded(monkeypatch, tmp_path):
    monkeypatch.delenv(T.MODEL_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="never downloads"):
        T.TabPFNForecaster()
    with pytest.raises(FileNotFoundError, match="not a file"):
        T.TabPFNForecaster(tmp_path / "tabpfn-v2.5-regressor.ckpt")
    with pytest.raises(FileNotFoundError, match="not a file"):
        T.write_sealed(tmp_path / "missing.ckpt", tmp_path / "out")


def _tiny_checkpoint(path) -> None:
    """A randomly initialised TabPFN v2.5 regressor checkpoint (the file layout tabpfn's
    ``save_tabpfn_model`` writes; v2.5 inference defaults, 32 output buckets)."""
    torch = pytest.importorskip("torch")
    from tabpfn.architectures import ARCHITECTURES

    arch = ARCHITECTURES["tabpfn_v2_5"]
    cfg, _ = arch.parse_config(
        {
            "emsize": 16,
            "nlayers": 1,
            "nhead": 2,
            "num_buckets": 32,
            "features_per_group": 3,
            "num_thinking_rows": 4,
            "encoder_mlp_hidden_dim": 16,
        }
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = arch.get_architecture(cfg)
    state = dict(model.state_dict())
    state["criterion.borders"] = torch.linspace(-4.0, 4.0, 33)
    state["criterion.losses_per_bucket"] = torch.zeros(32)
    torch.save(
        {"state_dict": state, "config": asdict(cfg), "architecture_name": "tabpfn_v2_5"}, path
    )


def test_random_tiny_checkpoint_runs_sealed_on_a_mini_release(tmp_path):
    pytest.importorskip("tabpfn", reason="tabpfn (the 'tabpfn' extra) is not installed")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from causalarena.eval.temporal import evaluate, load_rows, run_model
    from causalarena.sandbox import landlock_abi

    ck = tmp_path / "tabpfn-v2.5-regressor-tiny.ckpt"
    _tiny_checkpoint(ck)
    out = build_small_temporal(tmp_path / "rel", SUITE, 6, 6)
    rows = load_rows(out, SUITE)
    spec = T.write_sealed(ck, tmp_path / "sealed")
    res = evaluate(spec, rows, isolation="process", release=out)
    assert res["episodes"] == 6 and np.isfinite(res["pooled"]["rmse"])
    assert res["isolation"]["model_loaded_in"] == "sandbox"
    assert res["isolation"]["sealed"] is (landlock_abi() > 0)
    views = [make_input(r) for r in rows[:2]]
    sealed = run_model(spec, views, isolation="process")
    f = T.TabPFNForecaster(ck, n_estimators=4)
    here = run_model(f, views, isolation="none")
    again = [f.predict(v) for v in views]
    for a, b, c in zip(sealed, here, again, strict=True):
        np.testing.assert_allclose(a["mean"], b["mean"], rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(b["mean"], c["mean"])  # deterministic
        assert (a["lower"] <= a["upper"]).all()
    assert f.info["fitted"] >= 2
