"""MethodInfo.pretraining_disclosure: validated, written into every predictions row, shown."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.baselines.base import Method, MethodInfo
from causalarena.baselines.registry import get_method, registered
from causalarena.eval import analyses as an
from causalarena.eval.report import _provenance, render_markdown
from causalarena.eval.runner import run_methods
from causalarena.eval.score import score_predictions


def _info(**kw) -> MethodInfo:
    base = get_method("random-regress").info
    return dataclasses.replace(base, name="disclosing", display_name="Disclosing", **kw)


def test_methodinfo_validates_the_disclosure():
    assert get_method("pc").info.pretraining_disclosure == "none"
    # cdfm needs torch to run, not to declare its prior (CI installs no torch)
    assert registered("cdfm").info.pretraining_disclosure.startswith("declared prior")
    with pytest.raises(ValueError, match="pretraining_disclosure"):
        _info(pretraining_disclosure="secret")
    with pytest.raises(ValueError, match="take a reference"):
        _info(pretraining_disclosure="none: nothing to see")
    with pytest.raises(ValueError, match="is pretrained"):
        _info(family="pretrained")  # a pretrained method must disclose
    assert _info(family="pretrained", pretraining_disclosure="corpus overlap report")


def _zeros(X, mask, seed):
    return np.zeros((X.shape[1],) * 2, dtype=np.int8)


def test_runner_writes_the_disclosure_and_the_leaderboard_shows_it(mini_release, tmp_path):
    doc = "declared prior: https://example.org/prior.yaml"
    method = Method(info=_info(pretraining_disclosure=doc), fit=_zeros)
    kw = dict(max_d=10, workers=1, quiet=True, isolation="none")
    run_methods(mini_release, "synthetic-obs", [method, "random-regress"], tmp_path, **kw)
    rows = pq.read_table(tmp_path / "synthetic-obs" / "disclosing.parquet").to_pylist()
    assert len(rows) == 10 and {r["pretraining_disclosure"] for r in rows} == {doc}
    other = pq.read_table(tmp_path / "synthetic-obs" / "random-regress.parquet")
    assert set(other.column("pretraining_disclosure").to_pylist()) == {"none"}

    # a rerun reuses the journaled rows but writes the method's current disclosure
    method2 = Method(info=_info(pretraining_disclosure="corpus overlap report"), fit=_zeros)
    res = run_methods(mini_release, "synthetic-obs", [method2], tmp_path, **kw)
    assert res["reused"]
    rows = pq.read_table(tmp_path / "synthetic-obs" / "disclosing.parquet").to_pylist()
    assert {r["pretraining_disclosure"] for r in rows} == {"corpus overlap report"}

    scores = score_predictions(mini_release, tmp_path, max_d=10, sid=False)
    board = an.leaderboard(an.instance_scores(scores))
    shown = dict(zip(board["method"], board["pretraining_disclosure"], strict=True))
    assert shown == {"disclosing": "corpus overlap report", "random-regress": "none"}
    md = render_markdown(board, "t", _provenance(scores, "t"), [])
    assert "corpus overlap report" in md
