"""Dimensional checks of formula nodes with :mod:`pint` (paper section 4.3, A.3 stage 3).

A formula node's equation is evaluated twice at the same representative input values (the
midpoints of the declared ranges): once with plain floats in the declared units (what the
sampler computes) and once with pint quantities carrying the declared units of its inputs and
constants.  The pint result must (1) have the dimensionality of the node's declared unit and
(2) equal the float result once converted to that unit; (2) catches equations that are
dimensionally right but mix prefixes (hPa with Pa, km with m) and so would need a conversion
factor the equation does not contain.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from causalarena.generator.scenario import expressions as ex


@lru_cache(maxsize=1)
def registry():
    """The shared pint registry, with count-like units (``count``, ``person``, ``cell``...)."""
    from causalarena._extras import require

    pint = require("pint", "build", "checking the units of semantic/formula scenarios")

    ureg = pint.UnitRegistry(autoconvert_offset_to_baseunit=False)
    for name in ("person", "cell", "photon", "event", "item", "vehicle", "organism"):
        if name not in ureg:
            ureg.define(f"{name} = [] ")
    if "count" not in ureg:
        ureg.define("count = []")
    if "USD" not in ureg:
        ureg.define("USD = [currency]")
    return ureg


def parse_unit(text: str):
    """A pint Unit for ``text`` (``"1"`` or ``"dimensionless"`` for pure numbers).

    Raises
    ------
    ValueError
        Text pint cannot parse, with pint's reason.
    """
    ureg = registry()
    if text.strip() in ("1", "dimensionless", "-"):
        return ureg.dimensionless
    try:
        q = ureg.parse_expression(text)
    except Exception as exc:  # pint raises several unrelated exception types
        raise ValueError(f"pint cannot parse unit {text!r}: {exc}") from None
    if not hasattr(q, "units"):
        return ureg.dimensionless
    if q.magnitude != 1:
        raise ValueError(f"unit {text!r} carries a factor {q.magnitude}; write a plain unit")
    return q.units


def check_formula(
    explicit: tuple,
    out_unit: str,
    values: dict[str, float],
    units: dict[str, str],
) -> str | None:
    """Return a problem description, or ``None`` when the equation is dimensionally sound.

    Parameters
    ----------
    explicit : Tree
        The explicit form ``output = explicit`` (symbols are variable/constant names).
    out_unit : str
        Declared unit of the output variable.
    values, units : dict
        Representative value (float, in its declared unit) and unit text of every symbol.
    """
    ureg = registry()
    try:
        target = parse_unit(out_unit)
        env_q = {k: ureg.Quantity(values[k], parse_unit(units[k])) for k in ex.symbols(explicit)}
    except ValueError as exc:
        return str(exc)
    try:
        plain = float(ex.evaluate(explicit, {k: float(values[k]) for k in env_q}))
    except (ArithmeticError, ValueError) as exc:
        return f"equation cannot be evaluated at the range midpoints: {exc}"
    try:
        q = ex.evaluate(explicit, env_q)
    except Exception as exc:  # DimensionalityError, OffsetUnitCalculusError, ...
        name = type(exc).__name__
        if "Offset" in name:
            return "offset units (degC, degF) cannot be multiplied; write temperatures in K"
        return f"units do not combine: {exc}"
    if not hasattr(q, "units"):
        q = ureg.Quantity(q, ureg.dimensionless)
    if q.dimensionality != (1 * target).dimensionality:
        return (
            f"the equation gives {q.units:~P} ({q.dimensionality}) but the variable is "
            f"declared in {out_unit} ({(1 * target).dimensionality})"
        )
    got = float(q.to(target).magnitude)
    if not math.isfinite(plain) or not math.isfinite(got):
        return "equation is not finite at the range midpoints"
    if not math.isclose(got, plain, rel_tol=1e-6, abs_tol=1e-12):
        return (
            f"the equation is dimensionally consistent but needs a factor {got / plain:.6g} to "
            f"give {out_unit} (mixed unit prefixes such as hPa/Pa or km/m)"
        )
    return None


def representative(rng_range: Any) -> float:
    """Midpoint of a declared range (the value used by :func:`check_formula`)."""
    lo, hi = float(rng_range[0]), float(rng_range[1])
    return 0.5 * (lo + hi)
