"""dot-regimes (DoTime's dot-RegimeSwitch-v1 design), R-regime SCMs with per-regime graphs,
and DoTime's intervention prior (1-2 targets; step / ramp / sine / trajectory profiles)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from causalarena.errors import SpecError
from causalarena.generator.temporal import suites as S
from causalarena.generator.temporal.draw import (
    DOTIME_PROFILES,
    draw_intervention_dotime,
    draw_regimes_scm,
)
from causalarena.generator.temporal.simulate import apply_mechanism, profile_values, simulate
from causalarena.generator.temporal.storage import decode_row, episodes_to_arrow
from causalarena.spec_temporal import TemporalIntervention, TemporalSCM


@pytest.fixture(scope="module")
def regime_eps():
    s = S.get_temporal_suite("dot-regimes")
    idx = s.public_indices("mini")[:45]
    return s, idx, S.generate_suite_episodes(s, idx)


def test_alias_and_design_counts():
    s = S.get_temporal_suite("dot-RegimeSwitch-v1")
    assert s.name == "dot-regimes" and s.dotime == "dot-RegimeSwitch-v1" and s.T == 200
    assert s.scales["full"] == 9_999 and s.scales["mini"] <= 108
    full = Counter(s.cell(i)["n_regimes"] for i in s.public_indices("full"))
    assert full == {2: 3_333, 3: 3_333, 5: 3_333}
    mini = Counter(s.cell(i)["n_regimes"] for i in s.public_indices("mini"))
    assert mini == {2: 33, 3: 33, 5: 33}
    res = Counter(s.cell(i)["n_regimes"] for i in s.reserved_indices("full"))
    assert res == full  # every regime count keeps half its pool public
    assert s.options["pair_mode"] == "interventional" and s.options["query"] == "last"
    assert any("regime_path" in d for d in s.deviations)


def test_episodes_carry_their_regime_design(regime_eps):
    s, idx, eps = regime_eps
    seen = Counter()
    for i, e in zip(idx, eps, strict=True):
        R = s.cell(i)["n_regimes"]
        seen[R] += 1
        assert e.scm.n_regimes == R and e.structure == f"regime_{R}"
        assert e.regime_path.shape == (s.T,) and e.regime_path_int.shape == (s.T,)
        assert e.regime_path.min() >= 0 and e.regime_path.max() < R
        G0, GL = e.scm.regime_graphs()
        a = e.scm.arrays()
        np.testing.assert_array_equal(G0.any(0), a["A0"] != 0)  # union graph released
        np.testing.assert_array_equal(GL.any(0), a["A_lag"] != 0)
        assert list(e.query.times) == [s.T - 1] and e.query.variable not in e.intervention.targets
        assert e.pair_mode == "interventional" and not e.scm.hidden
    assert set(seen) == {2, 3, 5}
    # per-regime graphs really differ, and the arms have their own regime paths
    assert sum(len({g.tobytes() for g in e.scm.regime_graphs()[0]}) > 1 for e in eps) > 30
    assert sum(not np.array_equal(e.regime_path, e.regime_path_int) for e in eps) > 30
    assert np.mean([len(set(e.regime_path.tolist())) for e in eps]) > 1.5  # paths do switch


def _reference_factual(scm: TemporalSCM, exog: np.ndarray, path: np.ndarray) -> np.ndarray:
    """Step-by-step recursion with regime ``path[t]``'s own graph, weights and mechanisms."""
    S_, N = exog.shape
    K = scm.max_lag
    X = np.zeros((S_, N))
    order = scm.topological_order()
    for t in range(S_):
        a = scm.arrays(int(path[t]))
        for j in order:
            pre = a["bias"][j] + sum(a["W0"][i, j] * X[t, i] for i in range(N))
            for k in range(1, K + 1):
                if t - k >= 0:
                    pre += sum(a["W_lag"][k - 1, i, j] * X[t - k, i] for i in range(N))
            X[t, j] = apply_mechanism(_mech(a, j), pre) + exog[t, j]
    return X


def _mech(a, j):
    from causalarena.spec_temporal import MECHANISMS

    return MECHANISMS[int(a["mech"][j])]


@pytest.mark.parametrize("R", [2, 3, 5])
def test_trajectory_follows_the_active_regimes_graph(R):
    """The factual arm equals a naive recursion that uses, at every step, the graph, weights
    and mechanisms of the regime the released path names (burn-in 0: the whole path is seen)."""
    rng = np.random.default_rng(R)
    checked = 0
    for k in range(6):
        scm = draw_regimes_scm(rng, R, n_vars=5, max_lag=2)
        b = simulate(scm, 120, None, 11 + k, burn_in=0, return_noise=True)
        if b.diverged[0]:
            continue
        path = b.regime[0]
        ref = _reference_factual(scm, b.exog[0], path)
        np.testing.assert_allclose(b.factual[0], ref, rtol=1e-9, atol=1e-9)
        # using regime 0's parameters throughout gives a different trajectory
        if len(set(path.tolist())) > 1:
            wrong = _reference_factual(scm, b.exog[0], np.zeros_like(path))
            assert not np.allclose(b.factual[0], wrong)
        checked += 1
    assert checked >= 4


