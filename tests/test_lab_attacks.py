"""Hostile agents against ``causalarena lab serve`` (issue 12, protocol hardening).

Each attack below broke the server before it was hardened (a traceback / "internal error"
exit that ended the episode, a hang, or a response that is not strict JSON).  After each
attack the server must answer it with exactly one ``"ok": false`` line naming the problem,
change nothing, and go on answering.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from causalarena.errors import LabError
from causalarena.generator.lab.env import LabEnv
from causalarena.generator.lab.hypothesis import extract_json, parse_hypothesis
from causalarena.generator.lab.protocol import MAX_LINE, bounded_lines, loads, serve
from causalarena.generator.lab.suites import find_episode

EP = "lab-main/main-4nodes/000"
PROPS = ["density", "moisture", "conductivity"]


@functools.cache
def _episode():
    return find_episode(EP)


def _strict(line: str):
    """Parse one response line as strict JSON (NaN / Infinity refused)."""

    def bad(c):
        raise AssertionError(f"non-JSON constant {c} in response {line[:80]}")

    return json.loads(line, parse_constant=bad)


def _hyp(eq: str, coefs=None, edges=()):
    return {"edges": list(edges), "freq_equation": eq, "coefficients": coefs or {}}


# (name, request bytes, substring of the one error line)
ATTACKS = [
    ("nan-value", b'{"op":"intervene","property":"density","value":NaN}', "NaN, which is not JSON"),
    ("inf-literal", b'{"op":"intervene","property":"density","value":1e999}', "not finite"),
    ("nan-id", b'{"op":"describe","id":NaN}', "NaN, which is not JSON"),
    (
        "big-int-value",
        b'{"op":"intervene","property":"density","value":' + b"9" * 400 + b"}",
        "400 digits",
    ),
    (
        "big-int-past-python-limit",
        b'{"op":"submit","prediction":' + b"9" * 5000 + b"}",
        "5000 digits",
    ),
    (
        "inf-constant-in-equation",
        json.dumps({"op": "check", "hypothesis": _hyp("resonanceFreq = 1e999")}).encode(),
        "non-finite",
    ),
    (
        "overflowing-product",
        json.dumps({"op": "check", "hypothesis": _hyp("resonanceFreq = 1e300*1e300")}).encode(),
        "non-finite",
    ),
    (
        "deep-left-sum",
        json.dumps(
            {"op": "check", "hypothesis": _hyp("resonanceFreq = " + "1+" * 990 + "1")}
        ).encode(),
        "nested more than",
    ),
    (
        "deep-unary-minus",
        json.dumps({"op": "check", "hypothesis": _hyp("freq = " + "-" * 1900 + "1")}).encode(),
        "nested more than",
    ),
    (
        "brace-bomb-text",
        json.dumps({"op": "check", "hypothesis": '{"a":[' * 30000}).encode(),
        "no JSON object",
    ),
    (
        "invalid-utf8",
        b'{"op":"intervene","property":"dens\xff\xfeity","value":3}',
        "unknown property",
    ),
    ("huge-line", b'{"op":"describe","pad":"' + b"x" * (3 * MAX_LINE) + b'"}', "limit"),
]


@pytest.mark.parametrize("name,payload,msg", ATTACKS, ids=[a[0] for a in ATTACKS])
def test_each_attack_gets_one_error_line_and_the_episode_goes_on(name, payload, msg):
    env = LabEnv(_episode())
    before = env.describe()
    out = io.StringIO()
    stream = io.BytesIO(payload + b"\n" + b'{"op":"describe","id":"after"}\n')
    t0 = time.perf_counter()
    serve(env, bounded_lines(stream), out)
    assert time.perf_counter() - t0 < 10  # no hang (the brace bomb took 15 s before)
    lines = [_strict(x) for x in out.getvalue().splitlines()]
    assert [(x["op"], x["ok"]) for x in lines][2:] == [("describe", True), ("end", True)]
    err = lines[1]
    assert err["ok"] is False and msg in err["error"], err
    assert "Traceback" not in err["error"] and len(err["error"]) < 400
    assert lines[2]["result"] == before  # nothing changed: budget, submissions


def test_attack_session_in_another_process_never_kills_the_server():
    """One ``lab serve`` process, driven like an agent: every attack in a row, then a valid
    intervention and submission still work; stderr has no traceback."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    reqs = [p for _, p, _ in ATTACKS] + [
        b'{"op":"intervene","property":"density","value":40,"id":"ok"}',
        b'{"op":"submit","prediction":-1e6,"id":"s"}',
    ]
    p = subprocess.run(
        [sys.executable, "-m", "causalarena.cli", "lab", "serve", "--episode", EP],
        input=b"\n".join(reqs) + b"\n",
        capture_output=True,
        timeout=120,
        env=env,
    )
    assert p.returncode == 0 and b"Traceback" not in p.stderr and b"internal" not in p.stderr
    lines = [_strict(x) for x in p.stdout.decode().splitlines()]
    assert len(lines) == 1 + len(reqs) + 1  # hello, one line per request, end
    assert all(x["ok"] is False for x in lines[1 : 1 + len(ATTACKS)])
    assert lines[-3]["id"] == "ok" and lines[-3]["result"]["budget_left"] == 11
    assert lines[-2]["id"] == "s" and lines[-2]["result"]["submissions_left"] == 2


