"""The six intervention protocols of the protocol-sensitivity suite (paper appendix A.2).

Every protocol keeps the SCM (graph, mechanisms, noise, roots, observation and signal
stressors) and replaces only its intervention definition:

========================  =========  =====================================================
protocol                  obs / int  interventional rows
========================  =========  =====================================================
``default``               800 / 200  one target per row from the SCM's pool (roots allowed),
                                     hard do-resampling from the 10th-90th percentile
``fixed-setpoint``        800 / 200  one target per row, set to its 20th, 50th or 80th
                                     baseline percentile, jitter uniform within 1% of the IQR
``parameter-shift``       800 / 200  one structural (non-root) target per row whose mechanism
                                     changes: parent effects scaled, bias shifted by 0.3-0.8
                                     IQR, or strength scaled by 0.6-0.85 or 1.15-1.6
``high-fraction``         200 / 800  as default
``multi-target``          800 / 200  2-4 targets per row, each hard-resampled
``dense-mixed``           200 / 800  2-4 structural targets per row; targeted cells split in
                                     equal shares among resampling, setpoint, parameter shift
========================  =========  =====================================================

Structural protocols keep the structural members of the SCM's target pool and top the pool
up to its original size with other structural nodes (seeded).  Parameter-shift scaling
factors are drawn from the same two ranges as the strength factor (the paper gives none for
parent-effect scaling).  The SCM's intervention stressors (``soft_intervention``,
``intervention_shift``) are dropped under every protocol, default included: the protocol
under test is the intervention design, so no stressor alters it; the row's ``difficulty``
names the stressors that remain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from causalarena.spec import SCMSpec

#: Stressors replaced by the protocol under test.
INTERVENTION_STRESSORS = ("soft_intervention", "intervention_shift")
#: Parameter-shift kinds, drawn uniformly per target.
SHIFT_KINDS = ("parent_scale", "strength_scale", "bias_shift")
#: Factor ranges of parent-effect and strength scaling (one of the two, equally likely).
FACTOR_RANGES = ((0.6, 0.85), (1.15, 1.6))
#: Bias/threshold shift in baseline IQR units (sign drawn uniformly).
SHIFT_IQR_RANGE = (0.3, 0.8)


@dataclass(frozen=True)
class Protocol:
    """One intervention protocol (a config ``protocols-<name>``)."""

    name: str
    label: str
    n_obs: int
    n_int: int
    modes: tuple[str, ...] = ("resample",)
    structural: bool = False
    targets_per_row: tuple[int, int] = (1, 1)
    description: str = ""


PROTOCOLS: tuple[Protocol, ...] = (
    Protocol(
        "default",
        "Default",
        800,
        200,
        description="800 obs + 200 int rows, one target per row, hard do-resampling from the "
        "10th-90th percentile",
    ),
    Protocol(
        "fixed-setpoint",
        "Fixed setpoint",
        800,
        200,
        modes=("setpoint",),
        description="800 + 200 rows, one target per row set to its 20th/50th/80th percentile "
        "(jitter within 1% of the IQR)",
    ),
    Protocol(
        "parameter-shift",
        "Parameter shift",
        800,
        200,
        modes=("parameter_shift",),
        structural=True,
        description="800 + 200 rows, one structural target per row whose mechanism is shifted",
    ),
    Protocol(
        "high-fraction",
        "High fraction",
        200,
        800,
        description="200 obs + 800 int rows, one target per row, hard do-resampling",
    ),
    Protocol(
        "multi-target",
        "Multi-target",
        800,
        200,
        targets_per_row=(2, 4),
        description="800 + 200 rows, 2-4 hard-resampled targets per row",
    ),
    Protocol(
        "dense-mixed",
        "Dense mixed",
        200,
        800,
        modes=("resample", "setpoint", "parameter_shift"),
        structural=True,
        targets_per_row=(2, 4),
        description="200 + 800 rows, 2-4 structural targets per row, balanced mix of "
        "resampling, fixed setpoints and parameter shifts",
    ),
)


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the protocols).
    """
    for p in PROTOCOLS:
        if p.name == name:
            return p
    raise ValueError(f"unknown protocol {name!r}; known: {[p.name for p in PROTOCOLS]}")


def _shift(rng: np.random.Generator) -> dict[str, Any]:
    kind = SHIFT_KINDS[int(rng.integers(0, len(SHIFT_KINDS)))]
    if kind == "bias_shift":
        sign = 1.0 if rng.random() < 0.5 else -1.0
        return {"kind": kind, "shift_iqr": round(sign * float(rng.uniform(*SHIFT_IQR_RANGE)), 6)}
    lo, hi = FACTOR_RANGES[int(rng.integers(0, 2))]
    return {"kind": kind, "factor": round(float(rng.uniform(lo, hi)), 6)}


def protocol_spec(base: SCMSpec, protocol: Protocol, rng: np.random.Generator) -> SCMSpec:
    """The SCM ``base`` under ``protocol`` (same variables; new intervention definition).

    Parameters
    ----------
    base : SCMSpec
        A calibrated synthetic SCM with an intervention target pool.
    protocol : Protocol
    rng : numpy.random.Generator
        Draws the structural pool top-up and the parameter shifts.

    Returns
    -------
    SCMSpec
        Validated spec; ``metadata["protocol"]`` names the protocol and
        ``metadata["dropped_stressors"]`` the intervention stressors removed.

    Raises
    ------
    SpecError
        If the variant is invalid (e.g. fewer structural nodes than targets per row).
    """
    data = base.model_dump()
    names = base.names
    roles = {v.name: v.role for v in base.variables}
    pool = list(base.intervention.targets)
    if protocol.structural:
        keep = [t for t in pool if roles[t] == "structural"]
        rest = [n for n in names if roles[n] == "structural" and n not in keep]
        extra = max(0, min(len(pool), len(keep) + len(rest)) - len(keep))
        if extra:
            keep += [rest[int(i)] for i in rng.choice(len(rest), size=extra, replace=False)]
        pool = sorted(keep, key=names.index)
    lo, hi = protocol.targets_per_row
    hi = min(hi, len(pool))
    lo = min(lo, hi)
    iv: dict[str, Any] = {"targets": pool, "targets_per_row": lo, "modes": list(protocol.modes)}
    if hi > lo:
        iv["targets_per_row_max"] = hi
    if "parameter_shift" in protocol.modes:
        iv["parameter_shifts"] = {t: _shift(rng) for t in pool}
    dropped = [s["kind"] for s in data["stressors"] if s["kind"] in INTERVENTION_STRESSORS]
    data["stressors"] = [s for s in data["stressors"] if s["kind"] not in INTERVENTION_STRESSORS]
    data["intervention"] = iv
    kept = [s["kind"] for s in data["stressors"]]
    data["metadata"] = {
        **data["metadata"],
        "protocol": protocol.name,
        "dropped_stressors": dropped,
        "difficulty": "+".join(kept) if kept else "clean",
    }
    return SCMSpec.from_dict(data)
