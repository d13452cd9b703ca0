"""OOD priors file and CLI, edge-level breakdown, nested-k runtime harness."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalarena
from causalarena.baselines.registry import get_method
from causalarena.cli import main
from causalarena.eval import analyses as an
from causalarena.eval.priors import PriorsError, coverage_table, load_priors


# ----------------------------------------------------------------------------------------------
# priors
# ----------------------------------------------------------------------------------------------
def test_packaged_priors_reproduce_figure_14_counts():
    p = load_priors()
    assert p.reference_methods == ("cdis", "gies", "igsp", "pc")
    cov = coverage_table(p).set_index("method")
    # Figure 14, Mean column (percent, rounded)
    paper = {"Arrow": 18, "AVICI": 22, "CauScale": 13, "CDFM": 38, "FoundCause": 49, "SEA": 13}
    paper["TabCausal"] = 45
    for m, pct in paper.items():
        assert round(100 * cov.loc[m, "mean"]) == pct, m
    # audited category lists agree with the paper's covered counts
    for m, rec in p.methods.items():
        if rec["categories"]:
            for axis, n in rec["paper_counts"].items():
                assert len(rec["categories"][axis]) == n, (m, axis)
    assert cov.loc["AVICI", "graph_family"] == "4/10" and cov.loc["AVICI", "audited"]


def test_priors_file_errors_name_file_method_axis_value(tmp_path):
    bad = tmp_path / "priors.json"
    bad.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "version": "x",
                "methods": {"m": {"categories": {"graph_family": ["erdos_renyi", "ER"]}}},
            }
        )
    )
    with pytest.raises(
        PriorsError, match=r"priors.json: methods.m.categories.graph_family: .*'ER'"
    ):
        load_priors(bad)
    bad.write_text("{not json")
    with pytest.raises(PriorsError, match="not valid JSON"):
        load_priors(bad)
    with pytest.raises(PriorsError, match="cannot read"):
        load_priors(tmp_path / "missing.json")


@pytest.fixture(scope="module")
def ood_predictions(mini_release, tmp_path_factory):
    """Predictions of a stand-in 'avici' (var-sort-regress) and of 'pc'/'gies' references."""
    pred = tmp_path_factory.mktemp("ood-pred")
    for name, base in (
        ("avici", "var-sort-regress"),
        ("pc", "random-regress"),
        ("gies", "chain-regress"),
    ):
        try:
            m = get_method(base)
        except KeyError:
            m = get_method("random-regress")
        causalarena.evaluate(
            lambda X, mask, seed, m=m: m.fit(X, mask, seed=seed).adjacency,
            release=mini_release,
            config="synthetic-obs",
            isolation="none",
            name=name,
            out=pred,
            max_d=10,
        )
    return pred


def test_cli_report_computes_ood_from_packaged_priors(
    mini_release, ood_predictions, tmp_path, capsys
):
    out = tmp_path / "rep"
    rc = main(["report", str(ood_predictions), "--out", str(out), "--release", str(mini_release)])
    assert rc == 0
    err = capsys.readouterr().err
    assert "without cdis, igsp (not in the predictions)" in err and "['" not in err
    ood = pd.read_csv(out / "ood.csv")
    assert set(ood["method"]) == {"avici"}
    assert set(ood["factor"]) == {
        "graph_family",
        "mechanism_tags",
        "noise_tags",
        "root_tags",
        "overall",
    }
    # recompute one axis by hand from the instance scores
    inst = pd.read_csv(out / "instance_scores.csv")
    inst = inst[inst["setting"] == "obs"]
    F = inst.groupby(["method", "graph_family"])["f1"].mean().unstack()
    ref = F.loc[["gies", "pc"]].mean()
    id_c = [
        c for c in ("erdos_renyi", "scale_free", "small_world", "block_sparse_layered") if c in F
    ]
    ood_c = [c for c in F.columns if c not in id_c]
    r_id = (F.loc["avici", id_c].mean() - ref[id_c].mean()) / ref[id_c].mean()
    r_ood = (F.loc["avici", ood_c].mean() - ref[ood_c].mean()) / ref[ood_c].mean()
    row = ood[ood["factor"] == "graph_family"].iloc[0]
    assert row["r_id"] == pytest.approx(r_id) and row["r_ood"] == pytest.approx(r_ood)
    assert row["gap"] == pytest.approx(r_id - r_ood)
    md = (out / "leaderboard.md").read_text()
    assert "Pretraining-exposure OOD score" in md and "Figure 14" in md
    # a bad priors file is a usage error naming the file
    bad = tmp_path / "p.json"
    bad.write_text("[]")
    rc = main(
        [
            "report",
            str(ood_predictions),
            "--out",
            str(out),
            "--release",
            str(mini_release),
            "--priors",
            str(bad),
        ]
    )
    assert rc == 2 and "p.json" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# edges
# ----------------------------------------------------------------------------------------------
def test_edge_tag_counts_assigns_the_childs_tag():
    truth = np.zeros((3, 3), int)
    truth[0, 1] = truth[0, 2] = 1  # 0 -> 1 (child 1 'lin'), 0 -> 2 (child 2 'sin')
    pred = np.zeros((3, 3), int)
    pred[0, 1] = 1  # found
    pred[2, 0] = 1  # reversed 0 -> 2: FN for child 2, FP for child 0
    c = an.edge_tag_counts(truth, pred, ["(root)", "lin", "sin"])
    assert c == {"(root)": (0, 1, 0), "lin": (1, 0, 0), "sin": (0, 0, 1)}
    e = pd.DataFrame(
        [
            {
                "method": "m",
                "axis": "mechanism",
                "setting": "obs",
                "category": k,
                "tp": v[0],
                "fp": v[1],
                "fn": v[2],
            }
            for k, v in c.items()
        ]
    )
    t = an.edge_f1_table(e).set_index("category")
    assert t.loc["lin", "edge_f1"] == 1.0 and t.loc["sin", "edge_f1"] == 0.0


def test_node_tags_refuse_a_real_table_description():
    from causalarena.eval.edges import node_tags

    with pytest.raises(ValueError, match="executable"):
        node_tags({"variables": ["Raf", "Mek"]})
    tags = node_tags(
        {
            "variables": [
                {"name": "a", "mechanism": None},
                {
                    "name": "b",
                    "mechanism": {"family": "polynomial"},
                    "noise": {"family": "laplace"},
                },
            ]
        }
    )
    assert tags == {"mechanism": ["(root)", "polynomial_power"], "noise": ["(root)", "laplace"]}


def test_edge_counts_sum_to_the_scorers_f1(mini_release, ood_predictions):
    from causalarena.eval.edges import edge_counts
    from causalarena.eval.score import score_predictions

    e = edge_counts(mini_release, ood_predictions)
    assert set(e["axis"]) == {"mechanism", "noise"}
    s = score_predictions(mini_release, ood_predictions).set_index(["method", "instance_id"])
    for axis in ("mechanism", "noise"):
        tot = e[e["axis"] == axis].groupby(["method", "instance_id"])[["tp", "fp", "fn"]].sum()
        den = 2 * tot["tp"] + tot["fp"] + tot["fn"]
        f1 = (2 * tot["tp"] / den).where(den > 0, 0.0)
        assert np.allclose(f1.to_numpy(), s.loc[f1.index, "f1"].to_numpy(), equal_nan=True)


# ----------------------------------------------------------------------------------------------
# runtime
# ----------------------------------------------------------------------------------------------
def test_runtime_k_fits_recover_fixed_and_per_graph_cost():
    pts = pd.DataFrame(
        [
            {"method": "m", "d": d, "k": k, "T_s": 3.0 + 0.5 * k * d / 10}
            for d in (10, 20)
            for k in (1, 2, 4, 8)
        ]
    )
    f = an.runtime_k_fits(pts).set_index(["method", "d"])
    assert f.loc[("m", 10), "t_fixed_s"] == pytest.approx(3.0)
    assert f.loc[("m", 10), "t_graph_s"] == pytest.approx(0.5)
    assert f.loc[("m", 20), "t_graph_s"] == pytest.approx(1.0)
    assert f.loc[("m", "mean"), "t_graph_s"] == pytest.approx(0.75)


def test_nested_sample_is_nested_and_family_balanced(mini_release):
    from causalarena.eval.timing import nested_sample

    big = nested_sample(mini_release, "synthetic-obs", 10, 10)
    assert nested_sample(mini_release, "synthetic-obs", 10, 4) == big[:4]
    import pyarrow.parquet as pq

    t = pq.read_table(
        mini_release / "data" / "synthetic-obs", columns=["instance_id", "graph_family"]
    )
    fam = dict(zip(t["instance_id"].to_pylist(), t["graph_family"].to_pylist(), strict=True))
    fams = [fam[i] for i in big]
    assert fams == sorted(fams)  # round-robin over sorted families
    assert len(set(fams)) == len(big) == 10  # mini: one instance per family at d = 10


def test_nested_k_harness_and_cli(mini_release, tmp_path, capsys):
    out = tmp_path / "rt.csv"
    rc = main(
        [
            "runtime",
            "--release",
            str(mini_release),
            "--methods",
            "random-regress",
            "--k",
            "1,3",
            "--d",
            "10",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    pts = pd.read_csv(out)
    assert list(pts["k"]) == [1, 3] and (pts["status"] == "ok").all()
    # T(k) includes the process start and imports, so it exceeds the fits alone
    assert (pts["T_s"] > pts["t_fit_s"]).all() and (pts["t_import_s"] > 0).all()
    assert "random-regress" in capsys.readouterr().out
    assert (
        main(["runtime", "--release", str(mini_release), "--methods", "random-regress", "--k", "0"])
        == 2
    )
