"""SHD cross-checked against gadjid (``gadjid.shd``, the authors' Rust implementation)."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.eval.metrics import cpdag, score_graph

gadjid = pytest.importorskip("gadjid")


def _place(upper: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The DAG with topological order ``order`` whose edges are ``upper`` (upper-triangular)."""
    d = len(order)
    out = np.zeros((d, d), dtype=np.int8)
    out[np.ix_(order, order)] = upper
    return out


def _dag(rng, d, p):
    return _place(np.triu(rng.random((d, d)) < p, 1), rng.permutation(d))


def _gadjid_cpdag(c: np.ndarray) -> np.ndarray:
    """Our CPDAG (undirected = both entries 1) in gadjid's coding (undirected = a 2 once)."""
    und = (c != 0) & (c.T != 0)
    out = np.where(und, 0, c).astype(np.int8)
    out[np.triu(und, 1)] = 2
    return out


def test_shd_equals_gadjid_on_random_dags():
    rng = np.random.default_rng(5)
    values = []
    for _ in range(150):
        d = int(rng.integers(2, 31))
        p = float(rng.uniform(0.05, 0.5))
        order = rng.permutation(d)
        U = np.triu(rng.random((d, d)) < p, 1)
        truth = _place(U, order)
        if rng.random() < 0.5:  # an unrelated DAG
            guess = _dag(rng, d, p)
        else:  # near the truth: edges added/deleted, two nodes swapped in the order (reversals)
            flips = np.triu(rng.random((d, d)) < 0.1, 1)
            o2 = order.copy()
            a, b = rng.choice(d, 2, replace=False)
            o2[[a, b]] = o2[[b, a]]
            guess = _place(U ^ flips, o2)
        want = gadjid.shd(truth, guess)[1]
        got = score_graph(truth, guess, sid=False, pattern=False)["shd"]
        assert got == want, (d, truth.tolist(), guess.tolist())
        values.append(want)
    assert len(set(values)) > 20  # varied cases, not one repeated value


def test_pattern_shd_equals_gadjid_on_random_cpdags():
    rng = np.random.default_rng(6)
    for _ in range(80):
        d = int(rng.integers(3, 21))
        truth, guess = (_dag(rng, d, float(rng.uniform(0.1, 0.5))) for _ in range(2))
        want = gadjid.shd(_gadjid_cpdag(cpdag(truth)), _gadjid_cpdag(cpdag(guess)))[1]
        got = score_graph(truth, guess, sid=False, pattern=True, sid_bounds=False)["shd_pattern"]
        assert got == want, d


def test_reversal_costs_one_in_both():
    truth = np.array([[0, 1], [0, 0]], dtype=np.int8)
    assert gadjid.shd(truth, truth.T.copy())[1] == 1
    assert score_graph(truth, truth.T.copy(), sid=False, pattern=False)["shd"] == 1
    # reversal_cost=2 (a missing plus an extra edge) is ours only; gadjid has no such option
    assert score_graph(truth, truth.T.copy(), sid=False, reversal_cost=2)["shd"] == 2
