"""Lab episodes: spec, shift semantics, generator statistics, public release conversion."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.errors import SpecError
from causalarena.generator.lab.causalab import data_dir, load_public, replay_trace
from causalarena.generator.lab.episode import Episode, lab_spec
from causalarena.generator.lab.graph import (
    PAPER_TABLE1,
    TARGET,
    draw_graph,
    edge_range,
    graph_stats,
)
from causalarena.generator.lab.semantics import compile_model, readings, shift
from causalarena.generator.lab.suites import episodes, find_episode
from causalarena.spec import SCMSpec

PUBLIC = data_dir()
needs_public = pytest.mark.skipif(
    PUBLIC is None,
    reason="public CausaLab release not found (set CAUSALARENA_CAUSALAB_DATA or put it in "
    "shared/data/causalab beside the repository)",
)


def chain(family="linear"):
    """a -> b -> resonanceFreq with weights 2 and 3, plus a -> resonanceFreq weight 1."""
    names = [TARGET, "a", "b"]
    edges = [("a", "b"), ("b", TARGET), ("a", TARGET)]
    terms = {("a", "b"): [2.0], ("b", TARGET): [3.0], ("a", TARGET): [1.0]}
    return lab_spec(
        "chain",
        names,
        edges,
        terms,
        {"b": 30.0, TARGET: 20.0},
        family,
        (15, 45),
        {"b": 15.0},
        ["a", "b"],
    )


def test_chain_shift_semantics_parent_changes_after_child_was_set():
    m = compile_model(chain())
    ia, ib, it = m.index("a"), m.index("b"), m.index(TARGET)
    exo = np.zeros(3)
    exo[ia], exo[ib] = 10.0, -5.0  # a = 10, b = 30 + 2*10 - 5 = 45, f = 20 + 3*45 + 10 = 165
    v = readings(m, exo)
    assert (v[ia], v[ib], v[it]) == (10.0, 45.0, 165.0)
    exo = shift(m, exo, ib, 100.0)  # b reads 100 now
    v = readings(m, exo)
    assert (v[ia], v[ib], v[it]) == (10.0, 100.0, 20 + 300 + 10)
    exo = shift(m, exo, ia, 13.0)  # b keeps following a: 100 + 2 * (13 - 10)
    v = readings(m, exo)
    assert v[ib] == 106.0 and v[it] == 20 + 3 * 106 + 13
    # a hard do(b=100) would have left b at 100 here
    assert v[ib] != 100.0


def test_fork_shift_moves_both_children_and_not_the_parent():
    names = [TARGET, "a", "b", "c"]
    edges = [("a", "b"), ("a", "c"), ("b", TARGET), ("c", TARGET)]
    terms = {e: [w] for e, w in zip(edges, (1.0, 3.0, 2.0, 1.0), strict=True)}
    spec = lab_spec(
        "fork",
        names,
        edges,
        terms,
        {"b": 30.0, "c": 30.0, TARGET: 15.0},
        "linear",
        (15, 45),
        {},
        names[1:],
    )
    m = compile_model(spec)
    exo = np.array([0.0, 20.0, 0.0, 0.0])
    before = readings(m, exo)
    after = readings(m, shift(m, exo, m.index("a"), 25.0))
    d = after - before
    assert d[m.index("a")] == 5.0 and d[m.index("b")] == 5.0 and d[m.index("c")] == 15.0
    assert d[0] == 2 * 5 + 15
    # intervening on a child leaves the parent and the sibling alone
    d2 = readings(m, shift(m, exo, m.index("b"), 0.0)) - before
    assert d2[m.index("a")] == 0 and d2[m.index("c")] == 0 and d2[0] == 2 * (0 - before[2])


def test_quadratic_shift_follows_parent_terms():
    names = [TARGET, "a"]
    spec = lab_spec(
        "q",
        names,
        [("a", TARGET)],
        {("a", TARGET): [-1.6, 0.016]},
        {TARGET: 60.0},
        "quadratic",
        (0, 100),
        {},
        ["a"],
    )
    m = compile_model(spec)
    v = readings(m, shift(m, np.zeros(2), 1, 10.0))
    assert v[0] == round(60 + 0.016 * 100 - 1.6 * 10, 2)


def test_spec_declares_shift_protocol_and_is_validated():
    s = chain()
    assert s.intervention.protocol == "shift"
    assert SCMSpec.from_json(s.to_json()) == s
    d = s.model_dump()
    from causalarena.generator.mechanisms import MECHANISMS

    params = MECHANISMS["periodic"].sample_params(np.random.default_rng(0), 1)
    d["variables"][2]["mechanism"] = {"family": "periodic", "params": params}
    with pytest.raises(SpecError, match="additive mechanisms"):
        SCMSpec.from_dict(d)
    d = s.model_dump()
    d["intervention"]["targets_per_row"] = 2
    with pytest.raises(SpecError, match="one property at a time"):
        SCMSpec.from_dict(d)


def test_spec_is_executable_by_the_arena_sampler():
    from causalarena.generator.sample import sample

    spec = chain()
    t = sample(spec, n_obs=200, n_int=0, seed=3)
    X = np.asarray(t.X, dtype=np.float64)
    idx = spec.index()
    a, b, f = X[:, idx["a"]], X[:, idx["b"]], X[:, idx[TARGET]]
    assert np.all((a >= 15) & (a <= 45))
    u = b - 2 * a - 30
    assert np.all(np.abs(u) <= 15 + 1e-3) and u.std() > 5  # per-crystal base U(15, 45)
    assert np.allclose(f, 20 + 3 * b + a, atol=1e-3)


def test_graph_edge_range_and_connectivity():
    rng = np.random.default_rng(0)
    for k in (3, 4, 5, 6, 7):
        lo, hi = edge_range(k)
        for _ in range(30):
            names, edges = draw_graph(rng, k)
            assert lo <= len(edges) <= hi
            assert not any(a == TARGET for a, _ in edges)  # sink
            assert any(b == TARGET for _, b in edges)
            import networkx as nx

            g = nx.DiGraph(edges)
            g.add_nodes_from(names)
            assert nx.is_directed_acyclic_graph(g) and nx.is_weakly_connected(g)
    fp = [draw_graph(rng, 5, True)[1] for _ in range(60)]
    assert any(a == TARGET for e in fp for a, _ in e)


def test_main_suite_graph_stats_near_table1():
    m = episodes("lab-main")
    for k in (3, 4, 5, 6, 7):
        st = graph_stats([e.edges for e in m[f"main-{k}nodes"]])
        assert st["graphs"] == 50
        assert abs(st["edge_mean"] - PAPER_TABLE1[k][0]) < 0.1 * PAPER_TABLE1[k][0] + 0.2


def test_episodes_deterministic_and_row_roundtrip():
    a = episodes("lab-hidden", "hidden-n2", "mini")["hidden-n2"]
    b = episodes("lab-hidden", "hidden-n2", "mini")["hidden-n2"]
    assert [e.to_row() for e in a] == [e.to_row() for e in b]
    e = a[0]
    assert Episode.from_row(e.to_row()) == e
    assert len(e.spec.metadata["lab"]["hidden"]["affected"]) == 2
    assert e.budget == 12 and len(e.records) == 2
    # matched controls: hidden and quadratic episodes reuse the main 4-node topologies
    main = episodes("lab-main", "main-4nodes", "mini")["main-4nodes"]
    quad = episodes("lab-quadratic", scale="mini")["quadratic-4nodes"]
    assert [x.edges for x in main] == [x.edges for x in a] == [x.edges for x in quad]
    assert quad[0].spec.variables[0].mechanism.family == "polynomial"
    g = episodes("lab-golden", "golden-4nodes", "mini")["golden-4nodes"][0]
    # golden: offline trace injected AND the online budget 4(k-1) kept (public release does)
    assert g.budget == 12 and sum("intervention" in r for r in g.records) == 6
    assert g.to_row()["golden"] and not main[0].to_row()["golden"]
    assert replay_trace(g) and all(d == 0 for _, d in replay_trace(g))
    assert find_episode("lab-main/main-4nodes/002").episode_id == main[2].episode_id


@needs_public
def test_every_golden_transition_of_the_public_release_is_reproduced():
    pub = load_public(configs=["4nodes_golden", "6nodes_golden"])
    n = 0
    for eps in pub.values():
        assert len(eps) == 50
        for e in eps:
            # the recorded online budget 4(k-1) applies after the injected trace
            assert e.budget == 4 * (e.spec.d - 1) and e.to_row()["golden"], e.episode_id
            for rid, diff in replay_trace(e):
                n += 1
                assert diff < 1e-9, (e.episode_id, rid, diff)
    assert n == 493  # every recorded intervention of both Golden files


@needs_public
def test_public_release_converts_all_950_episodes():
    pub = load_public()
    assert sum(len(v) for v in pub.values()) == 950
    for k in (3, 4, 5, 6, 7):
        st = graph_stats([e.edges for e in pub[f"{k}nodes"]])
        assert st["edge_mean"] == pytest.approx(PAPER_TABLE1[k][0], abs=0.005)
        assert st["fork_mean"] == pytest.approx(PAPER_TABLE1[k][2], abs=0.005)
    e = pub["4nodes"][0]
    assert e.source["licence"] == "Apache-2.0" and e.budget == 12
    assert e.spec.metadata["causalab_params"]["base_freq"] == 25.0
    h = pub["4nodes_hidden_freqnode_n1"][0].spec.metadata["lab"]["hidden"]
    assert h["affected"] == [TARGET] and h["values"] == [-5.0, 0.0, 5.0]


def test_lab_family_declares_configs_units_and_pure_rows():
    import re

    from causalarena.generator.lab.family import FAMILY, config_name

    assert set(FAMILY.suites) >= {"lab-main", "lab-hidden", "lab-causalab-v0.0.2"}
    cfgs = FAMILY.configs("lab-main")
    assert [c.name for c in cfgs] == [f"main-{k}nodes" for k in (3, 4, 5, 6, 7)]
    assert config_name("4nodes_quad_hard") == "4nodes-quad-hard"
    assert all(re.fullmatch(r"[a-z0-9-]+", c.name) for c in FAMILY.configs("lab-causalab-v0.0.2"))
    units = FAMILY.units("lab-hidden", "mini", {})
    assert len(units) == 9 and units[0].key == "cfg-hidden-n1"
    a, b = FAMILY.run_unit(units[0]), FAMILY.run_unit(units[0])
    t = a.tables["hidden-n1"]
    assert t.equals(b.tables["hidden-n1"]) and t.num_rows == 5 and t.schema == cfgs[0].schema
    ep = Episode.from_row(t.to_pylist()[2])
    assert ep == episodes("lab-hidden", "hidden-n1", "mini")["hidden-n1"][2]
    assert "Apache-2.0" in FAMILY.text("lab-causalab-v0.0.2").summary


@needs_public
def test_lab_family_prepare_checks_the_public_release():
    from causalarena.generator.lab.family import FAMILY

    assert FAMILY.prepare("lab-causalab-v0.0.2", "mini", {})["source"]["licence"] == "Apache-2.0"
    assert FAMILY.prepare("lab-main", "mini", {}) == {}


def test_lab_main_builds_through_the_release_engine(tmp_path):
    from causalarena.eval.lab_run import load_release_episodes
    from causalarena.release.engine import build
    from causalarena.release.verify import verify

    folder = build("lab-main", scale="mini", out=tmp_path / "rel", quiet=True)
    assert verify(folder) == []
    got = load_release_episodes(folder, "main-5nodes")
    assert got == episodes("lab-main", "main-5nodes", "mini")["main-5nodes"]
    assert "causalarena lab-main" in (folder / "README.md").read_text()
    text = (folder / "README.md").read_text()
    assert text.startswith("---\nlicense: cc-by-4.0\n") and "- interactive\n- agents\n" in text
    # a tag the Hub cannot take, or an unknown licence, refuses the metadata (never dropped)
    import dataclasses

    from causalarena import family as fam
    from causalarena.errors import ReleaseError
    from causalarena.release.metadata import collect_metadata

    lab = fam.family_of("lab-main")
    for change, msg in (({"tags": ("Bad Tag",)}, "'Bad Tag'"), ({"license": "gpl"}, "'gpl'")):
        bad = dataclasses.replace(
            lab, text=lambda s, c=change: dataclasses.replace(lab.text(s), **c)
        )
        fam.register(bad)
        try:
            with pytest.raises(ReleaseError, match=msg):
                collect_metadata(folder)
        finally:
            fam.register(lab)


@needs_public
def test_public_release_carries_apache_licence_in_card_croissant_cff_and_zenodo(tmp_path):
    """lab-causalab-v0.0.2 keeps the source's Apache-2.0 licence, with the source credited,
    in all four metadata files; the family's declared tags all reach the card."""
    import json

    import yaml

    from causalarena.release.card import read_front_matter
    from causalarena.release.engine import build
    from causalarena.release.verify import verify_metadata

    folder = build("lab-causalab-v0.0.2", scale="mini", out=tmp_path / "pub", quiet=True)
    assert verify_metadata(folder) == []
    repo = "https://github.com/DylanZSZ/CausaLab-Benchmark"
    fm = read_front_matter(folder / "README.md")
    assert fm["license"] == "apache-2.0"
    assert {"interactive", "agents", "causal-discovery"} <= set(fm["tags"])
    body = (folder / "README.md").read_text().split("## Licence", 1)[1]
    assert "Apache License 2.0" in body and repo in body and "42ba47fb" in body
    assert "CC BY" not in body.split("The `causalarena` code")[0]
    cr = json.loads((folder / "croissant.json").read_text())
    assert cr["license"] == "https://www.apache.org/licenses/LICENSE-2.0"
    assert repo in cr["description"]
    cff = yaml.safe_load((folder / "CITATION.cff").read_text())
    assert cff["license"] == "Apache-2.0" and repo in cff["abstract"]
    zen = json.loads((folder / ".zenodo.json").read_text())
    assert zen["license"] == "apache-2.0" and repo in zen["description"]
