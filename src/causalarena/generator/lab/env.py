"""``LabEnv``: the laboratory an agent drives (CausaLab sections 3.2 and 4).

An agent sees the prior records, the manipulator crystal's readings, the reactor's visible
properties and its remaining budget; it sets one controllable property of the manipulator
per intervention (shift semantics, :mod:`.semantics`), records a hypothesis per step,
may call the consistency check, and submits at most ``max_submissions`` predictions of the
reactor's target.  Every return value is plain JSON data.  The hidden SCM, the crystals'
exogenous terms and the held-out value live in a private state object; nothing the
environment returns or serialises contains them, so an agent in another process (through
:mod:`.protocol`) cannot reach them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from causalarena.errors import LabError
from causalarena.generator.lab.episode import (
    _S_HIDDEN,
    SUCCESS_TOL,
    Episode,
    hidden_offsets,
    record_of,
    stream,
)
from causalarena.generator.lab.hypothesis import Hypothesis, consistency, parse_hypothesis
from causalarena.generator.lab.semantics import compile_model, readings, shift

#: Largest magnitude of an intervention value.
MAX_VALUE = 1e6
#: Most hypotheses one episode records (a step records one; bounds an agent's memory use).
MAX_RECORDS = 1000


class _State:
    """Private state of one episode (never returned to an agent)."""

    def __init__(self, episode: Episode):
        self.episode = episode
        self.model = compile_model(episode.spec)
        self.exo = np.array(episode.manipulator, dtype=float)
        self.rng = stream(episode.seed, _S_HIDDEN, 1)
        self.data: list[dict[str, Any]] = []
        for i, r in enumerate(episode.records):
            rec = dict(r)
            rec["crystal"] = (
                "trace" if (i == 0 or "intervention" in r) and _has_trace(episode) else f"prior-{i}"
            )
            rec["kind"] = "intervention" if "intervention" in r else "observation"
            self.data.append(rec)
        self.budget_left = episode.budget
        self.n_interventions = 0
        self.submissions: list[dict[str, Any]] = []
        self.hypotheses: list[dict[str, Any]] = []
        self.done = False
        self._read(None)

    def _read(self, intervention: dict | None) -> dict[str, Any]:
        offsets = hidden_offsets(self.episode.spec, self.rng)
        vals = readings(self.model, self.exo, offsets)
        rec = record_of(
            self.episode.spec, vals, f"manipulator/{self.n_interventions}", intervention
        )
        rec["crystal"] = "manipulator"
        rec["kind"] = "intervention" if intervention else "observation"
        self.data.append(rec)
        return rec


def _finite(v: int | float) -> bool:
    """Finite as a float (an int too large for a float is not)."""
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _text(v: object) -> str:
    """At most 60 characters describing ``v`` (for error messages)."""
    try:
        t = repr(v)
    except (ValueError, RecursionError):  # e.g. an int of more than 4300 digits
        t = f"<{type(v).__name__}>"
    return t if len(t) <= 60 else t[:57] + "..."


def _has_trace(ep: Episode) -> bool:
    return any("intervention" in r for r in ep.records)


class LabEnv:
    """One episode of the lab.

    Parameters
    ----------
    episode : Episode

    Notes
    -----
    Errors (:class:`causalarena.errors.LabError`) name the action, the field and the value:
    unknown or non-controllable property, non-finite value, budget exhausted, submissions
    exhausted, malformed hypothesis.  A refused action changes nothing.
    """

    __slots__ = ("__state",)

    def __init__(self, episode: Episode):
        self.__state = _State(episode)

    # ------------------------------------------------------------------ views
    def describe(self) -> dict[str, Any]:
        """Public facts: ids, names, roles, family, budgets and the hypothesis format."""
        s = self.__state
        ep = s.episode
        return {
            "episode_id": ep.episode_id,
            "target": ep.target,
            "properties": ep.properties,
            "controllable": list(ep.lab["controllable"]),
            "equation_family": ep.lab["equation_family"],
            "budget": ep.budget,
            "budget_left": s.budget_left,
            "max_submissions": ep.max_submissions,
            "submissions_left": ep.max_submissions - len(s.submissions),
            "success_tolerance": SUCCESS_TOL,
            "done": s.done,
            "hypothesis_format": {
                "edges": [{"from": "<property>", "to": "<property or target>"}],
                "freq_equation": f"{ep.target} = base + c_<p>*<p>"
                + (" + c_<p>_2*<p>**2" if ep.lab["equation_family"] == "quadratic" else ""),
                "coefficients": {"base": 0.0, "c_<p>": 0.0},
            },
        }

    def observations(self) -> list[dict[str, Any]]:
        """Every record so far: prior records, then the manipulator's readings.

        Each is ``{"id", "crystal", "kind", "props": {name: value}, "freq",
        ["intervention": {"target_prop", "target_value"}]}``.
        """
        return [dict(r, props=dict(r["props"])) for r in self.__state.data]

    def manipulator(self) -> dict[str, Any]:
        """The manipulator crystal's latest reading."""
        r = [d for d in self.__state.data if d["crystal"] == "manipulator"][-1]
        return dict(r, props=dict(r["props"]))

    def reactor(self) -> dict[str, float]:
        """The reactor crystal's visible (non-target) properties."""
        return self.__state.episode.reactor_visible()

    # ------------------------------------------------------------------ actions
    def intervene(self, prop: str, value: float) -> dict[str, Any]:
        """Set ``prop`` of the manipulator to ``value``; return the new reading.

        Raises
        ------
        LabError
            Unknown, target or non-controllable property; non-numeric, non-finite or too
            large value; budget exhausted; episode over.
        """
        s = self.__state
        ep = s.episode
        if s.done:
            raise LabError("intervene: the episode is over")
        if prop not in ep.spec.names:
            raise LabError(f"intervene: unknown property {prop!r}; properties: {ep.properties}")
        if prop not in ep.lab["controllable"]:
            raise LabError(
                f"intervene: {prop!r} is not controllable; controllable: {ep.lab['controllable']}"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise LabError(f"intervene: value {_text(value)} is not a number")
        if not _finite(value) or abs(float(value)) > MAX_VALUE:
            raise LabError(
                f"intervene: value {_text(value)} must be finite with |value| <= {MAX_VALUE:g}"
            )
        if s.budget_left <= 0:
            raise LabError(f"intervene: the intervention budget ({ep.budget}) is spent")
        s.exo = shift(s.model, s.exo, s.model.index(prop), float(value))
        s.budget_left -= 1
        s.n_interventions += 1
        rec = s._read({"target_prop": prop, "target_value": float(value)})
        return dict(rec, props=dict(rec["props"]))

    def record(self, hypothesis: str | dict) -> dict[str, Any]:
        """Record the agent's current hypothesis for trajectory scoring.

        A malformed hypothesis is recorded as a parse failure (``{"valid": false, "error"}``)
        rather than refused, so the trajectory keeps every step.
        """
        s = self.__state
        if len(s.hypotheses) >= MAX_RECORDS:
            raise LabError(
                f"record: at most {MAX_RECORDS} hypotheses can be recorded in one episode"
            )
        entry: dict[str, Any] = {"step": s.n_interventions}
        try:
            h = self._parse(hypothesis)
            entry.update(valid=True, hypothesis=h.to_dict())
        except LabError as exc:
            entry.update(valid=False, error=str(exc))
        s.hypotheses.append(entry)
        return dict(entry)

    def check(self, hypothesis: str | dict, tol: float = 0.05) -> dict[str, Any]:
        """Consistency of a hypothesis with every record so far (section 5.5).

        Raises
        ------
        LabError
            If the hypothesis does not parse.
        """
        return consistency(self._parse(hypothesis), self.__state.data, tol)

    def submit(self, prediction: float, hypothesis: str | dict | None = None) -> dict[str, Any]:
        """Submit a prediction of the reactor's target (and optionally the final hypothesis).

        Returns ``{"correct", "submissions_left", "done"}``; ``correct`` is
        ``|prediction - held-out| < 5``.  The episode ends at the first correct submission or
        when the submissions are spent.

        Raises
        ------
        LabError
            Non-numeric prediction, submissions exhausted or episode over.
        """
        s = self.__state
        ep = s.episode
        if s.done:
            raise LabError(
                f"submit: the episode is over ({len(s.submissions)} of {ep.max_submissions} "
                "submissions used)"
            )
        if isinstance(prediction, bool) or not isinstance(prediction, (int, float)):
            raise LabError(f"submit: prediction {_text(prediction)} is not a number")
        if not _finite(prediction):
            raise LabError(f"submit: prediction {_text(prediction)} is not finite")
        if hypothesis is not None:
            self.record(hypothesis)
        correct = abs(float(prediction) - ep.held_out()) < SUCCESS_TOL
        s.submissions.append({"prediction": float(prediction), "step": s.n_interventions})
        left = ep.max_submissions - len(s.submissions)
        s.done = correct or left == 0
        return {"correct": correct, "submissions_left": left, "done": s.done}

    # ------------------------------------------------------------------ results
    @property
    def done(self) -> bool:
        return self.__state.done

    def transcript(self) -> dict[str, Any]:
        """What the agent did (public data only): interventions, hypotheses, submissions."""
        s = self.__state
        return {
            "episode_id": s.episode.episode_id,
            "interventions": [
                d["intervention"]
                for d in s.data
                if d["crystal"] == "manipulator" and "intervention" in d
            ],
            "budget_used": s.episode.budget - s.budget_left,
            "hypotheses": [dict(h) for h in s.hypotheses],
            "submissions": [dict(x) for x in s.submissions],
            "observations": self.observations(),
        }

    def _parse(self, hypothesis: str | dict) -> Hypothesis:
        ep = self.__state.episode
        return parse_hypothesis(hypothesis, ep.properties, ep.lab["equation_family"], ep.target)

    def __repr__(self) -> str:
        return f"LabEnv({self.__state.episode.episode_id!r})"

    def __reduce__(self):
        raise TypeError("LabEnv cannot be pickled; drive it through its methods or lab serve")
