"""Parsable hypotheses and the consistency check (CausaLab section 4, appendix A.5, 5.5).

A hypothesis is a JSON object with three typed parts::

    {"edges": [{"from": "density", "to": "resonanceFreq"}, ...],
     "freq_equation": "resonanceFreq = base + c_density*density",
     "coefficients": {"base": 25, "c_density": 1}}

(hard-quadratic family: ``c_<p>_1*p + c_<p>_2*p**2``; ``^`` is read as ``**``).
:func:`parse_hypothesis` accepts the object itself, or text containing it (a fenced
```` ```json ```` block or the first JSON object in the text); normalises variants of the
target name (``resonance_freq``, ``Resonance Frequency (Hz)``, ``frequency``, ``freq``) and of
property names (case, spaces, underscores, display names); evaluates the equation with a
whitelisting walker over Python's ``ast`` (numbers, names, ``+ - * /`` and ``**`` with a
constant integer exponent 0..3; no calls, attributes, subscripts, ``eval`` or ``exec``); and
rejects undeclared properties, non-numeric coefficients, terms outside the declared family
and mismatches between equation terms and the listed parents of the target, with a
:class:`causalarena.errors.LabError` that says which.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from causalarena.errors import LabError
from causalarena.generator.lab.episode import DISPLAY
from causalarena.generator.lab.graph import TARGET, Edge, ancestors

MAX_EQUATION_CHARS = 2000
MAX_TEXT_CHARS = 200_000
#: Deepest expression tree the evaluator walks (a 7-node quadratic equation needs ~30).
MAX_EQUATION_DEPTH = 100
#: Candidate ``{`` positions tried per text block before giving up (bounds the search).
MAX_JSON_STARTS = 64
#: Most coefficients a hypothesis may list (7 nodes, quadratic: 13 are needed).
MAX_COEFFICIENTS = 100
_TARGET_ALIASES = {
    "resonancefreq",
    "resonancefrequency",
    "resonancefrequencyhz",
    "frequency",
    "freq",
}
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def _squash(name: str) -> str:
    return re.sub(r"[\s_\-()°]", "", name).lower()


def aliases(properties: Sequence[str], target: str = TARGET) -> dict[str, str]:
    """Map squashed name variants -> canonical name (properties, display names, target)."""
    out = {_squash(a): target for a in _TARGET_ALIASES}
    out[_squash(target)] = target
    out[_squash(DISPLAY.get(target, target))] = target
    for p in properties:
        out[_squash(p)] = p
        out[_squash(DISPLAY.get(p, p))] = p
    if "temperatureC" in properties:
        out.setdefault("temperature", "temperatureC")
        out.setdefault("temp", "temperatureC")
    return out


@dataclass(frozen=True)
class Hypothesis:
    """A parsed hypothesis.

    Attributes
    ----------
    edges : tuple of (parent, child)
        Directed edges over canonical names (a DAG).
    base : float
        Intercept of the target equation.
    terms : dict
        ``{parent: (c_1, c_2, ...)}``: the equation's coefficient of ``p, p^2, ...`` per term.
    equation : str
        The equation as given.
    coefficients : dict
        The coefficients as given (floats).
    """

    edges: tuple[Edge, ...]
    base: float
    terms: dict[str, tuple[float, ...]]
    equation: str
    coefficients: dict[str, float]

    def predict(self, props: Mapping[str, float]) -> float:
        """The target value the equation gives for property readings ``props``.

        Raises
        ------
        LabError
            If a property the equation uses is missing from ``props``.
        """
        total = self.base
        for p, cs in self.terms.items():
            if p not in props:
                raise LabError(f"hypothesis needs property {p!r}, which the record lacks")
            x = float(props[p])
            total += sum(c * x ** (d + 1) for d, c in enumerate(cs))
        if not math.isfinite(total):
            raise LabError(
                "hypothesis predicts a non-finite value for these readings (a coefficient is "
                "too large)"
            )
        return total

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": [{"from": a, "to": b} for a, b in self.edges],
            "freq_equation": self.equation,
            "coefficients": dict(self.coefficients),
        }


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an int too large for a float
        return False


def _short(v: Any) -> str:
    """A bounded text of a JSON value (for error messages; at most 60 characters)."""
    try:
        text = repr(v) if isinstance(v, (str, int, float)) else json.dumps(v)
    except (TypeError, ValueError, RecursionError):  # e.g. an int of > 4300 digits
        text = f"<{type(v).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."


def extract_json(text: str) -> dict[str, Any]:
    """The hypothesis object inside ``text`` (fenced block first, then the first object).

    Raises
    ------
    LabError
        If no JSON object can be found.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise LabError(f"hypothesis text is {len(text)} characters; the limit is {MAX_TEXT_CHARS}")
    cands = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    dec = json.JSONDecoder(parse_constant=_no_constant, parse_int=_bounded_int)
    first_err: str | None = None
    for c in cands:
        c = c.strip()
        starts = [i for i, ch in enumerate(c) if ch == "{"][:MAX_JSON_STARTS]
        for i in starts:
            try:
                obj, _ = dec.raw_decode(c, i)
            except json.JSONDecodeError as exc:
                first_err = first_err or f"{exc.msg} at column {exc.colno}"
                continue
            except (ValueError, RecursionError) as exc:
                first_err = first_err or (
                    "too deeply nested" if isinstance(exc, RecursionError) else str(exc)[:120]
                )
                continue
            if isinstance(obj, dict):
                return obj
    hint = f" (first JSON error: {first_err})" if first_err else ""
    raise LabError(f"hypothesis: no JSON object found in the text{hint}")


