"""Lab results through the report machinery (leaderboard per suite, CIs, trajectory plots)."""

from __future__ import annotations

import csv
import json
import math

import pytest

from causalarena.errors import LabError
from causalarena.eval.lab_report import is_lab_results, leaderboard, write_lab_report


def _row(agent, suite, config, i, success, f1, shd, traj=()):
    return {
        "episode_id": f"{suite}/{config}/{i:03d}",
        "agent": agent,
        "suite": suite,
        "config": config,
        "status": "ok" if i != 3 else "error: agent crashed",
        "success": success,
        "edge_f1": f1,
        "target_edge_f1": f1,
        "target_weight_f1": 0.0,
        "shd": shd,
        "imec_size": 1,
        "budget_used": 2,
        "trajectory": json.dumps([list(t) for t in traj]),
    }


def test_leaderboard_means_cis_order_and_errors_on_hand_rows():
    rows = [
        _row("a", "s1", "c", i, s, f, d)
        for i, (s, f, d) in enumerate(
            [(True, 1.0, 0), (False, 0.5, 2), (True, 1.0, 0), (True, 0.5, 1)]
        )
    ] + [_row("b", "s1", "c", i, False, 0.25, 4) for i in range(4)]
    rows.append(_row("a", "s2", "c", 0, True, 1.0, 0))
    board = leaderboard(rows, seed=3)
    assert [(e["suite"], e["agent"]) for e in board] == [("s1", "a"), ("s1", "b"), ("s2", "a")]
    a = board[0]
    assert a["n"] == 4 and a["errors"] == 1  # the crashed run is scored, not dropped
    assert a["success"] == 0.75 and a["edge_f1"] == 0.75 and a["shd"] == 0.75
    assert a["success_ci_low"] <= 0.75 <= a["success_ci_high"] and a["success_ci_high"] <= 1.0
    assert a["success_ci_low"] < a["success_ci_high"]
    b = board[1]  # constant values: a zero-width interval at the value
    assert (b["edge_f1_ci_low"], b["edge_f1_ci_high"]) == (0.25, 0.25) and b["success"] == 0.0
    assert math.isnan(board[2]["success_ci_low"])  # one episode: no interval
    assert leaderboard(rows, seed=3) == board  # seeded


def test_lab_run_then_causalarena_report_writes_the_lab_leaderboard(tmp_path, capsys):
    from causalarena.cli import main
    from causalarena.eval.lab_run import run_episodes
    from causalarena.generator.lab.suites import episodes

    eps = episodes("lab-main", "main-3nodes", "mini")["main-3nodes"][:4]
    res = tmp_path / "results"
    rows = run_episodes(eps, "scientist", res, quiet=True)
    rows += run_episodes(eps, "random", res, quiet=True)
    assert is_lab_results(res) and not is_lab_results(tmp_path)
    assert main(["report", str(res), "--out", str(tmp_path / "rep")]) == 0
    rep = tmp_path / "rep"
    with (rep / "lab_leaderboard.csv").open() as fh:
        board = list(csv.DictReader(fh))
    assert [b["agent"] for b in board] == ["scientist", "random"]
    sci = [r for r in rows if r["agent"] == "scientist"]
    assert float(board[0]["success"]) == pytest.approx(sum(r["success"] for r in sci) / 4)
    assert float(board[0]["edge_f1"]) == pytest.approx(sum(r["edge_f1"] for r in sci) / 4)
    md = (rep / "leaderboard.md").read_text()
    assert (
        "## lab-main" in md
        and "| Success % | All-edge F1 | Target-edge F1 | Weight F1 | SHD | IMEC |" in md
    )
    html = (rep / "index.html").read_text()
    assert 'id="suite-lab-main"' in html and "lab_trajectories_lab-main.png" in html
    png = rep / "figures" / "lab_trajectories_lab-main.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    prov = json.loads((rep / "provenance.json").read_text())
    assert set(prov["inputs"]) == {"random.jsonl", "scientist.jsonl"}
    # the lab verb gives the same CSV bytes (seeded bootstrap)
    assert main(["lab", "report", str(res), "--out", str(tmp_path / "rep2")]) == 0
    assert (tmp_path / "rep2" / "lab_leaderboard.csv").read_bytes() == (
        rep / "lab_leaderboard.csv"
    ).read_bytes()
    # a damaged results file is one clear error naming file and line
    (res / "random.jsonl").write_text((res / "random.jsonl").read_text() + '{"agent": "x"}\n')
    capsys.readouterr()
    assert main(["lab", "report", str(res), "--out", str(tmp_path / "rep3")]) == 2
    err = capsys.readouterr().err
    assert "random.jsonl: line 5 has no field 'episode_id'" in err and "Traceback" not in err


def test_write_lab_report_refuses_empty_input(tmp_path):
    with pytest.raises(LabError, match="no lab result files"):
        write_lab_report(tmp_path, tmp_path / "out")
