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
import html
import json
import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from causalarena.eval import analyses as an
from causalarena.eval import plots

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
    ("win_rate_f1", "Win rate F1", "{:.3f}"),
    ("win_rate_shd", "Win rate SHD", "{:.3f}"),
    ("coverage", "Coverage", "{:.1%}"),
)


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
        "release_version": _single(scores, "release_version"),
        "manifest_sha256": _single(scores, "manifest_sha256"),
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
    header = ["Rank", "Method", "Version", "Library"] + [h for _, h, _ in cols]
    header += ["Runs ok/failed/timeout/invalid/unsupported", "Runtime (s)"]
    rows = []
    for rank, (_, r) in enumerate(board.iterrows(), start=1):
        cells = [
            str(rank),
            str(r["method"]),
            MISSING if _isna(r.get("method_version")) else str(r["method_version"]),
            MISSING if _isna(r.get("library_version")) else str(r["library_version"]),
        ]
        cells += [_fmt(r[c], spec) for c, _, spec in cols]
        cells.append("/".join(str(int(r[f"n_{s}"])) for s in an.STATUSES))
        cells.append(_fmt_runtime(r.get("runtime_s")))
        rows.append(cells)
    return header, rows


def _markdown(board: pd.DataFrame, title: str, prov: Mapping[str, Any]) -> str:
    header, rows = _board_rows(board)

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = ["---:" if i == 0 or i >= 4 else ":---" for i in range(len(header))]
    out = [f"# {title}", "", line(header), "| " + " | ".join(align) + " |"]
    out += [line(r) for r in rows]
    out += [
        "",
        f"Sorted by pooled F1. Metrics are means over replicate-averaged instances with at least "
        f"one ok run; {MISSING} marks an undefined value (e.g. AUROC/AP for methods without "
        f"edge scores). Coverage = ok runs / all runs.",
        "",
        f"Provenance: {_footer_text(prov)}.",
        "",
        f"Method versions: {_library_text(prov)}.",
        "",
    ]
    return "\n".join(out)


