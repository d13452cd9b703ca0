"""A new-scenario template (``causalarena scenario new``)."""

from __future__ import annotations

from causalarena.generator.scenario.schema import DOMAINS

_HEAD = """\
# Scenario file: see AUTHORING.md (src/causalarena/generator/scenario/AUTHORING.md) for the
# format, the mechanism vocabulary and the release-gate rules.
# Check it with:  causalarena scenario check {path}
id: {sid}
family: {family}
domain: {domain}
title: TODO one-line title
summary: >
  TODO two or three sentences: the process, the causal question, what is measured and what
  can be changed.
author: TODO your name
references: []          # grounding sources (standards, textbooks, agency manuals)
"""

_FORMULA_CONSTANTS = """\
constants:
  g0: {value: 9.80665, unit: m/s^2, meaning: standard gravity}
"""

_VARIABLES = """\
variables:
  - name: driver_level
    meaning: TODO what the quantity is, operationally
    unit: {unit}
    scale: continuous     # continuous | binary | ordinal | categorical | count
    range: [0, 100]
    story: TODO where values come from (sampling story / data source)
    observation: TODO how it is observed (instrument, record, survey)
    intervenable: true
    distribution: {{family: uniform}}   # normal lognormal uniform beta gamma triangular
                                      # bernoulli categorical poisson negative_binomial
                                      # binomial integer_uniform
  - name: response_level
    meaning: TODO the child quantity
    unit: {unit}
    scale: continuous
    range: [0, 300]
    story: TODO computed from its parents
    observation: TODO how it is observed
    intervenable: false
    parents:
      driver_level: TODO one sentence on why changing the driver changes the response.
{mechanism}
interventions:
  - target: driver_level
    meaning: TODO what setting the handle means in practice
    resampler: {{kind: uniform, low: 10, high: 90}}   # percentile | uniform | choice | fixed
"""

_SEM_MECH = """\
    mechanism: {op: linear, intercept: 5, terms: {driver_level: 2.0}}
    noise: {family: normal, sd: 3}"""
_FORM_MECH = """\
    mechanism:
      op: formula
      law: TODO name of the equation
      equation: "response_level = 2 * driver_level + 5"
    noise: {family: none}     # formula nodes never carry noise; add a readout node instead"""


def template(family: str, domain: str, sid: str, path: str = "FILE") -> str:
    """YAML text of a schema-valid two-variable skeleton to be filled in.

    Raises
    ------
    ValueError
        Unknown family or a domain outside the family's ten domains.
    """
    if family not in DOMAINS:
        raise ValueError(f"unknown family {family!r}; known: semantic, formula")
    if domain not in DOMAINS[family]:
        raise ValueError(
            f"domain {domain!r} is not a {family} domain; known: {', '.join(DOMAINS[family])}"
        )
    text = _HEAD.format(sid=sid, family=family, domain=domain, path=path)
    if family == "formula":
        text += _FORMULA_CONSTANTS
    mech = _FORM_MECH if family == "formula" else _SEM_MECH
    unit = "m" if family == "formula" else "TODO unit"
    return text + _VARIABLES.format(unit=unit, mechanism=mech)
