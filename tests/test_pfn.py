"""Reference interventional PFN (issue 14 section 5): training, checkpoints, harness wrapper."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import build_small_temporal

torch = pytest.importorskip("torch")
torch.set_num_threads(1)  # two shared cores: more threads only spin

from causalarena.baselines import pfn  # noqa: E402
from causalarena.generator.temporal import suites as S  # noqa: E402
from causalarena.generator.temporal.storage import episode_columns  # noqa: E402

TINY = pfn.PFNConfig(d_model=32, layers=2, heads=2, ff=64, context=16, horizon=8)
SUITE = "dot-identifiability"


@pytest.fixture(scope="module")
def data():
    return pfn.training_data(SUITE, 0, 32, TINY)


@pytest.fixture(scope="module")
def trained(data, tmp_path_factory):
    out = {}
    for arm in pfn.ARMS:
        model, hist = pfn.train_arm(data, arm, steps=3, seed=1, batch_size=16, cfg=TINY)
        folder = tmp_path_factory.mktemp(arm)
        prov = {"prior": {"suite": SUITE}, "stream_seed": 0, "seed": 1, "steps": 3}
        pfn.save_checkpoint(model, arm, folder, prov)
        out[arm] = (model, hist, folder)
    return out


def _rows(n: int = 12) -> list[dict]:
    s = S.get_temporal_suite(SUITE)
    return [episode_columns(e) for e in S.generate_suite_episodes(s, s.public_indices("full")[:n])]


def test_training_episodes_are_the_stream(monkeypatch):
    """The batched generator yields exactly the episodes of causalarena.stream('temporal')."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    from causalarena.loaders.stream import stream

    ds = stream("temporal", 5, shards=1, suite=SUITE)
    got = [r for _, r in zip(range(3), iter(ds), strict=False)]
    mine = list(pfn.training_episodes(SUITE, 5, 3))
    for r, e in zip(got, mine, strict=True):
        np.testing.assert_allclose(np.asarray(r["x_obs"], float), e.x_obs.astype(np.float32))
        np.testing.assert_allclose(r["y_true"], e.y_true)
        assert r["episode_id"].endswith(f"/{e.index}")


def test_a_few_steps_decrease_the_loss_on_a_fixed_batch(data):
    """Training on one fixed batch (the whole tiny set) lowers the loss on it."""
    for arm in pfn.ARMS:
        ctx = torch.from_numpy(data.ctx)
        fut = torch.from_numpy(data.fut[arm])
        y = torch.from_numpy(data.y[arm])
        before = pfn.build_model(TINY, seed=3)
        with torch.no_grad():
            l0 = float(pfn._loss(before, ctx, fut, y))
        model, hist = pfn.train_arm(
            data, arm, steps=100, seed=3, batch_size=len(data), lr=1e-2, cfg=TINY, log_every=25
        )
        with torch.no_grad():
            l1 = float(pfn._loss(model, ctx, fut, y))
        assert l1 < 0.93 * l0, (arm, l0, l1)  # no update (or no gradient) leaves l1 == l0
        assert hist["loss"][-1] < hist["loss"][0] and hist["steps"] == 100


def test_both_arms_have_identical_capacity_and_the_observational_arm_sees_no_intervention(
    trained, data
):
    (m_int, _, _), (m_obs, _, _) = trained["interventional"], trained["observational"]
    assert pfn.param_count(m_int) == pfn.param_count(m_obs) > 1000
    assert [(k, v.shape) for k, v in m_int.state_dict().items()] == [
        (k, v.shape) for k, v in m_obs.state_dict().items()
    ]
    # identical context tokens; intervention features (all but the row-exists flag) zero only
    # in the observational arm
    assert not np.any(data.fut["observational"][:, :, :6])
    assert np.all(data.fut["observational"][:, :, 6] == data.fut["interventional"][:, :, 6])
    assert np.any(data.fut["interventional"][:, :, 1])  # active flags
    assert not np.allclose(data.y["interventional"], data.y["observational"], equal_nan=True)


