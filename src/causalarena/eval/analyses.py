"""Aggregate analyses of a scores table: leaderboard, slices, win rates, interactions, OOD, runtime.

Every function here is a pure function of a :class:`pandas.DataFrame` and returns a new frame
(or a small record); nothing is written to disk (see :mod:`causalarena.eval.report` for that).

Input
-----
The functions accept the *scores table* produced by the runner (one row per method x instance
x replicate, with a ``status`` column) or its *instance-level* form returned by
:func:`instance_scores` (one row per method x config x SCM).  A raw table is first reduced with
:func:`instance_scores`, so every analysis works on replicate-averaged scores (paper,
appendix B.1: "average replicate scores to a scenario/configuration-level value, and then
aggregate").

Units and status rules
----------------------
* An *instance* (the unit of every comparison) is a ``(config, scm_id)`` pair: the same SCM
  evaluated under another split (``obs`` vs ``obsint``) is a different unit.
* Accuracy metrics are averaged over the ``ok`` replicates only.  Failed, timed-out, invalid
  and unsupported runs never contribute a metric value; they are counted per status
  (``n_ok``, ``n_failed``, ...) and summarised by ``coverage = n_ok / n_runs``, so they are
  reported next to the scores and never silently dropped (paper 4.5 and B.1).
* A method x instance cell without any ``ok`` replicate has NaN metrics and is left out of
  every mean; means are therefore taken over the instances a method actually solved.
* A metric that is undefined on an ``ok`` run (e.g. AUROC/AP for a method that returns no edge
  scores, paper B.2) is NaN and skipped, so the mean is over the runs where it is defined and
  is NaN when it is defined nowhere.

Factors
-------
A *factor* is any column describing the instance (``family``, ``graph_family``, ``d``,
``mechanism_tags``, ...).  Scalar factors put each instance in one category.  *List factors*
(columns whose cells are lists, such as ``mechanism_tags``) put an instance in every category
it contains, so one instance can count in several categories (paper 6.2: "a scenario
contributes to every factor category present in its SCM").  :func:`instance_scores` also adds
the derived list factor ``difficulty_stressors`` (``difficulty`` split on ``"+"``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from causalarena.schema import OPTIONAL_FACTORS, SLICE_FACTORS

__all__ = [
    "CONTROL_METHODS",
    "control_flags",
    "CONFIDENCE",
    "HIGHER_IS_BETTER",
    "LOWER_IS_BETTER",
    "METRICS",
    "STATUSES",
    "CriticalDifference",
    "RuntimeFit",
    "SPLIT_LABELS",
    "benchmark_table",
    "batch_ratio_ci",
    "bootstrap_ci",
    "critical_difference",
    "dataset_name",
    "dataset_scores",
    "edge_f1_table",
    "edge_tag_counts",
    "format_edge_table",
    "format_benchmark_table",
    "instance_scores",
    "interaction_scores",
    "leaderboard",
    "mean_ci_table",
    "ood_scores",
    "pairwise_win_matrix",
    "pareto_front",
    "pooled",
    "pooled_win_matrix",
    "pooled_win_rates",
    "runtime_fit",
    "runtime_k_fits",
    "runtime_table",
    "slice_means",
    "slice_table",
    "win_rates",
]

#: Accuracy metrics of the scores table (paper B.2).
METRICS = ("precision", "recall", "f1", "shd", "nshd", "sid", "auroc", "ap", "shd_pattern")
#: Metrics where a larger value is better.
HIGHER_IS_BETTER = frozenset({"precision", "recall", "f1", "auroc", "ap"})
#: Metrics where a smaller value is better.
LOWER_IS_BETTER = frozenset({"shd", "nshd", "sid", "shd_pattern"})
#: Allowed values of the ``status`` column.
#: ``missing`` is added by the scorer for an instance a submission lacks
#: (:mod:`causalarena.eval.score`).
STATUSES = ("ok", "failed", "timeout", "invalid", "unsupported", "missing")

#: Cell key of the instance-level table.
KEYS = ("method", "config", "scm_id")
#: Columns describing the instance (constant over replicates); carried to the instance table.
INSTANCE_COLUMNS = (
    "setting",
    "family",
    *SLICE_FACTORS,
    *OPTIONAL_FACTORS,
    "n",
)
#: Columns describing the method or the release (constant per method / per table).
METHOD_COLUMNS = ("method_version", "library_version", "pretraining_disclosure")
PROVENANCE_COLUMNS = ("release_version", "manifest_sha256", "package_version")

#: Default number of bootstrap resamples and confidence level of every CI in this module.
N_RESAMPLES = 2000
CONFIDENCE = 0.95

_REQUIRED = ("method", "config", "scm_id", "status")
_TIE_RTOL = 1e-12


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------
def _is_instance_level(frame: pd.DataFrame) -> bool:
    return "n_runs" in frame.columns and "coverage" in frame.columns


def _as_instances(scores: pd.DataFrame) -> pd.DataFrame:
    """Return the instance-level table, reducing a raw scores table when needed."""
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas DataFrame, got {type(scores).__name__}")
    return scores if _is_instance_level(scores) else instance_scores(scores)


def _check_metric(metric: str, frame: pd.DataFrame) -> None:
    if metric not in HIGHER_IS_BETTER and metric not in LOWER_IS_BETTER and metric != "runtime_s":
        raise ValueError(
            f"unknown metric {metric!r}; expected one of {sorted(HIGHER_IS_BETTER | LOWER_IS_BETTER)}"
        )
    if metric not in frame.columns:
        raise ValueError(f"metric column {metric!r} is missing from the scores table")


def _check_factor(factor: str, frame: pd.DataFrame) -> None:
    if factor not in frame.columns:
        raise ValueError(
            f"factor column {factor!r} is missing from the scores table "
            f"(available: {sorted(map(str, frame.columns))})"
        )


_LISTLIKE = (list, tuple, set, frozenset, np.ndarray)  # a tuple: isinstance is faster than a union


def _is_listlike(value: Any) -> bool:
    return isinstance(value, _LISTLIKE)


def _cols(*names: str) -> list[str]:
    """``names`` without repeats, in order (a column list for a narrow copy of a frame)."""
    return list(dict.fromkeys(names))


def _explode(frame: pd.DataFrame, factor: str) -> pd.DataFrame:
    """One row per (instance, category); list cells are expanded, empty lists dropped."""
    col = frame[factor]
    vals = col.to_numpy(dtype=object)  # one pass in C, not a Series.map per cell
    listy = [isinstance(v, _LISTLIKE) for v in vals]
    if any(listy):
        cells = [list(v) if t else [v] for v, t in zip(vals, listy, strict=True)]
        out = frame.assign(**{factor: pd.Series(cells, index=frame.index, dtype=object)})
        out = out.explode(factor, ignore_index=True)
        return out[out[factor].notna()]
    return frame[col.notna()]


def _stressors(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    parts = [p.strip() for p in str(value).split("+") if p.strip()]
    return parts


def _sorted_categories(values: Sequence[Any]) -> list[Any]:
    if isinstance(values, pd.Series | pd.Index):  # distinct values first, in C (a set over
        values = values.unique().tolist()  # an Arrow-backed column iterates cell by cell)
    try:
        return sorted(set(values))
    except TypeError:
        return sorted(set(values), key=str)


# ----------------------------------------------------------------------------------------------
# replicate averaging
# ----------------------------------------------------------------------------------------------
def instance_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Average replicates into one row per method x config x SCM (paper, appendix B.1).

    Parameters
    ----------
    scores : pandas.DataFrame
        The runner's scores table, one row per method x instance x replicate.  Required
        columns: ``method``, ``config``, ``scm_id``, ``status``; metric columns
        (:data:`METRICS`), ``runtime_s`` and the instance/method/provenance columns are used
        when present.

    Returns
    -------
    pandas.DataFrame
        One row per ``(method, config, scm_id)``, sorted by those keys, with

        * the instance columns (``family``, ``d``, ``mechanism_tags``, ...) and the method
          columns (``method_version``, ``library_version``) taken from the first row of the
          cell, plus the derived list factor ``difficulty_stressors``;
        * each metric averaged over the cell's ``ok`` rows and, when the table has the
          scorer's ``scored_as`` column, its ``fallback`` rows (missing, failed, timed-out
          and invalid instances scored as the empty graph; :mod:`causalarena.eval.score`),
          where it is defined (NaN when no row is scored or the metric is undefined on all
          of them); ``<metric>_ok`` averages the ``ok`` rows only;
        * ``runtime_s``: mean runtime over the ``ok`` rows; ``runtime_all_s``: mean over every
          row with a recorded runtime (failed and timed-out runs also cost time);
        * ``n_runs`` and one count per status (``n_ok``, ``n_failed``, ``n_timeout``,
          ``n_invalid``, ``n_unsupported``) and ``coverage = n_ok / n_runs``.

        Rows whose ``scm_id`` is missing (e.g. a prediction for an unknown instance, scored
        ``invalid``) form their own cell, so their status is still counted.

    Raises
    ------
    ValueError
        If a required column is missing, the table is empty, or a ``status`` value is not one
        of :data:`STATUSES`.
    TypeError
        If ``scores`` is not a DataFrame.
    """
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a pandas DataFrame, got {type(scores).__name__}")
    missing = [c for c in _REQUIRED if c not in scores.columns]
    if missing:
        raise ValueError(
            f"scores table is missing required column(s) {', '.join(map(str, missing))}"
        )
    if scores.empty:
        raise ValueError("scores table is empty")
    bad = sorted(set(scores["status"].astype(str)) - set(STATUSES))
    if bad:
        raise ValueError(
            f"unknown status value(s) {', '.join(bad)}; expected one of {', '.join(STATUSES)}"
        )

    df = scores.reset_index(drop=True)
    ok = df["status"] == "ok"
    # Main ranking: ok rows and the scorer's fallback rows (the empty graph for missing,
    # failed, timed-out and invalid instances); <metric>_ok: ok rows only.
    ranked = ok | (df["scored_as"] == "fallback") if "scored_as" in df.columns else ok
    metrics = [m for m in METRICS if m in df.columns]
    masked = pd.DataFrame(
        {m: pd.to_numeric(df[m], errors="coerce").where(ranked) for m in metrics}
        | {f"{m}_ok": pd.to_numeric(df[m], errors="coerce").where(ok) for m in metrics},
        index=df.index,
    )
    if "runtime_s" in df.columns:
        rt = pd.to_numeric(df["runtime_s"], errors="coerce")
        masked["runtime_s"] = rt.where(ok)
        masked["runtime_all_s"] = rt
    for s in STATUSES:
        masked[f"n_{s}"] = (df["status"] == s).astype(int)
    masked["n_runs"] = 1
    for k in KEYS:
        masked[k] = df[k]
    carried = [c for c in (*INSTANCE_COLUMNS, *METHOD_COLUMNS, *PROVENANCE_COLUMNS) if c in df]
    # Prefer the instance description of an ok row, then of any row with a known instance.
    order = np.lexsort((df.index.to_numpy(), ~ok.to_numpy()))
    first = df.iloc[order].groupby(list(KEYS), dropna=False, sort=False)[carried].first()

    grouped = masked.groupby(list(KEYS), dropna=False, sort=True)
    avg_cols = [
        c
        for c in masked.columns
        if c in metrics or c.startswith("runtime") or c.removesuffix("_ok") in metrics
    ]
    means = grouped[avg_cols].mean()
    counts = grouped[[f"n_{s}" for s in STATUSES] + ["n_runs"]].sum()
    out = means.join(counts).join(first).reset_index()
    out["coverage"] = out["n_ok"] / out["n_runs"]
    if "difficulty" in out.columns:
        out["difficulty_stressors"] = out["difficulty"].map(_stressors)
    lead = [*KEYS, *[c for c in carried if c in out.columns]]
    if "difficulty_stressors" in out.columns:
        lead.append("difficulty_stressors")
    rest = [c for c in out.columns if c not in lead]
    return out[lead + rest]


