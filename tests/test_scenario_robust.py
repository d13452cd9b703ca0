"""Robustness of the scenario tooling: what `scenario check` reads and how it reports.

Findings of the fifth session: progress on a non-terminal stderr, FIFOs that hang the
reader, symlinks out of a scenario folder, unbounded file sizes, negative-binomial draws
that hang in scipy, count-scale values that are not integers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from causalarena.cli import main
from causalarena.generator.scenario.schema import MAX_FILE_BYTES, ScenarioError, load_scenario

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _skeleton(path: Path) -> Path:
    assert (
        main(
            ["scenario", "new", "--family", "semantic", "--domain", "education", "--out", str(path)]
        )
        == 0
    )
    return path


def _cli(*args: str, env_extra: dict | None = None, timeout: float = 120):
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("CAUSALARENA_PROGRESS", None)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "causalarena.cli", "scenario", "check", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


# ------------------------------------------------------------------ 1a progress convention


def test_check_prints_no_progress_when_stderr_is_not_a_terminal(tmp_path):
    f = _skeleton(tmp_path / "a.yaml")
    r = _cli(str(f))
    assert r.returncode == 1  # the skeleton is too small for the gate
    assert "FAIL education_new_scenario" in r.stdout
    assert r.stderr == ""  # was "[1/1] .../a.yaml" on a redirected stderr
    forced = _cli(str(f), env_extra={"CAUSALARENA_PROGRESS": "1"})  # what --progress sets
    assert "scenario check" in forced.stderr or "checking a.yaml" in forced.stderr
    quiet = _cli("--quiet", str(f), env_extra={"CAUSALARENA_PROGRESS": "1"})
    assert quiet.stderr == "" and quiet.stdout == r.stdout


# ------------------------------------------------------------------ 1b FIFOs


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_not_read(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError) as e:
        load_scenario(fifo)  # hung forever before (waiting for a writer)
    assert str(e.value) == (
        f"{fifo}: is a FIFO (named pipe), not a regular file; only regular files are read"
    )
    r = _cli(str(fifo), timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    assert f"BLOCK [file] scenario=pipe: {fifo} is a FIFO (named pipe)" in r.stdout
    # inside a folder: named and skipped, the other files are still checked
    _skeleton(tmp_path / "a.yaml")
    r = _cli(str(tmp_path), timeout=60)
    assert r.returncode == 1
    assert "FAIL education_new_scenario" in r.stdout and "[file] scenario=pipe" in r.stdout
    assert r.stdout.rstrip().endswith("0 of 2 scenarios pass; 5 blocking finding(s)")


# ------------------------------------------------------------------ 1c symlinks


def test_links_out_of_the_folder_are_refused_links_inside_are_read(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.yaml"
    secret.write_text("id: secret\n")
    d = tmp_path / "pool"
    d.mkdir()
    _skeleton(d / "a.yaml")
    (d / "leak.yaml").symlink_to(secret)
    (d / "passwd.yaml").symlink_to("/etc/passwd")
    (d / "sub").symlink_to(outside, target_is_directory=True)
    (d / "same.yaml").symlink_to(d / "a.yaml")  # inside the folder: fine
    capsys.readouterr()
    assert main(["scenario", "check", "--quiet", str(d)]) == 1
    out = capsys.readouterr().out
    for name, target in (("leak", secret), ("passwd", Path("/etc/passwd").resolve())):
        assert (
            f"BLOCK [file] scenario={name}: {d / (name + '.yaml')} is a symbolic link to "
            f"{target}, outside {d}; links out of a scenario folder are not followed"
        ) in out
    assert f"{d / 'sub'} is a symbolic link to {outside}" in out
    assert "secret" not in out.replace(str(secret), "")  # never parsed: no schema finding
    assert out.count("FAIL education_new_scenario") == 2  # a.yaml and same.yaml were read
    assert main(["scenario", "stats", str(d)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("causalarena scenario stats: ") and "is a symbolic link to" in err
    assert "Traceback" not in err


# ------------------------------------------------------------------ 1d size cap


def test_files_above_the_cap_are_refused_before_reading(tmp_path, capsys):
    assert MAX_FILE_BYTES == 1 << 20
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ScenarioError) as e:
        load_scenario(big)
    assert str(e.value) == (
        f"{big}: is 1,048,577 bytes, above the 1,048,576-byte (1 MiB) cap on a scenario file; "
        "a scenario is a few kB of YAML"
    )
    ok = tmp_path / "ok.yaml"
    ok.write_bytes(b"#" * MAX_FILE_BYTES)  # exactly at the cap: read (then a schema error)
    with pytest.raises(ScenarioError) as e:
        load_scenario(ok)
    assert "a scenario is a mapping" in str(e.value)
    assert main(["scenario", "check", "--quiet", str(big)]) == 1
    assert "BLOCK [file] scenario=big:" in capsys.readouterr().out