def test_features_never_read_rows_at_or_after_onset():
    row = _rows(1)[0]
    v = pfn._RowView(row)
    a = pfn.featurize(v, "interventional", TINY)
    row2 = dict(row)
    x = np.array(row["x_obs"], copy=True)
    x[row["onset"] :] = 1e6
    b = pfn.featurize(pfn._RowView({**row2, "x_obs": x}), "interventional", TINY)
    for p, q in zip(a, b, strict=True):
        np.testing.assert_array_equal(p, q)


def test_checkpoint_round_trip_gives_identical_predictions_and_a_card(trained):
    from causalarena.eval.temporal import make_input

    model, hist, folder = trained["interventional"]
    card = json.loads((folder / pfn.CARD_JSON).read_text())
    for k in ("prior", "stream_seed", "seed", "steps", "package_version", "checkpoint_sha256"):
        assert k in card, k
    assert card["arm"] == "interventional" and card["parameters"] == pfn.param_count(model)
    assert "interventional arm" in (folder / pfn.CARD_MD).read_text()
    views = [make_input(r) for r in _rows(6)]
    direct = []
    for v in views:
        ctx, fut, mu, sd = pfn.featurize(v, "interventional", model.cfg)
        with torch.no_grad():
            out = model(torch.from_numpy(ctx[None]), torch.from_numpy(fut[None])).numpy()[0]
        out = out.astype(np.float64)
        direct.append(mu + sd * out[pfn.query_tokens(v, model.cfg)])
    b = pfn.PFNBaseline(folder)
    assert b.arm == "interventional" and b.name == "pfn_int"
    for v, d in zip(views, direct, strict=True):
        np.testing.assert_array_equal(b.predict(v)["mean"], d)
    # a changed checkpoint is refused (its checksum is in the card)
    p = folder / pfn.CHECKPOINT
    orig = p.read_bytes()
    try:
        p.write_bytes(orig[:-1] + bytes([orig[-1] ^ 1]))
        with pytest.raises(ValueError, match="SHA-256"):
            pfn.PFNBaseline(folder)
    finally:
        p.write_bytes(orig)


def test_baseline_without_checkpoint_says_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.delenv(pfn.CHECKPOINT_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="checkpoint"):
        pfn.PFNBaseline()
    with pytest.raises(FileNotFoundError, match="no checkpoint.pt"):
        pfn.PFNBaseline(tmp_path)


def test_wrapper_runs_sealed_on_a_mini_dot_identifiability_release(trained, tmp_path):
    """The checkpoint's model.py runs through the process-isolated harness by import spec on a
    mini release; its predictions are scored per structure and match the in-process ones."""
    from causalarena.eval.temporal import evaluate, load_rows, make_input, run_model
    from causalarena.sandbox import landlock_abi

    out = build_small_temporal(tmp_path / "rel", SUITE, 18, 9)
    rows = load_rows(out, SUITE)
    assert len(rows) == 18
    _, _, folder = trained["observational"]
    spec = f"{folder / pfn.MODEL_PY}:Model"
    res = evaluate(spec, rows, isolation="process", release=out)
    assert res["episodes"] == 18 and np.isfinite(res["pooled"]["rmse"])
    assert set(res["slices"]["structure"]) == set(S.IDENT)
    assert res["isolation"]["model_loaded_in"] == "sandbox"
    assert res["isolation"]["sealed"] is (landlock_abi() > 0)
    views = [make_input(r) for r in rows]
    sealed = run_model(spec, views, isolation="process")
    here = run_model(pfn.PFNBaseline(folder), views, isolation="none")
    for a, b in zip(sealed, here, strict=True):  # float32 network, kernels may differ
        np.testing.assert_allclose(a["mean"], b["mean"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "not json", "[1, 2]"])
def test_a_deep_or_broken_model_card_is_a_value_error_naming_it(trained, tmp_path, text):
    import shutil

    folder = tmp_path / "ckpt"
    shutil.copytree(trained["observational"][2], folder)
    (folder / pfn.CARD_JSON).write_text(text)
    with pytest.raises(ValueError, match=r"card\.json: (not a readable model card|the model card)"):
        pfn.load_checkpoint(folder)
