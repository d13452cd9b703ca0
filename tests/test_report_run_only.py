"""Table 3 with the coverage rule vs over the instances that were run (report option)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.cli import main


@pytest.fixture(scope="module")
def protocols_release(tmp_path_factory):
    from causalarena.release.engine import build

    out = tmp_path_factory.mktemp("prot") / "rel"
    return build("arena-protocols", scale="mini", out=out, quiet=True, scms=2)


def _truth(release, config):
    t = pq.read_table(sorted((release / "data" / config).glob("*.parquet"))[0])
    return {
        r["instance_id"]: r["adjacency"] for r in t.select(["instance_id", "adjacency"]).to_pylist()
    }


def _write(pred, release, config, rows):
    from causalarena.eval.score import release_provenance

    prov = release_provenance(release)
    (pred / config).mkdir(parents=True, exist_ok=True)
    tab = pa.table(
        {
            "instance_id": [r[0] for r in rows],
            "config": [config] * len(rows),
            "method": ["M"] * len(rows),
            "method_version": ["1"] * len(rows),
            "graph_type": ["dag"] * len(rows),
            "adjacency": pa.array([r[2] for r in rows], type=pa.list_(pa.list_(pa.int8()))),
            "status": [r[1] for r in rows],
            "runtime_s": [1.0] * len(rows),
            "error": [None if r[1] == "ok" else "boom" for r in rows],
            "release_version": [prov["release_version"]] * len(rows),
            "manifest_sha256": [prov["manifest_sha256"]] * len(rows),
        }
    )
    pq.write_table(tab, pred / config / "M.parquet")


def test_only_run_instances_gives_ok_means_and_the_default_the_fallback(
    protocols_release, tmp_path, capsys
):
    rel, pred = protocols_release, tmp_path / "pred"
    # default: both SCMs run with the true graph (F1 = 1); fixed setpoint: the first SCM run
    # (F1 = 1), the second missing; parameter shift: the first run, the second failed
    d = _truth(rel, "protocols-default")
    _write(pred, rel, "protocols-default", [(i, "ok", a) for i, a in sorted(d.items())])
    for config, second in (
        ("protocols-fixed-setpoint", None),
        ("protocols-parameter-shift", "failed"),
    ):
        t = sorted(_truth(rel, config).items())
        rows = [(t[0][0], "ok", t[0][1])]
        if second:
            rows.append((t[1][0], second, None))
        _write(pred, rel, config, rows)
    out_all, out_run = tmp_path / "all", tmp_path / "run"
    base = ["report", str(pred), "--release", str(rel), "--no-ood", "--no-edges", "--no-sid"]
    assert main([*base, "--out", str(out_all)]) == 0
    assert main([*base, "--out", str(out_run), "--only-run-instances"]) == 0
    capsys.readouterr()
    t_all = pd.read_csv(out_all / "table3.csv", comment="#").set_index("protocol")
    t_run = pd.read_csv(out_run / "table3.csv", comment="#").set_index("protocol")
    # coverage rule: the instance not run is the empty graph (F1 0, SHD = its edge count)
    for p in ("fixed-setpoint", "parameter-shift"):
        t = sorted(_truth(rel, f"protocols-{p}").items())
        edges = int(np.asarray(t[1][1]).sum())
        assert t_all.loc[p, "f1"] == pytest.approx(0.5) and t_all.loc[p, "n_instances"] == 2
        assert t_all.loc[p, "shd"] == pytest.approx(edges / 2)
        assert t_all.loc[p, "delta_f1"] == pytest.approx(-0.5)
        assert t_run.loc[p, "f1"] == pytest.approx(1.0) and t_run.loc[p, "n_instances"] == 1
        assert t_run.loc[p, "shd"] == pytest.approx(0.0) and t_run.loc[p, "delta_f1"] == 0
    assert t_all.loc["default", "f1"] == t_run.loc["default", "f1"] == pytest.approx(1.0)
    assert set(t_run["instances"]) == {"run only"} and set(t_all["instances"]) != {"run only"}
    md_run = (out_run / "leaderboard.md").read_text()
    md_all = (out_all / "leaderboard.md").read_text()
    assert "run instances only" in md_run and "run instances only" not in md_all
    assert "scored as the empty graph (coverage rule)" in md_all
    # the leaderboard itself keeps the coverage rule under the option
    lb_all = pd.read_csv(out_all / "leaderboard.csv", comment="#")
    lb_run = pd.read_csv(out_run / "leaderboard.csv", comment="#")
    pd.testing.assert_frame_equal(lb_all, lb_run)
