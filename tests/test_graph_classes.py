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
    _parent_aid_terms,
    _sid_terms,
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


def _reachability(adj):
    r = np.asarray(adj) != 0
    while True:
        nxt = r | ((r.astype(np.int32) @ r.astype(np.int32)) > 0)
        if (nxt == r).all():
            return r
        r = nxt


def _gadjid_term(truth, i, parents, memo):
    """Node ``i``'s SID term from ``gadjid.sid`` calls (the implementation the scorer had before).

    ``gadjid.sid`` is a sum over treatments of mistakes that depend on the guess only through
    the treatment's parent set, and the truth's own parent sets make no mistake; so the term is
    the SID of the truth with column ``i`` replaced by ``parents`` when that is acyclic.
    Otherwise the guessed parents that are descendants of ``i`` lose their own parents (which
    breaks every cycle) and their empty-parent-set terms are subtracted.
    """
    key = (i, np.packbits(parents).tobytes())
    if key in memo:
        return memo[key]
    if np.array_equal(parents, truth[:, i] != 0):
        memo[key] = 0
        return 0
    if "descendants" not in memo:
        memo["descendants"] = _reachability(truth)
    loops = np.flatnonzero(parents & memo["descendants"][i])
    guess = truth.copy()
    guess[:, i] = parents
    guess[:, loops] = 0
    term = _gadjid_sid(truth, guess)
    for j in loops:
        term -= _gadjid_term(truth, int(j), np.zeros_like(parents), memo)
    memo[key] = term
    return term


def _random_truth(rng, d, p):
    perm = rng.permutation(d)
    return np.triu(rng.random((d, d)) < p, 1).astype(np.int8)[np.ix_(perm, perm)]


def test_sid_terms_add_up_to_gadjid_sid_of_random_dags():
    # The bounds rest on SID being a sum over nodes of a term of the node's guessed parent
    # set.  The direct terms of any DAG guess must add up to gadjid's SID of that guess.
    rng = np.random.default_rng(11)
    for _ in range(400):
        d = int(rng.integers(2, 12))
        truth = _random_truth(rng, d, rng.random() * 0.7)
        guess = _random_truth(rng, d, rng.random() * 0.7)
        terms = _parent_aid_terms(truth, np.arange(d), (guess != 0).T.copy())
        assert terms.sum() == _gadjid_sid(truth, guess)
        assert ((terms >= 0) & (terms <= d - 1)).all()


def test_sid_terms_equal_the_gadjid_based_terms_of_any_parent_set():
    # Property test against the gadjid-based implementation: arbitrary parent sets, including
    # descendants of the node in the truth (a guess that would close a cycle), memo shared
    # across calls of one truth as the scorer does.
    rng = np.random.default_rng(12)
    n_loops = 0
    for _ in range(150):
        d = int(rng.integers(2, 10))
        truth = _random_truth(rng, d, rng.random() * 0.8)
        ref_memo: dict = {}
        memo: dict = {}
        for _ in range(3):
            rows = []
            for _ in range(int(rng.integers(1, 12))):
                i = int(rng.integers(d))
                col = rng.random(d) < rng.random()
                col[i] = False
                rows.append((i, col))
            got = _sid_terms(truth, rows, memo)
            want = [_gadjid_term(truth, i, col, ref_memo) for i, col in rows]
            assert got == want
            if "descendants" in ref_memo:
                n_loops += sum(bool((c & ref_memo["descendants"][i]).any()) for i, c in rows)
    assert n_loops > 50


def test_sid_bounds_equal_the_gadjid_based_bounds_on_random_cpdags():
    # The bounds of random CPDAGs (d up to 14, so several cliques per node) against the
    # gadjid-based computation of the same per-node minimum and maximum.
    rng = np.random.default_rng(13)
    n_free = 0
    for _ in range(120):
        d = int(rng.integers(3, 15))
        truth = _random_truth(rng, d, rng.random() * 0.6)
        pat = cpdag(_random_truth(rng, d, rng.random() * 0.6)).astype(bool)
        und, dire = pat & pat.T, pat & ~pat.T
        ref_memo: dict = {}
        lo = hi = 0
        for i in range(d):
            nb = [int(v) for v in np.flatnonzero(und[:, i])]
            n_free += bool(nb)
            terms = []
            for r in range(len(nb) + 1):
                for c in itertools.combinations(nb, r):
                    if all(und[u, v] for u, v in itertools.combinations(c, 2)):
                        col = dire[:, i].copy()
                        col[list(c)] = True
                        terms.append(_gadjid_term(truth, i, col, ref_memo))
            lo, hi = lo + min(terms), hi + max(terms)
        assert sid_bounds(truth, pat) == (lo, hi)
    assert n_free > 200


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
