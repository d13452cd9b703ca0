"""Reference baselines for the temporal suites (effect track and graph-recovery track).

Effect track (each ``predict(view)`` sees only a :class:`~causalarena.eval.temporal.ModelInput`):

``Oracle``       regenerates a public episode from its id ``suite/version/index`` with the
                 generator and reads the intervened arm at the query rows (checks that the
                 stored data is reproducible; error 0 up to float64 rounding).  No privilege:
                 any model could do this for the public half, none for the reserved half.
``Zero``         predicts 0.
``PreOnsetMean`` the query variable's context mean.
``LastValue``    the query variable's last observed context value.
``VARBaseline``  a ridge VAR(p) (``p = min(max_lag, 3)``) fitted on the context (missing cells
                 forward-filled), rolled forward from onset to the last query row without
                 noise, with the intervention imposed (clamped or shifted target).
                 Irregular schedules are treated as if rows were equally spaced.
``BackdoorOLS``  for each query at delay ``d = row - onset``: OLS of ``Y_t`` on ``A_{t-d}`` plus
                 the adjustment set from the graph (instantaneous parents of ``A`` at
                 ``t - d`` and ``A``'s own and its lagged parents' values at ``t - d - 1``);
                 prediction ``mean(Y) + beta_d (L - mean(A))`` with ``L`` the intervention
                 level (``mean(A) + delta`` for soft).  A crude single-delay estimator: it
                 ignores the accumulation of a sustained intervention through feedback.
``NaiveOLS``     the same without adjustment.
``IV2SLS``       two-stage least squares with an instrument from the graph (an observed parent
                 of ``A`` with no edge into ``Y``); if there is none, or the first-stage F
                 statistic is below 10 (weak instrument), it falls back to ``NaiveOLS`` and
                 counts the episode in ``info["weak_or_missing_instrument"]``.

Graph track (:func:`graph_track`): the true instantaneous and lagged adjacency among released
variables against a prediction from the full factual arm: ``"var_ttest"`` (lagged edges where a
VAR coefficient has ``|t| > 3``; no instantaneous edges) or ``"pcmciplus"`` (tigramite's
PCMCI+ with partial correlation, an optional GPL-3.0 extra).  Instantaneous graphs are scored
with :func:`causalarena.eval.metrics.score_graph`; lagged tensors with precision, recall, F1
and SHD (missing + extra) over ``(lag, i, j)`` entries up to the true ``K``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the view the effect harness (eval layer) hands to predict()
    from causalarena.eval.temporal import ModelInput


def _ffill(x: np.ndarray) -> np.ndarray:
    x = np.array(x, dtype=np.float64, copy=True)
    for j in range(x.shape[1]):
        col = x[:, j]
        ok = np.isfinite(col)
        if not ok.any():
            x[:, j] = 0.0
            continue
        idx = np.where(ok, np.arange(len(col)), 0)
        np.maximum.accumulate(idx, out=idx)
        first = int(np.argmax(ok))
        col = col[idx]
        col[:first] = col[first]
        x[:, j] = col
    return x


def _qctx(v: ModelInput) -> np.ndarray:
    c = v.x_context[:, v.query_column]
    return c[np.isfinite(c)]


class Oracle:
    """Control that regenerates a *public* episode from its id and reads the intervened arm.

    It has no privilege: it shows that a public suite is reproducible from ``(suite, version,
    index)`` by anyone holding the package, inside the sandbox too, and it fails on episodes it
    cannot regenerate (the reserved half, drawn from a secret key).
    """

    name = "oracle"

    def predict(self, v: ModelInput) -> np.ndarray:
        from causalarena.generator.temporal.suites import (
            generate_suite_episodes,
            get_temporal_suite,
        )

        suite, version, index = v.episode_id.rsplit("/", 2)
        s = get_temporal_suite(suite)
        if s.version != version:
            raise ValueError(f"episode {v.episode_id}: the package has {suite} {s.version}")
        ep = generate_suite_episodes(s, [int(index)])[0]
        return ep.x_int[np.asarray(v.query_times), int(v.query_column)]


class Zero:
    name = "zero"

    def predict(self, v: ModelInput) -> np.ndarray:
        return np.zeros(len(v.query_times))


class PreOnsetMean:
    name = "pre_onset_mean"

    def predict(self, v: ModelInput) -> np.ndarray:
        c = _qctx(v)
        return np.full(len(v.query_times), float(c.mean()) if c.size else 0.0)


class LastValue:
    name = "last_value"

    def predict(self, v: ModelInput) -> np.ndarray:
        c = _qctx(v)
        return np.full(len(v.query_times), float(c[-1]) if c.size else 0.0)


def _ridge(X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    p = X.shape[1]
    pen = lam * np.eye(p)
    pen[0, 0] = 0.0  # intercept unpenalised
    return np.linalg.solve(X.T @ X + pen, X.T @ y)


class VARBaseline:
    """Ridge VAR(p) on the context, rolled forward with the intervention imposed."""

    name = "var"

    def __init__(self, max_p: int = 3, lam: float = 1.0):
        self.max_p, self.lam = max_p, lam

    def predict(self, v: ModelInput) -> dict[str, np.ndarray]:
        x = _ffill(v.x_context)
        n, N = x.shape
        p = max(1, min(v.max_lag, self.max_p, max(1, (n - 2) // 2)))
        rows = n - p
        if rows < 2:
            return {"mean": LastValue().predict(v)}
        X = np.ones((rows, 1 + N * p))
        for k in range(1, p + 1):
            X[:, 1 + (k - 1) * N : 1 + k * N] = x[p - k : n - k]
        Y = x[p:]
        B = _ridge(X, Y, self.lam)
        resid_sd = np.std(Y - X @ B, axis=0)
        a = v.variables.index(v.intervention["target"])
        last = int(np.max(v.query_times))
        path = np.vstack([x, np.zeros((last + 1 - n, N))])
        vals, active = v.intervention_path(np.arange(n, last + 1))
        soft = v.intervention["type"] == "soft"
        for t in range(n, last + 1):
            z = np.concatenate([[1.0]] + [path[t - k] for k in range(1, p + 1)])
            path[t] = z @ B
            if active[t - n]:
                path[t, a] = path[t, a] + vals[t - n] if soft else vals[t - n]
        mean = path[np.asarray(v.query_times), v.query_column]
        sd = resid_sd[v.query_column] * np.sqrt(1.0 + np.asarray(v.query_offsets, float))
        return {"mean": mean, "lower": mean - 1.645 * sd, "upper": mean + 1.645 * sd, "level": 0.9}


class _DelayRegression:
    adjust = False
    name = "naive_ols"

    def __init__(self):
        self.info: dict[str, int] = {}

    def _level(self, v: ModelInput, a_mean: float) -> float:
        iv = v.intervention
        return a_mean + float(iv["value"]) if iv["type"] == "soft" else float(iv["value"])

    def _design(self, v: ModelInput, x: np.ndarray, a: int, d: int):
        n = x.shape[0]
        s = np.arange(max(d, 1), n)  # time of A
        t = s + 0  # outcome index = s + d
        t = s + d
        keep = t < n
        s, t = s[keep], t[keep]
        cols = [x[s, a]]
        if self.adjust:
            A0, AL = v.adjacency_inst, v.adjacency_lag
            for j in np.flatnonzero(A0[:, a]):
                cols.append(x[s, j])
            lag_par = set(np.flatnonzero(AL.sum(axis=0)[:, a]).tolist()) | {a}
            for j in sorted(lag_par):
                cols.append(x[s - 1, j])
        return np.column_stack(cols), x[t, v.query_column]

    def _beta(self, v: ModelInput, x: np.ndarray, a: int, d: int) -> float | None:
        D, y = self._design(v, x, a, d)
        if D.shape[0] < D.shape[1] + 3:
            return None
        X = np.column_stack([np.ones(len(y)), D])
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        return float(coef[1])

    def predict(self, v: ModelInput) -> np.ndarray:
        x = _ffill(v.x_context)
        a = v.variables.index(v.intervention["target"])
        y_mean = float(np.mean(x[:, v.query_column]))
        a_mean = float(np.mean(x[:, a]))
        L = self._level(v, a_mean)
        out = np.full(len(v.query_times), y_mean)
        if a == v.query_column:
            vals, active = v.intervention_path(v.query_times)
            return np.where(
                active, vals if v.intervention["type"] != "soft" else y_mean + vals, y_mean
            )
        for k, q in enumerate(v.query_times):
            d = int(min(q - v.onset, x.shape[0] // 4))
            b = self._beta(v, x, a, d)
            if b is not None and np.isfinite(b):
                out[k] = y_mean + b * (L - a_mean)
        return out


class NaiveOLS(_DelayRegression):
    name = "naive_ols"
    adjust = False


class BackdoorOLS(_DelayRegression):
    name = "backdoor_ols"
    adjust = True


class IV2SLS(_DelayRegression):
    """2SLS with an instrument from the graph; weak (F < 10) or missing -> naive OLS."""

    name = "iv_2sls"
    f_min = 10.0

    def _instrument(self, v: ModelInput, a: int) -> int | None:
        A0, AL = v.adjacency_inst, v.adjacency_lag
        into_y = (A0[:, v.query_column] != 0) | (AL[:, :, v.query_column].sum(axis=0) != 0)
        for z in np.flatnonzero(A0[:, a]):
            if not into_y[z] and z != v.query_column:
                return int(z)
        return None

    def _beta(self, v: ModelInput, x: np.ndarray, a: int, d: int) -> float | None:
        z = self._instrument(v, a)
        n = x.shape[0]
        s = np.arange(1, n - d)
        if z is None or s.size < 10:
            self.info["weak_or_missing_instrument"] = (
                self.info.get("weak_or_missing_instrument", 0) + 1
            )
            return super()._beta(v, x, a, d)
        Z = np.column_stack([np.ones(s.size), x[s, z]])
        A = x[s, a]
        g, *_ = np.linalg.lstsq(Z, A, rcond=None)
        r = A - Z @ g
        sz = np.sum((x[s, z] - x[s, z].mean()) ** 2)
        se = np.sqrt(np.sum(r**2) / max(s.size - 2, 1) / max(sz, 1e-12))
        F = float((g[1] / se) ** 2) if se > 0 else 0.0
        if F < self.f_min:
            self.info["weak_or_missing_instrument"] = (
                self.info.get("weak_or_missing_instrument", 0) + 1
            )
            return super()._beta(v, x, a, d)
        self.info["strong_instrument"] = self.info.get("strong_instrument", 0) + 1
        ahat = Z @ g
        X = np.column_stack([np.ones(s.size), ahat])
        coef, *_ = np.linalg.lstsq(X, x[s + d, v.query_column], rcond=None)
        return float(coef[1])


EFFECT_BASELINES = {
    c.name: c
    for c in (Oracle, Zero, PreOnsetMean, LastValue, VARBaseline, BackdoorOLS, NaiveOLS, IV2SLS)
}


# ---------------------------------------------------------------------------------- graph track
def _var_ttest(x: np.ndarray, tau_max: int, thr: float = 3.0):
    x = _ffill(x)
    n, N = x.shape
    p = tau_max
    X = np.ones((n - p, 1 + N * p))
    for k in range(1, p + 1):
        X[:, 1 + (k - 1) * N : 1 + k * N] = x[p - k : n - k]
    Y = x[p:]
    XtX = X.T @ X + 1e-6 * np.eye(X.shape[1])
    B = np.linalg.solve(XtX, X.T @ Y)
    inv = np.linalg.inv(XtX)
    s2 = np.sum((Y - X @ B) ** 2, axis=0) / max(n - p - X.shape[1], 1)
    t = B / np.sqrt(np.outer(np.diag(inv), s2) + 1e-300)
    AL = np.zeros((p, N, N), dtype=np.int8)
    for k in range(p):
        AL[k] = np.abs(t[1 + k * N : 1 + (k + 1) * N]) > thr
    return np.zeros((N, N), dtype=np.int8), AL


def _pcmciplus(x: np.ndarray, tau_max: int, alpha: float = 0.01):
    from tigramite import data_processing as pp
    from tigramite.independence_tests.parcorr import ParCorr
    from tigramite.pcmci import PCMCI

    x = _ffill(x)
    N = x.shape[1]
    pc = PCMCI(dataframe=pp.DataFrame(x), cond_ind_test=ParCorr(), verbosity=0)
    res = pc.run_pcmciplus(tau_min=0, tau_max=tau_max, pc_alpha=alpha)
    g = res["graph"]
    A0 = np.zeros((N, N), dtype=np.int8)
    AL = np.zeros((tau_max, N, N), dtype=np.int8)
    for i in range(N):
        for j in range(N):
            if i != j and g[i, j, 0] in ("-->", "o-o", "x-x"):
                A0[i, j] = 1
            for k in range(1, tau_max + 1):
                if g[i, j, k] == "-->":
                    AL[k - 1, i, j] = 1
    # an undirected contemporaneous pair is kept in both directions (scored as undirected)
    return A0, AL