def test_regime_paths_follow_the_transition_matrices(regime_eps):
    """Pooled over episodes, stays match sum_t P[d_{t-1}, d_{t-1}] (binomial z < 4), and the
    mean stay probability is DoTime's Dirichlet(9, 0.5...) diagonal mean 9 / (9 + 0.5 (R-1))."""
    _, _, eps = regime_eps
    stays = expected = var = 0.0
    diag = {2: [], 3: [], 5: []}
    for e in eps:
        P = np.asarray(e.scm.regimes.transition)
        diag[P.shape[0]] += list(np.diag(P))
        for path in (e.regime_path, e.regime_path_int):
            prev, nxt = path[:-1], path[1:]
            p = P[prev, prev]
            stays += float(np.sum(prev == nxt))
            expected += float(p.sum())
            var += float((p * (1 - p)).sum())
    assert abs(stays - expected) / np.sqrt(var) < 4
    for R, d in diag.items():
        assert abs(np.mean(d) - 9 / (9 + 0.5 * (R - 1))) < 0.05


def test_release_columns_hold_paths_and_per_regime_graphs(regime_eps):
    _, _, eps = regime_eps
    rows = [decode_row(r) for r in episodes_to_arrow(eps[:6]).to_pylist()]
    for e, r in zip(eps[:6], rows, strict=True):
        R, n = e.scm.n_regimes, len(e.variables)
        assert r["n_regimes"] == R and r["structure"] == f"regime_{R}"
        np.testing.assert_array_equal(r["regime_path"], e.regime_path)
        np.testing.assert_array_equal(r["regime_path_int"], e.regime_path_int)
        assert r["regime_adjacency_inst"].shape == (R, n, n)
        assert r["regime_adjacency_lag"].shape == (R, e.scm.max_lag, n, n)
        np.testing.assert_array_equal(r["regime_adjacency_inst"].any(0), r["adjacency_inst"] != 0)
        assert r["intervention_targets"] == e.intervention.targets
    g = S.get_temporal_suite("dot-identifiability")
    row = episodes_to_arrow(S.generate_suite_episodes(g, g.public_indices("mini")[:1])).to_pylist()
    assert row[0]["n_regimes"] == 1 and row[0]["regime_path"] is None


def test_spec_refuses_inconsistent_regimes():
    scm = draw_regimes_scm(np.random.default_rng(0), 3, n_vars=4, max_lag=1)
    d = scm.model_dump()
    bad = {**d, "A0": np.zeros((4, 4), dtype=int).tolist()}
    if np.any(scm.arrays()["A0"]):
        with pytest.raises(SpecError, match="union of the regime graphs"):
            TemporalSCM(**bad)
    d2 = scm.model_dump()
    d2["regimes"]["transition"][0] = [0.5, 0.6, -0.1]
    with pytest.raises(SpecError, match="probabilities"):
        TemporalSCM(**d2)
    assert TemporalSCM.from_json(scm.to_json()) == scm
    with pytest.raises(SpecError, match=">= 2 regimes"):
        draw_regimes_scm(np.random.default_rng(0), 1)


# ------------------------------------------------------------------ DoTime intervention prior
def test_dotime_intervention_prior_statistics():
    rng = np.random.default_rng(5)
    scm = draw_regimes_scm(rng, 2, n_vars=6, max_lag=1)
    ivs = [draw_intervention_dotime(rng, scm, 200) for _ in range(3000)]
    types = Counter(iv.type for iv in ivs)
    assert (
        stats.chisquare(
            [types[t] for t in ("hard", "soft", "time_varying")], [1500, 900, 600]
        ).pvalue
        > 0.001
    )
    n_t = Counter(len(iv.targets) for iv in ivs)
    assert set(n_t) == {1, 2} and abs(n_t[2] / 3000 - 0.5) < 0.04
    prof = Counter(iv.profile for iv in ivs if iv.type == "time_varying")
    assert set(prof) == set(DOTIME_PROFILES) and stats.chisquare(list(prof.values())).pvalue > 0.001
    L = np.array([round((iv.end - iv.start) * 200) for iv in ivs])
    st = np.array([round(iv.start * 200) for iv in ivs])
    assert L.min() >= 10 and L.max() <= 190 and st.min() >= 10 and (st + L).max() <= 200
    assert stats.kstest(L, stats.randint(10, 191).cdf).pvalue > 0.001
    hard = [iv.value for iv in ivs if iv.type == "hard"]
    soft = [iv.value for iv in ivs if iv.type == "soft"]
    assert stats.kstest(hard, stats.norm(0, 2).cdf).pvalue > 0.001
    assert stats.kstest(soft, stats.norm(0, 1).cdf).pvalue > 0.001


