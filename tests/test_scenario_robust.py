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

import numpy as np
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


# ------------------------------------------------------------------ 2 negative-binomial range


def _nb_event_rate_scenario(**change):
    import yaml

    from causalarena.generator.scenario.pool import scenario_files

    path = next(f for f in scenario_files() if f.stem == "online_gateway_course_early_alert")
    d = yaml.safe_load(path.read_text())
    v = next(v for v in d["variables"] if v["name"] == "forum_posts")
    assert v["mechanism"]["op"] == "event_rate"
    assert v["noise"] == {"family": "negative_binomial", "dispersion": 3}
    v["mechanism"].update(change.get("mechanism", {}))
    v["noise"].update(change.get("noise", {}))
    return d


def test_huge_negative_binomial_mean_is_a_non_finite_finding_not_a_hang():
    from causalarena.generator.scenario.gate import check_scenario
    from causalarena.generator.scenario.operations import NB_MAX_MEAN
    from causalarena.generator.scenario.schema import parse_scenario

    assert NB_MAX_MEAN == 1e8
    # exp(40) ~ 2.4e17 posts a week: scipy's nbinom.ppf searched forever before
    d = _nb_event_rate_scenario(mechanism={"intercept": 40})
    rep = check_scenario(parse_scenario(d))
    got = [(f.rule, f.variable, f.message) for f in rep.blocking]
    assert got == [
        (
            "non_finite",
            "forum_posts",
            "produced non-finite values, outside the float32 range (|x| <= 3.403e+38) of the "
            "released data; check parameter magnitudes (out_loc, out_scale, strength, weights); "
            "negative-binomial noise needs its mean (the mechanism output) in [0, 1e+08] in "
            "every row: lower the event rate or its exposure",
        )
    ]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"dispersion": 0.01},
            "parameter 'dispersion' = 0.01 must be in [0.5, 1e+07] (the range where "
            "negative-binomial draws are fast and exact)",
        ),
        (
            {"dispersion": 1e9},
            "parameter 'dispersion' = 1e+09 must be in [0.5, 1e+07]",
        ),
    ],
)
def test_negative_binomial_dispersion_outside_the_fast_range_is_refused(params, message):
    from causalarena.generator.scenario.gate import check_scenario
    from causalarena.generator.scenario.schema import parse_scenario

    rep = check_scenario(parse_scenario(_nb_event_rate_scenario(noise=params)))
    (f,) = rep.blocking
    assert (f.rule, f.variable) == ("spec", "forum_posts") and message in f.message


def test_negative_binomial_root_mean_and_dispersion_are_bounded_at_spec_check():
    from causalarena.generator.scenario.operations import SCENARIO_ROOTS

    nb = SCENARIO_ROOTS["sc.negative_binomial"]
    nb.validate({"mean": 1e8, "dispersion": 0.5})  # the edges of the range are allowed
    with pytest.raises(ValueError, match=r"^parameter 'mean' = 1e\+12 must be at most 1e\+08"):
        nb.validate({"mean": 1e12, "dispersion": 2})
    with pytest.raises(ValueError, match=r"^parameter 'dispersion' = 0.1 must be in \[0.5, "):
        nb.validate({"mean": 10, "dispersion": 0.1})
    x = nb.ppf({"mean": 1e8, "dispersion": 0.5}, np.array([1e-12, 0.5, 1 - 1e-12]))
    assert np.isfinite(x).all() and x[0] == 0 and 1e7 < x[1] < 1e8 < x[2] < 1e10


# ------------------------------------------------------------------ 4 count scale holds integers


