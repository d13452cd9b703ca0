"""dot-* suite designs against DoTime's (issue 14 section 1) and the ``prior="dotime"`` option."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from causalarena.generator.temporal import suites as S
from causalarena.generator.temporal.draw import draw_temporal_scm
from causalarena.generator.temporal.structures import (
    DOTIME_STRUCTURE_MECHANISMS,
    STRUCTURES,
    identification_structure,
)
from causalarena.spec_temporal import MECHANISMS

# DoTime's suites (issue 14 table): full size, T
DOTIME = {
    "dot-Identifiability-v1": ("dot-identifiability", 12_150),
    "dot-Continuous-v1": ("dot-continuous", 9_999),
    "dot-Generic-100k": ("dot-generic", 100_000),
    "dot-SeasonalTrend-v1": ("dot-seasonal-trend", 10_000),
    "dot-Wide-v1": ("dot-wide", 10_000),
    "dot-Observed-v1": ("dot-observed", 10_800),
    "dot-ContinuousIrregular-v1": ("dot-continuous-irregular", 9_999),
    "dot-RegimeSwitch-v1": ("dot-regimes", 9_999),
}


@pytest.mark.parametrize("dotime", sorted(DOTIME))
def test_alias_size_and_T_match_dotime(dotime):
    name, n = DOTIME[dotime]
    s = S.get_temporal_suite(dotime)
    assert s.name == name and s.dotime == dotime and S.resolve_suite_name(dotime) == name
    assert s.scales["full"] == n and s.T == 200
    assert s.scales["mini"] <= 108 and s.deviations  # mini small; card lists the deviations


def test_every_dotime_suite_is_reproduced():
    assert not S.NOT_REPRODUCED
    assert set(S.DOTIME_ALIASES) == set(DOTIME)
    assert not S.get_temporal_suite("dot-regime2").dotime  # two regimes, one graph: own name
    assert set(S.DOTIME_ALIASES.values()) <= set(S.TEMPORAL_SUITES)
    versions = {s.version for s in S.TEMPORAL_SUITES.values()}
    assert versions == {S.SUITE_VERSION} == {"1.2.0"}  # one version: dot-all is one release


def _public_cells(name):
    s = S.get_temporal_suite(name)
    return s, [s.cell(i) for i in s.public_indices("full")]


def test_identifiability_design_counts():
    s, cells = _public_cells("dot-identifiability")
    c = Counter(x["structure"] for x in cells)
    assert c == dict.fromkeys(STRUCTURES, 1_350)
    assert sorted(S.DOTIME_STRUCTURE_NAMES[k] for k in c) == sorted(
        [
            "back_door",
            "observed_confounder",
            "confounder_mediator",
            "front_door",
            "mediator",
            "instrumental_variable",
            "bi_variate",
            "unobserved_confounder",
            "bow_graph",
        ]
    )
    assert s.options["pair_mode"] == "counterfactual" and s.options["query"] == "dotime"


def test_continuous_designs_counts():
    _, cells = _public_cells("dot-continuous")
    assert Counter((x["structure"], x["schedule"]) for x in cells) == {
        (k, "regular"): 3_333 for k in ("backdoor", "front_door", "instrumental_variable")
    }
    _, cells = _public_cells("dot-continuous-irregular")
    grid = Counter(x["schedule"] for x in cells)
    assert grid == {"regular": 3_333, "jittered": 3_333, "poisson": 3_333}
    both = Counter((x["structure"], x["schedule"]) for x in cells)
    assert len(both) == 9 and set(both.values()) == {1_111}


def test_seasonal_and_observed_counts():
    _, cells = _public_cells("dot-seasonal-trend")
    c = Counter(x["structure"] for x in cells)
    assert len(c) == 10 and set(c.values()) == {1_000}
    assert {"bivariate", "backdoor", "backdoor+trend_hidden"} <= set(c)
    s, cells = _public_cells("dot-observed")
    c = Counter((x["observation"], x["structure"]) for x in cells)
    assert len(c) == 12 * 9 and set(c.values()) == {100}
    # every cell of a latent episode shares its fate (no latent both public and reserved)
    per_latent = Counter(x["latent"] for x in cells)
    assert set(per_latent.values()) == {12}
    res = {s.cell(i)["latent"] for i in s.reserved_indices("full")}
    assert not res & set(per_latent)


def test_identifiability_episodes_offsets_and_pairs():
    s = S.get_temporal_suite("dot-identifiability")
    eps = S.generate_suite_episodes(s, s.public_indices("mini"))
    by = {}
    for e in eps:
        assert e.pair_mode == "counterfactual" and len(e.query.offsets) == 1
        assert e.query.variable == "Y"
        by.setdefault(e.structure, []).append(int(e.query.offsets[0]))
        np.testing.assert_array_equal(e.x_int[: e.onset], e.x_fact[: e.onset])
        assert set(e.scm.mechanisms) <= set(DOTIME_STRUCTURE_MECHANISMS)
        assert np.allclose(e.scm.noise_scale, 0.3)
    assert set(by) == set(STRUCTURES)
    assert set(by["backdoor"]) == {1}  # DoTime 0, raised to the lag-1 A -> Y edge
    assert set(by["bivariate"]) == {0}
    for k in ("front_door", "mediator"):
        assert set(by[k]) <= set(range(1, 6)) and len(set(by[k])) > 1
    assert set(by["instrumental_variable"]) <= set(range(1, 6))  # 0..5 raised to lag 1


def test_generic_pairs_are_independent_draws():
    s = S.get_temporal_suite("dot-generic")
    eps = S.generate_suite_episodes(s, s.public_indices("mini")[:10])
    for e in eps:
        assert e.pair_mode == "interventional" and e.scm.metadata["prior"] == "dotime"
        assert not np.allclose(e.x_int[: e.onset], e.x_fact[: e.onset])


def test_continuous_hard_uniform_query_and_structures():
    for name in ("dot-continuous", "dot-continuous-irregular"):
        s = S.get_temporal_suite(name)
        idx = s.public_indices("mini")[:18]
        eps = S.generate_suite_episodes(s, idx)
        for i, e in zip(idx, eps, strict=True):
            c = s.cell(i)
            assert e.structure == c["structure"] and e.scm.metadata["schedule"] == c["schedule"]
            assert e.intervention.type == "hard" and e.intervention.target == "A"
            (row,) = e.query.times
            assert e.onset <= row < len(e.times) and e.query.variable == "Y"
        if name.endswith("irregular"):
            assert {e.scm.metadata["schedule"] for e in eps} == {"regular", "jittered", "poisson"}


def test_wide_design():
    s = S.get_temporal_suite("dot-wide")
    eps = S.generate_suite_episodes(s, s.public_indices("mini")[:4])
    for e in eps:
        assert 12 <= e.scm.n_vars <= 40 and 1 <= e.scm.max_lag <= 8 and not e.scm.hidden
        assert e.pair_mode == "counterfactual"
        assert list(e.query.times) == [e.window_end - 1]


def test_seasonal_driver_hidden_or_released():
    s = S.get_temporal_suite("dot-seasonal-trend")
    eps = S.generate_suite_episodes(s, s.public_indices("mini")[:20])
    seen = set()
    for e in eps:
        lab = e.structure
        seen.add(lab)
        if "+" not in lab:
            assert not e.scm.drivers
            continue
        kind = lab.split("+")[1].split("_")[0]
        assert [d.kind for d in e.scm.drivers] == [kind] and e.scm.drivers[0].node == "D"
        assert ("D" in e.variables) == lab.endswith("observed")
        assert e.identifiable == lab.endswith("observed")
    assert len(seen) == 10


def test_observed_cells_missingness_mechanisms():
    s = S.get_temporal_suite("dot-observed")
    idx = [i for i in s.public_indices("full")[:216]]
    eps = S.generate_suite_episodes(s, idx)
    rates: dict[str, list] = {}
    mar_corr, mnar_corr, mcar_corr = [], [], []
    for i, e in zip(idx, eps, strict=True):
        kind, noise = s.cell(i)["observation"]
        assert e.scm.metadata["observation"]["missing"] == kind
        np.testing.assert_array_equal(e.y_true, e.x_int[e.query.times, e.query_column])
        if kind == "none":
            assert e.mask is None
            continue
        rates.setdefault(kind, []).append(e.mask.mean())
        a = e.variables.index("A")
        if kind == "mar":
            assert not e.mask[:, a].any()
            other = [j for j in range(len(e.variables)) if j != a]
            mar_corr.append(stats.spearmanr(e.x_fact[:, a], e.mask[:, other].mean(1))[0])
        if kind in ("mnar", "mcar"):  # own-value dependence (expected 0.29 under MNAR)
            r = stats.spearmanr(e.x_fact[:, 0], e.mask[:, 0])[0]
            (mnar_corr if kind == "mnar" else mcar_corr).append(r)
        if noise == 0:
            ok = ~e.mask
            np.testing.assert_array_equal(e.x_obs[ok], e.x_fact[ok])
    assert abs(np.mean(rates["mcar"]) - S.MISSING_RATE) < 0.02
    assert np.mean(mar_corr) > 0.3 and np.mean(mnar_corr) > 0.2
    assert abs(np.mean(mcar_corr)) < 0.05
    # all 12 cells of one latent episode observe the same trajectories
    lat = Counter(s.cell(i)["latent"] for i in idx)
    li = next(k for k, v in lat.items() if v == 12)
    same = [e for i, e in zip(idx, eps, strict=True) if s.cell(i)["latent"] == li]
    for e in same[1:]:
        np.testing.assert_array_equal(e.x_int, same[0].x_int)


# ------------------------------------------------------------------ prior="dotime" statistics
@pytest.fixture(scope="module")
def dotime_draws():
    rng = np.random.default_rng(20261201)
    return [draw_temporal_scm(rng, kind="diverse", prior="dotime") for _ in range(1500)]


def test_dotime_prior_parameter_distributions(dotime_draws):
    draws = dotime_draws
    p = [s.metadata["edge_prob"] for s in draws]
    assert stats.kstest(p, stats.beta(2, 5).cdf).pvalue > 0.01
    w0 = np.concatenate([np.asarray(s.W0)[np.asarray(s.A0) != 0] for s in draws])
    assert stats.kstest(w0, stats.norm(0, 1).cdf).pvalue > 0.01
    b = np.concatenate([s.bias for s in draws])
    assert stats.kstest(b, stats.norm(0, 0.5).cdf).pvalue > 0.01
    root, non = [], []
    for s in draws:
        r = np.asarray(s.A0).sum(axis=0) == 0
        sig = np.asarray(s.noise_scale)
        root += list(sig[r] - 0.1)
        non += list(sig[~r] - 0.01)
    assert stats.kstest(root, stats.expon(scale=1.0).cdf).pvalue > 0.01
    assert stats.kstest(non, stats.expon(scale=0.1).cdf).pvalue > 0.01
    # lag decay 0.7: lag-2 / lag-1 edge frequency (episodes with K >= 2, same edge prob)
    l1 = l2 = 0
    for s in draws:
        A = np.asarray(s.A_lag)
        if A.shape[0] >= 2:
            l1, l2 = l1 + A[0].sum(), l2 + A[1].sum()
    assert abs(l2 / l1 - 0.7) < 0.05
    drawn = Counter(m for s in draws for m in s.metadata["mechanisms_drawn"])
    assert set(drawn) == set(MECHANISMS)
    assert stats.chisquare([drawn[m] for m in MECHANISMS]).pvalue > 0.01
    # the square rule is visible: realised square share below the drawn share
    real = Counter(m for s in draws for m in s.mechanisms)
    n = sum(real.values())
    assert real["square"] / n < 0.5 * drawn["square"] / n


def test_default_prior_is_not_dotime_prior():
    """The statistical tests discriminate: the default prior fails the DoTime weight test."""
    rng = np.random.default_rng(7)
    draws = [draw_temporal_scm(rng, kind="diverse") for _ in range(300)]
    w0 = np.concatenate([np.asarray(s.W0)[np.asarray(s.A0) != 0] for s in draws])
    assert stats.kstest(w0, stats.norm(0, 1).cdf).pvalue < 1e-6
    assert all(s.metadata["prior"] == "default" for s in draws)


def test_dotime_structure_prior():
    rng = np.random.default_rng(3)
    draws = [identification_structure(n, rng, prior="dotime") for n in STRUCTURES] * 1
    draws += [identification_structure("front_door", rng, prior="dotime") for _ in range(600)]
    w0 = np.concatenate([np.asarray(s.W0)[np.asarray(s.A0) != 0] for s in draws])
    assert stats.kstest(w0, stats.norm(0, 1).cdf).pvalue > 0.01
    b = np.concatenate([s.bias for s in draws])
    assert stats.kstest(b, stats.norm(0, 0.5).cdf).pvalue > 0.01
    m = Counter(x for s in draws for x in s.mechanisms)
    assert set(m) == set(DOTIME_STRUCTURE_MECHANISMS)
    assert stats.chisquare(list(m.values())).pvalue > 0.01
    assert all(np.allclose(s.noise_scale, 0.3) for s in draws)
    from causalarena.generator.temporal.simulate import companion_radius

    assert max(companion_radius(s) for s in draws) <= 0.9 + 1e-9
    with pytest.raises(Exception, match="rng"):
        identification_structure("backdoor", prior="dotime")


def test_cli_builds_a_dotime_name(tmp_path, monkeypatch, capsys):
    from dataclasses import replace

    from causalarena.cli import main

    small = replace(S.TEMPORAL_SUITES["dot-wide"], scales={"mini": 2, "full": 10_000})
    monkeypatch.setitem(S.TEMPORAL_SUITES, "dot-wide", small)
    out = tmp_path / "w"
    assert main(["build", "dot-Wide-v1", "--scale", "mini", "--out", str(out), "--quiet"]) == 0
    import json

    m = json.loads((out / "manifest.json").read_text())
    assert m["suite"] == "dot-wide" and m["configs"]["dot-wide"]["rows"] == 2
    assert main(["build", "dot-NoSuch-v1", "--out", str(tmp_path / "r"), "--quiet"]) != 0
    assert "dot-NoSuch-v1" in capsys.readouterr().err
