"""One report over the synthetic, semantic and formula releases (Table 2 with all families)."""

from __future__ import annotations

import pandas as pd
import pytest

from causalarena.eval.report import write_report
from test_report import row

REL = {
    "synthetic": ("arena-synthetic@1.0.0", "aa" * 32),
    "semantic": ("arena-semantic@0.1.0", "bb" * 32),
    "formula": ("arena-formula@0.1.0", "cc" * 32),
}


def _rows(family, f1s, setting="obs"):
    version, sha = REL[family]
    return [
        row(
            "pc",
            f"{family}-{i}",
            f1,
            family=family,
            setting=setting,
            config=f"{family}-{setting}",
            release_version=version,
            manifest_sha256=sha,
            domain=None if family == "synthetic" else f"dom{i % 2}",
        )
        for i, f1 in enumerate(f1s)
    ]


def test_releases_of_different_suites_share_one_report_and_table2(tmp_path):
    df = pd.DataFrame(
        _rows("synthetic", [0.9, 0.7])
        + _rows("semantic", [0.4, 0.6])
        + _rows("semantic", [0.5, 0.7], setting="obsint")
        + _rows("formula", [0.2, 0.4])
    )
    write_report(df, tmp_path)
    t2 = pd.read_csv(tmp_path / "table2.csv")
    f1 = t2[t2.metric == "f1"].set_index(["family", "split"])["mean"]
    assert f1[("synthetic", "obs")] == pytest.approx(0.8)
    assert f1[("semantic", "obs")] == pytest.approx(0.5)
    assert f1[("semantic", "obs+int")] == pytest.approx(0.6)
    assert f1[("formula", "obs")] == pytest.approx(0.3)
    avg = t2[(t2.metric == "f1") & (t2.family == "Avg")]["mean"]
    assert avg.tolist() == pytest.approx([(0.8 + 0.5 + 0.6 + 0.3) / 4])
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    head = next(ln for ln in md.splitlines() if ln.startswith("| Method") and "obs" in ln)
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols == [
        "Method",
        "synthetic obs",
        "semantic obs",
        "semantic obs+int",
        "formula obs",
        "Avg",
    ]
    # the footer names every release with its manifest
    assert "arena-formula@0.1.0; arena-semantic@0.1.0; arena-synthetic@1.0.0" in md
    assert f"{'cc' * 32}; {'bb' * 32}; {'aa' * 32}" in md


def test_two_versions_of_one_suite_or_two_manifests_of_one_release_are_refused(tmp_path):
    a = _rows("semantic", [0.4])
    b = [dict(r, release_version="arena-semantic@0.2.0") for r in _rows("semantic", [0.5])]
    with pytest.raises(ValueError, match="release_version"):
        write_report(pd.DataFrame(a + b), tmp_path)
    c = [dict(r, manifest_sha256="dd" * 32, scm_id="x") for r in _rows("semantic", [0.5])]
    with pytest.raises(ValueError, match="manifest_sha256"):
        write_report(pd.DataFrame(a + c + _rows("formula", [0.2])), tmp_path)


def test_cli_report_takes_several_predictions_folders(tmp_path, monkeypatch, capsys):
    import causalarena.eval.edges as edges_mod
    import causalarena.eval.score as score_mod
    from causalarena.cli import main

    frames = {
        "p-syn": pd.DataFrame(_rows("synthetic", [0.9, 0.7])),
        "p-sem": pd.DataFrame(_rows("semantic", [0.4, 0.6])),
    }
    seen = []

    def fake_score(release, pred_dir, **kw):
        seen.append((str(release), str(pred_dir)))
        return frames[str(pred_dir)]

    monkeypatch.setattr(score_mod, "score_predictions", fake_score)
    monkeypatch.setattr(score_mod, "release_of", lambda d: f"rel-of-{d}")
    monkeypatch.setattr(edges_mod, "edge_counts", lambda r, d: pd.DataFrame())
    out = tmp_path / "rep"
    assert main(["report", "p-syn", "p-sem", "--out", str(out), "--no-ood"]) == 0
    # each folder scored against its own release
    assert seen == [("rel-of-p-syn", "p-syn"), ("rel-of-p-sem", "p-sem")]
    t2 = pd.read_csv(out / "table2.csv")
    f1 = t2[(t2.metric == "f1") & (t2.split == "obs")].set_index("family")["mean"]
    assert f1["synthetic"] == pytest.approx(0.8) and f1["semantic"] == pytest.approx(0.5)
    # --release names one release: refused with several folders, nothing written
    assert main(["report", "p-syn", "p-sem", "--out", str(tmp_path / "x"), "--release", "r"]) == 2
    assert "--release" in capsys.readouterr().err and not (tmp_path / "x").exists()
