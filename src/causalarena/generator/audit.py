"""Deterministic quality gates for generated SCMs (CausalArena paper, appendix A.2).

:func:`audit_graph` applies the graph-level gates and :func:`audit_table` the dataset-level
gates to a sampled :class:`~causalarena.generator.sample.Table`.  Both return a list of
human-readable reasons (empty = pass); a rejected candidate is redrawn by the caller with the
next attempt number, and the reasons are stored in the instance metadata, so nothing is
dropped silently.

Thresholds (A.2): near-duplicate pair ``|corr| > 0.99``; a discrete variable fails when one
value holds more than 99% of rows; explicit clipping boundaries may hold at most 10% of rows;
a continuous variable is near-constant when its standard deviation is below
``1e-6 * (1 + |mean|)`` or one value holds more than 99% of rows.
"""

from __future__ import annotations

import numpy as np

from causalarena.generator.graphs import check_graph
from causalarena.generator.sample import DISCRETE_KINDS, Table
from causalarena.spec import SCMSpec

CORR_MAX = 0.99
DOMINANCE_MAX = 0.99
BOUNDARY_MASS_MAX = 0.10


def audit_graph(spec: SCMSpec) -> list[str]:
    """Graph gates (acyclic, no isolated node, depth, edge count, in-degree cap)."""
    meta = spec.metadata
    return [
        f"graph: {r}"
        for r in check_graph(
            spec.adjacency(), meta.get("graph_family", "erdos_renyi"), meta.get("in_degree_cap")
        )
    ]


def _top_share(col: np.ndarray) -> float:
    _, counts = np.unique(col, return_counts=True)
    return float(counts.max() / col.size)


def audit_table(spec: SCMSpec, table: Table) -> list[str]:
    """Dataset gates of appendix A.2 on one sampled table.

    Parameters
    ----------
    spec : SCMSpec
    table : Table
        Must come from :func:`~causalarena.generator.sample.sample` with
        ``counterfactual_check=True`` when it has interventional rows.

    Returns
    -------
    list of str
        One reason per failed gate, naming the variable(s) and the measured value.
    """
    reasons: list[str] = []
    X = table.X.astype(np.float64)
    names = table.names
    kinds = [v.kind for v in spec.variables]
    tag = "obs+int" if table.n_int else "obs"
    if not np.all(np.isfinite(X)):
        bad = sorted({names[j] for j in np.flatnonzero(~np.all(np.isfinite(X), axis=0))})
        return [f"{tag}: non-finite values in {bad}"]
    for j, name in enumerate(names):
        col = X[:, j]
        share = _top_share(col)
        if kinds[j] in DISCRETE_KINDS:
            if share > DOMINANCE_MAX:
                reasons.append(f"{tag}: discrete {name} has one value in {share:.1%} of rows")
        else:
            sd = col.std()
            if sd < 1e-6 * (1 + abs(col.mean())) or share > DOMINANCE_MAX:
                reasons.append(
                    f"{tag}: continuous {name} is near-constant (sd={sd:.3g}, top={share:.1%})"
                )
    for name, (lo, hi) in table.diagnostics.get("clip_bounds", {}).items():
        col = X[:, names.index(name)]
        mass = float(np.mean(np.isclose(col, lo) | np.isclose(col, hi)))
        if mass > BOUNDARY_MASS_MAX:
            reasons.append(f"{tag}: {name} has {mass:.1%} of rows at clipping bounds")
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.corrcoef(X, rowvar=False)
    C = np.nan_to_num(np.atleast_2d(C))
    iu = np.triu_indices(len(names), 1)
    over = np.abs(C[iu]) > CORR_MAX
    if over.any():
        pairs = [
            (names[a], names[b], round(float(C[a, b]), 4))
            for a, b in zip(iu[0][over], iu[1][over], strict=True)
        ][:5]
        reasons.append(f"{tag}: near-duplicate pairs |corr|>{CORR_MAX}: {pairs}")
    if table.n_int:
        reasons += _audit_interventions(spec, table)
    elif table.mask.any():
        reasons.append(f"{tag}: observational table has intervention mask entries")
    return reasons


def _audit_interventions(spec: SCMSpec, table: Table) -> list[str]:
    reasons = []
    pool = set(spec.intervention.targets)
    masked_cols = {table.names[j] for j in np.flatnonzero(table.mask.any(axis=0))}
    if not masked_cols <= pool:
        reasons.append(f"obs+int: mask marks non-targets {sorted(masked_cols - pool)}")
    if table.mask[: table.n_obs].any():
        reasons.append("obs+int: observational rows carry intervention mask entries")
    if not table.mask[table.n_obs :].any(axis=1).all():
        reasons.append("obs+int: an interventional row has no target in its mask")
    for name, st in table.diagnostics.get("targets", {}).items():
        if st["rows"] == 0:
            reasons.append(f"obs+int: target {name} received no interventional row")
        elif st["changed"] == 0:
            reasons.append(f"obs+int: target {name} values never changed under intervention")
    cf = table.diagnostics.get("counterfactual")
    if cf is None:
        reasons.append("obs+int: counterfactual check was not run")
    else:
        if cf["observational_rows_changed"] or cf["rows_with_nondescendant_change"]:
            reasons.append(f"obs+int: intervention leaked outside descendants: {cf}")
        if cf["rows_with_descendants"] and cf["rows_with_descendants_changed"] == 0:
            reasons.append("obs+int: descendants were not regenerated under intervention")
    return reasons
