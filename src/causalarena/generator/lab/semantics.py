"""Shift-style intervention semantics of a lab crystal (CausaLab section 3.2, appendix A.2).

A crystal is the state of one unit of the hidden SCM, held as its exogenous terms ``u``
(one float per variable, in ``spec.variables`` order): a root reads ``u``, a structural
variable reads ``b + sum_p f_p(p) + u`` with the additive mechanism of the spec (``linear``:
``f_p(p) = w_p p``; ``polynomial``: ``f_p(p) = sum_d c_{p,d} p^d``).  Every reading is rounded
to 0.01 as it is computed, in topological order (the public CausaLab records carry two
decimals).

Setting ``X`` to ``v`` (:func:`shift`) rewrites ``u_X`` so that ``X`` reads ``v`` now; ``X``
keeps following its parents afterwards, ``X = v + sum_p (f_p(p) - f_p(p_at_intervention))``,
and descendants recompute.  A hidden disturbance (:func:`readings` with ``offsets``) adds its
draw to the exogenous terms of the affected variables for one reading only, so it propagates
downstream but never accumulates in the crystal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from causalarena.spec import SCMSpec

#: Decimals of every reading (the public release's records have two).
DECIMALS = 2


@dataclass(frozen=True)
class LabModel:
    """The additive structural equations of a lab spec, compiled once.

    Attributes
    ----------
    names : tuple of str
        Variable names in spec order.
    order : tuple of int
        Topological order (parents first).
    parents : tuple of tuple of int
        Parent indices per variable.
    bias : tuple of float
        Intercept ``b`` per variable (0 for roots).
    coefs : tuple of tuple of tuple of float
        ``coefs[j][k]`` = coefficients of ``p, p^2, ...`` for parent ``k`` of variable ``j``.
    """

    names: tuple[str, ...]
    order: tuple[int, ...]
    parents: tuple[tuple[int, ...], ...]
    bias: tuple[float, ...]
    coefs: tuple[tuple[tuple[float, ...], ...], ...]

    def index(self, name: str) -> int:
        return self.names.index(name)


def compile_model(spec: SCMSpec) -> LabModel:
    """Compile the additive mechanisms of ``spec`` (``linear`` or ``polynomial``).

    Raises
    ------
    SpecError
        If a structural variable has another mechanism family (via spec validation of the
        ``shift`` protocol) or the spec has no shift intervention.
    """
    from causalarena.errors import SpecError

    if spec.intervention is None or spec.intervention.protocol != "shift":
        raise SpecError(None, "intervention.protocol", None, "a lab spec needs shift interventions")
    idx = spec.index()
    parents, bias, coefs = [], [], []
    for v in spec.variables:
        parents.append(tuple(idx[p] for p in v.parents))
        if v.mechanism is None:
            bias.append(0.0)
            coefs.append(())
            continue
        p = v.mechanism.params
        bias.append(float(p["bias"]))
        if v.mechanism.family == "linear":
            coefs.append(tuple((float(w),) for w in p["weights"]))
        else:
            coefs.append(tuple(tuple(float(c) for c in cs) for cs in p["coefs"]))
    return LabModel(
        names=tuple(spec.names),
        order=tuple(spec.topological_order()),
        parents=tuple(parents),
        bias=tuple(bias),
        coefs=tuple(coefs),
    )


def _term(cs: Sequence[float], x: float) -> float:
    return sum(c * x ** (d + 1) for d, c in enumerate(cs))


def _mechanism(m: LabModel, j: int, vals: Sequence[float]) -> float:
    """``b_j + sum_p f_p(p)`` at the current readings ``vals`` (0 for a root)."""
    if not m.parents[j]:
        return 0.0
    return m.bias[j] + sum(
        _term(cs, vals[p]) for p, cs in zip(m.parents[j], m.coefs[j], strict=True)
    )


def readings(
    m: LabModel, exo: Sequence[float], offsets: Mapping[int, float] | None = None
) -> np.ndarray:
    """The crystal's readings, ndarray of shape (d,), float64, rounded to 0.01.

    ``offsets`` maps variable index -> a hidden-disturbance draw added (weight 1) to that
    variable's exogenous term for this reading only.
    """
    offsets = offsets or {}
    vals = np.zeros(len(m.names))
    for j in m.order:
        vals[j] = round(_mechanism(m, j, vals) + exo[j] + offsets.get(j, 0.0), DECIMALS)
    return vals


def shift(m: LabModel, exo: Sequence[float], j: int, value: float) -> np.ndarray:
    """Exogenous terms after setting variable ``j`` to ``value`` (shift semantics).

    Returns a new ndarray of shape (d,); ``readings(m, result)[j] == round(value, 2)`` and
    every descendant of ``j`` recomputes from the new value.
    """
    vals = readings(m, exo)
    new = np.array(exo, dtype=np.float64)
    new[j] = float(value) - _mechanism(m, j, vals)
    return new


def exogenous_from(m: LabModel, vals: Sequence[float]) -> np.ndarray:
    """The exogenous terms that reproduce the readings ``vals`` (inverse of :func:`readings`)."""
    return np.array([vals[j] - _mechanism(m, j, vals) for j in range(len(m.names))])


def target_value(m: LabModel, target: int, vals: Sequence[float]) -> float:
    """The target's structural value given the other readings (no disturbance), rounded."""
    return round(_mechanism(m, target, vals), DECIMALS)
