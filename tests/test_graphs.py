"""Tests for the synthetic graph families and the A.2 graph audit."""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest

from causalarena.generator import graphs
from causalarena.generator.graphs import (
    DENSITY_RANGES,
    GRAPH_FAMILIES,
    MIN_DEPTH,
    GraphSample,
    check_graph,
    count_v_structures,
    graph_depth,
    sample_graph,
    sample_in_degree_cap,
)

DIMS = (10, 20, 30, 50, 100)
CAP_OPTIONS = {10: {None, 4, 5}, 20: {None, 4, 5}, 30: {4, 5, 6}, 50: {4, 5, 6}, 100: {5, 6, 8}}


def _seeds(d: int) -> range:
    return range(15) if d <= 30 else range(8)


def _digraph(a: np.ndarray) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(a.shape[0]))
    g.add_edges_from(zip(*np.nonzero(a), strict=True))
    return g


def _sample(family: str, d: int, seed: int) -> GraphSample:
    return sample_graph(family, d, np.random.default_rng([seed, d, GRAPH_FAMILIES.index(family)]))


@pytest.fixture(scope="module")
def samples() -> dict[tuple[str, int], list[GraphSample]]:
    return {
        (family, d): [_sample(family, d, seed) for seed in _seeds(d)]
        for family in GRAPH_FAMILIES
        for d in DIMS
    }


def _edges(n: int, pairs) -> np.ndarray:
    a = np.zeros((n, n), dtype=np.int8)
    for i, j in pairs:
        a[i, j] = 1
    return a


# --------------------------------------------------------------------------- constants


def test_constants():
    assert GRAPH_FAMILIES == (
        "erdos_renyi",
        "scale_free",
        "chain",
        "tree",
        "layered",
        "bipartite_layered",
        "small_world",
        "block_sparse_layered",
        "dense_local_module",
        "collider_rich",
    )
    assert set(MIN_DEPTH) == set(GRAPH_FAMILIES) == set(DENSITY_RANGES)
    for family in GRAPH_FAMILIES:
        expected = 3 if family in {"chain", "tree", "small_world", "scale_free"} else 2
        assert MIN_DEPTH[family] == expected
    assert DENSITY_RANGES["erdos_renyi"] == (0.05, 0.25)
    assert DENSITY_RANGES["chain"] == (0.03, 0.16)
    assert DENSITY_RANGES["collider_rich"] == (0.06, 0.24)


def test_sample_in_degree_cap_sets():
    for d, allowed in ((5, {None, 4, 5}), (20, {None, 4, 5}), (21, {4, 5, 6}), (50, {4, 5, 6})):
        rng = np.random.default_rng(d)
        seen = {sample_in_degree_cap(d, rng) for _ in range(200)}
        assert seen == allowed
    rng = np.random.default_rng(0)
    assert {sample_in_degree_cap(100, rng) for _ in range(200)} == {5, 6, 8}


# --------------------------------------------------------------------------- graph_depth


def test_graph_depth_hand_built():
    assert graph_depth(_edges(4, [(0, 1), (1, 2), (2, 3)])) == 4
    assert graph_depth(_edges(4, [(3, 2), (2, 1), (1, 0)])) == 4
    assert graph_depth(_edges(2, [(0, 1)])) == 2
    bipartite = _edges(5, [(0, 2), (0, 3), (1, 3), (1, 4)])
    assert graph_depth(bipartite) == 2
    assert graph_depth(np.zeros((3, 3), dtype=np.int8)) == 1
    # shortcut does not change the longest path
    assert graph_depth(_edges(3, [(0, 1), (1, 2), (0, 2)])) == 3


def test_graph_depth_rejects_cycles():
    with pytest.raises(ValueError, match="cycle"):
        graph_depth(_edges(3, [(0, 1), (1, 2), (2, 0)]))
    with pytest.raises(ValueError):
        graph_depth(_edges(2, [(0, 0), (0, 1)]))


