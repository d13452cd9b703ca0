"""CLI conventions (issue 15 §1): version, common options, defaults in help, progress on
stderr only when asked, did-you-mean for unknown names, --json outputs."""

from __future__ import annotations

import argparse
import json

import pytest

from causalarena import cli
from causalarena.cli_common import error_text, unknown_name


def _leaves(p: argparse.ArgumentParser, path=()):
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, p
    for a in subs:
        for name, sp in a.choices.items():
            yield from _leaves(sp, (*path, name))


def test_version_long_and_short(capsys):
    from importlib.metadata import version

    for flag in ("--version", "-V"):
        with pytest.raises(SystemExit) as e:
            cli.main([flag])
        assert e.value.code == 0
        assert capsys.readouterr().out.strip() == f"causalarena {version('causalarena')}"


def test_every_verb_takes_quiet_verbose_and_shows_defaults():
    leaves = list(_leaves(cli._parser()))
    assert len(leaves) > 20  # build, run, lab run, release freeze, ...
    for path, p in leaves:
        opts = p._option_string_actions
        for flag in ("-q", "--quiet", "-v", "--verbose", "--progress"):
            assert flag in opts, (path, flag)
        assert isinstance(p.formatter_class("x"), argparse.ArgumentDefaultsHelpFormatter), path
    text = " ".join(dict(leaves)[("build",)].format_help().split())
    assert "(default: mini)" in text and "it) (default: 1)" in text and "-q, --quiet" in text
    args = cli._parser().parse_args(["build", "arena-synthetic", "-q", "-vv"])
    assert args.quiet is True and args.verbose == 2


def _drive_progress():
    from causalarena.ui import progress

    with progress() as bar:
        t = bar.add_task("units", total=3)
        for _ in range(3):
            bar.advance(t)


def test_progress_off_when_stderr_is_not_a_terminal_unless_asked(capsys, monkeypatch):
    monkeypatch.delenv("CAUSALARENA_PROGRESS", raising=False)
    _drive_progress()
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == ""  # captured stderr is not a terminal
    monkeypatch.setenv("CAUSALARENA_PROGRESS", "1")  # what --progress sets
    _drive_progress()
    cap = capsys.readouterr()
    assert cap.out == "" and "units" in cap.err and "3/3" in cap.err


def test_progress_flag_sets_the_environment(monkeypatch):
    from causalarena.cli_common import setup_from_args

    monkeypatch.delenv("CAUSALARENA_PROGRESS", raising=False)
    setup_from_args(cli._parser().parse_args(["methods", "--progress"]))
    import os

    assert os.environ["CAUSALARENA_PROGRESS"] == "1"


def test_unknown_suite_lists_all_and_suggests(capsys):
    assert cli.main(["build", "arena-synthtic", "--out", "/nonexistent/x"]) == 2
    err = capsys.readouterr().err
    assert "suite arena-synthtic: unknown suite; did you mean arena-synthetic" in err
    for s in ("arena-formula", "dot-generic", "lab-main", "arena-protocols", "arena-real"):
        assert s in err  # every suite, not only arena-synthetic
    assert "'" not in err and "Error(" not in err


def test_run_unknown_config_and_method(mini_release, tmp_path, capsys):
    base = ["run", str(mini_release), "--out", str(tmp_path / "p")]
    assert cli.main([*base, "--config", "synthetic-ob", "--methods", "pc"]) == 2
    err = capsys.readouterr().err
    assert "--config synthetic-ob: not a config of the release" in err
    assert "did you mean synthetic-obs" in err and "synthetic-obs, synthetic-obsint)" in err
    assert cli.main([*base, "--config", "synthetic-obs", "--methods", "pc,gis"]) == 2
    err = capsys.readouterr().err
    assert "--methods gis: unknown method; did you mean" in err and "gies" in err
    assert "KeyError" not in err and "'" not in err
    assert not (tmp_path / "p").exists()  # refused before anything ran


def test_bad_integer_names_option_and_value(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "x", "--config", "c", "--methods", "pc", "--out", "o", "--workers", "two"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--workers" in err and "two" in err and "invalid literal" not in err


def test_error_text_never_a_repr():
    assert error_text(KeyError("unknown method x")) == "unknown method x"
    assert str(unknown_name("--config", "ab", ["abc", "xyz"], "config")) == (
        "--config ab: unknown config; did you mean abc? known configs: abc, xyz"
    )


def test_suites_json(capsys):
    assert cli.main(["suites", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by = {r["suite"]: r for r in rows}
    assert by["arena-synthetic"]["configs"] == ["synthetic-obs", "synthetic-obsint"]
    assert by["arena-synthetic"]["family"] == "synthetic"
    assert by["arena-real"]["scales"] == ["full"]
    assert {"dot-generic", "lab-main", "arena-formula"} <= set(by)
    assert all(set(r) == {"suite", "family", "version", "scales", "configs", "doi"} for r in rows)


def test_run_release_positional_or_alias(mini_release, tmp_path, capsys):
    out = str(tmp_path / "p")
    for argv in (
        ["run", str(mini_release)],
        ["run", "--release", str(mini_release)],
    ):
        rc = cli.main([*argv, "--config", "synthetic-ob", "--methods", "pc", "--out", out])
        assert rc == 2 and "did you mean synthetic-obs" in capsys.readouterr().err
    assert cli.main(["run", "--config", "synthetic-obs", "--methods", "pc", "--out", out]) == 2
    assert "RELEASE (missing): name the release folder" in capsys.readouterr().err
    rc = cli.main(["run", "a", "--release", "b", "--config", "c", "--methods", "pc", "--out", out])
    assert rc == 2 and "--release b: differs from the positional RELEASE a" in (
        capsys.readouterr().err
    )
