"""`make demo` step 3: the semantic and formula leaderboard in the Table 2 layout."""

from __future__ import annotations

import pandas as pd
import pytest
from rich.console import Console

import causalarena.demo as demo
from test_report import row


def _frame(family, f1s, method="pc"):
    return pd.DataFrame(
        [
            row(method, f"{family}-{i}", f1, family=family, config=f"{family}-obs", shd=float(i))
            for i, f1 in enumerate(f1s)
        ]
    )


def test_scenario_step_builds_both_suites_and_prints_one_table2(monkeypatch, tmp_path):
    built, boards = [], []

    def fake_build(suite, *, scale, out, workers, quiet, per_domain):
        built.append((suite, scale, out, per_domain))
        return tmp_path / out

    def fake_board(release, config, methods, pred, report, **kw):
        boards.append((config, list(methods), kw["max_d"], report))
        kind = config.split("-")[0]
        return _frame(kind, {"semantic": [0.4, 0.6], "formula": [0.2]}[kind])

    monkeypatch.setattr("causalarena.release.engine.build", fake_build)
    monkeypatch.setattr(demo, "_leaderboard", fake_board)
    monkeypatch.chdir(tmp_path)
    console = Console(record=True, width=200)
    synthetic = _frame("synthetic", [0.9, 0.7])
    secs = demo._scenario_leaderboards("rel", synthetic, workers=1, quiet=True, console=console)
    assert secs >= 0
    assert built == [
        ("arena-semantic", "mini", "rel-semantic", 1),
        ("arena-formula", "mini", "rel-formula", 1),
    ]
    # the same baselines as the synthetic step, every instance, no per-family report
    assert boards == [
        ("semantic-obs", list(demo.DEFAULT_METHODS), None, None),
        ("formula-obs", list(demo.DEFAULT_METHODS), None, None),
    ]
    # one report over the three families, its Table 2 with all of them
    t2 = pd.read_csv(tmp_path / "reports/arena/table2.csv")
    assert set(t2["family"]) == {"synthetic", "semantic", "formula", "Avg"}
    text = console.export_text()
    header = next(ln for ln in text.splitlines() if ln.startswith("| Method"))
    assert header == "| Method | synthetic obs | semantic obs | formula obs | Avg |"
    pc = next(ln for ln in text.splitlines() if ln.startswith("| pc "))
    cells = [c.strip() for c in pc.strip("|").split("|")]
    # synthetic F1 0.8 (sd 0.141), SHD 0.5; semantic 0.5 (0.141) / 0.5; formula 0.2 / 0.0
    assert cells[1] == "0.800 (0.141) / 0.50 (0.71)"
    assert cells[2] == "0.500 (0.141) / 0.50 (0.71)"
    assert cells[3].startswith("0.200")
    assert cells[4].split(" / ")[0] == f"{(0.8 + 0.5 + 0.2) / 3:.3f}"


def test_scenario_step_skips_the_table_when_no_baseline_runs(monkeypatch, tmp_path):
    monkeypatch.setattr("causalarena.release.engine.build", lambda suite, **kw: tmp_path)
    monkeypatch.setattr(demo, "_leaderboard", lambda *a, **kw: None)
    monkeypatch.chdir(tmp_path)
    console = Console(record=True, width=200)
    demo._scenario_leaderboards("rel", None, workers=1, quiet=True, console=console)
    assert "| Method" not in console.export_text()
    assert not (tmp_path / "reports").exists()


@pytest.mark.parametrize("n", [0, 2])
def test_markdown_table_rows(n):
    frame = pd.DataFrame({"a": ["x"] * n}, index=[f"m{i}" for i in range(n)])
    lines = demo._markdown_table(frame).splitlines()
    assert lines[0] == "| Method | a |" and len(lines) == 2 + n


@pytest.mark.parametrize("kind", ["semantic", "formula"])
def test_per_domain_option_keeps_the_first_scenarios_of_each_domain(kind):
    from causalarena.generator.scenario.family import header, public_names, selected_names

    suite = f"arena-{kind}"
    names = public_names(suite)
    one = selected_names(suite, {"per_domain": 1})
    domains = sorted({n.split("/")[0] for n in names})
    assert [n.split("/")[0] for n in one] == domains  # one each, in release order
    assert one == [next(n for n in names if n.startswith(d + "/")) for d in domains]
    two = selected_names(suite, {"per_domain": 2})
    assert set(one) <= set(two) and all(
        sum(n.startswith(d + "/") for n in two) == min(2, sum(n.startswith(d + "/") for n in names))
        for d in domains
    )
    assert selected_names(suite) == names == selected_names(suite, {})
    h = header(suite, "mini", {"per_domain": 1})
    assert h["definition"]["built"] == one and h["options"] == {"per_domain": 1}
    assert "options" not in header(suite, "mini", {})
    with pytest.raises(ValueError, match="per_domain"):
        selected_names(suite, {"per_domain": 0})
