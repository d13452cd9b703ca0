"""causalarena.evaluate: a callable, an object or a name -> the CLI's scores, as a Leaderboard."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalarena
from causalarena.baselines.registry import get_method
from causalarena.cli import main

METRICS = ["precision", "recall", "f1", "shd", "nshd", "sid", "auroc", "ap", "shd_pattern"]


def _metrics(frame: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in METRICS if c in frame.columns]
    return frame.set_index("instance_id").sort_index()[["status", *cols]]


@pytest.fixture(scope="module")
def cli_scores(mini_release, tmp_path_factory):
    """var-sort-regress through `causalarena run` + the scorer `causalarena report` uses."""
    from causalarena.eval.score import score_predictions

    pred = tmp_path_factory.mktemp("cli-pred")
    rc = main(
        [
            "run",
            "--release",
            str(mini_release),
            "--config",
            "synthetic-obs",
            "--methods",
            "var-sort-regress",
            "--out",
            str(pred),
            "--max-d",
            "10",
            "--quiet",
        ]
    )
    assert rc == 0
    rep = tmp_path_factory.mktemp("cli-report")
    args = ["report", str(pred), "--out", str(rep), "--release", str(mini_release)]
    assert main([*args, "--max-d", "10"]) == 0  # the evaluated set: d <= 10, as run
    return score_predictions(mini_release, pred, max_d=10), pd.read_csv(rep / "leaderboard.csv")


def _vsr(X, mask, seed):
    res = get_method("var-sort-regress").fit(X, mask, seed=seed)
    return res.adjacency, res.edge_scores


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_evaluate_lambda_reproduces_cli_scores(mini_release, cli_scores, isolation):
    cli, cli_board = cli_scores
    board = causalarena.evaluate(
        lambda X, mask, seed: _vsr(X, mask, seed),
        release=mini_release,
        config="synthetic-obs",
        isolation=isolation,
        max_d=10,
    )
    assert isinstance(board, causalarena.Leaderboard)
    ours = _metrics(board.scores)
    theirs = _metrics(cli)
    assert len(ours) == 10 and (ours["status"] == "ok").all()
    assert list(ours.index) == list(theirs.index)
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    frame = board.to_frame()
    assert list(frame["method"]) == ["custom"]
    # the pooled leaderboard values equal the CLI report's leaderboard.csv
    for m in ("f1", "shd", "sid", "auroc", "f1_ci_low", "f1_ci_high"):
        assert frame[m].iloc[0] == pytest.approx(cli_board[m].iloc[0], rel=1e-12), m
    # provenance comes from the release
    manifest = json.loads((mini_release / "manifest.json").read_text())
    assert board.provenance["release_version"] == f"arena-synthetic@{manifest['version']}"
    assert (board.scores["manifest_sha256"] == board.provenance["manifest_sha256"]).all()


def test_evaluate_name_object_and_outputs(mini_release, cli_scores, tmp_path):
    cli, _ = cli_scores
    by_name = causalarena.evaluate(
        "var-sort-regress", release=mini_release, config="synthetic-obs", max_d=10, out=tmp_path
    )
    pd.testing.assert_frame_equal(_metrics(by_name.scores), _metrics(cli), check_exact=True)
    obj = causalarena.evaluate(
        get_method("var-sort-regress"),
        release=mini_release,
        config="synthetic-obs",
        isolation="none",
        max_d=10,
    )
    assert list(obj.to_frame()["method"]) == ["var-sort-regress"]
    pd.testing.assert_frame_equal(_metrics(obj.scores), _metrics(cli), check_exact=True)
    md = by_name.to_markdown()
    assert md.startswith("# causalarena leaderboard") and "| 1 | var-sort-regress |" in md
    fig = by_name.plot(tmp_path / "board.png")
    assert (tmp_path / "board.png").read_bytes()[:4] == b"\x89PNG"
    assert fig.axes and fig.axes[0].get_title() == "Leaderboard: F1"
    assert "synthetic obs" in by_name.table2().columns


def test_evaluate_writes_the_pretraining_disclosure(mini_release, tmp_path):
    import pyarrow.parquet as pq

    board = causalarena.evaluate(
        lambda X, mask, seed: np.zeros((X.shape[1],) * 2),
        release=mini_release,
        config="synthetic-obs",
        isolation="none",
        max_d=10,
        out=tmp_path,
        name="my-pretrained",
        pretraining_disclosure="declared prior: https://example.org/prior.yaml",
    )
    rows = pq.read_table(tmp_path / "synthetic-obs" / "my-pretrained.parquet").to_pylist()
    assert {r["pretraining_disclosure"] for r in rows} == {
        "declared prior: https://example.org/prior.yaml"
    }
    assert list(board.to_frame()["method"]) == ["my-pretrained"]
    with pytest.raises(ValueError, match="pretraining_disclosure"):
        causalarena.evaluate(
            lambda X, mask, seed: np.zeros((X.shape[1],) * 2),
            release=mini_release,
            config="synthetic-obs",
            isolation="none",
            max_d=10,
            pretraining_disclosure="secret",
        )


def test_evaluate_records_failures_and_bad_outputs(mini_release):
    def boom(X, mask, seed):
        raise RuntimeError("deliberate")

    failed = causalarena.evaluate(
        boom, release=mini_release, config="synthetic-obs", isolation="none", max_d=10
    )
    assert (failed.scores["status"] == "failed").all()
    assert failed.scores["error"].str.contains("deliberate").all()
    bad = causalarena.evaluate(
        lambda X, mask, seed: np.ones((2, 2)),
        release=mini_release,
        config="synthetic-obs",
        isolation="none",
        max_d=10,
    )
    assert (bad.scores["status"] == "invalid").all()
    assert bad.to_frame()["coverage"].iloc[0] == 0.0


def test_evaluate_process_isolation_times_out(mini_release):
    import time

    def sleepy(X, mask, seed):
        time.sleep(30)

    res = causalarena.evaluate(
        sleepy,
        release=mini_release,
        config="synthetic-obs",
        isolation="process",
        timeout=0.5,
        max_d=10,
        replicates=[0],
    )
    assert (res.scores["status"] == "timeout").all() and len(res.scores) >= 1


def test_evaluate_rejects_bad_arguments(mini_release):
    with pytest.raises(ValueError, match="isolation"):
        causalarena.evaluate("pc", release=mini_release, config="synthetic-obs", isolation="x")
    with pytest.raises(TypeError, match="registered name"):
        causalarena.evaluate(42, release=mini_release, config="synthetic-obs")
    with pytest.raises(KeyError):
        causalarena.evaluate("no-such-method", release=mini_release, config="synthetic-obs")


_SCRIPT = """\
import numpy as np
import causalarena


