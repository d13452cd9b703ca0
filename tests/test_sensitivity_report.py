"""Table 3 and Figure 6a of the report (paper 5.3) on hand-built score tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalarena.eval import analyses as an
from causalarena.eval import sensitivity as sens
from causalarena.eval.report import write_report


def row(method, scm, config, f1, shd, **kw):
    base = {
        "method": method,
        "method_version": "1.0",
        "library_version": "lib",
        "config": config,
        "instance_id": f"{scm}/{config}/r0",
        "scm_id": scm,
        "replicate": 0,
        "setting": "obsint" if config.startswith("protocols-") else "obs",
        "family": "protocols" if config.startswith("protocols-") else "samplesize",
        "graph_family": "er",
        "d": 30,
        "n": 1000,
        "status": "ok",
        "runtime_s": 1.0,
        "precision": 0.5,
        "recall": 0.5,
        "f1": f1,
        "shd": shd,
        "release_version": "0.1.0",
        "manifest_sha256": "ab" * 32,
        "package_version": "0.1.0",
    }
    base.update(kw)
    return base


def protocol_scores():
    # A: default F1 (0.5, 0.7); fixed (0.4, 0.8); shift only on s1 (0.2)
    return pd.DataFrame(
        [
            row("A", "s1", "protocols-default", 0.5, 10.0),
            row("A", "s2", "protocols-default", 0.7, 20.0),
            row("A", "s1", "protocols-fixed-setpoint", 0.4, 12.0),
            row("A", "s2", "protocols-fixed-setpoint", 0.8, 16.0),
            row("A", "s1", "protocols-parameter-shift", 0.2, 30.0),
            row("B", "s1", "protocols-default", 0.3, 5.0),
            row("B", "s2", "protocols-default", 0.3, 7.0),
            row("B", "s1", "protocols-dense-mixed", 0.3, 9.0),
            row("B", "s2", "protocols-dense-mixed", 0.5, 9.0),
        ]
    )


def test_protocol_table_hand_computed():
    t = sens.protocol_table(an.instance_scores(protocol_scores())).set_index(["method", "protocol"])
    a = t.loc["A"]
    assert list(a.index) == ["default", "fixed-setpoint", "parameter-shift"]  # paper order
    assert a.loc["default", "f1"] == pytest.approx(0.6)
    assert a.loc["default", "f1_sd"] == pytest.approx(np.std([0.5, 0.7], ddof=1))
    assert np.isnan(a.loc["default", "delta_f1"])
    assert a.loc["fixed-setpoint", "delta_f1"] == pytest.approx(0.0)
    assert a.loc["fixed-setpoint", "delta_shd"] == pytest.approx(-1.0)
    # paired on s1 only: 0.2 - 0.5 (not 0.2 - mean default 0.6)
    assert a.loc["parameter-shift", "delta_f1"] == pytest.approx(-0.3)
    assert a.loc["parameter-shift", "n_instances"] == 1
    sd = np.std([0.6, 0.6, 0.2], ddof=1)
    np.testing.assert_allclose(a["f1_sd_protocols"].to_numpy(), sd)
    b = t.loc["B"]
    assert b.loc["dense-mixed", "delta_f1"] == pytest.approx(0.1)
    assert b.loc["dense-mixed", "shd"] == pytest.approx(9.0)
    wide = sens.format_protocol_table(t.reset_index(), "–").set_index("Method")
    assert wide.loc["A", "Default"] == "0.600 / 15.0"
    assert wide.loc["A", "Parameter shift"] == "0.200 / 30.0 (-0.300)"
    assert wide.loc["B", "Fixed setpoint"] == "–"
    assert wide.loc["A", "F1 SD"] == f"{sd:.3f}"


def test_samplesize_table_orders_n_numerically():
    df = pd.DataFrame(
        [
            row("A", s, f"samplesize-n{n}", f1, 1.0, n=n)
            for n, vals in ((100, (0.1, 0.3)), (1000, (0.5, 0.5)), (10000, (0.6, 0.8)))
            for s, f1 in zip(("s1", "s2"), vals, strict=True)
        ]
    )
    t = sens.samplesize_table(an.instance_scores(df))
    assert list(t.columns) == [100, 1000, 10000]
    np.testing.assert_allclose(t.loc["A"].to_numpy(), [0.2, 0.5, 0.7])
    assert sens.size_of("samplesize-n5000") == 5000 and sens.size_of("synthetic-obs") is None


def test_report_writes_table3_and_figure6_only_when_the_configs_are_present(tmp_path):
    ss = pd.DataFrame(
        [
            row(m, s, f"samplesize-n{n}", f1 + 0.1 * k, 1.0, n=n)
            for k, n in enumerate((100, 200, 500))
            for m, f1 in (("A", 0.2), ("B", 0.3))
            for s in ("s1", "s2")
        ]
    )
    written = write_report(pd.concat([protocol_scores(), ss]), tmp_path / "r")
    assert {"table3.csv", "samplesize.csv", "plots/f1_vs_n.png"} <= set(written)
    assert "plots/protocol_deltas.png" in written
    md = (tmp_path / "r" / "leaderboard.md").read_text()
    assert "Intervention-protocol sensitivity" in md and "0.200 / 30.0 (-0.300)" in md
    assert "Observation-only sample size" in md
    # the sensitivity families stay out of the Table 2 cells
    assert "table2.csv" not in written
    plain = pd.DataFrame([row("A", "s1", "synthetic-obs", 0.5, 1.0, family="synthetic")])
    w2 = write_report(plain, tmp_path / "p")
    assert "table3.csv" not in w2 and "plots/f1_vs_n.png" not in w2