def test_non_integer_values_on_a_count_scale_are_a_named_warning():
    import yaml

    from causalarena.generator.scenario.gate import check_scenario
    from causalarena.generator.scenario.schema import parse_scenario
    from test_scenario import TINY_SEMANTIC

    d = yaml.safe_load(TINY_SEMANTIC)
    rep = check_scenario(parse_scenario(d))
    assert not [f for f in rep.findings if f.rule == "count_integer"]  # choice of 2 or 5 nurses
    # a uniform resampler on the count of nurses: 200 fractional staffing levels
    d["interventions"][0]["resampler"] = {"kind": "uniform", "low": 2, "high": 5}
    rep = check_scenario(parse_scenario(d))
    (f,) = [f for f in rep.findings if f.rule == "count_integer"]
    assert (f.variable, f.blocking) == ("staff_on_shift", False)
    assert f.message.startswith("200 of 2000 sampled values are not integers (e.g. ")
    assert f.message.endswith(
        ") on a count scale; give the node count noise (poisson, negative_binomial, binomial), "
        "a count resampler, or declare scale: continuous"
    )
    assert "count_integer" not in {b.rule for b in rep.blocking}
    assert "resampler_range" not in {b.rule for b in rep.blocking}  # integer bounds pass it


# ------------------------------------------------------------------ 3 formulas written as 1/T = ...


def _reciprocal_formula(equation: str, count_amount: bool = False) -> str:
    from test_scenario import TINY_FORMULA

    text = TINY_FORMULA.replace('"P * V = n * R * T"', f'"{equation}"')
    if count_amount:  # whole moles 1, 2, 3: (n - 2) is exactly zero in a third of the rows
        text = text.replace(
            "scale: continuous\n    range: [1, 3]", "scale: count\n    range: [1, 3]"
        ).replace(
            "Mass flow totaliser.\n    intervenable: true\n    distribution: {family: uniform}",
            "Mass flow totaliser.\n    intervenable: true\n    distribution: {family: integer_uniform}",
        )
    return text


def test_a_reciprocal_relation_is_solved_by_sympy_and_exact():
    from causalarena.generator.sample import sample
    from causalarena.generator.scenario.compile import compile_scenario
    from causalarena.generator.scenario.gate import check_scenario
    from test_scenario import _sc

    sc = _sc(_reciprocal_formula("1/P = V / (n * R * T)"))
    X = sample(compile_scenario(sc), 200, 0, seed=1).X.astype(float)
    assert np.isfinite(X).all()
    assert np.allclose(X[:, 3], X[:, 0] * 8.314462618 * X[:, 1] / X[:, 2], rtol=1e-6)
    rules = {f.rule for f in check_scenario(sc).blocking}
    assert not rules & {"non_finite", "formula", "formula_residual"}


def test_a_reciprocal_relation_that_reaches_infinity_names_the_explicit_form():
    from causalarena.generator.scenario.gate import check_scenario
    from test_scenario import _sc

    sc = _sc(_reciprocal_formula("1/P = (n - 2) * V / (R * T)", count_amount=True))
    (f,) = [f for f in check_scenario(sc).blocking if f.rule == "non_finite"]
    assert f.variable == "pressure"
    assert f.message.endswith(
        "; '1/P = (n - 2) * V / (R * T)' defines P through its reciprocal (or another inverse), "
        "which is non-finite where the other side reaches zero: write the node explicitly as "
        "'P = 1/(...)' and keep the denominator away from zero over the declared ranges"
    )


# ------------------------------------------------------------------ YAML alias bomb


def test_yaml_aliases_are_refused_before_expansion(tmp_path):
    f = _skeleton(tmp_path / "bomb.yaml")
    lines = ["zz_bomb:", "  a0: &a0 x"]
    for i in range(1, 10):  # 9**9 leaves once expanded: took 82 s and 4.3 GB before
        lines.append(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    f.write_text(f.read_text() + "\n".join(lines) + "\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    n = len(f.read_text().splitlines()) - 8  # the a1 line holds the first alias
    assert str(e.value) == (
        f"{f}: line {n}: YAML aliases (*name) are not allowed in scenario files"
    )
    r = _cli(str(f), timeout=20)
    assert r.returncode == 1 and "Traceback" not in r.stderr + r.stdout
    assert "YAML aliases (*name) are not allowed" in r.stdout and "'a0'" not in r.stdout


def test_a_container_value_in_an_error_is_shown_short():
    big = {f"k{i}": list(range(10_000)) for i in range(100)}
    msg = str(ScenarioError("f.yaml", None, "zz", big, "unknown field"))
    assert len(msg) < 200 and msg.endswith(": unknown field")
