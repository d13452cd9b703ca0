"""JSON-lines protocol of ``causalarena lab serve`` (one JSON object per line each way).

The server writes a ``hello`` line first (``result`` = :meth:`LabEnv.describe` plus
``observations`` and ``reactor``), then answers every request line with exactly one line, in
order, and ends with an ``end`` line once the episode is over (first correct submission or
submissions spent) or on ``quit`` / end of input.  A malformed request gets one error line
(``"ok": false``) and changes nothing; the episode goes on.  Hostile input is refused the
same way (tests/test_lab_attacks.py): lines over :data:`MAX_LINE` characters (read in
bounded chunks, never held whole), invalid UTF-8, nesting deeper than the JSON decoder
allows, ``NaN`` / ``Infinity`` / non-finite or over-long numbers (:data:`MAX_DIGITS`), and
any unexpected failure while answering (one ``internal error`` line, nothing changed).
Every response is strict JSON (no ``NaN``).  :data:`SCHEMA` is the JSON
Schema (draft 2020-12) of requests and responses; ``causalarena lab schema`` prints it.

Requests (``"id"`` is optional and echoed back)::

    {"op": "describe"}                       -> public facts and budgets
    {"op": "observations"}                   -> every record so far
    {"op": "reactor"}                        -> the reactor's visible properties
    {"op": "intervene", "property": "density", "value": 40}
    {"op": "record", "hypothesis": {...} or "text containing the JSON"}
    {"op": "check", "hypothesis": ...}       -> consistency with the data so far
    {"op": "submit", "prediction": 123.4, "hypothesis": ...}
    {"op": "quit"}

Responses: ``{"ok": true, "op": ..., "id": ..., "result": {...}}`` or
``{"ok": false, "op": ..., "id": ..., "error": "message naming the field and value"}``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import IO, Any

from causalarena.errors import LabError
from causalarena.generator.lab.env import LabEnv

MAX_LINE = 1_000_000
#: Longest integer literal (digits) a request may carry; longer ones are refused.
MAX_DIGITS = 30
_HYP = {"oneOf": [{"type": "object"}, {"type": "string"}]}
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://causalarena.org/schemas/lab-protocol-1.json",
    "title": "causalarena lab serve JSON-lines protocol, version 1",
    "$defs": {
        "request": {
            "type": "object",
            "required": ["op"],
            "properties": {
                "op": {
                    "enum": [
                        "describe",
                        "observations",
                        "reactor",
                        "intervene",
                        "record",
                        "check",
                        "submit",
                        "quit",
                    ]
                },
                "id": {"description": "any JSON value, echoed in the response"},
                "property": {"type": "string"},
                "value": {"type": "number"},
                "prediction": {"type": "number"},
                "hypothesis": _HYP,
            },
            "allOf": [
                {
                    "if": {"properties": {"op": {"const": "intervene"}}},
                    "then": {"required": ["property", "value"]},
                },
                {
                    "if": {"properties": {"op": {"enum": ["record", "check"]}}},
                    "then": {"required": ["hypothesis"]},
                },
                {
                    "if": {"properties": {"op": {"const": "submit"}}},
                    "then": {"required": ["prediction"]},
                },
            ],
        },
        "record": {
            "type": "object",
            "required": ["id", "crystal", "kind", "props", "freq"],
            "properties": {
                "id": {"type": "string"},
                "crystal": {"type": "string"},
                "kind": {"enum": ["observation", "intervention"]},
                "props": {"type": "object", "additionalProperties": {"type": "number"}},
                "freq": {"type": "number"},
                "intervention": {
                    "type": "object",
                    "properties": {
                        "target_prop": {"type": "string"},
                        "target_value": {"type": "number"},
                    },
                },
            },
        },
        "response": {
            "type": "object",
            "required": ["ok", "op"],
            "properties": {
                "ok": {"type": "boolean"},
                "op": {"type": "string", "description": "the request's op, or hello / end / error"},
                "id": {},
                "result": {"type": "object"},
                "error": {"type": "string"},
            },
        },
    },
    "oneOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/response"}],
}
_OPS = SCHEMA["$defs"]["request"]["properties"]["op"]["enum"]


def _need(req: dict, key: str, kind: type | tuple, what: str) -> Any:
    if key not in req:
        raise LabError(f"request op {req['op']!r} needs field {key!r} ({what})")
    v = req[key]
    if isinstance(v, bool) or not isinstance(v, kind):
        raise LabError(f"request field {key!r} = {json.dumps(v)[:80]} must be {what}")
    return v


def handle(env: LabEnv, req: dict) -> dict[str, Any]:
    """Answer one parsed request (see module docstring)."""
    op = req["op"]
    if op == "describe":
        return env.describe()
    if op == "observations":
        return {"observations": env.observations()}
    if op == "reactor":
        return {"reactor": env.reactor()}
    if op == "intervene":
        prop = _need(req, "property", str, "a property name")
        val = _need(req, "value", (int, float), "a number")
        return {"reading": env.intervene(prop, val), "budget_left": env.describe()["budget_left"]}
    if op == "record":
        return env.record(_need(req, "hypothesis", (dict, str), "a hypothesis object or text"))
    if op == "check":
        return env.check(_need(req, "hypothesis", (dict, str), "a hypothesis object or text"))
    if op == "submit":
        pred = _need(req, "prediction", (int, float), "a number")
        hyp = req.get("hypothesis")
        if hyp is not None and not isinstance(hyp, (dict, str)):
            raise LabError("request field 'hypothesis' must be a hypothesis object or text")
        return env.submit(pred, hyp)
    raise AssertionError(op)


class _TooLong(str):
    """A line of the input that exceeded :data:`MAX_LINE` (its length, content dropped)."""

    n: int = 0


def bounded_lines(stream: IO[bytes] | IO[str], limit: int = MAX_LINE) -> Iterable[str]:
    """Lines of ``stream`` decoded as UTF-8 (invalid bytes become U+FFFD), never holding
    more than ``limit + 1`` bytes (or characters) of one line: a longer line is yielded as a
    :class:`_TooLong` marker carrying its length, which the server refuses."""
    chunk = limit + 1
    while True:
        raw = stream.readline(chunk)
        if not raw:
            return
        nl = b"\n" if isinstance(raw, bytes) else "\n"
        if len(raw) <= limit or raw.endswith(nl):
            yield raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            continue
        n = len(raw)
        while raw and not raw.endswith(nl):
            raw = stream.readline(chunk)
            n += len(raw)
        marker = _TooLong("")
        marker.n = n
        yield marker


def _finite_float(s: str) -> float:
    v = float(s)
    if not math.isfinite(v):
        raise LabError(f"request number {s[:40]} is not finite; send finite numbers")
    return v


def _bounded_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_DIGITS:
        raise LabError(
            f"request integer has {len(s.lstrip('-'))} digits; at most {MAX_DIGITS} are accepted"
        )
    return int(s)


def _no_constant(s: str) -> None:
    raise LabError(f"request contains {s}, which is not JSON; send finite numbers")


def loads(text: str) -> Any:
    """Strict JSON: no ``NaN``/``Infinity``, finite floats, integers of at most
    :data:`MAX_DIGITS` digits.

    Raises
    ------
    LabError
        Naming the problem (invalid JSON with its message, nesting too deep, bad number).
    """
    try:
        return json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except LabError:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        msg = getattr(exc, "msg", None) or (
            "too deeply nested" if isinstance(exc, RecursionError) else str(exc)[:120]
        )
        raise LabError(
            f"request is not valid JSON ({msg}); send one JSON object per line"
        ) from None


def _parse_line(line: str) -> dict:
    if isinstance(line, _TooLong):
        raise LabError(f"request line has {line.n} bytes; limit {MAX_LINE}")
    if len(line) > MAX_LINE:
        raise LabError(f"request line has {len(line)} characters; limit {MAX_LINE}")
    req = loads(line)
    if not isinstance(req, dict):
        raise LabError(f"request must be a JSON object, got {type(req).__name__}")
    if "op" not in req:
        raise LabError(f"request has no 'op' field; ops: {_OPS}")
    if req["op"] not in _OPS:
        raise LabError(f"unknown op {json.dumps(req['op'])[:60]}; ops: {_OPS}")
    return req


def serve(env: LabEnv, lines: Iterable[str], out: IO[str]) -> dict[str, Any]:
    """Run the protocol: read request lines, write one response line each.

    Returns the environment's transcript when the episode ends or input runs out.
    """

    def send(obj: dict) -> None:
        try:
            text = json.dumps(obj, sort_keys=True, allow_nan=False)
        except (ValueError, TypeError, RecursionError):
            text = json.dumps(
                {
                    "ok": False,
                    "op": str(obj.get("op", "error")),
                    "id": None,
                    "error": "the response is not representable as strict JSON (a non-finite "
                    "number); nothing was changed by this request's answer",
                },
                sort_keys=True,
            )
        out.write(text + "\n")
        out.flush()

    send(
        {
            "ok": True,
            "op": "hello",
            "result": {
                **env.describe(),
                "observations": env.observations(),
                "reactor": env.reactor(),
            },
        }
    )
    for line in lines:
        if not line.strip() and not isinstance(line, _TooLong):
            continue
        rid, req = None, None
        try:
            req = _parse_line(line)
            rid = req.get("id")
            if req["op"] == "quit":
                send({"ok": True, "op": "quit", "id": rid, "result": {}})
                break
            send({"ok": True, "op": req["op"], "id": rid, "result": handle(env, req)})
        except LabError as exc:
            op = req["op"] if isinstance(req, dict) else "error"
            send({"ok": False, "op": op, "id": rid, "error": str(exc)})
        except Exception as exc:  # noqa: BLE001 - one error line, the episode goes on
            op = req["op"] if isinstance(req, dict) else "error"
            send(
                {
                    "ok": False,
                    "op": op,
                    "id": rid,
                    "error": f"internal error answering op {op!r} ({type(exc).__name__}); "
                    "the episode goes on",
                }
            )
        if env.done:
            break
    t = env.transcript()
    send(
        {
            "ok": True,
            "op": "end",
            "result": {
                "episode_id": t["episode_id"],
                "budget_used": t["budget_used"],
                "submissions": t["submissions"],
                "done": env.done,
            },
        }
    )
    return t
