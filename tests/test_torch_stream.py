"""The torch IterableDataset over fresh streams: batch shapes, dtypes, values, sharding."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")

from causalarena.loaders.stream import StreamError, stream  # noqa: E402
from causalarena.loaders.torch_stream import TorchStream  # noqa: E402


def _batches(ds, n, workers=0):
    loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=workers)
    out = []
    for i, b in enumerate(loader):
        out.append(b)
        if i + 1 == n:
            break
    return out


def test_static_batches_are_the_stream_rows_as_tensors():
    (b,) = _batches(TorchStream("synthetic", 3, batch_size=2, d=10, setting="obsint"), 1)
    assert b["X"].shape == (2, 1000, 10) and b["X"].dtype == torch.float32
    assert b["mask"].shape == (2, 1000, 10) and b["mask"].dtype == torch.bool
    assert b["adjacency"].shape == (2, 10, 10) and b["adjacency"].dtype == torch.float32
    assert b["n_obs"].tolist() == [800, 800] and b["n_int"].tolist() == [200, 200]
    assert not b["mask"][:, :800].any() and b["mask"][:, 800:].any(dim=2).all()
    rows = list(stream("synthetic", 3, d=10, setting="obsint", shards=1).take(2))
    for i, r in enumerate(rows):
        assert np.array_equal(b["X"][i].numpy(), np.asarray(r["X"], dtype=np.float32))
        assert np.array_equal(b["adjacency"][i].numpy(), np.asarray(r["adjacency"]))
    assert b["instance_id"] == [r["instance_id"] for r in rows]


def test_workers_and_ranks_read_disjoint_complete_parts():
    ds = TorchStream("synthetic", 1, batch_size=1, d=10)
    got = [int(b["stream_index"][0]) for b in _batches(ds, 4, workers=2)]
    assert sorted(got) == [0, 1, 2, 3]  # worker w of 2 reads instances w, w + 2, ...
    r1 = TorchStream("synthetic", 1, batch_size=2, d=10, rank=1, world_size=2)
    (b,) = _batches(r1, 1)
    assert b["stream_index"].tolist() == [1, 3]
    both = TorchStream("synthetic", 1, batch_size=1, d=10, rank=1, world_size=2)
    got = sorted(int(b["stream_index"][0]) for b in _batches(both, 4, workers=2))
    assert got == [2, 3, 6, 7]  # global workers 2 and 3 of 4


def test_protocol_batches_need_one_size():
    ds = TorchStream("protocols", 0, batch_size=2, suite="arena-samplesize", sizes=[100])
    (b,) = _batches(ds, 1)
    assert b["X"].shape == (2, 100, 30) and b["protocol"] == ["observational"] * 2
    mixed = TorchStream("protocols", 0, batch_size=2, suite="arena-samplesize", sizes=[50, 100])
    with pytest.raises(StreamError, match="cannot share one"):
        _batches(mixed, 1)


def test_temporal_batches_mirror_dotime_fields():
    rows = list(stream("temporal", 2, suite="dot-generic", shards=1).take(3))
    (b,) = _batches(TorchStream("temporal", 2, batch_size=3, suite="dot-generic", n_max=8), 1)
    T = max(np.asarray(r["x_obs"]).shape[0] for r in rows)
    assert b["X_obs"].shape == (3, T, 8) and b["X_obs"].dtype == torch.float32
    assert b["variable_mask"].sum(dim=1).tolist() == [r["n_vars"] for r in rows]
    assert b["num_vars"].tolist() == [r["n_vars"] for r in rows]
    for i, r in enumerate(rows):
        x, n, on = np.asarray(r["x_obs"]), r["n_vars"], r["onset"]
        assert np.allclose(b["X_obs_full"][i, : len(x), :n].numpy(), x)
        assert np.allclose(b["X_int"][i, : len(x), :n].numpy(), np.asarray(r["x_int"]))
        assert not b["X_obs"][i, on:].any() and np.allclose(b["X_obs"][i, :on, :n], x[:on])
        q = len(r["y_true"])
        assert np.allclose(b["Y_true"][i, :q].numpy(), r["y_true"])
        assert np.allclose(
            b["Y_causal_effect"][i, :q].numpy(), np.subtract(r["y_true"], r["y_factual"])
        )
        assert np.allclose(b["query_time"][i, :q].numpy(), np.asarray(r["query_times"]) / len(x))
        assert r["variables"][int(b["intervention_target"][i])] == r["intervention_target"]
        assert int(b["query_target"][i]) == r["query_column"] and int(b["int_onset_idx"][i]) == on
        assert np.array_equal(
            b["adjacency_inst"][i, :n, :n].numpy(), np.asarray(r["adjacency_inst"])
        )
    assert set(b["intervention_type"].tolist()) <= {0, 1, 2}
    narrow = TorchStream("temporal", 2, batch_size=3, suite="dot-generic", n_max=1)
    with pytest.raises(StreamError, match="> n_max = 1"):
        _batches(narrow, 1)


def test_bad_wrapper_options_are_clear_errors():
    with pytest.raises(StreamError, match="no sample table"):
        TorchStream("lab")
    with pytest.raises(StreamError, match="one d"):
        TorchStream("synthetic")
    with pytest.raises(StreamError, match="batch_size must be a positive int"):
        TorchStream("synthetic", d=10, batch_size=0)