def _no_constant(s: str) -> None:
    raise ValueError(f"{s} is not JSON")


def _bounded_int(s: str) -> int:
    if len(s.lstrip("-")) > 30:
        raise ValueError(f"an integer with {len(s.lstrip('-'))} digits (at most 30)")
    return int(s)


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}


def _snippet(node: ast.AST) -> str:
    """At most 60 characters of the source of ``node`` (for error messages)."""
    try:
        return ast.unparse(node)[:60]
    except (RecursionError, ValueError):
        return type(node).__name__


def _check_tree(node: ast.AST, names: set[str], depth: int = 0) -> None:
    """Whitelist walk; records every Name in ``names``; refuses trees deeper than
    :data:`MAX_EQUATION_DEPTH` (so neither this walk nor the evaluator can exhaust the stack)."""
    if depth > MAX_EQUATION_DEPTH:
        raise LabError(
            f"freq_equation is nested more than {MAX_EQUATION_DEPTH} levels deep; write it as "
            "a sum of at most a few dozen terms"
        )
    if isinstance(node, ast.Expression):
        _check_tree(node.body, names, depth + 1)
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        _check_tree(node.left, names, depth + 1)
        _check_tree(node.right, names, depth + 1)
        if isinstance(node.op, ast.Pow):
            r = node.right
            if isinstance(r, ast.UnaryOp) or not (
                isinstance(r, ast.Constant)
                and isinstance(r.value, int)
                and not isinstance(r.value, bool)
                and 0 <= r.value <= 3
            ):
                raise LabError(
                    "freq_equation: exponents must be integer constants 0..3, got "
                    f"{ast.unparse(r)!r}"
                )
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check_tree(node.operand, names, depth + 1)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise LabError(f"freq_equation: constant {node.value!r} is not a number")
    elif isinstance(node, ast.Name):
        names.add(node.id)
    else:
        raise LabError(
            f"freq_equation: {type(node).__name__} ({_snippet(node)!r}) is not allowed; "
            "only numbers, names, + - * / and ** with a small integer exponent"
        )


def _evaluate(node: ast.AST, env: Mapping[str, float]) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, env)
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, env), _evaluate(node.right, env)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if isinstance(node.op, ast.Div):
            if b == 0:
                raise LabError("freq_equation: division by zero")
            return a / b
        return a**b
    if isinstance(node, ast.UnaryOp):
        v = _evaluate(node.operand, env)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Constant):
        return float(node.value)
    return float(env[node.id])


