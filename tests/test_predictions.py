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
        (np.zeros((2, 2)), None, "dag", "shape (2, 2), instance has d=3"),
        ([[0, np.nan, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "NaN"),
        ([[0, 2, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "not binary: A[0, 1] = 2.0"),
        ([[1, 0, 0], [0, 0, 0], [0, 0, 0]], None, "dag", "self-loop A[0, 0]"),
        (
            [[0, 1, 0], [1, 0, 0], [0, 0, 0]],
            None,
            "dag",
            "graph_type 'dag' but A[0, 1] = A[1, 0] = 1",
        ),
        (None, None, "dag", "neither adjacency nor edge_scores"),
        (None, [[0, np.inf, 0], [0, 0, 0], [0, 0, 0]], "dag", "edge_scores contains NaN or inf"),
        ([[0, 1, 0], [0, 0, 0], [0, 0, 0]], None, "mag", "graph_type 'mag'"),
    ],
)
def test_invalid_predictions_name_instance_and_problem(adj, scores, gtype, fragment):
    with pytest.raises(PredictionError) as info:
        validate_prediction("synthetic/0001/obs/r0", 3, adj, scores, gtype)
    assert "synthetic/0001/obs/r0" in str(info.value)
    assert fragment in str(info.value)


def test_cpdag_allows_undirected_edges():
    A, _ = validate_prediction("i", 3, [[0, 1, 0], [1, 0, 1], [0, 0, 0]], None, "cpdag")
    assert A[0, 1] == A[1, 0] == 1


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
