"""Chronos adapter (issue 14 section 5): checkpoint from a path or the HF cache, never
downloaded; an observational forecaster run through the sealed temporal harness."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

from conftest import build_small_temporal

pytest.importorskip("chronos", reason="chronos-forecasting (the 'chronos' extra) is not installed")
torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # two shared cores

from causalarena.baselines import chronos as C  # noqa: E402
from causalarena.eval.temporal import make_input  # noqa: E402
from causalarena.generator.temporal import suites as S  # noqa: E402
from causalarena.generator.temporal.storage import episode_columns  # noqa: E402

SUITE = "dot-identifiability"


def _tiny_t5_checkpoint(folder) -> None:
    """A randomly initialised T5 Chronos checkpoint (the layout of amazon/chronos-t5-*)."""
    from transformers import T5Config, T5ForConditionalGeneration

    n_tokens = 64
    cfg = T5Config(
        vocab_size=n_tokens,
        d_model=16,
        d_ff=32,
        d_kv=8,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    cfg.chronos_config = {
        "tokenizer_class": "MeanScaleUniformBins",
        "tokenizer_kwargs": {"low_limit": -15.0, "high_limit": 15.0},
        "context_length": 64,
        "prediction_length": 16,
        "n_tokens": n_tokens,
        "n_special_tokens": 2,
        "pad_token_id": 0,
        "eos_token_id": 1,
        "use_eos_token": True,
        "model_type": "seq2seq",
        "num_samples": 5,
        "temperature": 1.0,
        "top_k": 50,
        "top_p": 1.0,
    }
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        T5ForConditionalGeneration(cfg).save_pretrained(folder)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chronos-tiny")
    _tiny_t5_checkpoint(folder)
    return folder


def _views(n: int = 6):
    s = S.get_temporal_suite(SUITE)
    eps = S.generate_suite_episodes(s, s.public_indices("full")[:n])
    return [make_input({**episode_columns(e), "episode_id": f"x/{i}"}) for i, e in enumerate(eps)]


def _with(v, **kw):
    d = {k: getattr(v, k) for k in v.__slots__}
    d.update(kw)
    d["intervention"] = types.MappingProxyType(dict(d["intervention"]))
    return type(v)(**d)


class _Ramp:
    """Stands in for a pipeline: mean forecast 100 + step, quantiles mean -+ 1."""

    def __init__(self):
        self.calls = []

    def predict_quantiles(self, inputs, prediction_length, quantile_levels, **kw):
        self.calls.append((inputs[0].numpy().copy(), prediction_length))
        m = 100.0 + torch.arange(prediction_length, dtype=torch.float32)[None]
        q = torch.stack([m - 1, m, m + 1], dim=-1)
        return q, m


def test_queries_read_the_forecast_step_of_their_row_from_the_query_prefix(ckpt):
    f = C.ChronosForecaster(ckpt)
    f.pipeline, f._sampling = _Ramp(), False
    for v in _views(4):
        out = f.predict(v)
        step = np.asarray(v.query_times) - v.onset
        np.testing.assert_array_equal(out["mean"], 100.0 + step)
        np.testing.assert_array_equal(out["upper"] - out["lower"], 2.0)
        seen, h = f.pipeline.calls[-1]
        assert h == step.max() + 1
        np.testing.assert_array_equal(
            seen, v.x_context[:, v.query_column].astype(np.float32)
        )  # the query variable's prefix only, NaN kept


def test_tiny_checkpoint_is_deterministic_and_observational(ckpt):
    f = C.ChronosForecaster(ckpt, num_samples=8, seed=3)
    assert f.info["pipeline"] == "ChronosPipeline"
    v = _views(1)[0]
    a, b = f.predict(v), f.predict(v)
    np.testing.assert_array_equal(a["mean"], b["mean"])
    assert a["mean"].shape == (len(v.query_times),) and np.isfinite(a["mean"]).all()
    assert (a["lower"] <= a["mean"]).all() and (a["mean"] <= a["upper"]).all()
    iv = dict(v.intervention)
    iv["value"] = float(iv["value"]) + 50.0
    np.testing.assert_array_equal(f.predict(_with(v, intervention=iv))["mean"], a["mean"])
    other = f.predict(_with(v, episode_id="x/other"))  # another per-episode seed
    assert not np.array_equal(other["mean"], a["mean"])
    x = np.array(v.x_context, copy=True)
    x[:, v.query_column] += 10.0
    moved = f.predict(_with(v, x_context=x))["mean"]
    assert np.abs(moved - a["mean"]).mean() > 1.0  # the forecast follows the prefix


def test_repo_id_outside_the_cache_is_not_downloaded(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(FileNotFoundError, match="hf download amazon/chronos-t5-tiny"):
        C.resolve_checkpoint("amazon/chronos-t5-tiny")
    with pytest.raises(FileNotFoundError, match="no config.json"):
        C.resolve_checkpoint(tmp_path)
    monkeypatch.delenv(C.CHECKPOINT_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="needs a checkpoint"):
        C.ChronosForecaster()


def test_sealed_copy_runs_through_the_harness_on_a_mini_release(ckpt, tmp_path):
    from causalarena.eval.temporal import evaluate, load_rows, run_model
    from causalarena.sandbox import landlock_abi

    out = build_small_temporal(tmp_path / "rel", SUITE, 9, 9)
    rows = load_rows(out, SUITE)
    spec = C.write_sealed(ckpt, tmp_path / "sealed")
    assert json.loads((tmp_path / "sealed" / "config.json").read_text())["chronos_config"]
    with pytest.raises(FileExistsError):
        C.write_sealed(ckpt, tmp_path / "sealed")
    res = evaluate(spec, rows, isolation="process", release=out)
    assert res["episodes"] == 9 and np.isfinite(res["pooled"]["rmse"])
    assert res["isolation"]["model_loaded_in"] == "sandbox"
    assert res["isolation"]["sealed"] is (landlock_abi() > 0)
    views = [make_input(r) for r in rows]
    sealed = run_model(spec, views[:3], isolation="process")
    here = run_model(C.ChronosForecaster(ckpt), views[:3], isolation="none")
    for a, b in zip(sealed, here, strict=True):
        np.testing.assert_allclose(a["mean"], b["mean"], rtol=1e-5, atol=1e-5)
        assert a["level"] == 0.9 and "lower" in a
