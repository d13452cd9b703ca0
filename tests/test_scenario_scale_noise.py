"""Gate rule ``scale_noise``: noise must keep a binary/ordinal/categorical node's scale."""

from __future__ import annotations

import copy

import pytest
import yaml

from causalarena.cli import main
from causalarena.generator.scenario.gate import check_scenario
from causalarena.generator.scenario.schema import parse_scenario

# A tiny clinic with one discrete child of each scale over the wait time.
TINY = """
id: tiny_scale_clinic
family: semantic
domain: healthcare_delivery
title: Tiny clinic with discrete readouts
summary: Wait time and three discrete judgements made from it, used to test scale_noise.
author: test author
variables:
  - name: arrivals_per_hour
    meaning: Patients arriving at the desk per hour.
    unit: patients/hour
    scale: continuous
    range: [2, 20]
    story: Uniform over the historical range.
    observation: Check-in kiosk counts.
    intervenable: true
    distribution: {family: uniform}
  - name: wait_minutes
    meaning: Mean wait before triage.
    unit: min
    scale: continuous
    range: [0, 100]
    story: Computed from the queue.
    observation: Timestamps in the record.
    parents:
      arrivals_per_hour: More arrivals lengthen the queue ahead of each patient.
    mechanism: {op: linear, intercept: 5, terms: {arrivals_per_hour: 3}}
  - name: long_wait_flag
    meaning: Whether the wait breached the 30-minute standard.
    unit: flag
    scale: binary
    range: [0, 1]
    story: Set by the queue system.
    observation: Queue dashboard.
    parents:
      wait_minutes: A wait above the standard sets the flag.
    mechanism: {op: threshold, terms: {wait_minutes: 1}, cutoff: 30, below: 0, above: 1}
  - name: crowding_level
    meaning: Waiting-room crowding rated by the charge nurse.
    unit: level
    scale: ordinal
    range: [0, 2]
    levels: [calm, busy, overcrowded]
    story: Rated each hour.
    observation: Charge-nurse log.
    parents:
      wait_minutes: Longer waits fill the room.
    mechanism: {op: ordinal, terms: {wait_minutes: 1}, cutpoints: [25, 45]}
  - name: triage_route
    meaning: Which triage stream the next patient is sent to.
    unit: route
    scale: categorical
    range: [0, 2]
    levels: [standard, fast_track, overflow]
    story: Routing rule of the desk.
    observation: Routing record.
    parents:
      wait_minutes: Long waits divert patients to other streams.
    mechanism: {op: categorical, scores: {0: 0, 1: {terms: {wait_minutes: 0.05}}, 2: {terms: {wait_minutes: 0.08}}}}
interventions:
  - target: arrivals_per_hour
    meaning: Divert ambulances to set the arrival rate.
    resampler: {kind: uniform, low: 4, high: 16}
"""


def _data() -> dict:
    return yaml.safe_load(TINY)


def _scale_findings(data: dict) -> dict[str, str]:
    rep = check_scenario(parse_scenario(data, "tiny.yaml"))
    return {f.variable: f.message for f in rep.blocking if f.rule == "scale_noise"}


def _var(data: dict, name: str) -> dict:
    return next(v for v in data["variables"] if v["name"] == name)


def test_noise_free_discrete_nodes_pass():
    assert _scale_findings(_data()) == {}


@pytest.mark.parametrize(
    ("name", "noise"),
    [
        ("long_wait_flag", {"family": "normal", "sd": 0.3}),
        ("long_wait_flag", {"family": "poisson"}),
        ("long_wait_flag", {"family": "binomial", "trials": 3}),
        ("crowding_level", {"family": "laplace", "scale": 0.5}),
        ("crowding_level", {"family": "lognormal", "sigma": 0.2}),
        ("crowding_level", {"family": "binomial", "trials": 5}),
        ("triage_route", {"family": "normal", "sd": 0.5}),
        ("triage_route", {"family": "bernoulli"}),  # three labels: 0/1 draws lose 'overflow'
    ],
)
def test_scale_breaking_noise_is_blocking_and_named(name, noise):
    d = copy.deepcopy(_data())
    _var(d, name)["noise"] = noise
    found = _scale_findings(d)
    assert set(found) == {name}
    assert noise["family"] in found[name]


@pytest.mark.parametrize(
    ("name", "noise"),
    [
        ("long_wait_flag", {"family": "bernoulli"}),
        ("long_wait_flag", {"family": "binomial", "trials": 1}),
        ("crowding_level", {"family": "binomial", "trials": 2}),
    ],
)
def test_scale_keeping_noise_is_allowed(name, noise):
    d = copy.deepcopy(_data())
    v = _var(d, name)
    v["noise"] = noise
    # a probability-valued mechanism for the channels that read the value as a probability
    v["mechanism"] = {"op": "sigmoid", "intercept": -3, "terms": {"wait_minutes": 0.1}}
    assert _scale_findings(d) == {}


def test_two_level_categorical_accepts_bernoulli():
    d = copy.deepcopy(_data())
    v = _var(d, "triage_route")
    v["levels"], v["range"] = ["standard", "fast_track"], [0, 1]
    v["mechanism"] = {"op": "sigmoid", "intercept": -3, "terms": {"wait_minutes": 0.1}}
    v["noise"] = {"family": "bernoulli"}
    assert _scale_findings(d) == {}


def test_cli_check_exits_1_naming_scenario_variable_and_rule(tmp_path, capsys):
    d = copy.deepcopy(_data())
    _var(d, "crowding_level")["noise"] = {"family": "normal", "sd": 0.4}
    path = tmp_path / "tiny_scale_clinic.yaml"
    path.write_text(yaml.safe_dump(d, sort_keys=False))
    assert main(["scenario", "check", "--quiet", str(path)]) == 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "[scale_noise]" in ln]
    assert len(lines) == 1
    assert "scenario=tiny_scale_clinic" in lines[0] and "variable=crowding_level" in lines[0]
    assert "BLOCK" in lines[0]
