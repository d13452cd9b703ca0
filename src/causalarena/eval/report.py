"""Write a self-contained results report from a scores table.

:func:`write_report` turns the runner's scores table (one row per method x instance x
replicate) into a folder of tables, PNG figures and a static ``index.html`` leaderboard page:

``scores.parquet``
    The input table, unchanged, with the provenance in the Parquet schema metadata
    (key ``causalarena.provenance``).
``instance_scores.csv``
    Replicate-averaged scores per method x config x SCM
    (:func:`causalarena.eval.analyses.instance_scores`).
``leaderboard.csv`` / ``leaderboard.md``
    One row per method (:func:`causalarena.eval.analyses.leaderboard`), sorted by pooled F1;
    undefined cells are shown as an en dash (``–``) in the Markdown and HTML tables.
``win_rates.csv``, ``runtime.csv``, ``slices/<factor>.csv``, ``interactions/<factor>.csv``,
``ood.csv`` (only when priors are given)
    The analysis tables.
``plots/*.png``
    Win-rate bars (F1 and SHD), one interaction heatmap per factor, F1 against ``d``,
    precision against recall, the accuracy-cost frontier and, with priors, the OOD bars.
``index.html``
    Static page (inline CSS, no JavaScript, no network resources) with the leaderboard, every
    figure and a provenance footer.
``provenance.json``
    Release version, manifest hash, package version of the scores, the version of the package
    that wrote the report, each method's method/library version and the sha256 of every
    written file.

Provenance is recorded in every results file: the three provenance columns are appended to
each CSV, a footer line closes the Markdown and HTML pages, the PNGs carry it in their text
chunks and the Parquet file in its schema metadata.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
import weakref
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from causalarena.eval import analyses as an

# ``causalarena.eval.plots`` (matplotlib, the `plots` extra) is imported inside the functions
# that draw, so the tables and the Markdown page (Leaderboard.to_markdown) work without it

__all__ = ["DEFAULT_FACTORS", "MISSING", "write_report"]

#: Factor columns sliced by default (those present in the table are used).
DEFAULT_FACTORS = (
    "family",
    "setting",
    "config",
    "graph_family",
    "d",
    "n",
    "mechanism_tags",
    "noise_tags",
    "root_tags",
    "root_dependency",
    "difficulty_stressors",
    "domain",
)
#: Placeholder of an undefined cell in the Markdown and HTML leaderboards.
MISSING = "–"
#: Factors drawn as curves rather than interaction heatmaps (ordered; paper Fig. 11).
_CURVE_FACTORS = ("d",)

# (column, header, format) of the rendered leaderboard.
_BOARD_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("f1", "F1", "{:.3f}"),
    ("precision", "Precision", "{:.3f}"),
    ("recall", "Recall", "{:.3f}"),
    ("shd", "SHD", "{:.2f}"),
    ("nshd", "nSHD", "{:.3f}"),
    ("sid", "SID", "{:.1f}"),
    ("auroc", "AUROC", "{:.3f}"),
    ("ap", "AP", "{:.3f}"),
    ("win_rate", "Win rate (F1+SHD)", "{:.3f}"),
    ("win_rate_f1", "Win rate F1", "{:.3f}"),
    ("win_rate_shd", "Win rate SHD", "{:.3f}"),
    ("f1_ok", "F1 (ok runs only)", "{:.3f}"),
    ("shd_ok", "SHD (ok runs only)", "{:.2f}"),
    ("coverage", "Coverage", "{:.1%}"),
)
_METRIC_LABEL = {
    "f1": "F1",
    "shd": "SHD",
    "sid": "SID",
    "precision": "Precision",
    "recall": "Recall",
}
#: Leaderboard columns rendered with their bootstrap CI in brackets (all CIs are in the CSV).
_CI_COLUMNS = frozenset({"f1", "shd", "win_rate"})


# ----------------------------------------------------------------------------------------------
# provenance
# ----------------------------------------------------------------------------------------------
def _single(scores: pd.DataFrame, column: str) -> str | None:
    if column not in scores.columns:
        return None
    values = sorted({str(v) for v in scores[column] if not _isna(v)})
    if len(values) > 1:
        raise ValueError(
            f"scores table mixes several {column} values {values}; write one report per release"
        )
    return values[0] if values else None


def _releases(scores: pd.DataFrame) -> tuple[str | None, str | None]:
    """``release_version`` and ``manifest_sha256`` of the report (joined by ``"; "``).

    One release, or several releases of *different* suites (``<suite>@<version>``, e.g. the
    synthetic, semantic and formula arenas of one Table 2), each with one manifest.

    Raises
    ------
    ValueError
        Two versions of one suite, values that are not ``<suite>@<version>``, or a release
        whose rows carry several manifest hashes.
    """
    if "release_version" not in scores.columns or "manifest_sha256" not in scores.columns:
        return _single(scores, "release_version"), _single(scores, "manifest_sha256")
    rel = scores["release_version"].map(lambda v: None if _isna(v) else str(v))
    values = sorted(set(rel.dropna()))
    if len(values) <= 1:
        return _single(scores, "release_version"), _single(scores, "manifest_sha256")
    suites = [v.split("@", 1)[0] for v in values]
    if any("@" not in v for v in values) or len(set(suites)) < len(suites):
        raise ValueError(
            f"scores table mixes several release_version values {values}; write one report "
            "per release (or combine releases of different suites, <suite>@<version>)"
        )
    hashes = []
    for v in values:
        h = sorted({str(x) for x in scores.loc[rel == v, "manifest_sha256"] if not _isna(x)})
        if len(h) > 1:
            raise ValueError(f"release {v} has several manifest_sha256 values {h}")
        hashes.append(h[0] if h else MISSING)
    return "; ".join(values), "; ".join(hashes)


def _isna(v: Any) -> bool:
    if v is None:
        return True
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _provenance(scores: pd.DataFrame, title: str) -> dict[str, Any]:
    from causalarena import __version__

    methods: dict[str, dict[str, Any]] = {}
    for m, sub in scores.groupby("method", sort=True):
        rec = {}
        for c in an.METHOD_COLUMNS:
            vals = sorted({str(v) for v in sub[c] if not _isna(v)}) if c in sub else []
            rec[c] = None if not vals else vals[0] if len(vals) == 1 else vals
        methods[str(m)] = rec
    return {
        "title": title,
        **dict(zip(("release_version", "manifest_sha256"), _releases(scores), strict=True)),
        "package_version": _single(scores, "package_version"),
        "report_package_version": __version__,
        "configs": sorted({str(c) for c in scores["config"].dropna()}),
        "n_rows": len(scores),
        "methods": methods,
    }


def _footer_text(prov: Mapping[str, Any]) -> str:
    return (
        f"release {prov['release_version'] or MISSING} · manifest sha256 "
        f"{prov['manifest_sha256'] or MISSING} · scores by causalarena "
        f"{prov['package_version'] or MISSING} · report by causalarena "
        f"{prov['report_package_version']}"
    )


def _library_text(prov: Mapping[str, Any]) -> str:
    parts = []
    for m, rec in prov["methods"].items():
        lib = rec.get("library_version")
        lib = ", ".join(lib) if isinstance(lib, list) else lib
        ver = rec.get("method_version")
        ver = ", ".join(ver) if isinstance(ver, list) else ver
        parts.append(f"{m} {ver or MISSING} (library {lib or MISSING})")
    return "; ".join(parts)


# ----------------------------------------------------------------------------------------------
# writers
# ----------------------------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _flat(v: Any) -> Any:
    if isinstance(v, list | tuple | np.ndarray):
        return ";".join(str(x) for x in v)
    return v


def _write_csv(df: pd.DataFrame, path: Path, prov: Mapping[str, Any], index: bool = False) -> Path:
    """CSV with list cells joined by ';' and the provenance columns appended."""
    out = df.reset_index() if index else df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            out[c] = out[c].map(_flat)
    for c in an.PROVENANCE_COLUMNS:
        if c not in out.columns:
            out[c] = prov[c]
    path.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(path, index=False)
    return path


def _write_parquet(scores: pd.DataFrame, path: Path, prov: Mapping[str, Any]) -> Path:
    table = pa.Table.from_pandas(scores, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"causalarena.provenance"] = json.dumps(prov, sort_keys=True).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)
    return path


def _fmt(value: Any, spec: str) -> str:
    if _isna(value):
        return MISSING
    if isinstance(value, float) and math.isinf(value):
        return MISSING
    return spec.format(value)


def _fmt_runtime(value: Any) -> str:
    if _isna(value):
        return MISSING
    return f"{value:.3g}"


def _board_rows(board: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Header and formatted string cells of the rendered leaderboard."""
    cols = [c for c in _BOARD_COLUMNS if c[0] in board.columns]
    header = ["Rank", "Method", "Version", "Library", "Pretraining disclosure"]
    header += [h for _, h, _ in cols]
    header += ["Runs " + "/".join(an.STATUSES), "Runtime (s)"]
    rows = []
    for rank, (_, r) in enumerate(board.iterrows(), start=1):
        cells = [
            str(rank),
            str(r["method"]),
            MISSING if _isna(r.get("method_version")) else str(r["method_version"]),
            MISSING if _isna(r.get("library_version")) else str(r["library_version"]),
            MISSING if _isna(r.get("pretraining_disclosure")) else str(r["pretraining_disclosure"]),
        ]
        for c, _, spec in cols:
            cell = _fmt(r[c], spec)
            if c in _CI_COLUMNS and cell != MISSING:
                lo, hi = r.get(f"{c}_ci_low"), r.get(f"{c}_ci_high")
                if not _isna(lo) and not _isna(hi):
                    cell += f" [{_fmt(lo, spec)}, {_fmt(hi, spec)}]"
            cells.append(cell)
        cells.append("/".join(str(int(r[f"n_{s}"])) for s in an.STATUSES))
        cells.append(_fmt_runtime(r.get("runtime_s")))
        rows.append(cells)
    return header, rows


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], text: Sequence[int]) -> dict:
    return {"header": list(header), "rows": [list(r) for r in rows], "text": set(text)}


