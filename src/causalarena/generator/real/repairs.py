"""Documented, explicit repairs for running methods on real tables (paper C.4).

Nothing here is applied silently by the loaders or the builder: a method wrapper (or a user)
calls these helpers and records that it did.

* :func:`constant_columns` / :func:`drop_constant_columns` / :func:`expand_adjacency` -- drop
  zero-variance columns before fitting and map the prediction back to the original ``d``
  (dropped variables get no edges).  :func:`fit_without_constant_columns` does all three.
* :func:`subsample` -- deterministic row subsampling for slow methods.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def constant_columns(X: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Indices of columns whose range (max - min over finite values) is ``<= tol``.

    Parameters
    ----------
    X : numpy.ndarray
        Shape (n, d), any float dtype.
    tol : float, default=0.0
        Same unit as ``X``.

    Returns
    -------
    numpy.ndarray
        Sorted column indices, dtype int64 (shape (k,)).  With ``n == 0`` every column is
        constant.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.arange(X.shape[1])
    span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    return np.flatnonzero(~(span > tol))


def drop_constant_columns(
    X: np.ndarray, mask: np.ndarray | None = None, tol: float = 0.0
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Remove constant columns from ``X`` (and the same columns from ``mask``).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None, numpy.ndarray)
        ``X`` (n, d') and ``mask`` (n, d') restricted to the kept columns, and the kept
        column indices (d',) int64 for :func:`expand_adjacency`.
    """
    X = np.asarray(X)
    drop = set(constant_columns(X, tol).tolist())
    keep = np.array([j for j in range(X.shape[1]) if j not in drop], dtype=np.int64)
    m = None if mask is None else np.asarray(mask)[:, keep]
    return X[:, keep], m, keep


def expand_adjacency(A_sub: np.ndarray, keep: np.ndarray, d: int) -> np.ndarray:
    """Map a (d', d') prediction on kept columns back to (d, d); dropped variables get no edges.

    Works for binary adjacencies and for edge-score matrices (dtype of ``A_sub`` kept).

    Raises
    ------
    ValueError
        If ``A_sub`` is not (len(keep), len(keep)).
    """
    A_sub = np.asarray(A_sub)
    keep = np.asarray(keep, dtype=np.int64)
    if A_sub.shape != (len(keep), len(keep)):
        raise ValueError(f"prediction has shape {A_sub.shape}, expected {(len(keep), len(keep))}")
    A = np.zeros((d, d), dtype=A_sub.dtype)
    A[np.ix_(keep, keep)] = A_sub
    return A


def fit_without_constant_columns(
    fit: Callable[[np.ndarray, np.ndarray | None], np.ndarray],
    X: np.ndarray,
    mask: np.ndarray | None = None,
    tol: float = 0.0,
) -> tuple[np.ndarray, list[int]]:
    """Run ``fit(X', mask')`` on the non-constant columns and expand its (d', d') output.

    Returns
    -------
    (numpy.ndarray, list of int)
        The (d, d) prediction and the dropped column indices (to be recorded with the result).
    """
    Xk, mk, keep = drop_constant_columns(X, mask, tol)
    d = np.asarray(X).shape[1]
    A = expand_adjacency(fit(Xk, mk), keep, d)
    return A, sorted(set(range(d)) - set(keep.tolist()))


def subsample(
    X: np.ndarray, mask: np.ndarray | None, n: int, seed: int
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Deterministic row subsample without replacement, keeping the original row order.

    Observational rows stay before interventional ones (rows are selected, never reordered).

    Parameters
    ----------
    X : numpy.ndarray
        Shape (N, d).
    mask : numpy.ndarray or None
        Shape (N, d) bool, or None.
    n : int
        Rows wanted; if ``n >= N`` every row is returned.
    seed : int
        Seed of :func:`numpy.random.default_rng`; same inputs and seed give the same rows.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray or None, numpy.ndarray)
        ``X[idx]``, ``mask[idx]`` and the sorted row indices ``idx`` (int64).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``mask`` has another shape than ``X``.
    """
    X = np.asarray(X)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if mask is not None and np.shape(mask) != X.shape:
        raise ValueError(f"mask has shape {np.shape(mask)}, X has {X.shape}")
    N = X.shape[0]
    if n >= N:
        idx = np.arange(N, dtype=np.int64)
    else:
        idx = np.sort(np.random.default_rng(seed).choice(N, size=n, replace=False)).astype(np.int64)
    return X[idx], (None if mask is None else np.asarray(mask)[idx]), idx
