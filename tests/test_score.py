"""Scoring rules: verified truth, provenance from the release, duplicates, coverage, fallback.

Each rule fires on a hand-made bad submission (issue 10 section 1 acceptance).  Predictions
are written directly in the schema, so no method runs here.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from causalarena.cli import main
from causalarena.eval import analyses as an
from causalarena.eval.metrics import score_graph
from causalarena.eval.predictions import prediction_table
from causalarena.eval.score import (
    ScoreError,
    read_truth,
    release_provenance,
    score_file,
    score_predictions,
)

CONFIG = "synthetic-obs"
#: release_version and manifest_sha256 of mini_release (set by the truth fixture)
PROV: dict[str, str] = {}


@pytest.fixture(scope="module")
def truth(mini_release):
    PROV.update(release_provenance(mini_release))
    return read_truth(mini_release, CONFIG)


def _row(iid, adj, method="m", **kw):
    return {
        "instance_id": iid,
        "config": CONFIG,
        "method": method,
        "status": "ok",
        "graph_type": "dag",
        "adjacency": None if adj is None else np.asarray(adj, dtype=np.int8),
        **PROV,
        **kw,
    }


def _write(folder, name, rows):
    (folder / CONFIG).mkdir(parents=True, exist_ok=True)
    path = folder / CONFIG / f"{name}.parquet"
    pq.write_table(prediction_table(rows), path)
    return path


def _small(truth, k):
    return sorted(i for i, t in truth.items() if t["d"] == 10)[:k]


def test_partial_submission_is_ranked_on_every_instance(mini_release, truth, tmp_path):
    ids = _small(truth, 3)
    pred = tmp_path / "pred"
    _write(pred, "oracle3", [_row(i, truth[i]["adjacency"], "oracle3") for i in ids])
    s = score_predictions(mini_release, pred, sid=False)
    assert len(s) == len(truth) == 50  # every instance of the config has a row
    assert (s.status == "missing").sum() == 47
    miss = s[s.status == "missing"]
    assert (miss.scored_as == "fallback").all() and (miss.f1 == 0).all()
    # the fallback is the empty graph: SHD = number of true edges
    one = miss.iloc[0]
    assert one.shd == truth[one.instance_id]["adjacency"].sum()
    board = an.leaderboard(s)
    r = board.set_index("method").loc["oracle3"]
    assert r.f1_ok == 1.0  # ok runs only
    assert r.f1 == pytest.approx(3 / 50)  # 3 perfect instances, 47 empty-graph fallbacks
    assert r.coverage == pytest.approx(3 / 50)


def test_failed_timeout_and_invalid_get_the_fallback(mini_release, truth, tmp_path):
    a, b, c = _small(truth, 3)
    cyc = np.zeros((10, 10), np.int8)
    cyc[0, 1] = cyc[1, 2] = cyc[2, 0] = 1
    rows = [
        _row(a, None, status="failed", error="boom"),
        _row(b, None, status="timeout"),
        _row(c, cyc),
    ]
    s = score_predictions(mini_release, _write(tmp_path / "p", "m", rows).parent.parent)
    s = s.set_index("instance_id")
    assert s.loc[c, "status"] == "invalid"
    assert s.loc[c, "error"] == (
        f"prediction for instance {c}: graph_type dag but it has the directed cycle "
        "0 -> 1 -> 2 -> 0"
    )
    for iid in (a, b, c):
        empty = score_graph(truth[iid]["adjacency"], np.zeros((10, 10), np.int8))
        assert s.loc[iid, "scored_as"] == "fallback"
        assert s.loc[iid, "shd"] == empty["shd"] and s.loc[iid, "sid"] == empty["sid"]
        assert np.isnan(s.loc[iid, "auroc"])  # no edge scores anywhere in the submission


def test_invalid_cpdag_is_invalid(mini_release, truth, tmp_path):
    (iid,) = _small(truth, 1)
    bad = np.zeros((10, 10), np.int8)
    bad[0, 1] = bad[1, 2] = bad[2, 1] = 1  # 0 -> 1 - 2: R1 would orient 1 -> 2
    s = score_predictions(
        mini_release, _write(tmp_path / "p", "m", [_row(iid, bad, graph_type="cpdag")]).parents[1]
    )
    r = s.set_index("instance_id").loc[iid]
    assert r.status == "invalid" and "not a valid CPDAG" in r.error and iid in r.error


def test_cpdag_prediction_gets_sid_bounds(mini_release, truth, tmp_path):
    from causalarena.eval.metrics import cpdag, sid_bounds

    (iid,) = _small(truth, 1)
    pattern = cpdag(truth[iid]["adjacency"])
    s = score_predictions(
        mini_release,
        _write(tmp_path / "p", "m", [_row(iid, pattern, graph_type="cpdag")]).parents[1],
    )
    r = s.set_index("instance_id").loc[iid]
    lo, hi = sid_bounds(truth[iid]["adjacency"], pattern)
    assert (r.sid_lower, r.sid_upper) == (lo, hi) and lo == 0 and r.shd_pattern == 0


def test_duplicate_instance_ids_are_refused(mini_release, truth, tmp_path):
    (iid,) = _small(truth, 1)
    adj = truth[iid]["adjacency"]
    path = _write(tmp_path / "p", "m", [_row(iid, adj), _row(iid, np.zeros_like(adj))])
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, path.parents[1])
    assert str(info.value).startswith(f"{path}: instance id {iid} appears 2 times")
    # the same method split over two files is one submission
    path.unlink()
    _write(tmp_path / "p", "part1", [_row(iid, adj)])
    _write(tmp_path / "p", "part2", [_row(iid, adj)])
    with pytest.raises(ScoreError, match="method m: instance id"):
        score_predictions(mini_release, tmp_path / "p")


def test_other_release_is_refused_and_provenance_comes_from_the_release(
    mini_release, truth, tmp_path
):
    (iid,) = _small(truth, 1)
    adj = truth[iid]["adjacency"]
    path = _write(tmp_path / "p", "m", [_row(iid, adj, release_version="arena-synthetic@9.9.9")])
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, path.parents[1])
    assert "column release_version names another release (arena-synthetic@9.9.9" in str(info.value)
    _write(tmp_path / "p", "m", [_row(iid, adj, manifest_sha256="0" * 64)])
    with pytest.raises(ScoreError, match="column manifest_sha256 names another release"):
        score_predictions(mini_release, tmp_path / "p")
    _write(tmp_path / "p", "m", [_row(iid, adj)])  # the rows name this release
    s = score_predictions(mini_release, tmp_path / "p", sid=False)
    m = json.loads((mini_release / "manifest.json").read_text())
    assert set(s.release_version) == {f"{m['suite']}@{m['version']}"}
    import hashlib

    sha = hashlib.sha256((mini_release / "manifest.json").read_bytes()).hexdigest()
    assert set(s.manifest_sha256) == {sha}


@pytest.mark.parametrize("col", ["release_version", "manifest_sha256"])
def test_predictions_without_provenance_are_refused(mini_release, truth, tmp_path, capsys, col):
    """The schema requires both provenance columns: a file that lost one (or has an empty
    value) cannot be shown to predict this release and is refused, naming file and column."""
    ids = _small(truth, 2)
    path = _write(tmp_path / "p", "m", [_row(i, truth[i]["adjacency"]) for i in ids])
    dropped = pq.read_table(path).drop_columns([col])
    pq.write_table(dropped, path)
    for run in (
        [
            "report",
            str(tmp_path / "p"),
            "--release",
            str(mini_release),
            "--out",
            str(tmp_path / "r"),
        ],
        ["score", str(tmp_path / "p"), "--release", str(mini_release), "--no-sid"],
        ["score", str(path), "--release", str(mini_release), "--no-sid"],
    ):
        assert main(run) == 2
        err = capsys.readouterr().err
        assert f"{path}: required column {col} is missing (columns found: instance_id," in err
        assert "Traceback" not in err and "[" not in err and "PosixPath" not in err
    assert not (tmp_path / "r").exists()
    _write(tmp_path / "p", "m", [_row(ids[0], truth[ids[0]]["adjacency"], **{col: None})])
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, tmp_path / "p", sid=False)
    assert str(info.value) == (
        f"{path}: column {col} is empty in row 0 (instance {ids[0]}); every row names the "
        f"release it predicts, here {col} = {PROV[col]} "
        "(causalarena.eval.score.release_provenance gives both values)"
    )


def test_relabelled_method_or_config_rows_are_refused(mini_release, truth, tmp_path, capsys):
    """A file holds one method's predictions for the config of its folder; rows relabelled
    with another method or config are refused, naming file, column and value."""
    a, b = _small(truth, 2)
    A, B = truth[a]["adjacency"], truth[b]["adjacency"]
    pred = tmp_path / "p"
    path = _write(pred, "pc", [_row(a, A, "pc"), _row(b, B, "ges")])
    for run in (
        ["report", str(pred), "--release", str(mini_release), "--out", str(tmp_path / "r")],
        ["score", str(pred), "--release", str(mini_release), "--no-sid"],
        ["score", str(path), "--release", str(mini_release), "--no-sid"],
    ):
        assert main(run) == 2
        err = capsys.readouterr().err
        assert (
            f"{path}: column method has value ges in row 1 but pc in row 0; a predictions "
            "file holds one method"
        ) in err
        assert "Traceback" not in err and "['" not in err
    _write(pred, "pc", [_row(a, A, "pc"), _row(b, B, "pc", config="synthetic-obsint")])
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, pred, sid=False)
    assert str(info.value) == (
        f"{path}: column config has value synthetic-obsint in row 1 but synthetic-obs in "
        "row 0; a predictions file holds one config"
    )
    # every row relabelled: constant, but not the config of the folder it sits in
    obsint = [_row(i, t, "pc", config="synthetic-obsint") for i, t in ((a, A), (b, B))]
    _write(pred, "pc", obsint)
    assert main(["score", str(pred), "--release", str(mini_release), "--no-sid"]) == 2
    assert (
        f"{path}: column config has value synthetic-obsint, but the file is scored as config "
        "synthetic-obs (its folder); predictions refused"
    ) in capsys.readouterr().err
    _write(pred, "pc", [_row(a, A, "pc"), _row(b, B, "pc")])
    cmd = ["score", str(path), "--release", str(mini_release), "--no-sid"]
    assert main([*cmd, "--config", "synthetic-obsint"]) == 2
    assert (
        f"{path}: column config has value synthetic-obs, but the file is scored as config "
        "synthetic-obsint (--config); predictions refused"
    ) in capsys.readouterr().err
    _write(pred, "pc", [_row(a, A, "pc"), _row(b, B, "pc", config=None)])
    with pytest.raises(ScoreError, match=r"pc\.parquet: column config is empty in row 1$"):
        score_predictions(mini_release, pred, sid=False)
    _write(pred, "pc", [_row(a, A, "pc"), _row(b, B, "pc")])
    assert len(score_predictions(mini_release, pred, sid=False)) == 50


def test_tampered_truth_shard_is_refused(mini_release, truth, tmp_path):
    rel = tmp_path / "rel"
    shutil.copytree(mini_release, rel)
    shard = sorted((rel / "data" / CONFIG).glob("*.parquet"))[0]
    t = pq.read_table(shard)
    adj = t.column("adjacency").to_pylist()
    adj[0] = [[0] * len(r) for r in adj[0]] if isinstance(adj[0][0], list) else [0] * len(adj[0])
    pq.write_table(t.set_column(t.schema.get_field_index("adjacency"), "adjacency", [adj]), shard)
    (iid,) = _small(truth, 1)
    pred = _write(tmp_path / "p", "m", [_row(iid, truth[iid]["adjacency"])]).parents[1]
    with pytest.raises(ScoreError) as info:
        score_predictions(rel, pred)
    assert str(info.value).startswith(f"{shard}: does not match its manifest.json checksum")
    extra = rel / "data" / CONFIG / "zz-extra.parquet"
    shutil.copy(sorted((mini_release / "data" / CONFIG).glob("*.parquet"))[0], shard)
    shutil.copy(shard, extra)
    with pytest.raises(ScoreError, match="not listed in manifest.json"):
        score_predictions(rel, pred)


def test_bad_files_name_file_column_and_value(mini_release, truth, tmp_path):
    (iid,) = _small(truth, 1)
    folder = tmp_path / "p" / CONFIG
    folder.mkdir(parents=True)
    path = folder / "m.parquet"
    df = pd.DataFrame({"method": ["m"], "status": ["ok"], "adjacency": [[[0]]]})
    df.to_parquet(path)
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, tmp_path / "p")
    assert str(info.value).startswith(f"{path}: required column instance_id is missing")
    df["instance_id"] = [iid]
    df["config"] = [CONFIG]
    df["release_version"] = [PROV["release_version"]]
    df["manifest_sha256"] = [PROV["manifest_sha256"]]
    df["status"] = ["done"]
    df.to_parquet(path)
    with pytest.raises(ScoreError) as info:
        score_predictions(mini_release, tmp_path / "p")
    assert str(info.value) == (
        f"{path}: column status has unknown value done in row 0 (instance {iid}); expected "
        "one of ok, failed, timeout, invalid, unsupported"
    )
    df["status"] = ["ok"]
    df["pretraining_disclosure"] = ["maybe"]
    df.to_parquet(path)
    with pytest.raises(ScoreError, match="column pretraining_disclosure has invalid value maybe"):
        score_predictions(mini_release, tmp_path / "p")


def test_two_workers_give_the_same_scores(mini_release, truth, tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for iid in sorted(truth)[:30]:
        a = truth[iid]["adjacency"].copy()
        flip = rng.random(a.shape) < 0.02
        a = np.triu(a | flip, 1) if a.sum() == np.triu(a, 1).sum() else a
        np.fill_diagonal(a, 0)
        rows.append(_row(iid, a, edge_scores=rng.random(a.shape).astype(np.float32)))
    pred = _write(tmp_path / "p", "m", rows).parents[1]
    one = score_predictions(mini_release, pred).sort_values("instance_id")
    two = score_predictions(mini_release, pred, workers=2).sort_values("instance_id")
    pd.testing.assert_frame_equal(one.reset_index(drop=True), two.reset_index(drop=True))
    # fallback rows of a method with edge scores get the uninformative AUROC
    assert (one[one.status == "missing"].auroc == 0.5).all()


def test_cli_score_file_and_errors(mini_release, truth, tmp_path, capsys):
    ids = _small(truth, 2)
    path = _write(tmp_path / "p", "ext", [_row(i, truth[i]["adjacency"], "ext") for i in ids])
    out = tmp_path / "scores.csv"
    assert main(["score", str(path), "--release", str(mini_release), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "ext" in text and "  2 " in text and "4.0%" in text  # 2 ok of 50 instances
    assert len(pd.read_csv(out)) == 50
    direct = score_file(path, mini_release)
    assert direct.f1.mean() == pytest.approx(2 / 50)
    bad = tmp_path / "bad.parquet"
    pd.DataFrame({"x": [1]}).to_parquet(bad)
    assert main(["score", str(bad), "--release", str(mini_release), "--config", CONFIG]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: required column instance_id is missing" in err and "'" not in err


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("pc\nsynthetic-obs  fake 1.000", "U+000A is not printable ASCII"),
        ("p\u0441", "U+0441 is not printable ASCII"),  # Cyrillic es: reads as "pc"
        ("pc\u200b", "U+200B is not printable ASCII"),  # zero-width space
        ("\x1b[2Jpc", "U+001B is not printable ASCII"),  # ANSI clear screen
        (" pc", "without leading or trailing blanks"),
    ],
)
def test_forged_method_names_are_refused(mini_release, truth, tmp_path, capsys, name, why):
    """A method name that prints a fake row, escapes the terminal or reads like another
    method's is refused (breaker finding); a plain ASCII name still scores."""
    (a,) = _small(truth, 1)
    pred = tmp_path / "p"
    path = _write(pred, "m", [_row(a, truth[a]["adjacency"], name)])
    assert main(["score", str(pred), "--release", str(mini_release), "--no-sid"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: column method has value {name!r} in row 0:" in err and why in err
    assert "Traceback" not in err
    _write(pred, "m", [_row(a, truth[a]["adjacency"], "pc-2.0_v+1")])
    assert main(["score", str(pred), "--release", str(mini_release), "--no-sid", "-q"]) == 0


def test_method_name_problem_rejects_non_text():
    from causalarena.eval.predictions import method_name_problem

    assert method_name_problem(5) == "a method name is text, got int"
    assert method_name_problem("direct-lingam") is None


def test_evaluate_refuses_a_forged_method_name_before_running(mini_release, tmp_path):
    import causalarena

    with pytest.raises(ValueError, match=r"U\+000A is not printable ASCII"):
        causalarena.evaluate(
            lambda X, mask, seed: np.zeros((X.shape[1],) * 2, dtype=np.int8),
            release=mini_release,
            config="synthetic-obs",
            name="pc\nfake",
            isolation="none",
        )