def parse_hypothesis(
    hypothesis: str | Mapping[str, Any],
    properties: Sequence[str],
    family: str = "linear",
    target: str = TARGET,
) -> Hypothesis:
    """Parse and validate a hypothesis (see module docstring).

    Parameters
    ----------
    hypothesis : str or dict
        The JSON object, or text containing it.
    properties : sequence of str
        The episode's declared non-target properties.
    family : {"linear", "quadratic"}
        The declared functional family of the target equation.

    Raises
    ------
    LabError
        Names the field and the problem: missing field, undeclared property, non-numeric
        coefficient, disallowed expression, term outside the family, cycle, mismatch between
        equation terms and the target's listed parents.
    """
    obj = extract_json(hypothesis) if isinstance(hypothesis, str) else hypothesis
    if not isinstance(obj, Mapping):
        raise LabError(f"hypothesis must be a JSON object, got {type(obj).__name__}")
    for f in ("edges", "freq_equation", "coefficients"):
        if f not in obj:
            raise LabError(
                f"hypothesis: field {f!r} is missing (need edges, freq_equation, coefficients)"
            )
    al = aliases(properties, target)
    declared = [*properties, target]

    def canon(name: Any, where: str) -> str:
        if not isinstance(name, str) or _squash(name) not in al:
            raise LabError(
                f"hypothesis: {where} {name!r} is not a declared property (declared: {declared})"
                if isinstance(name, str) and len(name) <= 60
                else f"hypothesis: {where} {_short(name)} is not a declared property "
                f"(declared: {declared})"
            )
        return al[_squash(name)]

    if not isinstance(obj["edges"], list):
        raise LabError("hypothesis: 'edges' must be a list of {from, to} objects")
    edges: set[Edge] = set()
    for i, e in enumerate(obj["edges"]):
        if isinstance(e, Mapping) and "from" in e and "to" in e:
            a, b = e["from"], e["to"]
        elif isinstance(e, (list, tuple)) and len(e) == 2:
            a, b = e
        else:
            raise LabError(f"hypothesis: edges[{i}] = {_short(e)} is not a {{from, to}} object")
        a, b = canon(a, f"edges[{i}].from"), canon(b, f"edges[{i}].to")
        if a == b:
            raise LabError(f"hypothesis: edges[{i}] is a self-loop on {a!r}")
        edges.add((a, b))
    for a, b in edges:
        if b in ancestors(a, edges):
            raise LabError(f"hypothesis: the edges contain a directed cycle through {a!r} -> {b!r}")
    coefs_in = obj["coefficients"]
    if not isinstance(coefs_in, Mapping):
        raise LabError("hypothesis: 'coefficients' must be an object {name: number}")
    if len(coefs_in) > MAX_COEFFICIENTS:
        raise LabError(
            f"hypothesis: {len(coefs_in)} coefficients listed; at most {MAX_COEFFICIENTS}"
        )
    coefs: dict[str, float] = {}
    for k, v in coefs_in.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not _finite(v):
            raise LabError(
                f"hypothesis: coefficient {str(k)[:60]!r} = {_short(v)} is not a finite number"
            )
        coefs[str(k)] = float(v)
    eq = obj["freq_equation"]
    if not isinstance(eq, str) or not eq.strip():
        raise LabError("hypothesis: 'freq_equation' must be a non-empty string")
    if len(eq) > MAX_EQUATION_CHARS:
        raise LabError(
            f"hypothesis: freq_equation has {len(eq)} characters; limit {MAX_EQUATION_CHARS}"
        )
    lhs, _, rhs = eq.rpartition("=") if "=" in eq else ("", "", eq)
    if lhs.strip() and al.get(_squash(lhs.strip())) != target:
        raise LabError(
            f"freq_equation: left-hand side {lhs.strip()!r} is not the target {target!r}"
        )
    try:
        tree = ast.parse(rhs.replace("^", "**").strip(), mode="eval")
    except SyntaxError as exc:
        raise LabError(
            f"freq_equation: {rhs.strip()[:60]!r} is not an expression ({exc.msg})"
        ) from None
    except (RecursionError, MemoryError, ValueError):
        raise LabError("freq_equation is too complex to parse") from None
    names: set[str] = set()
    _check_tree(tree, names)
    props_used: set[str] = set()
    env_names: dict[str, str] = {}
    for n in names:
        if n in coefs:
            env_names[n] = n
        elif _squash(n) in al:
            c = al[_squash(n)]
            if c == target:
                raise LabError(
                    f"freq_equation: the target {target!r} appears on the right-hand side"
                )
            props_used.add(c)
            env_names[n] = c
        else:
            raise LabError(
                f"freq_equation uses {n!r}, which is neither a declared property ({list(properties)}) "
                "nor a key of 'coefficients'"
            )
    listed = {a for a, b in edges if b == target}
    if props_used != listed:
        parts = []
        if listed - props_used:
            parts.append(f"listed parents without a term: {sorted(listed - props_used)}")
        if props_used - listed:
            parts.append(f"terms without a listed edge to {target}: {sorted(props_used - listed)}")
        raise LabError("hypothesis: freq_equation terms and edges disagree; " + "; ".join(parts))
    order = sorted(props_used)

    def f(point: Mapping[str, float]) -> float:
        env = {n: (coefs[n] if n in coefs else point.get(c, 0.0)) for n, c in env_names.items()}
        return _evaluate(tree, env)

    try:
        f0 = f({})
        vals = {p: [f({p: float(x)}) - f0 for x in (1, 2, 3)] for p in order}
        pair = {
            (p, q): f({p: 1.0, q: 1.0}) - f({p: 1.0}) - f({q: 1.0}) + f0
            for i, p in enumerate(order)
            for q in order[i + 1 :]
        }
    except (OverflowError, ZeroDivisionError, KeyError) as exc:
        raise LabError(f"freq_equation cannot be evaluated ({type(exc).__name__})") from None
    if not all(
        math.isfinite(v) for v in (f0, *(x for vs in vals.values() for x in vs), *pair.values())
    ):
        raise LabError(
            "freq_equation evaluates to a non-finite number (a constant or coefficient is too "
            "large)"
        )
    scale = 1e-9 * max(1.0, abs(f0), *(abs(v) for vs in vals.values() for v in vs))
    for (p, q), v in pair.items():
        if abs(v) > scale * 1e3:
            raise LabError(
                f"freq_equation: the terms in {p!r} and {q!r} interact; the family is additive"
            )
    terms = {}
    for p in order:
        g1, g2, g3 = vals[p]
        c2 = (g2 - 2 * g1) / 2
        c1 = g1 - c2
        if abs(g3 - 3 * c1 - 9 * c2) > scale * 1e3:
            raise LabError(f"freq_equation: the term in {p!r} is not a polynomial of degree <= 2")
        if family == "linear":
            if abs(c2) > scale * 1e3:
                raise LabError(
                    f"freq_equation: the term in {p!r} is quadratic but the family is linear"
                )
            terms[p] = (c1,)
        else:
            terms[p] = (c1, c2)
    return Hypothesis(
        edges=tuple(sorted(edges)),
        base=f0,
        terms=terms,
        equation=eq,
        coefficients=coefs,
    )


