"""The vectorised scoring paths agree with the pair-code reference on random graphs."""

import numpy as np
import pytest

from causalarena.eval import metrics as M


def _random_dag(rng, d, p):
    perm = rng.permutation(d)
    return np.triu(rng.random((d, d)) < p, 1)[np.ix_(perm, perm)].astype(np.int8)


@pytest.mark.parametrize("reversal_cost", [1, 2])
def test_matrix_shd_equals_pair_codes(reversal_cost):
    rng = np.random.default_rng(11)
    for _ in range(300):
        d = int(rng.integers(2, 25))
        t = M.cpdag(_random_dag(rng, d, 0.3)).astype(bool)
        p = rng.random((d, d)) < 0.2  # arbitrary mix of one-way and symmetric pairs
        np.fill_diagonal(p, False)
        ref = M._shd_codes(M._codes(t & ~t.T, t & t.T), M._codes(p & ~p.T, p & p.T), reversal_cost)[
            0
        ]
        assert M._matrix_shd(t, p, reversal_cost) == ref


@pytest.mark.parametrize("reversal_cost", [1, 2])
def test_directed_shd_parts_equal_pair_codes(reversal_cost):
    rng = np.random.default_rng(12)
    for k in range(200):
        d = int(rng.integers(2, 30))
        t, p = _random_dag(rng, d, 0.25), _random_dag(rng, d, 0.25)
        res = M.score_graph(t, p, sid=False, pattern=False, reversal_cost=reversal_cost)
        no = np.zeros((d, d), dtype=bool)
        shd, miss, extra, rev = M._shd_codes(
            M._codes(t.astype(bool), no), M._codes(p.astype(bool), no), reversal_cost
        )
        assert (res["shd"], res["n_missing"], res["n_extra"], res["n_reversed"]) == (
            shd,
            miss,
            extra,
            rev,
        ), k


def test_is_acyclic_agrees_with_find_cycle():
    rng = np.random.default_rng(13)
    seen = set()
    for _ in range(500):
        d = int(rng.integers(1, 20))
        a = (rng.random((d, d)) < rng.uniform(0.02, 0.3)).astype(np.int8)
        np.fill_diagonal(a, 0)
        acyclic = M._is_acyclic(a)
        assert acyclic == (M._find_cycle(a) is None)
        seen.add(acyclic)
    assert seen == {True, False}


def test_check_binary_rejects_wrapping_int8_and_keeps_caller_array_writable():
    a = np.zeros((3, 3), dtype=np.int8)
    a[0, 1] = -1  # would pass a naive (a > 1) test
    with pytest.raises(ValueError, match="binary"):
        M._check_binary(a, "x")
    b = np.zeros((3, 3), dtype=np.int8)
    b[0, 1] = 1
    M.MixedGraph(b, np.zeros((3, 3), bool), np.zeros((3, 3), bool))
    b[0, 2] = 1  # the graph froze its own copy, not the caller's array
    big = np.zeros((2, 2), dtype=np.int64)
    big[0, 1] = 256  # 256 wraps to 0 as int8: must be refused before the cast
    with pytest.raises(ValueError, match="binary"):
        M._check_binary(big, "x")


def test_auroc_ap_equal_sklearn_with_ties():
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(14)
    for k in range(300):
        n = int(rng.integers(2, 400))
        y = rng.random(n) < rng.uniform(0.05, 0.9)
        if not 0 < y.sum() < n:
            continue
        s = rng.random(n)
        if k % 2:  # heavy ties, like thresholded or rounded edge scores
            s = np.round(s * rng.integers(1, 5)) / 4
        auroc, ap = M._auroc_ap(y, s)
        assert auroc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert ap == pytest.approx(average_precision_score(y, s), abs=1e-12)


def test_batch_bootstrap_ci_matches_scipy_per_size_and_handles_edges():
    from scipy import stats

    from causalarena.eval.analyses import batch_bootstrap_ci, bootstrap_ci

    rng = np.random.default_rng(15)
    a, b = rng.random(40), rng.random(40) * 3
    c = rng.random(25)
    out = batch_bootstrap_ci([a, np.full(7, 0.3), b, np.array([1.0]), c], n_resamples=500, seed=4)
    assert out[1] == (0.3, 0.3)  # a constant's CI has zero width
    assert all(np.isnan(v) for v in out[3])  # one value: no interval
    ref = stats.bootstrap(
        (np.stack([a, b]),),
        np.mean,
        n_resamples=500,
        method="BCa",
        vectorized=True,
        axis=-1,
        random_state=np.random.default_rng([4, 40]),
    ).confidence_interval
    assert out[0] == (ref.low[0], ref.high[0]) and out[2] == (ref.low[1], ref.high[1])
    for (lo, hi), x in ((out[0], a), (out[2], b), (out[4], c)):
        assert lo < x.mean() < hi
        lo1, hi1 = bootstrap_ci(x, n_resamples=500, seed=4)  # same estimator, other draws
        assert abs(lo - lo1) < 0.05 * np.ptp(x) and abs(hi - hi1) < 0.05 * np.ptp(x)
    assert out == batch_bootstrap_ci(
        [a, np.full(7, 0.3), b, np.array([1.0]), c], n_resamples=500, seed=4
    )


def test_batch_ratio_ci_is_scipys_paired_bca_per_group_and_handles_edges():
    """Each group's interval is scipy's paired BCa bootstrap of sum(num)/sum(den) over its
    units with den > 0 (the per-group rule of the win-rate CIs), also inside a batch."""
    from scipy import stats

    from causalarena.eval.analyses import batch_ratio_ci

    rng = np.random.default_rng(3)
    den = rng.integers(0, 4, 30).astype(float)  # some units without comparisons
    num = np.minimum(den, rng.integers(0, 4, 30))
    den2 = np.maximum(den, 1.0)
    num2 = np.minimum(den2, rng.integers(0, 3, 30))
    flat = (np.full(5, 1.0), np.full(5, 2.0))  # ratio 0.5 on every unit
    den3 = rng.integers(1, 4, 30).astype(float)
    num3 = np.minimum(den3, rng.integers(0, 4, 30))
    pairs = [(num, den), flat, (num2, den2), (np.array([1.0]), np.array([2.0])), (num3, den3)]
    out = batch_ratio_ci(pairs, n_resamples=400, seed=9)
    assert out[1] == (0.5, 0.5)  # a constant ratio: zero width
    assert all(np.isnan(v) for v in out[3])  # one unit: no interval

    def ratio(a, b, axis=-1):
        return a.sum(axis=axis) / b.sum(axis=axis)

    for k in (0, 2, 4):  # 2 and 4 have 30 units each: one stacked call
        x, y = pairs[k]
        keep = y > 0
        ref = stats.bootstrap(
            (x[keep], y[keep]),
            ratio,
            paired=True,
            n_resamples=400,
            method="BCa",
            vectorized=True,
            random_state=np.random.default_rng([9, int(keep.sum()), 1]),
        ).confidence_interval
        assert out[k] == pytest.approx((ref.low, ref.high), rel=1e-12)
        assert out[k][0] < x.sum() / y.sum() < out[k][1]
    assert out == batch_ratio_ci(pairs, n_resamples=400, seed=9)  # seeded
