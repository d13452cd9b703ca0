"""Batched simulation of temporal SCMs: factual, interventional and counterfactual arms.

Discrete time (:func:`simulate`) rolls ``burn_in + T`` steps of the TSCM of
:mod:`causalarena.spec_temporal`; continuous time (:func:`simulate_continuous`) integrates the
delay SDE ``dX^j = theta (f_j(pre_j) + d_j(t) - X^j) dt + sigma_j dW^j`` with Euler–Maruyama on a
fine grid of step ``dt`` (lag ``k`` reads ``X(t - k * lag_time)``; instantaneous parents act
through the current state).

Batching and determinism
------------------------
Many episodes are simulated together: one Python loop over time, numpy operations over
episodes.  Episodes with different ``(N, K)`` share a batch by *padding*: each episode's nodes
are relabelled in a topological order of its instantaneous graph and padded with inert nodes
(zero weights, zero noise, linear mechanism) up to the batch's largest ``N`` and ``K``.  All
per-step arithmetic is elementwise (no reductions, no BLAS), with the terms of every sum added
in the same order as when the episode is simulated alone, and padded terms add exact zeros, so
an episode's trajectory is bit-identical whatever batch it is in.  Regime-switching episodes
are simulated in their own sub-batches (``regime`` groups), and batches are split into chunks
of at most ``max_batch`` episodes to bound memory.

Randomness is keyed per episode: episode ``e`` with key ``keys[e]`` (default ``(e,)``) draws
from ``SeedSequence(entropy, spawn_key=(*base_key, *keys[e], stream))``: its exogenous noise
array ``(burn_in + T, N)`` is drawn once, before the time loop, from its own stream, as are the
Markov regime path and the intervention value.  No global RNG is used.

Arms
----
``pair_mode="counterfactual"`` simulates the factual and the interventional arm with the *same*
exogenous noise (and the same regime path), so the arms are bit-identical before onset and
every difference is caused by the intervention.  ``pair_mode="interventional"`` draws the
interventional arm's noise (and Markov regime path) from an independent stream: the pair then
relates the observational and the interventional distribution, not one unit's counterfactual.

Divergence is checked at every step (burn-in included) of both arms: an episode is flagged as
diverged at the first step with a non-finite value (``±inf`` or NaN, whatever ``threshold``,
even ``inf``) or ``|x| > threshold``.  Diverged episodes
are reported (``diverged``, ``diverged_step``), never zeroed; :func:`causalarena.generator.temporal.
generate.generate_pairs` rejects and redraws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from causalarena.errors import SpecError
from causalarena.spec_temporal import MECHANISMS, TemporalIntervention, TemporalSCM

PairMode = Literal["counterfactual", "interventional"]

# Stream identifiers (last element of an episode's spawn key).
S_NOISE, S_NOISE_IND, S_REGIME, S_REGIME_IND, S_VALUE, S_SCHEDULE, S_QUERY, S_MISSING = range(8)


# ---------------------------------------------------------------------------------- streams
def episode_stream(
    seed: int | np.random.SeedSequence, key: Sequence[int], stream: int
) -> np.random.Generator:
    """The generator of one episode's stream.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        Base seed; a SeedSequence's ``spawn_key`` (e.g. ``(suite, version)``) is kept as prefix.
    key : sequence of int
        Episode key, e.g. ``(index,)`` or ``(index, attempt)``.
    stream : int
        Stream identifier (``S_NOISE``, ``S_VALUE``, ...).
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    child = np.random.SeedSequence(
        ss.entropy, spawn_key=(*ss.spawn_key, *map(int, key), int(stream))
    )
    return np.random.default_rng(child)


# ---------------------------------------------------------------------------------- mechanisms
def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


_F = {
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "abs": np.abs,
    "square": np.square,
    "relu": _relu,
    "tanh_square": lambda x: np.tanh(np.square(x)),
    "tanh_relu": lambda x: np.tanh(np.maximum(x, 0.0)),
}
_FCODE = [(MECHANISMS.index(name), f) for name, f in _F.items()]


def apply_mechanism(tag: str, pre: np.ndarray) -> np.ndarray:
    """Evaluate one mechanism on pre-activations (elementwise)."""
    if tag == "linear":
        return np.array(pre, dtype=np.float64, copy=True)
    return _F[tag](np.asarray(pre, dtype=np.float64))