def consistency(
    hypothesis: Hypothesis, records: Sequence[Mapping[str, Any]], tol: float = 0.05
) -> dict[str, Any]:
    """Does the hypothesis reproduce the data collected so far? (section 5.5 verification).

    Two checks: (1) the target equation predicts every record's frequency within ``tol``;
    (2) structure: for each intervention record following a reading of the same crystal
    (``"crystal"`` keys equal), the properties that changed (by more than ``tol``) are exactly
    the intervened property's descendants in the hypothesised graph (with the intervened
    property itself excluded).

    Returns
    -------
    dict
        ``{"consistent", "max_abs_residual", "residuals": [{"id", "predicted", "observed",
        "residual"}], "structure_violations": [{"id", "intervened", "changed", "predicted"}]}``.
    """
    res = []
    for r in records:
        pred = hypothesis.predict(r["props"])
        res.append(
            {
                "id": r.get("id"),
                "predicted": pred,
                "observed": r["freq"],
                "residual": r["freq"] - pred,
            }
        )
    viol = []
    last: dict[str, Mapping[str, Any]] = {}
    for r in records:
        c = r.get("crystal")
        iv = r.get("intervention")
        if iv and c is not None and c in last:
            prev = last[c]
            vals = {**r["props"], TARGET: r["freq"]}
            old = {**prev["props"], TARGET: prev["freq"]}
            changed = {
                k
                for k in vals
                if k != iv["target_prop"] and abs(vals[k] - old.get(k, vals[k])) > tol
            }
            desc = {b for b in vals if iv["target_prop"] in ancestors(b, hypothesis.edges)}
            if changed != desc:
                viol.append(
                    {
                        "id": r.get("id"),
                        "intervened": iv["target_prop"],
                        "changed": sorted(changed),
                        "predicted": sorted(desc),
                    }
                )
        if c is not None:
            last[c] = r
    mx = max((abs(x["residual"]) for x in res), default=0.0)
    return {
        "consistent": mx <= tol and not viol,
        "max_abs_residual": mx,
        "residuals": res,
        "structure_violations": viol,
    }