def empty(X, mask, seed):
    return np.zeros((X.shape[1], X.shape[1]), dtype=np.int8)


def main():
    board = causalarena.evaluate(
        empty, release={release!r}, config="synthetic-obs", max_d=10, replicates=[0]
    )
    print("BOARD", len(board.scores), sorted(set(board.scores.status)))


{call}
"""


@pytest.mark.parametrize(
    "call, line",
    [
        ("main()", 16),
        ('if __name__ != "x":\n    main()', 17),
        ('if __name__ == "__main__":\n    main()', None),
    ],
)
def test_evaluate_in_a_script_without_the_main_guard(mini_release, tmp_path, call, line):
    """Isolated workers re-import the script: an unguarded call is refused before any worker
    starts (it used to print a worker traceback, exit 0 and score every run as failed)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "myscript.py"
    script.write_text(_SCRIPT.format(release=str(mini_release), call=call))
    src = str(Path(causalarena.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600
    )
    if line is None:  # the guarded script runs and scores every instance
        assert p.returncode == 0, p.stderr[-2000:]
        assert p.stdout.strip() == "BOARD 10 ['ok']"
        return
    assert p.returncode == 1 and "BOARD" not in p.stdout
    last = p.stderr.strip().splitlines()[-1]
    assert last == (
        f"causalarena.eval.evaluate.MainGuardError: {script}, line {line}: "
        "causalarena.evaluate() is called at the top level of the script without an "
        '`if __name__ == "__main__":` guard. Isolated workers start by re-importing the '
        "script, which would call evaluate() again in every worker. Put the call under "
        '`if __name__ == "__main__":`, or pass isolation="none" (runs in this process, '
        "without the time and memory limits)."
    )
    assert "bootstrapping" not in p.stderr  # no worker was started


def test_evaluate_non_numeric_returns_are_invalid_rows(mini_release):
    """A str / dict / complex return is an ``invalid`` row naming the type; the rest are scored."""
    bad = iter(["hello", {"a": 1}, np.zeros((3, 3), dtype=complex)])

    def method(X, mask, seed):
        return next(bad, np.zeros((X.shape[1],) * 2))

    board = causalarena.evaluate(
        method, release=mini_release, config="synthetic-obs", isolation="none", max_d=10
    )
    s = board.scores
    invalid = s[s["status"] == "invalid"]
    assert len(invalid) == 3 and len(s) > 3
    assert (s.loc[s["status"] != "invalid", "status"] == "ok").all()
    assert s.loc[s["status"] == "ok", "shd"].notna().all()
    errors = " | ".join(invalid["error"])
    for name in ("method returned str", "method returned dict", "array of complex128"):
        assert name in errors
    assert all("\n" not in e and "expected a (d, d) adjacency" in e for e in invalid["error"])