def _mech_groups(codes: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """``[(f, flat indices)]`` for every non-linear code present in ``codes`` (any shape)."""
    flat = codes.ravel()
    return [(f, np.flatnonzero(flat == c)) for c, f in _FCODE if np.any(flat == c)]


# ---------------------------------------------------------------------------------- packing
@dataclass
class _Packed:
    """Padded, topologically relabelled parameters of a batch (layout: episode axis last).

    ``W0``..``codes`` are regime 0's; with regime switching in the batch, ``W0r``..``codesr``
    stack the ``R`` regimes (``R`` = the batch's largest number of regimes; an episode with
    fewer regimes repeats its last one, never selected by its path).
    """

    N: int
    K: int
    n: np.ndarray  # (E,) true numbers of variables
    perm: list[np.ndarray]  # internal position -> original column, per episode (length n_e)
    W0: np.ndarray  # (N, N, E)
    WL: np.ndarray  # (K, N, N, E)
    bias: np.ndarray  # (N, E)
    codes: np.ndarray  # (N, E) int8
    W0r: np.ndarray | None = None  # (R, N, N, E)
    WLr: np.ndarray | None = None  # (R, K, N, N, E)
    biasr: np.ndarray | None = None  # (R, N, E)
    codesr: np.ndarray | None = None  # (R, N, E) int8
    codes_vary: bool = False  # whether mechanisms differ between regimes


def _pack(scms: Sequence[TemporalSCM]) -> _Packed:
    E = len(scms)
    N = max(s.n_vars for s in scms)
    K = max(s.max_lag for s in scms)
    R = max(s.n_regimes for s in scms)
    W0 = np.zeros((N, N, E))
    WL = np.zeros((K, N, N, E))
    bias = np.zeros((N, E))
    codes = np.zeros((N, E), dtype=np.int8)
    W0r = np.zeros((R, N, N, E)) if R > 1 else None
    WLr = np.zeros((R, K, N, N, E)) if R > 1 else None
    biasr = np.zeros((R, N, E)) if R > 1 else None
    codesr = np.zeros((R, N, E), dtype=np.int8) if R > 1 else None
    perm = []
    n = np.zeros(E, dtype=np.intp)
    for e, s in enumerate(scms):
        a = s.arrays()
        o = np.asarray(s.topological_order(), dtype=np.intp)
        m, k = s.n_vars, s.max_lag
        perm.append(o)
        n[e] = m
        W0[:m, :m, e] = a["W0"][np.ix_(o, o)]
        WL[:k, :m, :m, e] = a["W_lag"][:, o][:, :, o]
        bias[:m, e] = a["bias"][o]
        codes[:m, e] = a["mech"][o]
        if R > 1:
            for r in range(R):
                b = s.arrays(min(r, s.n_regimes - 1)) if s.n_regimes > 1 else a
                W0r[r, :m, :m, e] = b["W0"][np.ix_(o, o)]
                WLr[r, :k, :m, :m, e] = b["W_lag"][:, o][:, :, o]
                biasr[r, :m, e] = b["bias"][o]
                codesr[r, :m, e] = b["mech"][o]
    vary = codesr is not None and bool(np.any(codesr != codesr[:1]))
    return _Packed(N, K, n, perm, W0, WL, bias, codes, W0r, WLr, biasr, codesr, vary)


@dataclass
class _Arm:
    """Per-arm inputs in internal layout: exogenous (S, N, E), regime index (S, E) int8 or
    None, intervention arrays (S, E) and per-episode target positions/type."""

    exog: np.ndarray
    regime: np.ndarray | None
    hard_on: np.ndarray | None = None
    hard_val: np.ndarray | None = None
    soft_val: np.ndarray | None = None
    tgt: np.ndarray | None = None  # (E, M) internal positions of the targets, -1 = none
    kind: np.ndarray | None = None  # (E,) 0 none, 1 hard/time-varying, 2 soft


# ---------------------------------------------------------------------------------- cores
class _Edges:
    """Sparse edge list of a batch in a fixed accumulation order.

    Edges are sorted by (episode, child, lag, parent): ``np.bincount`` adds the weighted
    parent values of each (child, episode) bin sequentially in that order, which is the same
    order as when the episode is simulated alone, so sums are batch-independent bit for bit.
    """

    def __init__(self, W: np.ndarray, Wr: np.ndarray | None, src_off: np.ndarray, N: int, E: int):
        # W: (L, N, N, E) weights for L "slots" (lags); Wr: (R, L, N, N, E) per-regime weights
        # or None; src_off: (L, E) history offset per slot
        mask = W != 0
        if Wr is not None:
            mask |= (Wr != 0).any(axis=0)
        l_, i_, j_, e_ = np.nonzero(mask)
        o = np.lexsort((i_, l_, j_, e_))
        l_, i_, j_, e_ = l_[o], i_[o], j_[o], e_[o]
        self.e = e_
        self.w = W[l_, i_, j_, e_]
        self.wr = Wr[:, l_, i_, j_, e_] if Wr is not None else None  # (R, nnz)
        self.pos = np.arange(e_.size)
        self.src = -src_off[l_, e_] * (N * E) + i_ * E + e_  # plus (row of "now") * N * E
        self.dst = j_ * E + e_
        self.NE = N * E

    def sum(self, flat: np.ndarray, row: int, w: np.ndarray) -> np.ndarray:
        vals = flat[self.src + row * self.NE] * w
        return np.bincount(self.dst, weights=vals, minlength=self.NE)


def _select(r: np.ndarray, P: _Packed, edges: _Edges):
    """Regime-0-layout parameters of regime ``r`` (E,) int per episode: W0, bias, edge weights,
    mechanism codes."""
    ri = r.astype(np.intp)
    W0 = np.take_along_axis(P.W0r, ri[None, None, None, :], axis=0)[0]
    bias = np.take_along_axis(P.biasr, ri[None, None, :], axis=0)[0]
    codes = np.take_along_axis(P.codesr, ri[None, None, :], axis=0)[0]
    return W0, bias, edges.wr[ri[edges.e], edges.pos], codes


def _interv_setup(arm: _Arm, N: int):
    hard_sel, soft_sel = {}, {}
    if arm.tgt is not None:
        for j in range(N):
            on = (arm.tgt == j).any(axis=1)
            hs = on & (arm.kind == 1)
            ss = on & (arm.kind == 2)
            if hs.any():
                hard_sel[j] = hs
            if ss.any():
                soft_sel[j] = ss.astype(np.float64)
    return hard_sel, soft_sel


def _run_discrete(P: _Packed, arm: _Arm, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Roll the recursion; returns X (S, N, E) and the first diverged step (E,) (-1 = none).

    Per step: ``pre = bias + sum_lagged`` (one sparse accumulation), then node by node in the
    internal topological order ``pre_j += W0[i, j] x_i`` for ``i < j``, mechanism, soft
    shift, exogenous input, hard clamp.
    """
    S, N, E = arm.exog.shape
    K = P.K
    Xpad = np.zeros((S + K, N, E))
    X = Xpad[K:]
    flat = Xpad.reshape(-1)
    off = np.broadcast_to(np.arange(1, K + 1)[:, None], (K, E))
    edges = _Edges(P.WL, P.WLr, off, N, E)
    W0any = (P.W0 != 0).any(axis=2)
    if P.W0r is not None:
        W0any |= (P.W0r != 0).any(axis=(0, 3))
    inst = [[i for i in range(j) if W0any[i, j]] for j in range(N)]
    mechs = [_mech_groups(P.codes[j]) for j in range(N)]
    hard_sel, soft_sel = _interv_setup(arm, N)
    div = np.full(E, -1, dtype=np.intp)
    W0, bias, w = P.W0, P.bias, edges.w
    reg_prev = None
    with np.errstate(all="ignore"):
        for t in range(S):
            if arm.regime is not None:
                r = arm.regime[t]
                if reg_prev is None or not np.array_equal(r, reg_prev):
                    W0, bias, w, codes = _select(r, P, edges)
                    if P.codes_vary:
                        mechs = [_mech_groups(codes[j]) for j in range(N)]
                    reg_prev = r
            pre = bias + edges.sum(flat, t + K, w).reshape(N, E)
            xt = X[t]
            if hard_sel:
                on, hv = arm.hard_on[t], arm.hard_val[t]
            if soft_sel:
                sv = arm.soft_val[t]
            ex = arm.exog[t]
            for j in range(N):
                p = pre[j]
                for i in inst[j]:
                    p += W0[i, j] * xt[i]
                out = p.copy()
                for f, idx in mechs[j]:
                    out[idx] = f(p[idx])
                if j in soft_sel:
                    out += sv * soft_sel[j]
                out += ex[j]
                if j in hard_sel:
                    out = np.where(on & hard_sel[j], hv, out)
                xt[j] = out
            bad = ~(np.isfinite(xt) & (np.abs(xt) <= threshold)).all(axis=0)
            if bad.any():
                div[bad & (div < 0)] = t
    return X, div


def _run_continuous(
    P: _Packed, arm: _Arm, threshold: float, dt: float, theta: np.ndarray, delays: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Euler–Maruyama on the fine grid; X (S, N, E) with X[0] = 0; exog[n] is the increment
    ``theta dt d(t_n) + sigma sqrt(dt) z_n``; delays (K, E) in fine steps.

    ``X[n+1] = X[n] + theta dt (f(pre_n) + soft_n - X[n]) + exog[n]``, with ``pre_n`` from the
    current state (instantaneous edges) and the delayed states (lagged edges); hard clamps
    overwrite the target at ``n + 1``.
    """
    S, N, E = arm.exog.shape
    K = P.K
    D = int(delays.max()) if delays.size else 0
    Xpad = np.zeros((S + D, N, E))
    X = Xpad[D:]
    flat = Xpad.reshape(-1)
    W = np.concatenate([P.W0[None], P.WL], axis=0)
    Wr = np.concatenate([P.W0r[:, None], P.WLr], axis=1) if P.W0r is not None else None
    off = np.concatenate([np.zeros((1, E), dtype=np.intp), delays.reshape(K, E)], axis=0)
    edges = _Edges(W, Wr, off, N, E)
    mechs = _mech_groups(P.codes)
    tdt = theta * dt  # (E,)
    hard = soft = None
    if arm.tgt is not None:
        onehot = (arm.tgt[None, :, :] == np.arange(N)[:, None, None]).any(axis=2)  # (N, E)
        hard = onehot & (arm.kind == 1)[None, :]
        soft = (onehot & (arm.kind == 2)[None, :]).astype(np.float64)
        hard = hard if hard.any() else None
        soft = soft if soft.any() else None
    div = np.full(E, -1, dtype=np.intp)
    bias, w = P.bias, edges.w
    reg_prev = None
    with np.errstate(all="ignore"):
        for n in range(S - 1):
            if arm.regime is not None:
                r = arm.regime[n]
                if reg_prev is None or not np.array_equal(r, reg_prev):
                    _, bias, w, codes = _select(r, P, edges)
                    if P.codes_vary:
                        mechs = _mech_groups(codes)
                    reg_prev = r
            x = X[n]
            pre = bias + edges.sum(flat, n + D, w).reshape(N, E)
            drift = pre.copy()
            flat_pre, flat_out = pre.reshape(-1), drift.reshape(-1)
            for f, idx in mechs:
                flat_out[idx] = f(flat_pre[idx])
            if soft is not None:
                drift += soft * arm.soft_val[n]
            new = x + tdt * (drift - x)
            new += arm.exog[n]
            if hard is not None:
                new = np.where(hard & arm.hard_on[n + 1], arm.hard_val[n + 1], new)
            X[n + 1] = new
            bad = ~(np.isfinite(new) & (np.abs(new) <= threshold)).all(axis=0)
            if bad.any():
                div[bad & (div < 0)] = n + 1
    return X, div


# ---------------------------------------------------------------------------------- values
def _context(x_target: np.ndarray, t0: int) -> np.ndarray:
    return x_target[:t0] if t0 >= 2 else x_target


def draw_level(iv: TemporalIntervention, ctx: np.ndarray, rng: np.random.Generator) -> float:
    """Draw the intervention level ``L`` for ``iv.value_mode`` (see :class:`TemporalIntervention`).

    Parameters
    ----------
    ctx : ndarray of shape (m,), float64
        The factual context (target values before onset).
    """
    mode = iv.value_mode
    if mode == "prior":
        return float(rng.normal(0.0, iv.prior_scale))
    if mode == "positivity_aware":
        lo, hi = np.percentile(ctx, [10.0, 90.0])
        return float(rng.uniform(lo, hi))
    if mode == "observed_discrete":
        return float(ctx[rng.integers(0, ctx.size)])
    if mode == "observed_normal":
        return float(rng.normal(ctx.mean(), ctx.std()))
    if mode == "observed_uniform":
        return float(rng.uniform(ctx.min(), ctx.max()))
    raise SpecError(iv.target, "intervention.value_mode", mode, "unknown value mode")


def positivity(ctx: np.ndarray, level: float, band: float) -> tuple[float, float]:
    """Positivity score and percentile of ``level`` in the factual context.

    Returns
    -------
    score : float in [0, 1]
        Fraction of ``ctx`` within ``± band * std(ctx)`` of ``level`` (0 when ``std == 0`` and
        no value equals ``level``).
    percentile : float in [0, 100]
        ``100 * mean(ctx <= level)``.
    """
    half = band * float(ctx.std())
    return float(np.mean(np.abs(ctx - level) <= half)), float(100.0 * np.mean(ctx <= level))


def intervention_path(
    intervention: Any,
    rows: Any,
    onset: int,
    window_end: int,
    times: np.ndarray | None = None,
    horizon: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Imposed target values at episode ``rows`` and whether the intervention is active there.

    Parameters
    ----------
    intervention : mapping
        The episode's intervention (the fields of :class:`TemporalIntervention`).
    rows : array-like of int, shape (k,)
    onset, window_end : int
        First intervened row and the first row after the window.
    times, horizon : optional
        Continuous-time episodes: observation times (shape (T,), float64) and the horizon;
        elapsed time is then measured from the window start in time units, else in steps.

    Returns
    -------
    values : ndarray, shape (k,), float64
        Hard and time-varying: the clamped value ``v(t)``; soft: the additive shift.
    active : ndarray, shape (k,), bool
    """
    iv = TemporalIntervention(**dict(intervention))
    rows = np.asarray(rows, dtype=np.intp)
    active = (rows >= onset) & (rows < window_end)
    if times is None:
        u = (rows - onset).astype(np.float64)
    else:
        w0, _ = iv.window_times(horizon)
        u = times[np.minimum(rows, len(times) - 1)] - w0
    return profile_values(iv, float(iv.value), u), active


def profile_values(iv: TemporalIntervention, value: float, u: np.ndarray) -> np.ndarray:
    """``v(t)`` on elapsed times ``u = t - t0`` (steps or time units)."""
    if iv.type != "time_varying":
        return np.full(u.shape, value)
    if iv.profile == "ramp":
        return value + iv.slope * u
    if iv.profile == "step":
        return value + np.where(u >= iv.step_at, iv.jump, 0.0)
    if iv.profile == "trajectory":
        tr = np.asarray(iv.trajectory, dtype=np.float64)
        k = np.clip(np.floor(u + 1e-9).astype(np.intp), 0, tr.size - 1)
        return value + tr[k]
    return value + iv.amplitude * np.sin(2.0 * np.pi * u / iv.period + iv.phase)


# ---------------------------------------------------------------------------------- results
@dataclass
class TemporalBatch:
    """Simulated episodes (discrete or continuous time), padded to a common ``N``.

    Attributes
    ----------
    names : list of list of str
        Variable names per episode (column order of the arrays, before padding).
    n_vars : ndarray of shape (E,), int
    observed : list of ndarray of int
        Released column indices per episode (hidden nodes excluded).
    times : ndarray of shape (T,), float64
        Retained grid times (steps ``0..T-1`` in discrete time, ``n * dt`` in continuous time).
    factual : ndarray of shape (E, T, N_max), float64
        Factual arm (hidden columns included, for evaluation); NaN padding beyond ``n_vars``.
    interventional : ndarray of shape (E, T, N_max), float64, or None
        Interventional/counterfactual arm (None without interventions).
    pair_mode : {"counterfactual", "interventional", "observational"}
    diverged : ndarray of shape (E,), bool
        True iff either arm diverged at some step (burn-in included).
    diverged_step : ndarray of shape (E,), int
        First diverged grid index (either arm) relative to the start of the retained window
        (negative in burn-in); -1 where not ``diverged``.
    window : ndarray of shape (E, 2), float64
        Intervention window ``[t0, t1)`` (steps or time units); NaN without intervention.
    int_mask : ndarray of shape (E, T), bool
        True where the intervention is active on the retained grid.
    target : ndarray of shape (E,), int
        Target column (-1 without intervention).
    value, level, positivity, percentile : ndarray of shape (E,), float64
        Resolved intervention value (``v``, ``delta`` or ``v0``), level used for positivity, and
        the positivity score/percentile (see :class:`TemporalIntervention`).
    regime : ndarray of shape (E, T), int8
        Factual regime index path on the retained grid; ``regime_int`` that of the other arm.
    keys : list of tuple of int
    exog : ndarray of shape (E, burn + T, N_max), float64, or None
        Factual exogenous input (noise plus folded drivers), burn-in included, original column
        order; only with ``return_noise=True``.
    diagnostics : dict of str to ndarray of shape (E,)
        ``spectral_radius`` (companion matrix of the linear part, max over regimes),
        ``var_ratio`` and ``drift`` (medians over observed variables of the factual arm; see
        :func:`stationarity_diagnostics`).
    """

    names: list[list[str]]
    n_vars: np.ndarray
    observed: list[np.ndarray]
    times: np.ndarray
    factual: np.ndarray
    interventional: np.ndarray | None
    pair_mode: str
    diverged: np.ndarray
    diverged_step: np.ndarray
    window: np.ndarray
    int_mask: np.ndarray
    target: np.ndarray
    value: np.ndarray
    level: np.ndarray
    positivity: np.ndarray
    percentile: np.ndarray
    regime: np.ndarray
    regime_int: np.ndarray
    keys: list[tuple[int, ...]]
    exog: np.ndarray | None = None
    diagnostics: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.names)

    def released(self, e: int, arm: str = "factual") -> tuple[list[str], np.ndarray]:
        """Observed column names and values ``(T, n_observed)`` of one arm of episode ``e``."""
        arr = self.factual if arm == "factual" else self.interventional
        obs = self.observed[e]
        return [self.names[e][i] for i in obs], arr[e][:, obs]


# ---------------------------------------------------------------------------------- diagnostics
def companion_radius(scm: TemporalSCM) -> float:
    """Spectral radius of the companion matrix of the linear part (max over regimes).

    Every mechanism is replaced by the identity, so ``x_t = W0^T x_t + sum_k W_k^T x_{t-k}``
    has reduced form ``x_t = sum_k B_k x_{t-k}``, ``B_k = (I - W0^T)^{-1} W_k^T``; the value is
    the largest eigenvalue modulus of the ``(N K, N K)`` companion matrix of ``B_1..B_K``.
    """
    if "radius" not in scm._cache:
        rads = []
        for r in range(scm.n_regimes):
            a = scm.arrays(r)
            rads.append(_radius(a["W0"], a["W_lag"]))
        scm._cache["radius"] = max(rads)
    return scm._cache["radius"]


def _radius(W0: np.ndarray, WL: np.ndarray) -> float:
    N, K = W0.shape[0], WL.shape[0]
    M = np.linalg.solve(np.eye(N) - W0.T, np.eye(N))
    C = np.zeros((N * K, N * K))
    for k in range(K):
        C[:N, k * N : (k + 1) * N] = M @ WL[k].T
    if K > 1:
        C[N:, : N * (K - 1)] = np.eye(N * (K - 1))
    return float(np.max(np.abs(np.linalg.eigvals(C))))


def stationarity_diagnostics(x: np.ndarray, window: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Early/late variance ratio and standardised mean drift per variable.

    Parameters
    ----------
    x : ndarray of shape (T, n), float64
    window : int
        Number of steps of the early (first) and late (last) blocks.

    Returns
    -------
    var_ratio : ndarray of shape (n,)
        ``var(late) / var(early)`` (NaN if the early variance is 0).
    drift : ndarray of shape (n,)
        ``|mean(late) - mean(early)| / std(early)``.
    """
    w = min(window, x.shape[0] // 2)
    early, late = x[:w], x[-w:]
    ve = early.var(axis=0)
    with np.errstate(all="ignore"):
        ratio = np.where(ve > 0, late.var(axis=0) / ve, np.nan)
        drift = np.where(
            ve > 0, np.abs(late.mean(axis=0) - early.mean(axis=0)) / np.sqrt(ve), np.nan
        )
    return ratio, drift


# ---------------------------------------------------------------------------------- front ends
def _as_list_scms(scms) -> list[TemporalSCM]:
    if isinstance(scms, TemporalSCM):
        return [scms]
    out = list(scms)
    for i, s in enumerate(out):
        if not isinstance(s, TemporalSCM):
            raise SpecError(None, f"scms[{i}]", type(s).__name__, "expected a TemporalSCM")
    return out


def _as_list_ivs(interventions, E: int) -> list[TemporalIntervention] | None:
    if interventions is None:
        return None
    if isinstance(interventions, TemporalIntervention):
        return [interventions] * E
    ivs = list(interventions)
    if len(ivs) != E:
        raise SpecError(None, "interventions", len(ivs), f"need one intervention per SCM ({E})")
    for i, iv in enumerate(ivs):
        if not isinstance(iv, TemporalIntervention):
            raise SpecError(
                None, f"interventions[{i}]", type(iv).__name__, "expected a TemporalIntervention"
            )
    return ivs


def _regime_path(
    scm: TemporalSCM, n_burn: int, n_ret: int, grid_len: float, rng_factory, p_scale: float
) -> np.ndarray | None:
    """Regime index path (n_burn + n_ret,) int8; ``grid_len`` = horizon in grid units for
    ``switch_at``, ``p_scale`` the grid step in time units (1 in discrete time)."""
    reg = scm.regime
    if scm.regimes is not None:
        ch = scm.regimes
        R = ch.n_regimes
        P = np.asarray(ch.transition, dtype=np.float64)
        if p_scale != 1.0:
            P = np.eye(R) + p_scale * (P - np.eye(R))
        init = np.full(R, 1.0 / R) if ch.initial is None else np.asarray(ch.initial, np.float64)
        cum = np.cumsum(P, axis=1)
        cum[:, -1] = 1.0
        c0 = np.cumsum(init)
        c0[-1] = 1.0
        u = rng_factory().random(n_burn + n_ret)
        path = np.zeros(n_burn + n_ret, dtype=np.int8)
        d = int(np.searchsorted(c0, u[0], side="right"))
        path[0] = d
        for t in range(1, u.size):
            d = int(np.searchsorted(cum[d], u[t], side="right"))
            path[t] = d
        return path
    if reg is None:
        return None
    path = np.zeros(n_burn + n_ret, dtype=np.int8)
    if reg.mode == "time":
        path[n_burn + int(round(reg.switch_at * grid_len)) :] = 1
    else:
        u = rng_factory().random(n_ret)
        path[n_burn:] = (np.cumsum(u < reg.p_switch * p_scale) % 2).astype(np.int8)
    return path


def _drivers(scm: TemporalSCM, t: np.ndarray) -> np.ndarray | None:
    """Driver values (len(t), N) or None."""
    if not scm.drivers:
        return None
    D = np.zeros((t.size, scm.n_vars))
    for d in scm.drivers:
        j = scm.index(d.node)
        if d.kind == "seasonal":
            D[:, j] += d.amplitude * np.sin(2.0 * np.pi * t / d.period + d.phase)
        else:
            D[:, j] += d.slope * t
    return D


def _group(scms: list[TemporalSCM], max_batch: int) -> list[np.ndarray]:
    groups = []
    for flag in (False, True):
        idx = np.array([e for e, s in enumerate(scms) if (s.n_regimes > 1) == flag], dtype=np.intp)
        for c in range(0, idx.size, max_batch):
            groups.append(idx[c : c + max_batch])
    return [g for g in groups if g.size]


def _simulate(
    scms,
    n_ret: int,
    interventions,
    seed,
    *,
    keys,
    pair_mode,
    n_burn: int,
    threshold: float,
    noise,
    return_noise: bool,
    max_batch: int,
    continuous: dict | None,
) -> TemporalBatch:
    scms = _as_list_scms(scms)
    E = len(scms)
    ivs = _as_list_ivs(interventions, E)
    if pair_mode not in ("counterfactual", "interventional"):
        raise SpecError(
            None, "pair_mode", pair_mode, "must be 'counterfactual' or 'interventional'"
        )
    keys = (
        [(e,) for e in range(E)]
        if keys is None
        else [tuple(int(v) for v in k) if isinstance(k, (tuple, list)) else (int(k),) for k in keys]
    )
    if len(keys) != E:
        raise SpecError(None, "keys", len(keys), f"need one key per SCM ({E})")
    if noise is not None and len(noise) != E:
        raise SpecError(None, "noise", len(noise), f"need one noise array per SCM ({E})")
    tgt_col = np.full(E, -1, dtype=np.intp)
    tgt_cols: list[list[int]] = [[] for _ in range(E)]
    if ivs is not None:
        for e, (s, iv) in enumerate(zip(scms, ivs, strict=True)):
            tgt_cols[e] = iv.columns(s)
            tgt_col[e] = tgt_cols[e][0]
    S = n_burn + n_ret
    Nmax = max(s.n_vars for s in scms)
    ct = continuous is not None
    dt = continuous["dt"] if ct else 1.0
    horizon = continuous["horizon"] if ct else float(n_ret)
    times = np.arange(n_ret) * dt
    grid_t = (np.arange(S) - n_burn) * dt  # time of each grid index

    fact = np.full((E, n_ret, Nmax), np.nan)
    intv = np.full((E, n_ret, Nmax), np.nan) if ivs is not None else None
    exog_out = np.full((E, S, Nmax), np.nan) if return_noise else None
    diverged = np.zeros(E, dtype=bool)
    div_step = np.full(E, -1, dtype=np.intp)
    window = np.full((E, 2), np.nan)
    int_mask = np.zeros((E, n_ret), dtype=bool)
    value = np.full(E, np.nan)
    level = np.full(E, np.nan)
    pos = np.full(E, np.nan)
    pct = np.full(E, np.nan)
    regime = np.zeros((E, n_ret), dtype=np.int8)
    regime_int = np.zeros((E, n_ret), dtype=np.int8)

    def exog_for(e: int, stream: int) -> np.ndarray:
        s = scms[e]
        sig = np.asarray(s.noise_scale, dtype=np.float64)
        if noise is not None and stream == S_NOISE:
            z = np.asarray(noise[e], dtype=np.float64)
            if z.shape != (S, s.n_vars):
                raise SpecError(
                    None, f"noise[{e}]", list(z.shape), f"must have shape {(S, s.n_vars)}"
                )
            base = z.copy()
        else:
            base = episode_stream(seed, keys[e], stream).standard_normal((S, s.n_vars)) * sig
        if ct:
            base = base * np.sqrt(dt)
        D = _drivers(s, grid_t)
        if D is not None:
            base = base + (s.ct_rate * dt * D if ct else D)
        return base

    for g in _group(scms, max_batch):
        sub = [scms[e] for e in g]
        P = _pack(sub)
        G = g.size

        # exogenous inputs and regime paths, per episode, internal layout (S, N, G)
        def arm_inputs(
            stream_noise: int, stream_reg: int, P: _Packed = P, g: np.ndarray = g, G: int = G
        ) -> tuple[np.ndarray, np.ndarray | None]:
            ex = np.zeros((S, P.N, G))
            reg = np.zeros((S, G), dtype=np.int8) if P.W0r is not None else None
            for c, e in enumerate(g):
                x = exog_for(e, stream_noise)
                ex[:, : P.n[c], c] = x[:, P.perm[c]]
                if reg is not None:
                    grid_len = horizon / dt if ct else n_ret
                    p = _regime_path(
                        scms[e],
                        n_burn,
                        n_ret,
                        grid_len,
                        lambda e=e: episode_stream(seed, keys[e], stream_reg),
                        dt if ct else 1.0,
                    )
                    if p is not None:
                        reg[:, c] = p
            return ex, reg

        ex_f, reg_f = arm_inputs(S_NOISE, S_REGIME)
        if return_noise:
            for c, e in enumerate(g):
                exog_out[e, :, P.perm[c]] = ex_f[:, : P.n[c], c].T
        runner = _runner(P, threshold, continuous, sub)
        Xf, dvf = runner(_Arm(ex_f, reg_f))
        for c, e in enumerate(g):
            fact[e, :, P.perm[c]] = Xf[n_burn:, : P.n[c], c].T
            if reg_f is not None:
                regime[e] = reg_f[n_burn:, c]
        div = dvf
        if ivs is not None:
            if pair_mode == "counterfactual":
                ex_i, reg_i = ex_f, reg_f
            else:
                ex_i, reg_i = arm_inputs(S_NOISE_IND, S_REGIME_IND)
            hard_on = np.zeros((S, G), dtype=bool)
            hard_val = np.zeros((S, G))
            soft_val = np.zeros((S, G))
            M = max(len(tgt_cols[e]) for e in g)
            tgt = np.full((G, M), -1, dtype=np.intp)
            kind = np.zeros(G, dtype=np.int8)
            for c, e in enumerate(g):
                iv = ivs[e]
                col = tgt_col[e]
                for m, cm in enumerate(tgt_cols[e]):
                    tgt[c, m] = int(np.flatnonzero(P.perm[c] == cm)[0])
                if ct:
                    a, b = iv.window_times(horizon)
                    on = (grid_t >= a - 1e-9 * dt) & (grid_t < b - 1e-9 * dt) & (grid_t >= 0)
                    t0 = int(np.ceil(a / dt - 1e-9))
                else:
                    a, b = iv.window_steps(n_ret)
                    on = (grid_t >= a) & (grid_t < b)
                    t0 = a
                window[e] = (a, b)
                int_mask[e] = on[n_burn:]
                ctx = _context(fact[e, :, col], t0)
                if iv.value is not None:
                    v = float(iv.value)
                elif dvf[c] >= 0:  # factual arm diverged: episode is flagged, no context
                    v = 0.0
                else:
                    L = draw_level(iv, ctx, episode_stream(seed, keys[e], S_VALUE))
                    v = L - float(ctx.mean()) if iv.type == "soft" else L
                prof = profile_values(iv, v, grid_t - a)
                if iv.type == "soft":
                    kind[c] = 2
                    soft_val[on, c] = v
                    lev = float(ctx.mean()) + v
                else:
                    kind[c] = 1
                    hard_val[on, c] = prof[on]
                    hard_on[:, c] = on
                    lev = float(prof[on].mean()) if iv.type == "time_varying" and on.any() else v
                value[e], level[e] = v, lev
                if dvf[c] < 0:
                    pos[e], pct[e] = positivity(ctx, lev, iv.band)
            Xi, dvi = runner(_Arm(ex_i, reg_i, hard_on, hard_val, soft_val, tgt, kind))
            for c, e in enumerate(g):
                intv[e, :, P.perm[c]] = Xi[n_burn:, : P.n[c], c].T
                if reg_i is not None:
                    regime_int[e] = reg_i[n_burn:, c]
            div = np.where(dvf >= 0, np.where(dvi >= 0, np.minimum(dvf, dvi), dvf), dvi)
        diverged[g] = div >= 0
        div_step[g] = np.where(div >= 0, div - n_burn, -1)
        if ivs is None or pair_mode == "counterfactual":
            regime_int[g] = regime[g]

    diag = _diagnostics(scms, fact)
    return TemporalBatch(
        names=[list(s.names) for s in scms],
        n_vars=np.array([s.n_vars for s in scms], dtype=np.intp),
        observed=[np.asarray(s.observed, dtype=np.intp) for s in scms],
        times=times,
        factual=fact,
        interventional=intv,
        pair_mode=pair_mode if ivs is not None else "observational",
        diverged=diverged,
        diverged_step=div_step,
        window=window,
        int_mask=int_mask,
        target=tgt_col,
        value=value,
        level=level,
        positivity=pos,
        percentile=pct,
        regime=regime,
        regime_int=regime_int,
        keys=keys,
        exog=exog_out,
        diagnostics=diag,
    )


def _runner(P: _Packed, threshold: float, continuous: dict | None, sub: list[TemporalSCM]):
    if continuous is None:
        return lambda arm: _run_discrete(P, arm, threshold)
    dt = continuous["dt"]
    theta = np.array([s.ct_rate for s in sub])
    delays = np.array(
        [[int(round(k * s.lag_time / dt)) for s in sub] for k in range(1, P.K + 1)], dtype=np.intp
    ).reshape(P.K, len(sub))
    return lambda arm: _run_continuous(P, arm, threshold, dt, theta, delays)


def _diagnostics(
    scms: list[TemporalSCM], fact: np.ndarray, window: int = 50
) -> dict[str, np.ndarray]:
    E, T, Nmax = fact.shape
    rad = np.array([companion_radius(s) for s in scms])
    obs = np.zeros((E, Nmax), dtype=bool)
    for e, s in enumerate(scms):
        obs[e, s.observed] = True
    w = min(window, T // 2)
    early, late = fact[:, :w], fact[:, -w:]
    with np.errstate(all="ignore"):
        ve = early.var(axis=1)
        ok = obs & np.isfinite(ve) & (ve > 0) & np.isfinite(late).all(axis=1)
        ratio = np.where(ok, late.var(axis=1) / np.where(ok, ve, 1.0), np.nan)
        drift = np.where(
            ok,
            np.abs(late.mean(axis=1) - early.mean(axis=1)) / np.sqrt(np.where(ok, ve, 1.0)),
            np.nan,
        )
    any_ok = ok.any(axis=1)
    vr = np.full(E, np.nan)
    dr = np.full(E, np.nan)
    if any_ok.any():
        vr[any_ok] = np.nanmedian(ratio[any_ok], axis=1)
        dr[any_ok] = np.nanmedian(drift[any_ok], axis=1)
    return {"spectral_radius": rad, "var_ratio": vr, "drift": dr}


def simulate(
    scms: TemporalSCM | Sequence[TemporalSCM],
    T: int,
    interventions: TemporalIntervention | Sequence[TemporalIntervention] | None = None,
    seed: int | np.random.SeedSequence = 0,
    *,
    keys: Sequence[Sequence[int] | int] | None = None,
    pair_mode: PairMode = "counterfactual",
    burn_in: int = 100,
    threshold: float = 1e3,
    noise: Sequence[np.ndarray] | None = None,
    return_noise: bool = False,
    max_batch: int = 4096,
) -> TemporalBatch:
    """Simulate discrete-time episodes (factual arm, and an intervened arm if asked).

    Parameters
    ----------
    scms : TemporalSCM or sequence of TemporalSCM
        One SCM per episode (the same object may repeat).
    T : int
        Retained steps per episode (after ``burn_in`` discarded steps started from zeros).
    interventions : TemporalIntervention, sequence of them, or None
        One per episode (a single one is applied to every episode); None simulates only the
        factual arm.
    seed : int or numpy.random.SeedSequence
        Base seed of the per-episode streams.
    keys : sequence, optional
        Episode keys (default ``(e,)``); an episode's output depends only on its SCM,
        intervention, ``T``, ``burn_in``, ``seed`` and key, never on the batch.
    pair_mode : {"counterfactual", "interventional"}
        Shared or independent exogenous noise for the intervened arm (see module docstring).
    burn_in : int, default=100
    threshold : float, default=1e3
        Divergence threshold on ``|x|``.
    noise : sequence of ndarray of shape (burn_in + T, N_e), optional
        Exogenous input to use instead of drawn noise (already scaled; drivers are still
        added).  Used by both arms in counterfactual mode.
    return_noise : bool
        Keep the factual exogenous input in ``TemporalBatch.exog``.
    max_batch : int
        Largest number of episodes simulated together (memory bound only).

    Returns
    -------
    TemporalBatch
        Arrays ``(E, T, N_max)``; see :class:`TemporalBatch`.
    """
    if int(T) < 1 or int(burn_in) < 0:
        raise SpecError(
            None,
            "T" if int(T) < 1 else "burn_in",
            T if int(T) < 1 else burn_in,
            "T must be >= 1 and burn_in >= 0",
        )
    return _simulate(
        scms,
        int(T),
        interventions,
        seed,
        keys=keys,
        pair_mode=pair_mode,
        n_burn=int(burn_in),
        threshold=threshold,
        noise=noise,
        return_noise=return_noise,
        max_batch=max_batch,
        continuous=None,
    )


def simulate_continuous(
    scms: TemporalSCM | Sequence[TemporalSCM],
    horizon: float,
    interventions: TemporalIntervention | Sequence[TemporalIntervention] | None = None,
    seed: int | np.random.SeedSequence = 0,
    *,
    dt: float = 0.01,
    burn_in: float = 5.0,
    keys: Sequence[Sequence[int] | int] | None = None,
    pair_mode: PairMode = "counterfactual",
    threshold: float = 1e3,
    noise: Sequence[np.ndarray] | None = None,
    return_noise: bool = False,
    max_batch: int = 512,
) -> TemporalBatch:
    """Simulate continuous-time episodes with Euler–Maruyama on a fine grid.

    The retained fine grid is ``t = 0, dt, ..., horizon - dt`` (``round(horizon / dt)``
    points) after ``burn_in`` time units started from zeros.  Observe it on a regular,
    jittered or Poisson schedule with :func:`causalarena.generator.temporal.observe.observe`.  The
    intervention window is ``[start * horizon, end * horizon)`` in time units (a hard or
    time-varying intervention clamps the target at every fine step in the window; a soft one
    adds ``delta`` to the drift target ``f``).

    Parameters
    ----------
    horizon : float
        Retained duration (time units).
    dt : float, default=0.01
        Fine-grid step; every SCM needs ``ct_rate * dt <= 1`` (a larger step overshoots the
        mean-reverting drift, so the explicit Euler–Maruyama path oscillates with a growing
        sign-alternating error).
    burn_in : float, default=5.0
        Discarded duration (time units); should exceed ``max_lag * lag_time``.
    noise : sequence of ndarray of shape (n_burn + n_ret, N_e), optional
        Standard-normal-scaled increments ``sigma * z`` per fine step (``sqrt(dt)`` is applied
        by the simulator); replaces the drawn noise.
    Other parameters
        As in :func:`simulate`.

    Returns
    -------
    TemporalBatch
        ``times`` is the fine grid; arrays ``(E, n_ret, N_max)``.

    Raises
    ------
    SpecError
        ``dt``/``horizon``/``burn_in`` out of range, or ``ct_rate * dt > 1`` for an SCM.
    """
    if not (dt > 0 and horizon > dt and burn_in >= 0):
        raise SpecError(None, "dt", dt, "need dt > 0, horizon > dt and burn_in >= 0")
    for e, s in enumerate(_as_list_scms(scms)):
        if s.ct_rate * dt > 1.0:
            raise SpecError(
                f"scms[{e}]",
                "ct_rate",
                s.ct_rate,
                f"ct_rate * dt = {s.ct_rate * dt:g} > 1: the Euler–Maruyama step overshoots the "
                f"relaxation and yields oscillating paths; use dt <= {1.0 / s.ct_rate:g}",
            )
    n_ret = int(round(horizon / dt))
    n_burn = int(round(burn_in / dt))
    return _simulate(
        scms,
        n_ret,
        interventions,
        seed,
        keys=keys,
        pair_mode=pair_mode,
        n_burn=n_burn,
        threshold=threshold,
        noise=noise,
        return_noise=return_noise,
        max_batch=max_batch,
        continuous={"dt": float(dt), "horizon": float(horizon)},
    )