# ----------------------------------------------------------------------------------------------
# slices (eqs. 5-6)
# ----------------------------------------------------------------------------------------------
def slice_means(scores: pd.DataFrame, factor: str, metric: str = "f1") -> pd.DataFrame:
    """Mean of one metric per method and factor category (paper eq. 6).

    ``Score_c(M)`` is the mean of the replicate-averaged instance scores of the instances in
    category ``c``.  List factors are exploded: an instance tagged ``[a, b]`` counts once in
    ``a`` and once in ``b``.  Instances without an ``ok`` result for the method are skipped.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    factor : str
        Column naming the categories (scalar or list-valued).
    metric : str, default "f1"
        Metric column to average.

    Returns
    -------
    pandas.DataFrame
        Index ``method``, one column per category (sorted); NaN where the method has no scored
        instance in the category.

    Raises
    ------
    ValueError
        Unknown metric, or the metric or factor column is missing.
    """
    inst = _as_instances(scores)
    _check_metric(metric, inst)
    _check_factor(factor, inst)
    long = _explode(inst[_cols("method", factor, metric)], factor)  # only what is used
    table = long.pivot_table(index="method", columns=factor, values=metric, aggfunc="mean")
    methods = _sorted_categories(inst["method"])
    cats = _sorted_categories(long[factor])
    table = table.reindex(index=methods, columns=cats)
    table.columns.name = factor
    return table


def slice_table(
    scores: pd.DataFrame, factor: str, metrics: Sequence[str] | None = None
) -> pd.DataFrame:
    """Long table of every metric per method x category, with instance counts (eq. 6).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    factor : str
        Column naming the categories (scalar or list-valued; lists are exploded).
    metrics : sequence of str, optional
        Metrics to average; default: every column of :data:`METRICS` present.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``factor`` (the factor name), ``category``, ``n_instances``
        (instances in the category), ``n_scored`` (of which with an ``ok`` result),
        ``coverage`` (mean instance coverage), the metric means and ``runtime_s``.

    Raises
    ------
    ValueError
        If the factor column is missing.
    """
    inst = _as_instances(scores)
    _check_factor(factor, inst)
    if metrics is None:
        metrics = [m for m in METRICS if m in inst.columns]
    cols = list(metrics) + (["runtime_s"] if "runtime_s" in inst.columns else [])
    keep = _cols("method", factor, "n_ok", "coverage", *cols)
    long = _explode(inst[keep], factor).assign(_scored=lambda f: f["n_ok"] > 0)
    g = long.groupby(["method", factor], sort=True)
    out = g[cols].mean()
    out.insert(0, "coverage", g["coverage"].mean())
    out.insert(0, "n_scored", g["_scored"].sum().astype(int))
    out.insert(0, "n_instances", g.size())
    out = out.reset_index().rename(columns={factor: "category"})
    out.insert(1, "factor", factor)
    return out


def pooled(scores: pd.DataFrame, metric: str = "f1") -> pd.Series:
    """Pooled score of each method over all its scored instances (paper eq. 5).

    ``Score(M; B)`` with ``Agg`` = mean over instances of the replicate-averaged scores; every
    instance (a ``(config, scm_id)`` pair) has weight one.  Filter the table first (e.g. to one
    ``config``) for a split-specific score.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metric : str, default "f1"
        Metric column.

    Returns
    -------
    pandas.Series
        Indexed by method (sorted), named after the metric; NaN for a method without any
        scored instance.

    Raises
    ------
    ValueError
        Unknown or missing metric.
    """
    inst = _as_instances(scores)
    _check_metric(metric, inst)
    out = inst.groupby("method", sort=True)[metric].mean()
    out.name = metric
    return out


# ----------------------------------------------------------------------------------------------
# win rates (Figure 1 / Figure 19)
# ----------------------------------------------------------------------------------------------
def _better_sign(metric: str) -> int:
    if metric in HIGHER_IS_BETTER:
        return 1
    if metric in LOWER_IS_BETTER:
        return -1
    raise ValueError(
        f"win rates need a metric with a direction; {metric!r} is not one of "
        f"{sorted(HIGHER_IS_BETTER | LOWER_IS_BETTER)}"
    )


