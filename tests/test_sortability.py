"""Varsortability and R²-sortability against hand-computed values."""

from __future__ import annotations

import numpy as np

from causalarena.sortability import r2_coefficients, r2_sortability, varsortability


def test_varsortability_hand_computed():
    A = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])  # X0 -> X1 -> X2
    rng = np.random.default_rng(0)
    base = rng.standard_normal((1000, 3))
    # variances 1, 4, 9: increasing along both edges and the 2-step path -> 1
    assert varsortability(base * [1, 2, 3], A) == 1.0
    # decreasing -> 0
    assert varsortability(base * [3, 2, 1], A) == 0.0
    # var 1, 4, 1: edge 0->1 up (1), edge 1->2 down (0), path 0->2 tie (0.5) -> 1.5 / 3
    X = base / base.std(axis=0) * [1, 2, 1]
    assert abs(varsortability(X, A) - 0.5) < 1e-12


def test_pairs_counted_once_per_path_length():
    # 0->1, 0->2, 1->3, 2->3: length-1 pairs: 4; length-2 pairs: (0, 3) once (two paths) -> 5
    A = np.zeros((4, 4), int)
    A[0, 1] = A[0, 2] = A[1, 3] = A[2, 3] = 1
    X = np.random.default_rng(1).standard_normal((500, 4))
    X = X / X.std(axis=0) * np.sqrt([1.0, 4.0, 0.5, 2.0])
    # edges: 0->1 up, 0->2 down, 1->3 down, 2->3 up; (0, 3) at length 2 up: (1+0+0+1+1)/5
    assert abs(varsortability(X, A) - 3 / 5) < 1e-12


def test_matches_reference_implementation_on_random_dags():
    """Reisach et al.'s reference loop (boolean reachability per length), written out here."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = 8
        A = np.triu(rng.random((d, d)) < 0.35, 1).astype(int)
        X = rng.standard_normal((300, d)) * rng.uniform(0.2, 3.0, d)
        E = A != 0
        Ek = E.copy()
        var = np.var(X, axis=0, keepdims=True)
        n_paths = n_ok = 0.0
        for _k in range(d - 1):
            n_paths += Ek.sum()
            ratio = Ek * var / var.T
            n_ok += (ratio > 1 + 1e-9).sum() + 0.5 * (
                (ratio <= 1 + 1e-9) * (ratio > 1 - 1e-9)
            ).sum()
            Ek = Ek.dot(E)
        if n_paths:
            assert abs(varsortability(X, A) - n_ok / n_paths) < 1e-12


def test_r2_coefficients_and_sortability():
    rng = np.random.default_rng(2)
    x = rng.standard_normal(20000)
    y = x + 0.5 * rng.standard_normal(20000)
    r2 = r2_coefficients(np.c_[x, y])
    assert abs(r2[0] - 0.8) < 0.01 and abs(r2[1] - 0.8) < 0.01  # corr^2 = 1/1.25
    z = rng.standard_normal(20000)
    X = np.c_[x, y, z]
    A = np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])
    # R² is scale-invariant: rescaling a column does not change R²-sortability
    assert r2_sortability(X, A) == r2_sortability(X * [100, 0.01, 5], A)
    assert np.isnan(varsortability(X, np.zeros((3, 3))))
