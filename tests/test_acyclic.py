"""Thresholded continuous-optimisation outputs are made acyclic at the weakest edge."""

from __future__ import annotations

import numpy as np

from causalarena.baselines.acyclic import make_acyclic
from causalarena.baselines.base import MethodInfo, make_fit


def test_weakest_edge_of_each_cycle_is_removed():
    # two cycles: 0 -> 1 -> 2 -> 0 (weakest 1 -> 2, 0.31) and 3 <-> 4 (weakest 4 -> 3, 0.35)
    A = np.zeros((5, 5), dtype=np.int8)
    W = np.zeros((5, 5))
    for (i, j), w in {(0, 1): 0.9, (1, 2): 0.31, (2, 0): 0.8, (3, 4): 0.7, (4, 3): 0.35}.items():
        A[i, j], W[i, j] = 1, w
    out, notes = make_acyclic(A, W)
    expected = A.copy()
    expected[1, 2] = expected[4, 3] = 0
    np.testing.assert_array_equal(out, expected)
    assert notes["dag_repair"] == "removed the weakest edge of each cycle"
    assert sorted(notes["removed_edges"]) == [[1, 2], [4, 3]]
    assert sorted(notes["removed_weights"]) == [0.31, 0.35]


def test_a_dag_is_left_alone():
    A = np.triu(np.ones((4, 4), dtype=np.int8), 1)
    out, notes = make_acyclic(A, np.ones((4, 4)))
    np.testing.assert_array_equal(out, A)
    assert notes == {"dag_repair": "none"}


def test_removed_edges_are_mapped_back_past_dropped_constant_columns():
    info = MethodInfo(
        name="cyc",
        display_name="Cyc",
        family="control",
        supports_interventions=False,
        requires_interventions=False,
        outputs_edge_scores=True,
        output_graph="dag",
        library=None,
        extra=None,
        defaults={},
        reference="test",
    )

    def core(X, mask, seed, params):  # a 2-cycle on the kept columns 0 <-> 1
        W = np.array([[0.0, 0.9], [0.4, 0.0]])
        A, notes = make_acyclic(W > 0.3, W)
        return A, W, notes

    X = np.random.default_rng(0).normal(size=(50, 3))
    X[:, 0] = 1.0  # constant: dropped, kept columns are 1 and 2
    res = make_fit(info, core)(X)
    assert res.notes["removed_edges"] == [[2, 1]]
    assert res.adjacency[1, 2] == 1 and res.adjacency[2, 1] == 0
