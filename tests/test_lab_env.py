"""LabEnv, hypothesis parser, consistency check, metrics, IMEC, agents, JSON-lines server."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from causalarena.errors import LabError
from causalarena.eval.lab_metrics import (
    imec_size,
    mechanism_metrics,
    prf,
    score_episode,
    shd,
    target_roots,
    task_success,
    weight_prf,
)
from causalarena.generator.lab.env import LabEnv
from causalarena.generator.lab.episode import Episode, lab_spec
from causalarena.generator.lab.graph import TARGET
from causalarena.generator.lab.hypothesis import consistency, parse_hypothesis
from causalarena.generator.lab.suites import episodes, find_episode

PROPS = ["density", "moisture", "quantumSize"]


def hand_episode(hidden=None, budget=4) -> Episode:
    """density -> quantumSize (w 1), density -> f (w 2), moisture -> f (w 1), base 25."""
    from causalarena.generator.lab.episode import Hidden

    names = [TARGET, *PROPS]
    edges = [("density", "quantumSize"), ("density", TARGET), ("moisture", TARGET)]
    terms = {edges[0]: [1.0], edges[1]: [2.0], edges[2]: [1.0]}
    spec = lab_spec(
        "hand",
        names,
        edges,
        terms,
        {"quantumSize": 30.0, TARGET: 25.0},
        "linear",
        (15, 45),
        {"quantumSize": 15.0},
        ["density", "moisture"],  # quantumSize is not controllable here
        hidden=Hidden((-5.0, 0.0, 5.0), tuple(hidden)) if hidden else None,
    )
    # crystals: exogenous terms in spec order [f, density, moisture, quantumSize]
    return Episode(
        episode_id="test/hand/000",
        suite="test",
        config="hand",
        index=0,
        seed=7,
        spec=spec,
        budget=budget,
        records=[
            {
                "id": "0/prior",
                "props": {"density": 20.0, "moisture": 30.0, "quantumSize": 50.0},
                "freq": 95.0,
            }
        ],
        manipulator=[0.0, 10.0, 20.0, 1.0],
        reactor=[0.0, 40.0, 15.0, -3.0],
    )


GOOD = {
    "edges": [
        {"from": "density", "to": TARGET},
        {"from": "moisture", "to": TARGET},
        {"from": "density", "to": "quantumSize"},
    ],
    "freq_equation": "resonanceFreq = base + c_density*density + c_moisture*moisture",
    "coefficients": {"base": 25, "c_density": 2, "c_moisture": 1},
}


def test_env_readings_budget_controllability_and_submissions():
    env = LabEnv(hand_episode())
    m = env.manipulator()
    assert (
        m["props"] == {"density": 10.0, "moisture": 20.0, "quantumSize": 41.0} and m["freq"] == 65.0
    )
    r = env.intervene("density", 12.0)
    assert r["props"]["quantumSize"] == 43.0 and r["freq"] == 69.0
    with pytest.raises(LabError, match="not controllable"):
        env.intervene("quantumSize", 1.0)
    with pytest.raises(LabError, match="unknown property"):
        env.intervene("colour", 1.0)
    with pytest.raises(LabError, match="not controllable"):
        env.intervene(TARGET, 1.0)
    with pytest.raises(LabError, match="finite"):
        env.intervene("density", math.inf)
    assert env.describe()["budget_left"] == 3  # refused actions cost nothing
    for v in (1.0, 2.0, 3.0):
        env.intervene("moisture", v)
    with pytest.raises(LabError, match="budget .4. is spent"):
        env.intervene("density", 5.0)
    assert env.reactor() == {"density": 40.0, "moisture": 15.0, "quantumSize": 67.0}
    truth = 25 + 2 * 40 + 15
    assert env.submit(truth + 7)["correct"] is False
    assert env.submit(truth - 5)["correct"] is False  # strict: |error| < 5
    res = env.submit(truth + 4.99)
    assert res == {"correct": True, "submissions_left": 0, "done": True}
    with pytest.raises(LabError, match="episode is over"):
        env.submit(truth)
    with pytest.raises(LabError, match="episode is over"):
        env.intervene("density", 1.0)


def test_env_stops_after_three_wrong_submissions():
    env = LabEnv(hand_episode())
    for _ in range(3):
        env.submit(-1000.0)
    assert env.done and env.describe()["submissions_left"] == 0
    with pytest.raises(LabError, match="3 of 3"):
        env.submit(0.0)


def test_env_exposes_no_hidden_values():
    ep = hand_episode()
    env = LabEnv(ep)
    assert not hasattr(env, "__dict__")
    public = json.dumps([env.describe(), env.observations(), env.reactor(), env.transcript()])
    assert str(ep.held_out()) not in public and 'coefficients": {"base": 25' not in public
    assert "weights" not in public and "spec" not in public
    with pytest.raises(TypeError, match="pickled"):
        import pickle

        pickle.dumps(env)


def test_hidden_disturbance_resampled_after_every_intervention_and_absent_from_held_out():
    ep = hand_episode(hidden=["moisture"], budget=60)
    env = LabEnv(ep)
    base = env.manipulator()["props"]["moisture"]
    seen = set()
    for _ in range(60):
        r = env.intervene("density", 10.0)  # moisture's clean value never changes
        seen.add(round(r["props"]["moisture"] - 20.0, 6))
        assert r["freq"] == pytest.approx(25 + 2 * 10 + r["props"]["moisture"])  # propagates
    assert seen == {-5.0, 0.0, 5.0} and base - 20.0 in seen
    assert ep.held_out() == 25 + 2 * 40 + 15  # no disturbance in the held-out value
    # the same actions replay the same draws (seeded)
    env2 = LabEnv(ep)
    assert env2.intervene("density", 10.0) == LabEnv(ep).intervene("density", 10.0)


def test_parser_valid_fenced_and_name_variants():
    text = (
        "My hypothesis:\n```json\n"
        + json.dumps(
            {
                "edges": [
                    ["Density", "Resonance Frequency (Hz)"],
                    {"from": "moisture", "to": "resonance_freq"},
                ],
                "freq_equation": "frequency = 25 + 2*density + moisture",
                "coefficients": {},
            }
        )
        + "\n```\nthanks"
    )
    h = parse_hypothesis(text, PROPS)
    assert h.edges == (("density", TARGET), ("moisture", TARGET))
    assert h.base == 25 and h.terms == {"density": (2.0,), "moisture": (1.0,)}
    assert h.predict({"density": 1, "moisture": 2}) == 29
    inline = "I think " + json.dumps(GOOD) + " is right"
    assert parse_hypothesis(inline, PROPS).terms == {"density": (2.0,), "moisture": (1.0,)}
    q = parse_hypothesis(
        {
            "edges": [["density", TARGET]],
            "freq_equation": "resonanceFreq = b + c_density_1*density + c_density_2*density^2",
            "coefficients": {"b": 1, "c_density_1": -1.6, "c_density_2": 0.016},
        },
        PROPS,
        "quadratic",
    )
    assert q.terms["density"] == pytest.approx((-1.6, 0.016))


@pytest.mark.parametrize(
    "obj, msg",
    [
        ({"edges": [], "coefficients": {}}, "field 'freq_equation' is missing"),
        (
            {**GOOD, "edges": GOOD["edges"] + [{"from": "colour", "to": TARGET}]},
            "'colour' is not a declared property",
        ),
        (
            {**GOOD, "coefficients": {**GOOD["coefficients"], "c_density": "two"}},
            "'c_density' = 'two' is not a finite number",
        ),
        (
            {**GOOD, "edges": GOOD["edges"][:1]},
            "terms without a listed edge to resonanceFreq: \\['moisture'\\]",
        ),
        (
            {**GOOD, "freq_equation": "resonanceFreq = base + c_density*density"},
            "listed parents without a term: \\['moisture'\\]",
        ),
        (
            {
                **GOOD,
                "freq_equation": "resonanceFreq = __import__('os').system('touch /tmp/pwned')",
            },
            "Call .* is not allowed",
        ),
        ({**GOOD, "freq_equation": "resonanceFreq = (lambda: 1)()"}, "not allowed"),
        (
            {**GOOD, "freq_equation": "resonanceFreq = density.__class__"},
            "Attribute .* is not allowed",
        ),
        (
            {**GOOD, "freq_equation": "resonanceFreq = 9**9**9**9"},
            "exponents must be integer constants",
        ),
        (
            {**GOOD, "freq_equation": "resonanceFreq = base + c_density*density*moisture"},
            "interact",
        ),
        (
            {**GOOD, "freq_equation": "resonanceFreq = base + c_density*density**2 + moisture"},
            "quadratic but the family is linear",
        ),
        (
            {**GOOD, "freq_equation": "resonanceFreq = base + c_x*density + moisture"},
            "'c_x', which is neither",
        ),
        ({**GOOD, "edges": GOOD["edges"] + [{"from": TARGET, "to": "density"}]}, "directed cycle"),
    ],
)
def test_parser_rejections(obj, msg):
    with pytest.raises(LabError, match=msg):
        parse_hypothesis(obj, PROPS)
    assert not os.path.exists("/tmp/pwned")


def test_parser_rejects_text_without_json():
    with pytest.raises(LabError, match="no JSON object"):
        parse_hypothesis("the frequency depends on density", PROPS)


def test_consistency_check_equation_and_structure():
    env = LabEnv(hand_episode())
    env.intervene("density", 12.0)
    env.intervene("moisture", 22.0)
    assert env.check(GOOD)["consistent"]
    wrong = {**GOOD, "coefficients": {"base": 25, "c_density": 3, "c_moisture": 1}}
    res = env.check(wrong)
    assert not res["consistent"] and res["max_abs_residual"] > 5
    # equation right but quantumSize not a child of density: the density intervention moved it
    struct = {**GOOD, "edges": GOOD["edges"][:2]}
    res = env.check(struct)
    assert not res["consistent"] and res["structure_violations"][0]["intervened"] == "density"
    h = parse_hypothesis(GOOD, PROPS)
    assert consistency(
        h, [{"id": "x", "props": {"density": 1, "moisture": 1, "quantumSize": 0}, "freq": 28}]
    )["consistent"]


def test_metrics_on_hand_computed_examples():
    true = {("a", "b"), ("b", TARGET), ("c", TARGET)}
    pred = {("b", "a"), ("b", TARGET), ("d", TARGET)}
    assert prf(pred, true) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert shd(pred, true) == 3  # reversed a-b (1) + missing c->f (1) + extra d->f (1)
    assert shd({("a", "b"), ("b", "a")}, {("a", "b")}) == 1
    assert prf(set(), set()) == (1.0, 1.0, 1.0) and prf(set(), {1}) == (0.0, 0.0, 0.0)
    assert target_roots(true, TARGET) == {"a", "c"} and target_roots(pred, TARGET) == {"b", "d"}
    assert weight_prf(
        {"b": (2.0,), "d": (1.0,)}, {"b": (2.0000001,), "c": (1.0,)}
    ) == pytest.approx((0.5, 0.5, 0.5))
    assert weight_prf({"b": (2.1,)}, {"b": (2.0,)}) == (0.0, 0.0, 0.0)
    assert task_success([10.0, 4.9], 0.0) == (True, 4.9)
    assert task_success([5.0, -5.0, 6.0, 0.0], 0.0) == (False, 5.0)  # strict and at most 3
    ep = hand_episode()
    m = mechanism_metrics(ep, parse_hypothesis(GOOD, PROPS))
    assert (
        m["edge_f1"] == 1
        and m["shd"] == 0
        and m["target_weight_f1"] == 1
        and m["formula_error"] == 0
    )
    half = {**GOOD, "coefficients": {"base": 25, "c_density": 2, "c_moisture": 2}}
    m = mechanism_metrics(ep, parse_hypothesis(half, PROPS))
    assert (
        m["target_weight_precision"] == 0.5
        and m["target_edge_f1"] == 1
        and m["formula_error"] == 15
    )
    assert mechanism_metrics(ep, None)["edge_f1"] == 0 and mechanism_metrics(ep, None)["shd"] == 3


def test_imec_size_known_cases():
    chain = [("a", "b"), ("b", "c")]
    assert imec_size("abc", chain) == 3  # a-b-c: three DAGs without a collider
    assert imec_size("abc", chain, [{"b"}]) == 1
    assert imec_size("abc", chain, [{"c"}]) == 2  # b->c fixed; a-b free (no new collider)
    assert imec_size("abc", [("a", "c"), ("b", "c")]) == 1  # v-structure
    full = [("a", "b"), ("a", "c"), ("b", "c")]
    assert imec_size("abc", full) == 6 and imec_size("abc", full, [{"a"}]) == 2
    assert imec_size("abc", full, [{"a"}, {"b"}]) == 1
    k4 = [(x, y) for i, x in enumerate("abcd") for y in "abcd"[i + 1 :]]
    assert imec_size("abcd", k4) == 24


def test_score_episode_row_and_trajectory():
    ep = hand_episode()
    env = LabEnv(ep)
    env.record({"edges": [], "freq_equation": "resonanceFreq = 90", "coefficients": {}})
    env.record("not json")
    env.intervene("density", 12.0)
    env.submit(120.0, GOOD)
    row = score_episode(ep, env.transcript())
    assert row["success"] and row["best_error"] == 0 and row["edge_f1"] == 1
    assert row["n_hypotheses"] == 3 and row["n_invalid_hypotheses"] == 1
    traj = json.loads(row["trajectory"])
    assert [t[0] for t in traj] == [0, 0, 1] and traj[0][1] == 0 and traj[2][1] == 1
    assert row["imec_size"] == imec_size(ep.spec.names, ep.edges, [{"density"}])
    assert row["final_consistent"]


def test_agents_on_mini_suite():
    from causalarena.eval.lab_run import run_episodes, summarise

    eps = episodes("lab-main", "main-4nodes", "mini")["main-4nodes"]
    sci = summarise(run_episodes(eps, "scientist", quiet=True))[0]
    rnd = summarise(run_episodes(eps, "random", quiet=True))[0]
    assert sci["success"] == 1.0 and sci["edge_f1"] == 1.0 and sci["imec_size"] == 1.0
    assert rnd["success"] < 0.5 and rnd["edge_f1"] < 0.7
    assert sci["errors"] == rnd["errors"] == 0


def test_run_resumes_and_records_failures(tmp_path):
    from causalarena.eval.lab_run import run_episodes

    eps = episodes("lab-main", "main-3nodes", "mini")["main-3nodes"][:2]
    rows = run_episodes(eps, "random", tmp_path, quiet=True)
    lines = (tmp_path / "random.jsonl").read_text().splitlines()
    assert len(lines) == 2 and [json.loads(x)["episode_id"] for x in lines] == [
        e.episode_id for e in eps
    ]
    again = run_episodes(eps, "random", tmp_path, quiet=True)
    assert again == rows and len((tmp_path / "random.jsonl").read_text().splitlines()) == 2


def _serve(episode: str, lines: list[str]) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    p = subprocess.run(
        [sys.executable, "-m", "causalarena.cli", "lab", "serve", "--episode", episode],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return [json.loads(x) for x in p.stdout.splitlines()]


def test_json_lines_server_end_to_end_with_malformed_lines():
    ep = find_episode("lab-main/main-3nodes/001")
    ctrl = ep.lab["controllable"]
    out = _serve(
        ep.episode_id,
        [
            json.dumps({"op": "describe", "id": 1}),
            "this is not json",
            json.dumps({"op": "fly"}),
            json.dumps({"op": "intervene", "property": ctrl[0]}),
            json.dumps({"op": "intervene", "property": TARGET, "value": 3}),
            json.dumps({"op": "intervene", "property": ctrl[0], "value": 50, "id": "a"}),
            json.dumps({"op": "check", "hypothesis": "no json"}),
            json.dumps(
                {
                    "op": "record",
                    "hypothesis": {
                        "edges": [],
                        "freq_equation": "resonanceFreq = 1",
                        "coefficients": {},
                    },
                }
            ),
            json.dumps({"op": "submit", "prediction": "high"}),
            json.dumps({"op": "submit", "prediction": ep.held_out() + 1.0}),
            json.dumps({"op": "describe"}),  # never read: the episode is over
        ],
    )
    ops = [(o["op"], o["ok"]) for o in out]
    assert ops == [
        ("hello", True),
        ("describe", True),
        ("error", False),
        ("error", False),
        ("intervene", False),
        ("intervene", False),
        ("intervene", True),
        ("check", False),
        ("record", True),
        ("submit", False),
        ("submit", True),
        ("end", True),
    ]
    assert out[1]["id"] == 1 and out[6]["id"] == "a"
    assert "not valid JSON" in out[2]["error"] and "unknown op" in out[3]["error"]
    assert "needs field 'value'" in out[4]["error"] and "not controllable" in out[5]["error"]
    assert out[6]["result"]["budget_left"] == ep.budget - 1
    assert out[10]["result"]["correct"] and out[11]["result"]["budget_used"] == 1
    text = "\n".join(json.dumps(o) for o in out[:10])
    assert "weights" not in text and 'manipulator": [' not in text


def test_protocol_schema_is_valid_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from causalarena.generator.lab.protocol import SCHEMA

    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    v = jsonschema.Draft202012Validator(SCHEMA["$defs"]["request"])
    assert v.is_valid({"op": "intervene", "property": "density", "value": 3})
    assert not v.is_valid({"op": "intervene", "property": "density"})
    np.testing.assert_equal(v.is_valid({"op": "quit"}), True)


def test_trajectory_curves_carry_the_latest_hypothesis_forward(tmp_path):
    from causalarena.eval.lab_run import plot_trajectories, trajectory_curves

    rows = [
        {
            "agent": "a",
            "config": "c",
            "budget_used": 3,
            "trajectory": json.dumps([[0, 0.5, 0, 0, 1], [2, 1.0, 0, 0, 0]]),
        },
        {
            "agent": "a",
            "config": "c",
            "budget_used": 1,
            "trajectory": json.dumps([[1, 0.0, 0, 0, 2]]),
        },
    ]
    # episode 1: 0.5, 0.5, 1.0, 1.0; episode 2: 0, 0 (padded with its last value)
    assert trajectory_curves(rows) == {"a / c": [0.25, 0.25, 0.5, 0.5]}
    assert plot_trajectories(rows, tmp_path / "t.png").stat().st_size > 1000


def test_lab_play_in_a_terminal_session():
    ep = find_episode("lab-main/main-3nodes/000")
    p = ep.lab["controllable"][0]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    lines = [
        "help",
        f"set {p} 50",
        "set nothing 1",
        "set " + p + " abc",
        "reactor",
        f"submit {ep.held_out()}",
    ]
    out = subprocess.run(
        [sys.executable, "-m", "causalarena.cli", "lab", "play", "--episode", ep.episode_id],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "budget left: " + str(ep.budget - 1) in out.stdout
    assert "error: intervene: unknown property 'nothing'" in out.stdout
    assert "error: set: value 'abc' is not a number" in out.stdout
    assert "correct!" in out.stdout
