"""Static PNG figures for a CausalArena report (paper Figs. 1, 9-11, 15 analogues).

The functions draw on :class:`matplotlib.figure.Figure` objects rendered by the Agg canvas; they
never touch :mod:`matplotlib.pyplot` or the global backend, so they are safe in headless
processes and threads.  Each takes an already computed table from
:mod:`causalarena.eval.analyses`, writes one PNG and returns its path.  ``metadata`` (a mapping
of str to str) is stored in the PNG text chunks, which is how the report records provenance in
every image.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from causalarena._extras import require

matplotlib = require("matplotlib", "plots", "drawing report figures")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

from causalarena.eval.analyses import pareto_front  # noqa: E402

__all__ = [
    "leaderboard_figure",
    "log_axis",
    "plot_critical_difference",
    "plot_dataset_scores",
    "plot_frontier",
    "plot_interaction",
    "plot_metric_vs_d",
    "plot_ood",
    "plot_pooled_win_rates",
    "plot_precision_recall",
    "plot_runtime_k",
    "plot_win_matrix",
    "plot_win_rates",
]

_DPI = 110
_LABELS = {
    "f1": "F1",
    "shd": "SHD",
    "nshd": "nSHD",
    "sid": "SID",
    "auroc": "AUROC",
    "ap": "AP",
    "precision": "precision",
    "recall": "recall",
}


def _label(metric: str) -> str:
    return _LABELS.get(metric, metric)


def _colors(n: int) -> list:
    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _method_colors(methods) -> dict:
    """Stable colour per method: assigned in sorted-name order, so every plot agrees."""
    names = sorted({str(m) for m in methods})
    return dict(zip(names, _colors(len(names)), strict=True))


#: Largest matrix side whose cells get their value printed in :func:`plot_win_matrix`.
MAX_ANNOTATED = 20
#: Most tick labels on a heatmap axis; longer axes label every k-th row or column.
MAX_TICK_LABELS = 40

#: Most curves :func:`plot_metric_vs_d` draws; with more methods it draws those with the highest
#: mean over ``d`` and says so in its title (250 legend entries collapse the axes to nothing).
MAX_CURVES = 20


def _label_ticks(ax, axis: str, labels: list[str], **kw) -> None:
    """Tick labels on a heatmap axis, thinned to at most :data:`MAX_TICK_LABELS`."""
    step = max(1, -(-len(labels) // MAX_TICK_LABELS))
    pos = np.arange(0, len(labels), step)
    setter = ax.set_xticks if axis == "x" else ax.set_yticks
    setter(pos, [labels[k] for k in pos], **kw)


def _new(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path: str | Path, metadata: Mapping[str, str] | None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"Software": "causalarena"}
    meta.update({str(k): str(v) for k, v in (metadata or {}).items()})
    fig.savefig(path, format="png", metadata=meta, facecolor="white")
    return path


def _empty(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])


def plot_win_rates(
    win: pd.DataFrame,
    path: str | Path,
    *,
    metric: str = "f1",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Grouped bars of each method's mean pairwise win rate per SCM family (paper Fig. 1).

    Parameters
    ----------
    win : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.win_rates` (index method; family columns,
        ``family_mean`` and ``pooled``).  Methods are ordered by ``family_mean`` (or
        ``pooled``), best first; the dotted line marks 0.5.
    path : str or Path
        PNG file to write.
    metric : str, default "f1"
        Metric name for the title.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    order_col = "family_mean" if "family_mean" in win.columns else "pooled"
    fams = [c for c in win.columns if c not in ("family_mean", "pooled")] or ["pooled"]
    data = win.sort_values(order_col, ascending=False, na_position="last")
    n = len(data)
    fig = _new(max(6.0, 0.55 * n * max(1, len(fams)) ** 0.5 + 2), 4.2)
    ax = fig.add_subplot()
    if n == 0:
        _empty(ax, "no methods")
        return _save(fig, path, metadata)
    x = np.arange(n)
    width = 0.8 / len(fams)
    for i, (fam, color) in enumerate(zip(fams, _colors(len(fams)), strict=True)):
        vals = data[fam].to_numpy(dtype=float)
        ax.bar(x - 0.4 + width * (i + 0.5), np.nan_to_num(vals), width, label=str(fam), color=color)
    ax.axhline(0.5, color="0.3", lw=0.8, ls=":")
    ax.set_xticks(x, [str(m) for m in data.index], rotation=35, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"mean pairwise win rate ({_label(metric)})")
    ax.set_title(f"Pairwise win rate on {_label(metric)} by SCM family")
    ax.legend(title="family", fontsize="small", ncols=min(4, len(fams)), loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path, metadata)


def plot_interaction(
    matrix: pd.DataFrame,
    path: str | Path,
    *,
    factor: str,
    metric: str = "f1",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Heatmap of a double-centred interaction matrix (paper Figs. 10 and 12).

    Parameters
    ----------
    matrix : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.interaction_scores` (methods x categories).
    path : str or Path
        PNG file to write.
    factor, metric : str
        Names for the title and colour-bar label.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path

    Notes
    -----
    The colour scale is symmetric around zero (blue negative, red positive); cell values are
    printed when the matrix has at most 400 cells.
    """
    n_m, n_c = matrix.shape
    fig = _new(min(18.0, max(5.5, 0.75 * n_c + 3.0)), min(14.0, max(3.0, 0.42 * n_m + 1.8)))
    ax = fig.add_subplot()
    if matrix.size == 0:
        _empty(ax, "no complete matrix")
        return _save(fig, path, metadata)
    vals = matrix.to_numpy(dtype=float)
    lim = float(np.nanmax(np.abs(vals))) if np.isfinite(vals).any() else 1.0
    lim = lim if lim > 0 else 1.0
    im = ax.imshow(vals, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(np.arange(n_c), [str(c) for c in matrix.columns], rotation=35, ha="right")
    _label_ticks(ax, "y", [str(m) for m in matrix.index])
    if vals.size <= 400:
        for i in range(n_m):
            for j in range(n_c):
                v = vals[i, j]
                ax.text(
                    j,
                    i,
                    f"{v:+.2f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(v) > 0.6 * lim else "black",
                )
    ax.set_xlabel(factor)
    ax.set_title(f"Double-centred {_label(metric)} interaction: method x {factor}")
    fig.colorbar(im, ax=ax, label=f"{_label(metric)} interaction", shrink=0.9)
    return _save(fig, path, metadata)


def _top_curves(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the :data:`MAX_CURVES` methods of highest mean over the columns (ties by
    name, NaN means last), in their original order; the whole table when it has no more."""
    if len(table) <= MAX_CURVES:
        return table
    best = (
        pd.DataFrame({"mean": table.mean(axis=1).to_numpy(), "name": table.index.astype(str)})
        .sort_values(["mean", "name"], ascending=[False, True], na_position="last")
        .index[:MAX_CURVES]
    )
    return table.iloc[np.sort(best.to_numpy())]


def plot_metric_vs_d(
    table: pd.DataFrame,
    path: str | Path,
    *,
    metric: str = "f1",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """One curve per method of a metric against the dimension ``d`` (paper Fig. 11).

    With more than :data:`MAX_CURVES` methods only the :data:`MAX_CURVES` with the highest
    mean over the ``d`` columns are drawn (ties by name) and the title says so.

    Parameters
    ----------
    table : pandas.DataFrame
        ``slice_means(scores, "d", metric)``: index method, numeric ``d`` columns.
    path : str or Path
        PNG file to write.
    metric : str, default "f1"
        Metric name for the axis label.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    fig = _new(7.0, 4.4)
    ax = fig.add_subplot()
    if table.size == 0:
        _empty(ax, "no data")
        return _save(fig, path, metadata)
    xs = np.asarray(table.columns, dtype=float)
    markers = "osD^v<>pP*Xh"
    colors = _method_colors(table.index)
    n_methods = len(table)
    table = _top_curves(table)
    for i, (method, row) in enumerate(table.iterrows()):
        color = colors[str(method)]
        ys = row.to_numpy(dtype=float)
        ok = np.isfinite(ys)
        ax.plot(xs[ok], ys[ok], marker=markers[i % len(markers)], color=color, label=str(method))
    ax.set_xticks(xs, [f"{x:g}" for x in xs])
    ax.set_xlabel("number of variables d")
    ax.set_ylabel(f"mean {_label(metric)}")
    if metric in ("f1", "precision", "recall", "auroc", "ap"):
        ax.set_ylim(0, 1)
    shown = f" ({MAX_CURVES} best of {n_methods} methods)" if n_methods > MAX_CURVES else ""
    ax.set_title(f"{_label(metric)} against dimension{shown}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _save(fig, path, metadata)


def plot_precision_recall(
    board: pd.DataFrame,
    path: str | Path,
    *,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Scatter of pooled precision against pooled recall, one labelled point per method.

    Dotted grey curves are F1 iso-lines (0.2, 0.4, 0.6, 0.8).

    Parameters
    ----------
    board : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.leaderboard` (``method``, ``precision``,
        ``recall``).
    path : str or Path
        PNG file to write.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    fig = _new(5.8, 5.2)
    ax = fig.add_subplot()
    r = np.linspace(0.01, 1, 200)
    for f in (0.2, 0.4, 0.6, 0.8):
        p = f * r / (2 * r - f)
        keep = (p > 0) & (p <= 1) & (2 * r > f)
        ax.plot(r[keep], p[keep], color="0.8", lw=0.8, ls=":")
        ax.annotate(f"F1={f}", (1.0, f / (2 - f)), fontsize=7, color="0.5", ha="right", va="bottom")
    data = board.dropna(subset=["precision", "recall"])
    colors = _method_colors(board["method"])
    for _, row in data.iterrows():
        color = colors[str(row["method"])]
        ax.scatter(row["recall"], row["precision"], color=color, s=40, zorder=3)
        ax.annotate(
            str(row["method"]),
            (row["recall"], row["precision"]),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize=8,
        )
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("pooled recall")
    ax.set_ylabel("pooled precision")
    ax.set_title("Precision against recall")
    ax.grid(alpha=0.3)
    return _save(fig, path, metadata)


def plot_frontier(
    board: pd.DataFrame,
    path: str | Path,
    *,
    metric: str = "f1",
    cost: str = "runtime_s",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Accuracy-cost frontier with the Pareto line (paper Fig. 9).

    x is the mean runtime per instance (log scale when it spans more than a factor of ten), y
    the pooled metric.  The dashed line joins
    the methods on the Pareto frontier (:func:`causalarena.eval.analyses.pareto_front`): no
    other method is both at least as fast and at least as accurate.

    Parameters
    ----------
    board : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.leaderboard`.
    path : str or Path
        PNG file to write.
    metric : str, default "f1"
        Accuracy column (higher is better).
    cost : str, default "runtime_s"
        Cost column (lower is better, must be positive for the log axis).
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    fig = _new(6.6, 4.6)
    ax = fig.add_subplot()
    data = board.dropna(subset=[metric, cost])
    data = data[data[cost] > 0]
    if data.empty:
        _empty(ax, "no runtime / accuracy pairs")
        return _save(fig, path, metadata)
    on = pareto_front(data[cost].to_numpy(float), data[metric].to_numpy(float))
    colors = _method_colors(board["method"])
    for (_, row), front in zip(data.iterrows(), on, strict=True):
        color = colors[str(row["method"])]
        ax.scatter(
            row[cost],
            row[metric],
            color=color,
            s=55 if front else 35,
            edgecolor="black" if front else "none",
            zorder=3,
        )
        ax.annotate(
            str(row["method"]),
            (row[cost], row[metric]),
            xytext=(5, 3),
            textcoords="offset points",
            fontsize=8,
        )
    front = data[on].sort_values(cost)
    ax.plot(
        front[cost],
        front[metric],
        ls="--",
        color="0.25",
        lw=1.2,
        drawstyle="steps-post",
        label="Pareto frontier",
    )
    lo, hi = float(data[cost].min()), float(data[cost].max())
    if hi > 10 * lo:
        ax.set_xlim(lo / 1.6, hi * 1.6)
        log_axis(ax.xaxis, label="mean runtime per instance (s, log scale)")
    else:
        ax.set_xlabel("mean runtime per instance (s)")
    ax.set_ylabel(f"pooled {_label(metric)}")
    ax.set_title(f"Accuracy-cost frontier ({_label(metric)} vs runtime)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="best", fontsize="small")
    return _save(fig, path, metadata)


def plot_ood(
    ood: pd.DataFrame,
    path: str | Path,
    *,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Bars of ID and OOD relative gains (percent) per method and factor axis (paper Fig. 15).

    Parameters
    ----------
    ood : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.ood_scores`.
    path : str or Path
        PNG file to write.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    axes_names = list(dict.fromkeys(ood["factor"])) if not ood.empty else []
    fig = _new(max(5.0, 3.2 * max(1, len(axes_names))), 3.8)
    if not axes_names:
        _empty(fig.add_subplot(), "no method with a documented prior")
        return _save(fig, path, metadata)
    axs = fig.subplots(1, len(axes_names), sharey=True, squeeze=False)[0]
    for ax, a in zip(axs, axes_names, strict=True):
        sub = ood[ood["factor"] == a]
        y = np.arange(len(sub))
        ax.barh(y - 0.2, 100 * sub["r_id"].fillna(0), 0.4, color="#2a9d8f", label="ID")
        ax.barh(y + 0.2, 100 * sub["r_ood"].fillna(0), 0.4, color="#e76f8f", label="OOD")
        ax.axvline(0, color="0.3", lw=0.8)
        ax.set_yticks(y, [str(m) for m in sub["method"]])
        ax.set_ylim(-0.7, max(len(sub), 2) - 0.3)
        ax.set_title(str(a))
        ax.set_xlabel("gain over reference (%)")
        ax.grid(axis="x", alpha=0.3)
    axs[-1].legend(fontsize="small", loc="best")
    fig.suptitle("Relative gain over the reference group, in-prior vs out-of-prior")
    return _save(fig, path, metadata)


# ----------------------------------------------------------------------------------------------
# log axes with readable ticks
# ----------------------------------------------------------------------------------------------
def _tick_label(v: float) -> str:
    """``0.001, 0.01, 0.1, 1, 10, 100, 1k, 10k`` style labels (no ``1e-03``)."""
    if v <= 0 or not np.isfinite(v):
        return ""
    if v >= 1000:
        return f"{v / 1000:g}k"
    if v >= 1:
        return f"{v:g}"
    return np.format_float_positional(v, trim="-", precision=6)


def log_axis(axis, *, label: str | None = None) -> None:
    """Log-scale ``axis`` (an ``ax.xaxis`` / ``ax.yaxis``) with plain-number ticks at 1, 2, 5.

    Major ticks are labelled ``0.01, 0.1, 1, 10, 1k`` (not ``10^-2``); when the data span less
    than three decades the 2 and 5 sub-ticks are labelled too, so every axis shows at least two
    labelled ticks.
    """
    from matplotlib.ticker import LogLocator

    ax = axis.axes
    (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log")
    lo, hi = axis.get_view_interval()
    span = np.log10(max(hi, 1e-300) / max(lo, 1e-300)) if lo > 0 else 3.0
    axis.set_major_locator(LogLocator(base=10, subs=(1.0,) if span >= 3 else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: _tick_label(v)))
    axis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    axis.set_minor_formatter(NullFormatter())
    if label:
        axis.set_label_text(label)


# ----------------------------------------------------------------------------------------------
# pooled win rates (Figure 1) and matrix (Figure 19)
# ----------------------------------------------------------------------------------------------
def plot_pooled_win_rates(
    win: pd.DataFrame, path: str | Path, *, metadata: Mapping[str, str] | None = None
) -> Path:
    """Grouped bars of the pooled F1+SHD win rate per family with bootstrap CIs (Figure 1).

    Parameters
    ----------
    win : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.pooled_win_rates` (long form; its method
        order, best ``family_mean`` first, is kept).
    path : str or Path
        PNG file to write.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    fams = [f for f in dict.fromkeys(win["family"]) if f not in ("all", "family_mean")]
    fams = fams or ["all"]
    methods = list(dict.fromkeys(win["method"]))
    n = len(methods)
    fig = _new(max(6.5, 0.6 * n * max(1, len(fams)) ** 0.5 + 2.5), 4.4)
    ax = fig.add_subplot()
    if n == 0:
        _empty(ax, "no methods")
        return _save(fig, path, metadata)
    x = np.arange(n)
    width = 0.8 / len(fams)
    idx = win.set_index(["method", "family"])
    for i, (fam, color) in enumerate(zip(fams, _colors(len(fams)), strict=True)):
        sub = idx.xs(fam, level="family").reindex(methods)
        vals = sub["win_rate"].to_numpy(dtype=float)
        lo = np.clip(vals - sub["ci_low"].to_numpy(dtype=float), 0, None)
        hi = np.clip(sub["ci_high"].to_numpy(dtype=float) - vals, 0, None)
        err = np.nan_to_num(np.vstack([lo, hi]))
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, np.nan_to_num(vals), width, label=str(fam), color=color)
        ax.errorbar(pos, np.nan_to_num(vals), yerr=err, fmt="none", ecolor="0.2", lw=0.8)
    ax.axhline(0.5, color="0.3", lw=0.8, ls=":")
    ax.set_xticks(x, methods, rotation=35, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("pooled pairwise win rate (F1 and SHD)")
    ax.set_title("Observation-only pairwise win rate by family (bars: 95% bootstrap CI)")
    ax.legend(title="family", fontsize="small", ncols=min(4, len(fams)), loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path, metadata)


def plot_win_matrix(
    matrix: pd.DataFrame, path: str | Path, *, metadata: Mapping[str, str] | None = None
) -> Path:
    """Heatmap of the pooled pairwise win-rate matrix, row method over column (Figure 19)."""
    n = len(matrix)
    fig = _new(min(18.0, max(4.5, 0.55 * n + 2.5)), min(16.0, max(3.8, 0.5 * n + 1.8)))
    ax = fig.add_subplot()
    if n == 0:
        _empty(ax, "no methods")
        return _save(fig, path, metadata)
    vals = matrix.to_numpy(dtype=float)
    im = ax.imshow(np.ma.masked_invalid(vals), cmap="RdBu_r", vmin=0, vmax=1)
    if n <= MAX_ANNOTATED:  # beyond that the numbers are unreadable (win_matrix.csv has them)
        for i in range(n):
            for j in range(n):
                if np.isfinite(vals[i, j]):
                    ax.text(j, i, f"{vals[i, j]:.2f}", ha="center", va="center", fontsize=7)
    _label_ticks(ax, "x", [str(c) for c in matrix.columns], rotation=45, ha="right")
    _label_ticks(ax, "y", [str(r) for r in matrix.index])
    ax.set_xlabel("opponent")
    ax.set_title("Win rate of row over column (F1 and SHD pooled)")
    fig.colorbar(im, ax=ax, shrink=0.8)
    return _save(fig, path, metadata)


# ----------------------------------------------------------------------------------------------
# critical-difference diagram
# ----------------------------------------------------------------------------------------------
def _cd_cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``[i, j]`` of sorted ranks whose spread is below ``cd``."""
    out: list[tuple[int, int]] = []
    k = len(ranks)
    for i in range(k):
        j = i
        while j + 1 < k and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in out):
            out.append((i, j))
    return out


def plot_critical_difference(
    cd, path: str | Path, *, metric: str = "f1", metadata: Mapping[str, str] | None = None
) -> Path:
    """Critical-difference diagram (Demšar 2006): average ranks, CD bar, cliques.

    Methods joined by a thick horizontal bar are not significantly different (their average
    ranks differ by less than the Nemenyi CD).

    Parameters
    ----------
    cd : causalarena.eval.analyses.CriticalDifference
    path : str or Path
        PNG file to write.
    metric : str, default "f1"
        Metric name for the title.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    ranks = cd.ranks.to_numpy(dtype=float)
    names = [str(m) for m in cd.ranks.index]
    k = len(names)
    half = (k + 1) // 2
    fig = _new(7.5, 1.6 + 0.28 * half + 0.15 * k)
    ax = fig.add_subplot()
    ax.set_xlim(0.5, k + 0.5)
    ax.invert_xaxis()
    top = 0.0
    ax.hlines(top, 1, k, color="black", lw=1)
    for r in range(1, k + 1):
        ax.vlines(r, top, top + 0.08, color="black", lw=1)
        ax.text(r, top + 0.12, str(r), ha="center", va="bottom", fontsize=8)
    ax.hlines(top + 0.45, 1, 1 + cd.cd, color="black", lw=2)
    ax.text(1 + cd.cd / 2, top + 0.5, f"CD = {cd.cd:.2f}", ha="center", va="bottom", fontsize=8)
    step = 0.28
    for i, (name, r) in enumerate(zip(names, ranks, strict=True)):
        left = i < half
        level = -(0.5 + step * (i if left else k - 1 - i))
        xend = 0.6 if left else k + 0.4
        ax.plot([r, r, xend], [top, level, level], color="0.3", lw=0.8)
        ax.text(
            xend + (0.05 if left else -0.05),
            level,
            f"{name} ({r:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=8,
        )
    for n, (i, j) in enumerate(_cd_cliques(ranks, cd.cd)):
        y = top - 0.18 - 0.08 * n
        ax.hlines(y, ranks[i] - 0.03, ranks[j] + 0.03, color="black", lw=3)
    ax.set_ylim(-(0.7 + step * half), 0.9)
    ax.axis("off")
    p = "n/a" if not np.isfinite(cd.friedman_p) else f"{cd.friedman_p:.2g}"
    ax.set_title(
        f"Critical difference ({_label(metric)}, Nemenyi alpha={cd.alpha:g}, "
        f"N={cd.n_instances} instances, Friedman p={p})",
        fontsize=9,
    )
    return _save(fig, path, metadata)


# ----------------------------------------------------------------------------------------------
# real data: one point per dataset, never a line across datasets
# ----------------------------------------------------------------------------------------------
def plot_dataset_scores(
    table: pd.DataFrame,
    path: str | Path,
    *,
    metrics: tuple[str, ...] = ("f1", "shd"),
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Dot plot of each method's score on each real dataset, one panel per metric.

    Datasets are categories on the x axis; methods are offset markers within each dataset and
    no line joins two datasets (they are unrelated systems).

    Parameters
    ----------
    table : pandas.DataFrame
        Long form with columns ``method``, ``dataset``, ``metric``, ``mean``.
    path : str or Path
        PNG file to write.
    metrics : tuple of str, default ("f1", "shd")
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    datasets = sorted(dict.fromkeys(table["dataset"])) if not table.empty else []
    methods = sorted(dict.fromkeys(table["method"])) if not table.empty else []
    fig = _new(max(6.0, 1.2 * len(datasets) + 3.5), 3.4 * len(metrics))
    axs = fig.subplots(len(metrics), 1, squeeze=False)[:, 0]
    colors = _method_colors(methods)
    markers = "osD^v<>pP*Xh"
    x = np.arange(len(datasets))
    width = 0.7 / max(1, len(methods))
    for ax, metric in zip(axs, metrics, strict=True):
        sub = table[table["metric"] == metric]
        if sub.empty:
            _empty(ax, f"no {metric}")
            continue
        for i, m in enumerate(methods):
            vals = sub[sub["method"] == m].set_index("dataset")["mean"].reindex(datasets)
            ax.scatter(
                x - 0.35 + width * (i + 0.5),
                vals.to_numpy(dtype=float),
                color=colors[m],
                marker=markers[i % len(markers)],
                s=36,
                label=m,
                zorder=3,
            )
        for b in x[:-1]:
            ax.axvline(b + 0.5, color="0.85", lw=0.8)
        ax.set_xticks(x, datasets)
        ax.set_xlim(-0.5, len(datasets) - 0.5)
        ax.set_ylabel(_label(metric))
        vals = sub["mean"].to_numpy(dtype=float)
        vals = vals[np.isfinite(vals)]
        if metric in ("f1", "precision", "recall", "auroc", "ap"):
            ax.set_ylim(0, 1)
        elif vals.size and vals.min() > 0 and vals.max() > 10 * vals.min():
            ax.set_ylim(vals.min() / 1.5, vals.max() * 1.5)
            log_axis(ax.yaxis, label=f"{_label(metric)} (log scale)")
        else:
            ax.set_ylim(0, max(1.0, float(vals.max()) * 1.15 if vals.size else 1.0))
        ax.tick_params(axis="x", labelrotation=25)
        for lab in ax.get_xticklabels():
            lab.set_horizontalalignment("right")
        ax.grid(axis="y", alpha=0.3, which="both")
    axs[0].set_title("Scores per real dataset (no line joins unrelated datasets)")
    axs[0].legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _save(fig, path, metadata)


# ----------------------------------------------------------------------------------------------
# runtime T(k)
# ----------------------------------------------------------------------------------------------
def plot_runtime_k(
    points: pd.DataFrame,
    fits: pd.DataFrame,
    path: str | Path,
    *,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Total wall time ``T(k)`` of the nested-k harness with the fitted lines (Table 5).

    Parameters
    ----------
    points : pandas.DataFrame
        ``method``, ``d``, ``k``, ``T_s`` (one row per harness run).
    fits : pandas.DataFrame
        ``method``, ``d``, ``t_fixed_s``, ``t_graph_s``.
    path : str or Path
    metadata : mapping, optional

    Returns
    -------
    Path
    """
    fig = _new(6.8, 4.4)
    ax = fig.add_subplot()
    if points.empty:
        _empty(ax, "no runtime points")
        return _save(fig, path, metadata)
    colors = _method_colors(points["method"])
    for (m, d), sub in points.groupby(["method", "d"], sort=True):
        ax.scatter(sub["k"], sub["T_s"], color=colors[str(m)], s=24, zorder=3)
        f = fits[(fits["method"] == m) & (fits["d"] == d)]
        if not f.empty and np.isfinite(f["t_graph_s"].iloc[0]):
            ks = np.linspace(sub["k"].min(), sub["k"].max(), 50)
            T = f["t_fixed_s"].iloc[0] + ks * f["t_graph_s"].iloc[0]
            ax.plot(
                ks,
                T,
                color=colors[str(m)],
                lw=1,
                label=f"{m} d={d}: {f['t_fixed_s'].iloc[0]:.2g} s + k x "
                f"{f['t_graph_s'].iloc[0]:.2g} s",
            )
    ax.set_xlim(max(0.8, points["k"].min() * 0.8), points["k"].max() * 1.25)
    ax.set_ylim(max(points["T_s"].min() * 0.7, 1e-4), points["T_s"].max() * 1.4)
    log_axis(ax.xaxis, label="k (instances fitted after one load)")
    log_axis(ax.yaxis, label="total wall time T(k) (s)")
    ax.set_title("T(k) = T_fixed + k T_graph (nested-k harness)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize="x-small", loc="upper left")
    return _save(fig, path, metadata)


# ----------------------------------------------------------------------------------------------
# leaderboard bars (Leaderboard.plot)
# ----------------------------------------------------------------------------------------------
def leaderboard_figure(
    board: pd.DataFrame,
    *,
    metric: str = "f1",
    path: str | Path | None = None,
    metadata: Mapping[str, str] | None = None,
) -> Figure:
    """Horizontal bars of each method's pooled ``metric`` with its bootstrap CI.

    Parameters
    ----------
    board : pandas.DataFrame
        Output of :func:`causalarena.eval.analyses.leaderboard` (``method``, ``metric``,
        ``<metric>_ci_low``, ``<metric>_ci_high``).
    metric : str, default "f1"
    path : str or Path, optional
        Also write the PNG there.
    metadata : mapping, optional
        PNG text chunks.

    Returns
    -------
    matplotlib.figure.Figure
    """
    data = board.dropna(subset=[metric]) if metric in board.columns else board.iloc[0:0]
    n = len(data)
    fig = _new(6.4, max(2.2, 0.45 * n + 1.2))
    ax = fig.add_subplot()
    if n == 0:
        _empty(ax, f"no {metric} values")
    else:
        y = np.arange(n)[::-1]
        vals = data[metric].to_numpy(dtype=float)
        lo = data.get(f"{metric}_ci_low", pd.Series(vals)).to_numpy(dtype=float)
        hi = data.get(f"{metric}_ci_high", pd.Series(vals)).to_numpy(dtype=float)
        err = np.nan_to_num(np.vstack([np.clip(vals - lo, 0, None), np.clip(hi - vals, 0, None)]))
        colors = _method_colors(board["method"])
        ax.barh(y, vals, color=[colors[str(m)] for m in data["method"]], xerr=err, capsize=3)
        ax.set_yticks(y, [str(m) for m in data["method"]])
        ax.set_xlabel(f"pooled {_label(metric)} (bars: 95% bootstrap CI)")
        if metric in ("f1", "precision", "recall", "auroc", "ap"):
            ax.set_xlim(0, 1)
        ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"Leaderboard: {_label(metric)}")
    if path is not None:
        _save(fig, path, metadata)
    return fig


# ----------------------------------------------------------------------------------------------
# sample-size and protocol sensitivity (Figure 6)
# ----------------------------------------------------------------------------------------------
def plot_metric_vs_n(
    table: pd.DataFrame,
    path: str | Path,
    *,
    metric: str = "f1",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """One curve per method of a metric against the sample size n, log x axis (paper Fig. 6a).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`causalarena.eval.sensitivity.samplesize_table`: index method, int n columns.
    path : str or Path
        PNG file to write.
    metric : str, default "f1"
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    fig = _new(7.0, 4.4)
    ax = fig.add_subplot()
    if table.size == 0:
        _empty(ax, "no data")
        return _save(fig, path, metadata)
    xs = np.asarray(table.columns, dtype=float)
    markers = "osD^v<>pP*Xh"
    colors = _method_colors(table.index)
    table = _top_curves(table)
    last = table.iloc[:, -1].sort_values(ascending=False, na_position="last").index
    for i, method in enumerate(last):
        ys = table.loc[method].to_numpy(dtype=float)
        ok = np.isfinite(ys)
        ax.plot(
            xs[ok],
            ys[ok],
            marker=markers[i % len(markers)],
            color=colors[str(method)],
            label=str(method),
        )
    ax.set_xscale("log")
    ax.set_xticks(xs, [_tick_label(x) for x in xs])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("observation-only sample size n")
    ax.set_ylabel(f"mean {_label(metric)}")
    if metric in ("f1", "precision", "recall", "auroc", "ap"):
        ax.set_ylim(0, 1)
    ax.set_title(f"{_label(metric)} against sample size (legend ordered by final value)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _save(fig, path, metadata)


def plot_protocol_deltas(
    table: pd.DataFrame,
    path: str | Path,
    *,
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Grouped bars of the F1 change relative to Default per method and protocol (Fig. 6b).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`causalarena.eval.sensitivity.protocol_table` (long form).
    path : str or Path
    metadata : mapping, optional

    Returns
    -------
    Path
    """
    fig = _new(7.5, 4.4)
    ax = fig.add_subplot()
    sub = table[table["delta_f1"].notna()] if "delta_f1" in table else table.iloc[0:0]
    if sub.empty:
        _empty(ax, "no protocol besides Default")
        return _save(fig, path, metadata)
    wide = sub.pivot(index="method", columns="protocol", values="delta_f1")
    wide = wide.reindex(columns=list(dict.fromkeys(sub["protocol"])))
    k = wide.shape[1]
    width = 0.8 / k
    xs = np.arange(wide.shape[0])
    for i, (p, col) in enumerate(zip(wide.columns, _colors(k), strict=True)):
        ax.bar(
            xs + (i - (k - 1) / 2) * width,
            wide[p].to_numpy(dtype=float),
            width,
            color=col,
            label=str(p),
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(xs, [str(m) for m in wide.index], rotation=30, ha="right")
    ax.set_ylabel("F1 change relative to Default")
    ax.set_title("F1 change across intervention protocols (negative = drop)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    return _save(fig, path, metadata)


def plot_domain_shifts(
    matrix: pd.DataFrame,
    std: pd.Series,
    path: str | Path,
    *,
    family: str,
    metric: str = "f1",
    metadata: Mapping[str, str] | None = None,
) -> Path:
    """Heatmap of self-centred domain shifts with a std bar per method (paper Figure 17).

    Parameters
    ----------
    matrix, std : pandas.DataFrame, pandas.Series
        Output of :func:`causalarena.eval.domains.domain_shift_matrix` (methods x domains,
        and each method's std across domains).
    path : str or Path
        PNG file to write.
    family, metric : str
        Names for the title and labels.
    metadata : mapping, optional
        PNG text chunks (provenance).

    Returns
    -------
    Path
    """
    n_m, n_c = matrix.shape
    fig = _new(min(18.0, max(6.5, 0.75 * n_c + 4.5)), min(14.0, max(3.0, 0.42 * n_m + 2.2)))
    if matrix.size == 0:
        _empty(fig.add_subplot(), "no domain scores")
        return _save(fig, path, metadata)
    ax, bar = fig.subplots(1, 2, width_ratios=[max(n_c, 1), 1.6], sharey=True)
    vals = matrix.to_numpy(dtype=float)
    lim = float(np.nanmax(np.abs(vals))) if np.isfinite(vals).any() else 1.0
    lim = lim if lim > 0 else 1.0
    im = ax.imshow(vals, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(np.arange(n_c), [str(c) for c in matrix.columns], rotation=35, ha="right")
    _label_ticks(ax, "y", [str(m) for m in matrix.index])
    if vals.size <= 400:
        for i in range(n_m):
            for j in range(n_c):
                v = vals[i, j]
                if np.isfinite(v):
                    color = "white" if abs(v) > 0.6 * lim else "black"
                    ax.text(j, i, f"{v:+.2f}", ha="center", va="center", fontsize=8, color=color)
    ax.set_title(f"{family} domains: self-centred {_label(metric)}")
    fig.colorbar(im, ax=ax, label=f"{_label(metric)} shift from method average", shrink=0.9)
    bar.barh(np.arange(n_m), std.reindex(matrix.index).to_numpy(dtype=float), color="0.5")
    bar.set_title("Std")
    bar.grid(axis="x", alpha=0.3)
    return _save(fig, path, metadata)