def _frame_table(frame: pd.DataFrame, index_name: str = "Method") -> dict:
    """Template table of a string frame (index = first, text column)."""
    header = [index_name, *[str(c) for c in frame.columns]]
    rows = [
        [str(i), *[str(v) for v in r]] for i, r in zip(frame.index, frame.to_numpy(), strict=True)
    ]
    return _table(header, rows, [0])


def _md_cell(v: Any) -> str:
    return str(v).replace("|", "\\|")


@lru_cache(maxsize=2)
def _env(html_mode: bool):
    """Jinja2 environment over the package's ``eval/templates`` (autoescaped for HTML)."""

    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("causalarena.eval", "templates"),
        autoescape=html_mode,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters["md"] = _md_cell
    return env


_BOARD_NOTE = (
    "Sorted by pooled F1. Metrics are means over every replicate-averaged instance of the "
    "config: a missing, failed, timed-out or invalid run is scored as the empty graph (the "
    "fallback); the ok-only columns average the ok runs alone; unsupported splits are left "
    "out. 95% bootstrap confidence intervals over instances in brackets; "
    f"{MISSING} marks an undefined value (e.g. AUROC/AP for methods without edge scores). "
    "Win rate pools F1 and SHD comparisons against every other method on common instances "
    "(ties count 0.5). Coverage = ok runs / all runs. Pretraining disclosure: none, "
    "declared prior or corpus overlap report, as the method's predictions declare it."
)