# --------------------------------------------------------------------------- check_graph


def test_check_graph_accepts_valid():
    # chain of 5 plus two shortcuts: 6 edges >= ceil(4) , depth 5
    a = _edges(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 2), (1, 3)])
    assert check_graph(a, "chain", None) == []
    assert check_graph(a, "chain", 2) == []


def test_check_graph_detects_cycle():
    a = _edges(3, [(0, 1), (1, 2), (2, 0)])
    assert check_graph(a, "erdos_renyi", None) == ["cycle"]


def test_check_graph_detects_isolated():
    # 10 nodes, nodes 3 and 7 isolated, 8 edges, depth 3
    pairs = [(0, 1), (1, 2), (0, 2), (4, 5), (5, 6), (4, 6), (8, 9), (0, 9)]
    a = _edges(10, pairs)
    assert check_graph(a, "erdos_renyi", None) == ["isolated variables: [3, 7]"]


def test_check_graph_detects_shallow():
    # star-shaped two-stage graph: depth 2 fails the depth-3 families only
    a = _edges(5, [(0, 2), (0, 3), (1, 3), (1, 4)])
    assert check_graph(a, "bipartite_layered", None) == []
    for family in ("chain", "tree", "small_world", "scale_free"):
        assert check_graph(a, family, None) == ["depth 2 < 3"]


def test_check_graph_detects_too_few_edges():
    a = _edges(10, [(0, 1), (1, 2), (2, 3), (4, 5), (6, 7), (8, 9), (3, 4)])
    assert check_graph(a, "erdos_renyi", None) == ["edges 7 < 8"]


def test_check_graph_detects_in_degree_over_cap():
    pairs = [(p, 4) for p in (0, 1, 2, 3, 5, 6)] + [(4, 7), (7, 8), (8, 9), (0, 9)]
    a = _edges(10, pairs)
    assert check_graph(a, "erdos_renyi", None) == []
    assert check_graph(a, "erdos_renyi", 6) == []
    assert check_graph(a, "erdos_renyi", 5) == ["in-degree 6 > cap 5 at node 4"]


def test_check_graph_multiple_reasons_and_unknown_family():
    a = _edges(4, [(0, 1), (1, 0)])
    reasons = check_graph(a, "chain", 4)
    assert "cycle" in reasons
    assert "isolated variables: [2, 3]" in reasons
    assert "edges 2 < 4" in reasons
    with pytest.raises(ValueError, match="erdos_renyi"):
        check_graph(a, "no_such_family", None)


# --------------------------------------------------------------------------- sample_graph validity


@pytest.mark.parametrize("family", GRAPH_FAMILIES)
def test_samples_pass_audit(samples, family):
    for d in DIMS:
        for s in samples[(family, d)]:
            a = s.adjacency
            assert isinstance(s, GraphSample)
            assert s.family == family
            assert a.shape == (d, d) and a.dtype == np.int8
            assert set(np.unique(a).tolist()) <= {0, 1}
            assert not np.diag(a).any()
            assert check_graph(a, family, s.in_degree_cap) == []
            # independent re-check of every gate
            g = _digraph(a)
            assert nx.is_directed_acyclic_graph(g)
            assert ((a.sum(0) + a.sum(1)) > 0).all(), "isolated variable"
            assert nx.dag_longest_path_length(g) + 1 >= MIN_DEPTH[family]
            assert a.sum() >= math.ceil(0.8 * d)
            if s.in_degree_cap is not None:
                assert a.sum(0).max() <= s.in_degree_cap
            lo, hi = DENSITY_RANGES[family]
            assert lo <= s.density <= hi
            assert s.in_degree_cap in CAP_OPTIONS[d]
            assert s.attempts >= 1 and len(s.rejections) == s.attempts - 1