_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;background:#fff}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;
border-bottom:1px solid #ddd;padding-bottom:.2em}
table.leaderboard{border-collapse:collapse;font-size:.85em;width:100%;margin:.6em 0}
table.leaderboard th,table.leaderboard td{border:1px solid #ccc;padding:.3em .45em;
text-align:right;white-space:nowrap}
table.leaderboard th{background:#f0f3f6;white-space:normal;vertical-align:bottom}
.scroll{overflow-x:auto}
table.leaderboard td.text,table.leaderboard th.text{text-align:left}
table.leaderboard tbody tr:nth-child(even){background:#fafafa}
.figs{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
figure{margin:0;border:1px solid #e3e3e3;padding:.5em;background:#fff;box-sizing:border-box;
max-width:calc(50% - .5em)}
figure.wide{max-width:100%}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#555;margin-top:.3em}
.note{font-size:.85em;color:#555}
footer{margin-top:2em;border-top:1px solid #ddd;padding-top:.6em;font-size:.8em;color:#555;
word-break:break-all}
"""


def _html(
    board: pd.DataFrame,
    title: str,
    prov: Mapping[str, Any],
    figures: Sequence[tuple[str, str, str, bool]],
    tables: Sequence[str],
) -> str:
    esc = html.escape
    header, rows = _board_rows(board)
    text_cols = {1, 2, 3}
    th = "".join(
        f'<th class="text" scope="col">{esc(h)}</th>'
        if i in text_cols
        else f'<th scope="col">{esc(h)}</th>'
        for i, h in enumerate(header)
    )
    body = []
    for r in rows:
        tds = "".join(
            f'<td class="text">{esc(c)}</td>' if i in text_cols else f"<td>{esc(c)}</td>"
            for i, c in enumerate(r)
        )
        body.append(f'<tr class="method-row">{tds}</tr>')
    sections: dict[str, list[str]] = {}
    for section, rel, caption, wide in figures:
        cls = ' class="wide"' if wide else ""
        sections.setdefault(section, []).append(
            f'<figure{cls}><img src="{esc(rel)}" alt="{esc(caption)}" loading="eager">'
            f"<figcaption>{esc(caption)}</figcaption></figure>"
        )
    fig_html = "".join(
        f'<h2>{esc(section)}</h2><div class="figs">{"".join(items)}</div>'
        for section, items in sections.items()
    )
    links = " · ".join(f'<a href="{esc(t)}">{esc(t)}</a>' for t in tables)
    configs = ", ".join(prov["configs"]) or MISSING
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="causalarena {esc(str(prov["report_package_version"]))}">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>\n"
        f"<header><h1>{esc(title)}</h1>"
        f'<p class="note">Configs: {esc(configs)} · {prov["n_rows"]} scored runs · '
        f"{len(rows)} methods</p></header>\n"
        "<main><h2>Leaderboard</h2>"
        f'<div class="scroll"><table class="leaderboard" id="leaderboard"><thead><tr>{th}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
        f'<p class="note">Sorted by pooled F1. Metrics are means over replicate-averaged '
        f"instances with at least one ok run; {MISSING} marks an undefined value (e.g. "
        f"AUROC/AP for methods without edge scores). Win rates are mean pairwise win rates "
        f"over common scored instances (ties count 0.5). Coverage = ok runs / all runs.</p>\n"
        f"{fig_html}\n"
        f'<h2>Tables</h2><p class="note">{links}</p></main>\n'
        f'<footer id="provenance"><p>{esc(_footer_text(prov))}</p>'
        f"<p>Method versions: {esc(_library_text(prov))}</p></footer>\n"
        "</body></html>\n"
    )


# ----------------------------------------------------------------------------------------------
# main entry point
# ----------------------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(name))


def write_report(
    scores: pd.DataFrame | str | Path,
    out_dir: str | Path,
    *,
    title: str = "CausalArena results",
    factors: Sequence[str] | None = None,
    priors: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
    reference_methods: Sequence[str] | None = None,
    ood_factors: Sequence[str] | None = None,
) -> dict[str, Path]:
    """Write tables, figures, ``index.html`` and ``provenance.json`` for a scores table.

    All aggregates follow the rules of :mod:`causalarena.eval.analyses`: replicates are
    averaged per method x config x SCM over ``ok`` runs (paper B.1), pooled and slice scores
    are means of those instance scores (eqs. 5-6), non-ok runs are counted in the coverage and
    status columns instead of being scored, and win-rate ties count 0.5.  The report covers
    every row of ``scores``; filter the table first (e.g. to ``config == "synthetic-obs"``) for
    a split-specific report, as the paper's interaction figures use the obs-only synthetic
    split.

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
        (:func:`causalarena.eval.analyses.ood_scores`).
    reference_methods : sequence of str, optional
        Reference group of the OOD score.
    ood_factors : sequence of str, optional
        Factor axes of the OOD score; default: the axes named in ``priors`` that exist in the
        table.

    Returns
    -------
    dict of str to Path
        Written files keyed by their path relative to ``out_dir`` (e.g. ``"leaderboard.md"``,
        ``"plots/frontier.png"``).

    Raises
    ------
    ValueError
        The table is empty, lacks a required column, has an unknown status, mixes several
        release versions / manifest hashes / package versions, or names an unknown factor;
        ``priors`` given without ``reference_methods``.
    FileNotFoundError
        ``scores`` is a path that does not exist.
    """
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

    def keep(path: Path) -> None:
        written[path.relative_to(out).as_posix()] = path

    keep(_write_parquet(scores, out / "scores.parquet", prov))
    keep(_write_csv(inst, out / "instance_scores.csv", prov))

    board = an.leaderboard(inst)
    keep(_write_csv(board, out / "leaderboard.csv", prov))
    md = out / "leaderboard.md"
    md.write_text(_markdown(board, title, prov), encoding="utf-8")
    keep(md)

    figures: list[tuple[str, str, str, bool]] = []

    def fig(section: str, path: Path, caption: str, wide: bool = False) -> None:
        keep(path)
        figures.append((section, path.relative_to(out).as_posix(), caption, wide))

    # win rates
    frames = []
    for metric in ("f1", "shd"):
        if metric not in inst.columns:
            continue
        win = an.win_rates(inst, metric)
        frames.append(win.reset_index().assign(metric=metric))
        fig(
            "Pairwise win rates",
            plots.plot_win_rates(
                win, out / "plots" / f"win_rates_{metric}.png", metric=metric, metadata=meta
            ),
            f"Mean pairwise win rate on {metric.upper()} per SCM family (ties count 0.5)",
        )
    if frames:
        keep(_write_csv(pd.concat(frames, ignore_index=True), out / "win_rates.csv", prov))

    # accuracy-cost and precision-recall
    if "runtime_s" in inst.columns:
        fig(
            "Accuracy and cost",
            plots.plot_frontier(board, out / "plots" / "frontier.png", metadata=meta),
            "Pooled F1 against mean runtime per instance; dashed line: Pareto frontier",
        )
    if {"precision", "recall"} <= set(board.columns):
        fig(
            "Accuracy and cost",
            plots.plot_precision_recall(
                board, out / "plots" / "precision_recall.png", metadata=meta
            ),
            "Pooled precision against pooled recall (dotted: F1 iso-lines)",
        )
    if "d" in inst.columns and "f1" in inst.columns:
        fig(
            "Scale",
            plots.plot_metric_vs_d(
                an.slice_means(inst, "d", "f1"), out / "plots" / "f1_vs_d.png", metadata=meta
            ),
            "Mean F1 against the number of variables d",
        )
    if {"runtime_s", "d"} <= set(inst.columns):
        keep(_write_csv(an.runtime_table(inst), out / "runtime.csv", prov, index=True))

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
            plots.plot_interaction(
                inter, out / "plots" / f"interaction_{name}.png", factor=factor, metadata=meta
            ),
            f"Double-centred F1 interaction, method x {factor}",
            wide=inter.shape[1] > 8,
        )

    # OOD
    if priors is not None:
        axes = ood_factors
        if axes is None:
            axes = sorted({a for p in priors.values() for a in (p or {}) if a in inst.columns})
        if axes:
            ood = an.ood_scores(inst, priors, list(reference_methods or []), list(axes))
            keep(_write_csv(ood, out / "ood.csv", prov))
            fig(
                "Pretraining-exposure OOD score",
                plots.plot_ood(ood, out / "plots" / "ood.png", metadata=meta),
                "Relative F1 gain over the reference group on in-prior (ID) and "
                "out-of-prior (OOD) categories",
                wide=len(axes) > 2,
            )

    tables = [k for k in written if k.endswith((".csv", ".md", ".parquet"))]
    index = out / "index.html"
    index.write_text(_html(board, title, prov, figures, tables), encoding="utf-8")
    keep(index)

    prov_path = out / "provenance.json"
    record = dict(prov)
    record["files"] = {k: _sha256(p) for k, p in sorted(written.items())}
    prov_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    keep(prov_path)
    return written
