"""Lab results through the report machinery: a leaderboard per suite and trajectory plots.

Input: a folder written by ``causalarena lab run ... --out DIR`` (one ``<agent>.jsonl`` per
agent, one scored row per episode, :func:`causalarena.eval.lab_run.play`).  Output (``OUT``):

- ``lab_leaderboard.csv``: one row per ``suite x agent``: episodes, non-ok runs, and the
  mean of every :data:`BOARD` metric with its seeded 95% bootstrap CI over episodes
  (:func:`causalarena.eval.analyses.bootstrap_ci`, BCa, the same rule as every other
  leaderboard of the package);
- ``lab_configs.csv``: the per-config means (:func:`causalarena.eval.lab_run.summarise`);
- ``figures/lab_trajectories_<suite>.png``: mean all-edge F1 and target-edge F1 of the
  recorded hypotheses against the number of interventions, one line per agent x config
  (:func:`causalarena.eval.lab_run.trajectory_curves`);
- ``leaderboard.md`` and ``index.html`` rendered from the Jinja2 templates
  ``eval/templates/lab.md.j2`` / ``lab.html.j2`` (sharing ``_macros.j2`` and ``style.css``
  with the arena report), and ``provenance.json`` (input files with their sha256, package
  version, bootstrap seed).

A run whose agent failed (``status`` not ``ok``) is scored as it stands and counted in the
``errors`` column; it is never dropped.  Metrics (CausaLab section 5, appendix Tables 7-8):
task success (``|prediction - held-out| < 5``, best of at most 3), all-edge F1, target-edge
F1, target-weight F1, directed SHD and the IMEC size left by the agent's interventions.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from causalarena.errors import LabError

#: Leaderboard metrics: (result-row key, column title, format, scale).
BOARD: tuple[tuple[str, str, str, float], ...] = (
    ("success", "Success %", "{:.1f}", 100.0),
    ("edge_f1", "All-edge F1", "{:.3f}", 1.0),
    ("target_edge_f1", "Target-edge F1", "{:.3f}", 1.0),
    ("target_weight_f1", "Weight F1", "{:.3f}", 1.0),
    ("shd", "SHD", "{:.2f}", 1.0),
    ("imec_size", "IMEC", "{:.2f}", 1.0),
)
MISSING = "—"
_REQUIRED = ("episode_id", "agent", "suite", "config")


def is_lab_results(folder: str | Path) -> bool:
    """Whether ``folder`` holds ``lab run --out`` results (a ``*.jsonl`` whose first row is
    a lab result row) rather than arena predictions."""
    folder = Path(folder)
    if not folder.is_dir():
        return False
    for path in sorted(folder.glob("*.jsonl")):
        try:
            with path.open(encoding="utf-8") as fh:
                first = fh.readline(1_000_000)
            row = json.loads(first)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if isinstance(row, dict) and all(k in row for k in _REQUIRED):
            return True
    return False


def load_results(folder: str | Path) -> list[dict[str, Any]]:
    """Every result row of every ``*.jsonl`` in ``folder`` (file order, then line order).

    Raises
    ------
    LabError
        No result file, or a line that is not a result row (names file, line and field).
    """
    folder = Path(folder)
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise LabError(f"{folder}: no lab result files (*.jsonl from `causalarena lab run --out`)")
    rows: list[dict[str, Any]] = []
    for path in files:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                raise LabError(f"{path}: line {i + 1} is not JSON") from None
            if not isinstance(row, dict):
                raise LabError(f"{path}: line {i + 1} is not a result object")
            missing = [k for k in _REQUIRED if k not in row]
            if missing:
                raise LabError(f"{path}: line {i + 1} has no field {missing[0]!r}")
            rows.append(row)
    return rows


def _values(rows: Sequence[Mapping[str, Any]], key: str) -> list[float]:
    out = []
    for r in rows:
        v = r.get(key)
        if v is None or isinstance(v, str):
            continue
        v = float(v)
        if math.isfinite(v):
            out.append(v)
    return out


def leaderboard(rows: Sequence[Mapping[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """One entry per ``(suite, agent)``: ``n``, ``errors`` and, per :data:`BOARD` metric,
    ``<metric>`` (mean over episodes), ``<metric>_ci_low`` / ``<metric>_ci_high`` (95%
    bootstrap CI, seeded by ``seed``).  Sorted by suite, then success, then all-edge F1
    (both descending).  Means are in the row's units (success as a fraction)."""
    from causalarena.eval.analyses import bootstrap_ci

    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for r in rows:
        groups.setdefault((str(r["suite"]), str(r["agent"])), []).append(r)
    out = []
    for (suite, agent), rs in groups.items():
        e: dict[str, Any] = {"suite": suite, "agent": agent, "n": len(rs)}
        e["errors"] = sum(1 for r in rs if r.get("status", "ok") != "ok")
        e["configs"] = len({r["config"] for r in rs})
        for key, *_ in BOARD:
            vals = _values(rs, key)
            e[key] = sum(vals) / len(vals) if vals else math.nan
            lo, hi = bootstrap_ci(vals, seed=seed) if vals else (math.nan, math.nan)
            e[f"{key}_ci_low"], e[f"{key}_ci_high"] = float(lo), float(hi)
        out.append(e)

    def order(e: Mapping[str, Any]) -> tuple:
        def neg(v: float) -> float:
            return -v if math.isfinite(v) else math.inf

        return (e["suite"], neg(e["success"]), neg(e["edge_f1"]), e["agent"])

    return sorted(out, key=order)