@pytest.mark.parametrize("family", GRAPH_FAMILIES)
@pytest.mark.parametrize("d", [3, 4, 5, 7])
def test_small_dimensions(family, d):
    for seed in range(5):
        s = sample_graph(family, d, np.random.default_rng(seed))
        assert check_graph(s.adjacency, family, s.in_degree_cap) == []


@pytest.mark.parametrize("family", GRAPH_FAMILIES)
def test_determinism(family):
    for d in (10, 50):
        a = sample_graph(family, d, np.random.default_rng(123))
        b = sample_graph(family, d, np.random.default_rng(123))
        assert np.array_equal(a.adjacency, b.adjacency)
        assert (a.density, a.in_degree_cap, a.attempts) == (b.density, b.in_degree_cap, b.attempts)
        c = sample_graph(family, d, np.random.default_rng(124))
        assert not np.array_equal(a.adjacency, c.adjacency)


def test_does_not_touch_global_rng():
    # the legacy global numpy RNG and the stdlib ``random`` state must be untouched
    np_state = np.random.get_state()  # noqa: NPY002
    py_state = random.getstate()
    for family in GRAPH_FAMILIES:
        sample_graph(family, 20, np.random.default_rng(1))
    after = np.random.get_state()  # noqa: NPY002
    assert all(np.array_equal(x, y) for x, y in zip(np_state, after, strict=True))
    assert random.getstate() == py_state


def test_nodes_are_shuffled(samples):
    for d in DIMS:
        topo = [
            not np.tril(s.adjacency).any()
            for family in GRAPH_FAMILIES
            for s in samples[(family, d)]
        ]
        limit = 0.10 if d >= 20 else 0.25
        assert np.mean(topo) < limit, (d, np.mean(topo))


def test_invalid_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError) as info:
        sample_graph("random_graph", 10, rng)
    for family in GRAPH_FAMILIES:
        assert family in str(info.value)
    with pytest.raises(ValueError, match="at least 3"):
        sample_graph("chain", 2, rng)


def test_runtime_error_after_max_attempts(monkeypatch):
    def empty(d, m, cap, rng):
        return np.zeros((d, d), dtype=np.int8), np.zeros((d, d))

    monkeypatch.setitem(graphs._BUILDERS, "chain", empty)
    with pytest.raises(RuntimeError) as info:
        sample_graph("chain", 12, np.random.default_rng(0))
    message = str(info.value)
    assert "chain" in message and "d=12" in message
    assert "edges 0 < 10" in message and "isolated variables" in message


def test_rejections_are_recorded(monkeypatch):
    real = graphs._BUILDERS["erdos_renyi"]
    calls = {"n": 0}

    def flaky(d, m, cap, rng):
        calls["n"] += 1
        if calls["n"] <= 2:
            return np.zeros((d, d), dtype=np.int8), np.zeros((d, d))
        return real(d, m, cap, rng)

    monkeypatch.setitem(graphs._BUILDERS, "erdos_renyi", flaky)
    s = sample_graph("erdos_renyi", 10, np.random.default_rng(0))
    assert s.attempts == 3
    assert len(s.rejections) == 2
    assert s.rejections[0].startswith("attempt 1:") and "edges 0 < 8" in s.rejections[0]


# --------------------------------------------------------------------------- structural distinctness


def test_count_v_structures():
    assert count_v_structures(_edges(3, [(0, 2), (1, 2)])) == 1
    assert count_v_structures(_edges(3, [(0, 2), (1, 2), (0, 1)])) == 0
    assert count_v_structures(_edges(4, [(0, 3), (1, 3), (2, 3)])) == 3


def _mean(samples, family, d, fn):
    return float(np.mean([fn(s.adjacency) for s in samples[(family, d)]]))


def test_collider_rich_has_more_v_structures(samples):
    def per_edge(a):
        return count_v_structures(a) / a.sum()

    for d in DIMS:
        collider = _mean(samples, "collider_rich", d, per_edge)
        er = _mean(samples, "erdos_renyi", d, per_edge)
        assert collider > 1.2 * er, (d, collider, er)


