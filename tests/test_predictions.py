"""Predictions schema validation: clear errors naming the instance and the problem."""

from __future__ import annotations

import numpy as np
import pytest

from causalarena.eval.predictions import (
    PREDICTION_SCHEMA,
    PredictionError,
    prediction_table,
    validate_prediction,
)


def test_valid_prediction_is_returned_as_int8_and_float32():
    A, S = validate_prediction(
        "i", 3, [[0, 1, 0], [0, 0, 1], [0, 0, 0]], np.arange(9.0).reshape(3, 3)
    )
    assert A.dtype == np.int8 and S.dtype == np.float32
    assert S[0, 0] == 0 and S[1, 1] == 0 and S[0, 1] == 1.0  # diagonal ignored


@pytest.mark.parametrize(
    "adj, scores, gtype, fragment",
    [
        (np.zeros((2, 2)), None, "dag", "shape 2 x 2, the instance has d = 3"),
        ([[0, np.nan, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "NaN"),
        ([[0, 2, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "not binary: A[0, 1] = 2"),
        ([[1, 0, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "self-loop A[0, 0]"),
        (
            [[0, 1, 0], [1, 0, 0], [0, 0, 0]],
            None,
            "dag",
            "graph_type dag but A[0, 1] = A[1, 0] = 1",
        ),
        (None, None, "dag", "neither adjacency nor edge_scores"),
        (None, [[0, np.inf, 0], [0, 0, 0], [0, 0, 0]], "dag", "edge_scores contains NaN or inf"),
        (
            [[0, 1, 0], [0, 0, 0], [0, 0, 0]],
            None,
            "mag",
            "graph_type mag is not one of dag, cpdag, essential, pag",
        ),
        (
            [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
            None,
            "dag",
            "graph_type dag but it has the directed cycle 0 -> 1 -> 2 -> 0",
        ),
        (
            [[0, 1, 0], [0, 0, 1], [1, 0, 0]],
            None,
            "pag",
            "graph_type pag but it has the directed cycle 0 -> 1 -> 2 -> 0",
        ),
        (  # 0 - 1 -> 2: the only class with this skeleton and no v-structure is undirected
            [[0, 1, 0], [1, 0, 1], [0, 0, 0]],
            None,
            "cpdag",
            "graph_type cpdag but not a valid CPDAG: edge 1 -> 2 is directed",
        ),
        (  # undirected 4-cycle: no consistent extension
            [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]],
            None,
            "cpdag",
            "no consistent DAG extension",
        ),
    ],
)
def test_invalid_predictions_name_instance_and_problem(adj, scores, gtype, fragment):
    d = 3 if adj is None else max(np.shape(adj)[0], 3)
    with pytest.raises(PredictionError) as info:
        validate_prediction("synthetic/0001/obs/r0", d, adj, scores, gtype)
    assert "synthetic/0001/obs/r0" in str(info.value)
    assert fragment in str(info.value)


def test_cpdag_allows_undirected_edges():
    A, _ = validate_prediction("i", 3, [[0, 1, 0], [1, 0, 1], [0, 1, 0]], None, "cpdag")
    assert A[0, 1] == A[1, 0] == 1
    A, _ = validate_prediction("i", 3, [[0, 1, 0], [0, 0, 0], [0, 1, 0]], None, "cpdag")
    assert A[0, 1] == 1 and A[1, 0] == 0  # a v-structure stays directed


def test_pag_with_undirected_and_acyclic_directed_part_is_accepted():
    A, _ = validate_prediction("i", 3, [[0, 1, 0], [1, 0, 1], [0, 0, 0]], None, "pag")
    assert A.sum() == 3


def test_pretraining_disclosure_is_validated_and_defaults_to_none():
    row = {"instance_id": "a", "method": "m", "status": "ok"}
    t = prediction_table([row])
    assert t.column("pretraining_disclosure").to_pylist() == ["none"]
    ok = prediction_table([{**row, "pretraining_disclosure": "declared prior: priors.yaml"}])
    assert ok.column("pretraining_disclosure").to_pylist() == ["declared prior: priors.yaml"]
    with pytest.raises(PredictionError) as info:
        prediction_table([{**row, "pretraining_disclosure": "trust me"}])
    assert str(info.value) == (
        "pretraining_disclosure of instance a: value trust me is not valid (expected one of "
        "none, declared prior, corpus overlap report)"
    )


def test_prediction_table_has_the_schema():
    t = prediction_table(
        [
            {
                "instance_id": "a",
                "method": "m",
                "status": "ok",
                "adjacency": np.eye(2, k=1, dtype=np.int8),
                "runtime_s": 0.5,
            }
        ]
    )
    assert t.schema.equals(PREDICTION_SCHEMA)
    assert t.column("adjacency").to_pylist() == [[[0, 1], [0, 0]]]
    assert t.column("edge_scores").to_pylist() == [None]