def test_no_hidden_value_reaches_an_agent_through_errors_or_responses():
    """Probe every op with wrong and right input; no response carries the held-out value,
    the hidden weights or the crystals' exogenous terms."""
    ep = _episode()
    env = LabEnv(ep)
    out = io.StringIO()
    probes = [
        {"op": "describe"},
        {"op": "reactor"},
        {"op": "intervene", "property": "resonanceFreq", "value": 1},
        {"op": "intervene", "property": "__dict__", "value": 1},
        {"op": "check", "hypothesis": _hyp("resonanceFreq = __import__('os')")},
        {"op": "check", "hypothesis": _hyp("resonanceFreq = held_out")},
        {"op": "submit", "prediction": 0.0},
    ]
    serve(env, [json.dumps(p) + "\n" for p in probes], out)
    text = out.getvalue()
    held = ep.held_out()
    assert f"{held}" not in text and f"{round(held, 2)}" not in text
    assert ep.spec.to_json()[:40] not in text and "weights" not in text
    assert not hasattr(env, "episode") and not hasattr(env, "_LabEnv__state_public")
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle

        pickle.dumps(env)


def test_parser_rejects_hostile_equations_with_a_named_reason():
    cases = [
        ("resonanceFreq = __import__('os').system('id')", "Call"),
        ("resonanceFreq = 9**9**9", "exponents must be integer constants"),
        ("resonanceFreq = (9**3)**3**3", "exponents must be integer constants"),
        ("resonanceFreq = density.__class__", "Attribute"),
        ("resonanceFreq = [density][0]", "not allowed"),
        ("resonanceFreq = " + "(" * 300 + "1" + ")" * 300, "freq_equation"),
        ("resonanceFreq = " + "1+" * 999, "freq_equation"),
    ]
    for eq, msg in cases:
        with pytest.raises(LabError, match=msg.replace("(", r"\(").replace("*", r"\*")) as ei:
            parse_hypothesis(_hyp(eq), PROPS)
        assert len(str(ei.value)) < 400  # the equation is not echoed whole
    # an integer coefficient too large for a float is "not finite", not an OverflowError
    with pytest.raises(LabError, match="'base' = 1000.* is not a finite number"):
        parse_hypothesis(_hyp("resonanceFreq = base", {"base": 10**400}), PROPS)
    # a coefficient that overflows only when applied to a reading
    h = parse_hypothesis(
        _hyp(
            "resonanceFreq = c*density", {"c": 1e307}, [{"from": "density", "to": "resonanceFreq"}]
        ),
        PROPS,
    )
    with pytest.raises(LabError, match="non-finite"):
        h.predict({"density": 1e6})
    # a legitimate equation is still fine, and its value is the hand-computed one
    ok = parse_hypothesis(
        _hyp(
            "resonanceFreq = base + c_density*density",
            {"base": 25, "c_density": 2},
            [{"from": "density", "to": "resonanceFreq"}],
        ),
        PROPS,
    )
    assert ok.predict({"density": 10.0}) == 45.0


def test_strict_loads_and_text_extraction_bounds():
    with pytest.raises(LabError, match="Infinity, which is not JSON"):
        loads('{"op": "submit", "prediction": -Infinity}')
    with pytest.raises(LabError, match="too deeply nested"):
        loads("[" * 100_000 + "]" * 100_000)
    assert loads('{"op": "x", "v": -12.5, "n": 123456789012345678901234567890}')["v"] == -12.5
    t0 = time.perf_counter()
    with pytest.raises(LabError, match="no JSON object"):
        extract_json("{" * 150_000)
    assert time.perf_counter() - t0 < 5
    # the hypothesis after a few stray braces is still found
    assert extract_json('thinking {not json} ... {"edges": []}') == {"edges": []}
    assert math.isfinite(loads('{"a": 1e308}')["a"])


def test_python_api_refuses_huge_ints_and_past_limit_actions_cleanly():
    ep = _episode()
    env = LabEnv(ep)
    prop = env.describe()["controllable"][0]
    with pytest.raises(LabError, match="must be finite"):
        env.intervene(prop, 10**400)  # float() would raise OverflowError
    with pytest.raises(LabError, match="is not finite"):
        env.submit(10**400)
    with pytest.raises(LabError, match="not a number"):
        env.intervene(prop, "12")
    for _ in range(ep.budget):
        env.intervene(prop, 50.0)
    with pytest.raises(LabError, match="budget .12. is spent"):
        env.intervene(prop, 51.0)
    for _ in range(ep.max_submissions):
        env.submit(-1e9)
    with pytest.raises(LabError, match="the episode is over .3 of 3"):
        env.submit(ep.held_out())
    assert env.done and env.transcript()["budget_used"] == ep.budget


def test_memory_bounds_on_recorded_hypotheses_and_coefficients():
    from causalarena.generator.lab.env import MAX_RECORDS
    from causalarena.generator.lab.hypothesis import MAX_COEFFICIENTS

    env = LabEnv(_episode())
    many = {f"c{i}": 1 for i in range(MAX_COEFFICIENTS + 1)}
    out = env.record(_hyp("resonanceFreq = 1", many))
    assert out["valid"] is False and "at most 100" in out["error"]
    for _ in range(MAX_RECORDS - 1):
        env.record("not a hypothesis")
    with pytest.raises(LabError, match=f"at most {MAX_RECORDS} hypotheses"):
        env.record("one too many")
    assert len(env.transcript()["hypotheses"]) == MAX_RECORDS
    assert "raw" not in env.transcript()["hypotheses"][0]  # the raw text is not kept