def test_chain_has_long_directed_paths(samples):
    for d in DIMS:
        for s in samples[("chain", d)]:
            assert graph_depth(s.adjacency) >= d - 2  # path through all but <= 2 inputs
        assert _mean(samples, "chain", d, graph_depth) > _mean(
            samples, "erdos_renyi", d, graph_depth
        )
        assert _mean(samples, "small_world", d, graph_depth) < d / 2 + 1


def test_tree_reachability_is_an_arborescence(samples):
    for d in DIMS:
        for s in samples[("tree", d)]:
            reduction = nx.transitive_reduction(_digraph(s.adjacency))
            # diverging out-tree or converging in-tree
            assert nx.is_arborescence(reduction) or nx.is_arborescence(reduction.reverse())
        # Erdos-Renyi graphs are essentially never of this form
        er = [
            nx.is_arborescence(nx.transitive_reduction(_digraph(s.adjacency)))
            for s in samples[("erdos_renyi", d)]
        ]
        assert np.mean(er) < 0.5


def test_bipartite_layered_edges_join_consecutive_levels(samples):
    for d in DIMS:
        for s in samples[("bipartite_layered", d)]:
            g = _digraph(s.adjacency)
            level: dict[int, int] = {}
            for v in nx.topological_sort(g):
                level[v] = max((level[p] + 1 for p in g.predecessors(v)), default=0)
            assert all(level[v] == level[u] + 1 for u, v in g.edges())
            assert 2 <= graph_depth(s.adjacency) <= 4


def test_small_world_is_clustered(samples):
    def transitivity(a):
        return nx.transitivity(_digraph(a).to_undirected())

    def relative_clustering(a):
        # transitivity / realized skeleton density; about 1 for Erdos-Renyi graphs
        d = a.shape[0]
        return transitivity(a) / (a.sum() / (d * (d - 1) / 2))

    for d in DIMS:
        sw = _mean(samples, "small_world", d, transitivity)
        assert sw > 0.2, (d, sw)
        sw_rel = _mean(samples, "small_world", d, relative_clustering)
        er_rel = _mean(samples, "erdos_renyi", d, relative_clustering)
        assert sw_rel > 1.5 * er_rel, (d, sw_rel, er_rel)
    for d in (30, 50, 100):
        dlm_rel = _mean(samples, "dense_local_module", d, relative_clustering)
        er_rel = _mean(samples, "erdos_renyi", d, relative_clustering)
        assert dlm_rel > 1.5 * er_rel, (d, dlm_rel, er_rel)


def test_scale_free_has_hubs(samples):
    def hub_ratio(a):
        degree = a.sum(0) + a.sum(1)
        return degree.max() / degree.mean()

    for d in DIMS:
        assert _mean(samples, "scale_free", d, hub_ratio) > 1.25 * _mean(
            samples, "erdos_renyi", d, hub_ratio
        )


def test_collider_rich_parents_are_non_adjacent(samples):
    # every collider's parent set is an independent set, so the skeleton has no triangle
    # (any triangle in a DAG has a sink whose two parents are adjacent)
    for d in DIMS:
        for s in samples[("collider_rich", d)]:
            assert nx.transitivity(_digraph(s.adjacency).to_undirected()) == 0.0


def test_few_rejections(samples):
    # isolated-node repair and the edge top-up make most first candidates valid
    for (family, d), group in samples.items():
        assert np.mean([s.attempts for s in group]) <= 2.0, (family, d)


@pytest.mark.parametrize("family", GRAPH_FAMILIES)
def test_multiple_roots_are_possible(samples, family):
    # downstream root-dependency blocks need >= 2 roots: every family must produce them
    n_roots = [
        int((s.adjacency.sum(axis=0) == 0).sum()) for d in DIMS for s in samples[(family, d)]
    ]
    assert min(n_roots) >= 1
    assert np.mean(np.array(n_roots) >= 2) > 0.3, family