def test_generic_suite_uses_two_targets_and_step_trajectory_profiles():
    s = S.get_temporal_suite("dot-generic")
    idx = s.public_indices("full")[:160]
    eps = S.generate_suite_episodes(s, idx)
    n_t = Counter(len(e.intervention.targets) for e in eps)
    assert set(n_t) == {1, 2}
    prof = Counter(e.intervention.profile for e in eps if e.intervention.type == "time_varying")
    assert {"step", "trajectory"} <= set(prof)
    for e in eps:
        iv = e.intervention
        assert e.query.variable not in iv.targets or e.query.is_target
        if iv.type == "soft":
            continue
        # every target is clamped to v(t) inside the window, in the released intervened arm
        t = np.arange(e.onset, e.window_end)
        want = profile_values(iv, float(iv.value), (t - e.onset).astype(float))
        for name in iv.targets:
            np.testing.assert_allclose(e.x_int[t, e.variables.index(name)], want, rtol=1e-12)
    w = S.get_temporal_suite("dot-wide")
    assert w.options["iv_prior"] == "dotime"


def test_two_target_soft_shift_moves_both_targets():
    scm = draw_regimes_scm(np.random.default_rng(2), 2, n_vars=4, max_lag=1)
    a, b = scm.names[0], scm.names[3]
    iv = TemporalIntervention(target=a, extra_targets=[b], type="soft", value=5.0, start=0.5)
    one = TemporalIntervention(target=a, type="soft", value=5.0, start=0.5)
    both = simulate(scm, 60, iv, 3)
    only = simulate(scm, 60, one, 3)
    j = scm.index(b)
    assert np.all(both.interventional[0, 30:, j] - both.factual[0, 30:, j] != 0)
    assert not np.allclose(both.interventional[0, 30:, j], only.interventional[0, 30:, j])
    with pytest.raises(SpecError, match="distinct"):
        TemporalIntervention(target=a, extra_targets=[a])
    with pytest.raises(SpecError, match="unknown variable"):
        simulate(scm, 10, TemporalIntervention(target=a, extra_targets=["nope"]), 0)


def test_zarr_store_holds_regime_paths_and_graphs(regime_eps, tmp_path):
    pytest.importorskip("zarr")
    pytest.importorskip("xarray")
    import pyarrow.parquet as pq

    from causalarena.generator.temporal.storage import open_zarr, write_zarr

    _, _, eps = regime_eps
    shard = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(episodes_to_arrow(eps[:9]), shard)
    write_zarr(tmp_path / "r.zarr", [shard])
    ds = open_zarr(tmp_path / "r.zarr")
    assert int(ds.sizes["regime"]) == 5
    for k, e in enumerate(eps[:9]):
        R, n = e.scm.n_regimes, len(e.variables)
        assert int(ds["n_regimes"][k]) == R
        np.testing.assert_array_equal(ds["regime_path"][k].values, e.regime_path)
        np.testing.assert_array_equal(ds["regime_path_int"][k].values, e.regime_path_int)
        G0 = ds["regime_adjacency_inst"][k].values
        np.testing.assert_array_equal(G0[:R, :n, :n], e.scm.regime_graphs()[0])
        assert not G0[R:].any()
        assert json.loads(str(ds["intervention_targets"][k].values)) == e.intervention.targets


def test_continuous_time_regime_chain_uses_the_step_scaled_transitions():
    """In continuous time a fine step of dt uses I + dt (P - I): switches per time unit match
    the one-time-unit chain, not one switch chance per fine step."""
    from causalarena.generator.temporal.simulate import simulate_continuous

    scm = draw_regimes_scm(np.random.default_rng(4), 3, n_vars=3, max_lag=1)
    P = np.asarray(scm.regimes.transition)
    b = simulate_continuous([scm] * 40, 50.0, None, 1, dt=0.05, keys=list(range(40)))
    path = b.regime
    assert path.min() >= 0 and path.max() <= 2 and np.isfinite(b.factual).all()
    switches = np.sum(path[:, 1:] != path[:, :-1]) / (40 * 50.0)  # per time unit
    w, v = np.linalg.eig(P.T)
    pi = np.real(v[:, np.argmin(np.abs(w - 1))])
    pi /= pi.sum()
    expected = float(pi @ (1 - np.diag(P)))  # stationary leave rate per time unit
    assert 0.6 * expected < switches < 1.5 * expected
    # one switch chance per fine step (no dt scaling) would switch 1 / dt = 20 times as often
    assert switches < 0.2 * expected / 0.05
