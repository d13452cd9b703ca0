"""CLI conventions (issue 15 §1): version, common options, defaults in help, progress on
stderr only when asked, did-you-mean for unknown names, --json outputs."""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

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
    keys = {"suite", "family", "version", "scales", "configs", "instances", "aliases", "doi"}
    assert all(set(r) == keys for r in rows)
    # sizes from the design: 10 graph families x 5 d x 10 public SCMs x 5 replicates at full
    assert by["arena-synthetic"]["instances"]["full"] == {
        "synthetic-obs": 2500,
        "synthetic-obsint": 2500,
    }
    assert by["dot-generic"]["instances"]["full"] == {"dot-generic": 100_000}
    assert by["dot-identifiability"]["instances"]["full"] == {"dot-identifiability": 12_150}
    assert by["arena-real"]["instances"] is None  # depends on the tables on disk
    assert by["dot-all"]["aliases"] == ["dot"] and by["arena-real"]["aliases"] == ["real"]
    assert "dot-Generic-100k" in by["dot-generic"]["aliases"]


def test_suites_sizes_match_a_built_release(mini_release):
    """The declared mini sizes equal the rows the engine wrote, per config."""
    from causalarena.cli_suites import suite_table
    from causalarena.release.manifest import read_manifest

    declared = {r["suite"]: r for r in suite_table()}["arena-synthetic"]["instances"]["mini"]
    written = {c: v["rows"] for c, v in read_manifest(mini_release)["configs"].items()}
    assert declared == {c: written[c] for c in declared}


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


@pytest.fixture(scope="module")
def obsint_rows(mini_release):
    from causalarena.loaders.load import iter_numpy

    return {r["instance_id"]: r for r in iter_numpy("synthetic-obsint", source=mini_release)}


