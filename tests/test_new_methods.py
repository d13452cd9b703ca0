"""NOTEARS-MLP and the CDFM adapter: conventions on a known graph, plumbing on a random checkpoint."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from causalarena.baselines.registry import get_method, missing_methods, registered


def _skip_if_missing(name):
    reason = missing_methods().get(name)
    if reason:
        pytest.skip(reason)


@pytest.mark.slow  # about 30 s of L-BFGS on two cores
def test_notears_mlp_orients_a_nonlinear_pair_in_package_convention():
    _skip_if_missing("notears-mlp")
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=200)
    x1 = 2 * np.tanh(1.5 * x0) + 0.3 * rng.normal(size=200)
    res = get_method("notears-mlp").fit(np.column_stack([x0, x1]), None, seed=1)
    assert res.adjacency.tolist() == [[0, 1], [0, 0]]  # A[i, j] = 1 iff i -> j
    assert res.edge_scores[0, 1] > 0.3 > res.edge_scores[1, 0]
    assert res.notes["dag_repair"] == "none" and res.graph_type == "dag"


def test_notears_mlp_defaults_follow_the_paper():
    # metadata only: must hold on a fresh `make test` install, which has no torch/gcastle
    info = registered("notears-mlp").info
    assert info.defaults["hidden_layers"] == [10, 1]
    assert info.defaults["lambda1"] == info.defaults["lambda2"] == 0.01
    assert info.defaults["max_iter"] == 100 and info.defaults["w_threshold"] == 0.3


@pytest.fixture(scope="module")
def random_cdfm_checkpoint(tmp_path_factory):
    """A randomly initialised checkpoint of the released architecture (no download)."""
    _skip_if_missing("cdfm")
    import safetensors.torch
    import torch
    from cdfm.model.cdfm_model import CDFM as Architecture

    torch.manual_seed(0)
    model = Architecture()  # the defaults cdfm.load_checkpoint builds from an empty config
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.08)
    folder = tmp_path_factory.mktemp("cdfm-ckpt")
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    safetensors.torch.save_file(state, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({}))
    return folder


def test_cdfm_adapter_plumbing_on_random_checkpoint(random_cdfm_checkpoint, monkeypatch):
    from causalarena.baselines import cdfm_method

    monkeypatch.setenv(cdfm_method.CHECKPOINT_ENV, str(random_cdfm_checkpoint))
    X = np.random.default_rng(1).normal(size=(120, 6))
    res = get_method("cdfm").fit(X, None, seed=0)
    A, S = res.adjacency, res.edge_scores
    assert A.shape == S.shape == (6, 6) and A.dtype == np.int8 and S.dtype == np.float32
    assert nx.is_directed_acyclic_graph(nx.DiGraph(A))
    assert res.notes["threshold_rule"] == "0.5 (checkpoint has no calibration)"
    # scores are cdfm's own probabilities, not transposed (cdfm: row = source, column = target)
    from cdfm import CDFM

    direct = CDFM(checkpoint=str(random_cdfm_checkpoint), device="cpu").predict(X, threshold=0.5)
    P = np.asarray(direct.probabilities, dtype=np.float64)
    np.fill_diagonal(P, 0.0)
    assert not np.allclose(P, P.T, atol=1e-6)  # an asymmetric output makes the check bite
    np.testing.assert_allclose(S, P.astype(np.float32))
    assert np.all(A <= (P > 0.5))  # thresholded, then cycles cut
    # the model is loaded once per process and checkpoint
    before = dict(cdfm_method._LOADED)
    get_method("cdfm").fit(X, None, seed=1)
    assert cdfm_method._LOADED == before and len(before) == 1


def test_cdfm_never_downloads(monkeypatch, tmp_path):
    _skip_if_missing("cdfm")
    from causalarena.baselines import cdfm_method

    monkeypatch.delenv(cdfm_method.CHECKPOINT_ENV, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(FileNotFoundError, match="huggingface-cli download DMIRLAB/CDFM"):
        cdfm_method.resolve_checkpoint()
    with pytest.raises(FileNotFoundError, match="missing config.json"):
        cdfm_method.resolve_checkpoint(tmp_path)


def test_cdfm_setup_hook_loads_once_per_worker(random_cdfm_checkpoint, monkeypatch):
    from causalarena.baselines import cdfm_method

    monkeypatch.setattr(cdfm_method, "_LOADED", {})
    monkeypatch.delenv(cdfm_method.CHECKPOINT_ENV, raising=False)
    method = get_method("cdfm")
    assert method.setup() is None and not cdfm_method._LOADED  # no checkpoint: nothing loaded
    monkeypatch.setenv(cdfm_method.CHECKPOINT_ENV, str(random_cdfm_checkpoint))
    state = method.setup()
    assert state == str(random_cdfm_checkpoint.resolve()) and len(cdfm_method._LOADED) == 1
    loaded = next(iter(cdfm_method._LOADED.values()))
    X = np.random.default_rng(2).normal(size=(80, 4))
    res = method.run(X, None, seed=0, state=state)
    assert res.adjacency.shape == (4, 4)
    assert next(iter(cdfm_method._LOADED.values())) is loaded