def render_markdown(
    board: pd.DataFrame,
    title: str,
    prov: Mapping[str, Any],
    sections: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Markdown leaderboard page from ``templates/leaderboard.md.j2``."""
    header, rows = _board_rows(board)
    return (
        _env(False)
        .get_template("leaderboard.md.j2")
        .render(
            title=title,
            board=_table(header, rows, [1, 2, 3, 4]),
            board_note=_BOARD_NOTE,
            sections=list(sections),
            footer=_footer_text(prov),
            libraries=_library_text(prov),
        )
    )


_SUMMARY_COLUMNS = (
    "Rank",
    "Method",
    "F1",
    "SHD",
    "Win rate (F1+SHD)",
    "Coverage",
    "Runtime (s)",
    "Pretraining disclosure",
)


def render_summary(
    board: pd.DataFrame,
    title: str,
    prov: Mapping[str, Any],
    sections: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Compact Markdown (``templates/summary.md.j2``): the columns a terminal can show."""
    header, rows = _board_rows(board)
    keep = [header.index(c) for c in _SUMMARY_COLUMNS if c in header]
    table = _table(
        [header[i] for i in keep], [[r[i] for i in keep] for r in rows], [1, len(keep) - 1]
    )
    return (
        _env(False)
        .get_template("summary.md.j2")
        .render(
            title=title,
            board=table,
            sections=[s for s in sections if s.get("id") == "table2"],
            footer=_footer_text(prov),
        )
    )


def render_html(
    board: pd.DataFrame,
    title: str,
    prov: Mapping[str, Any],
    figures: Sequence[tuple[str, str, str, bool]],
    tables: Sequence[str],
    sections: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Static HTML page (inline CSS, no script, no network) from ``templates/index.html.j2``."""
    from importlib.resources import files

    header, rows = _board_rows(board)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for section, rel, caption, wide in figures:
        grouped.setdefault(section, []).append({"src": rel, "caption": caption, "wide": wide})
    css = files("causalarena.eval").joinpath("templates/style.css").read_text(encoding="utf-8")
    return (
        _env(True)
        .get_template("index.html.j2")
        .render(
            title=title,
            css=_markupsafe(css),
            report_version=str(prov["report_package_version"]),
            configs=", ".join(prov["configs"]) or MISSING,
            n_rows=prov["n_rows"],
            n_methods=len(rows),
            board=_table(header, rows, [1, 2, 3, 4]),
            board_note=_BOARD_NOTE,
            sections=[{**s, "id": s.get("id", "")} for s in sections],
            figures=list(grouped.items()),
            tables=list(tables),
            footer=_footer_text(prov),
            libraries=_library_text(prov),
        )
    )


def _markupsafe(text: str):
    from markupsafe import Markup

    return Markup(text)


# ----------------------------------------------------------------------------------------------
# main entry point
# ----------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(name))


def _dataset_sections(ds: pd.DataFrame) -> list[dict[str, Any]]:
    """One table per real dataset: rows method, columns split x metric ``mean (sd)``."""
    sections = []
    for name, sub in ds.groupby("dataset", sort=True):
        cols: list[tuple[str, str]] = list(
            dict.fromkeys(zip(sub["split"], sub["metric"], strict=True))
        )
        methods = sorted(dict.fromkeys(sub["method"]))
        idx = sub.set_index(["method", "split", "metric"])
        rows = []
        for m in methods:
            cells = [m]
            for split, metric in cols:
                r = idx.loc[(m, split, metric)] if (m, split, metric) in idx.index else None
                if r is None or _isna(r["mean"]):
                    cells.append(MISSING)
                    continue
                spec = (
                    "{:.3f}" if metric in ("f1", "precision", "recall", "auroc", "ap") else "{:.1f}"
                )
                cell = spec.format(r["mean"])
                if not _isna(r["sd"]):
                    cell += f" ({spec.format(r['sd'])})"
                cells.append(cell)
            rows.append(cells)
        header = ["Method", *[f"{s} {_METRIC_LABEL.get(m, m)}" for s, m in cols]]
        n = int(sub["n"].max()) if len(sub) else 0
        sections.append(
            {
                "title": f"Real dataset: {name}",
                "note": f"Mean (sd) over {n} replicate(s) of this dataset only; datasets are "
                "never pooled.",
                "table": _table(header, rows, [0]),
                "id": f"dataset-{_safe(name)}",
            }
        )
    return sections


def _ci_cell(v: Any, lo: Any, hi: Any, spec: str = "{:.3f}") -> str:
    cell = _fmt(v, spec)
    if cell != MISSING and not _isna(lo) and not _isna(hi):
        cell += f" [{_fmt(lo, spec)}, {_fmt(hi, spec)}]"
    return cell


def _win_section(win: pd.DataFrame) -> dict[str, Any]:
    fams = [f for f in dict.fromkeys(win["family"]) if f not in ("all", "family_mean")]
    cols = [*fams, "family_mean", "all"] if fams else ["all"]
    idx = win.set_index(["method", "family"])
    rows = []
    for m in dict.fromkeys(win["method"]):
        cells = [m]
        for f in cols:
            if (m, f) not in idx.index:
                cells.append(MISSING)
                continue
            r = idx.loc[(m, f)]
            cells.append(_ci_cell(r["win_rate"], r["ci_low"], r["ci_high"]))
        rows.append(cells)
    header = [
        "Method",
        *[{"family_mean": "Family mean", "all": "All units"}.get(f, f) for f in cols],
    ]
    return {
        "title": "Pooled pairwise win rate (observation-only, F1 and SHD)",
        "note": "On each instance every method pair is compared on F1 and on SHD separately "
        "(higher F1 wins, lower SHD wins, ties 0.5); a cell is wins / comparisons pooled over "
        "both metrics and all opponents in the family, with a 95% bootstrap CI over "
        "instances. Ordered by the family mean (paper Figure 1).",
        "table": _table(header, rows, [0]),
        "id": "win-rates",
    }


def _edge_sections(edges: pd.DataFrame) -> list[dict[str, Any]]:
    sections = []
    for axis, sub in edges.groupby("axis", sort=True):
        wide = an.format_edge_table(sub)
        sections.append(
            {
                "title": f"Edge-level {axis} breakdown (edge F1, obs / obs+int)",
                "note": "Each ordered pair (i, j) is assigned the child j's tag; edge F1 = "
                "2 TP / (2 TP + FP + FN) from TP/FP/FN aggregated over instances (paper "
                "Tables 12-13).",
                "table": _frame_table(wide),
                "id": f"edges-{_safe(axis)}",
            }
        )
    return sections


def _runtime_section(fits: pd.DataFrame) -> dict[str, Any]:
    rows = []
    for r in fits.itertuples():
        rows.append(
            [
                str(r.method),
                str(r.d),
                _fmt_runtime(r.t_fixed_s),
                _fmt_runtime(r.t_graph_s),
                _fmt(r.r2, "{:.3f}"),
                str(r.n),
            ]
        )
    return {
        "title": "Runtime: T(k) = T_fixed + k T_graph",
        "note": "Least-squares fit over the nested-k harness: each point runs the method on "
        "k instances in one fresh worker, so T_fixed holds the start-up and load cost and "
        "T_graph the per-graph cost (paper Table 5).",
        "table": _table(["Method", "d", "T_fixed (s)", "T_graph (s)", "R²", "points"], rows, [0]),
        "id": "runtime-k",
    }


#: Scores tables with at least this many rows draw their figures in one spawned process while
#: the main process writes the tables (the figures of a 5,000-row report cost about a third of
#: its time); smaller reports draw inline, where a process start would cost more than it saves.
PARALLEL_PLOT_ROWS = 2000


class _Plotter:
    """Calls a plot function now, or (``parallel``) in a one-process pool, returning its path.

    The plot functions of :mod:`causalarena.eval.plots` draw on their own ``Figure`` with the
    Agg canvas and take their path as the first :class:`~pathlib.Path` argument, so a figure
    drawn in the pool has the same bytes as one drawn inline.  :meth:`wait` returns when every
    figure is written and re-raises the first error of a plot function.
    """

    def __init__(self, parallel: bool) -> None:
        self._pool = None
        self._futures: list = []
        if parallel:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"))
            weakref.finalize(self, self._pool.shutdown, wait=False, cancel_futures=True)

    def __call__(self, fn, *args, **kwargs) -> Path:
        if self._pool is None:
            return fn(*args, **kwargs)
        self._futures.append(self._pool.submit(fn, *args, **kwargs))
        return next(Path(a) for a in args if isinstance(a, Path))

    def wait(self) -> None:
        if self._pool is None:
            return
        try:
            for f in self._futures:
                f.result()
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)


def write_report(
    scores: pd.DataFrame | str | Path,
    out_dir: str | Path,
    *,
    title: str = "CausalArena results",
    factors: Sequence[str] | None = None,
    priors: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
    reference_methods: Sequence[str] | None = None,
    ood_factors: Sequence[str] | None = None,
    edges: pd.DataFrame | None = None,
    runtime_points: pd.DataFrame | None = None,
    prior_coverage: pd.DataFrame | None = None,
    seed: int = 0,
    only_run_instances: bool = False,
) -> dict[str, Path]:
    """Write tables, figures, ``index.html`` and ``provenance.json`` for a scores table.

    All aggregates follow the rules of :mod:`causalarena.eval.analyses`: replicates are
    averaged per method x config x SCM over ``ok`` runs (paper B.1), pooled and slice scores
    are means of those instance scores (eqs. 5-6), non-ok runs are counted in the coverage and
    status columns instead of being scored, and win-rate ties count 0.5.  Every leaderboard
    mean and win rate carries a seeded 95% bootstrap CI.  The pages are rendered from the
    Jinja2 templates in ``causalarena/eval/templates``.

    Besides the files listed in the module docstring the report writes ``table2.csv`` /
    ``table2.md`` (family x split cells, paper Table 2), ``pooled_win_rates.csv`` and
    ``win_matrix.csv`` (obs-only, F1+SHD pooled, Figure 1/19), ``critical_difference.csv``
    and its diagram when at least three methods share at least five instances,
    ``datasets.csv`` plus one table per real dataset, ``edges.csv`` (edge-level breakdown,
    when ``edges`` is given) and ``runtime_k.csv`` (when ``runtime_points`` is given).

    Parameters
    ----------
    scores : pandas.DataFrame or path
        The runner's scores table, or a Parquet file of it.
    out_dir : str or Path
        Output folder (created; existing files with the same names are overwritten).
    title : str, default "CausalArena results"
        Page and Markdown title.
    factors : sequence of str, optional
        Factor columns to slice; default: the :data:`DEFAULT_FACTORS` present in the table.
        Each gets ``slices/<factor>.csv``; each with at least two categories (except ``d``,
        drawn as curves) also gets an interaction CSV and heatmap.
    priors : mapping, optional
        Documented pretraining priors ``{method: {factor: [categories]}}``; with
        ``reference_methods`` this adds ``ood.csv`` and ``plots/ood.png``
        (:func:`causalarena.eval.analyses.ood_scores`, observation-only rows).
    reference_methods : sequence of str, optional
        Reference group of the OOD score.
    ood_factors : sequence of str, optional
        Factor axes of the OOD score; default: the axes named in ``priors`` that exist in the
        table.
    edges : pandas.DataFrame, optional
        Edge counts of :func:`causalarena.eval.edges.edge_counts` (Tables 12-13).
    runtime_points : pandas.DataFrame, optional
        Rows of :func:`causalarena.eval.timing.nested_k_runtime` (Table 5).
    prior_coverage : pandas.DataFrame, optional
        :func:`causalarena.eval.priors.coverage_table` of the priors file used (Figure 14),
        written as ``prior_coverage.csv`` and a table.
    seed : int, default 0
        Seed of every bootstrap CI.
    only_run_instances : bool, default False
        Table 3 and Figure 6 (the protocol and sample-size analyses) over the instances each
        method ran only, scored by their ok runs
        (:func:`causalarena.eval.sensitivity.run_instances`), instead of scoring the instances
        not run as the empty graph (the coverage rule); the sections, ``table3.csv`` and
        ``samplesize.csv`` say which (``instances`` column).  Every other table keeps the
        coverage rule.

    Returns
    -------
    dict of str to Path
        Written files keyed by their path relative to ``out_dir`` (e.g. ``"leaderboard.md"``,
        ``"plots/frontier.png"``).

    Raises
    ------
    ValueError
        The table is empty, lacks a required column, has an unknown status, mixes several
        versions of one suite / manifest hashes of one release / package versions (releases
        of different suites, e.g. the synthetic, semantic and formula arenas, may share one
        report and its Table 2), or names an unknown factor;
        ``priors`` given without ``reference_methods``.
    FileNotFoundError
        ``scores`` is a path that does not exist.
    """
    from causalarena.eval import plots

    if isinstance(scores, str | Path):
        path = Path(scores)
        if not path.exists():
            raise FileNotFoundError(f"scores file {path} does not exist")
        scores = pd.read_parquet(path)
    if priors is not None and not reference_methods:
        raise ValueError("priors were given without reference_methods for the OOD score")
    inst = an.instance_scores(scores)
    prov = _provenance(scores, title)
    out = Path(out_dir)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    meta = {"Title": title, "Description": _footer_text(prov)}
    meta["causalarena.provenance"] = json.dumps(
        {k: prov[k] for k in ("release_version", "manifest_sha256", "package_version")}
        | {"library_versions": {m: r["library_version"] for m, r in prov["methods"].items()}},
        sort_keys=True,
    )
    sections: list[dict[str, Any]] = []

    def keep(path: Path) -> None:
        written[path.relative_to(out).as_posix()] = path

    keep(_write_parquet(scores, out / "scores.parquet", prov))
    keep(_write_csv(inst, out / "instance_scores.csv", prov))

    board = an.leaderboard(inst, seed=seed)
    keep(_write_csv(board, out / "leaderboard.csv", prov))

    figures: list[tuple[str, str, str, bool]] = []
    draw = _Plotter(len(scores) >= PARALLEL_PLOT_ROWS and (os.cpu_count() or 1) > 1)

    def fig(section: str, path: Path, caption: str, wide: bool = False) -> None:
        keep(path)
        figures.append((section, path.relative_to(out).as_posix(), caption, wide))

    # Table 2 layout
    t2_metrics = [m for m in ("f1", "shd") if m in inst.columns]
    generated = inst[inst["family"] != "real"] if "family" in inst.columns else inst
    if "family" in generated.columns:  # the sensitivity suites have their own section (5.3)
        generated = generated[~generated["family"].isin(SENSITIVITY_FAMILIES)]
    if t2_metrics and {"family", "setting"} <= set(inst.columns) and not generated.empty:
        t2 = an.benchmark_table(generated, t2_metrics, seed=seed)
        keep(_write_csv(t2, out / "table2.csv", prov))
        wide = an.format_benchmark_table(t2, MISSING)
        sections.append(
            {
                "title": "Benchmark table (" + " / ".join(m.upper() for m in t2_metrics) + ")",
                "note": "Paper Table 2 layout: family x split cells of the generated SCM "
                "families (real datasets have their own tables below), mean (standard "
                "deviation) over replicate-averaged instances; obs+int is observational plus "
                "interventional. Avg is the unweighted mean over the cells the method "
                "supports. SHD is not commensurate across families of different graph size.",
                "table": _frame_table(wide),
                "id": "table2",
            }
        )

    # self-centred domain F1 shifts of the scenario families (paper section 6.3, Figure 17)
    if "f1" in inst.columns:
        sections += _domain_shift_sections(inst, out, prov, meta, keep, figures, draw)

    # sortability controls against PC, per graph family (issue 10 section 1)
    methods_present = set(inst["method"])
    if (
        "graph_family" in inst.columns
        and "f1" in inst.columns
        and "pc" in methods_present
        and methods_present & set(an.CONTROL_METHODS)
    ):
        flags = an.control_flags(inst)
        keep(_write_csv(flags, out / "sortability_controls.csv", prov))
        sections.append(_controls_section(flags))

    # win rates (per metric, then pooled F1+SHD obs-only as in Figure 1/19)
    frames = []
    for metric in ("f1", "shd"):
        if metric not in inst.columns:
            continue
        win = an.win_rates(inst, metric)
        frames.append(win.reset_index().assign(metric=metric))
        fig(
            "Pairwise win rates",
            draw(
                plots.plot_win_rates,
                win,
                out / "plots" / f"win_rates_{metric}.png",
                metric=metric,
                metadata=meta,
            ),
            f"Mean pairwise win rate on {metric.upper()} per SCM family (ties count 0.5)",
        )
    if frames:
        keep(_write_csv(pd.concat(frames, ignore_index=True), out / "win_rates.csv", prov))
    obs = inst[inst["setting"] == "obs"] if "setting" in inst.columns else inst
    if t2_metrics and not obs.empty:
        pw = an.pooled_win_rates(inst, t2_metrics, seed=seed)
        keep(_write_csv(pw, out / "pooled_win_rates.csv", prov))
        sections.append(_win_section(pw))
        fig(
            "Pairwise win rates",
            draw(
                plots.plot_pooled_win_rates,
                pw,
                out / "plots" / "pooled_win_rates.png",
                metadata=meta,
            ),
            "Observation-only win rate pooled over F1 and SHD per family, 95% bootstrap CI "
            "(paper Figure 1)",
            wide=True,
        )
        mat = an.pooled_win_matrix(inst, t2_metrics)
        keep(_write_csv(mat, out / "win_matrix.csv", prov, index=True))
        fig(
            "Pairwise win rates",
            draw(plots.plot_win_matrix, mat, out / "plots" / "win_matrix.png", metadata=meta),
            "Observation-only win rate of row over column, F1 and SHD pooled (paper Figure 19)",
        )

    # critical difference over common instances
    if "f1" in inst.columns:
        try:
            cd = an.critical_difference(inst, "f1")
        except ValueError:
            cd = None
        if cd is not None and len(cd.ranks) >= 3 and cd.n_instances >= 5:
            cdf = cd.ranks.rename("mean_rank").reset_index()
            cdf["cd"], cdf["n_instances"], cdf["friedman_p"] = cd.cd, cd.n_instances, cd.friedman_p
            keep(_write_csv(cdf, out / "critical_difference.csv", prov))
            fig(
                "Ranking",
                draw(
                    plots.plot_critical_difference,
                    cd,
                    out / "plots" / "critical_difference.png",
                    metadata=meta,
                ),
                f"Average F1 rank over {cd.n_instances} instances every method solved; bars join "
                "methods whose ranks differ by less than the Nemenyi critical difference",
                wide=True,
            )

    # accuracy-cost and precision-recall
    if "runtime_s" in inst.columns:
        fig(
            "Accuracy and cost",
            draw(plots.plot_frontier, board, out / "plots" / "frontier.png", metadata=meta),
            "Pooled F1 against mean runtime per instance; dashed line: Pareto frontier",
        )
    if {"precision", "recall"} <= set(board.columns):
        fig(
            "Accuracy and cost",
            draw(
                plots.plot_precision_recall,
                board,
                out / "plots" / "precision_recall.png",
                metadata=meta,
            ),
            "Pooled precision against pooled recall (dotted: F1 iso-lines)",
        )
    # curves against d only over generated families: real datasets of different d are
    # unrelated systems and must not be joined by a line
    if "d" in generated.columns and "f1" in generated.columns and not generated.empty:
        # a d a method never ran is left out of its curve, not drawn as the fallback's F1 = 0
        ran = generated
        if {"n_missing", "n_runs"} <= set(generated.columns):
            ran = generated[generated["n_missing"] < generated["n_runs"]]
        vs_d = an.slice_means(ran if not ran.empty else generated, "d", "f1")
        fig(
            "Scale",
            draw(
                plots.plot_metric_vs_d,
                vs_d,
                out / "plots" / "f1_vs_d.png",
                metadata=meta,
            ),
            "Mean F1 against the number of variables d (generated SCMs only; instances a "
            "method never submitted are left out of its curve)"
            + (
                f"; the {plots.MAX_CURVES} methods of highest mean F1 of {len(vs_d)}"
                if len(vs_d) > plots.MAX_CURVES
                else ""
            ),
        )
    if {"runtime_s", "d"} <= set(inst.columns):
        keep(_write_csv(an.runtime_table(inst), out / "runtime.csv", prov, index=True))

    # sample-size and intervention-protocol sensitivity (paper 5.3: Table 3, Figure 6)
    sections += _sensitivity(inst, out, prov, meta, keep, fig, draw, only_run=only_run_instances)

    # real datasets: one table each, dot plot without lines across datasets
    ds = an.dataset_scores(inst, seed=seed)
    if not ds.empty:
        keep(_write_csv(ds, out / "datasets.csv", prov))
        sections += _dataset_sections(ds)
        fig(
            "Real datasets",
            draw(
                plots.plot_dataset_scores,
                ds[ds["split"] == "obs"] if (ds["split"] == "obs").any() else ds,
                out / "plots" / "datasets.png",
                metadata=meta,
            ),
            "F1 and SHD per real dataset and method (observation-only split)",
            wide=True,
        )

    # slices and interactions
    if factors is None:
        factors = [f for f in DEFAULT_FACTORS if f in inst.columns]
    for factor in factors:
        if factor not in inst.columns:
            raise ValueError(f"unknown factor {factor!r}: no such column in the scores table")
        name = _safe(factor)
        keep(_write_csv(an.slice_table(inst, factor), out / "slices" / f"{name}.csv", prov))
        if factor in _CURVE_FACTORS or "f1" not in inst.columns:
            continue
        means = an.slice_means(inst, factor, "f1")
        if means.shape[1] < 2 or means.dropna(how="all").shape[0] < 2:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                inter = an.interaction_scores(inst, factor, "f1")
        except ValueError:
            continue
        keep(_write_csv(inter, out / "interactions" / f"{name}.csv", prov, index=True))
        fig(
            "Factor interactions (double-centred F1)",
            draw(
                plots.plot_interaction,
                inter,
                out / "plots" / f"interaction_{name}.png",
                factor=factor,
                metadata=meta,
            ),
            f"Double-centred F1 interaction, method x {factor}",
            wide=inter.shape[1] > 8,
        )

    # edge-level mechanism / noise breakdown
    if edges is not None and not edges.empty:
        keep(_write_csv(edges, out / "edges.csv", prov))
        sections += _edge_sections(edges)

    # OOD (observation-only rows, paper 6.2)
    if priors is not None:
        axes = ood_factors
        if axes is None:
            axes = sorted({a for p in priors.values() for a in (p or {}) if a in inst.columns})
        if axes:
            ood = an.ood_scores(obs, priors, list(reference_methods or []), list(axes))
            keep(_write_csv(ood, out / "ood.csv", prov))
            fig(
                "Pretraining-exposure OOD score",
                draw(plots.plot_ood, ood, out / "plots" / "ood.png", metadata=meta),
                "Relative F1 gain over the reference group on in-prior (ID) and "
                "out-of-prior (OOD) categories",
                wide=len(axes) > 2,
            )
            sections.append(_ood_section(ood, list(reference_methods or [])))

    if prior_coverage is not None and not prior_coverage.empty:
        keep(_write_csv(prior_coverage, out / "prior_coverage.csv", prov))
        sections.append(_coverage_section(prior_coverage))

    # runtime T(k)
    if runtime_points is not None and not runtime_points.empty:
        fits = an.runtime_k_fits(runtime_points)
        keep(_write_csv(runtime_points, out / "runtime_k.csv", prov))
        keep(_write_csv(fits, out / "runtime_k_fits.csv", prov))
        sections.append(_runtime_section(fits))
        fig(
            "Runtime",
            draw(
                plots.plot_runtime_k,
                runtime_points,
                fits,
                out / "plots" / "runtime_k.png",
                metadata=meta,
            ),
            "Total wall time of k instances after one load, with the T(k) fit",
        )

    md = out / "leaderboard.md"
    md.write_text(render_markdown(board, title, prov, sections), encoding="utf-8")
    keep(md)
    summary = out / "summary.md"
    summary.write_text(render_summary(board, title, prov, sections), encoding="utf-8")
    keep(summary)
    tables = [k for k in written if k.endswith((".csv", ".md", ".parquet"))]
    index = out / "index.html"
    index.write_text(render_html(board, title, prov, figures, tables, sections), encoding="utf-8")
    keep(index)

    draw.wait()  # every figure is on disk before its checksum is taken
    prov_path = out / "provenance.json"
    record = dict(prov)
    record["files"] = {k: _sha256(p) for k, p in sorted(written.items())}
    prov_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    keep(prov_path)
    return written


#: ``family`` values of the sensitivity suites, kept out of the Table 2 cells.
SENSITIVITY_FAMILIES = ("samplesize", "protocols")


def _sensitivity(
    inst, out: Path, prov, meta, keep, fig, draw, only_run: bool = False
) -> list[dict]:
    """Table 3 and Figure 6 when ``protocols-*`` / ``samplesize-n*`` configs are scored;
    ``only_run``: over the instances that were run (:func:`sensitivity.run_instances`)."""
    from causalarena.eval import plots
    from causalarena.eval import sensitivity as sens

    sections: list[dict[str, Any]] = []
    if "f1" not in inst.columns:
        return sections
    if only_run:
        inst = sens.run_instances(inst)
        label, tag = " — run instances only", "run only"
        rule = (
            "Only the instances each method ran (status ok), scored by their ok runs; "
            "instances not run are left out (report option only_run_instances)."
        )
    else:
        label, tag = "", "all (not run = empty graph)"
        rule = (
            "Instances a method did not run (missing, failed, timed out, invalid) are scored "
            "as the empty graph (coverage rule)."
        )
    t3 = sens.protocol_table(inst)
    if not t3.empty:
        keep(_write_csv(t3.assign(instances=tag), out / "table3.csv", prov))
        wide = sens.format_protocol_table(t3, MISSING)
        sections.append(
            {
                "title": f"Intervention-protocol sensitivity (F1 / SHD){label}",
                "note": "Paper Table 3 layout: mean F1 / SHD over the suite's SCMs per protocol; "
                "in brackets the F1 change relative to Default (mean paired difference over the "
                "SCMs scored under both); F1 SD is the standard deviation of the method's "
                f"protocol mean F1s across protocols (lower is steadier). {rule}",
                "table": _frame_table(wide.set_index("Method")),
                "id": "table3",
            }
        )
        fig(
            "Sample size and intervention protocol",
            draw(
                plots.plot_protocol_deltas, t3, out / "plots" / "protocol_deltas.png", metadata=meta
            ),
            f"F1 change relative to Default per intervention protocol (paper Figure 6b){label}",
            wide=True,
        )
    f1n = sens.samplesize_table(inst, "f1")
    if not f1n.empty:
        long = f1n.stack().rename("f1").reset_index()
        if "shd" in inst.columns:
            shd = sens.samplesize_table(inst, "shd").stack().rename("shd").reset_index()
            long = long.merge(shd, on=["method", "n"], how="left")
        keep(_write_csv(long.assign(instances=tag), out / "samplesize.csv", prov))
        fmt = f1n.map(lambda v: MISSING if pd.isna(v) else f"{v:.3f}")
        fmt.columns = [f"n={c}" for c in fmt.columns]
        sections.append(
            {
                "title": f"Observation-only sample size (mean F1){label}",
                "note": "Paper Figure 6a / Table 18: mean F1 per observation-only sample size n "
                f"on the same SCMs (nested samples). {rule}",
                "table": _frame_table(fmt),
                "id": "samplesize",
            }
        )
        fig(
            "Sample size and intervention protocol",
            draw(plots.plot_metric_vs_n, f1n, out / "plots" / "f1_vs_n.png", metadata=meta),
            f"Mean F1 against the observation-only sample size n (paper Figure 6a){label}",
        )
    return sections


def _domain_shift_sections(inst, out, prov, meta, keep, figures, draw) -> list[dict[str, Any]]:
    """``domain_shifts.csv``, one table and one heatmap per family with a ``domain`` column."""
    from causalarena.eval import plots
    from causalarena.eval.domains import domain_shift_matrix, domain_shifts

    shifts = domain_shifts(inst, "f1")
    if shifts.empty:
        return []
    keep(_write_csv(shifts, out / "domain_shifts.csv", prov))
    sections = []
    for family in sorted(set(shifts["family"]), key=lambda f: (an._family_rank(f), f)):
        mat, std = domain_shift_matrix(shifts, family)
        rows = [
            [str(m), *[_fmt(v, "{:+.3f}") for v in mat.loc[m]], _fmt(std[m], "{:.3f}")]
            for m in mat.index
        ]
        sections.append(
            {
                "title": f"Self-centred domain F1 shifts: {family} (observation-only)",
                "note": "A method's mean F1 on a domain minus its own mean F1 over the "
                f"family's units (its {family} obs cell of the benchmark table); Std is the "
                "population standard deviation of the method's shifts across domains (paper "
                "section 6.3, Figure 17). Methods ordered by Std, most domain-sensitive first.",
                "table": _table(["Method", *map(str, mat.columns), "Std"], rows, [0]),
                "id": f"domain-shifts-{_safe(family)}",
            }
        )
        path = draw(
            plots.plot_domain_shifts,
            mat,
            std,
            out / "plots" / f"domain_shifts_{_safe(family)}.png",
            family=family,
            metadata=meta,
        )
        keep(path)
        figures.append(
            (
                "Domains (self-centred F1)",
                path.relative_to(out).as_posix(),
                f"{family} domains: F1 shift of each method from its own family average, with "
                "its std across domains (paper Figure 17)",
                mat.shape[1] > 8,
            )
        )
    return sections


def _controls_section(flags: pd.DataFrame) -> dict[str, Any]:
    beaten = flags[flags["beats"]]
    rows = [
        [
            str(r.graph_family),
            str(r.control),
            f"{r.control_mean:.3f}",
            f"{r.reference_mean:.3f}",
            str(int(r.n)),
        ]
        for r in beaten.itertuples()
    ]
    header = ["Graph family", "Control", "Control F1", "PC F1", "Instances"]
    fams = sorted({str(f) for f in beaten["graph_family"]})
    note = (
        "Order-then-regress controls (random, variance, R2 and reverse-R2 order) that beat PC "
        "on mean F1 over the instances both scored. A control that only sorts variables "
        "should not beat a causal-discovery method; where one does, the family's generator "
        "leaves an exploitable sortability artefact. "
        + (
            f"Flagged families: {', '.join(fams)}."
            if fams
            else "No family is flagged: PC beats or ties every control everywhere."
        )
    )
    return {
        "title": "Sortability controls",
        "note": note,
        "table": _table(header, rows, [0, 1]),
        "id": "sortability",
    }


def _ood_section(ood: pd.DataFrame, refs: Sequence[str]) -> dict[str, Any]:
    rows = []
    for r in ood.itertuples():
        rows.append(
            [
                str(r.method),
                str(r.factor),
                MISSING if _isna(r.n_id) else str(int(r.n_id)),
                MISSING if _isna(r.n_ood) else str(int(r.n_ood)),
                _fmt(r.r_id, "{:+.1%}"),
                _fmt(r.r_ood, "{:+.1%}"),
                _fmt(r.gap, "{:+.1%}"),
            ]
        )
    header = ["Method", "Factor", "ID cats", "OOD cats", "R ID", "R OOD", "ID-OOD gap"]
    return {
        "title": "Pretraining-exposure OOD score (eq. 8)",
        "note": "Relative F1 gain over the reference group ("
        + (", ".join(refs) or MISSING)
        + ") on categories inside (ID) and outside (OOD) each method's audited pretraining "
        "prior, observation-only; a positive gap means the lead shrinks off-prior.",
        "table": _table(header, rows, [0, 1]),
        "id": "ood",
    }


def _coverage_section(cov: pd.DataFrame) -> dict[str, Any]:
    axes = ("graph_family", "mechanism_tags", "noise_tags", "root_tags")
    rows = [
        [
            str(r["method"]),
            *[str(r[a]) for a in axes],
            _fmt(r["mean"], "{:.0%}"),
            "categories listed" if r["audited"] else "counts only (Figure 14)",
        ]
        for _, r in cov.iterrows()
    ]
    version = str(cov["priors_version"].iloc[0]) if "priors_version" in cov.columns else MISSING
    return {
        "title": "Documented pretraining-prior coverage (Figure 14)",
        "note": f"Covered / total synthetic categories per axis in the priors file (version "
        f"{version}); Mean is the unweighted mean of the four ratios. Only methods whose "
        "categories are listed enter the OOD score.",
        "table": _table(
            ["Method", "Graph", "Mechanism", "Noise", "Root", "Mean", "Audit"], rows, [0, 6]
        ),
        "id": "prior-coverage",
    }