def _cell(v: float, lo: float, hi: float, spec: str, scale: float) -> str:
    if not math.isfinite(v):
        return MISSING
    text = spec.format(v * scale)
    if math.isfinite(lo) and math.isfinite(hi):
        text += f" [{spec.format(lo * scale)}, {spec.format(hi * scale)}]"
    return text


def _board_table(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    header = ["Rank", "Agent", "Episodes", "Errors", *[b[1] for b in BOARD]]
    rows = []
    for rank, e in enumerate(entries, start=1):
        cells = [str(rank), e["agent"], str(e["n"]), str(e["errors"])]
        cells += [
            _cell(e[k], e[f"{k}_ci_low"], e[f"{k}_ci_high"], spec, scale)
            for k, _, spec, scale in BOARD
        ]
        rows.append(cells)
    return {"header": header, "rows": rows, "text": {1}}


def _config_table(summary: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    header = ["Agent", "Config", "Episodes", *[b[1] for b in BOARD]]
    rows = []
    for s in sorted(summary, key=lambda s: (s["config"], s["agent"] or "")):
        cells = [str(s["agent"]), str(s["config"]), str(s["n"])]
        for k, _, spec, scale in BOARD:
            v = s.get(k)
            cells.append(MISSING if v is None else spec.format(float(v) * scale))
        rows.append(cells)
    return {"header": header, "rows": rows, "text": {0, 1}}


def plot_suite_trajectories(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Two panels (all-edge F1, target-edge F1 of the latest recorded hypothesis) against
    the number of interventions; one line per ``agent / config``; PNG at ``path``."""
    from causalarena._extras import require

    require("matplotlib", "plots", "drawing lab report figures").use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    from causalarena.eval.lab_run import trajectory_curves

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, metric, label in ((axes[0], 1, "all-edge F1"), (axes[1], 2, "target-edge F1")):
        for name, ys in sorted(trajectory_curves(rows, metric).items()):
            ax.plot(range(len(ys)), ys, label=name, marker="o", markersize=2)
        ax.set_xlabel("interventions so far")
        ax.set_ylabel(f"{label} of the recorded hypothesis")
        ax.set_ylim(0, 1.02)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{rows[0]['suite']}: trajectories (mean over episodes)", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _env(html_mode: bool):

    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("causalarena.eval", "templates"),
        autoescape=html_mode,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["md"] = lambda v: str(v).replace("|", "\\|")
    return env


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_NOTE = (
    "One leaderboard per suite. Means over episodes with 95% bootstrap confidence intervals "
    "(BCa, over episodes) in brackets. Success: |prediction − held-out| < 5 with the best of "
    "at most 3 submissions (percent). All-edge, target-edge and weight F1 (coefficient within "
    "1e-6) and directed SHD compare the final hypothesis with the hidden SCM; IMEC is the "
    "number of DAGs left in the interventional Markov equivalence class by the agent's own "
    "interventions (CausaLab appendix Table 8). Errors: runs whose agent failed, scored as "
    "they stand (never dropped)."
)


def write_lab_report(
    results: str | Path | Sequence[Mapping[str, Any]],
    out_dir: str | Path,
    *,
    title: str | None = None,
    seed: int = 0,
) -> dict[str, Path]:
    """Write the lab report (see the module docstring) and return ``{name: path}``.

    Parameters
    ----------
    results : path or sequence of dict
        A ``lab run --out`` folder, or the result rows themselves.
    out_dir : path
        Report folder (created).
    seed : int
        Seed of every bootstrap CI (same inputs and seed give the same bytes of the CSV).

    Raises
    ------
    LabError
        Unreadable results (see :func:`load_results`) or no rows.
    """
    import csv

    from causalarena import __version__
    from causalarena.eval.lab_run import summarise

    sources: list[Path] = []
    if isinstance(results, (str, Path)):
        sources = sorted(Path(results).glob("*.jsonl"))
        rows = load_results(results)
        title = title or f"causalarena lab leaderboard ({Path(results).name})"
    else:
        rows = [dict(r) for r in results]
        title = title or "causalarena lab leaderboard"
    if not rows:
        raise LabError("no lab result rows to report")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    board = leaderboard(rows, seed)
    summary = summarise(rows)
    paths: dict[str, Path] = {}

    cols = ["suite", "agent", "n", "errors", "configs"]
    cols += [c for k, *_ in BOARD for c in (k, f"{k}_ci_low", f"{k}_ci_high")]
    p = out / "lab_leaderboard.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows({c: e[c] for c in cols} for e in board)
    paths["lab_leaderboard.csv"] = p
    ccols = ["agent", "suite", "config", "n", "errors", *[b[0] for b in BOARD], "budget_used"]
    p = out / "lab_configs.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=ccols, extrasaction="ignore")
        w.writeheader()
        w.writerows(summary)
    paths["lab_configs.csv"] = p

    sections = []
    for suite in sorted({e["suite"] for e in board}):
        srows = [r for r in rows if str(r["suite"]) == suite]
        fig = plot_suite_trajectories(srows, out / "figures" / f"lab_trajectories_{suite}.png")
        paths[fig.name] = fig
        entries = [e for e in board if e["suite"] == suite]
        sections.append(
            {
                "id": f"suite-{suite}",
                "title": f"{suite}",
                "note": f"{len(srows)} episodes, {len({r['config'] for r in srows})} configs.",
                "table": _board_table(entries),
                "configs": _config_table([s for s in summary if s["suite"] == suite]),
                "figure": {
                    "src": f"figures/{fig.name}",
                    "caption": f"{suite}: mean all-edge and target-edge F1 of the recorded "
                    "hypotheses by number of interventions",
                },
            }
        )
    prov = {
        "title": title,
        "report_package_version": __version__,
        "bootstrap_seed": seed,
        "n_rows": len(rows),
        "agents": sorted({str(r["agent"]) for r in rows}),
        "suites": sorted({str(r["suite"]) for r in rows}),
        "inputs": {s.name: _sha256(s) for s in sources},
    }
    footer = (
        f"{len(rows)} episodes · agents {', '.join(prov['agents'])} · report by causalarena "
        f"{__version__} · bootstrap seed {seed}"
    )
    ctx = dict(title=title, note=_NOTE, sections=sections, footer=footer)
    p = out / "leaderboard.md"
    p.write_text(_env(False).get_template("lab.md.j2").render(**ctx), encoding="utf-8")
    paths["leaderboard.md"] = p
    from importlib.resources import files

    from markupsafe import Markup

    css = files("causalarena.eval").joinpath("templates/style.css").read_text(encoding="utf-8")
    p = out / "index.html"
    p.write_text(
        _env(True).get_template("lab.html.j2").render(css=Markup(css), **ctx), encoding="utf-8"
    )
    paths["index.html"] = p
    p = out / "provenance.json"
    p.write_text(json.dumps(prov, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    paths["provenance.json"] = p
    return paths
