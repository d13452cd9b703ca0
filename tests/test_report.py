"""Tests of causalarena.eval.analyses / plots / report on small hand-built score tables."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from causalarena.eval import analyses as an
from causalarena.eval.report import MISSING, write_report

CHROMIUM = Path("/usr/bin/chromium")


def row(method: str, scm: str, f1: float | None = None, *, rep: int = 0, status: str = "ok", **kw):
    """One scores-table row with sensible defaults; ``f1=None`` means NaN."""
    base = {
        "method": method,
        "method_version": "1.0",
        "library_version": "lib-" + method,
        "config": "synthetic-obs",
        "instance_id": f"{scm}-r{rep}",
        "scm_id": scm,
        "replicate": rep,
        "setting": "obs",
        "family": "synthetic",
        "graph_family": "er",
        "d": 10,
        "n_edges": 12,
        "mechanism_tags": ["linear"],
        "noise_tags": ["gauss"],
        "root_tags": ["normal"],
        "root_dependency": "independent",
        "difficulty": "clean",
        "n": 1000,
        "status": status,
        "runtime_s": 1.0,
        "precision": 0.5,
        "recall": 0.5,
        "f1": np.nan if f1 is None else f1,
        "shd": 3.0,
        "nshd": 0.03,
        "sid": 5.0,
        "auroc": 0.8,
        "ap": 0.6,
        "shd_pattern": 2.0,
        "release_version": "2026.1",
        "manifest_sha256": "ab" * 32,
        "package_version": "0.1.0",
    }
    base.update(kw)
    return base


# ----------------------------------------------------------------------------------------------
# replicate averaging and slices
# ----------------------------------------------------------------------------------------------
def test_instance_scores_average_ok_replicates_and_count_statuses():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.2, rep=0),
            row("A", "s1", 0.4, rep=1),
            # a failed run's metric (even if present) is ignored
            row("A", "s1", 0.9, rep=2, status="failed"),
            row("A", "s2", None, rep=0, status="timeout"),
            row("A", "s2", None, rep=1, status="failed"),
            row("B", "s1", 0.5, rep=0, auroc=np.nan, ap=np.nan),
        ]
    )
    inst = an.instance_scores(df).set_index(["method", "scm_id"])
    a1 = inst.loc[("A", "s1")]
    assert a1["f1"] == pytest.approx(0.3)
    assert (a1["n_ok"], a1["n_failed"], a1["n_timeout"], a1["n_runs"]) == (2, 1, 0, 3)
    assert a1["coverage"] == pytest.approx(2 / 3)
    a2 = inst.loc[("A", "s2")]
    assert math.isnan(a2["f1"]) and math.isnan(a2["shd"])
    assert (a2["n_ok"], a2["n_failed"], a2["n_timeout"], a2["coverage"]) == (0, 1, 1, 0.0)
    b1 = inst.loc[("B", "s1")]
    assert b1["f1"] == pytest.approx(0.5) and math.isnan(b1["auroc"])
    assert inst.loc[("A", "s1"), "difficulty_stressors"] == ["clean"]


def test_instance_scores_rejects_bad_input():
    with pytest.raises(ValueError, match="unknown status"):
        an.instance_scores(pd.DataFrame([row("A", "s1", 0.1, status="crashed")]))
    with pytest.raises(ValueError, match="missing required"):
        an.instance_scores(pd.DataFrame([row("A", "s1", 0.1)]).drop(columns="status"))
    with pytest.raises(ValueError, match="empty"):
        an.instance_scores(pd.DataFrame([row("A", "s1", 0.1)]).iloc[:0])


def test_slice_mean_scalar_factor_uses_replicate_averages():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.2, rep=0, graph_family="er"),
            row("A", "s1", 0.4, rep=1, graph_family="er"),  # s1 -> 0.3
            row("A", "s2", 0.5, graph_family="er"),
            row("A", "s3", 0.9, graph_family="sf"),
        ]
    )
    t = an.slice_means(df, "graph_family", "f1")
    assert t.loc["A", "er"] == pytest.approx(0.4)  # (0.3 + 0.5) / 2, not (0.2+0.4+0.5)/3
    assert t.loc["A", "sf"] == pytest.approx(0.9)


def test_list_factor_instance_counts_in_every_tag():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.6, mechanism_tags=["a", "b"]),
            row("A", "s2", 0.2, mechanism_tags=["a"]),
        ]
    )
    t = an.slice_means(df, "mechanism_tags", "f1")
    assert list(t.columns) == ["a", "b"]
    assert t.loc["A", "a"] == pytest.approx(0.4)
    assert t.loc["A", "b"] == pytest.approx(0.6)
    long = an.slice_table(df, "mechanism_tags").set_index("category")
    assert long.loc["a", "n_instances"] == 2 and long.loc["b", "n_instances"] == 1
    # derived list factor: difficulty split on "+"
    df2 = pd.DataFrame([row("A", "s1", 0.6, difficulty="hetero+shift"), row("A", "s2", 0.2)])
    t2 = an.slice_means(df2, "difficulty_stressors", "f1")
    assert t2.loc["A", "hetero"] == pytest.approx(0.6) and t2.loc["A", "clean"] == 0.2


def test_pooled_is_mean_over_instances():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.2, rep=0),
            row("A", "s1", 0.4, rep=1),
            row("A", "s2", 0.6),
            row("A", "s3", None, status="failed"),
            row("B", "s1", 1.0),
        ]
    )
    p = an.pooled(df, "f1")
    assert p["A"] == pytest.approx(0.45)  # (0.3 + 0.6) / 2; the failed s3 is not scored
    assert p["B"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unknown metric"):
        an.pooled(df, "accuracy")


# ----------------------------------------------------------------------------------------------
# win rates
# ----------------------------------------------------------------------------------------------
def _win_table() -> pd.DataFrame:
    rows = []
    a = [0.5, 0.7, 0.8, 0.3]
    b = [0.5, 0.6, None, 0.1]
    c = [0.4, None, 0.9, None]
    for i in range(4):
        scm = f"s{i + 1}"
        rows.append(row("A", scm, a[i]))
        if b[i] is not None:
            rows.append(row("B", scm, b[i]))
        else:  # two replicates averaging to 0.9 up to rounding: 0.7 + 1.1 = 1.8000000000000003
            rows += [row("B", scm, 0.7, rep=0), row("B", scm, 1.1, rep=1)]
        if c[i] is not None:
            rows.append(row("C", scm, c[i]))
        else:
            rows.append(row("C", scm, None, status="failed"))
    # one semantic unit where C is unsupported
    rows += [
        row("A", "m1", 0.1, family="semantic"),
        row("B", "m1", 0.2, family="semantic"),
        row("C", "m1", None, family="semantic", status="unsupported"),
    ]
    return pd.DataFrame(rows)


def test_pairwise_win_matrix_ties_and_failed_instances():
    m = an.pairwise_win_matrix(_win_table(), "f1", family="synthetic")
    # A vs B on s1..s4: tie, win, lose, win -> 2.5 / 4
    assert m.loc["A", "B"] == pytest.approx(0.625)
    assert m.loc["B", "A"] == pytest.approx(0.375)
    # C failed on s2, s4: compared on s1, s3 only. A: win (0.5>0.4), lose (0.8<0.9)
    assert m.loc["A", "C"] == pytest.approx(0.5)
    # B vs C: win on s1, tie on s3 (0.9 vs 0.9 after averaging replicates)
    assert m.loc["B", "C"] == pytest.approx(0.75)
    assert m.loc["C", "B"] == pytest.approx(0.25)
    assert np.isnan(m.loc["A", "A"])


def test_win_rates_per_family_and_pooled():
    w = an.win_rates(_win_table(), "f1")
    assert list(w.columns) == ["semantic", "synthetic", "family_mean", "pooled"]
    assert w.loc["A", "synthetic"] == pytest.approx((0.625 + 0.5) / 2)
    assert w.loc["B", "synthetic"] == pytest.approx((0.375 + 0.75) / 2)
    assert w.loc["C", "synthetic"] == pytest.approx((0.5 + 0.25) / 2)
    # semantic: only A vs B (C unsupported); B wins
    assert w.loc["A", "semantic"] == 0.0 and w.loc["B", "semantic"] == 1.0
    assert np.isnan(w.loc["C", "semantic"])
    # pooled over all five units: A vs B = 2.5 / 5, A vs C = 0.5
    assert w.loc["A", "pooled"] == pytest.approx(0.5)
    assert w.loc["B", "pooled"] == pytest.approx((0.5 + 0.75) / 2)
    assert w.loc["A", "family_mean"] == pytest.approx((0.0 + 0.5625) / 2)


def test_win_rates_shd_lower_wins():
    df = pd.DataFrame(
        [
            row("A", "s1", shd=2.0),
            row("B", "s1", shd=2.0),
            row("A", "s2", shd=3.0),
            row("B", "s2", shd=5.0),
        ]
    )
    w = an.win_rates(df, "shd")
    assert w.loc["A", "pooled"] == pytest.approx(0.75)  # tie 0.5 + win 1
    assert w.loc["B", "pooled"] == pytest.approx(0.25)


# ----------------------------------------------------------------------------------------------
# interaction and OOD
# ----------------------------------------------------------------------------------------------
def test_interaction_double_centred_hand_cell():
    F = {
        "A": {"x": 0.8, "y": 0.4, "z": 0.6},
        "B": {"x": 0.5, "y": 0.5, "z": 0.2},
        "C": {"x": 0.2, "y": 0.3, "z": 0.7},
    }
    rows = []
    for m, cats in F.items():
        for c, v in cats.items():
            # two instances per cell around the cell mean
            rows.append(row(m, f"{c}1", v - 0.1, graph_family=c))
            rows.append(row(m, f"{c}2", v + 0.1, graph_family=c))
    inter = an.interaction_scores(pd.DataFrame(rows), "graph_family")
    assert np.allclose(inter.sum(axis=0), 0.0, atol=1e-12)
    assert np.allclose(inter.sum(axis=1), 0.0, atol=1e-12)
    # row mean A = 0.6, column mean x = 0.5, grand mean = 4.2 / 9
    assert inter.loc["A", "x"] == pytest.approx(0.8 - 0.6 - 0.5 + 4.2 / 9)
    assert inter.loc["B", "z"] == pytest.approx(0.2 - 0.4 - 0.5 + 4.2 / 9)


def test_interaction_drops_incomplete_categories_with_warning():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.5, graph_family="x"),
            row("A", "s2", 0.7, graph_family="y"),
            row("B", "s1", 0.4, graph_family="x"),
            row("B", "s2", None, graph_family="y", status="failed"),
            row("A", "s3", 0.1, graph_family="z"),
            row("B", "s3", 0.3, graph_family="z"),
        ]
    )
    with pytest.warns(UserWarning, match="dropping categories"):
        inter = an.interaction_scores(df, "graph_family")
    assert list(inter.columns) == ["x", "z"]


def test_ood_scores_hand_example():
    F = {
        "P": {"er": 0.75, "sf": 0.45, "tree": 0.3},
        "R1": {"er": 0.4, "sf": 0.2, "tree": 0.4},
        "R2": {"er": 0.6, "sf": 0.4, "tree": 0.2},
        "X": {"er": 0.1, "sf": 0.1, "tree": 0.1},  # no prior: skipped
    }
    rows = [row(m, c, v, graph_family=c) for m, cats in F.items() for c, v in cats.items()]
    priors = {"P": {"graph_family": ["er", "not-in-data"]}}
    out = an.ood_scores(pd.DataFrame(rows), priors, ["R1", "R2"], "graph_family")
    assert list(out["method"]) == ["P"]
    r = out.iloc[0]
    assert (r["n_id"], r["n_ood"]) == (1, 2)
    # ID = {er}: P 0.75 vs reference mean 0.5 -> +50 %
    assert r["score_id"] == pytest.approx(0.75) and r["ref_id"] == pytest.approx(0.5)
    assert r["r_id"] == pytest.approx(0.5)
    # OOD = {sf, tree}: P (0.45 + 0.3) / 2 = 0.375, reference (0.3 + 0.3) / 2 = 0.3 -> +25 %
    assert r["score_ood"] == pytest.approx(0.375) and r["ref_ood"] == pytest.approx(0.3)
    assert r["r_ood"] == pytest.approx(0.25)
    assert r["gap"] == pytest.approx(0.25)
    with pytest.raises(ValueError, match="reference method"):
        an.ood_scores(pd.DataFrame(rows), priors, ["PC"], "graph_family")


# ----------------------------------------------------------------------------------------------
# runtime and Pareto
# ----------------------------------------------------------------------------------------------
def test_runtime_fit_recovers_noiseless_line():
    k = np.array([100, 200, 500, 1000, 50, 20])
    fit = an.runtime_fit(k, 2.0 + 0.5 * k)
    assert fit.t_fixed == pytest.approx(2.0, rel=1e-9, abs=1e-9)
    assert fit.t_graph == pytest.approx(0.5, rel=1e-12)
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)
    assert fit.n == 6
    with pytest.raises(ValueError, match="two distinct"):
        an.runtime_fit([5, 5], [1.0, 2.0])
    with pytest.raises(ValueError, match="same length"):
        an.runtime_fit([1, 2, 3], [1.0, 2.0])


def test_runtime_table_and_pareto():
    df = pd.DataFrame(
        [
            row("A", "s1", 0.5, d=10, runtime_s=7.0),
            row("A", "s2", 0.5, d=20, runtime_s=12.0),
            row("A", "s3", 0.5, d=20, runtime_s=12.0),
            row("A", "s4", None, d=20, runtime_s=99.0, status="timeout"),
        ]
    )
    t = an.runtime_table(df)
    assert t.loc["A", "d=10"] == 7.0 and t.loc["A", "d=20"] == 12.0  # timeout excluded
    assert t.loc["A", "fit_intercept_s"] == pytest.approx(2.0)
    assert t.loc["A", "fit_slope_s_per_d"] == pytest.approx(0.5)
    mask = an.pareto_front([1.0, 2.0, 3.0, 2.5, np.nan], [0.3, 0.5, 0.4, 0.6, 0.9])
    assert mask.tolist() == [True, True, False, True, False]


# ----------------------------------------------------------------------------------------------
# report writer
# ----------------------------------------------------------------------------------------------
def _report_table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    methods = {"PC": False, "GIES": False, "AVICI": True, "NOTEARS": True}
    for m, has_scores in methods.items():
        for fam, n_scm in (("synthetic", 6), ("semantic", 3)):
            for s in range(n_scm):
                for rep in range(2):
                    failed = m == "NOTEARS" and s == 0 and fam == "synthetic"
                    rows.append(
                        row(
                            m,
                            f"{fam}-{s}",
                            None if failed else float(rng.uniform(0.2, 0.8)),
                            rep=rep,
                            status="failed" if failed else "ok",
                            family=fam,
                            graph_family=["er", "sf", "tree"][s % 3],
                            d=[10, 20][s % 2],
                            mechanism_tags=[["linear"], ["linear", "mlp"], ["gp"]][s % 3],
                            difficulty=["clean", "hetero+shift"][s % 2],
                            precision=float(rng.uniform(0.2, 0.9)),
                            recall=float(rng.uniform(0.2, 0.9)),
                            shd=float(rng.integers(0, 15)),
                            auroc=float(rng.uniform(0.5, 1)) if has_scores else np.nan,
                            ap=float(rng.uniform(0.3, 1)) if has_scores else np.nan,
                            library_version=None if m == "PC" else f"{m.lower()}-0.3",
                            runtime_s=float({"PC": 0.5, "GIES": 2, "AVICI": 0.1, "NOTEARS": 30}[m])
                            * (1 + 0.1 * s),
                        )
                    )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    priors = {"AVICI": {"graph_family": ["er"], "mechanism_tags": ["linear"]}}
    written = write_report(
        _report_table(),
        out,
        title="Test report",
        priors=priors,
        reference_methods=["PC", "GIES"],
    )
    return out, written


def test_report_writes_every_file(report):
    out, written = report
    expected = {
        "scores.parquet",
        "instance_scores.csv",
        "leaderboard.csv",
        "leaderboard.md",
        "win_rates.csv",
        "runtime.csv",
        "ood.csv",
        "index.html",
        "provenance.json",
        "slices/graph_family.csv",
        "slices/mechanism_tags.csv",
        "slices/d.csv",
        "slices/difficulty_stressors.csv",
        "interactions/graph_family.csv",
        "plots/win_rates_f1.png",
        "plots/win_rates_shd.png",
        "plots/frontier.png",
        "plots/precision_recall.png",
        "plots/f1_vs_d.png",
        "plots/interaction_graph_family.png",
        "plots/interaction_mechanism_tags.png",
        "plots/ood.png",
    }
    assert expected <= set(written)
    for rel, path in written.items():
        assert path == out / rel and path.is_file() and path.stat().st_size > 0, rel
    for rel in written:
        if rel.endswith(".png"):
            assert (out / rel).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    board = pd.read_csv(out / "leaderboard.csv")
    assert set(board["method"]) == {"PC", "GIES", "AVICI", "NOTEARS"}
    assert board["f1"].is_monotonic_decreasing
    nt = board.set_index("method").loc["NOTEARS"]
    assert (nt["n_ok"], nt["n_failed"], nt["coverage"]) == (16, 2, pytest.approx(16 / 18))


def test_leaderboard_md_marks_undefined_auroc(report):
    out, _ = report
    lines = (out / "leaderboard.md").read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if line.startswith("| Rank"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    i_auroc, i_ap = cols.index("AUROC"), cols.index("AP")
    cells = {}
    for line in lines:
        if re.match(r"^\| \d+ \|", line):
            parts = [c.strip() for c in line.strip("|").split("|")]
            cells[parts[1]] = parts
    assert set(cells) == {"PC", "GIES", "AVICI", "NOTEARS"}
    for m in ("PC", "GIES"):
        assert cells[m][i_auroc] == MISSING and cells[m][i_ap] == MISSING
        assert cells[m][i_auroc] == "–"
    assert re.fullmatch(r"0\.\d{3}", cells["AVICI"][i_auroc])
    assert cells["PC"][cols.index("Library")] == MISSING


def test_report_records_provenance(report):
    out, _ = report
    prov = json.loads((out / "provenance.json").read_text())
    assert prov["release_version"] == "2026.1"
    assert prov["manifest_sha256"] == "ab" * 32
    assert prov["package_version"] == "0.1.0"
    assert prov["methods"]["AVICI"]["library_version"] == "avici-0.3"
    assert prov["methods"]["PC"]["library_version"] is None
    assert "leaderboard.md" in prov["files"] and len(prov["files"]["leaderboard.md"]) == 64
    page = (out / "index.html").read_text(encoding="utf-8")
    footer = page[page.index('<footer id="provenance">') :]
    assert "ab" * 32 in footer and "2026.1" in footer and "avici-0.3" in footer
    assert "ab" * 32 in (out / "leaderboard.md").read_text(encoding="utf-8")
    for csv in ("leaderboard.csv", "instance_scores.csv", "slices/graph_family.csv"):
        df = pd.read_csv(out / csv)
        assert (df["manifest_sha256"] == "ab" * 32).all(), csv
        assert (df["release_version"].astype(str) == "2026.1").all(), csv
    meta = pq.read_schema(out / "scores.parquet").metadata
    assert json.loads(meta[b"causalarena.provenance"])["release_version"] == "2026.1"
    assert len(pd.read_parquet(out / "scores.parquet")) == len(_report_table())
    from PIL import Image

    with Image.open(out / "plots" / "frontier.png") as im:
        assert "ab" * 32 in im.info.get("Description", "")


def test_report_rejects_mixed_releases(tmp_path):
    df = pd.DataFrame([row("A", "s1", 0.5), row("A", "s2", 0.5, release_version="2026.2")])
    with pytest.raises(ValueError, match="release_version"):
        write_report(df, tmp_path)


def test_report_accepts_parquet_path(tmp_path):
    df = pd.DataFrame([row("A", "s1", 0.5), row("B", "s1", 0.4), row("A", "s2", 0.3)])
    df.to_parquet(tmp_path / "in.parquet")
    written = write_report(tmp_path / "in.parquet", tmp_path / "out")
    assert (tmp_path / "out" / "index.html") == written["index.html"]
    with pytest.raises(FileNotFoundError):
        write_report(tmp_path / "missing.parquet", tmp_path / "out2")


# ----------------------------------------------------------------------------------------------
# headless browser
# ----------------------------------------------------------------------------------------------
_PROBE = (
    "<script>window.addEventListener('load',function(){var r=[];"
    "document.querySelectorAll('img').forEach(function(i){"
    "r.push([i.getAttribute('src'),i.complete,i.naturalWidth,i.naturalHeight]);});"
    "var d=document.createElement('pre');d.id='img-probe';d.textContent=JSON.stringify(r);"
    "document.body.appendChild(d);});</script>"
)


def _chromium(args: list[str], user_dir: Path) -> subprocess.CompletedProcess:
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={user_dir}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="/usr/bin/chromium not installed (apt-get install chromium)"
)
def test_index_html_renders_in_headless_chromium(report, tmp_path):
    out, written = report
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page and "http://" not in page and "https://" not in page
    n_imgs = sum(1 for k in written if k.endswith(".png"))
    assert page.count("<img ") == n_imgs

    # 1. DOM after load: the table rows, and every <img> decoded (probe copy in the same folder)
    probe = out / "_probe.html"
    probe.write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    res = _chromium(["--virtual-time-budget=15000", "--dump-dom", probe.as_uri()], tmp_path / "ud1")
    probe.unlink()
    assert res.returncode == 0, res.stderr[-2000:]
    dom = res.stdout
    assert dom.count('<tr class="method-row">') == 4
    for m in ("PC", "GIES", "AVICI", "NOTEARS"):
        assert f'<td class="text">{m}</td>' in dom
    found = re.search(r'<pre id="img-probe">(.*?)</pre>', dom, re.S)
    assert found, "load-event probe did not run"
    imgs = json.loads(found.group(1).replace("&quot;", '"'))
    assert len(imgs) == n_imgs
    for src, complete, width, height in imgs:
        assert complete and width > 100 and height > 100, src

    # 2. Screenshot of the page is not blank
    shot = tmp_path / "shot.png"
    res = _chromium(
        ["--window-size=1280,2000", f"--screenshot={shot}", (out / "index.html").as_uri()],
        tmp_path / "ud2",
    )
    assert res.returncode == 0 and shot.is_file(), res.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as im:
        px = np.asarray(im.convert("L"), dtype=float)
    assert px.shape[0] >= 1000 and px.shape[1] >= 1000
    assert px.std() > 10  # not a uniform page
    assert (px < 128).mean() > 0.005  # some dark pixels: text, axes


def test_report_figures_drawn_in_a_process_are_the_same_files(report, tmp_path, monkeypatch):
    # Large reports draw their figures in a spawned process beside the tables; every file
    # (PNG bytes, the checksums in provenance.json) must equal the inline report's.
    import causalarena.eval.report as rep

    monkeypatch.setattr(rep, "PARALLEL_PLOT_ROWS", 1)
    inline_dir, inline = report
    priors = {"AVICI": {"graph_family": ["er"], "mechanism_tags": ["linear"]}}
    written = write_report(
        _report_table(),
        tmp_path,
        title="Test report",
        priors=priors,
        reference_methods=["PC", "GIES"],
    )
    assert sorted(written) == sorted(inline)
    pngs = [k for k in written if k.endswith(".png")]
    assert len(pngs) >= 5
    for k in written:
        assert written[k].read_bytes() == (inline_dir / k).read_bytes(), k


def test_f1_vs_d_leaves_out_a_d_the_method_never_submitted(tmp_path, monkeypatch):
    # B ran d = 10 only; its d = 20 instances are "missing" (scored as the empty-graph
    # fallback, F1 = 0, in the ranking).  The curve must not draw that fallback as B's F1.
    from causalarena.eval import plots

    seen = []
    real = plots.plot_metric_vs_d
    monkeypatch.setattr(
        plots, "plot_metric_vs_d", lambda t, p, **kw: (seen.append(t.copy()), real(t, p, **kw))[1]
    )
    rows = []
    for k in range(3):
        rows += [row("A", f"a{k}", 0.6, d=10), row("A", f"b{k}", 0.4, d=20)]
        rows += [row("B", f"a{k}", 0.5, d=10)]
        rows += [row("B", f"b{k}", 0.0, d=20, status="missing", scored_as="fallback")]
    for r in rows:
        r.setdefault("scored_as", "ok" if r["status"] == "ok" else "fallback")
    write_report(pd.DataFrame(rows), tmp_path, title="t")
    (table,) = seen
    assert table.loc["A", 10] == pytest.approx(0.6) and table.loc["A", 20] == pytest.approx(0.4)
    assert table.loc["B", 10] == pytest.approx(0.5)
    assert math.isnan(table.loc["B", 20])  # not 0.0
