"""Paper-layout analyses: Table 2 cells, pooled F1+SHD win rates, bootstrap CIs, CD diagram."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalarena.eval import analyses as an
from test_report import row


def _cell(method, scm, f1, shd, *, config="synthetic-obs", setting="obs", family="synthetic", **kw):
    return row(method, scm, f1, shd=shd, config=config, setting=setting, family=family, **kw)


# ----------------------------------------------------------------------------------------------
# bootstrap
# ----------------------------------------------------------------------------------------------
def test_bootstrap_ci_of_a_constant_has_zero_width():
    lo, hi = an.bootstrap_ci([0.42] * 30, seed=3)
    assert lo == hi == 0.42


def test_bootstrap_ci_brackets_the_mean_and_is_seeded():
    x = np.random.default_rng(0).normal(1.0, 0.5, size=200)
    lo, hi = an.bootstrap_ci(x, seed=7)
    assert lo < x.mean() < hi
    # the half-width of a 95 % CI of a mean is about 1.96 sd / sqrt(n)
    assert (hi - lo) / 2 == pytest.approx(1.96 * x.std(ddof=1) / np.sqrt(200), rel=0.2)
    assert an.bootstrap_ci(x, seed=7) == (lo, hi)
    assert an.bootstrap_ci(x, seed=8) != (lo, hi)
    assert np.isnan(an.bootstrap_ci([1.0])[0])
    with pytest.raises(ValueError, match="confidence"):
        an.bootstrap_ci(x, confidence=1.5)


# ----------------------------------------------------------------------------------------------
# Table 2
# ----------------------------------------------------------------------------------------------
def _table2_scores() -> pd.DataFrame:
    rows = []
    # A: synthetic obs F1 0.2, 0.4 (two replicates of s1 average to 0.2); obs+int 0.6;
    #    semantic obs 0.9 on one of 3 instances only (other two failed).
    rows += [
        _cell("A", "s1", 0.1, 4.0, rep=0),
        _cell("A", "s1", 0.3, 2.0, rep=1),
        _cell("A", "s2", 0.4, 1.0),
    ]
    rows += [
        _cell("A", "s1", 0.6, 1.0, config="synthetic-obsint", setting="obsint"),
        _cell("A", "s2", 0.6, 1.0, config="synthetic-obsint", setting="obsint"),
    ]
    rows += [_cell("A", "m1", 0.9, 0.0, config="semantic-obs", family="semantic")]
    rows += [
        _cell("A", f"m{i}", None, 5.0, config="semantic-obs", family="semantic", status="failed")
        for i in (2, 3)
    ]
    # B: no intervention support, obs only
    rows += [_cell("B", "s1", 0.5, 2.0), _cell("B", "s2", 0.5, 2.0)]
    rows += [
        _cell(
            "B", s, None, np.nan, config="synthetic-obsint", setting="obsint", status="unsupported"
        )
        for s in ("s1", "s2")
    ]
    rows += [_cell("B", "m1", 0.3, 1.0, config="semantic-obs", family="semantic")]
    return pd.DataFrame(rows)


def test_benchmark_table_cells_and_unweighted_avg_over_supported_cells():
    t = an.benchmark_table(_table2_scores(), n_resamples=200)
    f1 = t[t.metric == "f1"].set_index(["method", "family", "split"])
    assert f1.loc[("A", "synthetic", "obs"), "mean"] == pytest.approx(0.3)
    assert f1.loc[("A", "synthetic", "obs"), "sd"] == pytest.approx(np.std([0.2, 0.4], ddof=1))
    assert f1.loc[("A", "synthetic", "obs+int"), "mean"] == pytest.approx(0.6)
    # a constant cell has a zero-width CI
    assert f1.loc[("A", "synthetic", "obs+int"), "ci_low"] == pytest.approx(0.6)
    assert f1.loc[("A", "synthetic", "obs+int"), "ci_high"] == pytest.approx(0.6)
    # Avg: unweighted mean over the 3 cells A supports, not over its 5 instances
    assert f1.loc[("A", "Avg", ""), "mean"] == pytest.approx((0.3 + 0.6 + 0.9) / 3)
    assert f1.loc[("A", "Avg", ""), "n_cells"] == 3
    # B does not support obs+int: NaN cell, Avg over two obs cells
    assert np.isnan(f1.loc[("B", "synthetic", "obs+int"), "mean"])
    assert f1.loc[("B", "Avg", ""), "mean"] == pytest.approx((0.5 + 0.3) / 2)
    assert f1.loc[("B", "Avg", ""), "n_cells"] == 2
    wide = an.format_benchmark_table(t)
    # the paper's family order: Synthetic, then Semantic (then Formula)
    assert list(wide.columns) == ["synthetic obs", "synthetic obs+int", "semantic obs", "Avg"]
    assert list(wide.index) == ["A", "B"]  # by Avg F1
    assert wide.loc["A", "synthetic obs"] == "0.300 (0.141) / 2.00 (1.41)"
    assert wide.loc["B", "synthetic obs+int"] == "– / –"


# ----------------------------------------------------------------------------------------------
# pooled win rates
# ----------------------------------------------------------------------------------------------
def _win_scores() -> pd.DataFrame:
    return pd.DataFrame(
        [
            # unit s1: A wins F1, ties SHD
            _cell("A", "s1", 0.8, 2.0),
            _cell("B", "s1", 0.5, 2.0),
            # unit s2: A loses F1, loses SHD
            _cell("A", "s2", 0.2, 5.0),
            _cell("B", "s2", 0.4, 3.0),
            # unit s3: only A (B failed): no comparison
            _cell("A", "s3", 0.9, 0.0),
            _cell("B", "s3", None, np.nan, status="failed"),
            # obs+int unit, excluded by the obs-only default
            _cell("A", "s1", 0.0, 9.0, config="synthetic-obsint", setting="obsint"),
            _cell("B", "s1", 1.0, 0.0, config="synthetic-obsint", setting="obsint"),
            # semantic: B wins both metrics
            _cell("A", "m1", 0.1, 4.0, config="semantic-obs", family="semantic"),
            _cell("B", "m1", 0.2, 1.0, config="semantic-obs", family="semantic"),
        ]
    )


def test_pooled_win_rate_pools_f1_and_shd_per_family_obs_only():
    w = an.pooled_win_rates(_win_scores(), n_resamples=200).set_index(["method", "family"])
    # synthetic obs: A has 4 comparisons on s1, s2 (F1 and SHD): 1 + 0.5 + 0 + 0 = 1.5
    assert w.loc[("A", "synthetic"), "win_rate"] == pytest.approx(1.5 / 4)
    assert w.loc[("B", "synthetic"), "win_rate"] == pytest.approx(2.5 / 4)
    assert w.loc[("A", "synthetic"), "n_units"] == 2
    assert w.loc[("A", "synthetic"), "n_comparisons"] == 4
    assert w.loc[("A", "semantic"), "win_rate"] == 0.0
    assert w.loc[("A", "all"), "win_rate"] == pytest.approx(1.5 / 6)
    assert w.loc[("A", "family_mean"), "win_rate"] == pytest.approx((1.5 / 4 + 0) / 2)
    # ordering: best family mean first
    assert list(dict.fromkeys(w.reset_index()["method"])) == ["B", "A"]
    # CI brackets the rate
    lo, hi = w.loc[("A", "synthetic"), ["ci_low", "ci_high"]]
    assert lo <= 1.5 / 4 <= hi
    allw = an.pooled_win_rates(_win_scores(), setting=None, n_resamples=200)
    allw = allw.set_index(["method", "family"])
    assert allw.loc[("A", "synthetic"), "win_rate"] == pytest.approx(1.5 / 6)


def test_pooled_win_matrix_is_complementary():
    m = an.pooled_win_matrix(_win_scores())
    assert m.loc["A", "B"] == pytest.approx(1.5 / 6)
    assert m.loc["A", "B"] + m.loc["B", "A"] == pytest.approx(1.0)
    assert np.isnan(m.loc["A", "A"])
    sem = an.pooled_win_matrix(_win_scores(), family="semantic")
    assert sem.loc["B", "A"] == 1.0


def test_leaderboard_has_ci_on_every_mean_and_win_rate():
    board = an.leaderboard(_win_scores(), n_resamples=200).set_index("method")
    for col in ("f1", "shd", "precision", "win_rate", "win_rate_f1", "runtime_s"):
        assert f"{col}_ci_low" in board.columns and f"{col}_ci_high" in board.columns
        assert (board[f"{col}_ci_low"] <= board[col] + 1e-12).all()
        assert (board[col] <= board[f"{col}_ci_high"] + 1e-12).all()
    # precision is 0.5 everywhere: zero-width interval
    assert (board["precision_ci_low"] == board["precision_ci_high"]).all()


# ----------------------------------------------------------------------------------------------
# critical difference
# ----------------------------------------------------------------------------------------------
def _cd_scores(n=30, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        base = rng.uniform(0.2, 0.6)
        for m, shift in (("good", 0.3), ("mid", 0.1), ("bad", 0.0), ("worse", -0.1)):
            rows.append(_cell(m, f"s{i}", base + shift + rng.normal(0, 0.05), 1.0))
    return pd.DataFrame(rows)


def test_critical_difference_hand_formula():
    cd = an.critical_difference(_cd_scores(), "f1")
    assert list(cd.ranks.index) == ["good", "mid", "bad", "worse"]
    assert cd.ranks["good"] == pytest.approx(1.0)
    assert cd.ranks.sum() == pytest.approx(1 + 2 + 3 + 4)
    # Demšar (2006) Table 5: q_0.05 for k = 4 is 2.569
    assert cd.cd == pytest.approx(2.569 * np.sqrt(4 * 5 / (6 * 30)), rel=1e-3)
    assert cd.n_instances == 30
    assert cd.friedman_p < 1e-6


def test_critical_difference_matches_autorank():
    autorank = pytest.importorskip("autorank")
    scores = _cd_scores(n=40, seed=1)
    cd = an.critical_difference(scores, "f1")
    wide = scores.pivot(index="scm_id", columns="method", values="f1")
    res = autorank.autorank(wide, alpha=0.05, verbose=False, force_mode="nonparametric")
    assert res.cd == pytest.approx(cd.cd, rel=1e-4)  # autorank: finite-df quantile
    for m, r in res.rankdf["meanrank"].items():
        assert cd.ranks[m] == pytest.approx(r)


def test_critical_difference_needs_common_instances():
    with pytest.raises(ValueError, match="2 methods"):
        an.critical_difference(_cd_scores().query("method == 'good'"), "f1")


# ----------------------------------------------------------------------------------------------
# report pages
# ----------------------------------------------------------------------------------------------
def test_report_pages_have_paper_sections_and_disclosure(tmp_path):
    from causalarena.eval.report import write_report
    from test_report import _report_table

    df = _report_table()
    df["pretraining_disclosure"] = np.where(df["method"] == "AVICI", "declared prior", "none")
    real = [
        row(m, f"real-{ds}", f1, family="real", config="real-obs", d=d, graph_family="real")
        for m in ("PC", "GIES")
        for ds, d, f1 in (("sachs", 11, 0.3), ("petshop", 20, 0.5))
    ]
    df = pd.concat([df, pd.DataFrame(real)], ignore_index=True)
    written = write_report(df, tmp_path)
    for rel in (
        "table2.csv",
        "pooled_win_rates.csv",
        "win_matrix.csv",
        "datasets.csv",
        "critical_difference.csv",
        "plots/pooled_win_rates.png",
        "plots/critical_difference.png",
        "plots/datasets.png",
    ):
        assert rel in written, rel
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    # one table per real dataset; real data never enters Table 2 or the d curves
    assert "## Real dataset: sachs" in md and "## Real dataset: petshop" in md
    t2 = pd.read_csv(tmp_path / "table2.csv")
    assert "real" not in set(t2["family"])
    assert set(pd.read_csv(tmp_path / "slices" / "d.csv")["category"]) >= {11, 20}
    # disclosure column shown
    header = next(line for line in md.splitlines() if line.startswith("| Rank"))
    assert "Pretraining disclosure" in header
    avici = next(line for line in md.splitlines() if "| AVICI |" in line and line[2].isdigit())
    assert "declared prior" in avici
    # F1 cell carries its bootstrap CI, equal to the CSV's
    board = pd.read_csv(tmp_path / "leaderboard.csv").set_index("method")
    lo, hi = board.loc["AVICI", ["f1_ci_low", "f1_ci_high"]]
    assert f"{board.loc['AVICI', 'f1']:.3f} [{lo:.3f}, {hi:.3f}]" in avici
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    head = next(line for line in summary.splitlines() if line.startswith("| Rank"))
    assert [c.strip() for c in head.strip("|").split("|")][:4] == ["Rank", "Method", "F1", "SHD"]
    assert "## Benchmark table" in summary and "AUROC" not in summary
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert page.count('<tr class="method-row">') == 4
    assert 'id="table2"' in page and 'id="dataset-sachs"' in page


def test_templates_are_package_data():
    from importlib.resources import files

    t = files("causalarena.eval").joinpath("templates")
    names = {p.name for p in t.iterdir()}
    assert {"index.html.j2", "leaderboard.md.j2", "_macros.j2", "style.css"} <= names


def test_benchmark_table_ignores_fallback_on_a_split_the_method_does_not_run():
    # the scorer's fallback (empty graph) on instances a method never submitted must not
    # turn an unsupported obs+int cell into a supported 0.0
    rows = [_cell("B", "s1", 0.5, 2.0), _cell("B", "s2", 0.3, 2.0)]
    rows += [
        _cell(
            "B",
            "s1",
            None,
            np.nan,
            config="synthetic-obsint",
            setting="obsint",
            status="unsupported",
        ),
        _cell(
            "B",
            "s2",
            0.0,
            9.0,
            config="synthetic-obsint",
            setting="obsint",
            status="missing",
            scored_as="fallback",
        ),
    ]
    df = pd.DataFrame(rows)
    df.loc[df["scored_as"].isna(), "scored_as"] = np.where(
        df.loc[df["scored_as"].isna(), "status"] == "ok", "prediction", None
    )
    t = an.benchmark_table(df, n_resamples=100)
    f1 = t[t.metric == "f1"].set_index(["method", "family", "split"])
    assert np.isnan(f1.loc[("B", "synthetic", "obs+int"), "mean"])
    assert f1.loc[("B", "Avg", ""), "mean"] == pytest.approx(0.4)
    assert f1.loc[("B", "Avg", ""), "n_cells"] == 1