def test_export_npz_round_trip(mini_release, obsint_rows, tmp_path, capsys):
    import numpy as np

    from causalarena.cli_export import file_stem

    out = tmp_path / "npz"
    argv = ["export", str(mini_release), "--config", "synthetic-obsint", "--format", "npz"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    rec = json.loads((out / "export.json").read_text())
    assert rec["adjacency_convention"].startswith("A[i, j] = 1 iff i -> j")
    assert "A[i, j] = 1 iff i -> j" in (out / "README.md").read_text()
    assert len(rec["instances"]) == len(obsint_rows) > 0
    assert any(r["mask"].any() for r in obsint_rows.values())  # the mask is exercised
    for iid, r in obsint_rows.items():
        z = np.load(out / f"{file_stem(iid)}.npz")
        n, d = r["X"].shape
        assert z["x"].shape == (n, d, 2) and z["x"].dtype == np.float32
        assert np.array_equal(z["x"][..., 0], r["X"])
        assert np.array_equal(z["x"][..., 1] == 1.0, r["mask"])
        assert np.array_equal(z["g"], r["adjacency"]) and z["g"].dtype == np.int8
        assert list(z["variables"]) == list(r["variables"])
    bad = cli.main([*argv[:2], "--config", "synthetic-obsnt", "--format", "npz"])
    assert bad == 2 and "did you mean synthetic-obsint" in capsys.readouterr().err


def test_export_csv_and_parquet_flat(mini_release, obsint_rows, tmp_path):
    import numpy as np
    import pandas as pd
    import pyarrow.parquet as pq

    from causalarena.cli_export import export, file_stem

    iid, r = next(iter(obsint_rows.items()))
    export(mini_release, "synthetic-obsint", "csv", tmp_path / "c", max_d=r["X"].shape[1])
    frame = pd.read_csv(tmp_path / "c" / f"{file_stem(iid)}.csv")
    names = list(r["variables"])
    assert np.allclose(frame[names].to_numpy(np.float32), r["X"], rtol=1e-6)
    assert np.array_equal(frame[[f"mask:{v}" for v in names]].to_numpy() == 1, r["mask"])
    adj = pd.read_csv(tmp_path / "c" / f"{file_stem(iid)}.adjacency.csv", index_col=0)
    assert list(adj.columns) == names and np.array_equal(adj.to_numpy(), r["adjacency"])
    export(mini_release, "synthetic-obsint", "parquet-flat", tmp_path / "p")
    t = pq.read_table(tmp_path / "p" / f"{file_stem(iid)}.parquet")
    assert np.array_equal(np.column_stack([t[v].to_numpy() for v in names]), r["X"])
    meta = t.schema.metadata
    assert json.loads(meta[b"causalarena.adjacency"]) == r["adjacency"].tolist()


class _Hub(BaseHTTPRequestHandler):
    """Stand-in Hub serving one folder read-only (dataset repo org/arena, any revision)."""

    folder: Path
    tamper: str | None = None  # path whose bytes are served with one byte flipped
    sha = "b" * 40

    def log_message(self, *a):  # keep test output clean
        pass

    def _files(self):
        return sorted(
            p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*") if p.is_file()
        )

    def _content(self, rel: str) -> bytes:
        data = (self.folder / rel).read_bytes()
        if rel == self.tamper:
            data = data[:100] + bytes([data[100] ^ 1]) + data[101:]
        return data

    def _route(self, head: bool):
        path = unquote(self.path.split("?")[0])
        if path.startswith("/api/datasets/org/arena/revision/"):
            body = json.dumps(
                {
                    "id": "org/arena",
                    "sha": self.sha,
                    "siblings": [{"rfilename": f} for f in self._files()],
                    "private": False,
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        elif path.startswith("/api/datasets/org/arena/tree/"):  # recursive listing, one page
            entries = [
                {
                    "type": "file",
                    "path": f,
                    "size": (self.folder / f).stat().st_size,
                    "oid": hashlib.sha1((self.folder / f).read_bytes()).hexdigest(),
                }
                for f in self._files()
            ]
            body = json.dumps(entries).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
        elif path.startswith("/datasets/org/arena/resolve/"):
            rel = path.split("/", 6)[6]
            if not (self.folder / rel).is_file():
                self.send_response(404)
                self.end_headers()
                return
            body = self._content(rel)
            self.send_response(200)
            self.send_header("X-Repo-Commit", self.sha)
            self.send_header("ETag", '"' + hashlib.sha256(body).hexdigest() + '"')
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def do_GET(self):  # noqa: N802
        self._route(head=False)

    def do_HEAD(self):  # noqa: N802
        self._route(head=True)


@pytest.fixture
def hub(mini_release, monkeypatch):
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", False)
    _Hub.folder, _Hub.tamper = Path(mini_release), None
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    srv.server_close()


def _shard(folder: Path) -> str:
    return next(p.relative_to(folder).as_posix() for p in sorted(folder.glob("data/*/*.parquet")))


def test_download_verifies_and_refuses_tampered(hub, mini_release, tmp_path, capsys):
    argv = ["download", "org/arena", "--revision", "v1.0.0", "--hf-endpoint", hub]
    good = tmp_path / "good"
    assert cli.main([*argv, "--out", str(good)]) == 0
    shard = _shard(Path(mini_release))
    assert (good / shard).read_bytes() == (Path(mini_release) / shard).read_bytes()
    assert not (good / ".cache").exists()
    _Hub.tamper = shard
    bad = tmp_path / "bad"
    assert cli.main([*argv, "--out", str(bad)]) == 1
    cap = capsys.readouterr()
    assert shard in cap.out and "refused" in cap.err
    assert not bad.exists() and (tmp_path / "bad.refused" / shard).is_file()
    assert cli.main(["download", "arena-synthtic", "--hf-endpoint", hub]) == 2
    assert "NAME arena-synthtic: unknown suite; did you mean arena-synthetic" in (
        capsys.readouterr().err
    )


def test_json_outputs_parse(mini_release, capsys):
    assert cli.main(["info", str(mini_release), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["suite"] == "arena-synthetic" and info["scale"] == "mini"
    assert set(info["configs"]) == {"synthetic-obs", "synthetic-obsint"}
    assert info["problems"] == [] and info["files"] >= 80 and info["bytes"] > 0
    assert cli.main(["verify", str(mini_release), "--json"]) == 0
    ver = json.loads(capsys.readouterr().out)
    assert ver == {"folder": str(mini_release), "ok": True, "problems": []}
    assert cli.main(["methods", "--json"]) == 0
    methods = {m["method"]: m for m in json.loads(capsys.readouterr().out)}
    assert methods["pc"]["available"] is True and methods["pc"]["missing"] is None
    assert {"gies", "random-regress"} <= set(methods)
    assert all(isinstance(m["supports_interventions"], bool) for m in methods.values())


def test_verify_json_reports_problems(mini_release, tmp_path, capsys):
    import shutil

    copy = tmp_path / "rel"
    shutil.copytree(mini_release, copy)
    shard = _shard(copy)
    data = bytearray((copy / shard).read_bytes())
    data[100] ^= 1
    (copy / shard).write_bytes(bytes(data))
    assert cli.main(["verify", str(copy), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and [p["path"] for p in doc["problems"]] == [shard]


def test_bad_numbers_never_show_a_repr(capsys):
    for argv, needle in (
        (["build", "arena-synthetic", "--workers", "two"], "argument --workers: two: must be an"),
        (["lab", "run", "--agent", "random", "--seed", "x"], "argument --seed: x: must be an"),
        (["runtime", "--release", "r", "--methods", "pc", "--timeout", "t"], "--timeout: t: must"),
    ):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and needle in err and "'" not in err.splitlines()[-1], err


def test_score_unknown_config(mini_release, tmp_path, capsys):
    pred = tmp_path / "p.parquet"
    pred.write_bytes(b"")
    argv = ["score", str(pred), "--release", str(mini_release), "--config", "synthetic-obsin"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert (
        "--config synthetic-obsin: not a config" in err and "did you mean synthetic-obsint" in err
    )


def test_report_json_and_bad_run_record(mini_release, tmp_path, capsys):
    import pandas as pd

    pred = tmp_path / "pred"
    argv = ["run", str(mini_release), "--config", "synthetic-obs", "--methods", "random-regress"]
    assert cli.main([*argv, "--max-d", "10", "--out", str(pred), "-q"]) == 0
    capsys.readouterr()
    # score says, like report, that the run covered a subset the scores do not keep to
    score = ["score", str(pred), "--release", str(mini_release), "--no-sid", "--workers", "1"]
    assert cli.main(score) == 0
    err = capsys.readouterr().err
    assert err == (
        f"note: every run in {pred} used --max-d 10 (run.json); the scores cover the whole "
        "config, so the other instances score as missing (the empty graph). Pass --max-d 10 "
        "to evaluate that subset.\n"
    )
    assert cli.main([*score, "--max-d", "10"]) == 0
    assert "note:" not in capsys.readouterr().err
    out = tmp_path / "rep"
    argv = ["report", str(pred), "--out", str(out), "--max-d", "10", "--no-ood", "--json", "-q"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)  # stdout holds the JSON object only
    assert doc["out"] == str(out) and doc["releases"] == [str(mini_release)]
    assert "leaderboard.csv" in doc["files"] and (out / "leaderboard.md").is_file()
    (row,) = doc["leaderboard"]
    scores = pd.read_parquet(out / "scores.parquet")
    assert row["method"] == "random-regress"
    assert row["f1"] == pytest.approx(scores["f1"].mean())  # every d <= 10 instance, ranked
    # --out inside the predictions folder, or an existing file: a usage error, nothing written
    (tmp_path / "afile").write_text("x")
    for bad, needle in (
        (pred / "synthetic-obs", "is inside the predictions folder"),
        (tmp_path / "afile", "is an existing file"),
    ):
        assert cli.main(["report", str(pred), "--out", str(bad), "--no-ood", "-q"]) == 2
        err = capsys.readouterr().err
        assert f"--out {bad}" in err and needle in err and "Traceback" not in err
    assert not (pred / "synthetic-obs" / "scores.parquet").exists()
    # a run record that is not one: one line naming the file and the field, exit 2
    for text, needle in (
        ("[" * 5000 + "]" * 5000, "run.json: not a run record"),
        ('{"release": 5}', "run.json: field release is missing or not a path"),
    ):
        (pred / "run.json").write_text(text)
        assert cli.main(["report", str(pred), "--out", str(tmp_path / "r2")]) == 2
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err


def test_run_where_every_method_is_skipped_is_an_error(mini_release, tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("dagma") is not None:
        pytest.skip("dagma is installed here, so dagma-linear is not skipped")
    argv = ["run", str(mini_release), "--config", "synthetic-obs", "--methods", "dagma-linear"]
    assert cli.main([*argv, "--max-d", "10", "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "skipped dagma-linear:" in err and "no method could run here" in err
