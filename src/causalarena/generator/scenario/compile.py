"""Compile a scenario file into the executable :class:`~causalarena.spec.SCMSpec`.

The compiled spec is the same object the synthetic family produces (paper section 4.4:
"these family-specific procedures ultimately produce the same executable SCM interface"):
one variable per scenario variable in file order, parents in the order the file lists them,
one ``sc.*`` operation per structural variable (:mod:`.operations`), one ``sc.*`` root
distribution per root (truncated to the declared range), one noise channel per variable, and a
``per_target`` intervention value rule with one resampler per intervention handle.  Outputs are
raw values in the declared unit (``out_loc = 0``, ``out_scale = 1``, ``strength = 1``: no
standardisation, no pilot calibration).

:func:`references` lists the variables a mechanism reads; the release gate compares it with
the declared parents (hidden and omitted parents).  :func:`formula_of` resolves a formula node:
its relation, the solve-for symbol and the explicit expression (solved with sympy when the
file writes the relation in another orientation).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from causalarena.generator.scenario import expressions as ex
from causalarena.generator.scenario import schema as sch
from causalarena.spec import SCMSpec

_SPEC_ROOT = {k: f"sc.{k}" for k in sch.ROOT_PARAMS}
_SPEC_NOISE = {k: ("none" if k == "none" else f"sc.{k}") for k in sch.NOISE_PARAMS}


class CompileError(sch.ScenarioError):
    """The scenario cannot be compiled (e.g. a hidden parent, an unsolvable equation)."""


def _lin_refs(x: Any) -> set[str]:
    return set(sch._lin(x).terms) if not isinstance(x, (int, float)) else set()


def references(sc: sch.Scenario, v: sch.Variable) -> set[str]:
    """Variables read by ``v``'s mechanism (empty for roots).

    Raises
    ------
    CompileError
        A formula equation that does not parse or names an unknown symbol.
    """
    m = v.mechanism
    if m is None:
        return set()
    refs: set[str] = set()
    for attr in ("terms",):
        refs |= set(getattr(m, attr, None) or {})
    for attr in ("input", "by", "of", "reading"):
        if getattr(m, attr, None):
            refs.add(getattr(m, attr))
    for attr in ("factors", "exposure"):
        refs |= set(getattr(m, attr, None) or [])
    if isinstance(m, sch.OpPowerLaw):
        refs |= set(m.exponents)
    for attr in ("below", "above", "initial", "inflow", "outflow", "duration"):
        if hasattr(m, attr):
            refs |= _lin_refs(getattr(m, attr))
    if isinstance(m, sch.OpRatio):
        refs |= _lin_refs(m.numerator) | _lin_refs(m.denominator)
    if isinstance(m, (sch.OpCategorical,)):
        for x in m.scores.values():
            refs |= _lin_refs(x)
    if isinstance(m, sch.OpRegimeSwitch):
        for x in m.regimes.values():
            refs |= _lin_refs(x)
    if isinstance(m, sch.OpMinMax):
        for x in m.branches:
            refs |= _lin_refs(x)
    if isinstance(m, sch.OpFormula):
        refs = set(formula_of(sc, v).inputs)
    return refs


@dataclass(frozen=True)
class Formula:
    """A resolved formula node.

    Attributes
    ----------
    relation : tuple of Tree
        ``(lhs, rhs)`` as written, symbols renamed to variable/constant names.
    target : str
        The variable the equation is solved for (this node).
    explicit : Tree
        ``target = explicit`` (variable and constant names).
    inputs : list of str
        Variables the explicit form reads.
    constants : dict
        Constant name -> value (in the declared constant unit).
    """

    relation: tuple
    target: str
    explicit: tuple
    inputs: list[str]
    constants: dict[str, float]


def _rename(tree: tuple, names: dict[str, str]) -> tuple:
    kind = tree[0]
    if kind == "sym":
        return ("sym", names.get(tree[1], tree[1]))
    if kind == "num":
        return tree
    if kind == "call":
        return ("call", tree[1], tuple(_rename(a, names) for a in tree[2]))
    return (kind, *(_rename(a, names) for a in tree[1:]))


def formula_of(sc: sch.Scenario, v: sch.Variable) -> Formula:
    """Resolve the formula node ``v`` (see :class:`Formula`).

    Raises
    ------
    CompileError
        Parse errors, unknown symbols, the solve-for symbol not being this variable, a symbol
        aliasing an unknown variable, or a relation sympy cannot solve uniquely for it.
    """
    m = v.mechanism
    assert isinstance(m, sch.OpFormula)
    fail = _failer(sc, v, "mechanism.equation", m.equation)
    names = {s.name for s in sc.variables}
    for alias, target in m.symbols.items():
        if target not in names:
            raise CompileError(
                sc.id, v.name, f"mechanism.symbols.{alias}", target, "unknown variable"
            )
        if alias in sc.constants:
            raise CompileError(
                sc.id, v.name, f"mechanism.symbols.{alias}", alias, "clashes with a constant"
            )
    try:
        lhs, rhs = ex.parse_equation(m.equation)
    except ex.ExpressionError as exc:
        raise fail(str(exc)) from None
    lhs, rhs = _rename(lhs, m.symbols), _rename(rhs, m.symbols)
    used = ex.symbols(lhs) | ex.symbols(rhs)
    unknown = sorted(used - names - set(sc.constants))
    if unknown:
        raise fail(f"names {unknown} are neither variables, symbols nor constants")
    target = m.symbols.get(m.solve_for, m.solve_for) if m.solve_for else None
    if target is None:
        if lhs[0] != "sym":
            raise fail("write 'output = expression' or set solve_for")
        target = lhs[1]
    if target != v.name:
        raise fail(f"the equation is solved for {target!r}, but it defines variable {v.name!r}")
    if target not in used:
        raise fail(f"the solve-for variable {target!r} does not appear in the equation")
    consts = {k: float(c.value) for k, c in sc.constants.items() if k in used}
    if lhs == ("sym", target) and target not in ex.symbols(rhs):
        explicit = rhs
    else:
        explicit = _solve(sc, lhs, rhs, target, m.branch, fail)
    inputs = [s for s in sorted(ex.symbols(explicit)) if s in names]
    return Formula((lhs, rhs), target, explicit, inputs, consts)


def _failer(sc, v, field, value):
    def fail(reason: str) -> CompileError:
        return CompileError(sc.id, v.name, field, value, reason)

    return fail


def sympy_symbols(sc: sch.Scenario, names: set[str]) -> dict[str, Any]:
    """sympy Symbols for ``names``: positive when the declared range (or constant) is positive."""
    from causalarena._extras import require

    sp = require("sympy", "build", "compiling semantic/formula scenarios")

    out = {}
    for n in sorted(names):
        var = sc.variable(n)
        if var is not None:
            positive = var.range[0] > 0
        else:
            positive = sc.constants[n].value > 0
        out[n] = sp.Symbol(n, positive=True) if positive else sp.Symbol(n, real=True)
    return out


def _solve(sc, lhs, rhs, target, branch, fail):
    names = ex.symbols(lhs) | ex.symbols(rhs)
    positive = tuple(
        (n, (sc.variable(n).range[0] if sc.variable(n) is not None else sc.constants[n].value) > 0)
        for n in sorted(names)
    )
    ok, result = _solve_cached(lhs, rhs, target, branch, positive)
    if not ok:
        raise fail(result)
    return result


@functools.lru_cache(maxsize=4096)
def _solve_cached(lhs, rhs, target, branch, positive):
    """sympy solution of ``lhs = rhs`` for ``target``: ``(True, tree)`` or ``(False, reason)``.

    A pure function of the parsed relation and each symbol's positivity (the assumptions of
    :func:`sympy_symbols`), memoised: the gate and the compiler resolve each formula node
    many times.
    """
    from causalarena._extras import require

    sp = require("sympy", "build", "compiling semantic/formula scenarios")

    syms = {
        n: sp.Symbol(n, positive=True) if pos else sp.Symbol(n, real=True) for n, pos in positive
    }
    eq = sp.Eq(ex.to_sympy(lhs, syms), ex.to_sympy(rhs, syms))
    try:
        sols = sp.solve(eq, syms[target], dict=False)
    except (NotImplementedError, ValueError, TypeError) as exc:
        return False, f"sympy cannot solve the relation for {target!r}: {exc}"
    if not sols:
        return False, f"the relation has no solution for {target!r}"
    if branch >= len(sols):
        return False, f"branch {branch} requested but sympy found {len(sols)} solution(s): {sols}"
    if len(sols) > 1 and branch == 0 and len({str(s) for s in sols}) > 1:
        return False, f"{len(sols)} solutions {sols}; pick one with 'branch' (0-based)"
    try:
        return True, ex.from_sympy(sp.sympify(sols[branch]))
    except ex.ExpressionError as exc:
        return False, str(exc)


# ------------------------------------------------------------------------------ compile


def _dense(terms: dict[str, float], parents: list[str]) -> list[float]:
    return [float(terms.get(p, 0.0)) for p in parents]


def _lp(x: Any, parents: list[str]) -> dict[str, Any]:
    lin = sch._lin(x)
    return {"c": float(lin.intercept), "w": _dense(lin.terms, parents)}


def _codes(label_map: dict[str, Any], levels: list[str] | None, field: str, fail) -> list[Any]:
    """Order a ``{level or code: value}`` mapping by code 0..m-1."""
    out: dict[int, Any] = {}
    for key, val in label_map.items():
        if levels and key in levels:
            code = levels.index(key)
        else:
            try:
                code = int(key)
            except (TypeError, ValueError):
                raise fail(f"{field} key {key!r} is neither a level label nor a code") from None
        out[code] = val
    if sorted(out) != list(range(len(out))):
        raise fail(f"{field} must cover codes 0..{len(out) - 1}, got {sorted(out)}")
    return [out[i] for i in range(len(out))]


def compile_mechanism(sc: sch.Scenario, v: sch.Variable) -> tuple[str, dict[str, Any]]:
    """``(spec family, compiled params)`` of a structural variable.

    Raises
    ------
    CompileError
        A reference outside the parents (hidden parent), bad level labels, formula problems.
    """
    m = v.mechanism
    parents = list(v.parents)
    pos = {p: i for i, p in enumerate(parents)}
    fail = _failer(sc, v, "mechanism", m.op)
    hidden = sorted(references(sc, v) - set(parents))
    if hidden:
        raise CompileError(
            sc.id, v.name, "mechanism", hidden, "reads variables that are not its parents"
        )

    def lin(intercept, terms):
        return {"c": float(intercept), "w": _dense(terms, parents)}

    op = m.op
    if op == "linear":
        return "sc.linear", lin(m.intercept, m.terms)
    if op == "additive_index":
        return "sc.additive_index", {
            "scale": m.scale,
            "w": [m.terms[p].weight if p in m.terms else 0.0 for p in parents],
            "lo": [m.terms[p].lo if p in m.terms else 0.0 for p in parents],
            "hi": [m.terms[p].hi if p in m.terms else 1.0 for p in parents],
        }
    if op == "sigmoid":
        return "sc.sigmoid", {**lin(m.intercept, m.terms), "lower": m.lower, "upper": m.upper}
    if op == "saturating":
        return "sc.saturating", {
            **lin(m.intercept, m.terms),
            "vmax": m.vmax,
            "half": m.half,
            "shape": m.shape,
            "offset": m.offset,
        }
    if op == "threshold":
        return "sc.threshold", {
            **lin(m.intercept, m.terms),
            "cutoff": m.cutoff,
            "below": _lp(m.below, parents),
            "above": _lp(m.above, parents),
        }
    if op == "piecewise":
        return "sc.piecewise", {
            **lin(m.intercept, m.terms),
            "x": pos[m.input],
            "knots_x": [float(a) for a, _ in m.knots],
            "knots_y": [float(b) for _, b in m.knots],
        }
    if op == "ordinal":
        return "sc.ordinal", {
            **lin(m.intercept, m.terms),
            "cutpoints": [float(c) for c in m.cutpoints],
            "n_bins": len(m.cutpoints) + 1,
        }
    if op == "categorical":
        scores = _codes(m.scores, v.levels, "scores", fail)
        return "sc.categorical", {
            "scores": [_lp(s, parents) for s in scores],
            "n_bins": len(scores),
        }
    if op == "regime_switch":
        by = sc.variable(m.by)
        regimes = _codes(m.regimes, by.levels if by else None, "regimes", fail)
        return "sc.regime_switch", {
            "by": pos[m.by],
            "cutoff": m.cutoff,
            "regimes": [_lp(r, parents) for r in regimes],
        }
    if op == "stock_flow":
        return "sc.stock_flow", {
            "initial": _lp(m.initial, parents),
            "inflow": _lp(m.inflow, parents),
            "outflow": _lp(m.outflow, parents),
            "duration": _lp(m.duration, parents),
            "decay": m.decay,
            "floor": m.floor,
        }
    if op == "event_rate":
        return "sc.event_rate", {
            **lin(m.intercept, m.terms),
            "exposure": [pos[e] for e in m.exposure],
        }
    if op == "product":
        return "sc.product", {
            "coef": m.coef,
            "offset": m.offset,
            "factors": [pos[f] for f in m.factors],
        }
    if op == "power_law":
        return "sc.power_law", {"coef": m.coef, "exponents": _dense(m.exponents, parents)}
    if op == "ratio":
        return "sc.ratio", {
            "num": _lp(m.numerator, parents),
            "den": _lp(m.denominator, parents),
            "scale": m.scale,
        }
    if op == "exp_log":
        return "sc.exp_log", {
            "fn": m.fn,
            **lin(m.intercept, m.terms),
            "scale": m.scale,
            "offset": m.offset,
        }
    if op == "periodic":
        return "sc.periodic", {
            "x": pos[m.input],
            "period": m.period,
            "amplitude": m.amplitude,
            "phase": m.phase,
            "offset": m.offset,
            **lin(0.0, m.terms),
        }
    if op == "clamp":
        return "sc.clamp", {**lin(m.intercept, m.terms), "lower": m.lower, "upper": m.upper}
    if op == "minmax":
        return "sc.minmax", {"fn": m.fn, "branches": [_lp(b, parents) for b in m.branches]}
    if op == "measurement":
        return "sc.measurement", {
            "x": pos[m.of],
            "gain": m.gain,
            "offset": m.offset,
            "w": _dense(m.terms, parents),
        }
    if op == "calibration":
        return "sc.calibration", {
            "x": pos[m.reading],
            "gain": m.gain,
            "offset": m.offset,
            "w": _dense(m.terms, parents),
        }
    f = formula_of(sc, v)
    # every parent is an input, in parent order (an unused parent is an omitted parent: the
    # gate's perturbation test reports it)
    return "sc.formula", {
        "expr": ex.render(f.explicit),
        "inputs": parents,
        "constants": f.constants,
    }


def tag_of(v: sch.Variable) -> str:
    """Vocabulary family of a variable (``root`` for roots)."""
    from causalarena.generator.scenario.operations import OP_TAGS

    if v.mechanism is None:
        return "root"
    if isinstance(v.mechanism, sch.OpFormula):
        return v.mechanism.tag
    return OP_TAGS[f"sc.{v.mechanism.op}"]


def compile_scenario(sc: sch.Scenario) -> SCMSpec:
    """The executable spec of a scenario (see module docstring).

    Raises
    ------
    CompileError
        Hidden parents, unknown references, unsolvable formulas.
    causalarena.errors.SpecError
        The compiled spec is invalid (cycle, unknown parent, bad parameter); names the variable.
    """
    variables = []
    for v in sc.variables:
        lo, hi = (float(x) for x in v.range)
        meta: dict[str, Any] = {
            "meaning": v.meaning,
            "unit": v.unit,
            "scale": v.scale,
            "range": [lo, hi],
            "story": v.story,
            "observation": v.observation,
            "intervenable": v.intervenable,
            "tag": tag_of(v),
            "edge_rationales": dict(v.parents),
        }
        if v.levels:
            meta["levels"] = list(v.levels)
        entry: dict[str, Any] = {
            "name": v.name,
            "kind": v.scale,
            "parents": list(v.parents),
            "noise": {"family": _SPEC_NOISE[v.noise.family], "params": v.noise.params},
            "metadata": meta,
        }
        if v.distribution is not None:
            fam = v.distribution.family
            params = dict(v.distribution.params)
            if fam in ("normal", "lognormal", "gamma", "uniform", "beta", "integer_uniform"):
                params.update(low=lo, high=hi)
            if fam == "triangular":
                params.update(low=lo, high=hi)
            entry.update(role="root", root={"family": _SPEC_ROOT[fam], "params": params})
        else:
            fam, params = compile_mechanism(sc, v)
            if v.mechanism.describe:
                meta["describe"] = v.mechanism.describe
            if isinstance(v.mechanism, sch.OpFormula):
                f = formula_of(sc, v)
                meta.update(
                    law=v.mechanism.law,
                    equation=v.mechanism.equation,
                    relation=f"{ex.render(f.relation[0])} = {ex.render(f.relation[1])}",
                    solve_for=f.target,
                    explicit=f"{f.target} = {ex.render(f.explicit)}",
                )
                if v.mechanism.reverse_orientation:
                    meta["reverse_orientation"] = v.mechanism.reverse_orientation
            entry.update(role="structural", mechanism={"family": fam, "params": params})
        variables.append(entry)
    targets = [iv.target for iv in sc.interventions]
    spec_meta = {
        "family": sc.family,
        "domain": sc.domain,
        "scenario": sc.id,
        "title": sc.title,
        "summary": sc.summary,
        "author": sc.author,
        "references": list(sc.references),
        "constants": {
            k: {"value": c.value, "unit": c.unit, "meaning": c.meaning}
            for k, c in sc.constants.items()
        },
        "interventions": {iv.target: iv.meaning for iv in sc.interventions},
    }
    if sc.review is not None:
        spec_meta["review"] = sc.review.model_dump()
    return SCMSpec.from_dict(
        {
            "scm_id": sc.id,
            "family": sc.family,
            "variables": variables,
            "intervention": {
                "targets": targets,
                "value_rule": {
                    "kind": "per_target",
                    "resamplers": {iv.target: iv.resampler.as_spec() for iv in sc.interventions},
                },
            },
            "metadata": spec_meta,
        }
    )
