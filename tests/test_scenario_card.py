"""Scenario-suite card: domain tables, mechanism/noise mix (Fig. 18), Croissant descriptions."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causalarena.generator.scenario.card import SECTION_COLUMNS, card_sections, mix_counts


def _spec(variables):
    return json.dumps(
        {
            "variables": [
                {
                    "name": n,
                    "parents": ps,
                    "noise": {"family": noise, "params": {}},
                    "metadata": {"tag": tag},
                }
                for n, ps, tag, noise in variables
            ]
        }
    )


A = _spec(
    [
        ("r", [], "root", "none"),
        ("c1", ["r"], "event_count", "sc.poisson"),
        ("c2", ["r", "c1"], "linear_affine", "none"),
    ]
)
B = _spec([("r", [], "root", "none"), ("c", ["r"], "event_count", "sc.normal")])


def _table(rows):
    cols = {k: [r[k] for r in rows] for k in SECTION_COLUMNS}
    return pa.table(cols)


def _row(scm, domain, d, edges, targets, spec):
    return {
        "scm_id": scm,
        "family": "semantic",
        "domain": domain,
        "d": d,
        "n_edges": edges,
        "intervention_targets": targets,
        "spec": spec,
    }


@pytest.fixture
def tables():
    a = _row("a", "education", 3, 3, ["r"], A)
    b = _row("b", "finance_credit", 2, 1, ["r", "c"], B)
    # a replicate and the obsint copy of the same SCMs must be counted once
    return {"semantic-obs": _table([a, b, a]), "semantic-obsint": _table([b, a])}


def test_mix_counts_edges_by_child_family_and_nodes_by_noise():
    edges, noise = mix_counts([{"spec": A}, {"spec": B}])
    assert dict(edges) == {"root": 0, "event_count": 2, "linear_affine": 2}
    assert dict(noise) == {"none": 3, "poisson": 1, "normal": 1}


def test_domain_and_mix_sections_hand_computed(tables):
    (t1, domains), (t2, mix) = card_sections(tables)
    assert (t1, t2) == ("Scenario domains", "Mechanism and noise mix")
    lines = domains.splitlines()
    assert "| `education` | 1 | 3–3 (mean 3.00) | 3–3 (mean 3.00) | 1–1 (mean 1.00) |" in lines
    assert "| `finance_credit` | 1 | 2–2 (mean 2.00) | 1–1 (mean 1.00) | 2–2 (mean 2.00) |" in lines
    assert "| **all** | 2 | 2–3 (mean 2.50) | 1–3 (mean 2.00) | 1–2 (mean 1.50) |" in lines
    assert "The 2 public semantic scenarios" in domains and "mean 22.89" in domains
    rows = mix.splitlines()
    # 4 edges: event_count 2 (paper 15.3%), linear_affine 2; roots contribute no edges
    assert "| `event_count` | 2 | 50.0% | 15.3% |" in rows
    assert "| `linear_affine` | 2 | 50.0% | – |" in rows
    assert not any(r.startswith("| `root` |") for r in rows)
    # 5 nodes: none 3 (paper 43.2%), poisson 1, normal 1 (paper 26.2%)
    assert "| `none` | 3 | 60.0% | 43.2% |" in rows
    assert "| `normal` | 1 | 20.0% | 26.2% |" in rows
    assert "| `poisson` | 1 | 20.0% | – |" in rows
    assert "4 edges and 5 nodes of the 2 public scenarios" in mix


def test_no_rows_no_sections():
    assert card_sections({"semantic-obs": _table([])}) == []


# formula_release: the session-wide mini build of arena-formula (tests/conftest.py)


def test_built_card_shows_domains_and_mix_matching_pool_stats(formula_release):
    from causalarena.generator.scenario.family import _path, public_names
    from causalarena.generator.scenario.schema import load_scenario
    from causalarena.generator.scenario.stats import pool_stats
    from causalarena.release.card import validate_card

    assert validate_card(formula_release) == []
    body = (formula_release / "README.md").read_text()
    assert "\n## Scenario domains\n" in body and "\n## Mechanism and noise mix\n" in body
    scs = [load_scenario(_path("formula", n)) for n in public_names("arena-formula")]
    st = pool_stats(scs)["formula"]
    lo, hi, mean = st["variables"]
    assert f"| **all** | {len(scs)} | {lo}–{hi} (mean {mean:.2f}) |" in body
    for tag, share in st["mechanism_edge_shares"].items():
        assert f"| `{tag}` |" in body and f"{share:.1%}" in body
    none = st["noise_node_shares"]["none"]
    assert "| `none` |" in body and f"| {none:.1%} | 72.8% |" in body
    for sc in scs:
        assert f"`{sc.domain}`" in body


def test_croissant_describes_the_scenario_fields(formula_release):
    js = json.loads((formula_release / "croissant.json").read_text())
    fields = {f["name"]: f["description"] for rs in js["recordSet"] for f in rs["field"]}
    for name in ("domain", "scenario", "variable_meanings", "units", "edge_rationales"):
        assert fields[name] != name and len(fields[name]) > 20
    assert "formula node" in fields["equations"]
    assert "semantic or formula" in fields["family"]


def test_scores_carry_the_domain_slice_factor(formula_release):
    from causalarena.eval.score import read_truth

    truth = read_truth(formula_release, "formula-obs")
    domains = {t["domain"] for t in truth.values()}
    rows = pq.read_table(formula_release / "data/formula-obs", columns=["domain"])
    assert domains == set(rows["domain"].to_pylist()) and len(domains) >= 2
