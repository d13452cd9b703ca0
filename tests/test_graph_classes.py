"""CPDAG construction and validity, consistent extensions and SID bounds over a class.

References are brute force (all orientations of a skeleton) or computed by hand in the
comments; nothing here is compared with the code under test itself.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from causalarena.eval.metrics import (
    _gadjid_sid,
    _is_acyclic,
    _sid_term,
    cpdag,
    cpdag_problem,
    dag_extension,
    score_graph,
    sid_bounds,
)


def _adj(d, edges):
    a = np.zeros((d, d), dtype=np.int8)
    for i, j in edges:
        a[i, j] = 1
    return a


def _vstructs(a):
    d = a.shape[0]
    out = set()
    for k in range(d):
        pa = np.flatnonzero(a[:, k])
        for i, j in itertools.combinations(pa, 2):
            if not a[i, j] and not a[j, i]:
                out.add((int(min(i, j)), int(max(i, j)), k))
    return out


def _mec(dag):
    """Every DAG with the skeleton and v-structures of ``dag`` (brute force)."""
    skel = np.argwhere(np.triu(dag | dag.T, 1))
    target = _vstructs(dag)
    out = []
    for bits in itertools.product((0, 1), repeat=len(skel)):
        a = np.zeros_like(dag)
        for (i, j), b in zip(skel, bits, strict=True):
            a[(i, j) if b else (j, i)] = 1
        if _is_acyclic(a) and _vstructs(a) == target:
            out.append(a)
    return out


def _random_dag(rng, d, p):
    a = np.triu((rng.random((d, d)) < p).astype(np.int8), 1)
    perm = rng.permutation(d)
    return a[np.ix_(perm, perm)]


def test_cpdag_matches_brute_force_mec():
    rng = np.random.default_rng(3)
    for _ in range(60):
        dag = _random_dag(rng, int(rng.integers(2, 7)), 0.5)
        members = _mec(dag)
        # an edge is directed in the CPDAG iff every member orients it the same way
        union = np.zeros_like(dag, dtype=bool)
        for m in members:
            union |= m.astype(bool)
        np.testing.assert_array_equal(cpdag(dag), union.astype(np.int8))


def test_dag_extension_is_a_member_of_the_class():
    rng = np.random.default_rng(4)
    for _ in range(40):
        dag = _random_dag(rng, int(rng.integers(2, 8)), 0.5)
        ext = dag_extension(cpdag(dag))
        assert ext is not None and _is_acyclic(ext)
        np.testing.assert_array_equal(cpdag(ext), cpdag(dag))


def test_valid_cpdags_pass():
    chain = _adj(3, [(0, 1), (1, 0), (1, 2), (2, 1)])  # 0 - 1 - 2
    assert cpdag_problem(chain) is None
    assert cpdag_problem(_adj(3, [(0, 1), (2, 1)])) is None  # v-structure


def test_undirected_edge_that_meek_would_orient_is_named():
    # 0 -> 2 <- 1 and 2 - 3, with 3 adjacent to neither 0 nor 1: R1 compels 2 -> 3
    bad = _adj(4, [(0, 2), (1, 2), (2, 3), (3, 2)])
    assert cpdag_problem(bad) == (
        "edge 2 - 3 is undirected, but every DAG with its v-structures has 2 -> 3"
    )
    # 0 -> 1 - 2 alone: the only extension 0 -> 1 -> 2 has no v-structure, so 0 -> 1 is
    # reversible and the first difference named is that edge
    msg = cpdag_problem(_adj(3, [(0, 1), (1, 2), (2, 1)]))
    assert msg.startswith("edge 0 -> 1 is directed")


def test_reversible_edge_given_directed_is_named():
    msg = cpdag_problem(_adj(2, [(0, 1)]))
    assert msg is not None and "edge 0 -> 1 is directed" in msg


def test_chordless_cycle_has_no_extension():
    # undirected 4-cycle 0 - 1 - 2 - 3 - 0: every orientation adds a v-structure or a cycle
    e = [(0, 1), (1, 2), (2, 3), (3, 0)]
    a = _adj(4, e + [(j, i) for i, j in e])
    assert dag_extension(a) is None
    assert "no consistent DAG extension" in cpdag_problem(a)


def test_directed_cycle_in_cpdag_is_named():
    assert cpdag_problem(_adj(3, [(0, 1), (1, 2), (2, 0)])) == (
        "its directed edges form a cycle 0 -> 1 -> 2 -> 0"
    )


# ----------------------------------------------------------------------------------------------
# SID bounds
# ----------------------------------------------------------------------------------------------
def test_sid_bounds_two_nodes_by_hand():
    # truth 0 -> 1, prediction 0 - 1.  Class {0 -> 1 (SID 0), 1 -> 0 (SID 2)}:
    # with 1 -> 0 the guess says 0 has no effect on 1 (wrong) and adjusts nothing for the
    # effect of 1 on 0, so x0 | x1 differs from the null effect (wrong).
    truth = _adj(2, [(0, 1)])
    assert sid_bounds(truth, _adj(2, [(0, 1), (1, 0)])) == (0, 2)
    r = score_graph(truth, _adj(2, [(0, 1), (1, 0)]), seed=0)
    assert (r["sid_lower"], r["sid_upper"]) == (0, 2)
    assert r["sid"] in (0, 2)


def test_sid_bounds_chain_by_hand():
    # truth 0 -> 1 -> 2, prediction 0 - 1 - 2.  Class members and SIDs (worked out pair by
    # pair): 0->1->2: 0; 0<-1<-2: 6 (all six pairs wrong); 0<-1->2: 3.  Per node, the
    # candidate parent sets are the cliques of undirected neighbours: node 0 {}, {1} -> 0, 2;
    # node 1 {}, {0}, {2} -> 1, 0, 2 ({0, 2} is no clique); node 2 {}, {1} -> 2, 0.
    # Lower = 0 + 0 + 0, upper = 2 + 2 + 2.
    truth = _adj(3, [(0, 1), (1, 2)])
    pred = _adj(3, [(0, 1), (1, 0), (1, 2), (2, 1)])
    assert sid_bounds(truth, pred) == (0, 6)
    members = _mec(truth)
    assert sorted(_gadjid_sid(truth, m) for m in members) == [0, 3, 6]


def test_sid_terms_add_up_to_gadjid_sid_of_random_dags():
    # The bounds rest on SID being a sum over nodes of a term of the node's guessed parent
    # set; _sid_term computes it from graphs near the truth (and, when a guessed parent is a
    # descendant in the truth, from a graph whose cycle-closing parents lose their parents).
    # The terms of any DAG guess must add up to gadjid's SID of that guess, with one memo per
    # truth shared across guesses (the scorer's use).
    rng = np.random.default_rng(11)
    n_loops = 0
    for _ in range(60):
        d = int(rng.integers(2, 9))
        perm = rng.permutation(d)
        truth = np.triu(rng.random((d, d)) < 0.5, 1).astype(np.int8)[np.ix_(perm, perm)]
        memo: dict = {}
        for _ in range(4):
            q = rng.permutation(d)
            guess = np.triu(rng.random((d, d)) < 0.5, 1).astype(np.int8)[np.ix_(q, q)]
            terms = [_sid_term(truth, i, guess[:, i] != 0, memo) for i in range(d)]
            assert sum(terms) == _gadjid_sid(truth, guess)
            assert all(0 <= t <= d - 1 for t in terms)
            if "descendants" in memo:  # guessed parents that are descendants in the truth
                n_loops += int(((guess != 0) & memo["descendants"].T).any())
    assert n_loops > 10


def test_sid_bounds_of_a_dag_and_of_invalid_patterns():
    truth = _adj(3, [(0, 1), (2, 1)])
    assert sid_bounds(truth, truth) == (0, 0)
    assert sid_bounds(truth, _adj(3, [(0, 1), (1, 2), (2, 1)])) is None  # not a CPDAG


def test_sid_bounds_contain_every_member_of_the_class():
    rng = np.random.default_rng(5)
    for _ in range(40):
        d = int(rng.integers(3, 7))
        truth, guess = _random_dag(rng, d, 0.4), _random_dag(rng, d, 0.5)
        values = [_gadjid_sid(truth, m) for m in _mec(guess)]
        lo, hi = sid_bounds(truth, cpdag(guess))
        assert lo <= min(values) and hi >= max(values)
        assert lo >= 0 and hi <= d * (d - 1)


def test_sid_false_and_pattern_false_skip_those_metrics():
    truth = _adj(3, [(0, 1), (1, 2)])
    r = score_graph(truth, truth, sid=False, pattern=False)
    assert r["sid"] is None and r["sid_lower"] is None and r["shd_pattern"] is None
    assert r["f1"] == 1.0 and r["shd"] == 0


def test_true_cpdag_argument_is_used():
    truth = _adj(3, [(0, 1), (1, 2)])
    pred = _adj(3, [(1, 0), (2, 1)])  # same class as the truth: pattern SHD 0
    assert score_graph(truth, pred)["shd_pattern"] == 0
    assert score_graph(truth, pred, true_cpdag=cpdag(truth))["shd_pattern"] == 0
    # a (deliberately wrong) cached pattern is trusted: all-directed truth pattern
    assert score_graph(truth, pred, true_cpdag=truth)["shd_pattern"] == 2


@pytest.mark.parametrize("d", [1, 2])
def test_tiny_graphs(d):
    z = np.zeros((d, d), dtype=np.int8)
    assert cpdag_problem(z) is None
    assert sid_bounds(z, z) == (0, 0)


def test_sid_bounds_false_keeps_the_seeded_sid_only():
    truth = _adj(2, [(0, 1)])
    r = score_graph(truth, _adj(2, [(0, 1), (1, 0)]), sid_bounds=False)
    assert r["sid"] in (0, 2) and r["sid_lower"] is None and r["sid_upper"] is None
