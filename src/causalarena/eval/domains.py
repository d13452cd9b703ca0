"""Self-centred domain shifts of the semantic and formula families (paper section 6.3, Fig. 17).

The paper reports, per method and domain, "a method's F1 on a domain minus its own family
average", on the observation-only split, with each method's standard deviation of those
shifts across domains beside the heatmap (a larger one: more domain-sensitive after removing
the method's own level).  Here, exactly:

- unit scores are the replicate-averaged instance scores of
  :func:`causalarena.eval.analyses.instance_scores` (the ``f1`` column, failed runs scored
  as the empty graph, as in Table 2);
- ``family_mean(m, F)`` is the mean of method ``m``'s unit scores over every unit of family
  ``F`` that has a ``domain`` (the method's Table 2 cell of ``F`` obs);
- ``domain_mean(m, F, g)`` is the mean over the units of domain ``g`` of ``F``;
- ``shift = domain_mean - family_mean``;
- ``std(m, F)`` is the population standard deviation (``ddof = 0``) of ``m``'s shifts over
  the domains of ``F`` (every domain of the family is present, none is a sample).

With equal-sized domains (the paper's 10 scenarios per domain) the family mean equals the
mean of the domain means, so the shifts of a method sum to zero over domains.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["domain_shift_matrix", "domain_shifts"]

COLUMNS = ["family", "method", "domain", "n", "domain_mean", "family_mean", "shift"]


def domain_shifts(scores: pd.DataFrame, metric: str = "f1", setting: str = "obs") -> pd.DataFrame:
    """Self-centred domain shifts per family, method and domain (see module docstring).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or :func:`~causalarena.eval.analyses.instance_scores` output; needs
        ``method``, ``family``, ``domain``, ``setting`` and ``metric`` columns.
    metric : str, default "f1"
    setting : str, default "obs"
        Split compared (the paper: observation-only).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`, sorted by family, method, domain; empty when no unit has a
        domain.

    Raises
    ------
    ValueError
        The table lacks the metric column.
    """
    from causalarena.eval import analyses as an

    inst = scores if "n_runs" in scores.columns else an.instance_scores(scores)
    if metric not in inst.columns:
        raise ValueError(f"scores table has no {metric!r} column")
    need = {"family", "domain", "setting"}
    if not need <= set(inst.columns):
        return pd.DataFrame(columns=COLUMNS)
    sub = inst[(inst["setting"] == setting) & inst["domain"].notna()]
    sub = sub.assign(_v=pd.to_numeric(sub[metric], errors="coerce")).dropna(subset=["_v"])
    if sub.empty:
        return pd.DataFrame(columns=COLUMNS)
    fam = sub.groupby(["family", "method"])["_v"].mean().rename("family_mean")
    dom = sub.groupby(["family", "method", "domain"])["_v"].agg(["size", "mean"])
    out = dom.rename(columns={"size": "n", "mean": "domain_mean"}).join(fam).reset_index()
    out["shift"] = out["domain_mean"] - out["family_mean"]
    return out[COLUMNS].sort_values(["family", "method", "domain"]).reset_index(drop=True)


def domain_shift_matrix(shifts: pd.DataFrame, family: str) -> tuple[pd.DataFrame, pd.Series]:
    """Method x domain matrix of one family's shifts and each method's std across domains.

    Returns
    -------
    (pandas.DataFrame, pandas.Series)
        Shifts (index ``method`` sorted by std, most domain-sensitive first; columns the
        family's domains, sorted) and the population std per method (same order).
    """
    sub = shifts[shifts["family"] == family]
    mat = sub.pivot(index="method", columns="domain", values="shift")
    std = mat.apply(lambda r: float(np.std(r.dropna().to_numpy(), ddof=0)), axis=1)
    order = std.sort_values(ascending=False, kind="stable").index
    mat, std = mat.loc[order], std.loc[order].rename("std")
    mat.columns.name = None
    return mat, std
