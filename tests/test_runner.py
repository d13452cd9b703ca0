"""The runner records every outcome as a row and resumes; the scorer joins truth by id."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from causalarena.eval.runner import run
from causalarena.eval.score import ScoreError, score_predictions


@pytest.fixture()
def plugins(monkeypatch):
    monkeypatch.setenv("CAUSALARENA_METHODS", "causalarena_fake_methods")
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent / "plugins"))


def test_every_status_is_a_row(mini_release, tmp_path, plugins):
    out = tmp_path / "pred"
    res = run(
        mini_release,
        "synthetic-obs",
        ["test-empty", "test-boom", "test-sleepy", "test-bad-shape", "test-needs-int"],
        out,
        timeout=1.5,
        workers=2,
        max_d=10,
        quiet=True,
    )
    assert res["counts"]["test-empty"] == {"ok": 10}
    assert res["counts"]["test-boom"] == {"failed": 10}
    assert res["counts"]["test-sleepy"] == {"timeout": 10}
    assert res["counts"]["test-bad-shape"] == {"invalid": 10}
    assert res["counts"]["test-needs-int"] == {"unsupported": 10}
    boom = pq.read_table(out / "synthetic-obs/test-boom.parquet").to_pylist()
    assert "deliberate failure" in boom[0]["error"]
    bad = pq.read_table(out / "synthetic-obs/test-bad-shape.parquet").to_pylist()[0]
    assert "adjacency has shape 2 x 2, the instance has d = 10" in bad["error"]
    row = pq.read_table(out / "synthetic-obs/test-empty.parquet").to_pylist()[0]
    m = json.loads((mini_release / "manifest.json").read_text())
    assert row["release_version"] == f"arena-synthetic@{m['version']}"
    assert len(row["manifest_sha256"]) == 64 and row["package_version"]


def test_masks_reach_interventional_methods_only_on_obsint(mini_release, tmp_path, plugins):
    out = tmp_path / "pred"
    res = run(
        mini_release,
        "synthetic-obsint",
        ["test-needs-int", "test-empty"],
        out,
        timeout=30,
        max_d=10,
        quiet=True,
    )
    assert res["counts"]["test-needs-int"] == {"ok": 10}
    assert res["counts"]["test-empty"] == {"unsupported": 10}  # does not use masks
    notes = [
        json.loads(r["notes"])
        for r in pq.read_table(out / "synthetic-obsint/test-needs-int.parquet").to_pylist()
    ]
    assert all(n["saw_mask"] for n in notes)


def test_resume_skips_finished_runs(mini_release, tmp_path, plugins):
    out = tmp_path / "pred"
    run(mini_release, "synthetic-obs", ["test-empty"], out, max_d=10, quiet=True)
    journal = out / "synthetic-obs/.test-empty.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:4]) + "\n" + lines[4][:20])  # 4 done + a torn line
    run(mini_release, "synthetic-obs", ["test-empty"], out, max_d=10, quiet=True)
    rows = pq.read_table(out / "synthetic-obs/test-empty.parquet").to_pylist()
    assert len(rows) == 10 and len({r["instance_id"] for r in rows}) == 10
    assert len(journal.read_text().splitlines()) == 4 + 1 + 6  # torn line kept, 6 redone


def test_scores_join_truth_and_refuse_unknown_ids(mini_release, tmp_path, plugins):
    out = tmp_path / "pred"
    run(mini_release, "synthetic-obs", ["test-empty", "test-boom"], out, max_d=10, quiet=True)
    # an external predictions file with an oracle, a transposed oracle and an unknown id
    truth = [
        t
        for t in pq.read_table(
            mini_release / "data/synthetic-obs", columns=["instance_id", "adjacency", "d"]
        ).to_pylist()
        if t["d"] == 10
    ][:2]
    from causalarena.eval.predictions import prediction_table
    from causalarena.eval.score import release_provenance

    prov = release_provenance(mini_release)
    rows = []
    for t, A in (
        (truth[0], np.array(truth[0]["adjacency"])),
        (truth[1], np.array(truth[1]["adjacency"]).T),
    ):
        rows.append(
            {
                "instance_id": t["instance_id"],
                "config": "synthetic-obs",
                "method": "oracle",
                "status": "ok",
                "adjacency": A.astype(np.int8),
                "graph_type": "dag",
                **prov,
            }
        )
    nope = {
        **prov,
        "instance_id": "nope",
        "config": "synthetic-obs",
        "method": "oracle",
        "status": "ok",
        "adjacency": np.zeros((3, 3), np.int8),
        "graph_type": "dag",
    }
    # an id the config does not hold would count as a 51st instance of 50: refused, named
    pq.write_table(prediction_table([*rows, nope]), out / "synthetic-obs/oracle.parquet")
    with pytest.raises(ScoreError, match=r"oracle\.parquet: column instance_id: nope is not an"):
        score_predictions(mini_release, out, max_d=10)
    pq.write_table(prediction_table(rows[:0]), out / "synthetic-obs/oracle.parquet")
    with pytest.raises(ScoreError, match=r"oracle\.parquet: holds no prediction rows"):
        score_predictions(mini_release, out, max_d=10)
    pq.write_table(prediction_table(rows), out / "synthetic-obs/oracle.parquet")
    s = score_predictions(mini_release, out, max_d=10)
    empty = s[s.method == "test-empty"]
    assert len(empty) == 10 and (empty.recall == 0).all() and empty.precision.isna().all()
    boom = s[s.method == "test-boom"]
    assert (boom.status == "failed").all() and (boom.scored_as == "fallback").all()
    assert (boom.f1 == 0).all()  # the fallback: the empty graph
    np.testing.assert_array_equal(
        boom.sort_values("instance_id").shd, empty.sort_values("instance_id").shd
    )
    oracle = s[s.method == "oracle"].set_index("instance_id")
    assert oracle.loc[truth[0]["instance_id"], "f1"] == 1.0
    assert oracle.loc[truth[0]["instance_id"], "shd"] == 0
    assert oracle.loc[truth[1]["instance_id"], "recall"] == 0.0  # transposed: all reversed
    assert "nope" not in oracle.index


def test_unknown_method_and_bad_arguments(mini_release, tmp_path):
    with pytest.raises(KeyError, match="unknown method"):
        run(mini_release, "synthetic-obs", ["no-such-method"], tmp_path / "p", quiet=True)
    with pytest.raises(ValueError, match="timeout"):
        run(mini_release, "synthetic-obs", ["random-regress"], tmp_path / "p", timeout=0)


def test_a_subset_report_accepts_predictions_outside_the_subset(mini_release, tmp_path):
    """Rows of instances outside --max-d/--replicates are instances of the config: dropped
    from the subset, never refused as unknown (regression of the unknown-id check)."""
    out = tmp_path / "pred"
    run(mini_release, "synthetic-obs", ["random-regress"], out, max_d=20, quiet=True)
    s = score_predictions(mini_release, out, max_d=10)
    assert len(s) == 10 and set(s["d"]) == {10} and (s["status"] == "ok").all()
    s = score_predictions(mini_release, out, replicates=[0])
    assert (s["replicate"] == 0).all() and (s.loc[s["d"] <= 20, "status"] == "ok").all()
