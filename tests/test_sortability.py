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


def test_path_counting_weights_multiple_paths():
    # 0->1, 0->2, 1->3, 2->3: paths of length 1: 4, of length 2: 2 (0->3 twice) -> 6 paths
    A = np.zeros((4, 4), int)
    A[0, 1] = A[0, 2] = A[1, 3] = A[2, 3] = 1
    X = np.random.default_rng(1).standard_normal((500, 4))
    X = X / X.std(axis=0) * np.sqrt([1.0, 4.0, 0.5, 2.0])
    # edges: 0->1 up, 0->2 down, 1->3 down, 2->3 up; 0->3 (x2) up: (1+0+0+1+2)/6
    assert abs(varsortability(X, A) - 4 / 6) < 1e-12


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