def _pairwise(inst: pd.DataFrame, metric: str, methods: list[str]) -> pd.DataFrame:
    sign = _better_sign(metric)
    wide = inst.pivot_table(
        index=["config", "scm_id"], columns="method", values=metric, aggfunc="first"
    ).reindex(columns=methods)
    vals = wide.to_numpy(dtype=float)
    k = len(methods)
    mat = np.full((k, k), np.nan)
    valid = ~np.isnan(vals)
    # every (row method, opponent) pair at once over the units, in blocks of row methods
    step = max(1, 4_000_000 // max(1, vals.shape[0] * k))
    with np.errstate(invalid="ignore"):
        for s0 in range(0, k, step):
            a = vals[:, s0 : s0 + step, None]
            b = vals[:, None, :]
            both = valid[:, s0 : s0 + step, None] & valid[:, None, :]
            tie = np.isclose(a, b, rtol=_TIE_RTOL, atol=0.0) & both
            win = (sign * (a - b) > 0) & ~tie & both
            n = both.sum(axis=0)
            cell = (win.sum(axis=0) + 0.5 * tie.sum(axis=0)) / np.where(n > 0, n, 1)
            mat[s0 : s0 + step] = np.where(n > 0, cell, np.nan)
    np.fill_diagonal(mat, np.nan)
    out = pd.DataFrame(mat, index=methods, columns=methods)
    out.index.name = "method"
    out.columns.name = "opponent"
    return out


def pairwise_win_matrix(
    scores: pd.DataFrame, metric: str = "f1", family: str | None = None
) -> pd.DataFrame:
    """Pairwise win-rate matrix: how often the row method beats the column method (Fig. 19).

    For a pair ``(A, B)`` the comparison units are the instances (``(config, scm_id)``) where
    both methods have a defined replicate-averaged ``metric``; instances where either has no
    ``ok`` result are left out for that pair only.  On each unit A wins (1) if its score is
    better (higher for :data:`HIGHER_IS_BETTER`, lower for :data:`LOWER_IS_BETTER`), loses (0)
    if worse, and a tie (equal up to a relative tolerance of 1e-12) counts 0.5.  The cell is
    the mean over units, so ``M[A, B] + M[B, A] = 1``.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metric : str, default "f1"
        Metric compared (F1 and SHD are compared separately by calling this twice).
    family : str, optional
        Restrict to instances of this SCM ``family``; default: all instances.

    Returns
    -------
    pandas.DataFrame
        Square method x method frame; NaN on the diagonal and for pairs without a common
        scored instance.

    Raises
    ------
    ValueError
        Metric unknown, missing or without a direction; ``family`` given but no such column.
    """
    inst = _as_instances(scores)
    _check_metric(metric, inst)
    methods = _sorted_categories(inst["method"])
    if family is not None:
        _check_factor("family", inst)
        inst = inst[inst["family"] == family]
    return _pairwise(inst, metric, methods)


def win_rates(scores: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """Mean pairwise win rate of each method, per SCM family and pooled (paper Fig. 1).

    A method's win rate is the mean, over the opponents it shares at least one scored instance
    with, of its pairwise win rate (:func:`pairwise_win_matrix`).  It is computed within each
    SCM ``family`` and once more on all instances together (column ``pooled``); the column
    ``family_mean`` is the unweighted mean of the family columns (the ordering key of paper
    Fig. 1).  F1 and SHD are separate calls; this function does not merge metrics.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metric : str, default "f1"
        Metric compared; must have a direction (higher or lower is better).

    Returns
    -------
    pandas.DataFrame
        Index ``method``; one column per family (sorted), then ``family_mean`` and
        ``pooled``.  NaN where a method has no scored instance shared with any opponent.
        Without a ``family`` column only ``pooled`` is returned.

    Raises
    ------
    ValueError
        Metric unknown, missing, or without a direction.
    """
    inst = _as_instances(scores)
    _check_metric(metric, inst)
    _better_sign(metric)
    methods = _sorted_categories(inst["method"])
    cols: dict[str, pd.Series] = {}
    if "family" in inst.columns:
        for fam in _sorted_categories(inst["family"].dropna()):
            cols[str(fam)] = _pairwise(inst[inst["family"] == fam], metric, methods).mean(axis=1)
    out = pd.DataFrame(cols, index=pd.Index(methods, name="method"))
    if cols:
        out["family_mean"] = out[list(cols)].mean(axis=1)
    out["pooled"] = _pairwise(inst, metric, methods).mean(axis=1)
    return out


# ----------------------------------------------------------------------------------------------
# interaction scores (eq. 7)
# ----------------------------------------------------------------------------------------------
def interaction_scores(scores: pd.DataFrame, factor: str, metric: str = "f1") -> pd.DataFrame:
    """Double-centred method x category interaction matrix (paper 6.1, eq. 7).

    With ``F[m, c]`` the slice mean of :func:`slice_means` (replicate-averaged instance scores,
    list factors exploded), the interaction is::

        I[m, c] = F[m, c] - mean_c F[m, c] - mean_m F[m, c] + mean_{m, c} F[m, c]

    where the means are unweighted means over the cells of the matrix.  This removes each
    method's overall level and each category's overall difficulty, so every row and every
    column of ``I`` sums to zero; a positive cell means the method does better on that
    category than both margins predict.

    Double-centring needs a complete matrix: methods without any scored instance are dropped,
    then categories missing for any remaining method are dropped with a :class:`UserWarning`.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    factor : str
        Category column (scalar or list-valued).
    metric : str, default "f1"
        Metric column.

    Returns
    -------
    pandas.DataFrame
        Index ``method``, one column per kept category.

    Raises
    ------
    ValueError
        Unknown or missing metric or factor, or fewer than one complete row and column remain.
    """
    F = slice_means(scores, factor, metric)
    F = F.dropna(axis=0, how="all")
    incomplete = [c for c in F.columns if F[c].isna().any()]
    if incomplete:
        warnings.warn(
            f"interaction_scores({factor!r}): dropping categories {incomplete} that lack a "
            f"{metric} value for some method",
            UserWarning,
            stacklevel=2,
        )
        F = F.drop(columns=incomplete)
    if F.shape[0] == 0 or F.shape[1] == 0:
        raise ValueError(f"no complete method x {factor} matrix of {metric!r} to double-centre")
    row = F.mean(axis=1)
    col = F.mean(axis=0)
    grand = float(F.to_numpy().mean())
    out = F.sub(row, axis=0).sub(col, axis=1) + grand
    out.columns.name = factor
    return out


# ----------------------------------------------------------------------------------------------
# pretraining-exposure OOD score (eq. 8)
# ----------------------------------------------------------------------------------------------
def ood_scores(
    scores: pd.DataFrame,
    priors: Mapping[str, Mapping[str, Sequence[Any]]],
    reference_methods: Sequence[str],
    factor: str | Sequence[str],
    metric: str = "f1",
) -> pd.DataFrame:
    """Relative gain over a reference group on in-prior vs out-of-prior categories (eq. 8).

    For each method ``m`` with a documented pretraining prior and each factor axis ``a``:

    1. ``F[r, c]`` is the slice mean (:func:`slice_means`) of method ``r`` on category ``c``;
       list factors are exploded, so an instance counts in every category it contains.
    2. The reference value of a category is ``Ref[c] = mean_r F[r, c]`` over the reference
       methods with a value on ``c``.
    3. The categories present in the data where both ``F[m, c]`` and ``Ref[c]`` are defined are
       split into ID (listed in ``priors[m][a]``) and OOD (not listed).  Prior categories absent
       from the data are ignored; a missing axis key means an empty prior (all categories OOD).
    4. Scores are macro-averaged over the categories of each split:
       ``F_m^S = mean_{c in S} F[m, c]`` and ``F_ref^S = mean_{c in S} Ref[c]``.
    5. ``R_m^S = (F_m^S - F_ref^S) / F_ref^S`` (a relative gain, ``0.6`` = 60 % above the
       reference), and ``gap = R_m^ID - R_m^OOD`` (positive = the lead shrinks off-prior).

    A split with no category, or a reference mean of zero, gives NaN.  Methods without an
    entry in ``priors`` are skipped, as are prior methods absent from the data.  When several
    axes are given, one extra row per method with ``factor == "overall"`` holds the unweighted
    mean over axes of ``r_id``, ``r_ood`` and ``gap`` (NaNs skipped), as in paper 6.2.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    priors : mapping
        ``{method: {factor: [categories covered by its documented pretraining prior]}}``.
    reference_methods : sequence of str
        The reference group (the paper uses CDIS, GIES, IGSP and PC).
    factor : str or sequence of str
        One factor axis or several.
    metric : str, default "f1"
        Metric column (a higher-is-better metric is expected for the sign to read as a gain).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``factor``, ``n_id``, ``n_ood`` (category counts), ``score_id``,
        ``score_ood``, ``ref_id``, ``ref_ood``, ``r_id``, ``r_ood``, ``gap``.

    Raises
    ------
    ValueError
        ``reference_methods`` is empty or names a method absent from the data, or a factor or
        the metric is unknown/missing.
    """
    inst = _as_instances(scores)
    factors = [factor] if isinstance(factor, str) else list(factor)
    refs = list(reference_methods)
    if not refs:
        raise ValueError("reference_methods must name at least one method")
    present = set(inst["method"])
    absent = [r for r in refs if r not in present]
    if absent:
        raise ValueError(f"reference method(s) {absent} have no rows in the scores table")
    rows: list[dict[str, Any]] = []
    for a in factors:
        F = slice_means(inst, a, metric)
        ref = F.loc[refs].mean(axis=0, skipna=True)
        for m in sorted(priors):
            if m not in F.index:
                continue
            covered = set((priors[m] or {}).get(a, []) or [])
            usable = [c for c in F.columns if pd.notna(F.at[m, c]) and pd.notna(ref[c])]
            id_c = [c for c in usable if c in covered or str(c) in covered]
            ood_c = [c for c in usable if c not in id_c]
            rec: dict[str, Any] = {"method": m, "factor": a, "n_id": len(id_c), "n_ood": len(ood_c)}
            for tag, cats in (("id", id_c), ("ood", ood_c)):
                s = float(F.loc[m, cats].mean()) if cats else np.nan
                r = float(ref[cats].mean()) if cats else np.nan
                rec[f"score_{tag}"] = s
                rec[f"ref_{tag}"] = r
                rec[f"r_{tag}"] = (s - r) / r if cats and r != 0 else np.nan
            rec["gap"] = rec["r_id"] - rec["r_ood"]
            rows.append(rec)
    cols = ["method", "factor", "n_id", "n_ood", "score_id", "score_ood", "ref_id", "ref_ood"]
    cols += ["r_id", "r_ood", "gap"]
    out = pd.DataFrame(rows, columns=cols)
    if len(factors) > 1 and not out.empty:
        overall = out.groupby("method", sort=True)[["r_id", "r_ood", "gap"]].mean().reset_index()
        overall["factor"] = "overall"
        out = pd.concat([out, overall], ignore_index=True)[cols]
    return out


# ----------------------------------------------------------------------------------------------
# runtime (appendix B.3, Table 4)
# ----------------------------------------------------------------------------------------------
class RuntimeFit(NamedTuple):
    """Least-squares fit ``T(k) = t_fixed + k * t_graph`` (paper 5.5 / B.3)."""

    t_fixed: float
    """Intercept: one-time cost (seconds), e.g. loading a pretrained checkpoint."""
    t_graph: float
    """Slope: extra seconds per additional unit of ``k`` (one more graph)."""
    r2: float
    """Coefficient of determination of the fit."""
    n: int
    """Number of points used."""


def runtime_fit(k: Sequence[float], T: Sequence[float]) -> RuntimeFit:
    """Fit ``T(k) = T_fixed + k * T_graph`` by ordinary least squares (paper B.3, Table 4).

    Parameters
    ----------
    k : sequence of float
        Number of graphs scored after one load (or any size variable).
    T : sequence of float
        Total wall time of each run, same length as ``k``.

    Returns
    -------
    RuntimeFit
        ``t_fixed``, ``t_graph``, ``r2 = 1 - SS_res / SS_tot`` (1.0 when all ``T`` are equal
        and fitted exactly) and ``n``.

    Raises
    ------
    ValueError
        Lengths differ, values are not finite, or fewer than two distinct ``k`` values.
    """
    x = np.asarray(k, dtype=float).ravel()
    y = np.asarray(T, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"k and T must have the same length, got {x.size} and {y.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("k and T must be finite")
    if np.unique(x).size < 2:
        raise ValueError("runtime_fit needs at least two distinct k values")
    X = np.column_stack([np.ones_like(x), x])
    (t_fixed, t_graph), *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - (t_fixed + t_graph * x)
    ss_res = float(resid @ resid)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    scale = max(1.0, float((y**2).sum()))
    if ss_tot <= 1e-24 * scale:
        r2 = 1.0 if ss_res <= 1e-24 * scale else float("nan")
    else:
        r2 = 1.0 - ss_res / ss_tot
    return RuntimeFit(float(t_fixed), float(t_graph), float(r2), int(x.size))


def runtime_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Mean runtime per method and dimension ``d``, with a linear fit against ``d``.

    Runtimes are the instance-level ``runtime_s`` of :func:`instance_scores` (mean over ``ok``
    replicates), so failed and timed-out runs do not enter the cost (they are counted in the
    coverage columns instead).  The fit is :func:`runtime_fit` of instance runtime on ``d``
    (the end-to-end analogue of the paper's ``T(k)`` fit; it is NaN with fewer than two
    distinct ``d``).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`; needs ``runtime_s`` and
        ``d``.

    Returns
    -------
    pandas.DataFrame
        Index ``method``; columns ``d=<value>`` (mean seconds per instance at that ``d``),
        ``mean_s`` (over all scored instances), ``fit_intercept_s``, ``fit_slope_s_per_d``
        and ``fit_r2``.

    Raises
    ------
    ValueError
        If ``runtime_s`` or ``d`` is missing.
    """
    inst = _as_instances(scores)
    for c in ("runtime_s", "d"):
        if c not in inst.columns:
            raise ValueError(f"runtime_table needs a {c!r} column")
    scored = inst[inst["runtime_s"].notna()]
    methods = _sorted_categories(inst["method"])
    wide = scored.pivot_table(index="method", columns="d", values="runtime_s", aggfunc="mean")
    wide = wide.reindex(index=methods, columns=_sorted_categories(scored["d"].dropna()))
    wide.columns = [f"d={c}" for c in wide.columns]
    wide["mean_s"] = scored.groupby("method")["runtime_s"].mean().reindex(methods)
    fits = []
    for m in methods:
        sub = scored[(scored["method"] == m) & scored["d"].notna()]
        try:
            f = runtime_fit(sub["d"].astype(float), sub["runtime_s"].astype(float))
            fits.append((f.t_fixed, f.t_graph, f.r2))
        except ValueError:
            fits.append((np.nan, np.nan, np.nan))
    wide[["fit_intercept_s", "fit_slope_s_per_d", "fit_r2"]] = np.array(fits, dtype=float)
    wide.index.name = "method"
    return wide


# ----------------------------------------------------------------------------------------------
# Pareto frontier (Figure 9)
# ----------------------------------------------------------------------------------------------
def pareto_front(cost: Sequence[float], score: Sequence[float]) -> np.ndarray:
    """Mask of the points on the accuracy-cost Pareto frontier (paper Fig. 9).

    A point is on the frontier when no other point has a cost at most as large and a score at
    least as large, with one of the two strictly better (lower cost is better, higher score is
    better).  Points with a NaN coordinate are never on the frontier; exact duplicates are both
    kept.

    Parameters
    ----------
    cost, score : sequence of float
        Same length.

    Returns
    -------
    numpy.ndarray of bool

    Raises
    ------
    ValueError
        If the lengths differ.
    """
    c = np.asarray(cost, dtype=float)
    s = np.asarray(score, dtype=float)
    if c.shape != s.shape:
        raise ValueError(f"cost and score must have the same length, got {c.size} and {s.size}")
    valid = np.isfinite(c) & np.isfinite(s)
    on = valid.copy()
    for i in np.flatnonzero(valid):
        other = valid & (c <= c[i]) & (s >= s[i]) & ((c < c[i]) | (s > s[i]))
        if other.any():
            on[i] = False
    return on


# ----------------------------------------------------------------------------------------------
# leaderboard
# ----------------------------------------------------------------------------------------------
def leaderboard(
    scores: pd.DataFrame,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per method: pooled metrics with bootstrap CIs, win rates, status counts, runtime.

    Parameters
    ----------
    scores : pandas.DataFrame
        The raw scores table (status counts are over runs, so the raw table is needed; an
        instance-level table also works since it keeps the counts).
    confidence, n_resamples, seed
        Bootstrap settings of every CI (:func:`bootstrap_ci`); the same table and seed give
        the same intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``method_version``, ``library_version`` and
        ``pretraining_disclosure`` (when present), the pooled metrics (:func:`pooled`; NaN
        where undefined, e.g. AUROC/AP for hard-graph methods) each followed by
        ``<metric>_ci_low`` / ``<metric>_ci_high`` (bootstrap over instances);
        ``win_rate`` (F1 and SHD pooled, :func:`pooled_win_rates` over every unit of the
        table), ``win_rate_f1`` and ``win_rate_shd`` (one metric each), each with its CI;
        ``n_instances``, ``coverage`` (ok runs / all runs), the run counts per status and
        ``runtime_s`` (mean instance runtime over scored instances) with its CI.  Sorted by
        pooled F1, descending, NaN last, ties broken by method name.

    Raises
    ------
    ValueError
        As :func:`instance_scores`.
    """
    inst = _as_instances(scores)
    methods = _sorted_categories(inst["method"])
    out = pd.DataFrame(index=pd.Index(methods, name="method"))
    g = inst.groupby("method", sort=True)
    for c in METHOD_COLUMNS:
        if c in inst.columns:
            out[c] = g[c].agg(lambda s: ", ".join(sorted({str(v) for v in s.dropna()})) or None)
    boot = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    present = [m for m in (*METRICS, "runtime_s") if m in inst.columns]
    ci = mean_ci_table(inst, ("method",), present, **boot).set_index(["method", "metric"])
    for m in present:
        if m == "runtime_s":
            continue
        out[m] = pooled(inst, m)
        out[f"{m}_ci_low"] = ci.xs(m, level="metric")["ci_low"].reindex(methods)
        out[f"{m}_ci_high"] = ci.xs(m, level="metric")["ci_high"].reindex(methods)
    wins = {
        "win_rate": [m for m in ("f1", "shd") if m in inst.columns],
        "win_rate_f1": ["f1"] if "f1" in inst.columns else [],
        "win_rate_shd": ["shd"] if "shd" in inst.columns else [],
    }
    for col, ms in wins.items():
        if not ms:
            continue
        w = pooled_win_rates(inst, ms, setting=None, **boot)
        w = w[w["family"] == "all"].set_index("method").reindex(methods)
        out[col] = w["win_rate"]
        out[f"{col}_ci_low"] = w["ci_low"]
        out[f"{col}_ci_high"] = w["ci_high"]
    for m in METRICS:  # ok-only means beside the main (fallback-including) ranking
        if f"{m}_ok" in inst.columns:
            out[f"{m}_ok"] = g[f"{m}_ok"].mean()
    out["n_instances"] = g.size()
    counts = g[[f"n_{s}" for s in STATUSES] + ["n_runs"]].sum()
    out["coverage"] = counts["n_ok"] / counts["n_runs"]
    out = out.join(counts)
    if "runtime_s" in inst.columns:
        out["runtime_s"] = g["runtime_s"].mean()
        out["runtime_s_ci_low"] = ci.xs("runtime_s", level="metric")["ci_low"].reindex(methods)
        out["runtime_s_ci_high"] = ci.xs("runtime_s", level="metric")["ci_high"].reindex(methods)
    out = out.reset_index()
    if "f1" in out.columns:
        out = out.sort_values(["f1", "method"], ascending=[False, True], na_position="last")
    return out.reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# bootstrap confidence intervals
# ----------------------------------------------------------------------------------------------


def _check_ci_args(confidence: float, n_resamples: int) -> None:
    """Raise ValueError unless ``0 < confidence < 1`` and ``n_resamples >= 1``."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples!r}")


def bootstrap_ci(
    values: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap confidence interval of a mean (``scipy.stats.bootstrap``, BCa).

    The resampling units are the entries of ``values`` (one replicate-averaged instance score
    each, so the interval is over instances, paper B.1).  NaNs are dropped first.

    Parameters
    ----------
    values : sequence of float
        One value per unit.
    confidence : float, default 0.95
        Confidence level in (0, 1).
    n_resamples : int, default 2000
    seed : int, default 0
        Seed of the ``numpy.random.Generator`` that draws the resamples; the same inputs and
        seed give the same interval.

    Returns
    -------
    tuple of float
        ``(low, high)``.  ``(nan, nan)`` with fewer than two finite values.  When every value
        is equal the bootstrap distribution is a point mass and the interval is
        ``(value, value)`` (zero width; BCa itself is undefined there).

    Raises
    ------
    ValueError
        ``confidence`` outside (0, 1) or ``n_resamples < 1``.
    """
    from scipy import stats

    _check_ci_args(confidence, n_resamples)
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2:
        return (np.nan, np.nan)
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    res = stats.bootstrap(
        (x,),
        np.mean,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method="BCa",
        vectorized=True,
        random_state=np.random.default_rng(seed),
    )
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def batch_ratio_ci(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> list[tuple[float, float]]:
    """BCa bootstrap CIs of ``sum(num) / sum(den)`` for many groups, one call per size.

    The batched form of the per-group ratio CI (units with ``den > 0`` kept, resampled in
    pairs): groups with the same number of kept units are stacked into ``(groups, n)``
    arrays and bootstrapped together along the last axis (``paired=True``,
    ``vectorized=True``, resamples in batches of at most :data:`BATCH_VALUES` values), so the
    groups of a size share the resample indices, as in :func:`batch_bootstrap_ci`.  The
    intervals are a pure function of the groups and ``seed``.

    Parameters
    ----------
    pairs : sequence of (ndarray, ndarray)
        ``(num, den)`` per group, one entry per unit.
    confidence, n_resamples, seed
        As :func:`bootstrap_ci`.

    Returns
    -------
    list of (float, float)
        One ``(low, high)`` per group, in order; ``(nan, nan)`` for fewer than two kept
        units, ``(r, r)`` when every kept unit has the same ratio ``r``.
    """
    _check_ci_args(confidence, n_resamples)
    out: list[tuple[float, float]] = [(np.nan, np.nan)] * len(pairs)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    by_size: dict[int, list[int]] = {}
    for k, (num, den) in enumerate(pairs):
        num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
        keep = den > 0
        num, den = num[keep], den[keep]
        kept.append((num, den))
        if num.size < 2:
            continue
        unit = num / den
        if np.all(unit == unit[0]):
            out[k] = (float(unit[0]), float(unit[0]))
            continue
        by_size.setdefault(int(num.size), []).append(k)

    def ratio(a, b, axis=-1):
        return a.sum(axis=axis) / b.sum(axis=axis)

    for n, ks in sorted(by_size.items()):
        nums = np.stack([kept[k][0] for k in ks])
        dens = np.stack([kept[k][1] for k in ks])
        batch = max(1, min(n_resamples, BATCH_VALUES // (2 * len(ks) * n)))
        rng = np.random.default_rng([seed, n, 1])
        cis = _bca_rows(ks, (nums, dens), ratio, True, confidence, n_resamples, batch, rng)
        for k, ci in cis.items():
            out[k] = ci
    return out


def _bca_rows(keys, data, statistic, paired, confidence, n_resamples, batch, rng) -> dict:
    """``{key: (low, high)}``: one vectorised BCa ``scipy.stats.bootstrap`` over the rows of
    ``data`` (arrays of shape (len(keys), n); row j belongs to ``keys[j]``)."""
    from scipy import stats

    res = stats.bootstrap(
        data,
        statistic,
        paired=paired,
        confidence_level=confidence,
        n_resamples=n_resamples,
        batch=batch,
        method="BCa",
        vectorized=True,
        axis=-1,
        random_state=rng,
    )
    lo = np.atleast_1d(res.confidence_interval.low)
    hi = np.atleast_1d(res.confidence_interval.high)
    return {k: (float(lo[j]), float(hi[j])) for j, k in enumerate(keys)}


def mean_ci_table(
    scores: pd.DataFrame,
    by: Sequence[str] = ("method",),
    metrics: Sequence[str] | None = None,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """Mean, standard deviation and bootstrap CI of each metric per group (long form).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    by : sequence of str, default ("method",)
        Grouping columns.
    metrics : sequence of str, optional
        Default: every column of :data:`METRICS` present (and ``runtime_s``).
    confidence, n_resamples, seed
        As :func:`bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by``, ``metric``, ``n`` (instances with a value), ``mean``, ``sd``
        (sample standard deviation over instances, ``ddof=1``), ``ci_low``, ``ci_high``.
    """
    inst = _as_instances(scores)
    for c in by:
        _check_factor(c, inst)
    if metrics is None:
        metrics = [m for m in (*METRICS, "runtime_s") if m in inst.columns]
    rows, values = [], []
    for key, sub in inst.groupby(list(by), sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        for m in metrics:
            v = pd.to_numeric(sub[m], errors="coerce").to_numpy(dtype=float)
            v = v[np.isfinite(v)]
            values.append(v)
            rows.append(
                {
                    **dict(zip(by, key, strict=True)),
                    "metric": m,
                    "n": int(v.size),
                    "mean": float(v.mean()) if v.size else np.nan,
                    "sd": float(v.std(ddof=1)) if v.size > 1 else np.nan,
                }
            )
    cis = batch_bootstrap_ci(values, confidence=confidence, n_resamples=n_resamples, seed=seed)
    for r, (lo, hi) in zip(rows, cis, strict=True):
        r["ci_low"], r["ci_high"] = lo, hi
    return pd.DataFrame(rows, columns=[*by, "metric", "n", "mean", "sd", "ci_low", "ci_high"])


#: Most float64 values one vectorised bootstrap batch holds (groups x resamples x units).
BATCH_VALUES = 4_000_000


def batch_bootstrap_ci(
    groups: Sequence[np.ndarray],
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> list[tuple[float, float]]:
    """BCa bootstrap CIs of the means of many groups, one ``scipy.stats.bootstrap`` call per size.

    Groups with the same number of (finite) values are stacked into one ``(groups, n)`` array
    and bootstrapped together along the last axis (``vectorized=True``, resamples in batches of
    at most :data:`BATCH_VALUES` values), so every group of a size shares the resample indices
    (a paired bootstrap across groups; each group's interval is the same estimator as
    :func:`bootstrap_ci`).  The intervals are a pure function of the groups and ``seed``.

    Parameters
    ----------
    groups : sequence of ndarray of float
        Finite values per group (one per unit).
    confidence, n_resamples, seed
        As :func:`bootstrap_ci`.

    Returns
    -------
    list of (float, float)
        One ``(low, high)`` per group, in order; ``(nan, nan)`` for fewer than two values,
        ``(v, v)`` for a constant group.
    """
    _check_ci_args(confidence, n_resamples)
    out: list[tuple[float, float]] = [(np.nan, np.nan)] * len(groups)
    by_size: dict[int, list[int]] = {}
    for k, g in enumerate(groups):
        g = np.asarray(g, dtype=float)
        if g.size < 2:
            continue
        if np.all(g == g[0]):
            out[k] = (float(g[0]), float(g[0]))
            continue
        by_size.setdefault(int(g.size), []).append(k)
    for n, ks in sorted(by_size.items()):
        data = np.stack([np.asarray(groups[k], dtype=float) for k in ks])
        batch = max(1, min(n_resamples, BATCH_VALUES // (len(ks) * n)))
        rng = np.random.default_rng([seed, n])
        cis = _bca_rows(ks, (data,), np.mean, False, confidence, n_resamples, batch, rng)
        for k, ci in cis.items():
            out[k] = ci
    return out


# ----------------------------------------------------------------------------------------------
# Table 2 layout
# ----------------------------------------------------------------------------------------------
#: Split label of each ``setting`` value (paper Table 2 column headers).
SPLIT_LABELS = {"obs": "obs", "obsint": "obs+int"}


def benchmark_table(
    scores: pd.DataFrame,
    metrics: Sequence[str] = ("f1", "shd"),
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """Family x split cells of each metric, with the unweighted ``Avg`` (paper Table 2).

    A cell is one ``(family, setting)`` pair (e.g. Synthetic obs, Synthetic obs+int).  Its
    value is the mean over the cell's replicate-averaged instance scores, with the sample
    standard deviation over instances and a bootstrap CI (:func:`bootstrap_ci`).  A method
    *supports* a cell when it has at least one scored instance there; cells it does not
    support (e.g. obs+int for a method without intervention support: every run
    ``unsupported`` or ``missing``, even where the scorer gave unsubmitted instances its
    fallback score) are NaN.  ``Avg`` is the unweighted mean of the supported cells' means
    (paper Table 2: "methods without intervention support are averaged over three obs-only
    cells, not six"); its ``n_cells`` says how many.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`; needs ``family`` and
        ``setting``.
    metrics : sequence of str, default ("f1", "shd")
    confidence, n_resamples, seed
        As :func:`bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        Long form: ``method``, ``family``, ``split`` (``obs`` / ``obs+int``; ``Avg`` rows have
        ``family == "Avg"`` and ``split == ""``), ``metric``, ``n``, ``mean``, ``sd``,
        ``ci_low``, ``ci_high``, ``n_cells``.  Families and splits in sorted order.

    Raises
    ------
    ValueError
        Missing ``family``/``setting`` column, or an unknown metric.
    """
    inst = _as_instances(scores)
    for c in ("family", "setting"):
        _check_factor(c, inst)
    for m in metrics:
        _check_metric(m, inst)
    cells = mean_ci_table(
        inst,
        ("method", "family", "setting"),
        metrics,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    )
    # A cell is supported when the method ran on it: at least one run that is not
    # ``unsupported`` or ``missing`` (a split it cannot consume is not scored, even where
    # unsubmitted instances got the scorer's fallback).
    ran = [f"n_{s}" for s in ("ok", "failed", "timeout", "invalid") if f"n_{s}" in inst.columns]
    runs = inst.groupby(["method", "family", "setting"], sort=True, dropna=False)[ran].sum()
    active = runs.sum(axis=1) > 0
    key = pd.MultiIndex.from_frame(cells[["method", "family", "setting"]])
    cells["supported"] = active.reindex(key).fillna(False).to_numpy(dtype=bool)
    cells = cells.rename(columns={"setting": "split"})
    cells["split"] = cells["split"].map(lambda s: SPLIT_LABELS.get(s, s))
    off = (cells["n"] == 0) | ~cells["supported"]
    cells.loc[off, ["mean", "sd", "ci_low", "ci_high"]] = np.nan
    cells.loc[off, "n"] = 0
    cells = cells.drop(columns="supported")
    cells["n_cells"] = 1
    supported = cells[cells["n"] > 0]
    avg = supported.groupby(["method", "metric"], sort=True).agg(
        mean=("mean", "mean"), n=("n", "sum"), n_cells=("mean", "size")
    )
    avg = avg.reset_index().assign(family="Avg", split="", sd=np.nan, ci_low=np.nan)
    avg["ci_high"] = np.nan
    out = pd.concat([cells, avg[cells.columns]], ignore_index=True)
    return out.sort_values(["method", "metric"], kind="stable").reset_index(drop=True)


#: Column order of the paper's Table 2 (other families follow, sorted).
TABLE2_FAMILIES = ("synthetic", "semantic", "formula")


def _family_rank(family: Any) -> int:
    return TABLE2_FAMILIES.index(family) if family in TABLE2_FAMILIES else len(TABLE2_FAMILIES)


def format_benchmark_table(table: pd.DataFrame, missing: str = "–") -> pd.DataFrame:
    """Render :func:`benchmark_table` as the paper's wide table of ``mean (sd)`` strings.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`benchmark_table`.
    missing : str, default "–"
        Text of an unsupported cell.

    Returns
    -------
    pandas.DataFrame
        Index ``method`` (sorted by the ``Avg`` of the first metric, best first); one column
        per ``"<family> <split>"`` cell, families in the paper's order (synthetic, semantic,
        formula, then any other sorted; :data:`TABLE2_FAMILIES`), and a last ``Avg`` column.
        Each cell joins the metrics with `` / `` (e.g. ``"0.512 (0.210) / 12.30 (5.10)"``);
        ``Avg`` cells give the mean only.
    """
    metrics = list(dict.fromkeys(table["metric"]))

    def fmt(m: str, mean: float, sd: float) -> str:
        if not np.isfinite(mean):
            return missing
        spec = "{:.3f}" if m in ("f1", "precision", "recall", "auroc", "ap", "nshd") else "{:.2f}"
        if not np.isfinite(sd):
            return spec.format(mean)
        return f"{spec.format(mean)} ({spec.format(sd)})"

    cells = table[table["family"] != "Avg"]
    pairs = {(f, s) for f, s in zip(cells["family"], cells["split"], strict=True)}
    cols = [f"{f} {s}" for f, s in sorted(pairs, key=lambda p: (_family_rank(p[0]), p))]
    cols.append("Avg")
    out: dict[str, dict[str, str]] = {}
    for (method, fam, split), sub in table.groupby(["method", "family", "split"], sort=False):
        col = "Avg" if fam == "Avg" else f"{fam} {split}"
        by_metric = {r.metric: fmt(r.metric, r.mean, r.sd) for r in sub.itertuples()}
        out.setdefault(method, {})[col] = " / ".join(by_metric.get(m, missing) for m in metrics)
    frame = pd.DataFrame.from_dict(out, orient="index").reindex(columns=cols).fillna(missing)
    first = metrics[0]
    key = table[(table["family"] == "Avg") & (table["metric"] == first)].set_index("method")
    order = key["mean"].reindex(frame.index)
    asc = first in LOWER_IS_BETTER
    frame = frame.loc[order.sort_values(ascending=asc, na_position="last", kind="stable").index]
    frame.index.name = "method"
    return frame


# ----------------------------------------------------------------------------------------------
# pooled F1 + SHD win rate (Figure 1 / Figure 19)
# ----------------------------------------------------------------------------------------------
def _win_arrays(
    inst: pd.DataFrame, metrics: Sequence[str], methods: list[str]
) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Per-unit win and comparison counts: ``W[u, i, j]`` wins of i over j on unit u."""
    units = pd.MultiIndex.from_frame(inst[["config", "scm_id"]].drop_duplicates()).sort_values()
    k = len(methods)
    W = np.zeros((len(units), k, k))
    C = np.zeros((len(units), k, k))
    for metric in metrics:
        sign = _better_sign(metric)
        wide = inst.pivot_table(
            index=["config", "scm_id"], columns="method", values=metric, aggfunc="first"
        ).reindex(index=units, columns=methods)
        v = wide.to_numpy(dtype=float)
        a, b = v[:, :, None], v[:, None, :]
        both = np.isfinite(a) & np.isfinite(b)
        both &= ~np.eye(k, dtype=bool)[None]
        with np.errstate(invalid="ignore"):
            tie = both & np.isclose(a, b, rtol=_TIE_RTOL, atol=0.0)
            win = both & (sign * (a - b) > 0) & ~tie
        W += win + 0.5 * tie
        C += both
    return W, C, units


def _select(inst: pd.DataFrame, setting: str | None) -> pd.DataFrame:
    if setting is None:
        return inst
    _check_factor("setting", inst)
    return inst[inst["setting"] == setting]


def pooled_win_matrix(
    scores: pd.DataFrame,
    metrics: Sequence[str] = ("f1", "shd"),
    *,
    setting: str | None = "obs",
    family: str | None = None,
) -> pd.DataFrame:
    """Win rate of the row method over the column method, pooled over metrics (Figure 19).

    On each unit (instance, replicate-averaged) where both methods have a value, every metric
    of ``metrics`` is one comparison: a win counts 1 (higher F1, lower SHD), a tie 0.5, a
    loss 0.  The cell is total wins over total comparisons, so ``M[A, B] + M[B, A] = 1``.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metrics : sequence of str, default ("f1", "shd")
    setting : str or None, default "obs"
        Keep only instances of this ``setting`` (the paper's matrix is observation-only);
        ``None`` keeps all.
    family : str, optional
        Keep only this SCM ``family``.

    Returns
    -------
    pandas.DataFrame
        Square method x opponent frame; NaN on the diagonal and for pairs without a common
        unit.
    """
    inst = _select(_as_instances(scores), setting)
    for m in metrics:
        _check_metric(m, inst)
    if family is not None:
        _check_factor("family", inst)
        inst = inst[inst["family"] == family]
    methods = _sorted_categories(_as_instances(scores)["method"])
    if inst.empty:
        return pd.DataFrame(np.nan, index=methods, columns=methods)
    W, C, _ = _win_arrays(inst, metrics, methods)
    w, c = W.sum(axis=0), C.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mat = np.where(c > 0, w / np.where(c > 0, c, 1), np.nan)
    out = pd.DataFrame(mat, index=methods, columns=methods)
    out.index.name, out.columns.name = "method", "opponent"
    return out


def pooled_win_rates(
    scores: pd.DataFrame,
    metrics: Sequence[str] = ("f1", "shd"),
    *,
    setting: str | None = "obs",
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """Pooled pairwise win rate per method and family, with bootstrap CIs (paper Figure 1).

    Within each SCM ``family`` a method's rate is its wins over its comparisons, summed over
    units (instances), opponents and ``metrics`` (F1 and SHD compared separately on each unit;
    ties 0.5).  ``family == "all"`` pools every unit; ``family_mean`` is the unweighted mean
    of the family rates (the ordering key of Figure 1, no CI).  The CI resamples units within
    the family (:func:`scipy.stats.bootstrap`, BCa on the ratio of sums, paired).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metrics : sequence of str, default ("f1", "shd")
    setting : str or None, default "obs"
        Observation-only by default, as in Figure 1; ``None`` keeps every split.
    confidence, n_resamples, seed
        As :func:`bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        Long form: ``method``, ``family``, ``win_rate``, ``ci_low``, ``ci_high``, ``n_units``
        (units with at least one comparison), ``n_comparisons``.  Methods follow the order of
        ``family_mean``, best first.
    """
    inst = _select(_as_instances(scores), setting)
    for m in metrics:
        _check_metric(m, inst)
    methods = _sorted_categories(_as_instances(scores)["method"])
    cols = ["method", "family", "win_rate", "ci_low", "ci_high", "n_units", "n_comparisons"]
    if inst.empty:
        return pd.DataFrame(columns=cols)
    groups: list[tuple[str, pd.DataFrame]] = []
    if "family" in inst.columns:
        groups += [(str(f), inst[inst["family"] == f]) for f in _sorted_categories(inst["family"])]
    groups.append(("all", inst))
    rows, pairs = [], []
    for fam, sub in groups:
        W, C, _ = _win_arrays(sub, metrics, methods)
        wu, cu = W.sum(axis=2), C.sum(axis=2)  # (units, methods)
        for i, m in enumerate(methods):
            num, den = wu[:, i], cu[:, i]
            total = den.sum()
            pairs.append((num, den))
            rows.append(
                {
                    "method": m,
                    "family": fam,
                    "win_rate": num.sum() / total if total > 0 else np.nan,
                    "n_units": int((den > 0).sum()),
                    "n_comparisons": int(total),
                }
            )
    # every (family, method) CI in one bootstrap call per unit count
    cis = batch_ratio_ci(pairs, confidence=confidence, n_resamples=n_resamples, seed=seed)
    for r, (lo, hi) in zip(rows, cis, strict=True):
        r["ci_low"], r["ci_high"] = lo, hi
    out = pd.DataFrame(rows, columns=cols)
    fams = out[out["family"] != "all"]
    if not fams.empty:
        fm = fams.groupby("method", sort=True)["win_rate"].mean()
        extra = pd.DataFrame(
            {"method": fm.index, "family": "family_mean", "win_rate": fm.to_numpy()}
        )
        extra[["ci_low", "ci_high"]] = np.nan
        extra["n_units"] = fams.groupby("method", sort=True)["n_units"].sum().to_numpy()
        extra["n_comparisons"] = fams.groupby("method", sort=True)["n_comparisons"].sum().to_numpy()
        out = pd.concat([out, extra[cols]], ignore_index=True)
        key = fm
    else:
        key = out[out["family"] == "all"].set_index("method")["win_rate"]
    order = {m: r for r, m in enumerate(key.sort_values(ascending=False, kind="stable").index)}
    out["_o"] = out["method"].map(order)
    return out.sort_values(["_o"], kind="stable").drop(columns="_o").reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# critical-difference diagram (Friedman + Nemenyi, Demšar 2006)
# ----------------------------------------------------------------------------------------------
class CriticalDifference(NamedTuple):
    """Average ranks and the Nemenyi critical difference over common instances."""

    ranks: pd.Series
    """Average rank per method (1 = best), sorted ascending."""
    cd: float
    """Nemenyi critical difference: two methods whose average ranks differ by less are not
    significantly different at ``alpha``."""
    n_instances: int
    """Instances where every compared method has a value (the ranking units)."""
    friedman_p: float
    """p-value of the Friedman test (NaN with fewer than three methods)."""
    alpha: float


def critical_difference(
    scores: pd.DataFrame,
    metric: str = "f1",
    *,
    alpha: float = 0.05,
    setting: str | None = None,
    methods: Sequence[str] | None = None,
) -> CriticalDifference:
    """Friedman test and Nemenyi critical difference of average ranks (Demšar 2006).

    Each instance (replicate-averaged) on which every compared method has a value ranks the
    methods (1 = best; ties get the average rank, :func:`scipy.stats.rankdata`).  With ``k``
    methods and ``N`` instances, ``CD = q_alpha * sqrt(k (k + 1) / (6 N))`` where ``q_alpha``
    is the studentized-range quantile ``studentized_range.ppf(1 - alpha, k, inf) / sqrt(2)``.

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metric : str, default "f1"
    alpha : float, default 0.05
    setting : str, optional
        Keep only instances of this ``setting``.
    methods : sequence of str, optional
        Methods to compare; default: every method with a value on at least one instance.
        Methods without a value on any common instance are dropped.

    Returns
    -------
    CriticalDifference

    Raises
    ------
    ValueError
        Fewer than two methods or two common instances remain.
    """
    from scipy import stats

    inst = _select(_as_instances(scores), setting)
    _check_metric(metric, inst)
    wide = inst.pivot_table(
        index=["config", "scm_id"], columns="method", values=metric, aggfunc="first"
    )
    if methods is not None:
        wide = wide.reindex(columns=list(methods))
    wide = wide.dropna(axis=1, how="all").dropna(axis=0, how="any")
    k, n = wide.shape[1], wide.shape[0]
    if k < 2 or n < 2:
        raise ValueError(
            f"critical difference needs >= 2 methods on >= 2 common instances with a "
            f"{metric!r} value, got {k} method(s) on {n} instance(s)"
        )
    sign = _better_sign(metric)
    ranks = stats.rankdata(-sign * wide.to_numpy(dtype=float), axis=1)
    avg = pd.Series(ranks.mean(axis=0), index=wide.columns, name="rank").sort_values()
    q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
    cd = float(q * np.sqrt(k * (k + 1) / (6.0 * n)))
    p = np.nan
    if k >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(stats.friedmanchisquare(*wide.to_numpy(dtype=float).T).pvalue)
    return CriticalDifference(avg, cd, int(n), p, float(alpha))


# ----------------------------------------------------------------------------------------------
# real data: one table per dataset
# ----------------------------------------------------------------------------------------------
def dataset_name(scm_id: Any) -> str:
    """Dataset name of a real-table instance (``"real-sachs"`` -> ``"sachs"``)."""
    s = str(scm_id)
    return s[len("real-") :] if s.startswith("real-") else s


def dataset_scores(
    scores: pd.DataFrame,
    metrics: Sequence[str] = ("f1", "shd", "sid", "precision", "recall"),
    *,
    family: str = "real",
    confidence: float = CONFIDENCE,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> pd.DataFrame:
    """Scores per method, real dataset and split (paper 5.x real-data tables).

    Real tables are unrelated systems, so each dataset is its own unit of report: this never
    averages across datasets.  The dataset of an instance is its ``scm_id`` without the
    ``real-`` prefix (:func:`dataset_name`).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or the output of :func:`instance_scores`.
    metrics : sequence of str
        Metrics to report (those absent from the table are skipped).
    family : str, default "real"
        Value of the ``family`` column selecting the real-table instances.
    confidence, n_resamples, seed
        As :func:`bootstrap_ci` (a single replicate gives a NaN interval).

    Returns
    -------
    pandas.DataFrame
        Long form: ``method``, ``dataset``, ``split``, ``metric``, ``n``, ``mean``, ``sd``,
        ``ci_low``, ``ci_high``; empty when the table has no ``family`` rows.
    """
    inst = _as_instances(scores)
    cols = ["method", "dataset", "split", "metric", "n", "mean", "sd", "ci_low", "ci_high"]
    if "family" not in inst.columns:
        return pd.DataFrame(columns=cols)
    real = inst[inst["family"] == family].copy()
    if real.empty:
        return pd.DataFrame(columns=cols)
    real["dataset"] = real["scm_id"].map(dataset_name)
    if "setting" not in real.columns:
        real["setting"] = "obs"
    present = [m for m in metrics if m in real.columns]
    out = mean_ci_table(
        real,
        ("method", "dataset", "setting"),
        present,
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
    ).rename(columns={"setting": "split"})
    out["split"] = out["split"].map(lambda s: SPLIT_LABELS.get(s, s))
    out.loc[out["n"] == 0, ["mean", "sd", "ci_low", "ci_high"]] = np.nan
    return out[cols]


# ----------------------------------------------------------------------------------------------
# edge-level mechanism / noise breakdown (Tables 12-13)
# ----------------------------------------------------------------------------------------------
def edge_tag_counts(
    truth: np.ndarray, pred: np.ndarray, child_tags: Sequence[str]
) -> dict[str, tuple[int, int, int]]:
    """TP/FP/FN of directed edges grouped by the child's tag (paper Tables 12-13).

    Every ordered pair ``(i, j)`` belongs to the category ``child_tags[j]``: a true edge
    ``i -> j`` found by the prediction is a TP, a true edge missed (absent or reversed) is an
    FN, a predicted edge ``i -> j`` that is not in the truth is an FP.

    Parameters
    ----------
    truth, pred : numpy.ndarray of shape (d, d)
        Binary adjacency matrices, ``A[i, j] = 1`` iff ``i -> j``; ``pred`` must be directed
        (orient CPDAG output first).
    child_tags : sequence of str, length d
        Tag of each node as a child (its mechanism or noise family).

    Returns
    -------
    dict of str to (int, int, int)
        ``{tag: (tp, fp, fn)}`` over the tags present.

    Raises
    ------
    ValueError
        Shapes disagree.
    """
    T = np.asarray(truth) != 0
    P = np.asarray(pred) != 0
    d = T.shape[0]
    if T.shape != (d, d) or P.shape != (d, d) or len(child_tags) != d:
        raise ValueError(
            f"edge_tag_counts: truth {T.shape}, prediction {P.shape} and {len(child_tags)} "
            "child tags must agree"
        )
    tp = (T & P).sum(axis=0)
    fp = (~T & P).sum(axis=0)
    fn = (T & ~P).sum(axis=0)
    out: dict[str, list[int]] = {}
    for j, tag in enumerate(child_tags):
        acc = out.setdefault(str(tag), [0, 0, 0])
        acc[0] += int(tp[j])
        acc[1] += int(fp[j])
        acc[2] += int(fn[j])
    return {k: (v[0], v[1], v[2]) for k, v in out.items()}


def edge_f1_table(edges: pd.DataFrame) -> pd.DataFrame:
    """Edge F1 per method, axis, split and category from aggregated TP/FP/FN counts.

    Parameters
    ----------
    edges : pandas.DataFrame
        Columns ``method``, ``axis``, ``setting``, ``category``, ``tp``, ``fp``, ``fn`` (one
        row per instance and category, e.g. :func:`causalarena.eval.edges.edge_counts`).

    Returns
    -------
    pandas.DataFrame
        ``method``, ``axis``, ``split``, ``category``, ``tp``, ``fp``, ``fn``, ``n_true``
        (= tp + fn) and ``edge_f1 = 2 tp / (2 tp + fp + fn)`` (NaN when the denominator is 0).
    """
    g = edges.groupby(["method", "axis", "setting", "category"], sort=True)[["tp", "fp", "fn"]]
    out = g.sum().reset_index().rename(columns={"setting": "split"})
    out["split"] = out["split"].map(lambda s: SPLIT_LABELS.get(s, s))
    out["n_true"] = out["tp"] + out["fn"]
    den = 2 * out["tp"] + out["fp"] + out["fn"]
    out["edge_f1"] = np.where(den > 0, 2 * out["tp"] / den.where(den > 0, 1), np.nan)
    return out


def format_edge_table(edges: pd.DataFrame, missing: str = "–") -> pd.DataFrame:
    """Wide ``obs / obs+int`` edge-F1 cells: index method, one column per category.

    Parameters
    ----------
    edges : pandas.DataFrame
        Edge counts for one axis (the input of :func:`edge_f1_table`).
    missing : str, default "–"

    Returns
    -------
    pandas.DataFrame of str
    """
    t = edge_f1_table(edges)
    splits = [s for s in ("obs", "obs+int") if s in set(t["split"])] or sorted(set(t["split"]))
    cats = sorted(set(t["category"]))
    idx = t.set_index(["method", "split", "category"])["edge_f1"]
    out = {}
    for m in sorted(set(t["method"])):
        out[m] = {
            c: " / ".join(
                missing
                if (m, s, c) not in idx.index or not np.isfinite(idx[(m, s, c)])
                else f"{idx[(m, s, c)]:.3f}"
                for s in splits
            )
            for c in cats
        }
    frame = pd.DataFrame.from_dict(out, orient="index").reindex(columns=cats)
    frame.index.name = "method"
    return frame


# ----------------------------------------------------------------------------------------------
# nested-k runtime fits (Table 5)
# ----------------------------------------------------------------------------------------------
def runtime_k_fits(points: pd.DataFrame) -> pd.DataFrame:
    """Fit ``T(k) = T_fixed + k T_graph`` per method and ``d`` (paper 5.5, Table 5).

    Parameters
    ----------
    points : pandas.DataFrame
        ``method``, ``d``, ``k``, ``T_s`` (total wall time of one harness run of ``k``
        instances after one start-up and load), e.g. from
        :func:`causalarena.eval.timing.nested_k_runtime`; rows with a non-finite ``T_s``
        (failed runs) are skipped.

    Returns
    -------
    pandas.DataFrame
        ``method``, ``d``, ``t_fixed_s``, ``t_graph_s``, ``r2``, ``n``; NaN fits where fewer
        than two distinct ``k`` remain.  One extra row per method with ``d == "mean"`` holds
        the unweighted mean over ``d`` of ``t_fixed_s`` and ``t_graph_s`` (the paper's
        comparable per-graph time, marked † in Table 5).
    """
    rows = []
    ok = points[np.isfinite(pd.to_numeric(points["T_s"], errors="coerce"))]
    for (m, d), sub in ok.groupby(["method", "d"], sort=True):
        try:
            f = runtime_fit(sub["k"].astype(float), sub["T_s"].astype(float))
            rows.append(
                {
                    "method": m,
                    "d": d,
                    "t_fixed_s": f.t_fixed,
                    "t_graph_s": f.t_graph,
                    "r2": f.r2,
                    "n": f.n,
                }
            )
        except ValueError:
            rows.append(
                {
                    "method": m,
                    "d": d,
                    "t_fixed_s": np.nan,
                    "t_graph_s": np.nan,
                    "r2": np.nan,
                    "n": len(sub),
                }
            )
    out = pd.DataFrame(rows, columns=["method", "d", "t_fixed_s", "t_graph_s", "r2", "n"])
    if out.empty:
        return out
    mean = out.groupby("method", sort=True)[["t_fixed_s", "t_graph_s"]].mean().reset_index()
    mean["d"], mean["r2"] = "mean", np.nan
    mean["n"] = out.groupby("method", sort=True)["n"].sum().to_numpy()
    out["d"] = out["d"].astype(object)
    return pd.concat([out, mean[out.columns]], ignore_index=True)


# ----------------------------------------------------------------------------------------------
# sortability controls
# ----------------------------------------------------------------------------------------------
#: Order-then-regress controls (:mod:`causalarena.baselines.regress`): a random order and
#: orders by marginal variance, increasing R^2 and decreasing R^2 (sortability artefacts).
CONTROL_METHODS = (
    "random-regress",
    "var-sort-regress",
    "r2-sort-regress",
    "reverse-r2-sort-regress",
)


def control_flags(
    scores: pd.DataFrame,
    *,
    reference: str = "pc",
    controls: Sequence[str] = CONTROL_METHODS,
    metric: str = "f1",
    factor: str = "graph_family",
) -> pd.DataFrame:
    """Factor categories (graph families) where a sortability control beats a reference method.

    A control that only sorts variables (by variance or R^2) and regresses should not beat a
    causal-discovery method such as PC; where it does, the generator leaves an exploitable
    sortability artefact in that category (Reisach et al. 2021, 2023; issue 10 section 1).
    Each comparison uses the instances both methods have scored (means of the
    replicate-averaged instance scores, the scorer's fallback included).

    Parameters
    ----------
    scores : pandas.DataFrame
        Raw scores table or :func:`instance_scores` output.
    reference : str, default "pc"
    controls : sequence of str, default :data:`CONTROL_METHODS`
    metric : str, default "f1"
        Any metric with a direction (:data:`HIGHER_IS_BETTER` or :data:`LOWER_IS_BETTER`).
    factor : str, default "graph_family"

    Returns
    -------
    pandas.DataFrame
        One row per (category, control) present with the reference: ``factor``
        (the category), ``control``, ``reference``, ``metric``, ``n`` (common instances),
        ``control_mean``, ``reference_mean`` and ``beats`` (True when the control's mean is
        strictly better).  Empty when the reference or every control is absent.

    Raises
    ------
    ValueError
        Unknown metric or a missing factor column.
    """
    inst = _as_instances(scores)
    sign = _better_sign(metric)
    _check_metric(metric, inst)
    _check_factor(factor, inst)
    cols = ["factor", "control", "reference", "metric", "n", "control_mean", "reference_mean"]
    rows = []
    inst = _explode(inst[_cols("method", "config", "scm_id", factor, metric)], factor)
    ref = inst[inst["method"] == reference].set_index(["config", "scm_id", factor])[metric]
    for c in controls:
        ctl = inst[inst["method"] == c].set_index(["config", "scm_id", factor])[metric]
        both = pd.concat([ctl.rename("c"), ref.rename("r")], axis=1, join="inner").dropna()
        for cat, g in both.groupby(level=factor, sort=True):
            rows.append([cat, c, reference, metric, len(g), g["c"].mean(), g["r"].mean()])
    out = pd.DataFrame(rows, columns=cols)
    out["beats"] = sign * (out["control_mean"] - out["reference_mean"]) > 0
    return out.rename(columns={"factor": factor})
