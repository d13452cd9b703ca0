"""Tests of the temporal SCM generator core (causalarena.generator.temporal)."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.errors import SpecError
from causalarena.generator.temporal import (
    STRUCTURES,
    TemporalIntervention,
    TemporalSCM,
    apply_missingness,
    companion_radius,
    draw_intervention,
    draw_temporal_scm,
    generate_pairs,
    identification_structure,
    mcar_mask,
    observation_times,
    observe,
    select_query,
    simulate,
    simulate_continuous,
    structure_graph,
)


def linear_scm(N, A0=None, A_lag=None, W0=None, W_lag=None, sigma=1.0, **kw):
    K = 1 if W_lag is None else np.asarray(W_lag).shape[0]
    W0 = np.zeros((N, N)) if W0 is None else np.asarray(W0, dtype=float)
    W_lag = np.zeros((K, N, N)) if W_lag is None else np.asarray(W_lag, dtype=float)
    return TemporalSCM(
        names=[f"X{i + 1}" for i in range(N)],
        max_lag=K,
        A0=(W0 != 0).astype(int),
        A_lag=(W_lag != 0).astype(int),
        W0=W0,
        W_lag=W_lag,
        bias=[0.0] * N,
        mechanisms=["linear"] * N,
        noise_scale=[sigma] * N,
        **kw,
    )


def two_var():
    # X1_t = 0.5 X1_{t-1} + e1 ; X2_t = 2 X1_t + e2
    return linear_scm(2, W0=[[0, 2.0], [0, 0]], W_lag=[[[0.5, 0], [0, 0]]])


T = 10
NOISE = np.random.default_rng(123).normal(size=(T, 2))


def hand_two_var(x1_rule):
    """Roll the two-variable system by hand; x1_rule(t, natural_x1) gives X1_t."""
    x1 = np.zeros(T)
    x2 = np.zeros(T)
    prev = 0.0
    for t in range(T):
        x1[t] = x1_rule(t, prev)
        x2[t] = 2.0 * x1[t] + NOISE[t, 1]
        prev = x1[t]
    return x1, x2


def run2(iv):
    return simulate(two_var(), T, iv, seed=0, burn_in=0, noise=[NOISE])


# ------------------------------------------------------------------ hand-computed trajectories
def test_factual_matches_hand_computation():
    b = run2(None)
    x1, x2 = hand_two_var(lambda t, prev: 0.5 * prev + NOISE[t, 0])
    # explicit first steps
    assert b.factual[0, 0, 0] == pytest.approx(NOISE[0, 0])
    assert b.factual[0, 1, 0] == pytest.approx(0.5 * NOISE[0, 0] + NOISE[1, 0])
    assert b.factual[0, 1, 1] == pytest.approx(2 * (0.5 * NOISE[0, 0] + NOISE[1, 0]) + NOISE[1, 1])
    np.testing.assert_allclose(b.factual[0, :, 0], x1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.factual[0, :, 1], x2, rtol=0, atol=1e-12)


def test_hard_intervention_hand_computed():
    iv = TemporalIntervention(target="X1", type="hard", value=3.0, start=0.4)  # t0 = 4
    b = run2(iv)
    x1, x2 = hand_two_var(lambda t, prev: 3.0 if t >= 4 else 0.5 * prev + NOISE[t, 0])
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)
    np.testing.assert_allclose(b.interventional[0, :, 1], x2, atol=1e-12)
    assert b.interventional[0, 4, 1] == pytest.approx(6.0 + NOISE[4, 1])
    assert b.int_mask[0].tolist() == [False] * 4 + [True] * 6
    assert b.value[0] == 3.0


def test_soft_intervention_keeps_noise_and_mechanism():
    iv = TemporalIntervention(target="X1", type="soft", value=1.5, start=0.4)
    b = run2(iv)
    x1, x2 = hand_two_var(lambda t, prev: 0.5 * prev + NOISE[t, 0] + (1.5 if t >= 4 else 0.0))
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)
    np.testing.assert_allclose(b.interventional[0, :, 1], x2, atol=1e-12)
    # the shifted node still follows its mechanism and noise (not constant, not hard-set)
    diff = b.interventional[0, 4:, 0] - 0.5 * b.interventional[0, 3:-1, 0] - NOISE[4:, 0]
    np.testing.assert_allclose(diff, 1.5, atol=1e-12)
    assert np.std(b.interventional[0, 4:, 0]) > 0.1


def test_ramp_and_sine_time_varying():
    iv = TemporalIntervention(
        target="X1", type="time_varying", profile="ramp", value=1.0, slope=0.5, start=0.4, end=0.8
    )
    b = run2(iv)
    rule = lambda t, prev: 1.0 + 0.5 * (t - 4) if 4 <= t < 8 else 0.5 * prev + NOISE[t, 0]  # noqa: E731
    x1, x2 = hand_two_var(rule)
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)
    np.testing.assert_allclose(b.interventional[0, :, 1], x2, atol=1e-12)
    ivs = TemporalIntervention(
        target="X1",
        type="time_varying",
        profile="sine",
        value=0.0,
        amplitude=2.0,
        period=4.0,
        start=0.4,
    )
    b = run2(ivs)
    np.testing.assert_allclose(
        b.interventional[0, 4:, 0], 2.0 * np.sin(2 * np.pi * np.arange(6) / 4.0), atol=1e-12
    )
    # never silently converted to a constant hard value
    assert np.ptp(b.interventional[0, 4:, 0]) > 1.0


def test_step_and_trajectory_time_varying():
    """Issue 14 section 1: step and prescribed-trajectory profiles besides ramp and sine."""
    iv = TemporalIntervention(
        target="X1",
        type="time_varying",
        profile="step",
        value=1.0,
        jump=-3.0,
        step_at=2.0,
        start=0.4,
        end=0.9,
    )
    b = run2(iv)
    rule = lambda t, prev: (1.0 if t < 6 else -2.0) if 4 <= t < 9 else 0.5 * prev + NOISE[t, 0]  # noqa: E731
    x1, x2 = hand_two_var(rule)
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)
    np.testing.assert_allclose(b.interventional[0, :, 1], x2, atol=1e-12)
    path = [0.5, -1.0, 2.0]
    ivt = TemporalIntervention(
        target="X1",
        type="time_varying",
        profile="trajectory",
        value=1.0,
        trajectory=path,
        start=0.4,
    )
    b = run2(ivt)
    np.testing.assert_allclose(b.interventional[0, 4:, 0], 1.0 + np.array(path + [2.0] * 3))
    with pytest.raises(SpecError, match="trajectory"):
        TemporalIntervention(target="X1", type="time_varying", profile="trajectory")
    # the drawer offers them when asked (and keeps its default ramp/sine stream otherwise)
    rng = np.random.default_rng(0)
    from causalarena.generator.temporal.draw import draw_intervention, draw_temporal_scm

    s = draw_temporal_scm(rng, kind="diverse")
    got = {
        draw_intervention(
            rng, s, types=("time_varying",), p_types=(1.0,), profiles=("step", "trajectory")
        ).profile
        for _ in range(20)
    }
    assert got == {"step", "trajectory"}


def test_window_end_restores_mechanism():
    iv = TemporalIntervention(target="X1", type="hard", value=-2.0, start=0.3, end=0.6)  # [3, 6)
    b = run2(iv)
    x1, x2 = hand_two_var(lambda t, prev: -2.0 if 3 <= t < 6 else 0.5 * prev + NOISE[t, 0])
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)
    np.testing.assert_allclose(b.interventional[0, :, 1], x2, atol=1e-12)
    assert b.interventional[0, 6, 0] == pytest.approx(0.5 * -2.0 + NOISE[6, 0])
    soft = TemporalIntervention(target="X1", type="soft", value=1.0, start=0.3, end=0.6)
    b = run2(soft)
    x1, _ = hand_two_var(lambda t, prev: 0.5 * prev + NOISE[t, 0] + (1.0 if 3 <= t < 6 else 0.0))
    np.testing.assert_allclose(b.interventional[0, :, 0], x1, atol=1e-12)


def test_three_variable_lagged_system_hand_computed():
    # X1_t = e1 ; X2_t = 1.5 X1_t + 0.3 X2_{t-1} + e2 ; X3_t = -1 X2_{t-1} + 0.5 X1_{t-2} + e3
    W0 = np.zeros((3, 3))
    W0[0, 1] = 1.5
    WL = np.zeros((2, 3, 3))
    WL[0, 1, 1] = 0.3
    WL[0, 1, 2] = -1.0
    WL[1, 0, 2] = 0.5
    scm = linear_scm(3, W0=W0, W_lag=WL)
    z = np.random.default_rng(5).normal(size=(8, 3))
    iv = TemporalIntervention(target="X2", value=10.0, start=0.5, end=0.75)  # steps [4, 6)
    b = simulate(scm, 8, iv, burn_in=0, noise=[z])
    for arm, clamp in ((b.factual[0], False), (b.interventional[0], True)):
        x = np.zeros((8, 3))
        for t in range(8):
            lag1 = x[t - 1] if t >= 1 else np.zeros(3)
            lag2 = x[t - 2] if t >= 2 else np.zeros(3)
            x[t, 0] = z[t, 0]
            x[t, 1] = 10.0 if clamp and 4 <= t < 6 else 1.5 * x[t, 0] + 0.3 * lag1[1] + z[t, 1]
            x[t, 2] = -1.0 * lag1[1] + 0.5 * lag2[0] + z[t, 2]
        np.testing.assert_allclose(arm, x, atol=1e-12)
    # effect on X3 only one step after onset (lag 1), X1 untouched
    np.testing.assert_array_equal(b.factual[0, :, 0], b.interventional[0, :, 0])
    np.testing.assert_array_equal(b.factual[0, :5, 2], b.interventional[0, :5, 2])
    assert b.factual[0, 5, 2] != b.interventional[0, 5, 2]


# ------------------------------------------------------------------ shared-noise pairs
def _bit_equal(a, b):
    return a.tobytes() == b.tobytes()


@pytest.mark.parametrize("kind", ["diverse", "chain", "regime"])
def test_counterfactual_arms_bit_identical_before_onset_discrete(kind):
    rng = np.random.default_rng(11)
    scms = [draw_temporal_scm(rng, kind=kind) for _ in range(12)]
    ivs = [draw_intervention(rng, s) for s in scms]
    b = simulate(scms, 120, ivs, seed=3)
    changed = 0
    for e in range(len(scms)):
        t0 = int(b.window[e, 0])
        n = b.n_vars[e]
        assert _bit_equal(b.factual[e, :t0, :n], b.interventional[e, :t0, :n])
        changed += not np.array_equal(b.factual[e, t0:, :n], b.interventional[e, t0:, :n])
        if kind == "regime":
            np.testing.assert_array_equal(b.regime[e], b.regime_int[e])
    assert changed == len(scms)


def test_counterfactual_bit_identical_continuous_and_regime():
    rng = np.random.default_rng(2)
    scms = [
        draw_temporal_scm(rng, kind=k, n_vars=4, max_lag=2) for k in ("diverse", "regime", "regime")
    ]
    scms.append(identification_structure("backdoor"))
    ivs = [
        TemporalIntervention(
            target=s.observed and s.names[s.observed[0]], value=1.0, start=0.5, end=0.7
        )
        for s in scms
    ]
    b = simulate_continuous(scms, 8.0, ivs, seed=4, dt=0.02, burn_in=3.0)
    for e in range(len(scms)):
        on = np.flatnonzero(b.int_mask[e])[0]
        n = b.n_vars[e]
        assert _bit_equal(b.factual[e, :on, :n], b.interventional[e, :on, :n])
        assert not np.array_equal(b.factual[e, on:, :n], b.interventional[e, on:, :n])
    assert b.regime[1].any() or b.regime[2].any()


def test_interventional_pair_mode_uses_independent_noise():
    s = identification_structure("mediator")
    iv = TemporalIntervention(target="A", value=1.0, start=0.5)
    b = simulate(s, 50, iv, seed=1, pair_mode="interventional")
    assert b.pair_mode == "interventional"
    assert not np.array_equal(b.factual[0, :25], b.interventional[0, :25])
    c = simulate(s, 50, iv, seed=1)
    assert c.pair_mode == "counterfactual"
    np.testing.assert_array_equal(b.factual, c.factual)


def test_regime_switch_changes_parameters_mid_trajectory():
    base = linear_scm(1, W_lag=[[[0.5]]], sigma=0.1)
    data = base.model_dump()
    data["regime"] = {
        "W0": [[0.0]],
        "W_lag": [[[0.5]]],
        "bias": [5.0],
        "mode": "time",
        "switch_at": 0.5,
    }
    scm = TemporalSCM(**data)
    b = simulate(scm, 200, None, seed=0)
    assert b.regime[0, :100].sum() == 0 and b.regime[0, 100:].all()
    assert abs(b.factual[0, 20:100, 0].mean()) < 0.2
    assert b.factual[0, 120:, 0].mean() == pytest.approx(10.0, abs=0.2)  # 5 / (1 - 0.5)
    assert not b.diverged[0]
    m = TemporalSCM(
        **{
            **data,
            "regime": {**data["regime"], "mode": "markov", "switch_at": None, "p_switch": 0.05},
        }
    )
    bm = simulate(m, 400, None, seed=0)
    assert 5 <= np.abs(np.diff(bm.regime[0].astype(int))).sum() <= 60


# ------------------------------------------------------------------ structures
EXPECTED = {
    "bivariate": ({("A", "Y")}, set(), (True, "direct", False, 0)),
    "backdoor": ({("C", "A"), ("C", "Y")}, {("A", "Y")}, (True, "backdoor", False, 1)),
    "observed_confounder": ({("C", "A"), ("C", "Y")}, set(), (True, "backdoor", True, None)),
    "mediator": ({("A", "M")}, {("M", "Y")}, (True, "direct", False, 1)),
    "front_door": (
        {("U", "A"), ("U", "Y"), ("A", "M")},
        {("M", "Y")},
        (True, "frontdoor", False, 1),
    ),
    "confounder_mediator": (
        {("C", "A"), ("C", "Y"), ("A", "M")},
        {("M", "Y")},
        (True, "backdoor", False, 1),
    ),
    "instrumental_variable": (
        {("Z", "A"), ("U", "A")},
        {("U", "Y"), ("A", "Y")},
        (True, "iv", False, 1),
    ),
    "unobserved_confounder": ({("U", "A"), ("U", "Y")}, set(), (False, "none", True, None)),
    "bow": ({("U", "A"), ("U", "Y"), ("A", "Y")}, set(), (False, "none", False, 0)),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_structure_graph_and_label(name):
    inst, lag, (ident, strategy, null, min_lag) = EXPECTED[name]
    A0, AL, names = structure_graph(name)
    scm = identification_structure(name)
    got0 = {(names[i], names[j]) for i, j in zip(*np.nonzero(A0), strict=True)}
    self_loops = {(n, n) for n in names if n not in scm.hidden}
    gotL = {(names[i], names[j]) for i, j in zip(*np.nonzero(AL[0]), strict=True)}
    assert got0 == inst
    assert gotL == lag | self_loops
    assert AL.shape[0] == 1
    lab = scm.structure
    assert (lab.identifiable, lab.strategy, lab.null_effect, lab.min_lag) == (
        ident,
        strategy,
        null,
        min_lag,
    )
    assert lab.name == name and lab.treatment == "A" and lab.outcome == "Y"
    assert ("U" in scm.hidden) == ("U" in names)
    np.testing.assert_array_equal(np.asarray(scm.A0), A0)


def test_nine_structures():
    assert len(STRUCTURES) == 9


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_structure_effects_null_or_not(name):
    scm = identification_structure(name, np.random.default_rng(0))
    iv = TemporalIntervention(target="A", value=4.0, start=0.3)
    b = simulate(scm, 60, iv, seed=9)
    y = scm.index("Y")
    same = np.array_equal(b.factual[0, :, y], b.interventional[0, :, y])
    assert same == scm.structure.null_effect
    if not same:
        first = np.flatnonzero(b.factual[0, :, y] != b.interventional[0, :, y])[0]
        assert first - int(b.window[0, 0]) == scm.structure.min_lag


# ------------------------------------------------------------------ observation schedules
def test_jittered_and_poisson_schedule_statistics():
    rng = np.random.default_rng(0)
    t = observation_times(rng, 5000.0, 0.5, "jittered", jitter=0.3)
    g = np.diff(t)
    assert t[0] == 0 and g.min() >= 0.5 * 0.7 - 1e-12 and g.max() <= 0.5 * 1.3 + 1e-12
    assert g.mean() == pytest.approx(0.5, rel=0.01)
    p = np.diff(observation_times(rng, 20000.0, 0.5, "poisson"))
    assert p.size > 30000
    assert p.mean() == pytest.approx(0.5, rel=0.03)
    assert p.std() / p.mean() == pytest.approx(1.0, abs=0.03)
    r = observation_times(rng, 10.0, 0.5, "regular")
    np.testing.assert_allclose(np.diff(r), 0.5)


def test_window_duration_in_time_units_independent_of_cadence():
    scm = identification_structure("mediator")
    iv = TemporalIntervention(target="A", value=2.0, start=0.25, end=0.55)
    b = simulate_continuous(scm, 10.0, iv, seed=1, dt=0.01)
    dur = b.int_mask[0].sum() * 0.01
    assert dur == pytest.approx(3.0, abs=0.011)
    path = b.interventional[0]
    rng = np.random.default_rng(3)
    for kind, gap in (("regular", 0.1), ("regular", 0.7), ("jittered", 0.3), ("poisson", 0.25)):
        times = observation_times(rng, 10.0, gap, kind)
        obs = observe(path, 0.01, times)
        inside = (times >= 2.5 + 1e-9) & (times < 5.5 - 0.011)
        assert np.all(obs[inside, 0] == 2.0)
        outside = (times < 2.5 - 0.011) | (times >= 5.5 + 0.011)
        assert np.all(obs[outside, 0] != 2.0)
    # the path itself does not depend on how it is observed; a different dt keeps the duration
    b2 = simulate_continuous(scm, 10.0, iv, seed=1, dt=0.05)
    assert b2.int_mask[0].sum() * 0.05 == pytest.approx(3.0, abs=0.051)


def test_mcar_missingness_keeps_truth():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 5))
    m = mcar_mask(rng, x.shape, 0.2)
    y = apply_missingness(x, m)
    assert m.mean() == pytest.approx(0.2, abs=0.02)
    assert np.isnan(y[m]).all() and np.array_equal(y[~m], x[~m])
    assert not np.isnan(x).any()


# ------------------------------------------------------------------ stability
def test_divergence_detection_var1():
    W = np.array([[1.4, 0.0], [0.3, 0.2]])  # eigenvalues 1.4 and 0.2
    bad = linear_scm(2, W_lag=W[None])
    good = linear_scm(2, W_lag=(W * 0.5 / 1.4)[None])
    assert companion_radius(bad) == pytest.approx(1.4)
    assert companion_radius(good) == pytest.approx(0.5)
    b = simulate([bad, good], 200, None, seed=0)
    assert b.diverged.tolist() == [True, False]
    assert b.diverged_step[0] < 200
    iv = TemporalIntervention(target="X1", value=1.0)
    b2 = simulate([good] * 20, 300, iv, seed=1)
    assert not b2.diverged.any()


def test_divergence_in_interventional_arm_is_flagged():
    s = linear_scm(1, W_lag=[[[0.5]]])
    data = s.model_dump()
    data["mechanisms"] = ["square"]
    sq = TemporalSCM(**data)  # x_t = (0.5 x_{t-1})^2 + e: stable near 0, explodes from 10
    iv = TemporalIntervention(target="X1", type="soft", value=20.0, start=0.5, end=0.55)
    b = simulate(sq, 100, iv, seed=0, burn_in=20)
    assert b.diverged[0] and b.diverged_step[0] >= 50
    assert np.all(np.isfinite(b.factual[0]))


def test_generator_rejects_and_redraws_diverged():
    ps = generate_pairs(
        0, range(60), 100, kind="diverse", scm_kwargs={"square_feedback": True, "stability": "none"}
    )
    assert ps.rejected > 0 and (ps.attempts > 1).any()
    for e in ps.episodes:
        assert np.all(np.abs(e.factual) <= 1e3) and np.all(np.abs(e.interventional) <= 1e3)
        assert np.any(e.factual != 0)
    redo = generate_pairs(
        0,
        [int(np.argmax(ps.attempts))],
        100,
        kind="diverse",
        scm_kwargs={"square_feedback": True, "stability": "none"},
    )
    e0 = ps.episodes[int(np.argmax(ps.attempts))]
    assert redo.episodes[0].attempt == e0.attempt
    np.testing.assert_array_equal(redo.episodes[0].interventional, e0.interventional)


def test_rescale_sets_target_radius():
    rng = np.random.default_rng(0)
    for _ in range(40):
        s = draw_temporal_scm(rng, target_radius=0.8)
        assert companion_radius(s) <= 0.8 + 1e-9
        if s.metadata["rescaled"]:
            assert companion_radius(s) == pytest.approx(0.8)


# ------------------------------------------------------------------ hidden nodes, queries, values
def test_hidden_nodes_never_released_nor_targeted():
    rng = np.random.default_rng(1)
    n_hidden = 0
    for _ in range(150):
        s = draw_temporal_scm(rng, p_hidden=1.0)
        iv = draw_intervention(rng, s)
        assert iv.target not in s.hidden
        q = select_query(rng, s, iv, 100)
        assert q.variable not in s.hidden
        n_hidden += len(s.hidden)
    assert n_hidden > 50
    s = identification_structure("bow")
    with pytest.raises(SpecError, match="hidden"):
        simulate(s, 20, TemporalIntervention(target="U", value=1.0))
    b = simulate(s, 20, TemporalIntervention(target="A", value=1.0))
    names, x = b.released(0)
    assert names == ["A", "Y"] and x.shape == (20, 2)
    ps = generate_pairs(5, range(30), 80, scm_kwargs={"p_hidden": 1.0})
    for e in ps.episodes:
        assert all(e.names[i] not in e.scm.hidden for i in e.observed)
        assert e.intervention.target not in e.scm.hidden


def test_query_from_graph_and_y_true():
    ps = generate_pairs(1, range(40), 120)
    for e in ps.episodes:
        s, q = e.scm, e.query
        a = s.index(e.intervention.target)
        if not q.is_target:
            assert q.column in s.descendants(a)
            assert q.min_lag == int(s.min_lag_matrix()[a, q.column])
        assert np.all(q.times >= e.window[0] + q.min_lag) and np.all(q.times < 120)
        np.testing.assert_array_equal(e.y_true, e.interventional[q.times, q.column])
        assert 0.0 <= e.positivity <= 1.0


@pytest.mark.parametrize(
    "mode",
    ["prior", "positivity_aware", "observed_discrete", "observed_normal", "observed_uniform"],
)
def test_value_modes(mode):
    s = identification_structure("mediator")
    iv = TemporalIntervention(target="A", value_mode=mode, start=0.5)
    b = simulate([s] * 30, 100, iv, seed=2)
    for e in range(30):
        ctx = b.factual[e, :50, 0]
        v = b.value[e]
        if mode == "positivity_aware":
            lo, hi = np.percentile(ctx, [10, 90])
            assert lo <= v <= hi and b.positivity[e] > 0
        elif mode == "observed_discrete":
            assert v in ctx
        elif mode == "observed_uniform":
            assert ctx.min() <= v <= ctx.max()
        assert b.positivity[e] == pytest.approx(np.mean(np.abs(ctx - v) <= 0.25 * ctx.std()))
        assert b.percentile[e] == pytest.approx(100 * np.mean(ctx <= v))
        assert np.all(b.interventional[e, 50:, 0] == v)
    # soft: delta moves the mean level to the drawn level
    soft = TemporalIntervention(target="A", type="soft", value_mode=mode, start=0.5)
    c = simulate(s, 100, soft, seed=2)
    assert c.level[0] == pytest.approx(c.factual[0, :50, 0].mean() + c.value[0])


# ------------------------------------------------------------------ determinism, specs
def test_determinism_across_batches_and_runs():
    rng = np.random.default_rng(7)
    scms = [draw_temporal_scm(rng) for _ in range(50)]
    ivs = [draw_intervention(rng, s) for s in scms]
    keys = [(100 + e,) for e in range(50)]
    big = simulate(scms, 150, ivs, seed=13, keys=keys)
    again = simulate(scms, 150, ivs, seed=13, keys=keys)
    assert _bit_equal(big.factual, again.factual) and _bit_equal(
        big.interventional, again.interventional
    )
    assert len({(s.n_vars, s.max_lag) for s in scms}) > 1 and any(s.regime for s in scms)
    small = simulate(scms[:7], 150, ivs[:7], seed=13, keys=keys[:7], max_batch=3)
    for e in (0, 3, 17, 31, 49):
        one = simulate(scms[e], 150, ivs[e], seed=13, keys=[keys[e]])
        n = scms[e].n_vars
        assert _bit_equal(one.factual[0, :, :n], big.factual[e, :, :n])
        assert _bit_equal(one.interventional[0, :, :n], big.interventional[e, :, :n])
        assert one.value[0] == big.value[e] or (np.isnan(one.value[0]) and np.isnan(big.value[e]))
    for e in range(7):
        assert _bit_equal(
            small.interventional[e], big.interventional[e, :, : small.interventional.shape[2]]
        )
    c1 = simulate_continuous(scms[:6], 4.0, ivs[:6], seed=1, dt=0.05, burn_in=3.0, keys=keys[:6])
    c2 = simulate_continuous(scms[4], 4.0, ivs[4], seed=1, dt=0.05, burn_in=3.0, keys=[keys[4]])
    n = scms[4].n_vars
    assert _bit_equal(c1.interventional[4, :, :n], c2.interventional[0, :, :n])
    g1 = generate_pairs(3, range(25), 80)
    g2 = generate_pairs(3, [17], 80)
    assert _bit_equal(g1.episodes[17].interventional, g2.episodes[0].interventional)
    assert g1.episodes[17].scm == g2.episodes[0].scm


def test_spec_json_round_trip():
    rng = np.random.default_rng(0)
    specs = [
        draw_temporal_scm(rng, kind=k, p_hidden=1.0, p_driver=1.0)
        for k in ("diverse", "chain", "regime", "regime")
    ]
    specs += [identification_structure(n, rng) for n in STRUCTURES]
    for s in specs:
        back = TemporalSCM.from_json(s.to_json())
        assert back == s and back.to_json() == s.to_json()
    for iv in (
        TemporalIntervention(
            target="A",
            type="time_varying",
            profile="sine",
            value=0.1 + 0.2,
            period=7.3,
            start=0.1,
            end=0.9,
        ),
        TemporalIntervention(target="A", type="soft", value_mode="observed_normal"),
    ):
        assert TemporalIntervention.from_json(iv.to_json()) == iv


def test_invalid_specs_name_field_and_value():
    good = two_var().model_dump()
    with pytest.raises(SpecError, match=r"A0.*cycle"):
        TemporalSCM(**{**good, "A0": [[0, 1], [1, 0]], "W0": [[0, 1.0], [1.0, 0]]})
    with pytest.raises(SpecError, match=r"W0\[1\]\[0\].*0\.7"):
        TemporalSCM(**{**good, "W0": [[0, 2.0], [0.7, 0]]})
    with pytest.raises(SpecError, match=r"mechanisms.*'cube'"):
        TemporalSCM(**{**good, "mechanisms": ["linear", "cube"]})
    with pytest.raises(SpecError, match=r"extra_field"):
        TemporalSCM(**{**good, "extra_field": 1})
    with pytest.raises(SpecError, match=r"noise_scale.*-1"):
        TemporalSCM(**{**good, "noise_scale": [1.0, -1.0]})
    with pytest.raises(SpecError, match=r"A_lag.*shape"):
        TemporalSCM(**{**good, "A_lag": [[[0, 0]]]})
    with pytest.raises(SpecError, match=r"hidden.*'Q'"):
        TemporalSCM(**{**good, "hidden": ["Q"]})
    with pytest.raises(SpecError, match=r"end.*0\.2"):
        TemporalIntervention(target="X1", start=0.5, end=0.2)
    with pytest.raises(SpecError, match=r"profile"):
        TemporalIntervention(target="X1", type="time_varying", value=1.0)
    with pytest.raises(SpecError, match=r"target.*'Z9'"):
        simulate(two_var(), 10, TemporalIntervention(target="Z9", value=1.0))
    with pytest.raises(SpecError, match="JSON"):
        TemporalSCM.from_json("{not json")


def test_stationarity_diagnostics_present():
    ps = generate_pairs(2, range(40), 200)
    vr = np.array([e.diagnostics["var_ratio"] for e in ps.episodes])
    rho = np.array([e.diagnostics["spectral_radius"] for e in ps.episodes])
    assert np.all(rho <= 0.9 + 1e-9)
    assert 0.3 < np.nanmedian(vr) < 3.0


# ------------------------------------------------------------- review fixes (issue 14 §4)
def test_divergence_flags_inf_even_with_infinite_threshold():
    """x_t = 1e200 * x_{t-1}^... overflows to inf; threshold=inf must still flag it (failed before:
    ``|inf| <= inf`` passed)."""
    s = linear_scm(1, W_lag=[[[1e200]]], sigma=1.0)
    b = simulate(s, 20, seed=0, burn_in=0, threshold=np.inf)
    assert b.diverged[0]
    assert 0 <= b.diverged_step[0] < 20


def test_euler_maruyama_step_too_large_is_refused():
    """ct_rate * dt > 1 overshoots the relaxation (the path oscillates): a SpecError naming
    ct_rate, never a silently wrong path; ct_rate * dt = 1 exactly is allowed."""
    fast = linear_scm(1, W_lag=[[[0.3]]], ct_rate=60.0)
    with pytest.raises(SpecError) as ei:
        simulate_continuous(fast, 2.0, seed=0, dt=0.02, burn_in=0.0)
    assert "ct_rate" in str(ei.value) and "0.0166667" in str(ei.value)
    ok = linear_scm(1, W_lag=[[[0.3]]], ct_rate=50.0)
    b = simulate_continuous(ok, 2.0, seed=0, dt=0.02, burn_in=0.0)
    assert np.all(np.isfinite(b.factual))


def test_observed_window_onset_reads_intervened_values():
    """On an irregular schedule the first observation after the window start can read the
    grid point before it; the onset is the first row that reads an intervened point."""
    from causalarena.generator.temporal.observe import grid_index, observed_window

    dt = 0.1
    affected = np.zeros(100, dtype=bool)
    affected[30:60] = True  # grid times 3.0 .. 5.9
    times = np.array([0.0, 1.05, 2.95, 3.02, 3.35, 5.95, 6.01, 7.2])
    # 2.95 reads grid 29 (pre), 3.02 reads 30 (first intervened), 5.95 reads 59, 6.01 reads 60
    assert list(grid_index(times, dt, 100)) == [0, 10, 29, 30, 33, 59, 60, 72]
    assert observed_window(times, dt, affected) == (3, 6)
    # first observation inside [3.0, 3.05) in time but before the grid point 3.1 of a later start
    affected2 = np.zeros(100, dtype=bool)
    affected2[31:60] = True
    assert observed_window(times, dt, affected2) == (4, 6)  # 3.02 reads grid 30: not intervened
    assert observed_window(times[:2], dt, affected) is None


def test_lagged_scores_count_edges_beyond_true_max_lag():
    """A predicted edge at lag 2 when the truth has max lag 1 is a false positive (was dropped)."""
    from causalarena.eval.temporal import _lag_scores

    true = np.zeros((1, 2, 2), dtype=np.int8)
    true[0, 0, 1] = 1
    pred = np.zeros((2, 2, 2), dtype=np.int8)
    pred[0, 0, 1] = 1
    pred[1, 1, 0] = 1  # lag 2: not in the truth
    s = _lag_scores(true, pred)
    assert s["precision"] == 0.5 and s["recall"] == 1.0 and s["shd"] == 1
    assert s["f1"] == pytest.approx(2 / 3)
    # a true edge at lag 2 that a tau_max = 1 prediction cannot see is a false negative
    s2 = _lag_scores(pred, true)
    assert s2["recall"] == 0.5 and s2["precision"] == 1.0 and s2["shd"] == 1
