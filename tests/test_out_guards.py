"""Outputs never land inside a release, and one predictions folder is not counted twice
(breaker findings of the 2026-12-01 afternoon session)."""

from __future__ import annotations

import pytest

from causalarena.cli import main


@pytest.fixture(scope="module")
def preds(mini_release, tmp_path_factory):
    out = tmp_path_factory.mktemp("pred")
    argv = [
        "run",
        str(mini_release),
        "--config",
        "synthetic-obs",
        "--methods",
        "random-regress",
        "--max-d",
        "10",
        "--out",
        str(out),
        "--workers",
        "1",
        "-q",
    ]
    assert main(argv) == 0
    return out


def test_score_out_inside_the_release_is_refused(mini_release, preds, capsys):
    pred = next((preds / "synthetic-obs").glob("*.parquet"))
    target = mini_release / "data" / "synthetic-obs" / "x.parquet"
    rc = main(["score", str(pred), "--release", str(mini_release), "--out", str(target)])
    assert rc == 2 and not target.exists()
    assert "is inside the release folder" in capsys.readouterr().err
    assert main(["verify", str(mini_release)]) == 0


def test_report_refuses_the_same_folder_twice_and_out_inside(mini_release, preds, capsys, tmp_path):
    rc = main(["report", str(preds), str(preds), "--out", str(tmp_path / "r"), "--no-sid"])
    assert rc == 2 and "is given twice" in capsys.readouterr().err
    rc = main(["report", str(preds), "--out", str(mini_release / "rep"), "--no-sid"])
    assert rc == 2 and "is inside the release folder" in capsys.readouterr().err
    assert not (mini_release / "rep").exists()


def test_reserved_build_inside_a_release_is_refused(mini_release, tmp_path):
    from causalarena.errors import ReleaseError
    from causalarena.release import reserved as rsv

    key = tmp_path / "k"
    rsv.generate_key(key)
    with pytest.raises(ReleaseError, match="inside the release folder"):
        rsv.build_reserved(
            "arena-synthetic", key_file=key, out=mini_release / "private", quiet=True
        )
    assert not (mini_release / "private").exists()


@pytest.mark.parametrize("edit", ["drop_join_key", "bogus"])
def test_verify_checks_the_views_columns(mini_release, tmp_path, edit):
    """Breaker finding: a view's card `columns:` could drop `instance_id` or name a column the
    shards lack and `verify` still passed."""
    import shutil

    rel = tmp_path / "rel"
    shutil.copytree(mini_release, rel)
    card = rel / "README.md"
    text = card.read_text()
    head, sep, rest = text.partition("config_name: synthetic-obs-d010")
    assert sep, "the mini card declares the d=10 view"
    if edit == "drop_join_key":
        rest = rest.replace("  - instance_id\n", "", 1)
    else:
        rest = rest.replace("  - adjacency\n", "  - adjacency\n  - bogus_col\n", 1)
    card.write_text(head + sep + rest)
    assert main(["verify", str(rel)]) == 1
    assert main(["verify", str(mini_release)]) == 0


def test_evaluate_warns_when_every_run_failed(mini_release):
    """Tester finding: a board of all-failed runs came back silently (F1 0, the fallback)."""
    import causalarena

    def broken(X, mask, seed):
        raise RuntimeError("boom")

    with pytest.warns(RuntimeWarning, match="every one of its .* runs ended .*boom"):
        causalarena.evaluate(
            broken,
            release=mini_release,
            config="synthetic-obs",
            isolation="none",
            max_d=10,
            quiet=True,
        )
