"""Self-centred domain F1 shifts (paper section 6.3, Figure 17), hand-computed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalarena.eval.domains import domain_shift_matrix, domain_shifts
from test_report import row


def _u(method, scm, f1, domain, *, family="semantic", setting="obs", rep=0):
    return row(
        method,
        scm,
        f1,
        rep=rep,
        family=family,
        graph_family=family,
        setting=setting,
        config=f"{family}-{setting}",
        domain=domain,
    )


def _scores() -> pd.DataFrame:
    rows = [
        # A, semantic: x = {u1: reps 0.1, 0.3 -> 0.2; u2: 0.4}, y = {u3: 0.9}
        _u("A", "u1", 0.1, "x", rep=0),
        _u("A", "u1", 0.3, "x", rep=1),
        _u("A", "u2", 0.4, "x"),
        _u("A", "u3", 0.9, "y"),
        # B, semantic: x = {0.5, 0.5}, y = {0.2}
        _u("B", "u1", 0.5, "x"),
        _u("B", "u2", 0.5, "x"),
        _u("B", "u3", 0.2, "y"),
        # A, formula: z = {0.6}, w = {0.2}
        _u("A", "f1", 0.6, "z", family="formula"),
        _u("A", "f2", 0.2, "w", family="formula"),
        # obs+int rows and domain-less synthetic rows never enter
        _u("A", "u1", 0.0, "x", setting="obsint"),
        _u("A", "u3", 0.0, "y", setting="obsint"),
        row("A", "s1", 1.0, domain=None),
    ]
    return pd.DataFrame(rows)


def test_shift_is_domain_mean_minus_the_methods_own_family_mean():
    sh = domain_shifts(_scores()).set_index(["family", "method", "domain"])
    # A semantic: family mean over units (0.2 + 0.4 + 0.9) / 3 = 0.5 (not the 0.6 of the
    # unweighted domain means); x mean 0.3 -> -0.2; y 0.9 -> +0.4
    a = sh.loc[("semantic", "A")]
    assert a.loc["x", "family_mean"] == pytest.approx(0.5)
    assert a.loc["x", "shift"] == pytest.approx(-0.2)
    assert a.loc["y", "shift"] == pytest.approx(0.4)
    assert list(a["n"]) == [2, 1]
    b = sh.loc[("semantic", "B")]
    assert b.loc["x", "shift"] == pytest.approx(0.1) and b.loc["y", "shift"] == pytest.approx(-0.2)
    f = sh.loc[("formula", "A")]
    assert f.loc["z", "shift"] == pytest.approx(0.2) and f.loc["w", "shift"] == pytest.approx(-0.2)
    assert len(sh) == 6  # no obs+int, no synthetic rows


def test_matrix_and_population_std_across_domains():
    mat, std = domain_shift_matrix(domain_shifts(_scores()), "semantic")
    # std ddof=0: A of [-0.2, 0.4] = 0.3 (ddof=1 would be 0.424); B of [0.1, -0.2] = 0.15
    assert std["A"] == pytest.approx(0.3) and std["B"] == pytest.approx(0.15)
    assert list(mat.index) == ["A", "B"]  # most domain-sensitive first
    assert list(mat.columns) == ["x", "y"]
    assert mat.loc["B", "y"] == pytest.approx(-0.2)


def test_no_domain_column_gives_an_empty_table():
    df = _scores().drop(columns="domain")
    assert domain_shifts(df).empty


def test_report_writes_domain_shift_tables_figures_and_domain_slices(tmp_path):
    from causalarena.eval.report import write_report

    written = write_report(_scores(), tmp_path)
    for rel in (
        "domain_shifts.csv",
        "plots/domain_shifts_semantic.png",
        "plots/domain_shifts_formula.png",
        "slices/domain.csv",
    ):
        assert rel in written, rel
    csv = pd.read_csv(tmp_path / "domain_shifts.csv")
    got = csv[(csv.family == "semantic") & (csv.method == "A")].set_index("domain")["shift"]
    assert np.allclose(got[["x", "y"]], [-0.2, 0.4])
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    lines = md.splitlines()
    i = lines.index("## Self-centred domain F1 shifts: semantic (observation-only)")
    j = lines.index("## Self-centred domain F1 shifts: formula (observation-only)")
    assert i < j  # paper order: semantic before formula
    table = [ln for ln in lines[i:j] if ln.startswith("| A ")]
    assert table and "-0.200" in table[0] and "+0.400" in table[0] and "0.300" in table[0]
    # Table 2 columns in the paper's family order
    t2 = next(ln for ln in lines if ln.startswith("| Method") and "obs" in ln)
    assert t2.index("synthetic obs") < t2.index("semantic obs") < t2.index("formula obs")
