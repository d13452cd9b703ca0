"""Sortability-control flags: a control beating PC in a graph family is flagged."""

from __future__ import annotations

import pandas as pd
import pytest

from causalarena.eval.analyses import control_flags


def _scores():
    rows = []
    # family A: var-sort F1 0.8 vs PC 0.5 (flag); family B: 0.2 vs 0.6 (no flag)
    for fam, f1s in {
        "A": {"pc": 0.5, "var-sort-regress": 0.8},
        "B": {"pc": 0.6, "var-sort-regress": 0.2},
    }.items():
        for k in range(3):
            for m, f1 in f1s.items():
                rows.append(
                    {
                        "method": m,
                        "config": "synthetic-obs",
                        "scm_id": f"{fam}{k}",
                        "status": "ok",
                        "graph_family": fam,
                        "family": "synthetic",
                        "setting": "obs",
                        "f1": f1 + 0.01 * k,
                        "shd": 10 * (1 - f1),
                    }
                )
    return pd.DataFrame(rows)


def test_control_beating_pc_is_flagged_per_family():
    flags = control_flags(_scores()).set_index("graph_family")
    assert list(flags.index) == ["A", "B"]
    assert bool(flags.loc["A", "beats"]) and not bool(flags.loc["B", "beats"])
    assert flags.loc["A", "control_mean"] == pytest.approx(0.81)
    assert flags.loc["A", "reference_mean"] == pytest.approx(0.51)
    assert flags.loc["A", "n"] == 3
    # lower-is-better metrics flip the direction
    shd = control_flags(_scores(), metric="shd").set_index("graph_family")
    assert bool(shd.loc["A", "beats"]) and not bool(shd.loc["B", "beats"])


def test_no_reference_gives_no_rows():
    s = _scores()
    assert control_flags(s[s.method != "pc"]).empty


def test_report_lists_the_flagged_families(tmp_path):
    from causalarena.eval.report import write_report

    written = write_report(_scores(), tmp_path, factors=[])
    assert "sortability_controls.csv" in written
    md = (tmp_path / "leaderboard.md").read_text()
    assert "## Sortability controls" in md and "Flagged families: A." in md
    csv = pd.read_csv(tmp_path / "sortability_controls.csv")
    assert csv.set_index("graph_family")["beats"].to_dict() == {"A": True, "B": False}
